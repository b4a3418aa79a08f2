# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""UPIDs: recognise one, and wait for the task it names."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
import time

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    ProxmoxError, TaskFailed, TaskUnknown)

# pve-common UPID.pm; PBS adds a task-id field between pstart and starttime.
PVE_UPID = re.compile(r'^UPID:([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):'
                      r'([0-9A-Fa-f]{8}):([^:\s/]+):([^:\s/]*):([^:\s/]+):$')
PBS_UPID = re.compile(r'^UPID:([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):'
                      r'([0-9A-Fa-f]{8,16}):([0-9A-Fa-f]{8}):([^:\s/]+):([^:\s/]*):([^:\s/]+):$')

LOG_TAIL_LINES = 20


class Upid:
    def __init__(self, text, node, task_type, task_id, user):
        self.text = text
        self.node = node
        self.type = task_type
        self.id = task_id
        self.user = user


def parse_upid(text):
    """The UPID's fields, or None when ``text`` is not a UPID."""
    if not isinstance(text, str):
        return None
    match = PVE_UPID.match(text)
    if match:
        return Upid(text, match.group(1), match.group(6), match.group(7), match.group(8))
    match = PBS_UPID.match(text)
    if match:
        return Upid(text, match.group(1), match.group(7), match.group(8), match.group(9))
    return None


class TaskOutcome:
    def __init__(self, upid, exitstatus):
        self.upid = upid
        self.exitstatus = exitstatus

    @property
    def warning(self):
        if self.exitstatus.startswith('WARNINGS'):
            return 'task %s ended with %s' % (self.upid, self.exitstatus)
        return None


def wait_for_task(client, upid_text, role, timeout, poll_interval=1.0, clock=time.monotonic, sleep=time.sleep):
    """Poll the task with the same credential role that started it.

    ``OK`` and ``WARNINGS: n`` succeed; any other exit status fails with the log's tail.
    A poll that cannot be read is "unknown", never "failed".
    """
    upid = parse_upid(upid_text)
    if upid is None:
        raise TaskUnknown(upid_text, 'expected a task id (UPID) but the server answered %r' % (upid_text,))
    status_path = item_path('/nodes/{node}/tasks/{upid}/status', {'node': upid.node, 'upid': upid.text})
    deadline = clock() + timeout
    while True:
        try:
            status = client.get(status_path, role=role)
        except ProxmoxError as exc:
            raise TaskUnknown(upid.text, 'the outcome of task %s is unknown: its status could not be read (%s). '
                                         'Check it with: pvesh get /nodes/%s/tasks/%s/status'
                              % (upid.text, exc, upid.node, upid.text))
        if status.get('status') == 'stopped':
            exitstatus = status.get('exitstatus') or 'stopped with no exitstatus'
            if exitstatus == 'OK' or exitstatus.startswith('WARNINGS'):
                return TaskOutcome(upid.text, exitstatus)
            raise TaskFailed(upid.text, 'task %s failed: %s%s' % (upid.text, exitstatus, _log_tail(client, upid, role)))
        if clock() >= deadline:
            raise TaskUnknown(upid.text, 'task %s was still running when waiting stopped after %s s; '
                                         'check it with: pvesh get /nodes/%s/tasks/%s/status'
                              % (upid.text, timeout, upid.node, upid.text))
        sleep(poll_interval)


def wait_if_task(client, answer, role, timeout, warnings):
    """Wait for ``answer`` when it is a task id (a write PVE forked), adding a WARNINGS outcome to ``warnings``;
    returns the UPID, or None for a write PVE answered at once."""
    if not parse_upid(answer):
        return None
    outcome = wait_for_task(client, answer, role, timeout)
    if outcome.warning:
        warnings.append(outcome.warning)
    return answer


def poll_until(probe, timeout, clock=time.monotonic, sleep=time.sleep):
    """Call ``probe()`` until it answers something true or ``timeout`` seconds have passed; returns its last
    answer. For effects PVE applies after the task that asked for them ended (a Ceph monitor command, an OSD
    going down), re-read with a back-off from a quarter of a second to two seconds."""
    deadline = clock() + timeout
    delay = 0.25
    while True:
        answer = probe()
        if answer or clock() >= deadline:
            return answer
        sleep(min(delay, max(deadline - clock(), 0.0)))
        delay = min(delay * 2, 2.0)


def _log_tail(client, upid, role):
    path = item_path('/nodes/{node}/tasks/{upid}/log', {'node': upid.node, 'upid': upid.text})
    try:
        lines = client.get(path, params={'start': 0, 'limit': 500}, role=role) or []
    except ProxmoxError as exc:
        return ' (the task log could not be read: %s)' % exc
    tail = [str(line.get('t', '')) for line in lines[-LOG_TAIL_LINES:]]
    return '\nlast lines of the task log:\n' + '\n'.join(tail) if tail else ''
