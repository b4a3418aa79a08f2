"""The simulator's cluster creation and join (pve-cluster ClusterConfig.pm, Cluster/Setup.pm) and ``--fresh``.

Three freshly installed nodes answer each for itself; creating a cluster on one and joining the others follows
pve-cluster's checks and words; after a join the joined node answers for the whole cluster and keeps only what
lives outside /etc/pve.

Run: python -m pytest tests/unit/test_simulator_cluster_config.py -q
"""

import json
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from simulator import Simulator  # noqa: E402
from simulator.fixtures import SERVE_KEYS, serve_process  # noqa: E402


@pytest.fixture
def fresh():
    with Simulator(members=3, fresh=True) as simulator:
        yield simulator


def root(sim, method, path, form=None, member=0):
    status, body = sim.request(method, path, form, member=member, as_root=True)
    assert status == 200, (method, path, status, body)
    return body["data"]


def task(sim, upid, member):
    node = upid.split(":")[1]
    return root(sim, "GET", f"/nodes/{node}/tasks/{upid}/status", member=member)


def join_form(sim, link, password=None, fingerprint=None):
    info = root(sim, "GET", "/cluster/config/join", member=0)
    row = next(row for row in info["nodelist"] if row["name"] == info["preferred_node"])
    return {"hostname": row["pve_addr"], "fingerprint": fingerprint or row["pve_fp"],
            "password": password or sim.root_password, "link0": link}


def test_fresh_nodes_answer_each_for_itself(fresh):
    for i, node in enumerate(("node1", "node2", "node3")):
        status = root(fresh, "GET", "/cluster/status", member=i)
        assert status == [{"type": "node", "id": f"node/{node}", "name": node, "ip": f"192.0.2.{11 + i}",
                           "local": 1, "nodeid": 0, "online": 1, "level": ""}]
        assert [row["node"] for row in root(fresh, "GET", "/nodes", member=i)] == [node]
        # the other nodes are unknown here (proxyto node: a host name lookup)
        other = "node3" if node != "node3" else "node1"
        code, body = fresh.request("GET", f"/nodes/{other}/dns", member=i)
        assert code == 500 and "hostname lookup" in body["message"]
    code, body = fresh.request("GET", "/cluster/config/join", member=0, as_root=True)
    assert (code, body["message"]) == (424, "node is not in a cluster, no join info available!\n")
    assert root(fresh, "GET", "/cluster/config/nodes") == []
    assert root(fresh, "GET", "/cluster/config/apiversion") == 1


def test_create_and_join_make_one_quorate_cluster(fresh):
    # PVE lets only root@pam create or join: the method has no permissions, so a token is refused
    code, body = fresh.request("POST", "/cluster/config", {"clustername": "lab"})
    assert (code, body["message"]) == (403, "Permission check failed (user != root@pam)\n")
    upid = root(fresh, "POST", "/cluster/config", {"clustername": "lab", "link0": "192.0.2.11"})
    assert ":clustercreate:lab:root@pam:" in upid and task(fresh, upid, 0)["exitstatus"] == "OK"
    code, body = fresh.request("POST", "/cluster/config", {"clustername": "lab"}, as_root=True)
    assert (code, body["message"]) == (500, "cluster config '/etc/pve/corosync.conf' already exists\n")
    # a node setting kept outside /etc/pve survives the join; the node config in /etc/pve does not
    root(fresh, "PUT", "/nodes/node2/dns", {"search": "lab.example", "dns1": "192.0.2.53"}, member=1)
    root(fresh, "PUT", "/nodes/node2/config", {"description": "standalone notes"}, member=1)
    upid = root(fresh, "POST", "/cluster/config/join", join_form(fresh, "192.0.2.12"), member=1)
    assert ":clusterjoin::root@pam:" in upid and task(fresh, upid, 1)["exitstatus"] == "OK"
    status = root(fresh, "GET", "/cluster/status", member=1)
    assert status[0] == {"type": "cluster", "id": "cluster", "name": "lab", "nodes": 2, "version": 2, "quorate": 1}
    assert [(row["name"], row["nodeid"], row["local"]) for row in status[1:]] == [("node1", 1, 0), ("node2", 2, 1)]
    assert fresh.member_state(1) is fresh.member_state(0)
    assert root(fresh, "GET", "/nodes/node2/dns", member=0)["search"] == "lab.example"
    assert "description" not in root(fresh, "GET", "/nodes/node2/config", member=0)
    nodes = root(fresh, "GET", "/cluster/config/nodes", member=1)
    assert [(row["node"], row["ring0_addr"], row["quorum_votes"]) for row in nodes] == [
        ("node1", "192.0.2.11", 1), ("node2", "192.0.2.12", 1)]
    # a second join of the same node: it is in a cluster now
    upid = root(fresh, "POST", "/cluster/config/join", join_form(fresh, "192.0.2.12"), member=1)
    state = task(fresh, upid, 1)
    assert state["exitstatus"] == "Check if node may join a cluster failed!"
    log = [line["t"] for line in root(fresh, "GET", f"/nodes/node2/tasks/{upid}/log", member=1)]
    assert "* cluster config '/etc/pve/corosync.conf' already exists" in log


