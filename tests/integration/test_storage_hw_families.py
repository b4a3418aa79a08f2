"""Storage hardware (Ceph and ZFS) through real ansible-playbook runs, on both execution paths.

The simulator's cluster has Ceph initialised (``seed_storage_hw``): a monitor and a manager on node1 and
node2, two OSDs on each of node1 and node2, the ``.mgr`` pool, and four free disks per node. The matrix
declares a monitor, a manager and an OSD on node3, a ZFS mirror on node2, a replicated pool, a metadata
server and a CephFS, and the ``noout`` flag, all in one play per step in declare's order (removal in the
reverse); the module path skips the two confirming re-runs (after the repair, the second absent). The other
tests prove each rule of the issue, batched into as few runs as the behaviour allows.

``MATRIX``, ``SETUP`` and ``BAD_INPUT`` have the shapes of test_matrix.FAMILIES / SETUP and
test_bad_input.CORPUS. OSD create and destroy are root@pam's alone (PVE gives them no permission block, so
every API token gets 403): the OSD tasks carry a password login (``as_root``).
"""

import pytest

from conftest import EXECUTION_PATHS, connection, reconfirms
from test_matrix import api, assert_drift_named

from simulator.pve.handlers.ceph import autoscale, ceph_init
from simulator.pve.handlers.zfs import zfs_init

SETUP = []
ZFS_DISKS = ['/dev/disk/by-id/ata-SIM_SSD_node2_0', '/dev/disk/by-id/ata-SIM_SSD_node2_1']

MATRIX = {
    'zfs_pool': dict(
        prefix='/nodes/node2/disks/zfs',
        args={'node': 'node2', 'name': 'tank', 'raidlevel': 'mirror', 'devices': ZFS_DISKS, 'ashift': 12,
              'compression': 'lz4'},
        drift=None, drifted={},
        # never removed by the module
        absent=None,
    ),
    'ceph_mon': dict(
        prefix='/nodes/node3/ceph/mon',
        args={'node': 'node3', 'id': 'node3'},
        # removed by hand: the declaration creates it again
        drift=[('DELETE', '/nodes/node3/ceph/mon/node3', None)], drifted={},
        absent={'node': 'node3', 'id': 'node3', 'state': 'absent', 'confirm_removal': True},
    ),
    'ceph_mgr': dict(
        prefix='/nodes/node3/ceph/mgr',
        args={'node': 'node3', 'id': 'node3'},
        drift=[('DELETE', '/nodes/node3/ceph/mgr/node3', None)], drifted={},
        absent={'node': 'node3', 'id': 'node3', 'state': 'absent', 'confirm_removal': True},
    ),
    'ceph_osd': dict(
        prefix='/nodes/node3/ceph/osd',
        args={'node': 'node3', 'dev': '/dev/sdb', 'crush_device_class': 'nvme'},
        drift=None, drifted={},
        absent={'node': 'node3', 'dev': '/dev/sdb', 'state': 'absent', 'confirm_removal': True},
    ),
    'ceph_pool': dict(
        prefix='/nodes/node1/ceph/pool',
        args={'node': 'node1', 'name': 'vmdata', 'size': 3, 'min_size': 2, 'pg_autoscale_mode': 'on',
              'target_size': '100G', 'pg_num': 64, 'application': 'rbd', 'settle_timeout': 5},
        # size 2 by hand resets min_size to 1; the autoscaler warned instead of acting; the hint dropped
        drift=[('PUT', '/nodes/node1/ceph/pool/vmdata', {'size': '2', 'pg_autoscale_mode': 'warn',
                                                         'target_size': '0'})],
        drifted={'size': 'size', 'min_size': 'min_size', 'pg_autoscale_mode': 'pg_autoscale_mode',
                 'target_size': 'target_size'},
        absent={'node': 'node1', 'name': 'vmdata', 'state': 'absent', 'confirm_removal': True},
    ),
    'ceph_mds': dict(
        prefix='/nodes/node3/ceph/mds',
        args={'node': 'node3', 'id': 'node3', 'hotstandby': True},
        drift=None, drifted={},
        absent={'node': 'node3', 'id': 'node3', 'state': 'absent', 'confirm_removal': True},
    ),
    'ceph_fs': dict(
        prefix='/nodes/node3/ceph/fs',
        args={'node': 'node3', 'name': 'shared', 'pg_num': 32},
        drift=None, drifted={},
        # PVE 9's API cannot remove a CephFS
        absent=None,
    ),
    'ceph_flag': dict(
        prefix='/cluster/ceph/flags',
        args={'flag': 'noout'},
        drift=[('PUT', '/cluster/ceph/flags/noout', {'value': '0'})], drifted={},
        absent={'flag': 'noout', 'state': 'absent'},
    ),
}
MODULES = list(MATRIX)
# Families whose objects a hand removal makes absent again (drift = re-create).
RECREATED = ['ceph_mon', 'ceph_mgr', 'ceph_flag']
ROOT_ONLY = ('ceph_osd',)


