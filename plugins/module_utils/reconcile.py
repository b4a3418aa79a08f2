# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Family (what a module declares) and reconcile(): read → plan → write → read back.

``reconcile`` is a plain function of (client, family, one declaration), not bound to
AnsibleModule, so a module, a role-sized batch and the unit tests share it. The same
comparison decides the plan in check mode and the write in a real run.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import SCHEMES, Repeated, item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    ApiError, Conflict, DeclarationError, MissingReference, NotConverged, Refused, Unreadable)
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import MISSING, UNMANAGED
from ansible_collections.homeflare.proxmox.plugins.module_utils.tasks import poll_until, wait_if_task


class Absent:
    """The one way a read says "no such object". A family may answer a richer absence (a guest's keeps the cluster's
    guest list it was confirmed with) by subclassing it; every caller tests ``absent(raw)``, never identity."""

    def __bool__(self):
        return False

    __nonzero__ = __bool__

    def __repr__(self):
        return 'ABSENT'


ABSENT = Absent()


def absent(raw):
    """Whether a read found nothing (ABSENT or a family's own Absent)."""
    return isinstance(raw, Absent)


# PVE's and PBS's refusals of a write that met another writer's change: the digest no longer matches
# (update; a QEMU guest's config says "checksum mismatch"), the object was created meanwhile (create).
# Neither applied anything, so re-judging is safe.
MODIFIED_UNDERNEATH = re.compile(r'detected modified configuration|checksum mismatch')
CREATED_UNDERNEATH = re.compile(r'already (exists|defined)')


class Absence:
    """The typed answer that means "no such object": a status and, optionally, PVE's message, or the
    per-parameter error it carries (``errors={'iface': 'interface does not exist'}``: a 400 says so
    only in that one parameter's error, and any other 400 is a real failure)."""

    def __init__(self, statuses=(404,), message=None, errors=None):
        self.statuses = tuple(statuses)
        self.message = re.compile(message) if message else None
        self.errors = dict((key, re.compile(text)) for key, text in (errors or {}).items())

    def matches(self, exc):
        if exc.status not in self.statuses:
            return False
        if self.message is not None and not self.message.search(exc.reason):
            return False
        return all(pattern.search(str(exc.errors.get(key, ''))) for key, pattern in self.errors.items())


class Listing:
    """A list endpoint whose rows carry every managed field, so a batch reads a family once.

    ``params`` are sent with the GET (``full=1``); ``row`` turns a row into the shape of the item
    read when the two differ (a role's row holds ``privs`` as a string, its item a map). ``lacks``: the options the
    rows do not carry (a pool's members); a declaration managing one is read as an item instead.
    """

    def __init__(self, path, params=None, row=None, lacks=()):
        self.path = path
        self.params = params
        self.row = row
        self.lacks = tuple(lacks)

    def read(self, client, family):
        """Rows by identity key (the identity fields' canonical values, in order)."""
        rows = {}
        for row in client.get(self.path, params=self.params, role=family.read_role) or []:
            key = tuple(field.canonical(row.get(field.wire)) for field in family.identity)
            rows[key] = self.row(row) if self.row else row
        return rows


def listing_serves(listing, declaration):
    """Whether a listing's rows carry everything this declaration compares (any listing kind: ``lacks`` is
    optional)."""
    return not any(declaration.values.get(option) is not None for option in getattr(listing, 'lacks', ()))


class ItemStore:
    """The common shape: GET/PUT/DELETE on the item path, create by POST (collection or item path)."""

    def read(self, client, family, ident):
        return self.read_at(client, family, family.path(ident))

    @staticmethod
    def read_at(client, family, path, params=None):
        """A read at ``path``; the family's typed absence answer is ABSENT, any other failure is raised.
        PBS answers a section's digest beside ``data``: it is kept with the object, as PVE keeps it inside."""
        try:
            if not SCHEMES[family.scheme].digest_beside_data:
                return client.get(path, params=params, role=family.read_role) or {}
            reply = client.request('GET', path, params, role=family.read_role)
        except ApiError as exc:
            if family.absence.matches(exc):
                return ABSENT
            raise
        raw = reply.data or {}
        if isinstance(raw, dict) and reply.extras.get('digest') and 'digest' not in raw:
            raw = dict(raw, digest=reply.extras['digest'])
        return raw

    def read_unlisted(self, client, family, ident):
        """The family's list lacks this row; lists are filtered by privilege, so only the item read decides."""
        return self.read(client, family, ident)

    def create(self, client, family, ident, form):
        if family.create_on == 'collection':
            form = dict(form, **family.identity_form(ident, family.collection))
            return client.post(family.collection_path(ident), form, role=family.write_role)
        return client.post(family.path(ident), form, role=family.write_role)

    def update(self, client, family, ident, form, live):
        return client.put(family.path(ident), form, role=family.write_role)

    def delete(self, client, family, ident, params=None):
        return client.delete(family.path(ident), params=params, role=family.write_role)


