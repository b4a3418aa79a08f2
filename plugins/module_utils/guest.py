# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Guests (LXC containers and QEMU VMs): adopted, never replaced, never lost.

A guest is judged from ONE read, its pending view (``GET .../{vmid}/pending``: every key's running
value, its pending value or pending delete, and the config's ``digest``), compared as its config
will be once the pending changes apply (what ``GET .../config`` answers). Only PVE's typed absence
("Configuration file ... does not exist") may mean absent, and only once the cluster's resource list
(read with the same credential) holds the vmid nowhere else; the vmid taken by the other guest type is refused.

A guest declared on one node that lives on another (moved by HA or by a person) is found through that list and
judged where it lives: every read and write goes to its node, a warning names both nodes, and it is not moved
back. With ``migrate: true`` it is moved to the declared node first (``POST .../{vmid}/migrate``, waited for: online
for a running VM, restart mode for a running container; for an HA-managed guest ``POST
/cluster/ha/resources/{sid}/migrate``, then ``/cluster/resources`` polled until the CRM has moved it), and the rest
is judged there. Check mode plans the move (``plan.migrate``). A migration whose answer is lost fails as
MaybeApplied and is never sent twice; the next run finds the guest where the migration left it.

On top of the shared core (fields, ``plan``, ``update_form``, ``verify``) a guest adds what only guests
have: a name that must match before anything is written (``vmid 101 holds another guest``), disks that
only grow (``resize``), a template that is never swapped, power states acted on once, and changes PVE
parks until the next restart, reported as ``pending`` and applied by one reboot when asked. A disk imported
from an image (``import-from``) is imported once, when it is created, and grown to a declared size by a resize
in the same run; on a disk that exists the source is never compared, and a warning says so.

``template: true`` converts a stopped guest into a template once (``POST .../{vmid}/template``, a task, after any
config write); a template is judged like any guest but never started, and a template is never turned back (PVE
has no way back: its disks are base volumes linked clones share). A value only root@pam may write (a field's
``root_only``: a host device, ``affinity``, a hook script) is refused, in check mode too, for any other credential.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import is_root_login
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    ApiError, DeclarationError, NotConverged, Refused, TaskFailed, Unreadable)
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Disk, Integer, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, Absent, Exporting, Family, Lifecycle, Plan, Where, absent, create_form, field_plan, rejudged_once,
    update_form, verify)
from ansible_collections.homeflare.proxmox.plugins.module_utils.tasks import poll_until, wait_if_task

STATES = ['present', 'absent', 'started', 'stopped', 'restarted']
# Whether a state asks for the guest's power status (a delete too: PVE refuses a running guest).
NEEDS_STATUS = ('absent', 'started', 'stopped', 'restarted')
# What a linked clone's disk says about its template: <storage>:base-<template vmid>-disk-<n>/vm-...
LINKED_BASE = re.compile(r':base-(\d+)-disk-\d+')
# A container template's distribution from its file name (PVE's naming: <distro>-<version>-<flavour>_...),
# as PVE records it in ``ostype`` (which it reads from the template's contents).
TEMPLATE_OSTYPE = {'rockylinux': 'centos', 'almalinux': 'centos', 'archlinux': 'archlinux', 'centos': 'centos',
                   'debian': 'debian', 'devuan': 'devuan', 'ubuntu': 'ubuntu', 'fedora': 'fedora',
                   'opensuse': 'opensuse', 'alpine': 'alpine', 'gentoo': 'gentoo', 'nixos': 'nixos'}


# A guest's HA id: PVE answers reads with the prefixed form only, and PVE 9 has no HA resources but guests.
GUEST_SID = re.compile(r'(vm|ct):[1-9][0-9]{2,8}')
HA_TYPE = {'qemu': 'vm', 'lxc': 'ct'}


def check_guest_sid(option, sid):
    """Refuse, before any request, an HA resource id that is not a guest's (ha_resource's sid, ha_rule's list)."""
    if not GUEST_SID.fullmatch(sid):
        raise DeclarationError("option %s: %r is not a guest's HA id; write vm:<vmid> for a VM, ct:<vmid> for a "
                               "container (a bare VMID reads back prefixed)" % (option, sid))


def cluster_guests(client, role):
    """Every guest the credential may see, from one ``GET /cluster/resources?type=vm`` (VM.Audit-filtered rows; one
    for a whole declare's reads, Client.sharing_reads)."""
    return [row for row in client.shared_get('/cluster/resources', params=dict(type='vm'), role=role) or []
            if row.get('type') in ('qemu', 'lxc')]


def guest_row(client, role, vmid):
    """The resource list's row of guest ``vmid`` (its type, node, pool), or None when no guest has it."""
    return next((row for row in cluster_guests(client, role) if str(row.get('vmid')) == str(vmid)), None)


# The modules of the two guest types, as a declare batch names its entries.
GUEST_MODULES = ('lxc', 'vm')


