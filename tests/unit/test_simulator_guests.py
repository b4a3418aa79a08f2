"""The simulator's guests (tests/simulator/pve/handlers/guests.py, lxc.py, qemu.py) over real HTTPS: create,
config reads and writes with [pending], resize, power, clone, template, destroy and /cluster/resources,
with qemu-server's and pve-container's checks and messages.

Run: python -m pytest tests/unit/test_simulator_guests.py -q
"""

import re
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import
from simulator.pve.handlers.guests import add_guest, guest_config  # noqa: E402
from simulator.pve.handlers import guests as g  # noqa: E402

DEBIAN = "local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst"
ISO = "local:iso/debian-12.7.0-amd64-netinst.iso"
MAC = re.compile(r"^BC:24:11(:[0-9A-F]{2}){3}$")
GIB = 1024 ** 3


@pytest.fixture(autouse=True)
def clean(sim):
    """Every test starts without guests, volumes (local's templates come back), pools, HA, jobs or ACLs."""
    state = sim.state
    with state.lock:
        for table in (state.guests, state.volumes, state.pools, state.ha_resources, state.ha_rules,
                      state.replication_jobs, state.backup_jobs, state.acl, state.datacenter):
            table.clear()
        state.shutdown_ignored.clear()
    yield


def err(message, status=500):
    return status, {"data": None, "message": message}


def ok(sim, method, path, form=None, **kwargs):
    status, body = sim.request(method, path, form, **kwargs)
    assert status == 200, (method, path, form, body)
    return body["data"]


def task(sim, upid):
    """The finished task's exitstatus."""
    node = upid.split(":")[1]
    status = ok(sim, "GET", f"/nodes/{node}/tasks/{upid}/status")
    assert status["status"] == "stopped"
    return status["exitstatus"]


def run(sim, method, path, form=None):
    """A task-starting call that must end OK."""
    upid = ok(sim, method, path, form)
    assert task(sim, upid) == "OK", (path, form, upid)
    return upid


def config(sim, typ, vmid, node="node1", **form):
    return ok(sim, "GET", f"/nodes/{node}/{typ}/{vmid}/config", form)


# -- create -----------------------------------------------------------------------------------------------

def test_a_container_is_created_as_pve_writes_it(sim):
    sim.state.pools["lab"] = {"vms": set(), "storage": set()}
    upid = run(sim, "POST", "/nodes/node1/lxc", {
        "vmid": 101, "ostemplate": DEBIAN, "storage": "local-lvm", "rootfs": "local-lvm:8",
        "net0": "name=eth0,bridge=vmbr0,ip=dhcp", "tags": "Web;db", "password": "secret123", "pool": "lab"})
    assert ":vzcreate:101:root@pam!sim:" in upid
    conf = config(sim, "lxc", 101)
    digest = conf.pop("digest")
    net = conf.pop("net0")
    assert conf == {"arch": "amd64", "hostname": "CT101", "memory": 512, "swap": 512, "ostype": "debian",
                    "rootfs": "local-lvm:vm-101-disk-0,size=8G", "tags": "db;web", "unprivileged": 1}
    hwaddr = re.search(r"hwaddr=([^,]+)", net).group(1)
    assert MAC.match(hwaddr) and net == f"name=eth0,bridge=vmbr0,hwaddr={hwaddr},ip=dhcp,type=veth"
    assert len(digest) == 40
    assert sim.state.volumes["local-lvm"]["vm-101-disk-0"] == {"size": 8 * GIB, "vmid": 101, "format": "raw",
                                                               "content": "rootdir"}
    assert sim.state.pools["lab"]["vms"] == {"101"}
    assert [(m["id"], m["name"]) for m in ok(sim, "GET", "/pools/lab")["members"]] == [("lxc/101", "CT101")]


def test_a_container_created_with_start_runs(sim):
    alpine = "local:vztmpl/alpine-3.20-default_20240908_amd64.tar.xz"
    run(sim, "POST", "/nodes/node1/lxc",
        {"vmid": 102, "ostemplate": alpine, "storage": "local-lvm", "hostname": "edge", "start": 1})
    status = ok(sim, "GET", "/nodes/node1/lxc/102/status/current")
    assert (status["status"], status["name"], status["ha"]) == ("running", "edge", {"managed": 0})
    assert config(sim, "lxc", 102)["ostype"] == "alpine"


