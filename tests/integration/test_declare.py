"""``homeflare.proxmox.declare``: many objects in one task; validation, batch reads, the drift gate, failures.

The matrix (test_matrix.py, path ``declare``) proves check/create/adopt/drift/repair/delete; these are the
behaviours only a batch has. Each test batches its cases into as few ansible-playbook runs as it can.
"""

import pytest

from conftest import EXECUTION_PATHS


def declare(objects, name='declare', **options):
    args = dict(objects=objects)
    args.update(options)
    return {'name': name, 'homeflare.proxmox.declare': args}


def api(sim, calls):
    for method, path, form in calls:
        status, body = sim.request(method, path, form)
        assert status == 200, (method, path, status, body)


def test_bad_objects_fail_before_any_request_naming_each(sim, playbook):
    objects = {
        'pools': [{'poolid': 'x'}],
        'pool': [{'poolid': 'fine'}, {'poolid': 'bad pool!'}, {'poolid': 'fine'}],
        'user': [{'userid': 'alice@pve', 'expire': 'soon'}, {'userid': 'bob@pve', 'colour': 'blue'}],
        'storage': [{'storage': 's1', 'path': '/srv'}],
        'acl': ['not a mapping'],
        # a vmid is one guest in the cluster: not again on another node, nor as the other guest type
        'lxc': [{'node': 'node1', 'vmid': 300, 'hostname': 'a'}, {'node': 'node2', 'vmid': 300, 'hostname': 'a'},
                {'node': 'node1', 'vmid': 301, 'hostname': 'b'}],
        'vm': [{'node': 'node1', 'vmid': 301}],
    }
    sim.clear_log()
    run = playbook([declare(objects)])
    assert run.rc != 0
    message = run.failed[0]['result']['msg']
    assert message.startswith('9 declared object(s) are invalid; nothing was read or written.')
    for part in ('objects: pools is not a module declare takes (acl, acme_account, acme_certificate, acme_plugin, '
                 'api_token, ',
                 'objects.pool[1]: option poolid:',
                 "objects.pool[2]: pool 'fine' is already declared at objects.pool[0]",
                 "objects.user[0]: argument 'expire' is of type",
                 'objects.user[1]: unsupported parameters: colour.',
                 'objects.storage[0]: option type is required with state=present',
                 'objects.acl[0]: must be a mapping of acl options',
                 'objects.lxc[1]: CT 300 on node2 is already declared at objects.lxc[0] (CT 300 on node1)',
                 'objects.vm[0]: VM 301 on node1 is already declared at objects.lxc[2] (CT 301 on node1)'):
        assert part in message, (part, message)
    assert sim.log == []


@pytest.mark.compat
@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_fail_on_drift_gates_a_check_run(sim, playbook, path):
    api(sim, [('POST', '/pools', {'poolid': 'lab', 'comment': 'edited in the UI'}),
              ('POST', '/access/groups', {'groupid': 'ops'})])
    objects = {'pool': [{'poolid': 'lab', 'comment': 'Lab'}, {'poolid': 'new'}], 'group': [{'groupid': 'ops'}]}
    sim.clear_log()
    run = playbook([declare(objects, fail_on_drift=True)], check=True, diff=True, env=EXECUTION_PATHS[path])
    assert run.rc != 0
    result = run.failed[0]['result']
    assert result['msg'] == ("2 of 3 objects differ from the declaration: pool 'lab' (update: comment); "
                             "pool 'new' (create)")
    assert result['error'] == 'DriftFound'
    assert result['summary'] == {'judged': 3, 'matched': 1, 'create': 1, 'update': 1, 'delete': 0, 'apply': 0,
                                 'revert': 0, 'power': 0, 'prune': 0, 'rollback': 0, 'backup': 0, 'sync': 0,
                                 'resync': 0, 'failed': 0}
    assert [entry['name'] for entry in result['results']] == ["group 'ops'", "pool 'lab'", "pool 'new'"]
    assert [entry['before_header'] for entry in result['diff']] == ["pool 'lab'", "pool 'new'"]
    assert 'edited in the UI' in run.output  # the --diff of the failed task is still shown
    assert sim.writes() == []

    # Without drift the gate passes; a real run ignores it and repairs.
    matching = {'pool': [{'poolid': 'lab', 'comment': 'edited in the UI'}], 'group': [{'groupid': 'ops'}]}
    gate = playbook([declare(matching, fail_on_drift=True), declare(objects, fail_on_drift=True, name='real')],
                    env=EXECUTION_PATHS[path])
    assert gate.rc == 0, gate
    assert gate.results[0]['result']['changed'] is False
    assert gate.results[1]['result']['changed'] is True
    written = sorted((entry['method'], entry['path']) for entry in sim.writes())
    assert written == [('POST', '/pools'), ('PUT', '/pools')]


