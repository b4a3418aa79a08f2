"""An EVPN network end to end (issue 27): a netbox IPAM with its token, a PowerDNS server with its key, the cluster's
EVPN controller, an EVPN zone naming all three, a vnet and a subnet, then one SDN apply; through real
ansible-playbook runs on both execution paths, and through ``declare`` and the export.

IPAMs and DNS servers are written directly (no apply); the controller, zone, vnet and subnet are staged and made
live by the one apply. Secrets are written on create, never compared, returned or exported; ``update_secret:
always`` writes them again and says so. What a zone names is checked before any request.
"""

import pytest

from conftest import EXECUTION_PATHS, reconfirms
from test_ha_families import task
from test_matrix import api

TOKEN = 'netbox-token-evpn-5d1c'
KEY = 'pdns-key-evpn-77aa'
OBJECTS = {
    'sdn_ipam': {'ipam': 'netbox', 'type': 'netbox', 'url': 'https://netbox.lab/api', 'token': TOKEN},
    'sdn_dns': {'dns': 'pdns', 'type': 'powerdns', 'url': 'https://pdns.lab/api/v1/servers/localhost', 'key': KEY,
                'ttl': 3600},
    'sdn_controller': {'controller': 'evpn1', 'type': 'evpn', 'asn': 65000, 'peers': ['10.0.0.1', '10.0.0.2',
                                                                                      '10.0.0.3']},
    'sdn_zone': {'zone': 'tenants', 'type': 'evpn', 'controller': 'evpn1', 'vrf_vxlan': 10000,
                 'exitnodes': ['node1', 'node2'], 'exitnodes_primary': 'node1', 'advertise_subnets': True,
                 'rt_import': ['65000:200', '65001:100'], 'ipam': 'netbox', 'dns': 'pdns', 'reversedns': 'pdns',
                 'dnszone': 'tenants.example.org', 'mtu': 1450},
    'sdn_vnet': {'vnet': 'blue', 'zone': 'tenants', 'tag': 11000, 'alias': 'Blue tenant'},
    'sdn_subnet': {'vnet': 'blue', 'subnet': '10.60.0.0/24', 'gateway': '10.60.0.1'},
}
ORDER = ['sdn_ipam', 'sdn_dns', 'sdn_controller', 'sdn_zone', 'sdn_vnet', 'sdn_subnet', 'sdn_apply']
STAGED = ['sdn_controller', 'sdn_zone', 'sdn_vnet', 'sdn_subnet']
CREATES = [('POST', '/cluster/sdn/ipams'), ('POST', '/cluster/sdn/dns'), ('POST', '/cluster/sdn/controllers'),
           ('POST', '/cluster/sdn/zones'), ('POST', '/cluster/sdn/vnets'), ('POST', '/cluster/sdn/vnets/blue/subnets'),
           ('PUT', '/cluster/sdn')]
# Made through the API behind the modules' back: each object's drift and the fields it names.
DRIFT = [
    ('PUT', '/cluster/sdn/ipams/netbox', {'url': 'https://netbox.old/api'}),
    ('PUT', '/cluster/sdn/dns/pdns', {'ttl': '60'}),
    ('PUT', '/cluster/sdn/controllers/evpn1', {'asn': '65099'}),
    ('PUT', '/cluster/sdn/zones/tenants', {'exitnodes': 'node3', 'delete': 'advertise-subnets'}),
]
DRIFTED = {'sdn_ipam': ['url'], 'sdn_dns': ['ttl'], 'sdn_controller': ['asn'],
           'sdn_zone': ['advertise_subnets', 'exitnodes'], 'sdn_vnet': [], 'sdn_subnet': []}


def args_of(module):
    return {} if module == 'sdn_apply' else OBJECTS[module]


def writes(sim):
    return [(entry['method'], entry['path']) for entry in sim.writes()]


