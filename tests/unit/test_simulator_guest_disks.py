"""The simulator's disk operations, cloud-init reads and storage content (tests/simulator/pve/handlers/guest_disks.py,
cloudinit.py, storage_content.py) over real HTTPS: qemu move_disk and unlink, lxc move_volume, the cloud-init pending
list, regeneration and dump, and a storage's content list, volume info and delete, with the sources' checks and texts.

Run: python -m pytest tests/unit/test_simulator_guest_disks.py -q
"""

import sys
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import
from simulator.pve.handlers.guests import add_guest, add_snapshot, guest_config  # noqa: E402

GIB = 1024 ** 3
MAC = "BC:24:11:00:00:01"
DIRSTORE = {"type": "dir", "path": "/mnt/dirstore", "content": {"images", "rootdir", "iso", "snippets", "backup"}}


@pytest.fixture(autouse=True)
def clean(sim):
    """Every test starts without guests, volumes (local's templates come back), jobs, ACLs or extra storages; a
    directory storage ``dirstore`` holds images, container volumes, ISOs and snippets."""
    state = sim.state
    with state.lock:
        for table in (state.guests, state.volumes, state.pools, state.ha_resources, state.replication_jobs,
                      state.acl, state.volume_ctimes, state.node_settings):
            table.clear()
        for sid in [s for s in state.storage if s not in ("local", "local-lvm")]:
            del state.storage[sid]
        state.storage["dirstore"] = dict(DIRSTORE, content=set(DIRSTORE["content"]))
    yield


def err(message, status=500, errors=None):
    body = {"data": None, "message": message}
    if errors:
        body["errors"] = errors
    return status, body


def ok(sim, method, path, form=None, **kwargs):
    status, body = sim.request(method, path, form, **kwargs)
    assert status == 200, (method, path, form, body)
    return body["data"]


def task(sim, upid):
    """The finished task: (exitstatus, its log lines without the final one)."""
    node = upid.split(":")[1]
    status = ok(sim, "GET", f"/nodes/{node}/tasks/{upid}/status")
    assert status["status"] == "stopped"
    lines = [row["t"] for row in ok(sim, "GET", f"/nodes/{node}/tasks/{upid}/log", {"limit": 0})]
    return status["exitstatus"], lines[:-1]


def run(sim, method, path, form=None):
    """A task-starting call that must end OK: (upid, log lines)."""
    upid = ok(sim, method, path, form)
    exitstatus, lines = task(sim, upid)
    assert exitstatus == "OK", (path, form, exitstatus, lines)
    return upid, lines


def config(sim, typ, vmid, node="node1"):
    conf = ok(sim, "GET", f"/nodes/{node}/{typ}/{vmid}/config")
    conf.pop("digest")
    return conf


def volids(sim, storage, node="node1", token=None, **form):
    return [item["volid"] for item in ok(sim, "GET", f"/nodes/{node}/storage/{storage}/content", form, token=token)]


def vm(sim, vmid=100, node="node1", status="stopped", **config_):
    return add_guest(sim.state, "qemu", vmid, node, dict({"scsi0": "local-lvm:8"}, **config_), status=status)


def ct(sim, vmid=200, node="node1", status="stopped", **config_):
    return add_guest(sim.state, "lxc", vmid, node, dict({"rootfs": "local-lvm:4"}, **config_), status=status)


def token_with(sim, name, *grants):
    """A privilege-separated token of ``ro@pve`` with ``grants`` ((path, role) pairs) on the user and the token."""
    state = sim.state
    if "ro@pve" not in state.users:
        state.add_user("ro@pve")
    secret = state.add_token("ro@pve", name, privsep=1)
    for path, role in grants:
        state.set_acl(path, role, users="ro@pve", tokens=f"ro@pve!{name}")
    return f"ro@pve!{name}", secret


# -- qemu move_disk: to another storage ----------------------------------------------------------------------

def test_move_disk_copies_to_the_storage_and_keeps_the_source_as_unused(sim):
    vm(sim, net0=f"virtio={MAC},bridge=vmbr0", boot="order=scsi0;net0")
    upid, lines = run(sim, "POST", "/nodes/node1/qemu/100/move_disk", {"disk": "scsi0", "storage": "dirstore"})
    assert ":qmmove:100:root@pam!sim:" in upid
    assert lines == ["copying volume 'local-lvm:vm-100-disk-0' from current storage 'local-lvm' to target storage "
                     "'dirstore'",
                     "create full clone of drive scsi0 (local-lvm:vm-100-disk-0)",
                     "allocated target volume 'dirstore:100/vm-100-disk-0.raw'",
                     "adding source volume 'local-lvm:vm-100-disk-0' as 'unused0' to config"]
    conf = config(sim, "qemu", 100)
    assert conf["scsi0"] == "dirstore:100/vm-100-disk-0.raw,size=8G"  # raw: the source's format, dir takes it
    assert conf["unused0"] == "local-lvm:vm-100-disk-0" and conf["boot"] == "order=scsi0;net0"
    assert volids(sim, "dirstore", content="images") == ["dirstore:100/vm-100-disk-0.raw"]
    assert volids(sim, "local-lvm") == ["local-lvm:vm-100-disk-0"]


