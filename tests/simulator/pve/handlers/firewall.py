"""/cluster/firewall, /nodes/{node}/firewall, the guests' and the vnets' firewalls: aliases, ipsets, security
groups, rules, options, refs.

A port of pve-firewall (PVE 9): ``src/PVE/API2/Firewall/{Aliases,IPSet,Groups,Rules,Cluster,Host,VM,Vnet}.pm``
and ``API2/Firewall/Helpers.pm`` for the API and ``src/PVE/Firewall.pm`` for the files behind it (``cluster.fw``,
each node's ``host.fw``, ``<vmid>.fw``, ``sdn/firewall/<vnet>.fw``): ``parse_alias``, ``parse_ip_or_cidr``,
``parse_fw_rule``, ``verify_rule``, ``copy_rule_data``, ``delete_rule_properties``, ``copy_list_with_digest`` and
``copy_opject_with_digest``, the ``$format_*`` writers and the formats pve-firewall registers.

``state.firewall`` holds ``{"cluster": {...}, "hosts": {node: {...}}, "guests": {vmid: {...}}, "vnets": {vnet:
{...}}}``. A guest's file is one per vmid, read the same through ``qemu`` and ``lxc`` paths and from every node:
PVE checks neither that the guest exists nor where it lives (an unknown vmid reads as an empty file); a vnet's
firewall needs the vnet in the running SDN config. Every write ends by
normalising the written file the way PVE's save and next parse do (PVE re-reads the file on
every request): ipset and security group names lower-cased, an ipset address cleaned on its way in
(``clean_cidr``: host bits cleared), ``/32`` and ``/128`` dropped, ipset entries sorted by address and
de-duplicated, comments trimmed (an empty or ``0`` comment is not kept), a rule's ``enable`` always 0 or 1,
``ipversion`` worked out, macro names in PVE's spelling, a rule of type ``group`` keeping only action, iface,
enable, comment. A guest's or vnet's file left with nothing in it is unlinked, as its writer does.

Digests are PVE's: SHA-1 over the list (or the options object) the answer is made of, not
over the file, so an alias list's digest ignores the rules and vice versa.
"""

import hashlib
import ipaddress
import re
import time

from ...errors import ApiError, die, die_at, locked, param_exc, perl_at
from ...formats import FORMATS, FormatError, split_list
from ..state import register_slice
from .base import route

register_slice("firewall", dict)  # scope -> firewall config

NAME = r"[A-Za-z][A-Za-z0-9\-_]+"
NAME_RE = re.compile(rf"^{NAME}$")
# A reference to an alias or an ipset may name its scope (PVE 8+): dc/name, guest/name, +sdn/name.
ALIAS_REF_RE = re.compile(rf"^(?:(dc|guest)/)?({NAME})$")
IPSET_REF_RE = re.compile(rf"^\+(?:(dc|guest|sdn)/)?({NAME})$")
MAX_ALIAS_NAME = 64
MAX_IPSET_NAME = 64

PROTOCOLS_WITH_PORTS = {"udp", "17", "udplite", "136", "tcp", "6", "dccp", "33", "sctp", "132"}
# Debian's /etc/protocols (name -> number), plus PVE's own icmpv6.
PROTOCOLS = {
    "ip": 0, "icmp": 1, "igmp": 2, "ggp": 3, "ipencap": 4, "st": 5, "tcp": 6, "egp": 8, "igp": 9, "pup": 12,
    "udp": 17, "hmp": 20, "xns-idp": 22, "rdp": 27, "iso-tp4": 29, "dccp": 33, "xtp": 36, "ddp": 37,
    "idpr-cmtp": 38, "ipv6": 41, "ipv6-route": 43, "ipv6-frag": 44, "idrp": 45, "rsvp": 46, "gre": 47, "esp": 50,
    "ah": 51, "skip": 57, "ipv6-icmp": 58, "ipv6-nonxt": 59, "ipv6-opts": 60, "rspf": 73, "vmtp": 81,
    "eigrp": 88, "ospf": 89, "ax.25": 93, "ipip": 94, "etherip": 97, "encap": 98, "pim": 103, "ipcomp": 108,
    "vrrp": 112, "l2tp": 115, "isis": 124, "sctp": 132, "fc": 133, "mobility-header": 135, "udplite": 136,
    "mpls-in-ip": 137, "manet": 138, "hip": 139, "shim6": 140, "wesp": 141, "rohc": 142, "ethernet": 143,
}
# The service names of a stock /etc/services the tests use (PVE looks the name up there).
SERVICES = {
    "ftp-data", "ftp", "ssh", "telnet", "smtp", "domain", "bootps", "bootpc", "tftp", "http", "kerberos", "pop3",
    "sunrpc", "ntp", "netbios-ns", "netbios-dgm", "netbios-ssn", "imap2", "snmp", "snmp-trap", "ldap", "https",
    "microsoft-ds", "submissions", "syslog", "submission", "ldaps", "rsync", "imaps", "pop3s", "openvpn",
    "mysql", "postgresql", "nfs", "x11", "iscsi-target",
}
ICMP_TYPES = {
    "any", "echo-reply", "destination-unreachable", "network-unreachable", "host-unreachable",
    "protocol-unreachable", "port-unreachable", "fragmentation-needed", "source-route-failed", "network-unknown",
    "host-unknown", "network-prohibited", "host-prohibited", "TOS-network-unreachable", "TOS-host-unreachable",
    "communication-prohibited", "host-precedence-violation", "precedence-cutoff", "source-quench", "redirect",
    "network-redirect", "host-redirect", "TOS-network-redirect", "TOS-host-redirect", "echo-request",
    "router-advertisement", "router-solicitation", "time-exceeded", "ttl-zero-during-transit",
    "ttl-zero-during-reassembly", "parameter-problem", "ip-header-bad", "required-option-missing",
    "timestamp-request", "timestamp-reply", "address-mask-request", "address-mask-reply",
}
ICMPV6_TYPES = {
    "destination-unreachable", "no-route", "communication-prohibited", "beyond-scope", "address-unreachable",
    "port-unreachable", "failed-policy", "reject-route", "packet-too-big", "time-exceeded", "ttl-zero-during-transit",
    "ttl-zero-during-reassembly", "parameter-problem", "bad-header", "unknown-header-type", "unknown-option",
    "echo-request", "echo-reply", "router-solicitation", "router-advertisement", "neighbor-solicitation",
    "neighbour-solicitation", "neighbor-advertisement", "neighbour-advertisement", "redirect",
}
# $pve_fw_macros and $pve_ipv6fw_macros: each macro's rules as (proto, dport[, sport]), the action always PARAM.
# A macro only in the IPv6 table is an IPv6 one ($pve_fw_macro_ipversion).
MACRO_RULES = {
    'Amanda': [('udp', '10080'), ('tcp', '10080')], 'Auth': [('tcp', '113')], 'BGP': [('tcp', '179')],
    'BitTorrent': [('tcp', '6881:6889'), ('udp', '6881')], 'BitTorrent32': [('tcp', '6881:6999'), ('udp', '6881')],
    'Ceph': [('tcp', '6789'), ('tcp', '3300'), ('tcp', '6800:7300')],
    'Citrix': [('tcp', '1494'), ('udp', '1604'), ('tcp', '2598')], 'CVS': [('tcp', '2401')],
    'DAAP': [('tcp', '3689'), ('udp', '3689')], 'DCC': [('tcp', '6277')], 'DHCPfwd': [('udp', '67:68', '67:68')],
    'Distcc': [('tcp', '3632')], 'DNS': [('udp', '53'), ('tcp', '53')], 'Finger': [('tcp', '79')],
    'FTP': [('tcp', '21')], 'Git': [('tcp', '9418')],
    'GNUnet': [('tcp', '2086'), ('udp', '2086'), ('tcp', '1080'), ('udp', '1080')], 'GRE': [('47',)],
    'HKP': [('tcp', '11371')], 'HTTP': [('tcp', '80')], 'HTTPS': [('tcp', '443')], 'ICPV2': [('udp', '3130')],
    'ICQ': [('tcp', '5190')], 'IMAP': [('tcp', '143')], 'IMAPS': [('tcp', '993')], 'IPIP': [('94',)],
    'IPsec': [('udp', '500', '500'), ('50',)], 'IPsecah': [('udp', '500', '500'), ('51',)],
    'IPsecnat': [('udp', '500'), ('udp', '4500'), ('50',)], 'IRC': [('tcp', '6667')], 'Jetdirect': [('tcp', '9100')],
    'L2TP': [('udp', '1701')], 'LDAP': [('tcp', '389')], 'LDAPS': [('tcp', '636')],
    'Mail': [('tcp', '25'), ('tcp', '465'), ('tcp', '587')], 'MDNS': [('udp', '5353')], 'MSNP': [('tcp', '1863')],
    'MSSQL': [('tcp', '1433')], 'Munin': [('tcp', '4949')], 'MySQL': [('tcp', '3306')], 'NNTP': [('tcp', '119')],
    'NNTPS': [('tcp', '563')], 'NTP': [('udp', '123')], 'OpenVPN': [('udp', '1194')], 'OSPF': [('89',)],
    'PCA': [('udp', '5632'), ('tcp', '5631')], 'Ping': [('icmp', 'echo-request')], 'PMG': [('tcp', '8006')],
    'POP3': [('tcp', '110')], 'POP3S': [('tcp', '995')], 'PostgreSQL': [('tcp', '5432')],
    'PPtP': [('47',), ('tcp', '1723')], 'Printer': [('tcp', '515')], 'Razor': [('tcp', '2703')],
    'Rdate': [('tcp', '37')], 'RDP': [('tcp', '3389')], 'RIP': [('udp', '520')], 'RNDC': [('tcp', '953')],
    'Rsync': [('tcp', '873')], 'SANE': [('tcp', '6566')],
    'SixXS': [('tcp', '3874'), ('udp', '3740'), ('41',), ('udp', '5072,8374')],
    'SMB': [('udp', '135,445'), ('udp', '137:139'), ('udp', '1024:65535', '137'), ('tcp', '135,139,445')],
    'SMBswat': [('tcp', '901')], 'SMTP': [('tcp', '25')], 'SMTPS': [('tcp', '465')],
    'SNMP': [('udp', '161:162'), ('tcp', '161')], 'SPAMD': [('tcp', '783')], 'SPICEproxy': [('tcp', '3128')],
    'Squid': [('tcp', '3128')], 'SSH': [('tcp', '22')], 'Submission': [('tcp', '587')], 'SVN': [('tcp', '3690')],
    'Syslog': [('udp', '514'), ('tcp', '514')], 'Telnet': [('tcp', '23')], 'Telnets': [('tcp', '992')],
    'TFTP': [('udp', '69')], 'Time': [('tcp', '37')], 'Trcrt': [('udp', '33434:33524'), ('icmp', 'echo-request')],
    'VNC': [('tcp', '5900:5999')], 'VNCL': [('tcp', '5500')], 'Web': [('tcp', '80'), ('tcp', '443')],
    'Webcache': [('tcp', '8080')], 'Webmin': [('tcp', '10000')], 'Whois': [('tcp', '43')],
}
IPV6_MACRO_RULES = {
    'DHCPv6': [('udp', '546:547', '546:547')],
    'NeighborDiscovery': [('icmpv6', 'router-solicitation'), ('icmpv6', 'router-advertisement'),
                          ('icmpv6', 'neighbor-solicitation'), ('icmpv6', 'neighbor-advertisement')],
    'Ping': [('icmpv6', 'echo-request')], 'Trcrt': [('udp', '33434:33524'), ('icmpv6', 'echo-request')],
}
MACROS = sorted(set(MACRO_RULES) | set(IPV6_MACRO_RULES))
PREFERRED_MACRO = dict((name.lower(), name) for name in MACROS)
CONNTRACK_HELPERS = {"amanda", "ftp", "irc", "netbios-ns", "pptp", "sane", "sip", "snmp", "tftp"}
# $rule_properties: what copy_rule_data copies and delete_rule_properties knows.
RULE_KEYS = ("pos", "digest", "type", "action", "macro", "iface", "source", "dest", "proto", "enable", "log",
             "sport", "dport", "comment", "icmp-type")
