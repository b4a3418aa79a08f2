"""The Ceph and ZFS families and the core pieces they brought (settle, confirmed absence, index rows, send_with,
byte sizes), against an in-memory client (no HTTP)."""

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    ApiError, DeclarationError, NotConverged, Refused, Unreadable)
from ansible_collections.homeflare.proxmox.plugins.module_utils.families import (
    ceph_flag, ceph_fs, ceph_mds, ceph_mgr, ceph_mon, ceph_osd, ceph_pool, zfs_pool)
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import ByteSize
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import ABSENT, reconcile
from ansible_collections.homeflare.proxmox.plugins.module_utils.tasks import poll_until

UNRECOGNIZED = ApiError.for_status(500, "error with 'osd pool get': mon_cmd failed - unrecognized pool 'rbd'")
STATUS = '/nodes/node1/ceph/pool/rbd/status'
POOLS = '/nodes/node1/ceph/pool'


class Ceph:
    """A pool list and pool status reads; a PUT lands after ``lag`` further status reads."""

    def __init__(self, pool=None, lag=0, listed=None, list_error=None):
        self.pool = pool
        self.lag = lag
        self.listed = listed
        self.list_error = list_error
        self.pending = []
        self.calls = []

    def get(self, path, params=None, role='read'):
        self.calls.append(('GET', path, params))
        if path == POOLS:
            if self.list_error:
                raise self.list_error
            names = self.listed if self.listed is not None else ([] if self.pool is None else ['rbd'])
            return [{'pool_name': name} for name in names]
        if self.pending:
            due, settings = self.pending[0]
            if due <= 0:
                self.pool.update(settings)
                self.pending.pop(0)
            else:
                self.pending[0] = (due - 1, settings)
        if self.pool is None:
            raise UNRECOGNIZED
        return dict(self.pool)

    def put(self, path, form=None, role='provision'):
        self.calls.append(('PUT', path, form))
        settings = dict((key, int(value) if value.isdigit() else value) for key, value in form.items())
        if 'size' in settings and 'min_size' not in settings:
            settings['min_size'] = settings['size'] - settings['size'] // 2
        self.pending.append((self.lag, settings))
        return None

    def writes(self):
        return [call for call in self.calls if call[0] != 'GET']


def params(family, **values):
    spec = family.object_spec()
    result = dict((name, option.get('default')) for name, option in spec.items())
    result.update(api_host=['sim'], api_token_id='root@pam!sim', api_token_secret='s')
    result.update(values)
    return result


def live_pool(**changes):
    pool = {'name': 'rbd', 'size': 3, 'min_size': 2, 'pg_num': 32, 'crush_rule': 'replicated_rule',
            'pg_autoscale_mode': 'on', 'nosizechange': '0', 'nopgchange': '0', 'application_list': ['rbd']}
    pool.update(changes)
    return pool


# -- confirmed absence -------------------------------------------------------------------------------

def test_a_pool_is_absent_only_when_its_read_says_unrecognized_and_the_list_lacks_it():
    family = ceph_pool.FAMILY
    ident = {'node': 'node1', 'name': 'rbd'}
    assert family.store.read(Ceph(), family, ident) is ABSENT
    with pytest.raises(Unreadable, match='listed'):
        family.store.read(Ceph(listed=['rbd']), family, ident)
    with pytest.raises(ApiError, match='timeout'):
        family.store.read(Ceph(list_error=ApiError.for_status(500, 'got timeout')), family, ident)


def test_another_failure_of_the_pool_read_is_never_absent():
    class Broken(Ceph):
        def get(self, path, params=None, role='read'):
            raise ApiError.for_status(500, 'binary not installed: /usr/bin/ceph-mon')

    with pytest.raises(ApiError, match='not installed'):
        ceph_pool.FAMILY.store.read(Broken(), ceph_pool.FAMILY, {'node': 'node1', 'name': 'rbd'})


# -- the pool's writes ---------------------------------------------------------------------------------