def test_move_disk_with_delete_and_format_frees_the_source(sim):
    vm(sim)
    _upid, lines = run(sim, "POST", "/nodes/node1/qemu/100/move_disk",
                       {"disk": "scsi0", "storage": "dirstore", "format": "qcow2", "delete": 1, "bwlimit": 1000})
    assert lines[-1] == "removing source volume 'local-lvm:vm-100-disk-0' after successful copy"
    conf = config(sim, "qemu", 100)
    assert conf["scsi0"] == "dirstore:100/vm-100-disk-0.qcow2,size=8G" and "unused0" not in conf
    assert volids(sim, "local-lvm") == []
    # back to LVM-thin, which only takes raw: the storage's default, with clone_disk's warning (not counted)
    _upid, lines = run(sim, "POST", "/nodes/node1/qemu/100/move_disk",
                       {"disk": "scsi0", "storage": "local-lvm", "format": "vmdk"})
    assert "format 'vmdk' is not supported by the target storage 'local-lvm' - using 'raw' instead" in lines
    assert config(sim, "qemu", 100)["scsi0"] == "local-lvm:vm-100-disk-0,size=8G"


def test_move_disk_of_a_running_vm_mirrors_but_not_its_tpm_state(sim):
    vm(sim, status="running", tpmstate0="local-lvm:1,version=v2.0")
    run(sim, "POST", "/nodes/node1/qemu/100/move_disk", {"disk": "scsi0", "storage": "dirstore"})
    assert config(sim, "qemu", 100)["scsi0"] == "dirstore:100/vm-100-disk-0.raw,size=8G"
    before = config(sim, "qemu", 100)
    upid = ok(sim, "POST", "/nodes/node1/qemu/100/move_disk", {"disk": "tpmstate0", "storage": "dirstore"})
    exitstatus, _lines = task(sim, upid)
    assert exitstatus == "storage migration failed: cannot move TPM state while VM is running"
    assert config(sim, "qemu", 100) == before  # nothing of the failed task stays


def test_move_disk_sizes_an_efi_disk_by_its_type(sim):
    vm(sim, efidisk0="local-lvm:1,efitype=4m")
    run(sim, "POST", "/nodes/node1/qemu/100/move_disk", {"disk": "efidisk0", "storage": "dirstore"})
    assert config(sim, "qemu", 100)["efidisk0"] == "dirstore:100/vm-100-disk-0.raw,efitype=4m,size=528K"


def test_move_disk_of_a_template_makes_the_new_volume_a_base_volume(sim):
    add_guest(sim.state, "qemu", 100, "node1", {"scsi0": "local-lvm:8"}, template=True)
    run(sim, "POST", "/nodes/node1/qemu/100/move_disk", {"disk": "scsi0", "storage": "dirstore"})
    conf = config(sim, "qemu", 100)
    assert conf["scsi0"] == "dirstore:100/base-100-disk-0.raw,size=8G"
    assert conf["unused0"] == "local-lvm:base-100-disk-0"


@pytest.mark.parametrize("arrange, form, expected", [
    (None, {"disk": "scsi1", "storage": "dirstore"}, err("disk 'scsi1' does not exist\n")),
    (None, {"disk": "scsi0", "storage": "local-lvm"}, err("you can't move to the same storage with same format\n")),
    (None, {"disk": "ide2", "storage": "dirstore"}, err("you can't move a cdrom\n")),
    ("lock", {"disk": "scsi0", "storage": "dirstore"}, err("VM is locked (backup)\n")),
    (None, {"disk": "scsi0", "storage": "dirstore", "digest": "0" * 40},
     err("detected modified configuration - file changed by other user? Try again.\n")),
    (None, {"disk": "scsi0", "storage": "local"},
     err("Parameter verification failed.\n", 400, {"storage": "storage 'local' does not support vm images"})),
    (None, {"disk": "scsi0", "storage": "nosuch"}, err("storage 'nosuch' does not exist\n")),
    ("disable", {"disk": "scsi0", "storage": "dirstore"}, err("storage 'dirstore' is disabled\n")),
    ("snapshot", {"disk": "scsi0", "storage": "dirstore", "delete": 1},
     err("you can't move a disk with snapshots and delete the source\n")),
    (None, {"disk": "scsi0"}, err("Parameter verification failed.\n", 400, {
        "target-vmid": "both 'storage' and 'target-vmid' missing, either needs to be set",
        "storage": "both 'storage' and 'target-vmid' missing, either needs to be set"})),
    (None, {"disk": "scsi0", "storage": "dirstore", "target-vmid": 101}, err("Parameter verification failed.\n", 400, {
        "target-vmid": "either set 'storage' or 'target-vmid', but not both",
        "storage": "either set 'storage' or 'target-vmid', but not both"})),
])
def test_move_disk_refusals_answer_before_the_task(sim, arrange, form, expected):
    vm(sim, ide2="local:iso/debian-12.7.0-amd64-netinst.iso,media=cdrom")
    if arrange == "lock":
        sim.state.guests[100]["lock"] = "backup"
    if arrange == "disable":
        sim.state.storage["dirstore"]["disable"] = 1
    if arrange == "snapshot":
        add_snapshot(sim.state, 100, "before")
    before = len(sim.state.tasks)
    assert sim.request("POST", "/nodes/node1/qemu/100/move_disk", form) == expected
    assert len(sim.state.tasks) == before


def test_move_disk_with_snapshots_keeps_them_on_the_old_volume(sim):
    vm(sim)
    add_snapshot(sim.state, 100, "before")
    _upid, lines = run(sim, "POST", "/nodes/node1/qemu/100/move_disk", {"disk": "scsi0", "storage": "dirstore"})
    assert "moving disk with snapshots, snapshots will not be moved!" in lines  # a plain warn: the task is OK
    assert sim.state.guests[100]["snapshots"]["before"]["config"]["scsi0"] == "local-lvm:vm-100-disk-0,size=8G"


