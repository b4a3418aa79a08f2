# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A backup now: ``POST /nodes/{node}/vzdump`` for named guests (pve-manager PVE/API2/VZDump.pm).

It is an action, not an object: there is no state to adopt, so it is judged like an apply (staging.Applier) through
the same reconcile() steps. Its read is where each guest lives (``/cluster/resources``) and each guest's newest
backup on the storage (the storage's content list); its plan is "which guests are due" (all of them, or with
``only_if_older_than`` those whose newest backup is older); its act is one vzdump per node the due guests live on,
because PVE's vzdump backs up only the guests of the node it runs on and silently skips the others
(``$skiplist``). Backups are never exported: they are data, not declarations (the export reads registered
families only, and this one is not a declaration).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
import time

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    DeclarationError, NotConverged, Refused, TaskFailed, TaskUnknown)
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Text, TokenSet
from ansible_collections.homeflare.proxmox.plugins.module_utils.guest import cluster_guests
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Declaration, Plan, Task
from ansible_collections.homeflare.proxmox.plugins.module_utils.tasks import parse_upid, wait_if_task

DURATION = re.compile(r'^(?:\s*\d+\s*[wdhms])+\s*$')
DURATION_PART = re.compile(r'(\d+)\s*([wdhms])')
SECONDS = dict(w=604800, d=86400, h=3600, m=60, s=1)
NOTES_VARIABLES = ('cluster', 'guestname', 'node', 'vmid')
NEW = 'new backup'


def parse_duration(text):
    """'1d', '12h', '30m', '1w2d': seconds; None when ``text`` is no duration."""
    if not DURATION.match(text or ''):
        return None
    return sum(int(number) * SECONDS[unit] for number, unit in DURATION_PART.findall(text))


def notes_template_problem(template):
    """pve-manager PVE/VZDump.pm $verify_notes_template: why PVE refuses the template, or None."""
    if '\n' in template:
        return 'contains a line feed'
    problems = ["escape sequence '\\%s' at char %d" % (match.group(1), match.start())
                for match in re.finditer(r'\\(.)', template) if match.group(1) not in ('n', '\\')]
    problems += ["variable '%s' at char %d" % (match.group(1), match.start(1))
                 for match in re.finditer(r'\{\{([^\s{}]+)\}\}', template) if match.group(1) not in NOTES_VARIABLES]
    return 'found unknown: %s' % ', '.join(problems) if problems else None


def backup_time(ctime):
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(ctime)) if ctime is not None else None


class VmidList(TokenSet):
    """Guest ids: a list of whole numbers, compared as a sorted set, written as PVE's pve-vmid-list."""

    elements = 'int'

    def canonical(self, value):
        values = value if isinstance(value, (list, tuple)) else str(value).split(',')
        return sorted(set(int(str(item).strip()) for item in values if str(item).strip()))

    def declared(self, value):
        values = value if isinstance(value, (list, tuple)) else [value]
        for item in values:
            if not re.match(r'^\s*\d+\s*$', str(item)):
                self.refuse(item, 'is not a guest id')
            self.check_text(str(item).strip())
        return self.canonical(values)

    def encode(self, value):
        return ','.join(str(vmid) for vmid in value)


