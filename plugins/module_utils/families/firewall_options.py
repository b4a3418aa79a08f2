# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The firewall options of one scope: /cluster/firewall/options, /nodes/{node}/firewall/options.

Each scope is a family of its own (its own path, options and schema call); ``ByScope`` (scopes.py) is
the module's task and hands a declaration to the family its ``scope`` names. A guest scope is one
more family in the table.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, PropertyString, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.firewall import (
    GUEST_FIREWALL, LOG_LEVELS, VNET_FIREWALL, GuestScope, VnetScope)
from ansible_collections.homeflare.proxmox.plugins.module_utils.guest import identity as guest_identity
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family, Lifecycle, Where
from ansible_collections.homeflare.proxmox.plugins.module_utils.scopes import ByScope


class Switch(Integer):
    """The cluster's ``enable``: an integer on the wire (where PVE also keeps a timestamp, its anti-lockout
    "enabled for 60 s"), declared and compared as a boolean."""

    ansible_type = 'bool'

    def canonical(self, value):
        if isinstance(value, bool):
            return value
        number = super(Switch, self).canonical(value)
        return number if number is None else number > 0

    def encode(self, value):
        return '1' if value else '0'


POLICIES = ['ACCEPT', 'REJECT', 'DROP']
# PVE::Firewall $cluster_option_properties log_ratelimit: enable (the default key), rate, burst.
LOG_RATELIMIT = {
    'enable': Flag('enable'),
    'rate': Text('rate', pattern=r'[1-9][0-9]*\/(second|minute|hour|day)'),
    'burst': Integer('burst', minimum=0),
}


def level(wire):
    return Text(wire, choices=LOG_LEVELS)


# Undeclared options are not managed. A key PVE leaves out means its documented default (absent_means),
# so declaring the default of an option nobody set is no change; where PVE names no default, a
# declared value is written.
CLUSTER = Family(
    'firewall_options', 'cluster firewall options',
    identity=[],
    fields=[
        Switch('enable', minimum=0, absent_means=False),
        Flag('ebtables', absent_means=True),
        Text('policy_in', choices=POLICIES),
        Text('policy_out', choices=POLICIES),
        Text('policy_forward', choices=['ACCEPT', 'DROP']),
        PropertyString('log_ratelimit', keys=LOG_RATELIMIT, default_key='enable', clear='delete'),
    ],
    where=Where(item='/cluster/firewall/options', schema=('PUT', '/cluster/firewall/options')),
    lifecycle=Lifecycle(singleton=True, send_digest=True),
)

NODE = Family(
    'firewall_options', 'node firewall options',
    identity=[Text('node', required=True, format='pve-node')],
    fields=[
        Flag('enable', absent_means=True),
        Flag('nftables'),
        Flag('ndp', absent_means=True),
        Flag('nosmurfs', absent_means=None),
        Flag('tcpflags'),
        Flag('log_nf_conntrack'),
        Flag('nf_conntrack_allow_invalid'),
        Flag('protection_synflood'),
        Integer('protection_synflood_rate', absent_means=200),
        Integer('protection_synflood_burst', absent_means=1000),
        Integer('nf_conntrack_max', minimum=32768, absent_means=262144),
        Integer('nf_conntrack_tcp_timeout_established', minimum=7875, absent_means=432000),
        Integer('nf_conntrack_tcp_timeout_syn_recv', minimum=30, maximum=60, absent_means=60),
        level('log_level_in'),
        level('log_level_out'),
        level('log_level_forward'),
        level('smurf_log_level'),
        level('tcp_flags_log_level'),
    ],
    where=Where(item='/nodes/{node}/firewall/options', schema=('PUT', '/nodes/{node}/firewall/options')),
    lifecycle=Lifecycle(singleton=True, send_digest=True),
)

# Firewall.pm $vm_option_properties: a VM's and a container's alike (VM.pm serves both types).
GUEST = GuestScope(
    'firewall_options', 'firewall options',
    identity=guest_identity(),
    fields=[
        Flag('enable', absent_means=False),
        Flag('dhcp', absent_means=False),
        Flag('macfilter', absent_means=True),
        Flag('ndp', absent_means=True),
        Flag('radv'),
        Flag('ipfilter'),
        Text('policy_in', choices=POLICIES),
        Text('policy_out', choices=POLICIES),
        level('log_level_in'),
        level('log_level_out'),
    ],
    where=Where(item=GUEST_FIREWALL + '/options', schema=('PUT', '/nodes/{node}/qemu/{vmid}/firewall/options')),
    lifecycle=Lifecycle(singleton=True, send_digest=True),
)

# Firewall.pm $vnet_option_properties.
VNET = VnetScope(
    'firewall_options', 'firewall options',
    identity=[Text('vnet', required=True, format='pve-sdn-vnet-id')],
    fields=[
        Flag('enable', absent_means=False),
        Text('policy_forward', choices=['ACCEPT', 'DROP']),
        level('log_level_forward'),
    ],
    where=Where(item=VNET_FIREWALL + '/options', schema=('PUT', '/cluster/sdn/vnets/{vnet}/firewall/options')),
    lifecycle=Lifecycle(singleton=True, send_digest=True),
)

FAMILY = ByScope('firewall_options', 'firewall options', dict(cluster=CLUSTER, node=NODE, vm=GUEST, vnet=VNET),
                 default='cluster')