# -- qemu move_disk: to another VM -------------------------------------------------------------------------

def test_move_disk_to_another_vm_renames_the_volume_and_detaches_it(sim):
    vm(sim, scsi1="local-lvm:2", boot="order=scsi1;scsi0")
    vm(sim, 101, scsi0="local-lvm:4")
    upid, lines = run(sim, "POST", "/nodes/node1/qemu/100/move_disk", {"disk": "scsi1", "target-vmid": 101})
    assert ":qmmove:100-scsi1>101-scsi1:root@pam!sim:" in upid
    assert lines == ["reassign disk 'scsi1' from VM '100' as 'scsi1' to VM '101'",
                     "removing disk 'scsi1' from boot order config",
                     "removing disk 'scsi1' from VM '100' config",
                     "update VM 101: -scsi1 local-lvm:vm-101-disk-1,size=2G"]
    source = config(sim, "qemu", 100)
    assert "scsi1" not in source and source["boot"] == "order=scsi0" and "unused0" not in source
    assert config(sim, "qemu", 101)["scsi1"] == "local-lvm:vm-101-disk-1,size=2G"
    assert volids(sim, "local-lvm", vmid=101) == ["local-lvm:vm-101-disk-0", "local-lvm:vm-101-disk-1"]
    # an unusedN target takes the volume as it is, with another key
    run(sim, "POST", "/nodes/node1/qemu/101/move_disk", {"disk": "scsi1", "target-vmid": 100, "target-disk": "unused3"})
    assert config(sim, "qemu", 100)["unused3"] == "local-lvm:vm-100-disk-1"


@pytest.mark.parametrize("arrange, form, expected", [
    (None, {"target-vmid": 100}, err("Parameter verification failed.\n", 400, {
        "target-vmid": "must be different than source VMID to reassign disk"})),
    (None, {"target-vmid": 105}, err("could not find target VM 105\n")),
    ("other-node", {}, err("Both VMs need to be on the same node (node1 != node2)\n")),
    ("running", {}, err("Cannot move disk to another VM while the source VM is running - detach first\n")),
    ("template", {}, err("Can't move disks from or to template VMs\n")),
    ("in-use", {}, err("Target disk key 'scsi1' is already in use for VM '101'\n")),
    ("snapshot", {}, err("Can't move disk used by a snapshot to another VM\n")),
    ("lock", {}, err("VM is locked (migrate)\n")),
    (None, {"digest": "0" * 40},
     err("VM 100: detected modified configuration - file changed by other user? Try again.\n")),
    (None, {"disk": "scsi5"}, err("Disk 'scsi5' for VM '100' does not exist\n")),
])
def test_move_disk_to_another_vm_refusals(sim, arrange, form, expected):
    vm(sim, scsi1="local-lvm:2", status="running" if arrange == "running" else "stopped")
    if arrange == "template":
        add_guest(sim.state, "qemu", 101, "node1", {"scsi0": "local-lvm:4"}, template=True)
    else:
        vm(sim, 101, node="node2" if arrange == "other-node" else "node1",
           **({"scsi1": "local-lvm:1"} if arrange == "in-use" else {}))
    if arrange == "snapshot":
        add_snapshot(sim.state, 100, "before")
    if arrange == "lock":
        sim.state.guests[101]["lock"] = "migrate"
    got = sim.request("POST", "/nodes/node1/qemu/100/move_disk", dict({"disk": "scsi1", "target-vmid": 101}, **form))
    assert got == expected


def test_an_unused_disk_of_a_running_vm_moves_to_another_vm(sim):
    vm(sim, status="running", scsi1="local-lvm:2")
    ok(sim, "PUT", "/nodes/node1/qemu/100/unlink", {"idlist": "scsi1"})  # hot-unplugged: unused0
    vm(sim, 101)
    run(sim, "POST", "/nodes/node1/qemu/100/move_disk", {"disk": "unused0", "target-vmid": 101, "target-disk": "scsi2"})
    assert "unused0" not in config(sim, "qemu", 100)
    assert config(sim, "qemu", 101)["scsi2"] == "local-lvm:vm-101-disk-1,size=2G"


# -- qemu unlink --------------------------------------------------------------------------------------------

def test_unlink_detaches_to_unused_and_force_destroys(sim):
    vm(sim, scsi1="local-lvm:2", scsi2="local-lvm:3")
    assert ok(sim, "PUT", "/nodes/node1/qemu/100/unlink", {"idlist": "scsi1"}) is None
    conf = config(sim, "qemu", 100)
    assert "scsi1" not in conf and conf["unused0"] == "local-lvm:vm-100-disk-1"
    assert ok(sim, "PUT", "/nodes/node1/qemu/100/unlink", {"idlist": "scsi2", "force": 1}) is None
    assert "scsi2" not in config(sim, "qemu", 100) and "vm-100-disk-2" not in sim.state.volumes["local-lvm"]
    # an unusedN goes with its volume, force or not
    ok(sim, "PUT", "/nodes/node1/qemu/100/unlink", {"idlist": "unused0"})
    assert volids(sim, "local-lvm") == ["local-lvm:vm-100-disk-0"]
    assert sim.request("PUT", "/nodes/node1/qemu/100/unlink", {"idlist": "nosuch"}) == \
        err("Parameter verification failed.\n", 400, {"delete": "unknown option 'nosuch'"})


