# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The firewall options of one scope: /cluster/firewall/options, /nodes/{node}/firewall/options.

Each scope is a family of its own (its own path, options and schema call); ``ByScope`` is the
module's task and hands a declaration to the family its ``scope`` names. A guest scope is one
more family in the table.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import CONNECTION_ARGUMENT_SPEC
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, PropertyString, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family


class ByScope:
    """One module over several scopes, each a Family; ``scope`` picks it, another scope's option is refused.

    It has no fields of its own: ``scopes`` are the families (tests check each one's fields).
    """

    identity = []
    fields = []
    listing = None  # each scope is read on its own

    def __init__(self, name, scopes, default):
        self.name = name
        self.scopes = scopes
        self.default = default
        self.scheme = 'pve'

    def argument_spec(self):
        """Every scope's options; none required or defaulted here, since each applies only to its own scope."""
        spec = {}
        for family in self.scopes.values():
            for option, rules in family.argument_spec().items():
                if option not in CONNECTION_ARGUMENT_SPEC and option != 'state':
                    rules = dict((key, value) for key, value in rules.items() if key not in ('required', 'default'))
                spec[option] = rules
        spec['scope'] = dict(type='str', default=self.default, choices=list(self.scopes))
        return spec

    def family(self, params):
        """The scope's family, once every option the task set is one that scope takes."""
        scope = params['scope']
        family = self.scopes[scope]
        own = set(family.argument_spec()) | set(['scope'])
        foreign = sorted(option for option in self.argument_spec()
                         if option not in own and params.get(option) is not None)
        if foreign:
            raise DeclarationError('option %s: scope=%s does not take %s' % (foreign[0], scope, ', '.join(foreign)))
        for field in family.identity:
            if params.get(field.option) in (None, ''):
                raise DeclarationError('option %s is required with scope=%s' % (field.option, scope))
        return family

    def resolve(self, params):
        return self.family(params)

    def run(self, client, params, check_mode):
        return self.family(params).run(client, params, check_mode)


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


LOG_LEVELS = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug', 'nolog']
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
    name='cluster firewall options',
    identity=[],
    fields=[
        Switch('enable', minimum=0, absent_means=False),
        Flag('ebtables', absent_means=True),
        Text('policy_in', choices=POLICIES),
        Text('policy_out', choices=POLICIES),
        Text('policy_forward', choices=['ACCEPT', 'DROP']),
        PropertyString('log_ratelimit', keys=LOG_RATELIMIT, default_key='enable', clear='delete'),
    ],
    item='/cluster/firewall/options',
    singleton=True,
    send_digest=True,
    schema=('PUT', '/cluster/firewall/options'),
)

NODE = Family(
    name='node firewall options',
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
    item='/nodes/{node}/firewall/options',
    singleton=True,
    send_digest=True,
    schema=('PUT', '/nodes/{node}/firewall/options'),
)

FAMILY = ByScope('firewall options', dict(cluster=CLUSTER, node=NODE), default='cluster')