def guest_declared(batch, vmid):
    """Whether the same ``declare`` creates (or keeps) guest ``vmid``: it writes guests before what lives on them."""
    return any(entry.module in GUEST_MODULES and str(entry.declaration.ident['vmid']) == str(vmid)
               and entry.declaration.state != 'absent' for entry in batch)


def identity():
    return [Text('node', required=True, format='pve-node'),
            Integer('vmid', required=True, minimum=100, maximum=999999999, format='pve-vmid')]


class GuestRead(dict):
    """A found guest: its config as it will be once pending changes apply (what GET config answers),
    ``running`` (the values in effect now), ``pending`` (key -> pending value, None for a pending delete),
    ``digest``, ``node`` (where it lives, which may not be the declared node) and, when the state or a move
    needs it, ``status`` (running or stopped); ``ha`` whether HA manages it, read only for a move; ``pool`` its
    pool, read only when the declaration names one (PVE keeps membership in user.cfg, not in the guest's config)."""

    def __init__(self, effective, running, pending, digest, node):
        super(GuestRead, self).__init__(effective)
        self.running = running
        self.pending = pending
        self.digest = digest
        self.node = node
        self.status = None
        self.ha = None
        # the pool it is a member of ('' for none), read from the cluster's resource list when pool is declared
        self.pool = None
        # restored from a backup by this run: its name is the archive's, renamed to the declared one, not refused
        self.restored = False


class Vacant(Absent):
    """PVE's typed absence, confirmed by the cluster's guest list (``rows``, kept to name a guest elsewhere)."""

    def __init__(self, rows):
        self.rows = rows


class GuestPlan(Plan):
    """A plan plus what only guests have: ``power`` (start, stop, reboot or None), the ``pending`` keys,
    the disks to ``resize`` ((wire name, size) pairs) and ``grow_only``, the changed disk options whose only
    change is their size (they go to ``resize``, not into the config write)."""

    def __init__(self, read, action, changed, power=None, pending=(), resize=(), grow_only=()):
        super(GuestPlan, self).__init__(read, action, changed)
        self.power = power
        self.pending = list(pending)
        self.resize = list(resize)
        self.grow_only = set(grow_only)
        # {from, to, mode}: the move to the declared node that comes before any other write (migrate: true)
        self.migrate = None

    def moving(self, migrate):
        """This plan with the move first: the node is what changes, and a plan that only powered now updates."""
        self.migrate = migrate
        self.changed = ['node'] + [option for option in self.changed if option != 'node']
        if self.action in ('none', 'power'):
            self.action = 'update'
        return self

    def as_dict(self):
        result = super(GuestPlan, self).as_dict()
        result.update(power=self.power, pending=self.pending,
                      resize=['%s to %s' % (disk, size) for disk, size in self.resize])
        if self.migrate:
            result['migrate'] = dict(self.migrate)
        return result


