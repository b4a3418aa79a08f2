#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: ceph_flag
short_description: Set or clear a Ceph OSD flag of a Proxmox VE cluster
version_added: 0.4.0
description:
  - Sets or clears one of Ceph's eleven cluster-wide OSD flags (C(/cluster/ceph/flags/{flag})), for example V(noout)
    before maintenance, so that Ceph does not start rebalancing while a node reboots.
  - A flag always exists, so nothing is created or removed - O(state=present) sets it and O(state=absent) clears it,
    each with one synchronous C(PUT /cluster/ceph/flags/{flag}) (C(value=1) or C(value=0)), then read back. A flag
    that is already as declared sends no write.
  - The plan calls a set flag V(found) and a clear one V(absent); setting is its V(create), clearing its V(delete).
    Any failed read fails the task (a flag has no "missing" answer).
  - Reading needs C(Sys.Audit) on C(/); writing needs C(Sys.Modify) on C(/).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  flag:
    description: The flag (wire name C(flag)).
    type: str
    required: true
    choices: [nobackfill, nodeep-scrub, nodown, noin, noout, norebalance, norecover, noscrub, notieragent, noup, pause]
  state:
    description:
      - V(present) sets the flag; V(absent) clears it. Nothing else is asked of Ceph, and no confirmation is needed.
      - In check mode nothing is written; the result's RV(plan) says what a real run would do.
    type: str
    choices: [present, absent]
    default: present
seealso:
  - module: homeflare.proxmox.ceph_osd
  - module: homeflare.proxmox.ceph_pool
'''

EXAMPLES = r'''
- name: Keep Ceph from marking OSDs out during maintenance
  homeflare.proxmox.ceph_flag:
    flag: noout

# ... reboot the nodes one at a time ...

- name: Back to normal
  homeflare.proxmox.ceph_flag:
    flag: noout
    state: absent
'''

RETURN = r'''
object:
  description: The flag as read after the run - C(flag) when it is set; empty when it is clear.
  returned: always
  type: dict
  sample: {"flag": "noout"}
plan:
  description:
    - What the run decided. C(read) is V(found) (set) or V(absent) (clear); C(action) one of V(create) (set),
      V(delete) (clear), V(none).
    - C(changed) is always empty - a flag has no fields.
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
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ceph_flag import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
