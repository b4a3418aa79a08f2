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

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.errors import UnsupportedError

from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import CONNECTION_ARGUMENT_SPEC
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    BatchFailed, DeclarationError, DriftFound, ProxmoxError)
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.acl import FAMILY as ACL
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.api_token import FAMILY as API_TOKEN
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.backup_job import FAMILY as BACKUP_JOB
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ceph_flag import FAMILY as CEPH_FLAG
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ceph_fs import FAMILY as CEPH_FS
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ceph_mds import FAMILY as CEPH_MDS
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ceph_mgr import FAMILY as CEPH_MGR
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ceph_mon import FAMILY as CEPH_MON
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ceph_osd import FAMILY as CEPH_OSD
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ceph_pool import FAMILY as CEPH_POOL
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.cluster_options import FAMILY as CLUSTER_OPTIONS
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.firewall_alias import FAMILY as FIREWALL_ALIAS
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.firewall_ipset import FAMILY as FIREWALL_IPSET
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.firewall_options import FAMILY as FIREWALL_OPTIONS
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.firewall_rules import FAMILY as FIREWALL_RULES
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.group import FAMILY as GROUP
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ha_resource import FAMILY as HA_RESOURCE
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ha_rule import FAMILY as HA_RULE
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.lxc import FAMILY as LXC
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.metric_server import FAMILY as METRIC_SERVER
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.network_apply import FAMILY as NETWORK_APPLY
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.node_network import FAMILY as NODE_NETWORK
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.notification_endpoint import FAMILY as NOTIFICATION_ENDPOINT
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.notification_matcher import FAMILY as NOTIFICATION_MATCHER
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_acl import FAMILY as PBS_ACL
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_api_token import FAMILY as PBS_API_TOKEN
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_datastore import FAMILY as PBS_DATASTORE
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_notification_endpoint import FAMILY as PBS_NOTIFICATION_ENDPOINT
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_notification_matcher import FAMILY as PBS_NOTIFICATION_MATCHER
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_prune_job import FAMILY as PBS_PRUNE_JOB
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_remote import FAMILY as PBS_REMOTE
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_sync_job import FAMILY as PBS_SYNC_JOB
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_user import FAMILY as PBS_USER
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_verify_job import FAMILY as PBS_VERIFY_JOB
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pool import FAMILY as POOL
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.realm import FAMILY as REALM
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.replication_job import FAMILY as REPLICATION_JOB
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.role import FAMILY as ROLE
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_apply import FAMILY as SDN_APPLY
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_subnet import FAMILY as SDN_SUBNET
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_vnet import FAMILY as SDN_VNET
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_zone import FAMILY as SDN_ZONE
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.storage import FAMILY as STORAGE
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.user import FAMILY as USER
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.vm import FAMILY as VM
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.zfs_pool import FAMILY as ZFS_POOL
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import ABSENT

# Module name → family, in the order objects are created: what an object refers to exists before it
# (the cluster role's order): a realm before its users, users before their tokens and grants, ZFS pools and
# Ceph (monitors and managers before OSDs, OSDs before pools, pools and metadata servers before CephFS) before
# the storages on them, storages
# before guests (their disks and pools exist first), guests before the backup and replication jobs and HA
# resources that name them, endpoints before matchers, HA resources before rules, aliases and ipsets before the
# rules that name them, the rules before the options that enable the firewall, node interfaces (the
# bridges SDN zones sit on) before SDN zones, zones before their vnets before their subnets. Deletes run
# in the reverse order. A module over several scopes (firewall options and rules) judges each object
# with its scope's family.
ORDER = ['realm', 'role', 'group', 'pool', 'user', 'api_token', 'zfs_pool', 'ceph_mon', 'ceph_mgr', 'ceph_osd',
         'ceph_pool', 'ceph_mds', 'ceph_fs', 'ceph_flag', 'storage', 'acl', 'cluster_options', 'metric_server',
         'notification_endpoint', 'notification_matcher', 'lxc', 'vm', 'backup_job', 'replication_job', 'ha_resource',
         'ha_rule',
         'firewall_alias', 'firewall_ipset', 'firewall_rules', 'firewall_options', 'node_network', 'network_apply',
         'sdn_zone', 'sdn_vnet', 'sdn_subnet', 'sdn_apply',
         # A Proxmox Backup Server's own objects, declared in a task of their own (one task, one server): users
         # before their tokens, remotes and datastores before the grants and jobs on them, endpoints before the
         # matchers naming them.
         'pbs_user', 'pbs_api_token', 'pbs_remote', 'pbs_datastore', 'pbs_acl', 'pbs_sync_job', 'pbs_verify_job',
         'pbs_prune_job', 'pbs_notification_endpoint', 'pbs_notification_matcher']
