"""Named string formats of PVE's JSON schema dialect (``register_format``).

Each checker takes the string and raises ``FormatError`` with PVE's own text
(trailing newline included, as Perl's ``die "...\\n"`` leaves it). A checker may
instead be a dict: a property-string sub-schema (e.g. ``prune-backups``),
parsed by ``schema.parse_property_string``. Formats not listed here are
accepted leniently (PVE has ~120; the simulator ports the ones the collection's
families touch).
"""

import ipaddress
import re

from .privileges import VALID_PRIVS


class FormatError(Exception):
    """A format checker refused a value (message as PVE's die text)."""

    def __init__(self, message, errors=None):
        if not message.endswith("\n"):
            message += "\n"
        super().__init__(message)
        self.message = message
        self.errors = errors  # nested property-string errors

    def text(self):
        # Perl stringification of the error (PVE::Exception adds "key: err" lines)
        out = self.message
        for key, val in (self.errors or {}).items():
            out += f"{key}: {val}\n"
        return out


USER_RE = r"[^\s:/]+"
REALM_RE = r"[A-Za-z][A-Za-z0-9\.\-_]+"
TOKEN_SUBID_RE = REALM_RE
USERID_RE = re.compile(rf"^({USER_RE})@({REALM_RE})$")
TOKENID_RE = re.compile(rf"^({USER_RE})@({REALM_RE})!({TOKEN_SUBID_RE})$")
DNS_LABEL = r"([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?)"
DNS_RE = re.compile(rf"^({DNS_LABEL}\.)*{DNS_LABEL}$")
EMAIL_RE = re.compile(r"^[\w\+\-\~]+(\.[\w\+\-\~]+)*@[a-zA-Z0-9\-]+(\.[a-zA-Z0-9\-]+)*$")


def split_list(text):
    """PVE::Tools::split_list: NUL-separated, else split on , ; and whitespace."""
    text = text or ""
    if "\0" in text:
        return text.split("\0")
    return re.sub(r"[,;]", " ", text).split()


def _regex(pattern, message, flags=0):
    compiled = re.compile(pattern, flags)

    def check(value):
        if not compiled.search(value):
            raise FormatError(message.format(value=value))
    return check


def verify_username(value):
    value = value or ""
    if len(value) < 3:
        raise FormatError(f"user name '{value}' is too short")
    if len(value) > 64:
        raise FormatError(f"user name '{value}' is too long ({len(value)} > 64)")
    if not USERID_RE.match(value):
        raise FormatError(f"value '{value}' does not look like a valid user name")


def verify_tokenid(value):
    if not TOKENID_RE.match(value):
        raise FormatError(f"value '{value}' does not look like a valid token ID")


def _is_ip(value, version=None):
    try:
        addr = ipaddress.ip_address(value)
    except ValueError:
        return False
    return version is None or addr.version == version


def _is_cidr(value, version=None):
    if "/" not in value:
        return False
    addr, _sep, bits = value.partition("/")
    if not bits.isdigit() or not _is_ip(addr, version):
        return False
    bits = int(bits)
    v = ipaddress.ip_address(addr).version
    return 7 < bits <= (32 if v == 4 else 128)


def _ip(version, label):
    def check(value):
        if not _is_ip(value, version):
            raise FormatError(f"value does not look like a valid {label}")
    return check


def _cidr(version, label):
    def check(value):
        if not _is_cidr(value, version):
            raise FormatError(f"value does not look like a valid {label}")
    return check


def _sdn_id(kind):
    """pve-network parse_sdn_zone_id / parse_sdn_vnet_id: letters and digits, a letter first, at most 8. These are
    the formats of pve-network before commit ecf98c5 (PVE 9.1, whose schema file still names them); ecf98c5 put a
    pattern and lengths in the schema instead."""
    def check(value):
        if not re.match(r"^[a-z][a-z0-9]*[a-z0-9]$", value, re.I):
            raise FormatError(f"{kind} ID '{value}' contains illegal characters")
        if len(value) > 8:
            raise FormatError(f"{kind} ID '{value}' can't be more length than 8 characters")
    return check