def test_a_vm_is_created_as_pve_writes_it(sim):
    upid = run(sim, "POST", "/nodes/node1/qemu", {
        "vmid": 100, "name": "web", "memory": 2048, "cores": 2, "scsihw": "virtio-scsi-single",
        "scsi0": "local-lvm:8,ssd=1,discard=on", "efidisk0": "local-lvm:1,efitype=4m,pre-enrolled-keys=1",
        "tpmstate0": "local-lvm:1,version=v2.0", "cdrom": ISO, "net0": "model=virtio,bridge=vmbr0,firewall=1"})
    assert ":qmcreate:100:" in upid
    conf = config(sim, "qemu", 100)
    mac = re.match(r"virtio=([^,]+),bridge=vmbr0,firewall=1$", conf.pop("net0")).group(1)
    assert MAC.match(mac)
    assert re.match(r"^uuid=[0-9a-f-]{36}$", conf.pop("smbios1"))
    assert re.match(r"^[0-9a-f-]{36}$", conf.pop("vmgenid"))
    assert re.match(r"^creation-qemu=\d+\.\d+\.\d+,ctime=\d+$", conf.pop("meta"))
    conf.pop("digest")
    # disks are allocated in key order (efidisk0 first); options print sorted, size among them
    assert conf == {"name": "web", "memory": "2048", "cores": 2, "scsihw": "virtio-scsi-single",
                    "efidisk0": "local-lvm:vm-100-disk-0,efitype=4m,pre-enrolled-keys=1,size=4M",
                    "scsi0": "local-lvm:vm-100-disk-1,discard=on,size=8G,ssd=1",
                    "tpmstate0": "local-lvm:vm-100-disk-2,size=4M,version=v2.0",
                    "ide2": f"{ISO},media=cdrom,size=631M", "boot": "order=scsi0;ide2;net0"}
    assert sorted(sim.state.volumes["local-lvm"]) == ["vm-100-disk-0", "vm-100-disk-1", "vm-100-disk-2"]


@pytest.mark.parametrize("existing, path, message", [
    ("lxc", "/nodes/node2/lxc", "CT 150 already exists on node 'node1'\n"),
    ("qemu", "/nodes/node2/lxc", "VM 150 already exists on node 'node1'\n"),
    ("lxc", "/nodes/node2/qemu", "unable to create VM 150 - CT 150 already exists on node 'node1'\n"),
    ("qemu", "/nodes/node2/qemu", "unable to create VM 150 - VM 150 already exists on node 'node1'\n"),
])
def test_create_over_a_used_vmid_is_refused_cluster_wide(sim, existing, path, message):
    add_guest(sim.state, existing, 150, "node1")
    assert sim.request("POST", path, {"vmid": 150, "ostemplate": DEBIAN} if "lxc" in path else {"vmid": 150}) \
        == err(message)


@pytest.mark.parametrize("form, expected", [
    ({"ostemplate": "local:vztmpl/missing.tar.zst", "storage": "local-lvm"},
     ("task", "unable to create CT 101 - can't find file 'local:vztmpl/missing.tar.zst'")),
    ({"ostemplate": ISO, "storage": "local-lvm"},
     err(f"unable to use volume {ISO} - content type needs to be 'vztmpl'\n")),
    ({"ostemplate": DEBIAN},  # storage defaults to local, which holds no container directories
     (400, {"data": None, "message": "Parameter verification failed.\n",
            "errors": {"storage": "storage 'local' does not support container directories"}})),
    ({"ostemplate": DEBIAN, "rootfs": "nope:8"}, err("storage 'nope' does not exist\n")),
])
def test_a_container_create_is_refused_as_pve_refuses_it(sim, form, expected):
    status, body = sim.request("POST", "/nodes/node1/lxc", dict(form, vmid=101))
    if expected[0] == "task":
        assert status == 200 and task(sim, body["data"]) == expected[1]
        assert 101 not in sim.state.guests and "vm-101-disk-0" not in sim.state.volumes.get("local-lvm", {})
    else:
        assert (status, body) == expected


def test_a_malformed_nic_is_the_400_pve_gives(sim):
    assert sim.request("POST", "/nodes/node1/lxc", {"vmid": 101, "ostemplate": DEBIAN,
                                                    "net0": "name=eth0,bogus=1"}) == \
        (400, {"data": None, "message": "Parameter verification failed.\n",
               "errors": {"net0": "invalid format - invalid key in comma-separated list property: bogus\n"}})
    status, body = sim.request("PUT", "/nodes/node1/qemu/100/config", {"net99": "virtio,bridge=vmbr0"})
    assert status == 400 and "net99" in body["errors"]


# -- reads ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("typ, path", [("lxc", "nodes/node2/lxc/120.conf"),
                                       ("qemu", "nodes/node2/qemu-server/120.conf")])
