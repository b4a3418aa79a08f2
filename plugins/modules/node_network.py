#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: node_network
short_description: Declare a network interface of a Proxmox VE node (staged until a network apply)
version_added: 0.2.0
description:
  - Creates, repairs or removes one network interface of one node (C(/nodes/{node}/network/{iface})).
  - Every write is B(staged) in the node's C(/etc/network/interfaces.new); nothing is live until
    M(homeflare.proxmox.network_apply) runs for that node.
  - Once anything is staged, PVE's reads answer from the staged file, so "no change" means the staged file says
    what the task says, not that the node runs it. Files in C(/etc/network/interfaces.d/) are not read by PVE;
    what they set up is invisible (their ports read as ports without an address).
  - Only PVE's HTTP 400 whose parameter error for C(iface) is C(interface does not exist) means the interface is
    absent. Any other answer (another 400, a 500, a lost connection) fails the task; none leads to a create.
  - O(type) decides which options the interface takes. Every type takes O(cidr), O(cidr6), O(gateway),
    O(gateway6), O(autostart), O(mtu), O(comments) and O(comments6); V(bridge) adds O(bridge_ports), O(bridge_vids)
    and O(bridge_vlan_aware); V(bond) O(slaves) (needed), O(bond_mode), O(bond_xmit_hash_policy) and
    O(bond_primary); V(vlan) O(vlan_id) and O(vlan_raw_device). An option the type does not take, or a missing
    option it needs, is refused before any request, naming it. So is a value outside PVE's format.
  - O(type) is sent with every write (PVE's update needs it) and never changed. A live interface of another type is
    refused, naming the field, and nothing is written; an interface is never retyped.
  - O(cidr) has no unmanaged mode - undeclared, it means an interface without an IPv4 address (method C(manual)),
    and an address found is cleared with C(delete=cidr). Declare it on every interface that has one, above all the
    bridge the node is reached through.
  - Every other option is unmanaged when undeclared (neither sent nor compared). A declared empty value (V('') or
    V([])) is cleared with C(delete=); O(bridge_vlan_aware=false) is written as C(delete=bridge_vlan_aware), never
    as V(0).
  - A vlan interface is named C(<device>.<tag>) (V(eno1.10), V(bond0.20)), from which PVE takes its device and tag.
    A name that does not say them (V(vlan10)) needs O(vlan_raw_device); without it the task is refused before any
    request.
  - Removing an interface (O(state=absent)) needs O(confirm_removal=true); once applied, it can cut the node off.
    PVE does no in-use check. The removal is staged, so until the apply it can be discarded
    (M(homeflare.proxmox.network_apply) with C(revert=true)).
  - Privileges, on C(/nodes/{node}) - C(Sys.Audit) to read, C(Sys.Modify) to write (which also lets the credential
    change the node's DNS, hosts, time and services).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  node:
    description: The node the interface is on. Part of the identity.
    type: str
    required: true
  iface:
    description:
      - The interface name (wire name C(iface)), 2 to 20 characters - a letter, then letters, digits or C(_),
        optionally C(.<tag>) (a vlan) or C(:<n>). Part of the identity.
    type: str
    required: true
  type:
    description:
      - The interface type, which decides the options it takes. Required with O(state=present); sent with every
        write, never changed (a live interface of another type is refused).
      - This module manages V(eth) (a physical port), V(bridge), V(bond) and V(vlan); the other types PVE knows are
        refused before any request.
    type: str
    choices: [bridge, bond, eth, alias, vlan, fabric, OVSBridge, OVSBond, OVSPort, OVSIntPort, vnet, unknown]
  cidr:
    description:
      - Every type. The IPv4 address with its mask, such as V(192.0.2.11/24).
      - No unmanaged mode - undeclared means no IPv4 address (method C(manual)), and an address found is cleared with
        C(delete=cidr).
    type: str
    default: ''
  cidr6:
    description:
      - Every type. The IPv6 address with its mask, such as V(2001:db8::11/64).
      - Like O(cidr), no unmanaged mode - PVE drops an interface's IPv6 configuration on any update that does
        not send C(cidr6), so it is sent with every write, and undeclared means none (a live one is drift, cleared
        with C(delete=cidr6)).
    type: str
    default: ''
  gateway:
    description:
      - Every type. The IPv4 default gateway. Needs O(cidr) (PVE keeps a gateway only on an interface with an address);
        PVE refuses a second IPv4 gateway on the node.
      - Undeclared, unmanaged; V('') clears it (C(delete=gateway)).
    type: str
  gateway6:
    description:
      - Every type. The IPv6 default gateway.
      - Undeclared, unmanaged; V('') clears it (C(delete=gateway6)).
    type: str
  autostart:
    description:
      - Every type. Whether the interface is brought up at boot (C(auto <iface>)).
      - Undeclared, unmanaged on an existing interface and off on a new one (PVE's default), so declare V(true) for
        an interface that must come up at boot.
    type: bool
  mtu:
    description:
      - Every type. The MTU, 1280 to 65520.
      - Undeclared, unmanaged.
    type: int
  comments:
    description:
      - Every type. The comment of the interface's IPv4 section (PVE keeps it as C(#) lines), compared without
        leading and trailing white space.
      - Undeclared, unmanaged; V('') clears it (C(delete=comments)).
    type: str
  comments6:
    description:
      - Every type. The comment of the interface's IPv6 section, compared without leading and trailing white space.
      - Undeclared, unmanaged; V('') clears it (C(delete=comments6)).
    type: str
  bridge_ports:
    description:
      - V(bridge). The bridge's ports, such as V([bond0]); compared order-free, written space-separated.
      - Undeclared, unmanaged; V([]) leaves the bridge without ports (C(delete=bridge_ports)).
    type: list
    elements: str
  bridge_vids:
    description:
      - V(bridge). The VLAN tags a VLAN-aware bridge carries, tags or ranges such as V(2-4094), each 2 to 4094;
        compared order-free, written space-separated.
      - Undeclared, unmanaged; V([]) clears them (C(delete=bridge_vids)).
    type: list
    elements: str
  bridge_vlan_aware:
    description:
      - V(bridge). Whether the bridge is VLAN-aware.
      - Undeclared, unmanaged; V(false) is written as C(delete=bridge_vlan_aware) (PVE would keep a V(0) line).
    type: bool
  slaves:
    description:
      - V(bond), which needs it. The bond's member interfaces (wire name C(slaves) both ways, not C(bond_slaves));
        compared order-free, written space-separated.
    type: list
    elements: str
  bond_mode:
    description:
      - V(bond). The bonding mode (V(balance-slb) and the V(lacp-*) modes are Open vSwitch's).
      - Undeclared, unmanaged; V('') clears it (C(delete=bond_mode)).
    type: str
    choices: [balance-rr, active-backup, balance-xor, broadcast, 802.3ad, balance-tlb, balance-alb, balance-slb,
              lacp-balance-slb, lacp-balance-tcp]
  bond_xmit_hash_policy:
    description:
      - V(bond). The transmit hash policy of the V(balance-xor) and V(802.3ad) modes.
      - Undeclared, unmanaged; V('') clears it (C(delete=bond_xmit_hash_policy)).
    type: str
    choices: [layer2, layer2+3, layer3+4]
  bond_primary:
    description:
      - V(bond). The primary member of an V(active-backup) bond (wire name C(bond-primary)).
      - Undeclared, unmanaged; V('') clears it (C(delete=bond-primary)).
    type: str
  vlan_id:
    description:
      - V(vlan). The VLAN tag, 1 to 4094 (wire name C(vlan-id)); PVE takes it from a C(<device>.<tag>) name.
      - Undeclared, unmanaged.
    type: int
  vlan_raw_device:
    description:
      - V(vlan). The device the VLAN rides on (wire name C(vlan-raw-device)); PVE takes it from a C(<device>.<tag>)
        name, and any other name needs it.
      - Undeclared, unmanaged.
    type: str
  confirm_removal:
    description: Must be V(true) with O(state=absent); once applied, removing an interface can cut the node off.
    type: bool
    default: false
seealso:
  - module: homeflare.proxmox.network_apply
'''

EXAMPLES = r'''
- name: A bond of two ports under a VLAN-aware bridge on pve1, then applied
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
        bond_xmit_hash_policy: layer3+4
        autostart: true

    - name: VLAN-aware bridge on the bond (staged)
      homeflare.proxmox.node_network:
        node: pve1
        iface: vmbr1
        type: bridge
        bridge_ports: [bond0]
        bridge_vlan_aware: true
        bridge_vids: [2-4094]
        autostart: true
        comments: Guest trunk

    - name: Storage VLAN 30 on the bond, with an address (staged)
      homeflare.proxmox.node_network:
        node: pve1
        iface: bond0.30
        type: vlan
        cidr: 10.0.30.11/24
        autostart: true

    # `ansible-playbook site.yml --check --diff` shows the staged line count and writes nothing.
    - name: Make pve1's staged interfaces live (no call when nothing is staged)
      homeflare.proxmox.network_apply:
        node: pve1

- name: Remove an unused bridge (staged until the apply)
  module_defaults:
    group/homeflare.proxmox.proxmox:
      api_host: [pve1.example.org, pve2.example.org, pve3.example.org]
  homeflare.proxmox.node_network:
    node: pve1
    iface: vmbr9
    state: absent
    confirm_removal: true
'''

RETURN = r'''
object:
  description:
    - The interface's managed fields as read after the run (empty when absent). Once anything is staged on the node
      this is the staged file, which is not live until the network apply.
  returned: always
  type: dict
  sample: {"node": "pve1", "iface": "vmbr1", "type": "bridge", "cidr": "", "bridge_ports": ["bond0"],
           "bridge_vlan_aware": true, "bridge_vids": ["2-4094"], "autostart": true, "comments": "Guest trunk"}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["bridge_ports"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.node_network import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
