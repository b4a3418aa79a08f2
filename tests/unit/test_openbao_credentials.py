"""OpenBao/Vault sources: environment precedence, the lease cache, minting and re-minting after a 401."""

import multiprocessing
import os
import stat
import threading

import certifi
import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils import api
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import (
    Lease, LeaseCache, OpenBaoDynamic, OpenBaoKV, credentials_from_params, default_cache_directory,
    openbao_settings)
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    AuthenticationFailed, CredentialError, DeclarationError)

ADDRESSES = [
    # (options, environment) -> (address, agent mode, token sent)
    ({}, {}, ('https://127.0.0.1:8200', False, None)),
    ({}, {'VAULT_ADDR': 'https://v:1', 'VAULT_TOKEN': 'vt'}, ('https://v:1', False, 'vt')),
    ({}, {'VAULT_ADDR': 'https://v:1', 'BAO_ADDR': 'https://b:1'}, ('https://b:1', False, None)),
    ({}, {'VAULT_AGENT_ADDR': 'https://va:1', 'BAO_ADDR': 'https://b:1'}, ('https://b:1', False, None)),
    ({}, {'BAO_AGENT_ADDR': 'https://ba:1', 'BAO_ADDR': 'https://b:1', 'BAO_TOKEN': 't'}, ('https://ba:1', True, None)),
    ({}, {'VAULT_AGENT_ADDR': 'https://va:1', 'VAULT_ADDR': 'https://v:1', 'VAULT_TOKEN': 't'},
     ('https://va:1', True, None)),
    ({}, {'BAO_ADDR': 'https://b:1', 'BAO_TOKEN': '', 'VAULT_TOKEN': 'vt'}, ('https://b:1', False, '')),
    ({'bao_addr': 'https://o:1/', 'bao_token': 'ot'}, {'BAO_AGENT_ADDR': 'https://ba:1', 'BAO_TOKEN': 'bt'},
     ('https://o:1', False, 'ot')),
]


@pytest.mark.parametrize('options, environ, expected', ADDRESSES)
def test_address_and_token_precedence(options, environ, expected):
    settings = openbao_settings(options, environ)
    assert (settings.address, settings.agent, settings.token) == expected


def test_namespace_and_ca_follow_the_same_precedence():
    bundle = certifi.where()  # a real PEM file: a CA file is checked before it is used
    settings = openbao_settings({}, {'VAULT_NAMESPACE': 'v', 'BAO_NAMESPACE': 'b', 'VAULT_CACERT': bundle})
    assert (settings.namespace, settings.ca_path) == ('b', bundle)


def test_a_missing_or_non_pem_ca_file_is_refused(tmp_path):
    with pytest.raises(DeclarationError, match='option bao_ca_path: /nonexistent.pem does not exist'):
        openbao_settings({}, {'BAO_CACERT': '/nonexistent.pem'})
    junk = tmp_path / 'junk.pem'
    junk.write_text('not a certificate')
    with pytest.raises(DeclarationError, match='option bao_ca_path: .*junk.pem holds no PEM certificate'):
        openbao_settings({'bao_ca_path': str(junk)}, {})
    with pytest.raises(DeclarationError, match='option bao_timeout: 0 is not a positive number of seconds'):
        openbao_settings({'bao_timeout': 0}, {})


def test_approle_needs_its_secret_id():
    with pytest.raises(DeclarationError, match='bao_approle_secret_id'):
        openbao_settings({'bao_approle_role_id': 'r'}, {})


SOURCES = [
    ({'bao_creds_mount': 'proxmox-c1'}, OpenBaoDynamic, None),
    ({'bao_kv_path': 'proxmox/c1'}, OpenBaoKV, None),
    ({'bao_kv_path': 'p', 'bao_creds_mount': 'm'}, None, 'bao_kv_path and bao_creds_mount are mutually exclusive'),
    ({'bao_creds_mount': 'm', 'api_token_id': 'a@pve!tk', 'api_token_secret': 's'}, None, 'mutually exclusive'),
]


@pytest.mark.parametrize('params, kind, error', SOURCES)
def test_exactly_one_source(params, kind, error):
    if error:
        with pytest.raises(DeclarationError, match=error):
            credentials_from_params(params, environ={})
    else:
        assert isinstance(credentials_from_params(params, environ={}), kind)


class Clock:
    def __init__(self, now=1000.0):
        self.now = now

    def __call__(self):
        return self.now


