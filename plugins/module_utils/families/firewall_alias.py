# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cluster firewall alias family: /cluster/firewall/aliases/{name} (what the firewall families share is
firewall.py's)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.firewall import (
    NAME_PATTERN, address, pve_comment, refuse_comment_lines)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    ABSENT, Family, ItemStore, Lifecycle, Listing, Where)


class AliasStore(ItemStore):
    """An alias is read as its row of the alias list: the rows carry the digest an update must send, the item read
    has none. The list is not filtered by privilege (it needs Sys.Audit on / as a whole), so a missing row is absent."""

    def read(self, client, family, ident):
        row = family.listing.read(client, family).get(family.key(ident))
        return ABSENT if row is None else row


class AliasFamily(Family):
    def check_declaration(self, declaration):
        if declaration.state != 'present':
            return
        # update_alias rebuilds the alias from the parameters: every PUT carries the address.
        if not declaration.values.get('cidr'):
            raise DeclarationError('option cidr is required with state=present')
        refuse_comment_lines('comment', declaration.values.get('comment', ''))

    def report(self, raw):
        return {'ipversion': raw.get('ipversion')}


FAMILY = AliasFamily(
    'firewall_alias', 'firewall alias',
    # PVE keys aliases by the lower-cased name (Aliases.pm: lc($param->{name})).
    identity=[Text('name', required=True, pattern=NAME_PATTERN, min_length=2, max_length=64,
                   normalise=lambda name: name.lower())],
    fields=[
        Text('cidr', format='IPorCIDR', normalise=address, always_send=True),
        # A PUT without comment drops the comment, so it goes with every update.
        Text('comment', default='', normalise=pve_comment, always_send=True),
    ],
    where=Where(collection='/cluster/firewall/aliases', item='/cluster/firewall/aliases/{name}',
                listing=Listing('/cluster/firewall/aliases'), store=AliasStore()),
    lifecycle=Lifecycle(send_digest=True),
)
