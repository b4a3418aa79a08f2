"""The simulator's cluster families: datacenter options, metric servers, backup jobs, replication jobs.

Each family's endpoints answer as PVE 9 does (status, PVE's wording, what a read returns and leaves
out, secrets kept apart), and the collection's families judge those answers right: numbers read as
text, flags read empty, a missing backup job's 400, a replication job marked for removal.

Run: python -m pytest tests/unit/test_simulator_cluster.py -q
"""

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from collection_root import COLLECTIONS  # noqa: E402

if COLLECTIONS not in sys.path:
    sys.path.insert(0, COLLECTIONS)

from ansible_collections.homeflare.proxmox.plugins.module_utils import api  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import StaticToken  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import argument_spec  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (  # noqa: E402
    Conflict, DeclarationError, ServerError)
from ansible_collections.homeflare.proxmox.plugins.module_utils.families import (  # noqa: E402
    backup_job, cluster_options, metric_server, replication_job)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import ABSENT, reconcile  # noqa: E402
from simulator.pve.handlers.replication import run_pvesr  # noqa: E402
# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import ok, refused  # noqa: E402
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import

ZFS = {'storage': 'tank', 'type': 'zfspool', 'pool': 'rpool/data', 'content': 'images,rootdir'}
CEPH = {'storage': 'ceph', 'type': 'rbd', 'pool': 'rbd'}


def token_with(sim, name, *grants):
    """A privilege-separated token of its own user, holding ``grants`` ((path, role), ...)."""
    userid = '%s@pve' % name
    sim.state.add_user(userid)
    secret = sim.state.add_token(userid, 'tk', privsep=0)
    for path, role in grants:
        sim.state.set_acl(path, role, users=userid)
    return '%s!tk' % userid, secret


def client(sim):
    return api.Client('pve', sim.members, StaticToken(sim.token_id, sim.token_secret), ca_path=sim.ca_path, timeout=5)


def params(module, **values):
    """A task's parameters: the argument spec's defaults, then ``values``."""
    spec = argument_spec(module.FAMILY)
    declared = dict((option, spec[option].get('default')) for option in spec)
    declared.update(values)
    return declared


@pytest.fixture(autouse=True)
def _guests_and_storage(request):
    if 'sim' not in request.fixturenames:
        yield
        return
    sim = request.getfixturevalue('sim')
    state = sim.state
    for form in (ZFS, CEPH):
        if form['storage'] not in state.storage:
            ok(sim, 'POST', '/storage', form)
    with state.lock:
        # one guest per replication test: a guest has at most one job per target
        state.guests.update((vmid, {'type': 'qemu', 'node': 'node1', 'config': {
            'scsi0': 'tank:vm-%d-disk-0,size=8G' % vmid, 'ide2': 'local:iso/debian.iso,media=cdrom'}})
            for vmid in (100, 105, 106, 107))
        state.guests.update({
            101: {'type': 'qemu', 'node': 'node1', 'config': {'scsi0': 'ceph:vm-101-disk-0,size=8G'}},
            102: {'type': 'qemu', 'node': 'node1', 'config': {'scsi0': 'local-lvm:vm-102-disk-0,size=8G'}},
            103: {'type': 'lxc', 'node': 'node2',
                  'config': {'rootfs': 'tank:subvol-103-disk-0,size=8G', 'mp0': '/srv/data,mp=/data'}},
            104: {'type': 'qemu', 'node': 'node1',
                  'config': {'scsi0': 'tank:vm-104-disk-0,replicate=0', 'scsi1': 'ceph:vm-104-disk-1'}},
        })
    yield


# -- /cluster/options --------------------------------------------------------------------------

