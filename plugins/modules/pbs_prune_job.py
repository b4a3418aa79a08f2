#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pbs_prune_job
short_description: Declare a Proxmox Backup Server prune job
version_added: 0.5.0
description:
  - Creates, repairs or removes one prune job of a Proxmox Backup Server (C(/config/prune/{id}) on port 8007, with a
    C(PBSAPIToken) or a PBS login). A prune job is the retention of a datastore (or of one namespace of it).
  - Options left undeclared are not managed (neither sent nor compared); a declared option is compared and written
    alone. An option declared empty (V('')) is removed (C(delete=)). Writes carry the digest of C(prune.cfg).
  - The C(keep_*) options are one retention policy. Declaring any of them declares all of them, and a C(keep_*)
    option left out is removed from the job; declaring none of them leaves the retention unmanaged.
  - B(A narrowing deletes backups.) A declaration that keeps fewer backups than the live job (a lower C(keep_*)
    count, a keep line removed while others stay, or keep lines added to a job that had none and so kept
    everything) is reported as a warning in the plan, check mode included (V(the next run deletes backups)), and a
    real run refuses it, writing nothing, unless O(confirm_narrowing=true).
  - O(max_depth) left undeclared is not managed; a job without it (PBS's default) recurses into every namespace
    below O(ns).
  - The vendor's limits (an O(id) of 3 to 32 characters, a O(comment) of at most 128 characters on one line,
    counts of at least 1, a valid calendar event) are checked before any request.
  - A missing job is PBS's own answer (C(no such prune)) confirmed by the job list; any other failed read fails
    the task.
  - Needs C(Datastore.Audit) on the datastore (or namespace) to read and C(Datastore.Modify) to write.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  id:
    description: The job's id, 3 to 32 letters, digits, C(_), C(.) and C(-) (not first).
    type: str
    required: true
  store:
    description: The datastore the job prunes. Required to create.
    type: str
  ns:
    description: The namespace (C(a/b), up to 8 levels) the job starts in; empty means the datastore's root.
    type: str
  max_depth:
    description:
      - How many namespace levels below O(ns) the job descends (V(0) to V(7)); O(ns)'s depth plus this stays
        within 7. Undeclared it is not managed; a job without it recurses fully.
    type: int
  schedule:
    description:
      - When the job runs, a calendar event (for example V(daily) or V(mon..fri 02:00)). Required to create; PBS
        cannot remove it, so it cannot be declared empty.
    type: str
  keep_last:
    description: Keep the last N backups.
    type: int
  keep_hourly:
    description: Keep the last backup of each of the last N hours.
    type: int
  keep_daily:
    description: Keep the last backup of each of the last N days.
    type: int
  keep_weekly:
    description: Keep the last backup of each of the last N weeks.
    type: int
  keep_monthly:
    description: Keep the last backup of each of the last N months.
    type: int
  keep_yearly:
    description: Keep the last backup of each of the last N years.
    type: int
  disable:
    description: Whether the job is disabled (it does not run on its schedule).
    type: bool
  comment:
    description: A comment, at most 128 characters on one line.
    type: str
  confirm_narrowing:
    description:
      - Write a retention that keeps fewer backups than the live job. Without it such a write is refused in a real
        run (and warned about in check mode); the job's next run deletes the backups it no longer keeps.
    type: bool
    default: false
notes:
  - Removing a datastore with M(homeflare.proxmox.pbs_datastore) also removes its prune jobs.
seealso:
  - module: homeflare.proxmox.pbs_datastore
  - module: homeflare.proxmox.pbs_verify_job
'''

EXAMPLES = r'''
- name: Keep a week of dailies and a year of monthlies
  homeflare.proxmox.pbs_prune_job:
    api_host: pbs.example.org
    api_token_id: "{{ pbs_token_id }}"
    api_token_secret: "{{ pbs_token_secret }}"
    id: cluster-retention
    store: cluster
    schedule: daily
    keep_last: 3
    keep_daily: 7
    keep_monthly: 12

- name: Keep fewer dailies (deletes backups on the next run, so it must be confirmed)
  homeflare.proxmox.pbs_prune_job:
    api_host: pbs.example.org
    id: cluster-retention
    keep_last: 3
    keep_daily: 3
    keep_monthly: 12
    confirm_narrowing: true

- name: Remove the job (the backups stay)
  homeflare.proxmox.pbs_prune_job:
    api_host: pbs.example.org
    id: cluster-retention
    state: absent
'''

RETURN = r'''
object:
  description: The job's managed fields as read after the run (empty when absent).
  returned: always
  type: dict
  sample: {"id": "cluster-retention", "store": "cluster", "schedule": "daily", "keep_last": 3, "keep_daily": 7}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["keep_daily"]}
served_by:
  description:
    - The server (C(host:port)) that answered last.
    - Absent when no server answered (refused before any request, or unreachable).
  returned: when a member answered
  type: str
  sample: "pbs.example.org:8007"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_prune_job import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
