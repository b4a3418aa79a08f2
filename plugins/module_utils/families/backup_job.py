# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The backup job family: vzdump sections of jobs.cfg, /cluster/backup/{id}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    Flag, Integer, PRUNE_BACKUPS, PropertyString, Text, TokenSet, clearable, prune_backups_rule, section_comment,
    section_value)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family, Listing, Where


class NoSuchJob(Absence):
    """PVE's answer for a missing job: a read is a 400 whose ``errors`` say ``id: No such job 'x'``; a delete
    re-dies that exception outside its lock, a 500 with the same text."""

    def __init__(self):
        super(NoSuchJob, self).__init__((400, 500))

    def matches(self, exc):
        said = exc.errors.get('id', '') if exc.status == 400 else exc.reason
        return exc.status in self.statuses and "No such job '" in str(said)


class BackupJobFamily(Family):
    def check_declaration(self, declaration):
        """PVE::VZDump::verify_vzdump_parameters' conflicts, and what a job can never be, before any request."""
        ident, declared = declaration.ident, declaration.values
        if len(ident['id']) > 50:
            # The create takes any configuration id; reads, updates and deletes take at most 50 characters.
            raise DeclarationError('option id: %r is %d characters long; PVE reads a job by an id of at most 50'
                                   % (ident['id'], len(ident['id'])))
        if declaration.state != 'present':
            return
        for option in ('schedule', 'storage'):
            if declared.get(option) == '':
                raise DeclarationError('option %s: a backup job cannot drop its %s; leave it undeclared to leave it '
                                       'unmanaged' % (option, option))
        if declared.get('vmid'):
            for other in ('all', 'exclude', 'pool'):
                if declared.get(other):
                    raise DeclarationError('option %s conflicts with option vmid: a job backs up a list of guests, '
                                           'all guests or a pool' % other)
        if declared.get('exclude') and declared.get('all') is False and not declared.get('pool'):
            raise DeclarationError('option exclude: excluding guests means all guests (all=true), PVE sets it')
        for option in ('notes_template', 'protected'):
            if declared.get(option) not in (None, '') and not declared.get('storage'):
                raise DeclarationError('option %s needs option storage (PVE requires it alongside)' % option)

    def check_create(self, declaration):
        """A new job needs a schedule and guests (a list, all, or a pool): PVE refuses it otherwise."""
        values = declaration.values
        if not values.get('schedule'):
            raise DeclarationError('option schedule is required to create a backup job')
        if not (values.get('vmid') or values.get('all') or values.get('pool')):
            raise DeclarationError('one of the options vmid, all or pool is required to create a backup job')


FAMILY = BackupJobFamily(
    'backup_job', 'backup job',
    identity=[Text('id', required=True, format='pve-configid')],
    fields=[
        clearable('schedule', format='pve-calendar-event', max_length=128),
        # On unless set: an enabled flag read as '' (a legacy job) means absent, not off.
        Flag('enabled', absent_means=True),
        # jobs.cfg (pve-common Job/Registry.pm): the comment through encode_text, read back with its spaces trimmed
        clearable('comment', max_length=512, normalise=section_comment),
        # The guests: a list (compared as a numeric set), all of them (less exclude), or a pool.
        clearable('vmid', TokenSet, format='pve-vmid'),
        Flag('all'),
        clearable('exclude', TokenSet, format='pve-vmid'),
        clearable('pool'),
        clearable('node', format='pve-node'),
        # Sent with every update: notes-template and protected are only taken together with it.
        clearable('storage', format='pve-storage-id', always_send=True),
        clearable('mode', choices=['snapshot', 'suspend', 'stop']),
        clearable('compress', choices=['0', '1', 'gzip', 'lzo', 'zstd']),
        clearable('mailto', TokenSet, format='email-or-username'),
        clearable('mailnotification', choices=['always', 'failure']),
        clearable('notification-mode', choices=['auto', 'legacy-sendmail', 'notification-system']),
        clearable('notes-template', max_length=1024, normalise=section_value),  # kept as is: read back trimmed
        Flag('protected'),
        clearable('prune-backups', PropertyString, keys=PRUNE_BACKUPS, rule=prune_backups_rule),
        # fleecing=1 is shorthand for enabled=1; PVE reads it back as {enabled: 1}.
        clearable('fleecing', PropertyString, default_key='enabled', keys={
            'enabled': Flag('enabled'), 'storage': Text('storage', format='pve-storage-id')}),
        clearable('performance', PropertyString, keys={
            'max-workers': Integer('max-workers', minimum=1, maximum=256),
            'pbs-entries-max': Integer('pbs-entries-max', minimum=1)}),
        clearable('pbs-change-detection-mode', choices=['legacy', 'data', 'metadata']),
        Flag('repeat-missed'),
        Flag('remove', absent_means=True),
        Flag('stdexcludes', absent_means=True),
        Integer('bwlimit', minimum=0),
        Integer('ionice', minimum=0, maximum=8),
        Integer('lockwait', minimum=0),
        Integer('stopwait', minimum=0),
        Integer('zstd'),
    ],
    where=Where(collection='/cluster/backup', item='/cluster/backup/{id}', listing=Listing('/cluster/backup'),
                absence=NoSuchJob()),
)
