# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``declare``: many objects of many families in one task.

Every object is validated before any request. Each family is read once through its list endpoint
where the rows carry every managed field (a row the list lacks is confirmed by the family's own
typed read, because lists are filtered by privilege), every object is planned with the same
``plan()`` as its single-object module, and only the drifted objects are written, each through
``reconcile()``, in dependency order (deletes last, in reverse order).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from concurrent.futures import ThreadPoolExecutor

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.errors import UnsupportedError

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    BatchFailed, DeclarationError, DriftFound, ProxmoxError)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import absent, listing_serves
from ansible_collections.homeflare.proxmox.plugins.module_utils.registry import APPLIERS, FAMILIES

# Reads in flight at once for a family read object by object (the export's default too): the server's workers,
# not this side's threads, bound the gain.
READ_WORKERS = 8


def validation_message(validation):
    message = validation.errors.msg
    if isinstance(validation.errors[0], UnsupportedError):
        message = 'unsupported parameters: %s' % message
    return message


class Batch(list):
    """The entries of one declare task as a reference check sees them, with a ``memo`` where checks keep what they
    read once per batch (the firewall's alias, IP set and group lists)."""

    def __init__(self, entries):
        super(Batch, self).__init__(entries)
        self.memo = {}


class Entry:
    """One declared object of a declare task and what the run found out about it."""

    def __init__(self, module, family, index, params, declaration):
        self.module = module
        self.family = family
        self.label = 'objects.%s[%d]' % (module, index)
        self.params = params
        self.declaration = declaration
        self.name = family.describe(declaration.ident)
        self.raw = None
        self.plan = None
        self.error = None
        self.written = None

    @property
    def action(self):
        return self.plan.action if self.plan is not None else None

    def as_result(self):
        result = dict(module=self.module, name=self.name)
        if self.plan is not None:
            result['plan'] = self.plan.as_dict()
            if self.written is not None:
                result['object'] = self.written['object']
            else:
                result['object'] = self.family.object_view(self.declaration, self.raw)
        if self.error is not None:
            result.update(failed=True, msg=str(self.error), error=type(self.error).__name__)
        return result

    def diff(self):
        diff = self.family.diff(self.declaration, self.raw, self.plan)
        diff.update(before_header=self.name, after_header=self.name)
        return diff

    def advice(self):
        """What the family warns about a found object it will not write (a ZFS pool's other layout)."""
        return self.family.advise(self.declaration, self.raw) if not absent(self.raw) else []

    def describe_drift(self):
        fields = ': %s' % ', '.join(self.plan.changed) if self.plan.changed else ''
        return '%s (%s%s)' % (self.name, self.plan.action, fields)


