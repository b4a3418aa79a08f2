"""Day 0 (issue 23): a node's APT repositories and its subscription, with real ansible-playbook runs on both
execution paths.

The matrix takes node1 from its installer's repositories to the no-subscription one enabled and the enterprise
one disabled, and gives it a subscription, all in one play per step: check-mode create writes nothing →
one write each → re-run changed=false, zero writes → drift through the API → --check --diff names exactly the
drifted fields, zero writes → the repair, one write each → state=absent (the subscription; repositories are
never removed) → again a no-op (the module path skips the two confirming re-runs). The other tests prove each
rule: a repository already in the files is switched on its stanza and never appended again (PVE 9.1's PUT
would), nothing else in the files changes, every write carries the digest, entries by path and index, a key the
shop rejects fails naming the node, and the key never shows at -vvvv.

``MATRIX``, ``SETUP``, ``BAD_INPUT`` and ``SECRETS`` have the shapes of test_cluster_families'; ``prepare(sim)``
seeds the shop's answers for the matrix's keys (the shop is no API call).
"""

import pytest

from conftest import EXECUTION_PATHS, reconfirms
from test_matrix import api, assert_drift_named

from simulator.pve.handlers import apt
from simulator.pve.handlers.subscription import seed_subscription_key, server_id

SETUP = []
D = '/etc/apt/sources.list.d/'
REPOS = '/nodes/node1/apt/repositories'
KEY = 'pve2c-0123456789'
OTHER_KEY = 'pve4s-abcdef0123'  # set by hand on the node: the drift
KEYRING = 'Signed-By: /usr/share/keyrings/proxmox-archive-keyring.gpg\n'
NO_SUBSCRIPTION = ('Types: deb\nURIs: http://download.proxmox.com/debian/pve\nSuites: trixie\n'
                   'Components: pve-no-subscription\n' + KEYRING)
ENTERPRISE_TEXT = apt.FRESH_INSTALL[D + 'pve-enterprise.sources']

MATRIX = {
    'apt_repository': dict(
        prefix=REPOS,
        args={'node': 'node1', 'handle': 'no-subscription', 'enabled': True},
        # switched off in the UI: the repair switches its stanza back on (PVE 9.1's PUT would append a copy)
        drift=[('POST', REPOS, {'path': D + 'proxmox.sources', 'index': '0', 'enabled': '0'})],
        drifted={'enabled': 'enabled'},
        absent=None,
    ),
    'subscription': dict(
        prefix='/nodes/node1/subscription',
        args={'node': 'node1', 'key': KEY},
        drift=[('PUT', '/nodes/node1/subscription', {'key': OTHER_KEY})],
        drifted={'key': 'key'},
        absent={'node': 'node1', 'state': 'absent'},
    ),
}
MODULES = sorted(MATRIX)
# Declared beside the matrix's no-subscription repository in every step: the day-0 pair.
ENTERPRISE_OFF = {'node': 'node1', 'handle': 'enterprise', 'enabled': False}
ENTERPRISE_ON = [('POST', REPOS, {'path': D + 'pve-enterprise.sources', 'index': '0', 'enabled': '1'})]

BAD_INPUT = [
    ('apt_repository', {'node': 'node1', 'handle': 'pbs-enterprise'}, 'handle'),
    ('apt_repository', {'node': 'node1', 'handle': 'ceph-quincy-enterprise', 'enabled': False}, 'handle'),
    ('apt_repository', {'node': 'node1', 'path': D + 'debian.sources', 'index': 'first'}, 'index'),
    ('apt_repository', {'node': 'node1', 'path': D + 'debian.sources', 'index': -1}, 'index'),
    ('apt_repository', {'node': 'node1', 'handle': 'enterprise', 'path': D + 'pve-enterprise.sources', 'index': 0},
     'handle'),
    ('apt_repository', {'node': 'node1', 'handle': 'enterprise', 'index': 0}, 'handle'),
    ('apt_repository', {'node': 'node1', 'enabled': False}, 'handle'),
    ('apt_repository', {'node': 'node1', 'path': D + 'debian.sources'}, 'index'),
    ('apt_repository', {'node': 'node1', 'index': 0}, 'path'),
    ('apt_repository', {'node': 'node1', 'path': '/etc/apt/preferences', 'index': 0}, 'path'),
    ('apt_repository', {'node': 'node1', 'path': D + 'debian.sources.bak', 'index': 0}, 'path'),
    ('apt_repository', {'node': 'node1', 'handle': 'enterprise', 'state': 'absent'}, 'state'),
    ('apt_repository', {'handle': 'enterprise'}, 'node'),
    ('apt_repository', {'node': 'node 1', 'handle': 'enterprise'}, 'node'),
    ('apt_repository', {'node': 'node1', 'handle': 'test', 'enabled': 'maybe'}, 'enabled'),
    ('subscription', {'node': 'node1', 'key': 'pve3c-0123456789'}, 'key'),
    ('subscription', {'node': 'node1', 'key': 'pbs2c-0123456789'}, 'key'),
    ('subscription', {'node': 'node1', 'key': 'pve2c-0123456789ab'}, 'key'),
    ('subscription', {'node': 'node1', 'key': 'pve2x-0123456789'}, 'key'),
    ('subscription', {'node': 'node1', 'key': ''}, 'key'),
    ('subscription', {'key': KEY}, 'node'),
    ('subscription', {'node': 'node1', 'key': KEY, 'state': 'gone'}, 'state'),
]