def test_unlink_of_a_protected_or_locked_vm_is_refused(sim):
    vm(sim, protection=1)
    assert sim.request("PUT", "/nodes/node1/qemu/100/unlink", {"idlist": "scsi0"}) == \
        err("can't remove drive 'scsi0' - protection mode enabled\n")
    sim.state.guests[100]["lock"] = "backup"
    assert sim.request("PUT", "/nodes/node1/qemu/100/unlink", {"idlist": "scsi0"}) == err("VM is locked (backup)\n")


# -- lxc move_volume ------------------------------------------------------------------------------------------

def test_move_volume_to_a_storage_allocates_as_alloc_disk_does(sim):
    ct(sim, mp0="local-lvm:2,mp=/srv")
    upid, _lines = run(sim, "POST", "/nodes/node1/lxc/200/move_volume", {"volume": "rootfs", "storage": "dirstore"})
    assert ":move_volume:200:root@pam!sim:" in upid
    conf = config(sim, "lxc", 200)
    assert conf["rootfs"] == "dirstore:200/vm-200-disk-0.raw,size=4G" and conf["unused0"] == "local-lvm:vm-200-disk-0"
    run(sim, "POST", "/nodes/node1/lxc/200/move_volume", {"volume": "mp0", "storage": "dirstore", "delete": 1})
    conf = config(sim, "lxc", 200)
    assert conf["mp0"] == "dirstore:200/vm-200-disk-1.raw,mp=/srv,size=2G" and "unused1" not in conf
    assert volids(sim, "dirstore") == ["dirstore:200/vm-200-disk-0.raw", "dirstore:200/vm-200-disk-1.raw"]
    assert [item["content"] for item in ok(sim, "GET", "/nodes/node1/storage/dirstore/content")] == ["rootdir"] * 2


@pytest.mark.parametrize("arrange, form, expected", [
    ("running", {}, err("cannot move volumes of a running container\n")),
    ("lock", {}, err("CT is locked (backup)\n")),
    (None, {"volume": "unused0"},
     err("cannot move volume 'unused0', only configured volumes can be moved to another storage\n")),
    (None, {"volume": "mp3"}, err("format error\n", errors={"volume": "property is missing and it is not optional",
                                                            "mp": "property is missing and it is not optional"})),
    ("snapshot", {"delete": 1}, err("you can't move a volume with snapshots and delete the source\n")),
    (None, {"target-vmid": 201}, err("either set storage or target-vmid, but not both\n")),
    (None, {"storage": None}, err("Parameter verification failed.\n", 400, {
        "target-vmid": "both 'storage' and 'target-vmid' missing, either needs to be set",
        "storage": "both 'storage' and 'target-vmid' missing, either needs to be set"})),
])
def test_move_volume_refusals_answer_before_the_task(sim, arrange, form, expected):
    ct(sim, status="running" if arrange == "running" else "stopped", unused0="local-lvm:vm-200-disk-3")
    if arrange == "lock":
        sim.state.guests[200]["lock"] = "backup"
    if arrange == "snapshot":
        add_snapshot(sim.state, 200, "before")
    form = {k: v for k, v in dict({"volume": "rootfs", "storage": "dirstore"}, **form).items() if v is not None}
    assert sim.request("POST", "/nodes/node1/lxc/200/move_volume", form) == expected


@pytest.mark.parametrize("storage, exitstatus", [
    ("local", "content type 'rootdir' is not available or configured on storage 'local'"),
    ("nosuch", "storage 'nosuch' does not exist"),
])
def test_move_volume_checks_of_the_worker_fail_the_task(sim, storage, exitstatus):
    ct(sim)
    upid = ok(sim, "POST", "/nodes/node1/lxc/200/move_volume", {"volume": "rootfs", "storage": storage})
    assert task(sim, upid)[0] == exitstatus
    assert config(sim, "lxc", 200)["rootfs"] == "local-lvm:vm-200-disk-0,size=4G"


def test_move_volume_to_another_container(sim):
    ct(sim, mp0="local-lvm:2,mp=/srv")
    ct(sim, 201)
    upid, lines = run(sim, "POST", "/nodes/node1/lxc/200/move_volume",
                      {"volume": "mp0", "target-vmid": 201, "target-volume": "mp1"})
    assert ":move_volume:200-mp0>201-mp1:root@pam!sim:" in upid
    assert lines == ["moving volume 'mp0' from container '200' to '201'",
                     "removing volume 'mp0' from container '200' config",
                     "target container '201' updated with 'mp1'"]
    assert "mp0" not in config(sim, "lxc", 200)
    assert config(sim, "lxc", 201)["mp1"] == "local-lvm:vm-201-disk-1,mp=/srv,size=2G"
    # to another key of the same container: renamed to its next free disk number
    run(sim, "POST", "/nodes/node1/lxc/201/move_volume", {"volume": "mp1", "target-vmid": 201, "target-volume": "mp4"})
    conf = config(sim, "lxc", 201)
    assert "mp1" not in conf and conf["mp4"] == "local-lvm:vm-201-disk-2,mp=/srv,size=2G"


def test_move_volume_of_a_template_makes_a_base_volume(sim):
    add_guest(sim.state, "lxc", 200, "node1", {"rootfs": "local-lvm:4"}, template=True)
    run(sim, "POST", "/nodes/node1/lxc/200/move_volume", {"volume": "rootfs", "storage": "dirstore"})
    conf = config(sim, "lxc", 200)
    assert conf["rootfs"] == "dirstore:200/base-200-disk-0.raw,size=4G"
    assert conf["unused0"] == "local-lvm:base-200-disk-0"


