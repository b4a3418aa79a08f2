"""The simulator's Ceph pools and flags (tests/simulator/pve/handlers/ceph.py) and ZFS pools
(tests/simulator/pve/handlers/zfs.py) over real HTTPS, with pve-manager's checks, tasks and read shapes.

Run: python -m pytest tests/unit/test_simulator_ceph.py -q
"""

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
from simulator.errors import die  # noqa: E402
from simulator.pve.handlers import ceph, ceph_daemons, zfs  # noqa: E402

POOL = "/nodes/node1/ceph/pool"
NO_POOL = "error with 'osd pool get': mon_cmd failed - unrecognized pool '{}'\n"


@pytest.fixture(autouse=True)
def cluster(sim):
    """Every test starts with a healthy Ceph (ceph_init), seeded ZFS disks and no storages but local."""
    state = sim.state
    saved = state.snapshot()
    ceph.ceph_init(state)
    zfs.zfs_init(state)
    yield state
    with state.lock:
        state.restore(saved)


def ok(sim, method, path, form=None):
    status, body = sim.request(method, path, form)
    assert status == 200, (method, path, form, body)
    return body["data"]


def task(sim, upid, node="node1"):
    """The finished task's exit status."""
    quoted = urllib.parse.quote(upid, safe="")
    return ok(sim, "GET", f"/nodes/{node}/tasks/{quoted}/status")["exitstatus"]


def run(sim, method, path, form=None, node="node1"):
    upid = ok(sim, method, path, form)
    assert upid.startswith(f"UPID:{node}:")
    return upid, task(sim, upid, node)


def status(sim, name, verbose=None):
    return ok(sim, "GET", f"{POOL}/{name}/status", {"verbose": verbose} if verbose else None)


def task_log(sim, upid, node="node1"):
    """The task's log lines without the closing TASK line."""
    quoted = urllib.parse.quote(upid, safe="")
    return [line["t"] for line in ok(sim, "GET", f"/nodes/{node}/tasks/{quoted}/log", {"limit": 0})][:-1]


# -- pools ----------------------------------------------------------------------------------

def test_seeded_cluster_has_the_mgr_pool(sim):
    pools = ok(sim, "GET", POOL)
    assert [p["pool_name"] for p in pools] == [".mgr"]
    row = pools[0]
    assert row["pg_num"] == 1 and row["size"] == 3 and row["min_size"] == 2
    assert row["crush_rule_name"] == "replicated_rule" and row["type"] == "replicated"
    assert row["application_metadata"] == {"mgr": {}}


def test_create_applies_pve_defaults_and_reads_back(sim):
    upid, exitstatus = run(sim, "POST", POOL, {"name": "vmpool"})
    assert exitstatus == "OK" and ":cephcreatepool:vmpool:" in upid
    data = status(sim, "vmpool", verbose=1)
    assert (data["size"], data["min_size"], data["pg_num"], data["pg_autoscale_mode"]) == (3, 2, 128, "warn")
    assert data["crush_rule"] == "replicated_rule" and data["application_list"] == ["rbd"]
    assert data["nodelete"] == "0" and "pg_num_min" not in data and "target_size" not in data
    assert "application_list" not in status(sim, "vmpool")
    assert ok(sim, "GET", f"{POOL}/vmpool") == [{"name": "status"}]


def test_create_with_hints_and_storage(sim):
    form = {"name": "rbd1", "size": 2, "min_size": 1, "pg_num": 32, "pg_num_min": 16, "target_size": "1G",
            "target_size_ratio": 0.5, "pg_autoscale_mode": "on", "add_storages": 1}
    assert run(sim, "POST", POOL, form)[1] == "OK"
    data = status(sim, "rbd1")
    assert (data["size"], data["min_size"], data["pg_num_min"], data["target_size"]) == (2, 1, 16, 1024 ** 3)
    assert data["target_size_ratio"] == 0.5
    assert sim.state.storage["rbd1"]["pool"] == "rbd1"
    assert ok(sim, "GET", "/storage/rbd1")["type"] == "rbd"


