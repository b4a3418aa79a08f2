"""The storage module's matrix over every storage type PVE 9 ships, on both execution paths.

One play per step holds one task per type: check-mode create writes nothing → create (secrets
stored apart from storage.cfg, never read back) → re-run adopts with zero writes → drift made
through the API → --check --diff names exactly the drifted field → a real run repairs with one
write per storage → state=absent removes every definition (and its secrets).
"""

import pytest

from conftest import EXECUTION_PATHS
from test_matrix import api

FINGERPRINT = ':'.join(['ab'] * 32)
TARGET = 'iqn.2003-01.org.example.san:pve'
# PVE wants the key file's JSON (proxmox-backup-client key create); `data` is the secret part.
KEY_DATA = 'cGJzLWVuY3J5cHRpb24ta2V5LWRhdGEtMQ=='
ENCRYPTION_KEY = '{"kdf": null, "data": "%s", "fingerprint": "aa:bb"}' % KEY_DATA

# type: (declared options, drift behind the module's back, the option that drift touches, secrets)
TYPES = {
    'btrfs': ({'path': '/srv/btrfs1', 'content': ['images', 'rootdir']}, {'content': 'images'}, 'content', {}),
    'cephfs': ({'monhost': '10.0.0.1 10.0.0.2', 'username': 'admin', 'fs_name': 'cephfs', 'content': ['backup']},
               {'fs-name': 'otherfs'}, 'fs_name', {'keyring': 'AQBcephfs-keyring-secret=='}),
    'cifs': ({'server': '10.0.0.5', 'share': 'pve', 'username': 'svc', 'domain': 'EXAMPLE', 'content': ['iso']},
             {'domain': 'OTHER'}, 'domain', {'password': 'cifs-secret-1'}),
    'dir': ({'path': '/srv/dir1', 'content': ['iso', 'backup'], 'prune_backups': 'keep-last=3'},
            {'prune-backups': 'keep-last=9'}, 'prune_backups', {}),
    'esxi': ({'server': 'esx1.example.org', 'username': 'root', 'skip_cert_verification': True},
             {'skip-cert-verification': '0'}, 'skip_cert_verification', {'password': 'esxi-secret-1'}),
    'iscsi': ({'portal': '10.0.0.9:3260', 'target': TARGET, 'disable': False}, {'disable': '1'}, 'disable', {}),
    'iscsidirect': ({'portal': '10.0.0.9', 'target': TARGET, 'disable': False}, {'disable': '1'}, 'disable', {}),
    'lvm': ({'vgname': 'vg1', 'content': ['images'], 'saferemove': True}, {'saferemove': '0'}, 'saferemove', {}),
    'lvmthin': ({'vgname': 'pve2', 'thinpool': 'data2', 'content': ['images', 'rootdir']}, {'content': 'images'},
                'content', {}),
    'nfs': ({'server': 'nas1.example.org', 'export': '/export/pve', 'content': ['backup'], 'options': 'vers=4.2'},
            {'options': 'vers=3'}, 'options', {}),
    'pbs': ({'server': 'pbs1.example.org', 'datastore': 'store1', 'username': 'backup@pbs', 'namespace': 'pve',
             'fingerprint': FINGERPRINT, 'port': 8007}, {'port': '8008'}, 'port',
            {'password': 'pbs-secret-1', 'encryption_key': ENCRYPTION_KEY}),
    'rbd': ({'pool': 'rbd', 'monhost': '10.0.0.1', 'username': 'admin', 'krbd': True, 'content': ['images']},
            {'krbd': '0'}, 'krbd', {'keyring': 'AQBrbd-keyring-secret=='}),
    'zfs': ({'portal': '10.0.0.9', 'target': TARGET, 'pool': 'tank', 'blocksize': '4k', 'iscsiprovider': 'LIO',
             'lio_tpg': 'tpg1', 'sparse': True}, {'lio_tpg': 'tpg2'}, 'lio_tpg', {}),
    'zfspool': ({'pool': 'tank/vm', 'sparse': True, 'content': ['images']}, {'sparse': '0'}, 'sparse', {}),
}
STORAGE_TYPES = sorted(TYPES)


