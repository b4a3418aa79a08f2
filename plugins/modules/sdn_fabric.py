#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: sdn_fabric
short_description: Declare a Proxmox VE 9 SDN fabric, openfabric or ospf (staged until an SDN apply)
version_added: 0.2.0
description:
  - Creates, repairs or removes one SDN fabric of C(/etc/pve/sdn/fabrics.cfg) (C(/cluster/sdn/fabrics/fabric/{id})),
    PVE 9's routed underlay between nodes. Its nodes, their addresses and interfaces are
    M(homeflare.proxmox.sdn_fabric_node) objects.
  - Every write is B(staged). Nothing is live on any node until M(homeflare.proxmox.sdn_apply) runs; RV(pending) and
    RV(pending_state) say whether the fabric still waits for that apply.
  - PVE checks the whole fabric configuration on every write (proxmox-ve-config's FabricConfig validation) - for
    example that every node's address lies inside the fabric's prefix, that prefixes of two fabrics do not overlap
    and that two ospf fabrics have different areas - and refuses a write that breaks a rule.
  - O(ip_prefix) and O(ip6_prefix) are compared only when declared (PVE cannot delete them); O(hello_interval) and
    O(csnp_interval) mean PVE's default when undeclared, so a value set by hand is cleared with C(delete=).
  - Privileges - C(SDN.Audit) (or C(SDN.Allocate)) on C(/sdn/fabrics/{id}) to read, C(SDN.Allocate) on
    C(/sdn/fabrics) to create, on C(/sdn/fabrics/{id}) to change or remove. A removal also needs C(Sys.Modify) on
    every node of the fabric, and PVE refuses it while a vxlan zone or an EVPN controller names the fabric.
  - A removal (O(state=absent)) takes the fabric's nodes with it; it is staged as well.
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
  id:
    description:
      - The fabric id, 1 to 8 letters, digits and inner C(-) (PVE's C(pve-sdn-fabric-id)).
    type: str
    required: true
  protocol:
    description:
      - The routing protocol; required with O(state=present). A fabric is never re-typed (another protocol is
        refused before any request).
      - V(openfabric) takes O(hello_interval) and O(csnp_interval); V(ospf) takes O(area).
    type: str
    choices: [openfabric, ospf]
  ip_prefix:
    description:
      - The IPv4 network the nodes' addresses come from (wire name C(ip_prefix)), such as V(10.0.0.0/24). Declared
        without host bits (PVE keeps only the network). An ospf fabric needs it; an openfabric one needs it or
        O(ip6_prefix).
      - Compared only when declared.
    type: str
  ip6_prefix:
    description:
      - The IPv6 network the nodes' IPv6 addresses come from (openfabric only; PVE's ospf is IPv4 only).
      - Compared only when declared.
    type: str
  hello_interval:
    description:
      - Openfabric's hello interval in seconds, 1 to 600, given to every interface of every node.
      - Undeclared means FRR's default (no key); a value set by hand is cleared with C(delete=hello_interval).
    type: int
  csnp_interval:
    description:
      - Openfabric's CSNP interval in seconds, 1 to 600.
      - Undeclared means FRR's default (no key); a value set by hand is cleared with C(delete=csnp_interval).
    type: int
  area:
    description:
      - The OSPF area, a number (V(0)) or an IPv4 address (V(0.0.0.0)), kept as written; required for V(ospf).
        Two ospf fabrics cannot share an area (V(1) and V(0.0.0.1) are the same area).
    type: str
seealso:
  - module: homeflare.proxmox.sdn_fabric_node
  - module: homeflare.proxmox.sdn_apply
  - module: homeflare.proxmox.sdn_zone
'''

EXAMPLES = r'''
- name: An openfabric underlay between three nodes, then make it live
  module_defaults:
    group/homeflare.proxmox.proxmox:
      api_host: [pve1.example.org, pve2.example.org, pve3.example.org]
      api_token_id: "automation@pve!ansible"
      api_token_secret: "{{ vault_pve_token_secret }}"
  block:
    - name: The fabric and its prefix (staged)
      homeflare.proxmox.sdn_fabric:
        id: under1
        protocol: openfabric
        ip_prefix: 10.255.0.0/24
        hello_interval: 3

    - name: Each node with its loopback address and its fabric interfaces (staged)
      homeflare.proxmox.sdn_fabric_node:
        fabric: under1
        node: "{{ item.node }}"
        ip: "{{ item.ip }}"
        interfaces: [name=ens19, name=ens20]
      loop:
        - {node: pve1, ip: 10.255.0.1}
        - {node: pve2, ip: 10.255.0.2}
        - {node: pve3, ip: 10.255.0.3}

    - name: Make the staged SDN configuration live on every node
      homeflare.proxmox.sdn_apply:

- name: An ospf fabric in area 0
  homeflare.proxmox.sdn_fabric:
    id: ospf1
    protocol: ospf
    area: "0"
    ip_prefix: 10.254.0.0/24
'''

RETURN = r'''
object:
  description:
    - The fabric's managed fields as read after the run (empty when absent). This is the staged configuration, which
      is not live until the SDN apply.
  returned: always
  type: dict
  sample: {"id": "under1", "protocol": "openfabric", "ip_prefix": "10.255.0.0/24", "hello_interval": 3,
           "csnp_interval": null}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["hello_interval"]}
pending:
  description:
    - Whether the fabric differs from the running SDN configuration, that is, waits for
      M(homeflare.proxmox.sdn_apply).
  returned: success
  type: bool
  sample: true
pending_state:
  description: PVE's state of the pending fabric, V(new), V(changed) or V(deleted); null when nothing is pending.
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
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_fabric import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