def test_a_guest_read_on_another_node_is_the_typed_absence(sim, typ, path):
    add_guest(sim.state, typ, 120, "node1")
    message = f"Configuration file '{path}' does not exist\n"
    for suffix in ("/config", "/pending", "/status/current", "/snapshot"):
        assert sim.request("GET", f"/nodes/node2/{typ}/120{suffix}") == err(message)


def test_guest_lists_and_snapshots_read_as_pve_lists_them(sim):
    add_guest(sim.state, "qemu", 100, "node1", status="running",
              config={"name": "web", "memory": 4096, "cores": 2, "sockets": 2, "scsi0": "local-lvm:16", "tags": "b;a"})
    guest = add_guest(sim.state, "lxc", 101, "node1", {"hostname": "ct", "rootfs": "local-lvm:8"})
    guest["snapshots"]["before"] = {"description": "pre-upgrade", "snaptime": 1700000000,
                                    "config": {"hostname": "old"}}
    rows = ok(sim, "GET", "/nodes/node1/qemu")
    assert rows == [{"vmid": 100, "status": "running", "name": "web", "uptime": rows[0]["uptime"], "cpu": 0.0123,
                     "netin": 0, "netout": 0, "diskread": 0, "diskwrite": 0, "cpus": 4, "maxmem": 4 * GIB,
                     "maxdisk": 16 * GIB, "disk": 0, "mem": GIB, "pid": 10100, "tags": "a;b"}]
    assert [row["type"] for row in ok(sim, "GET", "/nodes/node1/lxc")] == ["lxc"]
    snaps = ok(sim, "GET", "/nodes/node1/lxc/101/snapshot")
    assert snaps == [{"name": "before", "snaptime": 1700000000, "description": "pre-upgrade"},
                     {"name": "current", "digest": guest_config(sim.state, 101)["digest"], "running": 0,
                      "description": "You are here!"}]
    assert config(sim, "lxc", 101, snapshot="before")["hostname"] == "old"


# -- update, pending, digest, tags -------------------------------------------------------------------------

def test_a_running_container_takes_hotplug_keys_and_parks_the_rest_until_reboot(sim):
    add_guest(sim.state, "lxc", 101, "node1", {"hostname": "ct", "memory": 512, "rootfs": "local-lvm:8",
                                               "console": 0}, status="running")
    ok(sim, "PUT", "/nodes/node1/lxc/101/config", {"hostname": "web", "memory": 1024, "nameserver": "9.9.9.9",
                                                   "delete": "console"})
    assert config(sim, "lxc", 101, current=1)["hostname"] == "web"  # fast plug
    assert config(sim, "lxc", 101, current=1)["memory"] == 1024      # hotplugged
    current = config(sim, "lxc", 101, current=1)
    assert "nameserver" not in current and current["console"] == 0
    merged = config(sim, "lxc", 101)
    assert merged["nameserver"] == "9.9.9.9" and "console" not in merged
    items = {item["key"]: item for item in ok(sim, "GET", "/nodes/node1/lxc/101/pending")}
    assert items["nameserver"] == {"key": "nameserver", "pending": "9.9.9.9"}
    assert items["console"] == {"key": "console", "value": 0, "delete": 1}
    assert items["memory"] == {"key": "memory", "value": 1024}
    assert items["digest"] == {"key": "digest", "value": merged["digest"]}
    run(sim, "POST", "/nodes/node1/lxc/101/status/reboot")
    after = config(sim, "lxc", 101, current=1)
    assert after["nameserver"] == "9.9.9.9" and "console" not in after
    assert [i["key"] for i in ok(sim, "GET", "/nodes/node1/lxc/101/pending") if "pending" in i or "delete" in i] == []


def test_a_running_vm_parks_cold_keys_until_its_next_start(sim):
    net = "virtio=BC:24:11:00:00:01,bridge=vmbr0"
    add_guest(sim.state, "qemu", 100, "node1", {"name": "web", "cores": 1, "scsi0": "local-lvm:8", "net0": net},
              status="running")
    ok(sim, "PUT", "/nodes/node1/qemu/100/config", {"name": "api", "cores": 4, "net0": net.replace("vmbr0", "vmbr1")})
    current = config(sim, "qemu", 100, current=1)
    assert current["name"] == "api" and current["cores"] == 1 and "bridge=vmbr1" in current["net0"]
    assert config(sim, "qemu", 100)["cores"] == 4
    assert sim.state.guests[100]["name"] == "api"  # what pools.py reads
    run(sim, "POST", "/nodes/node1/qemu/100/status/stop")
    run(sim, "POST", "/nodes/node1/qemu/100/status/start")
    assert config(sim, "qemu", 100, current=1)["cores"] == 4


