# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``export``: a live cluster (or backup server) as the ``objects`` that ``declare`` takes.

Every family declare takes is read: through its listing where the list carries every managed field (one
request), else its collection and one read per object, in parallel. Each object becomes its module's options
as ``Family.exported`` gives them: identity, set fields, defaults only where they differ, in canonical form, so
declaring the export back is a no-op. Secrets are never read back by the server: each one the object's type
takes is a placeholder naming a variable, and the result lists the variables. Nothing is ever written.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
from concurrent.futures import ThreadPoolExecutor

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import SCHEMES, item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import ApiError, DeclarationError, ProxmoxError
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Declaration, absent
from ansible_collections.homeflare.proxmox.plugins.module_utils.registry import APPLIERS, FAMILIES

# The result's objects hold secrets only as placeholders: '{{ <variable> }}'.
PLACEHOLDER = '{{ %s }}'


def identity_text(family, ident):
    """The identity's values in the family's order, joined by '/' (what identity_pattern is matched against)."""
    return '/'.join(str(value) for value in family.key(ident))


def secret_variable(module, family, ident, option):
    """The variable a secret's placeholder names: module, identity and option, as one Ansible variable name."""
    text = '_'.join([module, identity_text(family, ident), option])
    return re.sub(r'[^a-z0-9_]+', '_', text.lower()).strip('_')


def sort_key(family, ident):
    return tuple(str(value) for value in family.key(ident))


def refusal(family, options, raw):
    """Why the module would refuse the exported options for this live object (an object its family never adopts,
    such as Ceph's own .mgr pool), or None: only declarations that declare accepts are exported."""
    params = dict((name, value) for name, value in options.items() if name != 'scope')
    try:
        declaration = family.declaration(params)
        family.check_found(declaration, raw, [])
    except ProxmoxError as exc:
        return str(exc)
    return None


class Finder:
    """Every object of one family, as (identity, raw read) pairs."""

    def __init__(self, client, workers):
        self.client = client
        self.workers = workers

    def find(self, family):
        """Every object and, apart, those listed but gone before their read: ([(ident, raw)], [ident])."""
        found = family.find_all(self.client)
        if found is not None:
            return found, []
        if family.listing is not None:
            rows = family.listing.read(self.client, family)
            return [(dict(zip([field.option for field in family.identity], key)), raw)
                    for key, raw in rows.items()], []
        if family.singleton or family.collection is None:
            # one per value of its item path's placeholders (a node's firewall options or rule list), or the one
            return self.read_each(family, self.placeholders(family, family.item))
        return self.read_each(family, self.identities(family))

    def identities(self, family):
        """The identities the family's collection lists, for every value of its path's placeholders."""
        found = []
        for filled in self.placeholders(family, family.collection):
            path = item_path(family.collection, dict((field.wire, filled[field.option]) for field in family.identity
                                                     if field.option in filled))
            for row in self.client.get(path, role=family.read_role) or []:
                ident = dict(filled)
                for field in family.identity:
                    if field.option not in ident:
                        ident[field.option] = field.canonical(row.get(field.wire))
                found.append(ident)
        return found

    def placeholders(self, family, path):
        """Each combination of values for the identity fields ``path`` names."""
        combinations = [{}]
        for field in family.identity:
            if '{%s}' % field.wire not in path:
                continue
            if field.choices:
                values = list(field.choices)
            else:
                path, key = SCHEMES[family.scheme].parents[field.wire]
                values = [field.canonical(row.get(key)) for row in self.client.get(path, role=family.read_role) or []]
            combinations = [dict(combination, **{field.option: value})
                            for combination in combinations for value in values]
        return combinations

    def read_each(self, family, identities):
        """One read per object, ``workers`` at a time, each worker on a connection of its own."""
        def read(ident):
            # the family's own read, as declare judges it (a guest from its pending view)
            return ident, family.read(self.client.for_this_thread(), Declaration(ident, {}, 'present', None))
        with ThreadPoolExecutor(max_workers=max(1, self.workers)) as pool:
            found = list(pool.map(read, identities))
        # listed, then gone before its read: not there any more (a guest's absence too: absent() tests every kind)
        return ([(ident, raw) for ident, raw in found if not absent(raw)],
                [ident for ident, raw in found if absent(raw)])