def test_a_matching_pool_sends_nothing_whatever_its_pg_num():
    client = Ceph(live_pool(pg_num=8))
    result = reconcile(client, ceph_pool.FAMILY, params(ceph_pool.FAMILY, node='node1', name='rbd', size=3,
                                                        pg_num=128, application='rbd'))
    assert result['changed'] is False and client.writes() == []


def test_a_drifted_size_sends_only_size_unless_min_size_is_declared():
    client = Ceph(live_pool(size=2, min_size=1))
    reconcile(client, ceph_pool.FAMILY, params(ceph_pool.FAMILY, node='node1', name='rbd', size=3))
    assert client.writes() == [('PUT', '/nodes/node1/ceph/pool/rbd', {'size': '3'})]
    client = Ceph(live_pool(size=2, min_size=2))
    reconcile(client, ceph_pool.FAMILY, params(ceph_pool.FAMILY, node='node1', name='rbd', size=3, min_size=2))
    # min_size matched, but Ceph resets it when size changes: it goes with the size
    assert client.writes() == [('PUT', '/nodes/node1/ceph/pool/rbd', {'size': '3', 'min_size': '2'})]


def test_a_write_that_lands_late_is_settled_and_one_that_never_lands_fails_naming_the_field():
    client = Ceph(live_pool(size=2, min_size=1), lag=2)
    result = reconcile(client, ceph_pool.FAMILY, params(ceph_pool.FAMILY, node='node1', name='rbd', size=3,
                                                        settle_timeout=10))
    assert result['object']['size'] == 3
    assert len([call for call in client.calls if call[1] == STATUS]) == 4  # the read, then three read-backs

    client = Ceph(live_pool(size=2, min_size=1), lag=1000)
    with pytest.raises(NotConverged, match=r'size.*read again for 1 s'):
        reconcile(client, ceph_pool.FAMILY, params(ceph_pool.FAMILY, node='node1', name='rbd', size=3,
                                                   settle_timeout=1))


def test_settle_timeout_zero_reads_back_once():
    client = Ceph(live_pool(size=2, min_size=1), lag=1)
    with pytest.raises(NotConverged) as raised:
        reconcile(client, ceph_pool.FAMILY, params(ceph_pool.FAMILY, node='node1', name='rbd', size=3,
                                                   settle_timeout=0))
    assert 'read again' not in str(raised.value)


@pytest.mark.parametrize('live, declared, why', [
    (live_pool(application_list=['cephfs']), dict(size=2), 'belongs to a CephFS'),
    (live_pool(application_list=['mgr']), dict(state='absent', confirm_removal=True), 'Ceph manager'),
    (live_pool(nosizechange='1'), dict(min_size=1), 'nosizechange'),
])
def test_what_the_live_pool_forbids_is_refused_before_any_write(live, declared, why):
    client = Ceph(live)
    with pytest.raises(Refused, match=why):
        reconcile(client, ceph_pool.FAMILY, params(ceph_pool.FAMILY, node='node1', name='rbd', **declared))
    assert client.writes() == []


def test_a_locked_pool_is_fine_while_nothing_locked_drifts():
    client = Ceph(live_pool(nosizechange='1', pg_autoscale_mode='warn'))
    reconcile(client, ceph_pool.FAMILY, params(ceph_pool.FAMILY, node='node1', name='rbd', size=3,
                                               pg_autoscale_mode='on'))
    assert client.writes() == [('PUT', '/nodes/node1/ceph/pool/rbd', {'pg_autoscale_mode': 'on'})]


def test_nopgchange_does_not_hold_back_pg_num_min():
    # Ceph's nopgchange guards pg_num/pgp_num only (OSDMonitor prepare_command_pool_set); pg_num_min goes through
    client = Ceph(live_pool(nopgchange='1'))
    reconcile(client, ceph_pool.FAMILY, params(ceph_pool.FAMILY, node='node1', name='rbd', pg_num_min=16))
    assert client.writes() == [('PUT', '/nodes/node1/ceph/pool/rbd', {'pg_num_min': '16'})]


