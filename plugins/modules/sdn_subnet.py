#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: sdn_subnet
short_description: Declare a Proxmox VE SDN subnet of a vnet (staged until an SDN apply)
version_added: 0.2.0
description:
  - Creates, repairs or removes one subnet of an SDN vnet, a section of C(/etc/pve/sdn/subnets.cfg).
  - Every write is B(staged). A create, an update or a removal changes PVE's pending SDN configuration only;
    nothing is live on any node until M(homeflare.proxmox.sdn_apply) runs. RV(pending) and RV(pending_state) say
    whether the subnet still waits for that apply.
  - A subnet is created with its network (C(POST /cluster/sdn/vnets/{vnet}/subnets) with C(subnet=10.0.10.0/24))
    but read, changed and removed under the id C(<zone>-<network>-<mask>) (C(lab-10.0.10.0-24)), the zone being its
    vnet's. So the vnet is read first; when the vnet does not exist, neither does the subnet.
  - A subnet with that id under another vnet (PVE answers C(wrong vnet)) is refused, never taken as absent - a
    create would fail with C(already defined) on every run. Nothing is written. A subnet cannot move between vnets;
    remove it from the other vnet first.
  - Every option means PVE's default when undeclared (no gateway, no SNAT, no DNS prefix, no DHCP), so a value set
    by hand is reported as drift and cleared with C(delete=).
  - O(gateway) must lie inside O(subnet); both are checked before any request.
  - PVE refuses a subnet on a VLAN-aware vnet, and refuses to remove a subnet while its IPAM still holds addresses
    in it (C(not empty)).
  - Privileges, on C(/sdn/zones/{zone}/{vnet}) - C(SDN.Audit) (or C(SDN.Allocate)) to read, C(SDN.Allocate) to write.
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
    description: The vnet the subnet belongs to (a path input; PVE's vnet id rules apply). Part of the identity.
    type: str
    required: true
  subnet:
    description:
      - The network, in CIDR form with a mask of 8 bits or more, such as V(10.0.10.0/24) or V(fd00:10::/64).
      - A network with host bits set (V(10.0.10.1/24)) is refused before any request, naming the network to declare.
      - Part of the identity; compared in PVE's compressed form.
    type: str
    required: true
  gateway:
    description:
      - The subnet's gateway address, inside O(subnet).
      - Undeclared means none; a value set by hand is cleared with C(delete=gateway).
    type: str
    default: ''
  snat:
    description:
      - Whether traffic leaving the subnet is source-NATed to the node's address.
      - Undeclared means PVE's default, off; written as V(1) or V(0).
    type: bool
    default: false
  dnszoneprefix:
    description:
      - A DNS prefix for the guests' names in the zone's DNS domain, such as V(adm) for C(<name>.adm.<dnszone>).
      - Undeclared means none; a value set by hand is cleared with C(delete=dnszoneprefix).
    type: str
    default: ''
  dhcp_dns_server:
    description:
      - The DNS server address DHCP hands out in the subnet (wire name C(dhcp-dns-server)).
      - Undeclared means none; a value set by hand is cleared with C(delete=dhcp-dns-server).
    type: str
    default: ''
  dhcp_range:
    description:
      - The subnet's DHCP ranges (wire name C(dhcp-range)), compared order-free. Each range is a string
        C(start-address=A,end-address=B) or a mapping with the keys C(start-address) and C(end-address) (or
        C(start_address) and C(end_address)); both addresses are checked before any request.
      - Undeclared or V([]) means none; ranges set by hand are cleared with C(delete=dhcp-range).
    type: list
    elements: raw
    default: []
seealso:
  - module: homeflare.proxmox.sdn_zone
  - module: homeflare.proxmox.sdn_vnet
  - module: homeflare.proxmox.sdn_apply
'''

EXAMPLES = r'''
- name: Declare the lab subnets, then make them live
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

    - name: The vnet (staged)
      homeflare.proxmox.sdn_vnet:
        vnet: lab10
        zone: lab
        tag: 10

    - name: Its IPv4 subnet, read back as lab-10.0.10.0-24 (staged)
      homeflare.proxmox.sdn_subnet:
        vnet: lab10
        subnet: 10.0.10.0/24
        gateway: 10.0.10.1
        dhcp_dns_server: 10.0.10.1
        dhcp_range:
          - start-address=10.0.10.100,end-address=10.0.10.199

    - name: Make the staged SDN configuration live on every node
      homeflare.proxmox.sdn_apply:
'''

RETURN = r'''
object:
  description:
    - The subnet's identity and managed fields as read after the run (empty when absent). This is the staged
      configuration, which is not live until the SDN apply.
  returned: always
  type: dict
  sample: {"vnet": "lab10", "subnet": "10.0.10.0/24", "gateway": "10.0.10.1", "snat": false, "dnszoneprefix": "",
           "dhcp_dns_server": "10.0.10.1", "dhcp_range": ["start-address=10.0.10.100,end-address=10.0.10.199"]}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "absent", "action": "create", "changed": ["gateway", "dhcp_dns_server", "dhcp_range"]}
pending:
  description:
    - Whether the subnet differs from the running SDN configuration, that is, waits for
      M(homeflare.proxmox.sdn_apply) (its own change, or an earlier one not applied yet).
  returned: success
  type: bool
  sample: true
pending_state:
  description: PVE's state of the pending subnet, V(new), V(changed) or V(deleted); null when nothing is pending.
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
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_subnet import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
