"""The pure parts of the apt_repository and subscription families: which stanzas are a standard repository's
(proxmox-apt's is_referenced_repository, checked against the simulator's port), which family a task's identity
picks, how a key is shown, and what a refusal says."""

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import ApiError, DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.families import apt_repository, subscription
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.apt_repository import (
    ENTRY, FAMILY, HANDLES, STANDARD, references, stanzas_of)
from simulator.pve.handlers import apt as simulated

D = '/etc/apt/sources.list.d/'


def stanza(uris, components, suites=('trixie',), types=('deb',), enabled=1):
    return {'Types': list(types), 'URIs': list(uris), 'Suites': list(suites), 'Components': list(components),
            'FileType': 'sources', 'Enabled': enabled}


def as_read(repo):
    """A simulator stanza (its parser's dict) as the API answers it."""
    return simulated._repo_json(repo)


def test_the_handles_are_the_simulators_and_pves():
    assert HANDLES == list(simulated.HANDLES)


@pytest.mark.parametrize('handle', HANDLES)
def test_the_stanza_pve_writes_for_a_handle_is_that_handles_alone(handle):
    written = as_read(simulated._standard_repository(handle))
    assert [other for other in HANDLES if references(written, other)] == [handle]


@pytest.mark.parametrize('repo, handle, expected', [
    (stanza(['http://download.proxmox.com/debian/pve/'], ['pve-no-subscription']), 'no-subscription', True),
    (stanza(['http://download.proxmox.com/debian'], ['pve-no-subscription']), 'no-subscription', True),
    (stanza(['https://download.proxmox.com/debian/pve'], ['pve-no-subscription']), 'no-subscription', False),
    (stanza(['http://download.proxmox.com/debian/pve'], ['pve-no-subscription'], suites=['bookworm']),
     'no-subscription', False),
    (stanza(['http://download.proxmox.com/debian/pve'], ['pve-no-subscription'], types=['deb-src']),
     'no-subscription', False),
    (stanza(['http://download.proxmox.com/debian/pve'], ['pve-test', 'pve-no-subscription']), 'test', True),
    (stanza(['http://mirror.example.org/pve', 'https://enterprise.proxmox.com/debian/pve'], ['pve-enterprise']),
     'enterprise', True),
    (stanza(['https://enterprise.proxmox.com/debian/ceph-squid'], ['enterprise']), 'ceph-squid-enterprise', True),
    (stanza(['https://enterprise.proxmox.com/debian/ceph-squid'], ['enterprise']), 'enterprise', False),
    (stanza(['http://download.proxmox.com/debian/ceph-squid'], ['no-subscription']), 'ceph-squid-test', False),
])
def test_a_stanza_is_a_handles_as_proxmox_apt_judges_it(repo, handle, expected):
    assert references(repo, handle) is expected
    simulator_repo = dict(types=repo['Types'], uris=repo['URIs'], suites=repo['Suites'],
                          components=repo['Components'])
    assert simulated.is_referenced(simulator_repo, handle, 'pve', 'trixie') is expected


def test_the_stanzas_of_a_handle_in_the_files_order_with_their_state():
    answer = {'files': [
        {'path': D + 'a.sources', 'repositories': [stanza(['http://x.example/debian'], ['main'])]},
        {'path': D + 'proxmox.sources', 'repositories': [
            stanza(['http://download.proxmox.com/debian/pve'], ['pve-no-subscription'], enabled=0),
            stanza(['http://download.proxmox.com/debian/pve'], ['pve-test']),
            stanza(['http://download.proxmox.com/debian/pve'], ['pve-no-subscription'], enabled=True)]},
    ]}
    assert stanzas_of(answer, 'no-subscription') == [
        {'path': D + 'proxmox.sources', 'index': 0, 'enabled': False},
        {'path': D + 'proxmox.sources', 'index': 2, 'enabled': True}]
    assert stanzas_of(answer, 'enterprise') == []
    assert stanzas_of({}, 'test') == []


@pytest.mark.parametrize('params, family', [
    ({'node': 'n1', 'handle': 'test'}, STANDARD),
    ({'node': 'n1', 'path': D + 'x.list', 'index': 0}, ENTRY),
])
def test_the_identity_given_picks_the_family(params, family):
    assert FAMILY.resolve(params) is family