class QueryStore(ItemStore):
    """An item addressed as its collection with the identity as parameters: GET, PUT and DELETE
    ``/pools?poolid=lab/web`` (pve-manager PVE/API2/Pool.pm ``index``, ``update_pool``, ``delete_pool``, PVE 8.1+),
    where an item path cannot name a nested id. The read answers a list holding the one object; a successful read
    without it is not an absence (PVE says "does not exist" for that), so it fails."""

    def read(self, client, family, ident):
        rows = self.read_at(client, family, family.collection_path(ident), family.identity_form(ident))
        if absent(rows):
            return rows
        if not isinstance(rows, list) or len(rows) != 1:
            raise Unreadable('%s: %s answered %d objects where it names one; it is not treated as absent'
                             % (family.describe(ident), family.collection_path(ident), len(rows or [])))
        return rows[0]

    def create(self, client, family, ident, form):
        return client.post(family.collection_path(ident), dict(form, **family.identity_form(ident)),
                           role=family.write_role)

    def update(self, client, family, ident, form, live):
        return client.put(family.collection_path(ident), dict(form, **family.identity_form(ident)),
                          role=family.write_role)

    def delete(self, client, family, ident, params=None):
        return client.delete(family.collection_path(ident), params=dict(params or {}, **family.identity_form(ident)),
                             role=family.write_role)


class ConfirmedAbsenceStore(ItemStore):
    """An item whose "missing" answer is not typed (Ceph's ``unrecognized pool``, a failed ``zpool status``):
    absent only when the collection, read with the same credential, lacks the object too. A failed list fails
    the task, and a listed object whose read failed is unreadable: creating over it would not be a no-op (unless
    a second read finds it: created by another writer between the two reads). ``key`` is the list rows' name for
    the last identity field; the item is read at its path plus ``suffix`` (a Ceph pool's ``/status``), with
    ``params`` (``verbose=1``); the list with ``list_params`` (PBS's sync jobs of every direction).
    """

    def __init__(self, key, suffix='', params=None, list_params=None):
        self.key = key
        self.suffix = suffix
        self.params = params
        self.list_params = list_params

    def read(self, client, family, ident):
        raw = self.read_at(client, family, family.path(ident) + self.suffix, self.params)
        if not absent(raw):
            return raw
        name = ident[family.identity[-1].option]
        rows = client.get(family.collection_path(ident), params=self.list_params, role=family.read_role) or []
        if any(str(row.get(self.key)) == name for row in rows):
            # Created between the two reads (another run)? Then a second read finds it.
            raw = self.read_at(client, family, family.path(ident) + self.suffix, self.params)
            if absent(raw):
                raise Unreadable('%s is listed by %s but reading it failed; it is not treated as absent'
                                 % (family.describe(ident), family.collection_path(ident)))
        return raw


class IndexStore(ItemStore):
    """An object known only as a row of its collection (Ceph's monitors, managers, metadata servers): absent
    when a successful index has no row whose ``key`` is the last identity field; a failed index fails."""

    def __init__(self, key):
        self.key = key

    def read(self, client, family, ident):
        name = ident[family.identity[-1].option]
        for row in client.get(family.collection_path(ident), role=family.read_role) or []:
            if str(row.get(self.key)) == name:
                return row
        return ABSENT


class Concern:
    """One concern of a family's table: its settings as keyword arguments, each defaulting as ``DEFAULTS`` says."""

    DEFAULTS = {}

    def __init__(self, **settings):
        unknown = sorted(set(settings) - set(self.DEFAULTS))
        if unknown:
            raise TypeError('%s takes no %s' % (type(self).__name__, ', '.join(unknown)))
        for name, default in self.DEFAULTS.items():
            setattr(self, name, settings.get(name, default))


