"""The simulator's Ceph OSDs, service stop/start, disk list (tests/simulator/pve/handlers/ceph_osd.py) and
monitors (handlers/ceph_mon.py) over real HTTPS, with pve-manager's checks, tasks and read shapes.

Run: python -m pytest tests/unit/test_simulator_ceph_osd.py -q
"""

import http.client
import json
import ssl
import sys
import time
import urllib.parse
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import
from simulator.pve.handlers import ceph, zfs  # noqa: E402

OSD = "/nodes/node1/ceph/osd"
MON = "/nodes/node1/ceph/mon"
DISKS = "/nodes/node1/disks/list"


@pytest.fixture(autouse=True)
def cluster(sim):
    """Every test starts with a healthy Ceph (osd.0..5, two per node) and four free disks per node."""
    state = sim.state
    saved = state.snapshot()
    ceph.ceph_init(state)
    zfs.zfs_init(state)
    yield state
    with state.lock:
        state.restore(saved)
        state.disks = {}


def ok(sim, method, path, form=None):
    status, body = sim.request(method, path, form)
    assert status == 200, (method, path, form, body)
    return body["data"]


def err(sim, method, path, form=None):
    status, body = sim.request(method, path, form)
    return status, body.get("message") if isinstance(body, dict) else body


def task(sim, upid, node="node1"):
    quoted = urllib.parse.quote(upid, safe="")
    return ok(sim, "GET", f"/nodes/{node}/tasks/{quoted}/status")["exitstatus"]


def run(sim, method, path, form=None, node="node1"):
    upid = ok(sim, method, path, form)
    return upid, task(sim, upid, node)


def task_log(sim, upid, node="node1"):
    """The task's log lines without the closing TASK line."""
    quoted = urllib.parse.quote(upid, safe="")
    return [line["t"] for line in ok(sim, "GET", f"/nodes/{node}/tasks/{quoted}/log", {"limit": 0})][:-1]


def as_root(sim, method, path, form=None):
    """root@pam with a ticket: the only caller a method without permissions lets through."""
    ctx = ssl.create_default_context(cafile=sim.ca_path)
    host, port = sim.members[0].split(":")

    def call(meth, url, headers, body):
        conn = http.client.HTTPSConnection(host, int(port), timeout=10, context=ctx)
        try:
            conn.request(meth, "/api2/json" + url, body=body, headers=headers)
            resp = conn.getresponse()
            return resp.status, json.loads(resp.read() or b"null")
        finally:
            conn.close()

    form_type = {"Content-Type": "application/x-www-form-urlencoded"}
    login = call("POST", "/access/ticket", form_type,
                 urllib.parse.urlencode({"username": "root@pam", "password": sim.root_password}))[1]["data"]
    headers = {"Cookie": "PVEAuthCookie=" + urllib.parse.quote(login["ticket"]),
               "CSRFPreventionToken": login["CSRFPreventionToken"], **form_type}
    encoded = urllib.parse.urlencode(form or {})
    if method in ("GET", "DELETE"):
        return call(method, path + ("?" + encoded if encoded else ""), headers, None)
    return call(method, path, headers, encoded)


def root_task(sim, method, path, form=None, node="node1"):
    status, body = as_root(sim, method, path, form)
    assert status == 200, body
    return body["data"], task(sim, body["data"], node)


def osds(sim):
    """id -> leaf of the CRUSH tree."""
    tree = ok(sim, "GET", OSD)["root"]["children"][0]
    return {leaf["id"]: leaf for host in tree.get("children", []) for leaf in host.get("children", [])}


def disk(sim, dev, node="node1"):
    return next(row for row in ok(sim, "GET", f"/nodes/{node}/disks/list") if row["devpath"] == dev)


# -- OSD tree ---------------------------------------------------------------------------------