def test_erasure_coded_pool_makes_data_and_metadata_pools(sim):
    assert sim.request("POST", POOL, {"name": "ecp", "erasure-coding": "k=2,m=1,profile=nope"})[1]["message"] == (
        "Erasure code profile 'nope' does not exist.\n")
    upid, exitstatus = run(sim, "POST", POOL, {"name": "ecp", "erasure-coding": "k=2,m=1"})
    assert exitstatus == "OK" and ":cephcreatepool:ecp:" in upid
    rows = {p["pool_name"]: p for p in ok(sim, "GET", POOL)}
    assert (rows["ecp-data"]["type"], rows["ecp-metadata"]["type"]) == ("erasure", "replicated")
    assert rows["ecp-metadata"]["pg_num"] == 32 and rows["ecp-data"]["pg_num"] == 128
    assert sim.state.storage["ecp"] == {"type": "rbd", "pool": "ecp-metadata", "krbd": 0,
                                        "content": {"rootdir", "images"}, "data-pool": "ecp-data"}
    upid, exitstatus = run(sim, "PUT", f"{POOL}/ecp-data", {"size": 4, "min_size": 2})
    assert exitstatus == "OK" and task_log(sim, upid)[0] == "cannot set 'size' for erasure coded pool"
    assert status(sim, "ecp-data")["size"] == 3
    assert run(sim, "DELETE", f"{POOL}/ecp-data", {"force": 1})[1] == "OK"
    assert "pve_ec_ecp" not in sim.state.ceph["ec_profiles"]


def test_create_over_existing_pool_is_a_pg_merge(sim):
    run(sim, "POST", POOL, {"name": "p"})
    upid, exitstatus = run(sim, "POST", POOL, {"name": "p", "pg_num": 64})
    assert exitstatus == "OK" and status(sim, "p")["pg_num"] == 64
    # Ceph's "already exists" is not printed; set_pool skips what did not change
    assert task_log(sim, upid) == [
        "skipping 'size', did not change", "pool p: applying application = rbd",
        "skipping 'min_size', did not change", "skipping 'pg_autoscale_mode', did not change",
        "pool p: applying pg_num = 64"]


def test_create_failure_names_the_keys(sim):
    upid, exitstatus = run(sim, "POST", POOL, {"name": "p", "crush_rule": "nope"})
    assert exitstatus == "Could not set: crush_rule"
    assert "error with 'osd pool set': mon_cmd failed - crush rule nope does not exist" in task_log(sim, upid)


def test_missing_pool_is_cephs_unrecognized_pool(sim):
    assert sim.request("GET", f"{POOL}/ghost/status") == (500, {"data": None, "message": NO_POOL.format("ghost")})
    # set_pool reads the pool's type with `osd pool get` before it sets anything
    assert run(sim, "PUT", f"{POOL}/ghost", {"size": 2})[1] == NO_POOL.format("ghost").rstrip("\n")
    assert run(sim, "DELETE", f"{POOL}/ghost")[1] == NO_POOL.format("ghost").rstrip("\n")


def test_set_only_changes_the_keys_sent(sim):
    run(sim, "POST", POOL, {"name": "p", "min_size": 1})
    upid, exitstatus = run(sim, "PUT", f"{POOL}/p", {"pg_num": 64})
    assert exitstatus == "OK" and ":cephsetpool:p:" in upid
    data = status(sim, "p")
    assert (data["pg_num"], data["min_size"], data["size"]) == (64, 1, 3)


def test_set_size_resets_min_size_unless_sent(sim):
    run(sim, "POST", POOL, {"name": "p"})
    run(sim, "PUT", f"{POOL}/p", {"size": 2})
    assert status(sim, "p")["min_size"] == 1
    run(sim, "PUT", f"{POOL}/p", {"size": 3, "min_size": 3})
    assert status(sim, "p")["min_size"] == 3