def test_a_stopped_guest_applies_at_once_and_a_nic_without_mac_gets_a_new_one(sim):
    add_guest(sim.state, "qemu", 100, "node1", {"net0": "virtio=BC:24:11:00:00:01,bridge=vmbr0"})
    ok(sim, "PUT", "/nodes/node1/qemu/100/config", {"net0": "virtio,bridge=vmbr0", "onboot": 1})
    conf = config(sim, "qemu", 100, current=1)
    assert conf["onboot"] == 1 and "BC:24:11:00:00:01" not in conf["net0"] and conf["net0"].startswith("virtio=")
    # POST is the asynchronous variant: a qmconfig task, and a new disk gets its volume
    assert ":qmconfig:100:" in run(sim, "POST", "/nodes/node1/qemu/100/config", {"virtio1": "local-lvm:2"})
    assert config(sim, "qemu", 100)["virtio1"] == "local-lvm:vm-100-disk-0,size=2G"


@pytest.mark.parametrize("typ, message", [
    ("lxc", "detected modified configuration - file changed by other user? Try again.\n"),
    ("qemu", "checksum mismatch (file change by other user?)\n"),
])
def test_a_stale_digest_is_refused_with_the_types_wording(sim, typ, message):
    add_guest(sim.state, typ, 130, "node1", {"onboot": 0})
    digest = config(sim, typ, 130)["digest"]
    ok(sim, "PUT", f"/nodes/node1/{typ}/130/config", {"onboot": 1, "digest": digest})
    assert sim.request("PUT", f"/nodes/node1/{typ}/130/config", {"onboot": 0, "digest": digest}) == err(message)


@pytest.mark.parametrize("typ, form, expected", [
    ("lxc", {}, err("no options specified\n")),
    ("qemu", {}, err("no options specified\n")),
    ("lxc", {"delete": "nosuch"}, (400, {"delete": "unknown option 'nosuch'"})),
    ("qemu", {"delete": "onboot", "onboot": 1}, (400, {"delete": "you can't use '-onboot' and -delete onboot' "
                                                                 "at the same time"})),
    ("lxc", None, err("CT is locked (backup)\n")),
    ("qemu", None, err("VM is locked (backup)\n")),
    ("lxc", {"unprivileged": 0}, err("unable to modify read-only option: 'unprivileged'\n")),
    ("qemu", {"onboot": 1, "skiplock": 1}, (400, {"skiplock": "Only root may use this option."})),
])
def test_update_refusals_carry_pves_wording(sim, typ, form, expected):
    add_guest(sim.state, typ, 130, "node1", {"onboot": 0})
    if form is None:  # a locked guest
        sim.state.guests[130]["lock"] = "backup"
        form = {"onboot": 1}
    status, body = sim.request("PUT", f"/nodes/node1/{typ}/130/config", form)
    if status == 400:
        assert (status, body["errors"]) == expected
    else:
        assert (status, body) == expected


@pytest.mark.parametrize("style, tags, stored", [
    ("", "Web;db,WEB app", "app;db;web"),
    ("case-sensitive=1", "Web;db;web", "Web;db;web"),
    ("ordering=config", "web;App;db", "web;app;db"),
])
def test_tags_are_normalised_as_the_datacenter_tag_style_says(sim, style, tags, stored):
    sim.state.datacenter["tag-style"] = style
    add_guest(sim.state, "qemu", 100, "node1")
    ok(sim, "PUT", "/nodes/node1/qemu/100/config", {"tags": tags})
    assert config(sim, "qemu", 100)["tags"] == stored


# -- resize -----------------------------------------------------------------------------------------------

def test_resize_grows_the_volume_and_refuses_to_shrink(sim):
    add_guest(sim.state, "lxc", 101, "node1", {"rootfs": "local-lvm:8"})
    add_guest(sim.state, "qemu", 100, "node1", {"scsi0": "local-lvm:8,ssd=1"})
    assert ":resize:101:" in run(sim, "PUT", "/nodes/node1/lxc/101/resize", {"disk": "rootfs", "size": "+2G"})
    assert config(sim, "lxc", 101)["rootfs"] == "local-lvm:vm-101-disk-0,size=10G"
    run(sim, "PUT", "/nodes/node1/qemu/100/resize", {"disk": "scsi0", "size": "12G"})
    assert config(sim, "qemu", 100)["scsi0"] == "local-lvm:vm-100-disk-0,size=12G,ssd=1"
    assert sim.state.volumes["local-lvm"]["vm-100-disk-0"]["size"] == 12 * GIB
    # a container refuses at once, a VM's task fails
    assert sim.request("PUT", "/nodes/node1/lxc/101/resize", {"disk": "rootfs", "size": "4G"}) == \
        err("unable to shrink disk size\n")
    upid = ok(sim, "PUT", "/nodes/node1/qemu/100/resize", {"disk": "scsi0", "size": "4G"})
    assert task(sim, upid) == "shrinking disks is not supported"


