#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: zfs_pool
short_description: Declare a ZFS pool on the disks of a Proxmox VE node
version_added: 0.4.0
description:
  - Creates one ZFS pool on a node's disks (C(POST /nodes/{node}/disks/zfs)), or finds it and leaves it alone.
  - Create only. No PVE call can change a pool, and no read returns what it was created with, so nothing is
    compared and a found pool is never written - any comparison could only ever mean C(zpool destroy).
  - What the read does show is checked - a declared O(raidlevel) that differs from the pool's layout, or a declared
    O(devices) list of C(/dev/disk/...) links that differs from the devices ZFS resolved, is a warning; nothing is
    written.
  - Read with C(GET /nodes/{node}/disks/zfs/{name}) (C(zpool status)). The pool is absent only when that read fails
    the way a missing pool does (C(zpool status ... failed) with exit code 1) and the node's pool list
    (C(GET /nodes/{node}/disks/zfs)) lacks it too; a failed list fails the task, and a listed pool whose read failed
    is never created over.
  - O(raidlevel) and O(devices) are required to create a pool. The create is a PVE task, waited for up to
    O(task_timeout) seconds; PVE refuses disks that are in use, with its words.
  - O(state=absent) is refused before any request, with the reason.
  - PVE's C(add_storage) is not offered; declare a C(zfspool) storage with M(homeflare.proxmox.storage), after the
    pool.
  - Reading needs C(Sys.Audit) on C(/); creating needs C(Sys.Modify) on C(/).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  node:
    description: The node whose disks hold the pool (wire name C(node)).
    type: str
    required: true
  name:
    description: The pool's name (wire name C(name)), a PVE storage id.
    type: str
    required: true
  raidlevel:
    description: The pool's layout. Required to create; sent on create only, never compared (a difference is a warning).
    type: str
    choices: [single, mirror, raid10, raidz, raidz2, raidz3, draid, draid2, draid3]
  devices:
    description:
      - The block devices, each a C(/dev/...) path, none twice. Required to create; sent on create only.
      - Kept in the declared order, never sorted - V(raid10) pairs consecutive devices into mirrors.
      - Use C(/dev/disk/by-id/...) links - they stay the same across reboots, and only such a list is checked against
        the pool's devices (a difference is a warning).
    type: list
    elements: str
  ashift:
    description: The pool's sector size exponent, 9 to 16 (PVE's default is V(12)). Sent on create only; never compared.
    type: int
  compression:
    description: The pool's compression (PVE's default is V(on)). Sent on create only; never compared.
    type: str
    choices: ['on', 'off', gzip, lz4, lzjb, zle, zstd]
  draid_config:
    description:
      - The dRAID layout (wire name C(draid-config)), C(data=<n>,spares=<n>); only with a V(draid), V(draid2) or
        V(draid3) O(raidlevel). Sent on create only; never compared.
    type: str
  state:
    description:
      - V(present) creates the pool when it is absent; a found one is left as it is.
      - V(absent) is refused before any request - the only way to remove a pool is C(zpool destroy), which loses
        every dataset on it. Remove the pool from the declaration to stop managing it, and destroy it by hand (or
        with PVE's Disks > ZFS > Destroy) if that is really meant.
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
  - module: homeflare.proxmox.storage
  - module: homeflare.proxmox.replication_job
'''

EXAMPLES = r'''
- name: Declare a mirrored pool on two disks, by their stable names
  homeflare.proxmox.zfs_pool:
    node: pve1
    name: tank
    raidlevel: mirror
    devices:
      - /dev/disk/by-id/ata-WDC_WD40EFRX-68N32N0_WD-WCC7K1234567
      - /dev/disk/by-id/ata-WDC_WD40EFRX-68N32N0_WD-WCC7K7654321
    ashift: 12
    compression: lz4

- name: Use it for guest disks (after the pool)
  homeflare.proxmox.storage:
    storage: tank
    type: zfspool
    pool: tank
    nodes: [pve1]
    content: [images, rootdir]
'''

RETURN = r'''
object:
  description:
    - The pool as read after the run (empty when absent) - the identity, C(pool_state) and C(errors) as ZFS reports
      them, and C(devices), the leaf devices ZFS resolved.
  returned: always
  type: dict
  sample: {"node": "pve1", "name": "tank", "pool_state": "ONLINE", "errors": "No known data errors",
           "devices": ["/dev/disk/by-id/ata-WDC_WD40EFRX-68N32N0_WD-WCC7K1234567",
                       "/dev/disk/by-id/ata-WDC_WD40EFRX-68N32N0_WD-WCC7K7654321"]}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) V(create) or V(none).
    - C(changed) is empty - nothing of a ZFS pool is compared.
  returned: always
  type: dict
  sample: {"read": "found", "action": "none", "changed": []}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.zfs_pool import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
