# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PBS datastore family: sections of datastore.cfg, /config/datastore/{name} (proxmox-backup
src/api2/config/datastore.rs). Create and delete are worker tasks whose effect lands when they end, so
both are settled."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    CalendarEvent, Flag, Integer, PropertyString, Text)
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import SAFE_ID, SINGLE_LINE
from ansible_collections.homeflare.proxmox.plugins.module_utils.pbs_jobs import USERID, section
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family, Lifecycle

# PBS's schema patterns (proxmox-schema), with the POSIX classes spelled out for Python.
NOTIFY = ['never', 'always', 'error']


class DatastoreFamily(Family):
    def check_declaration(self, declaration):
        if declaration.values.get('destroy_data') and declaration.state != 'absent':
            raise DeclarationError('option destroy_data only applies with state=absent')


FAMILY = DatastoreFamily(
    'pbs_datastore', 'pbs datastore',
    identity=[Text('name', required=True, min_length=3, max_length=32, pattern=SAFE_ID)],
    fields=[
        # Where the chunks live, and on what: fixed for the datastore's life (PBS takes neither on update).
        Text('path', create_only=True, min_length=1, max_length=4096),
        PropertyString('backend', create_only=True),
        Text('comment', max_length=128, pattern=SINGLE_LINE),
        CalendarEvent('gc-schedule', clear='delete'),
        CalendarEvent('counter-reset-schedule', clear='delete'),
        Flag('verify-new', clear='delete'),
        Flag('gc-on-unmount', clear='delete'),
        Text('notify-user', clear='delete', min_length=3, max_length=64, pattern=USERID),
        Text('notification-mode', clear='delete', choices=['legacy-sendmail', 'notification-system']),
        PropertyString('notify', clear='delete', keys=dict(
            (key, Text(key, choices=NOTIFY)) for key in ('gc', 'prune', 'sync', 'verify'))),
        PropertyString('tuning', clear='delete', keys={
            'chunk-order': Text('chunk-order', choices=['none', 'inode']),
            'default-verification-readers': Integer('default-verification-readers', minimum=1, maximum=32),
            'default-verification-workers': Integer('default-verification-workers', minimum=1, maximum=32),
            'gc-atime-cutoff': Integer('gc-atime-cutoff', minimum=1, maximum=2880),
            'gc-atime-safety-check': Flag('gc-atime-safety-check'),
            'gc-cache-capacity': Integer('gc-cache-capacity', minimum=0, maximum=8388608),
            'sync-level': Text('sync-level', choices=['none', 'file', 'filesystem'])}),
        PropertyString('maintenance-mode', clear='delete', default_key='type', keys={
            'type': Text('type', choices=['read-only', 'offline', 'delete', 'unmount', 's3-refresh']),
            'message': Text('message', max_length=64)}),
        PropertyString('notification-thresholds', clear='delete', keys=dict(
            [(key, Integer(key)) for key in ('s3-delete', 's3-get', 's3-head', 's3-post', 's3-put')]
            + [(key, Text(key, min_length=1, max_length=64)) for key in ('s3-download', 's3-upload')])),
        # Removal drops the section and keeps the chunks; only this wipes them too.
        Flag('destroy-data', delete_param=True, schema_key=None),
    ],
    where=section('/config/datastore', 'name', 'datastore'),
    scheme='pbs',
    lifecycle=Lifecycle(send_digest=True, retain=True, task_timeout=120, settle=120),
)
