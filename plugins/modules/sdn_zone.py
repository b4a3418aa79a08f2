#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: sdn_zone
short_description: Declare a Proxmox VE SDN zone (staged until an SDN apply)
version_added: 0.2.0
description:
  - Creates, repairs or removes one SDN zone, a section of C(/etc/pve/sdn/zones.cfg) (C(/cluster/sdn/zones/{zone})).
  - Every write is B(staged). A create, an update or a removal changes PVE's pending SDN configuration only;
    nothing is live on any node until M(homeflare.proxmox.sdn_apply) runs. RV(pending) and RV(pending_state) say
    whether the zone still waits for that apply.
  - Every option the zone's type takes means PVE's default when undeclared (PVE then keeps no key), so a value set
    by hand is reported as drift and cleared with C(delete=) (an integer cannot be cleared with an empty value).
    The exceptions are the options a type needs (O(bridge), O(tag), O(controller), O(vrf_vxlan)), which
    are compared when declared and never cleared, and O(mac), which is compared only when declared.
  - O(type) decides which options the zone takes (pve-network 9's zone plugins). Every type takes O(nodes),
    O(mtu), O(dns), O(reversedns), O(dnszone) and O(ipam); V(simple) adds O(dhcp); V(vlan) O(bridge) (needed) and
    O(bridge_disable_mac_learning); V(qinq) O(bridge) and O(tag) (both needed), O(bridge_disable_mac_learning) and
    O(vlan_protocol); V(vxlan) O(peers) or O(fabric) (exactly one) and O(vxlan_port); V(evpn) O(controller) and
    O(vrf_vxlan) (both needed), O(mac), O(exitnodes), O(exitnodes_primary), O(exitnodes_local_routing),
    O(advertise_subnets), O(disable_arp_nd_suppression), O(rt_import), O(bridge_disable_mac_learning) and
    O(vxlan_port).
  - What the zone names is checked before any request. Its O(controller), O(ipam) (other than the built-in
    V(pve)), O(dns), O(reversedns) and O(fabric) must exist (the staged controllers, the IPAMs, the DNS servers,
    C(GET /cluster/sdn/fabrics/all)) or be declared present in the same M(homeflare.proxmox.declare) task. A name
    that is neither is refused naming the option, and nothing is written (a single task's check mode only warns,
    an earlier task of the play may create it). Only a value the write changes is judged.
  - An option the type does not take, a missing option it needs, both or neither of O(peers) and O(fabric) on a
    vxlan zone, and O(dnszone) without O(dns) are refused before any request, naming the option,
    rather than sent for PVE to refuse or drop. So is a value outside PVE's format (zone id, node names, DNS
    names, peer addresses, MAC address, ranges).
  - O(type) is fixed once created (PVE's update takes no type). A zone of another type is refused, naming the
    field, and nothing is written; a zone is never retyped, nor removed and created again.
  - The zone is read with the write credential. PVE wants C(SDN.Allocate) on C(/sdn/zones/{zone}) even to read
    it (its list takes C(SDN.Audit) but leaves out what the reader may not allocate); writes need C(SDN.Allocate)
    there too.
  - A removal (O(state=absent)) is staged as well; the zone keeps running until the apply. PVE refuses to remove a
    zone that still holds vnets; remove them first (M(homeflare.proxmox.sdn_vnet) with O(state=absent)).
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
  zone:
    description: The zone id (wire name C(zone)), a letter, then letters and digits, at most 8 characters.
    type: str
    required: true
  type:
    description:
      - The zone type, which decides the options the zone takes. Required with O(state=present); fixed once created.
      - V(faucet) is PVE's but not managed by this module; it is refused before any request.
    type: str
    choices: [evpn, faucet, qinq, simple, vlan, vxlan]
  nodes:
    description:
      - Every type. The nodes the zone is deployed on, compared order-free.
      - Undeclared or V([]) means every node (no key); a list set by hand is cleared with C(delete=nodes).
    type: list
    elements: str
    default: []
  mtu:
    description:
      - Every type. The MTU of the zone's vnets.
      - Undeclared means PVE's default (no key); a value set by hand is cleared with C(delete=mtu).
    type: int
  dns:
    description:
      - Every type. The DNS plugin (M(homeflare.proxmox.sdn_dns)) that registers the guests' names.
      - Undeclared means none; a value set by hand is cleared with C(delete=dns).
    type: str
    default: ''
  reversedns:
    description:
      - Every type. The DNS plugin (M(homeflare.proxmox.sdn_dns)) that registers the reverse entries.
      - Undeclared means none; a value set by hand is cleared with C(delete=reversedns).
    type: str
    default: ''
  dnszone:
    description:
      - Every type. The DNS domain the guests' names are registered in, such as V(lab.example.org).
      - Undeclared means none; a value set by hand is cleared with C(delete=dnszone).
    type: str
    default: ''
  ipam:
    description:
      - Every type. The IPAM plugin (M(homeflare.proxmox.sdn_ipam)) that allocates the subnets' addresses.
      - Undeclared means PVE's built-in V(pve). A zone with no C(ipam) key reads as V(pve), so declaring V(pve) on
        it is no change; another value set by hand is repaired by writing C(ipam=pve).
    type: str
    default: pve
  dhcp:
    description:
      - V(simple). Automatic DHCP for the zone's subnets, served by V(dnsmasq).
      - Undeclared means none; a value set by hand is cleared with C(delete=dhcp).
    type: str
    choices: [dnsmasq]
  bridge:
    description:
      - V(vlan) and V(qinq), which need it. The local bridge (or OVS switch) the zone's VLANs ride on, such as
        V(vmbr0).
      - Compared when declared; never cleared.
    type: str
  bridge_disable_mac_learning:
    description:
      - V(vlan) and V(qinq). Whether MAC learning is disabled on the bridge (wire name C(bridge-disable-mac-learning)).
      - Undeclared means PVE's default, off; set by hand, it is cleared with C(delete=bridge-disable-mac-learning).
    type: bool
  tag:
    description:
      - V(qinq), which needs it. The service VLAN tag; V(0) is a real tag (an untagged service VLAN), not "unset".
      - Compared when declared; never cleared.
    type: int
  vlan_protocol:
    description:
      - V(qinq). The service VLAN's protocol (wire name C(vlan-protocol)).
      - Undeclared means PVE's default, V(802.1q), which a zone with no key reads as; another value set by hand is
        cleared with C(delete=vlan-protocol).
    type: str
    choices: ['802.1q', '802.1ad']
  peers:
    description:
      - V(vxlan), which needs it or O(fabric). The IP addresses of every node's VXLAN endpoint, compared order-free.
      - Undeclared (a zone over a O(fabric)) means none, so peers left from before are cleared with C(delete=peers)
        in the same write that sets the fabric.
    type: list
    elements: str
  fabric:
    description:
      - V(vxlan), which needs it or O(peers). The SDN fabric (C(/cluster/sdn/fabrics)) whose nodes' addresses carry
        the VXLAN tunnels. It must exist or be declared in the same M(homeflare.proxmox.declare) task.
      - Undeclared (a zone with O(peers)) means none; a value set by hand is cleared with C(delete=fabric).
    type: str
  vxlan_port:
    description:
      - V(vxlan) and V(evpn). The VXLAN UDP port (wire name C(vxlan-port)), 1 to 65536.
      - Undeclared means PVE's default, V(4789), which a zone with no key reads as; another value set by hand is
        cleared with C(delete=vxlan-port).
    type: int
  controller:
    description:
      - V(evpn), which needs it. The EVPN controller (C(/cluster/sdn/controllers), M(homeflare.proxmox.sdn_controller))
        that routes the zone, of type V(evpn). It must exist or be declared in the same M(homeflare.proxmox.declare)
        task.
      - Compared when declared; never cleared.
    type: str
  vrf_vxlan:
    description:
      - V(evpn), which needs it. The VNI of the zone's VRF (wire name C(vrf-vxlan)), 1 to 16777215.
      - Compared when declared; never cleared.
    type: int
  mac:
    description:
      - V(evpn). The anycast MAC address of the zone's gateways, a unicast address.
      - PVE generates one when none is given, so it is compared (lower-cased) only when declared; undeclared, it is
        unmanaged.
    type: str
  exitnodes:
    description:
      - V(evpn). The nodes that route between the zone and the outside, compared order-free.
      - Undeclared or V([]) means none; a list set by hand is cleared with C(delete=exitnodes).
    type: list
    elements: str
  exitnodes_primary:
    description:
      - V(evpn). The exit node preferred for outgoing traffic (wire name C(exitnodes-primary)).
      - Undeclared means none; a value set by hand is cleared with C(delete=exitnodes-primary).
    type: str
  exitnodes_local_routing:
    description:
      - V(evpn). Whether the exit nodes route locally too (wire name C(exitnodes-local-routing)).
      - Undeclared means PVE's default, off; set by hand, it is cleared with C(delete=exitnodes-local-routing).
    type: bool
  advertise_subnets:
    description:
      - V(evpn). Whether the zone's subnets are announced as routes (wire name C(advertise-subnets)).
      - Undeclared means PVE's default, off; set by hand, it is cleared with C(delete=advertise-subnets).
    type: bool
  disable_arp_nd_suppression:
    description:
      - V(evpn). Whether ARP and neighbour discovery suppression is disabled (wire name C(disable-arp-nd-suppression)).
      - Undeclared means PVE's default, off; set by hand, it is cleared with C(delete=disable-arp-nd-suppression).
    type: bool
  rt_import:
    description:
      - V(evpn). Route targets imported into the zone's VRF besides its own (wire name C(rt-import)), each
        C(<asn>:<number>) such as V(65000:100), compared order-free.
      - Undeclared or V([]) means none; a list set by hand is cleared with C(delete=rt-import).
    type: list
    elements: str
seealso:
  - module: homeflare.proxmox.sdn_vnet
  - module: homeflare.proxmox.sdn_subnet
  - module: homeflare.proxmox.sdn_controller
  - module: homeflare.proxmox.sdn_ipam
  - module: homeflare.proxmox.sdn_dns
  - module: homeflare.proxmox.sdn_apply
'''

EXAMPLES = r'''
- name: Declare the lab network on vmbr0, then make it live
  module_defaults:
    group/homeflare.proxmox.proxmox:
      api_host: [pve1.example.org, pve2.example.org, pve3.example.org]
      api_token_id: "automation@pve!ansible"
      api_token_secret: "{{ vault_pve_token_secret }}"
  block:
    - name: A VLAN zone on the nodes' bridge vmbr0 (staged)
      homeflare.proxmox.sdn_zone:
        zone: lab
        type: vlan
        bridge: vmbr0
        mtu: 1500

    - name: A vnet for VLAN 10 in it (staged)
      homeflare.proxmox.sdn_vnet:
        vnet: lab10
        zone: lab
        tag: 10
        alias: Lab servers

    - name: Its subnet (staged)
      homeflare.proxmox.sdn_subnet:
        vnet: lab10
        subnet: 10.0.10.0/24
        gateway: 10.0.10.1

    - name: Make the staged SDN configuration live on every node (no call when nothing is staged)
      homeflare.proxmox.sdn_apply:

- name: Remove a zone whose vnets are gone (staged, then applied)
  module_defaults:
    group/homeflare.proxmox.proxmox:
      api_host: [pve1.example.org, pve2.example.org]
  block:
    - name: Remove the old zone
      homeflare.proxmox.sdn_zone:
        zone: old
        state: absent

    - name: Apply
      homeflare.proxmox.sdn_apply:
'''

RETURN = r'''
object:
  description:
    - The zone's managed fields as read after the run (empty when absent). This is the staged configuration,
      which is not live until the SDN apply.
  returned: always
  type: dict
  sample: {"zone": "lab", "type": "vlan", "bridge": "vmbr0", "mtu": 1500, "nodes": [], "ipam": "pve"}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["mtu"]}
pending:
  description:
    - Whether the zone differs from the running SDN configuration, that is, waits for M(homeflare.proxmox.sdn_apply)
      (its own change, or an earlier one not applied yet).
  returned: success
  type: bool
  sample: true
pending_state:
  description: PVE's state of the pending zone, V(new), V(changed) or V(deleted); null when nothing is pending.
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
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_zone import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
