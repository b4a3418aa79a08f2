#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: node_time
short_description: Declare the time zone of a Proxmox VE node
version_added: 0.1.0
description:
  - Repairs the time zone of one node (C(/nodes/{node}/time), set with C(timedatectl set-timezone) on the node). A
    node always has one, so there is nothing to create or remove and no C(state) option.
  - The name's shape is checked before any request; whether the node's tz database knows it is the node's answer
    (PVE refuses an unknown zone with C(No such timezone)). The controller's own tz database plays no part.
  - Reading needs C(Sys.Audit) on C(/nodes/{node}); writing C(Sys.Modify) on C(/nodes/{node}).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  node:
    description: The node whose time zone this is (PVE proxies the call to it).
    type: str
    required: true
  timezone:
    description:
      - The time zone, a name of the tz database as C(timedatectl list-timezones) lists it (V(Europe/Vienna),
        V(America/Argentina/Buenos_Aires), V(Etc/GMT+5), V(UTC)). Case matters, as on the node.
    type: str
    required: true
seealso:
  - module: homeflare.proxmox.node_dns
'''

EXAMPLES = r'''
- name: Every node on the office's time zone
  homeflare.proxmox.node_time:
    node: "{{ inventory_hostname }}"
    timezone: Europe/Vienna

# Verify without writing: `ansible-playbook site.yml --check --diff`
# plans `update` naming `timezone` when a node has another one.
'''

RETURN = r'''
object:
  description: The node and its time zone as read after the run.
  returned: always
  type: dict
  sample: {"node": "pve1", "timezone": "Europe/Vienna"}
plan:
  description:
    - What the run decided. C(read) is V(found); C(action) is V(update) or V(none).
    - C(changed) lists V(timezone) when it drifted.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["timezone"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.node_time import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
