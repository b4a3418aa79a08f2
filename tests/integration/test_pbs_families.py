"""The Proxmox Backup Server families through real ansible-playbook runs, on both execution paths, against the
simulator's PBS server (port of its own, ``PBSAPIToken``).

One play per step holds every family. The lifecycle is the integration matrix's: check-mode create writes
nothing, create, a re-run with no write, drift named field by field and repaired in one write, absent twice.

``MATRIX`` and ``BAD_INPUT`` have the shapes of test_matrix.FAMILIES and test_bad_input.CORPUS.
"""

import os

import pytest
import yaml

from conftest import EXECUTION_PATHS, REPO
from test_matrix import assert_drift_named

MATRIX = {
    'pbs_datastore': dict(
        prefix='/config/datastore',
        args={'name': 'store1', 'path': '/mnt/datastore/store1', 'comment': 'Cluster backups',
              'gc_schedule': 'daily', 'verify_new': True, 'notify': 'verify=always,gc=error', 'settle_timeout': 10},
        # renamed schedule and verification turned off by hand; the tuning is undeclared: not named, not repaired
        drift=[('PUT', '/config/datastore/store1', {'gc-schedule': 'weekly', 'verify-new': 'false',
                                                    'tuning': 'sync-level=file'})],
        drifted={'gc_schedule': 'gc-schedule', 'verify_new': 'verify-new'},
        absent={'name': 'store1', 'state': 'absent', 'confirm_removal': True},
    ),
}
MODULES = list(MATRIX)


def store(**changes):
    return dict(MATRIX['pbs_datastore']['args'], **changes)


BAD_INPUT = [
    ('pbs_datastore', store(name='ab'), 'name'),
    ('pbs_datastore', store(name='-store'), 'name'),
    ('pbs_datastore', store(comment='x' * 129), 'comment'),
    ('pbs_datastore', store(gc_schedule='every full moon'), 'gc_schedule'),
    ('pbs_datastore', store(notify='gc=sometimes'), 'notify'),
    ('pbs_datastore', store(tuning='sync-level=fast'), 'tuning'),
    ('pbs_datastore', store(maintenance_mode='type=closed'), 'maintenance_mode'),
    ('pbs_datastore', store(notify_user='root'), 'notify_user'),
    ('pbs_datastore', store(keep_last=3), 'keep_last'),
    ('pbs_datastore', store(destroy_data=True), 'destroy_data'),
    ('pbs_datastore', {'name': 'store1', 'state': 'absent'}, 'confirm_removal'),
]


def pbs_connection(sim):
    """The connection options for the simulator's PBS server."""
    return {'api_host': sim.pbs_members, 'api_token_id': sim.pbs_token_id, 'api_token_secret': sim.pbs_token_secret,
            'ca_path': sim.ca_path, 'api_timeout': 5}


def pbs_api(sim, calls):
    for method, path, form in calls:
        status, body = sim.pbs_request(method, path, form)[:2]
        assert status == 200, (method, path, status, body)


def of(module, entries):
    prefix = MATRIX[module]['prefix']
    return [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]