def test_datacenter_options_read_as_parse_datacenter_config_answers(sim):
    sim.state.datacenter.clear()
    assert ok(sim, 'GET', '/cluster/options') == {'description': ''}
    ok(sim, 'PUT', '/cluster/options', {
        'keyboard': 'de', 'console': 'applet', 'max_workers': '4', 'migration': 'insecure,network=10.0.0.0/24',
        'tag-style': 'case-sensitive=1,shape=dense', 'next-id': 'lower=1000', 'bwlimit': 'default=100',
        'registered-tags': 'zeta;alpha', 'user-tag-access': 'user-allow=list,user-allow-list=b;a',
        'description': 'Lab cluster\n\nsecond line\n'})
    read = ok(sim, 'GET', '/cluster/options')
    assert read == {
        'keyboard': 'de', 'console': 'html5', 'max_workers': '4',
        'migration': {'type': 'insecure', 'network': '10.0.0.0/24'},
        'tag-style': {'case-sensitive': 1, 'shape': 'dense'}, 'next-id': {'lower': '1000'},
        # bwlimit is not one of the options PVE parses on read
        'bwlimit': 'default=100',
        'registered-tags': ['zeta', 'alpha'],
        'user-tag-access': {'user-allow': 'list', 'user-allow-list': ['b', 'a']},
        'description': 'Lab cluster\n\nsecond line\n'}
    assert 'digest' not in read


def test_datacenter_options_rewrite_the_tag_lists_sorted_when_another_option_is_written(sim):
    sim.state.datacenter.clear()
    ok(sim, 'PUT', '/cluster/options', {'registered-tags': 'zeta;alpha', 'user-tag-access': 'user-allow-list=b;a'})
    ok(sim, 'PUT', '/cluster/options', {'language': 'en'})
    read = ok(sim, 'GET', '/cluster/options')
    assert read['registered-tags'] == ['alpha', 'zeta']
    assert read['user-tag-access'] == {'user-allow-list': ['a', 'b']}


def test_datacenter_options_delete_and_what_put_refuses(sim):
    sim.state.datacenter.clear()
    ok(sim, 'PUT', '/cluster/options', {'keyboard': 'de', 'language': 'en', 'description': 'x'})
    ok(sim, 'PUT', '/cluster/options', {'delete': 'keyboard,description,fencing'})
    assert ok(sim, 'GET', '/cluster/options') == {'language': 'en', 'description': ''}
    # no digest on this file: the schema has no such parameter
    status, _message, errors = refused(sim, 'PUT', '/cluster/options', {'keyboard': 'de', 'digest': 'a' * 40})
    assert status == 400 and 'digest' in errors
    status, _message, errors = refused(sim, 'PUT', '/cluster/options', {'migration': 'type=fast'})
    assert status == 400 and errors['migration'].startswith('invalid format - format error')
    assert refused(sim, 'PUT', '/cluster/options', {'next-id': 'lower=5000,upper=4000'}) == (
        500, 'lower (5000) <= upper (4000) boundary rule broken\n', None)
    assert 'next-id' not in ok(sim, 'GET', '/cluster/options')


def test_datacenter_options_need_sys_audit_to_read_and_sys_modify_to_write(sim):
    auditor = token_with(sim, 'dcaudit', ('/', 'PVEAuditor'))
    assert 'description' in ok(sim, 'GET', '/cluster/options', token=auditor)
    assert refused(sim, 'PUT', '/cluster/options', {'keyboard': 'de'}, token=auditor)[:2] == (
        403, 'Permission check failed (/, Sys.Modify)\n')


# -- /cluster/metrics/server -----------------------------------------------------------------

INFLUX = {'type': 'influxdb', 'server': '10.0.0.5', 'port': '8086', 'influxdbproto': 'https', 'token': 'tok-1',
          'verify-certificate': '0'}


def test_a_metric_server_is_created_on_its_own_path_and_reads_back_typed(sim):
    assert refused(sim, 'POST', '/cluster/metrics/server', dict(INFLUX, id='m1'))[:2] == (
        501, "Method 'POST /cluster/metrics/server' not implemented")
    ok(sim, 'POST', '/cluster/metrics/server/m1', INFLUX)
    # status.cfg is a SectionConfig: check_value makes integers and flags numbers
    assert ok(sim, 'GET', '/cluster/metrics/server/m1') == {
        'type': 'influxdb', 'server': '10.0.0.5', 'port': 8086, 'influxdbproto': 'https',
        'verify-certificate': 0}
    assert sim.state.metric_secrets['m1'] == 'tok-1'
    listed = [row for row in ok(sim, 'GET', '/cluster/metrics/server') if row['id'] == 'm1']
    assert listed == [{'id': 'm1', 'disable': 0, 'type': 'influxdb', 'server': '10.0.0.5', 'port': 8086}]
    assert refused(sim, 'POST', '/cluster/metrics/server/m1', INFLUX)[:2] == (500, "Metric server 'm1' already exists\n")