def sid(kind):
    return 'st-%s' % kind


def declaration(kind, secrets=True):
    args, _drift, _field, hidden = TYPES[kind]
    declared = dict(args, storage=sid(kind), type=kind)
    if secrets:
        declared.update(hidden)
    return declared


def step(playbook, path, kinds, state='present', check=False, diff=False):
    tasks = []
    for kind in kinds:
        args = declaration(kind) if state == 'present' else {
            'storage': sid(kind), 'state': 'absent', 'confirm_removal': True}
        tasks.append({'name': kind, 'homeflare.proxmox.storage': args})
    run = playbook(tasks, check=check, diff=diff, env=EXECUTION_PATHS[path])
    assert run.rc == 0, [(line['task'], line['result'].get('msg')) for line in run.failed] or run
    return run, dict((line['task'], line['result']) for line in run.results)


def writes_to(sim, kind):
    return [entry for entry in sim.writes()
            if entry['path'] == '/storage/%s' % sid(kind) or entry['form'].get('storage') == sid(kind)]


def test_the_matrix_covers_every_type_pve_ships():
    from ansible_collections.homeflare.proxmox.plugins.module_utils.families.storage import TYPES as DECLARABLE
    assert STORAGE_TYPES == sorted(DECLARABLE)


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_every_storage_type(sim, playbook, path):
    # Every type is a row of the one storage family: the module path samples a third, the secret-holding cephfs,
    # esxi and pbs among them (the same code judges each, and each module start costs a process).
    kinds = STORAGE_TYPES if path == 'controller' else STORAGE_TYPES[1::3]
    secrets = [value for kind in kinds for value in TYPES[kind][3].values()] + [KEY_DATA]

    # check-mode create: nothing written
    run, results = step(playbook, path, kinds, check=True)
    assert all(results[kind]['plan']['action'] == 'create' for kind in kinds), results
    assert sim.writes() == []

    # create: one write each; secrets stored apart and never read back
    sim.clear_log()
    run, results = step(playbook, path, kinds)
    for kind in kinds:
        assert results[kind]['changed'] is True, (kind, results[kind])
        assert len(writes_to(sim, kind)) == 1, kind
        hidden = TYPES[kind][3]
        stored = sim.state.storage_secrets.get(sid(kind), {})
        assert sorted(stored) == sorted(key.replace('_', '-') for key in hidden), (kind, stored)
        status, view = sim.request('GET', '/storage/%s' % sid(kind))
        # PVE shows at most the key's fingerprint (pbs `encryption-key`), never a secret itself.
        assert status == 200 and not any(value in str(view) for value in list(hidden.values()) + [KEY_DATA]), view
    for secret in secrets:
        assert secret not in run.output and secret not in str(results)

    # re-run: adopted, zero writes
    sim.clear_log()
    run, results = step(playbook, path, kinds)
    for kind in kinds:
        assert results[kind]['changed'] is False and results[kind]['plan']['action'] == 'none', (kind, results[kind])
    assert sim.writes() == []

    # drift behind the module's back, named field by field in check mode, then repaired with one write
    for kind in kinds:
        api(sim, [('PUT', '/storage/%s' % sid(kind), TYPES[kind][1])])
    sim.clear_log()
    run, results = step(playbook, path, kinds, check=True, diff=True)
    for kind in kinds:
        assert results[kind]['plan']['changed'] == [TYPES[kind][2]], (kind, results[kind])
    assert sim.writes() == []
    run, results = step(playbook, path, kinds)
    for kind in kinds:
        assert results[kind]['changed'] is True and len(writes_to(sim, kind)) == 1, (kind, writes_to(sim, kind))
    sim.clear_log()
    run, results = step(playbook, path, kinds)
    assert not any(results[kind]['changed'] for kind in kinds) and sim.writes() == []

    # removal: every definition and its secrets go
    run, results = step(playbook, path, kinds, state='absent')
    for kind in kinds:
        assert results[kind]['plan']['action'] == 'delete', kind
        assert sid(kind) not in sim.state.storage and sid(kind) not in sim.state.storage_secrets