# -- power ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("typ, force, exitstatus, status", [
    ("lxc", 0, "container did not stop", "running"),
    ("lxc", 1, "OK", "stopped"),
    ("qemu", 0, "VM quit/powerdown failed - got timeout", "running"),
    ("qemu", 1, "WARNINGS: 1", "stopped"),
])
def test_a_guest_ignoring_shutdown_times_out_unless_forced(sim, typ, force, exitstatus, status):
    add_guest(sim.state, typ, 140, "node1", status="running")
    sim.state.shutdown_ignored.add(140)
    upid = ok(sim, "POST", f"/nodes/node1/{typ}/140/status/shutdown", {"timeout": 5, "forceStop": force})
    assert task(sim, upid) == exitstatus
    assert sim.state.guests[140]["status"] == status


@pytest.mark.parametrize("typ, action, status, expected", [
    ("lxc", "start", "running", err("CT 140 already running\n")),
    ("lxc", "stop", "stopped", err("CT 140 not running\n")),
    ("lxc", "reboot", "stopped", err("VM 140 not running\n")),
    ("qemu", "reboot", "stopped", err("VM 140 not running\n")),
    ("qemu", "start", "running", ("task", "VM 140 already running")),
    ("qemu", "stop", "stopped", ("task", "OK")),
])
def test_power_refusals_come_where_pve_raises_them(sim, typ, action, status, expected):
    add_guest(sim.state, typ, 140, "node1", status=status)
    got = sim.request("POST", f"/nodes/node1/{typ}/140/status/{action}")
    if expected[0] == "task":
        assert got[0] == 200 and task(sim, got[1]["data"]) == expected[1]
    else:
        assert got == expected


@pytest.mark.parametrize("typ, message", [("lxc", "you can't start a CT if it's a template"),
                                          ("qemu", "you can't start a vm if it's a template")])
def test_a_template_refuses_to_start(sim, typ, message):
    add_guest(sim.state, typ, 140, "node1", template=True)
    assert task(sim, ok(sim, "POST", f"/nodes/node1/{typ}/140/status/start")) == message


# -- clone and template -----------------------------------------------------------------------------------

def test_a_template_clones_linked_and_full(sim):
    net = "virtio=BC:24:11:00:00:01,bridge=vmbr0"
    add_guest(sim.state, "qemu", 100, "node1", {"name": "web", "scsi0": "local-lvm:8", "vmgenid": "1-2-3", "net0": net})
    run(sim, "POST", "/nodes/node1/qemu/100/template")
    assert config(sim, "qemu", 100)["scsi0"] == "local-lvm:base-100-disk-0,size=8G"
    assert sim.request("POST", "/nodes/node1/qemu/100/template") == \
        err("you can't convert a template to a template\n")
    sim.state.pools["lab"] = {"vms": set(), "storage": set()}
    run(sim, "POST", "/nodes/node1/qemu/100/clone", {"newid": 101, "pool": "lab"})
    linked = config(sim, "qemu", 101)
    assert linked["scsi0"] == "local-lvm:base-100-disk-0/vm-101-disk-0,size=8G"
    assert linked["name"] == "Copy-of-VM-web" and "template" not in linked
    assert "BC:24:11:00:00:01" not in linked["net0"] and linked["vmgenid"] != "1-2-3"
    assert sim.state.pools["lab"]["vms"] == {"101"}
    assert sim.request("POST", "/nodes/node1/qemu/100/clone", {"newid": 102, "full": 1, "target": "node2"}) == \
        err("can't clone VM to node 'node2' (VM uses local storage)\n")
    run(sim, "POST", "/nodes/node1/qemu/100/clone", {"newid": 102, "full": 1, "name": "copy"})
    assert config(sim, "qemu", 102)["scsi0"] == "local-lvm:vm-102-disk-0,size=8G"
    # the template's base volume backs the linked clone: destroying it keeps the volume, with a warning
    assert task(sim, ok(sim, "DELETE", "/nodes/node1/qemu/100")) == "WARNINGS: 1"
    assert "base-100-disk-0" in sim.state.volumes["local-lvm"]