def test_metric_server_writes_follow_the_plugin_and_the_schema(sim):
    graphite = {'type': 'graphite', 'server': 'carbon', 'port': '2003'}
    status, _message, errors = refused(sim, 'POST', '/cluster/metrics/server/g0', {'type': 'graphite', 'server': 'c'})
    assert status == 400 and errors == {'port': 'property is missing and it is not optional'}
    assert refused(sim, 'POST', '/cluster/metrics/server/g0', dict(graphite, mtu='1500'))[:2] == (
        500, "unexpected property 'mtu'\n")
    # graphite has no credential hook: a token sent to it is dropped, not refused
    ok(sim, 'POST', '/cluster/metrics/server/g0', dict(graphite, token='dropped'))
    assert 'g0' not in sim.state.metric_secrets
    status, _message, errors = refused(sim, 'PUT', '/cluster/metrics/server/g0', {'path': 'x'})
    assert status == 400 and set(errors) == {'server', 'port'}
    status, _message, errors = refused(sim, 'PUT', '/cluster/metrics/server/g0', dict(graphite, path='a.b'))
    assert status == 400 and set(errors) == {'type'}
    base = {'server': 'carbon', 'port': '2003'}
    assert refused(sim, 'PUT', '/cluster/metrics/server/g0', dict(base, delete='server'))[:2] == (
        500, "unable to delete required option 'server'\n")
    assert refused(sim, 'PUT', '/cluster/metrics/server/g0', dict(base, path='a.b', delete='path'))[:2] == (
        500, "cannot set and delete property 'path' at the same time!\n")
    assert refused(sim, 'PUT', '/cluster/metrics/server/g0', dict(base, delete='mtu'))[:2] == (
        500, "no such option 'mtu'\n")
    assert refused(sim, 'PUT', '/cluster/metrics/server/g0', dict(base, digest='0' * 40))[:2] == (
        500, 'detected modified configuration - file changed by other user? Try again.\n')
    ok(sim, 'PUT', '/cluster/metrics/server/g0', dict(base, path='pve.lab', proto='tcp'))
    assert ok(sim, 'GET', '/cluster/metrics/server/g0')['path'] == 'pve.lab'


def test_the_influxdb_token_is_kept_apart_replaced_removed_and_never_read(sim):
    ok(sim, 'POST', '/cluster/metrics/server/m2', INFLUX)
    base = {'server': '10.0.0.5', 'port': '8086'}
    ok(sim, 'PUT', '/cluster/metrics/server/m2', dict(base, bucket='b'))
    assert sim.state.metric_secrets['m2'] == 'tok-1'
    ok(sim, 'PUT', '/cluster/metrics/server/m2', dict(base, token='tok-2'))
    assert sim.state.metric_secrets['m2'] == 'tok-2'
    assert 'tok-2' not in str(ok(sim, 'GET', '/cluster/metrics/server/m2'))
    ok(sim, 'PUT', '/cluster/metrics/server/m2', dict(base, delete='token'))
    assert 'm2' not in sim.state.metric_secrets
    ok(sim, 'PUT', '/cluster/metrics/server/m2', dict(base, token='tok-3'))
    ok(sim, 'DELETE', '/cluster/metrics/server/m2')
    assert 'm2' not in sim.state.metric_secrets and 'm2' not in sim.state.metric_servers


def test_a_missing_metric_server_in_pves_words(sim):
    assert refused(sim, 'GET', '/cluster/metrics/server/nope')[:2] == (
        500, "status server entry 'nope' does not exist\n")
    assert refused(sim, 'PUT', '/cluster/metrics/server/nope', {'server': 'a', 'port': '1'})[:2] == (
        500, "no such server 'nope'\n")
    # PVE looks the plugin up by the missing section's (undefined) type first
    assert refused(sim, 'DELETE', '/cluster/metrics/server/nope')[:2] == (500, "unknown section type ''\n")


