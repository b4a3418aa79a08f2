#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: snapshot
short_description: Declare a snapshot of a Proxmox VE VM or container
version_added: 0.6.0
description:
  - Declares one snapshot of one guest by its name. The same declaration serves a VM and a container - the guest's
    type, and the node it lives on, are read from C(GET /cluster/resources?type=vm). A guest that lives on another
    node than declared (moved by HA or by hand) is judged there, with a warning. A vmid that is no guest is refused,
    naming it, never taken for a missing snapshot.
  - A missing snapshot is taken (C(POST /nodes/{node}/{qemu|lxc}/{vmid}/snapshot), a task waited for up to
    O(task_timeout) seconds); a present one is adopted with no write, its O(description) compared and repaired by
    one C(PUT .../snapshot/{name}/config). A failed snapshot task fails the module naming the snapshot and the task
    (UPID), in PVE's words (a name already used, a guest locked or a template, storage without snapshots).
  - O(keep) with O(prefix) prunes a series - after the declared snapshot is there, the newest O(keep) snapshots
    whose names start with O(prefix) (by their time) stay and the older ones are removed, oldest first. The declared
    snapshot counts as the newest when the run takes it, and must be among those kept (else it is refused). Check
    mode lists the snapshots it would remove in RV(plan.remove).
  - O(rollback=true) rolls the guest back to the snapshot (C(POST .../snapshot/{name}/rollback)), an explicit action
    that acts on every run it is declared for and is never implied by a declaration; it needs
    O(confirm_rollback=true). PVE stops a running guest for it and starts it again only when the snapshot holds the
    VM's RAM state.
  - O(state=absent) removes the snapshot (C(DELETE .../snapshot/{name}), a task) and needs O(confirm_removal=true).
  - Snapshots are not exported (M(homeflare.proxmox.export)), since a point in time cannot be taken again as it was.
  - Reading needs C(VM.Audit) on C(/vms/{vmid}); taking, describing and removing need C(VM.Snapshot), rolling back
    C(VM.Snapshot) or C(VM.Snapshot.Rollback).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  node:
    description:
      - The node the guest is declared on. A guest living on another node is read and written there, with a warning.
    type: str
    required: true
  vmid:
    description: The guest's id, a VM's or a container's.
    type: int
    required: true
  name:
    description:
      - The snapshot's name (wire name C(snapname)) - a letter, then letters, digits, C(_) and C(-), at most 40
        characters. V(current) is PVE's name for the guest's present state and is refused before any request; a VM
        refuses V(pending), a container V(vzdump) (PVE's reserved names).
    type: str
    required: true
  description:
    description:
      - The snapshot's description. Undeclared, it is not compared.
      - Compared as PVE reads it back from the guest's config file, trailing white space aside (a container's gains
        a newline, a VM's loses its trailing white space).
    type: str
  vmstate:
    description:
      - Save the running VM's RAM with the snapshot (a create parameter, never compared). A stopped VM has none to
        save. A container takes no vmstate; declaring it for one is refused before any write.
    type: bool
  keep:
    description:
      - Keep the newest O(keep) snapshots whose names start with O(prefix), the declared one among them, and remove
        the older ones. At least 1; needs O(prefix), and O(state=present).
    type: int
  prefix:
    description:
      - The name prefix of the series O(keep) prunes; the declared O(name) must start with it.
    type: str
  rollback:
    description:
      - Roll the guest back to the snapshot on this run (every run it is declared for). Needs
        O(confirm_rollback=true) and a present snapshot.
    type: bool
    default: false
  confirm_rollback:
    description: Must be V(true) with O(rollback=true); a rollback discards the guest's current state.
    type: bool
    default: false
  state:
    description:
      - V(present) takes the snapshot when it is missing; V(absent) removes it.
      - In check mode nothing is written; the result's RV(plan) says what a real run would do.
    type: str
    choices: [present, absent]
    default: present
  confirm_removal:
    description: Must be V(true) with O(state=absent); a removed snapshot cannot be taken again as it was.
    type: bool
    default: false
  task_timeout:
    description:
      - Seconds to wait for each snapshot, removal or rollback task. Past them the module fails, naming the task to
        check (it goes on).
    type: int
    default: 600
seealso:
  - module: homeflare.proxmox.vm
  - module: homeflare.proxmox.lxc
'''

EXAMPLES = r'''
- name: A snapshot before the upgrade, of a VM or a container alike
  homeflare.proxmox.snapshot:
    node: pve1
    vmid: 120
    name: before-upgrade
    description: Before the Debian 13 upgrade

# Verify without writing: `ansible-playbook site.yml --check --diff`
# reports plan.action and, for keep, plan.remove (the snapshots it would remove).
- name: A nightly snapshot, keeping the last seven
  homeflare.proxmox.snapshot:
    node: pve1
    vmid: 120
    name: "nightly-{{ '%Y%m%d' | strftime }}"
    prefix: nightly-
    keep: 7

- name: Roll the VM back to it
  homeflare.proxmox.snapshot:
    node: pve1
    vmid: 120
    name: before-upgrade
    rollback: true
    confirm_rollback: true

- name: Remove it
  homeflare.proxmox.snapshot:
    node: pve1
    vmid: 120
    name: before-upgrade
    state: absent
    confirm_removal: true
'''

RETURN = r'''
object:
  description:
    - The snapshot as listed after the run (empty when absent) - the identity, the managed fields, C(type) (V(qemu)
      or V(lxc)), C(snaptime), C(parent) when it has one and, for a VM, C(vmstate) (whether it holds the RAM).
  returned: always
  type: dict
  sample: {"node": "pve1", "vmid": 120, "name": "before-upgrade", "description": "Before the Debian 13 upgrade",
           "type": "qemu", "snaptime": 1767225600, "vmstate": false}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete),
      V(none), or - when the snapshot itself needs nothing - V(rollback) or V(prune).
  returned: always
  type: dict
  sample: {"read": "absent", "action": "create", "changed": ["description"], "type": "qemu", "node": "pve1",
           "remove": ["nightly-20260101"], "rollback": false}
  contains:
    read:
      description: V(found) or V(absent).
      type: str
    action:
      description: V(create), V(update), V(delete), V(rollback), V(prune) or V(none).
      type: str
    changed:
      description: The drifted (or, on a create, the declared) field names.
      type: list
      elements: str
    type:
      description: The guest's type, V(qemu) or V(lxc).
      type: str
    node:
      description: The node the guest lives on, where the snapshot is read and written.
      type: str
    remove:
      description: The snapshots O(keep) removes, oldest first.
      type: list
      elements: str
    rollback:
      description: Whether the run rolls the guest back to the snapshot.
      type: bool
diff:
  description:
    - The snapshot's identity and managed fields before and after; with O(keep), C(snapshots) lists the prefix's
      snapshots before and those kept after (oldest first); a rollback adds C(rolled_back) to C(after).
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
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.snapshot import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