def test_osd_tree_shape_and_flags(sim, cluster):
    data = ok(sim, "GET", OSD)
    root = data["root"]["children"][0]
    assert data["root"]["leaf"] == 0 and (root["name"], root["type"], root["id"]) == ("default", "root", -1)
    assert [(h["name"], h["type"], h["id"]) for h in root["children"]] == [
        ("node1", "host", -2), ("node2", "host", -3), ("node3", "host", -4)]
    leaf = root["children"][0]["children"][0]
    assert {k: leaf[k] for k in ("id", "name", "type", "status", "in", "host", "device_class", "leaf")} == {
        "id": 0, "name": "osd.0", "type": "osd", "status": "up", "in": 1, "host": "node1",
        "device_class": "ssd", "leaf": 1}
    assert data["flags"] == "sortbitwise,recovery_deletes,purged_snapdirs,pglog_hardlimit"
    ok(sim, "PUT", "/cluster/ceph/flags/noout", {"value": 1})
    assert ok(sim, "GET", OSD)["flags"].startswith("noout,sortbitwise")


def test_osd_reads_without_ceph_die(sim, cluster):
    cluster.ceph = None
    assert err(sim, "GET", OSD) == (500, "binary not installed: /usr/bin/ceph-mon\n")


# -- create -----------------------------------------------------------------------------------

def test_create_osd_by_id_link_marks_the_disk(sim, cluster):
    upid, status = root_task(sim, "POST", OSD, {"dev": "/dev/disk/by-id/ata-SIM_SSD_node1_0",
                                                "crush-device-class": "nvme"})
    assert status == "OK" and ":cephcreateosd:sdb:root@pam:" in upid
    # OSD.pm's and wipe_blockdev's prints, then ceph-volume's last line
    assert task_log(sim, upid) == ["create OSD on /dev/sdb (bluestore)", "wiping block device /dev/sdb",
                                   "--> ceph-volume lvm create successful for: /dev/sdb"]
    new = osds(sim)[6]
    assert (new["host"], new["status"], new["in"], new["device_class"]) == ("node1", "up", 1, "nvme")
    row = disk(sim, "/dev/sdb")
    assert (row["used"], row["osdid"], row["osdid-list"], row["bluestore"]) == ("LVM", 6, [6], 1)


def test_create_osd_takes_lowest_free_id_and_disk_class(sim, cluster):
    del cluster.ceph["osds"][1]
    cluster.disks["node1"]["/dev/sdc"]["type"] = "hdd"
    assert root_task(sim, "POST", OSD, {"dev": "/dev/sdc"})[1] == "OK"
    assert (osds(sim)[1]["device_class"], osds(sim)[1]["host"]) == ("hdd", "node1")


@pytest.mark.parametrize("setup, form, message", [
    (lambda s: s.disks["node1"]["/dev/sdb"].update(used="LVM"), {"dev": "/dev/sdb"},
     "device '/dev/sdb' is already in use\n"),
    (lambda s: s.zfs_pools.setdefault("node1", {}).update(tank={"devices": ["/dev/sdb"]}), {"dev": "/dev/sdb"},
     "device '/dev/sdb' is already in use\n"),
    (None, {"dev": "/dev/sdz"}, "not a valid block device\n"),
    (lambda s: s.disks["node1"]["/dev/sdc"].update(used="ext4"), {"dev": "/dev/sdb", "db_dev": "/dev/sdc"},
     "device '/dev/sdc' is already in use and has no LVM on it\n"),
    (lambda s: setattr(s, "ceph", None), {"dev": "/dev/sdb"}, "binary not installed: /usr/bin/ceph-mon\n"),
])
def test_create_osd_refusals(sim, cluster, setup, form, message):
    if setup:
        setup(cluster)
    assert as_root(sim, "POST", OSD, form) == (500, {"data": None, "message": message})


def test_create_osd_same_disk_twice_is_a_parameter_error(sim, cluster):
    status, body = as_root(sim, "POST", OSD, {"dev": "/dev/sdb", "db_dev": "/dev/disk/by-id/ata-SIM_SSD_node1_0"})
    assert status == 400 and body["errors"] == {"db_dev": "cannot chose '/dev/sdb' for more than one type."}