# Which keys the file keeps for a rule ($format_rules); a group rule keeps action, iface, enable, comment.
MATCH_KEYS = ("source", "dest", "proto", "dport", "sport", "log", "icmp-type")
DIRECTIONS = ("in", "out", "forward")
# $rule_env_direction_lookup and $rule_env_iface_lookup: the rule types each scope takes, and whether its rules
# may name an interface. A guest has no forward chain; a vnet has nothing but one.
RULE_ENV_TYPES = {"ct": ("in", "out", "group"), "vm": ("in", "out", "group"), "group": DIRECTIONS,
                  "cluster": DIRECTIONS + ("group",), "host": DIRECTIONS + ("group",), "vnet": ("forward", "group")}
RULE_ENV_IFACE = {"ct": True, "vm": True, "group": False, "vnet": False, "cluster": True, "host": True}
MODIFIED = "detected modified configuration - file changed by other user? Try again."


# -- pve-firewall's formats (Firewall.pm register_format) ---------------------------------------

def _ip(text):
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


# Net::IP (libnet-ip-perl 1.26, Net/IP.pm), which pve-firewall asks whether an address is one: its checks and
# its $ERROR texts, for the forms pve-firewall hands it (an address, an address/prefix, an a-b range).

def _netip_v4_error(ip):
    """ip_is_ipv4: None when ``ip`` is one, else Net::IP's text."""
    if not re.fullmatch(r"[\d.]+", ip):
        return f"Invalid chars in IP {ip}"
    if ip.startswith("."):
        return f"Invalid IP {ip} - starts with a dot"
    if ip.endswith("."):
        return f"Invalid IP {ip} - ends with a dot"
    if re.fullmatch(r"\d+", ip) and int(ip) < 256:
        return None
    if ip.count(".") >= 4:
        return f"Invalid IP address {ip}"
    if ".." in ip:
        return f"Empty quad in IP address {ip}"
    for quad in ip.split("."):
        if int(quad) >= 256:
            return f"Invalid quad in IP address {ip} - {quad}"
    return None


def _netip_v6_error(ip):
    """ip_is_ipv6: None when ``ip`` is one, else Net::IP's text ('' where it sets none)."""
    colons = ip.count(":")
    if not 0 < colons < 8:
        return ""
    for index, part in enumerate(perl_split(ip, ":"), 1):
        if part == "" or re.fullmatch(r"[a-fA-F\d]{1,4}", part):
            continue
        if index == colons + 1 and _netip_v4_error(part) is None:
            colons += 1  # an embedded IPv4 address counts as two groups
            continue
        return f"Invalid IP address {ip}"
    if re.match(r"^:[^:]", ip):
        return f"Invalid address {ip} (starts with :)"
    if re.search(r"[^:]:$", ip):
        return f"Invalid address {ip} (ends with :)"
    if len(re.findall(r":(?=:)", ip)) > 1:
        return f"Invalid address {ip} (More than one :: pattern)"
    if colons != 7 and "::" not in ip:
        return f"Invalid number of octets {ip}"
    return None


def _netip_version(ip):
    """ip_get_version: 4 or 6, else FormatError with the last text a check set."""
    v4_error = ""
    if ":" not in ip:
        v4_error = _netip_v4_error(ip)
        if v4_error is None:
            return 4
    v6_error = _netip_v6_error(ip)
    if v6_error is None:
        return 6
    # Net::IP leaves $ERROR as an earlier call set it when neither check sets one (8+ colons): not knowable here
    raise FormatError(v6_error or v4_error or f"Invalid IP address {ip}")


