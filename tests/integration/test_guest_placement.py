"""Placement (issue 25) through real ansible-playbook runs: a guest declared on one node that lives on another.

A guest moved behind Ansible's back (through the API, or in the simulator's state) is found through the cluster's
resource list and judged where it lives, with zero writes and a warning naming both nodes; drift there is written
there. ``migrate: true`` moves it to the declared node in one migration, before the rest is written on that node;
check mode plans the move and writes nothing; an HA-managed guest goes through HA's migrate; a migration whose
answer is lost fails as MaybeApplied, is sent once, and the next run finds the guest moved.
"""

import time

import pytest

from conftest import EXECUTION_PATHS, connection
from test_guest_families import config, play

from simulator.pve.handlers.guests import add_guest

CT = {'hostname': 'web1', 'ostype': 'debian', 'memory': '512', 'rootfs': 'local-lvm:4',
      'net0': 'name=eth0,bridge=vmbr0,ip=dhcp'}
VM = {'name': 'db1', 'cores': '2', 'memory': '1024', 'scsi0': 'local-lvm:8', 'net0': 'virtio,bridge=vmbr0'}
WEB1 = {'node': 'node1', 'vmid': 201, 'hostname': 'web1', 'memory': 512}
DB1 = {'node': 'node1', 'vmid': 202, 'name': 'db1', 'cores': 2}


def seed(sim):
    """web1 (a stopped container) and db1 (a running VM), both made on node1."""
    add_guest(sim.state, 'lxc', 201, 'node1', config=CT)
    add_guest(sim.state, 'qemu', 202, 'node1', config=VM, status='running')


def node_of(sim, vmid):
    with sim.state.lock:
        return sim.state.guests[vmid]['node']


def guests(**extra):
    return [('web1', 'lxc', dict(WEB1, **extra)), ('db1', 'vm', dict(DB1, **extra))]


def moved_away(sim):
    """db1 migrated to node2 through the API (online, its disks along), web1 moved to node3 in the state."""
    status, body = sim.request('POST', '/nodes/node1/qemu/202/migrate',
                               {'target': 'node2', 'online': 1, 'with-local-disks': 1})
    assert status == 200, body
    with sim.state.lock:
        sim.state.guests[201]['node'] = 'node3'
    assert (node_of(sim, 201), node_of(sim, 202)) == ('node3', 'node2')


def ok(results, name):
    line = results[name]
    assert line['status'] == 'ok', (name, line['result'].get('msg'))
    return line['result']


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_moved_guest_is_judged_where_it_lives_and_migrate_true_moves_it_back_once(sim, playbook, path):
    seed(sim)
    moved_away(sim)

    # judged where it lives: nothing written, a warning naming both nodes, the object where it is
    run, results = play(sim, playbook, path, guests())
    assert sim.writes() == []
    for name, vmid, there in (('web1', 201, 'node3'), ('db1', 202, 'node2')):
        result = ok(results, name)
        assert result['changed'] is False and result['object']['node'] == there, result
        assert any('%s is declared on node1 but lives on %s' % (vmid, there) in warning
                   for warning in result['warnings']), result['warnings']

    # check mode plans the move (and, once moved, the drift made on node2 meanwhile) and writes nothing
    status, body = sim.request('PUT', '/nodes/node2/qemu/202/config', {'cores': '4'})
    assert status == 200, body
    run, results = play(sim, playbook, path, guests(migrate=True), check=True, diff=True)
    assert sim.writes() == []
    web1, db1 = ok(results, 'web1'), ok(results, 'db1')
    assert web1['plan']['migrate'] == {'from': 'node3', 'to': 'node1', 'mode': 'offline'}, web1['plan']
    assert db1['plan']['migrate'] == {'from': 'node2', 'to': 'node1', 'mode': 'online'}, db1['plan']
    assert db1['plan']['action'] == 'update' and db1['plan']['changed'] == ['node', 'cores'], db1['plan']
    assert (db1['diff']['before']['node'], db1['diff']['after']['node']) == ('node2', 'node1')

    # migrate: true - one migration each, then the rest written on the declared node
    run, results = play(sim, playbook, path, guests(migrate=True))
    written = [(entry['method'], entry['path'], entry['form']) for entry in sim.writes()]
    assert sorted(written) == sorted([
        ('POST', '/nodes/node3/lxc/201/migrate', {'target': 'node1'}),
        ('POST', '/nodes/node2/qemu/202/migrate', {'target': 'node1', 'online': '1', 'with-local-disks': '1'}),
        ('PUT', '/nodes/node1/qemu/202/config', dict(written[-1][2], cores='2'))]), written
    assert written[-1][1] == '/nodes/node1/qemu/202/config'  # after the VM's migration
    for name in ('web1', 'db1'):
        result = ok(results, name)
        assert result['changed'] is True and result['plan']['migrate']['to'] == 'node1', result
        assert result['object']['node'] == 'node1' and result['tasks'], result
    assert (node_of(sim, 201), node_of(sim, 202)) == ('node1', 'node1')
    assert config(sim, 202)['cores'] == '2'
    with sim.state.lock:
        assert sim.state.guests[202]['status'] == 'running'  # online: it never stopped

    # converged: the re-run writes nothing
    run, results = play(sim, playbook, path, guests(migrate=True))
    assert sim.writes() == []
    assert all(ok(results, name)['changed'] is False for name in ('web1', 'db1'))


