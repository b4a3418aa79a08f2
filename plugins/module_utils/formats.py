# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PVE's named string formats, copied into code so a bad value stops before any request.

The official schema names a parameter's format (``"format": "pve-poolid"``) but the rule itself
lives in PVE's Perl (``PVE::JSONSchema::register_format``) or Rust (proxmox-time). The collection
cannot read the schema at run time, so the few rules its fields use are here, each under the
schema's own name. ``tests/unit/test_schema_rules.py`` checks every field that names a format
against ``../shared/pve-api/`` (same name on the same parameter, same lengths, ranges, enums,
patterns and property-string keys) and every rule against the simulator's port of PVE's checks.

A format is a name, a predicate and a phrase saying what is allowed, which ends up in the
refusal: ``option poolid: 'a b' is not a valid pve-poolid (letters, digits, ...)``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.calendar_event import parse_calendar_event

LIST_SEPARATORS = re.compile(r'[,;\s]+')

# PVE::Auth::Plugin: $user_regex = qr![^\s:/]+!, $realm_regex = qr/[A-Za-z][A-Za-z0-9\.\-_]+/.
USER = r'[^\s:/]+'
REALM = r'[A-Za-z][A-Za-z0-9.\-_]+'
TOKEN_NAME = REALM
USERID = re.compile(r'(%s)@(%s)' % (USER, REALM))
TOKENID = re.compile(r'(%s)@(%s)!(%s)' % (USER, REALM, TOKEN_NAME))
DNS_LABEL = r'[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?'
DNS_NAME = re.compile(r'(%s\.)*%s' % (DNS_LABEL, DNS_LABEL))
# PVE::JSONSchema::pve_verify_email.
EMAIL = re.compile(r'[\w+\-~]+(\.[\w+\-~]+)*@[a-zA-Z0-9\-]+(\.[a-zA-Z0-9\-]+)*')
# PBS's schema patterns (proxmox-schema SAFE_ID_REGEX and the single-line text of its comments), with the POSIX
# classes spelled out for Python: the ``pattern`` of the fields that copy them, as PBS's schema gives it.
SAFE_ID = r'^(?:[A-Za-z0-9_][A-Za-z0-9._\-]*)$'
SINGLE_LINE = r'^[^\x00-\x1f\x7f]*$'

PRIVILEGES = sorted([
    'Datastore.Allocate', 'Datastore.AllocateSpace', 'Datastore.AllocateTemplate', 'Datastore.Audit',
    'Group.Allocate', 'Mapping.Audit', 'Mapping.Modify', 'Mapping.Use', 'Permissions.Modify', 'Pool.Allocate',
    'Pool.Audit', 'Realm.Allocate', 'Realm.AllocateUser', 'SDN.Allocate', 'SDN.Audit', 'SDN.Use',
    'Sys.AccessNetwork', 'Sys.Audit', 'Sys.Console', 'Sys.Incoming', 'Sys.Modify', 'Sys.PowerMgmt', 'Sys.Syslog',
    'User.Modify', 'VM.Allocate', 'VM.Audit', 'VM.Backup', 'VM.Clone', 'VM.Config.CDROM', 'VM.Config.CPU',
    'VM.Config.Cloudinit', 'VM.Config.Disk', 'VM.Config.HWType', 'VM.Config.Memory', 'VM.Config.Network',
    'VM.Config.Options', 'VM.Console', 'VM.GuestAgent.Audit', 'VM.GuestAgent.FileRead',
    'VM.GuestAgent.FileSystemMgmt', 'VM.GuestAgent.FileWrite', 'VM.GuestAgent.Unrestricted', 'VM.Migrate',
    'VM.Monitor', 'VM.PowerMgmt', 'VM.Replicate', 'VM.Snapshot', 'VM.Snapshot.Rollback',
])
# 'none' is how PVE writes the empty set (a TokenSet's empty_token).
STORAGE_CONTENT = ['images', 'rootdir', 'vztmpl', 'backup', 'iso', 'snippets', 'import', 'none']


class Format:
    """One named format: ``accepts(text)`` and the phrase for what is allowed.

    ``choices`` makes it a closed list (privileges, content types): the refusal then names the nearest.
    """

    def __init__(self, name, accepts, allowed, choices=None):
        self.name = name
        self.accepts = accepts
        self.allowed = allowed
        self.choices = choices


