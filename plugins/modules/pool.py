#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pool
short_description: Declare a Proxmox VE resource pool
version_added: 0.1.0
description:
  - Creates, repairs or removes one resource pool, read and written as C(/pools?poolid=) (PVE 8.1 and later), so
    nested pools (V(lab/web), up to three levels) are managed like any other.
  - A nested pool's parent must exist first (declare it earlier in the play or in C(declare)'s list); a pool that still
    has child pools, guests or storages cannot be removed (PVE refuses, naming the first member).
  - A pool that already matches is adopted with no write.
  - O(members) declares the pool's guests and storages, compared as sets with the members C(GET /pools?poolid=)
    lists. Either the pool (O(members)) or the guest (the O(homeflare.proxmox.vm#module:pool) option of
    M(homeflare.proxmox.vm) and M(homeflare.proxmox.lxc)) is the source of truth for one guest's membership;
    M(homeflare.proxmox.declare) refuses a guest declared in both places.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  poolid:
    description:
      - The pool's id (wire name C(poolid)); V(parent/child) names a nested pool, at most three levels deep.
      - Each level's name starts with a letter (PVE's create refuses others; checked before any write).
    type: str
    required: true
  comment:
    description:
      - The pool's comment. Undeclared means empty, so a comment added by hand is reported as drift.
    type: str
    default: ''
  members:
    description:
      - The pool's members. Undeclared, they are unmanaged (only counted in the result).
      - The declared guests and storages must be members; a missing one is added with one C(PUT /pools) (with
        C(allow-move), so a guest in another pool moves here). Others are left as they are unless O(members.exclusive).
      - Each declared member must exist when the pool is written (PVE would keep the id but list no such member);
        a guest created in the same run should declare O(homeflare.proxmox.vm#module:pool) itself instead.
    type: dict
    suboptions:
      vms:
        description: The guests (VMs and containers) by vmid.
        type: list
        elements: int
        default: []
      storage:
        description: The storages by id.
        type: list
        elements: str
        default: []
      exclusive:
        description: Also remove every member not declared (one C(PUT /pools) with C(delete=1)).
        type: bool
        default: false
seealso:
  - module: homeflare.proxmox.acl
'''

EXAMPLES = r'''
- name: Declare the lab pool
  homeflare.proxmox.pool:
    poolid: lab
    comment: Lab guests

# Verify without writing: `ansible-playbook site.yml --check --diff`
# reports plan.action (create/update/delete/none) and plan.changed (field names).
- name: A nested pool under lab (lab must exist first)
  homeflare.proxmox.pool:
    poolid: lab/web
    comment: Web tier

- name: The lab pool holds exactly these guests and storage
  homeflare.proxmox.pool:
    poolid: lab
    comment: Lab guests
    members:
      vms: [200, 201]
      storage: [lab-nfs]
      exclusive: true

- name: Remove the scratch pool
  homeflare.proxmox.pool:
    poolid: scratch
    state: absent
'''

RETURN = r'''
object:
  description:
    - The pool's managed fields as read after the run (empty when absent), plus C(members), its member count, or
      with O(members) declared the members themselves (C(vms), C(storage)).
  returned: always
  type: dict
  sample: {"poolid": "lab", "comment": "Lab guests", "members": 0}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["comment"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pool import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
