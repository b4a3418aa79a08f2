#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: ceph_pool
short_description: Declare a replicated Ceph pool of a Proxmox VE cluster
version_added: 0.4.0
description:
  - Creates, repairs or removes one replicated Ceph pool (C(/nodes/{node}/ceph/pool/{name})). A pool is cluster-wide;
    O(node) is the member that runs the pool's tasks.
  - The pool is read from its status (C(GET .../pool/{name}/status?verbose=1)). It is absent only when that read
    answers Ceph's C(unrecognized pool) and the pool list (C(GET /nodes/{node}/ceph/pool)), read with the same
    credential, lacks it too. A failed list fails the task, and a listed pool whose read failed is never created
    over - a create over an existing pool would be a PG merge, not a no-op.
  - Options left undeclared are not managed (neither sent nor compared); a pool's replication is changed on purpose
    only, since a change moves data. A matching pool sends no write; a drifted one only the drifted keys, plus
    O(min_size) with every O(size) write when it is declared (Ceph resets C(min_size) when C(size) changes).
  - O(pg_num) and O(application) are sent on create only and never compared - the autoscaler rewrites C(pg_num),
    and an application write only ever adds one.
  - Every write is a PVE task, waited for up to O(task_timeout) seconds. Ceph may apply its monitor commands after
    the task ended, so the pool is then read again until it matches, for up to O(settle_timeout) seconds; what still
    differs then fails the task, naming the keys.
  - Refused before any request - the pool C(.mgr) (the Ceph manager's own). Refused once read, nothing written - a
    pool whose application is C(cephfs) or C(mgr) (it is never adopted, resized or removed here; CephFS pools belong
    to M(homeflare.proxmox.ceph_fs)); a change the pool's C(nosizechange) flag forbids (O(size), O(min_size)), with
    the C(ceph osd pool set <pool> nosizechange false) command that unsets it. C(nopgchange) guards only the
    unmanaged C(pg_num), so O(pg_num_min) is sent under it.
  - Removal needs O(confirm_removal=true) and never sends C(force) or C(remove_storages). Ceph can still refuse
    inside the task (C(mon_allow_pool_delete) is false, the pool is used by a CephFS, an RBD storage still holds
    images on it); the task then fails with PVE's words.
  - Erasure-coded pools and C(add_storages) are not offered; declare the RBD storage with
    M(homeflare.proxmox.storage) (type V(rbd)), after the pool.
  - Reading needs C(Sys.Audit) or C(Datastore.Audit) on C(/); writing needs C(Sys.Modify) on C(/).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  node:
    description:
      - The cluster member that runs the pool's tasks (wire name C(node)), one with Ceph installed. A pool is
        cluster-wide, so any such member will do; it is not compared.
    type: str
    required: true
  name:
    description:
      - The pool's name (wire name C(name)); no C(:), C(/) or white space. V(.mgr) is refused.
    type: str
    required: true
  size:
    description: Number of replicas, 1 to 7 (PVE's default on create is V(3)).
    type: int
  min_size:
    description:
      - Minimum number of replicas for I/O, 1 to 7 (PVE's default on create is V(2)).
      - When declared, it is sent with every O(size) write too, because Ceph resets C(min_size) when C(size) changes.
    type: int
  pg_autoscale_mode:
    description: The placement group autoscaler's mode (PVE's default on create is V(warn)).
    type: str
    choices: ['on', 'off', warn]
  crush_rule:
    description: The name of the CRUSH rule the pool uses (Ceph's default is C(replicated_rule)).
    type: str
  pg_num_min:
    description: The fewest placement groups the autoscaler may leave the pool with, at most 32768; unset reads as V(0).
    type: int
  target_size:
    description:
      - The autoscaler's hint of the pool's expected size, in bytes or with V(K), V(M), V(G) or V(T) (for example
        V(100G)). Compared by value (V(100G) equals V(107374182400)); V(0) means no hint, and declared on a pool
        with a hint, removes it.
    type: str
  pg_num:
    description:
      - Placement groups of the new pool, 1 to 32768 (PVE's default is V(128)). Sent on create only and never
        compared - the autoscaler rewrites it.
    type: int
  application:
    description:
      - The application the new pool is tagged with (PVE's default is V(rbd)). Sent on create only and never
        compared - a write would only add another.
      - V(cephfs) is refused before any request - a CephFS makes its own pools; declare it with
        M(homeflare.proxmox.ceph_fs).
    type: str
    choices: [rbd, cephfs, rgw]
  confirm_removal:
    description: Must be V(true) with O(state=absent); removing a pool destroys every object in it.
    type: bool
    default: false
  task_timeout:
    description:
      - Seconds to wait for each task (create, set, destroy) to end. Past them the module fails, naming the task to
        check (it goes on).
    type: int
    default: 120
  settle_timeout:
    description:
      - Seconds to keep reading the pool after a write's task ended, until it matches the declaration (or, after a
        removal, is gone). V(0) reads it back once.
    type: int
    default: 60
seealso:
  - module: homeflare.proxmox.storage
  - module: homeflare.proxmox.ceph_osd
  - module: homeflare.proxmox.ceph_fs
'''

EXAMPLES = r'''
- name: Declare a three-way replicated pool for guest disks
  homeflare.proxmox.ceph_pool:
    node: pve1
    name: vm-disks
    size: 3
    min_size: 2
    pg_autoscale_mode: "on"
    target_size: 2T
    application: rbd

- name: Make it usable by guests (after the pool)
  homeflare.proxmox.storage:
    storage: vm-disks
    type: rbd
    pool: vm-disks
    content: [images, rootdir]
    krbd: false

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Remove a pool (Ceph's mon_allow_pool_delete must be true)
  homeflare.proxmox.ceph_pool:
    node: pve1
    name: scratch
    state: absent
    confirm_removal: true
'''

RETURN = r'''
object:
  description: The pool's managed fields as read after the run (empty when absent).
  returned: always
  type: dict
  sample: {"node": "pve1", "name": "vm-disks", "size": 3, "min_size": 2, "target_size": "2T"}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["size"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ceph_pool import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