# -- /cluster/backup --------------------------------------------------------------------------

JOB = {'schedule': '21:00', 'storage': 'local', 'vmid': '100,105', 'prune-backups': 'keep-last=3,keep-daily=7',
       'fleecing': '1', 'performance': 'max-workers=4', 'compress': 'zstd'}


def test_a_backup_job_reads_its_property_strings_as_objects(sim):
    ok(sim, 'POST', '/cluster/backup', dict(JOB, id='b1'))
    read = ok(sim, 'GET', '/cluster/backup/b1')
    assert read == {
        'id': 'b1', 'type': 'vzdump', 'schedule': '21:00', 'storage': 'local', 'vmid': '100,105', 'compress': 'zstd',
        'enabled': 1, 'prune-backups': {'keep-last': '3', 'keep-daily': '7'}, 'fleecing': {'enabled': 1},
        'performance': {'max-workers': '4'}}
    assert [row for row in ok(sim, 'GET', '/cluster/backup') if row['id'] == 'b1'] == [read]
    assert refused(sim, 'POST', '/cluster/backup', dict(JOB, id='b1'))[:2] == (500, "Job 'b1' already exists\n")


def test_a_backup_job_s_texts_read_back_as_jobs_cfg_keeps_them(sim):
    # Job/Registry.pm writes the comment through encode_text and the notes-template as is; parse_config trims both
    ok(sim, 'POST', '/cluster/backup', dict(JOB, id='texts', comment=' \tnightly ', **{'notes-template': ' {{guestname}} '}))
    read = ok(sim, 'GET', '/cluster/backup/texts')
    assert (read['comment'], read['notes-template']) == ('\tnightly', '{{guestname}}')
    ok(sim, 'PUT', '/cluster/backup/texts', {'comment': '0'})  # Perl-false: never written
    assert 'comment' not in ok(sim, 'GET', '/cluster/backup/texts')
    ok(sim, 'DELETE', '/cluster/backup/texts')


def test_a_missing_backup_job_in_pves_words(sim):
    assert refused(sim, 'GET', '/cluster/backup/gone') == (
        400, 'Parameter verification failed.\n', {'id': "No such job 'gone'"})
    assert refused(sim, 'PUT', '/cluster/backup/gone', {'comment': 'x'})[:2] == (500, 'no such vzdump job\n')
    # raise_param_exc inside the lock, re-died as text: a 500 carrying the 400
    assert refused(sim, 'DELETE', '/cluster/backup/gone') == (
        500, "400 Parameter verification failed.\nid: No such job 'gone'\n", None)


def test_a_backup_job_needs_guests_and_a_schedule(sim):
    # verify_vzdump_parameters runs inside cfs_lock_file: its 400 is re-died as text, a 500
    assert refused(sim, 'POST', '/cluster/backup', {'id': 'b2', 'schedule': 'daily'}) == (
        500, '400 Parameter verification failed.\nvmid: property is missing\n', None)
    assert refused(sim, 'POST', '/cluster/backup', {'id': 'b2', 'all': '1', 'vmid': '100', 'schedule': 'daily'}) \
        == (500, "400 Parameter verification failed.\nall: option conflicts with option 'vmid'\n", None)
    # check_pool_exist and $schedule_param_check come before the lock
    assert refused(sim, 'POST', '/cluster/backup', {'id': 'b2', 'pool': 'p', 'vmid': '100', 'schedule': 'x'})[:2] == (
        403, "Permission check failed (pool 'p' does not exist)\n")
    assert refused(sim, 'POST', '/cluster/backup', {'id': 'b2', 'all': '1'}) == (
        400, 'Parameter verification failed.\n', {'schedule': "neither 'starttime' nor 'schedule' were set"})
    assert refused(sim, 'POST', '/cluster/backup', {'id': 'b2', 'all': '1', 'schedule': 'daily',
                                                    'starttime': '02:30'})[2] == {
        'starttime': "'starttime' and 'schedule' cannot both be set"}
    # the legacy start time and days become the schedule
    ok(sim, 'POST', '/cluster/backup', {'id': 'b2', 'all': '1', 'starttime': '02:30', 'dow': 'sat'})
    assert ok(sim, 'GET', '/cluster/backup/b2')['schedule'] == 'sat 02:30'
    # PVE 9 dropped the maxfiles check (pve-manager 9b193c4a): both are taken
    ok(sim, 'POST', '/cluster/backup', {'id': 'b5', 'all': '1', 'schedule': 'daily', 'maxfiles': '2',
                                        'prune-backups': 'keep-last=3'})
    ok(sim, 'DELETE', '/cluster/backup/b5')
    # the root token is not root@pam: the root-only options are refused to it
    assert refused(sim, 'POST', '/cluster/backup', {'id': 'b3', 'all': '1', 'schedule': 'daily',
                                                    'dumpdir': '/srv'})[2] == {'dumpdir': 'Only root may set this option.'}
    status, _message, errors = refused(sim, 'POST', '/cluster/backup', dict(JOB, id='b3', fleecing='enabled=maybe'))
    assert status == 400 and errors['fleecing'].startswith('invalid format - format error')


