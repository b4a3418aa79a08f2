# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The group family: /access/groups/{groupid}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text, perl_true_text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family, Listing, Where


class GroupFamily(Family):
    def report(self, raw):
        # PVE answers members in hash order, different between two reads.
        return {'members': sorted(raw.get('members') or [])}


# PVE's pve-groupid format.
FAMILY = GroupFamily(
    'group', 'group',
    identity=[Text('groupid', required=True, format='pve-groupid')],
    fields=[Text('comment', default='', normalise=perl_true_text)],  # user.cfg: '0' is never written
    where=Where(collection='/access/groups', item='/access/groups/{groupid}', listing=Listing('/access/groups'),
                absence=Absence((404, 500), r'does not exist')),
)
