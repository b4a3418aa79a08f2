"""The HA families (ha_resource, ha_rule) through real ansible-playbook runs, on both execution paths.

One play per step holds both families, the HA resources before the rules that name them (PVE refuses a rule
naming a guest that is not an HA resource) and, for state=absent, the rules first (removing a resource strips
it from every rule and deletes the rules left empty). The guests the resources put under HA are seeded into
the simulator (``GUESTS``): no API creates them here.

``MATRIX``, ``SETUP`` and ``BAD_INPUT`` have the shapes of test_matrix.FAMILIES / SETUP and
test_bad_input.CORPUS; the connection goes with every task until the modules join the action group.
"""

import pytest

from conftest import EXECUTION_PATHS, connection
from test_matrix import api

# Guests known to the cluster (sim.state.guests): VM 100 and container 101.
GUESTS = {100: {'type': 'qemu', 'node': 'node1', 'status': 'stopped', 'name': 'web'},
          101: {'type': 'lxc', 'node': 'node2', 'status': 'running', 'name': 'cache'}}
# Nothing else has to exist before the declarations: no API call makes a guest.
SETUP = []

# In dependency order: a rule names HA resources.
MATRIX = {
    'ha_resource': dict(
        prefix='/cluster/ha/resources',
        args={'sid': 'vm:100', 'comment': 'Web front end', 'max_restart': 2},
        # Stopped by hand and its restarts raised: both are repaired (undeclared hastate means started).
        drift=[('PUT', '/cluster/ha/resources/vm:100', {'state': 'stopped', 'max_restart': '3'})],
        drifted={'hastate': 'state', 'max_restart': 'max_restart'},
        absent={'sid': 'vm:100', 'state': 'absent'},
    ),
    'ha_rule': dict(
        prefix='/cluster/ha/rules',
        # Declared as PVE will not store them: nodes out of order with a :0 priority, a %XX in the comment.
        args={'rule': 'web-pin', 'type': 'node-affinity', 'resources': ['vm:100'], 'nodes': ['node2:0', 'node1:2'],
              'comment': 'Web on node1%2C then node2'},
        # Disabled and re-pinned by hand: enabling it again takes delete=disable (PVE drops disable=0).
        drift=[('PUT', '/cluster/ha/rules/web-pin', {'type': 'node-affinity', 'disable': '1', 'nodes': 'node3'})],
        drifted={'disable': 'disable', 'nodes': 'nodes'},
        absent={'rule': 'web-pin', 'state': 'absent'},
    ),
}
MODULES = ['ha_resource', 'ha_rule']

RULE = {'rule': 'web-pin', 'type': 'node-affinity', 'resources': ['vm:100'], 'nodes': ['node1']}
APART = {'rule': 'apart', 'type': 'resource-affinity', 'resources': ['vm:100', 'ct:101'], 'affinity': 'negative'}


def rule(**changes):
    return dict(RULE, **changes)


def apart(**changes):
    return dict(APART, **changes)


def without(args, option):
    return dict((key, value) for key, value in args.items() if key != option)