class Where(Concern):
    """Where a family's objects live and how they are reached (ARCHITECTURE.md section 4, *where*).

    ``item`` and ``collection`` are path templates; ``create_on`` says whether a create POSTs to the collection
    or to the item path; ``store`` reads and writes one object (ItemStore unless the family's shape differs);
    ``listing`` reads a whole family in one request where its rows carry every managed field; ``absence`` is the
    typed answer that means "no such object"; ``read_role``/``write_role`` the credentials that read and write;
    ``schema`` the call whose parameters the fields' copied rules come from (checked against the official schema).
    """

    DEFAULTS = dict(item=None, collection=None, create_on='collection', store=None, listing=None, absence=None,
                    read_role='read', write_role='provision', schema=None)


class Lifecycle(Concern):
    """How a family's objects live (ARCHITECTURE.md section 4, *how it lives*).

    * ``singleton``: the object always exists (datacenter options, a scope's firewall options): no state option,
      no create, no delete, and no answer means unreadable, never absent;
    * ``retain``: the object holds data, so state=absent also needs confirm_removal=true;
    * ``send_digest``: updates carry the digest read, so another writer's change is never overwritten;
    * ``list_delete``: delete= as an array parameter (repeated keys), as PVE's notification API takes it;
    * ``task_timeout``: writes start a worker task, waited for this long by default (a task_timeout option);
    * ``settle``: seconds to re-read after a write until the object matches (PVE answers some writes, a Ceph
      pool's, with a task that ends before Ceph applied them); None: one read back (a settle_timeout option).
    """

    DEFAULTS = dict(singleton=False, retain=False, send_digest=False, list_delete=False, task_timeout=None,
                    settle=None)


class Exporting(Concern):
    """How a family's objects are exported (ARCHITECTURE.md section 4, *how it is exported*).

    * ``placeholders``: the secrets an export puts a placeholder for, {wire name: the types that take it, or
      None for all}. None: every secret the object's type takes (type_rules), or every secret. {}: none (a
      guest's root password is a create parameter of a create the export never declares);
    * ``unavailable``: an answer that means the service the family lives in is not set up (Ceph not installed):
      an export reports the family as skipped, naming it, instead of failing. Any other failure still fails;
    * ``left_out``: why an export declares none of the family's objects (a snapshot is a point in time, not a
      declaration), reported in its ``not_exported`` instead of reading anything. None: exported.
    """

    DEFAULTS = dict(placeholders=None, unavailable=None, left_out=None)

    def __init__(self, **settings):
        super(Exporting, self).__init__(**settings)
        self.unavailable = re.compile(self.unavailable) if self.unavailable else None


class Task:
    """What reconcile() and ``declare`` ask of every object a module judges, a Family's or an apply's: it picks
    the task for its parameters (``resolve``), runs through reconcile(), keys its identity, and starts its result
    (``outcome``); its reference check and advice do nothing unless a family says otherwise."""

    # Within one module's objects in a declare, lower ranks are written first (security groups before the
    # rules that name them).
    declare_rank = 0

    def resolve(self, params):
        """The task that judges one object: this one (a module over several scopes picks one per object)."""
        return self

    def run(self, client, params, check_mode):
        return reconcile(client, self, params, check_mode=check_mode)

    def key(self, ident):
        return tuple(ident[field.option] for field in self.identity)

    def declared_key(self, module, ident):
        """What one ``declare`` task may declare once: an object of this module and scope with this identity."""
        return (module, self.name) + self.key(ident)

    def check_together(self, declaration, entries):
        """Refuse, in ``declare`` before any request, a declaration that contradicts another one of the same task
        (``entries``: every valid entry), such as a guest's pool set both on the guest and in the pool's members
        (DeclarationError)."""

    def check_references(self, declaration, raw, batch, client):
        """Refuse, before a create or an update writes anything, a reference to an object that neither exists nor
        is declared in the same ``declare`` task (``batch``: its entries), such as an IP set entry naming a missing
        alias. It may read the lists it needs."""

    def advise(self, declaration, raw):
        """Warnings about a found object nothing can write (a ZFS pool's layout)."""
        return []

    def check_plan(self, client, declaration, raw, the_plan):
        """Refuse, in check mode too and in ``declare``, a planned write the connection or the live object cannot
        carry out (a cluster join asked of an API token, which PVE lets only root@pam make)."""

    def outcome(self, declaration, raw, the_plan):
        """The result before anything is written: changed, plan, diff and warnings (what check mode returns,
        with the object)."""
        result = dict(changed=the_plan.action != 'none', plan=the_plan.as_dict(), warnings=[],
                      diff=self.diff(declaration, raw, the_plan))
        if not absent(raw):
            result['warnings'].extend(self.advise(declaration, raw))
        return result