@pytest.mark.parametrize("form, message", [
    ({"full": 0}, "Linked clone feature is not supported for 'local-lvm:vm-100-disk-0' (scsi0)\n"),
    ({"full": 0, "storage": "local-lvm"}, "parameter 'storage' not allowed for linked clones\n"),
    ({"newid": 100}, "unable to create VM 100: config file already exists\n"),
])
def test_clone_refusals(sim, form, message):
    add_guest(sim.state, "qemu", 100, "node1", {"scsi0": "local-lvm:8"})
    assert sim.request("POST", "/nodes/node1/qemu/100/clone", dict({"newid": 101}, **form)) == err(message)


# -- destroy ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("typ, arrange, expected", [
    ("lxc", "protection", err("can't remove CT 160 - protection mode enabled\n")),
    ("qemu", "protection", err("can't remove VM 160 - protection mode enabled\n")),
    ("lxc", "lock", err("CT is locked (backup)\n")),
    ("qemu", "lock", ("task", "VM is locked (backup)")),
    ("lxc", "ha", err("unable to remove CT 160 - used in HA resources and purge parameter not set.\n")),
    ("qemu", "ha", err("unable to remove VM 160 - used in HA resources and purge parameter not set.\n")),
    ("qemu", "replication", err("There is a replication job '160-0' for guest '160' - Please remove that first.\n")),
    ("lxc", "running", err("unable to destroy CT 160 - container is running\n")),
    ("qemu", "running", err("VM 160 is running - destroy failed\n")),
])
def test_each_destroy_refusal_comes_in_pves_order(sim, typ, arrange, expected):
    state = sim.state
    add_guest(state, typ, 160, "node1", {"protection": 1} if arrange == "protection" else {},
              status="running" if arrange == "running" else "stopped")
    state.guests[160]["lock"] = "backup" if arrange == "lock" else None
    if arrange == "ha":
        state.ha_resources[f"{'ct' if typ == 'lxc' else 'vm'}:160"] = {"type": "ct" if typ == "lxc" else "vm"}
    if arrange == "replication":
        state.replication_jobs["160-0"] = {"type": "local", "target": "node2", "source": "node1"}
    got = sim.request("DELETE", f"/nodes/node1/{typ}/160")
    if expected[0] == "task":
        assert got[0] == 200 and task(sim, got[1]["data"]) == expected[1]
    else:
        assert got == expected
    assert 160 in state.guests


@pytest.mark.parametrize("typ", ["lxc", "qemu"])
def test_destroy_frees_volumes_and_purge_removes_the_guest_everywhere(sim, typ):
    state = sim.state
    disk = "rootfs" if typ == "lxc" else "scsi0"
    add_guest(state, typ, 160, "node1", {disk: "local-lvm:8"})
    add_guest(state, typ, 161, "node1", {disk: "local-lvm:8"})
    state.pools["lab"] = {"vms": {"160", "161"}, "storage": set()}
    state.set_acl("/vms/160", "PVEAuditor", users="root@pam")
    state.ha_resources[f"{'ct' if typ == 'lxc' else 'vm'}:160"] = {"type": "ct" if typ == "lxc" else "vm"}
    state.replication_jobs["160-0"] = {"type": "local", "target": "node2", "source": "node1"}
    state.backup_jobs["both"] = {"type": "vzdump", "vmid": "160,161"}
    state.backup_jobs["only"] = {"type": "vzdump", "vmid": "160"}
    state.backup_jobs["all"] = {"type": "vzdump", "all": "1", "exclude": "160"}
    upid = run(sim, "DELETE", f"/nodes/node1/{typ}/160", {"purge": 1})
    assert f":{'vzdestroy' if typ == 'lxc' else 'qmdestroy'}:160:" in upid
    assert 160 not in state.guests and "vm-160-disk-0" not in state.volumes["local-lvm"]
    assert state.pools["lab"]["vms"] == {"161"} and "/vms/160" not in state.acl
    assert state.ha_resources == {} and state.replication_jobs == {}
    assert state.backup_jobs == {"both": {"type": "vzdump", "vmid": "161"}, "all": {"type": "vzdump", "all": "1"}}
    # without purge only the ACL path and the pool membership go
    run(sim, "DELETE", f"/nodes/node1/{typ}/161")
    assert state.pools["lab"]["vms"] == set() and state.backup_jobs["both"] == {"type": "vzdump", "vmid": "161"}


# -- /cluster/resources -----------------------------------------------------------------------------------

