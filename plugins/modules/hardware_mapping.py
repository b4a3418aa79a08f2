#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: hardware_mapping
short_description: Declare a Proxmox VE cluster-wide PCI, USB or directory resource mapping
version_added: 0.1.0
description:
  - Creates, repairs or removes one resource mapping, C(/cluster/mapping/{type}/{id}), the cluster-wide name a
    guest's C(hostpci), C(usb) or C(virtiofs) device refers to with C(mapping=).
  - The per-node entries (O(map)) are compared as a set, each entry key by key, so their order and the order of
    their keys mean nothing. Every entry is checked against its type's format before any request.
  - Updates carry the digest read, so a change made by someone else in between is refused, never overwritten.
  - A mapping that already matches is adopted with no write.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  type:
    description:
      - The kind of resource mapped.
    type: str
    required: true
    choices: [dir, pci, usb]
  id:
    description:
      - The mapping's id (PVE's C(pve-configid) format).
    type: str
    required: true
  description:
    description:
      - The mapping's description. Undeclared means unmanaged.
    type: str
  map:
    description:
      - The per-node entries, each a property string; required with O(state=present).
      - V(pci) entries take C(node), C(path) (a PCI address, or several joined by V(;)), C(id) (V(vendor:device)),
        and optionally C(iommugroup), C(subsystem-id), C(description).
      - V(usb) entries take C(node), C(id) (V(vendor:device)), and optionally C(path) (a USB port), C(description).
      - V(dir) entries take C(node) and C(path) (an absolute directory).
    type: list
    elements: str
  mdev:
    description:
      - V(pci) only. Whether the mapped devices are mediated devices. Undeclared means unmanaged.
    type: bool
  live_migration_capable:
    description:
      - V(pci) only (wire name C(live-migration-capable)). Whether guests using it may be live migrated.
        Undeclared means unmanaged.
    type: bool
seealso:
  - module: homeflare.proxmox.vm
'''

EXAMPLES = r'''
- name: A GPU available on two nodes
  homeflare.proxmox.hardware_mapping:
    type: pci
    id: gpu
    description: Passthrough GPU
    map:
      - node=pve1,path=0000:01:00.0,id=10de:2204,iommugroup=14
      - node=pve2,path=0000:02:00.0,id=10de:2204
    mdev: false

# Verify without writing: `ansible-playbook site.yml --check --diff`
# reports plan.action (create/update/delete/none) and plan.changed (field names).
- name: A shared directory for virtiofs
  homeflare.proxmox.hardware_mapping:
    type: dir
    id: media
    map:
      - node=pve1,path=/srv/media

- name: Remove the old USB mapping
  homeflare.proxmox.hardware_mapping:
    type: usb
    id: dongle
    state: absent
'''

RETURN = r'''
object:
  description: The mapping's managed fields as read after the run (empty when absent).
  returned: always
  type: dict
  sample: {"type": "dir", "id": "media", "map": ["node=pve1,path=/srv/media"]}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["map"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.hardware_mapping import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
