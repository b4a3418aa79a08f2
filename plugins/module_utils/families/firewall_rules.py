# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The whole ordered firewall rule list of one scope, as one object.

Scopes: the cluster (/cluster/firewall/rules), a security group (/cluster/firewall/groups/{group},
the group itself with its comment) and a node (/nodes/{node}/firewall/rules). PVE addresses a rule
by its position only, and every write renumbers the rules after it, so a rule is never declared
by position: the declared list is compared, in order, with the live one, and the store works out
the writes (pve-firewall src/PVE/API2/Firewall/Rules.pm):

* POST puts a new rule on top (position 0) and disables it unless ``enable`` is sent;
* PUT {pos} with ``moveto`` moves one rule (before the rule that was at ``moveto``);
* PUT {pos} with the rule's keys rewrites it in place (``delete=`` for keys it loses);
* DELETE {pos} removes it.

Each PUT and DELETE carries the digest of the list read just before it, and the list is read
again after every write, so positions are never guessed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, NotConverged
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Field, Flag, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.firewall import (
    ALIAS_REFERENCE, GUEST_FIREWALL, LOG_LEVELS, NAME, NAME_PATTERN, VNET_FIREWALL, GuestScope, Names, VnetScope,
    alias_version, network_problem, pve_comment)
from ansible_collections.homeflare.proxmox.plugins.module_utils.guest import identity as guest_identity
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import ABSENT, Family, Where, absent
from ansible_collections.homeflare.proxmox.plugins.module_utils.scopes import ByScope

DIRECTIONS = ['in', 'out', 'forward']
# A rule's options, their wire names and the Ansible types of the suboptions.
RULE_OPTIONS = dict(
    type=dict(type='str', required=True, choices=DIRECTIONS + ['group']),
    action=dict(type='str', required=True),
    macro=dict(type='str'),
    source=dict(type='str'),
    dest=dict(type='str'),
    proto=dict(type='str'),
    dport=dict(type='str'),
    sport=dict(type='str'),
    icmp_type=dict(type='str'),
    iface=dict(type='str'),
    log=dict(type='str', choices=LOG_LEVELS),
    enable=dict(type='bool', default=True),
    comment=dict(type='str', default=''),
)
WIRE = dict((option, option.replace('_', '-')) for option in RULE_OPTIONS)
# What the file keeps of a rule of type group ($format_rules): the rest is dropped without a word.
GROUP_RULE_KEYS = ('type', 'action', 'iface', 'enable', 'comment')
ENABLE = Flag('enable')