def test_nosizechange_refuses_inside_the_task(sim):
    run(sim, "POST", POOL, {"name": "p"})
    sim.state.ceph["pools"]["p"]["nosizechange"] = 1
    upid, exitstatus = run(sim, "PUT", f"{POOL}/p", {"size": 2, "pg_num": 64})
    assert exitstatus == "Could not set: size"
    assert (status(sim, "p")["size"], status(sim, "p")["pg_num"]) == (3, 64)
    assert task_log(sim, upid) == [
        "pool p: applying size = 2",
        "error with 'osd pool set': mon_cmd failed - pool size change is disabled; you must unset nosizechange "
        "flag for the pool first",
        "pool p: applying pg_num = 64"]
    # an unchanged size is skipped, so the flag does not refuse it; min_size is guarded too
    assert run(sim, "PUT", f"{POOL}/p", {"size": 3})[1] == "OK"
    upid, exitstatus = run(sim, "PUT", f"{POOL}/p", {"min_size": 1})
    assert exitstatus == "Could not set: min_size"
    assert task_log(sim, upid)[-1] == ("error with 'osd pool set': mon_cmd failed - pool min size change is disabled; "
                                       "you must unset nosizechange flag for the pool first")


def test_min_size_range_pg_num_min_and_application_refusals(sim):
    run(sim, "POST", POOL, {"name": "p"})
    upid, exitstatus = run(sim, "PUT", f"{POOL}/p", {"min_size": 4})
    assert exitstatus == "Could not set: min_size"
    assert task_log(sim, upid)[-1] == ("error with 'osd pool set': mon_cmd failed - pool min_size must be between 1 "
                                       "and size, which is set to 3")
    # nopgchange guards pg_num only; pg_num_min is a pool option Ceph bounds by pg_num
    sim.state.ceph["pools"]["p"]["nopgchange"] = 1
    assert run(sim, "PUT", f"{POOL}/p", {"pg_num_min": 16})[1] == "OK" and status(sim, "p")["pg_num_min"] == 16
    upid, exitstatus = run(sim, "PUT", f"{POOL}/p", {"pg_num_min": 256})
    assert exitstatus == "Could not set: pg_num_min"
    assert task_log(sim, upid)[-1] == ("error with 'osd pool set': mon_cmd failed - specified pg_num_min 256 > "
                                       "pg_num 128")
    upid, exitstatus = run(sim, "PUT", f"{POOL}/p", {"pg_num": 64})
    assert exitstatus == "Could not set: pg_num"
    assert task_log(sim, upid)[-1] == ("error with 'osd pool set': mon_cmd failed - pool pg_num change is disabled; "
                                       "you must unset nopgchange flag for the pool first")
    # a second application needs --yes-i-really-mean-it, which PVE never sends
    upid, exitstatus = run(sim, "PUT", f"{POOL}/p", {"application": "cephfs"})
    assert exitstatus == "Could not set: application"
    assert task_log(sim, upid) == [
        "pool p: applying application = cephfs",
        "error with 'osd pool application enable': mon_cmd failed - Are you SURE? Pool 'p' already has an enabled "
        "application; pass --yes-i-really-mean-it to proceed anyway"]
    assert status(sim, "p", verbose=1)["application_list"] == ["rbd"]


def test_destroy_and_late_refusal(sim):
    run(sim, "POST", POOL, {"name": "p"})
    sim.state.ceph["mon_allow_pool_delete"] = False
    upid, exitstatus = run(sim, "DELETE", f"{POOL}/p")
    assert ":cephdestroypool:p:" in upid
    assert exitstatus == ("error with 'osd pool delete': mon_cmd failed - pool deletion is disabled; you must first "
                          "set the mon_allow_pool_delete config option to true before you can destroy a pool")
    assert status(sim, "p")["name"] == "p"
    sim.state.ceph["mon_allow_pool_delete"] = True
    assert run(sim, "DELETE", f"{POOL}/p")[1] == "OK"
    assert sim.request("GET", f"{POOL}/p/status")[0] == 500


def test_destroy_refused_while_a_storage_holds_images(sim):
    run(sim, "POST", POOL, {"name": "rbdp", "add_storages": 1})
    sim.state.volumes["rbdp"] = {"vm-100-disk-0": {"size": 1, "vmid": 100, "format": "raw", "content": "images"}}
    exitstatus = run(sim, "DELETE", f"{POOL}/rbdp", {"remove_storages": 1})[1]
    assert exitstatus == "ceph pool 'rbdp' still in use by storage 'rbdp'"
    assert "rbdp" in sim.state.storage
    assert run(sim, "DELETE", f"{POOL}/rbdp", {"remove_storages": 1, "force": 1})[1] == "OK"
    assert "rbdp" not in sim.state.storage and "rbdp" not in sim.state.ceph["pools"]