@pytest.mark.parametrize("form, arrange, expected", [
    ({"volume": "rootfs"}, None, err("Cannot move to/from 'rootfs'\n")),
    ({"volume": "unused0", "target-volume": "mp2"}, None,
     err("Moving an unused volume to a used one is not possible\n")),
    ({}, "running", err("Cannot move in-use volume while the source CT is running - detach or shutdown first\n")),
    ({}, "bind", err("Storage does not support moving of this disk to another container\n")),
    ({"target-vmid": 100}, "vm", err("Configuration file 'nodes/node1/lxc/100.conf' does not exist\n")),
    ({"target-vmid": 109}, None, err("could not find CT 109\n")),
    ({"target-digest": "0" * 40}, None,
     err("Container 201: detected modified configuration - file changed by other user? Try again.\n")),
])
def test_move_volume_to_another_container_refusals(sim, form, arrange, expected):
    mp0 = "/srv/data,mp=/data" if arrange == "bind" else "local-lvm:2,mp=/srv"
    ct(sim, status="running" if arrange == "running" else "stopped", mp0=mp0, unused0="local-lvm:vm-200-disk-3")
    ct(sim, 201)
    if arrange == "vm":
        vm(sim)
    got = sim.request("POST", "/nodes/node1/lxc/200/move_volume", dict({"volume": "mp0", "target-vmid": 201}, **form))
    assert got == expected


# -- cloud-init -----------------------------------------------------------------------------------------------

# a real key with a comment, as PVE keeps it in the config (URI-encoded)
ENCODED_KEY = ("ssh-ed25519%20AAAAC3NzaC1lZDI1NTE5AAAAIBAuQfmxqzF8WLVHli6orB39yIaEQB6QjJjMYsJB8Z8w"
               "%20me%40laptop%0A")


def cloudinit_vm(sim, **extra):
    """A VM created through the API with a cloud-init drive (so it has its volume), then started."""
    form = dict({"vmid": 300, "name": "web", "scsi0": "local-lvm:8", "ide2": "local-lvm:cloudinit",
                 "net0": f"virtio={MAC},bridge=vmbr0", "ipconfig0": "ip=192.0.2.10/24,gw=192.0.2.1",
                 "ciuser": "admin", "sshkeys": ENCODED_KEY}, **extra)
    run(sim, "POST", "/nodes/node1/qemu", form)
    run(sim, "POST", "/nodes/node1/qemu/300/status/start")


def test_cloudinit_pending_lists_what_the_drive_does_not_carry_yet(sim):
    cloudinit_vm(sim)
    path = "/nodes/node1/qemu/300/cloudinit"
    assert ok(sim, "GET", path) == [
        {"key": "ciuser", "value": "admin"}, {"key": "sshkeys", "value": ENCODED_KEY}]
    assert "local-lvm:vm-300-cloudinit" in volids(sim, "local-lvm")
    # live changes on the running VM: a changed, an added and a deleted option, and a changed NIC address; the
    # password is not recorded (update_vm_api writes it into the config, not through [PENDING])
    ok(sim, "PUT", "/nodes/node1/qemu/300/config", {"ciuser": "ops", "searchdomain": "example.org",
                                                    "delete": "sshkeys", "ipconfig0": "ip=dhcp", "cipassword": "pw"})
    assert sim.state.guests[300]["cloudinit"] == {"added": "searchdomain", "ciuser": "admin",
                                                  "ipconfig0": "ip=192.0.2.10/24,gw=192.0.2.1",
                                                  "sshkeys": ENCODED_KEY}
    assert ok(sim, "GET", path) == [
        {"key": "searchdomain", "pending": "example.org"},
        {"key": "cipassword", "value": "**********"},
        {"key": "ciuser", "value": "admin", "pending": "ops"},
        {"key": "sshkeys", "delete": 1}]
    digest = ok(sim, "GET", "/nodes/node1/qemu/300/config")["digest"]
    # changing a value back to the drive's drops it from the section
    ok(sim, "PUT", "/nodes/node1/qemu/300/config", {"ciuser": "admin"})
    assert {"key": "ciuser", "value": "admin"} in ok(sim, "GET", path)
    # regenerating the drive drops the section, and the config file changes with it
    assert ok(sim, "PUT", path) is None
    assert "cloudinit" not in sim.state.guests[300]
    assert ok(sim, "GET", path) == [{"key": "cipassword", "value": "**********"}, {"key": "ciuser", "value": "admin"},
                                    {"key": "searchdomain", "value": "example.org"}]
    assert ok(sim, "GET", "/nodes/node1/qemu/300/config")["digest"] != digest


def test_a_start_a_reboot_or_the_cloudinit_hotplug_regenerates_the_drive(sim):
    cloudinit_vm(sim)
    ok(sim, "PUT", "/nodes/node1/qemu/300/config", {"ciuser": "ops"})
    assert sim.state.guests[300]["cloudinit"] == {"ciuser": "admin"}
    run(sim, "POST", "/nodes/node1/qemu/300/status/stop")
    run(sim, "POST", "/nodes/node1/qemu/300/status/start")
    assert "cloudinit" not in sim.state.guests[300]
    ok(sim, "PUT", "/nodes/node1/qemu/300/config", {"ciuser": "admin"})
    assert sim.state.guests[300]["cloudinit"] == {"ciuser": "ops"}
    run(sim, "POST", "/nodes/node1/qemu/300/status/reboot")
    assert "cloudinit" not in sim.state.guests[300]
    # with the cloudinit hotplug feature a live change regenerates the drive at once
    ok(sim, "PUT", "/nodes/node1/qemu/300/config", {"hotplug": "network,disk,cloudinit"})
    run(sim, "POST", "/nodes/node1/qemu/300/status/reboot")
    ok(sim, "PUT", "/nodes/node1/qemu/300/config", {"ciuser": "ops"})
    assert "cloudinit" not in sim.state.guests[300]