def test_cluster_resources_show_a_read_only_token_only_what_it_may_audit(sim):
    state = sim.state
    add_guest(state, "qemu", 100, "node1", {"name": "web", "tags": "prod"}, status="running")
    add_guest(state, "lxc", 101, "node2", {"hostname": "db"})
    state.pools["lab"] = {"vms": {"100"}, "storage": set()}
    state.ha_resources["vm:100"] = {"type": "vm", "state": "started"}
    state.guests[100]["lock"] = "backup"
    rows = ok(sim, "GET", "/cluster/resources", {"type": "vm"})
    assert [(row["id"], row.get("pool"), row.get("hastate"), row.get("lock")) for row in rows] == \
        [("qemu/100", "lab", "started", "backup"), ("lxc/101", None, None, None)]
    if "ro@pve" not in state.users:
        state.add_user("ro@pve")
    secret = state.add_token("ro@pve", "ro", privsep=1)
    state.set_acl("/vms/100", "PVEAuditor", users="ro@pve", tokens="ro@pve!ro")
    token = ("ro@pve!ro", secret)
    rows = ok(sim, "GET", "/cluster/resources", token=token)
    guests = [row for row in rows if row["type"] in ("qemu", "lxc")]
    assert [(row["id"], row["name"], row["status"], row["tags"], "pool" in row) for row in guests] == \
        [("qemu/100", "web", "running", "prod", False)]  # no Pool.Audit on /pool/lab
    nodes = [row for row in rows if row["type"] == "node"]
    assert len(nodes) == 3 and all("maxmem" not in row for row in nodes)  # no Sys.Audit
    assert not [row for row in rows if row["type"] in ("storage", "pool")]
    full = ok(sim, "GET", "/cluster/resources", {"type": "storage"})
    assert {row["id"] for row in full} >= {"storage/node1/local-lvm", "storage/node3/local"}


# -- descriptions: the config file's '#' lines (write_pct_config / write_vm_config, parse_*_config) ---------------

@pytest.mark.parametrize("typ, text, lines, read_back", [
    ("lxc", "hello", ["#hello"], "hello\n"),                       # every line reads back with a newline
    ("lxc", "a\n\nb\n\n", ["#a", "#", "#b"], "a\n\nb\n"),          # split(/\n/): trailing empty lines dropped
    ("lxc", "\n\nlead", ["#", "#", "#lead"], "\n\nlead\n"),        # leading ones kept
    ("lxc", "0", [], None),                                        # Perl-false: nothing written
    ("lxc", "\n", [], None),
    ("lxc", " x \n\t", ["# x ", "#%09"], " x \n\t\n"),
    ("qemu", "hello", ["#hello"], "hello"),
    ("qemu", "block\n", ["#block"], "block"),                      # a YAML block's last newline is gone
    ("qemu", "a\n\nb  \n\n", ["#a", "#", "#b  "], "a\n\nb"),       # s/\s+$//: trailing white space stripped
    ("qemu", " \u3000", ["# %E3%80%80"], ""),                      # Perl's \s is Unicode's on decoded text
    ("qemu", "0", [], None),
    ("qemu", "100%: café\r", ["#100%25%3A caf%C3%A9%0D"], "100%: café"),  # encode_text: '%', ':', controls, UTF-8
])
def test_a_description_is_written_as_comment_lines_and_read_back_as_pve_parses_it(typ, text, lines, read_back):
    guest = g.new_guest(typ, "node1")
    guest["config"].update({"description": text, "memory": "512"})
    assert g.file_text(guest) == "".join(line + "\n" for line in lines + ["memory: 512"])
    assert g.reload(guest)["config"].get("description") == read_back
    again = g.file_text(guest)
    assert g.file_text(g.reload(guest)) == again  # settled: the next write writes the same file


def test_descriptions_are_parsed_per_section_as_each_parser_does():
    lxc_file = "#main %25\ndescription: old\narch: amd64\n\n[pve:pending]\n#later\n\n[snap1]\n#before\n"
    assert g.parse_descriptions("lxc", lxc_file) == {"main": "main %\nold", "pending": "later\n",
                                                     ("snapshot", "snap1"): "before\n"}
    # qemu-server: a false description in [PENDING] is a bare '#'; an unknown section's lines are skipped
    qm_file = "#one\n#\n\n[PENDING]\n#\n\n[special:cloudinit]\n#ci \n\n[what ever]\n#lost\n\n[s1]\n#snap\n#\n"
    assert g.parse_descriptions("qemu", qm_file) == {"main": "one", "pending": "", ("special", "cloudinit"): "ci",
                                                     ("snapshot", "s1"): "snap"}
    assert g.decode_text("%C3%A9%ZZ%e2%82") == "é%ZZ\ufffd"  # lax UTF-8, unknown escapes kept


