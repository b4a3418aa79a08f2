"""Tokens minted from a dynamic secrets mount (the simulator serves the PVE credential engine).

Counts are read from the simulated cluster: each mint is a token in user.cfg.
"""

import glob
import json
import os

import pytest

from conftest import EXECUTION_PATHS

HOSTS = ['member%d' % index for index in range(1, 6)]


def dynamic_defaults(sim, **options):
    defaults = {'api_host': sim.members, 'ca_path': sim.ca_path, 'bao_addr': sim.bao_addr,
                'bao_token': sim.bao_token, 'bao_ca_path': sim.ca_path, 'bao_creds_mount': sim.bao_mount}
    defaults.update(options)
    return defaults


def pools(count, comment='minted'):
    return [{'name': 'Pool %d' % index,
             'homeflare.proxmox.pool': {'poolid': 'p{{ inventory_hostname }}-%d' % index, 'comment': comment}}
            for index in range(count)]


# Tasks per host: 50 tasks in all on the controller path; fewer on the slower module path, where
# 15 tasks on 5 forks already race for the same lease.
TASKS_PER_HOST = {'controller': 10, 'module': 3}


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_many_tasks_on_five_forks_mint_one_token_per_role(sim, playbook, path):
    count = TASKS_PER_HOST[path]
    run = playbook(pools(count), defaults=dynamic_defaults(sim), hosts=HOSTS, forks=5, env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    assert len([line for line in run.results if line['result'].get('changed')]) == count * len(HOSTS)
    assert len(sim.minted('read')) == 1 and len(sim.minted('provision')) == 1

    # a second run within the lease mints none, even with writes to make
    second = playbook(pools(count, comment='changed'), defaults=dynamic_defaults(sim), hosts=HOSTS, forks=5,
                      env=EXECUTION_PATHS[path])
    assert second.rc == 0, second
    assert len([line for line in second.results if line['result'].get('changed')]) == count * len(HOSTS)
    assert len(sim.minted()) == 2


def test_reads_use_the_read_role_and_writes_the_provision_role(sim, playbook):
    run = playbook(pools(1), defaults=dynamic_defaults(sim))
    assert run.rc == 0, run
    (read_token,), (provision_token,) = sim.minted('read'), sim.minted('provision')
    assert [(entry['method'], entry['token_id']) for entry in sim.log if entry['path'].startswith('/pools')] == [
        ('GET', read_token), ('POST', provision_token), ('GET', read_token)]


def test_one_role_for_both(sim, playbook):
    run = playbook(pools(2), defaults=dynamic_defaults(sim, bao_read_role='provision'))
    assert run.rc == 0, run
    assert sim.minted('read') == [] and len(sim.minted('provision')) == 1


def test_cache_off_mints_for_every_task(sim, playbook):
    run = playbook(pools(3), defaults=dynamic_defaults(sim, bao_lease_cache=False))
    assert run.rc == 0, run
    assert len(sim.minted('read')) == 3


def test_a_revoked_cached_token_is_minted_again_once(sim, playbook):
    assert playbook(pools(1), defaults=dynamic_defaults(sim)).rc == 0
    sim.revoke_token(sim.minted('provision')[0])
    sim.revoke_token(sim.minted('read')[0])
    run = playbook(pools(1, comment='repaired'), defaults=dynamic_defaults(sim))
    assert run.rc == 0, run
    assert run.result()['changed'] is True
    assert len(sim.minted('provision')) == 1 and len(sim.minted('read')) == 1  # the revoked ones are gone
    statuses = [entry['status'] for entry in sim.log if entry['form'].get('poolid') == 'plocalhost-0']
    assert 401 in statuses


def test_denied_and_sealed_mounts_fail_naming_mount_and_role(sim, playbook):
    sim.bao_fault('deny')
    run = playbook(pools(1), defaults=dynamic_defaults(sim))
    assert run.rc != 0
    message = run.failed[0]['result']['msg']
    assert 'minting a token at %s/creds/read failed: permission denied' % sim.bao_mount in message
    sim.bao_fault('sealed')
    run = playbook(pools(1), defaults=dynamic_defaults(sim))
    assert 'sealed' in run.failed[0]['result']['msg']
    sim.bao_fault(None)
    run = playbook(pools(1), defaults=dynamic_defaults(sim, bao_read_role='nosuchrole'))
    assert 'nosuchrole' in run.failed[0]['result']['msg']
    assert sim.minted() == [] and sim.writes() == []


def test_agent_address_sends_no_token(sim, playbook):
    defaults = dynamic_defaults(sim)
    del defaults['bao_addr'], defaults['bao_token']
    run = playbook(pools(1), defaults=defaults, env={'BAO_AGENT_ADDR': sim.bao_addr, 'BAO_TOKEN': sim.bao_token})
    assert run.rc != 0
    # BAO_TOKEN was valid, so the refusal proves no X-Vault-Token was sent (an agent adds its own).
    assert 'permission denied' in run.failed[0]['result']['msg']


def test_lookup_mints_once_for_the_whole_play(sim, playbook):
    lookup = "{{ lookup('homeflare.proxmox.token', bao_addr='%s', bao_token='%s', bao_ca_path='%s', " \
             "bao_creds_mount='%s', role='provision') }}" % (sim.bao_addr, sim.bao_token, sim.ca_path, sim.bao_mount)
    defaults = {'api_host': sim.members, 'ca_path': sim.ca_path, 'api_token_id': '{{ pve_token.token_id }}',
                'api_token_secret': '{{ pve_token.secret }}'}
    run = playbook(pools(5), defaults=defaults, play_extra={'vars': {'pve_token': lookup}}, verbosity=4)
    assert run.rc == 0, run
    assert sim.minted('read') == [] and len(sim.minted('provision')) == 1
    assert sim.bao_token not in run.output


def cached_secrets(tmp_path):
    secrets = []
    for path in glob.glob(str(tmp_path / 'run' / 'homeflare-proxmox' / 'lease-*.json')):
        with open(path) as handle:
            secrets.append(json.load(handle)['secret'])
    return secrets


@pytest.mark.compat
@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_no_secret_at_vvvv_from_any_module_or_the_lookup(sim, playbook, tmp_path, path):
    storage_password = 'Stor4ge-Passw0rd-q7'
    lookup = "{{ lookup('homeflare.proxmox.token', bao_addr='%s', bao_token='%s', bao_ca_path='%s', " \
             "bao_creds_mount='%s', role='provision') }}" % (sim.bao_addr, sim.bao_token, sim.ca_path, sim.bao_mount)
    tasks = [
        {'homeflare.proxmox.role': {'roleid': 'Ops', 'privs': ['Sys.Audit']}},
        {'homeflare.proxmox.group': {'groupid': 'ops'}},
        {'homeflare.proxmox.pool': {'poolid': 'ops'}},
        {'homeflare.proxmox.user': {'userid': 'op@pve', 'groups': ['ops']}},
        {'homeflare.proxmox.acl': {'path': '/pool/ops', 'type': 'group', 'ugid': 'ops', 'roleid': 'Ops'}},
        {'homeflare.proxmox.storage': {'storage': 'cifs1', 'type': 'cifs', 'server': 'nas.invalid', 'share': 'pve',
                                       'username': 'pve', 'password': storage_password}},
        {'homeflare.proxmox.declare': {'objects': {'storage': [{
            'storage': 'cifs2', 'type': 'cifs', 'server': 'nas.invalid', 'share': 'pve2', 'username': 'pve',
            'password': storage_password}]}}},
        {'name': 'Use the lookup', 'homeflare.proxmox.pool': {
            'poolid': 'via-lookup', 'api_token_id': '{{ looked_up.token_id }}',
            'api_token_secret': '{{ looked_up.secret }}', 'bao_creds_mount': None, 'bao_token': None}},
    ]
    run = playbook(tasks, defaults=dynamic_defaults(sim), verbosity=4, diff=True,
                   play_extra={'vars': {'looked_up': lookup}}, env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    secrets = cached_secrets(tmp_path)
    assert len(secrets) == 2  # the read and provision leases of the run
    for secret in secrets + [sim.bao_token, storage_password, sim.token_secret]:
        assert secret not in run.output
        assert secret not in json.dumps(run.results)
    for name in os.listdir(str(tmp_path / 'run' / 'homeflare-proxmox')):
        assert not any(secret in name for secret in secrets)


def test_namespace_is_sent_to_the_engine(sim, playbook):
    run = playbook(pools(1), defaults=dynamic_defaults(sim, bao_namespace='team-a'))
    assert run.rc == 0, run
    assert sim.bao_log and {entry['namespace'] for entry in sim.bao_log} == {'team-a'}