def _netip_expand(ip, version):
    """ip_expand_address: IPv4 with the missing quads as 0, IPv6 as eight 4-digit groups."""
    if version == 4:
        quads = perl_split(ip, ".")
        if len(quads) > 4:
            raise FormatError(f"Not a valid IPv address {ip}")
        if any(not re.fullmatch(r"\d{1,3}", quad) for quad in quads):
            raise FormatError(f"Not a valid IPv4 address {ip}")
        return ".".join(([str(int(quad)) for quad in quads] + ["0"] * 4)[:4])
    if len(re.findall("::", ip)) > 1:
        raise FormatError("Too many :: in ip")
    groups = perl_split(ip.replace("::", ":!:"), ":")
    count = len(groups)
    for index, group in enumerate(groups):
        if "." in group:
            value = int.from_bytes(bytes(int(quad) % 256 for quad in _netip_expand(group, 4).split(".")), "big")
            groups[index] = f"{value >> 16:04x}:{value & 0xffff:04x}"
            count += 1
        else:
            groups[index] = "0" * (4 - len(group)) + group
    if "000!" in groups:
        groups[groups.index("000!")] = ":".join(["0000"] * (9 - count))
    return ":".join(groups).lower()


def _netip_bin(ip, version):
    """ip_iptobin, as an int and its width."""
    if version == 4:
        return int.from_bytes(bytes(int(quad) % 256 for quad in ip.split(".")), "big"), 32
    digits = ip.replace(":", "")
    if len(digits) != 32:
        raise FormatError(f"Bad IP address {digits}")
    return int(digits, 16), 128


def _netip_check_prefix(value, width, length):
    """ip_check_prefix; the bad-prefix text shows the address in binary, as Net::IP prints it."""
    if int(length) > width:
        raise FormatError(f"Prefix length {length} is longer than IP address ({width})")
    if value & ((1 << (width - int(length))) - 1):
        raise FormatError(f"Invalid prefix {value:0{width}b}/{length}")


def _netip_bintoip(value, version):
    if version == 4:
        return ".".join(str(byte) for byte in value.to_bytes(4, "big"))
    text = f"{value:032x}"
    return ":".join(text[at:at + 4] for at in range(0, 32, 4))


def net_ip(text):
    """Net::IP->new (ip_normalize, then set): the IP version, or FormatError with Net::IP::Error()'s text."""
    prefix = re.match(r"^(\S+?)(/\S+)$", text)
    span = None if prefix else re.match(r"^(.+?)\s*-\s*(.+)$", text)
    if prefix:
        version = _netip_version(prefix.group(1))
        begin = _netip_expand(prefix.group(1), version)
        value, width = _netip_bin(begin, version)
        lengths = prefix.group(2)
        while lengths:
            step = re.match(r"^/(\d+)(,|$)", lengths)
            if not step:
                break  # Net::IP stops at what is not a prefix length and keeps the address
            lengths = lengths[step.end():]
            _netip_check_prefix(value, width, step.group(1))
            value |= (1 << (width - int(step.group(1)))) - 1
            if step.group(2):
                value += 1
        end = _netip_bintoip(value, version)
    elif span:
        version = _netip_version(span.group(1))
        begin, end = _netip_expand(span.group(1), version), _netip_expand(span.group(2), version)
    else:
        version = _netip_version(text)
        begin = end = _netip_expand(text, version)
    low = _netip_bin(begin, version)[0]
    if _netip_version(end) != version:
        raise FormatError(f"Begin and End addresses have different IP versions - {begin} - {end}")
    if low > _netip_bin(end, version)[0]:
        raise FormatError(f"Begin address is greater than End address {begin} - {end}")
    return version


def clean_cidr(cidr):
    """clean_cidr: the host bits of a network cleared (Net::IP's bit masking; IPv6 compressed); an address as given."""
    address, slash, bits = cidr.partition("/")
    if bits in ("", "0"):  # Perl's `return $cidr if !$len`: a length of "0" is false too
        return cidr
    try:
        return ipaddress.ip_network(cidr, strict=False).with_prefixlen
    except ValueError:
        return cidr


def verify_ip_or_cidr(value):
    """pve_verify_ip_or_cidr (the ``IPorCIDR`` format pve-firewall registers): an IP with an optional /bits,
    cleaned by clean_cidr, then Net::IP's own checks and texts (``die Net::IP::Error() . "\\n"``)."""
    address, _slash, _bits = value.partition("/")
    if _ip(address) is None or not re.match(r"^[^/]+(/\d+)?$", value):
        raise FormatError("value does not look like a valid IP address or CIDR network")
    net_ip(clean_cidr(value))


def verify_ip_or_cidr_or_alias(value):
    if ALIAS_REF_RE.match(value):
        return
    verify_ip_or_cidr(value)


def perl_split(text, separator=","):
    """Perl's split(/,/, ...): trailing empty fields are dropped, the others kept."""
    elements = text.split(separator)
    while elements and elements[-1] == "":
        elements.pop()
    return elements


def parse_address_list(text):
    """parse_address_list: an ipset or alias reference, or a comma list of addresses; the IP version."""
    if text.startswith("+"):
        if len(text) > MAX_IPSET_NAME + 1:
            raise FormatError("ipset name too long")
        return None
    if ALIAS_REF_RE.match(text):
        if len(text) > MAX_ALIAS_NAME:
            raise FormatError("alias name too long")
        return None
    elements = perl_split(text)
    if text != ",".join(elements):
        raise FormatError("extraneous commas in list")
    version = None
    for element in elements:
        try:
            found = net_ip(element)
        except FormatError as err:
            raise FormatError(f"invalid IP address: {err.message.strip()}") from err
        if version and found != version:
            raise FormatError(f"detected mixed ipv4/ipv6 addresses in address list '{text}'")
        version = found
    if len(elements) > 1 and any("-" in element for element in elements):
        raise FormatError("you can't use a range in a list")
    return version


def parse_ports(text, dport):
    """parse_port_name_number_or_range; ``dport`` is 1 only for the dport of an ICMP rule (and the format)."""
    elements = perl_split(text)
    if text != ",".join(elements):
        raise FormatError("extraneous commas in list")
    count, icmp_port = 0, False
    for item in elements:
        span = re.match(r"^(\d+):(\d+)$", item)
        if span:
            count += 2
            first, last = int(span.group(1)), int(span.group(2))
            for port in (first, last):
                if port > 65535:
                    raise FormatError(f"invalid port '{port}'")
            if first > last:
                raise FormatError(f"backwards range '{first}:{last}' not allowed, did you mean '{last}:{first}'?")
        elif item.isdigit():
            count += 1
            if int(item) > 65535:
                raise FormatError(f"invalid port '{item}'")
        elif dport and (item in ICMP_TYPES or item in ICMPV6_TYPES):
            icmp_port = True
        elif item not in SERVICES:
            raise FormatError(f"invalid port '{item}'")
    if icmp_port and count:
        raise FormatError("ICMP ports not allowed in port range")
    if count > 15:
        raise FormatError("too many entries in port list (> 15 numbers)")


def verify_protocol(value):
    if value and value not in PROTOCOLS and value != "icmpv6" and not (
            value.isdigit() and int(value) in PROTOCOLS.values()):
        raise FormatError(f"unknown protocol '{value}'")


def verify_icmp_type(value):
    if value and value not in ICMP_TYPES and value not in ICMPV6_TYPES:
        raise FormatError(f"invalid icmp-type value '{value}'")


def verify_conntrack_helper(value):
    helpers = perl_split(value)
    if value != ",".join(helpers):
        raise FormatError("extraneous commas in list")
    for helper in helpers:
        if helper not in CONNTRACK_HELPERS:
            # Firewall.pm pve_fw_verify_conntrack_helper dies without a newline: Perl adds where (mirror 6f1311f)
            raise FormatError(f"unknown helper {helper}" + perl_at("PVE/Firewall.pm", 1167))


# pve-firewall registers these itself (PVE::JSONSchema::register_format in Firewall.pm).
for _name, _check in (("IPorCIDR", verify_ip_or_cidr),
                      ("IPorCIDRorAlias", verify_ip_or_cidr_or_alias),
                      ("pve-fw-addr-spec", parse_address_list),
                      ("pve-fw-sport-spec", lambda value: parse_ports(value, False)),
                      ("pve-fw-dport-spec", lambda value: parse_ports(value, True)),
                      ("pve-fw-protocol-spec", verify_protocol),
                      ("pve-fw-icmp-type-spec", verify_icmp_type),
                      ("pve-fw-conntrack-helper", verify_conntrack_helper)):
    FORMATS[_name] = _check


