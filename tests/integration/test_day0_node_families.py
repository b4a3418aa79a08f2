"""Day 0 (issue 23): a node's DNS settings, time zone, /etc/hosts entries and node config, with real
ansible-playbook runs on both execution paths.

The matrix takes node1 from its installer's settings to the declared ones, all four in one play per step:
check mode plans an update each and writes nothing → one write each → re-run changed=false, zero writes, one GET
each → drift through the API → --check --diff names exactly the drifted fields, zero writes → the repair, one
write each → (controller path) again a no-op. All four always exist: no create, no state=absent. The other tests
prove each rule: a DNS write keeps the name servers the task does not declare and refuses what PVE would
renumber; an unknown time zone fails with PVE's words; a hosts line is replaced in place or appended, the lines
not named are kept (or, exclusive, go but loopback, comments and blank lines), the node's own name is never
dropped and another writer's edit is never overwritten; the ACME domains keep their slots.

``MATRIX``, ``SETUP`` and ``BAD_INPUT`` have the shapes of test_cluster_families'. None of the four has a secret.
"""

import pytest

from conftest import EXECUTION_PATHS, reconfirms
from test_matrix import api, assert_drift_named

from simulator.pve.handlers.node_settings import installer_hosts, settings

SETUP = []
NODE1_HOSTS = installer_hosts('127.0.0.1', 'node1')
NODE1 = {'ip': '10.0.0.11', 'names': ['node1.corp.example.org', 'node1']}
NODE2 = {'ip': '10.0.0.12', 'names': ['node2.corp.example.org', 'node2']}

MATRIX = {
    'node_dns': dict(
        prefix='/nodes/node1/dns',
        args={'node': 'node1', 'search': 'corp.example.org', 'dns1': '10.0.0.53', 'dns2': '10.0.1.53'},
        # a second server replaced and a third added by hand: the repair keeps the undeclared third
        drift=[('PUT', '/nodes/node1/dns', {'search': 'corp.example.org', 'dns1': '10.0.0.53', 'dns2': '10.9.9.9',
                                            'dns3': '10.0.2.53'})],
        drifted={'dns2': 'dns2'},
        absent=None,
    ),
    'node_time': dict(
        prefix='/nodes/node1/time',
        args={'node': 'node1', 'timezone': 'Europe/Vienna'},
        drift=[('PUT', '/nodes/node1/time', {'timezone': 'America/New_York'})],
        drifted={'timezone': 'timezone'},
        absent=None,
    ),
    'node_hosts': dict(
        prefix='/nodes/node1/hosts',
        args={'node': 'node1', 'entries': [NODE1, NODE2]},
        # node2's line lost its short name and a line was added by hand (kept: not exclusive)
        drift=[('POST', '/nodes/node1/hosts', {'data': NODE1_HOSTS + '10.0.0.11 node1.corp.example.org node1\n'
                                               '10.0.0.12 node2.corp.example.org\n10.0.0.99 printer\n'})],
        drifted={'entries': 'data'},
        absent=None,
    ),
    'node_config': dict(
        prefix='/nodes/node1/config',
        args={'node': 'node1', 'description': 'Rack 3, top\nManaged by Ansible', 'wakeonlan': 'BC:24:11:00:00:01',
              'startall_onboot_delay': 30, 'ballooning_target': 70, 'acme': 'account=default',
              'acme_domains': ['node1.example.com', 'domain=PVE.example.com,plugin=standalone']},
        # another ACME domain in the second slot, another target; the notes and the first slot stay
        drift=[('PUT', '/nodes/node1/config', {'acmedomain1': 'other.example.com', 'ballooning-target': '90'})],
        drifted={'acme_domains': 'acmedomain1', 'ballooning_target': 'ballooning-target'},
        absent=None,
    ),
}
MODULES = sorted(MATRIX)