def test_an_ha_managed_guest_is_moved_through_ha_and_waited_for(sim, playbook):
    add_guest(sim.state, 'qemu', 203, 'node2', config=dict(VM, name='app1'), status='running')
    add_guest(sim.state, 'qemu', 204, 'node2', config=dict(VM, name='app2'))
    for sid in ('vm:203', 'vm:204'):
        status, body = sim.request('POST', '/cluster/ha/resources', {'sid': sid})
        assert status == 200, body
    with sim.state.lock:
        sim.state.nodes['node3']['online'] = 0  # the CRM ignores a request to an offline node
    run, results = play(sim, playbook, 'controller', [
        ('app1', 'vm', {'node': 'node1', 'vmid': 203, 'name': 'app1', 'migrate': True}),
        ('app2', 'vm', {'node': 'node3', 'vmid': 204, 'name': 'app2', 'migrate': True, 'task_timeout': 2})])
    stuck = results['app2']['result']
    assert results['app2']['status'] == 'failed' and stuck['error'] == 'NotConverged', stuck
    assert 'HA was asked to migrate vm:204 from node2 to node3, but after 2 s' in stuck['msg'], stuck['msg']
    result = ok(results, 'app1')
    assert [(entry['method'], entry['path'], entry['form']) for entry in sim.writes()] == [
        ('POST', '/cluster/ha/resources/vm:203/migrate', {'node': 'node1'}),
        ('POST', '/cluster/ha/resources/vm:204/migrate', {'node': 'node3'})]
    assert result['plan']['migrate'] == {'from': 'node2', 'to': 'node1', 'mode': 'ha'}, result['plan']
    assert result['object']['node'] == 'node1' and node_of(sim, 203) == 'node1'
    # the CRM moved it after HA answered: the module polled the resource list until it showed node1
    polls = [entry for entry in sim.log if entry['method'] == 'GET' and entry['path'] == '/cluster/resources']
    assert len(polls) >= 2, polls


def test_a_migration_whose_answer_is_lost_is_sent_once_and_the_next_run_finds_it_moved(sim, playbook):
    seed(sim)
    moved_away(sim)
    sim.before('POST', r'^/nodes/node2/qemu/202/migrate$', lambda params: time.sleep(3), times=1)
    db1 = dict(DB1, migrate=True, **dict(connection(sim), api_timeout=1))
    sim.clear_log()
    run = playbook([{'name': 'db1', 'homeflare.proxmox.vm': db1, 'ignore_errors': True}],
                   env=EXECUTION_PATHS['controller'])
    line = run.results[-1]
    assert line['status'] == 'failed' and line['result']['error'] == 'MaybeApplied', line['result']
    time.sleep(3)  # the silent migration lands
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [
        ('POST', '/nodes/node2/qemu/202/migrate')]
    assert node_of(sim, 202) == 'node1'
    run, results = play(sim, playbook, 'controller', [('db1', 'vm', dict(DB1, migrate=True))])
    result = ok(results, 'db1')
    assert result['changed'] is False and 'migrate' not in result['plan'] and sim.writes() == [], result


def test_through_declare_a_moved_guest_is_judged_where_it_lives_and_migrate_moves_it_back_once(sim, playbook):
    """The same in one declare task (the guests read at once): moved guests adopted with zero writes and a warning,
    then with migrate: true each moved back by one migration; again, nothing."""
    seed(sim)
    moved_away(sim)

    def declare(migrate=False):
        objects = {'lxc': [dict(WEB1, migrate=migrate)], 'vm': [dict(DB1, migrate=migrate)]}
        sim.clear_log()
        run = playbook([{'name': 'declare', 'homeflare.proxmox.declare': dict(objects=objects, **connection(sim))}])
        assert run.rc == 0, run
        return run.result()

    result = declare()
    assert not result['changed'] and sim.writes() == [], result
    assert any('201 is declared on node1 but lives on node3' in warning for warning in result['warnings']), result
    result = declare(migrate=True)
    assert [entry['path'] for entry in sim.writes()] == ['/nodes/node3/lxc/201/migrate',
                                                         '/nodes/node2/qemu/202/migrate']
    assert (node_of(sim, 201), node_of(sim, 202)) == ('node1', 'node1')
    result = declare(migrate=True)
    assert not result['changed'] and sim.writes() == []