class Export:
    """The task of ``homeflare.proxmox.export``: read-only, so check mode changes nothing."""

    scheme = 'pve'

    def __init__(self, families):
        # the applies are steps, not objects; one that is an action says why it is left out (left_out)
        self.families = [(module, family) for module, family in families
                         if module not in APPLIERS or getattr(family, 'left_out', None)]
        self.modules = dict(self.families)

    def object_spec(self):
        spec = {}
        spec['server'] = dict(type='str', default='pve', choices=['pve', 'pbs'])
        spec['include'] = dict(type='list', elements='str', default=[])
        spec['exclude'] = dict(type='list', elements='str', default=[])
        spec['identity_pattern'] = dict(type='str')
        spec['include_builtin'] = dict(type='bool', default=False)
        spec['workers'] = dict(type='int', default=8)
        return spec

    @staticmethod
    def scheme_for(params):
        return params.get('server') or 'pve'

    def chosen(self, params):
        server = self.scheme_for(params)
        for option in ('include', 'exclude'):
            unknown = sorted(set(params.get(option) or []) - set(self.modules))
            if unknown:
                raise DeclarationError('option %s: %s %s not a module export reads (%s)' % (
                    option, ', '.join(unknown), 'is' if len(unknown) == 1 else 'are', ', '.join(sorted(self.modules))))
            other = sorted(module for module in params.get(option) or [] if self.modules[module].scheme != server)
            if other:
                raise DeclarationError('option %s: %s %s not on a %s server (option server)' % (
                    option, ', '.join(other), 'is' if len(other) == 1 else 'are', server))
        if params.get('workers') is not None and params['workers'] < 1:
            raise DeclarationError('option workers: %r is below the minimum 1' % params['workers'])
        try:
            pattern = re.compile(params['identity_pattern']) if params.get('identity_pattern') else None
        except re.error as exc:
            raise DeclarationError('option identity_pattern: %r is not a regular expression (%s)'
                                   % (params['identity_pattern'], exc))
        modules = [(module, family) for module, family in self.families if family.scheme == server
                   and (not params.get('include') or module in params['include'])
                   and module not in (params.get('exclude') or [])]
        return modules, pattern

    def run(self, client, params, check_mode):
        modules, pattern = self.chosen(params)
        finder = Finder(client, params.get('workers') or 8)
        found = Found()
        for module, family in modules:
            left_out = getattr(family, 'left_out', None)  # a module over several families has none of its own
            if left_out:
                found.not_exported[module] = left_out
                continue
            # a module over several scopes (firewall options and rules) exports each scope's objects
            scopes = getattr(family, 'scopes', {None: family})
            # ... and names the scope only where the module takes one (apt_repository tells them apart by identity)
            named = 'scope' in family.object_spec()
            for scope, scoped in sorted(scopes.items(), key=lambda pair: pair[0] or ''):
                try:
                    objects, gone = finder.find(scoped)
                except ApiError as exc:
                    if scoped.unavailable is None or not scoped.unavailable.search(str(exc)):
                        raise
                    found.not_exported[module] = 'not set up on this cluster: %s' % str(exc).strip()
                    continue
                for ident in gone:
                    found.warnings.append('%s: gone since listed (deleted while the export ran); not exported'
                                          % scoped.describe(ident))
                for ident, raw in sorted(objects, key=lambda pair, family=scoped: sort_key(family, pair[0])):
                    if not params.get('include_builtin') and scoped.is_builtin(ident, raw):
                        continue
                    if pattern and not pattern.search(identity_text(scoped, ident)):
                        continue
                    found.add(module, scope if named else None, scoped, ident, raw)
        return found.result()


class Found:
    """What an export returns, built object by object."""

    def __init__(self):
        self.objects, self.secrets, self.not_exported, self.refused, self.warnings = {}, [], {}, [], []

    def add(self, module, scope, family, ident, raw):
        """One live object as its module's options; its secrets as placeholders; refused unless declare takes it."""
        options = dict(scope=scope) if scope else {}
        options.update(family.export_options(ident, raw))
        placeheld = []
        for field in family.secrets_taken(ident, raw):
            variable = secret_variable(module, family, ident, field.option)
            options[field.option] = PLACEHOLDER % variable
            placeheld.append(dict(variable=variable, module=module, object=family.describe(ident),
                                  option=field.option))
        why = refusal(family, options, raw)
        if why:
            self.refused.append(dict(module=module, object=family.describe(ident), reason=why))
            return
        self.secrets.extend(placeheld)
        self.objects.setdefault(module, []).append(options)
        self.warnings.extend(family.export_notes(ident, raw))

    def result(self):
        return dict(changed=False, objects=self.objects, secrets=self.secrets, not_exported=self.not_exported,
                    refused=self.refused, warnings=self.warnings,
                    counts=dict((module, len(entries)) for module, entries in self.objects.items()))


EXPORT = Export(FAMILIES)