class Guest(Family):
    """One guest type. ``kind`` is the path segment (``lxc``/``qemu``), ``label`` PVE's word in its messages
    (``CT``/``VM``), ``name_field`` the option that names the guest (``hostname``/``name``). A guest type's
    family overrides ``check_template`` (a guest is never rebuilt from another template)."""

    # a guest has no list read that carries its config: declare reads the guests of a batch at once
    reads_in_parallel = True

    def __init__(self, module, name, kind, label, name_field, fields):
        conf_dir = 'lxc' if kind == 'lxc' else 'qemu-server'
        super(Guest, self).__init__(
            module, name, identity(), fields,
            Where(item='/nodes/{node}/%s/{vmid}' % kind, collection='/nodes/{node}/%s' % kind,
                  absence=Absence((500,), r"Configuration file 'nodes/[^/]+/%s/\d+\.conf' does not exist" % conf_dir)),
            lifecycle=Lifecycle(retain=True, send_digest=True, task_timeout=300),
            # an export never declares a guest's create (no template, no clone), so its secrets need no placeholder
            exporting=Exporting(placeholders={}),
            controls=dict(purge=dict(type='bool', default=False), force_stop=dict(type='bool', default=False),
                          shutdown_timeout=dict(type='int', default=60),
                          reboot_if_pending=dict(type='bool', default=False),
                          migrate=dict(type='bool', default=False)))
        self.kind = kind
        self.label = label
        self.name_field = name_field

    def check_template(self, declaration, raw):
        """Refuse a declared template (or clone source) other than the one the found guest was built from."""

    def declared_key(self, module, ident):
        """A vmid is one guest in the whole cluster: declared again on another node, or as the other guest type, it
        would be judged twice against two declarations (and the second judgement would undo the first's writes)."""
        return ('guest', str(ident['vmid']))

    # -- options ---------------------------------------------------------------------------
    def object_spec(self):
        spec = super(Guest, self).object_spec()
        spec['state'] = dict(type='str', default='present', choices=STATES)
        return spec

    def describe(self, ident):
        return '%s %s on %s' % (self.label, ident['vmid'], ident['node'])

    @staticmethod
    def located(ident, raw):
        """The identity where the guest lives: its reads and writes go to that node."""
        node = getattr(raw, 'node', None)
        return dict(ident, node=node) if node and node != ident['node'] else ident

    def moves(self, declaration, raw):
        """Whether this run moves a found guest to its declared node: it lives elsewhere and migrate: true."""
        return (not absent(raw) and raw.node != declaration.ident['node'] and declaration.state != 'absent'
                and bool(declaration.controls.get('migrate')))

    def sid(self, ident):
        return '%s:%s' % (HA_TYPE[self.kind], ident['vmid'])

    def disks(self):
        return [field for field in self.fields if isinstance(field, Disk)]

    # -- reading ---------------------------------------------------------------------------
    def read(self, client, declaration):
        raw = self.read_config(client, declaration.ident)
        if absent(raw):
            return raw
        moves = self.moves(declaration, raw)
        if moves:
            # how it moves: through HA when HA manages it, else online (a VM) or restarted (a container) if running
            raw.ha = self.sid(declaration.ident) in [
                row.get('sid') for row in client.get('/cluster/ha/resources', params=dict(type=HA_TYPE[self.kind]),
                                                     role=self.read_role) or []]
        if (moves or declaration.state in NEEDS_STATUS or declaration.controls.get('reboot_if_pending')
                or self.converts(declaration, raw)):
            raw.status = self.read_status(client, self.located(declaration.ident, raw))
        return self.with_pool(client, declaration, raw)

    def with_pool(self, client, declaration, raw):
        """The found guest with its pool read, when the declaration names one: the resource list's ``pool``
        (user.cfg's membership; the guest's config has no such key)."""
        if declaration.values.get('pool') is None or absent(raw):
            return raw
        row = guest_row(client, self.read_role, declaration.ident['vmid'])
        raw.pool = str(row.get('pool') or '') if row else ''
        return raw

    def view(self, raw):
        if getattr(raw, 'pool', None) is None:
            return raw
        return dict(raw, pool=raw.pool)

    @staticmethod
    def is_template(raw):
        return str(raw.get('template', '0')) == '1'

    def converts(self, declaration, raw):
        """Whether this run converts the found guest into a template (template: true, and it is none yet)."""
        return bool(declaration.values.get('template')) and not absent(raw) and not self.is_template(raw)

    def read_config(self, client, ident, rereading=False):
        try:
            rows = client.get(self.path(ident) + '/pending', role=self.read_role) or []
        except ApiError as exc:
            if not self.absence.matches(exc):
                raise
            return self.vacancy(client, ident, rereading)
        running, pending, digest = {}, {}, None
        for row in rows:
            key = row.get('key')
            if key == 'digest':
                digest = row.get('value')
                continue
            if 'value' in row:
                running[key] = row['value']
            if row.get('delete'):
                pending[key] = None
            elif 'pending' in row:
                pending[key] = row['pending']
        if not digest:
            raise Refused('%s: PVE answered its config without a digest, so it cannot be judged or written safely '
                          '(a config read without a digest is refused, never taken for absent)' % self.describe(ident))
        effective = dict(running)
        for key, value in pending.items():
            if value is None:
                effective.pop(key, None)
            else:
                effective[key] = value
        return GuestRead(effective, running, pending, digest, ident['node'])

    def read_back(self, client, ident, status):
        """The guest after a write, with the power status known (or re-read); gone is a failure."""
        raw = self.read_config(client, ident)
        if absent(raw):
            raise NotConverged('the write returned no error but %s is absent' % self.describe(ident))
        raw.status = status
        return raw

    def vacancy(self, client, ident, rereading=False):
        """No config on the node asked: absent only if the vmid is nowhere else in the cluster. A guest of this type
        on another node is read there (it moved, or was created there meanwhile)."""
        rows = cluster_guests(client, self.read_role)
        for row in rows:
            if str(row.get('vmid')) != str(ident['vmid']):
                continue
            if row.get('type') != self.kind:
                raise Refused('vmid %s is taken by a %s on %s (%s): VMs and containers share vmids cluster-wide, and '
                              'a guest is never replaced by one of the other type. Declare another vmid.' % (
                                  ident['vmid'], 'VM' if row.get('type') == 'qemu' else 'container', row.get('node'),
                                  row.get('name') or 'unnamed'))
            if rereading:
                # listed where PVE has no config for it (it keeps moving, or the list lags): never absent
                raise Unreadable('%s %s is in the cluster\'s resource list on %s but PVE answers that its config does '
                                 'not exist there; it is not taken for absent'
                                 % (self.label, ident['vmid'], row.get('node')))
            # on this node since the first read (another run's create), or living on another node: read it there
            return self.read_config(client, dict(ident, node=row.get('node')), rereading=True)
        return Vacant(rows)

    def read_status(self, client, ident):
        return (client.get(self.path(ident) + '/status/current', role=self.read_role) or {}).get('status')

    # -- judging -----------------------------------------------------------------------------
    def plan(self, declaration, raw, batch=()):
        state = declaration.state
        if absent(raw):
            if state == 'absent':
                return GuestPlan('absent', 'none', [])
            if not declaration.values.get('restore_from'):  # a restore is the backup's data, not an empty twin
                self.refuse_name_elsewhere(declaration, raw.rows)
            created = field_plan(self, declaration, raw)
            return GuestPlan('absent', 'create', created.changed,
                             power='start' if state in ('started', 'restarted') else None,
                             resize=self.imports_to_grow(declaration))
        self.refuse_another_guest(declaration, raw)
        if state == 'absent':
            self.refuse_delete(declaration, raw)
            return GuestPlan('found', 'delete', [], pending=sorted(raw.pending))
        self.check_template(declaration, raw)
        self.refuse_template_change(declaration, raw)
        the_plan = field_plan(self, declaration, raw)
        current = self.current(raw, self.disks())
        resize, grow_only = [], []
        for field in self.disks():
            if field.option not in the_plan.changed:
                continue
            change = field.compare(declaration.desired(field), current[field.option])
            if change.refusal:
                where = self.located(declaration.ident, raw)
                raise Refused('%s: %s. Nothing was written.' % (self.describe(where), change.refusal))
            if change.grow_to:
                resize.append((field.wire, change.grow_to))
                if not change.options:
                    grow_only.append(field.option)
        power = self.power(declaration, raw)
        action = the_plan.action if the_plan.action != 'none' else ('power' if power else 'none')
        planned = GuestPlan('found', action, the_plan.changed, power=power, pending=sorted(raw.pending), resize=resize,
                            grow_only=grow_only)
        if self.moves(declaration, raw):
            planned.moving(dict(self.move_mode(raw), to=declaration.ident['node']))
        return planned

    def refuse_template_change(self, declaration, raw):
        """What PVE refuses of templates, said before anything is written (check mode too)."""
        what = self.describe(self.located(declaration.ident, raw))
        if self.is_template(raw) and declaration.values.get('template') is False:
            raise Refused('%s is a template, and PVE has no way back from a template to a guest (its disks are base '
                          'volumes that linked clones share). Declare template: true, or clone it into a new guest '
                          '(clone: %s). Nothing was written.' % (what, declaration.ident['vmid']))
        if self.is_template(raw) and declaration.state in ('started', 'restarted'):
            raise Refused("%s is a template, which PVE never starts (you can't start a vm if it's a template): "
                          "declare state: present or stopped. Nothing was written." % what)
        if self.converts(declaration, raw) and raw.status == 'running':
            raise Refused("%s is running, and PVE converts a guest to a template only when it is stopped (you can't "
                          "convert a %s to template if the %s is running). Stop it first (state: stopped), then "
                          "declare template: true. Nothing was written." % (what, self.label, self.label))

    def check_restore_from(self, declaration):
        """restore_from names a backup volume and is the create's one source (no template, no clone)."""
        archive = declaration.values.get('restore_from')
        if not archive:
            return
        if ':backup/' not in archive:
            raise DeclarationError("option restore_from: %r is not a backup volume (<storage>:backup/vzdump-...)"
                                   % archive)
        for other in ('clone', 'ostemplate'):
            if declaration.values.get(other) is not None:
                raise DeclarationError('option restore_from: a guest is created from a backup or from %s, not both; '
                                       'drop option %s' % (other, other))

    def check_declaration(self, declaration):
        super(Guest, self).check_declaration(declaration)
        self.check_restore_from(declaration)
        if declaration.values.get('template') and declaration.state in ('started', 'restarted'):
            raise DeclarationError('option state: %s, but template: true: PVE never starts a template; declare state: '
                                   'present or stopped' % declaration.state)

    def check_plan(self, client, declaration, raw, the_plan):
        """Values only root@pam may write (qemu-server API2/Qemu.pm check_vm_modify_config_perm and its device
        checks: "only root can set '<option>' config"), in the write planned or in the value it replaces, are refused
        for any other credential: an API token never is root@pam."""
        if is_root_login(getattr(client, 'credentials', None)):
            return
        by_option = dict((field.option, field) for field in self.fields)
        current = {} if absent(raw) else self.current(raw)
        reasons = []
        for option in the_plan.changed:
            field = by_option.get(option)
            if field is None or field.root_only is None:
                continue
            why = field.root_only(declaration.values.get(option)) or field.root_only(current.get(option))
            if why:
                reasons.append('%s (%s)' % (option, why))
        if reasons:
            raise Refused("%s: PVE lets only root@pam itself write %s (\"only root can set ... config\"), and this "
                          "connection is not root@pam with a password (an API token never is). Connect as api_user: "
                          "root@pam with api_password for this guest, or set it with `%s set %s` on the node. Nothing "
                          "was written." % (self.describe(self.located(declaration.ident, raw)), ', '.join(reasons),
                                            'qm' if self.kind == 'qemu' else 'pct', declaration.ident['vmid']))

    def move_mode(self, raw):
        """{from, mode} of the move: PVE's own words for how a guest in this state migrates."""
        if raw.ha:
            mode = 'ha'
        elif raw.status != 'running':
            mode = 'offline'
        else:
            mode = 'online' if self.kind == 'qemu' else 'restart'
        return {'from': raw.node, 'mode': mode}

    def imports_to_grow(self, declaration):
        """(wire name, size) of each disk imported at create time with a declared size=: the resize after it."""
        return [(field.wire, field.import_grows_to(declaration.values[field.option])) for field in self.disks()
                if field.import_grows_to(declaration.values.get(field.option))]

    def advise(self, declaration, raw):
        """A guest living on another node than declared (judged there, moved only with migrate: true); a declared
        import source on a disk that exists: PVE used (or never saw) it when the disk was made and keeps no trace of
        it, so it was neither compared nor imported again."""
        advice = []
        declared = declaration.ident['node']
        if raw.node != declared:
            what = '%s %s is declared on %s but lives on %s' % (
                self.label, declaration.ident['vmid'], declared, raw.node)
            if self.moves(declaration, raw):
                advice.append('%s: migrate: true moves it to %s before anything else is written' % (what, declared))
            else:
                advice.append('%s (moved by HA or by hand): it was judged there and is not moved back; declare node: '
                              '%s, or migrate: true to move it to %s' % (what, raw.node, declared))
        current = self.current(raw, self.disks())
        imports = ['%s (import-from=%s)' % (field.option, field.import_source(declaration.values[field.option]))
                   for field in self.disks()
                   if field.import_source(declaration.values.get(field.option)) and current.get(field.option)]
        if imports:
            advice.append('%s exists, so the import source of %s was not compared and nothing was imported: '
                          'import-from is used only when a disk is created' % (
                              self.describe(self.located(declaration.ident, raw)), ', '.join(imports)))
        return advice

    def power(self, declaration, raw):
        state, status = declaration.state, raw.status
        if state == 'started' and status != 'running':
            return 'start'
        if state == 'stopped' and status == 'running':
            return 'stop'
        if state == 'restarted':
            return 'reboot' if status == 'running' else 'start'
        if declaration.controls.get('reboot_if_pending') and status == 'running' and raw.pending:
            return 'reboot'
        return None

    def live_name(self, raw):
        return str(raw.get(self.name_field) or '')

    def refuse_another_guest(self, declaration, raw):
        declared = declaration.values.get(self.name_field)
        live = self.live_name(raw)
        if declared and live and declared != live and not raw.restored:
            raise Refused("vmid %s holds another guest, '%s' (the task declares %s '%s'): a guest is never rewritten "
                          "into a different machine. Declare another vmid, or %s '%s' if this is the guest meant. "
                          "Nothing was written." % (declaration.ident['vmid'], live, self.name_field, declared,
                                                    self.name_field, live))

    def refuse_name_elsewhere(self, declaration, rows):
        """A new vmid for a guest that exists under another one would build a second, empty guest."""
        declared = declaration.values.get(self.name_field)
        for row in rows:
            if declared and row.get('type') == self.kind and row.get('name') == declared:
                raise Refused("%s '%s' already exists as vmid %s on %s: a guest's vmid cannot change, and a new vmid "
                              "would build a second, empty guest. Declare vmid %s (or another %s). Nothing was "
                              "written." % (self.label, declared, row.get('vmid'), row.get('node'), row.get('vmid'),
                                            self.name_field))

    def refuse_delete(self, declaration, raw):
        """PVE's own refusals, said at plan time (check mode too) in PVE's words."""
        vmid = declaration.ident['vmid']
        what = self.describe(self.located(declaration.ident, raw))
        if str(raw.get('protection', '0')) == '1':
            raise Refused("%s: can't remove %s %s - protection mode enabled. Clear protection first (protection: "
                          "false). Nothing was removed." % (what, self.label, vmid))
        if raw.status == 'running':
            reason = ('unable to destroy CT %s - container is running' % vmid if self.kind == 'lxc'
                      else 'VM %s is running - destroy failed' % vmid)
            raise Refused('%s: %s. Stop it first (state: stopped). Nothing was removed.' % (what, reason))

    # -- what a diff and a result show -------------------------------------------------------
    def object_view(self, declaration, raw):
        if absent(raw):
            return {}
        view = self.managed_view(self.located(declaration.ident, raw), raw, self.managed(declaration))
        view['pending'] = sorted(raw.pending)
        if raw.status is not None:
            view['status'] = raw.status
        return view

    def diff(self, declaration, raw, the_plan):
        before = self.object_view(declaration, raw)
        if the_plan.action == 'delete':
            return dict(before=before, after={})
        if the_plan.action == 'create':
            after = dict(declaration.ident)
            after.update((field.option, declaration.desired(field)) for field in self.managed(declaration))
        else:
            after = dict(before)
            after.update((option, declaration.desired(self.field(option))) for option in the_plan.changed
                         if option != 'node')
            if getattr(the_plan, 'migrate', None):
                after['node'] = the_plan.migrate['to']
        if the_plan.power == 'reboot':
            after['pending'] = []
        if the_plan.power in ('start', 'reboot'):
            after['status'] = 'running'
        elif the_plan.power == 'stop':
            after['status'] = 'stopped'
        return dict(before=before, after=after)

    def field(self, option):
        return next(field for field in self.fields if field.option == option)

    # -- the reconcile() steps a guest overrides ------------------------------------------------
    def outcome(self, declaration, raw, the_plan):
        result = super(Guest, self).outcome(declaration, raw, the_plan)
        result['tasks'] = []
        return result

    def finish(self, client, declaration, raw, the_plan, result):
        result['object'] = self.object_view(declaration, raw)
        pending = result['object'].get('pending')
        if pending:
            where = self.located(declaration.ident, raw)
            result['warnings'].append('%s has changes pending until its next restart: %s (reboot_if_pending: true '
                                      'applies them with one reboot)' % (self.describe(where), ', '.join(pending)))
        return result

    def act(self, client, declaration, raw, the_plan, result):
        """Do what the plan says; returns the guest as read afterwards and the plan it was written with. A move
        comes first; the rest is then judged again on the declared node and written there."""
        moved = getattr(the_plan, 'migrate', None)
        if moved:
            raw = self.migrate(client, declaration, raw, moved, result)
            the_plan = self.plan(declaration, raw)  # the diff stays the one planned: the move and the rest
        raw, the_plan = self.act_here(client, declaration, raw, the_plan, result)
        if moved:
            the_plan.moving(moved)
        return raw, the_plan

    def act_here(self, client, declaration, raw, the_plan, result):
        """The plan's writes where the guest lives."""
        where = self.located(declaration.ident, raw)
        if the_plan.action == 'delete':
            self.wait(client, declaration, result, client.delete(
                self.path(where), params=dict(purge=1) if declaration.controls['purge'] else None,
                role=self.write_role))
            after = self.read_config(client, where)
            if not absent(after):
                raise NotConverged('the delete of %s returned no error but it is still present' % self.describe(where))
            return after, the_plan
        raw, the_plan = self.write_rejudged(client, declaration, raw, the_plan, result)
        where = self.located(declaration.ident, raw)
        if the_plan.power is None:
            the_plan.power = self.power(declaration, raw)  # the write may have parked changes to reboot for
        if the_plan.power:
            if the_plan.action == 'none':
                the_plan.action = 'power'
            self.switch(client, declaration, where, the_plan.power, result)
            raw = self.read_back(client, where, self.read_status(client, where))
            if the_plan.power == 'reboot' and raw.pending:
                raise NotConverged('%s was rebooted but still has changes pending: %s' % (
                    self.describe(where), ', '.join(sorted(raw.pending))))
        return raw, the_plan

    def migrate(self, client, declaration, raw, moved, result):
        """Move the guest to its declared node, waited for; returns it as read there. A running VM migrates online
        (its local disks with it), a running container in restart mode (shut down, moved, started); an HA-managed
        guest is handed to HA, whose CRM moves it after the request is answered, so the resource list is polled."""
        ident = declaration.ident
        source = dict(ident, node=moved['from'])
        timeout = declaration.task_timeout or 300
        if moved['mode'] == 'ha':
            client.post(item_path('/cluster/ha/resources/{sid}/migrate', dict(sid=self.sid(ident))),
                        dict(node=ident['node']), role=self.write_role)
            if not poll_until(lambda: self.lives_on(client, ident), timeout):
                raise NotConverged('HA was asked to migrate %s from %s to %s, but after %d s the cluster\'s resource '
                                   'list does not show it there (see `ha-manager status` and the CRM\'s task log)'
                                   % (self.sid(ident), moved['from'], ident['node'], timeout))
        else:
            form = dict(target=ident['node'])
            extra = 0
            if moved['mode'] == 'online':
                form.update({'online': '1', 'with-local-disks': '1'})
            elif moved['mode'] == 'restart':
                extra = declaration.controls['shutdown_timeout']
                form.update(restart='1', timeout=str(extra))
            self.wait(client, declaration, result, client.post(self.path(source) + '/migrate', form,
                                                               role=self.write_role), extra=extra)
        after = self.read_config(client, ident)
        if absent(after) or after.node != ident['node']:
            raise NotConverged('%s %s was migrated from %s to %s without an error, but PVE has no config for it on %s'
                               % (self.label, ident['vmid'], moved['from'], ident['node'], ident['node']))
        if declaration.state in NEEDS_STATUS or declaration.controls.get('reboot_if_pending'):
            after.status = self.read_status(client, ident)
        return after

    def lives_on(self, client, ident):
        """Whether the cluster's resource list shows the guest on ``ident``'s node."""
        return any(str(row.get('vmid')) == str(ident['vmid']) and row.get('type') == self.kind
                   and row.get('node') == ident['node'] for row in cluster_guests(client, self.read_role))

    def create(self, client, declaration, vacant, result):
        """POST the create (or the clone of ``clone``) and wait for its task; True for a clone."""
        ident = declaration.ident
        form = create_form(self, declaration)
        form.pop('template', None)  # converted once the guest exists (convert_to_template)
        if not form.get('pool'):
            form.pop('pool', None)  # pool: '' is "in no pool", which a new guest is
        archive = form.pop('restore_from', None)
        if archive:
            return self.restore(client, declaration, form, archive, result)
        source = form.pop('clone', None)
        if source is None:
            form.pop('full', None)
            form['vmid'] = str(ident['vmid'])
            self.wait(client, declaration, result, client.post(self.collection_path(ident), form, role=self.write_role))
            return False
        rows = [row for row in vacant.rows if str(row.get('vmid')) == str(source) and row.get('type') == self.kind]
        if not rows:
            raise Refused('%s: the template to clone, %s %s, is not in the cluster (or this credential cannot see '
                          'it). Nothing was created.' % (self.describe(ident), self.label, source))
        clone = dict(newid=str(ident['vmid']))
        clone.update((key, form[key]) for key in ('name', 'pool', 'storage', 'full') if key in form)
        if rows[0].get('node') != ident['node']:
            clone['target'] = ident['node']
        path = item_path('/nodes/{node}/%s/{vmid}/clone' % self.kind, dict(node=rows[0].get('node'), vmid=source))
        self.wait(client, declaration, result, client.post(path, clone, role=self.write_role))
        return True

    def restore(self, client, declaration, form, archive, result):
        """Create the absent guest from a backup volume (qemu-server create_vm with ``archive``, pve-container
        create_vm with ``restore=1``), waited for; True: the rest of the declared config is then judged and written
        as after a clone. Only the target storage, the pool and the name go with it: the archive's config is the
        guest's, and qemu-server refuses disks beside an archive."""
        ident = declaration.ident
        restore = dict(vmid=str(ident['vmid']))
        restore.update((key, form[key]) for key in ('storage', 'pool', self.name_field) if form.get(key))
        if self.kind == 'qemu':
            restore['archive'] = archive
        else:
            restore.update(ostemplate=archive, restore='1')
        self.wait(client, declaration, result, client.post(self.collection_path(ident), restore, role=self.write_role))
        return True

    def write_rejudged(self, client, declaration, raw, the_plan, result):
        """The config write, read and judged again once when another writer got there first (a stale digest, the
        guest created meanwhile). Returns the guest as read afterwards and the plan written."""
        seen = [raw]  # the guest as last read (or written and read back)

        def attempt(current):
            seen[0] = self.write_config(client, declaration, seen[0], current, result)

        def rejudge():
            seen[0] = self.read(client, declaration)
            return self.plan(declaration, seen[0])

        the_plan, _answer = rejudged_once(self, declaration.ident, the_plan, attempt, rejudge, result['warnings'])
        return seen[0], the_plan

    def write_config(self, client, declaration, raw, the_plan, result):
        """Create (a clone then gets the declared config) or update; returns the guest as read afterwards."""
        if the_plan.action == 'create':
            cloned = self.create(client, declaration, raw, result)
            if not cloned:
                # imported disks, to their declared size
                self.grow(client, declaration, declaration.ident, the_plan.resize, result)
                if declaration.values.get('template'):
                    self.convert_to_template(client, declaration, declaration.ident, result)
                raw = self.with_pool(client, declaration, self.read_back(client, declaration.ident, 'stopped'))
                verify(self, declaration, Plan('absent', 'create', the_plan.changed), raw)
                return raw
            raw = self.with_pool(client, declaration, self.read_back(client, declaration.ident, 'stopped'))
            raw.restored = bool(declaration.values.get('restore_from'))
            the_plan = self.plan(declaration, raw)
        if the_plan.changed:
            return self.update(client, declaration, raw, the_plan, result)
        return raw

    def update(self, client, declaration, raw, the_plan, result):
        """One PUT of the drifted keys (with the digest), then one resize per disk that grows (as judged); returns
        the read-back."""
        where = self.located(declaration.ident, raw)
        sets = [option for option in the_plan.changed
                if option not in the_plan.grow_only and option not in ('template', 'pool')]
        if sets:
            form = update_form(self, declaration, sets, raw)
            form['digest'] = raw.digest
            self.wait(client, declaration, result, client.put(self.path(where) + '/config', form, role=self.write_role))
        self.grow(client, declaration, where, the_plan.resize, result)
        if 'pool' in the_plan.changed:
            self.move_to_pool(client, declaration, raw, where)
        if 'template' in the_plan.changed:
            self.convert_to_template(client, declaration, where, result)
        after = self.with_pool(client, declaration, self.read_back(client, where, raw.status))
        verify(self, declaration, Plan('found', 'update', the_plan.changed), after)
        return after

    def move_to_pool(self, client, declaration, raw, where):
        """One write of the pool's member list (pve-manager PVE/API2/Pool.pm update_pool): into the declared pool,
        moved out of its present one (allow-move), or out of its pool for pool: ''."""
        vmid, wanted, live = str(where['vmid']), declaration.values['pool'], raw.pool or ''
        if wanted:
            form = dict(poolid=wanted, vms=vmid)
            if live:
                form['allow-move'] = '1'
        else:
            form = dict(poolid=live, vms=vmid, delete='1')
        client.put('/pools', form, role=self.write_role)

    def convert_to_template(self, client, declaration, where, result):
        """The one-way conversion (qemu-server's and pve-container's ``template`` handlers), waited for: last, so
        the config and the disks are written while they still may be."""
        self.wait(client, declaration, result, client.post(self.path(where) + '/template', {}, role=self.write_role))

    def grow(self, client, declaration, where, resize, result):
        """One resize per (disk, size) of the guest living at ``where``, each waited for."""
        for disk, size in resize:
            answer = client.put(self.path(where) + '/resize', dict(disk=disk, size=size), role=self.write_role)
            self.wait(client, declaration, result, answer)

    def switch(self, client, declaration, ident, power, result):
        """start, stop (a clean shutdown, forced after the timeout only when asked) or reboot of the guest living
        at ``ident``; waited for."""
        options = declaration.controls
        form = {}
        if power == 'stop':
            action = 'shutdown'
            form['timeout'] = str(options['shutdown_timeout'])
            if options['force_stop']:
                form['forceStop'] = '1'
        else:
            action = power
        try:
            self.wait(client, declaration, result, client.post('%s/status/%s' % (self.path(ident), action), form,
                                                               role=self.write_role),
                      extra=options['shutdown_timeout'])
        except TaskFailed as exc:
            if power != 'stop':
                raise
            raise TaskFailed(exc.upid, '%s did not shut down cleanly within %s s: %s. It was not stopped hard; set '
                                       'force_stop: true to stop it after the timeout.' % (
                                           self.describe(ident), options['shutdown_timeout'], exc))

    def wait(self, client, declaration, result, answer, extra=0):
        if wait_if_task(client, answer, self.write_role, (declaration.task_timeout or 300) + extra, result['warnings']):
            result['tasks'].append(answer)


