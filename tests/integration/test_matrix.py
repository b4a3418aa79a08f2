"""The integration matrix, over every family, with real ansible-playbook runs against the simulator.

check-mode create writes nothing → create → re-run changed=false with zero writes and one GET →
drift made through the API behind the module's back → --check --diff names exactly the drifted
fields and writes nothing → a real run repairs with exactly one write → state=absent → again
changed=false.
"""

import pytest

FAMILIES = {
    'pool': dict(
        args={'poolid': 'lab', 'comment': 'Lab guests'},
        drift=[('PUT', '/pools/lab', {'comment': 'edited in the UI'})],
        drifted={'comment': 'comment'},
        absent={'poolid': 'lab', 'state': 'absent'},
    ),
    'role': dict(
        args={'roleid': 'Monitoring', 'privs': ['VM.Audit', 'Sys.Audit']},
        # A privilege added by hand is revoked: privs is the complete set.
        drift=[('PUT', '/access/roles/Monitoring', {'privs': 'Sys.Audit,VM.Audit,Sys.Console'})],
        drifted={'privs': 'privs'},
        absent={'roleid': 'Monitoring', 'state': 'absent'},
    ),
    'group': dict(
        args={'groupid': 'operators', 'comment': 'On call'},
        drift=[('PUT', '/access/groups/operators', {'comment': 'renamed team'})],
        drifted={'comment': 'comment'},
        absent={'groupid': 'operators', 'state': 'absent'},
    ),
    'user': dict(
        setup=[('POST', '/access/groups', {'groupid': 'operators'}), ('POST', '/access/groups', {'groupid': 'dev'})],
        args={'userid': 'alice@pve', 'email': 'alice@example.org', 'firstname': 'Alice', 'groups': ['operators']},
        drift=[('PUT', '/access/users/alice@pve', {'enable': '0', 'groups': 'operators,dev'})],
        drifted={'enable': 'enable', 'groups': 'groups'},
        absent={'userid': 'alice@pve', 'state': 'absent'},
    ),
    'acl': dict(
        setup=[('POST', '/access/groups', {'groupid': 'operators'})],
        # Declared with a trailing slash; PVE stores /storage/local.
        args={'path': 'storage//local/', 'type': 'group', 'ugid': 'operators', 'roleid': 'PVEAuditor'},
        drift=[('PUT', '/access/acl', {'path': '/storage/local', 'groups': 'operators', 'roles': 'PVEAuditor',
                                       'propagate': '0'})],
        drifted={'propagate': 'propagate'},
        absent={'path': '/storage/local', 'type': 'group', 'ugid': 'operators', 'roleid': 'PVEAuditor',
                'state': 'absent'},
    ),
    'storage': dict(
        args={'storage': 'backup1', 'type': 'dir', 'path': '/srv/backup', 'content': ['iso', 'backup'],
              'prune_backups': 'keep-last=3,keep-daily=7'},
        # `shared` is undeclared, so unmanaged: its drift is not named and not repaired.
        drift=[('PUT', '/storage/backup1', {'content': 'iso', 'shared': '1'})],
        drifted={'content': 'content'},
        absent={'storage': 'backup1', 'state': 'absent', 'confirm_removal': True},
    ),
}


def task(module, args):
    return {'name': 'Declare %s' % module, 'homeflare.proxmox.%s' % module: args}


def api(sim, calls):
    for method, path, form in calls:
        status, body = sim.request(method, path, form)
        assert status == 200, (method, path, status, body)


@pytest.mark.parametrize('module', sorted(FAMILIES))
def test_matrix(sim, playbook, module):
    case = FAMILIES[module]
    api(sim, case.get('setup', []))

    # 1. check-mode create writes nothing and says create
    sim.clear_log()
    run = playbook([task(module, case['args'])], check=True, diff=True)
    assert run.rc == 0, run
    assert run.result()['changed'] is True
    assert run.result()['plan']['action'] == 'create'
    assert sim.writes() == []

    # 2. create: one write
    sim.clear_log()
    run = playbook([task(module, case['args'])])
    assert run.rc == 0, run
    assert run.result()['changed'] is True
    assert len(sim.writes()) == 1, sim.writes()

    # 3. re-run: adopted, zero writes, exactly one GET
    sim.clear_log()
    run = playbook([task(module, case['args'])])
    assert run.rc == 0, run
    assert run.result()['changed'] is False
    assert run.result()['plan'] == {'read': 'found', 'action': 'none', 'changed': []}
    assert sim.writes() == []
    assert len([entry for entry in sim.log if entry['method'] == 'GET']) == 1, sim.log

    # 4. drift behind the module's back
    api(sim, case['drift'])

    # 5. --check --diff names exactly the drifted fields and writes nothing
    sim.clear_log()
    run = playbook([task(module, case['args'])], check=True, diff=True)
    assert run.rc == 0, run
    result = run.result()
    assert result['changed'] is True
    assert result['plan']['action'] == 'update'
    assert sorted(result['plan']['changed']) == sorted(case['drifted'])
    before, after = result['diff']['before'], result['diff']['after']
    assert sorted(key for key in after if before.get(key) != after[key]) == sorted(case['drifted'])
    for field in case['drifted']:
        assert field in run.output, 'the --diff output must show %s' % field
    assert sim.writes() == []

    # 6. a real run repairs with exactly one write carrying the drifted fields
    sim.clear_log()
    run = playbook([task(module, case['args'])])
    assert run.rc == 0, run
    assert run.result()['changed'] is True
    written = sim.writes()
    assert len(written) == 1, written
    sent = set(written[0]['form']) | set(str(written[0]['form'].get('delete', '')).split(','))
    assert set(case['drifted'].values()) <= sent, written
    sim.clear_log()
    assert playbook([task(module, case['args'])]).result()['changed'] is False
    assert sim.writes() == []

    # 7. state=absent removes, 8. again is a no-op
    sim.clear_log()
    run = playbook([task(module, case['absent'])])
    assert run.rc == 0, run
    assert run.result()['changed'] is True and run.result()['plan']['action'] == 'delete'
    assert len(sim.writes()) == 1
    sim.clear_log()
    run = playbook([task(module, case['absent'])])
    assert run.rc == 0, run
    assert run.result()['changed'] is False and run.result()['object'] == {}
    assert sim.writes() == []