# -- the files ------------------------------------------------------------------------------------

def cluster_conf(state):
    """cluster.fw as load_clusterfw_conf gives it."""
    return state.firewall.setdefault("cluster", {
        "options": {}, "aliases": {}, "ipset": {}, "ipset_comments": {}, "groups": {}, "group_comments": {},
        "rules": []})


def host_conf(state, node):
    """The node's host.fw (load_hostfw_conf on the node the request is proxied to)."""
    return state.firewall.setdefault("hosts", {}).setdefault(node, {"options": {}, "rules": []})


def guest_conf(state, vmid):
    """/etc/pve/firewall/<vmid>.fw as load_vmfw_conf reads it. One file per vmid in pmxcfs, the same from every
    node and for both guest types: nothing in VM.pm checks that the guest exists or lives on the node named in
    the path, so a vmid without a file reads as an empty one (generic_fw_config_parser)."""
    stored = state.firewall.get("guests", {}).get(vmid)
    return stored if stored is not None else {
        "options": {}, "aliases": {}, "ipset": {}, "ipset_comments": {}, "rules": []}


def vnet_conf(state, vnet):
    """/etc/pve/sdn/firewall/<vnet>.fw as load_vnetfw_conf reads it: options and rules only."""
    stored = state.firewall.get("vnets", {}).get(vnet)
    return stored if stored is not None else {"options": {}, "rules": []}


def _perl(value):
    return str(value)


def list_digest(items):
    """copy_list_with_digest's digest: SHA-1 over every entry's sorted ``key:value`` lines."""
    sha = hashlib.sha1()
    for entry in items:
        for key in sorted(entry):
            value = entry[key]
            if value is None or isinstance(value, (dict, list)):
                continue
            sha.update(f"{key}:{_perl(value)}\n".encode("utf-8"))
    return sha.hexdigest()


def with_digest(items):
    digest = list_digest(items)
    return [dict(entry, digest=digest) for entry in items]


def object_digest(options):
    """copy_opject_with_digest's digest (sic: PVE's spelling)."""
    sha = hashlib.sha1()
    for key in sorted(options):
        if options[key] is not None:
            sha.update(f"{key}:{_perl(options[key])}\n".encode("utf-8"))
    return sha.hexdigest()


def assert_if_modified(current, sent):
    """PVE::Tools::assert_if_modified."""
    if sent and sent != current:
        raise die(MODIFIED)


def kept_comment(comment):
    """What survives a write and a parse: trimmed; empty, blank and '0' (false in Perl) are not written."""
    text = str(comment).strip() if comment is not None else ""
    return text if text and text != "0" else None


def parse_ip_or_cidr(cidr):
    """parse_ip_or_cidr: drop /32 (IPv4) or /128 (IPv6); the IP version."""
    address = cidr.split("/")[0]
    ip = _ip(address)
    if ip is None:
        return cidr, None
    suffix = "/128" if ip.version == 6 else "/32"
    if cidr.endswith(suffix):
        cidr = cidr[:-len(suffix)]
    return cidr, ip.version


def _alias_record(alias):
    cidr, version = parse_ip_or_cidr(alias["cidr"])
    record = {"name": alias["name"], "cidr": cidr, "ipversion": version}
    comment = kept_comment(alias.get("comment"))
    if comment:
        record["comment"] = comment
    return record


def _ipset_entries(entries):
    """$format_ipsets then the parser: one line per address, sorted, duplicates dropped."""
    by_cidr = {}
    for entry in entries:
        cidr = entry["cidr"] if ALIAS_REF_RE.match(entry["cidr"]) else parse_ip_or_cidr(entry["cidr"])[0]
        if cidr in by_cidr:
            continue
        record = {"cidr": cidr}
        if entry.get("nomatch"):
            record["nomatch"] = 1
        comment = kept_comment(entry.get("comment"))
        if comment:
            record["comment"] = comment
        by_cidr[cidr] = record
    return [by_cidr[cidr] for cidr in sorted(by_cidr)]


def _lower_keys(table):
    return dict((name.lower(), value) for name, value in table.items())


def _reparsed_rule(rule, env, cluster, fw_conf):
    """$format_rules then parse_fw_rule: what of a rule a write keeps."""
    kind = str(rule["type"]).lower()
    parsed = {"type": kind, "action": rule["action"],
              "enable": 0 if "enable" in rule and not int(rule["enable"]) else 1}
    if rule.get("macro") and kind in DIRECTIONS:
        parsed["macro"] = rule["macro"]
    if rule.get("iface") and env != "group":
        parsed["iface"] = rule["iface"]
    if kind != "group":
        for key in MATCH_KEYS:
            if rule.get(key) not in (None, ""):
                parsed[key] = rule[key]
    comment = kept_comment(rule.get("comment"))
    if comment:
        parsed["comment"] = comment
    try:
        verify_rule(parsed, cluster, fw_conf, env)
    except ApiError:
        pass  # the parser keeps a rule with errors (and logs them)
    return parsed


def _kept_comments(comments, names):
    kept = {}
    for name, text in comments.items():
        if name.lower() in names and kept_comment(text):
            kept[name.lower()] = kept_comment(text)
    return kept


def save_cluster(state):
    """save_clusterfw_conf, then what the next load_clusterfw_conf reads back."""
    conf = cluster_conf(state)
    _normalise_sets(conf)
    conf["groups"] = dict((name, [_reparsed_rule(rule, "group", None, conf) for rule in rules])
                          for name, rules in _lower_keys(conf["groups"]).items())
    conf["group_comments"] = _kept_comments(conf["group_comments"], conf["groups"])
    conf["rules"] = [_reparsed_rule(rule, "cluster", None, conf) for rule in conf["rules"]]


def save_host(state, node):
    conf = host_conf(state, node)
    conf["rules"] = [_reparsed_rule(rule, "host", cluster_conf(state), conf) for rule in conf["rules"]]


def _normalise_sets(conf):
    """The aliases and ipsets of a file as $format_aliases / $format_ipsets write them and the parser reads them."""
    conf["aliases"] = dict((key.lower(), _alias_record(alias)) for key, alias in conf["aliases"].items())
    conf["ipset"] = dict((name, _ipset_entries(entries)) for name, entries in _lower_keys(conf["ipset"]).items())
    conf["ipset_comments"] = _kept_comments(conf["ipset_comments"], conf["ipset"])


def _keep_file(state, kind, key, conf):
    """file_set_contents, or unlink when the writer produced nothing (save_vmfw_conf, save_vnetfw_conf)."""
    files = state.firewall.setdefault(kind, {})
    if any(conf.get(part) for part in ("options", "aliases", "ipset", "rules")):
        files[key] = conf
    else:
        files.pop(key, None)


def save_guest(state, vmid, conf, env):
    """save_vmfw_conf, then what the next load_vmfw_conf (rule_env 'vm' or 'ct') reads back."""
    _normalise_sets(conf)
    conf["rules"] = [_reparsed_rule(rule, env, cluster_conf(state), conf) for rule in conf["rules"]]
    _keep_file(state, "guests", vmid, conf)


def save_vnet(state, vnet, conf):
    conf["rules"] = [_reparsed_rule(rule, "vnet", cluster_conf(state), conf) for rule in conf["rules"]]
    _keep_file(state, "vnets", vnet, conf)


GUEST_ENVS = ("vm", "ct")


def load_file(state, env, p):
    """(the cluster conf a rule's references are looked up in besides the file, the file): RulesBase's and the
    other bases' load_config. At cluster level the cluster conf is the file itself (None, conf)."""
    if env in ("cluster", "group"):
        return None, cluster_conf(state)
    if env == "host":
        return cluster_conf(state), host_conf(state, p["node"])
    if env in GUEST_ENVS:
        return cluster_conf(state), guest_conf(state, p["vmid"])
    return cluster_conf(state), vnet_conf(state, p["vnet"])


def save_file(state, env, p, conf):
    if env in ("cluster", "group"):
        save_cluster(state)
    elif env == "host":
        save_host(state, p["node"])
    elif env in GUEST_ENVS:
        save_guest(state, p["vmid"], conf, env)
    else:
        save_vnet(state, p["vnet"], conf)