class Family(Task):
    """Everything a module declares about one object family; the core does the rest.

    The constructor takes the family's table: its ``module`` (the module name it is registered under, see
    registry.py), a ``name`` for messages, ``identity`` and ``fields`` (kinds from fields.py), and one object per
    concern (``where``, ``lifecycle``, ``exporting``), plus ``scheme`` (pve or pbs), ``type_rules`` (which options
    each ``type`` takes) and ``controls`` (module options that are not fields, such as a confirmation: name ->
    argument spec; their values are the declaration's ``controls``).

    What a family does differently is a method it overrides, each taking (declaration, raw, ...) and doing
    nothing by default: the checks (``check_declaration``, ``check_create``, ``check_found``,
    ``check_references``, ``check_write``), what is said or returned (``advise``, ``created``, ``report``,
    ``view``), how a reset built-in looks (``is_reset``), what an export leaves out (``is_builtin``), how it
    finds every object (``find_all``) or what it says of one (``export_notes``). The run itself (``reconcile``) is
    a fixed sequence of steps (read, plan, preflight, act, finish) that guests, staged families and applies
    override, never re-implement.
    """

    def __init__(self, module, name, identity, fields, where, scheme='pve', lifecycle=None, exporting=None,
                 type_rules=None, controls=None):
        where = where or Where()
        lifecycle = lifecycle or Lifecycle()
        exporting = exporting or Exporting()
        self.module = module
        self.name = name
        self.identity = identity
        self.fields = fields
        self.scheme = scheme
        self.item = where.item
        self.collection = where.collection
        self.create_on = where.create_on
        self.store = where.store or ItemStore()
        self.listing = where.listing
        self.read_role = where.read_role
        self.write_role = where.write_role
        self.singleton = lifecycle.singleton
        self.absence = where.absence or (Absence(()) if self.singleton else Absence())
        self.schema = where.schema or ('POST', self.collection if self.create_on == 'collection' else self.item)
        self.retain = lifecycle.retain
        self.send_digest = lifecycle.send_digest
        self.list_delete = lifecycle.list_delete
        self.task_timeout = lifecycle.task_timeout
        self.settle = lifecycle.settle
        self.placeholders = exporting.placeholders
        self.unavailable = exporting.unavailable
        self.left_out = exporting.left_out
        self.type_rules = type_rules
        self.controls = controls or {}

    # -- what a family may override (each does nothing by default) ----------------------------------
    def check_declaration(self, declaration):
        """Refuse, before any request, a declaration the fields' own rules let through (DeclarationError)."""

    def check_create(self, declaration):
        """Refuse what only a create must meet (a secret PVE's add hook insists on): judged once absent."""

    def check_found(self, declaration, raw, changed):
        """Refuse what the live object forbids (a pool CephFS owns), in check mode too."""

    def check_write(self, declaration, raw, the_plan):
        """Refuse, in a real run only, a write the task did not confirm (a prune job's narrowed retention)."""

    def created(self, declaration, answer):
        """What a create's answer holds that no read ever gives again (a new API token's secret), merged into
        the result of that one run."""
        return {}

    def report(self, raw):
        """What the returned object shows beside the managed fields (member counts, tokens)."""
        return {}

    def view(self, raw):
        """The read as the fields see it, where the wire shape differs (a nested answer)."""
        return raw

    def is_reset(self, raw):
        """A built-in object PVE cannot remove answers its DELETE by resetting: whether a read is in that reset
        state, which is what state=absent can reach."""
        return False

    def is_builtin(self, ident, raw):
        """An object the server ships (the pam realm, a PVE* role): an export leaves it out unless asked for."""
        return False

    def find_all(self, client):
        """[(ident, raw)] of every object, where the export's generic way (the listing, else the collection and one
        read per object) does not fit; None: the generic way."""
        return None

    def export_notes(self, ident, raw):
        """What an export says about one exported object beside its options, as warnings (a volume whose source
        PVE keeps nowhere, so the options it exports adopt it but cannot fetch it again)."""
        return []

    # -- the module's interface ----------------------------------------------------------
    def object_spec(self):
        """The module's options for one object (the connection's are added by the entry point)."""
        spec = {}
        for field in self.identity + self.fields:
            option = field.argument_spec()
            # An option only some types take has no argument default: a value in the task's parameters must
            # be one it declared, so the type can refuse it. Undeclared, it still means its default.
            if field.managed_when_undeclared and (self.type_rules is None or self.type_rules.common(field.wire)):
                option['default'] = field.default
            spec[field.option] = option
        if not self.singleton:
            spec['state'] = dict(type='str', default='present', choices=['present', 'absent'])
        if self.retain:
            spec['confirm_removal'] = dict(type='bool', default=False)
        if self.task_timeout:
            spec['task_timeout'] = dict(type='int', default=self.task_timeout)
        if self.settle:
            spec['settle_timeout'] = dict(type='int', default=self.settle)
        spec.update((name, dict(option)) for name, option in self.controls.items())
        return spec

    # -- paths and forms -------------------------------------------------------------------
    def path(self, ident):
        return item_path(self.item, dict((field.wire, ident[field.option]) for field in self.identity))

    def collection_path(self, ident):
        """The collection, with the identity fields it names filled in (/nodes/{node}/network)."""
        return item_path(self.collection, dict((field.wire, ident[field.option]) for field in self.identity
                                               if '{%s}' % field.wire in self.collection))

    def identity_form(self, ident, path=''):
        """The identity as form fields, less those the path already carries."""
        return dict((field.wire, field.encode(ident[field.option])) for field in self.identity
                    if '{%s}' % field.wire not in path)

    def describe(self, ident):
        if not self.identity:
            return self.name
        return "%s '%s'" % (self.name, "', '".join(str(ident[field.option]) for field in self.identity))

    # -- judging -------------------------------------------------------------------------
    def declaration(self, params):
        """Validate and canonicalise the task's options; raises DeclarationError before any request."""
        ident = dict((field.option, field.declared(params[field.option])) for field in self.identity)
        for field in self.identity:
            if ident[field.option] in ('', None):
                raise DeclarationError('option %s must not be empty' % field.option)
        declared = {}
        for field in self.fields:
            value = params.get(field.option)
            if value is not None:
                declared[field.option] = field.declared(value)
        state = params.get('state', 'present')
        self.check_removal_confirmed(ident, state, params)
        if self.type_rules:
            self.type_rules.check(self.fields, declared, state)
        settle = params.get('settle_timeout')
        declaration = Declaration(ident, declared, state, params.get('task_timeout') or self.task_timeout,
                                  settle=self.settle if settle is None else settle,
                                  controls=dict((name, params.get(name, option.get('default')))
                                                for name, option in self.controls.items()))
        self.check_declaration(declaration)
        if settle is not None and settle < 0:
            raise DeclarationError('option settle_timeout: %r is below the minimum 0' % settle)
        return declaration

    def check_removal_confirmed(self, ident, state, params):
        """A family that holds data removes an object only with confirm_removal=true."""
        if state == 'absent' and self.retain and not params.get('confirm_removal'):
            raise Refused('%s holds data: state=absent also needs confirm_removal=true' % self.describe(ident))

    def managed(self, declaration):
        """Fields compared in this run: declared ones, and undeclared ones that mean a default (of those the
        declared type takes)."""
        taken = self.type_rules.taken(declaration.values.get('type')) if self.type_rules else None
        return [field for field in self.fields
                if field.compared and (field.option in declaration.values or field.managed_when_undeclared)
                and (taken is None or field.wire == 'type' or field.wire in taken)]

    def current(self, raw, fields=None):
        """Canonical live values of every readable field (or of ``fields`` only: a guest has dozens, and a
        judgement needs its managed ones), from a raw read."""
        view = self.view(raw)
        return dict((field.option, field.live(view.get(field.wire, MISSING)))
                    for field in (self.fields if fields is None else fields) if field.compared)

    def managed_view(self, ident, raw, managed):
        """Identity and the managed fields' live values: what a diff shows."""
        if absent(raw):
            return {}
        current = self.current(raw, managed)
        view = dict(ident)
        view.update((field.option, current[field.option]) for field in managed)
        return view

    def export_options(self, ident, raw):
        """The module options that declare this live object as it is: the identity, every field that is set and
        managed only when declared, and every field with a default that differs from it, in canonical form (what
        the comparison uses, so declaring them back is a no-op). Secrets, create parameters and removal parameters
        are never read, so never exported."""
        current = self.current(raw)
        taken = self.type_rules.taken(current.get('type')) if self.type_rules else None
        options = dict(ident)
        for field in self.fields:
            if not field.compared or (taken is not None and field.wire != 'type' and field.wire not in taken):
                continue
            value = current[field.option]
            if field.managed_when_undeclared:
                if not field.differs(field.default, value):
                    continue
            elif field.is_unset(value):
                continue
            options[field.option] = field.exported(value)
        return options

    def secrets_taken(self, ident, raw):
        """The secret fields an export of this object puts placeholders for: those its type takes."""
        kind = ident.get('type') or self.current(raw).get('type')
        secrets = [field for field in self.fields if field.secret]
        if self.placeholders is not None:
            return [field for field in secrets if field.wire in self.placeholders
                    and (self.placeholders[field.wire] is None or kind in self.placeholders[field.wire])]
        taken = self.type_rules.taken(kind) if self.type_rules else None
        return [field for field in secrets if taken is None or field.wire in taken]

    # -- the steps reconcile() runs, which declare and the export call too (an Applier answers the same) ---
    def read(self, client, declaration):
        return self.store.read(client, self, declaration.ident)

    def plan(self, declaration, raw, batch=()):
        return field_plan(self, declaration, raw)

    def object_view(self, declaration, raw):
        return self.managed_view(declaration.ident, raw, self.managed(declaration))

    def diff(self, declaration, raw, the_plan):
        return diff_of(self, declaration, raw, the_plan.action)

    def preflight(self, client, declaration, raw, the_plan, result, check_mode):
        """What is refused before a write, in check mode too (the plan, references) or in a real run only
        (check_write)."""
        if the_plan.action != 'none':
            self.check_plan(client, declaration, raw, the_plan)
        if the_plan.action in ('create', 'update'):
            try:
                self.check_references(declaration, raw, (), client)
            except MissingReference as exc:
                if not check_mode:
                    raise
                result['warnings'].append('%s (check mode: an earlier task of this play may create it; a real run '
                                          'refuses it)' % exc)
        if not check_mode and the_plan.action != 'none':
            self.check_write(declaration, raw, the_plan)

    def act(self, client, declaration, raw, the_plan, result):
        """Write what the plan says, wait for its task and read back until it matches; returns (the object as read
        afterwards, the plan written, or the re-judged one when another writer left nothing to do)."""
        ident = declaration.ident
        seen = [raw]  # the object as last read: a re-judge reads it again

        def rejudge():
            seen[0] = self.read(client, declaration)
            again = self.plan(declaration, seen[0])
            result.update(diff=self.diff(declaration, seen[0], again))
            return again

        the_plan, answer = rejudged_once(self, ident, the_plan,
                                         lambda current: write(client, self, declaration, current, seen[0]),
                                         rejudge, result['warnings'])
        if the_plan.action == 'none':
            return seen[0], the_plan
        if the_plan.action == 'create':
            result.update(self.created(declaration, answer))
        upid = wait_if_task(client, answer, self.write_role, declaration.task_timeout or 60, result['warnings'])
        after = read_back(client, self, declaration, the_plan, upid)
        if the_plan.action == 'delete' and not absent(after):
            result['warnings'].append('%s is built in and cannot be removed: it was reverted to its shipped defaults'
                                      % self.describe(ident))
        return after, the_plan

    def finish(self, client, declaration, raw, the_plan, result):
        """The result's ``object``: the managed view plus what the family reports (member counts, tokens)."""
        view = self.object_view(declaration, raw)
        if view:
            view.update(self.report(raw))
        result['object'] = view
        return result


