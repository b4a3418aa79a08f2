"""Credentials from a real OpenBao server: KV v2, policies, AppRole and TLS, through ansible-playbook."""

import pytest

from openbao import OpenBaoServer
from ports import free_port

KV_PATH = 'proxmox/sim'
READ_POLICY = 'path "secret/data/proxmox/*" { capabilities = ["read"] }'


@pytest.fixture(scope='module')
def bao():
    with OpenBaoServer(tls=True) as server:
        client = server.client()
        client.sys.create_or_update_policy('proxmox-read', READ_POLICY)
        client.sys.enable_auth_method('approle')
        client.write('auth/approle/role/ansible', token_policies='proxmox-read', token_ttl='10m')
        yield server


@pytest.fixture
def kv_secret(bao, sim):
    """The simulator's root token, stored in KV v2 the way an operator would."""
    bao.client().secrets.kv.v2.create_or_update_secret(
        path=KV_PATH, mount_point='secret', secret={'token_id': sim.token_id, 'secret': sim.token_secret})
    return KV_PATH


def bao_defaults(sim, bao, **options):
    defaults = {'api_host': sim.members, 'ca_path': sim.ca_path, 'bao_addr': bao.addr, 'bao_ca_path': bao.ca_path}
    defaults.update(options)
    return defaults


POOL = [{'homeflare.proxmox.pool': {'poolid': 'lab', 'comment': 'from OpenBao'}}]


def test_kv_secret_with_a_token(sim, bao, kv_secret, playbook):
    run = playbook(POOL, defaults=bao_defaults(sim, bao, bao_token=bao.root_token, bao_kv_path=kv_secret),
                   verbosity=4)
    assert run.rc == 0, run
    assert run.result()['changed'] is True
    assert {entry['token_id'] for entry in sim.log} == {sim.token_id}
    for secret in (sim.token_secret, bao.root_token):
        assert secret not in run.output


def test_approle_login(sim, bao, kv_secret, playbook):
    client = bao.client()
    role_id = client.read('auth/approle/role/ansible/role-id')['data']['role_id']
    secret_id = client.write('auth/approle/role/ansible/secret-id')['data']['secret_id']
    run = playbook(POOL, defaults=bao_defaults(sim, bao, bao_approle_role_id=role_id, bao_approle_secret_id=secret_id,
                                               bao_kv_path=kv_secret), verbosity=4)
    assert run.rc == 0, run
    assert secret_id not in run.output and sim.token_secret not in run.output


def test_a_token_without_read_on_the_path_gets_a_clear_error(sim, bao, kv_secret, playbook):
    weak = bao.client().auth.token.create(policies=['default'], ttl='10m')['auth']['client_token']
    sim.clear_log()
    run = playbook(POOL, defaults=bao_defaults(sim, bao, bao_token=weak, bao_kv_path=kv_secret))
    assert run.rc != 0
    message = run.failed[0]['result']['msg']
    assert 'reading KV secret secret/proxmox/sim failed: permission denied' in message
    assert weak not in run.output
    assert sim.log == []


def test_a_kv_secret_without_token_fields_is_refused(sim, bao, playbook):
    bao.client().secrets.kv.v2.create_or_update_secret(path='proxmox/broken', mount_point='secret',
                                                       secret={'token_id': sim.token_id})
    run = playbook(POOL, defaults=bao_defaults(sim, bao, bao_token=bao.root_token, bao_kv_path='proxmox/broken'))
    assert run.rc != 0
    assert 'holds no secret' in run.failed[0]['result']['msg']
    assert sim.log == []


def test_openbao_tls_needs_the_right_ca(sim, bao, kv_secret, playbook):
    run = playbook(POOL, defaults=bao_defaults(sim, bao, bao_token=bao.root_token, bao_kv_path=kv_secret,
                                               bao_ca_path=sim.ca_path))
    assert run.rc != 0
    assert 'TLS certificate of OpenBao not trusted' in run.failed[0]['result']['msg']


def test_environment_supplies_address_token_and_ca(sim, bao, kv_secret, playbook):
    defaults = {'api_host': sim.members, 'ca_path': sim.ca_path, 'bao_kv_path': kv_secret}
    env = {'BAO_ADDR': bao.addr, 'BAO_TOKEN': bao.root_token, 'BAO_CACERT': bao.ca_path,
           'VAULT_ADDR': 'https://127.0.0.1:%d' % free_port(), 'VAULT_TOKEN': 'wrong'}
    run = playbook(POOL, defaults=defaults, env=env)
    assert run.rc == 0, run


def test_unreachable_openbao_names_the_address(sim, bao, playbook):
    address = 'https://127.0.0.1:%d' % free_port()
    run = playbook(POOL, defaults=bao_defaults(sim, bao, bao_addr=address, bao_token='s.unused-token-x', bao_kv_path=KV_PATH))
    assert run.rc != 0
    assert 'OpenBao at %s' % address in run.failed[0]['result']['msg']
    assert 'unreachable' in run.failed[0]['result']['msg']


def test_sealed_openbao_says_so(sim, playbook):
    with OpenBaoServer() as sealed:
        sealed.client().sys.seal()
        run = playbook(POOL, defaults={'api_host': sim.members, 'ca_path': sim.ca_path, 'bao_addr': sealed.addr,
                                       'bao_token': sealed.root_token, 'bao_kv_path': KV_PATH})
    assert run.rc != 0
    assert 'sealed' in run.failed[0]['result']['msg']


def test_lookup_reads_a_kv_secret_on_the_controller(sim, bao, kv_secret, playbook):
    lookup = "{{ lookup('homeflare.proxmox.token', bao_addr='%s', bao_token='%s', bao_ca_path='%s', bao_kv_path='%s') }}" \
             % (bao.addr, bao.root_token, bao.ca_path, kv_secret)
    defaults = {'api_host': sim.members, 'ca_path': sim.ca_path, 'api_token_id': '{{ pve_token.token_id }}',
                'api_token_secret': '{{ pve_token.secret }}'}
    run = playbook(POOL, defaults=defaults, play_extra={'vars': {'pve_token': lookup}}, verbosity=4)
    assert run.rc == 0, run
    assert {entry['token_id'] for entry in sim.log} == {sim.token_id}
    assert sim.token_secret not in run.output and bao.root_token not in run.output