def test_the_manager_pool_and_removal_without_confirmation_are_refused_before_any_request():
    with pytest.raises(DeclarationError, match='.mgr'):
        ceph_pool.FAMILY.declaration(params(ceph_pool.FAMILY, node='node1', name='.mgr'))
    with pytest.raises(Refused, match='confirm_removal'):
        ceph_pool.FAMILY.declaration(params(ceph_pool.FAMILY, node='node1', name='rbd', state='absent'))


@pytest.mark.parametrize('declared, canonical', [
    ('100G', '100G'), (107374182400, '100G'), ('102400M', '100G'), ('1.5K', '1536'), (0, ''), ('0', ''), ('', '')])
def test_byte_sizes_compare_by_value(declared, canonical):
    assert ByteSize('target_size').declared(declared) == canonical


def test_a_byte_size_that_is_not_one_is_refused():
    with pytest.raises(DeclarationError, match='target_size'):
        ByteSize('target_size').declared('lots')


# -- daemons, flags, CephFS --------------------------------------------------------------------------

class Index:
    def __init__(self, rows, error=None):
        self.rows = rows
        self.error = error
        self.calls = []

    def get(self, path, params=None, role='read'):
        self.calls.append(('GET', path, params))
        if self.error:
            raise self.error
        return self.rows

    def put(self, path, form=None, role='provision'):
        self.calls.append(('PUT', path, form))


def test_a_daemon_is_a_row_of_its_index_and_a_failed_index_is_never_absent():
    family = ceph_mgr.FAMILY
    ident = {'node': 'node1', 'id': 'node1'}
    assert family.store.read(Index([{'name': 'node2', 'host': 'node2'}]), family, ident) is ABSENT
    assert family.store.read(Index([{'name': 'node1', 'host': 'node1'}]), family, ident)['name'] == 'node1'
    with pytest.raises(ApiError):
        family.store.read(Index([], error=ApiError.for_status(500, 'got timeout')), family, ident)


def test_a_daemon_on_another_host_is_refused():
    client = Index([{'name': 'node1', 'host': 'node2'}])
    with pytest.raises(Refused, match='never moved'):
        reconcile(client, ceph_mgr.FAMILY, params(ceph_mgr.FAMILY, node='node1', id='node1'))


@pytest.mark.parametrize('addr, ips', [
    ('10.0.0.1:6789/0', ['10.0.0.1']),
    ('[v2:10.0.0.1:3300/0,v1:10.0.0.1:6789/0]', ['10.0.0.1']),
    ('[v2:[fd00::1]:3300/0,v1:[fd00::1]:6789/0]', ['fd00::1']),
    ('', []),
])
def test_a_monitors_address_vector_reads_as_its_ips(addr, ips):
    assert ceph_mon.addresses(addr) == ips


def test_a_monitor_at_another_address_is_refused():
    client = Index([{'name': 'node1', 'host': 'node1', 'addr': '10.0.0.1:6789/0'}])
    with pytest.raises(Refused, match='mon_address'):
        reconcile(client, ceph_mon.FAMILY,
                  params(ceph_mon.FAMILY, node='node1', id='node1', mon_address=['10.0.0.9']))
    same = reconcile(client, ceph_mon.FAMILY, params(ceph_mon.FAMILY, node='node1', id='node1',
                                                     mon_address=['10.0.0.1']))
    assert same['changed'] is False


def test_a_flag_is_set_and_cleared_never_created():
    cleared, flag = Index(0), Index(1)
    result = reconcile(cleared, ceph_flag.FAMILY, params(ceph_flag.FAMILY, flag='noout'), check_mode=True)
    assert result['plan']['action'] == 'create' and cleared.calls == [('GET', '/cluster/ceph/flags/noout', None)]
    result = reconcile(flag, ceph_flag.FAMILY, params(ceph_flag.FAMILY, flag='noout'))
    assert result['changed'] is False
    flag.calls = []
    with pytest.raises(NotConverged):  # the fake keeps answering 1
        reconcile(flag, ceph_flag.FAMILY, params(ceph_flag.FAMILY, flag='noout', state='absent'))
    assert ('PUT', '/cluster/ceph/flags/noout', {'value': '0'}) in flag.calls