def verify_sdn_controller_id(value):
    """pve-network Controllers/Plugin.pm parse_sdn_controller_id (before ecf98c5, as PVE 9.1's schema names it)."""
    if not re.match(r"^[a-z][a-z0-9_-]*[a-z0-9]$", value, re.I):
        raise FormatError(f"controller ID '{value}' contains illegal characters")
    if len(value) > 64:
        raise FormatError(f"controller ID '{value}' can't be more length than 64 characters")


def verify_sdn_bgp_rt(value):
    """pve-network Zones/EvpnPlugin.pm pve_verify_sdn_bgp_rt: <asn>:<id>, each at most 2^32 - 1."""
    match = re.match(r"^(\d+):(\d+)$", value)
    if not match or int(match.group(1)) > 4294967295 or int(match.group(2)) > 4294967295:
        raise FormatError("value does not look like a valid bgp route-target")


def verify_sdn_subnet_id(value):
    """pve-network SubnetPlugin parse_sdn_subnet_id: a CIDR, or the stored id <zone>-<network>-<mask>."""
    if "/" in value:
        cidr = value
    else:
        parts = value.split("-")
        cidr = f"{parts[1]}/{parts[2]}" if len(parts) >= 3 else value
    if not _is_cidr(cidr):
        raise FormatError("value does not look like a valid CIDR network")


def verify_vlan_id_or_range(value):
    """PVE::JSONSchema pve_verify_vlan_id_or_range: a tag or a rising range of tags, each 2 to 4094."""
    match = re.match(r"^(\d+)(?:-(\d+))?$", value)
    if not match:
        raise FormatError(f"invalid VLAN configuration '{value}'")
    for tag in match.groups():
        if tag is not None and not 2 <= int(tag) <= 4094:
            raise FormatError(f"invalid VLAN tag '{tag}'")
    start, end = match.groups()
    if end and int(start) >= int(end):
        raise FormatError(f"VLAN range must go from lower to higher tag '{value}'")


def verify_dns_name(value):
    if not DNS_RE.match(value):
        raise FormatError("value does not look like a valid DNS name")


def verify_address(value):
    if not (_is_ip(value) or DNS_RE.match(value)):
        raise FormatError(f"value does not look like a valid address: {value}")


def verify_ip_with_ll_iface(value):
    """pve-container LXC/Config.pm verify_ip_with_ll_iface: ``fe80:...%<iface>``, else pve_verify_ip."""
    m = re.match(r"^(fe80:[^%]+)%(.*)$", value)
    if m and _is_ip(m.group(1)) and re.match(r"^[a-z][a-z0-9_]{1,20}([:\.]\d+)?$", m.group(2), re.I):
        return
    if "%" in value or not _is_ip(value):  # Python's ipaddress takes scope ids, PVE's $IPV6RE none
        raise FormatError("value does not look like a valid IP address")


def verify_storage_server(value):
    if not (_is_ip(value) or DNS_RE.match(value)):
        raise FormatError("value does not look like a valid server name or IP address")


def verify_portal(value):
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or value.count(":") > 1 and not value.startswith("["):
        host = value
    host = host.strip("[]")
    if not (_is_ip(host) or DNS_RE.match(host)):
        raise FormatError("value does not look like a valid portal address")


def verify_email(value):
    if not EMAIL_RE.match(value):
        raise FormatError("value does not look like a valid email address")


def verify_email_or_username(value):
    """pve-common JSONSchema.pm pve_verify_email_or_username."""
    if not (EMAIL_RE.match(value) or re.match(rf"^{USER_RE}$", value)):
        raise FormatError("value does not look like a valid email address or user name")


CONTENT_TYPES = ("images", "rootdir", "vztmpl", "iso", "backup", "snippets", "import", "none")