def test_cephfs_pools_look_like_any_pool_but_ceph_keeps_them(sim):
    state = sim.state
    for name in ("cephfs_data", "cephfs_metadata"):
        run(sim, "POST", POOL, {"name": name, "application": "cephfs"})
    state.ceph["fs"]["cephfs"] = {"metadata_pool": "cephfs_metadata", "data_pools": ["cephfs_data"]}
    assert {p["pool_name"] for p in ok(sim, "GET", POOL)} == {".mgr", "cephfs_data", "cephfs_metadata"}
    assert run(sim, "DELETE", f"{POOL}/cephfs_data")[1].endswith("pool 'cephfs_data' is in use by CephFS")


def test_apply_delay_makes_effects_late(sim):
    run(sim, "POST", POOL, {"name": "p"})
    sim.state.ceph["apply_delay"] = 0.3
    assert run(sim, "PUT", f"{POOL}/p", {"size": 2})[1] == "OK"
    assert run(sim, "DELETE", f"{POOL}/p")[1] == "OK"
    assert status(sim, "p")["size"] == 3
    time.sleep(0.35)
    assert sim.request("GET", f"{POOL}/p/status")[0] == 500


def test_autoscaler_rewrites_pg_num(sim):
    run(sim, "POST", POOL, {"name": "p", "pg_autoscale_mode": "on"})
    run(sim, "POST", POOL, {"name": "q"})  # mode warn: left alone
    sim.state.ceph["autoscale_on_read"] = True
    assert status(sim, "p")["pg_num"] == 64
    assert status(sim, "p")["pg_num"] == 32
    assert status(sim, "p")["pg_num"] == 32
    sim.state.ceph["pools"]["p"]["pg_num_final"] = 128
    sim.state.ceph["autoscale_on_read"] = False
    ceph.autoscale(sim.state)
    assert status(sim, "p")["pg_num"] == 128 and status(sim, "q")["pg_num"] == 128


def test_not_installed_and_not_configured(sim):
    sim.state.ceph = None
    for path in (POOL, f"{POOL}/p/status", "/cluster/ceph/flags"):
        assert sim.request("GET", path) == (500, {"data": None, "message": ceph.NOT_INSTALLED + "\n"})
    ceph.ceph_init(sim.state)["configured"] = False
    assert sim.request("POST", POOL, {"name": "p"})[1]["message"] == ceph.NOT_CONFIGURED + "\n"
    assert sim.request("GET", "/cluster/ceph/flags/noout")[1]["message"] == ceph.NOT_CONFIGURED + "\n"


def test_create_requires_quorum(sim):
    nodes = sim.state.nodes
    saved = {name: node["online"] for name, node in nodes.items()}
    try:
        nodes["node2"]["online"] = nodes["node3"]["online"] = False
        assert sim.request("POST", POOL, {"name": "p"})[1]["message"] == "cluster not ready - no quorum?\n"
    finally:
        for name, online in saved.items():
            nodes[name]["online"] = online


def test_schema_refuses_bad_parameters(sim):
    status_code, body = sim.request("POST", POOL, {"name": "a/b"})
    assert status_code == 400 and "name" in body["errors"]
    assert sim.request("PUT", f"{POOL}/p", {"size": 9})[0] == 400


# -- flags ----------------------------------------------------------------------------------

def test_flags_list_read_and_set(sim):
    flags = ok(sim, "GET", "/cluster/ceph/flags")
    assert [f["name"] for f in flags] == sorted(ceph.FLAG_DESCRIPTIONS) and len(flags) == 11
    assert all(f["value"] == 0 for f in flags)
    assert ok(sim, "PUT", "/cluster/ceph/flags/noout", {"value": 1}) is None
    assert ok(sim, "GET", "/cluster/ceph/flags/noout") == 1
    upid = ok(sim, "PUT", "/cluster/ceph/flags", {"pause": 1, "noout": 0})
    assert ":cephsetflags::" in upid and task(sim, upid) == "OK"
    assert sim.state.ceph["flags"] == {"pauserd", "pausewr"}
    assert {f["name"]: f["value"] for f in ok(sim, "GET", "/cluster/ceph/flags")}["pause"] == 1
    assert sim.request("GET", "/cluster/ceph/flags/bogus")[0] == 400