class Declaration:
    def __init__(self, ident, values, state, task_timeout, settle=None, controls=None):
        self.ident = ident
        self.values = values
        self.state = state
        self.task_timeout = task_timeout
        # Seconds a write may take to show after its task ended (the family's settle, or the task's settle_timeout).
        self.settle = settle
        # The values of the family's module options that are not fields (Family.controls).
        self.controls = controls or {}
        # Where a family whose objects live under another found it (a guest's firewall: the guest's type and
        # node), set by its read; None until then, and when there is nothing to find.
        self.located = None

    def desired(self, field):
        return self.values[field.option] if field.option in self.values else field.default


class Plan:
    def __init__(self, read, action, changed):
        self.read = read
        self.action = action
        self.changed = changed

    def as_dict(self):
        return dict(read=self.read, action=self.action, changed=list(self.changed))


def is_removed(family, raw):
    """Absent, or a built-in in the state its DELETE leaves it in (PVE resets what it cannot remove)."""
    return absent(raw) or bool(family.is_reset(raw))


def field_plan(family, declaration, raw):
    """What one declaration asks of the live object, field by field; never touches the server."""
    read = 'absent' if absent(raw) else 'found'
    managed = family.managed(declaration)
    if declaration.state == 'absent':
        if not absent(raw):
            family.check_found(declaration, raw, [])
        return Plan(read, 'none' if is_removed(family, raw) else 'delete', [])
    if absent(raw) and family.singleton:
        raise Unreadable('%s has no answer to read, and it always exists' % family.describe(declaration.ident))
    if absent(raw):
        family.check_create(declaration)
        changed = [field.option for field in managed if not field.is_unset(declaration.desired(field))]
        return Plan(read, 'create', changed)
    current = family.current(raw, managed)
    changed = [field.option for field in managed
               if not field.create_only and field.differs(declaration.desired(field), current[field.option])]
    family.check_found(declaration, raw, changed)
    for field in managed:
        if field.create_only and field.differs(declaration.desired(field), current[field.option]):
            raise Refused(
                '%s: %s is %r on the server but the task declares %r; %s cannot be changed in place. '
                'Nothing was written.' % (family.describe(declaration.ident), field.option, current[field.option],
                                          declaration.desired(field), field.option))
    return Plan(read, 'update' if changed else 'none', changed)


