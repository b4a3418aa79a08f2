"""The ``backup`` module (a vzdump now, issue 25) through real ansible-playbook runs on both execution paths, against
the simulator's POST /nodes/{node}/vzdump (tests/simulator/pve/handlers/vzdump.py).

Guests 100 (VM) and 200 (container) live on node1, 300 (VM) on node2; backups go to ``local``, a directory storage
each node has its own of. Check mode plans one vzdump per node and writes nothing; the run makes exactly those two
POSTs and reports each guest's new volume; only_if_older_than skips the guests backed up recently (a run where every
guest is recent writes nothing); a failed vzdump task fails naming its UPID and its guests; bad input fails before
any request (``BAD_INPUT``, in test_bad_input's corpus); and a backup the module made restores through the raw API
into a new guest (test_guest_restore declares the same through restore_from).
"""

import time

import pytest

from conftest import EXECUTION_PATHS, connection
from test_ha_families import task

from simulator.pve.handlers.guests import add_guest
from simulator.pve.handlers import vzdump

BACKUP = {'vmid': [100, 200, 300], 'storage': 'local', 'compress': 'zstd', 'mode': 'snapshot'}
HOUR = 3600
DAY = 24 * HOUR
VZDUMPS = [('POST', '/nodes/node1/vzdump'), ('POST', '/nodes/node2/vzdump')]


def seed(sim):
    add_guest(sim.state, 'qemu', 100, 'node1', {'name': 'web', 'memory': '2048', 'scsi0': 'local-lvm:8',
                                                'net0': 'virtio=BC:24:11:00:00:01,bridge=vmbr0'})
    add_guest(sim.state, 'lxc', 200, 'node1', {'hostname': 'db', 'rootfs': 'local-lvm:4', 'unprivileged': '1'})
    add_guest(sim.state, 'qemu', 300, 'node2', {'name': 'far', 'scsi0': 'local-lvm:2'})


def play(sim, playbook, path, args, check=False, diff=False, ok=True):
    sim.clear_log()
    run = playbook([task(sim, 'backup', args)], check=check, diff=diff, env=EXECUTION_PATHS[path])
    if ok:
        assert run.rc == 0, run
    return run, run.result()


def backups(sim, node, vmid):
    status, body = sim.request('GET', '/nodes/%s/storage/local/content' % node, {'content': 'backup', 'vmid': vmid})
    assert status == 200, body
    return [row['volid'] for row in body['data']]


def writes(sim):
    return [(entry['method'], entry['path']) for entry in sim.writes()]


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_backup_runs_one_vzdump_per_node_and_reports_the_volumes(sim, playbook, path):
    seed(sim)

    # 1. check mode: the plan and the vzdump each node would run, the diff, zero writes
    _run, result = play(sim, playbook, path, BACKUP, check=True, diff=True)
    assert result['changed'] is True
    assert result['plan'] == {'read': 'found', 'action': 'backup', 'changed': ['100', '200', '300']}
    assert result['runs'] == [{'node': 'node1', 'vmid': [100, 200]}, {'node': 'node2', 'vmid': [300]}]
    assert result['diff'] == {'before': {'100': None, '200': None, '300': None},
                              'after': {'100': 'new backup', '200': 'new backup', '300': 'new backup'}}
    assert writes(sim) == [] and result['volumes'] == {} and result['tasks'] == []

    # 2. the run: one vzdump per node, each waited for; the volumes are the storage's new newest backups
    _run, result = play(sim, playbook, path, BACKUP, diff=True)
    assert result['changed'] is True
    assert writes(sim) == VZDUMPS
    assert sim.writes()[0]['form'] == {'vmid': '100,200', 'storage': 'local', 'compress': 'zstd', 'mode': 'snapshot'}
    assert sim.writes()[1]['form']['vmid'] == '300'
    assert [upid.split(':')[1] for upid in result['tasks']] == ['node1', 'node2']
    assert result['volumes'] == {'100': backups(sim, 'node1', 100)[0], '200': backups(sim, 'node1', 200)[0],
                                 '300': backups(sim, 'node2', 300)[0]}
    assert result['volumes']['100'].startswith('local:backup/vzdump-qemu-100-')
    assert result['volumes']['100'].endswith('.vma.zst')
    assert result['volumes']['200'].startswith('local:backup/vzdump-lxc-200-')
    assert backups(sim, 'node1', 300) == []  # local is each node's own: node2's guest is backed up on node2
    guests = dict((guest['vmid'], guest) for guest in result['object']['guests'])
    assert guests[300]['node'] == 'node2' and guests[300]['newest_backup'] == result['volumes']['300']
    assert result['diff']['after'] == {'100': 'new backup', '200': 'new backup', '300': 'new backup'}