def verify_graphite_path(value):
    """PVE::Status::Graphite pve_verify_graphite_path."""
    if not DNS_RE.match(value):
        raise FormatError("value does not look like a valid graphite path")


def verify_replication_job_id(value):
    """PVE::ReplicationConfig parse_replication_job_id."""
    m = re.match(r"^(\d+)-(\d+)$", value)
    if not m or int(m.group(1)) < 100:
        raise FormatError(f"invalid replication job id '{value}'")


def verify_storage_id(value):
    """pve-common JSONSchema.pm parse_storage_id (parse_id): the length first, then the characters."""
    if len(value) < 2:
        raise FormatError(f"storage ID '{value}' cannot be shorter than 2 characters")
    if not re.match(r"^[a-z][a-z0-9\-\_\.]*[a-z0-9]$", value, re.I):
        raise FormatError(f"storage ID '{value}' contains illegal characters")


def verify_poolid(value):
    """pve-access-control AccessControl.pm verify_poolname: at most three levels, then the characters."""
    if len(perl_split_fields(value, "/")) > 3:
        raise FormatError(f"pool name '{value}' nested too deeply (max levels = 3)")
    if not re.match(r"^[A-Za-z0-9\.\-_]+(?:/[A-Za-z0-9\.\-_]+){0,2}$", value):
        raise FormatError(f"pool name '{value}' contains invalid characters")


def perl_split_fields(text, separator):
    """Perl's split: the fields, trailing empty ones dropped."""
    fields = text.split(separator)
    while fields and fields[-1] == "":
        fields.pop()
    return fields


def verify_content(value):
    if value not in CONTENT_TYPES:
        raise FormatError(f"invalid content type '{value}'")


def verify_priv(value):
    if value not in VALID_PRIVS:
        raise FormatError(f"invalid privilege '{value}'")


def verify_disk_size(value):
    if not re.match(r"^(\d+(\.\d+)?)([KMGT](?:iB)?)?$", value):
        raise FormatError(f"value does not look like a valid disk size: {value}")


def verify_calendar_event(value):
    # PVE parses systemd calendar events in Rust; accept anything printable.
    if not value.strip() or re.search(r"[\x00-\x1f]", value):
        raise FormatError(f"unable to parse calendar event '{value}'")


def verify_startup_order(value):
    for part in value.split(","):
        if not part.strip():
            continue
        if not re.match(r"^(order=)?\d+$|^up=\d+$|^down=\d+$", part):
            raise FormatError("unable to parse startup options")


def verify_cpuset(value):
    """qemu-server QemuServer.pm pve_verify_cpuset over pve-common CpuSet.pm parse_cpuset."""
    for part in perl_split_fields(value, ","):
        m = re.match(r"^\s*(\d+)(?:-(\d+))?\s*$", part)
        if not m or (m.group(2) is not None and int(m.group(2)) < int(m.group(1))):
            raise FormatError("unable to parse cpuset option")


def verify_hotplug_features(value):
    """qemu-server QemuServer.pm pve_verify_hotplug_features (parse_hotplug_features: 0, 1 or features)."""
    if value in ("0", "1"):
        return
    for feature in split_list(value):
        if feature not in ("network", "disk", "cpu", "memory", "usb", "cloudinit"):
            raise FormatError("unable to parse hotplug option")


PRUNE_BACKUPS = {
    "keep-all": {"type": "boolean", "optional": 1},
    "keep-last": {"type": "integer", "minimum": 1, "optional": 1},
    "keep-hourly": {"type": "integer", "minimum": 1, "optional": 1},
    "keep-daily": {"type": "integer", "minimum": 1, "optional": 1},
    "keep-weekly": {"type": "integer", "minimum": 1, "optional": 1},
    "keep-monthly": {"type": "integer", "minimum": 1, "optional": 1},
    "keep-yearly": {"type": "integer", "minimum": 1, "optional": 1},
}


