# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A cluster and its members: created on the first standalone node, then every other one joined to it.

pve-cluster's ``/cluster/config`` (ClusterConfig.pm create, join_info, join, nodes): a node that is not yet a member
answers for itself only, so every member is reached at its own ``api_host`` (``Client.at``), with a login of its own.
PVE lets only root@pam create or join (the methods have no permissions): a token can verify, never write.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import Member
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import is_root_login
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    DeclarationError, NotConverged, Refused, Unreadable)
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Field, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import why_not
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family, Lifecycle, Plan, Where
from ansible_collections.homeflare.proxmox.plugins.module_utils.tasks import poll_until, wait_if_task

MAX_LINKS = 8  # corosync links link0 .. link7 (Corosync.pm MAX_LINK_INDEX)
MEMBER_OPTIONS = dict(
    node=dict(type='str', required=True),
    api_host=dict(type='str'),
    links=dict(type='list', elements='str', default=[]),
    votes=dict(type='int'),
    nodeid=dict(type='int'),
)


class Members(Field):
    """The declared members in order (the first creates the cluster): node, API address, corosync link addresses,
    votes and node id. Checked whole before any request: names, addresses, the same number of links everywhere."""

    ansible_type = 'list'
    elements = 'dict'
    unset = ()

    def argument_spec(self):
        spec = super(Members, self).argument_spec()
        spec['options'] = dict((name, dict(option)) for name, option in MEMBER_OPTIONS.items())
        return spec

    def canonical(self, value):
        return tuple(dict(entry) for entry in value or ())

    def declared(self, value):
        members = []
        for index, entry in enumerate(value or ()):
            where = 'option members[%d]' % index
            node = str(entry.get('node') or '')
            if why_not('pve-node', node):
                raise DeclarationError('%s.node: %r is not a node name (%s)' % (where, node, why_not('pve-node', node)))
            if entry.get('api_host') is not None:
                try:
                    Member.parse(entry['api_host'], 8006)
                except DeclarationError as exc:
                    raise DeclarationError('%s.api_host: %s' % (where, str(exc).replace('option api_host: ', '')))
            links = [str(link) for link in entry.get('links') or []]
            for link in links:
                if why_not('ip', link):
                    raise DeclarationError('%s.links: %r is not an IP address (a corosync link address)'
                                           % (where, link))
            if len(links) > MAX_LINKS:
                raise DeclarationError('%s.links: %d links; corosync takes at most %d' % (where, len(links), MAX_LINKS))
            for key, lowest in (('votes', 0), ('nodeid', 1)):
                if entry.get(key) is not None and int(entry[key]) < lowest:
                    raise DeclarationError('%s.%s: %s is below the minimum %d' % (where, key, entry[key], lowest))
            members.append(dict(node=node, api_host=entry.get('api_host'), links=links,
                                votes=entry.get('votes'), nodeid=entry.get('nodeid')))
        if not members:
            raise DeclarationError('option members: a cluster needs at least one member')
        names = [member['node'] for member in members]
        twice = sorted(set(name for name in names if names.count(name) > 1))
        if twice:
            raise DeclarationError('option members: %s declared twice' % ', '.join(twice))
        addresses = [link for member in members for link in member['links']]
        reused = sorted(set(link for link in addresses if addresses.count(link) > 1))
        if reused:
            raise DeclarationError('option members: link address %s is declared for two members' % ', '.join(reused))
        counts = set(len(member['links']) for member in members if member['links'])
        if len(counts) > 1:
            raise DeclarationError('option members: every member needs the same number of links (addnode refuses a '
                                   'node whose links differ from the cluster\'s); declared: %s'
                                   % ', '.join('%s %d' % (m['node'], len(m['links'])) for m in members if m['links']))
        return tuple(members)


class ClusterPlan(Plan):
    """The plan, with the step each member needs (create on the first, join for the others)."""

    def __init__(self, read, action, changed, steps):
        super(ClusterPlan, self).__init__(read, action, changed)
        self.steps = steps

    def as_dict(self):
        result = super(ClusterPlan, self).as_dict()
        if self.steps:
            result['steps'] = [dict(step) for step in self.steps]
        return result


def link_form(member):
    return dict(('link%d' % number, address) for number, address in enumerate(member['links']))


def reach(client, member):
    """The client that reaches a member: its own API address, else the task's connection (a member of a complete
    cluster answers for all of them)."""
    return client.at(member['api_host']) if member['api_host'] else client


def cluster_row(status):
    return next((row for row in status if row.get('type') == 'cluster'), None)


