#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: sdn_fabric_node
short_description: Declare a node of a Proxmox VE 9 SDN fabric (staged until an SDN apply)
version_added: 0.2.0
description:
  - Creates, repairs or removes one node of an SDN fabric (C(/cluster/sdn/fabrics/node/{fabric_id}/{node_id})) - its
    address in the fabric and the interfaces it routes over.
  - Every write is B(staged). Nothing is live on any node until M(homeflare.proxmox.sdn_apply) runs; RV(pending) and
    RV(pending_state) say whether the node still waits for that apply.
  - The node takes its fabric's protocol (openfabric or ospf), which is read from the fabric; there is no option
    for it.
  - The fabric must exist (in the staged configuration) or be declared present in the same
    M(homeflare.proxmox.declare); otherwise the node is refused before any request.
  - PVE checks the whole fabric configuration on every write - the address inside the fabric's prefix, unique in
    the fabric, an interface of a node in one fabric only; an ospf node needs an IPv4 address and takes no IPv6
    one - and refuses a write that breaks a rule.
  - Undeclared, O(ip), O(ip6) and O(interfaces) mean none; a value set by hand is cleared with C(delete=).
  - Privileges - C(SDN.Audit) (or C(SDN.Allocate)) on C(/sdn/fabrics/{fabric}) and C(Sys.Audit) (or C(Sys.Modify))
    on C(/nodes/{node}) to read; C(SDN.Allocate) and C(Sys.Modify) on the same paths to write.
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
  fabric:
    description:
      - The fabric's id (wire name C(fabric_id)).
    type: str
    required: true
  node:
    description:
      - The cluster node's name (wire name C(node_id)).
    type: str
    required: true
  ip:
    description:
      - The node's IPv4 address in the fabric (its router id), inside the fabric's
        O(homeflare.proxmox.sdn_fabric#module:ip_prefix).
      - Undeclared means none; cleared with C(delete=ip).
    type: str
    default: ''
  ip6:
    description:
      - The node's IPv6 address in the fabric (openfabric only), inside the fabric's IPv6 prefix.
      - Undeclared means none; cleared with C(delete=ip6).
    type: str
    default: ''
  interfaces:
    description:
      - The interfaces the node routes the fabric over, an order-free set. Each is a property string
        (V(name=ens19,hello_multiplier=3)) or a mapping with the same keys - C(name) (required), C(hello_multiplier)
        (openfabric, 2 to 100), C(ip) (an IPv4 address with its prefix length, V(10.0.1.1/31)) and C(ip6)
        (openfabric). An interface without an address is unnumbered (point-to-point).
      - Undeclared means none; cleared with C(delete=interfaces).
    type: list
    elements: raw
    default: []
seealso:
  - module: homeflare.proxmox.sdn_fabric
  - module: homeflare.proxmox.sdn_apply
'''

EXAMPLES = r'''
- name: pve1 in the openfabric underlay, over two point-to-point links (staged)
  homeflare.proxmox.sdn_fabric_node:
    fabric: under1
    node: pve1
    ip: 10.255.0.1
    interfaces:
      - name=ens19
      - name: ens20
        hello_multiplier: 3

- name: Make it live
  homeflare.proxmox.sdn_apply:
'''

RETURN = r'''
object:
  description:
    - The node's managed fields as read after the run (empty when absent). This is the staged configuration, which
      is not live until the SDN apply. Interfaces are given as PVE writes them back, C(name) first.
  returned: always
  type: dict
  sample: {"fabric": "under1", "node": "pve1", "ip": "10.255.0.1", "ip6": "",
           "interfaces": ["name=ens19", "name=ens20,hello_multiplier=3"]}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["interfaces"]}
pending:
  description:
    - Whether the node differs from the running SDN configuration, that is, waits for
      M(homeflare.proxmox.sdn_apply).
  returned: success
  type: bool
  sample: true
pending_state:
  description: PVE's state of the pending node, V(new), V(changed) or V(deleted); null when nothing is pending.
  returned: success
  type: str
  sample: new
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_fabric_node import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
