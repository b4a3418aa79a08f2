"""Nested pools (lab/web) through their whole life, on both execution paths, as PVE 8.1+ addresses them:
GET, PUT and DELETE /pools?poolid= (pve-manager PVE/API2/Pool.pm), never the deprecated /pools/{poolid}."""

import pytest

from conftest import EXECUTION_PATHS

POOLS = [{'poolid': 'lab', 'comment': 'Lab'}, {'poolid': 'lab/web', 'comment': 'Web tier'}]


def pool_tasks(pools, **extra):
    return [dict({'name': pool['poolid'], 'homeflare.proxmox.pool': pool}, **extra) for pool in pools]


# The store is module_utils' (the same on both paths); the module path is sampled by the matrix's pool row.
@pytest.mark.parametrize('path', ['controller'])
def test_a_nested_pool_is_created_adopted_and_removed(sim, playbook, path):
    env = EXECUTION_PATHS[path]

    # check mode plans both creates and writes nothing
    run = playbook(pool_tasks(POOLS), check=True, diff=True, env=env)
    assert run.rc == 0, run
    assert [line['result']['plan']['action'] for line in run.results] == ['create', 'create']
    assert sim.writes() == []

    # create both; the parent cannot be removed while it has a child; a level not starting with a letter is refused
    run = playbook(pool_tasks(POOLS) + [
        {'name': 'parent', 'homeflare.proxmox.pool': {'poolid': 'lab', 'state': 'absent'}, 'ignore_errors': True},
        {'name': 'digit', 'homeflare.proxmox.pool': {'poolid': 'lab/9web'}, 'ignore_errors': True},
    ], env=env)
    results = dict((line['task'], line) for line in run.results)
    assert results['lab/web']['result']['changed'] is True, run
    assert "pool 'lab' is not empty (contains pool 'lab/web')" in results['parent']['result']['msg'], run
    assert "option poolid: pool 'lab/9web': pool name must start with a letter" in results['digit']['result']['msg']
    assert [(entry['method'], entry['path'], entry['form']) for entry in sim.writes()] == [
        ('POST', '/pools', {'poolid': 'lab', 'comment': 'Lab'}),
        ('POST', '/pools', {'poolid': 'lab/web', 'comment': 'Web tier'}),
        ('DELETE', '/pools', {'poolid': 'lab'})]  # refused by PVE: lab is still there
    assert sorted(sim.state.pools) == ['lab', 'lab/web']

    # re-run: adopted, one read each, zero writes
    sim.clear_log()
    run = playbook(pool_tasks(POOLS), env=env)
    assert run.rc == 0, run
    assert [line['result']['plan'] for line in run.results] == [{'read': 'found', 'action': 'none', 'changed': []}] * 2
    assert [(entry['method'], entry['path'], entry['form']) for entry in sim.log] == [
        ('GET', '/pools', {'poolid': 'lab'}), ('GET', '/pools', {'poolid': 'lab/web'})]

    # drift on the child is named and repaired with one write
    assert sim.request('PUT', '/pools', {'poolid': 'lab/web', 'comment': 'edited in the UI'})[0] == 200
    sim.clear_log()
    run = playbook(pool_tasks(POOLS[1:]), diff=True, env=env)
    assert run.rc == 0, run
    assert run.result()['plan']['changed'] == ['comment']
    assert run.result()['diff']['before']['comment'] == 'edited in the UI'
    assert [(entry['method'], entry['path'], entry['form']) for entry in sim.writes()] == [
        ('PUT', '/pools', {'poolid': 'lab/web', 'comment': 'Web tier'})]

    # the child, then the parent; again is a no-op
    gone = [{'poolid': 'lab/web', 'state': 'absent'}, {'poolid': 'lab', 'state': 'absent'}]
    run = playbook(pool_tasks(gone) + pool_tasks(gone[:1], name='again'), env=env)
    assert run.rc == 0, run
    assert [line['result']['changed'] for line in run.results] == [True, True, False]
    assert sim.state.pools == {}