class ClusterFamily(Family):
    def check_declaration(self, declaration):
        if declaration.controls.get('quorum_timeout') is not None and declaration.controls['quorum_timeout'] < 1:
            raise DeclarationError('option quorum_timeout: %r is below the minimum 1' % declaration.controls[
                'quorum_timeout'])

    # -- reading: the first member's view, and each member it does not list -----------------------------------
    def read(self, client, declaration):
        name = declaration.ident['name']
        live = dict(cluster=None, members={}, nodes={}, foreign={}, standalone=[])
        for member in declaration.values['members']:
            if member['node'] in live['members']:
                continue  # the cluster's own view already lists it
            status = reach(client, member).get('/cluster/status') or []
            row = cluster_row(status)
            nodes = [entry.get('name') for entry in status if entry.get('type') == 'node']
            if row is None:
                if member['node'] not in nodes:
                    raise Unreadable('%s answered /cluster/status for %s, not for %s: declare the address of %s as '
                                     'its api_host' % (member['api_host'] or 'the connection', ', '.join(nodes) or
                                                       'no node', member['node'], member['node']))
                live['standalone'].append(member['node'])
            elif row.get('name') != name:
                live['foreign'][member['node']] = row.get('name')
            elif live['cluster'] is None:
                live['cluster'] = dict(row, via=member)
                live['members'] = dict((entry.get('name'), entry) for entry in status if entry.get('type') == 'node')
                for entry in reach(client, member).get('/cluster/config/nodes') or []:
                    live['nodes'][entry.get('node')] = entry
        return live

    # -- judging ------------------------------------------------------------------------------------------
    def plan(self, declaration, raw, batch=()):
        name = declaration.ident['name']
        declared = declaration.values['members']
        for node, other in sorted(raw['foreign'].items()):
            raise Refused("cluster '%s': node %s is a member of cluster '%s'. A node is never taken from another "
                          "cluster; remove it there (pvecm delnode %s on a remaining member), reinstall it, then "
                          "run again. Nothing was written." % (name, node, other, node))
        undeclared = [node for node in raw['members'] if node not in [m['node'] for m in declared]]
        if undeclared:
            raise Refused("cluster '%s' has member(s) %s that the task does not declare; this module never removes a "
                          "member. Declare them, or shut the node down for good and run 'pvecm delnode %s' on a "
                          "remaining member. Nothing was written." % (name, ', '.join(undeclared), undeclared[0]))
        for member in declared:
            self._check_member(name, member, raw['nodes'].get(member['node']))
        if raw['cluster'] is None:
            steps = [dict(node=declared[0]['node'], action='create')]
            joining = declared[1:]
        else:
            steps, joining = [], [member for member in declared if member['node'] not in raw['members']]
        steps.extend(dict(node=member['node'], action='join') for member in joining)
        read = 'absent' if raw['cluster'] is None else 'found'
        if not steps:
            return ClusterPlan(read, 'none', [], [])
        return ClusterPlan(read, 'create' if raw['cluster'] is None else 'update', ['members'], steps)

    @staticmethod
    def _check_member(name, member, entry):
        """A member's corosync links and votes live in corosync.conf, which no API method edits: a difference is
        refused, never rewritten."""
        if entry is None:
            return
        live_links = [entry['ring%d_addr' % number] for number in range(MAX_LINKS) if entry.get('ring%d_addr' % number)]
        differs = []
        if member['links'] and member['links'] != live_links:
            differs.append('links %s (declared %s)' % (live_links, member['links']))
        if member['votes'] is not None and int(entry.get('quorum_votes', 1)) != member['votes']:
            differs.append('votes %s (declared %s)' % (entry.get('quorum_votes', 1), member['votes']))
        if member['nodeid'] is not None and int(entry.get('nodeid', 0)) != member['nodeid']:
            differs.append('nodeid %s (declared %s)' % (entry.get('nodeid'), member['nodeid']))
        if differs:
            raise Refused("cluster '%s': member %s has %s. Corosync links, votes and node ids are not changed "
                          "through the API; edit /etc/pve/corosync.conf (the Proxmox VE guide, 'Corosync "
                          "Configuration') or declare what is live. Nothing was written."
                          % (name, member['node'], ', '.join(differs)))

    def object_view(self, declaration, raw):
        members = [member['node'] for member in declaration.values['members'] if member['node'] in raw['members']]
        if raw['cluster'] is None:
            return {}
        return dict(name=declaration.ident['name'], members=members,
                    quorate=bool(int(raw['cluster'].get('quorate') or 0)))

    def diff(self, declaration, raw, the_plan):
        before = {}
        if raw['cluster'] is not None:
            before = dict(name=declaration.ident['name'],
                          members=list(raw['members']))
        after = dict(name=declaration.ident['name'], members=[m['node'] for m in declaration.values['members']])
        if the_plan.action == 'none':
            after = dict(before)
        return dict(before=before, after=after)

    def check_plan(self, client, declaration, raw, the_plan):
        by_node = dict((member['node'], member) for member in declaration.values['members'])
        unaddressed = [step['node'] for step in the_plan.steps if not by_node[step['node']]['api_host']
                       and (step['action'] == 'join' or len(by_node) > 1)]
        if unaddressed:
            raise Refused("cluster '%s': %s must be reached at its own address to %s: a node outside a cluster "
                          "answers for itself only. Declare members[].api_host for it. Nothing was written."
                          % (declaration.ident['name'], ', '.join(unaddressed), ', '.join(
                              '%s %s' % (step['action'], step['node']) for step in the_plan.steps)))
        if not is_root_login(client.credentials):
            raise Refused("cluster '%s': %s. PVE lets only root@pam create or join a cluster (the methods have no "
                          "permissions an API token could be granted): connect with api_user: root@pam and "
                          "api_password. Nothing was written."
                          % (declaration.ident['name'], ', '.join('%s %s' % (step['action'], step['node'])
                                                                  for step in the_plan.steps)))
        if any(step['action'] == 'join' for step in the_plan.steps) and not declaration.controls.get('join_password'):
            raise DeclarationError("option join_password: cluster '%s' needs root@pam's password of a member to join "
                                   "%s" % (declaration.ident['name'], ', '.join(
                                       step['node'] for step in the_plan.steps if step['action'] == 'join')))

    # -- the export: the cluster the connection reaches, each member at the address pmxcfs knows ----------------
    def find_all(self, client):
        status = client.get('/cluster/status') or []
        row = cluster_row(status)
        if row is None:
            return []
        nodes = dict((entry.get('node'), entry) for entry in client.get('/cluster/config/nodes') or [])
        members = dict((entry.get('name'), entry) for entry in status if entry.get('type') == 'node')
        raw = dict(cluster=row, members=members, nodes=nodes, foreign={}, standalone=[])
        return [(dict(name=row.get('name')), raw)]

    def secrets_taken(self, ident, raw):
        """No field is a secret (the join password is a control, never exported)."""
        return []

    def export_options(self, ident, raw):
        members = []
        for node, entry in sorted(raw['members'].items(), key=lambda item: int(item[1].get('nodeid') or 0)):
            corosync = raw['nodes'].get(node) or {}
            members.append(dict(node=node,
                                links=[corosync['ring%d_addr' % n] for n in range(MAX_LINKS)
                                       if corosync.get('ring%d_addr' % n)],
                                votes=int(corosync.get('quorum_votes', 1))))
        return dict(ident, members=members)

    # -- writing: create, the joins, then quorum ------------------------------------------------------------
    def act(self, client, declaration, raw, the_plan, result):
        name = declaration.ident['name']
        by_node = dict((member['node'], member) for member in declaration.values['members'])
        timeout = declaration.task_timeout or 120
        warnings = result['warnings']
        if raw['cluster'] is None:
            first = by_node[the_plan.steps[0]['node']]
            first_client = reach(client, first)
            form = dict(link_form(first), clustername=name)
            form.update((key, first[key]) for key in ('votes', 'nodeid') if first[key] is not None)
            wait_if_task(first_client, first_client.post('/cluster/config', form), self.write_role, timeout, warnings)
            via = first_client
        else:
            via = reach(client, raw['cluster']['via'])
        joins = [by_node[step['node']] for step in the_plan.steps if step['action'] == 'join']
        if joins:
            info = via.get('/cluster/config/join')
            preferred = next(row for row in info['nodelist'] if row.get('name') == info.get('preferred_node'))
            for member in joins:
                joining = reach(client, member)
                form = dict(link_form(member), hostname=preferred['pve_addr'], fingerprint=preferred['pve_fp'],
                            password=declaration.controls['join_password'])
                form.update((key, member[key]) for key in ('votes', 'nodeid') if member[key] is not None)
                # One POST per node: a join that may have left is never sent again (the next run reads it).
                wait_if_task(joining, joining.post('/cluster/config/join', form), self.write_role, timeout, warnings)
        self._wait_for_quorum(via, declaration, by_node)
        after = self.read(client, declaration)
        if self.plan(declaration, after).action != 'none':
            raise NotConverged("cluster '%s' was created and joined without error, but reading it back it still "
                               "lacks %s" % (name, ', '.join(node for node in by_node if node not in after['members'])))
        return after, the_plan

    @staticmethod
    def _wait_for_quorum(via, declaration, by_node):
        """Until /cluster/status is quorate with every declared member online, or quorum_timeout seconds."""
        seen = {}

        def quorate():
            status = via.get('/cluster/status') or []
            row = cluster_row(status) or {}
            online = set(entry.get('name') for entry in status if entry.get('type') == 'node' and entry.get('online'))
            seen.update(quorate=row.get('quorate'), missing=sorted(set(by_node) - online))
            return bool(int(row.get('quorate') or 0)) and not seen['missing']

        timeout = declaration.controls.get('quorum_timeout') or 60
        if not poll_until(quorate, timeout):
            raise NotConverged("cluster '%s' is not quorate with every member online after quorum_timeout=%d s "
                               "(quorate: %s; not online: %s)" % (declaration.ident['name'], timeout,
                                                                  seen.get('quorate'),
                                                                  ', '.join(seen.get('missing') or []) or 'none'))


FAMILY = ClusterFamily(
    'cluster', 'cluster',
    identity=[Text('clustername', option='name', required=True, format='pve-node', max_length=15)],
    fields=[Members('members', required=True, schema_key=None)],
    where=Where(schema=('POST', '/cluster/config')),
    lifecycle=Lifecycle(singleton=True, task_timeout=120),
    controls=dict(join_password=dict(type='str', no_log=True),
                  quorum_timeout=dict(type='int', default=60)),
)