def _full(pattern, flags=0):
    compiled = re.compile(pattern, flags)
    return lambda text: compiled.fullmatch(text) is not None


def _ip(text, version=None):
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return version is None or address.version == version


def _cidr(version=None):
    """PVE::JSONSchema pve_verify_cidr: an address (not only a network) and a mask of 8 bits or more."""
    def accepts(text):
        address, slash, bits = text.partition('/')
        if not slash or not bits.isdigit() or not _ip(address, version):
            return False
        widest = 32 if ipaddress.ip_address(address).version == 4 else 128
        return 8 <= int(bits) <= widest
    return accepts


def _network(text):
    """pve-firewall's IPorCIDR (Firewall.pm pve_verify_ip_or_cidr): any prefix length; host bits are cleared
    (clean_cidr) before Net::IP judges it, so 10.0.0.1/24 is accepted."""
    if '/' not in text or not _ip(text.split('/')[0]):
        return False
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        return False
    return True


def _ip_with_ll_iface(text):
    """pve-container's verify_ip_with_ll_iface (LXC/Config.pm): an IP address, a link-local IPv6 one with its
    interface (``fe80::1%eth0``)."""
    if '%' not in text:
        return _ip(text)
    address, _sep, iface = text.partition('%')
    return (address.startswith('fe80:') and _ip(address) and
            re.fullmatch(r'[a-z][a-z0-9_]{1,20}([:.]\d+)?', iface, re.I) is not None)


def _userid(text):
    # PVE::Auth::Plugin::verify_username: 3 to 64 characters as well.
    return 3 <= len(text) <= 64 and USERID.fullmatch(text) is not None


def _portal(text):
    """A host or address with an optional port; IPv6 in brackets when a port follows (pve-storage-portal-dns)."""
    host = text
    bracketed = re.fullmatch(r'\[([^\]]+)\](?::(\d+))?', text)
    if bracketed:
        host = bracketed.group(1)
        return _ip(host, 6)
    if text.count(':') == 1:
        host, port = text.split(':')
        if not port.isdigit():
            return False
    return _ip(host) or DNS_NAME.fullmatch(host) is not None


def _address(text):
    return _ip(text) or DNS_NAME.fullmatch(text) is not None


def _bgp_rt(text):
    match = re.fullmatch(r'([0-9]+):([0-9]+)', text)
    return match is not None and int(match.group(1)) <= 4294967295 and int(match.group(2)) <= 4294967295


def _replication_job_id(text):
    parts = re.fullmatch(r'(\d+)-(\d+)', text)
    return parts is not None and int(parts.group(1)) >= 100


def _vlan_id_or_range(text):
    """PVE::JSONSchema pve_verify_vlan_id_or_range: a tag or a range of tags (10-20), each 2 to 4094."""
    match = re.fullmatch(r'(\d+)(?:-(\d+))?', text)
    return match is not None and all(2 <= int(tag) <= 4094 for tag in match.groups() if tag is not None)


def _startup_order(text):
    """PVE::JSONSchema pve_verify_startup_order: [order=]N, up=N, down=N, comma-separated, blanks skipped."""
    return all(re.fullmatch(r'(order=)?\d+|up=\d+|down=\d+', part) for part in text.split(',') if part.strip())


def _cpuset(text):
    """pve-common CpuSet.pm parse_cpuset: comma-separated ids and rising ranges (Perl's split drops trailing empty
    fields)."""
    parts = text.split(',')
    while parts and parts[-1] == '':
        parts.pop()
    for part in parts:
        found = re.fullmatch(r'\s*(\d+)(?:-(\d+))?\s*', part)
        if not found or (found.group(2) is not None and int(found.group(2)) < int(found.group(1))):
            return False
    return True


HOTPLUG_FEATURES = ('network', 'disk', 'cpu', 'memory', 'usb', 'cloudinit')


def _hotplug_features(text):
    """qemu-server QemuServer.pm parse_hotplug_features: 0, 1 (the default set) or a list of features."""
    if text in ('0', '1'):
        return True
    return all(feature in HOTPLUG_FEATURES for feature in re.split(r'[,;\s]+', text) if feature)


def _key_values(keys, default_key=None):
    """A property string of the given keys, each once, the default key possibly bare; ``keys`` maps a key to
    a pattern its value must match (None: any value)."""
    def accepts(text):
        seen = set()
        for part in text.split(','):
            if not part.strip():
                continue
            key, sep, value = part.partition('=')
            if not sep:
                key, value = default_key, part
            if key not in keys or key in seen or not value or (keys[key] and not re.fullmatch(keys[key], value)):
                return False
            seen.add(key)
        return True
    return accepts