@pytest.mark.parametrize('params, words', [
    ({'node': 'n1', 'handle': 'test', 'path': D + 'x.list'}, 'not both'),
    ({'node': 'n1'}, 'option handle is required'),
    ({'node': 'n1', 'index': 3}, 'option path is required with index'),
    ({'node': 'n1', 'path': D + 'x.list'}, 'option index is required with path'),
])
def test_one_identity_exactly(params, words):
    with pytest.raises(DeclarationError) as raised:
        FAMILY.resolve(params)
    assert words in str(raised.value)


def test_the_module_takes_no_scope_and_defaults_enabled():
    spec = FAMILY.object_spec()
    assert 'scope' not in spec and 'state' not in spec
    assert spec['node'] == {'type': 'str', 'required': True}
    assert spec['enabled'] == {'type': 'bool', 'default': True}
    assert spec['handle']['choices'] == HANDLES and spec['index'] == {'type': 'int'}


@pytest.mark.parametrize('path, allowed', [
    ('/etc/apt/sources.list', True), (D + 'ceph.sources', True), (D + 'my_repo-1.list', True),
    (D + 'x.list.bak', False), (D + 'sub/x.list', False), ('/etc/apt/sources.list.save', False),
    ('etc/apt/sources.list', False), (D + 'bad name.list', False),
])
def test_the_files_an_entry_may_name(path, allowed):
    assert bool(apt_repository.APT_FILE.fullmatch(path)) is allowed


def test_a_key_is_shown_as_a_placeholder_only():
    assert subscription.shown({'node': 'n1', 'key': 'pve1c-0123456789', 'status': 'active'}, 'pve1c-0123456789') == {
        'node': 'n1', 'key': '(secret)', 'status': 'active'}
    assert subscription.shown({'key': 'pve1c-9999999999'}, 'pve1c-0123456789') == {'key': '(another key)'}
    assert subscription.shown({}, 'pve1c-0123456789') == {}


def test_the_key_is_no_log_and_its_refusal_never_repeats_it():
    spec = subscription.FAMILY.object_spec()
    assert spec['key'] == {'type': 'str', 'no_log': True} and 'status' not in spec
    key = subscription.FAMILY.fields[0]
    assert key.declared('  pve8p-0123456789 ') == 'pve8p-0123456789'
    with pytest.raises(DeclarationError) as raised:
        key.declared('pve3c-0123456789')
    assert 'pve3c' not in str(raised.value) and str(raised.value).startswith('option key: the value does not match')


def test_a_refused_key_names_the_node_and_keeps_pves_words():
    exc = ApiError.for_status(500, 'wrong number of sockets (1 < 2)\n', method='PUT', path='/nodes/n1/subscription')
    refused = subscription.KeyRefused('n1', exc)
    assert str(refused) == "node 'n1' did not take the subscription key: 500 wrong number of sockets (1 < 2)"
    assert refused.status == 500 and refused.path == '/nodes/n1/subscription'


class OneNode:
    """A client over the simulator's APT handler for one node's files (no HTTP)."""

    def __init__(self, texts):
        from types import SimpleNamespace
        from simulator.pve.state import ClusterState
        state = ClusterState(['n1'])
        state.apt_files['n1'] = dict(texts)
        self.ctx = SimpleNamespace(state=state)

    def get(self, path, params=None, role='read'):
        if path == '/nodes':
            return [{'node': 'n1'}]
        assert path == '/nodes/n1/apt/repositories', path
        return simulated.repositories_get(self.ctx, {'node': 'n1'})


def test_an_export_finds_standard_repositories_by_handle_and_the_other_stanzas_by_entry():
    texts = dict(simulated.FRESH_INSTALL, **{D + 'proxmox.sources': (
        'Types: deb\nURIs: http://download.proxmox.com/debian/pve\nSuites: trixie\nComponents: pve-no-subscription\n'
        'Enabled: false\n')})
    client = OneNode(texts)
    standard = STANDARD.find_all(client)
    assert [(ident['handle'], STANDARD.current(raw)['enabled']) for ident, raw in standard] == [
        ('enterprise', True), ('no-subscription', False), ('ceph-squid-enterprise', True)]
    assert [STANDARD.export_options(ident, raw) for ident, raw in standard][1] == {
        'node': 'n1', 'handle': 'no-subscription', 'enabled': False}
    entries = ENTRY.find_all(client)
    assert [(ident['path'], ident['index']) for ident, _raw in entries] == [
        (D + 'debian.sources', 0), (D + 'debian.sources', 1)]
    assert ENTRY.report(entries[1][1])['uris'] == ['http://security.debian.org/debian-security/']