# -- rules: verify_rule, copy_rule_data, delete_rule_properties ---------------------------------

def verify_rule(rule, cluster, fw_conf, env, sdn_sets=()):
    """verify_rule without $noerr: the first error is a 400 naming its parameter. ``sdn_sets``: the names of
    the SDN ipsets the API user may use (the rule APIs' load_sdn_conf)."""
    def error(param, message):
        raise param_exc({param: message})

    version = {"ip": None}

    def set_version(found, param, plain=False):
        """$set_ip_version: its die is a parameter error where verify_rule evals it (source, dest), a plain
        500 where it does not (an alias's version, checked after the address list)."""
        if found:
            if version["ip"] and found != version["ip"]:
                if plain:
                    raise die("detected mixed ipv4/ipv6 addresses in rule")
                error(param, "detected mixed ipv4/ipv6 addresses in rule")
            version["ip"] = found

    def check_reference(param):
        value = rule.get(param)
        if not value:
            return
        cluster_aliases = (cluster or {}).get("aliases") or {}
        local_aliases = (fw_conf or {}).get("aliases") or {}
        if value.startswith("+"):
            match = IPSET_REF_RE.match(value)
            if not match:
                error(param, f"invalid ipset name '{value}'")
            # any scope's set of that name will do; the parser keeps set names lower-cased and verify_rule looks
            # the name up as written. An +sdn/ reference is not checked: IPAM's guest sets are not simulated.
            known = set((cluster or {}).get("ipset") or {}) | set((fw_conf or {}).get("ipset") or {}) | set(sdn_sets)
            if match.group(1) != "sdn" and match.group(2) not in known:
                error(param, f"no such ipset '{match.group(2)}'")
        elif ALIAS_REF_RE.match(value):
            scope, name = ALIAS_REF_RE.match(value).groups()
            name = name.lower()
            if name not in cluster_aliases and name not in local_aliases:
                error(param, f"no such alias '{value}'")
            # the IP version comes from the alias the scope names: guest/ the file's, dc/ the cluster's
            alias = local_aliases.get(name) if scope != "dc" and fw_conf else None
            if scope != "guest" and not alias and cluster:
                alias = cluster_aliases.get(name)
            set_version((alias or {}).get("ipversion"), param, plain=True)

    kind, action = rule.get("type"), rule.get("action")
    if not kind:
        error("type", "missing property")
    if not action:
        error("action", "missing property")
    if kind not in RULE_ENV_TYPES[env]:
        error("type", f"invalid rule type '{kind}' for rule_env '{env}'")
    if kind in DIRECTIONS:
        if kind == "forward" and action == "REJECT":
            error("action", "cannot define REJECT rules on forward chain")
        if not re.match(r"^(ACCEPT|DROP|REJECT)$", action):
            error("action", f"unknown action '{action}'")
    elif kind == "group":
        if env == "group":
            error("type", "security groups not allowed")
        if not NAME_RE.match(action):
            error("action", "invalid characters in security group name")
    else:
        error("type", f"unknown rule type '{kind}'")
    if rule.get("iface"):
        if not RULE_ENV_IFACE[env]:
            error("type", "parameter -i not allowed for this rule type")
        if not re.match(r"^[a-z][a-z0-9_]{1,20}([:.]\d+)?$", rule["iface"], re.I):
            error("iface", f"invalid network interface name '{rule['iface']}'")
        if env in GUEST_ENVS and not re.match(r"^net(\d+)$", rule["iface"]):
            error("iface", "value does not match the regex pattern 'net\\d+'")
    if rule.get("macro"):
        preferred = PREFERRED_MACRO.get(str(rule["macro"]).lower())
        if not preferred:
            error("macro", f"unknown macro '{rule['macro']}'")
        rule["macro"] = preferred
    proto = rule.get("proto")
    is_icmp = proto in ("icmp", "icmpv6", "ipv6-icmp")
    if proto:
        try:
            verify_protocol(proto)
        except FormatError as err:
            error("proto", err.message.strip())
        set_version(4 if proto == "icmp" else 6 if proto in ("icmpv6", "ipv6-icmp") else None, "proto")
    # dport, then icmp-type, then sport, as verify_rule does; ICMP type names are ports only of an ICMP rule's dport
    for param in ("dport", "icmp-type", "sport"):
        if not rule.get(param):
            continue
        if param == "icmp-type":
            icmp_type = rule[param]
            if not is_icmp:
                error("proto", "missing property - 'icmp-type' requires this property")
            if rule.get("dport"):
                error("icmp-type", "'icmp-type' cannot be specified together with 'dport'")
            if icmp_type not in (ICMP_TYPES if proto == "icmp" else ICMPV6_TYPES):
                error("icmp-type", f"invalid icmp-type '{icmp_type}' for proto '{proto}'")
            continue
        try:
            parse_ports(rule[param], param == "dport" and is_icmp)
        except FormatError as err:
            error(param, err.message.strip())
        if not proto:
            error("proto", f"missing property - '{param}' requires this property")
        if proto not in PROTOCOLS_WITH_PORTS and not (param == "dport" and is_icmp):
            error(param, f"protocol '{proto}' does not support ports")
    for param in ("source", "dest"):
        if not rule.get(param):
            continue
        try:
            set_version(parse_address_list(rule[param]), param)
        except FormatError as err:
            error(param, err.message.strip())
        check_reference(param)
    if version["ip"]:
        rule["ipversion"] = version["ip"]
    else:
        rule.pop("ipversion", None)
    if rule.get("macro"):
        apply_macro(rule, version["ip"], error)
    return rule


def apply_macro(rule, ipversion, error):
    """$apply_macro with $verify: a key the macro's rules set to another value is refused on that key. An IPv6 rule
    uses the IPv6 table where it has the macro; a macro of the other IP version is skipped."""
    macro = rule["macro"]
    if ipversion and macro not in MACRO_RULES and ipversion != 6:
        return
    rules = IPV6_MACRO_RULES[macro] if (ipversion == 6 or macro not in MACRO_RULES) and macro in IPV6_MACRO_RULES \
        else MACRO_RULES[macro]
    for template in rules:
        defined = dict(zip(("proto", "dport", "sport"), template))
        for key in ("proto", "dport", "sport"):
            if rule.get(key) and key in defined and rule[key] != defined[key]:
                error(key, f"parameter '{key}' already define in macro (value = '{defined[key]}')")


def copy_rule_data(rule, params):
    """copy_rule_data: every rule property given is set; '' or '-' removes it."""
    for key in RULE_KEYS:
        value = params.get(key)
        if value is None:
            continue
        if value in ("", "-"):
            rule.pop(key, None)
        else:
            rule[key] = value
    return rule


def delete_rule_properties(rule, delete):
    for option in split_list(delete):
        if option not in RULE_KEYS:
            raise param_exc({"delete": f"no such property ('{option}')"})
        if option in ("type", "action"):
            raise param_exc({"delete": f"unable to delete required property '{option}'"})
        rule.pop(option, None)