class FakeBao:
    """Stands in for OpenBao: answers creds reads like a dynamic mount and counts mints."""

    def __init__(self, duration=300, data=None):
        self.duration = duration
        self.data = data
        self.mints = []

    class settings:  # pylint: disable=invalid-name,too-few-public-methods
        address = 'https://bao:8200'
        namespace = None

    def read(self, path, action):
        self.mints.append(path)
        data = self.data if self.data is not None else {'token_id': 'hf@pve!%s-%d' % (path, len(self.mints)),
                                                        'secret': 'secret-%d' % len(self.mints)}
        return {'data': data, 'lease_duration': self.duration, 'lease_id': 'm/creds/r/x'}


def dynamic(tmp_path, bao=None, clock=None, roles=None):
    clock = clock or Clock()
    cache = LeaseCache(str(tmp_path / 'cache'), clock=clock)
    return OpenBaoDynamic(bao or FakeBao(), 'proxmox-c1', roles or {'read': 'read', 'provision': 'provision'}, 'pve',
                          cache, clock=clock)


def test_one_mint_per_role_shared_through_the_cache(tmp_path):
    bao, clock = FakeBao(), Clock()
    first = dynamic(tmp_path, bao, clock)
    first.credential('read')
    first.credential('provision')
    first.credential('read')
    # another task (a new process) finds both leases in the cache
    dynamic(tmp_path, bao, clock).credential('provision')
    assert bao.mints == ['proxmox-c1/creds/read', 'proxmox-c1/creds/provision']


def test_one_role_for_both(tmp_path):
    bao = FakeBao()
    source = dynamic(tmp_path, bao, roles={'read': 'ops', 'provision': 'ops'})
    assert source.credential('read') == source.credential('provision')
    assert bao.mints == ['proxmox-c1/creds/ops']


def test_reused_until_sixty_seconds_before_the_lease_ends(tmp_path):
    bao, clock = FakeBao(duration=300), Clock(1000.0)
    dynamic(tmp_path, bao, clock).credential('provision')
    clock.now = 1000.0 + 239
    dynamic(tmp_path, bao, clock).credential('provision')
    assert len(bao.mints) == 1
    clock.now = 1000.0 + 240
    dynamic(tmp_path, bao, clock).credential('provision')
    assert len(bao.mints) == 2


@pytest.mark.parametrize('duration', [0, None, 30])
def test_unknown_or_short_leases_are_not_cached(tmp_path, duration):
    bao = FakeBao(duration=duration)
    dynamic(tmp_path, bao).credential('read')
    dynamic(tmp_path, bao).credential('read')
    assert len(bao.mints) == 2
    assert [name for name in os.listdir(str(tmp_path / 'cache')) if name.endswith('.json')] == []


def test_cache_is_private_and_names_carry_no_secret(tmp_path):
    source = dynamic(tmp_path)
    token_id, secret = source.credential('provision')
    directory = str(tmp_path / 'cache')
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    for name in os.listdir(directory):
        assert stat.S_IMODE(os.stat(os.path.join(directory, name)).st_mode) == 0o600
        assert secret not in name and token_id not in name and 'provision' not in name


def test_expired_entries_are_pruned(tmp_path):
    bao, clock = FakeBao(duration=120), Clock(1000.0)
    dynamic(tmp_path, bao, clock).credential('read')
    clock.now = 2000.0
    dynamic(tmp_path, bao, clock).credential('provision')
    leases = [name for name in os.listdir(str(tmp_path / 'cache')) if name.endswith('.json')]
    assert len(leases) == 1


def test_a_missing_token_id_or_secret_is_refused(tmp_path):
    with pytest.raises(CredentialError, match='holds no token_id'):
        dynamic(tmp_path, FakeBao(data={'secret': 'x'})).credential('read')


def test_cache_directory_prefers_xdg_runtime_dir(tmp_path):
    assert default_cache_directory({'XDG_RUNTIME_DIR': str(tmp_path)}) == str(tmp_path / 'homeflare-proxmox')
    assert 'homeflare-proxmox-%d' % os.getuid() in default_cache_directory({'XDG_RUNTIME_DIR': '/nonexistent'})


