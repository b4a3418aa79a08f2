"""Connection hardening and task waiting, with the real client against the simulator's fault injection."""

import time

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils import api
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import StaticToken
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    AuthenticationFailed, InvalidParameters, MaybeApplied, TaskFailed, TaskUnknown, Unreachable)
from ansible_collections.homeflare.proxmox.plugins.module_utils.tasks import wait_for_task


def client_for(sim, token=None, timeout=2, members=None):
    api._LAST_GOOD.clear()  # pylint: disable=protected-access
    token = token or (sim.token_id, sim.token_secret)
    return api.Client('pve', members or sim.members, StaticToken(*token), ca_path=sim.ca_path, timeout=timeout)


def test_a_hanging_member_is_bounded_by_the_timeout_and_reads_fail_over(sim):
    sim.hang(0)
    client = client_for(sim, timeout=1)
    started = time.monotonic()
    assert client.get('/version')['version']
    assert time.monotonic() - started < 5
    answered = [entry for entry in sim.log if entry['status'] == 200]
    assert [entry['member'] for entry in answered] == [sim.members[1]]


def test_a_write_that_may_have_left_is_never_resent(sim):
    client = client_for(sim, timeout=1)
    client.get('/version')  # member 0 answered last, so the write goes there first
    sim.hang(0)
    sim.clear_log()
    with pytest.raises(MaybeApplied, match='may have been applied') as caught:
        client.post('/pools', {'poolid': 'lab'})
    assert 'Re-run the task' in str(caught.value)
    assert [(entry['method'], entry['member']) for entry in sim.log] == [('POST', sim.members[0])]
    sim.restore(0)
    assert 'lab' not in [pool['poolid'] for pool in client.get('/pools')]


def test_a_refused_write_fails_over(sim):
    client = client_for(sim)
    sim.refuse(0)
    client.post('/pools', {'poolid': 'lab'})
    assert [(entry['method'], entry['member']) for entry in sim.log] == [('POST', sim.members[1])]


def test_every_member_failing_gives_one_error_naming_each(sim):
    sim.hang(0)
    sim.refuse(1)
    sim.refuse(2)
    with pytest.raises(Unreachable) as caught:
        client_for(sim, timeout=1).get('/version')
    assert str(caught.value) == 'all members failed: %s (no answer within the timeout); %s (connection refused); ' \
                                '%s (connection refused)' % tuple(sim.members)


def restricted(sim):
    """A privilege-separated token with no privilege at all."""
    sim.request('POST', '/access/users', {'userid': 'tasker@pve'})
    body = sim.request('POST', '/access/users/tasker@pve/token/tasks', {'privsep': '1'})[1]
    return body['data']['full-tokenid'], body['data']['value']


OUTCOMES = [
    ('OK', None, 'OK'),
    ('WARNINGS: 2', None, 'WARNINGS: 2'),
    ('disk full', TaskFailed, 'task UPID:.* failed: disk full(?s:.*)TASK ERROR: disk full'),
]


@pytest.mark.parametrize('exitstatus, error, expected', OUTCOMES)
def test_task_outcomes_read_with_the_owners_token(sim, exitstatus, error, expected):
    token = restricted(sim)
    upid = sim.start_task('node2', 'vzcreate', '101', token[0], exitstatus=exitstatus, duration=0.3,
                          log=['creating', 'writing'])
    client = client_for(sim, token)
    if error:
        with pytest.raises(error, match=expected):
            wait_for_task(client, upid, 'provision', timeout=10, poll_interval=0.1)
    else:
        assert wait_for_task(client, upid, 'provision', timeout=10, poll_interval=0.1).exitstatus == expected


def test_another_tokens_task_cannot_be_read_and_is_unknown(sim):
    upid = sim.start_task('node1', 'vzcreate', '101', 'root@pam', exitstatus='OK')
    with pytest.raises(TaskUnknown, match=r'unknown.*403 Permission check failed \(/nodes/node1, Sys.Audit\)'):
        wait_for_task(client_for(sim, restricted(sim)), upid, 'provision', timeout=5, poll_interval=0.1)


def test_a_task_still_running_at_the_timeout_is_unknown(sim):
    upid = sim.start_task('node1', 'vzcreate', '101', sim.token_id, duration=30)
    with pytest.raises(TaskUnknown, match='still running'):
        wait_for_task(client_for(sim), upid, 'provision', timeout=0.5, poll_interval=0.1)


def pbs_client(sim, scheme='pbs'):
    return api.Client(scheme, sim.pbs_members, StaticToken(sim.pbs_token_id, sim.pbs_token_secret), ca_path=sim.ca_path,
                      timeout=5)


def test_pbs_scheme_speaks_pbs_and_waits_for_its_tasks(sim):
    client = pbs_client(sim)
    assert client.get('/version')['version']
    upid = client.post('/config/datastore', {'name': 'store1', 'path': '/srv/store1'})
    assert wait_for_task(client, upid, 'provision', timeout=10, poll_interval=0.1).exitstatus == 'OK'
    assert client.get('/config/datastore/store1')['path'] == '/srv/store1'


def test_a_pve_header_on_pbs_is_refused_never_read_as_absent(sim):
    with pytest.raises(AuthenticationFailed, match='401 authentication failed'):
        pbs_client(sim, scheme='pve').get('/config/datastore/store1')


def test_pbs_errors_are_plain_text_and_typed(sim):
    with pytest.raises(InvalidParameters, match="400 no such datastore 'nothere'"):
        pbs_client(sim).get('/config/datastore/nothere')


def test_pbs_defaults_to_port_8007():
    client = api.Client('pbs', ['backup.example.org'], StaticToken('a@pbs!t', 's', 'pbs'))
    assert [member.name for member in client.members] == ['backup.example.org:8007']
