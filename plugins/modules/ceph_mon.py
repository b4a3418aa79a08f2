#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: ceph_mon
short_description: Declare a Ceph monitor of a Proxmox VE node
version_added: 0.4.0
description:
  - Creates or removes one Ceph monitor (C(POST /nodes/{node}/ceph/mon/{monid}),
    C(DELETE) on the same path); both are PVE tasks, waited for up to O(task_timeout) seconds.
  - Read from the index C(GET /nodes/{node}/ceph/mon), which lists the cluster's monitors with the host each
    runs on. The monitor is absent when that index has no row named O(id); a failed index fails the task.
  - A monitor of that name found on another host is refused, nothing written - a daemon is never moved; create one
    on O(node) and remove the other with its own node.
  - O(mon_address) is fixed once created (a monitor keeps its address in the monmap); a declaration that differs
    fails naming it, and nothing is written.
  - PVE refuses to remove the cluster's last monitor; the module fails with PVE's words, and nothing is removed.
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
      - The monitor's id (wire name C(monid)), usually the node's name; letters, digits and inner C(-), at most 200
        characters.
    type: str
    required: true
  mon_address:
    description:
      - The monitor's IP addresses (wire name C(mon-address)); unset lets PVE pick the node's address on Ceph's
        public network.
      - Set when the monitor is created; compared order-free, when declared, with the IPs of the monitor's address
        vector (C(addr) of the index, V(v1) and V(v2) alike), and a difference is refused.
    type: list
    elements: str
  confirm_removal:
    description: Must be V(true) with O(state=absent); removing a monitor shrinks the monitors' quorum.
    type: bool
    default: false
  task_timeout:
    description:
      - Seconds to wait for the create or destroy task to end. Past them the module fails, naming the task to check
        (it goes on).
    type: int
    default: 120
seealso:
  - module: homeflare.proxmox.ceph_mgr
  - module: homeflare.proxmox.ceph_mds
  - module: homeflare.proxmox.ceph_osd
'''

EXAMPLES = r'''
- name: Declare a monitor on each of three nodes
  homeflare.proxmox.ceph_mon:
    node: "{{ item }}"
    id: "{{ item }}"
  loop: [pve1, pve2, pve3]

- name: A monitor on a given address
  homeflare.proxmox.ceph_mon:
    node: pve4
    id: pve4
    mon_address: [10.10.10.14]

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Remove a monitor (never the last one)
  homeflare.proxmox.ceph_mon:
    node: pve4
    id: pve4
    state: absent
    confirm_removal: true
'''

RETURN = r'''
object:
  description: The monitor as read after the run (empty when absent) - the identity and the declared fields.
  returned: always
  type: dict
  sample: {"node": "pve4", "id": "pve4", "mon_address": ["10.10.10.14"]}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(delete), V(none).
    - C(changed) lists the declared field names a create sends.
  returned: always
  type: dict
  sample: {"read": "absent", "action": "create", "changed": ["mon_address"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ceph_mon import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