BAD_INPUT = [
    # ha_resource
    ('ha_resource', {'sid': '100'}, 'sid'),
    ('ha_resource', {'sid': 'qemu:100'}, 'sid'),
    ('ha_resource', {'sid': 'vm:abc'}, 'sid'),
    ('ha_resource', {'sid': ''}, 'sid'),
    ('ha_resource', {'sid': 'vm:100', 'hastate': 'enabled'}, 'hastate'),
    ('ha_resource', {'sid': 'vm:100', 'hastate': 'running'}, 'hastate'),
    ('ha_resource', {'sid': 'vm:100', 'max_restart': -1}, 'max_restart'),
    ('ha_resource', {'sid': 'vm:100', 'max_relocate': 'often'}, 'max_relocate'),
    ('ha_resource', {'sid': 'vm:100', 'comment': 'x' * 4097}, 'comment'),
    ('ha_resource', {'sid': 'vm:100', 'group': 'prefer-node1'}, 'group'),
    ('ha_resource', {'sid': 'vm:100', 'type': 'vm'}, 'type'),
    # ha_rule
    ('ha_rule', without(RULE, 'type'), 'type'),
    ('ha_rule', without(RULE, 'nodes'), 'nodes'),
    ('ha_rule', rule(type='location'), 'type'),
    ('ha_rule', rule(rule='1web'), 'rule'),
    ('ha_rule', rule(resources=[]), 'resources'),
    ('ha_rule', rule(resources=['100']), 'resources'),
    ('ha_rule', rule(resources=['vm:100', 'ha:web']), 'resources'),
    ('ha_rule', rule(nodes=[]), 'nodes'),
    ('ha_rule', rule(nodes=['node1:high']), 'nodes'),
    ('ha_rule', rule(nodes=['node_1']), 'nodes'),
    ('ha_rule', rule(affinity='positive'), 'affinity'),
    ('ha_rule', without(APART, 'affinity'), 'affinity'),
    ('ha_rule', apart(affinity='apart'), 'affinity'),
    ('ha_rule', apart(nodes=['node1']), 'nodes'),
    ('ha_rule', apart(strict=True), 'strict'),
    ('ha_rule', rule(comment='x' * 4097), 'comment'),
    ('ha_rule', rule(disable='sometimes'), 'disable'),
]


@pytest.fixture
def guests(sim):
    with sim.state.lock:
        sim.state.guests.update((vmid, dict(guest)) for vmid, guest in GUESTS.items())


def of(module, entries):
    prefix = MATRIX[module]['prefix']
    return [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]


def task(sim, module, args, name=None, **extra):
    return dict({'name': name or module, 'homeflare.proxmox.%s' % module: dict(args, **connection(sim))}, **extra)


