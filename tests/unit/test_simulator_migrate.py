"""The simulator's migrations (tests/simulator/pve/handlers/migrate.py) over real HTTPS: POST .../{vmid}/migrate
(qemu and lxc) with PVE's checks before the fork and the migration's own refusals in the task, and HA's migrate,
which the CRM carries out after the answer.

Run: python -m pytest tests/unit/test_simulator_migrate.py -q
"""

import sys
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, ok, refused, sim  # noqa: E402,F401  pylint: disable=unused-import
from simulator.pve.handlers.guests import add_guest, add_snapshot  # noqa: E402

VM = {"name": "db1", "memory": "1024", "scsi0": "local-lvm:8", "net0": "virtio,bridge=vmbr0"}
CT = {"hostname": "web1", "ostype": "debian", "rootfs": "local-lvm:4", "net0": "name=eth0,bridge=vmbr0,ip=dhcp"}
NOT_FOUND = "Configuration file 'nodes/{node}/{dir}/{vmid}.conf' does not exist\n"


@pytest.fixture(autouse=True)
def clean(sim):
    """Every test starts without guests, volumes, HA or queued CRM commands, every node online, a quick CRM."""
    state = sim.state
    with state.lock:
        for table in (state.guests, state.volumes, state.ha_resources, state.ha_rules, state.ha_crm_commands):
            table.clear()
        state.storage.pop("fast", None)
        for node in state.nodes.values():
            node["online"] = 1
        state.ha_crm_delay = 0.1
    yield


def task(sim, upid):
    """(exitstatus, log lines) of a finished task."""
    node = upid.split(":")[1]
    status = ok(sim, "GET", f"/nodes/{node}/tasks/{upid}/status")
    assert status["status"] == "stopped", status
    lines = [line["t"] for line in ok(sim, "GET", f"/nodes/{node}/tasks/{upid}/log", {"limit": 0})]
    return status["exitstatus"], lines


def node_of(sim, vmid):
    with sim.state.lock:
        return sim.state.guests[vmid]["node"]


def status_of(sim, vmid):
    with sim.state.lock:
        return sim.state.guests[vmid]["status"]


def migrate(sim, kind, vmid, form, node="node1"):
    return sim.request("POST", f"/nodes/{node}/{kind}/{vmid}/migrate", form)


# -- QEMU -----------------------------------------------------------------------------------------------

def test_a_stopped_vm_migrates_offline_and_its_config_is_then_read_on_the_target_only(sim):
    add_guest(sim.state, "qemu", 100, "node1", config=VM)
    upid = ok(sim, "POST", "/nodes/node1/qemu/100/migrate", {"target": "node2"})
    assert upid.startswith("UPID:node1:") and ":qmigrate:100:" in upid
    exitstatus, lines = task(sim, upid)
    assert exitstatus == "OK", lines
    assert "found local disk 'local-lvm:vm-100-disk-0' (attached)" in lines
    assert node_of(sim, 100) == "node2" and status_of(sim, 100) == "stopped"
    assert ok(sim, "GET", "/nodes/node2/qemu/100/config")["scsi0"].startswith("local-lvm:vm-100-disk-0,")
    assert refused(sim, "GET", "/nodes/node1/qemu/100/config")[1] == NOT_FOUND.format(
        node="node1", dir="qemu-server", vmid=100)
    rows = [row for row in ok(sim, "GET", "/cluster/resources", {"type": "vm"}) if row["vmid"] == 100]
    assert [row["node"] for row in rows] == ["node2"]


def test_a_running_vm_needs_online_and_its_local_disks_need_with_local_disks(sim):
    add_guest(sim.state, "qemu", 100, "node1", config=VM, status="running")
    assert migrate(sim, "qemu", 100, {"target": "node2"}) == (
        500, {"data": None, "message": "can't migrate running VM without --online\n"})
    # the refusal of attached local disks comes from the migration itself: the task fails, nothing moves
    exitstatus, lines = task(sim, ok(sim, "POST", "/nodes/node1/qemu/100/migrate", {"target": "node2", "online": 1}))
    assert exitstatus == "migration aborted"
    assert ("can't migrate local disk 'local-lvm:vm-100-disk-0': can't live migrate attached local disks without "
            "with-local-disks option") in lines
    assert lines[-2].startswith("ERROR: migration aborted (duration ") and lines[-2].endswith(
        "Problem found while scanning volumes - can't migrate VM - check log"), lines
    assert node_of(sim, 100) == "node1"
    exitstatus, lines = task(sim, ok(sim, "POST", "/nodes/node1/qemu/100/migrate",
                                     {"target": "node2", "online": 1, "with-local-disks": 1}))
    assert exitstatus == "OK" and "starting online/live migration" in lines, lines
    assert node_of(sim, 100) == "node2" and status_of(sim, 100) == "running"