def test_a_backup_job_update_keeps_one_guest_selection(sim):
    ok(sim, 'POST', '/cluster/backup', {'id': 'b4', 'schedule': 'daily', 'vmid': '100', 'comment': 'c'})
    ok(sim, 'PUT', '/cluster/backup/b4', {'all': '1', 'exclude': '101'})
    read = ok(sim, 'GET', '/cluster/backup/b4')
    assert read['all'] == 1 and read['exclude'] == '101' and 'vmid' not in read
    ok(sim, 'PUT', '/cluster/backup/b4', {'vmid': '102', 'enabled': '0', 'delete': 'comment'})
    read = ok(sim, 'GET', '/cluster/backup/b4')
    assert read['vmid'] == '102' and read['enabled'] == 0
    assert not {'all', 'exclude', 'comment'} & set(read)
    assert refused(sim, 'PUT', '/cluster/backup/b4', {'delete': 'bogus'})[:2] == (
        500, "400 Parameter verification failed.\ndelete: unknown option 'bogus'\n")
    # the update's own schedule and enabled are no vzdump options
    assert refused(sim, 'PUT', '/cluster/backup/b4', {'delete': 'schedule'})[:2] == (
        500, "400 Parameter verification failed.\ndelete: unknown option 'schedule'\n")
    assert refused(sim, 'PUT', '/cluster/backup/b4', {'all': '1', 'vmid': '100'})[:2] == (
        500, "400 Parameter verification failed.\nall: option conflicts with option 'vmid'\n")
    assert refused(sim, 'PUT', '/cluster/backup/b4', {'pool': 'nopool'})[:2] == (
        403, "Permission check failed (pool 'nopool' does not exist)\n")
    # a token of root is not root@pam: it may neither set nor delete the root-only options
    assert refused(sim, 'PUT', '/cluster/backup/b4', {'delete': 'script'})[2] == {
        'script': 'Only root may set this option.'}
    ok(sim, 'PUT', '/cluster/backup/b4', {'starttime': '03:15', 'dow': 'mon,tue'})
    assert ok(sim, 'GET', '/cluster/backup/b4')['schedule'] == 'mon,tue 03:15'
    ok(sim, 'DELETE', '/cluster/backup/b4')
    assert 'b4' not in sim.state.backup_jobs


# -- /cluster/replication ---------------------------------------------------------------------