class RuleList:
    """One rule list (RulesBase's subclasses): its rule_env says which file holds it and how it is verified.
    ``guard(ctx, p, write)`` is check_privileges_for_method (the vnet rules' check_vnet_access), run first."""

    def __init__(self, env, guard=None):
        self.env = env
        self.guard = guard or (lambda ctx, p, write: None)

    def load(self, state, p):
        """load_config: (cluster conf for references, the file's conf, the rules list)."""
        cluster, conf = load_file(state, self.env, p)
        if self.env != "group":
            return cluster, conf, conf["rules"]
        rules = conf["groups"].get(p["group"])
        if rules is None:
            raise die(f"no such security group '{p['group']}'")
        return cluster, conf, rules

    def store(self, state, p, conf, rules):
        """save_rules."""
        if self.env == "group":
            conf["groups"][p["group"]] = rules
        else:
            conf["rules"] = rules
        save_file(state, self.env, p, conf)

    # -- the five methods of RulesBase ---------------------------------------------------------
    def index(self, ctx, p):
        self.guard(ctx, p, False)
        _cluster, _conf, rules = self.load(ctx.state, p)
        return [dict(rule, pos=pos) for pos, rule in enumerate(with_digest(rules))]

    def read(self, ctx, p):
        self.guard(ctx, p, False)
        _cluster, _conf, rules = self.load(ctx.state, p)
        listed = with_digest(rules)
        if p["pos"] >= len(listed):
            raise die(f"no rule at position {p['pos']}")
        return dict(listed[p["pos"]], pos=p["pos"])

    def create(self, ctx, p):
        """create_rule: the new rule goes on top (``pos`` and ``digest`` are accepted, not used)."""
        self.guard(ctx, p, True)
        with locked(ctx.state):
            cluster, conf, rules = self.load(ctx.state, p)
            rule = copy_rule_data({}, p)
            verify_rule(rule, cluster, conf, self.env, sdn_ipsets(ctx))
            if p.get("enable") is None:
                rule["enable"] = 0
            self.store(ctx.state, p, conf, [rule] + [dict(item) for item in rules])
        return None

    def update(self, ctx, p):
        self.guard(ctx, p, True)
        with locked(ctx.state):
            cluster, conf, rules = self.load(ctx.state, p)
            assert_if_modified(list_digest(rules), p.get("digest"))
            pos = p["pos"]
            if pos >= len(rules):
                raise die(f"no rule at position {pos}")
            rules = [dict(rule) for rule in rules]
            rule = rules[pos]
            moveto = p.get("moveto")
            if moveto is not None and moveto != pos:
                moved = []
                for index, other in enumerate(rules):
                    if index == pos:
                        continue
                    if index == moveto:
                        moved.append(rule)
                    moved.append(other)
                if moveto >= len(rules):
                    moved.append(rule)
                rules = moved
            else:
                copy_rule_data(rule, p)
                if p.get("delete"):
                    delete_rule_properties(rule, p["delete"])
                verify_rule(rule, cluster, conf, self.env, sdn_ipsets(ctx))
            self.store(ctx.state, p, conf, rules)
        return None

    def delete(self, ctx, p):
        self.guard(ctx, p, True)
        with locked(ctx.state):
            _cluster, conf, rules = self.load(ctx.state, p)
            assert_if_modified(list_digest(rules), p.get("digest"))
            if p["pos"] >= len(rules):
                raise die(f"no rule at position {p['pos']}")
            self.store(ctx.state, p, conf, [dict(rule) for index, rule in enumerate(rules) if index != p["pos"]])
        return None


def _register_rules(base, env, item_var="pos", guard=None):
    rules = RuleList(env, guard)
    route("GET", base)(rules.index)
    route("POST", base)(rules.create)
    item = f"{base}/{{{item_var}}}"
    route("GET", item)(rules.read)
    route("PUT", item)(rules.update)
    route("DELETE", item)(rules.delete)


# -- the SDN side: the vnet a vnet firewall belongs to, the ipsets SDN generates ----------------------

# API2/Firewall/Helpers.pm check_vnet_access: `die "invalid vnet specified"` has no newline (mirror 6f1311f)
INVALID_VNET_AT = ("PVE/API2/Firewall/Helpers.pm", 55)
VNET_READ_PRIVS = ["SDN.Audit", "SDN.Allocate"]      # VnetRules check_privileges_for_method, get_rule(s)
VNET_OPTIONS_READ_PRIVS = ["SDN.Allocate", "SDN.Audit"]  # Vnet.pm get_options names them the other way round
VNET_WRITE_PRIVS = ["SDN.Allocate"]


def _running_vnets(state):
    """The vnets of the applied SDN config (pve-network Vnets::config(1): .running-config), the simulator's
    ``sdn_running`` (sdn.py): a vnet only staged is not there yet."""
    return (state.sdn_running or {}).get("vnets") or {}


def check_vnet_access(ctx, p, privs):
    """check_vnet_access: get_vnet($vnetid, 1) (the running config), then any of ``privs`` on the vnet's zone path."""
    vnet = _running_vnets(ctx.state).get(p["vnet"])
    if vnet is None:
        raise die_at("invalid vnet specified", *INVALID_VNET_AT)
    ctx.access.check_any(ctx.authid, f"/sdn/zones/{vnet.get('zone')}/{p['vnet']}", privs)


def _vnet_rules_guard(ctx, p, write):
    check_vnet_access(ctx, p, VNET_WRITE_PRIVS if write else VNET_READ_PRIVS)


def sdn_ipsets(ctx):
    """load_sdn_conf(get_allowed_vms, get_allowed_vnets): the ipsets proxmox-ve-config's SdnConfig::ipsets makes
    for every running vnet the user may audit (SDN.Audit or SDN.Allocate on its zone path), name -> comment. IPAM's
    guest-ipam-<vmid> sets are not simulated."""
    sets = {}
    zones = (ctx.state.sdn_running or {}).get("zones") or {}
    for vnetid, vnet in sorted(_running_vnets(ctx.state).items()):
        if vnet.get("zone") not in zones:
            continue
        if not ctx.access.check_any(ctx.authid, f"/sdn/zones/{vnet['zone']}/{vnetid}", VNET_READ_PRIVS, True):
            continue
        sets[f"{vnetid}-all"] = f"All subnets of VNet {vnetid}"
        sets[f"{vnetid}-gateway"] = f"All gateways of VNet {vnetid}"
        sets[f"{vnetid}-no-gateway"] = f"All subnets of VNet {vnetid}, excluding gateways"
        sets[f"{vnetid}-dhcp"] = f"DHCP ranges of VNet {vnetid}"
    return sets


# -- aliases (Aliases.pm: AliasesBase and its cluster, VM and CT subclasses) ---------------------

def _aliases_list(conf):
    return [conf["aliases"][key] for key in sorted(conf["aliases"])]


def _new_alias(name, p):
    data = {"name": name, "cidr": p["cidr"]}
    if p.get("comment"):
        data["comment"] = p["comment"]
    return data


class AliasList:
    """One scope's aliases: the cluster's (cluster.fw) or a guest's (<vmid>.fw)."""

    def __init__(self, env):
        self.env = env

    def index(self, ctx, p):
        return with_digest(_aliases_list(load_file(ctx.state, self.env, p)[1]))

    def create(self, ctx, p):
        with locked(ctx.state):
            conf = load_file(ctx.state, self.env, p)[1]
            name = p["name"].lower()
            if name in conf["aliases"]:
                raise param_exc({"name": f"alias '{p['name']}' already exists"})
            conf["aliases"][name] = _new_alias(p["name"], p)
            save_file(ctx.state, self.env, p, conf)
        return None

    def read(self, ctx, p):
        alias = load_file(ctx.state, self.env, p)[1]["aliases"].get(p["name"].lower())
        if alias is None:
            raise param_exc({"name": "no such alias"})
        return dict(alias)

    def update(self, ctx, p):
        """update_alias: the alias is rewritten from the parameters, so a PUT without comment drops it."""
        with locked(ctx.state):
            conf = load_file(ctx.state, self.env, p)[1]
            assert_if_modified(list_digest(_aliases_list(conf)), p.get("digest"))
            name = p["name"].lower()
            if name not in conf["aliases"]:
                raise param_exc({"name": "no such alias"})
            conf["aliases"][name] = _new_alias(p["name"], p)
            rename = (p.get("rename") or "").lower()
            if rename and rename != name:
                if rename in conf["aliases"]:
                    raise param_exc({"name": f"alias '{p['rename']}' already exists"})
                conf["aliases"][rename] = dict(conf["aliases"].pop(name), name=p["rename"])
            save_file(ctx.state, self.env, p, conf)
        return None

    def delete(self, ctx, p):
        with locked(ctx.state):
            conf = load_file(ctx.state, self.env, p)[1]
            assert_if_modified(list_digest(_aliases_list(conf)), p.get("digest"))
            conf["aliases"].pop(p["name"].lower(), None)
            save_file(ctx.state, self.env, p, conf)
        return None


def _register_aliases(base, env):
    aliases = AliasList(env)
    route("GET", base)(aliases.index)
    route("POST", base)(aliases.create)
    route("GET", f"{base}/{{name}}")(aliases.read)
    route("PUT", f"{base}/{{name}}")(aliases.update)
    route("DELETE", f"{base}/{{name}}")(aliases.delete)


