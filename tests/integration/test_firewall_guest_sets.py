"""A guest's whole firewall in one playbook (issue 26's "done when"): a VM's aliases, an IP set naming them, its
options and a rule list referencing its own alias and set, a container's alias (declared on one node, living on
another), and a vnet's rules, on each execution path.

The run writes each object where its owner lives → the re-run is zero writes → drift made through the API (a rule
inserted at position 0, as the UI adds one; an alias's address changed) is named field by field by --check --diff
with nothing written → one run repairs it with one write each → again zero writes. Then what the guest scope of
aliases and IP sets refuses before any write: a vmid that is no guest (a warning in check mode), an entry naming an
alias the guest does not have.
"""

import pytest

from conftest import EXECUTION_PATHS, connection
from test_matrix import api

from simulator.pve.handlers.guests import add_guest

VM_FIREWALL = '/nodes/node1/qemu/100/firewall'
# the container lives on node3, declared on node1 (moved by HA)
CT_FIREWALL = '/nodes/node3/lxc/101/firewall'

SETUP = [
    ('POST', '/nodes/node1/qemu', {'vmid': '100', 'name': 'web1'}),
    ('POST', '/cluster/firewall/aliases', {'name': 'office', 'cidr': '198.51.100.0/24'}),
    ('POST', '/cluster/firewall/groups', {'group': 'webs'}),
    ('POST', '/cluster/sdn/zones', {'zone': 'base', 'type': 'simple'}),
    ('POST', '/cluster/sdn/vnets', {'vnet': 'app', 'zone': 'base'}),
    ('PUT', '/cluster/sdn', {}),
]


def vm(**args):
    return dict(dict(scope='vm', node='node1', vmid=100), **args)


