#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: storage_content
short_description: Declare an ISO image, a container template or a disk image to import on a Proxmox VE storage
version_added: 0.6.0
description:
  - Declares one file volume of a storage, C(<storage>:<content>/<filename>) - an ISO image (V(iso)), a container
    template (V(vztmpl)) or a disk image a VM imports its disk from (V(import)) - and, when it is missing, has PVE
    fetch it from its one source, a worker task waited for up to O(task_timeout) seconds.
  - With O(url) the node downloads it (C(POST /nodes/{node}/storage/{storage}/download-url)), checking O(checksum).
    With O(template) PVE fetches an appliance by its name in its catalogue (C(pveam available),
    C(POST /nodes/{node}/aplinfo)). With O(oci) it pulls an OCI image as a container template
    (C(POST .../oci-registry-pull), PVE 9.1+). With O(src) a file on the machine running the task is uploaded
    (C(POST .../upload)), streamed, never read whole.
  - Without a source the module only adopts a volume that is there; a missing one is refused.
  - PVE keeps no checksum of a stored volume and its API reads none. A present volume is therefore judged by its
    size against its source's where that is known without downloading anything - an O(src) file's own size, an
    O(url)'s C(Content-Length) as PVE's C(GET /nodes/{node}/query-url-metadata) (a HEAD request made by the node,
    asked with the write credential, since PVE answers it only to one that may download) answers it - and
    otherwise by its existence (a template's or an OCI image's name carries its version; a
    decompressed download's size is not its source's; a server that sends no length is said so in a warning). The
    plan's C(judged) says which.
  - A volume of the source's size is a no-op - no write, no download. One whose size differs is refused, naming
    both sizes, unless O(replace=true); then it is replaced in the same run, planned as an C(update) of C(size) in
    C(steps) (a removal and a new download or pull; an upload overwrites the file in one step). With O(replace), a
    fetch that fails leaves no volume behind (the old one was removed first).
  - O(checksum) is checked before any request - hexadecimal, of its algorithm's length - and, for O(src), against the
    local file itself; PVE checks the download or the upload against it again and, on a mismatch, fails the task in
    its words and keeps no file.
  - The file name must be the one PVE keeps - it normalises every character but letters, digits, C(_), C(.) and
    C(-) to C(_) - and end as PVE requires for the content; a name PVE would change is refused naming O(filename),
    since the volume would never be found under it.
  - On a storage that is not shared (C(dir), C(btrfs), C(zfspool) and the like without C(shared)) every node holds
    its own volume, so O(node) is required. On a shared storage (C(nfs), C(cifs), C(cephfs), C(pbs), ... or
    C(shared=1)) the volume is one object, and O(node) is optional - the volume is read and fetched through an online
    node the storage is enabled on - and declarations differing only in their node are the same volume.
  - The storage is read from the node's storage list (C(GET /nodes/{node}/storage?storage=<id>), which needs only
    C(Datastore.Audit) and says whether it is shared and enabled on that node); one without a path (LVM, ZFS,
    Ceph RBD, ...) is refused in PVE's words. A fetch onto a storage not configured for the
    content is refused before any write; in check mode it is a warning, since an earlier task of the same run
    (M(homeflare.proxmox.storage)) may add the content.
  - O(state=absent) removes the volume (C(DELETE .../content/{volume}), task C(imgdel)) and needs
    O(confirm_removal=true). A volume a guest's config names (a CD drive, an C(import-from), any value) is refused,
    naming the guests and their keys, in check mode too; guests the read credential cannot see (C(VM.Audit)) are not
    looked at.
  - Check mode never downloads, pulls or uploads; it plans every fetch.
  - Reading needs C(Datastore.Audit) on C(/storage/{storage}); fetching needs C(Datastore.AllocateTemplate) there
    (and, for a download or a pull, C(Sys.AccessNetwork) on the node); removing needs C(Datastore.Allocate).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  storage:
    description: The storage the volume is on (wire name C(storage)).
    type: str
    required: true
  content:
    description:
      - What the volume is - V(iso), V(vztmpl) or V(import) (wire name C(content)). Guests' disks and backups are
        not this module's objects; any other content is refused with a sentence saying so.
    type: str
    required: true
  filename:
    description:
      - The file's name on the storage, without a path (wire name C(filename)); the volume is
        C(<storage>:<content>/<filename>).
      - Required with O(url). Left out, it is what the source names - the template's name, PVE's name for a pulled
        OCI image (C(<name>_<tag>.tar), from the reference's last part), the O(src) file's base name.
      - V(iso) ends in C(.iso) or C(.img), V(vztmpl) in C(.tar), C(.tar.gz), C(.tar.xz), C(.tar.zst) or C(.tar.bz2),
        V(import) in C(.ova), C(.qcow2), C(.raw) or C(.vmdk).
    type: str
  node:
    description:
      - The node whose volume this is (wire name C(node)). Required on a storage that is not shared; optional on a
        shared one.
    type: str
  url:
    description: An C(http) or C(https) URL the node downloads the file from (wire name C(url)).
    type: str
  checksum:
    description:
      - The file's checksum in hexadecimal (wire name C(checksum)), with O(url) or O(src).
      - Its algorithm is O(checksum_algorithm), or else the one its length names (md5 32 digits, sha1 40, sha224 56,
        sha256 64, sha384 96, sha512 128 - no two share a length).
    type: str
  checksum_algorithm:
    description: The algorithm of O(checksum) (wire name C(checksum-algorithm)); inferred from its length when left out.
    type: str
    choices: [md5, sha1, sha224, sha256, sha384, sha512]
  compression:
    description:
      - Decompress a downloaded ISO image (wire name C(compression)); PVE decompresses V(iso) downloads only. A
        decompressed volume is judged by its existence (its size is not its source's).
    type: str
    choices: [gz, lzo, zst, bz2]
  verify_certificates:
    description: Whether the node verifies the O(url) server's TLS certificate (wire name C(verify-certificates)).
    type: bool
    default: true
  template:
    description:
      - An appliance template by its name in the node's catalogue (C(pveam available), C(GET /nodes/{node}/aplinfo)),
        such as C(debian-13-standard_13.1-2_amd64.tar.zst); O(content) must be V(vztmpl). A name the catalogue lacks
        is refused, naming close ones.
    type: str
  oci:
    description:
      - An OCI image reference, C([registry[:port]/]name[/name...]:tag), pulled as a container template (PVE 9.1+,
        with C(skopeo) on the node); O(content) must be V(vztmpl). PVE stores it as O(filename) when declared (which
        must end in C(.tar)), else as C(<name>_<tag>.tar).
    type: str
  src:
    description:
      - A file on the machine running the task, uploaded to the storage. It must exist and be readable; the upload
        goes to the cluster member that is O(node) when the connection lists it, else to any member (PVE copies it
        to the node).
    type: path
  replace:
    description:
      - Replace a present volume whose size differs from its source's (see the description). Without it such a
        volume is refused and nothing is written.
    type: bool
    default: false
  state:
    description:
      - V(present) fetches the volume when it is missing (or, with O(replace), when its size differs); V(absent)
        removes it.
      - In check mode nothing is written and nothing is fetched; the result's RV(plan) says what a real run would do.
    type: str
    choices: [present, absent]
    default: present
  confirm_removal:
    description: Must be V(true) with O(state=absent); a removed volume is gone unless its source fetches it again.
    type: bool
    default: false
  task_timeout:
    description:
      - Seconds to wait for each download, pull, upload copy or removal task. Past them the module fails, naming the
        task to check (it goes on).
    type: int
    default: 1800
seealso:
  - module: homeflare.proxmox.storage_content_info
  - module: homeflare.proxmox.storage
  - module: homeflare.proxmox.vm
  - module: homeflare.proxmox.lxc
'''

EXAMPLES = r'''
- name: A cloud image to import a VM's disk from, downloaded by the node and checked against its SHA-512
  homeflare.proxmox.storage_content:
    node: pve1
    storage: local
    content: import
    filename: debian-13-genericcloud-amd64.qcow2
    url: https://cloud.debian.org/images/cloud/trixie/latest/debian-13-genericcloud-amd64.qcow2
    checksum: "{{ debian13_sha512 }}"

- name: A container template by its appliance name
  homeflare.proxmox.storage_content:
    node: pve1
    storage: local
    content: vztmpl
    template: debian-13-standard_13.1-2_amd64.tar.zst

- name: An OCI image as a container template (stored as nginx_1.27.tar)
  homeflare.proxmox.storage_content:
    node: pve1
    storage: local
    content: vztmpl
    oci: docker.io/library/nginx:1.27

- name: An installer ISO from the controller onto a shared storage (one volume for the whole cluster)
  homeflare.proxmox.storage_content:
    storage: nfs-isos
    content: iso
    src: files/installer.iso

# Verify without writing: `ansible-playbook site.yml --check --diff` plans each missing download and names a volume
# whose size differs from its source's.
- name: Remove an ISO no guest uses any more
  homeflare.proxmox.storage_content:
    node: pve1
    storage: local
    content: iso
    filename: old-installer.iso
    state: absent
    confirm_removal: true
'''

RETURN = r'''
object:
  description:
    - The volume as listed after the run (empty when absent) - the identity (C(node) only on a storage that is not
      shared), C(volid), and C(size), C(format) and C(ctime) as PVE lists them.
  returned: always
  type: dict
  sample: {"storage": "local", "content": "iso", "filename": "debian-13.iso", "node": "pve1",
           "volid": "local:iso/debian-13.iso", "size": 754974720, "format": "iso", "ctime": 1767225600}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create) (C(changed) names the
      source), V(update) (a replacement, C(changed) is V(size)), V(delete), V(none).
    - C(node) is the node the volume is read and fetched through, C(source) the source option, C(judged) what the
      judgement of a present volume rests on (V(size) or V(existence)), and C(steps) the calls a run makes, each
      with C(call) (V(delete), V(download-url), V(aplinfo), V(oci-registry-pull), V(upload)), C(node) and C(volid).
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["size"], "node": "pve1", "source": "url",
           "judged": "size", "steps": [{"call": "delete", "node": "pve1", "volid": "local:iso/rolling.iso"},
                                       {"call": "download-url", "node": "pve1", "volid": "local:iso/rolling.iso"}]}
diff:
  description:
    - The identity and C(size) before and after; a fetch's C(after) names its source (its URL, template, reference
      or file) instead of a size it does not know yet.
  returned: with --diff
  type: dict
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.storage_content import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
