# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's network interface: /nodes/{node}/network/{iface}, staged into /etc/network/interfaces.new.

Nothing is live until ``network_apply``. Reads answer from the staged file once anything is staged,
so "no change" means the file says what the task says. Only PVE's 400 with the parameter error
``iface: interface does not exist`` means absent; any other answer is a failure. A live interface
of another type is refused, never retyped.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text, TokenSet
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family
from ansible_collections.homeflare.proxmox.plugins.module_utils.type_rules import TypeRules

_EVERY = ['type', 'cidr', 'cidr6', 'gateway', 'gateway6', 'autostart', 'mtu', 'comments', 'comments6']
INTERFACE_TYPES = TypeRules('interface', {
    'eth': dict(options=_EVERY),
    'bridge': dict(options=_EVERY + ['bridge_ports', 'bridge_vids', 'bridge_vlan_aware']),
    'bond': dict(options=_EVERY + ['slaves', 'bond_mode', 'bond_xmit_hash_policy', 'bond-primary'],
                 required=['slaves']),
    'vlan': dict(options=_EVERY + ['vlan-id', 'vlan-raw-device']),
})
TYPES = ['bridge', 'bond', 'eth', 'alias', 'vlan', 'fabric', 'OVSBridge', 'OVSBond', 'OVSPort', 'OVSIntPort', 'vnet',
         'unknown']


def check_interface(ident, declared, state):
    if state == 'present' and declared.get('type') == 'vlan' and '.' not in ident['iface'] and not declared.get(
            'vlan_raw_device'):
        raise DeclarationError("option vlan_raw_device is required for a vlan interface whose name does not say "
                               "it (%s; name it <device>.<tag>, such as eno1.10)" % ident['iface'])
    if declared.get('gateway') and not declared.get('cidr'):
        raise DeclarationError('option gateway needs cidr: PVE keeps a gateway only on an interface with an address')


def comment(text):
    # PVE keeps each comment line as a '#' line of the file and reads it back with a trailing newline.
    return text.strip()


def unmanaged(kind, wire, **kwargs):
    """Compared and written only when declared; a declared empty value is cleared with delete=."""
    return kind(wire, clear='delete', **kwargs)


FAMILY = Family(
    name='node_network',
    identity=[
        Text('node', required=True, format='pve-node'),
        Text('iface', required=True, format='pve-iface', min_length=2, max_length=20),
    ],
    fields=[
        # Sent with every write (PVE's PUT needs it), never changed: another live type is refused.
        Text('type', create_only=True, always_send=True, choices=TYPES),
        # No unmanaged mode: PVE's PUT makes an interface sent without cidr manual (and drops its IPv6
        # without cidr6), so both are sent with every write, and undeclared means none (cleared by delete=).
        Text('cidr', default='', clear='delete', always_send=True, format='CIDRv4'),
        Text('cidr6', default='', clear='delete', always_send=True, format='CIDRv6'),
        unmanaged(Text, 'gateway', format='ipv4'),
        unmanaged(Text, 'gateway6', format='ipv6'),
        # Undeclared: unmanaged on an existing interface, off on a new one (PVE's default).
        Flag('autostart'),
        unmanaged(Integer, 'mtu', minimum=1280, maximum=65520),
        unmanaged(Text, 'comments', normalise=comment),
        unmanaged(Text, 'comments6', normalise=comment),
        unmanaged(TokenSet, 'bridge_ports', separator=' ', format='pve-iface-list'),
        unmanaged(TokenSet, 'bridge_vids', separator=' ', format='pve-vlan-id-or-range-list'),
        # false is written as delete= (PVE would keep a 0 line), never bridge_vlan_aware=0.
        unmanaged(Flag, 'bridge_vlan_aware'),
        unmanaged(TokenSet, 'slaves', separator=' ', format='pve-iface-list'),
        unmanaged(Text, 'bond_mode', choices=['balance-rr', 'active-backup', 'balance-xor', 'broadcast', '802.3ad',
                                              'balance-tlb', 'balance-alb', 'balance-slb', 'lacp-balance-slb',
                                              'lacp-balance-tcp']),
        unmanaged(Text, 'bond_xmit_hash_policy', choices=['layer2', 'layer2+3', 'layer3+4']),
        unmanaged(Text, 'bond-primary', format='pve-iface'),
        unmanaged(Integer, 'vlan-id', minimum=1, maximum=4094),
        unmanaged(Text, 'vlan-raw-device', format='pve-iface'),
    ],
    collection='/nodes/{node}/network',
    item='/nodes/{node}/network/{iface}',
    create_on='collection',
    absence=Absence((400,), errors={'iface': r'^interface does not exist'}),
    # Removing an interface can cut a node off once applied: state=absent needs confirm_removal.
    retain=True,
    type_rules=INTERFACE_TYPES,
    check_declaration=check_interface,
)
