#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: ceph_mds
short_description: Declare a Ceph metadata server of a Proxmox VE node
version_added: 0.4.0
description:
  - Creates or removes one Ceph metadata server (MDS) (C(POST /nodes/{node}/ceph/mds/{name}),
    C(DELETE) on the same path); both are PVE tasks, waited for up to O(task_timeout) seconds.
  - Read from the index C(GET /nodes/{node}/ceph/mds), which lists the cluster's metadata servers with the host each
    runs on. The metadata server is absent when that index has no row named O(id); a failed index fails the task.
  - A metadata server of that name found on another host is refused, nothing written - a daemon is never moved;
    create one on O(node) and remove the other with its own node.
  - O(hotstandby) is fixed once created; a declaration that differs fails naming it, and nothing is written.
  - A CephFS needs a standby metadata server to be created (M(homeflare.proxmox.ceph_fs)); declare this first.
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
      - The metadata server's id (wire name C(name)), usually the node's name; letters, digits and inner C(-), at
        most 200 characters.
    type: str
    required: true
  hotstandby:
    description:
      - Whether the metadata server follows an active one's journal to take over faster (standby-replay).
      - Set when the daemon is created; compared, when declared, with the index's C(standby_replay), and a difference
        is refused.
    type: bool
  confirm_removal:
    description: Must be V(true) with O(state=absent); a CephFS without a running metadata server is unavailable.
    type: bool
    default: false
  task_timeout:
    description:
      - Seconds to wait for the create or destroy task to end. Past them the module fails, naming the task to check
        (it goes on).
    type: int
    default: 120
seealso:
  - module: homeflare.proxmox.ceph_fs
  - module: homeflare.proxmox.ceph_mon
  - module: homeflare.proxmox.ceph_mgr
'''

EXAMPLES = r'''
- name: Declare a metadata server on two nodes
  homeflare.proxmox.ceph_mds:
    node: "{{ item }}"
    id: "{{ item }}"
  loop: [pve1, pve2]

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Remove a metadata server
  homeflare.proxmox.ceph_mds:
    node: pve2
    id: pve2
    state: absent
    confirm_removal: true
'''

RETURN = r'''
object:
  description: The metadata server as read after the run (empty when absent) - its identity and declared fields.
  returned: always
  type: dict
  sample: {"node": "pve1", "id": "pve1", "hotstandby": false}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(delete), V(none).
    - C(changed) lists the declared field names a create sends.
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
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ceph_mds import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