def test_an_object_that_cannot_be_judged_means_nothing_is_written(sim, playbook):
    api(sim, [('POST', '/pools', {'poolid': 'lab'})])
    sim.force('GET', r'^/storage$', 500, 'storage.cfg: read failed')
    objects = {'pool': [{'poolid': 'lab', 'comment': 'drifted'}, {'poolid': 'new'}],
               'storage': [{'storage': 's1', 'type': 'dir', 'path': '/srv/s1'}]}
    sim.clear_log()
    run = playbook([declare(objects)])
    assert run.rc != 0
    result = run.failed[0]['result']
    assert result['msg'] == ("1 of 3 objects could not be judged, so nothing was written: storage 's1': "
                             "500 storage.cfg: read failed")
    assert sim.writes() == []
    by_name = dict((entry['name'], entry) for entry in result['results'])
    assert by_name["pool 'lab'"]['plan']['action'] == 'update'  # the others were still judged
    assert by_name["pool 'new'"]['plan']['action'] == 'create'
    assert by_name["storage 's1'"]['failed'] is True and 'plan' not in by_name["storage 's1'"]


def test_a_failed_write_stops_and_lists_what_was_written(sim, playbook):
    sim.force('POST', r'^/pools$', 500, 'cfs lock timeout')
    objects = {'role': [{'roleid': 'Ops', 'privs': ['Sys.Audit']}], 'pool': [{'poolid': 'lab'}],
               'user': [{'userid': 'op@pve'}]}
    sim.clear_log()
    run = playbook([declare(objects)])
    assert run.rc != 0
    result = run.failed[0]['result']
    assert result['msg'] == ("writing pool 'lab' failed: 500 cfs lock timeout. Written before it: role 'Ops' "
                             "(create: privs). Not attempted: user 'op@pve'.")
    assert result['changed'] is True
    written = [(entry['method'], entry['path']) for entry in sim.writes()]
    assert written == [('POST', '/access/roles'), ('POST', '/pools')]


def test_deletes_run_after_writes_in_reverse_dependency_order(sim, playbook):
    api(sim, [('POST', '/access/roles', {'roleid': 'Old', 'privs': 'Sys.Audit'}),
              ('POST', '/access/groups', {'groupid': 'old'}),
              ('PUT', '/access/acl', {'path': '/', 'groups': 'old', 'roles': 'Old'})])
    objects = {'role': [{'roleid': 'Old', 'state': 'absent'}, {'roleid': 'New', 'privs': ['Sys.Audit']}],
               'group': [{'groupid': 'old', 'state': 'absent'}],
               'acl': [{'path': '/', 'type': 'group', 'ugid': 'old', 'roleid': 'Old', 'state': 'absent'}]}
    sim.clear_log()
    run = playbook([declare(objects)])
    assert run.rc == 0, run
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [
        ('POST', '/access/roles'), ('PUT', '/access/acl'), ('DELETE', '/access/groups/old'),
        ('DELETE', '/access/roles/Old')]


def test_a_row_missing_from_a_filtered_list_is_never_taken_for_absent(sim, playbook):
    # A token without Pool.Audit gets GET /pools filtered to nothing: only the item read may decide. PVE answers
    # GET /pools?poolid= to any user (Pool.pm index makes its Pool.Audit check with noerr and ignores it), so the
    # pool is found and adopted: nothing is created over it.
    api(sim, [('POST', '/pools', {'poolid': 'lab'}), ('POST', '/access/users', {'userid': 'ci@pve'})])
    status, body = sim.request('POST', '/access/users/ci@pve/token/ro', {'privsep': '0'})
    assert status == 200, body
    defaults = {'api_host': sim.members, 'api_token_id': body['data']['full-tokenid'],
                'api_token_secret': body['data']['value'], 'ca_path': sim.ca_path}
    sim.clear_log()
    run = playbook([declare({'pool': [{'poolid': 'lab'}]})], defaults=defaults)
    assert run.rc == 0, run
    assert run.result()['changed'] is False
    assert run.result()['results'][0]['plan'] == {'read': 'found', 'action': 'none', 'changed': []}
    assert [(entry['path'], entry['form'], entry['status']) for entry in sim.log] == [
        ('/pools', {}, 200), ('/pools', {'poolid': 'lab'}, 200)]
    assert sim.writes() == []