SECRETS = {
    'subscription': [{'node': 'node1', 'key': KEY}, {'node': 'node2', 'key': 'pve1b-00112233ff'}],
}


def prepare(sim):
    """The shop knows the matrix's keys (and the secrets test's) as active subscriptions for any node."""
    api(sim, SETUP)
    for key in (KEY, OTHER_KEY, SECRETS['subscription'][1]['key']):
        seed_subscription_key(sim.state, key)


def files(sim, node='node1'):
    return dict(apt.node_files(sim.state, node))


def of(module, entries):
    prefix = MATRIX[module]['prefix']
    return [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]


def task(module, args, name=None, **extra):
    return dict({'name': name or module, 'homeflare.proxmox.%s' % module: args, 'ignore_errors': True}, **extra)


def step(sim, playbook, path, key, check=False, diff=False, extra=True):
    """The matrix's objects (``key``: args or absent) and, with ``extra``, the enterprise repository off, in one
    play; {task name: result}."""
    tasks = [task(module, MATRIX[module][key]) for module in MODULES if MATRIX[module][key] is not None]
    if extra:
        tasks.append(task('apt_repository', ENTERPRISE_OFF, name='enterprise'))
    sim.clear_log()
    run = playbook(tasks, check=check, diff=diff, env=EXECUTION_PATHS[path])
    assert run.rc == 0 and not run.failed, [(line['task'], line['result'].get('msg')) for line in run.failed] or run
    return run, dict((line['task'], line['result']) for line in run.results)


