"""Waiting for a UPID: OK, WARNINGS, failure with the log tail, unknown, timeout."""

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    Forbidden, TaskFailed, TaskUnknown, Unreachable)
from ansible_collections.homeflare.proxmox.plugins.module_utils.tasks import parse_upid, wait_for_task

UPID = 'UPID:node1:000A1B2C:0123ABCD:6790ABCD:vzcreate:101:root@pam:'
PBS_UPID = 'UPID:pbs1:00000C4A:0000234F:00000001:6790ABCD:datastore-create:store1:root@pam:'

PARSED = [
    (UPID, ('node1', 'vzcreate', '101', 'root@pam')),
    ('UPID:pve:000A1B2C:123456789:6790ABCD:qmstart:100:a@pve!tok:', ('pve', 'qmstart', '100', 'a@pve!tok')),
    (PBS_UPID, ('pbs1', 'datastore-create', 'store1', 'root@pam')),
    ('UPID:node1:fake:createfs', None),
    (None, None),
    ('', None),
]


@pytest.mark.parametrize('text, expected', PARSED)
def test_parse_upid(text, expected):
    upid = parse_upid(text)
    assert (upid and (upid.node, upid.type, upid.id, upid.user)) == expected if expected else upid is None


class Polls:
    def __init__(self, answers, log=None):
        self.answers = list(answers)
        self.log = log or []
        self.calls = []

    def get(self, path, params=None, role='read'):
        self.calls.append((path, role))
        if path.endswith('/log'):
            return self.log
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer


def wait(client, timeout=5):
    ticks = iter(range(1000))
    return wait_for_task(client, UPID, 'provision', timeout, clock=lambda: next(ticks), sleep=lambda s: None)


def test_ok_after_running():
    client = Polls([{'status': 'running'}, {'status': 'stopped', 'exitstatus': 'OK'}])
    assert wait(client).exitstatus == 'OK'
    assert client.calls[0] == ('/nodes/node1/tasks/UPID:node1:000A1B2C:0123ABCD:6790ABCD:vzcreate:101:root@pam:/status',
                               'provision')


def test_warnings_succeed_with_a_warning():
    outcome = wait(Polls([{'status': 'stopped', 'exitstatus': 'WARNINGS: 2'}]))
    assert 'WARNINGS: 2' in outcome.warning and UPID in outcome.warning


def test_failure_carries_the_log_tail():
    client = Polls([{'status': 'stopped', 'exitstatus': 'storage full'}],
                   log=[{'n': 1, 't': 'starting'}, {'n': 2, 't': 'TASK ERROR: storage full'}])
    with pytest.raises(TaskFailed, match='(?s)storage full.*TASK ERROR: storage full'):
        wait(client)


@pytest.mark.parametrize('error', [Forbidden(403, 'Permission check failed'), Unreachable([('a:1', 'refused')])])
def test_unreadable_poll_is_unknown_not_failed(error):
    with pytest.raises(TaskUnknown, match='unknown') as caught:
        wait(Polls([error]))
    assert caught.value.upid == UPID


def test_still_running_at_the_deadline_is_unknown():
    with pytest.raises(TaskUnknown, match='still running'):
        wait(Polls([{'status': 'running'}]), timeout=3)


def test_not_a_upid_is_reported():
    with pytest.raises(TaskUnknown, match='UPID'):
        wait_for_task(Polls([]), 'done', 'provision', 5)