def test_a_cephfs_is_never_removed():
    with pytest.raises(DeclarationError, match='pveceph fs destroy shared'):
        ceph_fs.FAMILY.declaration(params(ceph_fs.FAMILY, node='node1', name='shared', state='absent'))


# -- OSDs -------------------------------------------------------------------------------------------

class Node3:
    """A disk list and a CRUSH tree with osd.4 on /dev/sdb; 'stop' takes ``down_after`` tree reads."""

    def __init__(self, down_after=1):
        self.osd = {'id': 4, 'name': 'osd.4', 'type': 'osd', 'status': 'up', 'in': 1, 'device_class': 'ssd'}
        self.down_after = None
        self.delay = down_after
        self.calls = []

    def get(self, path, params=None, role='read'):
        self.calls.append(('GET', path))
        if path == '/nodes/node3/disks/list':
            return [{'devpath': '/dev/sdb', 'by_id_link': '/dev/disk/by-id/ata-X', 'osdid': 4},
                    {'devpath': '/dev/sdc', 'osdid': -1}]
        if path.startswith('/nodes/node3/tasks/'):
            return {'status': 'stopped', 'exitstatus': 'OK'}
        if self.down_after is not None:
            if self.down_after <= 0:
                self.osd['status'] = 'down'
            self.down_after -= 1
        return {'root': {'type': 'root', 'children': [{'type': 'host', 'children': [dict(self.osd)]}]}}

    def post(self, path, form=None, role='provision'):
        self.calls.append(('POST', path))
        if path.endswith('/out'):
            self.osd['in'] = 0
            return None
        self.down_after = self.delay
        return 'UPID:node3:0000A1B2:00C3D4E5:6553F00D:srvstop:osd.4:root@pam:'

    def delete(self, path, params=None, role='provision'):
        self.calls.append(('DELETE', path))
        assert self.osd['status'] == 'down' and not self.osd['in']
        return None


def test_an_osd_is_found_by_its_disk_or_its_by_id_link():
    family = ceph_osd.FAMILY
    raw = family.store.read(Node3(), family, {'node': 'node3', 'dev': '/dev/disk/by-id/ata-X'})
    assert raw == {'osdid': 4, 'up': True, 'in': True, 'crush-device-class': 'ssd'}
    assert family.store.read(Node3(), family, {'node': 'node3', 'dev': '/dev/sdc'}) is ABSENT
    with pytest.raises(Refused, match='has no disk /dev/sdz'):
        family.store.read(Node3(), family, {'node': 'node3', 'dev': '/dev/sdz'})


def test_an_osd_is_removed_out_then_stopped_then_destroyed_once_down():
    client = Node3(down_after=2)
    # the read-back finds the disk still naming osd.4 in the fake: only the order of the writes is judged here
    with pytest.raises(NotConverged):
        reconcile(client, ceph_osd.FAMILY, params(ceph_osd.FAMILY, node='node3', dev='/dev/sdb', state='absent',
                                                  confirm_removal=True))
    writes = [call for call in client.calls if call[0] != 'GET']
    assert writes == [('POST', '/nodes/node3/ceph/osd/4/out'), ('POST', '/nodes/node3/ceph/stop'),
                      ('DELETE', '/nodes/node3/ceph/osd/4')]


# -- ZFS -----------------------------------------------------------------------------------------------

def leaf(name):
    return {'name': name + '-part1', 'leaf': 1}


def tree(*vdevs):
    return {'name': 'tank', 'state': 'ONLINE', 'errors': 'No known data errors',
            'children': [{'name': 'tank', 'children': list(vdevs)}]}