BAD_INPUT = [
    ('node_dns', {'node': 'node1', 'search': 'x.lan', 'dns1': 'dns.example.org'}, 'dns1'),
    ('node_dns', {'node': 'node1', 'dns2': '10.0.0.300'}, 'dns2'),
    ('node_dns', {'node': 'node1', 'search': 'corp.lan lab.lan'}, 'search'),
    ('node_dns', {'node': 'node1', 'search': 'bad domain!'}, 'search'),
    ('node_dns', {'node': 'node1', 'dns1': '', 'dns2': '10.0.0.53'}, 'dns1'),
    ('node_dns', {'node': 'node1', 'dns1': '10.0.0.53', 'dns3': '10.0.0.53'}, 'dns3'),
    ('node_dns', {'node': 'node1', 'dns1': '0.0.0.0'}, 'dns1'),
    ('node_dns', {'search': 'x.lan'}, 'node'),
    ('node_dns', {'node': 'node_1', 'search': 'x.lan'}, 'node'),
    ('node_time', {'node': 'node1', 'timezone': 'Europe Vienna'}, 'timezone'),
    ('node_time', {'node': 'node1', 'timezone': 'europe/vienna'}, 'timezone'),
    ('node_time', {'node': 'node1', 'timezone': '../../etc/passwd'}, 'timezone'),
    ('node_time', {'node': 'node1', 'timezone': 'Europe//Vienna'}, 'timezone'),
    ('node_time', {'node': 'node1', 'timezone': ''}, 'timezone'),
    ('node_time', {'node': 'node1'}, 'timezone'),
    ('node_hosts', {'node': 'node1', 'entries': [{'ip': '10.0.0.5', 'names': []}]}, 'entries[0].names'),
    ('node_hosts', {'node': 'node1', 'entries': [{'ip': 'web', 'names': ['web']}]}, 'entries[0].ip'),
    ('node_hosts', {'node': 'node1', 'entries': [{'ip': '10.0.0.5', 'names': ['web_1']}]}, 'entries[0].names'),
    ('node_hosts', {'node': 'node1', 'entries': [NODE1, {'ip': '10.0.0.011', 'names': ['x']}]}, 'entries[1].ip'),
    ('node_hosts', {'node': 'node1', 'entries': [NODE1, {'ip': '10.0.0.11', 'names': ['again']}]}, 'entries[1].ip'),
    ('node_hosts', {'node': 'node1', 'entries': [{'ip': 'fe80::1', 'names': ['a..b']}]}, 'entries[0].names'),
    ('node_hosts', {'node': 'node1', 'entries': [{'names': ['web']}]}, 'ip'),
    ('node_hosts', {'node': 'node1', 'entries': [NODE1], 'exclusive': 'maybe'}, 'exclusive'),
    ('node_hosts', {'node': 'node1', 'exclusive': True}, 'exclusive'),
    ('node_config', {'node': 'node1', 'ballooning_target': 101}, 'ballooning_target'),
    ('node_config', {'node': 'node1', 'startall_onboot_delay': 301}, 'startall_onboot_delay'),
    ('node_config', {'node': 'node1', 'wakeonlan': 'bind-interface=eth0'}, 'wakeonlan'),
    ('node_config', {'node': 'node1', 'wakeonlan': '01:00:5E:00:00:01'}, 'wakeonlan'),
    ('node_config', {'node': 'node1', 'wakeonlan': 'BC:24:11:00:00:01,broadcast-address=10.0.0.300'}, 'wakeonlan'),
    ('node_config', {'node': 'node1', 'acme': 'domains=localhost'}, 'acme'),
    ('node_config', {'node': 'node1', 'acme': 'account=default,contact=x'}, 'acme'),
    ('node_config', {'node': 'node1', 'acme_domains': ['a%d.example.com' % index for index in range(7)]},
     'acme_domains'),
    ('node_config', {'node': 'node1', 'acme_domains': ['a.example.com', 'domain=A.example.com,plugin=cf']},
     'acme_domains'),
    ('node_config', {'node': 'node1', 'acme_domains': ['a.example.com,alias=-x.example.net']}, 'acme_domains'),
    ('node_config', {'node': 'node1', 'acme_domains': ['plugin=cf']}, 'acme_domains'),
    ('node_config', {'node': 'node1', 'acme': 'domains=a.example.com', 'acme_domains': ['A.example.com']},
     'acme_domains'),
    ('node_config', {'node': 'node1', 'description': 'x' * 65537}, 'description'),
]


