# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SDN vnet family: sections of the staged sdn/vnets.cfg, /cluster/sdn/vnets/{vnet}.

The vnet's id is also its bridge's name on every node, so there is no rename. Undeclared options
mean PVE's defaults (no alias, no tag, not VLAN-aware, ports not isolated); a value back at its default
is cleared with ``delete=`` (so the staged file matches the running one again, and nothing is left to
apply). ``tag`` absent is not ``tag`` 0.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Lifecycle, Listing, Where
from ansible_collections.homeflare.proxmox.plugins.module_utils.staging import Staged


class VnetFamily(Staged):
    def check_declaration(self, declaration):
        if declaration.state == 'present' and not declaration.values.get('zone'):
            raise DeclarationError('option zone is required with state=present (the zone the vnet belongs to)')


FAMILY = VnetFamily(
    'sdn_vnet', 'sdn_vnet',
    identity=[Text('vnet', required=True, format='pve-sdn-vnet-id')],
    fields=[
        # Mutable: PVE moves a vnet without subnets to another zone in place (it checks the zone exists).
        Text('zone'),
        Text('alias', default='', clear='delete', max_length=256, pattern=r'(?i:[\(\)-_.\w\d\s]{0,256})'),
        Integer('tag', default=None, clear='delete', minimum=1, maximum=16777215),
        Flag('vlanaware', default=False, clear='delete'),
        Flag('isolate-ports', default=False, clear='delete'),
    ],
    where=Where(collection='/cluster/sdn/vnets', item='/cluster/sdn/vnets/{vnet}',
                listing=Listing('/cluster/sdn/vnets'), absence=Absence((500,), r"does not exist")),
    # A write carries the file's digest: another writer's edit of the same file is refused, then re-judged.
    lifecycle=Lifecycle(send_digest=True),
)
