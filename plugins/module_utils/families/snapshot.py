# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One snapshot of one guest, a VM or a container, by name.

The guest's type and the node it lives on come from ``GET /cluster/resources?type=vm`` (one declaration serves
both types; a guest that moved is judged where it lives, with a warning); a vmid that is no guest is refused, never
taken for an absent snapshot. The snapshot is its row of ``GET /nodes/{node}/{qemu|lxc}/{vmid}/snapshot``
(qemu-server PVE/API2/Qemu.pm ``snapshot_list``, pve-container src/PVE/API2/LXC/Snapshot.pm ``list``), whose rows
carry the description and ``snaptime`` of every snapshot, so one read judges the snapshot and a ``keep`` alike.

Writes: the create (``POST .../snapshot``), the description (``PUT .../snapshot/{name}/config``, answered at once),
the removal (``DELETE .../snapshot/{name}``) and the rollback (``POST .../snapshot/{name}/rollback``), each task
waited for. ``keep`` removes the older snapshots of the declared prefix after the declared one is there;
``rollback`` is an explicit action that acts on every run it is declared for, never implied by a declaration.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    DeclarationError, MissingReference, NotConverged, Refused, TaskError, TaskFailed, TaskUnknown)
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import CommentText, Flag, Text, qm_comment
from ansible_collections.homeflare.proxmox.plugins.module_utils.guest import guest_declared, guest_row, identity
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absent, Exporting, Family, Lifecycle, Plan, Where, absent, create_form, diff_of, field_plan, update_form, verify)
from ansible_collections.homeflare.proxmox.plugins.module_utils.tasks import wait_if_task

SNAPSHOTS = '/nodes/{node}/{type}/{vmid}/snapshot'
SNAPSHOT = SNAPSHOTS + '/{snapname}'
LABELS = {'qemu': 'VM', 'lxc': 'container'}
# The names each type's create refuses before it forks (Qemu.pm ``snapshot``: 'pending' in any case; LXC/Snapshot.pm
# ``snapshot``: 'vzdump', the name vzdump's own snapshot takes); 'current' (both) is refused before any request.
RESERVED = {'qemu': lambda name: name.lower() == 'pending', 'lxc': lambda name: name == 'vzdump'}
NOT_EXPORTED = ('a snapshot is a point in time of its guest, not a declaration: PVE cannot take it again as it was, '
                'so the export leaves snapshots out')


class Place:
    """The guest a snapshot belongs to, as the cluster's resource list shows it: its type and the node it lives on;
    ``snapshots`` the snapshot list's rows (``current`` left out)."""

    def __init__(self, kind, node, snapshots):
        self.kind = kind
        self.node = node
        self.snapshots = snapshots

    @property
    def label(self):
        return LABELS[self.kind]

    def path(self, template, vmid, snapname=None):
        return item_path(template, dict(node=self.node, type=self.kind, vmid=vmid, snapname=snapname))


class Found(dict):
    """The snapshot's row of the list, and where it was read."""

    def __init__(self, row, place):
        super(Found, self).__init__(row)
        self.place = place


class NoSnapshot(Absent):
    """The guest's list answered without the snapshot; keeps where it was read."""

    def __init__(self, place):
        self.place = place


class SnapshotPlan(Plan):
    """A plan plus the guest it acts on (``type``, ``node``), the older snapshots ``keep`` removes (``remove``,
    oldest first), whether the run rolls back to the snapshot (``rollback``), and ``kept``: the prefix's snapshots
    that stay. Its action is the snapshot's own, else ``prune`` or ``rollback`` when that is all the run does."""

    def __init__(self, base, place, remove=(), rollback=False, kept=None):
        action = base.action
        if action == 'none':
            action = 'rollback' if rollback else 'prune' if remove else 'none'
        super(SnapshotPlan, self).__init__(base.read, action, base.changed)
        self.own = base.action
        self.type = place.kind
        self.node = place.node
        self.remove = list(remove)
        self.rollback = rollback
        self.kept = kept

    def as_dict(self):
        result = super(SnapshotPlan, self).as_dict()
        result.update(type=self.type, node=self.node, remove=list(self.remove), rollback=self.rollback)
        return result


def by_age(rows):
    """Newest first (a snapshot's ``snaptime``, then its name: two taken in the same second keep one order)."""
    return sorted(rows, key=lambda row: (int(row.get('snaptime') or 0), str(row.get('name'))), reverse=True)


