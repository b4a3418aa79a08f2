"""The Proxmox Backup Server access families (users, API tokens, ACL entries) through real ansible-playbook runs,
on both execution paths, against the simulator's PBS server.

One play per step holds the three families, in dependency order (user, token, ACL entry; removal the other way).
The lifecycle is the integration matrix's: check-mode create writes nothing, create, a re-run with no write, drift
named field by field and repaired in one write, absent twice (the module path skips the two confirming re-runs).
Then the families' own rules: a new token's secret
once and never shown, a token without the privilege fails (403), absence only on PBS's own answer, and the
privilege separation that lets a backup server take PVE's storage token.

``MATRIX`` and ``BAD_INPUT`` have the shapes of test_matrix.FAMILIES and test_bad_input.CORPUS. Until these modules
join the action group, every task names its connection.
"""

import pytest

from conftest import EXECUTION_PATHS, reconfirms
from test_matrix import assert_drift_named
from test_pbs_families import pbs_api, pbs_connection

USER_PASSWORD = 'PbsUserPassw0rd-4a7'
USER = {'userid': 'ci@pbs', 'comment': 'CI backups', 'firstname': 'Continuous', 'email': 'ci@example.org',
        'enable': True, 'expire': 0}
TOKEN = {'userid': 'ci@pbs', 'token_name': 'deploy', 'comment': 'CI deployments', 'enable': True, 'expire': 0}
ENTRY = {'path': '/datastore/store1', 'auth_id': 'ci@pbs!deploy', 'role': 'DatastoreBackup', 'propagate': True}

MATRIX = {
    'pbs_user': dict(
        args=dict(USER, password=USER_PASSWORD),
        # the last name is undeclared: not named, not repaired
        drift=[('PUT', '/access/users/ci@pbs', {'comment': 'edited', 'enable': '0', 'lastname': 'Hand'})],
        drifted={'comment': 'comment', 'enable': 'enable'},
        absent={'userid': 'ci@pbs', 'state': 'absent'},
    ),
    'pbs_api_token': dict(
        args=dict(TOKEN, create_missing=True),
        drift=[('PUT', '/access/users/ci@pbs/token/deploy', {'comment': 'edited', 'expire': '4102444800'})],
        drifted={'comment': 'comment', 'expire': 'expire'},
        absent={'userid': 'ci@pbs', 'token_name': 'deploy', 'state': 'absent', 'confirm_removal': True},
    ),
    'pbs_acl': dict(
        args=ENTRY,
        drift=[('PUT', '/access/acl', {'path': '/datastore/store1', 'auth-id': 'ci@pbs!deploy',
                                       'role': 'DatastoreBackup', 'propagate': '0'})],
        drifted={'propagate': 'propagate'},
        absent={'path': '/datastore/store1', 'auth_id': 'ci@pbs!deploy', 'role': 'DatastoreBackup', 'state': 'absent'},
    ),
}
# Dependency order: a token needs its user, an ACL entry its auth id.
MODULES = ['pbs_user', 'pbs_api_token', 'pbs_acl']


def user(**changes):
    return dict(USER, **changes)


def token(**changes):
    return dict(TOKEN, **changes)


def entry(**changes):
    return dict(ENTRY, **changes)