def check_template_ostype(family, declaration, raw):
    """A container is never rebuilt from another template: the declared template's distribution must be the
    one PVE recorded (``ostype``) when it was created. PVE keeps no other trace of the template."""
    template = declaration.values.get('ostemplate')
    if not template:
        return
    distro = template.rsplit('/', 1)[-1].split('-', 1)[0].lower()
    expected = TEMPLATE_OSTYPE.get(distro)
    live = raw.get('ostype')
    if expected and live and expected != live:
        raise Refused("%s runs %s (ostype) but the task declares the template %s: a container is never rebuilt "
                      "from another template. Declare the template it was built from, or a new container under a "
                      "new vmid. Nothing was written." % (family.describe(declaration.ident), live, template))


def check_template_clone(family, declaration, raw):
    """A VM is never re-cloned: a linked clone's disks name their template (``base-<vmid>-disk-<n>``)."""
    source = declaration.values.get('clone')
    if source is None:
        return
    bases = set()
    for field in family.disks():
        found = LINKED_BASE.search(str(raw.get(field.wire) or ''))
        if found:
            bases.add(int(found.group(1)))
    others = sorted(bases - set([int(source)]))
    if others:
        raise Refused('%s is a linked clone of template %s but the task declares clone: %s: a VM is never rebuilt '
                      'from another template. Declare the template it came from, or a new VM under a new vmid. '
                      'Nothing was written.' % (family.describe(declaration.ident), others[0], source))