def validate_prune_backups(parsed):
    keep_all = parsed.get("keep-all")
    others = [k for k in parsed if k != "keep-all"]
    if keep_all is not None and str(keep_all) == "1" and others:
        raise FormatError("keep-all cannot be set together with other options.")
    return parsed


FORMATS = {
    "string": lambda value: None,
    "regex": lambda value: None,
    "urlencoded": _regex(r"^[-%a-zA-Z0-9_.!~*'()]*$", "invalid urlencoded string: {value}"),
    "pve-configid": _regex(r"^[a-z][a-z0-9_-]+$", "invalid configuration ID '{value}'", re.I),
    "pve-storage-id": verify_storage_id,
    "pve-vmid": _regex(r"^[1-9][0-9]{2,8}$", "value does not look like a valid VM ID"),
    "pve-node": _regex(r"^([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?)$",
                       "value does not look like a valid node name"),
    "pve-poolid": verify_poolid,
    "pve-roleid": _regex(r"^[A-Za-z0-9\.\-_]+$", "role name '{value}' contains invalid characters"),
    "pve-groupid": _regex(r"^[A-Za-z0-9\.\-_]+$",
                          "group name '{value}' contains invalid characters"),
    "pve-realm": _regex(rf"^{REALM_RE}$", "value does not look like a valid realm"),
    "pve-userid": verify_username,
    "pve-tokenid": verify_tokenid,
    "pve-priv": verify_priv,
    "pve-storage-content": verify_content,
    "pve-storage-path": _regex(r"^/[^;\(\)]+", "value does not look like a valid absolute path"),
    "pve-storage-server": verify_storage_server,
    "pve-storage-portal-dns": verify_portal,
    "pve-storage-vgname": _regex(r"^[a-zA-Z0-9\+\.\-_]+$",
                                 "value does not look like a valid volume group name"),
    "pve-storage-options": _regex(r"^[-\w\.=,:/ ]*$", "invalid options '{value}'"),
    "pve-dir-override": _regex(r"^[a-z]+=/.+$", "invalid content directory override '{value}'"),
    "pve-volume-id": _regex(r"^[a-z][a-z0-9\-\_\.]*[a-z0-9]:.+$", "unable to parse volume ID '{value}'",
                            re.I),
    "pve-iface": _regex(r"^[a-z][a-z0-9_]{1,20}([:\.]\d+)?$",
                        "invalid network interface name '{value}'", re.I),
    "pve-sdn-zone-id": _sdn_id("zone"),
    "pve-sdn-vnet-id": _sdn_id("vnet"),
    "pve-sdn-subnet-id": verify_sdn_subnet_id,
    "pve-sdn-controller-id": verify_sdn_controller_id,
    # Ipams/Plugin.pm parse_sdn_ipam_id, Dns/Plugin.pm parse_sdn_dns_id (before ecf98c5)
    "pve-sdn-ipam-id": _regex(r"^[a-z][a-z0-9]*[a-z0-9]$", "ipam ID '{value}' contains illegal characters", re.I),
    "pve-sdn-dns-id": _regex(r"^[a-z][a-z0-9]*[a-z0-9]$", "dns ID '{value}' contains illegal characters", re.I),
    # Fabrics.pm's registered format
    "pve-sdn-fabric-id": _regex(r"^[a-zA-Z0-9][a-zA-Z0-9-]{0,6}[a-zA-Z0-9]?$",
                                "Fabric ID '{value}' contains illegal characters", re.I),
    # Controllers/IsisPlugin.pm pve_verify_sdn_isis_net
    "pve-sdn-isis-net": _regex(r"^[a-fA-F0-9]{2}(\.[a-fA-F0-9]{4}){3,9}\.[a-fA-F0-9]{2}$",
                               "value does not look like a valid isis net"),
    "pve-sdn-bgp-rt": verify_sdn_bgp_rt,
    "pve-vlan-id-or-range": verify_vlan_id_or_range,
    "pve-bridge-id": _regex(r"^[-_.\w\d]+$", "invalid bridge ID '{value}'"),
    "pve-tag": _regex(r"^(?i:[a-z0-9_][a-z0-9_\-\+\.]*)$", "invalid characters in tag"),
    # PVE::HA::Tools: pve_verify_ha_resource_id, pve_verify_ha_resource_or_vm_id, pve_verify_ha_node
    "pve-ha-resource-id": _regex(r"^[a-z]+:\S+$", "value does not look like a valid ha resource id"),
    "pve-ha-resource-or-vm-id": _regex(r"^([a-z]+:\S+|\d+)$", "value does not look like a valid ha resource id"),
    "pve-ha-node": _regex(r"^([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?)(:\d+)?$",
                          "value does not look like a valid ha node"),
    "pve-calendar-event": verify_calendar_event,
    "pve-startup-order": verify_startup_order,
    "pve-cpuset": verify_cpuset,
    "pve-hotplug-features": verify_hotplug_features,
    "email": verify_email,
    "email-or-username": verify_email_or_username,
    "dns-name": verify_dns_name,
    "address": verify_address,
    "lxc-ip-with-ll-iface": verify_ip_with_ll_iface,
    "ip": _ip(None, "IP address"),
    "ipv4": _ip(4, "IPv4 address"),
    "ipv6": _ip(6, "IPv6 address"),
    "CIDR": _cidr(None, "CIDR network"),
    "CIDRv4": _cidr(4, "IPv4 CIDR network"),
    "CIDRv6": _cidr(6, "IPv6 CIDR network"),
    "mac-addr": _regex(r"^[a-f0-9][02468ace](?::[a-f0-9]{2}){5}$",
                       "value does not look like a valid unicast MAC address", re.I),
    "disk-size": verify_disk_size,
    "mac-prefix": _regex(r"^[a-f0-9][02468ace](?::[a-f0-9]{2}){0,2}:?$",
                         "value is not a valid unicast MAC address prefix", re.I),
    "graphite-path": verify_graphite_path,
    "pve-replication-job-id": verify_replication_job_id,
    "prune-backups": PRUNE_BACKUPS,
}