OBJECTS = {
    'vm alias db': ('firewall_alias', vm(name='db', cidr='10.0.0.5', comment='the database')),
    'vm alias backup': ('firewall_alias', vm(name='Backup', cidr='10.0.9.0/24')),
    'ct alias': ('firewall_alias', dict(scope='vm', node='node1', vmid=101, name='db', cidr='10.1.0.5')),
    # guest/backup only the guest's own alias, office the cluster's (the guest has none of that name)
    'vm ipset': ('firewall_ipset', vm(name='admins', comment='who may log in', entries=[
        {'cidr': '192.0.2.0/24'}, {'cidr': 'guest/backup'}, {'cidr': 'office', 'comment': 'the office'}])),
    'vm options': ('firewall_options', vm(enable=True, policy_in='DROP')),
    # +guest/admins and db resolve to the guest's own set and alias (the cluster has neither)
    'vm rules': ('firewall_rules', vm(rules=[
        {'type': 'group', 'action': 'webs'},
        {'type': 'in', 'action': 'ACCEPT', 'source': '+guest/admins', 'proto': 'tcp', 'dport': '22', 'iface': 'net0'},
        {'type': 'out', 'action': 'ACCEPT', 'dest': 'db', 'proto': 'tcp', 'dport': '5432'}])),
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
def test_a_guests_aliases_ipset_options_and_rules_and_a_vnets_rules_in_one_play(sim, playbook, path):
    api(sim, SETUP)
    add_guest(sim.state, 'lxc', 101, 'node3')

    _run, outcome = step(sim, playbook, path)
    assert all(outcome[name]['changed'] for name in OBJECTS), outcome
    paths = set(entry['path'] for entry in sim.writes())
    assert {VM_FIREWALL + '/aliases', VM_FIREWALL + '/ipset', VM_FIREWALL + '/ipset/admins',
            CT_FIREWALL + '/aliases'} <= paths, paths
    # no write named the cluster's lists, nor the node the container was declared on
    assert not [entry for entry in sim.writes() if entry['path'].startswith(('/cluster/firewall', '/nodes/node1/lxc'))]
    assert any('lives on node3' in warning for warning in outcome['ct alias']['warnings']), outcome['ct alias']
    assert sim.request('GET', VM_FIREWALL + '/aliases')[1]['data'][0]['name'] == 'backup'
    assert sorted(entry['cidr'] for entry in sim.request('GET', VM_FIREWALL + '/ipset/admins')[1]['data']) == [
        '192.0.2.0/24', 'guest/backup', 'office']
    assert sim.request('GET', CT_FIREWALL + '/aliases')[1]['data'][0]['cidr'] == '10.1.0.5'

    _run, outcome = step(sim, playbook, path)
    assert not [name for name in OBJECTS if outcome[name]['changed']], outcome
    assert sim.writes() == []

    # drift through the API: a rule inserted at position 0 (the UI's add), the alias's address changed
    api(sim, [('POST', VM_FIREWALL + '/rules', {'type': 'in', 'action': 'ACCEPT', 'enable': '1',
                                                'comment': 'added in the UI'}),
              ('PUT', VM_FIREWALL + '/aliases/db', {'cidr': '10.0.0.6', 'comment': 'the database'})])
    run, outcome = step(sim, playbook, path, check=True, diff=True)
    assert sim.writes() == []
    assert outcome['vm rules']['plan']['changed'] == ['rules'] and 'added in the UI' in run.output
    assert [rule.get('comment') for rule in outcome['vm rules']['diff']['before']['rules']][0] == 'added in the UI'
    assert outcome['vm alias db']['plan']['changed'] == ['cidr']
    diff = outcome['vm alias db']['diff']
    assert (diff['before']['cidr'], diff['after']['cidr']) == ('10.0.0.6', '10.0.0.5'), diff
    assert [name for name in OBJECTS if outcome[name]['changed']] == ['vm alias db', 'vm rules'], outcome

    _run, outcome = step(sim, playbook, path)
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [
        ('PUT', VM_FIREWALL + '/aliases/db'), ('DELETE', VM_FIREWALL + '/rules/0')], sim.writes()
    _run, outcome = step(sim, playbook, path)
    assert sim.writes() == []


# (module, args, the option the message must name), each refused before any request (test_bad_input's corpus).
BAD_INPUT = [
    ('firewall_alias', {'scope': 'vm', 'node': 'node1', 'name': 'db', 'cidr': '10.0.0.5'}, 'vmid'),
    ('firewall_alias', {'scope': 'vm', 'vmid': 100, 'name': 'db', 'cidr': '10.0.0.5'}, 'node'),
    ('firewall_alias', {'scope': 'vnet', 'name': 'db', 'cidr': '10.0.0.5'}, 'scope'),
    ('firewall_alias', {'name': 'db', 'cidr': '10.0.0.5', 'vmid': 100}, 'vmid'),
    ('firewall_alias', vm(vmid=99, name='db', cidr='10.0.0.5'), 'vmid'),
    ('firewall_ipset', {'scope': 'vm', 'node': 'node1', 'name': 'admins'}, 'vmid'),
    ('firewall_ipset', {'scope': 'vnet', 'vnet': 'app', 'name': 'admins'}, 'vnet'),
    ('firewall_ipset', vm(vmid='web', name='admins'), 'vmid'),
    ('firewall_ipset', vm(node='node 1', name='admins'), 'node'),
    ('firewall_options', {'scope': 'vm', 'node': 'node1', 'vmid': 1000000000, 'enable': True}, 'vmid'),
    ('firewall_rules', {'scope': 'vm', 'vmid': 100, 'rules': [{'type': 'in', 'action': 'DROP'}]}, 'node'),
]

REFUSED = [
    ('firewall_alias', vm(vmid=555, name='db', cidr='10.0.0.5'), 'vmid 555 is no guest'),
    ('firewall_ipset', vm(vmid=555, name='admins'), 'vmid 555 is no guest'),
    # guest/ names only the guest's own alias (the cluster has office, the guest none)
    ('firewall_ipset', vm(name='admins', entries=[{'cidr': 'guest/office'}]), "no such alias 'office'"),
    ('firewall_ipset', vm(name='admins', entries=[{'cidr': 'dc/nowhere'}]), "no such alias 'nowhere'"),
]


def test_what_the_guest_scope_of_aliases_and_ipsets_refuses_before_any_write(sim, playbook):
    api(sim, SETUP)
    sim.clear_log()
    tasks = [{'name': str(index), 'homeflare.proxmox.%s' % module: dict(args, **connection(sim)),
              'ignore_errors': True} for index, (module, args, _message) in enumerate(REFUSED)]
    run = playbook(tasks)
    results = dict((line['task'], line['result']) for line in run.results)
    for index, (_module, _args, message) in enumerate(REFUSED):
        result = results[str(index)]
        assert result.get('error') and message in result['msg'], (index, result)
    assert sim.writes() == []

    # check mode: a guest an earlier task may create is a warning, the plan a create
    run = playbook(tasks[:2], check=True)
    assert run.rc == 0, run
    for line in run.results:
        assert line['result']['plan']['action'] == 'create', line
        assert any('vmid 555 is no guest' in warning and 'check mode' in warning
                   for warning in line['result']['warnings']), line
    assert sim.writes() == []