def test_create_osd_schema_validation(sim, cluster):
    status, body = as_root(sim, "POST", OSD, {"dev": "/dev/sdb", "encrypted": "maybe"})
    assert status == 400 and "encrypted" in body["errors"]
    status, body = as_root(sim, "POST", OSD, {})
    assert status == 400 and "dev" in body["errors"]


def test_root_only_methods_refuse_every_token(sim, cluster):
    assert err(sim, "POST", OSD, {"dev": "/dev/sdb"}) == (403, "Permission check failed (user != root@pam)\n")
    assert err(sim, "DELETE", f"{OSD}/0") == (403, "Permission check failed (user != root@pam)\n")


def test_forced_task_failure_changes_nothing(sim, cluster):
    cluster.task_outcomes["cephcreateosd"] = "command 'ceph-volume lvm create' failed: exit code 1"
    assert root_task(sim, "POST", OSD, {"dev": "/dev/sdb"})[1] == "command 'ceph-volume lvm create' failed: exit code 1"
    assert 6 not in osds(sim) and "used" not in disk(sim, "/dev/sdb")


# -- in / out / stop / destroy ------------------------------------------------------------------

def test_out_in_and_unknown_osd(sim, cluster):
    assert ok(sim, "POST", f"{OSD}/0/out") is None
    assert osds(sim)[0]["in"] == 0 and osds(sim)[0]["reweight"] == 0
    ok(sim, "POST", f"{OSD}/0/in")
    assert osds(sim)[0]["in"] == 1
    assert err(sim, "POST", f"{OSD}/42/out") == (500, "no such OSD '42'\n")


def test_destroy_refusals_in_pve_order(sim, cluster):
    # a die without newline: Perl's suffix names destroyosd's die, line 1008 at pve-manager 14a22df3
    belongs = "OSD osd.{} does not belong to node node1! at /usr/share/perl5/PVE/API2/Ceph/OSD.pm line 1008.\n"
    assert as_root(sim, "DELETE", f"{OSD}/42")[1]["message"] == belongs.format(42)
    assert as_root(sim, "DELETE", f"{OSD}/2")[1]["message"] == belongs.format(2)  # osd.2 is node2's
    assert as_root(sim, "DELETE", f"{OSD}/0")[1]["message"] == "osd is in use (in == 1)\n"
    ok(sim, "POST", f"{OSD}/0/out")
    assert as_root(sim, "DELETE", f"{OSD}/0")[1]["message"] == "osd is still running (up == 1)\n"


def test_stop_goes_down_after_apply_delay_then_destroy(sim, cluster):
    cluster.ceph["apply_delay"] = 0.4
    ok(sim, "POST", f"{OSD}/0/out")
    upid, status = run(sim, "POST", "/nodes/node1/ceph/stop", {"service": "osd.0"})
    assert status == "OK" and ":srvstop:osd.0:" in upid
    assert osds(sim)[0]["status"] == "up"  # not yet: a client must settle
    time.sleep(0.5)
    assert osds(sim)[0]["status"] == "down"
    upid, status = root_task(sim, "DELETE", f"{OSD}/0")
    assert status == "OK" and ":cephdestroyosd:osd.0:" in upid
    assert 0 not in osds(sim)


def test_destroy_keeps_the_lvm_unless_cleanup(sim, cluster):
    for dev in ("/dev/sdb", "/dev/sdc"):
        root_task(sim, "POST", OSD, {"dev": dev})
    for osd_id in (6, 7):
        ok(sim, "POST", f"{OSD}/{osd_id}/out")
        run(sim, "POST", "/nodes/node1/ceph/stop", {"service": f"osd.{osd_id}"})
    upid = root_task(sim, "DELETE", f"{OSD}/6")[0]
    assert task_log(sim, upid) == [
        "destroy OSD osd.6", "Remove osd.6 from the CRUSH map", "Remove the osd.6 authentication key.",
        "Remove OSD osd.6", "Remove osd.6 mclock max capacity iops settings from config",
        "--> Zapping successful for OSD: 6"]
    row = disk(sim, "/dev/sdb")
    assert (row["used"], row["osdid"], row["osdid-list"]) == ("LVM", -1, None)
    root_task(sim, "DELETE", f"{OSD}/7", {"cleanup": 1})
    assert "used" not in disk(sim, "/dev/sdc") and disk(sim, "/dev/sdc")["osdid"] == -1
    assert [h["name"] for h in ok(sim, "GET", OSD)["root"]["children"][0]["children"]] == [
        "node1", "node2", "node3"]


