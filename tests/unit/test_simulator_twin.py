"""The rehearsal twin's parts (tests/simulator/twin.py): the minimal base, the export file, the placeholders, the
nodes, and a seed from a hand-written export that is exported back unchanged. The whole round trip through
ansible-playbook and ``serve.py --seed`` is tests/integration/test_rehearsal.py.
"""

import json
import sys
from pathlib import Path

import pytest
import yaml

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from simulator import Simulator  # noqa: E402
from simulator.fixtures import ok  # noqa: E402
from simulator.twin import (  # noqa: E402
    DUMMY, SEEDED_IN_STATE, Twin, fill, load, node_names, seeded_simulator, seeding_ways)

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import argument_spec, execute  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.export import EXPORT  # noqa: E402


def test_every_family_the_export_writes_has_its_seeding_way():
    exported = [module for module, family in EXPORT.families if not getattr(family, 'left_out', None)]
    ways = seeding_ways(EXPORT.families)
    assert set(SEEDED_IN_STATE) <= set(exported)
    for module in exported:
        if ways[module] == 'state':
            assert callable(getattr(Twin, 'seed_' + module, None)), module
        elif ways[module] == 'module':  # created by the module's own run: it must take create_missing
            assert 'create_missing' in dict(EXPORT.families)[module].object_spec(), module


def test_a_minimal_base_holds_exactly_the_nodes_and_what_every_pve_holds():
    with Simulator(members=2, node_names=['pve-a', 'pve-b'], minimal=True) as sim:
        assert [row['node'] for row in ok(sim, 'GET', '/nodes')] == ['pve-a', 'pve-b']
        assert [row['storage'] for row in ok(sim, 'GET', '/storage')] == ['local']  # no local-lvm
        assert ok(sim, 'GET', '/nodes/pve-a/storage/local/content') == []  # no demo ISO or templates
        # the installer's interfaces file without the demo bridge: the loopback and the NICs
        assert sorted(row['iface'] for row in ok(sim, 'GET', '/nodes/pve-a/network')) == ['eno1', 'eno2']
        assert {'pam', 'pve'} <= set(row['realm'] for row in ok(sim, 'GET', '/access/domains'))
        assert 'PVEAdmin' in [row['roleid'] for row in ok(sim, 'GET', '/access/roles')]
        assert [row['userid'] for row in ok(sim, 'GET', '/access/users')] == ['root@pam']
    with Simulator(members=1) as sim:  # the default keeps its demo objects
        assert 'local-lvm' in [row['storage'] for row in ok(sim, 'GET', '/storage')]
        assert ok(sim, 'GET', '/nodes/node1/storage/local/content')


def test_the_seed_s_requests_are_dropped_from_the_log_file(tmp_path):
    with Simulator(members=1, log_path=str(tmp_path / 'log')) as sim:
        ok(sim, 'GET', '/version')
        sim.clear_log(file=True)
        ok(sim, 'GET', '/nodes')
        assert [json.loads(line)['path'] for line in (tmp_path / 'log').read_text().splitlines()] == ['/nodes']


@pytest.mark.parametrize('wrap', [None, 'objects', 'cluster_objects', 'backup_server_objects'])
def test_an_export_file_is_read_bare_or_wrapped_as_yaml_or_json(tmp_path, wrap):
    objects = {'pool': [{'poolid': 'lab'}]}
    data = {wrap: objects, 'secrets': []} if wrap else objects
    (tmp_path / 'x.yml').write_text(yaml.safe_dump(data))
    (tmp_path / 'x.json').write_text(json.dumps(data))
    assert load(str(tmp_path / 'x.yml')) == load(str(tmp_path / 'x.json')) == objects


def test_an_export_file_that_holds_no_objects_is_refused(tmp_path):
    (tmp_path / 'x.yml').write_text('- a list\n')
    with pytest.raises(ValueError, match='not an export'):
        load(str(tmp_path / 'x.yml'))


def test_placeholders_get_dummies_and_other_jinja_is_kept_as_text():
    templated = []
    value = fill({'password': '{{ realm_corp_password }}', 'comment': "{{ lookup('env', 'X') }} here",
                  'list': ['{{realm_x}}', 'plain']}, templated, 'realm')
    assert value == {'password': DUMMY % 'realm_corp_password', 'comment': "{{ lookup('env', 'X') }} here",
                     'list': [DUMMY % 'realm_x', 'plain']}
    assert templated == ['realm.comment']


def test_the_nodes_are_those_the_objects_name():
    assert node_names({'vm': [{'node': 'pve10', 'vmid': 1}, {'node': 'pve2', 'vmid': 2}],
                       'replication_job': [{'id': '1-0', 'target': 'pve3'}],
                       'hardware_mapping': [{'type': 'dir', 'id': 'm', 'map': ['node=pve4,path=/srv']}],
                       'pbs_datastore': [{'name': 'x', 'node': 'ignored'}]}) == ['pve2', 'pve3', 'pve4', 'pve10']
    assert node_names({'pool': [{'poolid': 'lab'}]}) == ['node1']


