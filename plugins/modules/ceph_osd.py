#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: ceph_osd
short_description: Declare the Ceph OSD on one disk of a Proxmox VE node
version_added: 0.4.0
description:
  - Creates or removes the Ceph OSD on one disk of a node (C(POST /nodes/{node}/ceph/osd),
    C(DELETE /nodes/{node}/ceph/osd/{osdid})). Ceph names an OSD (C(osd.7)), so it is declared by the disk it lives
    on; the OSD id is Ceph's, and returned.
  - The node's disk list (C(GET /nodes/{node}/disks/list)) says which OSD a disk holds (C(osdid)); the CRUSH tree
    (C(GET /nodes/{node}/ceph/osd)) says its state. A disk without an OSD is absent. A disk the node does not have
    is refused, and so is a disk whose OSD the CRUSH tree does not know.
  - Root only - PVE's OSD create and destroy carry no permission block, so only C(root@pam) logged in with a
    password (O(api_user)/O(api_password)) may call them; any API token, including one minted from OpenBao, gets
    a 403.
  - O(crush_device_class) is fixed once created; a declaration that differs fails naming it, and nothing is
    written. O(encrypted) is sent on create only.
  - Create is a PVE task, waited for up to O(task_timeout) seconds.
  - Removal needs O(confirm_removal=true). It takes the OSD out (C(POST .../osd/{osdid}/out)), stops it
    (C(POST /nodes/{node}/ceph/stop) with C(service=osd.<id>)), waits up to 60 seconds until Ceph reports it down,
    and only then destroys it (a task); an OSD still up after that is not destroyed and the task fails. The disk
    is not wiped (PVE's C(cleanup) is not sent); wipe it (Disks > Wipe Disk) before using it again.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  node:
    description: The node the disk is in (wire name C(node)).
    type: str
    required: true
  dev:
    description:
      - The disk (wire name C(dev)), as the node's disk list names it - its C(/dev/sdX) path or its
        C(/dev/disk/by-id/...) link (the one the list shows as C(by_id_link)). The by-id link stays the same across
        reboots.
    type: str
    required: true
  crush_device_class:
    description:
      - The OSD's CRUSH device class (wire name C(crush-device-class)), for example V(ssd); unset lets Ceph detect
        it.
      - Set when the OSD is created; compared when declared, and a difference is refused (Ceph keeps it in the
        CRUSH map).
    type: str
  encrypted:
    description: Whether the OSD is encrypted. Sent on create only; never compared.
    type: bool
  confirm_removal:
    description: Must be V(true) with O(state=absent); destroying an OSD drops its copies of the data.
    type: bool
    default: false
  task_timeout:
    description:
      - Seconds to wait for the create or destroy task to end. Past them the module fails, naming the task to check
        (it goes on).
    type: int
    default: 600
seealso:
  - module: homeflare.proxmox.ceph_pool
  - module: homeflare.proxmox.ceph_flag
'''

EXAMPLES = r'''
- name: Declare an OSD on a disk, by its stable name (root@pam only)
  homeflare.proxmox.ceph_osd:
    api_user: root@pam
    api_password: "{{ pve_root_password }}"
    node: pve1
    dev: /dev/disk/by-id/ata-SAMSUNG_MZ7KH960HAJR-00005_S47NNA0M123456
    crush_device_class: ssd

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Take an OSD out, stop and destroy it (the disk is not wiped)
  homeflare.proxmox.ceph_osd:
    api_user: root@pam
    api_password: "{{ pve_root_password }}"
    node: pve1
    dev: /dev/sdc
    state: absent
    confirm_removal: true
'''

RETURN = r'''
object:
  description:
    - The OSD as read after the run (empty when absent) - the identity, the declared fields, and C(osdid) (Ceph's
      id), C(in) and C(up).
  returned: always
  type: dict
  sample: {"node": "pve1", "dev": "/dev/sdc", "crush_device_class": "ssd", "osdid": 7, "in": true, "up": true}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(delete), V(none).
    - C(changed) lists the declared field names a create sends.
  returned: always
  type: dict
  sample: {"read": "absent", "action": "create", "changed": ["crush_device_class"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ceph_osd import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