def test_a_large_verify_reads_each_family_once(sim, playbook):
    objects = {'pool': [], 'group': [], 'user': [], 'role': [], 'acl': []}
    for index in range(60):
        api(sim, [('POST', '/pools', {'poolid': 'p%d' % index}),
                  ('POST', '/access/groups', {'groupid': 'g%d' % index}),
                  ('POST', '/access/users', {'userid': 'u%d@pve' % index, 'groups': 'g%d' % index}),
                  ('POST', '/access/roles', {'roleid': 'R%d' % index, 'privs': 'VM.Audit,Sys.Audit'}),
                  ('PUT', '/access/acl', {'path': '/pool/p%d' % index, 'groups': 'g%d' % index,
                                          'roles': 'R%d' % index})])
        objects['pool'].append({'poolid': 'p%d' % index})
        objects['group'].append({'groupid': 'g%d' % index})
        objects['user'].append({'userid': 'u%d@pve' % index, 'groups': ['g%d' % index]})
        objects['role'].append({'roleid': 'R%d' % index, 'privs': ['Sys.Audit', 'VM.Audit']})
        objects['acl'].append({'path': '/pool/p%d' % index, 'type': 'group', 'ugid': 'g%d' % index,
                               'roleid': 'R%d' % index})
    sim.clear_log()
    run = playbook([declare(objects, fail_on_drift=True)], check=True)
    assert run.rc == 0, run
    assert run.result()['summary'] == {'judged': 300, 'matched': 300, 'create': 0, 'update': 0, 'delete': 0,
                                       'apply': 0, 'revert': 0, 'power': 0, 'prune': 0, 'rollback': 0, 'backup': 0,
                                       'sync': 0, 'resync': 0, 'failed': 0}
    assert sorted(entry['path'] for entry in sim.log) == ['/access/acl', '/access/groups', '/access/roles',
                                                          '/access/users', '/pools']


# A guest's firewall declared beside the guest itself, and a vnet's rules: the guest is written first, its aliases
# and IP set before the rules naming them, which resolve the guest's own names (declared beside them) first.
GUEST_FIREWALL = {
    'vm': [{'node': 'node1', 'vmid': 300, 'name': 'fw1'}],
    'firewall_alias': [{'name': 'office', 'cidr': '198.51.100.0/24'}, {'name': 'lab', 'cidr': '10.9.0.0/16'},
                       {'scope': 'vm', 'node': 'node1', 'vmid': 300, 'name': 'db', 'cidr': '10.0.0.5'}],
    'firewall_ipset': [{'scope': 'vm', 'node': 'node1', 'vmid': 300, 'name': 'admins',
                        'entries': [{'cidr': 'guest/db'}, {'cidr': 'office'}]}],
    'firewall_rules': [
        {'scope': 'vm', 'node': 'node1', 'vmid': 300, 'rules': [
            {'type': 'in', 'action': 'ACCEPT', 'source': '+guest/admins', 'proto': 'tcp', 'dport': '22'},
            {'type': 'out', 'action': 'ACCEPT', 'dest': 'db', 'proto': 'tcp', 'dport': '5432'}]},
        {'scope': 'vnet', 'vnet': 'app', 'rules': [{'type': 'forward', 'action': 'ACCEPT', 'source': 'lab'}]}],
    'firewall_options': [{'scope': 'vm', 'node': 'node1', 'vmid': 300, 'enable': True},
                         {'scope': 'vnet', 'vnet': 'app', 'enable': True}],
}


def test_a_guest_s_and_a_vnet_s_firewall_declared_beside_the_guest(sim, playbook):
    api(sim, [('POST', '/cluster/sdn/zones', {'zone': 'base', 'type': 'simple'}),
              ('POST', '/cluster/sdn/vnets', {'vnet': 'app', 'zone': 'base'}), ('PUT', '/cluster/sdn', {})])
    sim.clear_log()
    # check mode: guest 300 does not exist yet, but is declared here, and so are the names its rules reference
    run = playbook([declare(GUEST_FIREWALL)], check=True)
    assert run.rc == 0, run
    assert run.result()['summary']['create'] == 7 and run.result()['summary']['update'] == 2, run.result()
    assert sim.writes() == []

    run = playbook([declare(GUEST_FIREWALL)])
    assert run.rc == 0, run
    written = [entry['path'] for entry in sim.writes()]
    assert written[0] == '/nodes/node1/qemu' and written[-1] == '/cluster/sdn/vnets/app/firewall/options', written
    guest = [path for path in written if path.startswith('/nodes/node1/qemu/300/firewall')]
    assert guest[0] == '/nodes/node1/qemu/300/firewall/aliases', written
    assert guest.index('/nodes/node1/qemu/300/firewall/ipset') < guest.index('/nodes/node1/qemu/300/firewall/rules')
    status, rules = sim.request('GET', '/nodes/node1/qemu/300/firewall/rules')
    assert [rule.get('source') or rule.get('dest') for rule in rules['data']] == ['+guest/admins', 'db'], rules

    sim.clear_log()
    run = playbook([declare(GUEST_FIREWALL)])
    assert run.rc == 0 and run.result()['changed'] is False, run
    assert run.result()['summary']['matched'] == 9
    assert sim.writes() == []
    # the cluster's aliases are one list read for both, as before a module took several scopes
    assert [entry['path'] for entry in sim.log].count('/cluster/firewall/aliases') == 1, sim.log