def create_form(family, declaration):
    form = {}
    for field in family.fields:
        if field.delete_param:
            continue
        value = declaration.values.get(field.option) if field.secret else declaration.desired(field)
        if value is UNMANAGED or value is None or (not field.secret and field.is_unset(value)):
            continue
        form[field.wire] = field.encode(value)
    return form


def update_form(family, declaration, changed, raw):
    """Only the drifted fields; a value meaning "unset" goes to delete= when the field clears that way.

    Clear wins by construction: a key is either set or deleted, never both.
    """
    form, delete = {}, []
    by_option = dict((field.option, field) for field in family.fields)
    for option in changed:
        field = by_option[option]
        value = declaration.desired(field)
        if field.is_unset(value) and field.clear == 'delete':
            delete.append(field.wire)
        else:
            form[field.wire] = field.encode_update(value, raw.get(field.wire, MISSING))
    for field in family.fields:
        value = declaration.desired(field)
        sent_anyway = field.always_send or any(wire in form for wire in field.send_with)
        if (sent_anyway and field.wire not in form and field.wire not in delete
                and value is not UNMANAGED and value is not None and not field.is_unset(value)):
            form[field.wire] = field.encode(value)
    if delete:
        if SCHEMES[family.scheme].delete_as_list:
            form['delete'] = delete
        else:
            form['delete'] = Repeated(delete) if family.list_delete else ','.join(delete)
    if family.send_digest and raw.get('digest'):
        form['digest'] = raw['digest']
    return form