def test_a_stopped_vm_taking_a_new_cloudinit_drive_regenerates_it(sim):
    vm(sim, 300, status="running", ciuser="admin")
    ok(sim, "PUT", "/nodes/node1/qemu/300/config", {"ciuser": "ops"})
    assert sim.state.guests[300]["cloudinit"] == {"ciuser": "admin"}  # kept, not written: there is no drive
    run(sim, "POST", "/nodes/node1/qemu/300/status/stop")
    ok(sim, "PUT", "/nodes/node1/qemu/300/config", {"ide2": "local-lvm:cloudinit"})
    assert "cloudinit" not in sim.state.guests[300]


def test_cloudinit_regenerate_refusals(sim):
    cloudinit_vm(sim)
    ok(sim, "PUT", "/nodes/node1/qemu/300/config", {"cicustom": "user=local:iso/debian-12.7.0-amd64-netinst.iso"})
    assert sim.request("PUT", "/nodes/node1/qemu/300/cloudinit") == \
        err("local:iso/debian-12.7.0-amd64-netinst.iso is not in the snippets directory\n")
    ok(sim, "PUT", "/nodes/node1/qemu/300/config", {"cicustom": "user=dirstore:snippets/user.yaml"})
    assert sim.request("PUT", "/nodes/node1/qemu/300/cloudinit") == \
        err("can't find file 'dirstore:snippets/user.yaml'\n")
    snippet = {"size": 40, "vmid": None, "format": None, "content": "snippets"}
    sim.state.volumes.setdefault("dirstore", {})["snippets/user.yaml"] = snippet
    assert ok(sim, "PUT", "/nodes/node1/qemu/300/cloudinit") is None
    sim.state.guests[300]["lock"] = "backup"
    assert sim.request("PUT", "/nodes/node1/qemu/300/cloudinit") == err("VM is locked (backup)\n")


def test_cloudinit_dump_nocloud(sim):
    cloudinit_vm(sim, cipassword="secret", ipconfig1="ip6=auto")
    ok(sim, "PUT", "/nodes/node1/qemu/300/config", {"net1": "virtio=BC:24:11:00:00:02,bridge=vmbr1"})
    path = "/nodes/node1/qemu/300/cloudinit/dump"
    user = ok(sim, "GET", path, {"type": "user"})
    assert user == ("#cloud-config\nhostname: web\nmanage_etc_hosts: true\nfqdn: web\nuser: admin\n"
                    "password: secret\nssh_authorized_keys:\n  - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBAuQfmxqzF8WLVHli6orB39yIaEQB6QjJjMYsJB8Z8w me@laptop\n"
                    "chpasswd:\n  expire: False\nusers:\n  - default\npackage_upgrade: true\n")
    assert ok(sim, "GET", path, {"type": "network"}) == (
        "version: 1\nconfig:\n"
        "    - type: physical\n      name: eth0\n      mac_address: 'bc:24:11:00:00:01'\n      subnets:\n"
        "      - type: static\n        address: '192.0.2.10'\n        netmask: '255.255.255.0'\n"
        "        gateway: '192.0.2.1'\n"
        "    - type: physical\n      name: eth1\n      mac_address: 'bc:24:11:00:00:02'\n      subnets:\n"
        "      - type: ipv6_slaac\n"
        "    - type: nameserver\n      address:\n      - '127.0.0.1'\n      search:\n      - 'sim.lan'\n")
    meta = ok(sim, "GET", path, {"type": "meta"})
    assert meta.startswith("instance-id: ") and len(meta) == len("instance-id: \n") + 40
    # without VM.Config.Cloudinit the password is masked (the instance id is not: it is computed unmasked)
    token = token_with(sim, "audit", ("/vms/300", "PVEAuditor"))
    assert "password: **********\n" in ok(sim, "GET", path, {"type": "user"}, token=token)
    assert ok(sim, "GET", path, {"type": "meta"}, token=token) == meta


def test_cloudinit_dump_configdrive2_and_the_hosts_dns(sim):
    cloudinit_vm(sim, citype="configdrive2", name="web.example.org", nameserver="192.0.2.53 192.0.2.54",
                 ciuser="root", ciupgrade=0)
    ok(sim, "PUT", "/nodes/node1/dns", {"search": "corp.lan"})
    path = "/nodes/node1/qemu/300/cloudinit/dump"
    assert ok(sim, "GET", path, {"type": "user"}) == (
        "#cloud-config\nhostname: web\nmanage_etc_hosts: true\nfqdn: web.example.org\nuser: root\n"
        "disable_root: False\nssh_authorized_keys:\n  - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBAuQfmxqzF8WLVHli6orB39yIaEQB6QjJjMYsJB8Z8w "
        "me@laptop\nchpasswd:\n  expire: False\n")
    assert ok(sim, "GET", path, {"type": "network"}) == (
        "auto lo\niface lo inet loopback\n\n        dns_nameservers 192.0.2.53 192.0.2.54\n"
        "        dns_search corp.lan\nauto eth0\niface eth0 inet static\n        address 192.0.2.10\n"
        "        netmask 255.255.255.0\n        gateway 192.0.2.1\n")
    meta = ok(sim, "GET", path, {"type": "meta"})
    assert meta.startswith('{\n     "uuid": "') and meta.endswith(
        '",\n     "network_config": { "content_path": "/content/0000" }\n}\n')
    assert sim.request("GET", "/nodes/node2/qemu/300/cloudinit/dump", {"type": "user"}) == \
        err("Configuration file 'nodes/node2/qemu-server/300.conf' does not exist\n")