class Declare:
    """The task of the ``declare`` module (same interface as a Family: object_spec, run)."""

    scheme = 'pve'

    def __init__(self, families):
        self.families = families
        self.modules = dict(families)
        self._validators = {}
        # (the objects last validated, their outcome); a fresh object() matches no declaration, not even None.
        self._validated = (object(), None)

    def object_spec(self):
        spec = {}
        spec['objects'] = dict(type='dict', required=True)
        spec['fail_on_drift'] = dict(type='bool', default=False)
        return spec

    # -- validation, before any request ------------------------------------------------------
    def validator(self, module):
        if module not in self._validators:
            self._validators[module] = ArgumentSpecValidator(self.modules[module].object_spec())
        return self._validators[module]

    def validate(self, objects):
        """(entries, problems, no_log values); kept for the last ``objects`` seen, since both the
        secret masking and the run ask for it."""
        if self._validated[0] is not objects:
            self._validated = (objects, self._validate(objects))
        return self._validated[1]

    def _validate(self, objects):
        declared, problems, secrets, seen = [], [], set(), {}
        objects = objects or {}
        unknown = sorted(set(objects) - set(self.modules))
        if unknown:
            problems.append('objects: %s %s not a module declare takes (%s)' % (
                ', '.join(unknown), 'is' if len(unknown) == 1 else 'are', ', '.join(sorted(self.modules))))
        if len(self.schemes(objects)) > 1:
            known = sorted(module for module in objects if module in self.modules)
            problems.append('objects: %s are Proxmox Backup Server objects and %s Proxmox VE ones; one declare task '
                            'talks to one server, so declare each in a task of its own' % (
                                ', '.join(m for m in known if self.modules[m].scheme != self.scheme),
                                ', '.join(m for m in known if self.modules[m].scheme == self.scheme)))
        for module, family in self.families:
            options_list = objects.get(module) or []
            if not isinstance(options_list, list):
                problems.append('objects.%s: must be a list of %s options' % (module, module))
                continue
            for index, options in enumerate(options_list):
                label = 'objects.%s[%d]' % (module, index)
                if not isinstance(options, dict):
                    problems.append('%s: must be a mapping of %s options' % (label, module))
                    continue
                validation = self.validator(module).validate(options)
                secrets.update(validation._no_log_values)
                if validation.errors.errors:
                    problems.append('%s: %s' % (label, validation_message(validation)))
                    continue
                params = validation.validated_parameters
                if params.get('create_missing'):
                    # A token's secret is in its creation's answer alone, and declare's result is a report of many
                    # objects that Ansible shows: the secret would be lost (or shown). The module returns it once.
                    problems.append('%s: create_missing is not taken by declare: a new token\'s secret exists only in '
                                    'the answer that creates it, and declare returns no secrets; create the token '
                                    'with homeflare.proxmox.%s and register its result, then declare it here'
                                    % (label, module))
                    continue
                try:
                    target = family.resolve(params)
                    declaration = target.declaration(params)
                except ProxmoxError as exc:
                    problems.append('%s: %s' % (label, exc))
                    continue
                entry = Entry(module, target, index, params, declaration)
                key = target.declared_key(module, declaration.ident)
                if key in seen:
                    other_label, other_name = seen[key]
                    problems.append('%s: %s is already declared at %s%s' % (
                        label, entry.name, other_label, '' if other_name == entry.name else ' (%s)' % other_name))
                    continue
                seen[key] = (label, entry.name)
                declared.append(entry)
        for entry in declared:
            try:
                entry.family.check_together(entry.declaration, declared)
            except ProxmoxError as exc:
                problems.append('%s: %s' % (entry.label, exc))
        return declared, problems, secrets

    def secret_values(self, params):
        return self.validate(params.get('objects'))[2]

    def scheme_for(self, params):
        """The server the declared objects live on: Proxmox VE, or a Proxmox Backup Server (pbs_* families)."""
        schemes = self.schemes(params.get('objects'))
        return schemes.pop() if len(schemes) == 1 else self.scheme

    def schemes(self, objects):
        return set(self.modules[module].scheme for module in (objects or {}) if module in self.modules)

    # -- the run -----------------------------------------------------------------------------
    def run(self, client, params, check_mode):
        entries, problems, _secrets = self.validate(params.get('objects'))
        if problems:
            raise DeclarationError('%d declared object(s) are invalid; nothing was read or written. %s'
                                   % (len(problems), '; '.join(problems)))
        self.plan_all(client, entries)
        unjudged = [entry for entry in entries if entry.error is not None]
        if unjudged:
            raise BatchFailed('%d of %d objects could not be judged, so nothing was written: %s' % (
                len(unjudged), len(entries), '; '.join('%s: %s' % (entry.name, entry.error) for entry in unjudged)),
                self.result(entries))
        drifted = [entry for entry in entries if entry.action != 'none']
        if check_mode:
            if drifted and params.get('fail_on_drift'):
                raise DriftFound('%d of %d objects differ from the declaration: %s' % (
                    len(drifted), len(entries), '; '.join(entry.describe_drift() for entry in drifted)),
                    self.result(entries))
            return self.result(entries)
        self.write(client, drifted, entries)
        return self.result(entries)

    @staticmethod
    def read_one(client, target, entry, listing, rows):
        """One object's read: its row of the family's list, confirmed by its own read where the list lacks it, or
        its own read where there is no list (or the list does not carry what it declares)."""
        if rows is None or not listing_serves(listing, entry.declaration):
            return target.read(client, entry.declaration)
        if target.key(entry.declaration.ident) in rows:
            return rows[target.key(entry.declaration.ident)]
        return target.store.read_unlisted(client, target, entry.declaration.ident)

    @staticmethod
    def read_in_parallel(client, members):
        """Each object's own read at once, on per-thread clients (a family with no list read: one GET per guest).
        A failed read is kept as the entry's error, as a serial read's would be; the plans are made in order."""
        def read(entry):
            try:
                entry.raw = entry.family.read(client.for_this_thread(), entry.declaration)
            except ProxmoxError as exc:
                entry.error = exc

        if len(members) < 2:
            return
        with ThreadPoolExecutor(max_workers=min(READ_WORKERS, len(members))) as pool:
            list(pool.map(read, members))

    def plan_family(self, client, family, members):
        """Read one family's objects (its list once, else each on its own) and plan them; never writes."""
        rows, listing_error = None, None
        if family.listing is not None:
            try:
                rows = family.listing.read(client, family)
            except ProxmoxError as exc:
                listing_error = exc
        if rows is None and listing_error is None and getattr(family, 'reads_in_parallel', False):
            self.read_in_parallel(client, members)
        for entry in members:
            if listing_error is not None:
                entry.error = listing_error
                continue
            if entry.error is not None:  # its parallel read failed
                continue
            try:
                if entry.raw is None:  # not read in parallel above
                    entry.raw = self.read_one(client, family, entry, family.listing, rows)
                entry.plan = family.plan(entry.declaration, entry.raw)
                if entry.plan.action != 'none':
                    family.check_plan(client, entry.declaration, entry.raw, entry.plan)
            except ProxmoxError as exc:
                entry.error = exc

    def plan_all(self, client, entries):
        """Read each family once (its list) or per object, then plan every object; never writes, so the reads
        many objects share (the guests' resource list) are sent once."""
        with client.sharing_reads():
            self.judge_all(client, entries)

    def judge_all(self, client, entries):
        for module, _family in self.families:
            members = [entry for entry in entries if entry.module == module]
            # the module's family, or each scope's of a module over several (the cluster's aliases: one list read)
            targets = []
            for entry in members:
                if entry.family not in targets:
                    targets.append(entry.family)
            for target in targets:
                self.plan_family(client, target, [entry for entry in members if entry.family is target])
        # A reference may name an object declared beside it (an alias an IP set lists): judged once all are read.
        batch = Batch(entries)
        for entry in entries:
            if entry.action in ('create', 'update'):
                try:
                    entry.family.check_references(entry.declaration, entry.raw, batch, client)
                except ProxmoxError as exc:
                    entry.error = exc
        # An apply also covers what this run will stage: judged again once every object has its plan.
        for entry in entries:
            if entry.module in APPLIERS and entry.plan is not None:
                entry.plan = entry.family.plan(entry.declaration, entry.raw, entries)

    def write(self, client, drifted, entries):
        """Creates and updates in dependency order, then deletes in reverse; stop at the first failure."""
        order = [module for module, _family in self.families]
        # Within a module, a family's declare_rank orders its scopes (security groups before the rules naming them).
        ranked = sorted(drifted, key=lambda entry: (entry.module in APPLIERS, entry.action == 'delete',
                                                    order.index(entry.module) * (-1 if entry.action == 'delete' else 1),
                                                    entry.family.declare_rank))
        done = []
        for position, entry in enumerate(ranked):
            try:
                # An apply runs last, after the deletes (they are staged too); it reads again and applies only
                # if something is staged. Each family's own run (a guest's also acts on its power state).
                entry.written = entry.family.run(client, entry.params, check_mode=False)
            except ProxmoxError as exc:
                entry.error = exc
                untouched = ranked[position + 1:]
                raise BatchFailed('writing %s failed: %s. Written before it: %s. Not attempted: %s.' % (
                    entry.name, exc, ', '.join(other.describe_drift() for other in done) or 'nothing',
                    ', '.join(other.name for other in untouched) or 'nothing'), self.result(entries))
            done.append(entry)

    def result(self, entries):
        drifted = [entry for entry in entries if entry.action not in (None, 'none')]
        counts = dict(judged=len([entry for entry in entries if entry.plan is not None]), matched=0, create=0,
                      update=0, delete=0, apply=0, revert=0, power=0, prune=0, rollback=0, backup=0, sync=0, resync=0,
                      failed=len([entry for entry in entries if entry.error is not None]))
        for entry in entries:
            if entry.plan is not None:
                counts['matched' if entry.action == 'none' else entry.action] += 1
        warnings = []
        for entry in entries:
            if entry.written is not None:
                warnings.extend(entry.written.get('warnings') or [])
            elif entry.plan is not None:
                warnings.extend(entry.advice())
        return dict(changed=bool(drifted), results=[entry.as_result() for entry in entries],
                    summary=counts, diff=[entry.diff() for entry in drifted], warnings=warnings)


DECLARE = Declare(FAMILIES)
