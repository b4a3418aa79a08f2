#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: backup_job
short_description: Declare a Proxmox VE scheduled backup job
version_added: 0.1.0
description:
  - Creates, repairs or removes one scheduled backup (vzdump) job of C(/etc/pve/jobs.cfg) (C(/cluster/backup/{id})).
  - Options left undeclared are not managed (neither sent nor compared). An option declared empty (V('') or V([]))
    is removed from the job (C(delete=)).
  - O(id) is always declared, so a job is found again by its id; PVE would otherwise make one up.
  - A new job needs O(schedule) and guests to back up, one of O(vmid), O(all) (less O(exclude)) or O(pool); they
    exclude each other, and PVE drops the others when one of them is written.
  - O(vmid) and O(exclude) are compared as sets of numbers (V(101) after V(99)); O(prune_backups) and O(fleecing)
    as sets of C(key=value) pairs, whatever order or spelling PVE reads them back in (it answers them as objects).
  - O(enabled) is on unless declared off; an enabled flag PVE reads back empty counts as unset, never as off.
  - Every value is checked against PVE's own format or range (calendar event, vmid lists, storage ids, the
    property strings' keys) before any request.
  - Reading needs C(Sys.Audit) on C(/); writing C(Sys.Modify) on C(/) (and C(VM.Backup) on a declared pool).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  id:
    description: The job id (wire name C(id)), a letter followed by letters, digits, C(_) and C(-).
    type: str
    required: true
  schedule:
    description:
      - When the job runs, a calendar event such as V(daily), V(sat 02:30) or V(mon..fri 21:00), at most 128
        characters. Required to create a job; it cannot be removed.
      - Compared as text; declare it the way PVE stores it.
    type: str
  enabled:
    description: Whether the job runs on its schedule; unset means V(true).
    type: bool
  comment:
    description: A description of the job, at most 512 characters.
    type: str
  vmid:
    description: The guests to back up, compared as a set of numbers. Excludes O(all) and O(pool).
    type: list
    elements: str
  all:
    description: Back up every guest (less O(exclude)). Excludes O(vmid).
    type: bool
  exclude:
    description: Guests left out when backing up all guests; PVE sets O(all) for it. Excludes O(vmid).
    type: list
    elements: str
  pool:
    description: Back up the guests of this pool. Excludes O(vmid).
    type: str
  node:
    description: Run only on this node.
    type: str
  storage:
    description:
      - The storage the backups go to. It cannot be removed once declared.
      - Sent with every write, because PVE takes O(notes_template) and O(protected) only together with it.
    type: str
  mode:
    description: Backup mode (PVE's default V(snapshot)).
    type: str
    choices: [snapshot, suspend, stop]
  compress:
    description: Compression of the backup files (PVE's default V('0'), none).
    type: str
    choices: ['0', '1', gzip, lzo, zstd]
  mailto:
    description: E-mail addresses or user names notified (with O(notification_mode=legacy-sendmail)), compared order-free.
    type: list
    elements: str
  mailnotification:
    description: When the legacy e-mail is sent (deprecated by PVE in favour of notification matchers).
    type: str
    choices: [always, failure]
  notification_mode:
    description: How the job notifies (wire name C(notification-mode); PVE's default V(auto)).
    type: str
    choices: [auto, legacy-sendmail, notification-system]
  notes_template:
    description:
      - Notes template of the backups (C({{guestname}}), C({{node}}), C({{vmid}}), C({{cluster}})), at most 1024
        characters (wire name C(notes-template)). Needs O(storage).
    type: str
  protected:
    description: Whether the backups are protected from pruning. Needs O(storage).
    type: bool
  prune_backups:
    description:
      - Retention for this job instead of the storage's, as PVE's property string (wire name C(prune-backups)),
        for example C(keep-last=3,keep-daily=7); compared as pairs.
      - Keys are C(keep-all) (alone) or C(keep-last), C(keep-hourly), C(keep-daily), C(keep-weekly), C(keep-monthly),
        C(keep-yearly), each 1 or more.
    type: str
  fleecing:
    description:
      - Backup fleecing (VMs only) as C([enabled=]1|0[,storage=<storage>]); V(1) alone means C(enabled=1).
        Compared as pairs.
    type: str
  performance:
    description:
      - Performance settings as C(max-workers=<1-256>,pbs-entries-max=<N>); compared as pairs.
    type: str
  pbs_change_detection_mode:
    description: How a Proxmox Backup Server finds changed container files (wire name C(pbs-change-detection-mode)).
    type: str
    choices: [legacy, data, metadata]
  repeat_missed:
    description: Whether a run missed while the node was down is made up for (wire name C(repeat-missed)).
    type: bool
  remove:
    description: Whether old backups are pruned after a backup; unset means V(true).
    type: bool
  stdexcludes:
    description: Whether temporary files and logs are left out; unset means V(true).
    type: bool
  bwlimit:
    description: I/O bandwidth limit in KiB/s, 0 or more (0 is unlimited).
    type: int
  ionice:
    description: I/O priority, 0 to 8.
    type: int
  lockwait:
    description: Minutes to wait for the global lock, 0 or more.
    type: int
  stopwait:
    description: Minutes to wait for a guest to stop, 0 or more.
    type: int
  zstd:
    description: Zstd threads; 0 uses half of the cores.
    type: int
seealso:
  - module: homeflare.proxmox.storage
  - module: homeflare.proxmox.replication_job
'''

EXAMPLES = r'''
- name: Back up the production guests every night
  homeflare.proxmox.backup_job:
    id: nightly
    schedule: "21:00"
    storage: pbs
    vmid: [100, 101, 105]
    mode: snapshot
    compress: zstd
    prune_backups: keep-daily=7,keep-weekly=4
    fleecing: enabled=1,storage=local-lvm
    comment: Production guests

- name: Back up everything but the scratch guests on Saturdays
  homeflare.proxmox.backup_job:
    id: weekly-all
    schedule: sat 02:30
    storage: pbs
    all: true
    exclude: [900, 901]

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Remove a job
  homeflare.proxmox.backup_job:
    id: old-job
    state: absent
'''

RETURN = r'''
object:
  description: The job's managed fields as read after the run (empty when absent).
  returned: always
  type: dict
  sample: {"id": "nightly", "schedule": "21:00", "vmid": ["100", "101", "105"], "enabled": true}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["vmid"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.backup_job import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