@pytest.mark.parametrize("form, answer", [
    ({"target": "node1"}, (400, "Parameter verification failed.\n", {"target": "target is local node."})),
    ({"target": "node9"}, (500, "no such cluster node 'node9'\n", None)),
    ({"target": "node2", "force": 1}, (400, "Parameter verification failed.\n",
                                       {"force": "Only root may use this option."})),
    ({"target": "node2", "targetstorage": "local"}, (500, "storage 'local' does not support vm images\n", None)),
    ({"target": "node2", "targetstorage": "1,local-lvm"}, (
        400, "Parameter verification failed.\n",
        {"targetstorage": "failed to parse storage map: identity mapping cannot be combined with other mappings"})),
])
def test_what_pve_checks_before_the_fork_is_answered_at_once(sim, form, answer):
    add_guest(sim.state, "qemu", 100, "node1", config=VM)
    assert refused(sim, "POST", "/nodes/node1/qemu/100/migrate", form) == answer
    assert node_of(sim, 100) == "node1"


def test_a_guest_is_migrated_from_the_node_it_lives_on_only(sim):
    add_guest(sim.state, "qemu", 100, "node2", config=VM)
    assert refused(sim, "POST", "/nodes/node1/qemu/100/migrate", {"target": "node3"})[1] == NOT_FOUND.format(
        node="node1", dir="qemu-server", vmid=100)
    with sim.state.lock:
        sim.state.guests[100]["lock"] = "backup"
    assert refused(sim, "POST", "/nodes/node2/qemu/100/migrate", {"target": "node3"})[1] == "VM is locked (backup)\n"


def test_a_linked_clone_a_snapshot_on_local_storage_and_an_offline_target_end_the_task(sim):
    add_guest(sim.state, "qemu", 9000, "node1", config=VM, template=True)
    add_guest(sim.state, "qemu", 101, "node1",
              config={"name": "clone", "scsi0": "local-lvm:base-9000-disk-0/vm-101-disk-0"})
    add_guest(sim.state, "qemu", 102, "node1", config=dict(VM, name="snapped"))
    add_snapshot(sim.state, 102, "before")
    add_guest(sim.state, "qemu", 103, "node1", config=dict(VM, name="plain"))
    exitstatus, lines = task(sim, ok(sim, "POST", "/nodes/node1/qemu/101/migrate", {"target": "node2"}))
    assert exitstatus == "migration aborted"
    assert lines[-2].endswith("Problem found while scanning volumes - can't migrate "
                              "'local-lvm:base-9000-disk-0/vm-101-disk-0' as it's a clone of 'base-9000-disk-0' at "
                              "/usr/share/perl5/PVE/QemuMigrate.pm line 586."), lines
    exitstatus, lines = task(sim, ok(sim, "POST", "/nodes/node1/qemu/9000/migrate", {"target": "node2"}))
    assert "can't migrate local disk 'local-lvm:base-9000-disk-0': referenced by linked clone(s)" in lines
    exitstatus, lines = task(sim, ok(sim, "POST", "/nodes/node1/qemu/102/migrate", {"target": "node2"}))
    assert "can't migrate local disk 'local-lvm:vm-102-disk-0': non-migratable snapshot exists" in lines
    with sim.state.lock:
        sim.state.nodes["node2"]["online"] = 0
    exitstatus, lines = task(sim, ok(sim, "POST", "/nodes/node1/qemu/103/migrate", {"target": "node2"}))
    assert exitstatus == "migration aborted" and lines[-2].endswith(
        "Can't connect to destination address using public key"), lines
    assert [node_of(sim, vmid) for vmid in (9000, 101, 102, 103)] == ["node1"] * 4


def test_a_storage_map_moves_the_local_volumes_to_the_target_storage(sim):
    with sim.state.lock:
        sim.state.storage["fast"] = {"type": "lvmthin", "thinpool": "fast", "vgname": "fast",
                                     "content": {"images", "rootdir"}}
    add_guest(sim.state, "qemu", 100, "node1", config=VM)
    exitstatus, lines = task(sim, ok(sim, "POST", "/nodes/node1/qemu/100/migrate",
                                     {"target": "node2", "targetstorage": "local-lvm:fast"}))
    assert exitstatus == "OK" and "mapped: local-lvm:vm-100-disk-0 => fast:vm-100-disk-0" in lines, lines
    assert ok(sim, "GET", "/nodes/node2/qemu/100/config")["scsi0"].startswith("fast:vm-100-disk-0,size=8G")
    with sim.state.lock:
        assert "vm-100-disk-0" not in sim.state.volumes["local-lvm"]


# -- LXC ------------------------------------------------------------------------------------------------

