# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Ceph OSD flag family: /cluster/ceph/flags/{flag} (pve-manager PVE/API2/Cluster/Ceph.pm).

All eleven flags always exist, so a flag is never created or absent: ``state: present`` sets it (the plan's
``create``) and ``state: absent`` clears it (``delete``), each one synchronous ``PUT … value=1|0``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.ceph import CEPH_NOT_INSTALLED
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    ABSENT, Absence, Exporting, Family, ItemStore, Where)

# PVE::Ceph::Tools::get_possible_osd_flags
FLAGS = ['nobackfill', 'nodeep-scrub', 'nodown', 'noin', 'noout', 'norebalance', 'norecover', 'noscrub',
         'notieragent', 'noup', 'pause']


class CephFlags(ItemStore):
    """A cleared flag reads as absent; any failed read is raised (a flag has no "missing" answer)."""

    def read(self, client, family, ident):
        value = client.get(family.path(ident), role=family.read_role)
        return {'flag': ident['flag'], 'value': value} if str(value) == '1' else ABSENT

    def create(self, client, family, ident, form):
        return client.put(family.path(ident), {'value': '1'}, role=family.write_role)

    def delete(self, client, family, ident):
        return client.put(family.path(ident), {'value': '0'}, role=family.write_role)


class CephFlagFamily(Family):
    def find_all(self, client):
        """The flags that are set (a cleared flag is what an undeclared one means), from the one flag list."""
        rows = client.get(self.collection, role=self.read_role) or []
        return [({'flag': row['name']}, {'flag': row['name'], 'value': 1}) for row in rows
                if row.get('name') in FLAGS and str(row.get('value')) in ('1', 'True', 'true')]


FAMILY = CephFlagFamily(
    'ceph_flag', 'ceph flag',
    identity=[Text('flag', required=True, choices=FLAGS)],
    fields=[],
    where=Where(collection='/cluster/ceph/flags', item='/cluster/ceph/flags/{flag}',
                # No answer means "not set": the store reads the value, and no error is ever absence.
                absence=Absence(()), store=CephFlags(), schema=('PUT', '/cluster/ceph/flags/{flag}')),
    exporting=Exporting(unavailable=CEPH_NOT_INSTALLED),
)