# module_utils' code on both paths: the module path is sampled by this module's other matrix test
@pytest.mark.parametrize('path', ['controller'])
def test_only_if_older_than_skips_recent_backups_and_writes_nothing_when_all_are(sim, playbook, path):
    seed(sim)
    now = int(time.time())
    recent = vzdump.add_backup(sim.state, 'node1', 'local', 100, when=now - HOUR)
    vzdump.add_backup(sim.state, 'node1', 'local', 200, when=now - 2 * HOUR)
    vzdump.add_backup(sim.state, 'node2', 'local', 300, when=now - 3 * DAY)
    args = dict(BACKUP, only_if_older_than='1d')

    # check mode: only 300 is due, on node2
    _run, result = play(sim, playbook, path, args, check=True, diff=True)
    assert result['plan']['changed'] == ['300'] and result['not_due'] == [100, 200]
    assert result['runs'] == [{'node': 'node2', 'vmid': [300]}]
    assert result['diff']['before']['100'] == time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(now - HOUR))
    assert result['diff']['after']['100'] == result['diff']['before']['100']
    assert result['diff']['after']['300'] == 'new backup'
    assert writes(sim) == []

    _run, result = play(sim, playbook, path, args)
    assert writes(sim) == [('POST', '/nodes/node2/vzdump')]
    assert list(result['volumes']) == ['300']
    guests = dict((guest['vmid'], guest) for guest in result['object']['guests'])
    assert guests[100]['newest_backup'] == recent

    # every guest backed up within the day: no-op, changed false, zero writes
    _run, result = play(sim, playbook, path, args)
    assert result['changed'] is False and result['plan']['action'] == 'none'
    assert writes(sim) == [] and result['runs'] == [] and result['not_due'] == [100, 200, 300]

    # a backup of another kind of guest with the same id is not this guest's (a reused vmid)
    vzdump.add_backup(sim.state, 'node1', 'local', 100, when=now - 60, typ='lxc', config={'hostname': 'old'})
    _run, result = play(sim, playbook, path, dict(args, vmid=[100], only_if_older_than='30m'))
    assert result['changed'] is True and writes(sim) == [('POST', '/nodes/node1/vzdump')]


# module_utils' code on both paths: the module path is sampled by this module's other matrix test
@pytest.mark.parametrize('path', ['controller'])
def test_a_failed_vzdump_task_fails_naming_the_upid_and_the_guests(sim, playbook, path):
    seed(sim)
    sim.state.task_outcomes['vzdump'] = 'could not activate storage: simulated failure'
    run, result = play(sim, playbook, path, dict(BACKUP, vmid=[100, 200]), ok=False)
    assert run.rc != 0
    message = result['msg']
    assert ':vzdump::' in message and 'UPID:node1:' in message
    assert 'the backup of guest 100, 200 on node node1 to storage local' in message
    assert 'could not activate storage: simulated failure' in message
    assert writes(sim) == [('POST', '/nodes/node1/vzdump')]
    assert backups(sim, 'node1', 100) == []


# module_utils' code on both paths: the module path is sampled by this module's other matrix test
@pytest.mark.parametrize('path', ['controller'])
def test_refusals_before_any_write(sim, playbook, path):
    seed(sim)
    run, result = play(sim, playbook, path, dict(BACKUP, vmid=[100, 105]), ok=False)
    assert 'no guest 105 in the cluster' in result['msg'] and writes(sim) == []
    run, result = play(sim, playbook, path, dict(BACKUP, node='node1'), ok=False)
    assert "guest 300 (on node2) lives elsewhere" in result['msg'] and writes(sim) == []
    run, result = play(sim, playbook, path, dict(BACKUP, storage='local-lvm'), ok=False)
    assert "storage 'local-lvm' does not hold backups" in result['msg'] and writes(sim) == []
    # check mode reports the plan and warns (an earlier task of a real run may set the storage up)
    run, result = play(sim, playbook, path, dict(BACKUP, storage='local-lvm'), check=True)
    assert result['plan']['action'] == 'backup' and writes(sim) == []
    assert "does not hold backups" in run.output


