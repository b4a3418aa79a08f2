#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: backup
short_description: Back up named Proxmox VE guests now (vzdump), optionally only when their newest backup is old
version_added: 0.3.0
description:
  - Runs C(POST /nodes/{node}/vzdump) for the guests in O(vmid) and waits for each task. It is an action, not a
    declaration. A run that backs something up reports C(changed=true), and there is no C(state) option.
  - PVE's vzdump backs up only the guests of the node it runs on and silently skips the others. So each guest is
    looked up in C(/cluster/resources) first, and one vzdump runs per node the guests live on (in node order, one
    after the other). A guest that does not exist, or (with O(node)) lives on another node, is refused before
    anything runs; in check mode that is a warning, since an earlier task of the play may create or move it.
  - In M(homeflare.proxmox.declare) a backup runs like an apply, after every other object is written, so the guests
    it names may be created in the same task.
  - With O(only_if_older_than), each guest's newest backup on O(storage) (its C(ctime) in the storage's content
    list) is read first; a guest whose newest backup is younger is skipped, and when every guest is skipped nothing
    is written (C(changed=false)). This makes the task safe to repeat, for example before an upgrade.
  - Check mode reads and reports what would run (RV(plan), RV(runs)) and writes nothing. With C(--diff) the diff
    names each guest and the time of its newest backup, and V(new backup) for the guests a run backs up.
  - The storage must be available on each node a vzdump runs on and hold C(backup) content; otherwise the module
    refuses before writing (in check mode, a warning).
  - A failed vzdump task fails the module, naming the task (UPID), the guests and the end of its log. Backups of
    other nodes' guests made before it are kept and listed in RV(tasks).
  - Afterwards the storage's content is read again; every guest backed up must have a new newest backup there,
    which RV(volumes) names.
  - Backups are data, not declarations, so M(homeflare.proxmox.export) never exports them.
  - Privileges - the guests are read with the read credential (C(/cluster/resources) lists only the guests it may
    audit, so a guest it may not see is refused as missing). The backup and the content list use the provision
    credential, which needs C(VM.Backup) on the guests and C(Datastore.AllocateSpace) on the storage (PVE lists a
    backup only to whom may make it).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  vmid:
    description:
      - The guests (VMs and containers) to back up, by id. At least one.
    type: list
    elements: int
    required: true
  node:
    description:
      - The node the guests must live on. When set, a guest living on another node is refused before anything runs.
      - Leave it out to back each guest up on the node it lives on.
    type: str
  storage:
    description:
      - The storage the backups are written to (wire name C(storage)). It must hold C(backup) content.
    type: str
    required: true
  mode:
    description:
      - The backup mode (wire name C(mode)). Undeclared means the node's vzdump default (V(snapshot) unless
        C(/etc/vzdump.conf) says otherwise).
    type: str
    choices: [snapshot, suspend, stop]
  compress:
    description:
      - The compression (wire name C(compress)); V(0) means none, V(1) is V(lzo). Undeclared means the node's vzdump
        default.
    type: str
    choices: ['0', '1', gzip, lzo, zstd]
  notes:
    description:
      - The notes template of each backup (wire name C(notes-template)), at most 1024 characters. It may use
        C({{cluster}}), C({{guestname}}), C({{node}}) and C({{vmid}}), and C(\n) for a new line; anything else PVE
        refuses, and so does this module, before any request. Quote the braces in YAML (C("{{ '{{guestname}}' }}") in a
        playbook, since Ansible templates them first).
    type: str
  protected:
    description:
      - Whether the new backups are protected from pruning and removal (wire name C(protected)).
    type: bool
  only_if_older_than:
    description:
      - Back a guest up only when its newest backup on O(storage) is at least this old, or when it has none.
      - A duration of numbers with units V(w), V(d), V(h), V(m) or V(s), such as V(1d), V(12h), V(30m) or V(1w2d);
        anything else fails before any request.
      - The age is measured with the controller's clock against the backup's time as PVE lists it.
    type: str
  task_timeout:
    description:
      - Seconds to wait for each vzdump task. Past them the module fails, naming the task to check (the backup goes
        on).
    type: int
    default: 3600
seealso:
  - module: homeflare.proxmox.backup_job
  - module: homeflare.proxmox.storage_content_info
'''

EXAMPLES = r'''
- name: Back up two guests before an upgrade, unless they were backed up today
  homeflare.proxmox.backup:
    vmid: [100, 201]
    storage: backup-nfs
    mode: snapshot
    compress: zstd
    notes: "{{ '{{guestname}}' }} before the upgrade"
    only_if_older_than: 1d
  register: backup

- name: Show the new backups
  ansible.builtin.debug:
    msg: "{{ backup.volumes }}"

# `ansible-playbook site.yml --check --diff` lists the guests due (plan.changed) and the vzdump each node would run.
- name: A protected backup of one container on the node it must live on
  homeflare.proxmox.backup:
    vmid: [300]
    node: pve2
    storage: local
    protected: true
'''

RETURN = r'''
object:
  description:
    - The storage and each guest as read after the run (in check mode, and when nothing ran, as read before).
  returned: always
  type: dict
  contains:
    storage:
      description: The storage the backups are on.
      type: str
    guests:
      description: One entry per guest.
      type: list
      elements: dict
      contains:
        vmid:
          description: The guest's id.
          type: int
        node:
          description: The node it lives on.
          type: str
        type:
          description: V(qemu) or V(lxc).
          type: str
        newest_backup:
          description: The volume id of its newest backup of its own type on the storage, or null.
          type: str
        newest_backup_time:
          description: That backup's time (UTC, ISO 8601), or null.
          type: str
  sample: {"storage": "backup-nfs", "guests": [{"vmid": 100, "node": "pve1", "type": "qemu",
           "newest_backup": "backup-nfs:backup/vzdump-qemu-100-2026_12_03-10_00_00.vma.zst",
           "newest_backup_time": "2026-12-03T10:00:00Z"}]}
plan:
  description:
    - What the run decided. C(read) is V(found); C(action) V(backup) when a guest is due, else V(none).
    - C(changed) lists the ids of the guests due (as text).
  returned: always
  type: dict
  sample: {"read": "found", "action": "backup", "changed": ["100", "201"]}
runs:
  description: The vzdump calls the run makes (or, in check mode, would make), one per node.
  returned: always
  type: list
  elements: dict
  contains:
    node:
      description: The node the vzdump runs on.
      type: str
    vmid:
      description: The guests it backs up.
      type: list
      elements: int
  sample: [{"node": "pve1", "vmid": [100]}, {"node": "pve2", "vmid": [201]}]
not_due:
  description: The guests not backed up because their newest backup is younger than O(only_if_older_than).
  returned: always
  type: list
  elements: int
  sample: [300]
volumes:
  description: The new backup of each guest backed up, by guest id (as text).
  returned: always
  type: dict
  sample: {"100": "backup-nfs:backup/vzdump-qemu-100-2026_12_03-10_00_00.vma.zst"}
tasks:
  description: The vzdump task ids (UPIDs) that ran and ended OK, in order.
  returned: always
  type: list
  elements: str
  sample: ["UPID:pve1:0002C3D4:0D5E6F70:6650A1C3:vzdump:100:automation@pve!ansible:"]
diff:
  description:
    - Each guest's newest backup time before the run and, for the guests due, V(new backup) after it (the same in
      check mode and in a real run).
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
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.backup import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