def test_concurrent_misses_share_one_mint_across_threads(tmp_path):
    bao, clock = FakeBao(), Clock()
    barrier = threading.Barrier(8)
    results = []

    def task():
        barrier.wait()
        results.append(dynamic(tmp_path, bao, clock).credential('provision'))

    threads = [threading.Thread(target=task) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(bao.mints) == 1 and len(set(results)) == 1


def _mint_in_a_process(directory, queue):
    bao = FakeBao()
    source = OpenBaoDynamic(bao, 'proxmox-c1', {'read': 'read', 'provision': 'provision'}, 'pve',
                            LeaseCache(directory, clock=lambda: 1000.0), clock=lambda: 1000.0)
    token_id = source.credential('provision')[0]
    queue.put((len(bao.mints), token_id))


def test_concurrent_misses_share_one_mint_across_processes(tmp_path):
    queue = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=_mint_in_a_process, args=(str(tmp_path / 'cache'), queue))
             for index in range(5)]
    for proc in procs:
        proc.start()
    answers = [queue.get(timeout=30) for proc in procs]
    for proc in procs:
        proc.join()
    assert sum(answer[0] for answer in answers) == 1
    assert len({answer[1] for answer in answers}) == 1


class Refusing:
    """A client transport that answers 401 to the token ids listed in ``dead``."""

    def __init__(self, dead):
        self.dead = dead
        self.sent = []

    def __call__(self, method, path, form, auth, **_options):
        headers = {}
        auth.apply(method, headers)
        self.sent.append((method, headers['Authorization']))
        if any(token in headers['Authorization'] for token in self.dead):
            raise AuthenticationFailed(401, 'authentication failure')
        return api.Reply({'ok': 1}, {})


def client_with(source, dead):
    client = api.Client('pve', ['m:1'], source)
    client.send = Refusing(dead)
    return client


@pytest.mark.parametrize('method', ['GET', 'PUT'])
def test_a_401_on_a_cached_token_re_mints_once_and_retries(tmp_path, method):
    bao, clock = FakeBao(), Clock()
    dynamic(tmp_path, bao, clock).credential('provision')  # an earlier task left this lease in the cache
    source = dynamic(tmp_path, bao, clock)
    client = client_with(source, dead=['creds/provision-1='])
    assert client.request(method, '/pools', role='provision').data == {'ok': 1}
    assert len(bao.mints) == 2
    assert len(client.send.sent) == 2


def test_a_401_on_a_fresh_token_is_not_retried(tmp_path):
    bao = FakeBao()
    client = client_with(dynamic(tmp_path, bao), dead=['hf@pve'])
    with pytest.raises(AuthenticationFailed):
        client.request('GET', '/pools', role='read')
    assert len(bao.mints) == 1 and len(client.send.sent) == 1


def test_lease_knows_its_margin():
    assert Lease('t', 's', 1061.0).usable(1000.0) is True
    assert Lease('t', 's', 1060.0).usable(1000.0) is False
    assert Lease('t', 's', None).usable(1000.0) is False


def lease_files(tmp_path):
    directory = tmp_path / 'cache'
    return [directory / name for name in os.listdir(str(directory)) if name.startswith('lease-')
            and name.endswith('.json')]


def planted(tmp_path, how):
    """Mint once, then spoil the cached lease file ``how``; a second task must mint again and replace it."""
    bao = FakeBao()
    first = dynamic(tmp_path, bao).credential('read')
    (path,) = lease_files(tmp_path)
    if how == 'corrupt':
        path.write_text('{not json')
    elif how == 'too open':
        path.chmod(0o644)
    elif how == 'foreign':
        os.chown(str(path), 65534, 65534)
    elif how == 'link':
        target = tmp_path / 'elsewhere.json'
        target.write_text(path.read_text())
        target.chmod(0o600)
        path.unlink()
        path.symlink_to(target)
    second = dynamic(tmp_path, bao).credential('read')
    return bao, first, second, path


@pytest.mark.parametrize('how', ['corrupt', 'too open', 'foreign', 'link'])
def test_a_spoiled_lease_file_is_never_trusted_and_is_replaced(tmp_path, how):
    if how == 'foreign' and os.getuid() != 0:
        pytest.skip('changing a file to another owner needs root')
    bao, first, second, path = planted(tmp_path, how)
    assert len(bao.mints) == 2 and second != first
    info = os.lstat(str(path))
    assert stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) == 0o600
    # the replacement is trusted again: a third task mints nothing
    assert dynamic(tmp_path, bao).credential('read') == second and len(bao.mints) == 2


def test_a_cache_directory_of_another_user_is_refused(tmp_path):
    if os.getuid() != 0:
        pytest.skip('changing a directory to another owner needs root')
    directory = tmp_path / 'cache'
    directory.mkdir(mode=0o700)
    os.chown(str(directory), 65534, 65534)
    with pytest.raises(CredentialError, match='is not a private directory of this user'):
        dynamic(tmp_path).credential('read')
