# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PBS sync job family: sections of sync.cfg, /config/sync/{id} (proxmox-backup src/api2/config/sync.rs).

The job list answers one direction (pull unless asked), so a missing job is confirmed by the list of all directions.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.notification_endpoint import Items
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.pbs_jobs import (
    AUTH_ID, SAFE_ID, check_depth, comment, datastore, job_id, max_depth, namespace, needs_on_create,
    schedule)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, ConfirmedAbsenceStore, Family

GROUP_TYPES = ('vm', 'ct', 'host')


def group_filter(text):
    """GroupFilter::from_str: [include:|exclude:]type:<vm|ct|host> | group:<type>/<id> | regex:<re>."""
    rest = text
    prefix, sep, tail = text.partition(':')
    if sep and prefix in ('include', 'exclude'):
        rest = tail
    kind, sep, value = rest.partition(':')
    if not sep:
        return "is not [include:|exclude:]type:<vm|ct|host>, group:GROUP or regex:RE"
    if kind not in ('group', 'type', 'regex'):
        return "has %r where type, group or regex is expected" % kind
    if kind == 'type' and value not in GROUP_TYPES:
        return 'names the backup type %r, which is not one of vm, ct, host' % value
    return None


def check_sync_job(ident, declared, state):
    if state != 'present':
        return
    for option in ('store', 'remote_store'):
        if declared.get(option) == '':
            raise DeclarationError('option %s must not be empty' % option)
    check_depth(declared, ('ns', 'remote_ns'))


def check_create(declaration):
    needs_on_create('sync job', 'store', 'remote_store')(declaration)
    values = declaration.values
    if not values.get('remote') and values.get('store') == values.get('remote_store'):
        raise DeclarationError('option remote_store: a local sync job (no remote) cannot sync datastore %r into '
                               'itself' % values['store'])


def option(wire, kind=Text, **kwargs):
    """An option of the job: undeclared is unmanaged, declared empty is removed (delete=)."""
    return kind(wire, clear='delete', **kwargs)


def rate(wire):
    """A byte rate or burst as PBS takes it (``10 MiB``); compared as stored."""
    return option(wire, min_length=1, max_length=64)


FAMILY = Family(
    name='pbs sync job',
    identity=[job_id()],
    fields=[
        datastore(),
        namespace(),
        # pull (the default) copies from the remote into store; push copies store to the remote.
        option('sync-direction', choices=['pull', 'push'], absent_means='pull'),
        # No remote: a local sync between two datastores of this server.
        option('remote', min_length=3, max_length=32, pattern=SAFE_ID),
        datastore('remote-store'),
        namespace('remote-ns'),
        max_depth(),
        option('owner', min_length=3, max_length=64, pattern=AUTH_ID),
        schedule(clear='delete'),
        # Removes on the target what vanished on the source: data loss on the target.
        option('remove-vanished', kind=Flag),
        option('group-filter', kind=Items, valid=group_filter),
        option('transfer-last', kind=Integer, minimum=1),
        rate('rate-in'),
        rate('burst-in'),
        rate('rate-out'),
        rate('burst-out'),
        option('encrypted-only', kind=Flag),
        option('verified-only', kind=Flag),
        option('run-on-mount', kind=Flag),
        option('unmount-on-done', kind=Flag),
        # Not in PBS's delete list: false is written as false.
        Flag('resync-corrupt'),
        option('worker-threads', kind=Integer, minimum=1, maximum=32),
        comment(),
    ],
    collection='/config/sync',
    item='/config/sync/{id}',
    scheme='pbs',
    absence=Absence((400,), r"no such sync '"),
    store=ConfirmedAbsenceStore('id', list_params={'sync-direction': 'all'}),
    send_digest=True,
    check_declaration=check_sync_job,
    check_create=check_create,
)
