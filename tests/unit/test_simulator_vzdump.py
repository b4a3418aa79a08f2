"""The simulator's backups and restores (tests/simulator/pve/handlers/vzdump.py, the restore branches of qemu.py and
lxc.py) over real HTTPS: POST /nodes/{node}/vzdump, the archives in the storage's content, POST /nodes/{node}/qemu with
archive= and POST /nodes/{node}/lxc with restore=1, with the sources' checks and texts.

Run: python -m pytest tests/unit/test_simulator_vzdump.py -q
"""

import re
import sys
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, ok, refused, sim  # noqa: E402,F401  pylint: disable=unused-import
from simulator.pve.handlers.guests import add_guest  # noqa: E402
from simulator.pve.handlers import vzdump as vz  # noqa: E402  (registers the routes until the lead wires it)

DIRSTORE = {"type": "dir", "path": "/mnt/dirstore", "content": {"images", "rootdir", "backup"}, "shared": 1}
NAME = re.compile(r"^dirstore:backup/vzdump-(qemu|lxc)-(\d+)-\d{4}_\d\d_\d\d-\d\d_\d\d_\d\d"
                  r"\.(vma|tar)(\.zst|\.gz|\.lzo)?$")


@pytest.fixture(autouse=True)
def clean(sim):
    """No guests, volumes, pools or extra storages; ``dirstore`` (shared) holds images, container volumes and
    backups; a VM 100 and a container 200 on node1, a VM 300 on node2."""
    state = sim.state
    with state.lock:
        for table in (state.guests, state.volumes, state.pools, state.ha_resources, state.acl, state.volume_ctimes,
                      state.node_volumes):
            table.clear()
        for sid in [s for s in state.storage if s not in ("local", "local-lvm")]:
            del state.storage[sid]
        state.storage["dirstore"] = dict(DIRSTORE, content=set(DIRSTORE["content"]))
    add_guest(state, "qemu", 100, "node1", {
        "name": "web", "memory": "2048", "scsi0": "local-lvm:8", "net0": "virtio=BC:24:11:00:00:01,bridge=vmbr0",
        "vmgenid": "1"})
    add_guest(state, "lxc", 200, "node1", {"hostname": "db", "rootfs": "local-lvm:4", "memory": "1024",
                                           "unprivileged": "1"})
    add_guest(state, "qemu", 300, "node2", {"name": "far", "scsi0": "local-lvm:2"})
    yield


def task(sim, upid):
    node = upid.split(":")[1]
    status = ok(sim, "GET", f"/nodes/{node}/tasks/{upid}/status")
    lines = [row["t"] for row in ok(sim, "GET", f"/nodes/{node}/tasks/{upid}/log", {"limit": 0})]
    return status["exitstatus"], lines


def backups(sim, node="node1", storage="dirstore", **form):
    return ok(sim, "GET", f"/nodes/{node}/storage/{storage}/content", dict(form, content="backup"))


def test_vzdump_makes_one_archive_per_local_guest_and_skips_the_others(sim):
    upid = ok(sim, "POST", "/nodes/node1/vzdump", {"vmid": "100,200,300", "storage": "dirstore", "compress": "zstd",
                                                   "notes-template": "{{guestname}} on {{node}}\\nvmid {{vmid}}"})
    assert ":vzdump::" in upid  # more than one guest: no task id
    exitstatus, lines = task(sim, upid)
    assert exitstatus == "OK", lines
    assert "INFO: skip external VMs: 300" in lines
    rows = backups(sim)
    # sorted by volid: lxc before qemu
    assert [NAME.match(row["volid"]).group(1, 2, 3, 4) for row in rows] == [
        ("lxc", "200", "tar", ".zst"), ("qemu", "100", "vma", ".zst")]
    assert rows[1]["format"] == "vma.zst" and rows[1]["subtype"] == "qemu" and rows[1]["vmid"] == 100
    assert rows[0]["subtype"] == "lxc" and rows[0]["vmid"] == 200
    assert abs(rows[1]["ctime"] - time.time()) < 5
    info = sim.state.volumes["dirstore"][rows[0]["volid"].split(":", 1)[1]]
    assert info["notes"] == "db on node1\nvmid 200"
    assert backups(sim, vmid=100) == [rows[1]]


def test_vzdump_of_guests_on_another_node_answers_ok_without_a_task(sim):
    assert ok(sim, "POST", "/nodes/node1/vzdump", {"vmid": "300", "storage": "dirstore"}) == "OK"
    assert backups(sim) == []


def test_vzdump_compression_names_and_single_guest_task_id(sim):
    upid = ok(sim, "POST", "/nodes/node1/vzdump", {"vmid": "100", "storage": "dirstore", "compress": "gzip",
                                                   "protected": 1, "mode": "stop"})
    assert ":vzdump:100:" in upid
    assert task(sim, upid)[0] == "OK"
    (row,) = backups(sim)
    assert row["volid"].endswith(".vma.gz") and row["format"] == "vma.gz"
    assert sim.state.volumes["dirstore"][row["volid"].split(":", 1)[1]]["protected"] == 1


