# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The HA rule family (PVE 9's successor to HA groups): sections of ha/rules.cfg, /cluster/ha/rules/{rule}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

try:
    from urllib.parse import unquote
except ImportError:  # pragma: no cover - Python 2
    from urllib import unquote

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.guest import check_guest_sid
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    LIST_SPLIT, Flag, Text, TokenSet, section_comment)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family, Listing, Where

TYPES = ['node-affinity', 'resource-affinity']
# What only one rule type takes (the schema's instance-types), and what that type cannot do without.
ONLY_FOR = {'nodes': 'node-affinity', 'strict': 'node-affinity', 'affinity': 'resource-affinity'}
NEEDS = {'node-affinity': ['nodes'], 'resource-affinity': ['affinity']}
# PVE::HA::Tools::parse_node_priority
NODE_PRIORITY = re.compile(r'([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?)(:([0-9]+))?')


class NodePriorities(TokenSet):
    """``node[:priority]`` entries as NodeAffinity stores them: one priority per node (the last one
    given wins), sorted by node name, a priority of 0 written as the bare name."""

    def canonical(self, value):
        tokens = value if isinstance(value, (list, tuple)) else LIST_SPLIT.split(str(value))
        priorities = {}
        for token in (str(item).strip() for item in tokens):
            if not token:
                continue
            match = NODE_PRIORITY.fullmatch(token)
            if not match:
                self.refuse(token, 'is not a node name, optionally with :<priority> (node1, node2:10)')
            priorities[match.group(1)] = int(match.group(4) or 0)
        return [node if not priority else '%s:%d' % (node, priority) for node, priority in sorted(priorities.items())]


class RuleFamily(Family):
    def check_declaration(self, declaration):
        if declaration.state != 'present':
            return
        declared = declaration.values
        kind = declared.get('type')
        if not kind:
            raise DeclarationError('option type is required with state=present (one of %s)' % ', '.join(TYPES))
        if not declared.get('resources'):
            raise DeclarationError('option resources is required with state=present (the HA resources, vm:<vmid> '
                                   'or ct:<vmid>, that are HA resources already)')
        for sid in declared['resources']:
            check_guest_sid('resources', sid)
        for option, only in sorted(ONLY_FOR.items()):
            if only != kind and declared.get(option) not in (None, [], False):
                raise DeclarationError('option %s: a %s rule does not take %s (only a %s rule does)' % (
                    option, kind, option, only))
        for option in NEEDS[kind]:
            if not declared.get(option):
                raise DeclarationError('option %s is required for a %s rule' % (option, kind))

    def report(self, raw):
        # order and errors are PVE's (a position in the file, its feasibility verdict): reported, never compared.
        return {'order': raw.get('order'), 'errors': raw.get('errors') or {}}


FAMILY = RuleFamily(
    'ha_rule', 'ha_rule',
    identity=[Text('rule', required=True, format='pve-configid')],
    fields=[
        # Picks the rule's plugin: fixed once created, yet PVE wants it on every update (the PUT's oneOf).
        Text('type', create_only=True, always_send=True, choices=TYPES),
        TokenSet('resources', format='pve-ha-resource-id'),
        NodePriorities('nodes', format='pve-ha-node'),
        Flag('strict', default=False, clear='delete'),
        Text('affinity', choices=['positive', 'negative']),
        # PVE drops disable=0: a disabled rule is only enabled again by delete=disable.
        Flag('disable', default=False, clear='delete'),
        # PVE stores comments decoded (PVE::Tools::decode_text): a %XX sequence does not survive.
        # PVE::HA::Rules encode_value/decode_value: encode_text in rules.cfg, so read back with its spaces trimmed
        Text('comment', default='', clear='delete', max_length=4096,
             normalise=lambda text: section_comment(unquote(text))),
    ],
    where=Where(collection='/cluster/ha/rules', item='/cluster/ha/rules/{rule}',
                listing=Listing('/cluster/ha/rules'), absence=Absence((500,), r"no such ha rule")),
)
