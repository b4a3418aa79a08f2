"""The simulator's storage types (tests/simulator/pve/storage_types.py, pve/handlers/storage.py) over
real HTTPS: every type PVE 9 ships is created, read, updated and deleted with pve-storage's own
options, messages and handling of secrets.

Run: python -m pytest tests/unit/test_simulator_storage_types.py -q
"""

import base64
import json
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import

NOT_IN_SCHEMA = "property is not defined in schema and the schema does not allow additional properties"


def err(message):
    return 500, {"data": None, "message": message}


def bad_param(key, text=NOT_IN_SCHEMA):
    return 400, {"data": None, "message": "Parameter verification failed.\n", "errors": {key: text}}


def fixed(key):
    return err(f"update storage failed: can't change value of fixed parameter '{key}'\n")


def create(sim, sid, typ, **form):
    return sim.request("POST", "/storage", {"storage": sid, "type": typ, **form})


def item(sim, sid):
    status, body = sim.request("GET", f"/storage/{sid}")
    assert status == 200, body
    return body["data"]


def update(sim, sid, **form):
    return sim.request("PUT", f"/storage/{sid}", form)


# type, the options PVE requires (plus a secret where the type has one), what a read shows,
# an updatable option with the value it reads back as, and a fixed option with PVE's answer
# (a 400 where the option is fixed for every type and so not in the update schema at all)
LIFECYCLE = [
    ("dir", {"path": "/srv/dir1"},
     {"path": "/srv/dir1", "content": "images,rootdir"},
     ("prune-backups", "keep-last=3", "keep-last=3"),
     ("snapshot-as-volume-chain", "1", fixed("snapshot-as-volume-chain"))),
    ("nfs", {"server": "192.0.2.10", "export": "/export/pve"},
     {"path": "/mnt/pve/lc-nfs", "server": "192.0.2.10", "export": "/export/pve",
      "content": "images", "shared": 1},
     ("options", "vers=4.2", "vers=4.2"),
     ("server", "192.0.2.11", fixed("server"))),
    ("cifs", {"server": "192.0.2.20", "share": "pve", "username": "svc", "password": "Cifs-Secret-1"},
     {"path": "/mnt/pve/lc-cifs", "share": "pve", "username": "svc", "content": "images",
      "shared": 1},
     ("domain", "EXAMPLE", "EXAMPLE"),
     ("server", "192.0.2.21", fixed("server"))),
    ("btrfs", {"path": "/mnt/btrfs"},
     {"path": "/mnt/btrfs", "content": "images,rootdir"},
     ("nocow", "1", 1),
     ("path", "/mnt/other", bad_param("path"))),
    ("cephfs", {},
     {"path": "/mnt/pve/lc-cephfs", "content": "backup", "shared": 1},
     ("fs-name", "cephfs2", "cephfs2"),
     ("path", "/mnt/other", bad_param("path"))),
    ("pbs", {"server": "pbs.example.org", "datastore": "main", "username": "sync@pbs",
             "password": "Pbs-Secret-1"},
     {"server": "pbs.example.org", "datastore": "main", "content": "backup", "shared": 1},
     ("namespace", "lab", "lab"),
     ("server", "pbs2.example.org", fixed("server"))),
    ("lvm", {"vgname": "vg0"},
     {"vgname": "vg0", "content": "images"},
     ("saferemove", "1", 1),
     ("vgname", "vg1", bad_param("vgname"))),
    ("lvmthin", {"vgname": "pve", "thinpool": "tp"},
     {"vgname": "pve", "thinpool": "tp", "content": "images,rootdir"},
     ("bwlimit", "default=1000", "default=1000"),
     ("thinpool", "tp2", bad_param("thinpool"))),
    ("zfspool", {"pool": "tank/pve"},
     {"pool": "tank/pve", "content": "images,rootdir"},
     ("sparse", "1", 1),
     ("pool", "tank/other", fixed("pool"))),
    ("rbd", {},
     {"content": "images", "shared": 1},
     ("pool", "vms", "vms"),  # no option of rbd is fixed, not even the pool
     None),
    ("iscsi", {"portal": "192.0.2.30", "target": "iqn.2003-01.org.example:t1"},
     {"portal": "192.0.2.30", "target": "iqn.2003-01.org.example:t1", "content": "images",
      "shared": 1},
     ("content", "none", "none"),
     ("portal", "192.0.2.31", bad_param("portal"))),
    ("iscsidirect", {"portal": "192.0.2.32:3260", "target": "iqn.2003-01.org.example:t2"},
     {"portal": "192.0.2.32:3260", "content": "images", "shared": 1},
     ("disable", "1", 1),
     ("target", "iqn.2003-01.org.example:t3", bad_param("target"))),
    ("zfs", {"portal": "192.0.2.40", "target": "iqn.2003-01.org.example:zfs", "pool": "tank",
             "blocksize": "8k", "iscsiprovider": "LIO"},
     {"pool": "tank", "blocksize": "8k", "iscsiprovider": "LIO", "zfs-base-path": "/dev/zvol",
      "content": "images", "shared": 1},
     ("lio_tpg", "tpg1", "tpg1"),
     ("blocksize", "16k", fixed("blocksize"))),
    ("esxi", {"server": "esx.example.org", "username": "root", "password": "Esx-Secret-1"},
     {"server": "esx.example.org", "username": "root", "content": "import"},
     ("server", "esx2.example.org", "esx2.example.org"),  # server and username are updatable
     None),
]

