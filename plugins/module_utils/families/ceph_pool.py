# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Ceph pool family: /nodes/{node}/ceph/pool/{name}, read from its ``status`` (pve-manager
PVE/API2/Ceph/Pool.pm). Every write is a task whose monitor commands may land after it ended, so a
write is settled (read again until it matches) rather than read back once."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.ceph import (
    CEPH_NOT_INSTALLED, ClusterWideFamily, cluster_wide_identity)
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import ByteSize, Integer, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, ConfirmedAbsenceStore, Exporting, Lifecycle, Where)

# Pools Ceph or another family owns: adopting one would let a pool declaration resize or remove them.
OWNED_BY = {'mgr': 'the Ceph manager (.mgr)', 'cephfs': 'a CephFS (declare it with homeflare.proxmox.ceph_fs)'}
# The pool flags Ceph checks before a change (PVE answers them as "0"/"1").
# Ceph's pool flags that refuse a change of managed options (OSDMonitor prepare_command_pool_set). nopgchange
# guards pg_num and pgp_num, neither of them managed: pg_num_min is only bounded by pg_num.
GUARDS = (('nosizechange', ('size', 'min_size')),)


class CephPoolFamily(ClusterWideFamily):
    list_key = 'pool_name'

    def check_declaration(self, declaration):
        if declaration.ident['name'] == '.mgr':
            raise DeclarationError("option name: '.mgr' is the Ceph manager's own pool; it is never declared here")
        if declaration.values.get('application') == 'cephfs':
            # Such a pool would be CephFS's from its first read on (check_found), so the create would strand it.
            raise DeclarationError("option application: a cephfs pool belongs to a CephFS, which makes its own "
                                   "pools; declare it with homeflare.proxmox.ceph_fs")

    def check_found(self, declaration, raw, changed):
        """Refuse a pool another owner holds, and a change a pool flag forbids (Ceph would refuse it in the task)."""
        name = declaration.ident['name']
        for application in raw.get('application_list') or []:
            if application in OWNED_BY:
                raise Refused("ceph pool '%s' belongs to %s; it is never adopted by a pool declaration. Nothing was "
                              "written." % (name, OWNED_BY[application]))
        for flag, options in GUARDS:
            blocked = [option for option in changed if option in options]
            if blocked and str(raw.get(flag, '0')) == '1':
                raise Refused("ceph pool '%s' has its %s flag set, so Ceph refuses a change of %s; unset it first "
                              "(ceph osd pool set %s %s false). Nothing was written."
                              % (name, flag, ', '.join(blocked), name, flag))


FAMILY = CephPoolFamily(
    'ceph_pool', 'ceph pool',
    identity=cluster_wide_identity(),
    fields=[
        # Undeclared means unmanaged: a pool's replication is changed on purpose only (a change moves data).
        Integer('size', minimum=1, maximum=7),
        Integer('min_size', minimum=1, maximum=7, send_with=('size',)),
        Text('pg_autoscale_mode', choices=['on', 'off', 'warn']),
        Text('crush_rule'),
        Integer('pg_num_min', maximum=32768, absent_means=0),
        ByteSize('target_size', pattern=r'^(\d+(\.\d+)?)([KMGT])?$', absent_means=''),
        # Sent on create only: the autoscaler rewrites pg_num, and an application write only ever adds one.
        Integer('pg_num', minimum=1, maximum=32768, create_param=True),
        Text('application', choices=['rbd', 'cephfs', 'rgw'], create_param=True),
    ],
    where=Where(collection='/nodes/{node}/ceph/pool', item='/nodes/{node}/ceph/pool/{name}',
                absence=Absence((500,), r"unrecognized pool '"),
                store=ConfirmedAbsenceStore('pool_name', suffix='/status', params={'verbose': 1}),
                read_role='read', write_role='provision'),
    lifecycle=Lifecycle(retain=True, task_timeout=120, settle=60),
    exporting=Exporting(unavailable=CEPH_NOT_INSTALLED),
)
