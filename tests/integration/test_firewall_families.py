"""The firewall families end to end: real ansible-playbook runs against the simulator, on each execution path.

All four families run in one play per step: check-mode create writes nothing → create → re-run changed=false,
zero writes, the minimum of GETs → drift made through the API → --check --diff names exactly the drifted fields
and writes nothing → a real run repairs with one write per object → state=absent → again a no-op (the module path
skips the two confirming re-runs). Then the rule list's own cases (an insert, a reorder and a removal made by
hand, each repaired, then a no-op), the other scopes, bad input refused before any request and the connection
secret never shown.

``MATRIX`` has the shape of test_matrix.FAMILIES, with three keys that family table does not need:
``create_writes`` (an IP set is one write for the set and one per entry), ``gets`` (an IP set is read with two
requests, the list of sets for its comment and its entries) and ``absent`` None for a singleton (the options
always exist: their "create" is an update, and they are never removed).
"""

import pytest

from conftest import EXECUTION_PATHS, connection, reconfirms
from test_matrix import api

# What must exist before the declarations: the alias a rule and an IP set refer to.
SETUP = [('POST', '/cluster/firewall/aliases', {'name': 'office', 'cidr': '198.51.100.0/24'})]

MATRIX = {
    'firewall_alias': dict(
        prefix='/cluster/firewall/aliases',
        # PVE stores 192.0.2.10 (the /32 dropped); the name's case does not matter.
        args={'name': 'Mgmt', 'cidr': '192.0.2.10/32', 'comment': 'Management host'},
        drift=[('PUT', '/cluster/firewall/aliases/mgmt', {'cidr': '192.0.2.10', 'comment': 'edited in the UI'})],
        drifted={'comment': 'comment'},
        absent={'name': 'mgmt', 'state': 'absent'},
    ),
    'firewall_ipset': dict(
        prefix='/cluster/firewall/ipset',
        args={'name': 'admins', 'comment': 'Admin workstations',
              'entries': [{'cidr': '192.0.2.0/24', 'comment': 'lab'}, {'cidr': '203.0.113.7', 'nomatch': True},
                          {'cidr': 'office'}]},
        # An entry's comment edited by hand: only that entry is rewritten.
        drift=[('PUT', '/cluster/firewall/ipset/admins/203.0.113.7', {'nomatch': '1', 'comment': 'edited'})],
        drifted={'entries': 'comment'},
        absent={'name': 'admins', 'state': 'absent'},
        create_writes=4,
        gets=2,
    ),
    'firewall_options': dict(
        prefix='/cluster/firewall/options',
        args={'enable': True, 'policy_in': 'DROP', 'log_ratelimit': 'enable=1,rate=10/minute'},
        drift=[('PUT', '/cluster/firewall/options', {'policy_in': 'ACCEPT', 'ebtables': '0'})],
        drifted={'policy_in': 'policy_in'},  # ebtables is undeclared, so unmanaged: not named, not repaired
        absent=None,
    ),
    'firewall_rules': dict(
        prefix='/cluster/firewall/rules',
        args={'rules': [{'type': 'in', 'action': 'ACCEPT', 'source': 'office', 'proto': 'tcp', 'dport': '8006',
                         'comment': 'web UI'}]},
        drift=[('PUT', '/cluster/firewall/rules/0', {'comment': 'edited in the UI'})],
        drifted={'rules': 'comment'},
        absent={'state': 'absent'},
    ),
}
MODULES = sorted(MATRIX)

# Rules pve-firewall's verify_rule refuses (src/PVE/Firewall.pm), refused here with its reason before any request:
# (module, args, the option, PVE's words).
VERIFY_RULE = [
    ('firewall_rules', {'rules': [{'type': 'forward', 'action': 'REJECT'}]}, 'rules[0].action',
     "'REJECT': cannot define REJECT rules on forward chain"),
    ('firewall_rules', {'rules': [{'type': 'in', 'action': 'ACCEPT', 'proto': 'tcp', 'dport': 'echo-request'}]},
     'rules[0].dport', "'echo-request': invalid port 'echo-request'"),
    ('firewall_rules', {'rules': [{'type': 'in', 'action': 'ACCEPT', 'macro': 'SSH', 'dport': '2222'}]},
     'rules[0].dport', "'2222': parameter 'dport' already define in macro (value = '22')"),
]