def test_a_replication_job_reads_with_guest_jobnum_source_and_digest(sim):
    ok(sim, 'POST', '/cluster/replication', {'id': '100-0', 'type': 'local', 'target': 'node2', 'rate': '10',
                                             'schedule': '*/30'})
    read = ok(sim, 'GET', '/cluster/replication/100-0')
    digest = read.pop('digest')
    assert len(digest) == 40
    # ReplicationConfig.pm parse_replication_job_id int()s guest and jobnum; check_value makes rate a number
    assert read == {'id': '100-0', 'type': 'local', 'target': 'node2', 'rate': 10, 'schedule': '*/30',
                    'source': 'node1', 'guest': 100, 'jobnum': 0}
    assert [row for row in ok(sim, 'GET', '/cluster/replication') if row['id'] == '100-0'] == [read]
    assert refused(sim, 'POST', '/cluster/replication', {'id': '100-0', 'type': 'local', 'target': 'node3'})[:2] == (
        500, "replication job '100-0' already exists\n")
    assert refused(sim, 'POST', '/cluster/replication', {'id': '100-5', 'type': 'local', 'target': 'node2'})[:2] == (
        500, "replication job for guest '100' to target 'local/node2' already exists\n")


@pytest.mark.parametrize('vmid, target, message', [
    (101, 'node2', 'No replicatable volumes found'),  # Ceph only: shared volumes are skipped
    (104, 'node2', 'No replicatable volumes found'),  # its ZFS disk says replicate=0, the other is on Ceph
    (102, 'node2', "missing replicate feature on volume 'local-lvm:vm-102-disk-0'"),
    (999, 'node2', "Guest '999' does not exist."),
    (100, 'node9', "Target 'node9' does not exist."),
    (100, 'node1', 'Source and target must not be identical'),
])
def test_pve_refuses_a_replication_job_it_cannot_run(sim, vmid, target, message):
    form = {'id': '%d-7' % vmid, 'type': 'local', 'target': target}
    assert refused(sim, 'POST', '/cluster/replication', form) == (500, message + '\n', None)
    assert '%d-7' % vmid not in sim.state.replication_jobs


def test_a_container_replicates_its_zfs_rootfs_and_skips_its_bind_mount(sim):
    ok(sim, 'POST', '/cluster/replication', {'id': '103-0', 'type': 'local', 'target': 'node3'})
    assert refused(sim, 'POST', '/cluster/replication', {'id': '103-1', 'type': 'local', 'target': 'node3',
                                                         'source': 'node1'})[:2] == (
        500, "Source 'node1' does not match current node of guest '103' (node2)\n")


def test_a_replication_job_update_takes_a_digest_and_keeps_its_target(sim):
    ok(sim, 'POST', '/cluster/replication', {'id': '105-1', 'type': 'local', 'target': 'node3', 'rate': '5'})
    status, _message, errors = refused(sim, 'PUT', '/cluster/replication/105-1', {'target': 'node2'})
    assert status == 400 and 'target' in errors
    assert refused(sim, 'PUT', '/cluster/replication/105-1', {'delete': 'target'})[:2] == (
        500, "unable to delete required option 'target'\n")
    assert refused(sim, 'PUT', '/cluster/replication/105-1', {'delete': 'bogus'})[:2] == (
        500, "no such option 'bogus'\n")
    assert refused(sim, 'PUT', '/cluster/replication/105-1', {'comment': 'x', 'digest': '0' * 40})[:2] == (
        500, 'detected modified configuration - file changed by other user? Try again.\n')
    digest = ok(sim, 'GET', '/cluster/replication/105-1')['digest']
    ok(sim, 'PUT', '/cluster/replication/105-1', {'comment': 'standby', 'delete': 'rate', 'digest': digest})
    read = ok(sim, 'GET', '/cluster/replication/105-1')
    assert read['comment'] == 'standby' and 'rate' not in read and read['digest'] != digest
    assert refused(sim, 'PUT', '/cluster/replication/105-9', {'comment': 'x'})[:2] == (500, "no such job '105-9'\n")
    assert refused(sim, 'GET', '/cluster/replication/105-9')[:2] == (500, "no such replication job '105-9'\n")


