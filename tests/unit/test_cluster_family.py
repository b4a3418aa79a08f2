"""The cluster family against a running cluster (the simulator's three-node ``simcluster``): adopted through the
task's connection alone, and the refusals that need no fresh nodes. Creating and joining fresh nodes is
tests/integration/test_day0_cluster.py.

Run: python -m pytest tests/unit/test_cluster_family.py -q
"""

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from collection_root import COLLECTIONS  # noqa: E402

if COLLECTIONS not in sys.path:
    sys.path.insert(0, COLLECTIONS)

from ansible_collections.homeflare.proxmox.plugins.module_utils import api  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import StaticToken  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import Refused  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.cluster import FAMILY  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import reconcile  # noqa: E402
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import


def client_of(sim):
    return api.Client('pve', sim.members, StaticToken(sim.token_id, sim.token_secret), ca_path=sim.ca_path)


def params(*members, **extra):
    return dict(dict(name='simcluster', members=[dict(dict(links=[], votes=None, nodeid=None, api_host=None), **m)
                                                 for m in members],
                     join_password=None, quorum_timeout=60, task_timeout=120), **extra)


NODES = [{'node': 'node%d' % n} for n in (1, 2, 3)]


def test_a_running_cluster_is_adopted_through_the_connection_with_two_reads(sim):
    sim.clear_log()
    result = reconcile(client_of(sim), FAMILY, params(*NODES))
    assert result['plan'] == {'read': 'found', 'action': 'none', 'changed': []}
    assert result['object'] == {'name': 'simcluster', 'members': ['node1', 'node2', 'node3'], 'quorate': True}
    assert [entry['path'] for entry in sim.log] == ['/cluster/status', '/cluster/config/nodes']
    # the links, votes and node ids corosync.conf holds are what a declaration may name
    same = [dict(node, links=['127.0.0.1'], votes=1, nodeid=index + 1) for index, node in enumerate(NODES[:1])]
    assert reconcile(client_of(sim), FAMILY, params(*(same + NODES[1:])))['changed'] is False


@pytest.mark.parametrize('member, words', [
    ({'node': 'node1', 'links': ['10.9.9.9']}, "links ['127.0.0.1'] (declared ['10.9.9.9'])"),
    ({'node': 'node1', 'votes': 2}, 'votes 1 (declared 2)'),
])
def test_a_change_to_corosync_conf_is_refused(sim, member, words):
    with pytest.raises(Refused, match='edit /etc/pve/corosync.conf') as caught:
        reconcile(client_of(sim), FAMILY, params(member, *NODES[1:]), check_mode=True)
    assert words in str(caught.value)
    assert sim.writes() == []


def test_an_undeclared_member_and_a_join_without_its_address_are_refused(sim):
    with pytest.raises(Refused, match=r"member\(s\) node3 that the task does not declare.*pvecm delnode node3"):
        reconcile(client_of(sim), FAMILY, params(*NODES[:2]), check_mode=True)
    with pytest.raises(Refused, match="another cluster|not 'simcluster'|node4"):
        reconcile(client_of(sim), FAMILY, params(*(NODES + [{'node': 'node4'}])), check_mode=True)
    assert sim.writes() == []
