# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An LDAP or AD realm's sync: POST /access/domains/{realm}/sync (pve-access-control API2/Domains.pm ``sync``).

The read is PVE's own dry run (``dry-run=1``, worker ``auth-realm-sync-test``), which writes nothing and prints,
per user and group, what the sync would do (``$update_users``/``$update_groups``: adding, updating, overwriting,
remove, purge ... ACL entries). Its ``adding`` and ``remove`` lines are what the directory and user.cfg differ
in, so they decide ``changed`` in check mode. PVE prints ``updating`` for every synced entry whether or not an
attribute differs, and never says which: whether an update changes anything is known only after a real sync,
which compares user.cfg's users and groups of the realm before and after. A real run syncs whenever the dry run
names anything (the directory is the source), and reports changed only when user.cfg came out different.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    DeclarationError, MissingReference, Refused)
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Text, TokenSet
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Declaration, Plan, Task
from ansible_collections.homeflare.proxmox.plugins.module_utils.tasks import parse_upid, wait_if_task

SYNCABLE = ('ldap', 'ad')
REMOVE_VANISHED = ('acl', 'properties', 'entry')
# Domains.pm's worker lines, as $update_users and $update_groups print them.
LINE = re.compile(r"^(adding|updating|overwriting|remove) (user|group) '([^']+)'$")
PURGE = re.compile(r"^purge (users|groups) '([^']+)' ACL entries$")
KINDS = ('users', 'groups')
# What a sync writes of a user and of a group (user.cfg), compared before and after.
USER_KEYS = ('enable', 'expire', 'firstname', 'lastname', 'email', 'comment', 'keys', 'groups')
GROUP_KEYS = ('comment', 'users')


def empty_report():
    return dict((kind, dict(add=[], change=[], remove=[], resync=[], acl_purged=[])) for kind in KINDS)


def parse_log(lines):
    """The dry run's (or the sync's) lines as {users|groups: {add, resync, remove, acl_purged}}."""
    report = empty_report()
    words = {'adding': 'add', 'updating': 'resync', 'overwriting': 'resync', 'remove': 'remove'}
    for line in lines:
        match = LINE.match(line.strip())
        if match:
            report[match.group(2) + 's'][words[match.group(1)]].append(match.group(3))
            continue
        match = PURGE.match(line.strip())
        if match:
            report[match.group(1)]['acl_purged'].append(match.group(2))
    return report


def differences(report):
    """The plan's names for what the dry run says the directory and user.cfg differ in."""
    return ['%s %s (%s)' % (kind[:-1], name, action) for kind in KINDS for action in ('add', 'remove')
            for name in report[kind][action]]


