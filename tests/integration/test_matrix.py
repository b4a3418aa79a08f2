"""The integration matrix, over every family and every way to run it, with real ansible-playbook runs.

Each step runs all six families at once (one play), on each execution path:

* ``controller``: one task per object, run inside Ansible's worker (the default for a local connection);
* ``module``: the same tasks with the module shipped and run in its own interpreter
  (``HOMEFLARE_PROXMOX_EXECUTION=module``);
* ``declare``: one ``homeflare.proxmox.declare`` task holding every object.

check-mode create writes nothing → create → re-run changed=false with zero writes and the minimum of
GETs → drift made through the API behind the module's back → --check --diff names exactly the drifted
fields and writes nothing → a real run repairs with exactly one write per drifted object →
state=absent → again changed=false. The module path skips the two confirming re-runs (after the repair,
the second absent): its step 3 proved that a converged object costs zero writes.
"""

import pytest

from conftest import reconfirms

# Made once before every case, outside the declaration: the groups users and grants refer to.
SETUP = [('POST', '/access/groups', {'groupid': 'operators'}), ('POST', '/access/groups', {'groupid': 'dev'})]

FAMILIES = {
    'pool': dict(
        prefix='/pools',
        args={'poolid': 'lab', 'comment': 'Lab guests'},
        drift=[('PUT', '/pools/lab', {'comment': 'edited in the UI'})],
        drifted={'comment': 'comment'},
        absent={'poolid': 'lab', 'state': 'absent'},
    ),
    'role': dict(
        prefix='/access/roles',
        args={'roleid': 'Monitoring', 'privs': ['VM.Audit', 'Sys.Audit']},
        # A privilege added by hand is revoked: privs is the complete set.
        drift=[('PUT', '/access/roles/Monitoring', {'privs': 'Sys.Audit,VM.Audit,Sys.Console'})],
        drifted={'privs': 'privs'},
        absent={'roleid': 'Monitoring', 'state': 'absent'},
    ),
    'group': dict(
        prefix='/access/groups',
        args={'groupid': 'oncall', 'comment': 'On call'},
        drift=[('PUT', '/access/groups/oncall', {'comment': 'renamed team'})],
        drifted={'comment': 'comment'},
        absent={'groupid': 'oncall', 'state': 'absent'},
    ),
    'user': dict(
        prefix='/access/users',
        args={'userid': 'alice@pve', 'email': 'alice@example.org', 'firstname': 'Alice', 'groups': ['operators']},
        drift=[('PUT', '/access/users/alice@pve', {'enable': '0', 'groups': 'operators,dev'})],
        drifted={'enable': 'enable', 'groups': 'groups'},
        absent={'userid': 'alice@pve', 'state': 'absent'},
    ),
    'acl': dict(
        prefix='/access/acl',
        # Declared with a trailing slash; PVE stores /storage/local.
        args={'path': 'storage//local/', 'type': 'group', 'ugid': 'operators', 'roleid': 'PVEAuditor'},
        drift=[('PUT', '/access/acl', {'path': '/storage/local', 'groups': 'operators', 'roles': 'PVEAuditor',
                                       'propagate': '0'})],
        drifted={'propagate': 'propagate'},
        absent={'path': '/storage/local', 'type': 'group', 'ugid': 'operators', 'roleid': 'PVEAuditor',
                'state': 'absent'},
    ),
    'storage': dict(
        prefix='/storage',
        args={'storage': 'backup1', 'type': 'dir', 'path': '/srv/backup', 'content': ['iso', 'backup'],
              'prune_backups': 'keep-last=3,keep-daily=7'},
        # `shared` is undeclared, so unmanaged: its drift is not named and not repaired.
        drift=[('PUT', '/storage/backup1', {'content': 'iso', 'shared': '1'})],
        drifted={'content': 'content'},
        absent={'storage': 'backup1', 'state': 'absent', 'confirm_removal': True},
    ),
}
MODULES = sorted(FAMILIES)
PATHS = ['controller', 'module', 'declare']


def api(sim, calls):
    for method, path, form in calls:
        status, body = sim.request(method, path, form)
        assert status == 200, (method, path, status, body)


def assert_drift_named(result, drifted):
    """A check run named exactly the drifted fields, in the plan and in the diff, field by field."""
    drifted = sorted(drifted)
    assert result['plan']['action'] == 'update' and sorted(result['plan']['changed']) == drifted, result
    before, after = result['diff']['before'], result['diff']['after']
    assert sorted(key for key in after if before.get(key) != after[key]) == drifted, result


def of(module, entries):
    """The log entries that belong to one family (each family has its own API prefix)."""
    prefix = FAMILIES[module]['prefix']
    return [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]


