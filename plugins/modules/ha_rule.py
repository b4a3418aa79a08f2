#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: ha_rule
short_description: Declare a Proxmox VE HA rule (node or resource affinity)
version_added: 0.2.0
description:
  - Creates, repairs or removes one HA rule (C(/cluster/ha/rules/{rule})), PVE 9's successor to HA groups.
  - A V(node-affinity) rule keeps its O(resources) on the O(nodes) (of highest priority first; only there with
    O(strict=true)); a V(resource-affinity) rule keeps them together (O(affinity=positive)) or apart
    (O(affinity=negative)).
  - Every resource must already be an HA resource, or PVE refuses the rule (C(cannot use unmanaged resource(s)
    vm:100.)); declare the M(homeflare.proxmox.ha_resource) objects first, in the same play, and remove them last.
    Removing an HA resource also strips it from every rule, and deletes a rule left with none.
  - O(type) is fixed once created. A live rule of the other type is not replaced - the task fails naming both types,
    and nothing is written; remove the rule and declare it again to change its type.
  - O(disable), O(strict) and O(comment) are managed with their defaults when undeclared, so a rule disabled, made
    strict or commented by hand is repaired; clearing one sends C(delete=) (PVE drops C(disable=0)).
  - Never compared - C(order) (PVE's position of the rule), C(errors) (PVE's verdict on whether the rule set can
    be satisfied, recomputed on every read) and C(digest); the first two are returned in RV(object).
  - Writes need C(Sys.Console) on C(/) (which also opens a shell on every node); reads C(Sys.Audit).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  rule:
    description: The rule's id (wire name C(rule)), a letter followed by letters, digits, C(-) and C(_).
    type: str
    required: true
  type:
    description:
      - The rule's type. Required with O(state=present); fixed once created, and sent with every update (PVE wants it).
    type: str
    choices: [node-affinity, resource-affinity]
  resources:
    description:
      - The HA resources the rule applies to, V(vm:<vmid>) or V(ct:<vmid>), compared order-free. Required with
        O(state=present).
    type: list
    elements: str
  nodes:
    description:
      - The nodes of a V(node-affinity) rule, each V(node) or V(node:priority) (higher wins); required for that type,
        refused for the other.
      - Compared as PVE stores them - one priority per node (the last one given wins), V(node:0) the same as V(node).
    type: list
    elements: str
  strict:
    description:
      - Whether the resources of a V(node-affinity) rule may run on its O(nodes) only (they stop when none is up), or
        merely prefer them. Undeclared means V(false); V(true) is refused for a V(resource-affinity) rule.
    type: bool
    default: false
  affinity:
    description:
      - Whether the resources of a V(resource-affinity) rule are kept on one node (V(positive)) or on separate nodes
        (V(negative)); required for that type, refused for the other (PVE 9.1 does not take it there).
    type: str
    choices: [positive, negative]
  disable:
    description: Whether the rule is kept but not applied. Undeclared means V(false).
    type: bool
    default: false
  comment:
    description:
      - The rule's comment, at most 4096 characters. Undeclared means none.
      - PVE decodes C(%XX) sequences in it; the comparison does the same, so declare the text as it should read.
    type: str
    default: ''
seealso:
  - module: homeflare.proxmox.ha_resource
'''

EXAMPLES = r'''
- name: The web VMs (HA resources already) prefer node1, then node2
  homeflare.proxmox.ha_rule:
    rule: web-on-node1
    type: node-affinity
    resources: [vm:100, vm:101]
    nodes: [node1:2, node2:1]

- name: Never run both database replicas on one node
  homeflare.proxmox.ha_rule:
    rule: db-apart
    type: resource-affinity
    resources: [vm:200, vm:201]
    affinity: negative

# Verify without writing: `ansible-playbook site.yml --check --diff`
# reports plan.action (create/update/delete/none) and plan.changed (field names).
- name: Remove a rule (before removing its HA resources)
  homeflare.proxmox.ha_rule:
    rule: web-on-node1
    state: absent
'''

RETURN = r'''
object:
  description:
    - The rule's managed fields as read after the run (empty when absent), plus PVE's C(order) and C(errors) (a map
      of option to messages, empty when PVE finds the rule feasible).
  returned: always
  type: dict
  sample: {"rule": "db-apart", "type": "resource-affinity", "resources": ["vm:200", "vm:201"], "affinity": "negative",
           "strict": false, "disable": false, "comment": "", "order": 2, "errors": {}}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["disable"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ha_rule import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