# -- storage content -----------------------------------------------------------------------------------------

def test_content_lists_each_plugins_fields_filtered_by_type_and_vmid(sim):
    vm(sim)
    ct(sim)
    vm(sim, 101, node="node2", scsi0="local-lvm:1")
    run(sim, "POST", "/nodes/node1/qemu/100/move_disk", {"disk": "scsi0", "storage": "dirstore", "format": "qcow2"})
    thin = ok(sim, "GET", "/nodes/node1/storage/local-lvm/content")
    ctime = thin[0].pop("ctime")
    assert isinstance(ctime, int) and all(abs(item.pop("ctime") - ctime) <= 1 for item in thin[1:])
    # sorted by volid, a container's volume as rootdir; node2's VM disk is on node2's LVM-thin
    assert thin == [
        {"volid": "local-lvm:vm-100-disk-0", "format": "raw", "size": 8 * GIB, "vmid": 100, "content": "images"},
        {"volid": "local-lvm:vm-200-disk-0", "format": "raw", "size": 4 * GIB, "vmid": 200, "content": "rootdir"}]
    assert volids(sim, "local-lvm", node="node2") == ["local-lvm:vm-101-disk-0"]
    assert volids(sim, "local-lvm", content="rootdir") == ["local-lvm:vm-200-disk-0"]
    assert volids(sim, "local-lvm", vmid=100) == ["local-lvm:vm-100-disk-0"]
    [image] = ok(sim, "GET", "/nodes/node1/storage/dirstore/content", {"content": "images"})
    image.pop("ctime")
    assert image == {"volid": "dirstore:100/vm-100-disk-0.qcow2", "format": "qcow2", "size": 8 * GIB, "vmid": 100,
                     "used": 8 * GIB, "parent": None, "content": "images"}
    local = ok(sim, "GET", "/nodes/node1/storage/local/content")
    assert [(item["volid"], item["format"], item["content"]) for item in local] == [
        ("local:iso/debian-12.7.0-amd64-netinst.iso", "iso", "iso"),
        ("local:vztmpl/alpine-3.20-default_20240908_amd64.tar.xz", "txz", "vztmpl"),
        ("local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst", "tzst", "vztmpl"),
        ("local:vztmpl/ubuntu-24.04-standard_24.04-2_amd64.tar.zst", "tzst", "vztmpl")]
    assert volids(sim, "local", vmid=100) == []  # templates and ISOs are not any guest's
    assert volids(sim, "local", content="images") == []  # local does not hold images
    sim.state.storage["dirstore"]["nodes"] = {"node2"}
    assert sim.request("GET", "/nodes/node1/storage/dirstore/content") == \
        err("storage 'dirstore' is not available on node 'node1'\n")


def test_content_lists_backups_and_snippets_of_a_directory_storage(sim):
    vols = sim.state.volumes.setdefault("dirstore", {})
    for name, content in (("backup/vzdump-qemu-100-2025_01_02-03_04_05.vma.zst", "backup"),
                          ("backup/vzdump-lxc-200-2025_01_03-00_00_00.tar.zst", "backup"),
                          ("snippets/user.yaml", "snippets")):
        vols[name] = {"size": 1000, "vmid": None, "format": None, "content": content}
    [backup] = ok(sim, "GET", "/nodes/node1/storage/dirstore/content", {"content": "backup", "vmid": 100})
    assert backup == {"volid": "dirstore:backup/vzdump-qemu-100-2025_01_02-03_04_05.vma.zst", "format": "vma.zst",
                      "ctime": int(time.mktime((2025, 1, 2, 3, 4, 5, 0, 0, -1))), "subtype": "qemu", "vmid": 100,
                      "size": 1000, "content": "backup"}
    assert volids(sim, "dirstore") == ["dirstore:backup/vzdump-lxc-200-2025_01_03-00_00_00.tar.zst",
                                       "dirstore:backup/vzdump-qemu-100-2025_01_02-03_04_05.vma.zst",
                                       "dirstore:snippets/user.yaml"]
    assert ok(sim, "GET", "/nodes/node1/storage/dirstore/content", {"content": "snippets"})[0]["format"] == "snippet"


def test_content_of_a_linked_clone_names_its_base(sim):
    add_guest(sim.state, "qemu", 100, "node1", {"scsi0": "local-lvm:8"}, template=True)
    run(sim, "POST", "/nodes/node1/qemu/100/clone", {"newid": 101})
    assert volids(sim, "local-lvm") == ["local-lvm:base-100-disk-0", "local-lvm:vm-101-disk-0"]  # the LVs' names
    add_guest(sim.state, "qemu", 110, "node1", {"scsi0": "dirstore:100/vm-110-disk-0.qcow2,size=1G"})
    run(sim, "POST", "/nodes/node1/qemu/110/template")
    run(sim, "POST", "/nodes/node1/qemu/110/clone", {"newid": 111})
    items = {item["volid"]: item["parent"] for item in ok(sim, "GET", "/nodes/node1/storage/dirstore/content")}
    assert items == {"dirstore:100/base-110-disk-0.qcow2": None,
                     "dirstore:100/base-110-disk-0.qcow2/111/vm-111-disk-0.qcow2": "../100/base-110-disk-0.qcow2"}