class GuestInfo:
    """The task of ``lxc_info`` / ``vm_info``: the guests of one type from ``/cluster/resources`` (one read),
    plus one config read per guest whose config is asked for. Read-only: check mode changes nothing."""

    scheme = 'pve'

    def __init__(self, family):
        self.family = family

    def object_spec(self):
        spec = {}
        spec['node'] = dict(type='str')
        spec['vmid'] = dict(type='list', elements='int')
        spec['config'] = dict(type='bool', default=False)
        return spec

    def run(self, client, params, check_mode):
        wanted = set(params.get('vmid') or [])
        guests = []
        for row in cluster_guests(client, 'read'):
            if row.get('type') != self.family.kind or (params.get('node') and row.get('node') != params['node']):
                continue
            if wanted and int(row.get('vmid')) not in wanted:
                continue
            guest = dict(vmid=int(row.get('vmid')), node=row.get('node'), name=row.get('name'),
                         status=row.get('status'), template=bool(row.get('template')),
                         tags=sorted(tag for tag in re.split(r'[;,\s]+', row.get('tags') or '') if tag))
            for key in ('pool', 'lock', 'hastate'):
                if row.get(key):
                    guest[key] = row[key]
            if params.get('config') or wanted:
                guest['config'] = client.get(self.family.path(dict(node=guest['node'], vmid=guest['vmid'])) +
                                             '/config', role='read') or {}
            guests.append(guest)
        guests.sort(key=lambda guest: guest['vmid'])
        return dict(changed=False, guests=guests)
