"""GET /nodes/{node}/storage (tests/simulator/pve/handlers/storage_status.py, pve-storage Status.pm index over
Storage.pm storage_info) over real HTTPS: each storage's state on the node, the filters, the privilege filter.
Run: python -m pytest tests/unit/test_simulator_storage_status.py -q
"""

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import

NFS = {"storage": "share", "type": "nfs", "server": "10.0.0.9", "export": "/export", "path": "/mnt/pve/share",
       "content": "iso,vztmpl", "nodes": "node2,node3"}


def rows(sim, node, **params):
    status, body = sim.request("GET", f"/nodes/{node}/storage", params or None)
    assert status == 200, body
    return {row["storage"]: row for row in body["data"]}


def test_each_storage_with_its_state_on_the_node(sim):
    status, body = sim.request("POST", "/storage", NFS)
    assert status == 200, body
    on1, on2 = rows(sim, "node1"), rows(sim, "node2")
    assert sorted(on1) == ["local", "local-lvm", "share"]
    local = on1["local"]
    assert (local["type"], local["content"], local["shared"], local["enabled"], local["active"]) == (
        "dir", "backup,iso,vztmpl", 0, 1, 1)
    assert local["total"] > 0 and local["used"] > 0 and local["avail"] == local["total"] - local["used"]
    assert 0 < local["used_fraction"] < 1
    # a storage restricted to other nodes: listed, neither enabled nor active, no size
    assert (on1["share"]["enabled"], on1["share"]["active"], on1["share"]["total"], on1["share"]["shared"]) == (
        0, 0, 0, 1)
    assert "used_fraction" not in on1["share"]
    assert (on2["share"]["enabled"], on2["share"]["active"]) == (1, 1)


def test_the_filters(sim):
    sim.request("POST", "/storage", NFS)
    assert sorted(rows(sim, "node1", content="images")) == ["local-lvm"]
    # content keeps only storages enabled on the node
    assert sorted(rows(sim, "node1", content="iso")) == ["local"]
    assert sorted(rows(sim, "node2", content="iso")) == ["local", "share"]
    assert sorted(rows(sim, "node2", storage="share")) == ["share"]
    assert sorted(rows(sim, "node2", target="node3")) == ["share"]
    status, body = sim.request("GET", "/nodes/node1/storage", {"storage": "nowhere"})
    assert status == 400 and body["errors"] == {"storage": "No such storage."}, body
    sim.request("PUT", "/storage/local", {"disable": "1"})
    assert "local" not in rows(sim, "node1", enabled="1") and rows(sim, "node1")["local"]["enabled"] == 0


def test_only_the_storages_the_caller_may_audit(sim):
    sim.request("POST", "/access/users", {"userid": "viewer@pve"})
    status, body = sim.request("POST", "/access/users/viewer@pve/token/ro", {"privsep": "0"})
    assert status == 200, body
    token = ("viewer@pve!ro", body["data"]["value"])
    sim.request("PUT", "/access/acl", {"path": "/storage/local", "users": "viewer@pve", "roles": "PVEAuditor"})
    status, body = sim.request("GET", "/nodes/node1/storage", token=token)
    assert status == 200 and [row["storage"] for row in body["data"]] == ["local"], body
