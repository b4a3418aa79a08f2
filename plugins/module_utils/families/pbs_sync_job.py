# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PBS sync job family: sections of sync.cfg, /config/sync/{id} (proxmox-backup src/api2/config/sync.rs).

The job list answers one direction (pull unless asked), so a missing job is confirmed by the list of all directions.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import ArrayParameter, Flag, Integer, clearable
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import SAFE_ID
from ansible_collections.homeflare.proxmox.plugins.module_utils.pbs_jobs import (
    AUTH_ID, SectionFamily, check_depth, comment, datastore, job_id, max_depth, namespace, schedule, section)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Lifecycle

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


class SyncJobFamily(SectionFamily):
    noun = 'sync job'
    never_empty = create_needs = ('store', 'remote_store')

    def check_present(self, declared):
        check_depth(declared, ('ns', 'remote_ns'))

    def check_create(self, declaration):
        super(SyncJobFamily, self).check_create(declaration)
        values = declaration.values
        if not values.get('remote') and values.get('store') == values.get('remote_store'):
            raise DeclarationError('option remote_store: a local sync job (no remote) cannot sync datastore %r into '
                                   'itself' % values['store'])


def rate(wire):
    """A byte rate or burst as PBS takes it (``10 MiB``); compared as stored."""
    return clearable(wire, min_length=1, max_length=64)


FAMILY = SyncJobFamily(
    'pbs_sync_job', 'pbs sync job',
    identity=[job_id()],
    fields=[
        datastore(),
        namespace(),
        # pull (the default) copies from the remote into store; push copies store to the remote.
        clearable('sync-direction', choices=['pull', 'push'], absent_means='pull'),
        # No remote: a local sync between two datastores of this server.
        clearable('remote', min_length=3, max_length=32, pattern=SAFE_ID),
        datastore('remote-store'),
        namespace('remote-ns'),
        max_depth(),
        clearable('owner', min_length=3, max_length=64, pattern=AUTH_ID),
        schedule(clear='delete'),
        # Removes on the target what vanished on the source: data loss on the target.
        clearable('remove-vanished', Flag),
        clearable('group-filter', ArrayParameter, valid=group_filter),
        clearable('transfer-last', Integer, minimum=1),
        rate('rate-in'),
        rate('burst-in'),
        rate('rate-out'),
        rate('burst-out'),
        clearable('encrypted-only', Flag),
        clearable('verified-only', Flag),
        clearable('run-on-mount', Flag),
        clearable('unmount-on-done', Flag),
        # Not in PBS's delete list: false is written as false.
        Flag('resync-corrupt'),
        clearable('worker-threads', Integer, minimum=1, maximum=32),
        comment(),
    ],
    # every direction's jobs are listed (pull and push)
    where=section('/config/sync', 'id', 'sync', list_params={'sync-direction': 'all'}),
    scheme='pbs',
    lifecycle=Lifecycle(send_digest=True),
)
