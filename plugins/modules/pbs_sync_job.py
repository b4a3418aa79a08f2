#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pbs_sync_job
short_description: Declare a Proxmox Backup Server sync job
version_added: 0.5.0
description:
  - Creates, repairs or removes one sync job of a Proxmox Backup Server (C(/config/sync/{id}) on port 8007, with a
    C(PBSAPIToken) or a PBS login). A pull job copies backups from a remote (M(homeflare.proxmox.pbs_remote)), or
    from another datastore of the same server, into O(store); a push job copies O(store) to the remote.
  - Options left undeclared are not managed (neither sent nor compared); a declared option is compared and written
    alone. An option declared empty (V('')) is removed (C(delete=)). Writes carry the digest of C(sync.cfg).
  - B(O(remove_vanished=true) loses data on the target.) Every backup group and snapshot on the target that no
    longer exists on the source is deleted on each run (for a pull job in O(store), for a push job on the remote).
  - O(max_depth) left undeclared is not managed; a job without it (PBS's default) recurses into every namespace
    below O(ns) and O(remote_ns).
  - The vendor's limits (an O(id) of 3 to 32 characters, a O(comment) of at most 128 characters on one line, a
    valid calendar event, group filters, namespace depths) are checked before any request. PBS does not check that
    the datastore or the remote exist.
  - A missing job is PBS's own answer (C(no such sync)) confirmed by the job list of every direction; any other
    failed read fails the task.
  - Needs C(Datastore.Audit) on the local datastore and C(Remote.Audit) on the remote to read; to write, a pull job
    needs C(Datastore.Backup) (and C(Datastore.Prune) with O(remove_vanished), C(Datastore.Modify) unless the
    caller owns the job) and C(Remote.Read); PBS answers C(permission check failed) otherwise.
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
    description: The local datastore (the target of a pull, the source of a push). Required to create.
    type: str
  ns:
    description: The local namespace (C(a/b), up to 8 levels); empty means the datastore's root.
    type: str
  sync_direction:
    description: V(pull) (PBS's default when unset) or V(push).
    type: str
    choices: [pull, push]
  remote:
    description: The remote's name (M(homeflare.proxmox.pbs_remote)); empty removes it, making a local sync job.
    type: str
  remote_store:
    description: The datastore on the remote (or, for a local sync job, on this server). Required to create.
    type: str
  remote_ns:
    description: The namespace on the remote side; empty means its root.
    type: str
  max_depth:
    description:
      - How many namespace levels below O(ns) and O(remote_ns) the job descends (V(0) to V(7)). Undeclared it is
        not managed; a job without it recurses fully.
    type: int
  owner:
    description: The user or token (C(user@realm) or C(user@realm!token)) owning the synced groups; unset means
      C(root@pam).
    type: str
  schedule:
    description: When the job runs, a calendar event (for example V(hourly)); empty removes it (manual runs only).
    type: str
  remove_vanished:
    description:
      - Delete on the target every backup group and snapshot that vanished on the source. B(This loses data on the
        target) whenever the source pruned or lost backups.
    type: bool
  group_filter:
    description:
      - Backup groups to sync, a set of C([include:|exclude:]type:<vm|ct|host>), C(group:<type>/<id>) or
        C(regex:<re>); compared as a set (order does not matter); an empty list removes the filter (every group).
    type: list
    elements: str
  transfer_last:
    description: Sync only the newest N snapshots of each group.
    type: int
  rate_in:
    description: The inbound rate limit, a byte size per second (for example V(10 MiB)), compared as PBS stores it.
    type: str
  burst_in:
    description: The inbound burst size.
    type: str
  rate_out:
    description: The outbound rate limit.
    type: str
  burst_out:
    description: The outbound burst size.
    type: str
  encrypted_only:
    description: Sync only encrypted snapshots.
    type: bool
  verified_only:
    description: Sync only verified snapshots.
    type: bool
  run_on_mount:
    description: Run the job when the datastore (a removable one) is mounted.
    type: bool
  unmount_on_done:
    description: Unmount the removable datastore once the job is done.
    type: bool
  resync_corrupt:
    description: Sync again snapshots whose verification failed.
    type: bool
  worker_threads:
    description: Worker threads (V(1) to V(32)).
    type: int
  comment:
    description: A comment, at most 128 characters on one line.
    type: str
notes:
  - Removing a datastore with M(homeflare.proxmox.pbs_datastore) also removes the pull jobs into it.
seealso:
  - module: homeflare.proxmox.pbs_remote
  - module: homeflare.proxmox.pbs_datastore
'''

EXAMPLES = r'''
- name: Pull the main site's backups every hour
  homeflare.proxmox.pbs_sync_job:
    api_host: pbs-offsite.example.org
    api_token_id: "{{ pbs_token_id }}"
    api_token_secret: "{{ pbs_token_secret }}"
    id: from-main
    store: offsite
    remote: main
    remote_store: cluster
    schedule: hourly
    group_filter:
      - type:vm
      - exclude:group:vm/9000
    transfer_last: 7

- name: Remove the job (the synced backups stay)
  homeflare.proxmox.pbs_sync_job:
    api_host: pbs-offsite.example.org
    id: from-main
    state: absent
'''

RETURN = r'''
object:
  description: The job's managed fields as read after the run (empty when absent).
  returned: always
  type: dict
  sample: {"id": "from-main", "store": "offsite", "remote": "main", "remote_store": "cluster", "schedule": "hourly"}
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
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_sync_job import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
