# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PBS verify job family: sections of verification.cfg, /config/verify/{id} (proxmox-backup
src/api2/config/verify.rs)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer
from ansible_collections.homeflare.proxmox.plugins.module_utils.pbs_jobs import (
    SectionFamily, check_depth, comment, datastore, job_id, max_depth, namespace, schedule, section)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Lifecycle


class VerifyJobFamily(SectionFamily):
    noun = 'verify job'
    never_empty = create_needs = ('store',)

    def check_present(self, declared):
        check_depth(declared)


FAMILY = VerifyJobFamily(
    'pbs_verify_job', 'pbs verify job',
    identity=[job_id()],
    fields=[
        datastore(),
        namespace(),
        max_depth(),
        # PBS's default is true: a job without the key skips snapshots already verified.
        Flag('ignore-verified', clear='delete', absent_means=True),
        Integer('outdated-after', clear='delete', minimum=0),
        schedule(clear='delete'),
        Integer('read-threads', clear='delete', minimum=1, maximum=32),
        Integer('verify-threads', clear='delete', minimum=1, maximum=32),
        comment(),
    ],
    where=section('/config/verify', 'id', 'verification'),
    scheme='pbs',
    lifecycle=Lifecycle(send_digest=True),
)