def test_deleting_a_replication_job_marks_it_and_pvesr_removes_it(sim):
    ok(sim, 'POST', '/cluster/replication', {'id': '106-2', 'type': 'local', 'target': 'node3'})
    ok(sim, 'DELETE', '/cluster/replication/106-2')
    assert ok(sim, 'GET', '/cluster/replication/106-2')['remove_job'] == 'full'
    ok(sim, 'DELETE', '/cluster/replication/106-2', {'keep': '1'})
    assert ok(sim, 'GET', '/cluster/replication/106-2')['remove_job'] == 'local'
    run_pvesr(sim.state)
    assert refused(sim, 'GET', '/cluster/replication/106-2')[:2] == (500, "no such replication job '106-2'\n")
    assert refused(sim, 'DELETE', '/cluster/replication/106-2')[:2] == (500, "no such job '106-2'\n")
    ok(sim, 'POST', '/cluster/replication', {'id': '106-2', 'type': 'local', 'target': 'node3'})
    assert refused(sim, 'DELETE', '/cluster/replication/106-2', {'force': '1', 'keep': '1'})[2] == {
        'keep': "conflicts with parameter 'force'"}
    ok(sim, 'DELETE', '/cluster/replication/106-2', {'force': '1'})
    assert '106-2' not in sim.state.replication_jobs


def test_replication_jobs_need_vm_audit_to_read_and_vm_replicate_to_write(sim):
    ok(sim, 'POST', '/cluster/replication', {'id': '103-4', 'type': 'local', 'target': 'node1'})
    if '100-0' not in sim.state.replication_jobs:  # another test's job (the module's simulator is shared)
        ok(sim, 'POST', '/cluster/replication', {'id': '100-0', 'type': 'local', 'target': 'node2'})
    auditor = token_with(sim, 'repaudit', ('/vms/103', 'PVEAuditor'))
    assert ok(sim, 'GET', '/cluster/replication/103-4', token=auditor)['target'] == 'node1'
    assert {row['guest'] for row in ok(sim, 'GET', '/cluster/replication', token=auditor)} == {103}
    assert refused(sim, 'GET', '/cluster/replication/100-0', token=auditor)[:2] == (
        403, 'Permission check failed (/vms/100, VM.Audit)\n')
    assert refused(sim, 'PUT', '/cluster/replication/103-4', {'comment': 'x'}, token=auditor)[:2] == (
        403, 'Permission check failed (/vms/103, VM.Replicate)\n')


# -- the families judge these answers ---------------------------------------------------------

def test_metric_server_numbers_kept_as_text_read_as_numbers_and_compare_equal(sim):
    declared = params(metric_server, id='m9', type='influxdb', server='10.0.0.9', port=8086, mtu=1500,
                      disable=False, verify_certificate=True, token='tok-9')
    assert reconcile(client(sim), metric_server.FAMILY, declared)['plan']['action'] == 'create'
    assert sim.state.metric_servers['m9']['port'] == '8086'
    # the file's text, read through SectionConfig check_value: numbers, whatever the simulator stored
    sim.state.metric_servers['m9'].update({'mtu': '1500', 'disable': 0})
    assert {key: ok(sim, 'GET', '/cluster/metrics/server/m9')[key] for key in ('port', 'mtu', 'disable')} == {
        'port': 8086, 'mtu': 1500, 'disable': 0}
    sim.clear_log()
    result = reconcile(client(sim), metric_server.FAMILY, declared)
    assert result['plan'] == {'read': 'found', 'action': 'none', 'changed': []}
    assert sim.writes() == [] and 'token' not in result['object']
    # a bare flag line reads as set (check_value: `$value = 1 if $ct eq 'boolean' && !defined($value)`)
    sim.state.metric_servers['m9']['disable'] = ''
    assert ok(sim, 'GET', '/cluster/metrics/server/m9')['disable'] == 1
    assert reconcile(client(sim), metric_server.FAMILY, declared)['plan']['changed'] == ['disable']


def test_metric_server_updates_carry_server_and_port(sim):
    declared = params(metric_server, id='m8', type='graphite', server='carbon', port=2003, path='pve.a')
    reconcile(client(sim), metric_server.FAMILY, declared)
    sim.clear_log()
    reconcile(client(sim), metric_server.FAMILY, dict(declared, path='pve.b'))
    assert [entry['form'] for entry in sim.writes()] == [{'path': 'pve.b', 'server': 'carbon', 'port': '2003'}]


