#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: sdn_vnet
short_description: Declare a Proxmox VE SDN vnet (staged until an SDN apply)
version_added: 0.2.0
description:
  - Creates, repairs or removes one SDN vnet, a section of C(/etc/pve/sdn/vnets.cfg) (C(/cluster/sdn/vnets/{vnet})).
  - Every write is B(staged). A create, an update or a removal changes PVE's pending SDN configuration only;
    nothing is live on any node until M(homeflare.proxmox.sdn_apply) runs. RV(pending) and RV(pending_state) say
    whether the vnet still waits for that apply.
  - Every option means PVE's default when undeclared (no alias, no tag, not VLAN-aware, ports not isolated), so a
    value set by hand is reported as drift and repaired. An alias or a tag is cleared with C(delete=); the flags are
    written as V(1) or V(0).
  - The vnet's id is also the name of its bridge on every node, so a vnet is never renamed.
  - Privileges, on C(/sdn/zones/{zone}/{vnet}) - C(SDN.Audit) (or C(SDN.Allocate)) to read, C(SDN.Allocate) to
    write. A create is checked on the zone, C(/sdn/zones/{zone}); when the zone does not exist PVE answers with a
    permission error, so declare the zone first (M(homeflare.proxmox.sdn_zone)). C(SDN.Use) only lets guests
    attach to the vnet.
  - A removal (O(state=absent)) is staged as well; the vnet keeps running until the apply. Remove its subnets first
    (M(homeflare.proxmox.sdn_subnet) with O(state=absent)).
  - Each update carries the digest of the staged file it was judged on; when another writer changed the file in
    between, PVE refuses it, and the object is read and judged again once (then written, or a clear failure).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  vnet:
    description:
      - The vnet id (wire name C(vnet)), a letter, then letters and digits, at most 8 characters. It is also the
        name of the vnet's bridge on every node.
    type: str
    required: true
  zone:
    description:
      - The zone the vnet belongs to; required with O(state=present) (refused before any request without it).
      - Changing it moves the vnet to the other zone in place; PVE refuses that while the vnet has subnets.
    type: str
  alias:
    description:
      - A display name, at most 256 characters.
      - Undeclared means none; a value set by hand is cleared with C(delete=alias).
    type: str
    default: ''
  tag:
    description:
      - The VLAN tag (V(vlan) and V(qinq) zones) or the VXLAN VNI (V(vxlan) and V(evpn) zones), 1 to 16777215. PVE
        checks it against the zone's type (a V(vlan) zone's vnet needs one, a V(simple) zone's takes none).
      - Undeclared means none (no key, which is not V(0)); a tag set by hand is cleared with C(delete=tag).
    type: int
  vlanaware:
    description:
      - Whether guests may send tagged traffic (their own VLANs) through the vnet.
      - Undeclared means PVE's default, off; written as V(1) or V(0). PVE refuses a subnet on a VLAN-aware vnet.
    type: bool
    default: false
  isolate_ports:
    description:
      - Whether every port on the vnet's bridge is isolated, so guests reach the uplink but not each other (wire name
        C(isolate-ports)).
      - Undeclared means PVE's default, off; written as V(1) or V(0).
    type: bool
    default: false
seealso:
  - module: homeflare.proxmox.sdn_zone
  - module: homeflare.proxmox.sdn_subnet
  - module: homeflare.proxmox.sdn_apply
'''

EXAMPLES = r'''
- name: Declare the lab vnets, then make them live
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

    - name: VLAN 10 for the lab servers (staged)
      homeflare.proxmox.sdn_vnet:
        vnet: lab10
        zone: lab
        tag: 10
        alias: Lab servers

    - name: VLAN 20, its guests isolated from each other (staged)
      homeflare.proxmox.sdn_vnet:
        vnet: lab20
        zone: lab
        tag: 20
        isolate_ports: true

    - name: Make the staged SDN configuration live on every node
      homeflare.proxmox.sdn_apply:
'''

RETURN = r'''
object:
  description:
    - The vnet's managed fields as read after the run (empty when absent). This is the staged configuration, which
      is not live until the SDN apply.
  returned: always
  type: dict
  sample: {"vnet": "lab10", "zone": "lab", "alias": "Lab servers", "tag": 10, "vlanaware": false, "isolate_ports": false}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["alias"]}
pending:
  description:
    - Whether the vnet differs from the running SDN configuration, that is, waits for M(homeflare.proxmox.sdn_apply)
      (its own change, or an earlier one not applied yet).
  returned: success
  type: bool
  sample: true
pending_state:
  description: PVE's state of the pending vnet, V(new), V(changed) or V(deleted); null when nothing is pending.
  returned: success
  type: str
  sample: changed
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_vnet import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
