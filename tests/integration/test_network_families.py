"""SDN and node networking through real ansible-playbook runs, on both execution paths.

The object families (sdn_zone, sdn_vnet, sdn_subnet, node_network) stage their writes; the applies
(sdn_apply, network_apply) make them live, once, only when something is staged. One play per step
holds them all in dependency order: the node's bridge, its apply, then zone, vnet, subnet, SDN apply. The
module path skips the confirming re-run (the second absent): its step 3 proved a converged play writes nothing.

``MATRIX``, ``SETUP`` and ``BAD_INPUT`` have the shapes of test_matrix.FAMILIES / SETUP and
test_bad_input.CORPUS.
"""

import pytest

from conftest import EXECUTION_PATHS, reconfirms
from test_ha_families import task
from test_matrix import api

FINGERPRINT = ':'.join(['AB'] * 32)

# Each object stands on its own (the fault matrix runs them in any order): the vnet's zone, the subnet's
# vnet and another subnet are there before, and live.
SETUP = [
    ('POST', '/cluster/sdn/zones', {'zone': 'base', 'type': 'simple'}),
    ('POST', '/cluster/sdn/vnets', {'vnet': 'app', 'zone': 'base'}),
    ('POST', '/cluster/sdn/vnets/app/subnets', {'subnet': '10.30.0.0/24', 'type': 'subnet'}),
    # another controller, IPAM and DNS server in the same files (for another writer to edit)
    ('POST', '/cluster/sdn/controllers', {'controller': 'isis2', 'type': 'isis', 'node': 'node2', 'isis-domain': 'lab',
                                          'isis-net': '49.0001.1921.6800.1002.00', 'isis-ifaces': 'eno1'}),
    ('POST', '/cluster/sdn/ipams', {'ipam': 'php', 'type': 'phpipam', 'url': 'https://phpipam.lab/api/pve',
                                    'token': 'php-token-5c2d', 'section': '1'}),
    ('POST', '/cluster/sdn/dns', {'dns': 'pdnstwo', 'type': 'powerdns', 'url': 'https://pdns2.lab/api/v1/servers/x',
                                  'key': 'pdns-two-key-8e4f', 'ttl': '60'}),
    ('PUT', '/cluster/sdn', {}),
]