def test_a_backup_job_is_judged_by_sets_and_pairs(sim):
    declared = params(backup_job, id='b9', schedule='21:00', storage='local', vmid=['1000', '105', '100'],
                      enabled=True, prune_backups='keep-daily=7,keep-last=3', fleecing='1')
    assert reconcile(client(sim), backup_job.FAMILY, declared)['plan']['action'] == 'create'
    # read back as {enabled: 1} and an object of counts; a bare `enabled` line (stored '') reads 1: on
    sim.state.backup_jobs['b9']['enabled'] = ''
    sim.clear_log()
    assert reconcile(client(sim), backup_job.FAMILY, declared)['plan']['action'] == 'none'
    assert sim.writes() == []
    sim.state.backup_jobs['b9']['enabled'] = '0'
    result = reconcile(client(sim), backup_job.FAMILY, declared)
    assert result['plan']['changed'] == ['enabled']
    # storage goes with every update, PVE takes notes-template and protected only alongside it
    assert sim.writes()[-1]['form'] == {'enabled': '1', 'storage': 'local'}


def test_a_missing_backup_job_is_absent_and_a_delete_race_is_judged_again(sim):
    assert backup_job.FAMILY.store.read(client(sim), backup_job.FAMILY, {'id': 'nojob'}) is ABSENT
    declared = params(backup_job, id='b8', schedule='daily', all=True)
    reconcile(client(sim), backup_job.FAMILY, declared)
    # someone else deletes it between our read and our delete: PVE's 500 means it is gone
    sim.before('DELETE', r'^/cluster/backup/b8$', lambda form: sim.state.backup_jobs.pop('b8', None), times=1)
    result = reconcile(client(sim), backup_job.FAMILY, dict(declared, state='absent'))
    assert result['plan']['action'] == 'none' and result['warnings']


def test_a_replication_job_marked_for_removal_is_absent(sim):
    declared = params(replication_job, id='107-3', target='node3', rate='12.50')
    result = reconcile(client(sim), replication_job.FAMILY, declared)
    assert result['object']['rate'] == '12.5'
    assert reconcile(client(sim), replication_job.FAMILY, dict(declared, rate='12.5'))['changed'] is False
    assert reconcile(client(sim), replication_job.FAMILY, dict(declared, state='absent'))['changed'] is True
    assert sim.state.replication_jobs['107-3']['remove_job'] == 'full'
    assert reconcile(client(sim), replication_job.FAMILY, dict(declared, state='absent'))['changed'] is False
    # declared again before pvesr ran: PVE still has the id, twice over
    with pytest.raises(Conflict, match="already exists"):
        reconcile(client(sim), replication_job.FAMILY, declared)
    run_pvesr(sim.state)
    assert reconcile(client(sim), replication_job.FAMILY, declared)['plan']['action'] == 'create'


def test_pves_replication_refusal_is_surfaced_as_it_is(sim):
    with pytest.raises(ServerError, match='No replicatable volumes found'):
        reconcile(client(sim), replication_job.FAMILY, params(replication_job, id='101-0', target='node2'))
    assert '101-0' not in sim.state.replication_jobs


@pytest.mark.parametrize('module, values, option', [
    (replication_job, dict(id='100-0', target='node2', rate='0.5'), 'rate'),
    (replication_job, dict(id='100-0', target='node2', rate='fast'), 'rate'),
    (cluster_options, dict(next_id='lower=5000,upper=4000'), 'next_id'),
    (cluster_options, dict(migration='type=fast'), 'migration'),
    (cluster_options, dict(crs='ha=fancy'), 'crs'),
    (metric_server, dict(id='g1', type='graphite', server='c', port=2003, mtu=1500), 'mtu'),
    (backup_job, dict(id='b1', schedule='daily', vmid=['100'], pool='p'), 'pool'),
    (backup_job, dict(id='b1', schedule='daily', all=True, protected=False), 'protected'),
])
def test_what_the_families_refuse_before_any_request(module, values, option):
    with pytest.raises(DeclarationError, match='option %s' % option):
        module.FAMILY.declaration(params(module, **values))