def test_vzdump_of_a_missing_guest_fails_the_job_and_keeps_the_others(sim):
    upid = ok(sim, "POST", "/nodes/node1/vzdump", {"vmid": "100,105", "storage": "dirstore"})
    exitstatus, lines = task(sim, upid)
    assert exitstatus == "job errors"
    assert "ERROR: Backup of VM 105 failed - unable to find VM '105'" in lines
    assert [row["vmid"] for row in backups(sim)] == [100]


def test_vzdump_to_a_storage_without_backup_content_fails_the_task(sim):
    upid = ok(sim, "POST", "/nodes/node1/vzdump", {"vmid": "100", "storage": "local-lvm"})
    exitstatus, lines = task(sim, upid)
    assert exitstatus == ("could not get storage information for 'local-lvm': can't use storage 'local-lvm' for "
                          "backups - wrong content type")
    assert backups(sim) == []


def test_vzdump_parameter_checks(sim):
    assert refused(sim, "POST", "/nodes/node1/vzdump", {"storage": "dirstore"}) == (
        400, "Parameter verification failed.\n", {"vmid": "property is missing"})
    assert refused(sim, "POST", "/nodes/node1/vzdump", {"vmid": "100", "all": 1}) == (
        400, "Parameter verification failed.\n", {"all": "option conflicts with option 'vmid'"})
    status, _message, errors = refused(sim, "POST", "/nodes/node1/vzdump",
                                       {"vmid": "100", "storage": "dirstore", "notes-template": "{{name}}"})
    assert status == 400 and errors == {"notes-template": "found unknown: variable 'name' at char 2\n"}


def test_a_failed_task_knob_leaves_no_archive(sim):
    sim.state.task_outcomes["vzdump"] = "some backup failure"
    upid = ok(sim, "POST", "/nodes/node1/vzdump", {"vmid": "100", "storage": "dirstore"})
    assert task(sim, upid)[0] == "some backup failure"
    assert backups(sim) == []


def test_add_backup_seeds_an_archive_listed_with_its_time(sim):
    when = int(time.time()) - 86400
    volid = vz.add_backup(sim.state, "node1", "dirstore", 100, when=when)
    (row,) = backups(sim)
    assert row["volid"] == volid and row["ctime"] == when and row["vmid"] == 100


# -- restores ----------------------------------------------------------------------------------------

def test_qemu_restore_to_a_new_vmid_rebuilds_the_config_with_new_disks(sim):
    volid = vz.add_backup(sim.state, "node1", "dirstore", 100, when=int(time.time()) - 60)
    upid = ok(sim, "POST", "/nodes/node1/qemu", {"vmid": 150, "archive": volid, "unique": 1, "name": "copy"})
    assert ":qmrestore:150:" in upid
    exitstatus, lines = task(sim, upid)
    assert exitstatus == "OK", lines
    conf = ok(sim, "GET", "/nodes/node1/qemu/150/config")
    old = ok(sim, "GET", "/nodes/node1/qemu/100/config")
    assert conf["name"] == "copy" and conf["memory"] == old["memory"]
    assert conf["scsi0"].startswith("local-lvm:vm-150-disk-0,") and "size=8G" in conf["scsi0"]
    assert conf["net0"] != old["net0"] and "bridge=vmbr0" in conf["net0"]  # unique: a new MAC
    assert conf["vmgenid"] != old["vmgenid"]
    assert "vm-150-disk-0" in sim.state.volumes["local-lvm"]


def test_qemu_restore_to_a_storage_without_images_fails_the_task(sim):
    volid = vz.add_backup(sim.state, "node1", "dirstore", 100, when=int(time.time()) - 60)
    upid = ok(sim, "POST", "/nodes/node1/qemu", {"vmid": 152, "archive": volid, "storage": "local"})
    assert task(sim, upid)[0] == "Content type 'images' is not available on storage 'local'"
    assert 152 not in sim.state.guests


def test_qemu_restore_onto_a_used_vmid_needs_force(sim):
    volid = vz.add_backup(sim.state, "node1", "dirstore", 100, when=int(time.time()) - 60)
    assert refused(sim, "POST", "/nodes/node1/qemu", {"vmid": 200, "archive": volid})[:2] == (
        500, "unable to restore VM 200 - CT 200 already exists on node 'node1'\n")
    ok(sim, "PUT", "/nodes/node1/qemu/100/config", {"memory": "4096"})
    upid = ok(sim, "POST", "/nodes/node1/qemu", {"vmid": 100, "archive": volid, "force": 1})
    assert task(sim, upid)[0] == "OK"
    assert ok(sim, "GET", "/nodes/node1/qemu/100/config")["memory"] == "2048"  # the backup's config again


