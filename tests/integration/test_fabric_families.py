"""SDN fabrics (PVE 9) through real ansible-playbook runs, on both execution paths: an openfabric fabric with three
nodes, staged and made live by one sdn_apply; the re-run writes nothing and applies nothing; drift made through the
API is named by --check --diff and repaired; declare takes them in order and refuses a node whose fabric is neither
staged nor declared, before any request.

``MATRIX``, ``SETUP`` and ``BAD_INPUT`` have the shapes of test_matrix.FAMILIES / SETUP and test_bad_input.CORPUS.
"""

import pytest

from conftest import EXECUTION_PATHS, reconfirms
from test_ha_families import task
from test_matrix import api

# The node object's fabric is there before, and live (the fault matrix runs objects in any order).
SETUP = [
    ('POST', '/cluster/sdn/fabrics/fabric', {'id': 'under', 'protocol': 'openfabric', 'ip_prefix': '10.254.0.0/24'}),
    ('PUT', '/cluster/sdn', {}),
]

MATRIX = {
    'sdn_fabric': dict(
        prefix='/cluster/sdn/fabrics/fabric',
        args={'id': 'f1', 'protocol': 'openfabric', 'ip_prefix': '10.0.0.0/24', 'hello_interval': 3},
        # the hello interval changed and a CSNP interval set by hand
        drift=[('PUT', '/cluster/sdn/fabrics/fabric/f1', {'protocol': 'openfabric', 'hello_interval': '10',
                                                          'csnp_interval': '20'})],
        drifted={'hello_interval': 'hello_interval', 'csnp_interval': 'csnp_interval'},
        absent={'id': 'f1', 'state': 'absent'},
    ),
    'sdn_fabric_node': dict(
        prefix='/cluster/sdn/fabrics/node/under',
        args={'fabric': 'under', 'node': 'node1', 'ip': '10.254.0.1',
              'interfaces': ['name=ens19', {'name': 'ens20', 'hello_multiplier': 3}]},
        drift=[('PUT', '/cluster/sdn/fabrics/node/under/node1', {'protocol': 'openfabric', 'ip': '10.254.0.9',
                                                                 'interfaces': ['name=ens21']})],
        drifted={'ip': 'ip', 'interfaces': 'interfaces'},
        absent={'fabric': 'under', 'node': 'node1', 'state': 'absent'},
    ),
}

FABRIC = {'id': 'f1', 'protocol': 'openfabric', 'ip_prefix': '10.0.0.0/24'}
NODE = {'fabric': 'f1', 'node': 'node1', 'ip': '10.0.0.1'}


def fabric(**changes):
    return dict(FABRIC, **changes)


def node(**changes):
    return dict(NODE, **changes)


BAD_INPUT = [
    # sdn_fabric
    ('sdn_fabric', fabric(id='fabric-long'), 'id'),
    ('sdn_fabric', fabric(id='-f1'), 'id'),
    ('sdn_fabric', {'id': 'f1', 'ip_prefix': '10.0.0.0/24'}, 'protocol'),
    ('sdn_fabric', fabric(protocol='bgp'), 'protocol'),
    ('sdn_fabric', fabric(ip_prefix='10.0.0.5/24'), 'ip_prefix'),
    ('sdn_fabric', fabric(ip_prefix='fd00::/64'), 'ip_prefix'),
    ('sdn_fabric', {'id': 'f1', 'protocol': 'openfabric'}, 'ip_prefix'),
    ('sdn_fabric', fabric(hello_interval=601), 'hello_interval'),
    ('sdn_fabric', fabric(csnp_interval=0), 'csnp_interval'),
    ('sdn_fabric', fabric(area='0'), 'area'),
    ('sdn_fabric', fabric(protocol='ospf'), 'area'),
    ('sdn_fabric', fabric(protocol='ospf', area='backbone'), 'area'),
    ('sdn_fabric', fabric(protocol='ospf', area='0', hello_interval=3), 'hello_interval'),
    ('sdn_fabric', fabric(protocol='ospf', area='0', ip6_prefix='fd00::/64'), 'ip6_prefix'),
    # sdn_fabric_node
    ('sdn_fabric_node', node(fabric='fabric-long'), 'fabric'),
    ('sdn_fabric_node', node(node='node_1'), 'node'),
    ('sdn_fabric_node', node(ip='10.0.0.300'), 'ip'),
    ('sdn_fabric_node', node(ip='fd00::1'), 'ip'),
    ('sdn_fabric_node', node(ip6='10.0.0.1'), 'ip6'),
    ('sdn_fabric_node', node(interfaces=['hello_multiplier=3']), 'interfaces'),
    ('sdn_fabric_node', node(interfaces=['name=ens19,hello_multiplier=1']), 'interfaces'),
    ('sdn_fabric_node', node(interfaces=[{'name': 'ens19', 'ip': '10.5.0.1'}]), 'interfaces'),
    ('sdn_fabric_node', node(interfaces=['name=ens19,cost=10']), 'interfaces'),
]

