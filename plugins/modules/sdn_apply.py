#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: sdn_apply
short_description: Make the staged Proxmox VE SDN configuration live, only when something is staged
version_added: 0.2.0
description:
  - M(homeflare.proxmox.sdn_zone), M(homeflare.proxmox.sdn_vnet) and M(homeflare.proxmox.sdn_subnet) only stage
    their writes. This module makes them live with one C(PUT /cluster/sdn), which regenerates the SDN network of
    B(every node at once) and reloads it. There is no C(state) option.
  - When nothing is staged it makes no apply call at all (only the reads), so it can end every play that declares
    SDN objects. What is staged is read from PVE's pending views (C(?pending=1)) of the zones, the vnets, the
    controllers and each vnet's subnets.
  - The apply takes everything staged, not only this play's objects - also half-finished edits someone made by hand
    in the web interface. Check mode lists every staged object (in RV(plan) and RV(object)) and writes nothing;
    review a C(--check --diff) run before applying.
  - PVE reloads each node's network by running C(PUT /nodes/{node}/network) on it, so an interface change staged on
    any node (M(homeflare.proxmox.node_network)) becomes live with it. Apply or revert those first
    (M(homeflare.proxmox.network_apply)). Unlike that module, this one does not check the cluster's health first.
  - PVE answers with the task C(reloadnetworkall), which is waited for (with the same credential) up to
    O(task_timeout) seconds; a failed task fails the module, naming the task. That task starts every node's reload
    but does not wait for their outcome.
  - Afterwards it reads the pending views again and fails if anything is still staged, naming what and how to look
    (C(pvesh get /cluster/sdn/zones --pending 1)).
  - Privileges - the pending views are read with the read credential and need C(SDN.Audit); they leave out what
    the reader may not audit, which is then not seen as staged. The apply needs C(SDN.Allocate) on C(/sdn).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  task_timeout:
    description:
      - Seconds to wait for the apply's task to finish. Past them the module fails, naming the task to check (the
        apply goes on).
    type: int
    default: 60
seealso:
  - module: homeflare.proxmox.sdn_zone
  - module: homeflare.proxmox.sdn_vnet
  - module: homeflare.proxmox.sdn_subnet
'''

EXAMPLES = r'''
- name: Declare a lab network and make it live on every node
  module_defaults:
    group/homeflare.proxmox.proxmox:
      api_host: [pve1.example.org, pve2.example.org, pve3.example.org]
      api_token_id: "automation@pve!ansible"
      api_token_secret: "{{ vault_pve_token_secret }}"
  block:
    - name: A VLAN zone on vmbr0 (staged)
      homeflare.proxmox.sdn_zone:
        zone: lab
        type: vlan
        bridge: vmbr0

    - name: A vnet for VLAN 10 (staged)
      homeflare.proxmox.sdn_vnet:
        vnet: lab10
        zone: lab
        tag: 10

    - name: Its subnet (staged)
      homeflare.proxmox.sdn_subnet:
        vnet: lab10
        subnet: 10.0.10.0/24
        gateway: 10.0.10.1

    # `ansible-playbook site.yml --check --diff` lists every staged object (this play's and anyone else's).
    - name: Apply, only when something is staged
      homeflare.proxmox.sdn_apply:
      register: sdn

    - name: Show the task that applied it
      ansible.builtin.debug:
        msg: "{{ sdn.task | default('nothing was staged') }}"
'''

RETURN = r'''
object:
  description:
    - The staged SDN objects, after the apply (then an empty list) or, in check mode and when nothing was applied,
      as read. Each has C(kind) (V(zone), V(vnet), V(controller), V(subnet)), C(id), C(state) (V(new), V(changed),
      V(deleted)) and C(keys), the names of its staged keys (never their values).
  returned: always
  type: dict
  sample: {"pending": [{"kind": "zone", "id": "lab", "state": "new", "keys": ["bridge", "ipam"]},
                       {"kind": "vnet", "id": "lab10", "state": "new", "keys": ["tag", "zone"]}]}
plan:
  description:
    - What the run decided. C(read) is V(found); C(action) V(apply) when something is staged, else V(none).
    - C(changed) lists the staged objects as C(<kind> <id> (<state>)).
  returned: always
  type: dict
  sample: {"read": "found", "action": "apply", "changed": ["zone lab (new)", "vnet lab10 (new)",
                                                           "subnet lab-10.0.10.0-24 (new)"]}
task:
  description: The task id (UPID) of the apply that ran.
  returned: when an apply ran and PVE answered with a task
  type: str
  sample: "UPID:pve1:0001A2B3:0C4D5E6F:6650A1B2:reloadnetworkall::automation@pve!ansible:"
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_apply import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
