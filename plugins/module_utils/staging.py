# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Staged configuration: SDN objects and node interfaces are written to a pending copy, and nothing is
live until an apply reloads networking (for SDN on every node at once, for a node's interfaces on that
node). So an object reports whether it is pending, and an apply is its own task (an ``Applier``) that
makes no call at all when nothing is staged, and checks afterwards that nothing still is.

An applier is judged like a family (``declare`` reads, plans and writes it through the same methods)
but has no fields: its plan is "is anything staged?", and, in a batch, "will this run stage something?".
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import NotConverged, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    ABSENT, Declaration, Family, ItemStore, Plan, Task, absent)
from ansible_collections.homeflare.proxmox.plugins.module_utils.tasks import parse_upid, wait_if_task


class StagedStore(ItemStore):
    """The item store, plus the object's row in PVE's pending view (``?pending=1``: running values,
    staged ones and ``state``). Read from the collection, which lists a staged delete too (PVE's item
    read of a vnet deleted in the staged file answers "does not exist" even with pending=1)."""

    def read_pending(self, client, family, ident):
        key = family.identity[0]
        for row in self.read_at(client, family, family.collection, dict(pending=1)) or []:
            if row.get(key.wire) == ident[key.option]:
                return row
        return ABSENT


class Staged(Family):
    """A family whose writes are staged: the result also says whether the object is ``pending``
    (``pending_state``: PVE's new, changed or deleted) until an apply makes it live. Its store is a StagedStore
    unless ``where`` names one."""

    def __init__(self, module, name, identity, fields, where, **kwargs):
        if where.store is None:
            where.store = StagedStore()
        super(Staged, self).__init__(module, name, identity, fields, where, **kwargs)

    def finish(self, client, declaration, raw, the_plan, result):
        result = super(Staged, self).finish(client, declaration, raw, the_plan, result)
        row = self.store.read_pending(client, self, declaration.ident)
        state = None if absent(row) else row.get('state')
        result.update(pending=state is not None, pending_state=state)
        return result


class Applier(Task):
    """The task of an apply module; ``declare`` plans it after the objects it applies. It runs through the same
    reconcile() steps as a family: its read is "what is staged", its act the apply."""

    fields = []
    listing = None
    scheme = 'pve'
    singleton = True
    # The modules whose writes this apply makes live (in a batch: their drift means "will be staged").
    applies = ()
    # The module options that are not the identity (a revert): name -> argument spec.
    controls = {}

    def __init__(self, module, name, identity, task_timeout=60, schema=None):
        self.module = module
        self.name = name
        self.identity = identity
        self.task_timeout = task_timeout
        self.schema = schema  # the call the identity's rules come from (checked against the official schema)

    # -- the module's interface ------------------------------------------------------------
    def object_spec(self):
        spec = {}
        for field in self.identity:
            spec[field.option] = field.argument_spec()
        spec['task_timeout'] = dict(type='int', default=self.task_timeout)
        spec.update(self.controls)
        return spec

    def declaration(self, params):
        ident = dict((field.option, field.declared(params[field.option])) for field in self.identity)
        return Declaration(ident, {}, 'present', params.get('task_timeout') or self.task_timeout,
                           controls=dict((option, params.get(option)) for option in self.controls))

    # -- the reconcile() steps -------------------------------------------------------------------
    def preflight(self, client, declaration, staged, the_plan, result, check_mode):
        if the_plan.action == 'none':
            return
        try:
            self.precondition(client, declaration)
        except Refused as exc:
            if not check_mode:
                raise
            # Check mode still reports the plan: the earlier tasks of a real run may clear the obstacle.
            result['warnings'].append('a real run would refuse now: %s' % exc)

    def act(self, client, declaration, staged, the_plan, result):
        return self.apply(client, declaration, result), the_plan

    def finish(self, client, declaration, staged, the_plan, result):
        result['object'] = self.object_view(declaration, staged)
        return result

    def plan(self, declaration, staged, batch=()):
        """Apply when something is staged, or (in a batch) when an object this apply covers will be written."""
        coming = ['%s (%s)' % (item.name, item.action) for item in batch
                  if item.module in self.applies and item.action not in (None, 'none') and self.covers(declaration,
                                                                                                       item)]
        changed = self.describe_staged(staged) + coming
        return Plan('found', self.action(declaration) if changed else 'none', changed)

    def covers(self, declaration, item):
        return True

    def action(self, declaration):
        return 'apply'

    def diff(self, declaration, staged, the_plan):
        before = self.object_view(declaration, staged)
        after = dict(before)
        if the_plan.action != 'none':
            after.update(self.settled())
        return dict(before=before, after=after)

    # -- the write ------------------------------------------------------------------------------
    def apply(self, client, declaration, result):
        """Apply once, wait for the task, and fail if anything is still staged afterwards; returns what is staged
        then (nothing)."""
        answer = self.send(client, declaration)
        if wait_if_task(client, answer, 'provision', declaration.task_timeout, result['warnings']):
            result['task'] = answer
        self.postcondition(client, declaration)
        after = self.read(client, declaration)
        leftover = self.describe_staged(after)
        if leftover:
            raise NotConverged('%s: the %s returned no error, but still staged: %s. %s' % (
                self.describe(declaration.ident), self.action(declaration), ', '.join(leftover), self.inspect_hint(
                    declaration)))
        return after

    def precondition(self, client, declaration):
        """Checked before a write (a degraded cluster); in check mode a refusal is a warning."""

    def postcondition(self, client, declaration):
        """Checked after the write."""


