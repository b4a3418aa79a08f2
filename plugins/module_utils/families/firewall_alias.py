# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The firewall alias family of the cluster (/cluster/firewall/aliases/{name}) and of a guest
(/nodes/{node}/{qemu|lxc}/{vmid}/firewall/aliases/{name}, found where the guest lives: GuestScope); what the
firewall families share is firewall.py's."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.firewall import (
    GUEST_FIREWALL, NAME_PATTERN, GuestScope, address, pve_comment, refuse_comment_lines)
from ansible_collections.homeflare.proxmox.plugins.module_utils.guest import identity as guest_identity
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    ABSENT, Family, ItemStore, Lifecycle, Listing, Where)
from ansible_collections.homeflare.proxmox.plugins.module_utils.scopes import ByScope


class AliasStore(ItemStore):
    """An alias is read as its row of its scope's alias list: the rows carry the digest an update must send, the
    item read has none. The list is not filtered by privilege (the cluster's needs Sys.Audit on / as a whole, a
    guest's VM.Audit on the guest), so a missing row is absent."""

    def read(self, client, family, ident):
        for row in client.get(family.collection_path(ident), role=family.read_role) or []:
            if str(row.get('name')).lower() == ident['name']:
                return row
        return ABSENT


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


class GuestAlias(GuestScope, AliasFamily):
    """A guest's own alias (Aliases.pm's VM and CT subclasses): the guest found first (GuestScope)."""


# PVE keys aliases by the lower-cased name (Aliases.pm: lc($param->{name})).
def alias_name():
    return Text('name', required=True, pattern=NAME_PATTERN, min_length=2, max_length=64,
                normalise=lambda text: text.lower())


def alias_fields():
    return [
        Text('cidr', format='IPorCIDR', normalise=address, always_send=True),
        # A PUT without comment drops the comment, so it goes with every update.
        Text('comment', default='', normalise=pve_comment, always_send=True),
    ]


CLUSTER = AliasFamily(
    'firewall_alias', 'firewall alias',
    identity=[alias_name()],
    fields=alias_fields(),
    where=Where(collection='/cluster/firewall/aliases', item='/cluster/firewall/aliases/{name}',
                listing=Listing('/cluster/firewall/aliases'), store=AliasStore()),
    lifecycle=Lifecycle(send_digest=True),
)

GUEST = GuestAlias(
    'firewall_alias', 'firewall alias',
    identity=guest_identity() + [alias_name()],
    fields=alias_fields(),
    where=Where(collection=GUEST_FIREWALL + '/aliases', item=GUEST_FIREWALL + '/aliases/{name}', store=AliasStore(),
                schema=('POST', '/nodes/{node}/qemu/{vmid}/firewall/aliases')),
    lifecycle=Lifecycle(send_digest=True),
)

FAMILY = ByScope('firewall_alias', 'firewall alias', dict(cluster=CLUSTER, vm=GUEST), default='cluster')
