"""Pool membership (issue 25), declared on the guest (``lxc``/``vm`` option ``pool``) or on the pool (``pool``
option ``members``), through real ansible-playbook runs.

On the guest: compared with the pool the cluster's resource list shows, planned in check mode with nothing written,
joined with one PUT /pools, adopted with zero writes, a move made by hand named ``pool`` and undone with one write
(``allow-move``), left with ``pool: ''`` (one write, ``delete=1``); a new guest joins its pool through its create.
On the pool: the declared guests and storages must be members (one PUT after the create), a member added by hand
is no drift unless ``exclusive`` (then removed with one ``delete=1`` write), a member removed by hand is added back,
and a member that does not exist is refused before any write. ``declare`` refuses a guest declared in both places.
``BAD_INPUT`` (module, args, the option the message names) runs in test_bad_input's corpus, on both paths.
"""

import pytest

from conftest import EXECUTION_PATHS, connection
from test_matrix import api

POOLS = [('POST', '/pools', {'poolid': 'lab'}), ('POST', '/pools', {'poolid': 'prod'})]
GUESTS = [('POST', '/nodes/node1/qemu', {'vmid': 150, 'name': 'pooled', 'scsi0': 'local-lvm:1', 'memory': 512}),
          ('POST', '/nodes/node1/qemu', {'vmid': 151, 'name': 'other', 'scsi0': 'local-lvm:1', 'memory': 512})]
VM = {'node': 'node1', 'vmid': 150, 'name': 'pooled'}

BAD_INPUT = [
    ('vm', dict(VM, pool='bad pool!'), 'pool'),
    ('lxc', {'node': 'node1', 'vmid': 160, 'pool': 'a/b/c/d'}, 'pool'),
    ('pool', {'poolid': 'lab', 'members': {'vms': [5]}}, 'members'),
    ('pool', {'poolid': 'lab', 'members': {'guests': [150]}}, 'members'),
    ('pool', {'poolid': 'lab', 'members': {'storage': ['bad id!']}}, 'members'),
]


def writes(sim):
    return [(entry['method'], entry['path'], entry['form']) for entry in sim.writes()]


def pool_of(sim, vmid):
    with sim.state.lock:
        return [poolid for poolid, pool in sim.state.pools.items() if str(vmid) in pool['vms']]


def run_task(sim, playbook, path, module, args, check=False, diff=False, ignore=False):
    sim.clear_log()
    task = {'name': module, 'homeflare.proxmox.%s' % module: dict(args, **connection(sim))}
    if ignore:
        task['ignore_errors'] = True
    run = playbook([task], check=check, diff=diff, env=EXECUTION_PATHS[path])
    assert ignore or run.rc == 0, [line['result'].get('msg') for line in run.failed]
    return run.result()


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_guests_pool_is_compared_joined_moved_back_and_left(sim, playbook, path):
    api(sim, POOLS + GUESTS)
    result = run_task(sim, playbook, path, 'vm', dict(VM, pool='lab'), check=True, diff=True)
    assert result['changed'] and result['plan']['changed'] == ['pool'], result
    assert result['diff']['before']['pool'] == '' and result['diff']['after']['pool'] == 'lab'
    assert writes(sim) == []

    result = run_task(sim, playbook, path, 'vm', dict(VM, pool='lab'))
    assert writes(sim) == [('PUT', '/pools', {'poolid': 'lab', 'vms': '150'})]
    assert pool_of(sim, 150) == ['lab'] and result['object']['pool'] == 'lab'

    result = run_task(sim, playbook, path, 'vm', dict(VM, pool='lab'))
    assert not result['changed'] and writes(sim) == []

    # moved by hand: named, and moved back with one write
    api(sim, [('PUT', '/pools', {'poolid': 'prod', 'vms': '150', 'allow-move': 1})])
    result = run_task(sim, playbook, path, 'vm', dict(VM, pool='lab'), check=True, diff=True)
    assert result['plan']['changed'] == ['pool'] and result['diff']['before']['pool'] == 'prod', result
    assert writes(sim) == []
    run_task(sim, playbook, path, 'vm', dict(VM, pool='lab'))
    assert writes(sim) == [('PUT', '/pools', {'poolid': 'lab', 'vms': '150', 'allow-move': '1'})]
    assert pool_of(sim, 150) == ['lab']

    # pool: '' leaves it
    run_task(sim, playbook, path, 'vm', dict(VM, pool=''))
    assert writes(sim) == [('PUT', '/pools', {'poolid': 'lab', 'vms': '150', 'delete': '1'})]
    assert pool_of(sim, 150) == []