# -- managers, MDS and CephFS ---------------------------------------------------------------

def test_managers(sim):
    mgrs = ok(sim, "GET", "/nodes/node2/ceph/mgr")
    assert [(m["name"], m["host"], m["state"]) for m in mgrs] == [
        ("node1", "node1", "active"), ("node2", "node2", "standby"), ("node3", "node3", "standby")]
    gone = "ceph manager directory '/var/lib/ceph/mgr/ceph-node1' not found"
    assert run(sim, "DELETE", "/nodes/node2/ceph/mgr/node1", node="node2")[1] == gone
    upid, exitstatus = run(sim, "DELETE", "/nodes/node1/ceph/mgr/node1")
    assert exitstatus == "OK" and ":cephdestroymgr:mgr.node1:" in upid
    assert [m["state"] for m in ok(sim, "GET", "/nodes/node1/ceph/mgr")] == ["active", "standby"]
    assert task_log(sim, upid) == [
        "disabling service 'ceph-mgr@node1.service'", "stopping service 'ceph-mgr@node1.service'",
        "removing manager directory '/var/lib/ceph/mgr/ceph-node1'", "removing authkeys for mgr.node1"]
    exists = "ceph manager directory '/var/lib/ceph/mgr/ceph-node2' already exists"
    assert run(sim, "POST", "/nodes/node1/ceph/mgr/node2")[1] == exists
    upid, exitstatus = run(sim, "POST", "/nodes/node1/ceph/mgr/node1")
    assert exitstatus == "OK" and task_log(sim, upid) == [
        "creating manager directory '/var/lib/ceph/mgr/ceph-node1'", "creating keys for 'mgr.node1'",
        "setting owner for directory", "enabling service 'ceph-mgr@node1.service'",
        "starting service 'ceph-mgr@node1.service'"]
    assert ok(sim, "GET", "/nodes/node1/ceph/mgr")[-1] == {
        "name": "node1", "host": "node1", "addr": "node1:6801", "state": "standby"}


# -- MDS and CephFS -------------------------------------------------------------------------

def test_cephfs_needs_a_standby_mds(sim):
    fs = "/nodes/node1/ceph/fs/cephfs"
    assert sim.request("POST", fs)[1]["message"] == "no running Metadata Server (MDS) found!\n"
    upid, exitstatus = run(sim, "POST", "/nodes/node1/ceph/mds/node1", {"hotstandby": 1})
    assert exitstatus == "OK" and ":cephcreatemds:mds.node1:" in upid
    exists = "MDS 'node1' already referenced in ceph config, abort!"
    assert run(sim, "POST", "/nodes/node1/ceph/mds/node1")[1] == exists
    numeric = "ID of the MDS cannot start with a number!\n"
    assert sim.request("POST", "/nodes/node1/ceph/mds/1x")[1]["message"] == numeric
    upid, exitstatus = run(sim, "POST", fs, {"pg_num": 64, "add-storage": 1})
    assert exitstatus == "OK" and ":cephfscreate:cephfs:" in upid
    assert ok(sim, "GET", "/nodes/node1/ceph/fs") == [
        {"name": "cephfs", "metadata_pool": "cephfs_metadata", "data_pool": "cephfs_data"}]
    assert (status(sim, "cephfs_data")["pg_num"], status(sim, "cephfs_metadata")["pg_num"]) == (64, 16)
    assert sim.state.storage["cephfs"]["type"] == "cephfs"
    [mds] = ok(sim, "GET", "/nodes/node1/ceph/mds")
    assert (mds["name"], mds["state"], mds["rank"], mds["standby_replay"]) == ("node1", "up:active", 0, 1)
    assert sim.request("POST", fs)[1]["message"] == (
        "ceph pools 'cephfs_data' and/or 'cephfs_metadata' already exist\n")
    assert sim.request("POST", "/nodes/node1/ceph/fs/other")[1]["message"] == (
        "no standby Metadata Server (MDS) found!\n")
    upid, exitstatus = run(sim, "DELETE", "/nodes/node1/ceph/mds/node1")
    assert exitstatus == "OK" and task_log(sim, upid) == [
        "disabling service 'ceph-mds@node1.service'", "stopping service 'ceph-mds@node1.service'",
        "removing ceph-mds directory '/var/lib/ceph/mds/ceph-node1'", "removing ceph auth for 'mds.node1'"]
    assert ok(sim, "GET", "/nodes/node1/ceph/mds") == []