def test_content_shows_a_token_only_the_volumes_it_may_see(sim):
    vm(sim)
    vm(sim, 101)
    audit = token_with(sim, "audit", ("/storage/local-lvm", "PVEAuditor"), ("/storage/local", "PVEAuditor"))
    assert volids(sim, "local-lvm", token=audit) == []  # images need VM.Config.Disk on their guest too
    assert len(volids(sim, "local", token=audit)) == 4  # ISOs and templates: Datastore.Audit is enough
    disk = token_with(sim, "disk", ("/storage/local-lvm", "PVEAuditor"), ("/vms/101", "PVEVMAdmin"))
    assert volids(sim, "local-lvm", token=disk) == ["local-lvm:vm-101-disk-0"]
    nothing = token_with(sim, "none")
    assert sim.request("GET", "/nodes/node1/storage/local-lvm/content", token=nothing) == \
        err("Permission check failed (/storage/local-lvm, Datastore.Audit|Datastore.AllocateSpace)\n", 403)


def test_volume_info(sim):
    vm(sim)
    assert ok(sim, "GET", "/nodes/node1/storage/local-lvm/content/local-lvm:vm-100-disk-0") == \
        {"path": "/dev/pve/vm-100-disk-0", "size": 8 * GIB, "used": 0, "format": "raw"}
    assert ok(sim, "GET", "/nodes/node1/storage/local-lvm/content/vm-100-disk-0")["path"] == "/dev/pve/vm-100-disk-0"
    assert ok(sim, "GET", "/nodes/node1/storage/local/content/local:iso/debian-12.7.0-amd64-netinst.iso") == \
        {"path": "/var/lib/vz/template/iso/debian-12.7.0-amd64-netinst.iso", "size": 631 * 1024 ** 2,
         "used": 631 * 1024 ** 2, "format": "raw"}
    assert sim.request("GET", "/nodes/node1/storage/local/content/local-lvm:vm-100-disk-0") == \
        err("Parameter verification failed.\n", 400, {"volume": "storage ID mismatch (local-lvm != local)\n"})
    assert sim.request("GET", "/nodes/node1/storage/dirstore/content/dirstore:100/vm-100-disk-7.raw") == \
        err("volume_size_info on 'dirstore:100/vm-100-disk-7.raw' failed - no format\n")
    assert sim.request("GET", "/nodes/node1/storage/local-lvm/content/junk") == \
        err("unable to parse lvm volume name 'junk'\n")


def test_volume_delete_is_an_imgdel_task(sim):
    vm(sim, scsi1="local-lvm:2")
    upid, lines = run(sim, "DELETE", "/nodes/node1/storage/local-lvm/content/local-lvm:vm-100-disk-1")
    assert ":imgdel:100@local-lvm:root@pam!sim:" in upid and lines == ["Removed volume 'local-lvm:vm-100-disk-1'"]
    assert volids(sim, "local-lvm") == ["local-lvm:vm-100-disk-0"]
    # pve-storage does not look at the guests: the config still names the volume
    assert config(sim, "qemu", 100)["scsi1"] == "local-lvm:vm-100-disk-1,size=2G"
    upid, lines = run(sim, "DELETE", "/nodes/node1/storage/local/content/local:iso/debian-12.7.0-amd64-netinst.iso")
    assert ":imgdel:local:root@pam!sim:" in upid
    assert ok(sim, "DELETE", "/nodes/node1/storage/dirstore/content/100/vm-100-disk-9.raw", {"delay": 5}) is None
    assert task(sim, list(sim.state.tasks)[-1])[1] == ["disk image '/mnt/dirstore/images/100/vm-100-disk-9.raw' "
                                                       "does not exist",
                                                       "Removed volume 'dirstore:100/vm-100-disk-9.raw'"]


def test_a_base_volume_with_linked_clones_is_not_deleted(sim):
    add_guest(sim.state, "qemu", 100, "node1", {"scsi0": "local-lvm:8"}, template=True)
    run(sim, "POST", "/nodes/node1/qemu/100/clone", {"newid": 101})
    upid = ok(sim, "DELETE", "/nodes/node1/storage/local-lvm/content/local-lvm:base-100-disk-0")
    assert task(sim, upid)[0] == "base volume 'base-100-disk-0' is still in use by linked clones"
    assert sim.request("DELETE", "/nodes/node1/storage/local-lvm/content/local-lvm:base-100-disk-0",
                       {"delay": 3}) == err("base volume 'base-100-disk-0' is still in use by linked clones\n")
    assert "base-100-disk-0" in sim.state.volumes["local-lvm"]
    audit = token_with(sim, "del", ("/storage/local-lvm", "PVEDatastoreUser"))
    assert sim.request("DELETE", "/nodes/node1/storage/local-lvm/content/local-lvm:vm-101-disk-0", token=audit) == \
        err("Permission check failed (/storage/local-lvm, Datastore.Allocate)\n", 403)


def test_a_volume_with_a_slash_is_one_path_variable(sim):
    vm(sim, scsi0="dirstore:1")
    assert guest_config(sim.state, 100)["scsi0"] == "dirstore:100/vm-100-disk-0.qcow2,size=1G"
    info = ok(sim, "GET", "/nodes/node1/storage/dirstore/content/dirstore%3A100%2Fvm-100-disk-0.qcow2")
    assert info["path"] == "/mnt/dirstore/images/100/vm-100-disk-0.qcow2"
