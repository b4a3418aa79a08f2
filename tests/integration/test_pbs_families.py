"""The Proxmox Backup Server families through real ansible-playbook runs, on both execution paths, against the
simulator's PBS server (port of its own, ``PBSAPIToken``).

One play per step holds every family. The lifecycle is the integration matrix's: check-mode create writes
nothing, create, a re-run with no write, drift named field by field and repaired in one write, absent twice.

``MATRIX`` and ``BAD_INPUT`` have the shapes of test_matrix.FAMILIES and test_bad_input.CORPUS.
"""

import pytest

from conftest import EXECUTION_PATHS

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
        drifted = sorted(MATRIX[module]['drifted'])
        result = outcome[module]
        assert result['plan']['action'] == 'update' and sorted(result['plan']['changed']) == drifted, result
        before, after = result['diff']['before'], result['diff']['after']
        assert sorted(key for key in after if before.get(key) != after[key]) == drifted, module

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