SECRET_KEYS = ("password", "keyring", "encryption-key", "master-pubkey")


@pytest.mark.parametrize("typ, required, shown, updatable, fixed_opt", LIFECYCLE,
                         ids=[row[0] for row in LIFECYCLE])
def test_create_read_update_delete(sim, typ, required, shown, updatable, fixed_opt):
    sid = f"lc-{typ}"
    status, body = create(sim, sid, typ, **required)
    assert status == 200, body
    answer = {"storage": sid, "type": typ}
    if typ == "pbs":
        answer["config"] = {}  # PBSPlugin's hooks always answer a (here empty) config
    assert body == {"data": answer}

    data = item(sim, sid)
    assert data["type"] == typ and data["storage"] == sid and len(data["digest"]) == 40
    assert {key: data.get(key) for key in shown} == shown
    if "shared" not in shown:
        assert "shared" not in data  # only @SHARED_STORAGE types read shared 1 unasked
    listed = [row for row in sim.request("GET", "/storage", {"type": typ})[1]["data"]
              if row["storage"] == sid]
    assert listed == [data]
    sent = {key: required[key] for key in SECRET_KEYS if key in required}
    assert sim.state.storage_secrets.get(sid, {}) == sent
    for read in (data, listed[0]):
        assert not set(SECRET_KEYS) & set(read)
        assert not any(value in json.dumps(read) for value in sent.values())

    key, value, reads = updatable
    assert update(sim, sid, **{key: value}) == (200, {"data": answer})
    assert item(sim, sid)[key] == reads
    if fixed_opt is not None:
        key, value, answer = fixed_opt
        assert update(sim, sid, **{key: value}) == answer

    assert sim.request("DELETE", f"/storage/{sid}") == (200, {"data": None})
    assert sim.request("GET", f"/storage/{sid}") == err(f"storage '{sid}' does not exist\n")
    assert sid not in sim.state.storage_secrets


MISSING = [
    ("dir", {}, "path"),
    ("btrfs", {}, "path"),
    ("nfs", {"export": "/e"}, "server"),
    ("nfs", {"server": "192.0.2.10"}, "export"),
    ("cifs", {"share": "s"}, "server"),
    ("cifs", {"server": "192.0.2.20"}, "share"),
    ("pbs", {"datastore": "main"}, "server"),
    ("pbs", {"server": "pbs.example.org"}, "datastore"),
    ("lvm", {}, "vgname"),
    ("lvmthin", {"vgname": "pve"}, "thinpool"),
    ("lvmthin", {"thinpool": "data"}, "vgname"),
    ("zfspool", {}, "pool"),
    ("iscsi", {"target": "iqn.2003-01.org.example:t"}, "portal"),
    ("iscsi", {"portal": "192.0.2.30"}, "target"),
    ("iscsidirect", {"target": "iqn.2003-01.org.example:t"}, "portal"),
    ("iscsidirect", {"portal": "192.0.2.30"}, "target"),
    ("esxi", {"username": "root", "password": "x"}, "server"),
    ("esxi", {"server": "esx.example.org", "password": "x"}, "username"),
] + [
    ("zfs", {k: v for k, v in {"portal": "192.0.2.40", "target": "iqn.2003-01.org.example:z",
                               "pool": "tank", "blocksize": "8k", "iscsiprovider": "LIO"}.items()
             if k != left_out}, left_out)
    for left_out in ("portal", "target", "pool", "blocksize", "iscsiprovider")
]


