#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: subscription
short_description: Declare the subscription key of a Proxmox VE node
version_added: 0.1.0
description:
  - Sets, checks or removes the subscription of one node (C(/nodes/{node}/subscription), C(/etc/subscription)).
  - A declared subscription is an active one with the declared O(key). A node with that key and an active status
    is left alone (zero writes). Otherwise the key is set with C(PUT key=), where PVE has the Proxmox shop check it
    there and then; a key the shop does not take fails the task with the status PVE reads (C(invalid),
    C(expired), C(suspended)) and its message, or with PVE's refusal (a key bound to another server, too few
    sockets), naming the node. The key then stays set until O(state=absent) removes it.
  - O(key) is compared with the key PVE answers to a reader with C(Sys.Audit) on C(/nodes/{node}), but it is a
    secret all the same, never returned, logged or shown. A diff and the returned object show V((secret)) for
    the declared key and V((another key)) for a different live key; C(changed) of RV(plan) names V(key).
  - Without O(key), an existing subscription is adopted whatever its key, and one that is no longer active is
    checked with the shop again (C(POST force=1)); a node without a subscription needs O(key).
  - O(state=absent) removes the key (C(DELETE)); the node then reads C(notfound).
  - Reading the key needs C(Sys.Audit) on C(/nodes/{node}) (without it a declared key fails as unreadable);
    writing needs C(Sys.Modify) on C(/nodes/{node}). The shop is reached from the node, not from Ansible.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  node:
    description: The node the subscription belongs to (a key covers one server).
    type: str
    required: true
  key:
    description:
      - The subscription key, C(pve<sockets><level>-<10 hex digits>) (sockets 1, 2, 4 or 8; level C(c), C(b),
        C(s) or C(p)), as PVE's pattern has it. Surrounding white space is ignored, as PVE trims it.
      - Required to set a subscription on a node that has none.
    type: str
seealso:
  - module: homeflare.proxmox.apt_repository
'''

EXAMPLES = r'''
- name: Subscribe each node (the key comes from a vault, never from the playbook)
  homeflare.proxmox.subscription:
    node: "{{ inventory_hostname }}"
    key: "{{ lookup('ansible.builtin.env', 'PVE_SUBSCRIPTION_KEY') }}"

- name: Then the enterprise repository instead of the no-subscription one
  homeflare.proxmox.apt_repository:
    node: "{{ inventory_hostname }}"
    handle: "{{ item.handle }}"
    enabled: "{{ item.enabled }}"
  loop:
    - {handle: enterprise, enabled: true}
    - {handle: no-subscription, enabled: false}

# Verify without writing: `ansible-playbook site.yml --check --diff`
# plans `update` naming `key` (another key is set) or `status` (the subscription is not active).
- name: Remove the key from a node that leaves the subscription
  homeflare.proxmox.subscription:
    node: pve3
    state: absent
'''

RETURN = r'''
object:
  description:
    - The node, the declared fields as read after the run (O(key) as a placeholder, never the key) and C(status);
      with C(productname), C(level), C(regdate), C(nextduedate) and C(message) where PVE answers them. Empty when
      absent.
  returned: always
  type: dict
  sample: {"node": "pve1", "key": "(secret)", "status": "active", "level": "c",
           "productname": "Proxmox VE Community Subscription 2 CPU/year", "nextduedate": "2027-01-31"}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete),
      V(none).
    - C(changed) lists V(key) (another key is set) and V(status) (it is not active).
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["status"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.subscription import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
