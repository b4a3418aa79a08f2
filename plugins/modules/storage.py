#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: storage
short_description: Declare a Proxmox VE storage definition
version_added: 0.1.0
description:
  - Creates, repairs or removes one section of C(/etc/pve/storage.cfg) (C(/storage/{storage})).
  - Options left undeclared are not managed (neither sent nor compared).
  - O(type) and the plugin's locator (O(path), O(server), O(export), O(share), O(datastore), O(pool), O(monhost),
    O(vgname), O(thinpool)) are fixed once created; a declaration that differs fails naming the field, and
    nothing is written.
  - O(password), O(keyring) and O(encryption_key) are sent when the storage is created and never read,
    compared, returned or shown; PVE does not return them.
  - The item is read with the write credential (PVE wants C(Datastore.Allocate) even to read it).
  - Removing a storage drops the definition, not the volumes on it; it needs O(confirm_removal=true).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  storage:
    description: The storage id (wire name C(storage)).
    type: str
    required: true
  type:
    description: The storage plugin. Required with O(state=present); fixed once created.
    type: str
    choices: [btrfs, cephfs, cifs, dir, esxi, iscsi, iscsidirect, lvm, lvmthin, nfs, pbs, rbd, zfs, zfspool]
  path:
    description: Directory of a V(dir) or V(btrfs) storage. Fixed once created.
    type: str
  server:
    description: Server of an V(nfs), V(cifs) or V(pbs) storage. Fixed once created.
    type: str
  export:
    description: NFS export. Fixed once created.
    type: str
  share:
    description: CIFS share. Fixed once created.
    type: str
  datastore:
    description: Proxmox Backup Server datastore. Fixed once created.
    type: str
  pool:
    description: Pool of an V(rbd) or V(zfspool) storage. Fixed once created.
    type: str
  monhost:
    description: Ceph monitors of an external V(rbd)/V(cephfs) storage. Fixed once created.
    type: str
  vgname:
    description: LVM volume group. Fixed once created.
    type: str
  thinpool:
    description: LVM thin pool. Fixed once created.
    type: str
  content:
    description:
      - The complete set of content types, compared order-free. An empty list or V(none) means no content.
    type: list
    elements: str
  nodes:
    description: The nodes the storage exists on, compared order-free; an empty list means every node.
    type: list
    elements: str
  disable:
    description: Whether the storage is disabled.
    type: bool
  shared:
    description: Whether the storage is shared by all nodes (marks it, does not make it so).
    type: bool
  preallocation:
    description: Preallocation mode of raw and qcow2 images on file storages.
    type: str
    choices: ['off', metadata, falloc, full]
  prune_backups:
    description: Retention, as PVE's property string (wire name C(prune-backups)), for example C(keep-last=3,keep-daily=7); compared as pairs.
    type: str
  username:
    description: User name for V(cifs) or V(pbs) storages.
    type: str
  fingerprint:
    description: Certificate fingerprint of a V(pbs) server.
    type: str
  options:
    description: NFS mount options.
    type: str
  max_protected_backups:
    description: Maximum number of protected backups per guest (wire name C(max-protected-backups)); V(-1) is unlimited.
    type: int
  password:
    description: Password for V(cifs) or V(pbs). Sent on create only; never read, compared or shown.
    type: str
  keyring:
    description: Ceph keyring of an external cluster. Sent on create only; never read, compared or shown.
    type: str
  encryption_key:
    description: Client-side encryption key of a V(pbs) storage (wire name C(encryption-key)). Sent on create only; never read, compared or shown.
    type: str
  confirm_removal:
    description: Must be V(true) with O(state=absent); removing a storage definition cuts guests off their disks.
    type: bool
    default: false
seealso:
  - module: homeflare.proxmox.acl
'''

EXAMPLES = r'''
- name: Declare an NFS storage for backups and ISO images
  homeflare.proxmox.storage:
    storage: nas-backup
    type: nfs
    server: nas.example.org
    export: /export/pve
    content: [backup, iso]
    prune_backups: keep-last=3,keep-daily=7

- name: Remove a storage definition (the volumes stay)
  homeflare.proxmox.storage:
    storage: old-nfs
    state: absent
    confirm_removal: true
'''

RETURN = r'''
object:
  description: The storage's managed fields as read after the run (empty when absent). Secrets are never returned.
  returned: always
  type: dict
  sample: {"storage": "nas-backup", "type": "nfs", "content": ["backup", "iso"]}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["content"]}
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.storage import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