MATRIX = {
    'node_network': dict(
        prefix='/nodes/node1/network',
        args={'node': 'node1', 'iface': 'vmbr1', 'type': 'bridge', 'bridge_ports': ['eno2'], 'cidr': '10.10.0.2/24',
              'autostart': True, 'comments': 'Storage network', 'bridge_vlan_aware': False},
        # Re-commented and made VLAN-aware by hand (staged): the repair clears vlan awareness with delete=.
        drift=[('PUT', '/nodes/node1/network/vmbr1', {'type': 'bridge', 'cidr': '10.10.0.2/24', 'comments': 'hand',
                                                      'bridge_vlan_aware': '1'})],
        drifted={'comments': 'comments', 'bridge_vlan_aware': 'bridge_vlan_aware'},
        absent={'node': 'node1', 'iface': 'vmbr1', 'state': 'absent', 'confirm_removal': True},
    ),
    'sdn_zone': dict(
        prefix='/cluster/sdn/zones',
        args={'zone': 'lab', 'type': 'vlan', 'bridge': 'vmbr0', 'mtu': 1450, 'nodes': ['node2', 'node1']},
        # MTU raised and the zone spread to a third node by hand.
        drift=[('PUT', '/cluster/sdn/zones/lab', {'mtu': '9000', 'nodes': 'node1,node2,node3'})],
        drifted={'mtu': 'mtu', 'nodes': 'nodes'},
        absent={'zone': 'lab', 'state': 'absent'},
    ),
    'sdn_vnet': dict(
        prefix='/cluster/sdn/vnets',
        args={'vnet': 'web', 'zone': 'base', 'alias': 'Web tier'},
        drift=[('PUT', '/cluster/sdn/vnets/web', {'alias': 'Changed', 'isolate-ports': '1'})],
        drifted={'alias': 'alias', 'isolate_ports': 'isolate-ports'},
        absent={'vnet': 'web', 'state': 'absent'},
    ),
    # a node's BGP speaker (one per node; the cluster's one evpn controller is test_sdn_evpn's)
    'sdn_controller': dict(
        prefix='/cluster/sdn/controllers',
        args={'controller': 'bgpnode1', 'type': 'bgp', 'node': 'node1', 'asn': 65000, 'peers': ['192.0.2.1'],
              'ebgp': True},
        drift=[('PUT', '/cluster/sdn/controllers/bgpnode1', {'asn': '65001', 'loopback': 'dummy0'})],
        drifted={'asn': 'asn', 'loopback': 'loopback'},
        absent={'controller': 'bgpnode1', 'state': 'absent'},
    ),
    # written directly (no running copy): its token is a secret, never compared or shown
    'sdn_ipam': dict(
        prefix='/cluster/sdn/ipams',
        args={'ipam': 'netbox', 'type': 'netbox', 'url': 'https://netbox.lab/api', 'token': 'netbox-token-7f3a'},
        drift=[('PUT', '/cluster/sdn/ipams/netbox', {'url': 'https://netbox.old/api', 'fingerprint': FINGERPRINT})],
        drifted={'url': 'url', 'fingerprint': 'fingerprint'},
        absent={'ipam': 'netbox', 'state': 'absent'},
    ),
    'sdn_dns': dict(
        prefix='/cluster/sdn/dns',
        args={'dns': 'pdns', 'type': 'powerdns', 'url': 'https://pdns.lab/api/v1/servers/localhost',
              'key': 'pdns-key-9b1e', 'ttl': 3600},
        drift=[('PUT', '/cluster/sdn/dns/pdns', {'ttl': '60', 'reversemaskv6': '56'})],
        drifted={'ttl': 'ttl', 'reversemaskv6': 'reversemaskv6'},
        absent={'dns': 'pdns', 'state': 'absent'},
    ),
    'sdn_subnet': dict(
        prefix='/cluster/sdn/vnets/app/subnets',
        args={'vnet': 'app', 'subnet': '10.20.0.0/24', 'gateway': '10.20.0.1', 'snat': True,
              'dhcp_range': ['start-address=10.20.0.100,end-address=10.20.0.199']},
        drift=[('PUT', '/cluster/sdn/vnets/app/subnets/base-10.20.0.0-24', {'snat': '0', 'dnszoneprefix': 'web'})],
        drifted={'snat': 'snat', 'dnszoneprefix': 'dnszoneprefix'},
        absent={'vnet': 'app', 'subnet': '10.20.0.0/24', 'state': 'absent'},
    ),
}
OBJECTS = ['node_network', 'sdn_zone', 'sdn_vnet', 'sdn_subnet']
# The play's order: each apply after the objects it makes live.
ORDER = ['node_network', 'network_apply', 'sdn_zone', 'sdn_vnet', 'sdn_subnet', 'sdn_apply']
ABSENT_ORDER = ['sdn_subnet', 'sdn_vnet', 'sdn_zone', 'sdn_apply', 'node_network', 'network_apply']
APPLY_ARGS = {'network_apply': {'node': 'node1'}, 'sdn_apply': {}}
SDN_APPLY = ('PUT', '/cluster/sdn')
NODE1_APPLY = ('PUT', '/nodes/node1/network')

ZONE = {'zone': 'lab', 'type': 'vlan', 'bridge': 'vmbr0'}
EVPN_ZONE = {'zone': 'ev', 'type': 'evpn', 'controller': 'evpn1', 'vrf_vxlan': 10000}
EVPN = {'controller': 'evpn1', 'type': 'evpn', 'asn': 65000, 'peers': ['10.0.0.1']}
NETBOX = {'ipam': 'netbox', 'type': 'netbox', 'url': 'https://netbox.lab/api', 'token': 'netbox-token-7f3a'}
# a key no message holds by chance (Ansible masks a no_log value wherever it appears)
PDNS = {'dns': 'pdns', 'type': 'powerdns', 'url': 'https://pdns.lab/api/v1/servers/localhost', 'key': 'pdns-bad-key-31'}
BOND = {'node': 'node1', 'iface': 'bond0', 'type': 'bond', 'slaves': ['eno2'], 'bond_mode': 'active-backup'}


def zone(**changes):
    return dict(ZONE, **changes)


def bond(**changes):
    return dict(BOND, **changes)