# (module, args, what the refusal names): the shared corpus' shape (test_bad_input.py CORPUS)
BAD_INPUT = [
    ('backup', dict(BACKUP, only_if_older_than='yesterday'),
     "option only_if_older_than: 'yesterday' is not a duration"),
    ('backup', dict(BACKUP, only_if_older_than='0d'), "option only_if_older_than: '0d' is not a duration"),
    ('backup', dict(BACKUP, vmid=[]), 'option vmid: name at least one guest to back up'),
    ('backup', dict(BACKUP, vmid=[42]), "option vmid: '42' is not a valid pve-vmid"),
    ('backup', dict(BACKUP, notes='{{ "{{name}}" }}'), "option notes: '{{name}}' is not a notes template PVE takes "
                                                       "(found unknown: variable 'name' at char 2)"),
    ('backup', dict(BACKUP, notes='a\\q'), "option notes: 'a\\\\q' is not a notes template PVE takes (found unknown: "
                                           "escape sequence '\\q' at char 1)"),
    ('backup', dict(BACKUP, task_timeout=0), 'option task_timeout: 0 is below the minimum 1'),
]


def test_a_backup_made_by_the_module_restores_into_a_new_guest(sim, playbook):
    seed(sim)
    _run, result = play(sim, playbook, 'controller', dict(BACKUP, vmid=[100, 200], notes='{{ "{{guestname}}" }}'))
    vm_archive, ct_archive = result['volumes']['100'], result['volumes']['200']
    status, body = sim.request('POST', '/nodes/node1/qemu', {'vmid': 150, 'archive': vm_archive})
    assert status == 200, body
    status, body = sim.request('GET', '/nodes/node1/tasks/%s/status' % body['data'])
    assert body['data']['exitstatus'] == 'OK'
    status, body = sim.request('GET', '/nodes/node1/qemu/150/config')
    assert body['data']['name'] == 'web' and body['data']['scsi0'].startswith('local-lvm:vm-150-disk-0,')
    status, body = sim.request('POST', '/nodes/node1/lxc', {'vmid': 250, 'ostemplate': ct_archive, 'restore': 1,
                                                            'storage': 'local-lvm'})
    assert status == 200, body
    status, body = sim.request('GET', '/nodes/node1/lxc/250/config')
    assert body['data']['hostname'] == 'db' and body['data']['rootfs'].startswith('local-lvm:vm-250-disk-0,')
    # an existing vmid without force: PVE's error before any task
    status, body = sim.request('POST', '/nodes/node1/qemu', {'vmid': 100, 'archive': vm_archive})
    assert (status, body['message']) == (500, "unable to restore VM 100 - VM 100 already exists on node 'node1'\n")


def test_in_declare_a_backup_runs_after_the_guests_it_names_are_created(sim, playbook):
    """A declare batch runs a backup like an apply, after every write: a container created in the same task is
    backed up on the node it was created on; check mode plans both and writes nothing."""
    seed(sim)
    objects = {'lxc': [{'node': 'node2', 'vmid': 201, 'hostname': 'new', 'rootfs': 'local-lvm:2',
                        'ostemplate': 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst'}],
               'backup': [{'vmid': [100, 201], 'storage': 'local', 'only_if_older_than': '1d'}]}
    declare = {'name': 'declare', 'homeflare.proxmox.declare': dict(objects=objects, **connection(sim))}
    sim.clear_log()
    run = playbook([declare], check=True)
    assert run.rc == 0, run
    plans = dict((entry['module'], entry['plan']) for entry in run.result()['results'])
    assert plans['backup'] == {'read': 'found', 'action': 'backup', 'changed': ['100', '201']}
    assert writes(sim) == []
    run = playbook([declare])
    assert run.rc == 0, run
    assert writes(sim) == [('POST', '/nodes/node2/lxc'), ('POST', '/nodes/node1/vzdump'),
                           ('POST', '/nodes/node2/vzdump')]
    assert backups(sim, 'node2', 201)
    sim.clear_log()
    run = playbook([declare])
    assert run.rc == 0 and run.result()['changed'] is False and writes(sim) == []