@pytest.mark.parametrize('raw, level, devices', [
    (tree(leaf('/dev/disk/by-id/a')), 'single', ['/dev/disk/by-id/a']),
    (tree({'name': 'mirror-0', 'children': [leaf('/dev/a'), leaf('/dev/b')]}), 'mirror', ['/dev/a', '/dev/b']),
    (tree({'name': 'mirror-0', 'children': [leaf('/dev/a'), leaf('/dev/b')]},
          {'name': 'mirror-1', 'children': [leaf('/dev/c'), leaf('/dev/d')]}), 'raid10',
     ['/dev/a', '/dev/b', '/dev/c', '/dev/d']),
    (tree({'name': 'raidz1-0', 'children': [leaf('/dev/a'), leaf('/dev/b'), leaf('/dev/c')]}), 'raidz',
     ['/dev/a', '/dev/b', '/dev/c']),
    (tree({'name': 'raidz2-0', 'children': [leaf('/dev/a')]}), 'raidz2', ['/dev/a']),
    (tree({'name': 'draid1:2d:3c:0s-0', 'children': [leaf('/dev/a')]}), 'draid', ['/dev/a']),
])
def test_a_zfs_pools_layout_is_read_from_its_status_tree(raw, level, devices):
    assert zfs_pool.layout(raw) == (level, devices)


def test_a_found_zfs_pool_is_never_written_and_a_different_layout_is_a_warning():
    class Zfs:
        calls = []

        def get(self, path, params=None, role='read'):
            self.calls.append(('GET', path))
            return tree({'name': 'mirror-0', 'children': [leaf('/dev/disk/by-id/a'), leaf('/dev/disk/by-id/b')]})

    client = Zfs()
    result = reconcile(client, zfs_pool.FAMILY, params(zfs_pool.FAMILY, node='node2', name='tank', raidlevel='raidz',
                                                       devices=['/dev/disk/by-id/c', '/dev/disk/by-id/d'], ashift=9))
    assert result['changed'] is False and [call[0] for call in client.calls] == ['GET']
    assert len(result['warnings']) == 2 and 'is mirror but the task declares raidz' in result['warnings'][0]
    assert result['object']['devices'] == ['/dev/disk/by-id/a', '/dev/disk/by-id/b']


@pytest.mark.parametrize('values, option', [
    (dict(state='absent'), 'state'),
    (dict(raidlevel='mirror', devices=['sdb', 'sdc']), 'devices'),
    (dict(raidlevel='mirror', devices=['/dev/sdb', '/dev/sdb']), 'devices'),
    (dict(raidlevel='mirror', devices=['/dev/sdb', '/dev/sdc'], draid_config='data=2,spares=1'), 'draid_config'),
])
def test_zfs_declarations_refused_before_any_request(values, option):
    with pytest.raises(DeclarationError, match=option):
        zfs_pool.FAMILY.declaration(params(zfs_pool.FAMILY, node='node2', name='tank', **values))


def test_poll_until_stops_at_the_first_true_answer_or_the_deadline():
    answers = iter([0, 0, 'yes'])
    now = [0.0]
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        now[0] += seconds

    assert poll_until(lambda: next(answers), 10, clock=lambda: now[0], sleep=sleep) == 'yes'
    assert slept == [0.25, 0.5]
    now[0] = 0.0
    assert poll_until(lambda: False, 1, clock=lambda: now[0], sleep=sleep) is False
    assert now[0] == pytest.approx(1.0)


def test_a_create_only_key_pve_ignored_is_not_converged_naming_it():
    class Mds(Index):
        def post(self, path, form=None, role='provision'):
            self.calls.append(('POST', path, form))
            self.rows = [{'name': 'node3', 'host': 'node3', 'standby_replay': 0}]  # hotstandby ignored

    client = Mds([])
    with pytest.raises(NotConverged, match='hotstandby') as raised:
        reconcile(client, ceph_mds.FAMILY, params(ceph_mds.FAMILY, node='node3', id='node3', hotstandby=True))
    assert 'Nothing was written' not in str(raised.value)
    assert client.calls[1] == ('POST', '/nodes/node3/ceph/mds/node3', {'hotstandby': '1'})