# pve-fw-protocol-spec looks the name up in /etc/protocols; pve-fw-*port-spec in /etc/services.
PROTOCOL = re.compile(r'[a-z][a-z0-9.+-]*|[0-9]{1,3}')
PORT_NAME = re.compile(r'[a-z][a-z0-9-]*')
# Firewall.pm $PROTOCOLS_WITH_PORTS and $proto_is_icmp.
PROTOCOLS_WITH_PORTS = ('tcp', '6', 'udp', '17', 'udplite', '136', 'dccp', '33', 'sctp', '132')
ICMP_PROTOCOLS = {'icmp': 4, 'icmpv6': 6, 'ipv6-icmp': 6}
# Firewall.pm $icmp_type_names and $icmpv6_type_names (iptables -p icmp -h, ip6tables -p icmpv6 -h).
ICMP_TYPES = set('''any echo-reply destination-unreachable network-unreachable host-unreachable protocol-unreachable
port-unreachable fragmentation-needed source-route-failed network-unknown host-unknown network-prohibited
host-prohibited TOS-network-unreachable TOS-host-unreachable communication-prohibited host-precedence-violation
precedence-cutoff source-quench redirect network-redirect host-redirect TOS-network-redirect TOS-host-redirect
echo-request router-advertisement router-solicitation time-exceeded ttl-zero-during-transit
ttl-zero-during-reassembly parameter-problem ip-header-bad required-option-missing timestamp-request timestamp-reply
address-mask-request address-mask-reply'''.split())
ICMPV6_TYPES = set('''destination-unreachable no-route communication-prohibited beyond-scope address-unreachable
port-unreachable failed-policy reject-route packet-too-big time-exceeded ttl-zero-during-transit
ttl-zero-during-reassembly parameter-problem bad-header unknown-header-type unknown-option echo-request echo-reply
router-solicitation router-advertisement neighbor-solicitation neighbour-solicitation neighbor-advertisement
neighbour-advertisement redirect'''.split())
IPSET_REFERENCE = re.compile(r'\+((dc|guest|sdn)/)?(' + NAME_PATTERN + ')')
# The sets SDN makes of each vnet and guest (PVE::RS::Firewall::SDN), which verify_rule also accepts unscoped:
# this collection does not read them, so such a name is left to PVE.
SDN_SET = re.compile(r'.+-(all|gateway|no-gateway|dhcp)|guest-ipam-[0-9]+')
# Firewall.pm $pve_fw_macros and $pve_ipv6fw_macros: each macro's rules as (proto, dport[, sport]); every action is
# the rule's own (PARAM). A macro only in the IPv6 table is an IPv6 one ($pve_fw_macro_ipversion).
MACROS = {
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
IPV6_MACROS = {
    'DHCPv6': [('udp', '546:547', '546:547')],
    'NeighborDiscovery': [('icmpv6', 'router-solicitation'), ('icmpv6', 'router-advertisement'),
                          ('icmpv6', 'neighbor-solicitation'), ('icmpv6', 'neighbor-advertisement')],
    'Ping': [('icmpv6', 'echo-request')], 'Trcrt': [('udp', '33434:33524'), ('icmpv6', 'echo-request')],
}
PREFERRED_MACRO = dict((name.lower(), name) for name in list(MACROS) + list(IPV6_MACROS))


# -- pve-firewall's formats, as small checks (they are not in formats.py) ---------------------------

def perl_split(text):
    """Perl's split(/,/): trailing empty fields dropped, the others kept (so 'a,' is an extraneous comma)."""
    parts = text.split(',')
    while parts and not parts[-1]:
        parts.pop()
    return parts


def address_version(text):
    """One element of an address list (Net::IP->new): an address, a network or an a-b range; its IP version."""
    if '-' in text:
        first, _dash, last = text.partition('-')
        low, high = ipaddress.ip_address(first.strip()), ipaddress.ip_address(last.strip())
        if low.version != high.version or int(low) > int(high):
            raise ValueError('is not a range from a lower to a higher address of one IP version')
        return low.version
    if network_problem(text):
        raise ValueError(network_problem(text))
    return ipaddress.ip_network(text, strict=False).version


def addr_spec_version(text):
    """pve-fw-addr-spec (parse_address_list): +ipset, an alias, or a comma list of addresses; the IP version."""
    if text.startswith('+'):
        if len(text) > 65:
            raise ValueError('ipset name too long')
        if not IPSET_REFERENCE.fullmatch(text):
            raise ValueError("invalid ipset name '%s'" % text)
        return None
    if ALIAS_REFERENCE.fullmatch(text):
        if len(text) > 64:
            raise ValueError('alias name too long')
        return None
    elements = perl_split(text)
    if text != ','.join(elements):
        raise ValueError('extraneous commas in list')
    versions = set()
    for element in elements:
        try:
            versions.add(address_version(element))
        except ValueError as exc:
            raise ValueError('invalid IP address: %r is not an address, a network or a range (%s)' % (element, exc))
        if len(versions) > 1:
            raise ValueError("detected mixed ipv4/ipv6 addresses in address list '%s'" % text)
    if len(elements) > 1 and any('-' in element for element in elements):
        raise ValueError("you can't use a range in a list")
    return versions.pop()


def check_ports(text, icmp):
    """parse_port_name_number_or_range: ICMP type names count as ports only in the dport of an ICMP rule (``icmp``);
    any other name must be a service of the node's /etc/services, which names no ICMP type."""
    elements = perl_split(text)
    if text != ','.join(elements):
        raise ValueError('extraneous commas in list')
    numbers, icmp_port = 0, False
    for item in elements:
        span = re.match(r'^(\d+):(\d+)$', item)
        if span:
            numbers += 2
            first, last = int(span.group(1)), int(span.group(2))
            for port in (first, last):
                if port > 65535:
                    raise ValueError("invalid port '%d'" % port)
            if first > last:
                raise ValueError("backwards range '%d:%d' not allowed, did you mean '%d:%d'?"
                                 % (first, last, last, first))
        elif item.isdigit():
            numbers += 1
            if int(item) > 65535:
                raise ValueError("invalid port '%s'" % item)
        elif icmp and (item in ICMP_TYPES or item in ICMPV6_TYPES):
            icmp_port = True
        elif item in ICMP_TYPES or item in ICMPV6_TYPES or not PORT_NAME.fullmatch(item):
            raise ValueError("invalid port '%s'" % item)
    if icmp_port and numbers:
        raise ValueError('ICMP ports not allowed in port range')
    if numbers > 15:
        raise ValueError('too many entries in port list (> 15 numbers)')


def macro_conflict(macro, rule, version, keys=('proto', 'dport', 'sport')):
    """$apply_macro: a key the macro's rules set to another value is PVE's refusal, (key, reason), or None.
    A macro of the other IP version is skipped; an IPv6 rule uses the IPv6 table where it has the macro."""
    only_ipv6 = macro not in MACROS
    if version and only_ipv6 and version != 6:
        return None
    rules = IPV6_MACROS[macro] if (only_ipv6 or version == 6) and macro in IPV6_MACROS else MACROS[macro]
    for template in rules:
        defined = dict(zip(('proto', 'dport', 'sport'), template))
        for key in keys:
            if key in rule and key in defined and rule[key] != defined[key]:
                return key, "parameter '%s' already define in macro (value = '%s')" % (key, defined[key])
    return None


# -- one rule ------------------------------------------------------------------------------------

def canonical_rule(rule):
    """A rule as compared: option names, no empty keys, ``enable`` a boolean, the macro's case folded
    (PVE looks macros up case-insensitively and stores its own spelling), the comment as PVE keeps it."""
    result = {}
    for option in RULE_OPTIONS:
        value = rule.get(option, rule.get(WIRE[option]))
        if option == 'enable':
            result['enable'] = bool(ENABLE.canonical(1 if value is None else value))
            continue
        value = '' if value is None else str(value).strip()
        if option == 'comment':
            value = pve_comment(value)
        elif option in ('macro', 'type'):
            value = value.lower()
        if value:
            result[option] = value
    return result


class IpVersions:
    """verify_rule's one IP version per rule: an ICMP protocol's, then source's and dest's in that order (each
    address spec or alias adds its own; None: either). The one copy of the check, for the declared rule's addresses
    (rule_problems) and for the aliases its references resolve to (reference_problems)."""

    MIXED = 'detected mixed ipv4/ipv6 addresses in rule'

    def __init__(self, rule):
        proto = rule.get('proto')
        self.seen = set([ICMP_PROTOCOLS[proto]]) if proto in ICMP_PROTOCOLS else set()

    def add(self, version):
        """Take one address's version; PVE's refusal once the rule mixes two, else None."""
        if version is not None:
            self.seen.add(version)
        return self.MIXED if len(self.seen) > 1 else None

    def one(self):
        """The rule's IP version, None when nothing fixes it."""
        return next(iter(self.seen), None)


# Firewall.pm $rule_env_direction_lookup and $rule_env_iface_lookup: the rule types and whether an interface may be
# named, per scope (a container's rules are the 'ct' env, which allows what 'vm' does).
ENV_TYPES = dict(cluster=('in', 'out', 'forward', 'group'), host=('in', 'out', 'forward', 'group'),
                 group=('in', 'out', 'forward'), vm=('in', 'out', 'group'), vnet=('forward', 'group'))
ENV_IFACE = dict(cluster=True, host=True, group=False, vm=True, vnet=False)


def rule_problems(rule, env):
    """What pve-firewall's verify_rule (src/PVE/Firewall.pm) refuses, in its order and words, as (option, why) pairs;
    then what its file would silently drop. The API stops at the first, as the callers here do. References to
    aliases, IP sets and security groups are judged against the live lists (``reference_problems``)."""
    kind, action = rule['type'], rule['action']
    if kind not in ENV_TYPES[env]:
        yield 'type', "invalid rule type '%s' for rule_env '%s'" % (kind, env)
    if kind == 'group':
        if not NAME.fullmatch(action):
            yield 'action', 'invalid characters in security group name'
        if len(action) > 18:
            yield 'action', 'names a security group: 2 to 18 characters'
    else:
        if kind == 'forward' and action == 'REJECT':
            yield 'action', 'cannot define REJECT rules on forward chain'
        if action not in ('ACCEPT', 'DROP', 'REJECT'):
            yield 'action', "unknown action '%s'" % action
    if 'iface' in rule:
        if not ENV_IFACE[env]:
            yield 'iface', 'parameter -i not allowed for this rule type'
        elif not re.fullmatch(r'[a-z][a-z0-9_]{1,20}([:.]\d+)?', rule['iface'], re.I):
            yield 'iface', "invalid network interface name '%s'" % rule['iface']
        elif env == 'vm' and not re.fullmatch(r'net\d+', rule['iface']):
            yield 'iface', "value does not match the regex pattern 'net\\d+' (a guest's interface is netN)"
    macro = PREFERRED_MACRO.get(rule.get('macro', ''))
    if 'macro' in rule and not macro:
        yield 'macro', "unknown macro '%s'" % rule['macro']
    proto = rule.get('proto')
    is_icmp = proto in ICMP_PROTOCOLS
    versions = IpVersions(rule)
    if proto and not PROTOCOL.fullmatch(proto):
        yield 'proto', "unknown protocol '%s'" % proto
    for option in ('dport', 'icmp_type', 'sport'):
        if option not in rule:
            continue
        if option == 'icmp_type':
            icmp_type = rule['icmp_type']
            if not is_icmp:
                yield 'proto', "missing property - 'icmp-type' requires this property"
            if 'dport' in rule:
                yield 'icmp_type', "'icmp-type' cannot be specified together with 'dport'"
            if icmp_type not in (ICMP_TYPES if proto == 'icmp' else ICMPV6_TYPES):
                yield 'icmp_type', "invalid icmp-type '%s' for proto '%s'" % (icmp_type, proto)
            continue
        try:
            check_ports(rule[option], option == 'dport' and is_icmp)
        except ValueError as exc:
            yield option, str(exc)
        # A macro that sets the port is the reason a declared port fails, whatever else the rule lacks.
        conflict = macro and macro_conflict(macro, rule, None, keys=(option,))
        if conflict:
            yield conflict
        if not proto:
            yield 'proto', "missing property - '%s' requires this property" % option
        elif proto not in PROTOCOLS_WITH_PORTS and not (option == 'dport' and is_icmp):
            yield option, "protocol '%s' does not support ports" % proto
    for option in ('source', 'dest'):
        if option not in rule:
            continue
        if len(rule[option]) > 512:
            yield option, 'is longer than 512 characters'
        version = None
        try:
            version = addr_spec_version(rule[option])
        except ValueError as exc:
            yield option, str(exc)
        mixed = versions.add(version)
        if mixed:
            yield option, mixed
    conflict = macro and macro_conflict(macro, rule, versions.one())
    if conflict:
        yield conflict
    if kind == 'group':
        dropped = sorted(option for option in rule if option not in GROUP_RULE_KEYS)
        if dropped:
            yield dropped[0], 'a rule of type group takes only action, iface, enable and comment'
    if '\n' in rule.get('comment', ''):
        yield 'comment', 'has a line break; PVE writes a rule on one line'


class RuleList(Field):
    """The ordered rule list, compared as a list of canonical rules (never by position numbers)."""

    ansible_type = 'list'
    elements = 'dict'
    unset = []

    def __init__(self, wire, env='cluster', **kwargs):
        super(RuleList, self).__init__(wire, **kwargs)
        self.env = env

    def argument_spec(self):
        spec = super(RuleList, self).argument_spec()
        spec['options'] = RULE_OPTIONS
        return spec

    def canonical(self, value):
        return canonical_rules(value)

    def declared(self, value):
        rules = self.canonical(value)
        for index, rule in enumerate(rules):
            for option, why in rule_problems(rule, self.env):
                raise refusal(self.option, index, rule, option, why)
        return rules


def refusal(field, index, rule, option, why):
    shown = '' if rule.get(option) is None else ' %r:' % rule[option]
    return DeclarationError('option %s[%d].%s:%s %s' % (field, index, option, shown, why))


def reference_problems(rule, names):
    """verify_rule's check_ipset_or_alias_property (src/PVE/Firewall.pm): an IP set by its exact (stored, lower-case)
    name, an alias case-insensitively whatever its dc/ or guest/ scope, its IP version against the rule's; and a
    rule of type group naming a security group that exists (generate_group_rules: else an empty chain, a warning)."""
    versions = IpVersions(rule)
    if rule['type'] == 'group' and not names.group(rule['action']):
        yield 'action', "no such security group '%s'" % rule['action']
    for option in ('source', 'dest'):
        value = rule.get(option)
        if not value:
            continue
        ipset, alias = IPSET_REFERENCE.fullmatch(value), ALIAS_REFERENCE.fullmatch(value)
        version = None
        if ipset:
            name = ipset.group(3)
            if ipset.group(2) != 'sdn' and not SDN_SET.fullmatch(name) and not names.ipset(name):
                yield option, "no such ipset '%s'" % name
        elif alias:
            name, scope = value.split('/')[-1], alias.group(2)
            if not names.alias_exists(name):
                yield option, "no such alias '%s'" % value
            version = alias_version(names.alias(name, scope) or {})
        else:
            version = addr_spec_version(value)
        mixed = versions.add(version)
        if mixed:
            yield option, mixed


# -- the writes ----------------------------------------------------------------------------------

def rule_form(rule, before=None):
    """What a POST sends (``before`` None: every key, ``enable`` too, since PVE disables a rule sent
    without it) or an in-place PUT (the keys that differ; the ones the rule loses go to delete=)."""
    form, delete = {}, []
    for option in RULE_OPTIONS:
        value = rule.get(option)
        if before is not None and value == before.get(option):
            continue
        if value is None:
            if before is not None:
                delete.append(WIRE[option])
        elif option == 'enable':
            form['enable'] = '1' if value else '0'
        else:
            form[WIRE[option]] = value
    if delete:
        form['delete'] = ','.join(delete)
    return form


def canonical_rules(rules):
    return [canonical_rule(rule) for rule in rules or []]


def longest_common(current, desired):
    """Index pairs (i, j) of a longest common subsequence: the rules that can stay where they are."""
    rows, cols = len(current), len(desired)
    length = [[0] * (cols + 1) for _row in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            length[i][j] = (length[i + 1][j + 1] + 1 if current[i] == desired[j]
                            else max(length[i + 1][j], length[i][j + 1]))
    pairs, i, j = [], 0, 0
    while i < rows and j < cols:
        if current[i] == desired[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif length[i + 1][j] >= length[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def longest_increasing(numbers):
    """A longest strictly increasing subsequence of distinct numbers (as a set): the rules left unmoved."""
    best = []
    for index, number in enumerate(numbers):
        chain = max((best[earlier] for earlier in range(index) if numbers[earlier] < number), key=len, default=[])
        best.append(chain + [number])
    return set(max(best, key=len, default=[]))


def edit_script(current, desired):
    """The writes that turn ``current`` into ``desired`` (lists of canonical rules), by position.

    Rules already in order stay; a rule only out of place is moved; one that changed is rewritten in
    place; what is left over is deleted, what is missing is created (on top, then moved). Which
    rewrites and moves pay off depends on the lists, so the shortest of a few pairings is taken.
    Steps: ('delete', pos), ('update', pos, before, after), ('create', rule), ('move', pos, moveto).
    """
    anchored = dict(longest_common(current, desired))
    in_place = dict((i, i) for i in range(min(len(current), len(desired))) if current[i] == desired[i])
    return min((script(current, desired, kept, reuse, backward) for kept in (anchored, in_place)
                for reuse in (True, False) for backward in (False, True)), key=len)


def script(current, desired, kept, reuse, backward):
    """One pairing. ``kept`` rules stay (a longest common run, or the ones already at their position);
    ``reuse`` moves a rule that is only out of place (else it is rewritten or replaced); ``backward``
    rewrites leftover rules into the last missing ones, leaving the first to creates on top."""
    target = dict(kept)
    extra = [i for i in range(len(current)) if i not in target]
    missing = [j for j in range(len(desired)) if j not in set(target.values())]
    for j in list(missing if reuse else []):
        same = [i for i in extra if current[i] == desired[j]]
        if same:
            target[same[0]] = j
            extra.remove(same[0])
            missing.remove(j)
    rewritten = list(zip(extra, missing[len(missing) - len(extra):] if backward else missing))
    for i, j in rewritten:
        target[i] = j
        extra.remove(i)
        missing.remove(j)

    steps, work, slots = [], list(current), [target.get(i) for i in range(len(current))]
    for pos in reversed(range(len(work))):
        if slots[pos] is None:
            steps.append(('delete', pos))
            del work[pos], slots[pos]
    for pos, j in enumerate(slots):
        if work[pos] != desired[j]:
            steps.append(('update', pos, work[pos], desired[j]))
            work[pos] = desired[j]
    for j in reversed(missing):
        steps.append(('create', desired[j]))
        work.insert(0, desired[j])
        slots.insert(0, j)
    unmoved = longest_increasing(slots)
    for j in range(len(desired)):
        if j in unmoved:
            continue
        pos, moveto = slots.index(j), slots.index(j - 1) + 1 if j else 0
        if pos != moveto:
            steps.append(('move', pos, moveto))
            slots = moved(slots, pos, moveto)
    return steps


def moved(items, pos, moveto):
    """PVE's moveto: the item leaves ``pos`` and goes before the item that was at ``moveto`` (or last)."""
    if moveto == pos:
        return list(items)
    item, result = items[pos], []
    for index, other in enumerate(items):
        if index == pos:
            continue
        if index == moveto:
            result.append(item)
        result.append(other)
    if moveto >= len(items):
        result.append(item)
    return result


def applied(rules, step):
    """The list PVE holds after one step (the expected state before the next write)."""
    rules = list(rules)
    if step[0] == 'delete':
        del rules[step[1]]
    elif step[0] == 'update':
        rules[step[1]] = step[3]
    elif step[0] == 'create':
        rules.insert(0, step[1])
    else:
        rules = moved(rules, step[1], step[2])
    return rules


class RuleStore:
    """A scope's rule list (cluster, node): an empty list is how PVE shows "no rules", so it reads as absent."""

    # Re-plans allowed when the list read between writes is not the one expected (another writer).
    REPLANS = 3

    def rules(self, client, family, ident):
        return client.get(family.path(ident), role=family.read_role) or []

    def read(self, client, family, ident):
        rules = self.rules(client, family, ident)
        return dict(rules=rules, digest=rules[0].get('digest')) if rules else ABSENT

    def create(self, client, family, ident, form):
        # Each POST lands on top: the last rule first leaves the list in order with no move.
        for rule in reversed(form.get('rules', [])):
            client.post(family.path(ident), rule_form(rule), role=family.write_role)

    def update(self, client, family, ident, form, live):
        if 'rules' in form:
            self.sync(client, family, ident, live['rules'], form['rules'])

    def sync(self, client, family, ident, live_rules, desired):
        """The edit script, one write at a time, each with the digest of the list read just before it."""
        current, digest = canonical_rules(live_rules), live_rules[0]['digest'] if live_rules else None
        steps, replans = edit_script(current, desired), 0
        while steps:
            step = steps.pop(0)
            self.send(client, family, ident, step, digest)
            expected = applied(current, step)
            live_rules = self.rules(client, family, ident)
            current, digest = canonical_rules(live_rules), live_rules[0]['digest'] if live_rules else None
            if current != expected:
                replans += 1
                if replans > self.REPLANS:
                    raise NotConverged('%s keeps changing while it is written; nothing more was sent'
                                       % family.describe(ident))
                steps = edit_script(current, desired)

    def send(self, client, family, ident, step, digest):
        path, role = family.path(ident), family.write_role
        guard = dict(digest=digest) if digest else {}
        if step[0] == 'create':
            client.post(path, dict(rule_form(step[1]), **guard), role=role)
        elif step[0] == 'delete':
            client.delete('%s/%d' % (path, step[1]), guard, role=role)
        elif step[0] == 'update':
            client.put('%s/%d' % (path, step[1]), dict(rule_form(step[3], step[2]), **guard), role=role)
        else:
            client.put('%s/%d' % (path, step[1]), dict(moveto=str(step[2]), **guard), role=role)

    def delete(self, client, family, ident):
        rules = self.rules(client, family, ident)
        while rules:
            self.send(client, family, ident, ('delete', 0), rules[0].get('digest'))
            rules = self.rules(client, family, ident)


class GroupStore(RuleStore):
    """A security group: a row of /cluster/firewall/groups (its comment) and its rule list."""

    def read(self, client, family, ident):
        row = [row for row in client.get(family.collection, role=family.read_role) or []
               if row.get('group') == ident['group']]
        if not row:
            return ABSENT
        rules = self.rules(client, family, ident)
        return dict(row[0], rules=rules, group_digest=row[0].get('digest'))

    def create(self, client, family, ident, form):
        group = dict(group=ident['group'])
        if 'comment' in form:
            group['comment'] = form['comment']
        client.post(family.collection, group, role=family.write_role)
        super(GroupStore, self).create(client, family, ident, form)

    def update(self, client, family, ident, form, live):
        if 'comment' in form:
            # ``rename`` to the group's own name changes its comment (create_security_group).
            client.post(family.collection, dict(group=ident['group'], rename=ident['group'], comment=form['comment'],
                                                digest=live['group_digest']), role=family.write_role)
        super(GroupStore, self).update(client, family, ident, form, live)

    def delete(self, client, family, ident):
        super(GroupStore, self).delete(client, family, ident)
        client.delete(family.path(ident), role=family.write_role)


class RulesFamily(Family):
    """A scope's rule list (the cluster's, a node's): at least one rule when present."""

    def check_declaration(self, declaration):
        if declaration.state == 'present' and not declaration.values.get('rules'):
            raise DeclarationError('option rules: declare at least one rule; PVE shows a scope without rules as '
                                   'empty, so use state=absent to remove them all')

    def check_references(self, declaration, raw, batch, client):
        """Each rule still to be written (PVE verifies a rule on POST and on an in-place PUT) has its references
        judged against the live lists and the rest of the ``declare`` task, before the first write."""
        live = [] if absent(raw) else canonical_rules(raw.get('rules'))
        names = self.names(client, declaration, batch)
        for index, rule in enumerate(declaration.values.get('rules') or []):
            if rule in live:
                continue
            for option, why in reference_problems(rule, names):
                raise refusal('rules', index, rule, option, why)

    def names(self, client, declaration, batch):
        """The names this scope's references resolve: the cluster's."""
        return Names.of(client, CLUSTER, batch)


class GuestRules(GuestScope, RulesFamily):
    """A guest's rule list: the guest found first (GuestScope), its references resolved to its own names first."""


class VnetRules(VnetScope, RulesFamily):
    """A vnet's rule list: the vnet found in SDN's running configuration first (VnetScope); the cluster's names."""


class GroupFamily(RulesFamily):
    """A security group: its comment and its rules (it may hold none). In one declare task, security groups are
    written before the rules that name them."""

    declare_rank = -1

    def check_declaration(self, declaration):
        if '\n' in declaration.values.get('comment', ''):
            raise DeclarationError('option comment: %r has a line break' % declaration.values['comment'])


CLUSTER = RulesFamily(
    'firewall_rules', 'cluster firewall rules',
    identity=[],
    fields=[RuleList('rules', default=[], schema_key=None)],
    where=Where(item='/cluster/firewall/rules', store=RuleStore(), schema=('POST', '/cluster/firewall/rules')),
)

NODE = RulesFamily(
    'firewall_rules', 'node firewall rules',
    identity=[Text('node', required=True, format='pve-node')],
    fields=[RuleList('rules', default=[], env='host', schema_key=None)],
    where=Where(item='/nodes/{node}/firewall/rules', store=RuleStore(),
                schema=('POST', '/nodes/{node}/firewall/rules')),
)

GROUP = GroupFamily(
    'firewall_rules', 'security group',
    # PVE lower-cases group names when it reads cluster.fw ([group name] headers).
    identity=[Text('group', required=True, pattern=NAME_PATTERN, min_length=2, max_length=18,
                   normalise=lambda name: name.lower())],
    fields=[Text('comment', default='', normalise=pve_comment),
            RuleList('rules', default=[], env='group', schema_key=None)],
    where=Where(collection='/cluster/firewall/groups', item='/cluster/firewall/groups/{group}', store=GroupStore(),
                schema=('POST', '/cluster/firewall/groups')),
)

GUEST = GuestRules(
    'firewall_rules', 'firewall rules',
    identity=guest_identity(),
    fields=[RuleList('rules', default=[], env='vm', schema_key=None)],
    where=Where(item=GUEST_FIREWALL + '/rules', store=RuleStore(),
                schema=('POST', '/nodes/{node}/qemu/{vmid}/firewall/rules')),
)

VNET = VnetRules(
    'firewall_rules', 'firewall rules',
    identity=[Text('vnet', required=True, format='pve-sdn-vnet-id')],
    fields=[RuleList('rules', default=[], env='vnet', schema_key=None)],
    where=Where(item=VNET_FIREWALL + '/rules', store=RuleStore(),
                schema=('POST', '/cluster/sdn/vnets/{vnet}/firewall/rules')),
)

FAMILY = ByScope('firewall_rules', 'firewall rules',
                 dict(cluster=CLUSTER, group=GROUP, node=NODE, vm=GUEST, vnet=VNET), default='cluster')