def diff_of(family, declaration, raw, action):
    managed = family.managed(declaration)
    before = family.managed_view(declaration.ident, raw, managed)
    if action == 'delete':
        return dict(before=before, after={})
    after = dict(declaration.ident)
    after.update((field.option, declaration.desired(field)) for field in managed)
    if action == 'none':
        after = dict(before)
    return dict(before=before, after=after)


def reconcile(client, family, params, check_mode=False):
    """Bring one object to its declaration; returns the module result (changed, diff, object, plan).

    The one pipeline: read, plan, preflight, then (a real run with something to do) act, and finish. A family
    that differs overrides a step (a guest's act also resizes and powers, a staged family's finish says what is
    pending, an apply's act applies), never the sequence."""
    declaration = family.declaration(params)
    raw = family.read(client, declaration)
    the_plan = family.plan(declaration, raw)
    result = family.outcome(declaration, raw, the_plan)
    family.preflight(client, declaration, raw, the_plan, result, check_mode)
    if not check_mode and the_plan.action != 'none':
        raw, the_plan = family.act(client, declaration, raw, the_plan, result)
        result.update(changed=the_plan.action != 'none', plan=the_plan.as_dict())
    return family.finish(client, declaration, raw, the_plan, result)


def rejudged_once(family, ident, the_plan, write_plan, rejudge, warnings):
    """``write_plan(plan)``; when PVE refused it because another writer changed or created the object since it
    was read (nothing of ours was applied), ``rejudge()`` reads and plans again and, unless nothing is left to
    do, the write is made once more. A second such refusal is a Conflict and nothing is overwritten.
    Returns (the plan written, or the re-judged one with nothing to do; the write's answer or None)."""
    try:
        return the_plan, write_plan(the_plan)
    except ApiError as exc:
        if not met_another_writer(family, the_plan, exc):
            raise
        the_plan = rejudge()
        warnings.append('%s was changed by another writer while this task ran (%s); it was read and judged again'
                        % (family.describe(ident), exc.reason.strip()))
    if the_plan.action == 'none':
        return the_plan, None
    try:
        return the_plan, write_plan(the_plan)
    except ApiError as again:
        if met_another_writer(family, the_plan, again):
            raise Conflict('%s keeps changing underneath: the write was refused twice (%s). Nothing was '
                           'overwritten; run again when the other writer is done.'
                           % (family.describe(ident), again.reason.strip()))
        raise


