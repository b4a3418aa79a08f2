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
  - O(type) and the plugin's locator (O(path), O(server), O(export), O(share), O(datastore), O(pool), O(vgname),
    O(thinpool), O(portal), O(target), O(iscsiprovider), O(blocksize), O(base)) are fixed once created; a
    declaration that differs fails naming the field, and nothing is written.
  - Every value is checked against PVE's own format for it (storage id, paths, server names, portals, volume group
    names, mount options, fingerprints, ranges, the prune-backups keys) before any request.
  - So is the type's own table (pve-storage 9's plugins) - an option the type does not take, a missing option it
    needs (for example O(server) and O(export) for V(nfs)), content it cannot hold; each is refused before any request
    rather than sent for PVE to refuse or silently drop.
  - O(password), O(keyring), O(encryption_key) and O(master_pubkey) are sent when the storage is created and never
    read, compared, returned or shown; PVE keeps them apart from C(storage.cfg) and does not return them.
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
    description:
      - Directory of a V(dir) or V(btrfs) storage (an absolute path); the mount point of V(nfs), V(cifs), V(cephfs)
        (PVE's default C(/mnt/pve/<storage>)). Fixed once created.
    type: str
  server:
    description: Server (a DNS name or an IP address) of an V(nfs), V(cifs), V(pbs) or V(esxi) storage. Fixed once created.
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
    description: Pool of an V(rbd), V(zfspool) or V(zfs) (ZFS over iSCSI) storage. Fixed once created.
    type: str
  vgname:
    description: LVM volume group of an V(lvm) or V(lvmthin) storage. Fixed once created.
    type: str
  thinpool:
    description: LVM thin pool of an V(lvmthin) storage. Fixed once created.
    type: str
  portal:
    description: iSCSI portal, C(host[:port]), of an V(iscsi), V(iscsidirect) or V(zfs) storage. Fixed once created.
    type: str
  target:
    description: iSCSI target (IQN) of an V(iscsi), V(iscsidirect) or V(zfs) storage. Fixed once created.
    type: str
  iscsiprovider:
    description: iSCSI provider of a V(zfs) storage (V(comstar), V(istgt), V(iet), V(LIO)). Fixed once created.
    type: str
  blocksize:
    description: Block size of a V(zfs) storage (for example V(4k)). Fixed once created.
    type: str
  base:
    description: Base volume (C(storage:volume)) an V(lvm) volume group lives on. Fixed once created.
    type: str
  monhost:
    description: Ceph monitors (C(host[:port]) list) of an external V(rbd) or V(cephfs) cluster.
    type: str
  subdir:
    description: Subdirectory to mount, of a V(cifs) or V(cephfs) storage (an absolute path).
    type: str
  namespace:
    description: Namespace of a V(pbs) datastore or an V(rbd) pool.
    type: str
  data_pool:
    description: Erasure-coded data pool of an V(rbd) storage (wire name C(data-pool)).
    type: str
  fs_name:
    description: CephFS file system name of a V(cephfs) storage (wire name C(fs-name)).
    type: str
  mountpoint:
    description: Mount point of a V(zfspool) storage's pool (an absolute path).
    type: str
  zfs_base_path:
    description: Base path of the zvols of a V(zfs) storage (wire name C(zfs-base-path)).
    type: str
  is_mountpoint:
    description: Whether the path of a V(dir) or V(btrfs) storage is a mount point (V(yes)/V(no)) or that mount point's path.
    type: str
  domain:
    description: Windows domain of a V(cifs) storage, at most 256 characters.
    type: str
  smbversion:
    description: SMB protocol version of a V(cifs) storage.
    type: str
    choices: [default, '2.0', '2.1', '3', '3.0', '3.11']
  format:
    description: Default image format of a file storage.
    type: str
    choices: [raw, qcow2, subvol, vmdk]
  comstar_hg:
    description: COMSTAR host group of a V(zfs) storage.
    type: str
  comstar_tg:
    description: COMSTAR target group of a V(zfs) storage.
    type: str
  lio_tpg:
    description: LIO target portal group of a V(zfs) storage.
    type: str
  port:
    description: Port of a V(pbs) or V(esxi) server, 1 to 65535.
    type: int
  krbd:
    description: Whether an V(rbd) storage uses the kernel RBD driver.
    type: bool
  sparse:
    description: Whether V(zfspool) or V(zfs) zvols are thin provisioned.
    type: bool
  nowritecache:
    description: Whether the write cache of a V(zfs) storage's target is disabled.
    type: bool
  saferemove:
    description: Whether an V(lvm) storage zeroes data when removing volumes.
    type: bool
  tagged_only:
    description: Whether an V(lvm) storage only uses logical volumes tagged C(pve-vm-ID).
    type: bool
  nocow:
    description: Whether a V(btrfs) storage sets the NOCOW flag on files.
    type: bool
  fuse:
    description: Whether a V(cephfs) storage is mounted with FUSE.
    type: bool
  skip_cert_verification:
    description: Whether an V(esxi) storage skips the server's certificate check (wire name C(skip-cert-verification)).
    type: bool
  snapshot_as_volume_chain:
    description: Whether snapshots are qcow2 volume chains (wire name C(snapshot-as-volume-chain)).
    type: bool
  create_base_path:
    description: Whether PVE creates the base path of a file storage (wire name C(create-base-path)); unset means V(true).
    type: bool
  create_subdirs:
    description: Whether PVE creates the content subdirectories (wire name C(create-subdirs)); unset means V(true).
    type: bool
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
    description:
      - Retention, as PVE's property string (wire name C(prune-backups)), for example C(keep-last=3,keep-daily=7);
        compared as pairs.
      - Keys are C(keep-all) (alone) or C(keep-last), C(keep-hourly), C(keep-daily), C(keep-weekly), C(keep-monthly),
        C(keep-yearly), each 1 or more.
    type: str
  username:
    description: User name for V(cifs), V(pbs), V(esxi) or Ceph (V(rbd), V(cephfs)) storages.
    type: str
  fingerprint:
    description: Certificate SHA-256 fingerprint of a V(pbs) server, 32 hex pairs separated by colons.
    type: str
  options:
    description: NFS or CIFS mount options.
    type: str
  max_protected_backups:
    description: Maximum number of protected backups per guest (wire name C(max-protected-backups)); V(-1) is unlimited.
    type: int
  password:
    description:
      - Password for V(cifs), V(pbs) or V(esxi), at most 256 characters. Sent on create only; never read, compared or shown.
      - Creating an V(esxi) storage needs it.
    type: str
  keyring:
    description: Ceph keyring of an external cluster. Sent on create only; never read, compared or shown.
    type: str
  encryption_key:
    description: Client-side encryption key of a V(pbs) storage (wire name C(encryption-key)). Sent on create only; never read, compared or shown.
    type: str
  master_pubkey:
    description:
      - Master public key (PEM) of a V(pbs) storage's encrypted backups (wire name C(master-pubkey)).
      - Sent on create only; never read, compared or shown.
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
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.storage import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
