#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: node_hosts
short_description: Declare host entries in the /etc/hosts of a Proxmox VE node
version_added: 0.1.0
description:
  - Makes the declared entries present in one node's C(/etc/hosts) (C(/nodes/{node}/hosts)). The file always
    exists, so there is nothing to create or remove and no C(state) option.
  - An entry is present when a line for its address holds exactly its names, in that order. Otherwise the line for
    that address that shares a name with the entry (else the first line for that address) is replaced, or a line
    is appended when no line has the address. Addresses are compared as addresses (V(FE80::0001) is V(fe80::1)).
  - Lines the declaration does not name are kept, unless O(exclusive=true).
  - PVE reads and writes the whole file. The repair is one C(POST) of the file with the digest read, so an edit
    another writer made in between is never overwritten (PVE refuses the write; the task reads, judges and writes
    once more). Comments, blank lines and the lines that stay keep their text.
  - A repair that would leave no line naming the node itself (its name, or a name under it such as
    C(pve1.example.org)) is refused before anything is written; PVE resolves that name to find the node's own
    address.
  - PVE refuses the whole file when any line is one it cannot check (a C(#) comment after the names, a line
    starting with white space); the task then fails with PVE's words.
  - Reading needs C(Sys.Audit) on C(/); writing C(Sys.Modify) on C(/nodes/{node}).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  node:
    description: The node whose C(/etc/hosts) this is (PVE proxies the call to it).
    type: str
    required: true
  entries:
    description:
      - The host entries, each an address and its names. Compared in the declared order; the diff shows, for each
        declared address, the line that stands for it (and, with O(exclusive), the lines that would go).
      - Undeclared, the file is not managed.
    type: list
    elements: dict
    suboptions:
      ip:
        description: The address, IPv4 or IPv6, once per declaration.
        type: str
        required: true
      names:
        description:
          - The names of the address, at least one, in order; the first is the canonical name. Each a host name
            (labels of letters, digits and inner C(-), separated by dots).
        type: list
        elements: str
        required: true
  exclusive:
    description:
      - Whether the declared entries are the only address lines. With V(true) every other address line is
        removed, except those for addresses no host holds, which the installer writes, loopback (C(127.0.0.0/8),
        C(::1)), C(fe00::0) and the IPv6 multicast addresses (C(ff00::/8)); comments and blank lines are kept.
      - A second line for a declared address also goes. Needs O(entries) (V([]) keeps only the lines no host
        holds).
    type: bool
    default: false
seealso:
  - module: homeflare.proxmox.node_dns
  - module: homeflare.proxmox.cluster
'''

EXAMPLES = r'''
- name: Every node knows every member by its cluster address
  homeflare.proxmox.node_hosts:
    node: "{{ inventory_hostname }}"
    entries:
      - {ip: 10.0.0.11, names: [pve1.corp.example.org, pve1]}
      - {ip: 10.0.0.12, names: [pve2.corp.example.org, pve2]}
      - {ip: 10.0.0.13, names: [pve3.corp.example.org, pve3]}

# Verify without writing: `ansible-playbook site.yml --check --diff`
# plans `update` naming `entries` and shows the lines that differ.
- name: Nothing else in the file but loopback, comments and blank lines
  homeflare.proxmox.node_hosts:
    node: pve1
    exclusive: true
    entries:
      - {ip: 10.0.0.11, names: [pve1.corp.example.org, pve1]}
'''

RETURN = r'''
object:
  description:
    - The node and, when declared, O(entries) as read after the run (the lines that stand for the declared entries
      and, with O(exclusive), the other address lines).
  returned: always
  type: dict
  sample: {"node": "pve1", "entries": [{"ip": "10.0.0.11", "names": ["pve1.corp.example.org", "pve1"]}]}
plan:
  description:
    - What the run decided. C(read) is V(found); C(action) is V(update) or V(none).
    - C(changed) lists V(entries) when the file lacks a declared entry (or, exclusive, has another address line).
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
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.node_hosts import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