BAD_INPUT = [
    # sdn_zone
    ('sdn_zone', zone(zone='laboratory'), 'zone'),
    ('sdn_zone', zone(zone='1lab'), 'zone'),
    ('sdn_zone', {'zone': 'lab', 'type': 'vxlan'}, 'peers'),
    ('sdn_zone', zone(peers=['10.0.0.1']), 'peers'),
    ('sdn_zone', zone(type='qinq', tag=-1), 'tag'),
    ('sdn_zone', zone(mtu='jumbo'), 'mtu'),
    ('sdn_zone', zone(nodes=['node_1']), 'nodes'),
    ('sdn_zone', {'zone': 'lab'}, 'type'),
    ('sdn_zone', {'zone': 'lab', 'type': 'vxlan', 'peers': ['10.0.0.1'], 'fabric': 'under'}, 'fabric'),
    ('sdn_zone', {'zone': 'lab', 'type': 'vxlan', 'fabric': 'under_1'}, 'fabric'),
    ('sdn_zone', dict(EVPN_ZONE, rt_import=['65000:x']), 'rt_import'),
    ('sdn_zone', dict(EVPN_ZONE, vrf_vxlan=16777216), 'vrf_vxlan'),
    ('sdn_zone', {'zone': 'ev', 'type': 'evpn', 'vrf_vxlan': 100}, 'controller'),
    ('sdn_zone', zone(dnszone='lab.example.org'), 'dnszone'),
    ('sdn_zone', zone(fabric='under'), 'fabric'),
    # sdn_controller
    ('sdn_controller', {'controller': 'e', 'type': 'evpn', 'asn': 65000, 'peers': ['10.0.0.1']}, 'controller'),
    ('sdn_controller', dict(EVPN, controller='evpn 1'), 'controller'),
    ('sdn_controller', dict(EVPN, asn=4294967296), 'asn'),
    ('sdn_controller', dict(EVPN, peers=['10.0.0.300']), 'peers'),
    ('sdn_controller', dict(EVPN, fabric='under'), 'fabric'),
    ('sdn_controller', {'controller': 'evpn1', 'type': 'evpn', 'asn': 65000}, 'peers'),
    ('sdn_controller', dict(EVPN, node='node1'), 'node'),
    ('sdn_controller', {'controller': 'bgp1', 'type': 'bgp', 'asn': 65000, 'peers': ['10.0.0.1']}, 'node'),
    ('sdn_controller', {'controller': 'isis1', 'type': 'isis', 'node': 'node1', 'isis_domain': 'lab',
                        'isis_ifaces': ['eno1'], 'isis_net': '49.1'}, 'isis_net'),
    ('sdn_controller', {'controller': 'isis1', 'type': 'isis', 'node': 'node1', 'isis_domain': 'lab',
                        'isis_net': '49.0001.1921.6800.1001.00'}, 'isis_ifaces'),
    ('sdn_controller', {'controller': 'f1', 'type': 'faucet'}, 'type'),
    ('sdn_controller', {'controller': 'evpn1'}, 'type'),
    # sdn_ipam
    ('sdn_ipam', dict(NETBOX, ipam='net-box'), 'ipam'),
    ('sdn_ipam', dict(NETBOX, url=None), 'url'),
    ('sdn_ipam', dict(NETBOX, section=1), 'section'),
    ('sdn_ipam', dict(NETBOX, type='phpipam'), 'section'),
    ('sdn_ipam', dict(NETBOX, fingerprint='AB:CD'), 'fingerprint'),
    ('sdn_ipam', dict(NETBOX, update_secret='sometimes'), 'update_secret'),
    ('sdn_ipam', {'ipam': 'pve', 'state': 'absent'}, 'ipam'),
    # sdn_dns
    ('sdn_dns', dict(PDNS, dns='p'), 'dns'),
    ('sdn_dns', dict(PDNS, url=None), 'url'),
    ('sdn_dns', dict(PDNS, ttl='hour'), 'ttl'),
    ('sdn_dns', dict(PDNS, type='bind'), 'type'),
    ('sdn_dns', dict(PDNS, reversev6mask=64), 'reversev6mask'),
    # sdn_vnet
    ('sdn_vnet', {'vnet': 'webfrontend', 'zone': 'lab'}, 'vnet'),
    ('sdn_vnet', {'vnet': 'web-1', 'zone': 'lab'}, 'vnet'),
    ('sdn_vnet', {'vnet': 'web', 'zone': 'lab', 'tag': 16777216}, 'tag'),
    ('sdn_vnet', {'vnet': 'web', 'zone': 'lab', 'tag': 0}, 'tag'),
    ('sdn_vnet', {'vnet': 'web'}, 'zone'),
    ('sdn_vnet', {'vnet': 'web', 'zone': 'lab', 'alias': 'a' * 257}, 'alias'),
    # sdn_subnet
    ('sdn_subnet', {'vnet': 'web', 'subnet': '10.0.0.0/33'}, 'subnet'),
    ('sdn_subnet', {'vnet': 'web', 'subnet': '10.0.0.0'}, 'subnet'),
    ('sdn_subnet', {'vnet': 'web', 'subnet': '10.0.0.5/24'}, 'subnet'),
    ('sdn_subnet', {'vnet': 'web', 'subnet': '10.0.0.0/24', 'gateway': '10.9.0.1'}, 'gateway'),
    ('sdn_subnet', {'vnet': 'web', 'subnet': '10.0.0.0/24', 'gateway': 'router'}, 'gateway'),
    ('sdn_subnet', {'vnet': 'web', 'subnet': '10.0.0.0/24', 'dhcp_range': ['from 10.0.0.1']}, 'dhcp_range'),
    # node_network
    ('node_network', bond(slaves=[]), 'slaves'),
    ('node_network', {'node': 'node1', 'iface': 'bond0', 'type': 'bond'}, 'slaves'),
    ('node_network', {'node': 'node1', 'iface': 'eno1.4095', 'type': 'vlan', 'vlan_id': 4095}, 'vlan_id'),
    ('node_network', {'node': 'node1', 'iface': 'vmbr1', 'type': 'bridge', 'cidr': '10.0.0.1/33'}, 'cidr'),
    ('node_network', {'node': 'node1', 'iface': 'vmbr1', 'type': 'bridge', 'mtu': 9999999}, 'mtu'),
    ('node_network', {'node': 'node1', 'iface': 'vmbr1', 'type': 'bridge', 'slaves': ['eno2']}, 'slaves'),
    ('node_network', {'node': 'node1', 'iface': 'vmbr1', 'type': 'bridge', 'state': 'absent'}, 'confirm_removal'),
    ('node_network', {'node': 'node 1', 'iface': 'vmbr1', 'type': 'bridge'}, 'node'),
    # the applies
    ('network_apply', {'node': 'node_1'}, 'node'),
    ('network_apply', {}, 'node'),
    ('sdn_apply', {'node': 'node1'}, 'node'),
    ('sdn_apply', {'task_timeout': 'soon'}, 'task_timeout'),
]


