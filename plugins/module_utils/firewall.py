# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the firewall families share about names, addresses, comments and log levels, as pve-firewall
(src/PVE/Firewall.pm) reads and writes them, and the names a reference resolves (``Names``)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import why_not

# pve-firewall's log levels (a rule's log, the options' log_level_in/out/forward).
LOG_LEVELS = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug', 'nolog']

# pve-firewall's name rule for aliases, ipsets and security groups (the schema's pattern).
NAME_PATTERN = r'[A-Za-z][A-Za-z0-9\-\_]+'
NAME = re.compile(NAME_PATTERN)
# An alias may be named with its scope (PVE 8+): dc/name, guest/name.
ALIAS_REFERENCE = re.compile(r'((dc|guest)/)?' + NAME_PATTERN)


def address(text):
    """The form PVE keeps: parse_ip_or_cidr drops /32 from an IPv4 and /128 from an IPv6 address."""
    host, _slash, bits = text.partition('/')
    try:
        widest = ipaddress.ip_address(host).max_prefixlen
    except ValueError:
        return text
    return host if bits == str(widest) else text


def pve_comment(text):
    """The comment PVE keeps: trimmed, and one Perl reads as false ('0') is never written."""
    text = text.strip()
    return '' if text == '0' else text


def clean_cidr(text):
    """An ipset entry as PVE stores it: create_ip (API2/Firewall/IPSet.pm) runs clean_cidr (Firewall.pm: host bits
    cleared, IPv6 compressed) and then parse_ip_or_cidr (/32, /128 dropped), so 10.0.2.5/24 is kept as 10.0.2.0/24."""
    if '/' in text:
        try:
            text = ipaddress.ip_network(text, strict=False).with_prefixlen
        except ValueError:
            return text
    return address(text)


def network_problem(text):
    """Why Net::IP->new refuses a network with host bits set, or None: parse_address_list (a rule's source and dest)
    hands its elements to Net::IP as given, unlike pve_verify_ip_or_cidr (an alias, an ipset entry)."""
    if '/' in text:
        try:
            ipaddress.ip_network(text, strict=True)
        except ValueError:
            return 'has host bits set; PVE wants the network address (for example %s)' % (
                ipaddress.ip_network(text, strict=False))
    return None


def address_or_alias_problem(text):
    """PVE's IPorCIDRorAlias: an alias name, or an address or network (pve_verify_ip_or_cidr: host bits are cleared
    before Net::IP judges it, so 10.0.2.5/24 is accepted)."""
    if ALIAS_REFERENCE.fullmatch(text):
        return None
    allowed = why_not('IPorCIDR', text)
    if allowed:
        return 'is neither an alias name nor %s' % allowed
    return None


def refuse_comment_lines(option, text):
    if '\n' in text or '\r' in text:
        raise DeclarationError('option %s: %r has a line break; PVE writes a comment on one line of its '
                               'firewall file' % (option, text))


def alias_version(row):
    """An alias's IP version: PVE's row carries it, a declared alias has its address."""
    if row.get('ipversion'):
        return int(row['ipversion'])
    try:
        return ipaddress.ip_network(str(row.get('cidr') or ''), strict=False).version
    except ValueError:
        return None


class Names:
    """The cluster's aliases, IP sets and security groups as a reference resolves them: each live list read once,
    only when a reference needs it, then what the same ``declare`` task declares (present, or absent) laid over it.

    Keys are as PVE keeps them: an alias lower-cased (its lookups are lc), an IP set and a security group by the
    lower-cased name the parser stores (generic_fw_config_parser), which a reference must spell exactly."""

    LISTS = dict(alias=('/cluster/firewall/aliases', 'name'), ipset=('/cluster/firewall/ipset', 'name'),
                 group=('/cluster/firewall/groups', 'group'))
    # The modules whose declarations add to (or remove from) a list: module -> (list, identity option). A
    # firewall_rules object names a security group only with scope=group (no other scope's identity has a group).
    DECLARED = {'firewall_alias': ('alias', 'name'), 'firewall_ipset': ('ipset', 'name'),
                'firewall_rules': ('group', 'group')}

    def __init__(self, client, family, batch):
        self.client, self.role, self.batch, self.lists = client, family.read_role, batch, {}

    @classmethod
    def of(cls, client, family, batch):
        """The Names a reference check reads: one for all the objects of a ``declare`` batch (each list read once
        per batch, kept in the batch's memo), afresh for a module's own run (no batch)."""
        memo = getattr(batch, 'memo', None)
        if memo is None:
            return cls(client, family, batch)
        key = ('firewall names', family.read_role)
        if key not in memo:
            memo[key] = cls(client, family, batch)
        return memo[key]

    def table(self, kind):
        if kind not in self.lists:
            path, key = self.LISTS[kind]
            rows = dict((str(row.get(key)).lower() if kind == 'alias' else str(row.get(key)), row)
                        for row in self.client.get(path, role=self.role) or [])
            for entry in self.batch:
                declared = self.DECLARED.get(entry.family.module)
                if not declared or declared[0] != kind or declared[1] not in entry.declaration.ident:
                    continue
                name = entry.declaration.ident[declared[1]]
                if entry.declaration.state == 'absent':
                    rows.pop(name, None)
                else:
                    rows[name] = dict(entry.declaration.values, **{key: name})
            self.lists[kind] = rows
        return self.lists[kind]

    def alias(self, name):
        return self.table('alias').get(name.lower())

    def ipset(self, name):
        return self.table('ipset').get(name)

    def group(self, name):
        return self.table('group').get(name)