# (module, args, the option the message must name), each refused before any request.
BAD_INPUT = [
    ('firewall_alias', {'name': 'bad name', 'cidr': '192.0.2.1'}, 'name'),
    ('firewall_alias', {'name': 'a', 'cidr': '192.0.2.1'}, 'name'),
    ('firewall_alias', {'name': 'mgmt', 'cidr': '300.1.1.1'}, 'cidr'),
    ('firewall_alias', {'name': 'mgmt', 'cidr': '192.0.2.1/33'}, 'cidr'),
    ('firewall_alias', {'name': 'mgmt'}, 'cidr'),
    ('firewall_alias', {'name': 'mgmt', 'cidr': '192.0.2.1', 'comment': 'two\nlines'}, 'comment'),
    ('firewall_ipset', {'name': '1set'}, 'name'),
    ('firewall_ipset', {'name': 'admins', 'entries': [{'cidr': 'not an address!'}]}, 'entries[0].cidr'),
    ('firewall_ipset', {'name': 'admins', 'entries': [{'cidr': '10.0.0.0/0'}]}, 'entries[0].cidr'),
    ('firewall_ipset', {'name': 'admins', 'entries': [{'cidr': '192.0.2.1'}, {'cidr': '192.0.2.1/32'}]},
     'entries[1].cidr'),
    ('firewall_ipset', {'name': 'admins', 'entries': [{'comment': 'no address'}]}, 'cidr'),
    ('firewall_options', {'nosmurfs': True}, 'nosmurfs'),
    ('firewall_options', {'scope': 'node', 'tcpflags': True}, 'node'),
    ('firewall_options', {'scope': 'node', 'node': 'node_1'}, 'node'),
    ('firewall_options', {'policy_in': 'allow'}, 'policy_in'),
    ('firewall_options', {'scope': 'node', 'node': 'node1', 'nf_conntrack_max': 1000}, 'nf_conntrack_max'),
    ('firewall_options', {'log_ratelimit': 'rate=fast'}, 'log_ratelimit'),
    ('firewall_rules', {'rules': [{'type': 'in', 'action': 'accept'}]}, 'rules[0].action'),
    ('firewall_rules', {'rules': [{'type': 'sideways', 'action': 'ACCEPT'}]}, 'type'),
    ('firewall_rules', {'rules': [{'type': 'in', 'action': 'ACCEPT', 'dport': '22'}]}, 'rules[0].proto'),
    ('firewall_rules', {'rules': [{'type': 'in', 'action': 'ACCEPT', 'source': '10.0.0.1,'}]}, 'rules[0].source'),
    ('firewall_rules', {'rules': [{'type': 'in', 'action': 'ACCEPT', 'proto': 'tcp', 'dport': '90:80'}]},
     'rules[0].dport'),
    ('firewall_rules', {'scope': 'group', 'group': 'web', 'rules': [{'type': 'group', 'action': 'other'}]},
     'rules[0].type'),
    ('firewall_rules', {'scope': 'node', 'node': 'x y', 'rules': [{'type': 'in', 'action': 'DROP'}]}, 'node'),
    ('firewall_rules', {'rules': []}, 'rules'),
    ('firewall_rules', {'rules': [{'type': 'in', 'action': 'DROP', 'bogus': 1}]}, 'bogus'),
] + [(module, args, option + ': ' + reason) for module, args, option, reason in VERIFY_RULE]


def of(module, entries):
    prefix = MATRIX[module]['prefix']
    return [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]