def test_a_running_container_migrates_in_restart_mode_only(sim):
    add_guest(sim.state, "lxc", 101, "node1", config=CT, status="running")
    assert migrate(sim, "lxc", 101, {"target": "node2"}) == (
        500, {"data": None, "message": "can't migrate running container without --online or --restart\n"})
    exitstatus, lines = task(sim, ok(sim, "POST", "/nodes/node1/lxc/101/migrate", {"target": "node2", "online": 1}))
    assert exitstatus == "migration aborted" and lines[-2].endswith(
        "lxc live migration is currently not implemented"), lines
    assert node_of(sim, 101) == "node1" and status_of(sim, 101) == "running"
    upid = ok(sim, "POST", "/nodes/node1/lxc/101/migrate", {"target": "node2", "restart": 1})
    assert ":vzmigrate:101:" in upid
    exitstatus, lines = task(sim, upid)
    assert exitstatus == "OK", lines
    assert lines.index("shutdown CT 101") < lines.index("start container on target node")
    assert "found local volume 'local-lvm:vm-101-disk-0' (in current VM config)" in lines
    assert node_of(sim, 101) == "node2" and status_of(sim, 101) == "running"
    assert ok(sim, "GET", "/nodes/node2/lxc/101/status/current")["status"] == "running"


def test_a_container_with_a_bind_mount_does_not_migrate(sim):
    guest = add_guest(sim.state, "lxc", 101, "node1", config=CT)
    with sim.state.lock:
        guest["config"]["mp0"] = "/srv/data,mp=/data"
    exitstatus, lines = task(sim, ok(sim, "POST", "/nodes/node1/lxc/101/migrate", {"target": "node2"}))
    assert exitstatus == "migration aborted" and lines[-2].endswith(
        "cannot migrate local bind mount point 'mp0'"), lines
    assert node_of(sim, 101) == "node1"


# -- HA -------------------------------------------------------------------------------------------------

def until(probe, timeout=3.0):
    deadline = time.monotonic() + timeout
    while not probe() and time.monotonic() < deadline:
        time.sleep(0.02)
    return probe()


def test_ha_answers_the_request_at_once_and_the_crm_moves_the_guest_afterwards(sim):
    add_guest(sim.state, "qemu", 100, "node1", config=VM, status="running")
    assert refused(sim, "POST", "/cluster/ha/resources/vm:100/migrate", {"node": "node2"})[:2] == (
        500, "resource 'vm:100' is not HA managed\n")
    ok(sim, "POST", "/cluster/ha/resources", {"sid": "vm:100"})
    with sim.state.lock:
        sim.state.ha_crm_delay = 0.3
    assert ok(sim, "POST", "/cluster/ha/resources/vm:100/migrate", {"node": "node2"}) == {
        "sid": "vm:100", "requested-node": "node2"}
    assert node_of(sim, 100) == "node1"  # queued: the CRM acts on its next round
    assert until(lambda: node_of(sim, 100) == "node2")
    assert status_of(sim, 100) == "running"  # online, with its local disks (PVEVM.pm migrate)
    with sim.state.lock:
        moved = [task for task in sim.state.tasks.values() if task.type == "qmigrate" and task.user == "root@pam"]
    assert [(task.node, task.id, task.exitstatus) for task in moved] == [("node1", "100", "OK")]  # the LRM's


def test_a_direct_migration_of_an_ha_guest_becomes_an_ha_request(sim):
    add_guest(sim.state, "lxc", 101, "node1", config=CT, status="running")
    ok(sim, "POST", "/cluster/ha/resources", {"sid": "ct:101"})
    upid = ok(sim, "POST", "/nodes/node1/lxc/101/migrate", {"target": "node3", "restart": 1})
    assert ":hamigrate:101:" in upid
    assert task(sim, upid) == ("OK", ["Requesting HA migration for CT 101 to node node3", "TASK OK"])
    assert until(lambda: node_of(sim, 101) == "node3")
    assert status_of(sim, 101) == "running"  # relocated: shut down, moved, started again by the CRM


def test_the_crm_ignores_a_request_to_an_offline_node_or_one_a_negative_affinity_blocks(sim):
    add_guest(sim.state, "qemu", 100, "node1", config=VM)
    add_guest(sim.state, "qemu", 102, "node3", config=dict(VM, name="other"))
    for sid in ("vm:100", "vm:102"):
        ok(sim, "POST", "/cluster/ha/resources", {"sid": sid})
    ok(sim, "POST", "/cluster/ha/rules", {"rule": "apart", "type": "resource-affinity", "resources": "vm:100,vm:102",
                                          "affinity": "negative"})
    answer = ok(sim, "POST", "/cluster/ha/resources/vm:100/migrate", {"node": "node3"})
    assert answer["blocking-resources"] == [{"sid": "vm:102", "cause": "resource-affinity"}]
    with sim.state.lock:
        sim.state.nodes["node2"]["online"] = 0
    ok(sim, "POST", "/cluster/ha/resources/vm:100/migrate", {"node": "node2"})
    time.sleep(0.3)
    assert node_of(sim, 100) == "node1"
    with sim.state.lock:
        assert sim.state.ha_crm_commands == []
