#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: ceph_mgr
short_description: Declare a Ceph manager of a Proxmox VE node
version_added: 0.4.0
description:
  - Creates or removes one Ceph manager (C(POST /nodes/{node}/ceph/mgr/{id}),
    C(DELETE) on the same path); both are PVE tasks, waited for up to O(task_timeout) seconds.
  - Read from the index C(GET /nodes/{node}/ceph/mgr), which lists the cluster's managers with the host each
    runs on. The manager is absent when that index has no row named O(id); a failed index fails the task.
  - A manager of that name found on another host is refused, nothing written - a daemon is never moved; create one
    on O(node) and remove the other with its own node.
  - A manager has nothing else to declare; a found one is left as it is.
  - Reading needs C(Sys.Audit) or C(Datastore.Audit) on C(/); creating and removing need C(Sys.Modify) on C(/).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  node:
    description: The node the daemon runs on (wire name C(node)).
    type: str
    required: true
  id:
    description:
      - The manager's id (wire name C(id)), usually the node's name; letters, digits and inner C(-), at most 200
        characters.
    type: str
    required: true
  confirm_removal:
    description: Must be V(true) with O(state=absent); it stops and removes the manager on its node.
    type: bool
    default: false
  task_timeout:
    description:
      - Seconds to wait for the create or destroy task to end. Past them the module fails, naming the task to check
        (it goes on).
    type: int
    default: 120
seealso:
  - module: homeflare.proxmox.ceph_mon
  - module: homeflare.proxmox.ceph_mds
'''

EXAMPLES = r'''
- name: Declare a standby manager on a second node
  homeflare.proxmox.ceph_mgr:
    node: pve2
    id: pve2

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Remove a manager
  homeflare.proxmox.ceph_mgr:
    node: pve2
    id: pve2
    state: absent
    confirm_removal: true
'''

RETURN = r'''
object:
  description: The manager as read after the run (empty when absent) - its identity.
  returned: always
  type: dict
  sample: {"node": "pve2", "id": "pve2"}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(delete), V(none).
    - C(changed) lists the declared field names a create sends.
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
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ceph_mgr import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
