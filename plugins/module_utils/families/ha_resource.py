# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The HA resource family: sections of ha/resources.cfg, /cluster/ha/resources/{sid}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    Flag, Integer, Text, perl_true_text, section_value)
from ansible_collections.homeflare.proxmox.plugins.module_utils.guest import check_guest_sid
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family, Listing, Where


class ResourceFamily(Family):
    def check_declaration(self, declaration):
        check_guest_sid('sid', declaration.ident['sid'])
        if declaration.values.get('hastate') == 'enabled':
            raise DeclarationError("option hastate: 'enabled' is PVE's alias for 'started' and reads back as "
                                   "'started'; declare 'started'")


FAMILY = ResourceFamily(
    'ha_resource', 'ha_resource',
    identity=[Text('sid', required=True, format='pve-ha-resource-or-vm-id')],
    fields=[
        # The HA manager's requested state; `state` is present/absent here as in every module.
        # The schema's enum; 'enabled' is refused by check_declaration.
        Text('state', option='hastate', default='started', absent_means='started',
             choices=['started', 'stopped', 'enabled', 'disabled', 'ignored']),
        # resources.cfg keeps it as is: read back trimmed, '0' never written (SectionConfig parse_config/write_config)
        Text('comment', default='', clear='delete', max_length=4096,
             normalise=lambda text: perl_true_text(section_value(text))),
        Integer('max_restart', default=1, absent_means=1, minimum=0),
        Integer('max_relocate', default=1, absent_means=1, minimum=0),
        Flag('failback', default=True, absent_means=True),
    ],
    where=Where(collection='/cluster/ha/resources', item='/cluster/ha/resources/{sid}',
                listing=Listing('/cluster/ha/resources'), absence=Absence((500,), r"no such resource")),
)
