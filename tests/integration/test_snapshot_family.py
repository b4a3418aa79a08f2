"""Guest snapshots (issue 25): one snapshot of a VM or a container, by name, through real ansible-playbook runs on
both execution paths.

The matrix object is a snapshot of VM 150 with a description: planned in check mode with nothing written, taken
once (one task), adopted with zero writes, its description changed through the API named by ``--check --diff`` and
repaired by one PUT, removed only with ``confirm_removal``. The other tests prove the same declaration on a
container, ``keep`` pruning the oldest of a series (listed in check mode), ``rollback`` (confirmed, acting on every
run), the refusals (a vmid that is no guest, vmstate on a container, a name older than the series keeps), a guest
living on another node, and a failed snapshot task naming its UPID and the snapshot.

``MATRIX``, ``SETUP`` and ``BAD_INPUT`` have the shapes of test_matrix.FAMILIES / SETUP and test_bad_input.CORPUS.
"""

import pytest

from conftest import EXECUTION_PATHS, connection, reconfirms
from test_matrix import api, assert_drift_named

from simulator.pve.handlers.guests import add_guest, add_snapshot

VM_SNAPSHOTS = '/nodes/node1/qemu/150/snapshot'
SETUP = [('POST', '/nodes/node1/qemu', {'vmid': 150, 'name': 'snapvm', 'scsi0': 'local-lvm:1', 'memory': 1024})]
MATRIX = {
    'snapshot': dict(
        prefix=VM_SNAPSHOTS,
        args={'node': 'node1', 'vmid': 150, 'name': 'matrix', 'description': 'Before the matrix'},
        drift=[('PUT', VM_SNAPSHOTS + '/matrix/config', {'description': 'changed by hand'})],
        drifted={'description': 'description'},
        absent={'node': 'node1', 'vmid': 150, 'name': 'matrix', 'state': 'absent', 'confirm_removal': True},
    ),
}
MODULES = sorted(MATRIX)

VM = {'node': 'node1', 'vmid': 150}
BAD_INPUT = [
    ('snapshot', dict(VM, name='current'), 'name'),
    ('snapshot', dict(VM, name='9lives'), 'name'),
    ('snapshot', dict(VM, name='n' * 41), 'name'),
    ('snapshot', dict(VM, name='nightly-1', keep=0, prefix='nightly-'), 'keep'),
    ('snapshot', dict(VM, name='nightly-1', keep=3), 'prefix'),
    ('snapshot', dict(VM, name='weekly-1', keep=3, prefix='nightly-'), 'prefix'),
    ('snapshot', dict(VM, name='nightly-1', rollback=True), 'confirm_rollback'),
    ('snapshot', dict(VM, name='nightly-1', state='absent'), 'confirm_removal'),
]


def task(args, name=None, **extra):
    return dict({'name': name or 'snapshot', 'homeflare.proxmox.snapshot': args, 'ignore_errors': True}, **extra)


def defaults(sim):
    """The connection for this module too, until the action group lists it (meta/runtime.yml)."""
    return {'module_defaults': {'group/homeflare.proxmox.proxmox': connection(sim),
                                'homeflare.proxmox.snapshot': connection(sim)}}


def run_tasks(sim, playbook, tasks, path='controller', **kwargs):
    sim.clear_log()
    return playbook(tasks, env=EXECUTION_PATHS[path], play_extra=defaults(sim), **kwargs)


def step(sim, playbook, path, args, check=False, diff=False):
    run = run_tasks(sim, playbook, [task(args)], path, check=check, diff=diff)
    assert run.rc == 0 and not run.failed, run
    return run.result()


def listed(sim, typ='qemu', vmid=150, node='node1'):
    status, body = sim.request('GET', '/nodes/%s/%s/%d/snapshot' % (node, typ, vmid))
    assert status == 200, body
    return dict((row['name'], row) for row in body['data'] if row['name'] != 'current')


def calls(sim):
    return [(entry['method'], entry['path']) for entry in sim.writes()]


def by_task(run):
    return dict((line['task'], line) for line in run.results)