def step(sim, playbook, path, check=False, diff=False, changes=None):
    sim.clear_log()
    tasks = [task(sim, module, dict(args_of(module), **(changes or {}).get(module, {}))) for module in ORDER]
    run = playbook(tasks, check=check, diff=diff, env=EXECUTION_PATHS[path])
    assert run.rc == 0, [line['result'].get('msg') for line in run.failed]
    assert TOKEN not in run.output and KEY not in run.output
    return run, dict((line['task'], line['result']) for line in run.results)


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_an_evpn_network_is_created_applied_once_adopted_and_repaired(sim, playbook, path):
    # 1. check mode: every object would be created; the zone's names are not there yet, which a single task's
    # check mode only warns about (the tasks before it create them in a real run)
    run, outcome = step(sim, playbook, path, check=True, diff=True)
    for module in ORDER[:-1]:
        assert outcome[module]['plan']['action'] == 'create', module
    assert any("the controller 'evpn1' does not exist" in warning for warning in outcome['sdn_zone']['warnings'])
    assert sim.writes() == []

    # 2. the real run: one write each, IPAM and DNS server live at once, the rest staged, then one apply
    run, outcome = step(sim, playbook, path)
    assert writes(sim) == CREATES
    forms = dict(((entry['method'], entry['path']), entry['form']) for entry in sim.writes())
    assert forms[('POST', '/cluster/sdn/ipams')]['token'] == TOKEN
    assert forms[('POST', '/cluster/sdn/dns')]['key'] == KEY
    for module in STAGED:
        assert outcome[module]['pending'] is True and outcome[module]['pending_state'] == 'new', module
    assert 'pending' not in outcome['sdn_ipam'] and 'pending' not in outcome['sdn_dns']
    assert outcome['sdn_apply']['plan']['changed'] == ['zone tenants (new)', 'vnet blue (new)',
                                                       'controller evpn1 (new)', 'subnet tenants-10.60.0.0-24 (new)']
    assert 'token' not in outcome['sdn_ipam']['object'] and 'key' not in outcome['sdn_dns']['object']
    assert outcome['sdn_ipam']['object'] == {'ipam': 'netbox', 'type': 'netbox', 'url': 'https://netbox.lab/api',
                                             'fingerprint': ''}
    running = sim.state.sdn_running
    assert set(running['controllers']) == {'evpn1'} and running['zones']['tenants']['controller'] == 'evpn1'
    assert running['zones']['tenants']['mac'].startswith('BC:24:11:')  # PVE's, compared only when declared

    # 3. re-run: zero writes, no apply
    run, outcome = step(sim, playbook, path)
    assert sim.writes() == []
    for module in ORDER:
        assert outcome[module]['changed'] is False, module

    # 4. drift through the API; 5. --check --diff names it field by field and applies nothing
    api(sim, DRIFT)
    run, outcome = step(sim, playbook, path, check=True, diff=True)
    for module, fields in DRIFTED.items():
        result = outcome[module]
        assert sorted(result['plan']['changed']) == fields, (module, result['plan'])
        before, after = result['diff']['before'], result['diff']['after']
        assert sorted(key for key in after if before.get(key) != after[key]) == fields, module
        assert 'token' not in before and 'key' not in before
    assert outcome['sdn_apply']['plan']['changed'] == ['zone tenants (changed)', 'controller evpn1 (changed)']
    assert sim.writes() == []

    # 6. the repair: one write per drifted object (the secrets are not sent); the staged files then match the
    # running ones again, so there is nothing to apply and no apply call
    run, outcome = step(sim, playbook, path)
    assert writes(sim) == [('PUT', '/cluster/sdn/ipams/netbox'), ('PUT', '/cluster/sdn/dns/pdns'),
                           ('PUT', '/cluster/sdn/controllers/evpn1'), ('PUT', '/cluster/sdn/zones/tenants')]
    assert outcome['sdn_apply']['changed'] is False
    assert all('token' not in entry['form'] and 'key' not in entry['form'] for entry in sim.writes())

    # 7. update_secret: always writes the secrets again on every real run and says so; check mode says it would
    always = {'sdn_ipam': {'update_secret': 'always', 'token': TOKEN + '-new'},
              'sdn_dns': {'update_secret': 'always'}}
    if reconfirms(path):
        run, outcome = step(sim, playbook, path, check=True, changes=always)
        assert outcome['sdn_ipam']['changed'] is True and outcome['sdn_ipam']['plan']['changed'] == ['token']
        assert outcome['sdn_dns']['plan']['changed'] == ['key'] and sim.writes() == []
    run, outcome = step(sim, playbook, path, changes=always)
    sent = [(entry['method'], entry['path'], dict(entry['form'])) for entry in sim.writes()]
    assert all(form.pop('digest') for _method, _path, form in sent)
    assert sent == [('PUT', '/cluster/sdn/ipams/netbox', {'token': TOKEN + '-new'}),
                    ('PUT', '/cluster/sdn/dns/pdns', {'key': KEY})]
    assert sim.state.sdn_ipams['netbox']['token'] == TOKEN + '-new'
    assert outcome['sdn_ipam']['changed'] is True and outcome['sdn_apply']['changed'] is False
    assert TOKEN + '-new' not in run.output


def test_a_zone_naming_what_is_neither_live_nor_declared_is_refused_before_any_request(sim, playbook):
    sim.clear_log()
    zone = dict(OBJECTS['sdn_zone'], ipam='pve', dns='', reversedns='', dnszone='')
    vxlan = {'zone': 'under', 'type': 'vxlan', 'fabric': 'fab1'}
    run = playbook([task(sim, 'sdn_zone', zone, ignore_errors=True),
                    task(sim, 'sdn_zone', dict(OBJECTS['sdn_zone'], controller='none'), name='ipam',
                         ignore_errors=True),
                    task(sim, 'sdn_zone', vxlan, name='fabric', ignore_errors=True)],
                   env=EXECUTION_PATHS['controller'])
    messages = [line['result']['msg'] for line in run.results]
    assert all(line['status'] == 'failed' for line in run.results), messages
    assert "option controller: the controller 'evpn1' does not exist (GET /cluster/sdn/controllers" in messages[0]
    assert 'Nothing was written' in messages[0]
    assert "option controller: the controller 'none' does not exist" in messages[1]
    assert "option fabric: the fabric 'fab1' does not exist (GET /cluster/sdn/fabrics/all" in messages[2]
    assert sim.writes() == []