def apt_writes(sim, file_path=None):
    """The repository writes, or those of one file (a PUT adds to the handle's standard file)."""
    written = of('apt_repository', sim.writes())
    if file_path is None:
        return written
    return [entry for entry in written if entry['form'].get('path') == file_path
            or (entry['method'] == 'PUT' and file_path == D + 'proxmox.sources')]


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_day0_apt_families_matrix(sim, playbook, path):
    prepare(sim)

    # 1. check mode: the repositories are updates (they always exist), the subscription a create; nothing written
    run, results = step(sim, playbook, path, 'args', check=True, diff=True)
    assert results['apt_repository']['plan'] == {'read': 'found', 'action': 'update', 'changed': ['enabled']}
    assert results['enterprise']['plan'] == {'read': 'found', 'action': 'update', 'changed': ['enabled']}
    assert results['subscription']['plan']['action'] == 'create'
    assert sim.writes() == []

    # 2. one write each: the absent handle added (PUT), the enterprise stanza switched off, the key set
    run, results = step(sim, playbook, path, 'args')
    assert all(results[name]['changed'] for name in results), results
    assert [(entry['method'], entry['form'].get('handle') or entry['form']['path']) for entry in apt_writes(sim)] \
        == [('PUT', 'no-subscription'), ('POST', D + 'pve-enterprise.sources')]
    assert all(len(entry['form']['digest']) == 64 for entry in apt_writes(sim))  # every write carries the digest
    assert [entry['method'] for entry in of('subscription', sim.writes())] == ['PUT']
    texts = files(sim)
    assert texts[D + 'proxmox.sources'] == NO_SUBSCRIPTION
    assert texts[D + 'pve-enterprise.sources'] == ENTERPRISE_TEXT + 'Enabled: false\n'
    for name in ('debian.sources', 'ceph.sources'):  # nothing else in the files changes
        assert texts[D + name] == apt.FRESH_INSTALL[D + name]
    assert results['subscription']['object']['status'] == 'active'
    assert results['subscription']['object']['key'] == '(secret)'
    assert results['apt_repository']['object']['stanzas'] == [
        {'path': D + 'proxmox.sources', 'index': 0, 'enabled': True}]

    # 3. re-run: adopted, zero writes, one GET each
    run, results = step(sim, playbook, path, 'args')
    for name in results:
        assert results[name]['plan']['action'] == 'none' and results[name]['changed'] is False, (name, results[name])
    assert sim.writes() == []
    assert [entry['method'] for entry in sim.log] == ['GET'] * 3

    # 4. drift behind the module's back (the enterprise repository switched on again as well)
    for module in MODULES:
        api(sim, MATRIX[module]['drift'])
    api(sim, ENTERPRISE_ON)

    # 5. --check --diff names exactly the drifted fields; the other key is never shown
    run, results = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        assert_drift_named(results[module], MATRIX[module]['drifted'])
    assert_drift_named(results['enterprise'], ['enabled'])
    assert results['subscription']['diff']['before']['key'] == '(another key)'
    assert results['subscription']['diff']['after']['key'] == '(secret)'
    assert 'enabled' in run.output and 'key' in run.output
    assert KEY not in run.output + str(results) and OTHER_KEY not in run.output + str(results)
    assert sim.writes() == []

    # 6. the repair: one write each; the disabled stanzas are switched on and off in place, never appended
    run, results = step(sim, playbook, path, 'args')
    written = apt_writes(sim)
    assert [(entry['method'], entry['form']['path'], entry['form']['enabled']) for entry in written] == [
        ('POST', D + 'proxmox.sources', '1'), ('POST', D + 'pve-enterprise.sources', '0')]
    assert [(entry['method'], entry['form']) for entry in of('subscription', sim.writes())] == [('PUT', {'key': KEY})]
    texts = files(sim)
    assert texts[D + 'proxmox.sources'] == NO_SUBSCRIPTION + 'Enabled: true\n'
    assert texts[D + 'pve-enterprise.sources'] == ENTERPRISE_TEXT + 'Enabled: false\n'
    assert sim.state.subscriptions['node1']['key'] == KEY
    if reconfirms(path):
        run, results = step(sim, playbook, path, 'args')
        assert not any(result['changed'] for result in results.values()) and sim.writes() == []

    # 7. state=absent removes the subscription (DELETE), 8. again a no-op
    run, results = step(sim, playbook, path, 'absent', extra=False)
    assert results['subscription']['plan']['action'] == 'delete'
    assert [entry['method'] for entry in sim.writes()] == ['DELETE']
    assert 'node1' not in sim.state.subscriptions
    if reconfirms(path):
        run, results = step(sim, playbook, path, 'absent', extra=False)
        assert results['subscription']['changed'] is False and results['subscription']['object'] == {}
        assert sim.writes() == []