@pytest.mark.parametrize("change, status", [
    ({"password": "not-the-password"}, "401 authentication failure"),
    ({"fingerprint": ":".join(["AB"] * 32)}, "fingerprint '{fp}' not verified, abort!"),
    ({"hostname": "192.0.2.99"}, "500 Can't connect to 192.0.2.99:8006 (Name or service not known)"),
    ({"link0": "192.0.2.99"}, "Check if node may join a cluster failed!"),
])
def test_a_join_pve_refuses_fails_its_task_and_changes_nothing(fresh, change, status):
    root(fresh, "POST", "/cluster/config", {"clustername": "lab"})
    form = dict(join_form(fresh, "192.0.2.13"), **change)
    fingerprint = join_form(fresh, "192.0.2.13")["fingerprint"]
    upid = root(fresh, "POST", "/cluster/config/join", form, member=2)
    assert task(fresh, upid, 2)["exitstatus"] == status.format(fp=fingerprint)
    assert fresh.member_state(2) is not fresh.member_state(0)
    assert list(fresh.member_state(0).nodes) == ["node1"]


def test_a_node_holding_guests_is_refused(fresh):
    root(fresh, "POST", "/cluster/config", {"clustername": "lab"})
    with fresh.member_state(1).lock:
        fresh.member_state(1).guests[100] = {"type": "qemu", "node": "node2", "config": {}}
    upid = root(fresh, "POST", "/cluster/config/join", join_form(fresh, "192.0.2.12"), member=1)
    assert task(fresh, upid, 1)["exitstatus"] == "Check if node may join a cluster failed!"
    log = [line["t"] for line in root(fresh, "GET", f"/nodes/node2/tasks/{upid}/log", member=1)]
    assert "* this host already contains virtual guests" in log


def test_addnode_refuses_a_link_address_in_use_and_a_missing_link(fresh):
    root(fresh, "POST", "/cluster/config", {"clustername": "lab", "link0": "192.0.2.11"})
    with fresh.member_state(1).lock:  # node2 claims node1's address as its own
        fresh.member_state(1).nodes["node2"]["ip"] = "192.0.2.11"
    upid = root(fresh, "POST", "/cluster/config/join", join_form(fresh, "192.0.2.11"), member=1)
    assert task(fresh, upid, 1)["exitstatus"] == "Cluster join aborted!"
    log = [line["t"] for line in root(fresh, "GET", f"/nodes/node2/tasks/{upid}/log", member=1)]
    assert ("An error occurred on the cluster node: corosync: address '192.0.2.11' already used on link "
            "ring0_addr by node 'node1'") in log


def test_serve_fresh_adds_the_root_password(tmp_path):
    with serve_process(tmp_path, tmp_path / "requests.log", "--fresh") as proc:
        info = json.loads(proc.stdout.readline())
        assert set(info) == SERVE_KEYS | {"root_password"} and info["root_password"]
    with serve_process(tmp_path, tmp_path / "plain.log") as proc:
        assert set(json.loads(proc.stdout.readline())) == SERVE_KEYS