def of(module, entries):
    prefix = MATRIX[module]['prefix']
    found = [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]
    if module == 'sdn_vnet':  # the vnet's subnets have their own prefix
        found = [entry for entry in found if not entry['path'].startswith(MATRIX['sdn_subnet']['prefix'])]
    return found


def calls(entries, method, path):
    return [entry for entry in entries if entry['method'] == method and entry['path'] == path]


def args_of(module, key):
    return APPLY_ARGS[module] if module in APPLY_ARGS else MATRIX[module][key]


def step(sim, playbook, path, key, check=False, diff=False):
    """One play over every family; results by module."""
    order = ABSENT_ORDER if key == 'absent' else ORDER
    sim.clear_log()
    run = playbook([task(sim, module, args_of(module, key)) for module in order], check=check, diff=diff,
                   env=EXECUTION_PATHS[path])
    assert run.rc == 0, [line['result'].get('msg') for line in run.failed]
    return run, dict((line['task'], line['result']) for line in run.results)


def running(sim, kind):
    return set((sim.state.sdn_running or {}).get(kind) or {})


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_the_network_families_lifecycle(sim, playbook, path):
    api(sim, SETUP)

    # 1. check mode writes nothing: every object would be created, nothing is staged yet to apply
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in OBJECTS:
        assert outcome[module]['plan']['action'] == 'create', module
    for module in APPLY_ARGS:
        assert outcome[module]['changed'] is False and outcome[module]['plan']['action'] == 'none', module
    assert sim.writes() == []

    # 2. create: one staged write per object, each reported pending, then each apply once
    run, outcome = step(sim, playbook, path, 'args')
    writes = [(entry['method'], entry['path']) for entry in sim.writes()]
    assert writes == [('POST', '/nodes/node1/network'), NODE1_APPLY, ('POST', '/cluster/sdn/zones'),
                      ('POST', '/cluster/sdn/vnets'), ('POST', '/cluster/sdn/vnets/app/subnets'), SDN_APPLY]
    for module in ('sdn_zone', 'sdn_vnet', 'sdn_subnet'):
        assert outcome[module]['pending'] is True and outcome[module]['pending_state'] == 'new', module
    assert outcome['sdn_apply']['changed'] is True
    assert outcome['sdn_apply']['plan']['changed'] == ['zone lab (new)', 'vnet web (new)',
                                                       'subnet base-10.20.0.0-24 (new)']
    assert outcome['sdn_apply']['task'].startswith('UPID:')
    assert outcome['sdn_apply']['object'] == {'pending': []}
    assert outcome['network_apply']['object'] == {'node': 'node1', 'pending_lines': 0}
    assert outcome['network_apply']['task'].startswith('UPID:node1:')
    assert running(sim, 'zones') == {'base', 'lab'} and running(sim, 'vnets') == {'app', 'web'}
    assert outcome['sdn_subnet']['object']['dhcp_range'] == ['start-address=10.20.0.100,end-address=10.20.0.199']
    assert 'vmbr1' in sim.state.networks['node1']['interfaces']

    # 3. re-run: adopted, zero writes, and no apply call at all
    run, outcome = step(sim, playbook, path, 'args')
    assert sim.writes() == []
    for module in OBJECTS + list(APPLY_ARGS):
        assert outcome[module]['changed'] is False, module
    for module in ('sdn_zone', 'sdn_vnet', 'sdn_subnet'):
        assert outcome[module]['pending'] is False, module

    # 4. a half-finished edit behind the modules' back; 5. --check --diff names it and applies nothing
    for module in OBJECTS:
        api(sim, MATRIX[module]['drift'])
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in OBJECTS:
        drifted = sorted(MATRIX[module]['drifted'])
        result = outcome[module]
        assert result['plan']['action'] == 'update' and sorted(result['plan']['changed']) == drifted, module
        before, after = result['diff']['before'], result['diff']['after']
        assert sorted(key for key in after if before.get(key) != after[key]) == drifted, module
    assert outcome['sdn_apply']['plan']['action'] == 'apply'
    assert outcome['sdn_apply']['plan']['changed'] == ['zone lab (changed)', 'vnet web (changed)',
                                                       'subnet base-10.20.0.0-24 (changed)']
    staged = dict((entry['kind'], entry) for entry in outcome['sdn_apply']['object']['pending'])
    assert staged['zone']['keys'] == ['mtu', 'nodes']
    assert outcome['network_apply']['plan']['action'] == 'apply'
    assert outcome['network_apply']['object']['pending_lines'] > 0
    # the applies' diffs: what is staged now, and nothing staged after a real run
    assert outcome['sdn_apply']['diff']['before']['pending'] == outcome['sdn_apply']['object']['pending']
    assert outcome['sdn_apply']['diff']['after'] == {'pending': []}
    assert outcome['network_apply']['diff']['before']['pending_lines'] > 0
    assert outcome['network_apply']['diff']['after'] == {'node': 'node1', 'pending_lines': 0}
    assert sim.writes() == []

    # 6. a real run repairs each object with one write; the staged files then match the running ones,
    # so there is nothing left to apply and no apply call
    run, outcome = step(sim, playbook, path, 'args')
    for module in OBJECTS:
        written = of(module, sim.writes())
        assert len(written) == 1, (module, written)
        sent = set(written[0]['form']) | set(str(written[0]['form'].get('delete', '')).split(','))
        assert set(MATRIX[module]['drifted'].values()) <= sent, (module, written)
    assert of('node_network', sim.writes())[0]['form']['delete'] == 'bridge_vlan_aware'
    assert not calls(sim.writes(), *SDN_APPLY) and not calls(sim.writes(), *NODE1_APPLY)

    # 7. state=absent, subnet first, then each apply; 8. again a no-op
    run, outcome = step(sim, playbook, path, 'absent')
    writes = [(entry['method'], entry['path']) for entry in sim.writes()]
    assert writes == [('DELETE', '/cluster/sdn/vnets/app/subnets/base-10.20.0.0-24'),
                      ('DELETE', '/cluster/sdn/vnets/web'), ('DELETE', '/cluster/sdn/zones/lab'), SDN_APPLY,
                      ('DELETE', '/nodes/node1/network/vmbr1'), NODE1_APPLY]
    assert outcome['sdn_zone']['pending_state'] == 'deleted'
    assert running(sim, 'zones') == {'base'}
    if reconfirms(path):
        run, outcome = step(sim, playbook, path, 'absent')
        assert sim.writes() == []
        for module in OBJECTS + list(APPLY_ARGS):
            assert outcome[module]['changed'] is False, module