def step(sim, playbook, path, args_key, check=False, diff=False, verbosity=0):
    """One play over both families (reverse order for state=absent); results by module."""
    modules = MODULES[::-1] if args_key == 'absent' else MODULES
    sim.clear_log()
    run = playbook([task(sim, module, MATRIX[module][args_key]) for module in modules],
                   check=check, diff=diff, env=EXECUTION_PATHS[path], verbosity=verbosity)
    assert run.rc == 0, run
    return run, dict((line['task'], line['result']) for line in run.results)


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_the_ha_families_lifecycle(sim, playbook, guests, path):
    api(sim, SETUP)

    # 1. check-mode create writes nothing and says create (the rule too: its resource is not there yet)
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        assert outcome[module]['changed'] is True, module
        assert outcome[module]['plan']['action'] == 'create', module
    assert sim.writes() == []

    # 2. create: one write per object, the resource before the rule
    run, outcome = step(sim, playbook, path, 'args')
    assert [entry['path'] for entry in sim.writes()] == ['/cluster/ha/resources', '/cluster/ha/rules']
    assert outcome['ha_rule']['object']['nodes'] == ['node1:2', 'node2']
    assert outcome['ha_rule']['object']['comment'] == 'Web on node1, then node2'
    assert outcome['ha_rule']['object']['errors'] == {}
    assert outcome['ha_resource']['object'] == {'sid': 'vm:100', 'hastate': 'started', 'comment': 'Web front end',
                                                'max_restart': 2, 'max_relocate': 1, 'failback': True}
    assert sim.state.guests[100]['status'] == 'running'

    # 3. re-run: adopted, zero writes, one GET per object
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['changed'] is False, module
        assert outcome[module]['plan'] == {'read': 'found', 'action': 'none', 'changed': []}, module
        assert [entry['method'] for entry in of(module, sim.log)] == ['GET'], module

    # 4. drift behind the modules' back; 5. --check --diff names exactly the drifted fields
    for module in MODULES:
        api(sim, MATRIX[module]['drift'])
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        drifted = sorted(MATRIX[module]['drifted'])
        result = outcome[module]
        assert result['plan']['action'] == 'update' and sorted(result['plan']['changed']) == drifted, module
        before, after = result['diff']['before'], result['diff']['after']
        assert sorted(key for key in after if before.get(key) != after[key]) == drifted, module
    for field in ('hastate', 'max_restart', 'disable', 'nodes'):
        assert field in run.output
    assert sim.writes() == []

    # 6. a real run repairs with one write per object; the rule is enabled again by delete=disable
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        written = of(module, sim.writes())
        assert len(written) == 1, (module, written)
        sent = set(written[0]['form']) | set(str(written[0]['form'].get('delete', '')).split(','))
        assert set(MATRIX[module]['drifted'].values()) <= sent, (module, written)
    rule_form = of('ha_rule', sim.writes())[0]['form']
    assert rule_form['delete'] == 'disable' and 'disable' not in rule_form
    assert rule_form['type'] == 'node-affinity'  # create-only, yet PVE wants it on every update
    assert sim.state.guests[100]['status'] == 'running'
    run, outcome = step(sim, playbook, path, 'args')
    assert not any(outcome[module]['changed'] for module in MODULES)
    assert sim.writes() == []

    # 7. state=absent, the rule first; 8. again a no-op
    run, outcome = step(sim, playbook, path, 'absent')
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [
        ('DELETE', '/cluster/ha/rules/web-pin'), ('DELETE', '/cluster/ha/resources/vm:100')]
    for module in MODULES:
        assert outcome[module]['plan']['action'] == 'delete', module
    assert sim.state.guests[100]['status'] == 'running'  # taking a guest out of HA does not stop it
    run, outcome = step(sim, playbook, path, 'absent')
    for module in MODULES:
        assert outcome[module]['changed'] is False and outcome[module]['object'] == {}, module
    assert sim.writes() == []


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_what_pve_refuses_fails_with_its_reason_and_writes_nothing_else(sim, playbook, guests, path):
    # A live rule of the other type is not replaced: the plan fails naming both types.
    api(sim, [('POST', '/cluster/ha/resources', {'sid': 'vm:100'}),
              ('POST', '/cluster/ha/resources', {'sid': 'ct:101'}),
              ('POST', '/cluster/ha/rules', {'rule': 'web-pin', 'type': 'resource-affinity', 'affinity': 'positive',
                                             'resources': 'vm:100,ct:101'})])
    sim.clear_log()
    run = playbook([task(sim, 'ha_rule', RULE, name='other type', ignore_errors=True),
                    task(sim, 'ha_rule', apart(resources=['vm:100', 'ct:102']), name='unmanaged',
                         ignore_errors=True)],
                   env=EXECUTION_PATHS[path])
    assert [line['status'] for line in run.results] == ['failed', 'failed'], run
    other, unmanaged = (line['result']['msg'] for line in run.results)
    assert 'resource-affinity' in other and 'node-affinity' in other and 'Nothing was written' in other, other
    # A rule naming a guest that is not an HA resource: PVE's own refusal (declare the resource first).
    assert 'cannot use unmanaged resource(s) ct:102' in unmanaged, unmanaged
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [('POST', '/cluster/ha/rules')]
    assert sim.state.ha_rules['web-pin']['type'] == 'resource-affinity'


def test_removing_an_ha_resource_first_purges_its_rules(sim, playbook, guests):
    api(sim, [('POST', '/cluster/ha/resources', {'sid': 'vm:100'})])
    run = playbook([task(sim, 'ha_rule', RULE), task(sim, 'ha_resource', {'sid': 'vm:100', 'state': 'absent'}),
                    task(sim, 'ha_rule', dict(RULE, state='absent'), name='rule gone')])
    assert run.rc == 0, run
    # PVE's purge=1 took the rule with the resource: nothing is left for the rule's own removal
    assert run.results[-1]['result']['plan'] == {'read': 'absent', 'action': 'none', 'changed': []}
    assert 'purge' not in sim.writes()[1]['form']


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_the_token_secret_never_shows_at_vvv(sim, playbook, guests, path):
    run, _outcome = step(sim, playbook, path, 'args', diff=True, verbosity=3)
    assert sim.token_secret not in run.output
    assert sim.token_secret not in repr(run.results)