# -- SDN ------------------------------------------------------------------------------------------
# What PUT /cluster/sdn makes live: the collections PVE keeps a running copy of (ipams and dns
# servers are written directly, not staged). Subnets are read per vnet, fabrics as one view.
SDN_COLLECTIONS = (('zone', '/cluster/sdn/zones'), ('vnet', '/cluster/sdn/vnets'),
                   ('controller', '/cluster/sdn/controllers'))
FABRIC_VIEW = (('fabric', 'fabrics', ('id',)), ('fabric node', 'nodes', ('fabric_id', 'node_id')))


class SdnApply(Applier):
    """``PUT /cluster/sdn``: regenerates every node's SDN network at once, so only when something is staged."""

    applies = ('sdn_fabric', 'sdn_fabric_node', 'sdn_controller', 'sdn_zone', 'sdn_vnet', 'sdn_subnet')

    def describe(self, ident):
        return 'the SDN configuration'

    def read(self, client, declaration):
        """Every staged SDN object: (kind, id, state, staged keys), from PVE's pending views."""
        staged = []
        vnets = []
        for kind, path in SDN_COLLECTIONS:
            for row in client.get(path, params=dict(pending=1), role='read') or []:
                staged.append(self.entry(kind, row.get(kind), row))
                if kind == 'vnet' and row.get('state') != 'deleted':
                    vnets.append(row.get('vnet'))
        for vnet in vnets:
            for row in client.get('/cluster/sdn/vnets/%s/subnets' % vnet, params=dict(pending=1), role='read') or []:
                staged.append(self.entry('subnet', row.get('subnet'), row))
        fabrics = client.get('/cluster/sdn/fabrics/all', params=dict(pending=1), role='read') or {}
        for kind, key, names in FABRIC_VIEW:
            for row in fabrics.get(key) or []:
                # pending_config keeps a new object's keys under pending, its id among them
                keys = dict(row.get('pending') or {}, **row)
                staged.append(self.entry(kind, '/'.join(str(keys.get(name)) for name in names), row))
        return [entry for entry in staged if entry['state']]

    @staticmethod
    def entry(kind, ident, row):
        # Only key names: a staged value is the operator's business, and the apply makes it live as is.
        return dict(kind=kind, id=ident, state=row.get('state'), keys=sorted(row.get('pending') or {}))

    @staticmethod
    def describe_staged(staged):
        return ['%s %s (%s)' % (entry['kind'], entry['id'], entry['state']) for entry in staged]

    def object_view(self, declaration, staged):
        return dict(pending=staged)

    @staticmethod
    def settled():
        return dict(pending=[])

    def precondition(self, client, declaration):
        """PVE reloads every node's network for an SDN apply, which also makes any staged interface change
        live: so only on a healthy cluster, and only when no node has interfaces staged."""
        problems = cluster_health(client)
        for row in client.get('/nodes', role='read') or []:
            if row.get('status') == 'online' and staged_interface_lines(client, row['node']):
                problems.append("node %s has interface changes staged, which the SDN apply would make live "
                                "too (apply or revert them first with homeflare.proxmox.network_apply)" % row['node'])
        if problems:
            raise Refused('the SDN configuration is not applied: %s. Nothing was applied.' % '; '.join(problems))

    def send(self, client, declaration):
        return client.put('/cluster/sdn', {}, role='provision')

    def inspect_hint(self, declaration):
        return 'See `pvesh get /cluster/sdn/zones --pending 1` (and vnets, subnets).'