@pytest.mark.parametrize("typ, form, missing", MISSING, ids=[f"{t}-{m}" for t, _f, m in MISSING])
def test_create_without_a_required_option(sim, typ, form, missing):
    # checked before the lock (SectionConfig::check_config), so the message has no prefix
    assert create(sim, "missing", typ, **form) == err(
        f"missing value for required option '{missing}'\n")
    assert "missing" not in sim.state.storage


def test_ceph_types_without_monhost_use_the_local_cluster(sim):
    for typ in ("rbd", "cephfs"):
        assert create(sim, f"local-{typ}", typ)[0] == 200
        assert f"local-{typ}" not in sim.state.storage_secrets  # no keyring sent, none kept


def test_esxi_password_is_optional_in_options_but_required_on_add(sim):
    form = {"server": "esx.example.org", "username": "root"}
    assert create(sim, "esx-nopw", "esxi", **form) == err("create storage failed: missing password\n")
    assert "esx-nopw" not in sim.state.storage
    assert create(sim, "esx-pw", "esxi", password="Esx-Secret-2", **form)[0] == 200
    assert sim.state.storage_secrets["esx-pw"] == {"password": "Esx-Secret-2"}
    assert update(sim, "esx-pw", delete="username") == err(
        "update storage failed: unable to delete required option 'username'\n")
    assert update(sim, "esx-pw", delete="password")[0] == 200
    assert "esx-pw" not in sim.state.storage_secrets


@pytest.mark.parametrize("typ, form, secret_key", [
    ("cifs", {"server": "192.0.2.20", "share": "pve", "username": "svc"}, "password"),
    ("rbd", {"monhost": "192.0.2.50 192.0.2.51", "username": "pve"}, "keyring"),
    ("cephfs", {"monhost": "192.0.2.50", "username": "pve"}, "keyring"),
])
def test_secret_kept_apart_replaced_and_deleted(sim, typ, form, secret_key):
    sid = f"sec-{typ}"
    assert create(sim, sid, typ, **{secret_key: "first-secret"}, **form)[0] == 200
    assert sim.state.storage_secrets[sid] == {secret_key: "first-secret"}
    assert "first-secret" not in sim.state.storage_config_text()
    assert update(sim, sid, **{secret_key: "second-secret"})[0] == 200
    assert sim.state.storage_secrets[sid] == {secret_key: "second-secret"}
    for body in (sim.request("GET", f"/storage/{sid}")[1], sim.request("GET", "/storage")[1]):
        assert "secret" not in json.dumps(body) and secret_key not in json.dumps(body)
    # a deleted secret is no option of storage.cfg that could be 'set and deleted'
    assert update(sim, sid, delete=secret_key)[0] == 200
    assert sid not in sim.state.storage_secrets
    assert sim.request("DELETE", f"/storage/{sid}")[0] == 200


def test_a_secret_the_type_does_not_have_is_an_unexpected_property(sim):
    nfs = {"server": "192.0.2.10", "export": "/export/pve"}
    assert create(sim, "nosecret", "nfs", password="x", **nfs) == err("unexpected property 'password'\n")
    assert create(sim, "nosecret", "nfs", **nfs)[0] == 200
    assert update(sim, "nosecret", keyring="x") == err(
        "update storage failed: unexpected property 'keyring'\n")
    assert update(sim, "nosecret", delete="password") == err(
        "update storage failed: no such option 'password'\n")
    assert update(sim, "nosecret", shared="1") == err(
        "update storage failed: unexpected property 'shared'\n")


PBS = {"server": "pbs.example.org", "datastore": "main", "username": "sync@pbs"}
KEY = json.dumps({"kdf": None, "created": "2025-01-01T00:00:00+00:00",
                  "modified": "2025-01-01T00:00:00+00:00", "data": "c2VjcmV0LWtleS1ieXRlcw==",
                  "fingerprint": "ab:cd:ef:01"})
