#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: replication_job
short_description: Declare a Proxmox VE storage replication job
version_added: 0.1.0
description:
  - Creates, repairs or removes one storage replication job of C(/etc/pve/replication.cfg)
    (C(/cluster/replication/{id})), which copies a guest's ZFS volumes to another node on a schedule.
  - Options left undeclared are not managed (neither sent nor compared). O(comment) and O(rate) declared empty
    (V('')) are removed (C(delete=)).
  - Replication works on local ZFS (C(zfspool)) volumes only. PVE refuses a job for a guest without such a volume
    (C(No replicatable volumes found), for example a guest on Ceph, whose shared volumes are skipped) or with a
    local disk that cannot be replicated (C(missing replicate feature on volume ...)); the module reports PVE's
    refusal as it is, and nothing is written.
  - O(target) is fixed once created (PVE has no way to move a job); a declaration that differs fails naming it.
  - O(state=absent) asks PVE to remove the job. PVE marks it (C(remove_job=full)) and pvesr removes it on its next
    run, together with its snapshots and the replicated volumes on the target node; from then on the job counts
    as absent. Declaring it again before pvesr has run fails with PVE's C(already exists); run again later.
  - Updates carry the digest of C(replication.cfg), so a job edited by someone else since it was read is not
    overwritten.
  - Reading needs C(VM.Audit) on the guest (C(/vms/<vmid>)); writing C(VM.Replicate) on it.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  id:
    description:
      - The job id (wire name C(id)), C(<vmid>-<jobnum>), for example C(100-0); the guest comes from it.
    type: str
    required: true
  type:
    description: The replication type; V(local) is the only one PVE has. Fixed once created.
    type: str
    choices: [local]
    default: local
  target:
    description: The node the volumes are replicated to, not the guest's own node. Required to create a job; fixed once created.
    type: str
  schedule:
    description:
      - When the job runs, a calendar event (at most 128 characters); unset means every 15 minutes (V(*/15)).
      - Declaring V(*/15) removes the schedule from the file. Compared as text; declare it the way PVE stores it.
    type: str
  rate:
    description:
      - Bandwidth limit in megabytes per second, a number of 1 or more (for example V(50) or V(12.5)); compared by
        value.
    type: str
  comment:
    description: A description of the job, at most 4096 characters.
    type: str
  disable:
    description: Whether the job is disabled.
    type: bool
seealso:
  - module: homeflare.proxmox.storage
  - module: homeflare.proxmox.backup_job
'''

EXAMPLES = r'''
- name: Replicate guest 100 to node2 every 30 minutes
  homeflare.proxmox.replication_job:
    id: 100-0
    target: node2
    schedule: "*/30"
    rate: 50
    comment: Web server standby copy

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Stop replicating guest 100 (pvesr removes the replicated volumes on the target)
  homeflare.proxmox.replication_job:
    id: 100-0
    state: absent
'''

RETURN = r'''
object:
  description: The job's managed fields as read after the run (empty when absent or marked for removal).
  returned: always
  type: dict
  sample: {"id": "100-0", "type": "local", "target": "node2", "schedule": "*/30", "rate": "50"}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["schedule"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.replication_job import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