class Backup(Task):
    """The ``backup`` module: read, plan (the guests due), act (a vzdump per node), as reconcile() runs them."""

    scheme = 'pve'
    singleton = True
    listing = None
    collection = None
    # In a declare batch a backup runs like an apply: after every write, so the guests it names exist by then;
    # the export leaves appliers out, and says so for this one: backups are data, not declarations.
    applies = ('vm', 'lxc')
    left_out = ('a backup is data a run makes, not a declaration: the export lists no backups (the backup jobs that '
                'make them are backup_job objects)')
    read_role = 'read'
    # Backups are listed only to whom may back the guest up (check_volume_access: VM.Backup and
    # Datastore.AllocateSpace), so the content is read with the credential that writes them.
    content_role = 'provision'
    write_role = 'provision'

    def __init__(self, module, name, task_timeout=3600):
        self.module = module
        self.name = name
        self.task_timeout = task_timeout
        self.schema = ('POST', '/nodes/{node}/vzdump')
        self.identity = [VmidList('vmid', required=True, format='pve-vmid')]
        self.fields = [
            Text('node', format='pve-node'),
            Text('storage', required=True, format='pve-storage-id'),
            Text('mode', choices=('snapshot', 'suspend', 'stop')),
            Text('compress', choices=('0', '1', 'gzip', 'lzo', 'zstd')),
            Text('notes-template', option='notes', max_length=1024),
            Flag('protected', absent_means=None),
        ]
        self.controls = dict(only_if_older_than=dict(type='str'))

    # -- the module's interface --------------------------------------------------------------
    def object_spec(self):
        spec = {}
        for field in self.identity + self.fields:
            spec[field.option] = field.argument_spec()
        spec['task_timeout'] = dict(type='int', default=self.task_timeout)
        spec.update(self.controls)
        return spec

    def key(self, ident):
        return tuple(ident['vmid'])

    def describe(self, ident):
        return 'the backup of guest%s %s' % ('' if len(ident['vmid']) == 1 else 's',
                                             ', '.join(str(vmid) for vmid in ident['vmid']))

    def declaration(self, params):
        """Every option checked before any request: the guests, the duration, PVE's rules for the notes."""
        vmids = self.identity[0].declared(params.get('vmid') or [])
        if not vmids:
            raise DeclarationError('option vmid: name at least one guest to back up')
        values = {}
        for field in self.fields:
            if params.get(field.option) is not None:
                values[field.option] = field.declared(params[field.option])
        problem = notes_template_problem(values['notes']) if values.get('notes') else None
        if problem:
            raise DeclarationError('option notes: %r is not a notes template PVE takes (%s); the variables are '
                                   '%s' % (values['notes'], problem, ', '.join('{{%s}}' % name
                                                                               for name in NOTES_VARIABLES)))
        older = params.get('only_if_older_than')
        seconds = None
        if older is not None:
            seconds = parse_duration(older)
            if not seconds:
                raise DeclarationError("option only_if_older_than: %r is not a duration (a number and a unit: w, d, "
                                       "h, m or s, such as '1d', '12h', '30m' or '1w2d')" % (older,))
        timeout = self.task_timeout if params.get('task_timeout') is None else params['task_timeout']
        if timeout < 1:
            raise DeclarationError('option task_timeout: %r is below the minimum 1' % timeout)
        return Declaration(dict(vmid=vmids), values, 'present', timeout, controls=dict(only_if_older_than=seconds))

    # -- the reconcile() steps -------------------------------------------------------------------
    def read(self, client, declaration):
        """Where each guest lives (None: no such guest), the storage's row on those nodes, and each guest's newest
        backup there of its own type (``subtype``; a vmid reused by another kind of guest is not its backup)."""
        storage = declaration.values['storage']
        live = dict((int(row['vmid']), row) for row in cluster_guests(client, self.read_role)
                    if row.get('vmid') is not None)
        guests = {}
        for vmid in declaration.ident['vmid']:
            row = live.get(vmid)
            guests[vmid] = None if row is None else dict(node=row.get('node'), type=row.get('type'),
                                                         name=row.get('name'))
        nodes = sorted(set(guest['node'] for guest in guests.values() if guest))
        storages, content = {}, {}
        for node in nodes:
            listed = client.get('/nodes/%s/storage' % node, params=dict(storage=storage), role=self.read_role) or []
            storages[node] = next((row for row in listed if row.get('storage') == storage), None)
            content[node] = (client.get('/nodes/%s/storage/%s/content' % (node, storage),
                                        params=dict(content='backup'), role=self.content_role) or []
                             if storages[node] else [])
        newest = {}
        for vmid, guest in guests.items():
            mine = [row for row in (content.get(guest['node'], []) if guest else [])
                    if str(row.get('vmid')) == str(vmid) and row.get('subtype') in (None, guest['type'])
                    and row.get('ctime') is not None]
            best = max(mine, key=lambda row: (int(row['ctime']), row['volid'])) if mine else None
            newest[vmid] = dict(volid=best['volid'], ctime=int(best['ctime'])) if best else None
        return dict(guests=guests, storages=storages, newest=newest, now=int(time.time()))

    def due(self, declaration, raw):
        """The guests this run backs up: all, or those whose newest backup is at least only_if_older_than old."""
        older = declaration.controls.get('only_if_older_than')
        due = []
        for vmid in declaration.ident['vmid']:
            newest = raw['newest'].get(vmid)
            if older and newest and raw['now'] - newest['ctime'] < older:
                continue
            due.append(vmid)
        return due

    def node_of(self, declaration, raw, vmid, batch):
        """Where a due guest's vzdump runs: where it lives; for one not there yet, the node declared here or the
        node a guest created in the same declare batch names (None when nothing says)."""
        guest = raw['guests'].get(vmid)
        if guest is not None:
            return guest['node']
        for entry in batch:
            if entry.module in self.applies and entry.declaration.ident.get('vmid') == vmid:
                return declaration.values.get('node') or entry.declaration.ident.get('node')
        return declaration.values.get('node')

    def plan(self, declaration, raw, batch=()):
        """The guests due and one vzdump per node they live on. A guest not in the cluster is due (it has no
        backup) and refused by preflight, so that in a declare batch a guest created before the backup runs can
        be backed up."""
        due = self.due(declaration, raw)
        per_node = {}
        for vmid in due:
            per_node.setdefault(self.node_of(declaration, raw, vmid, batch) or '', []).append(vmid)
        the_plan = Plan('found', 'backup' if due else 'none', [str(vmid) for vmid in due])
        the_plan.runs = [dict(node=node or None, vmid=vmids) for node, vmids in sorted(per_node.items())]
        return the_plan

    def problems(self, declaration, raw, the_plan):
        """What keeps the planned vzdumps from running: a guest not in the cluster, one on another node than the one
        declared, a node whose storage is missing, disabled or holds no backups."""
        problems = []
        missing = [str(vmid) for vmid in declaration.ident['vmid'] if raw['guests'].get(vmid) is None]
        if missing:
            problems.append('no guest %s in the cluster (/cluster/resources)' % ', '.join(missing))
        node = declaration.values.get('node')
        elsewhere = ['%s (on %s)' % (vmid, guest['node']) for vmid, guest in sorted(raw['guests'].items())
                     if node and guest and guest['node'] != node]
        if elsewhere:
            problems.append("node is '%s', but guest %s lives elsewhere: PVE's vzdump backs up only the guests of "
                            "the node it runs on (leave node out to back each guest up where it lives)"
                            % (node, ', '.join(elsewhere)))
        storage = declaration.values['storage']
        for run in the_plan.runs:
            if run['node'] not in raw['storages']:
                continue  # a guest not there yet: its node was not read
            row = raw['storages'][run['node']]
            if row is None:
                problems.append("storage '%s' is not available on node %s" % (storage, run['node']))
            elif 'backup' not in re.split(r'[,;\s]+', str(row.get('content') or '')):
                problems.append("storage '%s' does not hold backups (its content is '%s')" % (
                    storage, row.get('content') or ''))
            elif str(row.get('enabled', 1)) == '0' or str(row.get('active', 1)) == '0':
                problems.append("storage '%s' is not enabled and active on node %s" % (storage, run['node']))
        return sorted(set(problems), key=problems.index)

    def check_plan(self, client, declaration, raw, the_plan):
        """Refused in preflight, where check mode makes it a warning (an earlier task may create the guest)."""

    def diff(self, declaration, raw, the_plan):
        """Each guest's newest backup time on the storage; a guest due gets a new backup."""
        before = dict((str(vmid), backup_time((raw['newest'].get(vmid) or {}).get('ctime')))
                      for vmid in declaration.ident['vmid'])
        after = dict(before)
        after.update((vmid, NEW) for vmid in the_plan.changed)
        return dict(before=before, after=after)

    def preflight(self, client, declaration, raw, the_plan, result, check_mode):
        """Refuse a backup that cannot run (see problems); in check mode a refusal is a warning, since an earlier
        task of a real run may create the guest or set the storage up."""
        result['runs'] = the_plan.runs
        if the_plan.action == 'none':
            return
        problems = self.problems(declaration, raw, the_plan)
        if not problems:
            return
        refusal = Refused('%s is not made: %s. Nothing was backed up.' % (self.describe(declaration.ident),
                                                                          '; '.join(problems)))
        if not check_mode:
            raise refusal
        result['warnings'].append('a real run would refuse now: %s' % refusal)

    def act(self, client, declaration, raw, the_plan, result):
        """A vzdump per node, each waited for; then the content read again: every guest due has a newer backup."""
        result['tasks'] = []
        started = int(time.time())
        for run in result['runs']:
            form = self.form(declaration, run['vmid'])
            answer = client.post('/nodes/%s/vzdump' % run['node'], form, role=self.write_role)
            guests = ', '.join(str(vmid) for vmid in run['vmid'])
            if not parse_upid(answer):
                # VZDump.pm's silent exit: the guests are no longer on that node
                raise self.partly(NotConverged(
                    '%s: PVE answered %r instead of a backup task on node %s, so guest %s were not backed up there '
                    '(moved meanwhile?). Run again.' % (self.describe(declaration.ident), answer, run['node'],
                                                        guests)), result)
            try:
                wait_if_task(client, answer, self.write_role, declaration.task_timeout, result['warnings'])
            except (TaskFailed, TaskUnknown) as exc:
                failed = type(exc)(exc.upid, 'the backup of guest %s on node %s to storage %s: %s' % (
                    guests, run['node'], declaration.values['storage'], exc))
                raise self.partly(failed, result)
            result['tasks'].append(answer)
        after = self.read(client, declaration)
        volumes, missing = {}, []
        for vmid in [int(vmid) for vmid in the_plan.changed]:
            before, now = raw['newest'].get(vmid), after['newest'].get(vmid)
            # new: another name, or the same name written again (a backup within the second of the last one)
            if now is None or (before is not None and now['volid'] == before['volid'] and now['ctime'] < started):
                missing.append(str(vmid))
            else:
                volumes[str(vmid)] = now['volid']
        result['volumes'] = volumes
        if missing:
            raise self.partly(NotConverged('%s: the vzdump task ended OK, but storage %s lists no new backup of guest '
                                           '%s' % (self.describe(declaration.ident), declaration.values['storage'],
                                                   ', '.join(missing))), result)
        return after, the_plan

    def form(self, declaration, vmids):
        form = dict(vmid=self.identity[0].encode(vmids))
        for field in self.fields:
            if field.option == 'node':
                continue  # the path's; the parameter means "only run if executed on this node"
            value = declaration.values.get(field.option)
            if value is not None and value != '':
                form[field.wire] = field.encode(value)
        return form

    @staticmethod
    def partly(exc, result):
        """What a failed run still says: the tasks that ended OK (their backups are made)."""
        exc.result = dict(changed=bool(result.get('tasks')), tasks=list(result.get('tasks') or []),
                          plan=result.get('plan'))
        return exc

    def finish(self, client, declaration, raw, the_plan, result):
        result['object'] = self.object_view(declaration, raw)
        # not 'skipped': Ansible takes a true result['skipped'] for a skipped task
        result['not_due'] = [vmid for vmid in declaration.ident['vmid'] if str(vmid) not in the_plan.changed]
        result.setdefault('volumes', {})
        result.setdefault('tasks', [])
        result.setdefault('runs', the_plan.runs)
        return result

    def object_view(self, declaration, raw):
        """Each guest: where it lives, its type, and its newest backup on the storage (volid and time)."""
        guests = []
        for vmid in declaration.ident['vmid']:
            guest = raw['guests'].get(vmid) or {}
            newest = raw['newest'].get(vmid) or {}
            guests.append(dict(vmid=vmid, node=guest.get('node'), type=guest.get('type'),
                               newest_backup=newest.get('volid'), newest_backup_time=backup_time(newest.get('ctime'))))
        return dict(storage=declaration.values['storage'], guests=guests)


FAMILY = Backup('backup', 'backup')