def test_start_brings_osd_up_and_other_services(sim, cluster):
    run(sim, "POST", "/nodes/node1/ceph/stop")  # ceph.target: every daemon of node1
    assert (osds(sim)[0]["status"], osds(sim)[1]["status"], osds(sim)[2]["status"]) == ("down", "down", "up")
    upid, status = run(sim, "POST", "/nodes/node1/ceph/start", {"service": "osd.0"})
    assert status == "OK" and ":srvstart:osd.0:" in upid and osds(sim)[0]["status"] == "up"
    assert run(sim, "POST", "/nodes/node1/ceph/start", {"service": "osd.2"})[1] == (
        "command '/bin/systemctl start ceph-osd@2' failed: exit code 1")
    assert run(sim, "POST", "/nodes/node1/ceph/stop", {"service": "mgr.node1"})[1] == "OK"
    upid = run(sim, "POST", "/nodes/node1/ceph/start")[0]
    assert ":srvstart:ceph:" in upid and osds(sim)[1]["status"] == "up"


def test_stop_service_pattern_is_validated(sim, cluster):
    assert err(sim, "POST", "/nodes/node1/ceph/stop", {"service": "rgw.x"})[0] == 400


def test_osd_metadata_and_index(sim, cluster):
    root_task(sim, "POST", OSD, {"dev": "/dev/sdb"})
    assert ok(sim, "GET", f"{OSD}/6") == [{"name": "metadata"}, {"name": "lv-info"}]
    data = ok(sim, "GET", f"{OSD}/6/metadata")
    assert (data["osd"]["hostname"], data["osd"]["id"], data["osd"]["osd_objectstore"]) == ("node1", 6, "bluestore")
    assert data["devices"] == [{"dev_node": "/dev/dm-6", "physical_device": "sdb", "size": zfs.DISK_SIZE,
                                "support_discard": 1, "type": "ssd", "device": "block"}]
    assert err(sim, "GET", f"{OSD}/2/metadata") == (500, "OSD '2' does not exists on host 'node1'\n")
    assert err(sim, "GET", f"{OSD}/42/metadata") == (
        500, "error with 'osd metadata': mon_cmd failed - osd.42 does not exist\n")


# -- disks ------------------------------------------------------------------------------------

def test_disk_list_shape_and_filters(sim, cluster):
    rows = ok(sim, "GET", DISKS)
    assert [r["devpath"] for r in rows] == ["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"]
    assert {k: rows[0][k] for k in ("by_id_link", "size", "type", "health", "gpt", "osdid", "osdid-list",
                                    "serial")} == {
        "by_id_link": "/dev/disk/by-id/ata-SIM_SSD_node1_0", "size": zfs.DISK_SIZE, "type": "ssd",
        "health": "PASSED", "gpt": 0, "osdid": -1, "osdid-list": None, "serial": "node1_0"}
    assert "used" not in rows[0] and "mounted" not in rows[0]
    cluster.zfs_pools["node1"] = {"tank": {"devices": ["/dev/sdb"]}}
    cluster.disks["node1"]["/dev/sdc"]["used"] = "LVM"
    assert disk(sim, "/dev/sdb")["used"] == "ZFS" and disk(sim, "/dev/sdb")["gpt"] == 1
    assert [r["devpath"] for r in ok(sim, "GET", DISKS, {"type": "unused"})] == ["/dev/sdd", "/dev/sde"]
    parts = ok(sim, "GET", DISKS, {"include-partitions": 1})
    assert [(r["devpath"], r.get("used")) for r in parts[:3]] == [
        ("/dev/sdb", "partitions"), ("/dev/sdb1", "ZFS"), ("/dev/sdb9", "ZFS reserved")]
    assert ok(sim, "GET", DISKS, {"skipsmart": 1})[0]["health"] == "UNKNOWN"
    assert err(sim, "GET", DISKS, {"type": "used"})[0] == 400


