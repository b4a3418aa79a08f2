"""The simulator's reads that playbooks touch: /version, /cluster/status, /cluster/nextid, /nodes/{node}
(index, version, status), the task list and a task's index, status, log and stop, the RRD reads.

Each answers as pve-manager (PVE/API2.pm, API2/Cluster.pm, API2/Nodes.pm, API2/Tasks.pm) builds it: the fields
and their JSON types, the filters, who may see what, and the errors in PVE's words.

Run: python -m pytest tests/unit/test_simulator_reads.py -q
"""

import gzip
import http.client
import json
import ssl
import sys
import time
import urllib.parse
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
from simulator.pve.handlers.guests import add_guest  # noqa: E402
from simulator.tasks import Task, pve_upid  # noqa: E402
# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import ok, refused  # noqa: E402
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import

T0 = 1760000000  # the start time of the seeded tasks


def quoted(upid):
    return urllib.parse.quote(upid, safe='')


@pytest.fixture(autouse=True)
def _fresh_state(request):
    """Every test starts without guests, tasks, datacenter options or extra users."""
    if 'sim' not in request.fixturenames:
        yield
        return
    state = request.getfixturevalue('sim').state
    with state.lock:
        state.guests.clear()
        state.tasks.clear()
        state.datacenter.clear()
    yield
    with state.lock:
        for userid in [userid for userid in state.users if userid != 'root@pam']:
            for name in list(state.users[userid]['tokens']):
                state.remove_token(userid, name)
            state.drop_acl_subject('users', userid)
            state.passwords.pop(userid, None)
            del state.users[userid]
        for node in state.nodes.values():
            node['online'] = 1


def user_token(sim, userid, name='tk', password=None):
    """A privilege-separated token of ``userid`` (created), and no ACL."""
    if userid not in sim.state.users:
        sim.state.add_user(userid, password=password)
    return '%s!%s' % (userid, name), sim.state.add_token(userid, name, privsep=1)


def ticket_request(sim, userid, password, method, path, form=None):
    """One request authenticated by a ticket of ``userid`` (cookie + CSRF token); (status, body)."""
    status, login = sim.request('POST', '/access/ticket', {'username': userid, 'password': password})
    assert status == 200, login
    headers = {'Cookie': 'PVEAuthCookie=' + urllib.parse.quote(login['data']['ticket']),
               'CSRFPreventionToken': login['data']['CSRFPreventionToken']}
    target = '/api2/json' + path + ('?' + urllib.parse.urlencode(form) if form else '')
    host, port = sim.members[0].split(':')
    conn = http.client.HTTPSConnection(host, int(port), timeout=5,
                                       context=ssl.create_default_context(cafile=sim.ca_path))
    try:
        conn.request(method, target, headers=headers)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read().decode())
    finally:
        conn.close()


def seed_task(sim, node, typ, wid, user, starttime, exitstatus='OK', duration=0.0, lines=None, running=False):
    """A task that started at ``starttime`` (a running one: started now and running for a minute)."""
    state = sim.state
    with state.lock:
        pid = 0x1000 + len(state.tasks)
        upid = pve_upid(node, pid, 0x100000, starttime, typ, wid, user)
        started = time.time() if running else float(starttime)
        state.tasks[upid] = Task(upid=upid, node=node, pid=pid, pstart=0x100000, starttime=starttime, type=typ,
                                 id=wid, user=user, exitstatus=exitstatus, started=started,
                                 duration=60.0 if running else duration, lines=list(lines or []))
    return upid


def listed(sim, form=None, token=None, node='node1'):
    status, body = sim.request('GET', '/nodes/%s/tasks' % node, form, token=token)
    assert status == 200, body
    return [row['upid'] for row in body['data']], body['total']


# -- /version, /nodes/{node}, /nodes/{node}/version ------------------------------------------------------