def test_qemu_restore_refuses_disks_and_other_archives(sim):
    volid = vz.add_backup(sim.state, "node1", "dirstore", 100, when=int(time.time()) - 60)
    assert refused(sim, "POST", "/nodes/node1/qemu", {"vmid": 151, "archive": volid, "scsi0": "local-lvm:1"}) == (
        400, "Parameter verification failed.\n", {"scsi0": "option conflicts with option 'archive'"})
    missing = volid.replace("-100-", "-101-")
    assert refused(sim, "POST", "/nodes/node1/qemu", {"vmid": 151, "archive": missing})[:2] == (
        500, f"can't find file '{missing}'\n")
    assert refused(sim, "POST", "/nodes/node1/qemu", {"vmid": 151, "archive": "local-lvm:vm-100-disk-0"})[:2] == (
        500, "unable to use volume local-lvm:vm-100-disk-0 - content type needs to be 'backup'\n")


def test_lxc_restore_rebuilds_the_container_on_the_storage_given(sim):
    volid = vz.add_backup(sim.state, "node1", "dirstore", 200, when=int(time.time()) - 60)
    assert refused(sim, "POST", "/nodes/node1/lxc", {"vmid": 250, "ostemplate": volid, "restore": 1}) == (
        400, "Parameter verification failed.\n",
        {"storage": "storage 'local' does not support container directories"})
    upid = ok(sim, "POST", "/nodes/node1/lxc", {"vmid": 250, "ostemplate": volid, "restore": 1,
                                                "storage": "local-lvm", "memory": "256"})
    assert ":vzrestore:250:" in upid
    exitstatus, lines = task(sim, upid)
    assert exitstatus == "OK", lines
    conf = ok(sim, "GET", "/nodes/node1/lxc/250/config")
    assert conf["hostname"] == "db" and conf["memory"] == 256 and conf["unprivileged"] == 1
    assert conf["rootfs"] == "local-lvm:vm-250-disk-0,size=4G"


def test_lxc_restore_onto_a_used_vmid_needs_force(sim):
    volid = vz.add_backup(sim.state, "node1", "dirstore", 200, when=int(time.time()) - 60)
    form = {"vmid": 200, "ostemplate": volid, "restore": 1, "storage": "local-lvm"}
    assert refused(sim, "POST", "/nodes/node1/lxc", form)[:2] == (500, "CT 200 already exists on node 'node1'\n")
    ok(sim, "PUT", "/nodes/node1/lxc/200/config", {"memory": "4096"})
    upid = ok(sim, "POST", "/nodes/node1/lxc", dict(form, force=1))
    assert task(sim, upid)[0] == "OK"
    conf = ok(sim, "GET", "/nodes/node1/lxc/200/config")
    assert conf["memory"] == 1024 and conf["rootfs"].startswith("local-lvm:vm-200-disk-")


def test_a_restore_of_the_wrong_guest_type_fails_the_task(sim):
    volid = vz.add_backup(sim.state, "node1", "dirstore", 100, when=int(time.time()) - 60)
    upid = ok(sim, "POST", "/nodes/node1/lxc", {"vmid": 260, "ostemplate": volid, "restore": 1,
                                                "storage": "local-lvm"})
    assert task(sim, upid)[0].startswith("unable to restore CT 260 - ")
    assert 260 not in sim.state.guests


def token_with(sim, name, *grants):
    """A privilege-separated token of ``bk@pve`` with ``grants`` ((path, role) pairs) on the user and the token."""
    state = sim.state
    if "bk@pve" not in state.users:
        state.add_user("bk@pve")
    secret = state.add_token("bk@pve", name, privsep=1)
    for path, role in grants:
        state.set_acl(path, role, users="bk@pve", tokens=f"bk@pve!{name}")
    return f"bk@pve!{name}", secret


def test_vzdump_needs_vm_backup_on_each_guest_and_space_on_the_storage(sim):
    form = {"vmid": "100", "storage": "dirstore"}
    nothing = token_with(sim, "nothing")
    assert refused(sim, "POST", "/nodes/node1/vzdump", form, token=nothing)[:2] == (
        403, "Permission check failed (/storage/dirstore, Datastore.AllocateSpace)\n")
    space = token_with(sim, "space", ("/storage/dirstore", "PVEDatastoreUser"))
    exitstatus, _lines = task(sim, ok(sim, "POST", "/nodes/node1/vzdump", form, token=space))
    assert exitstatus == "403 Permission check failed (/vms/100, VM.Backup)"  # PVE::Exception stringified
    backup = token_with(sim, "backup", ("/storage/dirstore", "PVEDatastoreUser"), ("/vms/100", "PVEVMUser"))
    assert task(sim, ok(sim, "POST", "/nodes/node1/vzdump", form, token=backup))[0] == "OK"
    assert refused(sim, "POST", "/nodes/node1/vzdump", dict(form, bwlimit=10), token=backup)[:2] == (
        403, "Permission check failed (/, Sys.Modify)\n")