def of(module, entries):
    prefix = MATRIX[module]['prefix']
    return [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]


def task(module, args, name=None, **extra):
    return dict({'name': name or module, 'homeflare.proxmox.%s' % module: args, 'ignore_errors': True}, **extra)


def step(sim, playbook, path, check=False, diff=False):
    """The four matrix objects in one play; {module: result}."""
    sim.clear_log()
    run = playbook([task(module, MATRIX[module]['args']) for module in MODULES], check=check, diff=diff,
                   env=EXECUTION_PATHS[path])
    assert run.rc == 0 and not run.failed, [(line['task'], line['result'].get('msg')) for line in run.failed] or run
    return run, dict((line['task'], line['result']) for line in run.results)


def played(sim, playbook, tasks, **options):
    """Named tasks in one play; {task name: the recorded line (status and result)}."""
    sim.clear_log()
    run = playbook(tasks, **options)
    return run, dict((line['task'], line) for line in run.results)


def files(sim, node='node1'):
    return settings(sim.state, node)


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_day0_node_families_matrix(sim, playbook, path):
    api(sim, SETUP)

    # 1. check mode: each an update (they always exist), nothing written
    run, results = step(sim, playbook, path, check=True, diff=True)
    for module in MODULES:
        assert results[module]['changed'] is True and results[module]['plan']['action'] == 'update', module
    assert sorted(results['node_config']['plan']['changed']) == [
        'acme', 'acme_domains', 'ballooning_target', 'description', 'startall_onboot_delay', 'wakeonlan']
    assert sim.writes() == []

    # 2. one write each
    run, results = step(sim, playbook, path)
    for module in MODULES:
        assert results[module]['changed'] is True and len(of(module, sim.writes())) == 1, (module, sim.writes())
    text = files(sim)
    assert text['resolv.conf'] == 'search corp.example.org\nnameserver 10.0.0.53\nnameserver 10.0.1.53\n'
    assert text['timezone'] == 'Europe/Vienna'
    assert text['hosts'] == NODE1_HOSTS + '10.0.0.11 node1.corp.example.org node1\n10.0.0.12 node2.corp.example.org node2\n'
    assert text['config'] == (
        '#Rack 3, top\n#Managed by Ansible\nacme: account=default\nacmedomain0: domain=node1.example.com\n'
        'acmedomain1: domain=pve.example.com\nballooning-target: 70\nstartall-onboot-delay: 30\n'
        'wakeonlan: mac=BC:24:11:00:00:01\n')
    config_write = of('node_config', sim.writes())[0]['form']
    assert 'digest' not in config_write  # no file yet: no digest to send
    assert results['node_config']['object']['description'] == 'Rack 3, top\nManaged by Ansible\n'
    assert len(of('node_hosts', sim.writes())[0]['form']['digest']) == 40

    # 3. re-run: adopted, zero writes, one GET each
    run, results = step(sim, playbook, path)
    for module in MODULES:
        assert results[module]['plan'] == {'read': 'found', 'action': 'none', 'changed': []}, (module, results[module])
        assert [entry['method'] for entry in of(module, sim.log)] == ['GET'], (module, sim.log)
    assert sim.writes() == []

    # 4. drift behind the module's back
    for module in MODULES:
        api(sim, MATRIX[module]['drift'])

    # 5. --check --diff names exactly the drifted fields and writes nothing
    run, results = step(sim, playbook, path, check=True, diff=True)
    for module in MODULES:
        assert_drift_named(results[module], MATRIX[module]['drifted'])
    for field in ('dns2', 'timezone', 'entries', 'acme_domains', 'ballooning_target'):
        assert field in run.output, 'the --diff output must show %s' % field
    # the hosts diff shows, as lines of the file, the line that stands for each declared entry
    assert results['node_hosts']['diff']['before']['entries'] == [
        '10.0.0.11 node1.corp.example.org node1', '10.0.0.12 node2.corp.example.org']
    assert results['node_hosts']['diff']['after']['entries'] == [
        '10.0.0.11 node1.corp.example.org node1', '10.0.0.12 node2.corp.example.org node2']
    assert sim.writes() == []

    # 6. the repair: one write each, carrying the drifted fields and keeping what the task does not declare
    run, results = step(sim, playbook, path)
    for module in MODULES:
        written = of(module, sim.writes())
        assert results[module]['changed'] is True and len(written) == 1, (module, written)
        assert set(MATRIX[module]['drifted'].values()) <= set(written[0]['form']), (module, written)
    text = files(sim)
    # the DNS write sent the undeclared third server back with the search domain, so it stays
    assert of('node_dns', sim.writes())[0]['form'] == {
        'search': 'corp.example.org', 'dns1': '10.0.0.53', 'dns2': '10.0.1.53', 'dns3': '10.0.2.53'}
    assert text['resolv.conf'].endswith('nameserver 10.0.1.53\nnameserver 10.0.2.53\n')
    # node2's line replaced in place, the hand-made line kept
    assert text['hosts'] == (NODE1_HOSTS + '10.0.0.11 node1.corp.example.org node1\n'
                             '10.0.0.12 node2.corp.example.org node2\n10.0.0.99 printer\n')
    # the second ACME slot set back, the others untouched; with the file's digest
    config_write = of('node_config', sim.writes())[0]['form']
    assert sorted(config_write) == ['acmedomain1', 'ballooning-target', 'digest']
    assert config_write['acmedomain1'] == 'domain=pve.example.com'
    if reconfirms(path):
        run, results = step(sim, playbook, path)
        assert not any(results[module]['changed'] for module in MODULES) and sim.writes() == []