def _list_of(single):
    return lambda text: all(single.accepts(item) for item in LIST_SEPARATORS.split(text) if item)


FORMATS = dict((fmt.name, fmt) for fmt in [
    Format('pve-poolid', _full(r'[A-Za-z0-9.\-_]+(/[A-Za-z0-9.\-_]+){0,2}'),
           "letters, digits, '.', '-' and '_', with up to two '/' for nested pools"),
    Format('pve-roleid', _full(r'[A-Za-z0-9.\-_]+'), "letters, digits, '.', '-' and '_'"),
    Format('pve-groupid', _full(r'[A-Za-z0-9.\-_]+'), "letters, digits, '.', '-' and '_'"),
    Format('pve-userid', _userid, "name@realm, 3 to 64 characters, no spaces, ':' or '/' in the name"),
    Format('pve-tokenid', lambda text: TOKENID.fullmatch(text) is not None, 'user@realm!name'),
    Format('pve-realm', _full(REALM), "a letter, then letters, digits, '.', '-' and '_'"),
    Format('pve-storage-id', _full(r'[a-z][a-z0-9\-_.]*[a-z0-9]', re.I),
           "a letter, then letters, digits, '-', '_' and '.', ending in a letter or digit"),
    Format('pve-configid', _full(r'[a-z][a-z0-9_\-]+', re.I), "a letter, then letters, digits, '_' and '-'"),
    Format('pve-node', _full(DNS_LABEL), "a host name label: letters, digits and inner '-'"),
    Format('pve-priv', lambda text: text in PRIVILEGES, 'a PVE 8/9 privilege', choices=PRIVILEGES),
    Format('pve-storage-content', lambda text: text in STORAGE_CONTENT, 'a content type',
           choices=STORAGE_CONTENT),
    # PVE::Storage::Plugin::verify_path: only the start is anchored.
    Format('pve-storage-path', lambda text: re.match(r'/[^;()]+', text) is not None,
           "an absolute path without ';', '(' or ')'"),
    Format('pve-storage-server', _address, 'an IP address or a DNS name'),
    Format('pve-storage-portal-dns', _portal, 'host[:port], an IPv6 address in brackets when a port follows'),
    Format('pve-storage-vgname', _full(r'[a-zA-Z0-9+.\-_]+'), "letters, digits, '+', '.', '-' and '_'"),
    Format('pve-storage-options', _full(r'[-\w.=,:/ ]*'), "mount options: letters, digits, '-', '.', '=', ',', "
                                                          "':', '/' and spaces"),
    Format('pve-volume-id', _full(r'[a-z][a-z0-9\-_.]*[a-z0-9]:.+', re.I), 'storage:volume'),
    Format('email', lambda text: EMAIL.fullmatch(text) is not None, 'an e-mail address, name@domain'),
    Format('email-opt', lambda text: text == '' or EMAIL.fullmatch(text) is not None,
           "an e-mail address, name@domain, or '' for none"),
    # Any text: a list of it (string-list) is checked item by item by its field.
    Format('string', lambda text: True, 'any text'),
    Format('dns-name', lambda text: DNS_NAME.fullmatch(text) is not None, 'a DNS name'),
    Format('address', _address, 'an IP address or a DNS name'),
    Format('ip', _ip, 'an IPv4 or IPv6 address'),
    Format('lxc-ip-with-ll-iface', _ip_with_ll_iface, 'an IP address, a link-local IPv6 one perhaps with its '
                                                      'interface (fe80::1%eth0)'),
    Format('ipv4', lambda text: _ip(text, 4), 'an IPv4 address'),
    Format('ipv6', lambda text: _ip(text, 6), 'an IPv6 address'),
    Format('CIDR', _cidr(), 'address/bits, an IPv4 or IPv6 network with a mask of 8 bits or more'),
    Format('CIDRv4', _cidr(4), 'address/bits, an IPv4 network with a mask of 8 to 32 bits'),
    Format('CIDRv6', _cidr(6), 'address/bits, an IPv6 network with a mask of 8 to 128 bits'),
    Format('IPorCIDR', lambda text: _ip(text) or _network(text), 'an IP address or a network (address/prefix length)'),
    # PVE::JSONSchema pve_verify_mac_addr: unicast only (the first octet's low bit clear).
    Format('mac-addr', _full(r'[a-f0-9][02468ace](:[a-f0-9]{2}){5}', re.I),
           'a unicast MAC address, six hex pairs separated by colons'),
    Format('pve-vmid', _full(r'[1-9][0-9]{2,8}'), 'a guest id from 100 to 999999999'),
    Format('pve-tag', _full(r'[a-z0-9_][a-z0-9_\-+.]*', re.I), "letters, digits, '_', '-', '+' and '.'"),
    # PVE::HA::Tools (pve-ha-manager): an HA resource id, one that may be a bare VMID, a node with its priority.
    Format('pve-ha-resource-id', _full(r'[a-z]+:\S+'), 'type:name, for example vm:100 or ct:101'),
    Format('pve-ha-resource-or-vm-id', _full(r'[a-z]+:\S+|[0-9]+'), 'type:name (vm:100, ct:101) or a VMID'),
    Format('pve-ha-node', _full(DNS_LABEL + r'(:[0-9]+)?'), 'a node name, optionally with :<priority> (node2:10)'),
    Format('pve-calendar-event', lambda text: parse_calendar_event(text) is None,
           "a calendar event such as 'daily', 'sat 02:30' or 'mon..fri *:0/15'"),
    # PVE::JSONSchema pve_verify_email_or_username.
    Format('email-or-username', lambda text: EMAIL.fullmatch(text) is not None or _full(USER)(text),
           'an e-mail address or a user name'),
    # PVE::DataCenterConfig pve_verify_mac_prefix: one to three octets of a unicast address, a trailing ':' allowed.
    Format('mac-prefix', _full(r'[a-f0-9][02468ace](:[a-f0-9]{2}){0,2}:?', re.I),
           'a unicast MAC address prefix of one to three octets, such as BC:24:11'),
    # PVE::Status::Graphite pve_verify_graphite_path: dot-separated labels.
    Format('graphite-path', lambda text: DNS_NAME.fullmatch(text) is not None,
           "labels of letters, digits and inner '-', separated by dots"),
    # PVE::ReplicationConfig parse_replication_job_id: <guest>-<job number>, the guest a vmid of 100 or more.
    Format('pve-replication-job-id', _replication_job_id, '<vmid>-<job number>, such as 100-0'),
    # pve-network parse_sdn_zone_id / parse_sdn_vnet_id; a vnet's id is also its bridge's name.
    Format('pve-sdn-zone-id', lambda text: len(text) <= 8 and _full(r'[a-z][a-z0-9]*[a-z0-9]', re.I)(text),
           'a letter, then letters and digits, at most 8 characters'),
    Format('pve-sdn-vnet-id', lambda text: len(text) <= 8 and _full(r'[a-z][a-z0-9]*[a-z0-9]', re.I)(text),
           'a letter, then letters and digits, at most 8 characters'),
    # pve-network PVE/Network/SDN/Fabrics.pm's pve-sdn-fabric-id format.
    Format('pve-sdn-fabric-id', _full(r'[a-zA-Z0-9][a-zA-Z0-9-]{0,6}[a-zA-Z0-9]?'),
           "1 to 8 letters, digits and inner '-'"),
    # SubnetPlugin parse_sdn_subnet_id, as a task declares it: the network in CIDR form.
    Format('pve-sdn-subnet-id', _cidr(), 'network/bits, an IPv4 or IPv6 network with a mask of 8 bits or more'),
    # pve-network's SDN plugin ids (the registered formats before ecf98c5, which PVE 9.1's schema still names).
    Format('pve-sdn-controller-id', lambda text: len(text) <= 64 and _full(r'[a-z][a-z0-9_-]*[a-z0-9]', re.I)(text),
           "a letter, then letters, digits, '_' or '-', ending in a letter or digit, at most 64 characters"),
    Format('pve-sdn-ipam-id', _full(r'[a-z][a-z0-9]*[a-z0-9]', re.I), 'a letter, then letters and digits'),
    Format('pve-sdn-dns-id', _full(r'[a-z][a-z0-9]*[a-z0-9]', re.I), 'a letter, then letters and digits'),
    Format('pve-sdn-fabric-id', _full(r'[a-z0-9][a-z0-9-]{0,6}[a-z0-9]?', re.I),
           "letters, digits and inner '-', at most 8 characters"),
    # Controllers/IsisPlugin.pm pve_verify_sdn_isis_net: a network entity title.
    Format('pve-sdn-isis-net', _full(r'[a-f0-9]{2}(\.[a-f0-9]{4}){3,9}\.[a-f0-9]{2}', re.I),
           'an IS-IS network entity title such as 49.0001.1921.6800.1001.00'),
    # Zones/EvpnPlugin.pm pve_verify_sdn_bgp_rt: <asn>:<number>, each at most 4294967295.
    Format('pve-sdn-bgp-rt', _bgp_rt, 'a route target <asn>:<number> such as 65000:100'),
    # PVE::JSONSchema pve_verify_iface.
    Format('pve-iface', _full(r'[a-z][a-z0-9_]{1,20}([:.]\d+)?', re.I),
           "a letter, then 1 to 20 letters, digits or '_', optionally '.<vlan>' or ':<n>'"),
    Format('pve-vlan-id-or-range', _vlan_id_or_range, 'a VLAN tag or a range of tags such as 10-20, each 2 to 4094'),
    Format('pve-startup-order', _startup_order, '[order=]<n>[,up=<seconds>][,down=<seconds>]'),
    # qemu-server's property-string formats, by their keys (their values are checked by PVE).
    Format('pve-vm-cpu-conf', _key_values(dict.fromkeys(('cputype', 'flags', 'hidden', 'hv-vendor-id', 'phys-bits',
                                                         'reported-model')), 'cputype'),
           '[cputype=]<model>[,flags=<+flag;-flag>][,hidden=<1|0>][,hv-vendor-id=<id>][,phys-bits=<n|host>]'
           '[,reported-model=<model>]'),
    Format('pve-qm-boot', _key_values({'order': None, 'legacy': '[acdn]{1,4}'}, 'legacy'),
           'order=<device>[;<device>...] (or the legacy [acdn]{1,4})'),
    # qemu-server QemuServer.pm pve_verify_cpuset (pve-common's CpuSet) and pve_verify_hotplug_features.
    Format('pve-cpuset', _cpuset, 'host CPU ids and ranges, such as 0,5,8-11'),
    Format('pve-hotplug-features', _hotplug_features,
           "0, 1 or a list of network, disk, cpu, memory, usb and cloudinit"),
    Format('pve-qm-ipconfig', _key_values(dict.fromkeys(('ip', 'gw', 'ip6', 'gw6'))),
           'ip=<IPv4/CIDR|dhcp>[,gw=<IPv4>][,ip6=<IPv6/CIDR|auto|dhcp>][,gw6=<IPv6>]'),
])

