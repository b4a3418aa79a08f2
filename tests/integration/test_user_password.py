"""A user's password (issue 27), on both paths: a user created with one logs in with it (a ticket from the
simulator); the re-run writes nothing with update_password=on_create; always sets it again on every real run and
says so (check mode says it would and writes nothing); the password never appears in any output at -vvv, in the
diff or in the result; always with an API token, which PVE keeps from PUT /access/password, is refused before any
write."""

import pytest

from conftest import EXECUTION_PATHS, connection
from test_pbs_families import pbs_connection

FIRST = 'FirstPassw0rd-91c'
SECOND = 'SecondPassw0rd-4b7'
USERID = 'ops@pve'


def task(sim, args, login=None, **extra):
    options = connection(sim)
    if login:  # a password login instead of the token: root@pam, whose password the simulator knows
        options = dict((key, value) for key, value in options.items() if not key.startswith('api_token'))
        options.update(api_user='root@pam', api_password=sim.root_password)
    return dict({'name': 'user', 'homeflare.proxmox.user': dict(args, **options)}, **extra)


def run_one(sim, playbook, path, args, login=False, check=False, verbosity=0, ignore_errors=False):
    sim.clear_log()
    extra = {'ignore_errors': True} if ignore_errors else {}
    # no module_defaults: a password login must not meet the token there (one credential source per task)
    run = playbook([task(sim, args, login, **extra)], check=check, diff=True, verbosity=verbosity, defaults={},
                   env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    return run, run.results[0]['result']


def logs_in(sim, password):
    status, _body = sim.login(USERID, password)
    return status == 200


def user_writes(sim):
    return [(entry['method'], entry['path']) for entry in sim.writes()]


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_password_set_on_create_logs_in_and_always_sets_it_again(sim, playbook, path):
    declared = {'userid': USERID, 'password': FIRST, 'comment': 'Operations'}
    outputs = []

    # check mode: a create, nothing written
    run, result = run_one(sim, playbook, path, declared, check=True)
    assert result['changed'] is True and result['plan']['action'] == 'create'
    assert sim.writes() == []

    # the create sends the password with it, and the user logs in with it
    run, result = run_one(sim, playbook, path, declared, verbosity=3)
    outputs.append((run.output, result))
    assert result['changed'] is True
    assert user_writes(sim) == [('POST', '/access/users')]
    assert logs_in(sim, FIRST) and not logs_in(sim, SECOND)

    # on_create (the default): a found user's password is left alone, and another one declared is not drift
    for password in (FIRST, SECOND):
        run, result = run_one(sim, playbook, path, dict(declared, password=password), verbosity=3)
        outputs.append((run.output, result))
        assert result['changed'] is False and result['plan']['action'] == 'none', result
        assert sim.writes() == []
    assert logs_in(sim, FIRST)

    # always: check mode says it would set it, and writes nothing
    always = dict(declared, password=SECOND, update_password='always')
    run, result = run_one(sim, playbook, path, always, login=True, check=True, verbosity=3)
    outputs.append((run.output, result))
    assert result['changed'] is True and result['plan'] == {'read': 'found', 'action': 'update',
                                                            'changed': ['password']}
    assert sim.writes() == [] and logs_in(sim, FIRST)

    # a real run sets it (the password endpoint alone: nothing else drifted) and says so, every run
    for _round in range(2):
        run, result = run_one(sim, playbook, path, always, login=True, verbosity=3)
        outputs.append((run.output, result))
        assert result['changed'] is True and result['plan']['changed'] == ['password'], result
        assert user_writes(sim) == [('PUT', '/access/password')]
        assert logs_in(sim, SECOND) and not logs_in(sim, FIRST)

    # always with a drifted field too: the field's PUT and the password's
    run, result = run_one(sim, playbook, path, dict(always, comment='Ops'), login=True)
    assert sorted(result['plan']['changed']) == ['comment', 'password']
    assert user_writes(sim) == [('PUT', '/access/users/%s' % USERID), ('PUT', '/access/password')]

    # the password is never shown: not at -vvv, not in the diff, not in the result
    for output, result in outputs:
        for secret in (FIRST, SECOND):
            assert secret not in output
            assert secret not in repr(result)
        assert 'password' not in result['diff']['before'] and 'password' not in result['diff']['after']


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_always_with_an_api_token_is_refused_before_any_write(sim, playbook, path):
    run_one(sim, playbook, path, {'userid': USERID, 'password': FIRST})
    for check in (True, False):
        run, result = run_one(sim, playbook, path, {'userid': USERID, 'password': SECOND, 'update_password': 'always'},
                              check=check, ignore_errors=True)
        assert run.results[0]['status'] == 'failed', result
        assert 'api_user and api_password' in result['msg'] and SECOND not in result['msg']
        assert sim.writes() == []
    assert logs_in(sim, FIRST)


def pbs_task(sim, args, login=False):
    options = pbs_connection(sim)
    if login:
        options = dict((key, value) for key, value in options.items() if not key.startswith('api_token'))
        options.update(api_user='root@pam', api_password=sim.root_password)
    return {'name': 'pbs_user', 'homeflare.proxmox.pbs_user': dict(args, **options)}


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_pbs_user_created_with_a_password_logs_in_and_always_sets_it_again(sim, playbook, path):
    userid = 'backup@pbs'
    declared = {'userid': userid, 'password': FIRST, 'comment': 'Backups'}

    def one(args, login=False, check=False):
        sim.clear_log()
        run = playbook([pbs_task(sim, args, login)], check=check, diff=True, verbosity=3, defaults={},
                       env=EXECUTION_PATHS[path])
        assert run.rc == 0, run
        for secret in (FIRST, SECOND):
            assert secret not in run.output and secret not in repr(run.result())
        return run.result()

    def pbs_logs_in(password):
        return sim.pbs_login(userid, password)[0] == 200

    assert one(declared)['changed'] is True and pbs_logs_in(FIRST)
    result = one(dict(declared, password=SECOND))
    assert result['changed'] is False and sim.writes() == [] and pbs_logs_in(FIRST)
    always = dict(declared, password=SECOND, update_password='always')
    result = one(always, login=True, check=True)
    assert result['changed'] is True and result['plan']['changed'] == ['password'] and sim.writes() == []
    for _round in range(2):
        result = one(always, login=True)
        assert result['changed'] is True and result['plan']['changed'] == ['password']
        assert [(entry['method'], entry['path']) for entry in sim.writes()] == [('PUT', '/access/password')]
        assert pbs_logs_in(SECOND) and not pbs_logs_in(FIRST)