def declare(objects, **extra):
    return {'name': 'Declare', 'homeflare.proxmox.declare': dict({'objects': objects}, **extra)}


def test_declare_takes_the_new_families_and_resolves_names_declared_beside_them(sim, playbook):
    objects = dict((module, [args_of(module)]) for module in ORDER)
    run = playbook([declare(objects)], check=True)
    assert run.rc == 0, run
    assert run.result()['summary']['create'] == 6 and sim.writes() == []
    run = playbook([declare(objects)])
    assert run.rc == 0, run
    # in the registry's order: the controller, IPAM and DNS server before the zone naming them
    assert writes(sim) == [CREATES[2], CREATES[0], CREATES[1]] + CREATES[3:] and TOKEN not in run.output
    sim.clear_log()
    run = playbook([declare(objects)])
    assert run.rc == 0 and sim.writes() == [] and run.result()['changed'] is False

    # a zone naming a controller the same task removes, or one that is nowhere, is refused before any write
    sim.clear_log()
    gone = dict(objects, sdn_controller=[{'controller': 'evpn1', 'state': 'absent'}],
                sdn_zone=[dict(OBJECTS['sdn_zone'], mtu=1400)])
    run = playbook([dict(declare(gone), ignore_errors=True)])
    assert run.rc == 0 and run.results[0]['status'] == 'failed'
    assert "names the controller 'evpn1', which this task also declares absent" in run.result()['msg']
    nowhere = {'sdn_zone': [dict(OBJECTS['sdn_zone'], zone='other', vrf_vxlan=10001, controller='evpn2')]}
    run = playbook([dict(declare(nowhere), ignore_errors=True)])
    assert "the controller 'evpn2' does not exist" in run.result()['msg']
    assert sim.writes() == []


def test_the_export_declares_the_new_families_with_placeholders_for_their_secrets(sim, playbook):
    objects = dict((module, [args_of(module)]) for module in ORDER)
    assert playbook([declare(objects)]).rc == 0
    sim.clear_log()
    run = playbook([{'name': 'Export', 'homeflare.proxmox.export': {
        'include': ['sdn_controller', 'sdn_ipam', 'sdn_dns', 'sdn_zone']}}], verbosity=3)
    assert run.rc == 0, run
    result = run.result()
    assert TOKEN not in run.output and KEY not in run.output and TOKEN not in str(result)
    assert result['objects']['sdn_ipam'] == [dict(OBJECTS['sdn_ipam'], token='{{ sdn_ipam_netbox_token }}')]
    assert result['objects']['sdn_dns'] == [dict(OBJECTS['sdn_dns'], key='{{ sdn_dns_pdns_key }}')]
    assert result['objects']['sdn_controller'] == [OBJECTS['sdn_controller']]
    variables = dict((entry['variable'], (entry['module'], entry['option'])) for entry in result['secrets'])
    assert variables == {'sdn_ipam_netbox_token': ('sdn_ipam', 'token'), 'sdn_dns_pdns_key': ('sdn_dns', 'key')}
    zone = result['objects']['sdn_zone'][0]
    assert (zone['controller'], zone['ipam'], zone['dns']) == ('evpn1', 'netbox', 'pdns')
    # the export, declared as it is, matches with zero writes
    run = playbook([declare(result['objects'])], check=True,
                   play_extra={'vars': dict((name, 'kept-in-a-vault') for name in variables)})
    assert run.rc == 0 and run.result()['changed'] is False, run
    assert sim.writes() == []


def test_the_cluster_role_declares_them_and_applies_once(sim, playbook):
    role = {'name': 'Declare', 'ansible.builtin.include_role': {'name': 'homeflare.proxmox.cluster'},
            'vars': {'cluster_sdn_ipams': [OBJECTS['sdn_ipam']], 'cluster_sdn_dns': [OBJECTS['sdn_dns']],
                     'cluster_sdn_controllers': [OBJECTS['sdn_controller']],
                     'cluster_sdn_zones': [OBJECTS['sdn_zone']], 'cluster_sdn_vnets': [OBJECTS['sdn_vnet']],
                     'cluster_sdn_subnets': [OBJECTS['sdn_subnet']]}}
    run = playbook([role])
    assert run.rc == 0, run
    assert writes(sim) == [CREATES[2], CREATES[0], CREATES[1]] + CREATES[3:]
    assert TOKEN not in run.output and KEY not in run.output
    sim.clear_log()
    run = playbook([role])
    assert run.rc == 0 and sim.writes() == [] and run.results[-1]['result']['changed'] is False, run