def test_version_answers_pvecfg_and_the_datacenter_console(sim):
    assert ok(sim, 'GET', '/version') == dict((key, sim.state.version[key])
                                              for key in ('version', 'release', 'repoid'))
    sim.state.datacenter['console'] = 'xtermjs'
    assert ok(sim, 'GET', '/version')['console'] == 'xtermjs'
    sim.state.datacenter['console'] = 'applet'  # parse_datacenter_config maps the deprecated viewer
    assert ok(sim, 'GET', '/version')['console'] == 'html5'
    # any user may read it
    assert sim.request('GET', '/version', token=user_token(sim, 'nobody@pve'))[0] == 200
    assert ok(sim, 'GET', '/nodes/node2/version') == dict(
        (key, sim.state.version[key]) for key in ('version', 'release', 'repoid'))


def test_node_index_lists_the_children_of_any_node(sim):
    names = [row['name'] for row in ok(sim, 'GET', '/nodes/node1')]
    assert names[:3] == ['aplinfo', 'apt', 'capabilities'] and len(names) == 41
    assert {'qemu', 'lxc', 'status', 'tasks', 'rrddata', 'storage', 'version'} <= set(names)
    # no proxyto: a node the cluster does not have is not looked up
    assert ok(sim, 'GET', '/nodes/elsewhere') == ok(sim, 'GET', '/nodes/node1')


# -- /cluster/status -------------------------------------------------------------------------------------

def test_cluster_status_rows_and_types(sim):
    rows = ok(sim, 'GET', '/cluster/status', token=None)
    assert rows[0] == {'type': 'cluster', 'id': 'cluster', 'name': sim.state.cluster_name, 'nodes': 3,
                       'version': 3, 'quorate': 1}
    assert rows[1] == {'type': 'node', 'id': 'node/node1', 'name': 'node1', 'nodeid': 1, 'local': 1,
                       'online': 1, 'ip': '127.0.0.1', 'level': ''}
    assert [row['local'] for row in rows[1:]] == [1, 0, 0]
    # member 1 answers for node2
    assert [row['local'] for row in sim.request('GET', '/cluster/status', member=1)[1]['data'][1:]] == [0, 1, 0]
    sim.state.nodes['node3']['ip'] = None  # pmxcfs does not know the address: no ip key
    try:
        assert 'ip' not in ok(sim, 'GET', '/cluster/status')[3]
    finally:
        sim.state.nodes['node3']['ip'] = '127.0.0.1'
    assert refused(sim, 'GET', '/cluster/status', token=user_token(sim, 'blind@pve')) == (
        403, 'Permission check failed (/, Sys.Audit)\n', None)


# -- /cluster/nextid ---------------------------------------------------------------------------------------

def test_nextid_is_the_first_free_vmid_as_a_string(sim):
    assert ok(sim, 'GET', '/cluster/nextid') == '100'
    add_guest(sim.state, 'qemu', 100, 'node1')
    add_guest(sim.state, 'lxc', 101, 'node3')  # every guest of every node counts
    add_guest(sim.state, 'qemu', 103, 'node2')
    assert ok(sim, 'GET', '/cluster/nextid') == '102'
    # any user may ask
    assert ok(sim, 'GET', '/cluster/nextid', token=user_token(sim, 'asker@pve')) == '102'


def test_nextid_checks_a_given_vmid(sim):
    add_guest(sim.state, 'lxc', 150, 'node2')
    assert ok(sim, 'GET', '/cluster/nextid', {'vmid': '151'}) == '151'
    assert refused(sim, 'GET', '/cluster/nextid', {'vmid': '150'}) == (
        400, 'Parameter verification failed.\n', {'vmid': 'VM 150 already exists'})
    status, _message, errors = refused(sim, 'GET', '/cluster/nextid', {'vmid': '99'})
    assert status == 400 and list(errors) == ['vmid']


