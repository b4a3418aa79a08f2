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
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text, TokenSet, clearable
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family, Lifecycle, Where
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


def comment(text):
    # PVE keeps each comment line as a '#' line of the file and reads it back with a trailing newline.
    return text.strip()


class InterfaceFamily(Family):
    def check_declaration(self, declaration):
        ident, declared = declaration.ident, declaration.values
        unnamed_vlan = declared.get('type') == 'vlan' and '.' not in ident['iface']
        if declaration.state == 'present' and unnamed_vlan and not declared.get('vlan_raw_device'):
            raise DeclarationError("option vlan_raw_device is required for a vlan interface whose name does not say "
                                   "it (%s; name it <device>.<tag>, such as eno1.10)" % ident['iface'])
        if declared.get('gateway') and not declared.get('cidr'):
            raise DeclarationError('option gateway needs cidr: PVE keeps a gateway only on an interface with an '
                                   'address')


FAMILY = InterfaceFamily(
    'node_network', 'node_network',
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
        clearable('gateway', Text, format='ipv4'),
        clearable('gateway6', Text, format='ipv6'),
        # Undeclared: unmanaged on an existing interface, off on a new one (PVE's default).
        Flag('autostart'),
        clearable('mtu', Integer, minimum=1280, maximum=65520),
        clearable('comments', Text, normalise=comment),
        clearable('comments6', Text, normalise=comment),
        clearable('bridge_ports', TokenSet, separator=' ', format='pve-iface-list'),
        clearable('bridge_vids', TokenSet, separator=' ', format='pve-vlan-id-or-range-list'),
        # false is written as delete= (PVE would keep a 0 line), never bridge_vlan_aware=0.
        clearable('bridge_vlan_aware', Flag),
        clearable('slaves', TokenSet, separator=' ', format='pve-iface-list'),
        clearable('bond_mode', Text, choices=['balance-rr', 'active-backup', 'balance-xor', 'broadcast', '802.3ad',
                                              'balance-tlb', 'balance-alb', 'balance-slb', 'lacp-balance-slb',
                                              'lacp-balance-tcp']),
        clearable('bond_xmit_hash_policy', Text, choices=['layer2', 'layer2+3', 'layer3+4']),
        clearable('bond-primary', Text, format='pve-iface'),
        clearable('vlan-id', Integer, minimum=1, maximum=4094),
        clearable('vlan-raw-device', Text, format='pve-iface'),
    ],
    where=Where(collection='/nodes/{node}/network', item='/nodes/{node}/network/{iface}', create_on='collection',
                absence=Absence((400,), errors={'iface': r'^interface does not exist'})),
    # Removing an interface can cut a node off once applied: state=absent needs confirm_removal.
    lifecycle=Lifecycle(retain=True),
    type_rules=INTERFACE_TYPES,
)