def test_descriptions_read_back_over_the_api_as_pve_parses_them(sim):
    add_guest(sim.state, "lxc", 101, "node1", {"hostname": "ct", "rootfs": "local-lvm:8", "description": "seeded"})
    add_guest(sim.state, "qemu", 102, "node1", {"name": "vm", "description": "seeded\n"})
    assert config(sim, "lxc", 101)["description"] == "seeded\n"
    assert config(sim, "qemu", 102)["description"] == "seeded"
    ok(sim, "PUT", "/nodes/node1/lxc/101/config", {"description": "one\ntwo"})
    ok(sim, "PUT", "/nodes/node1/qemu/102/config", {"description": "one\ntwo \n"})
    assert config(sim, "lxc", 101)["description"] == "one\ntwo\n"
    assert config(sim, "qemu", 102)["description"] == "one\ntwo"
    # update_vm_api writes a pending description, reloads, then applies it: '0 ' is '0' once, then nothing
    ok(sim, "PUT", "/nodes/node1/qemu/102/config", {"description": "0 "})
    assert "description" not in config(sim, "qemu", 102)
    digest = config(sim, "lxc", 101)["digest"]
    ok(sim, "PUT", "/nodes/node1/lxc/101/config", {"description": "one\ntwo\n", "digest": digest})  # same file
    assert config(sim, "lxc", 101)["digest"] == digest


# -- error texts as the sources word them (issue 22) ----------------------------------------------------------

@pytest.mark.parametrize("typ, form", [("qemu", {}), ("lxc", {"ostemplate": DEBIAN})])
def test_a_missing_pool_is_a_permission_error(sim, typ, form):
    """RPCEnvironment.pm check_pool_exist raises a permission exception, not a plain die."""
    assert sim.request("POST", f"/nodes/node1/{typ}", dict(form, vmid=150, pool="nope")) == err(
        "Permission check failed (pool 'nope' does not exist)\n", 403)


def test_only_root_passes_a_path_with_perls_location(sim):
    """Storage.pm check_volume_access dies without a newline: Perl adds where."""
    state = sim.state
    if "admin@pve" not in state.users:
        state.add_user("admin@pve")
    secret = state.add_token("admin@pve", "tk", privsep=0)
    state.set_acl("/", "Administrator", users="admin@pve")
    assert sim.request("POST", "/nodes/node1/qemu", {"vmid": 150, "scsi0": "/dev/sdb"},
                       token=("admin@pve!tk", secret)) == err(
        "Only root can pass arbitrary filesystem paths. at /usr/share/perl5/PVE/Storage.pm line 651.\n")


def test_a_base_volume_backing_a_linked_clone_is_kept_with_vdisk_frees_words(sim):
    add_guest(sim.state, "qemu", 100, "node1", {"name": "web", "scsi0": "local-lvm:8"})
    run(sim, "POST", "/nodes/node1/qemu/100/template")
    run(sim, "POST", "/nodes/node1/qemu/100/clone", {"newid": 101})
    upid = ok(sim, "DELETE", "/nodes/node1/qemu/100")
    assert task(sim, upid) == "WARNINGS: 1"
    assert ok(sim, "GET", f"/nodes/node1/tasks/{upid}/log")[0]["t"] == (
        "Could not remove disk 'local-lvm:base-100-disk-0', check manually: "
        "base volume 'base-100-disk-0' is still in use by linked clones")


def test_a_volume_of_another_content_type_dies_with_perls_location(sim):
    """API2/Qemu.pm $create_disks (the request's own check answers first over the API)."""
    from simulator.pve.handlers import qemu
    with pytest.raises(g.ApiError) as died:
        qemu.create_disks(sim.state, 152, {}, {"scsi0": DEBIAN}, None, "node1", [])
    assert died.value.message == (f"cannot use volume {DEBIAN} - content type needs to be 'images' or 'iso' "
                                  "at /usr/share/perl5/PVE/API2/Qemu.pm line 688.\n")


def test_resizing_another_containers_volume_dies_with_perls_location(sim):
    add_guest(sim.state, "lxc", 160, "node1", {"rootfs": "local-lvm:8"})
    add_guest(sim.state, "lxc", 161, "node1", {"rootfs": "local-lvm:vm-160-disk-0,size=8G"})
    assert sim.request("PUT", "/nodes/node1/lxc/161/resize", {"disk": "rootfs", "size": "+1G"}) == err(
        "can't resize mount point owned by another container (160) at /usr/share/perl5/PVE/API2/LXC.pm line 2386.\n")
