#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: sdn_controller
short_description: Declare a Proxmox VE SDN controller (staged until an SDN apply)
version_added: 0.2.0
description:
  - Creates, repairs or removes one SDN controller, a section of C(/etc/pve/sdn/controllers.cfg)
    (C(/cluster/sdn/controllers/{controller})), the BGP speaker an EVPN zone routes with, or a node's BGP or
    IS-IS underlay.
  - Every write is B(staged), like a zone's. Nothing is live on any node until M(homeflare.proxmox.sdn_apply) runs;
    RV(pending) and RV(pending_state) say whether the controller still waits for that apply.
  - O(type) decides which options the controller takes (pve-network 9's controller plugins). V(evpn) takes O(asn)
    (needed) and O(peers) or O(fabric) (exactly one); V(bgp) O(node), O(asn) and O(peers) (all needed), O(ebgp),
    O(ebgp_multihop), O(bgp_multipath_as_path_relax) and O(loopback); V(isis) O(node), O(isis_domain), O(isis_net)
    and O(isis_ifaces) (all needed) and O(loopback).
  - The options a type needs are compared when declared and never cleared. The others mean PVE's default when
    undeclared (PVE then keeps no key), so a value set by hand is reported as drift and cleared with C(delete=). An
    evpn controller moved from O(peers) to O(fabric) (or back) has the other cleared in the same write.
  - An option the type does not take, a missing option it needs, both or neither of O(peers) and O(fabric) on an
    evpn controller, and a value outside PVE's format are refused before any request, naming the option.
  - A O(fabric) must exist (C(GET /cluster/sdn/fabrics/all)) or be declared in the same
    M(homeflare.proxmox.declare) task; otherwise the write is refused before any request (PVE would take it and
    fail at the apply).
  - PVE allows one evpn controller per cluster, and one bgp (and one isis) controller per node; a second one is
    refused by PVE, and the run fails with its message.
  - O(type) is fixed once created (PVE's update takes no type). A controller of another type is refused, naming the
    field, and nothing is written.
  - PVE refuses to remove an evpn controller a zone still names; remove the zone first (M(homeflare.proxmox.sdn_zone)
    with O(state=absent)). M(homeflare.proxmox.declare) orders this itself.
  - The controller is read with the write credential (PVE wants C(SDN.Allocate) on C(/sdn/controllers/{controller})
    to read it). Each update carries the digest of the staged file it was judged on; when another writer changed
    the file in between, the object is read and judged again once.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  controller:
    description: The controller id (wire name C(controller)), a letter, then letters, digits, V(_) or V(-), ending
      in a letter or digit, at most 64 characters.
    type: str
    required: true
  type:
    description:
      - The controller type, which decides the options it takes. Required with O(state=present); fixed once created.
      - V(faucet) is PVE's but not managed by this module; it is refused before any request.
    type: str
    choices: [bgp, evpn, faucet, isis]
  asn:
    description:
      - V(evpn) and V(bgp), which need it. The local autonomous system number, 0 to 4294967295.
      - Compared when declared; never cleared.
    type: int
  peers:
    description:
      - V(bgp), which needs it, and V(evpn) (or O(fabric)). The BGP peers' IP addresses, compared order-free.
      - On an evpn controller undeclared means none, so peers set by hand beside a O(fabric) are cleared with
        C(delete=peers).
    type: list
    elements: str
  fabric:
    description:
      - V(evpn) (or O(peers)). The SDN fabric (C(/cluster/sdn/fabrics)) whose nodes are the BGP peers.
      - Undeclared means none; a value set by hand beside O(peers) is cleared with C(delete=fabric).
    type: str
  node:
    description:
      - V(bgp) and V(isis), which need it. The node the controller runs on.
      - Compared when declared; never cleared.
    type: str
  ebgp:
    description:
      - V(bgp). Whether the peers are external (C(remote-as external)).
      - Undeclared means PVE's default, off; set by hand, it is cleared with C(delete=ebgp).
    type: bool
  ebgp_multihop:
    description:
      - V(bgp). The most hops to an eBGP peer (wire name C(ebgp-multihop)); needs O(ebgp).
      - Undeclared means PVE's default (none); a value set by hand is cleared with C(delete=ebgp-multihop).
    type: int
  bgp_multipath_as_path_relax:
    description:
      - V(bgp). Whether paths through different AS paths of equal length count for multipath (wire name
        C(bgp-multipath-as-path-relax)).
      - Undeclared means PVE's default, off; set by hand, it is cleared with C(delete=bgp-multipath-as-path-relax).
    type: bool
  loopback:
    description:
      - V(bgp) and V(isis). The loopback or dummy interface whose address is the router id.
      - Undeclared means none; a value set by hand is cleared with C(delete=loopback).
    type: str
  isis_domain:
    description:
      - V(isis), which needs it. The IS-IS domain name (wire name C(isis-domain)).
      - Compared when declared; never cleared.
    type: str
  isis_net:
    description:
      - V(isis), which needs it. The node's network entity title (wire name C(isis-net)), such as
        V(49.0001.1921.6800.1001.00); compared case-insensitively.
      - Compared when declared; never cleared.
    type: str
  isis_ifaces:
    description:
      - V(isis), which needs it. The interfaces IS-IS runs on (wire name C(isis-ifaces)), compared order-free.
      - Compared when declared; never cleared.
    type: list
    elements: str
seealso:
  - module: homeflare.proxmox.sdn_zone
  - module: homeflare.proxmox.sdn_apply
'''

EXAMPLES = r'''
- name: An EVPN controller and a zone routed by it, then make them live
  module_defaults:
    group/homeflare.proxmox.proxmox:
      api_host: [pve1.example.org, pve2.example.org, pve3.example.org]
      api_token_id: "automation@pve!ansible"
      api_token_secret: "{{ vault_pve_token_secret }}"
  block:
    - name: The cluster's EVPN controller, peering with every node (staged)
      homeflare.proxmox.sdn_controller:
        controller: evpn1
        type: evpn
        asn: 65000
        peers: [10.0.0.1, 10.0.0.2, 10.0.0.3]

    - name: An EVPN zone routed by it (staged)
      homeflare.proxmox.sdn_zone:
        zone: tenants
        type: evpn
        controller: evpn1
        vrf_vxlan: 10000
        exitnodes: [pve1]

    - name: Make the staged SDN configuration live
      homeflare.proxmox.sdn_apply:

- name: A BGP controller on pve1 towards the upstream router
  homeflare.proxmox.sdn_controller:
    controller: bgppve1
    type: bgp
    node: pve1
    asn: 65000
    peers: [192.0.2.1]
    ebgp: true
'''

RETURN = r'''
object:
  description:
    - The controller's managed fields as read after the run (empty when absent). This is the staged configuration,
      which is not live until the SDN apply.
  returned: always
  type: dict
  sample: {"controller": "evpn1", "type": "evpn", "asn": 65000, "peers": ["10.0.0.1", "10.0.0.2"], "fabric": ""}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["peers"]}
pending:
  description: Whether the controller differs from the running SDN configuration, that is, waits for
    M(homeflare.proxmox.sdn_apply).
  returned: success
  type: bool
  sample: true
pending_state:
  description: PVE's state of the pending controller, V(new), V(changed) or V(deleted); null when nothing is pending.
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
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_controller import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
