#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: lxc_info
short_description: List the cluster's containers with their node, status, tags and config
version_added: 0.3.0
description:
  - Lists every container the credential may see from C(GET /cluster/resources?type=vm) (one request), with its
    node, status, name, tags, template flag, pool, lock and HA state.
  - With O(vmid) or O(config=true), also reads each listed guest's config (C(GET /nodes/{node}/lxc/{vmid}/config),
    one request per guest), as PVE answers it (pending changes merged, with the C(digest)).
  - Read-only; check mode changes nothing.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes.info
  - homeflare.proxmox.guest.info
seealso:
  - module: homeflare.proxmox.lxc
'''

EXAMPLES = r'''
- name: Every container on pve1
  homeflare.proxmox.lxc_info:
    api_host: pve1.example.org
    node: pve1
  register: found

- name: One guest with its config
  homeflare.proxmox.lxc_info:
    api_host: pve1.example.org
    vmid: [101]
  register: guest
'''

RETURN = r'''
guests:
  description: The guests, by vmid; C(config) only when read.
  returned: always
  type: list
  elements: dict
  sample: [{"vmid": 101, "node": "pve1", "name": "web1", "status": "running", "template": false, "tags": ["web"]}]
served_by:
  description: The cluster member (C(host:port)) that answered last.
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.lxc import INFO


def main():
    run_module(INFO)


if __name__ == '__main__':
    main()