class Matrix:
    """Runs one step for every family on one path; gives per-family results."""

    def __init__(self, sim, playbook, path):
        self.sim = sim
        self.playbook = playbook
        self.path = path

    def run(self, args_key, check=False, diff=False):
        self.sim.clear_log()
        declarations = dict((module, FAMILIES[module][args_key]) for module in MODULES)
        env = {'HOMEFLARE_PROXMOX_EXECUTION': 'module'} if self.path == 'module' else None
        if self.path == 'declare':
            objects = dict((module, [args]) for module, args in declarations.items())
            run = self.playbook([{'name': 'Declare all', 'homeflare.proxmox.declare': {'objects': objects}}],
                                check=check, diff=diff)
            assert run.rc == 0, run
            task = run.result()
            results = dict((entry['module'], entry) for entry in task['results'])
            module_of = dict((entry['name'], entry['module']) for entry in task['results'])
            diffs = dict((module_of[entry['before_header']], entry) for entry in task.get('diff', []))
            outcome = {}
            for module in MODULES:
                entry = results[module]
                outcome[module] = dict(changed=entry['plan']['action'] != 'none', plan=entry['plan'],
                                       object=entry['object'], diff=diffs.get(module))
            outcome['_task'] = task
        else:
            tasks = [{'name': module, 'homeflare.proxmox.%s' % module: declarations[module]} for module in MODULES]
            run = self.playbook(tasks, check=check, diff=diff, env=env)
            assert run.rc == 0, run
            outcome = dict((line['task'], line['result']) for line in run.results)
        return run, outcome


# On the oldest and newest ansible-core, the controller and declare paths; the module path is covered there
# by test_paths.py's compat test.
@pytest.mark.parametrize('path', [pytest.param(path, marks=pytest.mark.compat) if path != 'module' else path
                                  for path in PATHS])
def test_matrix(sim, playbook, path):
    api(sim, SETUP)
    matrix = Matrix(sim, playbook, path)

    # 1. check-mode create writes nothing and says create
    run, outcome = matrix.run('args', check=True, diff=True)
    for module in MODULES:
        assert outcome[module]['changed'] is True, module
        assert outcome[module]['plan']['action'] == 'create', module
    assert sim.writes() == []

    # 2. create: one write per object
    run, outcome = matrix.run('args')
    for module in MODULES:
        assert outcome[module]['changed'] is True, module
        assert len(of(module, sim.writes())) == 1, (module, sim.writes())

    # 3. re-run: adopted, zero writes, one GET per object (declare: one list GET per family)
    run, outcome = matrix.run('args')
    for module in MODULES:
        assert outcome[module]['changed'] is False, module
        assert outcome[module]['plan'] == {'read': 'found', 'action': 'none', 'changed': []}, module
        assert len([entry for entry in of(module, sim.log) if entry['method'] == 'GET']) == 1, (module, sim.log)
    assert sim.writes() == []
    if path == 'declare':
        assert len(sim.log) == len(MODULES)

    # 4. drift behind the module's back
    for module in MODULES:
        api(sim, FAMILIES[module]['drift'])

    # 5. --check --diff names exactly the drifted fields and writes nothing
    run, outcome = matrix.run('args', check=True, diff=True)
    for module in MODULES:
        drifted = sorted(FAMILIES[module]['drifted'])
        result = outcome[module]
        assert result['changed'] is True, module
        assert result['plan']['action'] == 'update', module
        assert sorted(result['plan']['changed']) == drifted, module
        before, after = result['diff']['before'], result['diff']['after']
        assert sorted(key for key in after if before.get(key) != after[key]) == drifted, module
    for field in set().union(*(FAMILIES[module]['drifted'] for module in MODULES)):
        assert field in run.output, 'the --diff output must show %s' % field
    assert sim.writes() == []

    # 6. a real run repairs with exactly one write per object, carrying the drifted fields
    run, outcome = matrix.run('args')
    for module in MODULES:
        assert outcome[module]['changed'] is True, module
        written = of(module, sim.writes())
        assert len(written) == 1, (module, written)
        sent = set(written[0]['form']) | set(str(written[0]['form'].get('delete', '')).split(','))
        assert set(FAMILIES[module]['drifted'].values()) <= sent, (module, written)
    if reconfirms(path):
        run, outcome = matrix.run('args')
        assert not any(outcome[module]['changed'] for module in MODULES)
        assert sim.writes() == []

    # 7. state=absent removes, 8. again is a no-op
    run, outcome = matrix.run('absent')
    for module in MODULES:
        assert outcome[module]['changed'] is True and outcome[module]['plan']['action'] == 'delete', module
        assert len(of(module, sim.writes())) == 1, module
    if reconfirms(path):
        run, outcome = matrix.run('absent')
        for module in MODULES:
            assert outcome[module]['changed'] is False and outcome[module]['object'] == {}, module
        assert sim.writes() == []