def stage_bridge(sim):
    api(sim, [('POST', '/nodes/node1/network', {'iface': 'vmbr7', 'type': 'bridge', 'autostart': '1'})])


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_network_apply_is_refused_on_a_degraded_cluster_and_fails_naming_a_failed_reload(sim, playbook, path):
    stage_bridge(sim)
    with sim.state.lock:
        sim.state.nodes['node3']['online'] = 0
    sim.clear_log()
    run = playbook([task(sim, 'network_apply', {'node': 'node1'}, name='degraded', ignore_errors=True),
                    task(sim, 'network_apply', {'node': 'node1'}, name='degraded check', check_mode=True)],
                   env=EXECUTION_PATHS[path])
    assert run.results[0]['status'] == 'failed'
    assert 'node node3 is offline' in run.results[0]['result']['msg']
    # check mode reports the plan and warns that a real run would refuse
    assert run.results[1]['result']['plan']['action'] == 'apply'
    assert 'a real run would refuse now' in run.output and 'node node3 is offline' in run.output
    assert sim.writes() == []
    assert sim.state.networks['node1']['staged'] is not None

    with sim.state.lock:
        sim.state.nodes['node3']['online'] = 1
        sim.state.network_reload_failure['node1'] = "command 'ifreload -a' failed: exit code 1"
    sim.clear_log()
    run = playbook([task(sim, 'network_apply', {'node': 'node1'}, ignore_errors=True)], env=EXECUTION_PATHS[path])
    result = run.result()
    assert run.results[0]['status'] == 'failed'
    assert len(calls(sim.writes(), *NODE1_APPLY)) == 1
    assert 'task UPID:node1:' in result['msg'] and "command 'ifreload -a' failed" in result['msg'], result


