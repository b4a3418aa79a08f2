"""examples/guests.yml against the simulator (issue 25's "done when"): a PCI mapping, a pool, a VM from scratch with
SSH keys (a comment with spaces and parentheses), a static address, DNS, the mapped GPU and its pool, a snapshot
with ``keep`` and a backup now.

--check before the first run plans every step and writes nothing → the run makes each once → the second run makes
zero writes (the backup is younger than a day) → drift made through the API for each new option (the keys, the DNS
servers, the GPU, the pool, the mapping's entries, the snapshot's description) is named by ``--check --diff`` with
nothing written, and one run repairs it.
"""

import os

import yaml

from conftest import REPO
from test_guest_cloudinit import ECDSA, uri_escape
from test_matrix import api

MAPPING, POOL, VM, SNAPSHOT, BACKUP = (
    'The GPU, as a cluster-wide PCI mapping', 'The pool the web guests belong to',
    'The VM, with cloud-init, the mapped GPU and its pool',
    'A snapshot before the upgrade, the newest three of the series kept',
    'A backup now, unless one is younger than a day')


def example():
    with open(os.path.join(REPO, 'examples', 'guests.yml')) as handle:
        return yaml.safe_load(handle)[0]


def guests(sim, playbook, check=False, diff=False):
    play = example()
    sim.clear_log()
    run = playbook(play['tasks'], check=check, diff=diff, play_extra={'vars': play['vars']})
    assert run.rc == 0 and not run.failed, [line["result"].get("msg") for line in run.failed]
    return dict((line['task'], line['result']) for line in run.results)


def test_the_guests_example_builds_adopts_and_names_drift(sim, playbook):
    api(sim, [('POST', '/pools', {'poolid': 'other'})])
    results = guests(sim, playbook, check=True, diff=True)
    assert all(results[name]['changed'] for name in (MAPPING, POOL, VM, BACKUP)), results
    assert results[SNAPSHOT]['changed'] and sim.writes() == []
    # what an earlier task creates is a warning in a check run (a real run refuses a mapping or guest that is missing)
    for name, missing in ((VM, "the PCI mapping 'gpu' does not exist"), (SNAPSHOT, 'vmid 400 is no guest')):
        assert any(missing in warning and 'check mode' in warning for warning in results[name]['warnings']), name

    results = guests(sim, playbook)
    assert all(result['changed'] for result in results.values()), results
    with sim.state.lock:
        config = dict(sim.state.guests[400]['config'])
        pools = dict((poolid, set(pool['vms'])) for poolid, pool in sim.state.pools.items())
    assert config['hostpci0'] == 'mapping=gpu,pcie=1' and '%28' in config['sshkeys'], config
    assert config['ipconfig0'] == 'ip=192.0.2.40/24,gw=192.0.2.1' and config['nameserver'] == '192.0.2.53'
    assert pools['web'] == {'400'}
    assert list(results[BACKUP]['volumes']) == ['400']

    results = guests(sim, playbook)
    assert not [name for name, result in results.items() if result['changed']], results
    assert sim.writes() == []

    # drift through the API, one per new option
    api(sim, [('PUT', '/nodes/node1/qemu/400/config', {
        'sshkeys': uri_escape(ECDSA), 'nameserver': '192.0.2.54', 'hostpci0': 'mapping=gpu'}),
        ('PUT', '/pools', {'poolid': 'other', 'vms': '400', 'allow-move': 1}),
        ('PUT', '/cluster/mapping/pci/gpu', {'map': ['node=node1,path=0000:02:00.0,id=10de:1eb8']}),
        ('PUT', '/nodes/node1/qemu/400/snapshot/pre-upgrade-1/config', {'description': 'edited'})])
    results = guests(sim, playbook, check=True, diff=True)
    assert sorted(results[VM]['plan']['changed']) == ['hostpci0', 'nameserver', 'pool', 'sshkeys'], results[VM]
    assert results[MAPPING]['plan']['changed'] == ['map']
    assert results[SNAPSHOT]['plan']['changed'] == ['description']
    assert not results[POOL]['changed'] and not results[BACKUP]['changed']
    assert sim.writes() == []

    guests(sim, playbook)
    results = guests(sim, playbook)
    assert not [name for name, result in results.items() if result['changed']], results
    assert sim.writes() == []