def test_nextid_honours_the_datacenter_range(sim):
    for vmid in (500, 501):
        add_guest(sim.state, 'qemu', vmid, 'node1')
    assert ok(sim, 'PUT', '/cluster/options', {'next-id': 'lower=500'}) is None
    assert ok(sim, 'GET', '/cluster/nextid') == '502'
    assert ok(sim, 'PUT', '/cluster/options', {'next-id': 'lower=500,upper=502'}) is None
    # upper is exclusive, and the message names the range as configured
    assert refused(sim, 'GET', '/cluster/nextid') == (
        500, 'unable to get any free VMID in range [500, 502]\n', None)
    # a given vmid is checked against the guests only, not against the range
    assert ok(sim, 'GET', '/cluster/nextid', {'vmid': '100'}) == '100'
    assert ok(sim, 'PUT', '/cluster/options', {'next-id': 'upper=101'}) is None
    assert ok(sim, 'GET', '/cluster/nextid') == '100'


# -- /nodes/{node}/status --------------------------------------------------------------------------------

def test_node_status_fields_and_types(sim):
    status = ok(sim, 'GET', '/nodes/node2/status')
    assert set(status) == {'uptime', 'idle', 'loadavg', 'kversion', 'current-kernel', 'boot-info', 'cpuinfo',
                           'cpu', 'wait', 'memory', 'ksm', 'swap', 'pveversion', 'rootfs'}
    assert isinstance(status['uptime'], int) and status['idle'] == 0
    assert len(status['loadavg']) == 3 and all(isinstance(value, str) for value in status['loadavg'])
    assert isinstance(status['cpu'], float) and isinstance(status['wait'], float)
    assert set(status['memory']) == {'free', 'total', 'available', 'used'}
    assert status['memory']['used'] == status['memory']['total'] - status['memory']['available']
    assert set(status['rootfs']) == {'total', 'avail', 'used', 'free'}
    assert status['rootfs']['free'] == status['rootfs']['total'] - status['rootfs']['used']
    assert all(isinstance(value, int) for part in ('memory', 'rootfs', 'swap', 'ksm')
               for value in status[part].values())
    cpuinfo = status['cpuinfo']
    assert (cpuinfo['cpus'], cpuinfo['sockets'], cpuinfo['cores'], cpuinfo['user_hz']) == (8, 1, 4, 100)
    assert isinstance(cpuinfo['mhz'], str) and cpuinfo['hvm'] == '1' and isinstance(cpuinfo['model'], str)
    assert set(status['current-kernel']) == {'sysname', 'release', 'version', 'machine'}
    assert status['kversion'] == 'Linux %(release)s %(version)s' % status['current-kernel']
    assert status['boot-info'] == {'mode': 'efi', 'secureboot': 0}
    version = sim.state.version
    assert status['pveversion'] == 'pve-manager/%s/%s' % (version['version'], version['repoid'])


def test_node_status_needs_sys_audit_and_a_known_node(sim):
    token = user_token(sim, 'watcher@pve')
    sim.state.set_acl('/nodes/node1', 'PVEAuditor', users='watcher@pve', tokens=token[0])
    assert sim.request('GET', '/nodes/node1/status', token=token)[0] == 200
    assert refused(sim, 'GET', '/nodes/node2/status', token=token) == (
        403, 'Permission check failed (/nodes/node2, Sys.Audit)\n', None)
    assert refused(sim, 'GET', '/nodes/node9/status')[1].startswith("hostname lookup 'node9' failed")


# -- the task list -----------------------------------------------------------------------------------------