def test_an_sdn_apply_waits_for_staged_interfaces_and_a_healthy_cluster(sim, playbook):
    api(sim, [('POST', '/cluster/sdn/zones', {'zone': 'lab', 'type': 'simple'})])
    stage_bridge(sim)
    sim.clear_log()
    run = playbook([task(sim, 'sdn_apply', {}, ignore_errors=True)], env=EXECUTION_PATHS['controller'])
    assert 'node node1 has interface changes staged' in run.result()['msg'], run
    assert sim.writes() == []


def test_a_subnet_under_another_vnet_is_refused_instead_of_created_again_and_again(sim, playbook):
    api(sim, [('POST', '/cluster/sdn/zones', {'zone': 'lab', 'type': 'simple'}),
              ('POST', '/cluster/sdn/vnets', {'vnet': 'web', 'zone': 'lab'}),
              ('POST', '/cluster/sdn/vnets', {'vnet': 'db', 'zone': 'lab'}),
              ('POST', '/cluster/sdn/vnets/db/subnets', {'subnet': '10.0.0.0/24', 'type': 'subnet'})])
    sim.clear_log()
    run = playbook([task(sim, 'sdn_subnet', {'vnet': 'web', 'subnet': '10.0.0.0/24'}, ignore_errors=True)] * 2,
                   env=EXECUTION_PATHS['controller'])
    for line in run.results:
        assert line['status'] == 'failed'
        assert "subnet 10.0.0.0/24 exists under another vnet than 'web'" in line['result']['msg']
    assert sim.writes() == []


def test_dropping_a_zones_mtu_sends_delete_mtu_and_a_type_change_is_refused(sim, playbook):
    api(sim, [('POST', '/cluster/sdn/zones', {'zone': 'lab', 'type': 'simple', 'mtu': '1450'})])
    digest = sim.request('GET', '/cluster/sdn/zones/lab')[1]['data']['digest']
    sim.clear_log()
    run = playbook([task(sim, 'sdn_zone', {'zone': 'lab', 'type': 'simple'}),
                    task(sim, 'sdn_zone', {'zone': 'lab', 'type': 'vxlan', 'peers': ['10.0.0.1']}, name='retype',
                         ignore_errors=True)], env=EXECUTION_PATHS['controller'])
    writes = sim.writes()
    assert [(entry['method'], entry['path'], entry['form']) for entry in writes] == [
        ('PUT', '/cluster/sdn/zones/lab', {'delete': 'mtu', 'digest': digest})]
    assert "type is 'simple' on the server but the task declares 'vxlan'" in run.results[1]['result']['msg']