BAD_INPUT = [
    # pbs_user
    ('pbs_user', user(userid='alice'), 'userid'),
    ('pbs_user', user(userid='al ice@pbs'), 'userid'),
    ('pbs_user', user(userid='alice@-pbs'), 'userid'),
    ('pbs_user', user(userid='a' * 61 + '@pbs'), 'userid'),
    ('pbs_user', user(comment='x' * 129), 'comment'),
    ('pbs_user', user(comment='two\nlines'), 'comment'),
    ('pbs_user', user(firstname='A'), 'firstname'),
    ('pbs_user', user(email='x' * 65), 'email'),
    ('pbs_user', user(expire=-1), 'expire'),
    ('pbs_user', user(password='short'), 'password'),
    ('pbs_user', user(userid='backup@pam', password='LongEnough-1'), 'password'),
    ('pbs_user', user(update_password='always'), 'update_password'),
    ('pbs_user', user(groups=['ops']), 'groups'),
    # pbs_api_token
    ('pbs_api_token', token(token_name='ci@pbs!deploy'), 'token_name'),
    ('pbs_api_token', token(token_name='-deploy'), 'token_name'),
    ('pbs_api_token', token(userid='ci@pbs!deploy'), 'userid'),
    ('pbs_api_token', {'userid': 'ci@pbs', 'token_name': 'deploy'}, 'expire'),
    ('pbs_api_token', token(expire=-1), 'expire'),
    ('pbs_api_token', token(comment='x' * 129), 'comment'),
    ('pbs_api_token', token(privsep=True), 'privsep'),
    ('pbs_api_token', {'userid': 'ci@pbs', 'token_name': 'deploy', 'state': 'absent'}, 'confirm_removal'),
    # pbs_acl
    ('pbs_acl', entry(role='PVEAuditor'), 'role'),
    ('pbs_acl', entry(auth_id='ci'), 'auth_id'),
    ('pbs_acl', entry(auth_id='ci@pbs!'), 'auth_id'),
    ('pbs_acl', entry(path='/datastore/store 1'), 'path'),
    ('pbs_acl', entry(path='/storage/local'), 'path'),
    # PBS's check_acl_path (a remote's grant reaches its namespaces in PBS 4: 3 + 7 components at most)
    ('pbs_acl', entry(path='/remote/r/s/1/2/3/4/5/6/7/8'), 'path'),
    ('pbs_acl', entry(path='/datastore/s/1/2/3/4/5/6/7/8'), 'path'),
    ('pbs_acl', entry(path='/vms/100'), 'path'),
    ('pbs_acl', entry(path='/access/users/ci@pbs'), 'path'),
    ('pbs_acl', entry(path='/system/network/interfaces/eth0/x'), 'path'),
    ('pbs_acl', entry(path='/tape/changer'), 'path'),
    ('pbs_acl', entry(path='/' + 'd' * 128), 'path'),
    ('pbs_acl', entry(type='group'), 'type'),
]


def task(sim, module, args, **extra):
    return dict({'name': module, 'homeflare.proxmox.%s' % module: dict(args, **pbs_connection(sim))}, **extra)


def of(module, entries):
    """The requests of one family (the token's paths lie below its user's)."""
    def mine(path):
        if module == 'pbs_user':
            return path in ('/access/users', '/access/users/ci@pbs')
        if module == 'pbs_api_token':
            return path.startswith('/access/users/ci@pbs/token')
        return path == '/access/acl'
    return [item for item in entries if mine(item['path'])]