def test_task_list_rows_newest_first_with_total(sim):
    first = seed_task(sim, 'node1', 'qmstart', '100', 'root@pam', T0, duration=2)
    second = seed_task(sim, 'node1', 'vzcreate', '101', 'root@pam!sim', T0 + 10, exitstatus='WARNINGS: 2')
    seed_task(sim, 'node2', 'qmstart', '100', 'root@pam', T0 + 20)  # another node's index
    status, body = sim.request('GET', '/nodes/node1/tasks')
    assert status == 200 and body['total'] == 2
    assert body['data'] == [
        {'upid': second, 'node': 'node1', 'pid': 0x1001, 'pstart': 0x100000, 'starttime': T0 + 10,
         'type': 'vzcreate', 'id': '101', 'user': 'root@pam', 'tokenid': 'sim', 'endtime': T0 + 10,
         'status': 'WARNINGS: 2'},
        {'upid': first, 'node': 'node1', 'pid': 0x1000, 'pstart': 0x100000, 'starttime': T0,
         'type': 'qmstart', 'id': '100', 'user': 'root@pam', 'endtime': T0 + 2, 'status': 'OK'}]
    # the collection's client keeps total beside the data
    client = api.Client('pve', sim.members, StaticToken(sim.token_id, sim.token_secret), ca_path=sim.ca_path,
                        timeout=5)
    reply = client.request('GET', '/nodes/node1/tasks', None, 'read')
    assert reply.extras == {'total': 2} and len(reply.data) == 2


def test_task_list_start_limit_and_source(sim):
    upids = [seed_task(sim, 'node1', 'qmstart', str(100 + n), 'root@pam', T0 + n) for n in range(5)]
    running = seed_task(sim, 'node1', 'vzdump', '', 'root@pam', T0 + 9, running=True)
    newest_first = upids[::-1]
    assert listed(sim) == (newest_first, 5)  # source=archive: no running task
    assert listed(sim, {'start': 1, 'limit': 2}) == (newest_first[1:3], 5)
    assert listed(sim, {'limit': 0}) == ([], 5)  # nothing listed, every match counted
    assert listed(sim, {'start': 9}) == ([], 5)
    status, body = sim.request('GET', '/nodes/node1/tasks', {'source': 'active'})
    assert body['total'] == 1 and body['data'] == [{
        'upid': running, 'node': 'node1', 'pid': sim.state.tasks[running].pid, 'pstart': 0x100000,
        'starttime': T0 + 9, 'type': 'vzdump', 'id': '', 'user': 'root@pam', 'saved': '0', 'status': 'RUNNING'}]
    assert listed(sim, {'source': 'all'}) == ([running] + newest_first, 6)
    assert listed(sim, {'source': 'all', 'start': 1, 'limit': 1}) == (newest_first[:1], 6)  # one count over both
    assert refused(sim, 'GET', '/nodes/node1/tasks', {'source': 'old'})[0] == 400


def test_task_list_filters(sim):
    ok_task = seed_task(sim, 'node1', 'qmstart', '100', 'root@pam', T0)
    warned = seed_task(sim, 'node1', 'qmstart', '101', 'ops@pve', T0 + 10, exitstatus='WARNINGS: 1')
    failed = seed_task(sim, 'node1', 'vzcreate', '100', 'ops@pve!ci', T0 + 20, exitstatus='unable to create CT')
    odd = seed_task(sim, 'node1', 'vzdump', '', 'root@pam', T0 + 30, exitstatus='unexpected status')
    running = seed_task(sim, 'node1', 'qmigrate', '101', 'ops@pve!ci', T0 + 40, running=True)

    def only(**form):
        return listed(sim, form)[0]

    assert only(typefilter='qmstart') == [warned, ok_task]
    assert only(vmid='100') == [failed, ok_task]
    assert only(since=T0 + 10, until=T0 + 20) == [failed, warned]
    assert only(statusfilter='ok') == [ok_task]
    assert only(statusfilter='WARNING,error') == [failed, warned]
    assert only(statusfilter='unknown') == [odd]
    assert only(errors=1) == [odd, failed, warned]  # every status but OK
    assert only(errors=1, statusfilter='ok') == [odd, failed, warned]  # errors wins over statusfilter
    # a running task has no status yet: 'unknown' to the filter, RUNNING in the row
    assert only(source='active', statusfilter='ok') == []
    assert only(source='active', errors=1) == [running]
    # userfilter: a case-insensitive substring of the user, the token split off in the archive only
    assert only(userfilter='OPS@') == [failed, warned]
    assert only(userfilter='!ci') == []
    assert only(userfilter='!ci', source='all') == [running]
    status, _message, errors = refused(sim, 'GET', '/nodes/node1/tasks', {'statusfilter': 'ok,bogus'})
    assert status == 400 and errors == {'statusfilter': "invalid format - invalid status 'bogus'\n"}


