# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # Whose firewall object it is, as the four firewall modules share it (firewall_alias, firewall_ipset,
    # firewall_options, firewall_rules). Each module adds its own O(scope) choices.
    DOCUMENTATION = r'''
options:
  scope:
    description:
      - Whose object it is; the choices are the scopes this module takes.
      - V(cluster), the datacenter's (C(/cluster/firewall/...)), the default.
      - V(vm), a guest's, a VM's or a container's (C(/nodes/{node}/{qemu|lxc}/{vmid}/firewall/...)), named by
        O(node) and O(vmid). Its type and the node it lives on are read from C(/cluster/resources), so one
        declaration serves both types, and a guest moved to another node (HA) is judged where it lives, with a
        warning. A vmid that is no guest is refused before any write (in check mode a warning, since an earlier task
        may create it; M(homeflare.proxmox.declare) writes the guests it declares first); PVE itself answers for any
        vmid.
      - V(node), a node's host firewall (O(node)), V(group), a security group (its C(group) option), and V(vnet), an
        SDN vnet's (its C(vnet) option), where the module takes them.
    type: str
    default: cluster
  node:
    description:
      - With O(scope=vm), the node the guest is declared on (it is judged where it lives).
      - With O(scope=node), the node whose host firewall it is.
    type: str
  vmid:
    description: The guest (a VM or a container), with O(scope=vm).
    type: int
'''

    # The vnet scope (firewall_options, firewall_rules).
    VNET = r'''
options:
  vnet:
    description:
      - The SDN vnet, with O(scope=vnet) (C(/cluster/sdn/vnets/{vnet}/firewall/...)).
      - pve-firewall finds the vnet in SDN's running configuration, so a vnet still pending an SDN apply is refused
        until it is applied.
    type: str
'''