def step(sim, playbook, path, args_key, check=False, diff=False):
    modules = [module for module in MODULES if MATRIX[module][args_key] is not None]
    if args_key == 'absent':
        modules = modules[::-1]
    sim.clear_log()
    run = playbook([{'name': module, 'homeflare.proxmox.%s' % module: MATRIX[module][args_key]}
                    for module in modules], check=check, diff=diff, defaults=pbs_connection(sim),
                   env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    return run, dict((line['task'], line['result']) for line in run.results)


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_the_pbs_families_lifecycle(sim, playbook, path):
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        assert outcome[module]['plan']['action'] == 'create', (module, outcome[module])
    assert sim.writes() == []

    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['changed'] is True, (module, outcome[module])
        assert len(of(module, sim.writes())) == 1, (module, sim.writes())
    assert sim.pbs_state.datastores['store1']['gc-schedule'] == 'daily'

    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['plan'] == {'read': 'found', 'action': 'none', 'changed': []}, module
    assert sim.writes() == []

    for module in MODULES:
        pbs_api(sim, MATRIX[module]['drift'])
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    assert sim.writes() == []
    for module in MODULES:
        assert_drift_named(outcome[module], MATRIX[module]['drifted'])

    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        written = of(module, sim.writes())
        assert len(written) == 1, (module, written)
        assert set(MATRIX[module]['drifted'].values()) <= set(written[0]['form']), written
        assert written[0]['form'].get('digest'), written  # datastore.cfg's digest goes with the update
    assert sim.pbs_state.datastores['store1']['tuning'] == 'sync-level=file'  # undeclared: left alone
    run, outcome = step(sim, playbook, path, 'args')
    assert sim.writes() == []

    run, outcome = step(sim, playbook, path, 'absent')
    for module in MODULES:
        assert outcome[module]['plan']['action'] == 'delete', (module, outcome[module])
    delete = [entry for entry in sim.writes() if entry['method'] == 'DELETE']
    assert len(delete) == 1 and 'destroy-data' not in (delete[0]['form'] or {})  # the chunks stay
    run, outcome = step(sim, playbook, path, 'absent')
    for module in MODULES:
        assert outcome[module]['changed'] is False and outcome[module]['object'] == {}, module
    assert sim.writes() == []


def test_pbs_credentials_minted_by_openbao_directly_and_through_the_lookup(sim, playbook):
    minted = {'api_host': sim.pbs_members, 'ca_path': sim.ca_path, 'bao_addr': sim.bao_addr,
              'bao_token': sim.bao_token, 'bao_ca_path': sim.ca_path, 'bao_creds_mount': sim.bao_pbs_mount}
    lookup = "{{ lookup('homeflare.proxmox.token', bao_addr='%s', bao_token='%s', bao_ca_path='%s', " \
             "bao_creds_mount='%s', role='provision', scheme='pbs') }}" % (
                 sim.bao_addr, sim.bao_token, sim.ca_path, sim.bao_pbs_mount)
    looked_up = {'api_host': sim.pbs_members, 'ca_path': sim.ca_path, 'api_token_id': '{{ pbs_token.token_id }}',
                 'api_token_secret': '{{ pbs_token.secret }}'}
    sim.clear_log()
    run = playbook([
        {'name': 'minted', 'homeflare.proxmox.pbs_datastore': dict(store(name='minted'), **minted)},
        {'name': 'looked up', 'homeflare.proxmox.pbs_datastore': dict(store(name='looked'), **looked_up)},
    ], defaults={}, play_extra={'vars': {'pbs_token': lookup}}, verbosity=4)
    assert run.rc == 0, run
    assert set(sim.pbs_state.datastores) == {'minted', 'looked'}
    # every request carried a token minted on the PBS mount: reads with the read role, writes with provision
    users = set(entry['token_id'].split('!')[0] for entry in sim.log if entry['path'].startswith('/config/datastore'))
    assert users == {'hf-read@pbs', 'hf-provision@pbs'}, users
    assert sim.bao_token not in run.output


def test_a_pve_module_pointed_at_pbs_fails_clearly_and_is_never_absent(sim, playbook):
    """A PVE header (PVEAPIToken) reaches PBS: PBS answers 401 to everything, which is never "absent"."""
    wrong = dict(pbs_connection(sim), api_token_id=sim.token_id, api_token_secret=sim.token_secret)
    sim.clear_log()
    run = playbook([{'name': 'pve module', 'homeflare.proxmox.pool': {'poolid': 'lab'}, 'ignore_errors': True},
                    {'name': 'pve token', 'homeflare.proxmox.pbs_datastore': store(), 'ignore_errors': True}],
                   defaults=wrong)
    for line in run.results:
        result = line['result']
        assert line['status'] == 'failed' and result['error'] == 'AuthenticationFailed', line
        assert 'plan' not in result
    assert sim.writes() == []


def test_declare_takes_a_backup_servers_objects_in_a_task_of_their_own(sim, playbook):
    objects = {'pbs_datastore': [store(), store(name='store2', path='/mnt/datastore/store2')]}
    sim.clear_log()
    run = playbook([{'name': 'check', 'homeflare.proxmox.declare': {'objects': objects}, 'check_mode': True},
                    {'name': 'apply', 'homeflare.proxmox.declare': {'objects': objects}},
                    {'name': 'again', 'homeflare.proxmox.declare': {'objects': objects}},
                    {'name': 'mixed', 'homeflare.proxmox.declare': {'objects': dict(objects, pool=[{'poolid': 'x'}])},
                     'ignore_errors': True}], defaults=pbs_connection(sim))
    outcome = results_by_task(run)
    assert [entry['plan']['action'] for entry in outcome['check']['results']] == ['create', 'create']
    assert outcome['apply']['summary']['create'] == 2 and outcome['again']['summary']['matched'] == 2
    assert set(sim.pbs_state.datastores) == {'store1', 'store2'}
    assert 'one declare task talks to one server' in outcome['mixed']['msg'], outcome['mixed']
    assert len(sim.writes()) == 2  # the two creates; the re-run and the mixed task wrote nothing


def results_by_task(run):
    return dict((line['task'], line['result']) for line in run.results)


ROLE_VARIABLES = {'pbs_user': 'backup_server_users', 'pbs_api_token': 'backup_server_api_tokens',
                  'pbs_remote': 'backup_server_remotes', 'pbs_datastore': 'backup_server_datastores',
                  'pbs_acl': 'backup_server_acls', 'pbs_sync_job': 'backup_server_sync_jobs',
                  'pbs_verify_job': 'backup_server_verify_jobs', 'pbs_prune_job': 'backup_server_prune_jobs',
                  'pbs_notification_endpoint': 'backup_server_notification_endpoints',
                  'pbs_notification_matcher': 'backup_server_notification_matchers'}


def backup_server_declaration():
    """Every PBS family's matrix object, as the backup_server role's variables."""
    from test_pbs_access_families import MATRIX as ACCESS
    from test_pbs_job_families import MATRIX as JOBS
    from test_pbs_notify_families import MATRIX as NOTIFY
    every = dict(MATRIX, **ACCESS)
    every.update(JOBS)
    every.update(NOTIFY)
    assert sorted(every) == sorted(ROLE_VARIABLES)
    # declare refuses create_missing (its report would lose the secret): the token is made before the role runs
    token = dict(every['pbs_api_token']['args'])
    token.pop('create_missing')
    every['pbs_api_token'] = dict(every['pbs_api_token'], args=token)
    return dict((ROLE_VARIABLES[module], [every[module]['args']]) for module in every)


def role_task(variables):
    return {'name': 'Apply', 'ansible.builtin.include_role': {'name': 'homeflare.proxmox.backup_server'},
            'vars': variables}


def test_the_backup_server_role_declares_a_whole_pbs_then_adopts_it(sim, playbook):
    variables = dict(backup_server_declaration(), backup_server_connection=pbs_connection(sim))
    # the user and its token made by hand (a token is adopted, never created, by declare)
    pbs_api(sim, [('POST', '/access/users', {'userid': 'ci@pbs', 'comment': 'by hand'}),
                  ('POST', '/access/users/ci@pbs/token/deploy', {'comment': 'by hand'})])
    sim.clear_log()
    run = playbook([role_task(variables)], check=True, defaults={})
    assert run.rc == 0, run
    planned = dict((entry['module'], entry['plan']['action']) for entry in run.results[-1]['result']['results'])
    assert planned.pop('pbs_user') == planned.pop('pbs_api_token') == 'update', planned
    assert set(planned.values()) == {'create'}, planned
    assert sim.writes() == []
    run = playbook([role_task(variables)], defaults={})
    assert run.rc == 0, run
    written = [entry['module'] for entry in run.results[-1]['result']['results'] if entry['plan']['action'] != 'none']
    # declare's order: users, tokens, remotes, datastores, grants, jobs, endpoints, matchers
    assert written == ['pbs_user', 'pbs_api_token', 'pbs_remote', 'pbs_datastore', 'pbs_acl', 'pbs_sync_job',
                       'pbs_verify_job', 'pbs_prune_job', 'pbs_notification_endpoint', 'pbs_notification_matcher']
    sim.clear_log()
    run = playbook([role_task(variables)], defaults={})
    assert run.rc == 0 and run.results[-1]['result']['summary']['matched'] == 10, run
    assert sim.writes() == []

    pbs_api(sim, [('PUT', '/config/datastore/store1', {'comment': 'edited by hand'})])
    sim.clear_log()
    run = playbook([role_task(dict(variables, backup_server_fail_on_drift=True))], check=True, defaults={})
    assert run.rc != 0
    assert run.failed[0]['result']['msg'] == ("1 of 10 objects differ from the declaration: pbs datastore 'store1' "
                                              "(update: comment)")
    assert sim.writes() == []


def test_the_documented_example_wires_a_pve_storage_to_a_pbs_datastore_and_token(sim, playbook):
    """examples/pbs_storage.yml, run against the simulator's cluster and backup server, twice."""
    with open(os.path.join(REPO, 'examples', 'pbs_storage.yml')) as handle:
        play = yaml.safe_load(handle)[0]
    host, port = sim.pbs_members[0].rsplit(':', 1)
    variables = dict(play['vars'], pbs_host=host, pbs_port=int(port), pve_api_host=sim.members,
                     pbs_admin_token_id=sim.pbs_token_id, pbs_admin_token_secret=sim.pbs_token_secret,
                     pve_token_id=sim.token_id, pve_token_secret=sim.token_secret)
    defaults = dict(play['module_defaults']['group/homeflare.proxmox.proxmox'], ca_path=sim.ca_path)
    run = playbook(play['tasks'], defaults=defaults, play_extra={'vars': variables}, verbosity=3)
    assert run.rc == 0, run
    storage = sim.state.storage['pbs-cluster']
    assert storage['username'] == 'pve-cluster@pbs!storage' and storage['datastore'] == 'cluster'
    # the token's secret reached PVE's storage, and no output shows it
    token_secret = [line['result'] for line in run.results if line['task'].startswith('Its token')][0]
    assert token_secret.get('censored'), token_secret  # the token module's result is no_log
    assert status_with(sim, 'pve-cluster@pbs!storage', sim.state.storage_secrets['pbs-cluster']['password']) == 200
    assert sim.state.storage_secrets['pbs-cluster']['password'] not in run.output
    sim.clear_log()
    again = playbook(play['tasks'], defaults=defaults, play_extra={'vars': variables})
    assert again.rc == 0, again
    assert sim.writes() == []


def status_with(sim, token_id, secret):
    """What the backup server answers the token when it lists the datastore's content."""
    return sim.pbs_request('GET', '/access/permissions', {'path': '/datastore/cluster'}, token=(token_id, secret))[0]