def write(client, family, declaration, the_plan, raw):
    """Send the one write the plan asks for; returns the answer (a UPID for a worker task)."""
    ident = declaration.ident
    if the_plan.action == 'create':
        return family.store.create(client, family, ident, create_form(family, declaration))
    if the_plan.action == 'update':
        return family.store.update(client, family, ident, update_form(family, declaration, the_plan.changed, raw),
                                   raw)
    removal = delete_params(family, declaration)
    if removal:
        return family.store.delete(client, family, ident, removal)
    return family.store.delete(client, family, ident)


def delete_params(family, declaration):
    """The removal's own parameters the task declared (``destroy-data=1``): only what was asked for is sent."""
    return dict((field.wire, field.encode(declaration.values[field.option])) for field in family.fields
                if field.delete_param and declaration.values.get(field.option))


def met_another_writer(family, the_plan, exc):
    """Whether PVE refused the write because the object changed since it was read (nothing was applied)."""
    # str(exc) holds PVE's per-parameter errors too (a token created meanwhile: "Token already exists.").
    if the_plan.action == 'update':
        return bool(MODIFIED_UNDERNEATH.search(str(exc)))
    if the_plan.action == 'create':
        return bool(CREATED_UNDERNEATH.search(str(exc)))
    return family.absence.matches(exc)


def read_back(client, family, declaration, the_plan, upid):
    """The object after a write, judged against the plan (``verify``). A family that settles is read again
    until it matches or ``declaration.settle`` seconds have passed; the last read's leftover is the failure."""
    seen = []

    def converged():
        seen[:] = [family.read(client, declaration)]
        try:
            verify(family, declaration, the_plan, seen[0])
        except NotConverged as exc:
            seen.append(exc)
            return False
        return True

    if poll_until(converged, declaration.settle or 0):
        return seen[0]
    if not declaration.settle:
        raise seen[1]
    raise NotConverged('%s (read again for %d s after %s)'
                       % (seen[1], declaration.settle, 'task %s' % upid if upid else 'the write'))


def verify(family, declaration, the_plan, raw):
    """Re-judge against a fresh read: PVE can answer success for a write that did nothing."""
    what = family.describe(declaration.ident)
    if the_plan.action == 'delete':
        if not is_removed(family, raw):
            raise NotConverged('the delete of %s returned no error but it is still present' % what)
        return
    if absent(raw):
        raise NotConverged('the write returned no error but %s is still absent' % what)
    try:
        leftover = field_plan(family, declaration, raw)
    except Refused as exc:  # a create-only key PVE ignored, or an owner it gave the object: not what was written
        raise NotConverged('%s was written, but reading it back: %s'
                           % (what, str(exc).replace(' Nothing was written.', '')))
    if leftover.changed:
        raise NotConverged('%s was written but the server still differs in: %s. PVE may have normalised the value: '
                           'declare what it stores.' % (what, ', '.join(leftover.changed)))