# -- monitors ---------------------------------------------------------------------------------

def test_mon_list_shape(sim, cluster):
    rows = ok(sim, "GET", MON)
    assert [r["name"] for r in rows] == ["node1", "node2", "node3"]
    assert {k: rows[0][k] for k in ("host", "addr", "rank", "quorum", "state", "service", "direxists")} == {
        "host": "node1", "addr": "10.0.0.1:6789/0", "rank": 0, "quorum": 1, "state": "running",
        "service": 1, "direxists": 1}
    run(sim, "POST", "/nodes/node2/ceph/stop", {"service": "mon.node2"}, node="node2")
    row = ok(sim, "GET", MON)[1]
    assert row["state"] == "stopped" and "quorum" not in row


def test_mon_create_and_refusals(sim, cluster):
    del cluster.ceph["mons"]["node1"]
    upid, status = run(sim, "POST", f"{MON}/node1")
    assert status == "OK" and ":cephcreatemon:mon.node1:" in upid
    assert ok(sim, "GET", MON)[0]["addr"] == "10.0.0.1:6789/0"
    assert err(sim, "POST", f"{MON}/extra") == (500, "monitor address '10.0.0.1' already in use\n")
    assert err(sim, "POST", f"{MON}/node2", {"mon-address": "10.0.1.2"}) == (
        500, "monitor 'node2' already exists\n")
    run(sim, "POST", f"{MON}/extra", {"mon-address": "10.0.1.2"})
    assert [r["addr"] for r in ok(sim, "GET", MON) if r["name"] == "extra"] == ["10.0.1.2:6789/0"]
    cluster.ceph["public_network"] = "10.0.0.0/24"
    assert err(sim, "POST", f"{MON}/other", {"mon-address": "10.9.9.9"}) == (
        500, "Specified monitor IP '10.9.9.9' not configured or up on node1!\n")
    assert err(sim, "POST", f"{MON}/bad", {"mon-address": "not-an-ip"})[0] == 400


def test_first_monitor_also_makes_the_manager(sim, cluster):
    cluster.ceph["mons"].clear()
    cluster.ceph["mgrs"].clear()
    upid = run(sim, "POST", f"{MON}/node1")[0]
    assert [m["name"] for m in ok(sim, "GET", "/nodes/node1/ceph/mgr")] == ["node1"]
    # createmon's prints around monmaptool's first line, then createmgr's
    assert task_log(sim, upid) == [
        "creating new monitor keyring", "monmaptool: monmap file /tmp/monmap",
        "created the first monitor, assume it's safe to disable insecure global ID reclaim for new setup",
        "Configuring keyring for ceph-crash.service", "creating manager directory '/var/lib/ceph/mgr/ceph-node1'"]
    upid = run(sim, "POST", f"{MON}/extra", {"mon-address": "10.0.1.9"})[0]
    assert task_log(sim, upid) == ["monmaptool: monmap file /tmp/monmap"]


def test_mon_destroy_and_refusals(sim, cluster):
    assert err(sim, "DELETE", f"{MON}/nope") == (500, "no such monitor id 'nope'\n")
    assert err(sim, "DELETE", f"{MON}/node2") == (
        500, "monitor filesystem '/var/lib/ceph/mon/ceph-node2' does not exist on this node\n")
    upid, status = run(sim, "DELETE", f"{MON}/node1")
    assert status == "OK" and ":cephdestroymon:mon.node1:" in upid
    assert [r["name"] for r in ok(sim, "GET", MON)] == ["node2", "node3"]
    del cluster.ceph["mons"]["node3"]
    assert err(sim, "DELETE", "/nodes/node2/ceph/mon/node2") == (500, "can't remove last monitor\n")
