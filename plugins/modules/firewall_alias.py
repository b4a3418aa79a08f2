#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: firewall_alias
short_description: Declare a Proxmox VE firewall alias of the cluster or of a guest
version_added: 0.1.0
description:
  - Creates, repairs or removes one IP alias, the name firewall rules and IP sets use for an address or a network,
    of the cluster firewall (C(/cluster/firewall/aliases/{name})) or of a guest's (O(scope=vm),
    C(/nodes/{node}/{qemu|lxc}/{vmid}/firewall/aliases/{name})).
  - A guest's rules and IP sets resolve a name to the guest's own alias first, then to the cluster's; V(guest/name)
    names only the guest's, V(dc/name) only the cluster's.
  - O(cidr) and O(comment) are managed and compared as PVE keeps them. An alias that already matches is adopted
    with no write.
  - PVE does not rename here. Declaring another O(name) creates a second alias; remove the old one with its own
    O(state=absent) task, once nothing refers to it.
  - The alias's IP version (C(ipversion)) is worked out by PVE and reported in RV(object), never written.
  - The alias is read as its row of its scope's alias list (one request), whose digest goes with every update,
    so another writer's change is never overwritten.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
  - homeflare.proxmox.firewall_scope
options:
  scope:
    choices: [cluster, vm]
  name:
    description:
      - The alias name (wire name C(name)); a letter, then letters, digits, C(-) and C(_), 2 to 64 characters.
      - PVE keys aliases case-insensitively, so V(HomeLan) and V(homelan) are one alias; the name is lower-cased
        here and a create writes it lower-case.
    type: str
  cidr:
    description:
      - The address or network (wire name C(cidr)), for example V(192.0.2.10) or V(192.0.2.0/24). Required with
        O(state=present), since PVE rewrites the whole alias on every update.
      - A network may carry host bits (V(192.0.2.1/24)); PVE keeps the alias as given, and so it is compared.
      - PVE drops a V(/32) (IPv4) or V(/128) (IPv6) suffix when it stores the alias, so V(192.0.2.10/32) and
        V(192.0.2.10) are the same value.
    type: str
  comment:
    description:
      - The alias's comment. Undeclared means empty, so a comment added by hand is drift.
      - Compared trimmed; PVE does not keep a comment of V(0). It must fit on one line.
    type: str
seealso:
  - module: homeflare.proxmox.firewall_ipset
  - module: homeflare.proxmox.firewall_rules
'''

EXAMPLES = r'''
- name: Name the management network
  homeflare.proxmox.firewall_alias:
    name: mgmt
    cidr: 192.0.2.0/24
    comment: Management VLAN

- name: A guest's own name for its database peer (a VM or a container alike)
  homeflare.proxmox.firewall_alias:
    scope: vm
    node: pve1
    vmid: 100
    name: db
    cidr: 10.0.0.5

# `ansible-playbook site.yml --check --diff` reports plan.action and the drifted fields, writing nothing.
- name: Remove an alias no rule uses any more
  homeflare.proxmox.firewall_alias:
    name: old-backup-host
    state: absent
'''

RETURN = r'''
object:
  description:
    - The alias's managed fields as read after the run (empty when absent), plus C(ipversion) (V(4) or V(6)),
      which PVE works out from the address.
  returned: always
  type: dict
  sample: {"name": "mgmt", "cidr": "192.0.2.0/24", "comment": "Management VLAN", "ipversion": 4}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["cidr"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.firewall_alias import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