@pytest.fixture
def vm(sim):
    api(sim, SETUP)


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_snapshot_matrix(sim, playbook, vm, path):
    matrix = MATRIX['snapshot']

    # 1. check mode plans the snapshot and sends nothing
    result = step(sim, playbook, path, matrix['args'], check=True, diff=True)
    assert result['changed'] is True and result['plan']['action'] == 'create', result
    assert result['plan']['type'] == 'qemu' and result['diff']['after']['description'] == 'Before the matrix'
    assert sim.writes() == [] and 'matrix' not in listed(sim)

    # 2. taken once, its task waited for
    result = step(sim, playbook, path, matrix['args'])
    assert result['changed'] is True and calls(sim) == [('POST', VM_SNAPSHOTS)], sim.writes()
    assert sim.writes()[0]['form'].get('snapname') == 'matrix'
    assert listed(sim)['matrix']['description'] == 'Before the matrix'
    assert result['object']['type'] == 'qemu' and result['object']['snaptime'] > 0

    # 3. re-run: adopted, zero writes
    result = step(sim, playbook, path, matrix['args'])
    assert result['changed'] is False and result['plan']['action'] == 'none' and sim.writes() == [], result

    # 4. drift through the API; 5. --check --diff names it and writes nothing
    api(sim, matrix['drift'])
    result = step(sim, playbook, path, matrix['args'], check=True, diff=True)
    assert_drift_named(result, matrix['drifted'])
    assert result['diff']['before']['description'] == 'changed by hand' and sim.writes() == []

    # 6. the repair: one PUT of the description
    result = step(sim, playbook, path, matrix['args'])
    assert result['changed'] is True and calls(sim) == [('PUT', VM_SNAPSHOTS + '/matrix/config')], sim.writes()
    assert listed(sim)['matrix']['description'] == 'Before the matrix'
    if reconfirms(path):
        result = step(sim, playbook, path, matrix['args'])
        assert result['changed'] is False and sim.writes() == []

    # 7. removed with confirmation (one task), then nothing to do
    result = step(sim, playbook, path, matrix['absent'])
    assert result['changed'] is True and calls(sim) == [('DELETE', VM_SNAPSHOTS + '/matrix')]
    assert 'matrix' not in listed(sim)
    if reconfirms(path):
        result = step(sim, playbook, path, matrix['absent'])
        assert result['changed'] is False and sim.writes() == []


def test_the_same_declaration_takes_a_containers_snapshot(sim, playbook):
    """The type comes from the cluster's resource list: the container's snapshot goes to its lxc path, its
    description (read back with a newline) is adopted on the next run, and vmstate is refused for it before any
    write."""
    add_guest(sim.state, 'lxc', 151, 'node1', config={'hostname': 'ct151', 'rootfs': 'local-lvm:1'})
    args = {'node': 'node1', 'vmid': 151, 'name': 'before', 'description': 'line one\nline two'}
    run = run_tasks(sim, playbook, [task(args), task(args, name='again'),
                                    task(dict(args, name='ram', vmstate=True), name='vmstate')])
    lines = by_task(run)
    assert lines['snapshot']['result']['changed'] is True, lines['snapshot']
    assert lines['snapshot']['result']['object']['type'] == 'lxc'
    assert lines['again']['result']['changed'] is False, lines['again']
    refusal = lines['vmstate']
    assert refusal['status'] == 'failed' and 'vmstate' in refusal['result']['msg'], refusal
    assert 'container' in refusal['result']['msg']
    assert calls(sim) == [('POST', '/nodes/node1/lxc/151/snapshot')]
    assert listed(sim, 'lxc', 151)['before']['description'] == 'line one\nline two\n'


def test_keep_removes_the_oldest_of_the_series_and_check_mode_lists_them(sim, playbook, vm):
    for name, when in (('nightly-1', 1000), ('nightly-2', 2000), ('manual', 2500), ('nightly-3', 3000)):
        add_snapshot(sim.state, 150, name, snaptime=when)
    args = dict(VM, name='nightly-4', prefix='nightly-', keep=2)
    run = run_tasks(sim, playbook, [task(args, name='check', check_mode=True, diff=True), task(args),
                                    task(args, name='again'),
                                    task(dict(args, name='nightly-3', keep=1), name='older')])
    lines = by_task(run)
    check = lines['check']['result']
    assert check['changed'] is True and check['plan']['action'] == 'create', check
    assert check['plan']['remove'] == ['nightly-1', 'nightly-2'], check
    assert check['diff']['before']['snapshots'] == ['nightly-1', 'nightly-2', 'nightly-3']
    assert check['diff']['after']['snapshots'] == ['nightly-3', 'nightly-4']
    assert lines['snapshot']['result']['changed'] is True
    assert lines['again']['result']['changed'] is False, lines['again']
    refusal = lines['older']
    assert refusal['status'] == 'failed' and 'nightly-3' in refusal['result']['msg'], refusal
    assert calls(sim) == [('POST', VM_SNAPSHOTS), ('DELETE', VM_SNAPSHOTS + '/nightly-1'),
                          ('DELETE', VM_SNAPSHOTS + '/nightly-2')], sim.writes()
    assert sorted(listed(sim)) == ['manual', 'nightly-3', 'nightly-4']