PEM = "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----\n"


def test_pbs_keeps_its_keys_apart_and_records_the_fingerprint(sim):
    pubkey = base64.b64encode(PEM.encode()).decode()
    status, body = create(sim, "pbs-enc", "pbs", password="Pbs-Secret-2", **PBS,
                          **{"encryption-key": KEY, "master-pubkey": pubkey})
    # the write answers the key it stored; reads never do
    assert (status, body) == (200, {"data": {"storage": "pbs-enc", "type": "pbs",
                                             "config": {"encryption-key": KEY}}})
    assert sim.state.storage_secrets["pbs-enc"] == {
        "password": "Pbs-Secret-2", "encryption-key": KEY, "master-pubkey": PEM}
    data = item(sim, "pbs-enc")
    # string properties: SectionConfig check_value leaves their text ("1"), as PVE answers it
    assert data["encryption-key"] == "ab:cd:ef:01" and data["master-pubkey"] == "1"
    assert "password" not in data
    for text in (json.dumps(data), json.dumps(sim.request("GET", "/storage")[1])):
        assert "c2VjcmV0" not in text and "PUBLIC KEY" not in text and "Pbs-Secret" not in text

    status, body = update(sim, "pbs-enc", **{"encryption-key": "autogen"})
    generated = json.loads(body["data"]["config"]["encryption-key"])
    assert generated["kdf"] is None and len(base64.b64decode(generated["data"])) == 32
    assert item(sim, "pbs-enc")["encryption-key"] == generated["fingerprint"]
    assert sim.state.storage_secrets["pbs-enc"]["encryption-key"] == body["data"]["config"][
        "encryption-key"]

    assert update(sim, "pbs-enc", password="Pbs-Secret-3")[1]["data"]["config"] == {}
    assert sim.state.storage_secrets["pbs-enc"]["password"] == "Pbs-Secret-3"
    assert update(sim, "pbs-enc", delete="encryption-key,master-pubkey,password")[0] == 200
    data = item(sim, "pbs-enc")
    assert "encryption-key" not in data and "master-pubkey" not in data
    assert "pbs-enc" not in sim.state.storage_secrets


def test_pbs_key_checks(sim):
    assert create(sim, "pbs-bad", "pbs", **PBS, **{"encryption-key": "not json"}) == err(
        "create storage failed: Value does not seems like a valid, JSON formatted encryption key!\n")
    assert create(sim, "pbs-bad", "pbs", **PBS, **{"master-pubkey": "AAAA"}) == err(
        "create storage failed: 'master-pubkey' can only be used together with 'encryption-key'\n")
    assert "pbs-bad" not in sim.state.storage and "pbs-bad" not in sim.state.storage_secrets
    # a key without fingerprint is recorded as 1
    assert create(sim, "pbs-nofp", "pbs", **PBS, **{"encryption-key": '{"data": "x"}'})[0] == 200
    assert item(sim, "pbs-nofp")["encryption-key"] == "1"


def test_zfs_over_iscsi_provider_and_base_path(sim):
    zfs = {"portal": "192.0.2.40", "target": "iqn.2003-01.org.example:zfs", "pool": "tank",
           "blocksize": "8k"}
    assert create(sim, "zfs-bad", "zfs", iscsiprovider="ctld", **zfs) == err(
        "create storage failed: ctld: unknown iscsi provider. Available [comstar, istgt, iet, LIO] "
        "at /usr/share/perl5/PVE/Storage/ZFSPlugin.pm line 35.\n")
    assert create(sim, "zfs-comstar", "zfs", iscsiprovider="comstar", **zfs)[0] == 200
    assert item(sim, "zfs-comstar")["zfs-base-path"] == "/dev/zvol/rdsk"
    # the provider is only looked at to derive the base path
    assert create(sim, "zfs-given", "zfs", iscsiprovider="ctld", **{"zfs-base-path": "/dev/zd"},
                  **zfs)[0] == 200
    assert update(sim, "zfs-given", iscsiprovider="LIO") == bad_param("iscsiprovider")


