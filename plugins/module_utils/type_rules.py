# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Per-type option tables: an object whose ``type`` decides which options it takes (a storage, an SDN
zone, a node's interface, a realm, a notification endpoint). PVE refuses, or silently drops, an option its
type does not take; the table refuses it before any request, naming the option and what the type takes
instead."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError


class TypeRules:
    """``types``: type -> dict(options=[wire names it takes], required=[wire names it needs],
    create_needs=[wire names its create needs]).

    ``noun`` names the object in refusals ("a vlan zone does not take peers"); ``common`` the options every type
    takes besides those its table names (a notification endpoint's comment and disable). ``required`` options are
    needed by every declaration with state=present; ``create_needs`` ones only by a create (``check_create``, once
    the object is known to be absent), and are never cleared.

    ``check`` is the whole rule for a family whose type is a declared option (the core calls it); a family that
    knows its type otherwise (an identity field) or judges more between the type and its options (a built-in
    realm's fixed type) calls ``declared_type`` and ``check_options`` itself.
    """

    def __init__(self, noun, types, common=()):
        self.noun = noun
        self.types = types
        self.shared = list(common)

    def taken(self, kind):
        """The options a type takes, or None when no (known) type is declared."""
        rules = self.types.get(kind)
        if not rules:
            return None
        return rules['options'] + self.shared

    def common(self, wire):
        """Whether every type takes the option."""
        return all(wire in self.taken(kind) for kind in self.types)

    def check(self, fields, declared, state):
        """The declared type's rules; with state=present the type itself is required."""
        if state != 'present':
            return None
        return self.check_options(fields, declared, self.declared_type(declared))

    def declared_type(self, declared):
        """The declared type: refused when missing or not one this table knows."""
        kind = declared.get('type')
        if not kind:
            raise DeclarationError('option type is required with state=present (one of %s)' % ', '.join(sorted(
                self.types)))
        if kind not in self.types:
            raise DeclarationError('option type: %r is not a %s type this module manages (it manages %s)' % (
                kind, self.noun, ', '.join(sorted(self.types))))
        return kind

    def check_options(self, fields, declared, kind):
        """Refuse a declared option the type does not take, an option it requires left undeclared, and an option its
        create needs declared empty (clearing it)."""
        rules = self.types[kind]
        taken = self.taken(kind)
        by_wire = dict((field.wire, field) for field in fields)
        foreign = sorted(field.option for wire, field in by_wire.items()
                         if wire != 'type' and field.option in declared and wire not in taken)
        if foreign:
            raise DeclarationError('option %s: a %s %s does not take %s' % (
                foreign[0], kind, self.noun, ', '.join(foreign)))
        missing = [by_wire[wire].option for wire in rules.get('required', [])
                   if declared.get(by_wire[wire].option) in (None, '', [])]
        if missing:
            raise DeclarationError('option %s is required for a %s %s (it needs %s)' % (
                missing[0], kind, self.noun, ', '.join(by_wire[wire].option for wire in rules['required'])))
        for wire in rules.get('create_needs', []):
            if declared.get(by_wire[wire].option) == '':
                raise DeclarationError('option %s: a %s %s needs it, so it cannot be empty' % (
                    by_wire[wire].option, kind, self.noun))
        return rules

    def check_create(self, fields, declared, kind):
        """What the type's create needs, judged once the object is absent."""
        by_wire = dict((field.wire, field) for field in fields)
        missing = [by_wire[wire].option for wire in self.types[kind].get('create_needs', [])
                   if not declared.get(by_wire[wire].option)]
        if missing:
            raise DeclarationError('option %s is required to create a %s %s' % (missing[0], kind, self.noun))