def seed_storage_hw(sim):
    """Ceph after `pveceph init` on node1 and node2 (mon and mgr each, two OSDs each), free disks everywhere."""
    zfs_init(sim.state)
    ceph_init(sim.state, nodes=('node1', 'node2'))


def as_root(sim, args):
    """A task's options with root@pam's password login instead of the play's token."""
    return dict(args, api_token_id=None, api_token_secret=None, api_user='root@pam', api_password=sim.root_password)


def task(sim, module, args, name=None, **extra):
    options = dict(args, **connection(sim))
    if module in ROOT_ONLY:
        options = as_root(sim, options)
    return dict({'name': name or module, 'homeflare.proxmox.%s' % module: options}, **extra)


def pool(**changes):
    return dict(MATRIX['ceph_pool']['args'], **changes)


BAD_INPUT = [
    ('ceph_pool', pool(name='.mgr'), 'name'),
    ('ceph_pool', pool(name='a/b'), 'name'),
    ('ceph_pool', pool(size=8), 'size'),
    ('ceph_pool', pool(min_size=0), 'min_size'),
    ('ceph_pool', pool(pg_autoscale_mode='auto'), 'pg_autoscale_mode'),
    ('ceph_pool', pool(target_size='lots'), 'target_size'),
    ('ceph_pool', pool(pg_num=0), 'pg_num'),
    ('ceph_pool', pool(application='nfs'), 'application'),
    ('ceph_pool', pool(application='cephfs'), 'application'),
    ('ceph_pool', pool(settle_timeout=-1), 'settle_timeout'),
    ('ceph_pool', pool(state='absent'), 'confirm_removal'),
    ('ceph_pool', pool(force=True), 'force'),
    ('ceph_osd', {'node': 'node3', 'dev': '/dev/sdb', 'state': 'absent'}, 'confirm_removal'),
    ('ceph_osd', {'node': 'node 3', 'dev': '/dev/sdb'}, 'node'),
    ('ceph_osd', {'node': 'node3', 'dev': '/dev/sdb', 'cleanup': True}, 'cleanup'),
    ('ceph_mon', {'node': 'node3', 'id': '-bad'}, 'id'),
    ('ceph_mon', {'node': 'node3', 'id': 'node3', 'mon_address': ['10.0.0.300']}, 'mon_address'),
    ('ceph_mon', {'node': 'node3', 'id': 'node3', 'state': 'absent'}, 'confirm_removal'),
    ('ceph_mgr', {'node': 'node3', 'id': 'x' * 201}, 'id'),
    ('ceph_mgr', {'node': 'node3', 'id': 'node3', 'state': 'absent'}, 'confirm_removal'),
    ('ceph_mds', {'node': 'node3', 'id': 'node3', 'hotstandby': 'maybe'}, 'hotstandby'),
    ('ceph_mds', {'node': 'node3', 'id': 'node3', 'state': 'absent'}, 'confirm_removal'),
    ('ceph_fs', {'node': 'node3', 'name': 'shared', 'pg_num': 4}, 'pg_num'),
    ('ceph_fs', {'node': 'node3', 'name': 'shared', 'state': 'absent'}, 'state'),
    ('ceph_flag', {'flag': 'nosleep'}, 'flag'),
    ('ceph_flag', {'flag': 'noout', 'value': 1}, 'value'),
    ('zfs_pool', {'node': 'node2', 'name': 'tank', 'state': 'absent'}, 'state'),
    ('zfs_pool', {'node': 'node2', 'name': 'tank', 'raidlevel': 'raid5', 'devices': ZFS_DISKS}, 'raidlevel'),
    ('zfs_pool', {'node': 'node2', 'name': 'tank', 'raidlevel': 'mirror', 'devices': ['sdb', 'sdc']}, 'devices'),
    ('zfs_pool', {'node': 'node2', 'name': 'tank', 'raidlevel': 'mirror', 'devices': ZFS_DISKS,
                  'ashift': 17}, 'ashift'),
    ('zfs_pool', {'node': 'node2', 'name': 'tank', 'raidlevel': 'mirror', 'devices': ZFS_DISKS,
                  'draid_config': 'data=2,spares=1'}, 'draid_config'),
    ('zfs_pool', {'node': 'node2', 'name': '1tank', 'raidlevel': 'mirror', 'devices': ZFS_DISKS}, 'name'),
]