for _name in ('email-or-username', 'pve-userid', 'pve-groupid', 'pve-roleid', 'pve-tokenid', 'pve-node', 'pve-priv',
              'pve-storage-content', 'pve-storage-portal-dns', 'pve-vmid', 'pve-tag', 'pve-ha-resource-id',
              'pve-ha-node', 'pve-iface', 'pve-vlan-id-or-range', 'ip', 'pve-sdn-bgp-rt'):
    _single = FORMATS[_name]
    FORMATS[_name + '-list'] = Format(_name + '-list', _list_of(_single), 'a list of: ' + _single.allowed,
                                      choices=_single.choices)


def why_not(name, text):
    """None when ``text`` has the format ``name``, else the phrase for what is allowed."""
    fmt = FORMATS[name]
    if fmt.accepts(text):
        return None
    if name == 'pve-calendar-event':
        return '%s: %s' % (fmt.allowed, parse_calendar_event(text))
    return fmt.allowed


def format_problem(name, template):
    """A field rule (text -> why it is refused, or None) for the format ``name``; ``template`` takes the phrase for
    what is allowed."""
    def problem(text):
        allowed = why_not(name, text)
        return template % allowed if allowed else None
    return problem


def bounded_problem(low, high, pattern, too_long, unmatched):
    """A field rule for a text of ``low`` to ``high`` characters matching ``pattern``: ``too_long`` takes the length,
    ``unmatched`` is said otherwise (PBS's string schemas: min_length, max_length, format)."""
    compiled = re.compile(pattern)

    def problem(text):
        if not low <= len(text) <= high:
            return too_long % len(text)
        if compiled.fullmatch(text) is None:
            return unmatched
        return None
    return problem
