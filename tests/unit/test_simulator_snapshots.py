"""The simulator's guest snapshots (tests/simulator/pve/handlers/snapshots.py) over real HTTPS: create, the
reserved names, a name in use, the description's PUT and GET, delete with the parent chain re-linked, rollback,
and the container's schema without ``vmstate``, in qemu-server's and pve-container's words.

Run: python -m pytest tests/unit/test_simulator_snapshots.py -q
"""

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import
from simulator.pve.handlers.guests import add_guest, add_snapshot  # noqa: E402

VM = "/nodes/node1/qemu/150"
CT = "/nodes/node1/lxc/151"


@pytest.fixture(autouse=True)
def guests(sim):
    with sim.state.lock:
        sim.state.guests.clear()
    add_guest(sim.state, "qemu", 150, "node1", config={"name": "vm150", "scsi0": "local-lvm:2", "memory": 1024})
    add_guest(sim.state, "lxc", 151, "node1", config={"hostname": "ct151", "rootfs": "local-lvm:2"})
    yield


def ok(sim, method, path, form=None):
    status, body = sim.request(method, path, form)
    assert status == 200, (method, path, form, body)
    return body["data"]


def exitstatus(sim, upid):
    status = ok(sim, "GET", "/nodes/node1/tasks/%s/status" % upid)
    assert status["status"] == "stopped"
    return status["exitstatus"]


def names(sim, base):
    return dict((row["name"], row) for row in ok(sim, "GET", base + "/snapshot"))


@pytest.mark.parametrize("base", [VM, CT])
def test_a_snapshot_is_taken_described_and_listed(sim, base):
    upid = ok(sim, "POST", base + "/snapshot", {"snapname": "before-upgrade", "description": "first"})
    assert exitstatus(sim, upid) == "OK"
    assert (":qmsnapshot:" if "qemu" in base else ":vzsnapshot:") in upid
    listed = names(sim, base)
    assert listed["current"]["parent"] == "before-upgrade"
    assert listed["before-upgrade"]["description"].rstrip("\n") == "first"
    assert listed["before-upgrade"]["snaptime"] > 0
    ok(sim, "PUT", base + "/snapshot/before-upgrade/config", {"description": "second"})
    config = ok(sim, "GET", base + "/snapshot/before-upgrade/config")
    assert config["description"].rstrip("\n") == "second" and "digest" not in config
    assert ok(sim, "GET", base + "/snapshot/before-upgrade") == [{"cmd": "rollback"}, {"cmd": "config"}]


@pytest.mark.parametrize("base", [VM, CT])
def test_a_name_in_use_fails_the_task_and_current_is_refused(sim, base):
    ok(sim, "POST", base + "/snapshot", {"snapname": "daily"})
    upid = ok(sim, "POST", base + "/snapshot", {"snapname": "daily"})
    assert exitstatus(sim, upid) == "snapshot name 'daily' already used"
    status, body = sim.request("POST", base + "/snapshot", {"snapname": "current"})
    assert status == 500 and body["message"] == "unable to use snapshot name 'current' (reserved name)\n"


def test_reserved_names_differ_by_type_and_a_container_takes_no_vmstate(sim):
    status, body = sim.request("POST", VM + "/snapshot", {"snapname": "Pending"})
    assert status == 500 and "'pending' (reserved name)" in body["message"]
    status, body = sim.request("POST", CT + "/snapshot", {"snapname": "vzdump"})
    assert status == 500 and "'vzdump' (reserved name)" in body["message"]
    status, body = sim.request("POST", CT + "/snapshot", {"snapname": "x1", "vmstate": 1})
    assert status == 400 and "vmstate" in body["errors"], body


def test_a_missing_snapshot_fails_its_task_and_its_config_read(sim):
    upid = ok(sim, "DELETE", VM + "/snapshot/nope")
    assert exitstatus(sim, upid) == "snapshot 'nope' does not exist"
    status, body = sim.request("GET", CT + "/snapshot/nope/config")
    assert status == 500 and body["message"] == "snapshot 'nope' does not exist\n"
    status, body = sim.request("PUT", CT + "/snapshot/nope/config", {"description": "x"})
    assert status == 500 and body["message"] == "snapshot 'nope' does not exist\n"


def test_a_delete_relinks_the_parent_chain(sim):
    for name, when in (("s1", 1000), ("s2", 2000), ("s3", 3000)):
        add_snapshot(sim.state, 150, name, snaptime=when)
    assert exitstatus(sim, ok(sim, "DELETE", VM + "/snapshot/s2")) == "OK"
    listed = names(sim, VM)
    assert sorted(listed) == ["current", "s1", "s3"]
    assert listed["s3"]["parent"] == "s1" and listed["current"]["parent"] == "s3"


def test_a_rollback_stops_the_guest_and_restores_the_snapshots_config(sim):
    add_snapshot(sim.state, 150, "clean", snaptime=1000)
    ok(sim, "PUT", VM + "/config", {"memory": 4096})
    sim.state.guests[150]["status"] = "running"
    assert exitstatus(sim, ok(sim, "POST", VM + "/snapshot/clean/rollback")) == "OK"
    guest = sim.state.guests[150]
    assert guest["config"]["memory"] == "1024" and guest["config"]["parent"] == "clean"
    assert guest["status"] == "stopped"
    assert exitstatus(sim, ok(sim, "POST", VM + "/snapshot/clean/rollback", {"start": 1})) == "OK"
    assert sim.state.guests[150]["status"] == "running"
