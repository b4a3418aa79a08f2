"""A guest's and a vnet's firewall options and rule list (scope=vm, scope=vnet), end to end on each execution path.

One play per step declares the four objects: check mode writes nothing → the run writes → the re-run is zero
writes → a rule inserted by hand (as the UI does) and an option changed are named by --check --diff and repaired.
Then what is refused before any request: a vnet rule of another direction, a guest interface that is not netN, a
vmid that is no guest, a vnet not applied yet, a reference to an alias nowhere.
"""

import pytest

from conftest import EXECUTION_PATHS, connection
from test_matrix import api

SETUP = [
    ('POST', '/nodes/node1/qemu', {'vmid': '100', 'name': 'web1'}),
    ('POST', '/cluster/firewall/aliases', {'name': 'office', 'cidr': '198.51.100.0/24'}),
    ('POST', '/cluster/firewall/groups', {'group': 'webs'}),
    # the guest's own alias, which a guest rule names before the cluster's
    ('POST', '/nodes/node1/qemu/100/firewall/aliases', {'name': 'db', 'cidr': '10.0.0.5'}),
    ('POST', '/cluster/sdn/zones', {'zone': 'base', 'type': 'simple'}),
    ('POST', '/cluster/sdn/vnets', {'vnet': 'app', 'zone': 'base'}),
    ('PUT', '/cluster/sdn', {}),
]

OBJECTS = {
    'vm options': ('firewall_options', {'scope': 'vm', 'node': 'node1', 'vmid': 100, 'enable': True,
                                        'policy_in': 'DROP', 'macfilter': False}),
    'vm rules': ('firewall_rules', {'scope': 'vm', 'node': 'node1', 'vmid': 100, 'rules': [
        {'type': 'group', 'action': 'webs'},
        {'type': 'in', 'action': 'ACCEPT', 'source': 'office', 'proto': 'tcp', 'dport': '22', 'iface': 'net0'},
        {'type': 'out', 'action': 'ACCEPT', 'dest': 'guest/db', 'proto': 'tcp', 'dport': '5432'}]}),
    'vnet options': ('firewall_options', {'scope': 'vnet', 'vnet': 'app', 'enable': True, 'policy_forward': 'DROP'}),
    'vnet rules': ('firewall_rules', {'scope': 'vnet', 'vnet': 'app', 'rules': [
        {'type': 'forward', 'action': 'ACCEPT', 'source': 'office', 'proto': 'tcp', 'dport': '443'}]}),
}