def test_mds_logs_and_a_delete_on_another_node_warns(sim):
    upid, exitstatus = run(sim, "POST", "/nodes/node1/ceph/mds/node1")
    assert exitstatus == "OK" and task_log(sim, upid) == [
        "creating MDS directory '/var/lib/ceph/mds/ceph-node1'", "creating keys for 'mds.node1'",
        "setting ceph as owner for service directory", "enabling service 'ceph-mds@node1.service'",
        "starting service 'ceph-mds@node1.service'"]
    # the directory lives on node1: destroy_mds warns and still deletes the auth key
    upid, exitstatus = run(sim, "DELETE", "/nodes/node2/ceph/mds/node1", node="node2")
    assert exitstatus == "WARNINGS: 1"
    assert "cannot cleanup MDS node1 directory, '/var/lib/ceph/mds/ceph-node1' not found" in task_log(
        sim, upid, "node2")


def test_cephfs_storage_id_in_use_is_refused_before_the_task(sim):
    run(sim, "POST", "/nodes/node1/ceph/mds/node1")
    ok(sim, "POST", "/storage", {"storage": "cephfs", "type": "dir", "path": "/srv/x"})
    assert sim.request("POST", "/nodes/node1/ceph/fs/cephfs", {"add-storage": 1}) == (
        500, {"data": None, "message": "storage ID 'cephfs' already defined\n"})
    assert "cephfs_data" not in sim.state.ceph["pools"]


def test_cephfs_failure_cleans_up_the_pools_it_made(sim, monkeypatch):
    run(sim, "POST", "/nodes/node1/ceph/mds/node1")
    real = ceph_daemons.create_pool

    def failing(state, name, settings, log=None, **kw):
        if name.endswith("_metadata"):
            raise die("Could not set: pg_num")
        return real(state, name, settings, log, **kw)

    monkeypatch.setattr(ceph_daemons, "create_pool", failing)
    upid, exitstatus = run(sim, "POST", "/nodes/node1/ceph/fs/cephfs")
    assert exitstatus == "Could not set: pg_num"
    assert task_log(sim, upid)[-2:] == ["Encountered error after creating at least one pool",
                                        "cleaning up left over pool 'cephfs_data'"]
    assert "cephfs_data" not in sim.state.ceph["pools"]


# -- ZFS ------------------------------------------------------------------------------------

ZFS = "/nodes/node2/disks/zfs"


def test_zfs_create_list_detail_delete(sim):
    by_id = [sim.state.disks["node2"][f"/dev/sd{x}"]["by_id"] for x in "bcde"]
    form = {"name": "tank", "raidlevel": "raid10", "devices": ",".join([by_id[1], "/dev/sdb", by_id[3], by_id[2]]),
            "ashift": 13, "compression": "lz4", "add_storage": 1}
    upid, exitstatus = run(sim, "POST", ZFS, form, node="node2")
    assert exitstatus == "OK" and ":zfscreate:tank:" in upid
    [row] = ok(sim, "GET", ZFS)
    assert (row["name"], row["health"], row["alloc"]) == ("tank", "ONLINE", 0)
    detail = ok(sim, "GET", f"{ZFS}/tank")
    assert (detail["name"], detail["state"], detail["errors"]) == ("tank", "ONLINE", "No known data errors")
    mirrors = detail["children"][0]["children"]
    assert [[leaf["name"] for leaf in m["children"]] for m in mirrors] == [
        [by_id[1] + "-part1", by_id[0] + "-part1"], [by_id[3] + "-part1", by_id[2] + "-part1"]]
    assert sim.state.storage["tank"]["nodes"] == {"node2"}
    assert ok(sim, "GET", "/nodes/node1/disks/zfs") == []
    assert run(sim, "DELETE", f"{ZFS}/tank", {"cleanup-config": 1}, node="node2")[1] == "OK"
    assert ok(sim, "GET", ZFS) == [] and "tank" not in sim.state.storage
    missing = "command '/sbin/zpool status -P tank' failed: exit code 1\n"
    assert sim.request("GET", f"{ZFS}/tank")[1]["message"] == missing
    assert run(sim, "DELETE", f"{ZFS}/tank", node="node2")[1] == "command 'zpool destroy tank' failed: exit code 1"


