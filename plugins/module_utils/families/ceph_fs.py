# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The CephFS family: a row of /nodes/{node}/ceph/fs, created by POST /nodes/{node}/ceph/fs/{name}
(pve-manager PVE/API2/Ceph/FS.pm, task cephfscreate). A CephFS is cluster-wide: ``node`` is the member
that runs the create (it needs a standby metadata server somewhere in the cluster)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.ceph import (
    CEPH_NOT_INSTALLED, ClusterWideFamily, cluster_wide_identity)
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Integer
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Exporting, IndexStore, Lifecycle, Where


class CephFsFamily(ClusterWideFamily):
    def check_declaration(self, declaration):
        if declaration.state == 'absent':
            # PVE 9's API has no DELETE for a CephFS; only the CLI removes one.
            raise DeclarationError(
                "option state: PVE's API cannot remove a CephFS, and removing one loses every file on it. Run "
                "`pveceph fs destroy %s --remove-storages --remove-pools` on a node after unmounting it everywhere, "
                "then remove it from the declaration" % declaration.ident['name'])

    def report(self, raw):
        return dict(metadata_pool=raw.get('metadata_pool'), data_pool=raw.get('data_pool'))


FAMILY = CephFsFamily(
    'ceph_fs', 'cephfs',
    identity=cluster_wide_identity(),
    fields=[
        # Placement groups of the new data pool (the metadata pool gets a quarter); the pools then belong to
        # the autoscaler, so this is sent on create only.
        Integer('pg_num', minimum=8, maximum=32768, create_param=True),
    ],
    where=Where(collection='/nodes/{node}/ceph/fs', item='/nodes/{node}/ceph/fs/{name}', create_on='item',
                store=IndexStore('name')),
    lifecycle=Lifecycle(task_timeout=300),
    exporting=Exporting(unavailable=CEPH_NOT_INSTALLED),
)
