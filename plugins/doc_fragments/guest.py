# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # What the lxc and vm modules share - identity, state and power, removal, and the common config keys.
    DOCUMENTATION = r'''
options:
  node:
    description:
      - The node the guest lives on. A guest found on another node is judged there, with a warning, unless
        O(migrate=true) moves it here.
    type: str
    required: true
  vmid:
    description:
      - The guest's id, 100 to 999999999, shared by VMs and containers cluster-wide. A vmid taken by the other guest
        type is refused. It is never changed; a declaration whose name exists under another vmid is refused.
    type: int
    required: true
  state:
    description:
      - V(present) creates or repairs the config and never changes the power state.
      - V(started), V(stopped) and V(restarted) also act on the power state, once, and report it. A stop is a clean
        shutdown with O(shutdown_timeout); it becomes a hard stop after the timeout only with O(force_stop=true).
        V(restarted) reboots a running guest (and starts a stopped one) on every run.
      - V(absent) destroys the guest and its disks; it needs O(confirm_removal=true), and is refused for a running or
        protected guest with PVE's reason.
    type: str
    choices: [present, absent, started, stopped, restarted]
    default: present
  confirm_removal:
    description: Must be V(true) with O(state=absent); destroying a guest destroys its disks.
    type: bool
    default: false
  purge:
    description:
      - With O(state=absent), also remove the guest from backup jobs, replication jobs, HA and pools (wire name
        C(purge)). Off by default, so PVE refuses to destroy an HA-managed guest until asked.
    type: bool
    default: false
  force_stop:
    description: With O(state=stopped), stop the guest hard when it has not shut down within O(shutdown_timeout).
    type: bool
    default: false
  shutdown_timeout:
    description: Seconds a clean shutdown may take (PVE's C(timeout) of C(status/shutdown)).
    type: int
    default: 60
  reboot_if_pending:
    description:
      - Changes PVE cannot apply to a running guest are parked as pending until its next restart; they are reported
        in C(object.pending) and C(plan.pending). With V(true), a running guest with pending changes is rebooted once
        (a clean reboot) to apply them.
    type: bool
    default: false
  task_timeout:
    description: Seconds to wait for each task (create, clone, resize, start, destroy) to end.
    type: int
    default: 300
  pool:
    description:
      - The resource pool the guest is a member of, compared with the C(pool) of its row in C(/cluster/resources)
        (read only when declared; the credential needs C(Pool.Audit) on the pool to see it). V('') means in no pool.
      - A new guest joins with its create; a found one is moved with one C(PUT /pools) (C(allow-move) out of its
        present pool), or leaves its pool with C(delete=1) for V('').
      - Undeclared, membership is unmanaged. Declare a guest's membership here or in the pool's
        O(homeflare.proxmox.pool#module:members), not both (M(homeflare.proxmox.declare) refuses both).
    type: str
  restore_from:
    description:
      - A backup volume (V(<storage>:backup/vzdump-...), as M(homeflare.proxmox.backup) reports it) an absent guest
        is created from instead of a template or a clone (a restore task, waited for); only O(storage), O(pool) and
        the guest's name go with it, then the rest of the declared config is judged and written as after a clone.
      - Used only when the vmid is absent; an existing guest is adopted as it is and never restored over.
      - Never read or compared. Refused beside a template or a clone, and for a volume that is not a backup.
    type: str
  onboot:
    description: Whether the guest starts at boot. Undeclared is unmanaged.
    type: bool
  protection:
    description: Whether PVE refuses to destroy the guest or its disks. Undeclared is unmanaged.
    type: bool
  startup:
    description: Start and shutdown order, C([order=]<n>[,up=<s>][,down=<s>]).
    type: str
  tags:
    description:
      - Tags, compared as a set. PVE stores them lower-cased and sorted (unless the datacenter's C(tag-style)
        says otherwise) - declare them that way, or the write succeeds and the run fails naming C(tags).
    type: list
    elements: str
  description:
    description:
      - The guest's notes (at most 8192 characters), kept by PVE as the config file's comment lines.
      - Compared as PVE reads them back, so a declaration PVE stores in another form is adopted, not rewritten -
        a container's notes end in a newline (V(hello) reads C(hello\n)), a VM's lose their trailing white space
        (a YAML block's final newline); trailing empty lines are dropped and V(0) is not kept at all.
    type: str
  cores:
    description: CPU cores.
    type: int
  cpulimit:
    description: CPU time limit in cores (a decimal, V(0) for none).
    type: float
  cpuunits:
    description: CPU weight.
    type: int
'''

    # The options of lxc_info and vm_info.
    INFO = r'''
options:
  node:
    description: Only the guests on this node.
    type: str
  vmid:
    description: Only these guests, each with its config.
    type: list
    elements: int
  config:
    description: Read the config of every listed guest.
    type: bool
    default: false
'''