FAMILIES = tuple(zip(ORDER, (
    REALM, ROLE, GROUP, POOL, USER, API_TOKEN, ZFS_POOL, CEPH_MON, CEPH_MGR, CEPH_OSD, CEPH_POOL, CEPH_MDS, CEPH_FS,
    CEPH_FLAG, STORAGE, ACL, CLUSTER_OPTIONS, METRIC_SERVER, NOTIFICATION_ENDPOINT,
    NOTIFICATION_MATCHER, LXC, VM, BACKUP_JOB, REPLICATION_JOB, HA_RESOURCE, HA_RULE, FIREWALL_ALIAS, FIREWALL_IPSET,
    FIREWALL_RULES, FIREWALL_OPTIONS, NODE_NETWORK, NETWORK_APPLY, SDN_ZONE, SDN_VNET, SDN_SUBNET, SDN_APPLY,
    PBS_USER, PBS_API_TOKEN, PBS_REMOTE, PBS_DATASTORE, PBS_ACL, PBS_SYNC_JOB, PBS_VERIFY_JOB, PBS_PRUNE_JOB,
    PBS_NOTIFICATION_ENDPOINT, PBS_NOTIFICATION_MATCHER)))
# The applies (staging.Applier): judged once every object has its plan, run after every write and
# delete, each at most once per run and only when something is staged then: each node's network one
# at a time, then SDN (whose apply would reload every node's staged interfaces too).
APPLIERS = ('sdn_apply', 'network_apply')


def object_spec(family):
    """A family module's own options, without the connection (one per task, not per object)."""
    spec = family.argument_spec()
    for option in CONNECTION_ARGUMENT_SPEC:
        spec.pop(option, None)
    return spec


def validation_message(validation):
    message = validation.errors.msg
    if isinstance(validation.errors[0], UnsupportedError):
        message = 'unsupported parameters: %s' % message
    return message


class Item:
    """One declared object and what the run found out about it."""

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

    def entry(self):
        entry = dict(module=self.module, name=self.name)
        if self.plan is not None:
            entry['plan'] = self.plan.as_dict()
            if self.written is not None:
                entry['object'] = self.written['object']
            else:
                entry['object'] = self.family.object_view(self.declaration, self.raw)
        if self.error is not None:
            entry.update(failed=True, msg=str(self.error), error=type(self.error).__name__)
        return entry

    def diff(self):
        diff = self.family.diff(self.declaration, self.raw, self.plan)
        diff.update(before_header=self.name, after_header=self.name)
        return diff

    def advice(self):
        """What the family warns about a found object it will not write (a ZFS pool's other layout)."""
        advise = getattr(self.family, 'advise', None)
        return advise(self.declaration, self.raw) if advise and self.raw is not ABSENT else []

    def describe_drift(self):
        fields = ': %s' % ', '.join(self.plan.changed) if self.plan.changed else ''
        return '%s (%s%s)' % (self.name, self.plan.action, fields)