def test_repositories_by_handle_and_by_entry_change_only_their_stanza(sim, playbook):
    """Disabled and absent: no write. A handle with two enabled copies (what PVE 9.1's PUT leaves): each switched
    off, each write with the digest of the files then. An entry by path and index: its stanza alone. A file or an
    index the node lacks: refused, naming what it has. A Ceph handle in its standard file: switched in place."""
    doubled = NO_SUBSCRIPTION + '\n' + NO_SUBSCRIPTION
    custom = ('# our mirror\nTypes: deb\nURIs: http://mirror.example.org/debian\nSuites: trixie\n'
              'Components: main\n\nTypes: deb-src\nURIs: http://mirror.example.org/debian\nSuites: trixie\n'
              'Components: main\n')
    sim.state.apt_files['node2'] = dict(apt.FRESH_INSTALL, **{D + 'proxmox.sources': doubled,
                                                              D + 'mirror.sources': custom})
    tasks = [
        task('apt_repository', {'node': 'node2', 'handle': 'ceph-squid-test', 'enabled': False}, name='absent off'),
        task('apt_repository', {'node': 'node2', 'handle': 'no-subscription', 'enabled': False}, name='doubled'),
        task('apt_repository', {'node': 'node2', 'path': D + 'mirror.sources', 'index': 1, 'enabled': False},
             name='entry'),
        task('apt_repository', {'node': 'node2', 'handle': 'ceph-squid-enterprise', 'enabled': False}, name='ceph'),
        task('apt_repository', {'node': 'node2', 'path': D + 'pve-test.sources', 'index': 0}, name='no file'),
        task('apt_repository', {'node': 'node2', 'path': D + 'mirror.sources', 'index': 2}, name='no index'),
    ]
    sim.clear_log()
    run = playbook(tasks, diff=True)
    results = dict((line['task'], line) for line in run.results)
    assert results['absent off']['result']['changed'] is False
    assert results['absent off']['result']['object']['stanzas'] == []
    assert results['doubled']['result']['changed'] is True
    assert results['entry']['result']['object']['uris'] == ['http://mirror.example.org/debian']
    assert results['entry']['result']['object']['types'] == ['deb-src']
    assert results['ceph']['result']['changed'] is True
    assert results['no file']['status'] == 'failed'
    assert 'has no such APT file' in results['no file']['result']['msg']
    assert D + 'mirror.sources' in results['no file']['result']['msg']
    assert results['no index']['status'] == 'failed'
    assert 'holds 2 repositories (index 0 to 1)' in results['no index']['result']['msg']

    writes = [(entry['form']['path'], entry['form']['index'], entry['form']['enabled'])
              for entry in sim.writes()]
    assert writes == [(D + 'proxmox.sources', '0', '0'), (D + 'proxmox.sources', '1', '0'),
                      (D + 'mirror.sources', '1', '0'), (D + 'ceph.sources', '0', '0')]
    digests = [entry['form']['digest'] for entry in sim.writes()]
    assert len(set(digests)) == 4  # each the digest of the files as they were before that write
    texts = files(sim, 'node2')
    stanza = NO_SUBSCRIPTION + 'Enabled: false\n'
    assert texts[D + 'proxmox.sources'] == stanza + '\n' + stanza
    # the first stanza and its comment unchanged, the second switched off
    assert texts[D + 'mirror.sources'] == custom + 'Enabled: false\n'
    assert texts[D + 'debian.sources'] == apt.FRESH_INSTALL[D + 'debian.sources']
    assert texts[D + 'pve-enterprise.sources'] == ENTERPRISE_TEXT
    assert files(sim, 'node1') == apt.FRESH_INSTALL  # another node's files: untouched


def test_another_writers_edit_is_never_overwritten(sim, playbook):
    """The files change between the read and the write: PVE refuses the stale digest, the task reads and judges
    again and writes once more; the other writer's edit stays."""
    def other_writer(params):
        node_files = apt.node_files(sim.state, 'node1')
        node_files[D + 'debian.sources'] += '\n# edited by someone else\n'

    sim.before('POST', r'^/nodes/node1/apt/repositories$', other_writer, times=1)
    sim.clear_log()
    run = playbook([task('apt_repository', ENTERPRISE_OFF)])
    result = run.result()
    assert result['changed'] is True and not run.failed, run
    assert any('another writer' in warning for warning in result.get('warnings', [])), result
    posts = [entry for entry in sim.writes() if entry['method'] == 'POST']
    assert [entry['status'] >= 400 for entry in posts] == [True, False]
    assert posts[0]['form']['digest'] != posts[1]['form']['digest']
    assert files(sim)[D + 'debian.sources'].endswith('# edited by someone else\n')
    assert files(sim)[D + 'pve-enterprise.sources'] == ENTERPRISE_TEXT + 'Enabled: false\n'


