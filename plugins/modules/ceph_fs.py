#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: ceph_fs
short_description: Declare a CephFS file system of a Proxmox VE cluster
version_added: 0.4.0
description:
  - Creates one CephFS (C(POST /nodes/{node}/ceph/fs/{name})), or finds it and leaves it alone. A CephFS is
    cluster-wide; O(node) is the member that runs the create.
  - The create is a PVE task (C(cephfscreate)), waited for up to O(task_timeout) seconds. It makes the pools
    C(<name>_data) and C(<name>_metadata), and needs a standby metadata server in the cluster - declare one with
    M(homeflare.proxmox.ceph_mds) first; without one PVE refuses, and the module fails with PVE's words.
  - Read from the file system index (C(GET /nodes/{node}/ceph/fs)); the CephFS is absent when that index lacks its
    row, and a failed index fails the task.
  - Nothing of a found CephFS is compared or written - O(pg_num) is sent on create only (the pools then belong to
    the autoscaler).
  - O(state=absent) is refused before any request. PVE 9's API has no CephFS removal, and removing one loses every
    file on it; the refusal gives the C(pveceph fs destroy) command to run on a node instead.
  - PVE's C(add-storage) is not offered; declare a C(cephfs) storage with M(homeflare.proxmox.storage), after the
    file system.
  - Reading needs C(Sys.Audit) or C(Datastore.Audit) on C(/); creating needs C(Sys.Modify) on C(/).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  node:
    description:
      - The cluster member that runs the create (wire name C(node)), one with Ceph installed. It is not compared.
    type: str
    required: true
  name:
    description: The file system's name (wire name C(name)); no C(:), C(/) or white space.
    type: str
    required: true
  pg_num:
    description:
      - Placement groups of the new data pool, 8 to 32768 (PVE's default is V(128)); the metadata pool gets a
        quarter. Sent on create only and never compared.
    type: int
  state:
    description:
      - V(present) creates the file system when it is absent; a found one is left as it is.
      - V(absent) is refused before any request - PVE's API cannot remove a CephFS. The refusal names the
        C(pveceph fs destroy <name> --remove-storages --remove-pools) command to run on a node, after unmounting it
        everywhere.
      - In check mode nothing is written; the result's RV(plan) says what a real run would do.
    type: str
    choices: [present, absent]
    default: present
  task_timeout:
    description:
      - Seconds to wait for the create task to end. Past them the module fails, naming the task to check (it goes
        on).
    type: int
    default: 300
seealso:
  - module: homeflare.proxmox.ceph_mds
  - module: homeflare.proxmox.storage
  - module: homeflare.proxmox.ceph_pool
'''

EXAMPLES = r'''
- name: A metadata server first (the create needs a standby one)
  homeflare.proxmox.ceph_mds:
    node: pve1
    id: pve1

- name: Declare a CephFS
  homeflare.proxmox.ceph_fs:
    node: pve1
    name: cephfs
    pg_num: 64

- name: Mount it on every node as a storage
  homeflare.proxmox.storage:
    storage: cephfs
    type: cephfs
    fs_name: cephfs
    content: [iso, vztmpl, backup]
'''

RETURN = r'''
object:
  description:
    - The file system as read after the run (empty when absent) - the identity and its pools, C(metadata_pool) and
      C(data_pool).
  returned: always
  type: dict
  sample: {"node": "pve1", "name": "cephfs", "metadata_pool": "cephfs_metadata", "data_pool": "cephfs_data"}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) V(create) or V(none).
    - C(changed) is empty - nothing of a CephFS is compared.
  returned: always
  type: dict
  sample: {"read": "absent", "action": "create", "changed": []}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ceph_fs import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
