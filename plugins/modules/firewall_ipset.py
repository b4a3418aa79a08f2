#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: firewall_ipset
short_description: Declare a Proxmox VE firewall IP set of the cluster or of a guest, and its entries
version_added: 0.1.0
description:
  - Creates, repairs or removes one IP set, its comment and the complete set of its entries, of the cluster firewall
    (C(/cluster/firewall/ipset/{name})) or of a guest's (O(scope=vm),
    C(/nodes/{node}/{qemu|lxc}/{vmid}/firewall/ipset/{name})). A guest's rules name the guest's own set before the
    cluster's.
  - O(entries) is the whole set, compared by address. An entry added by hand is removed, a missing one added, one
    whose O(entries[].nomatch) or O(entries[].comment) differs is rewritten. Order does not matter.
  - PVE writes entries one at a time, so the writes are one per entry that differs (and a create is one write for
    the set plus one per entry); entries that match are never touched. Each change or removal carries the digest of
    the entry list read just before it, so another writer's change is never overwritten.
  - The set is read with two requests, the list of sets (for the comment) and the set's entries.
  - O(state=absent) removes the set with its entries (PVE's C(force)), in one write.
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
      - The set's name (wire name C(name)); a letter, then letters, digits, C(-) and C(_), 2 to 64 characters.
        Rules refer to it as C(+name).
      - PVE lower-cases set names when it reads its configuration back, so the name is lower-cased here.
    type: str
  comment:
    description: The set's comment. Undeclared means empty, so a comment added by hand is drift.
    type: str
  entries:
    description:
      - Every entry of the set. Undeclared means none, so an entry added by hand is drift.
    type: list
    elements: dict
    suboptions:
      cidr:
        description:
          - An address, a network, or the name of a firewall alias (wire name C(cidr)). In a cluster set V(name) and
            V(dc/name) name the cluster's alias and V(guest/name) never resolves; in a guest's set V(name) is the
            guest's own alias, else the cluster's, V(guest/name) only the guest's and V(dc/name) only the
            cluster's.
          - Compared as PVE stores it (C(clean_cidr)); host bits are cleared (V(10.0.2.5/24) is V(10.0.2.0/24)), an
            IPv6 network compressed, V(/32) and V(/128) dropped; a V(/0) prefix is refused, as PVE does.
          - An alias must exist, or be declared in the same M(homeflare.proxmox.declare) task; else the set is
            refused before any write (PVE would create it and then refuse the entry).
        type: str
        required: true
      nomatch:
        description: Exclude this address from the set (PVE writes it with a leading C(!)).
        type: bool
        default: false
      comment:
        description: The entry's comment, compared trimmed.
        type: str
        default: ''
seealso:
  - module: homeflare.proxmox.firewall_alias
  - module: homeflare.proxmox.firewall_rules
'''

EXAMPLES = r'''
- name: Declare who may reach the management ports
  homeflare.proxmox.firewall_ipset:
    name: admins
    comment: Admin workstations
    entries:
      - cidr: 192.0.2.0/24
        comment: office
      - cidr: 192.0.2.66
        nomatch: true
        comment: kiosk
      - cidr: vpn-pool          # a firewall alias

- name: A guest's own set, naming the guest's own alias (a VM or a container alike)
  homeflare.proxmox.firewall_ipset:
    scope: vm
    node: pve1
    vmid: 100
    name: backup-hosts
    entries:
      - cidr: 192.0.2.20
      - cidr: guest/db

- name: Remove a set and its entries
  homeflare.proxmox.firewall_ipset:
    name: legacy
    state: absent
'''

RETURN = r'''
object:
  description: The set's comment and entries as read after the run (empty when absent), entries sorted by address.
  returned: always
  type: dict
  sample: {"name": "admins", "comment": "Admin workstations",
           "entries": [{"cidr": "192.0.2.0/24", "nomatch": false, "comment": "office"}]}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names (V(comment), V(entries)); the diff shows the entries before and after.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["entries"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.firewall_ipset import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