def step(sim, playbook, path, args_key, check=False, diff=False):
    modules = MODULES[::-1] if args_key == 'absent' else MODULES
    sim.clear_log()
    run = playbook([task(sim, module, MATRIX[module][args_key]) for module in modules], check=check, diff=diff,
                   env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    return run, dict((line['task'], line['result']) for line in run.results)


def pbs_writes(sim):
    return [item for item in sim.writes() if item['path'].startswith('/access')]


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_the_pbs_access_families_lifecycle(sim, playbook, path):
    state = sim.pbs_state
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        assert outcome[module]['plan']['action'] == 'create', (module, outcome[module])
    assert pbs_writes(sim) == []

    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['changed'] is True, (module, outcome[module])
        assert len(of(module, sim.writes())) == 1, (module, sim.writes())
    assert state.users['ci@pbs'] == {'comment': 'CI backups', 'firstname': 'Continuous', 'email': 'ci@example.org'}
    assert state.tokens['ci@pbs!deploy'] == {'comment': 'CI deployments'}
    assert {'path': '/datastore/store1', 'ugid': 'ci@pbs!deploy', 'ugid_type': 'user', 'roleid': 'DatastoreBackup',
            'propagate': True} in state.acl
    create = of('pbs_user', sim.writes())[0]
    assert create['form']['password'] == USER_PASSWORD  # sent with the create, never shown (below)
    assert outcome['pbs_api_token'].get('secret') is None  # hidden: the result held the secret

    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['plan'] == {'read': 'found', 'action': 'none', 'changed': []}, module
        assert 'secret' not in outcome[module] and 'password' not in outcome[module]['object'], module
    assert pbs_writes(sim) == []
    assert USER_PASSWORD not in run.output

    for module in MODULES:
        pbs_api(sim, MATRIX[module]['drift'])
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    assert pbs_writes(sim) == []
    for module in MODULES:
        assert_drift_named(outcome[module], MATRIX[module]['drifted'])
    for field in ('comment', 'enable', 'expire', 'propagate'):
        assert field in run.output, 'the --diff output must show %s' % field

    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        written = of(module, sim.writes())
        assert len(written) == 1 and written[0]['method'] == 'PUT', (module, written)
        assert set(MATRIX[module]['drifted'].values()) <= set(written[0]['form']), written
        assert written[0]['form'].get('digest'), written  # user.cfg's or acl.cfg's digest goes with the update
        assert 'password' not in written[0]['form']
    assert state.users['ci@pbs']['lastname'] == 'Hand'  # undeclared: left alone
    assert 'enable' not in state.users['ci@pbs'] and 'expire' not in state.tokens['ci@pbs!deploy']
    if reconfirms(path):
        run, outcome = step(sim, playbook, path, 'args')
        assert not any(outcome[module]['changed'] for module in MODULES)
        assert pbs_writes(sim) == []

    run, outcome = step(sim, playbook, path, 'absent')
    for module in MODULES:
        assert outcome[module]['plan']['action'] == 'delete', (module, outcome[module])
        assert len(of(module, sim.writes())) == 1, (module, sim.writes())
    acl_delete = of('pbs_acl', sim.writes())[0]
    assert acl_delete['method'] == 'PUT' and acl_delete['form']['delete'] in ('1', 'true'), acl_delete
    assert 'ci@pbs' not in state.users and 'ci@pbs!deploy' not in state.tokens
    if reconfirms(path):
        run, outcome = step(sim, playbook, path, 'absent')
        for module in MODULES:
            assert outcome[module]['changed'] is False and outcome[module]['object'] == {}, module
        assert pbs_writes(sim) == []


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_new_tokens_secret_is_returned_once_and_never_shown(sim, playbook, path, tmp_path):
    kept = tmp_path / 'token-secret'
    tasks = [task(sim, 'pbs_user', MATRIX['pbs_user']['args']),
             task(sim, 'pbs_api_token', MATRIX['pbs_api_token']['args'], register='created'),
             # what the user asked for: the registered secret, written where it is kept (copy's own diff would show it)
             {'name': 'keep the secret', 'ansible.builtin.copy': {'content': '{{ created.secret }}',
                                                                  'dest': str(kept)}, 'diff': False},
             {'name': 'the id', 'ansible.builtin.debug': {'msg': '{{ created.full_tokenid }}'}}]
    run = playbook(tasks, diff=True, verbosity=3, env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    secret = kept.read_text()
    assert secret and sim.pbs_state.token_secret_matches('ci@pbs!deploy', secret)
    assert run.results[-1]['result']['msg'] == 'ci@pbs!deploy'
    for hidden in (secret, USER_PASSWORD, sim.pbs_token_secret):
        assert hidden not in run.output, hidden
        assert hidden not in repr(run.results), hidden
    # the secret is the token's: it logs in (a wrong one is a 401)
    status = sim.pbs_request('GET', '/access/permissions', token=('ci@pbs!deploy', secret))[0]
    assert status == 200

    # a later run finds the token and returns no secret
    run = playbook([task(sim, 'pbs_api_token', MATRIX['pbs_api_token']['args'], register='again'),
                    {'name': 'show', 'ansible.builtin.debug': {'var': 'again'}}], env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    assert run.results[0]['result']['changed'] is False and 'secret' not in run.results[1]['result']['again']
    assert secret not in run.output


def test_a_missing_token_is_refused_with_guidance_unless_asked(sim, playbook):
    path = 'controller'  # the refusal is the family's, the same on the module path
    sim.pbs_state.add_user('ci@pbs')
    sim.clear_log()
    run = playbook([task(sim, 'pbs_api_token', TOKEN, ignore_errors=True)], env=EXECUTION_PATHS[path])
    result = run.result()
    assert run.results[0]['status'] == 'failed', run
    assert 'proxmox-backup-manager user generate-token ci@pbs deploy' in result['msg'], result
    assert 'create_missing=true' in result['msg']
    assert sim.writes() == [] and set(item['method'] for item in sim.log) == {'GET'}


def test_a_token_of_a_missing_user_is_never_created(sim, playbook):
    """PBS would create it (generate_token does not look the user up): the create reads the user first."""
    sim.clear_log()
    run = playbook([task(sim, 'pbs_api_token', dict(TOKEN, create_missing=True), ignore_errors=True)])
    result = run.result()
    assert run.results[0]['status'] == 'failed' and result['error'] == 'Refused', result
    assert 'ci@pbs does not exist' in result['msg'] and 'pbs_user' in result['msg'], result
    assert sim.writes() == [] and sim.pbs_state.tokens.keys() == {'root@pam!sim'}


def test_a_token_without_the_privilege_fails_clearly_and_never_reads_absent(sim, playbook):
    """A token with no ACL entry: PBS answers 403 to the user and token reads (never "absent"), and lists it no ACL
    entry at all, which is not taken for absence either. A read-only token (Audit) plans, and its write is a 403."""
    state = sim.pbs_state
    bare = ('weak@pbs!bare', state.add_token('weak@pbs', 'bare'))
    audit = ('weak@pbs!audit', state.add_token('weak@pbs', 'audit'))
    for authid in ('weak@pbs', 'weak@pbs!audit'):
        state.acl_insert('/', authid, 'Audit')

    def tasks(credential, check=None):
        connection = dict(pbs_connection(sim), api_token_id=credential[0], api_token_secret=credential[1])
        return [dict({'name': module, 'homeflare.proxmox.%s' % module: dict(MATRIX[module]['args'], **connection),
                      'ignore_errors': True}, **({} if check is None else {'check_mode': check}))
                for module in MODULES]

    sim.clear_log()
    run = playbook(tasks(bare))
    outcome = dict((line['task'], line) for line in run.results)
    for module in ('pbs_user', 'pbs_api_token'):
        line = outcome[module]
        assert line['status'] == 'failed' and line['result']['error'] == 'Forbidden', line
        assert '403 permission check failed' in line['result']['msg'] and 'plan' not in line['result'], line
    acl = outcome['pbs_acl']
    assert acl['status'] == 'failed' and acl['result']['error'] == 'Unreadable', acl
    assert 'lacks Sys.Audit on /access/acl' in acl['result']['msg'], acl
    assert sim.writes() == []

    run = playbook(tasks(audit, check=True))
    assert all(line['result']['plan']['action'] == 'create' for line in run.results), run.results
    run = playbook(tasks(audit)[:1])
    line = run.results[0]
    assert line['status'] == 'failed' and line['result']['error'] == 'Forbidden', line
    assert '403 permission check failed' in line['result']['msg']
    assert 'ci@pbs' not in state.users


def test_absence_is_only_pbss_own_answer(sim, playbook):
    """A user is missing on 400 "no such user", confirmed by the list. The same answer for a listed user, read
    twice, or any other failed read, fails the task and writes nothing; a listed user found by the second read (made
    meanwhile) is judged as found."""
    state = sim.pbs_state
    state.add_user('ci@pbs', comment='CI backups')
    declared = [task(sim, 'pbs_user', USER, ignore_errors=True),
                task(sim, 'pbs_api_token', token(userid='root@pam', token_name='sim'), ignore_errors=True)]

    sim.force('GET', r'^/access/users/ci@pbs$', 400, "no such user 'ci@pbs'", server='pbs', times=1)
    sim.force('GET', r'^/access/users/root@pam/token/sim$', 400, "no such token 'root@pam!sim'", server='pbs',
              times=1)
    run = playbook(declared, check=True)
    for line in run.results:
        assert line['status'] == 'ok' and line['result']['plan']['read'] == 'found', line
    reads = [entry['path'] for entry in sim.log if entry['method'] == 'GET']
    assert reads.count('/access/users/ci@pbs') == 2 and reads.count('/access/users/root@pam/token/sim') == 2, reads

    sim.force('GET', r'^/access/users/ci@pbs$', 400, "no such user 'ci@pbs'", server='pbs', times=2)
    sim.force('GET', r'^/access/users/root@pam/token/sim$', 400, "no such token 'root@pam!sim'", server='pbs',
              times=2)
    sim.clear_log()
    run = playbook(declared)
    for line in run.results:
        assert line['status'] == 'failed' and line['result']['error'] == 'Unreadable', line
        assert 'is listed by' in line['result']['msg'] and 'not treated as absent' in line['result']['msg'], line
    assert sim.writes() == []

    sim.force('GET', r'^/access/users/ci@pbs$', 500, 'user.cfg: unable to parse', server='pbs', times=1)
    sim.force('GET', r'^/access/users/root@pam/token/sim$', 400, 'parameter verification failed', server='pbs',
              times=1)
    run = playbook(declared)
    for line in run.results:
        assert line['status'] == 'failed' and line['result']['error'] in ('ServerError', 'InvalidParameters'), line
    assert sim.writes() == []


def test_a_backup_server_takes_pves_privilege_separated_storage_token(sim, playbook, tmp_path):
    """The issue's point: a PBS token holds its own entries intersected with its user's. An entry for the token alone
    gives it nothing; with its user's entry too, the token (as PVE's pbs storage would use it) may back up."""
    kept = tmp_path / 'storage-secret'
    grant = {'path': '/datastore/store1', 'role': 'DatastoreBackup'}
    run = playbook([
        task(sim, 'pbs_user', {'userid': 'pve-cluster@pbs', 'comment': 'PVE storage'}),
        task(sim, 'pbs_api_token', {'userid': 'pve-cluster@pbs', 'token_name': 'storage', 'expire': 0,
                                    'create_missing': True}, register='storage'),
        task(sim, 'pbs_acl', dict(grant, auth_id='pve-cluster@pbs!storage')),
        {'name': 'keep', 'ansible.builtin.copy': {'content': '{{ storage.secret }}', 'dest': str(kept)}, 'diff': False},
    ])
    assert run.rc == 0, run
    secret = kept.read_text()
    assert privileges_of(sim, ('pve-cluster@pbs!storage', secret)) == set()  # its user holds nothing there yet

    run = playbook([task(sim, 'pbs_acl', dict(grant, auth_id='pve-cluster@pbs'))])
    assert run.rc == 0 and run.results[0]['result']['changed'] is True, run
    assert privileges_of(sim, ('pve-cluster@pbs!storage', secret)) == {'Datastore.Backup'}


def privileges_of(sim, credential):
    """What a token holds on /datastore/store1, asked with its own secret."""
    status, body = sim.pbs_request('GET', '/access/permissions', {'path': '/datastore/store1'}, token=credential)
    assert status == 200, body
    return set((body.get('data') or {}).get('/datastore/store1', {}))
