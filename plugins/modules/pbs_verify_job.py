#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pbs_verify_job
short_description: Declare a Proxmox Backup Server verify job
version_added: 0.5.0
description:
  - Creates, repairs or removes one verification job of a Proxmox Backup Server (C(/config/verify/{id}) on port
    8007, with a C(PBSAPIToken) or a PBS login).
  - Options left undeclared are not managed (neither sent nor compared); a declared option is compared and written
    alone. An option declared empty (V('')) is removed (C(delete=)). Writes carry the digest of
    C(verification.cfg).
  - O(max_depth) left undeclared is not managed; a job without it (PBS's default) recurses into every namespace
    below O(ns).
  - The vendor's limits (an O(id) of 3 to 32 characters, a O(comment) of at most 128 characters on one line, a
    valid calendar event) are checked before any request.
  - A missing job is PBS's own answer (C(no such verification)) confirmed by the job list; any other failed read
    fails the task.
  - Needs C(Datastore.Audit) or C(Datastore.Verify) on the datastore (or namespace) to read and C(Datastore.Verify)
    to write.
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
    description: The datastore the job verifies. Required to create.
    type: str
  ns:
    description: The namespace (C(a/b), up to 8 levels) the job starts in; empty means the datastore's root.
    type: str
  max_depth:
    description:
      - How many namespace levels below O(ns) the job descends (V(0) to V(7)); O(ns)'s depth plus this stays
        within 7. Undeclared it is not managed; a job without it recurses fully.
    type: int
  ignore_verified:
    description: Skip snapshots already verified (PBS's default when unset is V(true)).
    type: bool
  outdated_after:
    description: Days after which a verified snapshot is verified again (with O(ignore_verified)); V(0) never.
    type: int
  schedule:
    description: When the job runs, a calendar event (for example V(weekly)); empty removes it (manual runs only).
    type: str
  read_threads:
    description: Threads reading chunks (V(1) to V(32)).
    type: int
  verify_threads:
    description: Threads verifying chunks (V(1) to V(32)).
    type: int
  comment:
    description: A comment, at most 128 characters on one line.
    type: str
notes:
  - Removing a datastore with M(homeflare.proxmox.pbs_datastore) also removes its verify jobs.
seealso:
  - module: homeflare.proxmox.pbs_datastore
  - module: homeflare.proxmox.pbs_prune_job
'''

EXAMPLES = r'''
- name: Verify new snapshots weekly, and everything again after 30 days
  homeflare.proxmox.pbs_verify_job:
    api_host: pbs.example.org
    api_token_id: "{{ pbs_token_id }}"
    api_token_secret: "{{ pbs_token_secret }}"
    id: cluster-verify
    store: cluster
    schedule: weekly
    ignore_verified: true
    outdated_after: 30

- name: Remove the job
  homeflare.proxmox.pbs_verify_job:
    api_host: pbs.example.org
    id: cluster-verify
    state: absent
'''

RETURN = r'''
object:
  description: The job's managed fields as read after the run (empty when absent).
  returned: always
  type: dict
  sample: {"id": "cluster-verify", "store": "cluster", "schedule": "weekly", "outdated_after": 30}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["schedule"]}
served_by:
  description:
    - The server (C(host:port)) that answered last.
    - Absent when no server answered (refused before any request, or unreachable).
  returned: when a member answered
  type: str
  sample: "pbs.example.org:8007"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_verify_job import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