def test_a_dns_write_keeps_what_is_not_declared_and_refuses_what_pve_would_renumber(sim, playbook):
    """node1: only the search domain declared; the live server is sent back. node2: dns3 removed, dns1 and dns2
    kept. node3: dns1 removed while dns2 stays undeclared: PVE would move dns2 up, so it is refused in check
    mode and in a real run, and nothing is written."""
    for node in ('node2', 'node3'):
        api(sim, [('PUT', '/nodes/%s/dns' % node, {'search': 'sim.lan', 'dns1': '10.0.0.1', 'dns2': '10.0.0.2',
                                                   'dns3': '10.0.0.3'})])
    tasks = [
        task('node_dns', {'node': 'node1', 'search': 'corp.example.org'}, name='search only'),
        task('node_dns', {'node': 'node2', 'dns3': ''}, name='one removed'),
        task('node_dns', {'node': 'node3', 'dns1': ''}, name='gap check', check_mode=True),
        task('node_dns', {'node': 'node3', 'dns1': ''}, name='gap'),
        task('node_dns', {'node': 'node3', 'dns1': '10.0.0.2', 'dns2': '10.0.0.3', 'dns3': ''}, name='moved up'),
    ]
    run, lines = played(sim, playbook, tasks, diff=True)
    assert lines['search only']['result']['plan']['changed'] == ['search']
    assert lines['one removed']['result']['plan']['changed'] == ['dns3']
    for name in ('gap check', 'gap'):
        assert lines[name]['status'] == 'failed', lines[name]
        assert lines[name]['result']['msg'] == (
            "DNS settings of node 'node3': PVE would read dns1, dns2, dns3 back as '10.0.0.2', '10.0.0.3', '' after "
            "this write (it keeps name servers in order, once each, without gaps), not as declared; declare dns2, "
            "dns3 too. Nothing was written.")
    assert lines['moved up']['result']['changed'] is True
    assert [(entry['path'], entry['form']) for entry in sim.writes()] == [
        ('/nodes/node1/dns', {'search': 'corp.example.org', 'dns1': '127.0.0.1'}),
        ('/nodes/node2/dns', {'search': 'sim.lan', 'dns1': '10.0.0.1', 'dns2': '10.0.0.2'}),
        ('/nodes/node3/dns', {'search': 'sim.lan', 'dns1': '10.0.0.2', 'dns2': '10.0.0.3'})]
    assert files(sim, 'node1')['resolv.conf'] == 'search corp.example.org\nnameserver 127.0.0.1\n'
    assert files(sim, 'node2')['resolv.conf'] == 'search sim.lan\nnameserver 10.0.0.1\nnameserver 10.0.0.2\n'
    assert files(sim, 'node3')['resolv.conf'] == 'search sim.lan\nnameserver 10.0.0.2\nnameserver 10.0.0.3\n'