def test_subscription_keys_the_shop_rejects_or_that_lapsed(sim, playbook):
    """A key the shop does not know: set, read invalid, the task fails with PVE's status, naming the node. A key
    bound to another server: PVE's refusal, naming the node. A lapsed subscription with the declared key is checked
    again; without a key declared an active one is adopted, and a node without one needs the key."""
    unknown, elsewhere, lapsed = 'pve1c-00000000aa', 'pve1c-00000000bb', 'pve1c-00000000cc'
    seed_subscription_key(sim.state, elsewhere, validdirectory=server_id('node3'))
    seed_subscription_key(sim.state, lapsed, status='Expired')
    sim.request('PUT', '/nodes/node3/subscription', {'key': lapsed})
    seed_subscription_key(sim.state, lapsed)  # renewed at the shop since
    # The keys come from variables, as in a real play: Ansible shows a failed task's source lines.
    keys = {'unknown': unknown, 'elsewhere': elsewhere, 'lapsed': lapsed}
    tasks = [
        task('subscription', {'node': 'node1', 'key': '{{ keys.unknown }}'}, name='unknown'),
        task('subscription', {'node': 'node2', 'key': '{{ keys.elsewhere }}'}, name='elsewhere'),
        task('subscription', {'node': 'node3', 'key': '{{ keys.lapsed }}'}, name='lapsed check', check_mode=True,
             diff=True),
        task('subscription', {'node': 'node3', 'key': '{{ keys.lapsed }}'}, name='lapsed'),
        task('subscription', {'node': 'node3'}, name='adopted'),
        task('subscription', {'node': 'node2'}, name='none to adopt'),
    ]
    sim.clear_log()
    run = playbook(tasks, play_extra={'vars': {'keys': keys}})
    results = dict((line['task'], line) for line in run.results)
    assert results['unknown']['status'] == 'failed'
    assert results['unknown']['result']['msg'].startswith(
        "node 'node1' took the subscription key, but its status is invalid (PVE checked it with the shop)")
    assert results['elsewhere']['status'] == 'failed'
    assert results['elsewhere']['result']['msg'] == (
        "node 'node2' did not take the subscription key: 500 Error parsing subscription check response: Server ID "
        "does not match")
    lapsed_plan = results['lapsed check']['result']['plan']
    assert lapsed_plan == {'read': 'found', 'action': 'update', 'changed': ['status']}
    assert results['lapsed check']['result']['diff']['before']['status'] == 'expired'
    assert results['lapsed']['result']['changed'] is True
    assert results['lapsed']['result']['object']['status'] == 'active'
    assert results['adopted']['result']['changed'] is False
    assert 'key' not in results['adopted']['result']['object']
    assert results['none to adopt']['status'] == 'failed'
    assert 'option key is required' in results['none to adopt']['result']['msg']
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [
        ('PUT', '/nodes/node1/subscription'), ('PUT', '/nodes/node2/subscription'),
        ('PUT', '/nodes/node3/subscription')]
    for key in (unknown, elsewhere, lapsed):
        assert key not in run.output + str(run.results), run.output


def test_a_declared_key_the_reader_may_not_see_is_unreadable_not_rewritten(sim, playbook, sim_connection):
    """Without Sys.Audit on the node PVE answers no key: a declared one cannot be compared, so the task fails
    instead of writing it again on every run."""
    seed_subscription_key(sim.state, KEY)
    sim.request('PUT', '/nodes/node1/subscription', {'key': KEY})
    sim.state.add_user('blind@pve')
    secret = sim.state.add_token('blind@pve', 'tk', privsep=0)
    sim.clear_log()
    run = playbook([task('subscription', {'node': 'node1', 'key': KEY})],
                   defaults=dict(sim_connection, api_token_id='blind@pve!tk', api_token_secret=secret))
    line = run.results[-1]
    assert line['status'] == 'failed' and line['result']['error'] == 'Unreadable', line
    assert 'Sys.Audit on /nodes/node1' in line['result']['msg']
    assert sim.writes() == []


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_the_key_never_appears_at_vvvv(sim, playbook, path):
    """Check, set, re-run at -vvvv, node2 holding another key first: neither key in the output, the results or the
    diff; in the request log only in the PUT forms that set it."""
    prepare(sim)
    sim.request('PUT', '/nodes/node2/subscription', {'key': OTHER_KEY})
    secrets = [args['key'] for args in SECRETS['subscription']] + [OTHER_KEY]
    tasks = [task('subscription', args, name='subscription %d' % index)
             for index, args in enumerate(SECRETS['subscription'])]
    sim.clear_log()
    for check in (True, False, False):
        run = playbook(tasks, check=check, diff=True, verbosity=4, env=EXECUTION_PATHS[path])
        assert run.rc == 0 and not run.failed, run
        for secret in secrets:
            assert secret not in run.output and secret not in str(run.results), secret
    assert run.results[0]['result']['changed'] is False and run.results[1]['result']['changed'] is False
    with open(sim.log_path) as handle:
        logged = [line for line in handle if any(secret in line for secret in secrets)]
    puts = [entry for entry in sim.log if any(secret in str(entry) for secret in secrets)]
    assert [(entry['method'], entry['path'], entry['form']) for entry in puts] == [
        ('PUT', '/nodes/node1/subscription', {'key': KEY}),
        ('PUT', '/nodes/node2/subscription', {'key': SECRETS['subscription'][1]['key']})]
    # the log file also holds the drift set up before the runs
    assert len(logged) == 3 and all('"PUT"' in line for line in logged)