class RealmSync(Task):
    """The ``realm_sync`` module: read (the dry run), plan, act (the sync), as reconcile() runs them."""

    scheme = 'pve'
    singleton = True
    listing = None
    collection = None
    # In a declare batch it runs like an apply, after the realms are written (a realm declared beside it exists).
    applies = ('realm',)
    left_out = 'a realm sync is an action a run makes, not an object: the export lists none (the realm is exported)'
    read_role = 'provision'  # the dry run is the sync's own call, with its privileges
    write_role = 'provision'
    fields = []

    def __init__(self, module, name, task_timeout=300):
        self.module = module
        self.name = name
        self.task_timeout = task_timeout
        self.schema = ('POST', '/access/domains/{realm}/sync')
        self.identity = [Text('realm', required=True, format='pve-realm', max_length=32)]
        self.options = [
            Text('scope', choices=('users', 'groups', 'both')),
            TokenSet('remove-vanished', option='remove_vanished'),
            Flag('enable-new', option='enable_new'),
        ]

    # -- the module's interface --------------------------------------------------------------
    def object_spec(self):
        spec = dict((field.option, field.argument_spec()) for field in self.identity + self.options)
        spec['remove_vanished']['elements'] = 'str'
        spec['task_timeout'] = dict(type='int', default=self.task_timeout)
        return spec

    def describe(self, ident):
        return "the sync of realm '%s'" % ident['realm']

    def declaration(self, params):
        ident = dict((field.option, field.declared(params[field.option])) for field in self.identity)
        if not ident['realm']:
            raise DeclarationError('option realm must not be empty')
        values = {}
        for field in self.options:
            if params.get(field.option) is not None:
                values[field.option] = field.declared(params[field.option])
        vanished = values.get('remove_vanished')
        if vanished is not None:
            unknown = [item for item in vanished if item not in REMOVE_VANISHED + ('none',)]
            if unknown or ('none' in vanished and len(vanished) > 1):
                raise DeclarationError('option remove_vanished: %r is not a list of acl, properties and entry '
                                       '(or none alone, the default)' % (vanished,))
        if params.get('task_timeout') is not None and params['task_timeout'] < 1:
            raise DeclarationError('option task_timeout: %r is below the minimum 1' % params['task_timeout'])
        return Declaration(ident, values, 'present', params.get('task_timeout') or self.task_timeout)

    def form(self, declaration, dry_run):
        form = {}
        for field in self.options:
            if field.option in declaration.values:
                value = declaration.values[field.option]
                # the remove-vanished option is a semicolon list (Plugin.pm sync-remove-vanished)
                form[field.wire] = ';'.join(value) if field.option == 'remove_vanished' else field.encode(value)
        if dry_run:
            form['dry-run'] = 1
        return form

    # -- the reconcile() steps ----------------------------------------------------------------
    def read(self, client, declaration):
        """The realm (typed refusals before the sync is asked), then PVE's dry run and its log."""
        realm = declaration.ident['realm']
        rows = client.get('/access/domains', role=self.read_role) or []
        config = [row for row in rows if row.get('realm') == realm]
        if not config:  # judged by the plan: a realm a declare creates first is synced after it
            return dict(report=empty_report(), task=None, warnings=[], missing=True)
        kind = config[0].get('type')
        if kind not in SYNCABLE:
            raise Refused("%s: the realm's type is %s, and PVE syncs LDAP and AD realms only (Domains.pm: \"Only "
                          "LDAP/AD realms can be synced\"; an OpenID realm creates its users at login, with "
                          "autocreate). Nothing was written." % (self.describe(declaration.ident), kind))
        return self.run_sync(client, declaration, dry_run=True)

    def run_sync(self, client, declaration, dry_run):
        path = item_path('/access/domains/{realm}/sync', {'realm': declaration.ident['realm']})
        warnings = []
        answer = client.request('POST', path, self.form(declaration, dry_run), role=self.write_role,
                                repeatable=dry_run).data
        wait_if_task(client, answer, self.write_role, declaration.task_timeout, warnings)
        lines = self.task_log(client, answer)
        return dict(report=parse_log(lines), task=answer, warnings=warnings)

    def task_log(self, client, upid_text):
        upid = parse_upid(upid_text)
        if upid is None:
            return []
        path = item_path('/nodes/{node}/tasks/{upid}/log', {'node': upid.node, 'upid': upid.text})
        return [str(line.get('t', '')) for line in client.get(path, params={'start': 0, 'limit': 0},
                                                              role=self.write_role) or []]

    def plan(self, declaration, raw, batch=()):
        if raw.get('missing'):
            # a realm a declare creates first is synced after it; a module run refuses in preflight
            realm = declaration.ident['realm']
            coming = [item for item in batch if item.module == 'realm' and item.action == 'create'
                      and item.declaration.ident.get('realm') == realm]
            name = coming[0].name if coming else "realm '%s'" % realm
            return Plan('absent', 'sync', ['%s (create): synced after it' % name])
        report = raw['report']
        changed = differences(report)
        if changed:
            return Plan('found', 'sync', changed)
        # only re-applies: the directory's attributes may still differ, which only a real sync shows. A declare
        # (it plans with its batch) syncs on a difference only, so its re-run stays a no-op.
        if not batch and any(report[kind]['resync'] or report[kind]['acl_purged'] for kind in KINDS):
            return Plan('found', 'resync', [])
        return Plan('found', 'none', [])

    def outcome(self, declaration, raw, the_plan):
        result = dict(changed=the_plan.action == 'sync', plan=the_plan.as_dict(), warnings=list(raw['warnings']),
                      diff=dict(before={}, after={}), **self.reported(raw['report']))
        result['dry_run_task'] = raw['task']
        return result

    @staticmethod
    def reported(report):
        return dict((kind, dict((key, sorted(report[kind][key])) for key in ('add', 'change', 'remove', 'resync')))
                    for kind in KINDS)

    def missing(self, declaration):
        return MissingReference("%s: PVE has no realm '%s' (declare it with homeflare.proxmox.realm first). Nothing "
                                "was written." % (self.describe(declaration.ident), declaration.ident['realm']))

    def preflight(self, client, declaration, raw, the_plan, result, check_mode):
        """A missing realm is refused here (a declare that creates it plans the sync after it); the options were
        judged by PVE's dry run."""
        if raw.get('missing'):
            raise self.missing(declaration)

    def advise(self, declaration, raw):
        if raw.get('missing'):
            return ["%s: PVE has no realm '%s' yet; a real run refuses the sync unless this task creates it"
                    % (self.describe(declaration.ident), declaration.ident['realm'])]
        return []

    def act(self, client, declaration, raw, the_plan, result):
        before = self.user_cfg(client, declaration)
        done = self.run_sync(client, declaration, dry_run=False)
        after = self.user_cfg(client, declaration)
        report = done['report']
        for kind, keys in (('users', USER_KEYS), ('groups', GROUP_KEYS)):
            added = sorted(set(after[kind]) - set(before[kind]))
            removed = sorted(set(before[kind]) - set(after[kind]))
            changed = sorted(name for name in set(before[kind]) & set(after[kind])
                             if any(before[kind][name].get(key) != after[kind][name].get(key) for key in keys))
            report[kind].update(add=added, remove=removed, change=changed)
        result.update(self.reported(report))
        result['task'] = done['task']
        result['warnings'].extend(done['warnings'])
        result['diff'] = dict(before=self.diff_view(before, report), after=self.diff_view(after, report))
        changed = ['%s %s (%s)' % (kind[:-1], name, action) for kind in KINDS
                   for action in ('add', 'change', 'remove') for name in report[kind][action]]
        return after, Plan('found', 'sync' if changed else 'none', changed)

    @staticmethod
    def diff_view(cfg, report):
        return dict((kind, dict((name, cfg[kind][name]) for kind_report in [report[kind]]
                                for name in kind_report['add'] + kind_report['change'] + kind_report['remove']
                                if name in cfg[kind])) for kind in KINDS)

    def user_cfg(self, client, declaration):
        """user.cfg's users of the realm and its synced groups (``<name>-<realm>``), as the sync writes them."""
        realm = declaration.ident['realm']
        users = {}
        for row in client.get('/access/users', params={'full': 1}, role=self.read_role) or []:
            userid = str(row.get('userid', ''))
            if userid.endswith('@' + realm):
                view = dict((key, row.get(key)) for key in USER_KEYS if key != 'groups')
                view['enable'] = int(row.get('enable', 1) or 0)
                view['expire'] = int(row.get('expire') or 0)
                view['groups'] = sorted(part for part in re.split(r'[,;\s]+', str(row.get('groups') or '')) if part)
                users[userid] = view
        groups = {}
        for row in client.get('/access/groups', role=self.read_role) or []:
            groupid = str(row.get('groupid', ''))
            if groupid.endswith('-' + realm):
                groups[groupid] = dict(comment=row.get('comment'), users=sorted(
                    part for part in re.split(r'[,;\s]+', str(row.get('users') or '')) if part))
        return dict(users=users, groups=groups)

    def object_view(self, declaration, raw):
        return {'realm': declaration.ident['realm']}

    def finish(self, client, declaration, raw, the_plan, result):
        result['object'] = self.object_view(declaration, raw)
        return result

    def diff(self, declaration, raw, the_plan):
        return dict(before={}, after={})


FAMILY = RealmSync('realm_sync', 'realm sync')
