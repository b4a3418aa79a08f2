"""Every cluster family of issue 8, the guests of issue 10 and their mappings and snapshots (issue 25), through
``homeflare.proxmox.declare``: one task holding them all.

The objects are those of each family group's own matrix (test_*_families.MATRIX), judged and written
in declare's dependency order: check-mode create writes nothing → one run creates every object →
a re-run matches every object with zero writes → drift made behind the task's back is named field by
field in check mode and repaired → state=absent removes every object that can be removed, in the
reverse order → again a no-op.
"""

from test_access_notify_families import MATRIX as ACCESS_NOTIFY, SETUP as ACCESS_NOTIFY_SETUP
from test_cluster_families import GUESTS as CLUSTER_GUESTS, MATRIX as CLUSTER, SETUP as CLUSTER_SETUP
from test_firewall_families import MATRIX as FIREWALL, SETUP as FIREWALL_SETUP
from test_guest_families import MATRIX as GUESTS_MATRIX, seed_guests
from test_ha_families import GUESTS as HA_GUESTS, MATRIX as HA
from test_hardware_mapping import MATRIX as MAPPING
from test_matrix import api
from test_snapshot_family import MATRIX as SNAPSHOT, SETUP as SNAPSHOT_SETUP

from ansible_collections.homeflare.proxmox.plugins.module_utils.registry import ORDER

MATRIX = dict(ACCESS_NOTIFY, **CLUSTER)
MATRIX.update(HA)
MATRIX.update(GUESTS_MATRIX)
MATRIX.update(MAPPING)
MATRIX.update(SNAPSHOT)
MATRIX.update((module, entry) for module, entry in FIREWALL.items() if module in ORDER)
MODULES = [module for module in ORDER if module in MATRIX]
REMOVABLE = [module for module in MODULES if MATRIX[module]['absent'] is not None]
# Guest 100 serves both the replication job (its ZFS disk) and the HA resource; 101 is the HA container.
GUESTS = {100: dict(HA_GUESTS[100], **CLUSTER_GUESTS[100]), 101: HA_GUESTS[101]}


# declare refuses create_missing (a new token's secret would be lost in its report): the token is made first
# (test_every_family_through_declare), with another comment, and declare adopts and updates it.
TOKEN_MADE_BEFORE = ('POST', '/access/users/ci@pve/token/deploy', {'comment': 'made by hand', 'privsep': '1'})


def declared(module, key):
    options = dict(MATRIX[module][key])
    options.pop('create_missing', None)
    return options


def declare(playbook, key, check=False, diff=False):
    modules = MODULES if key == 'args' else REMOVABLE
    objects = dict((module, [declared(module, key)]) for module in modules)
    run = playbook([{'name': 'Declare', 'homeflare.proxmox.declare': {'objects': objects}}], check=check, diff=diff)
    assert run.rc == 0, run
    return dict((entry['module'], entry) for entry in run.result()['results'])


def test_every_family_through_declare(sim, playbook):
    api(sim, ACCESS_NOTIFY_SETUP + CLUSTER_SETUP + FIREWALL_SETUP + SNAPSHOT_SETUP)
    with sim.state.lock:
        sim.state.guests.update(GUESTS)
    seed_guests(sim)
    # every declare family but the six of the foundation, the nine network ones (staged objects, their applies,
    # the SDN controller, IPAM and DNS server) and the eight storage hardware ones, which test_network_families,
    # test_sdn_evpn and test_storage_hw_families run through declare (or the cluster role), the backup server's
    # (test_pbs_families: a task of their own) and the day-0 ones before the realm (test_day0_declare.py), storage
    # content (test_content_families: its drift is an upload, and its declare test fetches on two nodes), backup, an
    # action (test_backup_family's declare test), the two SDN fabric families (staged: test_fabric_families runs them through declare with their apply) and
    # realm_sync, an action on a directory (test_realm_sync's declare test)
    assert len(MODULES) == len(ORDER) - 6 - 9 - 8 - len([module for module in ORDER if module.startswith('pbs_')]) - len(
        ORDER[:ORDER.index('realm')]) - 1 - 1 - 2 - 1

    api(sim, [TOKEN_MADE_BEFORE])
    sim.clear_log()
    results = declare(playbook, 'args', check=True)
    for module in MODULES:
        expected = 'update' if MATRIX[module]['absent'] is None or module == 'api_token' else 'create'
        assert results[module]['plan']['action'] == expected, (module, results[module])
    assert sim.writes() == []

    results = declare(playbook, 'args')
    assert all(results[module]['plan']['action'] != 'none' for module in MODULES), results
    sim.clear_log()
    results = declare(playbook, 'args')
    for module in MODULES:
        plan = dict((key, results[module]['plan'][key]) for key in ('read', 'action', 'changed'))
        assert plan == {'read': 'found', 'action': 'none', 'changed': []}, (module, results[module])
    assert sim.writes() == []

    for module in MODULES:
        api(sim, MATRIX[module]['drift'])
    sim.clear_log()
    results = declare(playbook, 'args', check=True, diff=True)
    for module in MODULES:
        assert sorted(results[module]['plan']['changed']) == sorted(MATRIX[module]['drifted']), (module, results[module])
    assert sim.writes() == []
    declare(playbook, 'args')
    sim.clear_log()
    results = declare(playbook, 'args')
    assert all(results[module]['plan']['action'] == 'none' for module in MODULES), results
    assert sim.writes() == []

    results = declare(playbook, 'absent')
    assert all(results[module]['plan']['action'] == 'delete' for module in REMOVABLE), results
    sim.clear_log()
    results = declare(playbook, 'absent')
    assert all(results[module]['plan']['action'] == 'none' for module in REMOVABLE), results
    assert sim.writes() == []
