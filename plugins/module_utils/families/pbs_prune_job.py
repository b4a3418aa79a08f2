# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PBS prune job family: sections of prune.cfg, /config/prune/{id} (proxmox-backup src/api2/config/prune.rs).

The ``keep-*`` options are one retention policy: declaring any of them declares all of them (an undeclared one is
removed), declaring none leaves the retention unmanaged. A write that keeps fewer backups than the live job (a
lower count, a keep line removed while others stay, the first keep line of a job that kept everything) is a
narrowing: the plan warns that the next run deletes backups, and a real run writes it only with
``confirm_narrowing=true``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import MISSING, Flag, Integer
from ansible_collections.homeflare.proxmox.plugins.module_utils.pbs_jobs import (
    SectionFamily, check_depth, comment, datastore, job_id, max_depth, namespace, schedule, section)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Lifecycle

KEEPS = ('keep-last', 'keep-hourly', 'keep-daily', 'keep-weekly', 'keep-monthly', 'keep-yearly')
KEEP_FIELDS = [Integer(wire, clear='delete', minimum=1) for wire in KEEPS]


def narrowing(declaration, raw):
    """What the declaration's retention keeps less of than the live job: ["keep-daily 7 -> 3", ...]."""
    values = declaration.values
    if declaration.state != 'present' or not any(field.option in values for field in KEEP_FIELDS):
        return []
    live = dict((field.wire, field.live(raw.get(field.wire, MISSING))) for field in KEEP_FIELDS)
    wanted = dict((field.wire, values.get(field.option)) for field in KEEP_FIELDS)
    if not any(value is not None for value in wanted.values()):
        return []  # no keep line at all: PBS keeps every backup
    if not any(value is not None for value in live.values()):
        return ['no keep line (every backup kept) -> %s' % ', '.join(
            '%s=%s' % (wire, wanted[wire]) for wire in KEEPS if wanted[wire] is not None)]
    found = []
    for wire in KEEPS:
        if live[wire] is None:
            continue
        if wanted[wire] is None:
            found.append('%s %s -> removed' % (wire, live[wire]))
        elif wanted[wire] < live[wire]:
            found.append('%s %s -> %s' % (wire, live[wire], wanted[wire]))
    return found


def describe_narrowing(declaration, found):
    return ("prune job '%s' keeps fewer backups than it does now (%s): the next run deletes backups"
            % (declaration.ident['id'], '; '.join(found)))


class PruneJobFamily(SectionFamily):
    noun = 'prune job'
    never_empty = ('store',)
    create_needs = ('store', 'schedule')

    def check_present(self, declared):
        if declared.get('schedule') == '':
            raise DeclarationError('option schedule: a prune job cannot drop its schedule (PBS requires one); leave '
                                   'it undeclared to leave it unmanaged')
        check_depth(declared)
        if any(field.option in declared for field in KEEP_FIELDS):
            # One retention policy: the keep lines left out of a declared one are removed.
            for field in KEEP_FIELDS:
                declared.setdefault(field.option, None)

    def advise(self, declaration, raw):
        found = narrowing(declaration, raw)
        if not found:
            return []
        if declaration.controls.get('confirm_narrowing'):
            return [describe_narrowing(declaration, found) + ' (confirmed by confirm_narrowing=true)']
        return [describe_narrowing(declaration, found) + '; a real run writes it only with confirm_narrowing=true']

    def check_write(self, declaration, raw, the_plan):
        if the_plan.action != 'update' or declaration.controls.get('confirm_narrowing'):
            return
        found = narrowing(declaration, raw)
        if found:
            raise Refused('%s. Nothing was written; declare confirm_narrowing=true to write it.'
                          % describe_narrowing(declaration, found))


FAMILY = PruneJobFamily(
    'pbs_prune_job', 'pbs prune job',
    identity=[job_id()],
    fields=[
        datastore(),
        namespace(),
        max_depth(),
        # Required by PBS and never removable (not in the update's delete list).
        schedule(),
    ] + KEEP_FIELDS + [
        # Stored only when true; false and absent are the same.
        Flag('disable', clear='delete'),
        comment(),
    ],
    where=section('/config/prune', 'id', 'prune'),
    scheme='pbs',
    lifecycle=Lifecycle(send_digest=True),
    controls={'confirm_narrowing': dict(type='bool', default=False)},
)
