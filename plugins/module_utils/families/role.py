# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The role family: /access/roles/{roleid} and its complete set of privileges."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import LIST_SPLIT, Text, TokenSet
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family, Listing, Where


# Every privilege PVE 9 knows (pve-access-control AccessControl.pm, $privgroups), plus VM.Monitor, which
# PVE 8 knows and PVE 9 replaced by the VM.GuestAgent.* privileges. tests/unit/test_fields.py checks
# that every privilege the official API schema names is here.


class RoleFamily(Family):
    def check_declaration(self, declaration):
        if declaration.state == 'present' and not declaration.values.get('privs'):
            raise DeclarationError('option privs: declare at least one privilege for state=present')

    def view(self, raw):
        # The item read is a map {privilege: 1}; keys with a dot are privileges.
        return {'privs': dict((key, flag) for key, flag in raw.items() if '.' in key)}

    def is_builtin(self, ident, raw):
        # PVE's own roles: the PVE* names are reserved, Administrator and NoAccess too
        return ident['roleid'].startswith('PVE') or ident['roleid'] in ('Administrator', 'NoAccess')


FAMILY = RoleFamily(
    'role', 'role',
    identity=[Text('roleid', required=True, format='pve-roleid')],
    # The PVE 8/9 privilege list (formats.PRIVILEGES): an unknown one is refused with the nearest names.
    fields=[TokenSet('privs', format='pve-priv')],
    where=Where(collection='/access/roles', item='/access/roles/{roleid}',
                # A row holds privs as 'A,B'; the item read is a map {privilege: 1}.
                listing=Listing('/access/roles',
                                row=lambda row: dict.fromkeys(LIST_SPLIT.split(row.get('privs') or ''), 1)),
                absence=Absence((404, 500), r'does not exist')),
)
