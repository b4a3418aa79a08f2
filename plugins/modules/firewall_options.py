#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: firewall_options
short_description: Declare the Proxmox VE firewall options of the cluster, a node, a guest or a vnet
version_added: 0.1.0
description:
  - Repairs the firewall options of one scope, the cluster (C(/cluster/firewall/options)), one node
    (C(/nodes/{node}/firewall/options)), a guest or a vnet (O(scope)). The options always exist, so there is no
    C(state) option.
  - Only the declared options are managed; the others are neither sent nor compared. An option only one scope has
    is refused, before any request, when declared for the other.
  - Where PVE documents a default, an option nobody set reads as that default, so declaring the default is no
    change; where it documents none (O(nosmurfs), the log levels, the policies), a declared value is written.
  - Every update carries the digest of the options read just before it, so another writer's change is never
    overwritten.
  - The node option C(nf_conntrack_helpers) is not managed yet.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
  - homeflare.proxmox.firewall_scope
  - homeflare.proxmox.firewall_scope.vnet
options:
  scope:
    choices: [cluster, node, vm, vnet]
  dhcp:
    description: V(vm) only. Allow DHCP (PVE's default off).
    type: bool
  macfilter:
    description: V(vm) only. The MAC address filter (PVE's default on).
    type: bool
  radv:
    description: V(vm) only. Allow the guest to send router advertisements.
    type: bool
  ipfilter:
    description: V(vm) only. The default IP filters (an empty C(ipfilter-net<id>) set for every interface).
    type: bool
  enable:
    description:
      - V(cluster) enables the firewall cluster-wide (PVE's default off); V(node) its host rules (default on); V(vm)
        the guest's firewall and V(vnet) the vnet's (default off).
      - Wire name C(enable); the cluster's is an integer on the wire, written V(1) or V(0).
    type: bool
  ebtables:
    description: V(cluster) only. Enable ebtables rules cluster-wide (PVE's default on).
    type: bool
  policy_in:
    description: V(cluster) and V(vm). The policy for incoming traffic.
    type: str
    choices: [ACCEPT, REJECT, DROP]
  policy_out:
    description: V(cluster) and V(vm). The policy for outgoing traffic.
    type: str
    choices: [ACCEPT, REJECT, DROP]
  policy_forward:
    description: V(cluster) and V(vnet). The policy for forwarded traffic.
    type: str
    choices: [ACCEPT, DROP]
  log_ratelimit:
    description:
      - V(cluster) only. The log rate limit, a property string of C(enable) (the default key), C(rate)
        (V(1/second), V(10/minute) ...) and C(burst), compared as pairs, for example V(enable=1,rate=10/minute).
      - V('') removes it (C(delete=log_ratelimit)).
    type: str
  nftables:
    description: V(node) only. Use the nftables based firewall (PVE's default off).
    type: bool
  ndp:
    description: V(node) and V(vm). Allow NDP, the IPv6 neighbour discovery (PVE's default on).
    type: bool
  nosmurfs:
    description: V(node) only. Filter SMURFS packets.
    type: bool
  tcpflags:
    description: V(node) only. Filter illegal combinations of TCP flags (PVE's default off).
    type: bool
  log_nf_conntrack:
    description: V(node) only. Log connection tracking information (PVE's default off).
    type: bool
  nf_conntrack_allow_invalid:
    description: V(node) only. Allow packets connection tracking calls invalid (PVE's default off).
    type: bool
  protection_synflood:
    description: V(node) only. Protect against SYN floods (PVE's default off).
    type: bool
  protection_synflood_rate:
    description: V(node) only. SYN packets per second and source address (PVE's default 200).
    type: int
  protection_synflood_burst:
    description: V(node) only. SYN burst per source address (PVE's default 1000).
    type: int
  nf_conntrack_max:
    description: V(node) only. Most tracked connections, 32768 or more (PVE's default 262144).
    type: int
  nf_conntrack_tcp_timeout_established:
    description: V(node) only. Seconds an established connection is tracked, 7875 or more (PVE's default 432000).
    type: int
  nf_conntrack_tcp_timeout_syn_recv:
    description: V(node) only. Seconds a SYN_RECV connection is tracked, 30 to 60 (PVE's default 60).
    type: int
  log_level_in:
    description: V(node) and V(vm). Log level of incoming traffic.
    type: str
    choices: [emerg, alert, crit, err, warning, notice, info, debug, nolog]
  log_level_out:
    description: V(node) and V(vm). Log level of outgoing traffic.
    type: str
    choices: [emerg, alert, crit, err, warning, notice, info, debug, nolog]
  log_level_forward:
    description: V(node) and V(vnet). Log level of forwarded traffic.
    type: str
    choices: [emerg, alert, crit, err, warning, notice, info, debug, nolog]
  smurf_log_level:
    description: V(node) only. Log level of the SMURFS filter.
    type: str
    choices: [emerg, alert, crit, err, warning, notice, info, debug, nolog]
  tcp_flags_log_level:
    description: V(node) only. Log level of the TCP flags filter.
    type: str
    choices: [emerg, alert, crit, err, warning, notice, info, debug, nolog]
seealso:
  - module: homeflare.proxmox.firewall_rules
'''

EXAMPLES = r'''
- name: Turn the cluster firewall on, dropping what no rule accepts
  homeflare.proxmox.firewall_options:
    enable: true
    policy_in: DROP
    log_ratelimit: enable=1,rate=10/minute,burst=20

- name: Harden one node
  homeflare.proxmox.firewall_options:
    scope: node
    node: pve1
    tcpflags: true
    nosmurfs: true
    log_level_in: info

- name: A guest's firewall on, its MAC filter off (a VM or a container alike)
  homeflare.proxmox.firewall_options:
    scope: vm
    node: pve1
    vmid: 100
    enable: true
    policy_in: DROP
    macfilter: false

# `ansible-playbook site.yml --check --diff` names the drifted options and writes nothing.
'''

RETURN = r'''
object:
  description: The scope's identity and declared options as read after the run.
  returned: always
  type: dict
  sample: {"enable": true, "policy_in": "DROP", "log_ratelimit": "burst=20,enable=1,rate=10/minute"}
plan:
  description:
    - What the run decided. C(read) is V(found); C(action) V(update) or V(none).
    - C(changed) lists the drifted option names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["policy_in"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.firewall_options import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