def test_task_list_shows_a_caller_without_sys_audit_its_own_tasks(sim):
    token = user_token(sim, 'ops@pve', 'ci', password='secret123')
    other = user_token(sim, 'ops@pve', 'other')
    auditor = user_token(sim, 'audit@pve')
    sim.state.set_acl('/nodes/node1', 'PVEAuditor', users='audit@pve', tokens=auditor[0])
    by_root = seed_task(sim, 'node1', 'qmstart', '100', 'root@pam', T0)
    by_user = seed_task(sim, 'node1', 'qmstart', '101', 'ops@pve', T0 + 10)
    by_token = seed_task(sim, 'node1', 'qmstart', '102', 'ops@pve!ci', T0 + 20)
    token_running = seed_task(sim, 'node1', 'qmstart', '103', 'ops@pve!ci', T0 + 30, running=True)
    everything = {'source': 'all'}
    assert listed(sim, everything, token=auditor) == ([token_running, by_token, by_user, by_root], 4)
    # a token sees only its own tasks
    assert listed(sim, everything, token=token) == ([token_running, by_token], 2)
    assert listed(sim, everything, token=other) == ([], 0)
    # the user sees its own and its tokens' archived tasks; an active row keeps the token as its user
    status, body = ticket_request(sim, 'ops@pve', 'secret123', 'GET', '/nodes/node1/tasks', everything)
    assert status == 200 and ([row['upid'] for row in body['data']], body['total']) == ([by_token, by_user], 2)


# -- a task: index, status, log, stop -----------------------------------------------------------------------

def test_task_index_names_the_children_of_any_upid(sim):
    assert ok(sim, 'GET', '/nodes/node1/tasks/anything') == [{'name': 'log'}, {'name': 'status'}]


def test_task_status_owner_is_the_token_or_its_user(sim):
    token = user_token(sim, 'ops@pve', 'ci', password='secret123')
    other = user_token(sim, 'ops@pve', 'other')
    upid = seed_task(sim, 'node1', 'qmstart', '100', 'ops@pve!ci', T0)
    path = '/nodes/node1/tasks/%s/status' % quoted(upid)
    assert ok(sim, 'GET', path, token=token) == {
        'upid': upid, 'node': 'node1', 'pid': sim.state.tasks[upid].pid, 'pstart': 0x100000, 'starttime': T0,
        'type': 'qmstart', 'id': '100', 'user': 'ops@pve', 'tokenid': 'ci', 'status': 'stopped',
        'exitstatus': 'OK'}
    status, body = ticket_request(sim, 'ops@pve', 'secret123', 'GET', path)
    assert status == 200 and body['data']['tokenid'] == 'ci'
    assert refused(sim, 'GET', path, token=other) == (403, 'Permission check failed (/nodes/node1, Sys.Audit)\n',
                                                      None)


def test_task_log_reads_as_dump_logfile(sim):
    lines = ['line %d' % n for n in range(1, 61)]
    upid = seed_task(sim, 'node1', 'vzdump', '100', 'root@pam', T0, lines=lines)
    path = '/nodes/node1/tasks/%s/log' % quoted(upid)
    status, body = sim.request('GET', path)
    assert body['total'] == 61 and len(body['data']) == 50 and body['data'][0] == {'n': 1, 't': 'line 1'}
    status, body = sim.request('GET', path, {'limit': 0})  # 0: to the end
    assert len(body['data']) == 61 and body['data'][-1] == {'n': 61, 't': 'TASK OK'}
    status, body = sim.request('GET', path, {'start': 58, 'limit': 2})
    assert (status, body['data'], body['total']) == (200, [{'n': 59, 't': 'line 59'}, {'n': 60, 't': 'line 60'}],
                                                     61)
    # a running task without output yet: ExtJS's 'no content' line
    running = seed_task(sim, 'node1', 'vzdump', '101', 'root@pam', T0, running=True)
    status, body = sim.request('GET', '/nodes/node1/tasks/%s/log' % quoted(running))
    assert (body['data'], body['total']) == ([{'n': 1, 't': 'no content'}], 1)
    # no 'no such task' here: the missing file reads as one line, on another node too
    status, body = sim.request('GET', '/nodes/node2/tasks/%s/log' % quoted(upid))
    assert (status, body['data'], body['total']) == (
        200, [{'n': 1, 't': 'unable to open file - No such file or directory'}], 1)
    assert refused(sim, 'GET', '/nodes/node1/tasks/UPID:x/log') == (
        400, 'Parameter verification failed.\n', {'upid': 'unable to parse worker upid'})
    assert refused(sim, 'GET', path, {'download': 1, 'start': 0}) == (
        500, "'download' cannot be used together with 'start' or 'limit' parameters\n", None)


