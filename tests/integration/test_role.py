"""The cluster role applies a whole declaration in dependency order, and adopts it on the second run."""

import os

import pytest
import yaml


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def demo_vars():
    with open(os.path.join(REPO, 'examples', 'demo.yml')) as handle:
        return yaml.safe_load(handle)[0]['vars']


def role_task(variables):
    return {'name': 'Apply the declaration', 'ansible.builtin.include_role': {'name': 'homeflare.proxmox.cluster'},
            'vars': variables}


@pytest.mark.parametrize('where', ['play module_defaults', 'cluster_connection'])
def test_role_applies_in_order_then_adopts(sim, sim_connection, playbook, where):
    variables = demo_vars()
    defaults = None
    if where == 'cluster_connection':
        variables['cluster_connection'] = sim_connection
        defaults = {}
    variables['cluster_storages'][0]['password'] = 'RoleStoragePassw0rd'
    variables['cluster_storages'][0]['type'] = 'cifs'
    variables['cluster_storages'][0].update(server='nas.invalid', share='backup', username='pve')
    del variables['cluster_storages'][0]['path']
    first = playbook([role_task(variables)], verbosity=3, defaults=defaults)
    assert first.rc == 0, first
    assert 'RoleStoragePassw0rd' not in first.output
    # the container's firewall after the container, its alias before the rules naming it, the options last
    firewall = '/nodes/node1/lxc/200/firewall'
    assert [entry['path'] for entry in sim.writes()] == [
        '/access/roles', '/access/groups', '/pools', '/access/users', '/storage', '/access/acl', '/nodes/node1/lxc',
        firewall + '/aliases', firewall + '/rules', firewall + '/rules', firewall + '/options']
    assert sim.state.guests[200]['config']['hostname'] == 'lab-web' and '200' in sim.state.pools['lab']['vms']
    sim.clear_log()
    second = playbook([role_task(variables)], defaults=defaults)
    assert second.rc == 0, second
    assert sim.writes() == []
    declared = [line['result'] for line in second.results if 'summary' in line['result']]
    assert [result['changed'] for result in declared] == [False]
    assert second.results[-1]['result']['summary']['matched'] == 10


def test_role_gate_fails_a_check_run_on_drift(sim, sim_connection, playbook):
    variables = demo_vars()
    assert playbook([role_task(variables)]).rc == 0
    assert sim.request('PUT', '/pools/lab', {'comment': 'edited in the UI'})[0] == 200
    assert sim.request('POST', '/nodes/node1/lxc/200/firewall/rules', {'type': 'in', 'action': 'DROP'})[0] == 200
    sim.clear_log()
    variables['cluster_fail_on_drift'] = True
    run = playbook([role_task(variables)], check=True)
    assert run.rc != 0
    assert run.failed[0]['result']['msg'] == (
        "2 of 10 objects differ from the declaration: pool 'lab' (update: comment); "
        "firewall rules of guest 200 on node1 (update: rules)")
    assert sim.writes() == []
