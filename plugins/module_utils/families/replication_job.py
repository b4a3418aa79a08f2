# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The replication job family: sections of replication.cfg, /cluster/replication/{id}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Text, section_comment
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    ABSENT, Absence, Family, ItemStore, Lifecycle, Where, absent)


class Rate(Text):
    """PVE's ``rate``, a number of megabytes per second (1 or more), compared by value: ``10`` equals ``10.0``."""

    def canonical(self, value):
        text = super(Rate, self).canonical(value).strip()
        if text == '':
            return text
        try:
            number = float(text)
        except ValueError:
            number = None
        if number is None or not math.isfinite(number) or number < 1:
            self.refuse(value, 'is not a rate of 1 or more (megabytes per second)')
        return ('%f' % number).rstrip('0').rstrip('.')


class ReplicationJobs(ItemStore):
    """A job PVE has marked for removal (``remove_job``, what DELETE does) is gone for the declaration:
    pvesr removes it, its snapshots and, with ``full``, the replicated volumes on its next run."""

    def read(self, client, family, ident):
        raw = super(ReplicationJobs, self).read(client, family, ident)
        return ABSENT if not absent(raw) and raw.get('remove_job') else raw


class ReplicationJobFamily(Family):
    def check_create(self, declaration):
        """PVE needs the target node to create a job; it cannot be changed later."""
        if not declaration.values.get('target'):
            raise DeclarationError('option target is required to create a replication job')


FAMILY = ReplicationJobFamily(
    'replication_job', 'replication job',
    identity=[Text('id', required=True, format='pve-replication-job-id', pattern=r'[1-9][0-9]{2,8}-\d{1,9}')],
    fields=[
        # local is the only replication type PVE has.
        Text('type', default='local', create_only=True, choices=['local']),
        Text('target', create_only=True, format='pve-node'),
        # PVE replicates every 15 minutes unless told otherwise; the file then holds no schedule.
        Text('schedule', clear='delete', absent_means='*/15', format='pve-calendar-event', max_length=128),
        Rate('rate', clear='delete'),
        # ReplicationConfig write_config/parse_config: encode_text in replication.cfg, read back with its spaces trimmed
        Text('comment', clear='delete', max_length=4096, normalise=section_comment),
        Flag('disable', clear='delete'),
    ],
    where=Where(collection='/cluster/replication', item='/cluster/replication/{id}',
                absence=Absence((500,), r'no such replication job'), store=ReplicationJobs()),
    # replication.cfg's digest: a job edited by someone else between read and write is not overwritten.
    lifecycle=Lifecycle(send_digest=True),
)
