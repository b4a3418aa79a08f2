# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Per-type option tables: an object whose ``type`` decides which options it takes (a storage, an SDN
zone, a node's interface). PVE refuses, or silently drops, an option its type does not take; the
table refuses it before any request, naming the option and what the type takes instead."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError


class TypeRules:
    """``types``: type -> dict(options=[wire names it takes], required=[wire names it needs]).

    ``noun`` names the object in refusals ("a vlan zone does not take peers").
    """

    def __init__(self, noun, types):
        self.noun = noun
        self.types = types

    def taken(self, kind):
        """The options a type takes, or None when no (known) type is declared."""
        rules = self.types.get(kind)
        return rules['options'] if rules else None

    def common(self, wire):
        """Whether every type takes the option."""
        return all(wire in rules['options'] for rules in self.types.values())

    def check(self, fields, declared, state):
        """The declared type's rules; with state=present the type itself is required."""
        if state != 'present':
            return None
        kind = declared.get('type')
        if not kind:
            raise DeclarationError('option type is required with state=present (one of %s)' % ', '.join(sorted(
                self.types)))
        rules = self.types.get(kind)
        if rules is None:
            raise DeclarationError('option type: %r is not a %s type this module manages (it manages %s)' % (
                kind, self.noun, ', '.join(sorted(self.types))))
        by_wire = dict((field.wire, field) for field in fields)
        foreign = sorted(field.option for wire, field in by_wire.items()
                         if wire != 'type' and field.option in declared and wire not in rules['options'])
        if foreign:
            raise DeclarationError('option %s: a %s %s does not take %s' % (
                foreign[0], kind, self.noun, ', '.join(foreign)))
        missing = [by_wire[wire].option for wire in rules.get('required', [])
                   if declared.get(by_wire[wire].option) in (None, '', [])]
        if missing:
            raise DeclarationError('option %s is required for a %s %s (it needs %s)' % (
                missing[0], kind, self.noun, ', '.join(by_wire[wire].option for wire in rules['required'])))
        return rules
