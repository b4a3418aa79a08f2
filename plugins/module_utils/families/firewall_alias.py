# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cluster firewall alias family: /cluster/firewall/aliases/{name}.

Also what the other firewall families share about names, addresses and comments, as pve-firewall
(src/PVE/Firewall.pm) reads and writes them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import why_not
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import ABSENT, Family, ItemStore, Listing

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


def network_problem(text):
    """Why Net::IP (pve_verify_ip_or_cidr) refuses an address PVE's pattern let through, or None."""
    if '/' in text:
        try:
            ipaddress.ip_network(text, strict=True)
        except ValueError:
            return 'has host bits set; PVE wants the network address (for example %s)' % (
                ipaddress.ip_network(text, strict=False))
    return None


def address_or_alias_problem(text):
    """PVE's IPorCIDRorAlias: an alias name, or an address or network (IPorCIDR, then Net::IP)."""
    if ALIAS_REFERENCE.fullmatch(text):
        return None
    allowed = why_not('IPorCIDR', text)
    if allowed:
        return 'is neither an alias name nor %s' % allowed
    return network_problem(text)


def refuse_comment_lines(option, text):
    if '\n' in text or '\r' in text:
        raise DeclarationError('option %s: %r has a line break; PVE writes a comment on one line of its '
                               'firewall file' % (option, text))


class AliasStore(ItemStore):
    """An alias is read as its row of the alias list: the rows carry the digest an update must send, the item read
    has none. The list is not filtered by privilege (it needs Sys.Audit on / as a whole), so a missing row is absent."""

    def read(self, client, family, ident):
        row = family.listing.read(client, family).get(family.key(ident))
        return ABSENT if row is None else row


def check_alias(ident, declared, state):
    if state != 'present':
        return
    # update_alias rebuilds the alias from the parameters: every PUT carries the address.
    if not declared.get('cidr'):
        raise DeclarationError('option cidr is required with state=present')
    problem = network_problem(declared['cidr'])
    if problem:
        raise DeclarationError('option cidr: %r %s' % (declared['cidr'], problem))
    refuse_comment_lines('comment', declared.get('comment', ''))


FAMILY = Family(
    name='firewall alias',
    # PVE keys aliases by the lower-cased name (Aliases.pm: lc($param->{name})).
    identity=[Text('name', required=True, pattern=NAME_PATTERN, min_length=2, max_length=64,
                   normalise=lambda name: name.lower())],
    fields=[
        Text('cidr', format='IPorCIDR', normalise=address, always_send=True),
        # A PUT without comment drops the comment, so it goes with every update.
        Text('comment', default='', normalise=pve_comment, always_send=True),
    ],
    collection='/cluster/firewall/aliases',
    item='/cluster/firewall/aliases/{name}',
    listing=Listing('/cluster/firewall/aliases'),
    store=AliasStore(),
    send_digest=True,
    report=lambda raw: {'ipversion': raw.get('ipversion')},
    check_declaration=check_alias,
)
