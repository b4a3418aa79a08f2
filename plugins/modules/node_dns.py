#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: node_dns
short_description: Declare the DNS settings of a Proxmox VE node
version_added: 0.1.0
description:
  - Repairs the search domain and name servers of one node's C(/etc/resolv.conf) (C(/nodes/{node}/dns)). The settings
    always exist, so there is nothing to create or remove and no C(state) option.
  - Options left undeclared are not managed (neither compared nor changed). A name server declared empty (V(''))
    is removed.
  - PVE's C(PUT) rewrites the file from what it is sent and drops a name server it is not sent, so the one write
    carries the live O(search) and every live name server the task does not declare; they stay as they are.
  - PVE keeps name servers in order, once each and without gaps (removing O(dns1) moves O(dns2) up). A
    declaration PVE would read back renumbered is refused before anything is written, naming the servers to
    declare as well.
  - Reading needs C(Sys.Audit) on C(/nodes/{node}); writing C(Sys.Modify) on C(/nodes/{node}).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  node:
    description: The node whose DNS settings these are (PVE proxies the call to it).
    type: str
    required: true
  search:
    description:
      - The search domain, one DNS name. PVE reads back only the first word of the search line, so a list of
        domains is refused.
      - Sent with every write, as PVE requires it; undeclared, the live one is sent back unchanged.
    type: str
  dns1:
    description: The first name server, an IPv4 or IPv6 address; V('') removes it.
    type: str
  dns2:
    description: The second name server, an IPv4 or IPv6 address; V('') removes it.
    type: str
  dns3:
    description: The third name server, an IPv4 or IPv6 address; V('') removes it.
    type: str
seealso:
  - module: homeflare.proxmox.node_hosts
  - module: homeflare.proxmox.node_time
'''

EXAMPLES = r'''
- name: Point each node at the site's resolvers
  homeflare.proxmox.node_dns:
    node: "{{ inventory_hostname }}"
    search: corp.example.org
    dns1: 10.0.0.53
    dns2: 10.0.1.53

# Verify without writing: `ansible-playbook site.yml --check --diff`
# names in plan.changed every setting that differs from the declaration.
- name: Drop the third name server, keep the others as they are
  homeflare.proxmox.node_dns:
    node: pve1
    dns3: ''
'''

RETURN = r'''
object:
  description: The node and the declared settings as read after the run.
  returned: always
  type: dict
  sample: {"node": "pve1", "search": "corp.example.org", "dns1": "10.0.0.53", "dns2": "10.0.1.53"}
plan:
  description:
    - What the run decided. C(read) is V(found); C(action) is V(update) or V(none).
    - C(changed) lists the drifted option names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["dns2"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.node_dns import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