OBJECTS = ['sdn_fabric', 'sdn_fabric_node']
THREE = [('node1', '10.0.0.1', ['name=ens19', 'name=ens20']), ('node2', '10.0.0.2', ['name=ens19', 'name=ens20']),
         ('node3', '10.0.0.3', ['name=ens19', {'name': 'ens20', 'hello_multiplier': 3}])]
SDN_APPLY = ('PUT', '/cluster/sdn')


def play(sim, hello=3):
    """The fabric, its three nodes, one SDN apply."""
    tasks = [task(sim, 'sdn_fabric', fabric(hello_interval=hello), name='fabric')]
    tasks += [task(sim, 'sdn_fabric_node', node(node=name, ip=ip, interfaces=interfaces), name=name)
              for name, ip, interfaces in THREE]
    return tasks + [task(sim, 'sdn_apply', {}, name='apply')]


def run_play(sim, playbook, path, check=False, diff=False):
    sim.clear_log()
    run = playbook(play(sim), check=check, diff=diff, env=EXECUTION_PATHS[path])
    assert run.rc == 0, [line['result'].get('msg') for line in run.failed]
    return dict((line['task'], line['result']) for line in run.results)


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_an_openfabric_fabric_with_three_nodes(sim, playbook, path):
    # 1. check mode: everything would be created, nothing is written
    outcome = run_play(sim, playbook, path, check=True, diff=True)
    for name in ('fabric', 'node1', 'node2', 'node3'):
        assert outcome[name]['plan']['action'] == 'create', name
    assert sim.writes() == []

    # 2. created, staged, applied once
    outcome = run_play(sim, playbook, path)
    writes = [(entry['method'], entry['path']) for entry in sim.writes()]
    assert writes == [('POST', '/cluster/sdn/fabrics/fabric')] + [('POST', '/cluster/sdn/fabrics/node/f1')] * 3 + [
        SDN_APPLY]
    # the node's protocol is the fabric's, read from it
    assert all(entry['form']['protocol'] == 'openfabric' for entry in sim.writes()[1:4])
    for name in ('fabric', 'node1', 'node2', 'node3'):
        assert outcome[name]['pending'] is True and outcome[name]['pending_state'] == 'new', name
    assert outcome['apply']['plan']['changed'] == ['fabric f1 (new)', 'fabric node f1/node1 (new)',
                                                   'fabric node f1/node2 (new)', 'fabric node f1/node3 (new)']
    assert outcome['node3']['object']['interfaces'] == ['name=ens19', 'name=ens20,hello_multiplier=3']
    running = sim.state.sdn_running
    assert set(running['fabrics']) == {'f1'} and set(running['fabric_nodes']) == {'f1_node1', 'f1_node2', 'f1_node3'}

    # 3. re-run: zero writes, no apply
    outcome = run_play(sim, playbook, path)
    assert sim.writes() == []
    for name in outcome:
        assert outcome[name]['changed'] is False, name

    # 4. drift through the API; 5. --check --diff names it
    api(sim, [('PUT', '/cluster/sdn/fabrics/fabric/f1', {'protocol': 'openfabric', 'hello_interval': '10',
                                                         'csnp_interval': '20'}),
              ('PUT', '/cluster/sdn/fabrics/node/f1/node2', {'protocol': 'openfabric', 'ip': '10.0.0.22',
                                                             'delete': 'interfaces'})])
    outcome = run_play(sim, playbook, path, check=True, diff=True)
    assert sorted(outcome['fabric']['plan']['changed']) == ['csnp_interval', 'hello_interval']
    assert sorted(outcome['node2']['plan']['changed']) == ['interfaces', 'ip']
    assert outcome['node2']['diff']['before']['ip'] == '10.0.0.22' and outcome['node2']['diff']['after']['ip'] == \
        '10.0.0.2'
    assert outcome['apply']['plan']['action'] == 'apply'
    assert sim.writes() == []

    # 6. repaired: one write each (csnp_interval cleared with delete=), and the staged file matches the running one
    # again, so there is nothing to apply
    outcome = run_play(sim, playbook, path)
    writes = sim.writes()
    assert [(entry['method'], entry['path']) for entry in writes] == [
        ('PUT', '/cluster/sdn/fabrics/fabric/f1'), ('PUT', '/cluster/sdn/fabrics/node/f1/node2')]
    assert writes[0]['form']['delete'] == 'csnp_interval' and writes[0]['form']['protocol'] == 'openfabric'
    assert not [entry for entry in writes if (entry['method'], entry['path']) == SDN_APPLY]
    assert outcome['node2']['changed'] is True and outcome['apply']['changed'] is False
    if reconfirms(path):
        run_play(sim, playbook, path)
        assert sim.writes() == []