@pytest.mark.parametrize("portal, ok", [
    ("192.0.2.30", True), ("192.0.2.30:3260", True), ("iscsi.example.org:3260", True),
    ("[2001:db8::1]:3260", True), ("2001:db8::1", True),
    ("192.0.2.30:port", False), ("iscsi target", False), ("192.0.2.30:", False),
])
def test_iscsi_portal_format(sim, portal, ok):
    status, body = create(sim, "portal", "iscsi", portal=portal, target="iqn.2003-01.org.example:p")
    if ok:
        assert status == 200, body
        assert sim.request("DELETE", "/storage/portal")[0] == 200
    else:
        assert (status, body) == bad_param(
            "portal", "invalid format - value does not look like a valid portal address\n")


def test_content_types_as_pve_decodes_them(sim):
    # a type it does not support is left out; nothing left at all is 'none', where allowed
    assert create(sim, "ct-thin", "lvmthin", vgname="pve", thinpool="t", content="images,iso")[0] == 200
    assert item(sim, "ct-thin")["content"] == "images"
    assert update(sim, "ct-thin", content="iso") == err(
        "update storage failed: storage does not support content type 'none'\n")
    assert create(sim, "ct-nfs", "nfs", server="192.0.2.10", export="/e", content="none") == err(
        "storage does not support content type 'none'\n")
    assert create(sim, "ct-pbs", "pbs", **PBS, content="backup,none") == err(
        "unable to combine 'none' with other content types\n")
    assert create(sim, "ct-dir", "dir", path="/srv/ct", content="")[0] == 200
    assert item(sim, "ct-dir")["content"] == "none"
    # deleting content falls back to the type's default
    assert update(sim, "ct-dir", delete="content")[0] == 200
    assert item(sim, "ct-dir")["content"] == "images,rootdir"


def test_directory_paths_formats_and_content_dirs(sim):
    assert create(sim, "dir-bad", "dir", path="/srv/a b") == err(
        "illegal path for directory storage: /srv/a b\n")
    assert create(sim, "dir-slash", "dir", path="/srv//data/./x/", format="qcow2",
                  **{"content-dirs": "iso=/isos,backup=/dumps"})[0] == 200
    data = item(sim, "dir-slash")
    assert (data["path"], data["format"]) == ("/srv/data/x", "qcow2")
    assert data["content-dirs"] == {"iso": "/isos", "backup": "/dumps"}  # a map, not a string
    # a format the type does not support is dropped without an error
    assert create(sim, "btrfs-fmt", "btrfs", path="/mnt/b", format="qcow2")[0] == 200
    assert "format" not in item(sim, "btrfs-fmt")


def test_nodes_empty_list_and_set_plus_delete(sim):
    assert create(sim, "nodes1", "dir", path="/srv/n", nodes="node1,node2")[0] == 200
    assert item(sim, "nodes1")["nodes"] == "node1,node2"
    assert update(sim, "nodes1", nodes="", delete="nodes") == err(
        "update storage failed: cannot set and delete property 'nodes' at the same time!\n")
    assert update(sim, "nodes1", nodes="")[0] == 200
    assert "nodes" not in item(sim, "nodes1")


def test_lvm_on_an_iscsi_base(sim):
    assert create(sim, "lvm-nobase", "lvm", vgname="vgb", base="nope:0.0.1.scsi-x") == err(
        "create storage failed: base storage ID 'nope' does not exist\n")
    assert create(sim, "lvm-dirbase", "lvm", vgname="vgb", base="local:0.0.1.scsi-x") == err(
        "create storage failed: unsupported base type 'dir' at /usr/share/perl5/PVE/Storage/LVMPlugin.pm line 489.\n")
    assert create(sim, "san", "iscsi", portal="192.0.2.60", target="iqn.2003-01.org.example:san",
                  content="none")[0] == 200
    assert create(sim, "lvm-base", "lvm", vgname="vgb", base="san:lun1") == err(
        "create storage failed: unable to parse iscsi volume name 'lun1'\n")
    assert create(sim, "lvm-base", "lvm", vgname="vgb", base="san:0.0.1.scsi-36001405")[0] == 200
    assert update(sim, "lvm-base", delete="base") == err(
        "update storage failed: unable to delete fixed option 'base'\n")
    assert sim.request("DELETE", "/storage/san") == err(
        "delete storage failed: can't remove storage - storage is used as base of another storage\n")