def raw_get(sim, path):
    """One token-authenticated GET over a connection of its own: (status, headers, raw body read to the close)."""
    host, port = sim.members[0].split(':')
    conn = http.client.HTTPSConnection(host, int(port), timeout=5,
                                       context=ssl.create_default_context(cafile=sim.ca_path))
    try:
        conn.request('GET', '/api2/json' + path,
                     headers={'Authorization': 'PVEAPIToken=%s=%s' % (sim.token_id, sim.token_secret)})
        resp = conn.getresponse()
        return resp.status, dict((key.lower(), value) for key, value in resp.getheaders()), resp.read()
    finally:
        conn.close()


def test_a_task_log_downloads_as_its_file_streamed_and_gzipped_past_1024_bytes(sim):
    # Tasks.pm read_task_log `download`, streamed by pve-http-server's send_file_start: no Content-Length
    short = seed_task(sim, 'node1', 'vzdump', '100', 'root@pam', T0, lines=['INFO: starting'])
    status, headers, body = raw_get(sim, '/nodes/node1/tasks/%s/log?download=1' % quoted(short))
    started = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(T0))
    assert (status, body) == (200, b'INFO: starting\nTASK OK\n')
    assert headers['content-type'] == 'text/plain' and 'content-length' not in headers
    assert 'content-encoding' not in headers
    assert headers['content-disposition'] == 'attachment; filename="task-node1-vzdump-%s.log"' % started
    long = seed_task(sim, 'node1', 'vzdump', '101', 'root@pam', T0, lines=['INFO: line %04d' % n for n in range(80)])
    status, headers, body = raw_get(sim, '/nodes/node1/tasks/%s/log?download=1' % quoted(long))
    assert status == 200 and headers['content-encoding'] == 'gzip'
    assert gzip.decompress(body).decode().splitlines() == ['INFO: line %04d' % n for n in range(80)] + ['TASK OK']
    # a task whose file is not on that node: the open's die
    missing = refused(sim, 'GET', '/nodes/node2/tasks/%s/log' % quoted(short), {'download': 1})
    assert missing == (500, "Could not open file '/var/log/pve/tasks/%s/%s' - No such file or directory\n"
                       % (short.split(':')[4][7], short), None)


def test_task_log_of_a_foreign_task_needs_sys_audit(sim):
    token = user_token(sim, 'ops@pve')
    upid = seed_task(sim, 'node1', 'vzdump', '100', 'root@pam', T0)
    assert refused(sim, 'GET', '/nodes/node1/tasks/%s/log' % quoted(upid), token=token) == (
        403, 'Permission check failed (/nodes/node1, Sys.Audit)\n', None)