# qemu-server's hash formats the collection's vm module names (QemuServer.pm $cpu_fmt, $boot_fmt, $ipconfig_fmt),
# without the sub-formats this simulator does not port (cpu models, boot device lists, ipv4/ipv6 configs).
QEMU_HASH_FORMATS = {
    "pve-vm-cpu-conf": {
        "cputype": {"type": "string", "default_key": 1, "optional": 1},
        "flags": {"type": "string", "optional": 1},
        "hidden": {"type": "boolean", "optional": 1},
        "hv-vendor-id": {"type": "string", "optional": 1},
        "phys-bits": {"type": "string", "optional": 1},
        "reported-model": {"type": "string", "optional": 1},
    },
    "pve-qm-boot": {
        "legacy": {"type": "string", "pattern": "[acdn]{1,4}", "default_key": 1, "optional": 1},
        "order": {"type": "string", "optional": 1},
    },
    # QemuServer.pm $cicustom_fmt
    "pve-qm-cicustom": {
        kind: {"type": "string", "format": "pve-volume-id", "optional": 1}
        for kind in ("meta", "network", "user", "vendor")
    },
    "pve-qm-ipconfig": {
        "ip": {"type": "string", "optional": 1},
        "gw": {"type": "string", "optional": 1},
        "ip6": {"type": "string", "optional": 1},
        "gw6": {"type": "string", "optional": 1},
    },
}
FORMATS.update(QEMU_HASH_FORMATS)

# validators attached to hash formats (PVE: register_format($name, $hash, \&validator))
FORMAT_VALIDATORS = {
    "prune-backups": validate_prune_backups,
}