def test_a_zone_the_node_does_not_know_fails_with_pves_words(sim, playbook):
    run, lines = played(sim, playbook, [task('node_time', {'node': 'node1', 'timezone': 'Mars/Olympus'})])
    line = lines['node_time']
    assert line['status'] == 'failed' and 'No such timezone' in line['result']['msg'], line
    assert 'timezone' in line['result']['msg']
    assert files(sim)['timezone'] == 'UTC'


def test_hosts_lines_are_replaced_in_place_appended_or_with_exclusive_removed(sim, playbook):
    """node1 (not exclusive): the node's own line renamed in place, a line appended, the hand-made lines kept.
    node2 (exclusive): every other address line goes, but loopback, the IPv6 lines no host has, comments and blank
    lines stay; a second line for a declared address goes too. node3: a repair that would drop the node's own name
    is refused, in check mode too."""
    custom = ('# managed by hand\n127.0.0.1 localhost.localdomain localhost\n10.0.0.12 node2.old node2\n\n'
              '10.0.0.99 printer\n10.0.0.12 node2-alias\n::1 ip6-localhost ip6-loopback\nff02::1 ip6-allnodes\n')
    settings(sim.state, 'node2')['hosts'] = custom
    settings(sim.state, 'node3')['hosts'] = '127.0.0.1 localhost\n10.0.0.13 node3.sim.lan node3\n'
    tasks = [
        task('node_hosts', {'node': 'node1', 'entries': [
            {'ip': '127.0.0.1', 'names': ['node1.corp.example.org', 'node1']}, NODE2]}, name='in place'),
        task('node_hosts', {'node': 'node2', 'entries': [NODE2], 'exclusive': True}, name='exclusive check',
             check_mode=True, diff=True),
        task('node_hosts', {'node': 'node2', 'entries': [NODE2], 'exclusive': True}, name='exclusive'),
        task('node_hosts', {'node': 'node2', 'entries': [NODE2], 'exclusive': True}, name='exclusive again'),
        task('node_hosts', {'node': 'node3', 'entries': [{'ip': '10.0.0.13', 'names': ['pve3']}]},
             name='own name check', check_mode=True),
        task('node_hosts', {'node': 'node3', 'entries': [], 'exclusive': True}, name='own name'),
    ]
    run, lines = played(sim, playbook, tasks)
    assert lines['in place']['result']['changed'] is True
    # the localhost line is not the node's: the line sharing a name with the entry is replaced
    assert files(sim, 'node1')['hosts'] == NODE1_HOSTS.replace(
        '127.0.0.1 node1.sim.lan node1\n', '127.0.0.1 node1.corp.example.org node1\n') + \
        '10.0.0.12 node2.corp.example.org node2\n'
    diff = lines['exclusive check']['result']['diff']
    assert diff['before']['entries'] == ['10.0.0.12 node2.old node2', '10.0.0.99 printer', '10.0.0.12 node2-alias']
    assert diff['after']['entries'] == ['10.0.0.12 node2.corp.example.org node2']
    assert lines['exclusive']['result']['changed'] is True
    assert files(sim, 'node2')['hosts'] == (
        '# managed by hand\n127.0.0.1 localhost.localdomain localhost\n10.0.0.12 node2.corp.example.org node2\n\n'
        '::1 ip6-localhost ip6-loopback\nff02::1 ip6-allnodes\n')
    assert lines['exclusive again']['result']['changed'] is False
    for name in ('own name check', 'own name'):
        assert lines[name]['status'] == 'failed', lines[name]
        assert lines[name]['result']['msg'] == (
            "hosts file of node 'node3': this repair would leave no line naming the node itself (node3), which PVE "
            "resolves to find its own address; declare an entry for it. Nothing was written.")
    assert [entry['path'] for entry in sim.writes()] == ['/nodes/node1/hosts', '/nodes/node2/hosts']
    assert all(len(entry['form']['digest']) == 40 for entry in sim.writes())


