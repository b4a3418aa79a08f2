#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pbs_datastore
short_description: Declare a Proxmox Backup Server datastore
version_added: 0.5.0
description:
  - Creates, repairs or removes one datastore of a Proxmox Backup Server (C(/config/datastore/{name}) on port 8007,
    with a C(PBSAPIToken) or a PBS login).
  - Options left undeclared are not managed (neither sent nor compared); a declared option is compared and written
    alone. An option declared empty (V('')) is removed (C(delete=)). Writes carry the digest of C(datastore.cfg).
  - O(path) and O(backend) are fixed for the datastore's life; a declaration that differs fails naming both values.
  - Retention is not a datastore option on PBS 2.2 and later (PBS refuses C(keep-*) and C(prune-schedule) there);
    declare it with M(homeflare.proxmox.pbs_prune_job).
  - Create and removal are PBS tasks, waited for up to O(task_timeout) seconds; the datastore is then read again
    until it shows the change, for up to O(settle_timeout) seconds.
  - A missing datastore is PBS's own answer (C(no such datastore)) confirmed by the datastore list; any other
    failed read fails the task.
  - Removal needs O(confirm_removal=true). It drops the datastore from the configuration and keeps its chunks on
    disk; PBS also removes the prune, verify and sync jobs of the datastore. Only O(destroy_data=true) wipes the
    data too.
  - Needs C(Datastore.Audit) to read, C(Datastore.Modify) to update and C(Datastore.Allocate) on C(/datastore) to
    create or remove.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  name:
    description: The datastore's name, 3 to 32 letters, digits, C(_), C(.) and C(-) (not first).
    type: str
    required: true
  path:
    description:
      - The directory the chunks are stored in (an absolute path). Required to create; fixed once created.
    type: str
  backend:
    description:
      - The storage backend, a property string (C(type=filesystem), or C(type=s3,client=<endpoint>,bucket=<name>)).
        Fixed once created; compared as key=value pairs.
    type: str
  comment:
    description: A comment, at most 128 characters on one line.
    type: str
  gc_schedule:
    description: When garbage collection runs, a calendar event (for example V(daily)). Checked before any request.
    type: str
  counter_reset_schedule:
    description: When the notification threshold counters are reset, a calendar event.
    type: str
  verify_new:
    description: Whether every new backup snapshot is verified right after it was made.
    type: bool
  gc_on_unmount:
    description: Whether garbage collection runs before a removable datastore is unmounted.
    type: bool
  notify_user:
    description: The user (C(user@realm)) notified in the legacy mode.
    type: str
  notification_mode:
    description: How notifications are sent.
    type: str
    choices: [legacy-sendmail, notification-system]
  notify:
    description: When to notify per job kind in the legacy mode, pairs of C(gc), C(prune), C(sync), C(verify) and
      V(never), V(always) or V(error), for example V(gc=error,verify=always).
    type: str
  tuning:
    description: Tuning options as pairs (C(chunk-order), C(sync-level), C(gc-atime-cutoff), C(gc-atime-safety-check),
      C(gc-cache-capacity), C(default-verification-readers), C(default-verification-workers)).
    type: str
  maintenance_mode:
    description: A maintenance mode, C(type) (V(read-only), V(offline), ...) with an optional C(message); empty ends it.
    type: str
  notification_thresholds:
    description: Notification thresholds as pairs (C(s3-get), C(s3-put), C(s3-upload), ...).
    type: str
  destroy_data:
    description:
      - With O(state=absent) only - also delete every backup in the datastore (C(destroy-data)). Without it the
        chunks stay on disk and the datastore can be created again over them.
    type: bool
  confirm_removal:
    description: Must be V(true) with O(state=absent).
    type: bool
    default: false
  task_timeout:
    description: Seconds to wait for the create or removal task.
    type: int
    default: 120
  settle_timeout:
    description: Seconds to read the datastore again after a task until it shows the change; V(0) reads once.
    type: int
    default: 120
seealso:
  - module: homeflare.proxmox.pbs_prune_job
'''

EXAMPLES = r'''
- name: A datastore for the cluster's backups
  homeflare.proxmox.pbs_datastore:
    api_host: pbs.example.org
    api_token_id: "{{ pbs_token_id }}"
    api_token_secret: "{{ pbs_token_secret }}"
    name: cluster
    path: /mnt/datastore/cluster
    comment: PVE cluster backups
    gc_schedule: daily
    verify_new: true

- name: Put it into read-only maintenance
  homeflare.proxmox.pbs_datastore:
    api_host: pbs.example.org
    name: cluster
    maintenance_mode: "type=read-only,message=disk swap"

- name: Remove the datastore from the configuration (the chunks stay)
  homeflare.proxmox.pbs_datastore:
    api_host: pbs.example.org
    name: old
    state: absent
    confirm_removal: true
'''

RETURN = r'''
object:
  description: The datastore's managed fields as read after the run (empty when absent).
  returned: always
  type: dict
  sample: {"name": "cluster", "path": "/mnt/datastore/cluster", "comment": "PVE cluster backups",
           "gc_schedule": "daily", "verify_new": true}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["gc_schedule"]}
served_by:
  description:
    - The server (C(host:port)) that answered last.
    - Absent when no server answered (refused before any request, or unreachable).
  returned: when a member answered
  type: str
  sample: "pbs.example.org:8007"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_datastore import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
