#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: network_apply
short_description: Make a Proxmox VE node's staged interfaces live, only when something is staged
version_added: 0.2.0
description:
  - M(homeflare.proxmox.node_network) only stages its writes in the node's C(/etc/network/interfaces.new). This
    module makes them live with C(PUT /nodes/{node}/network), which moves the staged file over
    C(/etc/network/interfaces) and reloads the node's network in the task C(srvreload). There is no C(state) option.
  - When nothing is staged it makes no apply call at all (only the reads), so it can follow every interface task.
    What is staged is the C(changes) diff PVE returns beside the interfaces (C(GET /nodes/{node}/network)); only the
    count of changed lines is kept and returned, never the text (the file may hold secrets such as C(wpa-psk) and
    commands such as C(pre-up)).
  - Before applying, and in check mode as a real run would, it reads the cluster's health (C(GET /cluster/status))
    and refuses when the cluster is not quorate or any member is offline. Nothing is applied then, and the staged
    file stays. A standalone node (no cluster) counts as quorate.
  - It waits for the C(srvreload) task with the same credential that started it, up to O(task_timeout) seconds - not
    for the staged file to vanish, which PVE renames before the reload runs. A task that fails fails the module,
    naming its UPID, with the last lines of its log.
  - Afterwards it checks the cluster's health again and that nothing is still staged; either failing fails the
    task.
  - O(revert=true) discards the staged changes instead (C(DELETE /nodes/{node}/network) removes
    C(/etc/network/interfaces.new); no reload, no health check). It cannot undo a change already applied.
  - Apply one node at a time - a reload can cut a node off. Run the task serially (a loop over the nodes in one task
    runs them one after another); the health check before each apply then refuses while a node reloaded earlier is
    offline.
  - A staged file that differs from the live one only in white space is not reported by PVE (its diff ignores white
    space), so it counts as nothing staged.
  - Privileges - the read credential needs C(Sys.Audit) on C(/) (the cluster's health) and on C(/nodes/{node}) (what
    is staged); applying or reverting needs C(Sys.Modify) on C(/nodes/{node}).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  node:
    description: The node whose staged interfaces are applied (or, with O(revert=true), discarded).
    type: str
    required: true
  revert:
    description:
      - V(true) removes the staged file instead of applying it (C(DELETE /nodes/{node}/network)); it cannot undo a
        change already applied. Nothing staged means no call either way.
    type: bool
    default: false
  task_timeout:
    description:
      - Seconds to wait for the C(srvreload) task to finish. Past them the module fails, naming the task to check (the
        reload goes on).
    type: int
    default: 60
seealso:
  - module: homeflare.proxmox.node_network
'''

EXAMPLES = r'''
- name: A bond and a bridge on pve1, made live
  module_defaults:
    group/homeflare.proxmox.proxmox:
      api_host: [pve1.example.org, pve2.example.org, pve3.example.org]
      api_token_id: "automation@pve!ansible"
      api_token_secret: "{{ vault_pve_token_secret }}"
  block:
    - name: LACP bond of the two 10G ports (staged)
      homeflare.proxmox.node_network:
        node: pve1
        iface: bond0
        type: bond
        slaves: [enp1s0f0, enp1s0f1]
        bond_mode: 802.3ad
        autostart: true

    - name: VLAN-aware bridge on the bond (staged)
      homeflare.proxmox.node_network:
        node: pve1
        iface: vmbr1
        type: bridge
        bridge_ports: [bond0]
        bridge_vlan_aware: true
        autostart: true

    - name: Reload pve1's network, only when something is staged and the cluster is healthy
      homeflare.proxmox.network_apply:
        node: pve1

- name: Apply every node's staged interfaces, one node after another
  module_defaults:
    group/homeflare.proxmox.proxmox:
      api_host: [pve1.example.org, pve2.example.org, pve3.example.org]
  homeflare.proxmox.network_apply:
    node: "{{ item }}"
  loop: [pve1, pve2, pve3]

- name: Discard what is staged on pve2 (an applied change is not undone)
  module_defaults:
    group/homeflare.proxmox.proxmox:
      api_host: [pve1.example.org, pve2.example.org, pve3.example.org]
  homeflare.proxmox.network_apply:
    node: pve2
    revert: true
'''

RETURN = r'''
object:
  description:
    - The node and the number of lines staged in C(/etc/network/interfaces.new), after the apply or revert (then V(0))
      or, in check mode and when nothing was applied, as read.
  returned: always
  type: dict
  sample: {"node": "pve1", "pending_lines": 0}
plan:
  description:
    - What the run decided. C(read) is V(found); C(action) V(apply) (or V(revert) with O(revert=true)) when something
      is staged, else V(none).
    - C(changed) says what is staged, as C(<n> staged lines in /etc/network/interfaces.new).
  returned: always
  type: dict
  sample: {"read": "found", "action": "apply", "changed": ["14 staged lines in /etc/network/interfaces.new"]}
task:
  description: The task id (UPID) of the C(srvreload) that applied the staged file.
  returned: when an apply ran
  type: str
  sample: "UPID:pve1:0002C3D4:0D5E6F70:6650A1C3:srvreload:networking:automation@pve!ansible:"
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.network_apply import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
