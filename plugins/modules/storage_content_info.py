#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: storage_content_info
short_description: List the volumes of a Proxmox VE storage with their size, format, owner and users
version_added: 0.6.0
description:
  - Lists the volumes of one storage on one node from C(GET /nodes/{node}/storage/{storage}/content) (one request),
    of every content type or of O(content) only, as PVE lists them to the read credential.
  - With O(used_by=true) (the default) also says which guests name each volume in their config (a disk, a CD drive,
    an C(import-from), any value) - one C(GET /cluster/resources?type=vm) and one config read per guest; on a
    storage that is not shared, the guests of O(node) only, since another node's guests use their own node's
    volumes. Guests the read credential cannot see (C(VM.Audit)) are not looked at.
  - The storage is read from the node's storage list (C(GET /nodes/{node}/storage), C(Datastore.Audit)) to tell whether
    it is shared.
  - Read-only; check mode changes nothing.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes.info
options:
  storage:
    description: The storage to list.
    type: str
    required: true
  node:
    description:
      - The node whose view of the storage is listed. Required on a storage that is not shared (each node holds its
        own volumes); on a shared one, an online node the storage is enabled on when left out.
    type: str
  content:
    description: Only volumes of this content type (PVE's C(content) filter).
    type: str
    choices: [rootdir, images, vztmpl, iso, backup, snippets, import]
  used_by:
    description: Whether to read the guests' configs to say which guests use each volume (its C(used_by)).
    type: bool
    default: true
seealso:
  - module: homeflare.proxmox.storage_content
  - module: homeflare.proxmox.storage
'''

EXAMPLES = r'''
- name: The ISO images on pve1's local storage, and the guests that use them
  homeflare.proxmox.storage_content_info:
    node: pve1
    storage: local
    content: iso
  register: isos

- name: ISOs no guest uses
  ansible.builtin.debug:
    msg: "{{ isos.volumes | rejectattr('used_by') | map(attribute='volid') | list }}"
'''

RETURN = r'''
storage:
  description: The storage listed.
  returned: always
  type: str
  sample: local
node:
  description: The node the storage was listed through.
  returned: always
  type: str
  sample: pve1
shared:
  description: Whether the storage is shared (one set of volumes for the cluster).
  returned: always
  type: bool
volumes:
  description:
    - The volumes, by volid. C(filename) is the part after C(<content>/), or the volume name of a guest's disk.
    - C(size), C(format) and C(ctime) as PVE lists them; C(vmid) the guest that owns the volume, when PVE names one
      (disks and backups).
    - C(used_by) lists the guests whose config names the volume, each with C(vmid), C(type) (V(qemu) or V(lxc)),
      C(node) and the config C(key); only with O(used_by=true).
  returned: always
  type: list
  elements: dict
  sample: [{"volid": "local:iso/debian-13.iso", "content": "iso", "filename": "debian-13.iso", "size": 754974720,
            "format": "iso", "ctime": 1767225600,
            "used_by": [{"vmid": 120, "type": "qemu", "node": "pve1", "key": "ide2"}]}]
served_by:
  description: The cluster member (C(host:port)) that answered last.
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.storage_content import INFO


def main():
    run_module(INFO)


if __name__ == '__main__':
    main()