def test_a_live_interface_of_another_type_is_refused_never_retyped(sim, playbook):
    sim.clear_log()
    run = playbook([task(sim, 'node_network', {'node': 'node1', 'iface': 'eno2', 'type': 'bridge'},
                         ignore_errors=True)], env=EXECUTION_PATHS['controller'])
    assert "type is 'eth' on the server but the task declares 'bridge'" in run.result()['msg'], run
    assert sim.writes() == []


def role_vars():
    """A chain the role orders: the zone before its vnet before its subnet; interfaces on two nodes."""
    return {
        'cluster_node_networks': [MATRIX['node_network']['args'],
                                  {'node': 'node2', 'iface': 'vmbr2', 'type': 'bridge', 'cidr': '10.30.0.2/24'}],
        'cluster_sdn_zones': [MATRIX['sdn_zone']['args']],
        'cluster_sdn_vnets': [{'vnet': 'front', 'zone': 'lab', 'tag': 200}],
        'cluster_sdn_subnets': [{'vnet': 'front', 'subnet': '10.40.0.0/24', 'gateway': '10.40.0.1'}],
    }


# The role builds network_apply's items with Jinja (regex_replace, from_json): on the oldest and newest
# ansible-core too.
@pytest.mark.parametrize('path', [pytest.param(path, marks=pytest.mark.compat) if path == 'controller' else path
                                  for path in sorted(EXECUTION_PATHS)])
def test_the_cluster_role_stages_then_applies_once_and_a_second_run_makes_no_call(sim, playbook, path):
    role = {'name': 'Declare', 'ansible.builtin.include_role': {'name': 'homeflare.proxmox.cluster'},
            'vars': role_vars()}
    env = EXECUTION_PATHS[path]

    # check mode: nothing is staged yet, but each apply's plan names the objects this run would stage
    run = playbook([role], check=True, diff=True, env=env)
    assert run.rc == 0, run
    result = run.results[-1]['result']
    assert result['summary']['create'] == 5 and result['summary']['apply'] == 3
    plans = dict((entry['name'], entry['plan']) for entry in result['results'])
    assert plans['the SDN configuration']['changed'] == [
        "sdn_zone 'lab' (create)", "sdn_vnet 'front' (create)", "sdn_subnet 'front', '10.40.0.0/24' (create)"]
    assert plans["the network of node 'node2'"]['changed'] == ["node_network 'node2', 'vmbr2' (create)"]
    assert sim.writes() == []

    # the real run: interfaces, then each node's apply one at a time, then SDN objects and one SDN apply
    run = playbook([role], env=env)
    assert run.rc == 0, run
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [
        ('POST', '/nodes/node1/network'), ('POST', '/nodes/node2/network'), ('POST', '/cluster/sdn/zones'),
        ('POST', '/cluster/sdn/vnets'), ('POST', '/cluster/sdn/vnets/front/subnets'), NODE1_APPLY,
        ('PUT', '/nodes/node2/network'), SDN_APPLY]
    assert running(sim, 'subnets') == {'lab-10.40.0.0-24'}

    # a second run: zero writes, and no apply call at all
    sim.clear_log()
    run = playbook([role], env=env)
    assert run.rc == 0, run
    assert sim.writes() == []
    assert run.results[-1]['result']['changed'] is False
    assert run.results[-1]['result']['summary']['matched'] == 8


def test_a_revert_removes_the_staged_file_once_and_then_has_nothing_to_do(sim, playbook):
    stage_bridge(sim)
    sim.clear_log()
    revert = task(sim, 'network_apply', {'node': 'node1', 'revert': True})
    run = playbook([dict(revert, name='check', check_mode=True), dict(revert, name='revert'),
                    dict(revert, name='again')], env=EXECUTION_PATHS['controller'])
    assert run.rc == 0, run
    check, done, again = (line['result'] for line in run.results)
    assert check['plan']['action'] == 'revert' and check['changed'] is True
    assert done['plan']['action'] == 'revert' and done['object'] == {'node': 'node1', 'pending_lines': 0}
    assert again['changed'] is False and again['plan']['action'] == 'none'
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [('DELETE', '/nodes/node1/network')]
    assert sim.state.networks['node1']['staged'] is None
    assert 'vmbr7' not in sim.state.networks['node1']['interfaces']