def test_zfs_create_log_names_the_vdevs_and_the_import_unit(sim):
    by_id = [sim.state.disks["node2"][f"/dev/sd{x}"]["by_id"] for x in "bcde"]
    form = {"name": "z-pool", "raidlevel": "draid", "devices": ",".join(by_id), "draid-config": "data=2,spares=1"}
    upid, exitstatus = run(sim, "POST", ZFS, form, node="node2")
    assert exitstatus == "OK" and task_log(sim, upid, "node2") == [
        f"# /sbin/zpool create -o ashift=12 z-pool draid:2d:1s {' '.join(by_id)}",
        "# /sbin/zfs set compression=on z-pool", "# systemctl enable zfs-import@z\\x2dpool.service"]


def test_zfs_add_storage_creates_or_extends_the_storage(sim):
    ok(sim, "POST", "/storage", {"storage": "tank", "type": "zfspool", "pool": "tank", "nodes": "node1"})
    upid, exitstatus = run(sim, "POST", ZFS, {"name": "tank", "raidlevel": "single", "devices": "/dev/sdb",
                                              "add_storage": 1}, node="node2")
    assert exitstatus == "OK" and sim.state.storage["tank"]["nodes"] == {"node1", "node2"}
    assert task_log(sim, upid, "node2")[-1] == "Added 'node2' to nodes for storage 'tank'"
    refused = {"name": "tank", "raidlevel": "single", "devices": "/dev/sdb", "add_storage": 1}
    assert sim.request("POST", "/nodes/node1/disks/zfs", refused) == (
        500, {"data": None, "message": "Storage ID 'tank' already exists on node node1\n"})
    ok(sim, "POST", "/storage", {"storage": "other", "type": "dir", "path": "/srv/o", "nodes": "node1"})
    assert sim.request("POST", ZFS, dict(refused, name="other", devices="/dev/sdc")) == (
        500, {"data": None, "message": "Option 'type' (zfspool) does not match existing storage configuration "
                                       "'dir'\n"})


def test_zfs_refusals_before_the_task(sim):
    run(sim, "POST", ZFS, {"name": "za", "raidlevel": "single", "devices": "/dev/sdb"}, node="node2")
    cases = [
        ({"name": "zb", "raidlevel": "mirror", "devices": "/dev/sdc,/dev/sdb"}, "device '/dev/sdb' is already in use"),
        ({"name": "za", "raidlevel": "single", "devices": "/dev/sdc"}, "pool 'za' already exists on node 'node2'"),
        ({"name": "zb", "raidlevel": "raidz", "devices": "/dev/sdc,/dev/sdd"}, "raidz needs at least 3 disks"),
        ({"name": "zb", "raidlevel": "raid10", "devices": "/dev/sdc,/dev/sdd,/dev/sde"},
         "raid10 needs an even number of disks"),
        ({"name": "zb", "raidlevel": "single", "devices": "/dev/sdc,/dev/sdd"},
         "please give only one disk for single disk mode"),
        ({"name": "zb", "raidlevel": "mirror", "devices": "/dev/sdc,/dev/sdd", "draid-config": "data=1,spares=0"},
         "draid-config set without using dRAID level"),
        ({"name": "zb", "raidlevel": "draid", "devices": "/dev/sdc,/dev/sdd,/dev/sde",
          "draid-config": "data=2,spares=1"},
         "At least 4 disks needed for current dRAID config"),
        # verify_blockdev_path: abs_path resolves a bare name against the daemon's cwd, /
        ({"name": "zb", "raidlevel": "single", "devices": "sdc"}, "got unusual device path '/sdc'"),
        ({"name": "zb", "raidlevel": "single", "devices": "/nowhere/sdc"},
         "failed to get absolute path to /nowhere/sdc"),
        ({"name": "zb", "raidlevel": "single", "devices": "/dev/sdz"}, "not a valid block device"),
    ]
    for form, message in cases:
        assert sim.request("POST", ZFS, form) == (500, {"data": None, "message": message + "\n"}), form
    assert list(sim.state.zfs_pools["node2"]) == ["za"]
