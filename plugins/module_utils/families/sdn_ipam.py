# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SDN IPAM family: sections of sdn/ipams.cfg, /cluster/sdn/ipams/{ipam}.

Unlike zones and controllers, an IPAM is written directly: PVE keeps no running copy of ipams.cfg, so a write
is live at once and ``sdn_apply`` has nothing to do for it. PVE calls the IPAM's API on every create and update
(NetboxPlugin/PhpIpamPlugin verify_api) and refuses the write when it does not answer.

The API token is a secret: PVE answers it in every read, but it is never compared, returned or shown; it is
written when the IPAM is created, and again only with ``update_secret: always`` (secret_updates.py).
The built-in ``pve`` IPAM always exists (Ipams::config adds it) and cannot be removed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_zone import needed
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Integer, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, Family, Lifecycle, Listing, Where)
from ansible_collections.homeflare.proxmox.plugins.module_utils.secret_updates import UPDATE_SECRET, SecretUpdates
from ansible_collections.homeflare.proxmox.plugins.module_utils.type_rules import TypeRules

# pve-network 9 Ipams/<Type>Plugin.pm options(), in wire names.
IPAM_TYPES = TypeRules('IPAM', {
    'pve': dict(options=[]),
    'netbox': dict(options=['url', 'token', 'fingerprint'], required=['url'], create_needs=['token']),
    'phpipam': dict(options=['url', 'token', 'section', 'fingerprint'], required=['url', 'section'],
                    create_needs=['token']),
})
# The certificate fingerprint the plugins pin (the schema's fingerprint-sha256 pattern).
FINGERPRINT = r'([A-Fa-f0-9]{2}:){31}[A-Fa-f0-9]{2}'


class IpamFamily(SecretUpdates, Family):
    def check_declaration(self, declaration):
        if declaration.ident['ipam'] == 'pve' and (declaration.state == 'absent'
                                                   or declaration.values.get('type') not in (None, 'pve')):
            raise DeclarationError("option ipam: 'pve' is PVE's built-in IPAM; it cannot be removed or retyped")

    def check_create(self, declaration):
        IPAM_TYPES.check_create(self.fields, declaration.values, declaration.values['type'])

    def is_builtin(self, ident, raw):
        return ident['ipam'] == 'pve'


FAMILY = IpamFamily(
    'sdn_ipam', 'sdn_ipam',
    identity=[Text('ipam', required=True, format='pve-sdn-ipam-id')],
    fields=[
        # PVE's PUT has no type: an IPAM is never retyped or recreated.
        Text('type', create_only=True, choices=['netbox', 'phpipam', 'pve'], format='pve-configid'),
        needed(Text, 'url'),
        Text('token', secret=True),
        needed(Integer, 'section'),
        Text('fingerprint', default='', clear='delete', pattern=FINGERPRINT, normalise=lambda value: value.upper()),
    ],
    where=Where(collection='/cluster/sdn/ipams', item='/cluster/sdn/ipams/{ipam}',
                listing=Listing('/cluster/sdn/ipams'),
                absence=Absence((500,), r"^sdn '.*' does not exist"),
                # The item read needs SDN.Allocate on /sdn/ipams/{ipam}.
                read_role='provision'),
    lifecycle=Lifecycle(send_digest=True),
    type_rules=IPAM_TYPES,
    controls=UPDATE_SECRET,
)