def step(sim, playbook, path, check=False, diff=False):
    sim.clear_log()
    tasks = [{'name': name, 'homeflare.proxmox.%s' % module: dict(args, **connection(sim))}
             for name, (module, args) in OBJECTS.items()]
    run = playbook(tasks, check=check, diff=diff, env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    return run, dict((line['task'], line['result']) for line in run.results)


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_guest_and_vnet_firewalls_through_their_life(sim, playbook, path):
    api(sim, SETUP)
    _run, outcome = step(sim, playbook, path, check=True)
    assert all(outcome[name]['changed'] for name in OBJECTS), outcome
    assert sim.writes() == []

    _run, outcome = step(sim, playbook, path)
    assert all(outcome[name]['changed'] for name in OBJECTS), outcome
    # the guest's firewall was written where the guest lives, under its type
    paths = set(entry['path'] for entry in sim.writes())
    assert '/nodes/node1/qemu/100/firewall/options' in paths and '/cluster/sdn/vnets/app/firewall/options' in paths
    status, rules = sim.request('GET', '/nodes/node1/qemu/100/firewall/rules')
    assert [rule['type'] for rule in rules['data']] == ['group', 'in', 'out'], rules

    _run, outcome = step(sim, playbook, path)
    assert not any(outcome[name]['changed'] for name in OBJECTS), outcome
    assert sim.writes() == []

    # drift through the API: a rule inserted on top (the UI's add), an option changed
    inserted = {'type': 'in', 'action': 'ACCEPT', 'enable': '1', 'comment': 'added in the UI'}
    api(sim, [('POST', '/nodes/node1/qemu/100/firewall/rules', inserted),
              ('PUT', '/cluster/sdn/vnets/app/firewall/options', {'policy_forward': 'ACCEPT'})])
    run, outcome = step(sim, playbook, path, check=True, diff=True)
    assert sim.writes() == []
    assert outcome['vm rules']['plan']['changed'] == ['rules'] and 'added in the UI' in run.output
    assert outcome['vnet options']['plan']['changed'] == ['policy_forward']
    assert not outcome['vm options']['changed'] and not outcome['vnet rules']['changed']

    _run, outcome = step(sim, playbook, path)
    assert [entry['method'] for entry in sim.writes()] == ['DELETE', 'PUT'], sim.writes()
    _run, outcome = step(sim, playbook, path)
    assert sim.writes() == []


REFUSED = [
    ('firewall_rules', {'scope': 'vnet', 'vnet': 'app', 'rules': [{'type': 'in', 'action': 'ACCEPT'}]},
     "rules[0].type: 'in': invalid rule type 'in' for rule_env 'vnet'"),
    ('firewall_rules', {'scope': 'vnet', 'vnet': 'app', 'rules': [{'type': 'forward', 'action': 'ACCEPT',
                                                                   'iface': 'vmbr0'}]},
     'parameter -i not allowed'),
    ('firewall_rules', {'scope': 'vm', 'node': 'node1', 'vmid': 100,
                        'rules': [{'type': 'in', 'action': 'ACCEPT', 'iface': 'eth0'}]}, "pattern 'net\\d+'"),
    ('firewall_rules', {'scope': 'vm', 'node': 'node1', 'vmid': 100,
                        'rules': [{'type': 'forward', 'action': 'ACCEPT'}]}, "for rule_env 'vm'"),
    ('firewall_options', {'scope': 'vm', 'node': 'node1', 'vmid': 555, 'enable': True}, 'vmid 555 is no guest'),
    ('firewall_options', {'scope': 'vnet', 'vnet': 'later', 'enable': True}, "vnet 'later' is not in SDN's running"),
    ('firewall_rules', {'scope': 'vm', 'node': 'node1', 'vmid': 100,
                        'rules': [{'type': 'in', 'action': 'ACCEPT', 'source': 'guest/nowhere'}]},
     "no such alias 'guest/nowhere'"),
    ('firewall_options', {'scope': 'vm', 'node': 'node1', 'enable': True}, 'option vmid is required with scope=vm'),
    ('firewall_options', {'scope': 'vnet', 'vnet': 'app', 'macfilter': True}, 'scope=vnet does not take macfilter'),
]


def test_what_guest_and_vnet_scopes_refuse_before_any_write(sim, playbook):
    api(sim, SETUP + [('POST', '/cluster/sdn/vnets', {'vnet': 'later', 'zone': 'base'})])
    sim.clear_log()
    tasks = [{'name': str(index), 'homeflare.proxmox.%s' % module: dict(args, **connection(sim)), 'ignore_errors': True}
             for index, (module, args, _message) in enumerate(REFUSED)]
    run = playbook(tasks)
    results = dict((line['task'], line['result']) for line in run.results)
    for index, (_module, _args, message) in enumerate(REFUSED):
        result = results[str(index)]
        assert result.get('error') and message in result['msg'], (index, result)
    assert sim.writes() == []


def test_a_declare_locates_every_guest_from_one_resource_list(sim, playbook):
    # Each guest-scoped object finds its guest's type and node in /cluster/resources: a declare's reads write
    # nothing, so they share one such read however many guests and objects it names.
    api(sim, [('POST', '/nodes/node1/qemu', {'vmid': '100', 'name': 'web1'}),
              ('POST', '/nodes/node2/lxc', {'vmid': '101', 'hostname': 'db1', 'storage': 'local-lvm',
                                            'ostemplate': 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst'})])
    objects = {
        'firewall_options': [{'scope': 'vm', 'node': node, 'vmid': vmid, 'enable': True}
                             for node, vmid in (('node1', 100), ('node2', 101))],
        'firewall_alias': [{'scope': 'vm', 'node': node, 'vmid': vmid, 'name': 'self', 'cidr': '10.0.0.%d' % vmid}
                           for node, vmid in (('node1', 100), ('node2', 101))],
    }
    sim.clear_log()
    run = playbook([{'name': 'declare', 'homeflare.proxmox.declare': dict(objects=objects, **connection(sim))}],
                   check=True)
    assert run.rc == 0, run
    assert run.results[0]['result']['summary']['judged'] == 4
    assert [entry['path'] for entry in sim.log if entry['method'] == 'GET'].count('/cluster/resources') == 1
    assert sim.writes() == []