HAND_EXPORT = {
    'pool': [{'poolid': 'lab', 'comment': 'Lab'}],
    'realm': [{'realm': 'corp', 'type': 'ldap', 'server1': 'ldap.example.org', 'base_dn': 'dc=example,dc=org',
               'user_attr': 'uid', 'bind_dn': 'cn=pve,dc=example,dc=org', 'password': '{{ realm_corp_password }}'}],
    'user': [{'userid': 'ops@pve', 'comment': "{{ 'kept as text' }}"}],
    'api_token': [{'userid': 'ops@pve', 'tokenid': 'ci', 'expire': 0, 'privsep': True}],
    'storage': [{'storage': 'tank', 'type': 'zfspool', 'pool': 'tank', 'content': ['images', 'rootdir']}],
    'zfs_pool': [{'node': 'pve2', 'name': 'tank'}],
    'storage_content': [{'storage': 'local', 'content': 'iso', 'filename': 'boot.iso', 'node': 'pve1'}],
    'vm': [{'node': 'pve2', 'vmid': 300, 'name': 'app', 'memory': '2048', 'scsi0': 'tank:vm-300-disk-0,size=16G',
            'net0': 'bridge=vmbr0,macaddr=BC:24:11:00:00:30,model=virtio'}],
    'node_network': [{'node': 'pve1', 'iface': 'enp1s0', 'type': 'eth'},
                     {'node': 'pve1', 'iface': 'vmbr0', 'type': 'bridge', 'cidr': '10.1.0.11/24',
                      'autostart': True, 'bridge_ports': ['enp1s0']},
                     {'node': 'pve2', 'iface': 'enp1s0', 'type': 'eth'},
                     {'node': 'pve2', 'iface': 'vmbr0', 'type': 'bridge', 'cidr': '10.1.0.12/24',
                      'autostart': True, 'bridge_ports': ['enp1s0']}],
}


def test_a_hand_written_export_seeds_a_twin_that_exports_it_back(tmp_path):
    path = tmp_path / 'cluster.yml'
    path.write_text(yaml.safe_dump({'cluster_objects': HAND_EXPORT}))
    sim, report = seeded_simulator([str(path)])
    try:
        assert report['unseeded'] == [], report['unseeded']
        assert report['nodes'] == ['pve1', 'pve2'] and len(sim.members) == 2
        assert report['templated'] == ['cluster.yml: user[0].comment']
        assert report['ways']['vm'] == 'state' and report['ways']['pool'] == 'declare'
        assert sim.log == []
        validation = ArgumentSpecValidator(argument_spec(EXPORT)).validate(sim.module_options())
        exported = execute(EXPORT, validation.validated_parameters, True, False)[0]
        expected = dict((module, sorted(entries, key=json.dumps)) for module, entries in HAND_EXPORT.items())
        objects = dict((module, sorted(entries, key=json.dumps)) for module, entries in exported['objects'].items())
        # the twin's own token is the one object the file did not hold, besides the files every node has
        objects['api_token'] = [entry for entry in objects['api_token'] if entry['userid'] != 'root@pam']
        assert dict((module, objects[module]) for module in expected) == expected
        assert set(objects) - set(expected) == {'apt_repository', 'node_dns', 'node_time', 'node_hosts', 'node_config',
                                                'cluster_options', 'firewall_options'}, objects
    finally:
        sim.stop()


def test_an_exported_cluster_gives_the_twin_its_name_and_links(tmp_path):
    # A real cluster's export names it and each member's corosync link; the twin takes both over (its members
    # still listen on 127.0.0.1), so the cluster judges as a match. The members' api_host are production's
    # addresses: the twin drops them, or judging the cluster would contact 10.0.0.11 (and fail unseeded).
    cluster = {'name': 'prod', 'members': [
        {'node': 'pve1', 'api_host': '10.0.0.11', 'links': ['10.10.0.11']},
        {'node': 'pve2', 'api_host': '10.0.0.12', 'links': ['10.10.0.12']}]}
    path = tmp_path / 'cluster.json'
    path.write_text(json.dumps({'cluster': [cluster], 'pool': [{'poolid': 'lab'}]}))
    sim, report = seeded_simulator([str(path)])
    try:
        assert report['unseeded'] == [], report['unseeded']
        assert report['seeded'] == {'cluster': 1, 'pool': 1}
        assert report['nodes'] == ['pve1', 'pve2']
        status = ok(sim, 'GET', '/cluster/status')
        assert [row['name'] for row in status if row['type'] == 'cluster'] == ['prod']
        assert sorted((row['name'], row['ip']) for row in status if row['type'] == 'node') == [
            ('pve1', '10.10.0.11'), ('pve2', '10.10.0.12')]
    finally:
        sim.stop()