def test_another_writers_hosts_edit_is_never_overwritten(sim, playbook):
    """The file changes between the read and the POST: PVE refuses the stale digest, the task reads and judges
    again and writes once more; the other writer's line stays."""
    def other_writer(params):
        settings(sim.state, 'node1')['hosts'] += '10.0.0.77 backup\n'

    sim.before('POST', r'^/nodes/node1/hosts$', other_writer, times=1)
    run, lines = played(sim, playbook, [task('node_hosts', MATRIX['node_hosts']['args'])])
    result = lines['node_hosts']['result']
    assert result['changed'] is True and not run.failed, run
    assert any('another writer' in warning for warning in result.get('warnings', [])), result
    posts = sim.writes()
    assert [entry['status'] >= 400 for entry in posts] == [True, False]
    assert posts[0]['form']['digest'] != posts[1]['form']['digest']
    assert files(sim)['hosts'] == (NODE1_HOSTS + '10.0.0.77 backup\n10.0.0.11 node1.corp.example.org node1\n'
                                   '10.0.0.12 node2.corp.example.org node2\n')


def test_acme_domains_keep_their_slots_and_compare_as_pve_reads_them(sim, playbook):
    """The live slots 0, 2 and 4 hold a.example.com (with plugin=standalone written out), b and c; the task keeps
    a (written without the plugin, in another case), drops b, keeps c and adds d: one PUT sets d in the first free
    slot and clears b's. A plugin PVE does not know fails with PVE's words; a description and wake-on-LAN declared
    '' are removed with delete=."""
    api(sim, [('PUT', '/nodes/node2/config', {'acmedomain0': 'domain=a.example.com,plugin=standalone',
                                              'acmedomain2': 'b.example.com', 'acmedomain4': 'c.example.com',
                                              'description': 'old notes', 'wakeonlan': 'BC:24:11:00:00:02'})])
    keep = ['A.example.com', 'c.example.com', 'd.example.com']
    tasks = [
        task('node_config', {'node': 'node2', 'acme_domains': ['a.example.com', 'c.example.com']}, name='subset',
             check_mode=True, diff=True),
        task('node_config', {'node': 'node2', 'acme_domains': keep, 'description': '', 'wakeonlan': ''},
             name='slots'),
        task('node_config', {'node': 'node2', 'acme_domains': list(reversed(keep))}, name='order-free'),
        task('node_config', {'node': 'node3', 'acme_domains': ['x.example.com,plugin=nope']}, name='no plugin'),
    ]
    run, lines = played(sim, playbook, tasks)
    subset = lines['subset']['result']
    assert subset['plan']['changed'] == ['acme_domains']
    assert subset['diff']['before']['acme_domains'] == [
        'domain=a.example.com', 'domain=b.example.com', 'domain=c.example.com']
    assert lines["slots"]["result"]["changed"] is True, lines["slots"]
    assert lines['order-free']['result']['changed'] is False
    assert lines['no plugin']['status'] == 'failed'
    assert "plugin 'nope' for domain 'x.example.com' not found!" in lines['no plugin']['result']['msg']
    slots_write = [entry['form'] for entry in sim.writes() if entry['path'] == '/nodes/node2/config'][0]
    assert slots_write['acmedomain1'] == 'domain=d.example.com'
    assert sorted(slots_write['delete'].split(',')) == ['acmedomain2', 'description', 'wakeonlan']
    assert len(slots_write['digest']) == 40
    assert files(sim, 'node2')['config'] == (
        'acmedomain0: domain=a.example.com,plugin=standalone\nacmedomain1: domain=d.example.com\n'
        'acmedomain4: c.example.com\n')