def test_keep_alone_prunes_a_found_snapshots_series(sim, playbook, vm):
    """The declared snapshot is there already: the run only prunes (action prune), then has nothing to do."""
    for name, when in (('daily-1', 1000), ('daily-2', 2000), ('daily-3', 3000)):
        add_snapshot(sim.state, 150, name, snaptime=when)
    args = dict(VM, name='daily-3', prefix='daily-', keep=1)
    run = run_tasks(sim, playbook, [task(args), task(args, name='again')])
    lines = by_task(run)
    result = lines['snapshot']['result']
    assert result['changed'] is True and result['plan']['action'] == 'prune', result
    assert lines['again']['result']['changed'] is False
    assert calls(sim) == [('DELETE', VM_SNAPSHOTS + '/daily-1'), ('DELETE', VM_SNAPSHOTS + '/daily-2')]


def test_rollback_needs_its_confirmation_and_acts_on_every_run(sim, playbook, vm):
    add_snapshot(sim.state, 150, 'clean', snaptime=1000)
    api(sim, [('PUT', '/nodes/node1/qemu/150/config', {'memory': 4096})])
    args = dict(VM, name='clean', rollback=True, confirm_rollback=True)
    run = run_tasks(sim, playbook, [task(dict(args, confirm_rollback=False), name='unconfirmed')])
    line = run.results[0]
    assert line['status'] == 'failed' and 'confirm_rollback' in line['result']['msg'], line
    assert sim.log == []  # refused before any request
    run = run_tasks(sim, playbook, [task(args, name='check', check_mode=True), task(args),
                                    task(args, name='again'), task(dict(VM, name='clean'), name='declared')])
    lines = by_task(run)
    check = lines['check']['result']
    assert check['changed'] is True and check['plan']['action'] == 'rollback' and check['plan']['rollback'], check
    assert lines['snapshot']['result']['changed'] is True and lines['again']['result']['changed'] is True
    assert lines['declared']['result']['changed'] is False  # a declaration never implies a rollback
    rollback = ('POST', VM_SNAPSHOTS + '/clean/rollback')
    assert calls(sim) == [rollback, rollback], sim.writes()
    status, body = sim.request('GET', '/nodes/node1/qemu/150/config')
    assert body['data']['memory'] == '1024' and body['data']['parent'] == 'clean', body


def test_absent_needs_confirmation_and_a_vmid_that_is_no_guest_is_refused(sim, playbook, vm):
    add_snapshot(sim.state, 150, 'keepme', snaptime=1000)
    run = run_tasks(sim, playbook, [task(dict(VM, name='keepme', state='absent'), name='unconfirmed'),
                                    task({'node': 'node1', 'vmid': 999, 'name': 'x1'}, name='no guest')])
    lines = by_task(run)
    assert lines['unconfirmed']['status'] == 'failed' and 'confirm_removal' in lines['unconfirmed']['result']['msg']
    message = lines['no guest']['result']['msg']
    assert lines['no guest']['status'] == 'failed' and 'vmid 999 is no guest' in message, lines['no guest']
    assert sim.writes() == [] and 'keepme' in listed(sim)


def test_a_guest_on_another_node_is_found_there_with_a_warning(sim, playbook):
    add_guest(sim.state, 'qemu', 152, 'node2', config={'name': 'moved', 'scsi0': 'local-lvm:1'})
    run = run_tasks(sim, playbook, [task({'node': 'node1', 'vmid': 152, 'name': 'here'})])
    result = run.result()
    assert result['changed'] is True and result['plan']['node'] == 'node2', result
    assert any('lives on node2' in warning for warning in result.get('warnings', [])), result
    assert calls(sim) == [('POST', '/nodes/node2/qemu/152/snapshot')]
    assert 'here' in listed(sim, vmid=152, node='node2')


def test_a_failed_snapshot_task_fails_naming_its_upid_and_the_snapshot(sim, playbook, vm):
    sim.state.task_outcomes['qmsnapshot'] = 'snapshot feature is not available'
    run = run_tasks(sim, playbook, [task(dict(VM, name='doomed'))])
    line = run.results[0]
    message = line['result']['msg']
    assert line['status'] == 'failed' and "snapshot 'doomed'" in message and 'UPID:node1:' in message, line
    assert 'snapshot feature is not available' in message
    assert 'doomed' not in listed(sim)
