"""The day-0 families through ``homeflare.proxmox.declare``: one task holding every one of them, with a root@pam
password login (the ACME account methods are root@pam's alone), on the simulator's running cluster.

The objects are each family group's own matrix objects (test_day0_*.MATRIX), and the cluster as it runs. check-mode
writes nothing → one run writes every object → a re-run matches every object with zero writes → drift made behind
the task's back is named field by field in check mode, nothing written → one run repairs it → again zero writes.
"""

from conftest import connection
from test_day0_apt_families import MATRIX as APT, prepare as prepare_apt
from test_day0_certificate_families import MATRIX as CERTIFICATES, call, prepare as prepare_certificates
from test_day0_node_families import MATRIX as NODE
from test_storage_hw_families import as_root

from ansible_collections.homeflare.proxmox.plugins.module_utils.registry import ORDER

MATRIX = dict(APT, **NODE)
MATRIX.update(CERTIFICATES)
MATRIX['cluster'] = dict(args={'name': 'simcluster', 'members': [{'node': 'node%d' % n} for n in (1, 2, 3)]},
                         drift=[], drifted={}, absent=None)
MODULES = [module for module in ORDER if module in MATRIX]


def declare(sim, playbook, check=False, diff=False):
    objects = dict((module, [MATRIX[module]['args']]) for module in MODULES)
    run = playbook([{'name': 'Declare day 0', 'homeflare.proxmox.declare': {'objects': objects}}], check=check,
                   diff=diff, defaults=as_root(sim, connection(sim)))
    assert run.rc == 0, run
    return run, dict((entry['module'], entry) for entry in run.result()['results'])


def test_every_day0_family_through_declare(sim, playbook):
    # every day-0 family is here
    assert MODULES == list(ORDER[:ORDER.index('realm')])
    prepare_apt(sim)
    prepare_certificates(sim)
    sim.clear_log()
    run, results = declare(sim, playbook, check=True)
    for module in MODULES:
        expected = 'none' if module == 'cluster' else (
            'update' if MATRIX[module]['absent'] is None else 'create')
        assert results[module]['plan']['action'] == expected, (module, results[module])
    assert sim.writes() == []

    run, results = declare(sim, playbook)
    assert all(results[module]['plan']['action'] != 'none' for module in MODULES if module != 'cluster'), results
    sim.clear_log()
    run, results = declare(sim, playbook)
    for module in MODULES:
        assert results[module]['plan']['action'] == 'none', (module, results[module])
    assert sim.writes() == []

    for module in MODULES:
        call(sim, MATRIX[module]['drift'])
    sim.clear_log()
    run, results = declare(sim, playbook, check=True, diff=True)
    for module in MODULES:
        assert sorted(results[module]['plan']['changed']) == sorted(MATRIX[module]['drifted']), (module, results[module])
    assert sim.writes() == []
    declare(sim, playbook)
    sim.clear_log()
    run, results = declare(sim, playbook)
    assert all(results[module]['plan']['action'] == 'none' for module in MODULES), results
    assert sim.writes() == []