class Declare:
    """The task of the ``declare`` module (same interface as a Family: argument_spec, run)."""

    scheme = 'pve'

    def __init__(self, families):
        self.families = families
        self.modules = dict(families)
        self._validators = {}
        # (the objects last validated, their outcome); a fresh object() matches no declaration, not even None.
        self._validated = (object(), None)

    def argument_spec(self):
        spec = dict(CONNECTION_ARGUMENT_SPEC)
        spec['objects'] = dict(type='dict', required=True)
        spec['fail_on_drift'] = dict(type='bool', default=False)
        return spec

    # -- validation, before any request ------------------------------------------------------
    def validator(self, module):
        if module not in self._validators:
            self._validators[module] = ArgumentSpecValidator(object_spec(self.modules[module]))
        return self._validators[module]

    def validate(self, objects):
        """(items, problems, no_log values); kept for the last ``objects`` seen, since both the
        secret masking and the run ask for it."""
        if self._validated[0] is not objects:
            self._validated = (objects, self._validate(objects))
        return self._validated[1]

    def _validate(self, objects):
        items, problems, secrets, seen = [], [], set(), {}
        objects = objects or {}
        unknown = sorted(set(objects) - set(self.modules))
        if unknown:
            problems.append('objects: %s %s not a module declare takes (%s)' % (
                ', '.join(unknown), 'is' if len(unknown) == 1 else 'are', ', '.join(sorted(self.modules))))
        if len(self.schemes(objects)) > 1:
            known = sorted(module for module in objects if module in self.modules)
            problems.append('objects: %s are Proxmox Backup Server objects and %s Proxmox VE ones; one declare task '
                            'talks to one server, so declare each in a task of its own' % (
                                ', '.join(m for m in known if self.modules[m].scheme == 'pbs'),
                                ', '.join(m for m in known if self.modules[m].scheme != 'pbs')))
        for module, family in self.families:
            entries = objects.get(module) or []
            if not isinstance(entries, list):
                problems.append('objects.%s: must be a list of %s options' % (module, module))
                continue
            for index, options in enumerate(entries):
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
                item = Item(module, target, index, params, declaration)
                key = (module, target.name) + target.key(declaration.ident)
                if key in seen:
                    problems.append('%s: %s is already declared at %s' % (label, item.name, seen[key]))
                    continue
                seen[key] = label
                items.append(item)
        return items, problems, secrets

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
        items, problems, _secrets = self.validate(params.get('objects'))
        if problems:
            raise DeclarationError('%d declared object(s) are invalid; nothing was read or written. %s'
                                   % (len(problems), '; '.join(problems)))
        self.judge(client, items)
        unjudged = [item for item in items if item.error is not None]
        if unjudged:
            raise BatchFailed('%d of %d objects could not be judged, so nothing was written: %s' % (
                len(unjudged), len(items), '; '.join('%s: %s' % (item.name, item.error) for item in unjudged)),
                self.result(items))
        drifted = [item for item in items if item.action != 'none']
        if check_mode:
            if drifted and params.get('fail_on_drift'):
                raise DriftFound('%d of %d objects differ from the declaration: %s' % (
                    len(drifted), len(items), '; '.join(item.describe_drift() for item in drifted)),
                    self.result(items))
            return self.result(items)
        self.write(client, drifted, items)
        return self.result(items)

    def judge(self, client, items):
        """Read each family once (its list) or per object, then plan every object; never writes."""
        for module, family in self.families:
            members = [item for item in items if item.module == module]
            if not members:
                continue
            rows, listing_error = None, None
            if family.listing is not None:
                try:
                    rows = family.listing.read(client, family)
                except ProxmoxError as exc:
                    listing_error = exc
            for item in members:
                if listing_error is not None:
                    item.error = listing_error
                    continue
                target = item.family  # the module's family, or the scope's for a scoped module
                try:
                    if rows is None:
                        item.raw = target.read(client, item.declaration)
                    elif target.key(item.declaration.ident) in rows:
                        item.raw = rows[target.key(item.declaration.ident)]
                    else:
                        item.raw = target.store.read_unlisted(client, target, item.declaration.ident)
                    item.plan = target.judge(item.declaration, item.raw)
                except ProxmoxError as exc:
                    item.error = exc
        # A reference may name an object declared beside it (an alias an IP set lists): judged once all are read.
        for item in items:
            check = getattr(item.family, 'check_references', None)
            if check and item.action in ('create', 'update'):
                try:
                    check(client, item.declaration, item.raw, items)
                except ProxmoxError as exc:
                    item.error = exc
        # An apply also covers what this run will stage: judged again once every object has its plan.
        for item in items:
            if item.module in APPLIERS and item.plan is not None:
                item.plan = item.family.judge(item.declaration, item.raw, items)

    def write(self, client, drifted, items):
        """Creates and updates in dependency order, then deletes in reverse; stop at the first failure."""
        order = [module for module, _family in self.families]
        # Within a module, a family's declare_rank orders its scopes (security groups before the rules naming them).
        ranked = sorted(drifted, key=lambda item: (item.module in APPLIERS, item.action == 'delete',
                                                   order.index(item.module) * (-1 if item.action == 'delete' else 1),
                                                   getattr(item.family, 'declare_rank', 0)))
        done = []
        for position, item in enumerate(ranked):
            try:
                # An apply runs last, after the deletes (they are staged too); it reads again and applies only
                # if something is staged. Each family's own run (a guest's also acts on its power state).
                item.written = item.family.run(client, item.params, check_mode=False)
            except ProxmoxError as exc:
                item.error = exc
                untouched = ranked[position + 1:]
                raise BatchFailed('writing %s failed: %s. Written before it: %s. Not attempted: %s.' % (
                    item.name, exc, ', '.join(other.describe_drift() for other in done) or 'nothing',
                    ', '.join(other.name for other in untouched) or 'nothing'), self.result(items))
            done.append(item)

    def result(self, items):
        drifted = [item for item in items if item.action not in (None, 'none')]
        counts = dict(judged=len([item for item in items if item.plan is not None]), matched=0, create=0, update=0,
                      delete=0, apply=0, revert=0, power=0,
                      failed=len([item for item in items if item.error is not None]))
        for item in items:
            if item.plan is not None:
                counts['matched' if item.action == 'none' else item.action] += 1
        warnings = []
        for item in items:
            if item.written is not None:
                warnings.extend(item.written.get('warnings') or [])
            elif item.plan is not None:
                warnings.extend(item.advice())
        return dict(changed=bool(drifted), results=[item.entry() for item in items],
                    summary=counts, diff=[item.diff() for item in drifted], warnings=warnings)


DECLARE = Declare(FAMILIES)