class SnapshotFamily(Family):
    # -- the declaration --------------------------------------------------------------------------------------
    def check_declaration(self, declaration):
        """keep needs a prefix the declared name starts with, and at least 1; rollback its confirmation."""
        ident, controls = declaration.ident, declaration.controls
        if ident['name'] == 'current':
            raise DeclarationError("option name: 'current' is PVE's name for the guest's present state, not a "
                                   "snapshot (unable to use snapshot name 'current' (reserved name))")
        keep, prefix = controls.get('keep'), controls.get('prefix')
        if keep is not None or prefix:
            if declaration.state == 'absent':
                raise DeclarationError('options keep and prefix prune the snapshots around a present one; they '
                                       'take no state=absent')
            if keep is None or not prefix:
                raise DeclarationError('options keep and prefix go together: keep the newest <keep> snapshots whose '
                                       'names start with <prefix>')
            if keep < 1:
                raise DeclarationError('option keep: %d is below the minimum 1 (the declared snapshot is one of '
                                       'them)' % keep)
            if not ident['name'].startswith(prefix):
                raise DeclarationError("option name: %r does not start with prefix %r, so keep would not count it "
                                       "among the snapshots it keeps" % (ident['name'], prefix))
        if controls.get('rollback'):
            if declaration.state == 'absent':
                raise DeclarationError('option rollback rolls the guest back to a present snapshot; it takes no '
                                       'state=absent')
            if not controls.get('confirm_rollback'):
                raise DeclarationError('option rollback replaces the guest\'s current state with the snapshot\'s '
                                       '(and stops a running guest): it also needs confirm_rollback: true')

    def describe(self, ident):
        return "snapshot '%s' of guest %s on %s" % (ident['name'], ident['vmid'], ident['node'])

    def check_references(self, declaration, raw, batch, client):
        """The guest must exist, or be declared (present) in the same ``declare``, which writes guests first."""
        if raw.place.kind is not None:
            return
        vmid = declaration.ident['vmid']
        if guest_declared(batch, vmid):
            return
        raise MissingReference('%s: vmid %s is no guest of the cluster (GET /cluster/resources?type=vm lists none for '
                               'this credential, which needs VM.Audit on it), so it has no snapshots to judge. Nothing '
                               'was written.' % (self.describe(declaration.ident), vmid))

    # -- reading --------------------------------------------------------------------------------------------
    def locate(self, client, ident):
        """The guest's type and node from the cluster's resource list; (None, None) when no guest has the vmid."""
        row = guest_row(client, self.read_role, ident['vmid'])
        return (str(row['type']), str(row.get('node'))) if row else (None, None)

    def read(self, client, declaration):
        ident = declaration.ident
        kind, node = self.locate(client, ident)
        if kind is None:
            # no guest yet: an earlier task (or this declare) may create it; check_references decides
            return NoSnapshot(Place(None, ident['node'], []))
        if kind == 'lxc' and declaration.values.get('vmstate') is not None:
            raise Refused('%s: option vmstate saves a VM\'s RAM; guest %s is a container, whose snapshot takes no '
                          'vmstate (pve-container has no such parameter). Nothing was written.'
                          % (self.describe(ident), ident['vmid']))
        return self.read_at(client, ident, kind, node)

    def read_at(self, client, ident, kind, node):
        place = Place(kind, node, [])
        rows = client.get(place.path(SNAPSHOTS, ident['vmid']), role=self.read_role) or []
        place.snapshots = [row for row in rows if row.get('name') != 'current']
        for row in place.snapshots:
            if row.get('name') == ident['name']:
                return Found(row, place)
        return NoSnapshot(place)

    # -- judging --------------------------------------------------------------------------------------------
    def plan(self, declaration, raw, batch=()):
        place = raw.place
        ident, controls = declaration.ident, declaration.controls
        base = field_plan(self, declaration, raw)
        if base.action == 'create' and place.kind and RESERVED[place.kind](ident['name']):
            raise Refused("%s: unable to use snapshot name '%s' (reserved name) for a %s. Nothing was written."
                          % (self.describe(ident), ident['name'], place.label))
        rollback = bool(controls.get('rollback'))
        if rollback and absent(raw):
            raise Refused('%s does not exist, so there is nothing to roll back to. Nothing was written.'
                          % self.describe(ident))
        remove, kept = [], None
        if controls.get('keep'):
            remove, kept = self.pruned(declaration, raw)
        return SnapshotPlan(base, place, remove=remove, rollback=rollback, kept=kept)

    def pruned(self, declaration, raw):
        """(the prefix's snapshots keep removes, oldest first; those it keeps, oldest first): the newest ``keep``
        by snaptime, the declared one counted as the newest when this run takes it. The declared one must be among
        them, or keeping them would remove it."""
        ident, keep, prefix = declaration.ident, declaration.controls['keep'], declaration.controls['prefix']
        prefixed = [row for row in raw.place.snapshots if str(row.get('name')).startswith(prefix)]
        names = [str(row['name']) for row in by_age(prefixed)]
        if absent(raw):
            names.insert(0, ident['name'])
        if ident['name'] not in names[:keep]:
            raise Refused('%s is older than the newest %d snapshots named %s*, so keep: %d would remove it: declare '
                          'a newer snapshot, or a larger keep. Nothing was written.'
                          % (self.describe(ident), keep, prefix, keep))
        return list(reversed(names[keep:])), list(reversed(names[:keep]))

    def diff(self, declaration, raw, the_plan):
        diff = diff_of(self, declaration, raw, the_plan.own)
        if the_plan.kept is not None:
            prefix = declaration.controls['prefix']
            diff['before']['snapshots'] = [str(row['name']) for row in reversed(by_age(raw.place.snapshots))
                                           if str(row.get('name')).startswith(prefix)]
            diff['after']['snapshots'] = list(the_plan.kept)
        if the_plan.rollback:
            diff['after']['rolled_back'] = True
        return diff

    def advise(self, declaration, raw):
        declared = declaration.ident['node']
        if raw.place.node == declared:
            return []
        return ['guest %s is declared on %s but lives on %s (moved by HA or by hand): its snapshot was judged there'
                % (declaration.ident['vmid'], declared, raw.place.node)]

    def outcome(self, declaration, raw, the_plan):
        result = super(SnapshotFamily, self).outcome(declaration, raw, the_plan)
        if absent(raw):  # Task.outcome advises on a found object only; the guest's place is known either way
            result['warnings'].extend(self.advise(declaration, raw))
        return result

    # -- writing --------------------------------------------------------------------------------------------
    def act(self, client, declaration, raw, the_plan, result):
        """The snapshot's own write, then keep's removals (oldest first), then the rollback; each task waited for.
        Read back once: the snapshot as declared, the removed ones gone."""
        ident, place = declaration.ident, raw.place
        if place.kind is None:  # the guest was created after the read (declare writes guests first)
            kind, node = self.locate(client, ident)
            if kind is None:
                raise Refused('%s: vmid %s is still no guest of the cluster. Nothing was written.'
                              % (self.describe(ident), ident['vmid']))
            place = Place(kind, node, [])
        vmid, name = ident['vmid'], ident['name']
        if the_plan.own == 'create':
            form = dict(create_form(self, declaration), snapname=name)
            self.wait(client, declaration, 'create', name,
                      client.post(place.path(SNAPSHOTS, vmid), form, role=self.write_role), result)
        elif the_plan.own == 'update':
            client.put(place.path(SNAPSHOT + '/config', vmid, name),
                       update_form(self, declaration, the_plan.changed, raw), role=self.write_role)
        elif the_plan.own == 'delete':
            self.wait(client, declaration, 'delete', name,
                      client.delete(place.path(SNAPSHOT, vmid, name), role=self.write_role), result)
        for old in the_plan.remove:
            self.wait(client, declaration, 'delete', old,
                      client.delete(place.path(SNAPSHOT, vmid, old), role=self.write_role), result)
        if the_plan.rollback:
            self.wait(client, declaration, 'rollback', name,
                      client.post(place.path(SNAPSHOT + '/rollback', vmid, name), {}, role=self.write_role), result)
        after = self.read_at(client, ident, place.kind, place.node)
        verify(self, declaration, Plan(the_plan.read, the_plan.own, the_plan.changed), after)
        left = sorted(set(the_plan.remove) & set(str(row.get('name')) for row in after.place.snapshots))
        if left:
            raise NotConverged('keep removed %s of %s %s without error, but they are still listed'
                               % (', '.join(left), place.label, vmid))
        return after, the_plan

    def wait(self, client, declaration, call, name, answer, result):
        """A snapshot task, failing with the snapshot named beside the UPID."""
        try:
            wait_if_task(client, answer, self.write_role, declaration.task_timeout or self.task_timeout,
                         result['warnings'])
        except TaskError as exc:
            kind = TaskFailed if isinstance(exc, TaskFailed) else TaskUnknown
            raise kind(exc.upid, '%s of %s: %s' % (call, self.describe(dict(declaration.ident, name=name)), exc))

    def object_view(self, declaration, raw):
        if absent(raw):
            return {}
        view = self.managed_view(declaration.ident, raw, self.managed(declaration))
        view.update(type=raw.place.kind, snaptime=int(raw.get('snaptime') or 0))
        if raw.get('parent'):
            view['parent'] = raw['parent']
        if raw.place.kind == 'qemu':
            view['vmstate'] = bool(int(raw.get('vmstate') or 0))
        return view


FAMILY = SnapshotFamily(
    'snapshot', 'snapshot',
    identity=identity() + [Text('snapname', option='name', required=True, format='pve-configid', max_length=40)],
    fields=[
        # Kept as the config file's '#' lines of the snapshot's section: a container reads each line back with a
        # newline, a VM with trailing white space stripped, so both are compared as a VM reads them.
        CommentText('description', read_back=qm_comment),
        # POST .../qemu/{vmid}/snapshot's vmstate: the RAM of a running VM, saved with the snapshot only
        Flag('vmstate', create_param=True),
    ],
    where=Where(schema=('POST', '/nodes/{node}/qemu/{vmid}/snapshot'), write_role='provision'),
    # Removal drops a point in time nothing can take again; a RAM state may take long to save.
    lifecycle=Lifecycle(retain=True, task_timeout=600),
    exporting=Exporting(left_out=NOT_EXPORTED),
    controls={'keep': dict(type='int'), 'prefix': dict(type='str'),
              'rollback': dict(type='bool', default=False), 'confirm_rollback': dict(type='bool', default=False)},
)