def test_stop_task_interrupts_a_running_task(sim):
    token = user_token(sim, 'ops@pve', 'ci')
    other = user_token(sim, 'ops@pve', 'other')
    running = seed_task(sim, 'node1', 'vzdump', '100', 'ops@pve!ci', T0, running=True, lines=['INFO: starting'])
    path = '/nodes/node1/tasks/%s' % quoted(running)
    assert refused(sim, 'DELETE', path, token=other) == (403, 'Permission check failed (/nodes/node1, Sys.Modify)\n',
                                                         None)
    assert ok(sim, 'DELETE', path, token=token) is None
    status = ok(sim, 'GET', path + '/status', token=token)
    assert (status['status'], status['exitstatus']) == ('stopped', 'received interrupt')
    assert ok(sim, 'GET', path + '/log', token=token)[-1] == {'n': 2, 't': 'TASK ERROR: received interrupt'}
    assert listed(sim, {'errors': 1})[0] == [running]
    # a stopped task is left as it ended; stopping it again answers null
    done = seed_task(sim, 'node1', 'qmstart', '101', 'root@pam', T0)
    assert ok(sim, 'DELETE', '/nodes/node1/tasks/%s' % quoted(done)) is None
    assert sim.state.tasks[done].exitstatus == 'OK'
    assert refused(sim, 'DELETE', '/nodes/node2/tasks/%s' % quoted(done)) == (
        400, 'Parameter verification failed.\n', {'upid': 'no such task'})
    assert refused(sim, 'DELETE', '/nodes/node1/tasks/UPID:x') == (
        400, 'Parameter verification failed.\n', {'upid': 'unable to parse worker upid'})


# -- RRD data ---------------------------------------------------------------------------------------------

def test_rrddata_reads_and_the_missing_rrd_file(sim):
    add_guest(sim.state, 'qemu', 100, 'node1')
    hour = {'timeframe': 'hour'}
    assert ok(sim, 'GET', '/nodes/node1/rrddata', hour) == []
    assert ok(sim, 'GET', '/nodes/node3/qemu/100/rrddata', dict(hour, cf='MAX')) == []  # the guest's one file
    assert ok(sim, 'GET', '/nodes/node1/lxc/100/rrddata', hour) == []
    assert ok(sim, 'GET', '/nodes/node2/storage/local/rrddata', hour) == []
    prefix = "RRD error: rrdcached@unix:/var/run/rrdcached.sock: rrd_fetch_r failed: opening '/var/lib/rrdcached/db/"
    assert refused(sim, 'GET', '/nodes/node1/lxc/999/rrddata', hour) == (
        500, prefix + "pve-vm-9.0/999': No such file or directory\n", None)
    assert refused(sim, 'GET', '/nodes/node9/rrddata', hour) == (
        500, prefix + "pve-node-9.0/node9': No such file or directory\n", None)
    assert refused(sim, 'GET', '/nodes/node1/storage/nope/rrddata', hour) == (
        500, prefix + "pve-storage-9.0/node1/nope': No such file or directory\n", None)
    # the schema's checks come first: timeframe is required, decade is a node's frame only
    assert refused(sim, 'GET', '/nodes/node1/rrddata')[2] == {'timeframe': 'property is missing and it is not optional'}
    assert ok(sim, 'GET', '/nodes/node1/rrddata', {'timeframe': 'decade'}) == []
    assert refused(sim, 'GET', '/nodes/node1/qemu/100/rrddata', {'timeframe': 'decade'})[0] == 400


def test_rrddata_permissions(sim):
    add_guest(sim.state, 'qemu', 100, 'node1')
    token = user_token(sim, 'viewer@pve')
    hour = {'timeframe': 'hour'}
    assert refused(sim, 'GET', '/nodes/node1/qemu/100/rrddata', hour, token=token)[:2] == (
        403, 'Permission check failed (/vms/100, VM.Audit)\n')
    assert refused(sim, 'GET', '/nodes/node1/storage/local/rrddata', hour, token=token)[:2] == (
        403, 'Permission check failed (/storage/local, Datastore.Audit|Datastore.AllocateSpace)\n')
    sim.state.set_acl('/vms/100', 'PVEAuditor', users='viewer@pve', tokens=token[0])
    assert ok(sim, 'GET', '/nodes/node1/qemu/100/rrddata', hour, token=token) == []