@pytest.fixture
def hardware(sim):
    seed_storage_hw(sim)


def of(module, entries):
    prefix = MATRIX[module]['prefix']
    return [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]


def step(sim, playbook, path, args_key, check=False, diff=False, modules=None):
    """One play over the families (reverse order for state=absent); results by module."""
    modules = [module for module in (modules or MODULES) if MATRIX[module][args_key] is not None]
    if args_key == 'absent':
        modules = modules[::-1]
    sim.clear_log()
    run = playbook([task(sim, module, MATRIX[module][args_key]) for module in modules],
                   check=check, diff=diff, env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    return run, dict((line['task'], line['result']) for line in run.results)


def writes_of(sim, module):
    return of(module, sim.writes())


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_the_storage_hardware_lifecycle(sim, playbook, hardware, path):
    # 1. check-mode create writes nothing and says create
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        assert outcome[module]['plan']['action'] == 'create', (module, outcome[module])
    assert sim.writes() == []

    # 2. create: one write (a task, waited for) per object
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['changed'] is True, (module, outcome[module])
        assert len(writes_of(sim, module)) == 1, (module, writes_of(sim, module))
    pool_form = writes_of(sim, 'ceph_pool')[0]['form']
    assert pool_form == {'name': 'vmdata', 'size': '3', 'min_size': '2', 'pg_autoscale_mode': 'on',
                         'target_size': '100G', 'pg_num': '64', 'application': 'rbd'}
    assert writes_of(sim, 'zfs_pool')[0]['form']['devices'] == ','.join(ZFS_DISKS)  # the declared order
    assert outcome['zfs_pool']['object']['devices'] == ZFS_DISKS
    assert outcome['zfs_pool']['object']['pool_state'] == 'ONLINE'
    assert outcome['ceph_osd']['object']['up'] is True and outcome['ceph_osd']['object']['in'] is True
    assert outcome['ceph_fs']['object']['data_pool'] == 'shared_data'
    assert 'noout' in sim.state.ceph['flags']

    # 3. re-run: adopted, zero writes, even after the autoscaler changed the new pool's pg_num
    autoscale(sim.state)
    assert sim.state.ceph['pools']['vmdata']['pg_num'] != 64
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['changed'] is False, (module, outcome[module])
        assert outcome[module]['plan'] == {'read': 'found', 'action': 'none', 'changed': []}, module
    assert sim.writes() == []

    # 4. drift behind the modules' back; 5. --check --diff names exactly the drifted fields
    for module in MODULES:
        api(sim, MATRIX[module]['drift'] or [])
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    assert sim.writes() == []
    for module in MODULES:
        result = outcome[module]
        if module in RECREATED:
            assert result['plan']['action'] == 'create', (module, result)
        elif MATRIX[module]['drifted']:
            assert_drift_named(result, MATRIX[module]['drifted'])
        else:
            assert result['changed'] is False, (module, result)

    # 6. a real run repairs with one write per drifted object (the pool: only the drifted keys, one PUT)
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        expected = 1 if (MATRIX[module]['drift']) else 0
        assert len(writes_of(sim, module)) == expected, (module, writes_of(sim, module))
    repaired = {'size': '3', 'min_size': '2', 'pg_autoscale_mode': 'on', 'target_size': '100G'}
    assert writes_of(sim, 'ceph_pool')[0]['form'] == repaired
    if reconfirms(path):
        run, outcome = step(sim, playbook, path, 'args')
        assert sim.writes() == []

    # 7. absent (with confirmation), in reverse order; 8. again a no-op
    run, outcome = step(sim, playbook, path, 'absent')
    for module in MODULES:
        if MATRIX[module]['absent'] is not None:
            assert outcome[module]['plan']['action'] == 'delete', (module, outcome[module])
    assert [entry['method'] for entry in writes_of(sim, 'ceph_pool')] == ['DELETE']
    assert not writes_of(sim, 'ceph_pool')[0]['form']  # never force, never remove_storages
    osd_writes = [(entry['method'], entry['path']) for entry in sim.writes() if '/ceph/osd' in entry['path']
                  or entry['path'].endswith('/ceph/stop')]
    assert [method for method, _path in osd_writes] == ['POST', 'POST', 'DELETE'], osd_writes
    assert osd_writes[0][1].endswith('/out') and osd_writes[1][1] == '/nodes/node3/ceph/stop'
    assert 'noout' not in sim.state.ceph['flags']
    if reconfirms(path):
        run, outcome = step(sim, playbook, path, 'absent')
        for module in MODULES:
            if MATRIX[module]['absent'] is not None:
                assert outcome[module]['changed'] is False and outcome[module]['object'] == {}, module
        assert sim.writes() == []


CONTROLLER = EXECUTION_PATHS['controller']


def results(run):
    return dict((line['task'], line) for line in run.results)


def pool_gets(sim, name):
    return [entry for entry in sim.log if entry['method'] == 'GET'
            and entry['path'] == '/nodes/node1/ceph/pool/%s/status' % name]


def test_an_adopted_pool_sends_nothing_after_the_autoscaler_and_a_drifted_size_sends_only_size(
        sim, playbook, hardware):
    api(sim, [('POST', '/nodes/node1/ceph/pool', {'name': 'rbd', 'size': '3', 'min_size': '2',
                                                  'pg_autoscale_mode': 'on', 'pg_num': '128'})])
    autoscale(sim.state)
    assert sim.state.ceph['pools']['rbd']['pg_num'] == 32
    declared = {'node': 'node1', 'name': 'rbd', 'size': 3, 'pg_autoscale_mode': 'on', 'crush_rule': 'replicated_rule'}
    sim.clear_log()
    run = playbook([task(sim, 'ceph_pool', declared)], env=CONTROLLER)
    assert run.rc == 0 and run.result()['changed'] is False, run
    assert sim.writes() == []

    api(sim, [('PUT', '/nodes/node1/ceph/pool/rbd', {'size': '2'})])
    sim.clear_log()
    run = playbook([task(sim, 'ceph_pool', declared)], env=CONTROLLER)
    assert run.rc == 0 and run.result()['plan']['changed'] == ['size'], run
    assert [(entry['method'], entry['form']) for entry in sim.writes()] == [('PUT', {'size': '3'})]
    assert sim.state.ceph['pools']['rbd']['size'] == 3


def test_a_write_that_lands_after_its_task_is_settled_and_a_late_delete_refusal_fails_clearly(
        sim, playbook, hardware):
    api(sim, [('POST', '/nodes/node1/ceph/pool', {'name': name, 'size': '2'}) for name in ('slow', 'kept')])
    with sim.state.lock:
        sim.state.ceph['apply_delay'] = 1.5
        sim.state.ceph['mon_allow_pool_delete'] = False
    sim.clear_log()
    run = playbook([
        task(sim, 'ceph_pool', {'node': 'node1', 'name': 'slow', 'size': 3, 'settle_timeout': 20}, name='settles'),
        task(sim, 'ceph_pool', {'node': 'node1', 'name': 'kept', 'state': 'absent', 'confirm_removal': True},
             name='refused late', ignore_errors=True),
    ], env=CONTROLLER)
    outcome = results(run)
    settled = outcome['settles']['result']
    assert outcome['settles']['status'] == 'ok' and settled['changed'] and settled['object']['size'] == 3, settled
    assert sim.state.ceph['pools']['slow']['min_size'] == 2  # Ceph's reset of min_size with the size
    assert len(pool_gets(sim, 'slow')) >= 3  # the read before the write, then reads until the size showed
    refused = outcome['refused late']['result']
    assert outcome['refused late']['status'] == 'failed' and refused['error'] == 'TaskFailed', refused
    assert 'mon_allow_pool_delete' in refused['msg'] and 'UPID:node1:' in refused['msg'], refused
    assert 'kept' in sim.state.ceph['pools']
    delete = [entry for entry in sim.writes() if entry['method'] == 'DELETE']
    assert len(delete) == 1 and not delete[0]['form']  # never force, never remove_storages


def test_what_a_pool_declaration_never_adopts_or_changes_is_refused_before_any_write(sim, playbook, hardware):
    # a CephFS and its pools; a pool whose size is locked; a pool whose read fails though it is listed
    api(sim, [('POST', '/nodes/node2/ceph/mds/node2', {}), ('POST', '/nodes/node2/ceph/fs/shared', {'pg_num': '32'}),
              ('POST', '/nodes/node1/ceph/pool', {'name': 'locked', 'size': '3'}),
              ('POST', '/nodes/node1/ceph/pool', {'name': 'flaky'})])
    with sim.state.lock:
        sim.state.ceph['pools']['locked']['nosizechange'] = 1
    sim.force('GET', r'^/nodes/node1/ceph/pool/flaky/status$', 500,
              "error with 'osd pool get': mon_cmd failed - unrecognized pool 'flaky'")
    cases = [
        ('cephfs data', {'node': 'node1', 'name': 'shared_data', 'size': 2}, 'belongs to a CephFS'),
        ('cephfs removal', {'node': 'node1', 'name': 'shared_metadata', 'state': 'absent', 'confirm_removal': True},
         'belongs to a CephFS'),
        ('size locked', {'node': 'node1', 'name': 'locked', 'size': 2}, 'nosizechange'),
        ('listed but unreadable', {'node': 'node1', 'name': 'flaky', 'size': 2}, 'not treated as absent'),
    ]
    for check in (True, False):
        sim.clear_log()
        run = playbook([task(sim, 'ceph_pool', args, name=name, ignore_errors=True) for name, args, _why in cases],
                       check=check, env=CONTROLLER)
        outcome = results(run)
        for name, _args, why in cases:
            assert outcome[name]['status'] == 'failed' and why in outcome[name]['result']['msg'], outcome[name]
        assert sim.writes() == []
    assert sim.state.ceph['pools']['locked']['size'] == 3

    # a pool list that cannot be read never lets a create through
    sim.force('GET', r'^/nodes/node1/ceph/pool$', 500, 'got timeout')
    sim.clear_log()
    run = playbook([task(sim, 'ceph_pool', {'node': 'node1', 'name': 'new', 'size': 3}, ignore_errors=True)],
                   env=CONTROLLER)
    assert run.results[0]['status'] == 'failed' and 'got timeout' in run.result()['msg'], run
    assert sim.writes() == []


def test_a_zfs_pool_is_never_written_after_its_create(sim, playbook, hardware):
    tank = MATRIX['zfs_pool']['args']
    run = playbook([task(sim, 'zfs_pool', tank)], env=CONTROLLER)
    assert run.rc == 0 and run.result()['changed'], run
    sim.clear_log()
    other_disks = ['/dev/disk/by-id/ata-SIM_SSD_node2_2', '/dev/disk/by-id/ata-SIM_SSD_node2_3']
    run = playbook([
        task(sim, 'zfs_pool', dict(tank, ashift=9, compression='zstd'), name='other options'),
        task(sim, 'zfs_pool', dict(tank, raidlevel='raidz', devices=other_disks + ZFS_DISKS[:1]), name='other layout'),
        {'name': 'declared', 'homeflare.proxmox.declare': {
            'objects': {'zfs_pool': [dict(tank, raidlevel='raidz', devices=other_disks + ZFS_DISKS[:1])]}}},
    ], check=False, diff=True, env=CONTROLLER)
    outcome = results(run)
    assert run.rc == 0, run
    for name in ('other options', 'other layout'):
        assert outcome[name]['result']['changed'] is False and outcome[name]['result']['plan']['action'] == 'none'
    for name in ('other layout', 'declared'):
        warnings = ' '.join(outcome[name]['result'].get('warnings', []))
        assert 'raidz' in warnings and 'mirror' in warnings and other_disks[0] in warnings, outcome[name]
    assert outcome['declared']['result']['changed'] is False
    assert sim.writes() == []


def test_an_osd_is_root_only_adopted_by_its_disk_and_removed_out_then_down_then_destroyed(sim, playbook, hardware):
    osd = {'node': 'node3', 'dev': '/dev/sdc', 'crush_device_class': 'ssd'}
    by_id = dict(osd, dev='/dev/disk/by-id/ata-SIM_SSD_node3_1')
    tokened = {'name': 'with a token', 'homeflare.proxmox.ceph_osd': dict(osd, **connection(sim)),
               'ignore_errors': True}
    sim.clear_log()
    run = playbook([tokened, task(sim, 'ceph_osd', osd, name='create'),
                    task(sim, 'ceph_osd', by_id, name='adopt by id'),
                    task(sim, 'ceph_osd', dict(osd, crush_device_class='hdd'), name='other class',
                         ignore_errors=True)], env=CONTROLLER)
    outcome = results(run)
    assert outcome['with a token']['status'] == 'failed', outcome['with a token']
    assert 'root@pam' in outcome['with a token']['result']['msg']
    assert outcome['create']['result']['changed'] is True
    osdid = outcome['create']['result']['object']['osdid']
    assert outcome['adopt by id']['result']['changed'] is False
    assert outcome['adopt by id']['result']['object']['osdid'] == osdid
    assert outcome['other class']['status'] == 'failed' and 'crush_device_class' in outcome['other class']['result'][
        'msg']
    assert len([entry for entry in sim.writes() if entry['status'] == 200]) == 1

    with sim.state.lock:
        sim.state.ceph['apply_delay'] = 1
    sim.clear_log()
    run = playbook([task(sim, 'ceph_osd', dict(osd, state='absent', confirm_removal=True))], env=CONTROLLER)
    assert run.rc == 0 and run.result()['changed'], run
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [
        ('POST', '/nodes/node3/ceph/osd/%d/out' % osdid), ('POST', '/nodes/node3/ceph/stop'),
        ('DELETE', '/nodes/node3/ceph/osd/%d' % osdid)]
    assert osdid not in sim.state.ceph['osds']


def test_a_daemon_on_another_node_is_refused(sim, playbook, hardware):
    sim.clear_log()
    run = playbook([task(sim, 'ceph_mgr', {'node': 'node3', 'id': 'node1'}, ignore_errors=True),
                    task(sim, 'ceph_mon', {'node': 'node1', 'id': 'node2', 'state': 'absent',
                                           'confirm_removal': True}, ignore_errors=True)], env=CONTROLLER)
    for line in run.results:
        assert line['status'] == 'failed' and 'never moved' in line['result']['msg'], line
    assert sim.writes() == []


ROLE_VARIABLES = {'zfs_pool': 'cluster_zfs_pools', 'ceph_mon': 'cluster_ceph_mons', 'ceph_mgr': 'cluster_ceph_mgrs',
                  'ceph_osd': 'cluster_ceph_osds', 'ceph_pool': 'cluster_ceph_pools', 'ceph_mds': 'cluster_ceph_mdss',
                  'ceph_fs': 'cluster_ceph_fss', 'ceph_flag': 'cluster_ceph_flags'}


def role_run(sim, playbook, key, check=False, diff=False, extra=None):
    """The cluster role (one homeflare.proxmox.declare task) over every family's object, as root@pam."""
    variables = dict((ROLE_VARIABLES[module], [MATRIX[module][key]] if MATRIX[module][key] else [])
                     for module in MODULES)
    variables['cluster_connection'] = as_root(sim, connection(sim))
    variables.update(extra or {})
    run = playbook([{'name': 'Apply', 'ansible.builtin.include_role': {'name': 'homeflare.proxmox.cluster'},
                     'vars': variables}], check=check, diff=diff, defaults={})
    assert run.rc == 0, run
    return run, dict((entry['module'], entry) for entry in run.results[-1]['result']['results'])


def test_the_storage_hardware_through_the_cluster_role(sim, playbook, hardware):
    sim.clear_log()
    run, results = role_run(sim, playbook, 'args', check=True)
    assert all(results[module]['plan']['action'] == 'create' for module in MODULES), results
    assert sim.writes() == []
    run, results = role_run(sim, playbook, 'args')
    # declare's order: ZFS, monitors and managers before OSDs, OSDs before pools, pools and MDS before CephFS
    creates = [entry['path'] for entry in sim.writes() if entry['method'] == 'POST' and entry['status'] == 200]
    assert creates == ['/nodes/node2/disks/zfs', '/nodes/node3/ceph/mon/node3', '/nodes/node3/ceph/mgr/node3',
                       '/nodes/node3/ceph/osd', '/nodes/node1/ceph/pool', '/nodes/node3/ceph/mds/node3',
                       '/nodes/node3/ceph/fs/shared'], creates
    autoscale(sim.state)
    sim.clear_log()
    run, results = role_run(sim, playbook, 'args')
    assert all(results[module]['plan']['action'] == 'none' for module in MODULES), results
    assert sim.writes() == []
    for module in MODULES:
        api(sim, MATRIX[module]['drift'] or [])
    sim.clear_log()
    run, results = role_run(sim, playbook, 'args', check=True, diff=True, extra={'cluster_fail_on_drift': False})
    assert sorted(results['ceph_pool']['plan']['changed']) == sorted(MATRIX['ceph_pool']['drifted'])
    assert [module for module in MODULES if results[module]['plan']['action'] != 'none'] == [
        'ceph_mon', 'ceph_mgr', 'ceph_pool', 'ceph_flag']
    assert sim.writes() == []
    role_run(sim, playbook, 'args')
    run, results = role_run(sim, playbook, 'absent')
    removable = [module for module in MODULES if MATRIX[module]['absent']]
    assert all(results[module]['plan']['action'] == 'delete' for module in removable), results
    sim.clear_log()
    run, results = role_run(sim, playbook, 'absent')
    assert all(results[module]['plan']['action'] == 'none' for module in removable), results
    assert sim.writes() == []