# -- node networking -------------------------------------------------------------------------------
def changed_lines(diff_text):
    """Lines a unified diff adds or removes (its own --- and +++ headers aside). The text itself is never
    kept: /etc/network/interfaces may hold secrets (wpa-psk) and commands (pre-up)."""
    return sum(1 for line in (diff_text or '').splitlines()
               if line[:1] in ('+', '-') and not line.startswith(('+++', '---')))


def staged_interface_lines(client, node):
    """How many lines a node's interfaces.new changes: PVE sends the diff as ``changes`` beside the data."""
    return changed_lines(client.request('GET', '/nodes/%s/network' % node, None, 'read').extras.get('changes'))


def cluster_health(client):
    """What keeps a network reload from being safe: no quorum, a member offline. Empty when healthy;
    a standalone node has no cluster row and is quorate."""
    problems = []
    for row in client.get('/cluster/status', role='read') or []:
        if row.get('type') == 'cluster' and not int(row.get('quorate') or 0):
            problems.append('the cluster is not quorate')
        if row.get('type') == 'node' and not int(row.get('online') or 0):
            problems.append('node %s is offline' % row.get('name'))
    return problems


class NetworkApply(Applier):
    """``PUT /nodes/{node}/network``: moves interfaces.new over interfaces and reloads the node's network
    (task ``srvreload``). Only when something is staged, only on a healthy cluster, one node at a time."""

    applies = ('node_network',)

    controls = dict(revert=dict(type='bool', default=False))

    def describe(self, ident):
        return "the network of node '%s'" % ident['node']

    def covers(self, declaration, item):
        return item.declaration.ident.get('node') == declaration.ident['node']

    def action(self, declaration):
        return 'revert' if declaration.controls.get('revert') else 'apply'

    def read(self, client, declaration):
        return dict(pending_lines=staged_interface_lines(client, declaration.ident['node']))

    @staticmethod
    def describe_staged(staged):
        lines = staged['pending_lines']
        return ['%d staged line%s in /etc/network/interfaces.new' % (lines, '' if lines == 1 else 's')] if lines else []

    def object_view(self, declaration, staged):
        return dict(node=declaration.ident['node'], pending_lines=staged['pending_lines'])

    @staticmethod
    def settled():
        return dict(pending_lines=0)

    def precondition(self, client, declaration):
        if self.action(declaration) == 'revert':
            return  # a revert only removes the staged file; nothing is reloaded
        problems = cluster_health(client)
        if problems:
            raise Refused('%s is not reloaded: %s. Nothing was applied; the staged change stays in '
                          '/etc/network/interfaces.new.' % (self.describe(declaration.ident), '; '.join(problems)))

    def send(self, client, declaration):
        path = '/nodes/%s/network' % declaration.ident['node']
        if self.action(declaration) == 'revert':
            return client.delete(path, role='provision')
        answer = client.put(path, {}, role='provision')
        if not parse_upid(answer):
            raise Refused('%s: PVE answered %r instead of the reload task, so the outcome is unknown; check the node '
                          'before running again.' % (self.describe(declaration.ident), answer))
        return answer

    def postcondition(self, client, declaration):
        if self.action(declaration) == 'revert':
            return
        problems = cluster_health(client)
        if problems:
            raise NotConverged('%s was reloaded, but then: %s.' % (self.describe(declaration.ident),
                                                                   '; '.join(problems)))

    def inspect_hint(self, declaration):
        return 'See `pvesh get /nodes/%s/network` (its changes).' % declaration.ident['node']
