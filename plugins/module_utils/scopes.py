# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One module over several scopes (the firewall's options, rules, aliases and IP sets: the cluster, a node, a
security group, a guest, a vnet).

Each scope is a Family of its own (its own path, options and schema call); ``ByScope`` is the module's task and
hands a declaration to the family its ``scope`` names, whose run is the one pipeline (reconcile).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError


class ByScope:
    """One module over several scopes, each a Family; ``scope`` picks it, another scope's option is refused.

    It has no fields of its own: ``scopes`` are the families (tests check each one's fields).
    """

    identity = []
    fields = []
    listing = None  # each scope is read on its own

    def __init__(self, module, name, scopes, default):
        self.module = module
        self.name = name
        self.scopes = scopes
        self.default = default
        self.scheme = 'pve'

    def object_spec(self):
        """Every scope's options; none required or defaulted here, since each applies only to its own scope."""
        spec = {}
        for family in self.scopes.values():
            for option, rules in family.object_spec().items():
                if option != 'state':
                    rules = dict((key, value) for key, value in rules.items() if key not in ('required', 'default'))
                spec[option] = rules
        spec['scope'] = dict(type='str', default=self.default, choices=list(self.scopes))
        return spec

    def family(self, params):
        """The scope's family, once every option the task set is one that scope takes."""
        scope = params['scope']
        family = self.scopes[scope]
        own = set(family.object_spec()) | set(['scope'])
        foreign = sorted(option for option in self.object_spec()
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
        """The picked scope's own run (the one pipeline): this only chooses the family."""
        return self.family(params).run(client, params, check_mode)