# -- ipsets (IPSet.pm: BaseIPSetList and IPSetBase, their cluster, VM and CT subclasses) ----------

def _ipset_list(conf):
    listed = []
    for name in sorted(conf["ipset"]):
        row = {"name": name}
        if conf["ipset_comments"].get(name):
            row["comment"] = conf["ipset_comments"][name]
        listed.append(row)
    return listed


def _ipset(conf, name):
    entries = conf["ipset"].get(name)
    if entries is None:
        raise die(f"no such IPSet '{name}'")
    return entries


def resolve_alias(cluster, local, name, scope):
    """resolve_alias: at cluster level (no cluster conf) the file is the cluster's; guest/ looks only in the
    file, dc/ only in the cluster's, no scope in the file first. The error names the alias without its scope."""
    if cluster is None:
        cluster, local = local, None
    alias = local["aliases"].get(name.lower()) if scope != "dc" and local else None
    if scope != "guest" and not alias and cluster:
        alias = cluster["aliases"].get(name.lower())
    if not alias:
        raise die(f"no such alias '{name}'")
    return alias


class IPSetList:
    """One scope's ipsets: the list (BaseIPSetList) and each set (IPSetBase, under ``{name}``)."""

    def __init__(self, env):
        self.env = env

    def index(self, ctx, p):
        return with_digest(_ipset_list(load_file(ctx.state, self.env, p)[1]))

    def create(self, ctx, p):
        """create_ipset; with ``rename`` (the same name to change only the comment) it checks the list's digest."""
        with locked(ctx.state):
            conf = load_file(ctx.state, self.env, p)[1]
            name, rename = p["name"], p.get("rename")
            if rename:
                assert_if_modified(list_digest(_ipset_list(conf)), p.get("digest"))
                if rename not in conf["ipset"]:
                    raise param_exc({"name": f"IPSet '{rename}' does not exist"})
                if name in conf["ipset"] and name != rename:
                    raise param_exc({"name": f"IPSet '{name}' does already exist"})
                conf["ipset"][name] = conf["ipset"].pop(rename)
                comment = conf["ipset_comments"].pop(rename, None)
                if comment:
                    conf["ipset_comments"][name] = comment
            else:
                if name in conf["ipset"]:
                    raise param_exc({"name": f"IPSet '{name}' already exists"})
                conf["ipset"][name] = []
            if p.get("comment") is not None:
                conf["ipset_comments"][name] = p["comment"]
            save_file(ctx.state, self.env, p, conf)
        return None

    def delete_set(self, ctx, p):
        with locked(ctx.state):
            conf = load_file(ctx.state, self.env, p)[1]
            if _ipset(conf, p["name"]) and not p.get("force"):
                raise die(f"IPSet '{p['name']}' is not empty")
            del conf["ipset"][p["name"]]
            conf["ipset_comments"].pop(p["name"], None)
            save_file(ctx.state, self.env, p, conf)
        return None

    def entries(self, ctx, p):
        return with_digest(_ipset(load_file(ctx.state, self.env, p)[1], p["name"]))

    def add(self, ctx, p):
        """create_ip: an alias must resolve (resolve_alias); an address is stored as clean_cidr then
        parse_ip_or_cidr make it (10.0.2.5/24 -> 10.0.2.0/24, /32 dropped), and that form is compared with the
        stored ones (so 10.0.0.1/32 and 10.0.0.1 are the same entry)."""
        with locked(ctx.state):
            cluster, conf = load_file(ctx.state, self.env, p)
            entries = _ipset(conf, p["name"])
            cidr = p["cidr"]
            alias = ALIAS_REF_RE.match(cidr)
            if alias:
                resolve_alias(cluster, conf, alias.group(2), alias.group(1))
            else:
                cidr = parse_ip_or_cidr(clean_cidr(cidr))[0]
            if any(entry["cidr"] == cidr for entry in entries):
                raise param_exc({"cidr": f"address '{cidr}' already exists"})
            if re.search(r"/0+$", cidr):
                raise param_exc({"cidr": "a zero prefix is not allowed in ipset entries"})
            entry = {"cidr": cidr}
            if p.get("nomatch"):
                entry["nomatch"] = 1
            if p.get("comment"):
                entry["comment"] = p["comment"]
            conf["ipset"][p["name"]] = [entry] + entries
            save_file(ctx.state, self.env, p, conf)
        return None

    def entry(self, ctx, p):
        for entry in with_digest(_ipset(load_file(ctx.state, self.env, p)[1], p["name"])):
            if entry["cidr"] == p["cidr"]:
                return entry
        raise param_exc({"cidr": "no such IP/Network"})

    def update_entry(self, ctx, p):
        """update_ip: ``nomatch`` and ``comment`` are both set from the parameters (one left out is cleared)."""
        with locked(ctx.state):
            conf = load_file(ctx.state, self.env, p)[1]
            entries = _ipset(conf, p["name"])
            assert_if_modified(list_digest(entries), p.get("digest"))
            for entry in entries:
                if entry["cidr"] == p["cidr"]:
                    entry.pop("nomatch", None)
                    entry.pop("comment", None)
                    if p.get("nomatch"):
                        entry["nomatch"] = 1
                    if p.get("comment") is not None:
                        entry["comment"] = p["comment"]
                    save_file(ctx.state, self.env, p, conf)
                    return None
            raise param_exc({"cidr": "no such IP/Network"})

    def delete_entry(self, ctx, p):
        with locked(ctx.state):
            conf = load_file(ctx.state, self.env, p)[1]
            entries = _ipset(conf, p["name"])
            assert_if_modified(list_digest(entries), p.get("digest"))
            conf["ipset"][p["name"]] = [entry for entry in entries if entry["cidr"] != p["cidr"]]
            save_file(ctx.state, self.env, p, conf)
        return None


def _register_ipsets(base, env):
    ipsets = IPSetList(env)
    route("GET", base)(ipsets.index)
    route("POST", base)(ipsets.create)
    one, entry = f"{base}/{{name}}", f"{base}/{{name}}/{{cidr}}"
    route("DELETE", one)(ipsets.delete_set)
    route("GET", one)(ipsets.entries)
    route("POST", one)(ipsets.add)
    route("GET", entry)(ipsets.entry)
    route("PUT", entry)(ipsets.update_entry)
    route("DELETE", entry)(ipsets.delete_entry)


# The guests' firewalls: qemu-server mounts PVE::API2::Firewall::VM, pve-container PVE::API2::Firewall::CT (VM.pm).
GUEST_BASES = {"vm": "/nodes/{node}/qemu/{vmid}/firewall", "ct": "/nodes/{node}/lxc/{vmid}/firewall"}
VNET_BASE = "/cluster/sdn/vnets/{vnet}/firewall"

_register_rules("/cluster/firewall/rules", "cluster")
_register_rules("/nodes/{node}/firewall/rules", "host")
_register_rules("/cluster/firewall/groups/{group}", "group")
_register_rules(f"{VNET_BASE}/rules", "vnet", guard=_vnet_rules_guard)
_register_aliases("/cluster/firewall/aliases", "cluster")
_register_ipsets("/cluster/firewall/ipset", "cluster")
for _env, _base in GUEST_BASES.items():
    _register_rules(f"{_base}/rules", _env)
    _register_aliases(f"{_base}/aliases", _env)
    _register_ipsets(f"{_base}/ipset", _env)


# -- directory indexes ---------------------------------------------------------------------------

@route("GET", "/cluster/firewall")
def cluster_index(ctx, p):
    return [{"name": name} for name in ("aliases", "rules", "options", "groups", "ipset", "macros", "refs")]


@route("GET", "/nodes/{node}/firewall")
def host_index(ctx, p):
    return [{"name": name} for name in ("rules", "options", "log")]


def guest_index(ctx, p):
    return [{"name": name} for name in ("rules", "aliases", "ipset", "refs", "options")]


for _base in GUEST_BASES.values():
    route("GET", _base)(guest_index)


@route("GET", VNET_BASE)
def vnet_index(ctx, p):
    """Vnet.pm index: neither the vnet nor a privilege is checked."""
    return [{"name": "rules"}, {"name": "options"}]