def test_a_new_guest_joins_its_pool_through_its_create_and_an_undeclared_pool_is_not_read(sim, playbook):
    api(sim, POOLS)
    container = {'node': 'node1', 'vmid': 160, 'hostname': 'ct1', 'ostemplate':
                 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst', 'rootfs': 'local-lvm:2', 'pool': 'prod'}
    run_task(sim, playbook, 'controller', 'lxc', container)
    assert [(method, path, form.get('pool')) for method, path, form in writes(sim)] == [
        ('POST', '/nodes/node1/lxc', 'prod')]
    assert pool_of(sim, 160) == ['prod']
    result = run_task(sim, playbook, 'controller', 'lxc', container)
    assert not result['changed'] and writes(sim) == []
    # undeclared, the pool is neither read nor compared: one read of the config
    undeclared = dict((key, value) for key, value in container.items() if key != 'pool')
    run_task(sim, playbook, 'controller', 'lxc', undeclared)
    assert [entry['path'] for entry in sim.log] == ['/nodes/node1/lxc/160/pending']


# module_utils' code on both paths: the module path is sampled by this module's other matrix test
@pytest.mark.parametrize('path', ['controller'])
def test_a_pools_members_are_added_kept_and_made_exclusive(sim, playbook, path):
    api(sim, GUESTS)
    pool = {'poolid': 'lab', 'comment': 'Lab', 'members': {'vms': [150], 'storage': ['local']}}
    result = run_task(sim, playbook, path, 'pool', pool, check=True)
    assert result['plan']['action'] == 'create' and 'members' in result['plan']['changed'], result
    assert writes(sim) == []

    result = run_task(sim, playbook, path, 'pool', pool)
    assert writes(sim) == [('POST', '/pools', {'poolid': 'lab', 'comment': 'Lab'}),
                           ('PUT', '/pools', {'poolid': 'lab', 'vms': '150', 'storage': 'local', 'allow-move': '1'})]
    assert result['object']['members'] == {'vms': [150], 'storage': ['local']}

    result = run_task(sim, playbook, path, 'pool', pool)
    assert not result['changed'] and writes(sim) == []

    # another guest added by hand: not drift, unless the members are exclusive
    api(sim, [('PUT', '/pools', {'poolid': 'lab', 'vms': '151'})])
    result = run_task(sim, playbook, path, 'pool', pool)
    assert not result['changed'] and writes(sim) == []
    exclusive = dict(pool, members=dict(pool['members'], exclusive=True))
    result = run_task(sim, playbook, path, 'pool', exclusive, check=True, diff=True)
    assert result['plan']['changed'] == ['members'], result
    assert result['diff']['before']['members']['vms'] == ['150', '151']
    assert writes(sim) == []
    run_task(sim, playbook, path, 'pool', exclusive)
    assert writes(sim) == [('PUT', '/pools', {'poolid': 'lab', 'vms': '151', 'delete': '1'})]
    assert pool_of(sim, 151) == []

    # a declared member removed by hand is added back with one write
    api(sim, [('PUT', '/pools', {'poolid': 'lab', 'storage': 'local', 'delete': 1})])
    result = run_task(sim, playbook, path, 'pool', exclusive)
    assert result['plan']['changed'] == ['members']
    assert writes(sim) == [('PUT', '/pools', {'poolid': 'lab', 'storage': 'local'})]


def test_a_member_that_does_not_exist_is_refused_before_any_write(sim, playbook):
    api(sim, POOLS)
    for members, words in (({'vms': [999]}, 'guest 999 is not in the cluster'),
                           ({'storage': ['nowhere']}, 'storage nowhere does not exist')):
        result = run_task(sim, playbook, 'controller', 'pool', {'poolid': 'lab', 'members': members}, ignore=True)
        assert words in result['msg'] and 'Nothing was written' in result['msg'], result
        assert writes(sim) == []


def test_declare_refuses_a_guest_declared_in_its_pool_and_with_a_pool_of_its_own(sim, playbook):
    api(sim, POOLS + GUESTS)
    objects = {'pool': [{'poolid': 'lab', 'members': {'vms': [150]}}], 'vm': [dict(VM, pool='prod')]}
    sim.clear_log()
    run = playbook([{'name': 'both', 'homeflare.proxmox.declare': dict(objects=objects, **connection(sim)),
                     'ignore_errors': True}])
    message = run.result()['msg']
    assert 'objects.pool[0]: option members: guest 150' in message and 'objects.vm[0]' in message, message
    assert sim.log == []

    # each in one place: the pool's members read from the pool itself (its list has no members), zero writes after
    objects = {'pool': [{'poolid': 'lab', 'members': {'vms': [150]}}], 'vm': [dict(VM, vmid=151, name='other',
                                                                                   pool='prod')]}
    for expected in ([('PUT', '/pools', {'poolid': 'lab', 'vms': '150', 'allow-move': '1'}),
                      ('PUT', '/pools', {'poolid': 'prod', 'vms': '151'})], []):
        sim.clear_log()
        run = playbook([{'name': 'declare', 'homeflare.proxmox.declare': dict(objects=objects, **connection(sim))}])
        assert run.rc == 0, run
        assert writes(sim) == expected
    assert pool_of(sim, 150) == ['lab'] and pool_of(sim, 151) == ['prod']