def step(sim, playbook, path, key, check=False, diff=False, modules=MODULES):
    """One play with every family's task; returns {module: result}."""
    sim.clear_log()
    tasks = [{'name': module, 'homeflare.proxmox.%s' % module: dict(MATRIX[module][key], **connection(sim))}
             for module in modules if MATRIX[module][key] is not None]
    run = playbook(tasks, check=check, diff=diff, env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    return run, dict((line['task'], line['result']) for line in run.results)


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_every_firewall_family_through_its_life(sim, playbook, path):
    api(sim, SETUP)

    # 1. check-mode create writes nothing (the options always exist: an update)
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        expected = 'create' if MATRIX[module]['absent'] else 'update'
        assert outcome[module]['changed'] is True and outcome[module]['plan']['action'] == expected, module
    assert sim.writes() == []

    # 2. create: one write per object (an IP set: one more per entry)
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['changed'] is True, module
        assert len(of(module, sim.writes())) == MATRIX[module].get('create_writes', 1), (module, sim.writes())
    assert outcome['firewall_alias']['object'] == {'name': 'mgmt', 'cidr': '192.0.2.10',
                                                   'comment': 'Management host', 'ipversion': 4}

    # 3. re-run: adopted, zero writes, the minimum of GETs
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['plan'] == {'read': 'found', 'action': 'none', 'changed': []}, module
        reads = [entry for entry in of(module, sim.log) if entry['method'] == 'GET']
        assert len(reads) == MATRIX[module].get('gets', 1), (module, reads)
    assert sim.writes() == []

    # 4. drift behind the module's back; 5. --check --diff names exactly the drifted fields
    for module in MODULES:
        api(sim, MATRIX[module]['drift'])
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        drifted = sorted(MATRIX[module]['drifted'])
        assert outcome[module]['plan']['action'] == 'update', module
        assert sorted(outcome[module]['plan']['changed']) == drifted, module
        before, after = outcome[module]['diff']['before'], outcome[module]['diff']['after']
        assert sorted(key for key in after if before.get(key) != after[key]) == drifted, module
    assert 'edited in the UI' in run.output and 'policy_in' in run.output
    assert sim.writes() == []

    # 6. a real run repairs with exactly one write per object, carrying the drifted keys; then a no-op
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        written = of(module, sim.writes())
        assert len(written) == 1, (module, written)
        assert set(MATRIX[module]['drifted'].values()) <= set(written[0]['form']), (module, written)
        assert 'digest' in written[0]['form'], module  # each write is guarded by the digest read before it
    if reconfirms(path):
        run, outcome = step(sim, playbook, path, 'args')
        assert not any(outcome[module]['changed'] for module in MODULES)
        assert sim.writes() == []

    # 7. state=absent removes, 8. again a no-op
    removable = [module for module in MODULES if MATRIX[module]['absent']]
    run, outcome = step(sim, playbook, path, 'absent', modules=removable)
    for module in removable:
        assert outcome[module]['plan']['action'] == 'delete', module
        assert len(of(module, sim.writes())) == 1, module
    if reconfirms(path):
        run, outcome = step(sim, playbook, path, 'absent', modules=removable)
        for module in removable:
            assert outcome[module]['changed'] is False and outcome[module]['object'] == {}, module
        assert sim.writes() == []


RULES = [
    {'type': 'in', 'action': 'ACCEPT', 'macro': 'SSH', 'source': '192.0.2.0/24', 'comment': 'ssh'},
    {'type': 'in', 'action': 'ACCEPT', 'proto': 'tcp', 'dport': '8006', 'comment': 'web UI'},
    {'type': 'group', 'action': 'web'},
    {'type': 'in', 'action': 'DROP', 'log': 'info'},
]
RULE_DRIFT = [
    ('an insert', [('POST', '/cluster/firewall/rules', {'type': 'in', 'action': 'ACCEPT', 'enable': '1'})],
     [('DELETE', '/cluster/firewall/rules/0')]),
    ('a reorder', [('PUT', '/cluster/firewall/rules/3', {'moveto': '0'})], [('PUT', '/cluster/firewall/rules/0')]),
    ('a removal', [('DELETE', '/cluster/firewall/rules/1', {})],
     [('POST', '/cluster/firewall/rules'), ('PUT', '/cluster/firewall/rules/1')]),
]


# The core's judgement, the same on both paths (test_paths proves them equal; the lifecycle above runs the
# module path): the controller path only, which keeps the suite in its time.
@pytest.mark.parametrize('path', ['controller'])
def test_rules_changed_by_hand_are_put_back_by_position(sim, playbook, path):
    api(sim, [('POST', '/cluster/firewall/groups', {'group': 'web'})])
    task = [{'name': 'rules', 'homeflare.proxmox.firewall_rules': dict(rules=RULES, **connection(sim))}]
    run = playbook(task, env=EXECUTION_PATHS[path])
    assert run.rc == 0 and run.result()['changed'] is True, run
    for label, drift, repair in RULE_DRIFT:
        api(sim, drift)
        sim.clear_log()
        run = playbook(task, diff=True, env=EXECUTION_PATHS[path])
        assert run.rc == 0, run
        result = run.result()
        assert result['plan'] == {'read': 'found', 'action': 'update', 'changed': ['rules']}, label
        assert result['diff']['before']['rules'] != result['diff']['after']['rules'], label
        assert [(entry['method'], entry['path']) for entry in sim.writes()] == repair, label
        assert all(entry['form'].get('digest') for entry in sim.writes()), label
        sim.clear_log()
        run = playbook(task, env=EXECUTION_PATHS[path])
        assert run.rc == 0 and run.result()['changed'] is False, (label, run)
        assert sim.writes() == [], label
    listed = sim.request('GET', '/cluster/firewall/rules')[1]['data']
    assert [(rule['type'], rule['action'], rule['enable']) for rule in listed] == [
        ('in', 'ACCEPT', 1), ('in', 'ACCEPT', 1), ('group', 'web', 1), ('in', 'DROP', 1)]


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_security_group_and_a_nodes_rules_and_options(sim, playbook, path):
    declared = [
        ('group', 'firewall_rules', {'scope': 'group', 'group': 'Web', 'comment': 'Public web',
                                     'rules': [{'type': 'in', 'action': 'ACCEPT', 'macro': 'https'},
                                               {'type': 'in', 'action': 'ACCEPT', 'macro': 'http'}]}),
        ('node rules', 'firewall_rules', {'scope': 'node', 'node': 'node2',
                                          'rules': [{'type': 'group', 'action': 'web', 'iface': 'vmbr0'},
                                                    {'type': 'in', 'action': 'DROP', 'iface': 'vmbr0'}]}),
        ('node options', 'firewall_options', {'scope': 'node', 'node': 'node2', 'nosmurfs': True, 'tcpflags': True,
                                              'log_level_in': 'info', 'nf_conntrack_max': 262144}),
    ]
    tasks = [{'name': name, 'homeflare.proxmox.%s' % module: dict(args, **connection(sim))}
             for name, module, args in declared]
    run = playbook(tasks, env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    assert all(line['result']['changed'] for line in run.results)
    assert run.results[0]['result']['object']['group'] == 'web'
    node_writes = [(entry['method'], entry['path']) for entry in sim.writes() if entry['path'].startswith('/nodes')]
    assert node_writes == [('POST', '/nodes/node2/firewall/rules')] * 2 + [('PUT', '/nodes/node2/firewall/options')]
    sim.clear_log()
    run = playbook(tasks, env=EXECUTION_PATHS[path])
    assert run.rc == 0 and not any(line['result']['changed'] for line in run.results), run
    assert sim.writes() == []
    removal = [{'name': name, 'homeflare.proxmox.firewall_rules': dict(args, state='absent', **connection(sim))}
               for name, module, args in declared if module == 'firewall_rules']
    run = playbook(removal, env=EXECUTION_PATHS[path])
    assert run.rc == 0 and all(line['result']['plan']['action'] == 'delete' for line in run.results), run
    assert sim.request('GET', '/cluster/firewall/groups')[1]['data'] == []
    assert sim.request('GET', '/nodes/node2/firewall/rules')[1]['data'] == []


def test_the_connection_secret_never_appears_at_high_verbosity(sim, playbook):
    api(sim, SETUP)
    tasks = [{'name': module, 'homeflare.proxmox.%s' % module: dict(MATRIX[module]['args'], **connection(sim))}
             for module in MODULES]
    run = playbook(tasks, verbosity=4, diff=True)
    assert run.rc == 0, run
    assert 'TASK [firewall_rules]' in run.output and 'api_token_secret' in run.output  # the arguments were shown
    assert sim.token_secret not in run.output
    assert sim.token_secret not in repr(run.results)


# Issue 29: references judged before the first write, addresses as pve-firewall stores them.
REFERENCES = [
    ('firewall_ipset', {'name': 'half', 'entries': [{'cidr': '192.0.2.0/24'}, {'cidr': 'nosuchalias'}]},
     "option entries: the entry 'nosuchalias': no such alias 'nosuchalias'"),
    ('firewall_rules', {'rules': [{'type': 'in', 'action': 'ACCEPT', 'source': '+Admins'}]},
     "option rules[0].source: '+Admins': no such ipset 'Admins'"),
    ('firewall_rules', {'rules': [{'type': 'group', 'action': 'nosuchgroup'}]},
     "option rules[0].action: 'nosuchgroup': no such security group 'nosuchgroup'"),
]
HOST_BITS = [
    ('firewall_alias', {'name': 'lab', 'cidr': '10.0.2.5/24'}),
    ('firewall_ipset', {'name': 'admins', 'entries': [{'cidr': '10.0.2.5/24'}, {'cidr': '2001:db8::7/64'},
                                                      {'cidr': 'dc/Lab'}]}),
    ('firewall_rules', {'rules': [{'type': 'in', 'action': 'ACCEPT', 'source': '+dc/admins', 'dest': 'guest/LAB'}]}),
]


# The core's judgement, the same on both paths (test_paths proves them equal; the lifecycle above runs the
# module path): the controller path only, which keeps the suite in its time.
@pytest.mark.parametrize('path', ['controller'])
def test_references_rules_and_host_bits_as_pve_firewall_judges_them(sim, playbook, path):
    def tasks(cases, failing=()):
        return [dict({'name': 'case %d' % index, 'homeflare.proxmox.%s' % case[0]: dict(case[1], **connection(sim))},
                     **({'ignore_errors': True} if case in failing else {})) for index, case in enumerate(cases)]

    def refused(cases, results):
        return [(line['status'], message in line['result'].get('msg', '')) for (_m, _a, message), line
                in zip(cases, results)] == [('failed', True)] * len(cases)

    # verify_rule's refusals send nothing at all, and an IP set naming a missing alias only reads the lists it is
    # judged against: no rule list is read, nothing is written
    cases = [(module, args, option + ': ' + reason) for module, args, option, reason in VERIFY_RULE] + REFERENCES[:1]
    sim.clear_log()
    run = playbook(tasks(cases, cases), env=EXECUTION_PATHS[path])
    assert refused(cases, run.results), run
    assert sorted(set((entry['method'], entry['path']) for entry in sim.log)) == [
        ('GET', '/cluster/firewall/aliases'), ('GET', '/cluster/firewall/ipset')], sim.log

    # host bits: the alias keeps them, the set's entry is its network; a re-run writes nothing, and rules naming a
    # set in another case or a missing group are refused (the set 'admins' exists now; PVE looks '+Admins' up as is)
    run = playbook(tasks(HOST_BITS), env=EXECUTION_PATHS[path])
    assert run.rc == 0 and all(line['result']['changed'] for line in run.results), run
    listed = sim.request('GET', '/cluster/firewall/ipset/admins')[1]['data']
    assert sorted(entry['cidr'] for entry in listed) == ['10.0.2.0/24', '2001:db8::/64', 'dc/Lab']
    assert sim.request('GET', '/cluster/firewall/aliases')[1]['data'][0]['cidr'] == '10.0.2.5/24'
    sim.clear_log()
    run = playbook(tasks(HOST_BITS + REFERENCES[1:], REFERENCES[1:]), env=EXECUTION_PATHS[path])
    assert not any(line['result']['changed'] for line in run.results), run
    assert refused(REFERENCES[1:], run.results[len(HOST_BITS):]), run
    assert sim.writes() == []