# -- security groups (Groups.pm; their rules are a RuleList above) ----------------------------------

def _group_list(conf):
    listed = []
    for name in sorted(conf["groups"]):
        row = {"group": name}
        if conf["group_comments"].get(name):
            row["comment"] = conf["group_comments"][name]
        listed.append(row)
    return listed


@route("GET", "/cluster/firewall/groups")
def group_index(ctx, p):
    return with_digest(_group_list(cluster_conf(ctx.state)))


@route("POST", "/cluster/firewall/groups")
def group_create(ctx, p):
    """create_security_group; ``rename`` set to the group's own name changes only its comment."""
    with locked(ctx.state):
        conf = cluster_conf(ctx.state)
        group, rename = p["group"], p.get("rename")
        if rename:
            assert_if_modified(list_digest(_group_list(conf)), p.get("digest"))
            if rename not in conf["groups"]:
                raise param_exc({"group": f"Security group '{rename}' does not exist"})
            if group in conf["groups"] and group != rename:
                raise param_exc({"group": f"Security group '{group}' does already exist"})
            conf["groups"][group] = conf["groups"].pop(rename)
            comment = conf["group_comments"].pop(rename, None)
            if comment:
                conf["group_comments"][group] = comment
        else:
            if group in conf["groups"]:
                raise param_exc({"group": f"Security group '{group}' already exists"})
            conf["groups"][group] = []
        if p.get("comment") is not None:
            conf["group_comments"][group] = p["comment"]
        save_cluster(ctx.state)
    return None


@route("DELETE", "/cluster/firewall/groups/{group}")
def group_delete(ctx, p):
    with locked(ctx.state):
        conf = cluster_conf(ctx.state)
        rules = conf["groups"].get(p["group"])
        if rules is None:
            raise die(f"no such security group '{p['group']}'")
        if rules:
            raise die(f"Security group '{p['group']}' is not empty")
        del conf["groups"][p["group"]]
        conf["group_comments"].pop(p["group"], None)
        save_cluster(ctx.state)
    return None


# -- options (Cluster.pm, Host.pm) --------------------------------------------------------------

# How long a timestamp in the cluster's `enable` (the anti-lockout "enable=<now>") reads as set.
ENABLE_GRACE = 60


def _cluster_options(conf):
    options = dict(conf["options"])
    enable = options.get("enable")
    if enable is not None and enable > 1 and time.time() - enable > ENABLE_GRACE:
        options["enable"] = 0
    return options


def _set_options(options, p, schema_props):
    """set_options: delete= first (each must be a known option), then every option given."""
    for option in split_list(p.get("delete")):
        if option not in schema_props or option in ("delete", "digest", "node"):
            raise param_exc({"delete": f"no such option '{option}'"})
        options.pop(option, None)
    for key, value in p.items():
        if key not in ("delete", "digest", "node") and value is not None:
            options[key] = value


@route("GET", "/cluster/firewall/options")
def cluster_options(ctx, p):
    options = _cluster_options(cluster_conf(ctx.state))
    return dict(options, digest=object_digest(options))


@route("PUT", "/cluster/firewall/options")
def cluster_options_update(ctx, p):
    with locked(ctx.state):
        conf = cluster_conf(ctx.state)
        assert_if_modified(object_digest(_cluster_options(conf)), p.get("digest"))
        if p.get("enable") is not None and p["enable"] > 1:
            p = dict(p, enable=int(time.time()))
        _set_options(conf["options"], p, ctx.schema_props)
        save_cluster(ctx.state)
    return None


@route("GET", "/nodes/{node}/firewall/options")
def host_options(ctx, p):
    options = dict(host_conf(ctx.state, p["node"])["options"])
    return dict(options, digest=object_digest(options))


@route("PUT", "/nodes/{node}/firewall/options")
def host_options_update(ctx, p):
    with locked(ctx.state):
        conf = host_conf(ctx.state, p["node"])
        assert_if_modified(object_digest(conf["options"]), p.get("digest"))
        if p.get("enable") is not None:
            p = dict(p, enable=1 if p["enable"] else 0)
        _set_options(conf["options"], p, ctx.schema_props)
        save_host(ctx.state, p["node"])
    return None


# The options a guest's and a vnet's file take: Firewall.pm $vm_option_properties, $vnet_option_properties.
GUEST_OPTIONS = ("enable", "macfilter", "dhcp", "ndp", "radv", "ipfilter", "policy_in", "policy_out",
                 "log_level_in", "log_level_out")
VNET_OPTIONS = ("enable", "policy_forward", "log_level_forward")


def _set_known_options(options, p, known):
    """VM.pm / Vnet.pm set_options: delete= first (each must be one of ``known``), ``enable`` as 1/0, then
    every known option given."""
    for option in split_list(p.get("delete")):
        if option not in known:
            raise param_exc({"delete": f"no such option '{option}'"})
        options.pop(option, None)
    for key in known:
        if p.get(key) is not None:
            options[key] = (1 if p[key] else 0) if key == "enable" else p[key]


def _guest_options(env):
    def read(ctx, p):
        options = dict(guest_conf(ctx.state, p["vmid"])["options"])
        return dict(options, digest=object_digest(options))

    def update(ctx, p):
        with locked(ctx.state):
            conf = guest_conf(ctx.state, p["vmid"])
            assert_if_modified(object_digest(conf["options"]), p.get("digest"))
            _set_known_options(conf["options"], p, GUEST_OPTIONS)
            save_guest(ctx.state, p["vmid"], conf, env)
        return None
    return read, update


for _env, _base in GUEST_BASES.items():
    _read, _update = _guest_options(_env)
    route("GET", f"{_base}/options")(_read)
    route("PUT", f"{_base}/options")(_update)


@route("GET", f"{VNET_BASE}/options")
def vnet_options(ctx, p):
    check_vnet_access(ctx, p, VNET_OPTIONS_READ_PRIVS)
    options = dict(vnet_conf(ctx.state, p["vnet"])["options"])
    return dict(options, digest=object_digest(options))


@route("PUT", f"{VNET_BASE}/options")
def vnet_options_update(ctx, p):
    check_vnet_access(ctx, p, VNET_WRITE_PRIVS)
    with locked(ctx.state):
        conf = vnet_conf(ctx.state, p["vnet"])
        assert_if_modified(object_digest(conf["options"]), p.get("digest"))
        _set_known_options(conf["options"], p, VNET_OPTIONS)
        save_vnet(ctx.state, p["vnet"], conf)
    return None


# -- refs (VM.pm refs, Firewall/Helpers.pm collect_refs) -------------------------------------------

def collect_refs(ipsets, ipset_comments, aliases, kind, scope):
    """collect_refs: a scope's ipsets (``+name``), then its aliases (the lower-cased key), each with its comment.
    PVE lists each scope in Perl's hash order; the simulator sorts by name."""
    refs = []
    if kind in (None, "ipset"):
        for name in sorted(ipsets):
            ref = {"type": "ipset", "name": name, "ref": f"+{name}", "scope": scope}
            if ipset_comments.get(name):
                ref["comment"] = ipset_comments[name]
            refs.append(ref)
    if kind in (None, "alias"):
        for name in sorted(aliases):
            ref = {"type": "alias", "name": name, "ref": name, "scope": scope}
            if aliases[name].get("comment"):
                ref["comment"] = aliases[name]["comment"]
            refs.append(ref)
    return refs


def guest_refs(ctx, p):
    """The cluster's references (scope dc), the SDN's the user may use (sdn), then the guest's own (guest)."""
    cluster, guest = cluster_conf(ctx.state), guest_conf(ctx.state, p["vmid"])
    sdn = sdn_ipsets(ctx)
    kind = p.get("type")
    return (collect_refs(cluster["ipset"], cluster["ipset_comments"], cluster["aliases"], kind, "dc")
            + collect_refs(sdn, sdn, {}, kind, "sdn")
            + collect_refs(guest["ipset"], guest["ipset_comments"], guest["aliases"], kind, "guest"))


for _base in GUEST_BASES.values():
    route("GET", f"{_base}/refs")(guest_refs)