def test_declare_writes_the_fabric_before_its_nodes_and_refuses_a_node_of_an_unknown_fabric(sim, playbook):
    objects = {'sdn_fabric': [FABRIC], 'sdn_fabric_node': [NODE], 'sdn_apply': [{}]}
    sim.clear_log()
    run = playbook([task(sim, 'declare', {'objects': objects})], env=EXECUTION_PATHS['controller'])
    assert run.rc == 0, [line['result'].get('msg') for line in run.failed]
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [
        ('POST', '/cluster/sdn/fabrics/fabric'), ('POST', '/cluster/sdn/fabrics/node/f1'), SDN_APPLY]

    sim.clear_log()
    run = playbook([task(sim, 'declare', {'objects': {'sdn_fabric_node': [node(fabric='nope')]}},
                         ignore_errors=True)], env=EXECUTION_PATHS['controller'])
    assert run.results[0]['status'] == 'failed'
    assert "fabric 'nope' does not exist" in run.results[0]['result']['msg'], run.results[0]['result']
    assert sim.writes() == []


def test_a_single_node_task_refuses_an_unknown_fabric_before_writing(sim, playbook):
    sim.clear_log()
    run = playbook([task(sim, 'sdn_fabric_node', node(fabric='nope'), ignore_errors=True)],
                   env=EXECUTION_PATHS['controller'])
    assert run.results[0]['status'] == 'failed'
    assert "fabric 'nope' does not exist" in run.results[0]['result']['msg']
    assert sim.writes() == []


def test_the_export_declares_fabrics_and_nodes_back(sim, playbook):
    api(sim, SETUP + [('POST', '/cluster/sdn/fabrics/node/under', {
        'node_id': 'node1', 'protocol': 'openfabric', 'ip': '10.254.0.1', 'interfaces': ['name=ens19']})])
    run = playbook([task(sim, 'export', {})], env=EXECUTION_PATHS['controller'])
    assert run.rc == 0, [line['result'].get('msg') for line in run.failed]
    objects = run.result()['objects']
    assert {'id': 'under', 'protocol': 'openfabric', 'ip_prefix': '10.254.0.0/24'} in objects['sdn_fabric']
    assert {'fabric': 'under', 'node': 'node1', 'ip': '10.254.0.1', 'interfaces': ['name=ens19']} in \
        objects['sdn_fabric_node']


def test_a_vxlan_zone_and_an_evpn_controller_run_over_a_fabric_declared_beside_them(sim, playbook):
    objects = {'sdn_fabric': [FABRIC], 'sdn_fabric_node': [NODE, node(node='node2', ip='10.0.0.2')],
               'sdn_controller': [{'controller': 'evpnf', 'type': 'evpn', 'asn': 65001, 'fabric': 'f1'}],
               'sdn_zone': [{'zone': 'overlay', 'type': 'vxlan', 'fabric': 'f1'}], 'sdn_apply': [{}]}
    sim.clear_log()
    run = playbook([task(sim, 'declare', {'objects': objects})], env=EXECUTION_PATHS['controller'])
    assert run.rc == 0, [line['result'].get('msg') for line in run.failed]
    # the fabric and its nodes first, then what runs over them, one apply
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [
        ('POST', '/cluster/sdn/fabrics/fabric'), ('POST', '/cluster/sdn/fabrics/node/f1'),
        ('POST', '/cluster/sdn/fabrics/node/f1'), ('POST', '/cluster/sdn/controllers'), ('POST', '/cluster/sdn/zones'),
        SDN_APPLY]
    running = sim.state.sdn_running
    assert running['zones']['overlay']['fabric'] == 'f1' and running['controllers']['evpnf']['fabric'] == 'f1'

    sim.clear_log()
    again = playbook([task(sim, 'declare', {'objects': objects})], env=EXECUTION_PATHS['controller'])
    assert again.rc == 0 and again.result()['changed'] is False and sim.writes() == []

    # the fabric cannot go while the zone and the controller run over it: PVE refuses, nothing is removed
    sim.clear_log()
    gone = playbook([task(sim, 'sdn_fabric', {'id': 'f1', 'state': 'absent'}, ignore_errors=True)],
                    env=EXECUTION_PATHS['controller'])
    assert gone.results[0]['status'] == 'failed'
    assert 'this fabric is still used' in gone.results[0]['result']['msg'], gone.results[0]['result']
    assert 'f1' in sim.state.sdn['fabrics']
