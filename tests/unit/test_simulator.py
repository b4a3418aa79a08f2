"""The PVE API simulator (tests/simulator): contract, wire behaviour, faults.

Run: python -m pytest tests/unit/test_simulator.py -q
"""

import http.client
import json
import os
import socket
import ssl
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from simulator import Simulator  # noqa: E402
# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import (  # noqa: E402,F401  pylint: disable=unused-import
    SERVE_KEYS, _no_faults, serve_process, sim)


def raw(sim, method, path, headers=None, body=None, member=0, timeout=5, token=True):
    """One HTTPS exchange; returns (status, reason, body bytes, headers dict)."""
    host, port = sim.members[member].split(":")
    ctx = ssl.create_default_context(cafile=sim.ca_path)
    conn = http.client.HTTPSConnection(host, int(port), timeout=timeout, context=ctx)
    hdrs = dict(headers or {})
    if token is True:
        hdrs.setdefault("Authorization", f"PVEAPIToken={sim.token_id}={sim.token_secret}")
    try:
        conn.request(method, "/api2/json" + path, body=body, headers=hdrs)
        resp = conn.getresponse()
        return resp.status, resp.reason, resp.read(), {k.lower(): v for k, v in resp.getheaders()}
    finally:
        conn.close()


def make_token(sim, userid, tokenid, privsep=1, roles=(), expire=0):
    """A user + token with ACLs on / for both (privsep tokens need their own)."""
    state = sim.state
    if userid not in state.users:
        state.add_user(userid)
    secret = state.add_token(userid, tokenid, privsep=privsep, expire=expire)
    for path, role, subject in roles:
        if subject == "user":
            state.set_acl(path, role, users=userid)
        else:
            state.set_acl(path, role, tokens=f"{userid}!{tokenid}")
    return f"{userid}!{tokenid}", secret


# -- contract -------------------------------------------------------------------

def test_serve_contract(tmp_path):
    log = tmp_path / "requests.log"
    start = time.monotonic()
    with serve_process(tmp_path, log) as proc:
        line = proc.stdout.readline()
        ready = time.monotonic() - start
        info = json.loads(line)
        assert set(info) == SERVE_KEYS
        assert len(info["members"]) == 3 and all(m.startswith("127.0.0.1:") for m in info["members"])
        assert info["token_id"] == "root@pam!sim" and info["log"] == str(log)
        assert os.path.exists(info["ca_path"])
        assert ready < 5
        host, port = info["members"][1].split(":")
        conn = http.client.HTTPSConnection(
            host, int(port), timeout=5, context=ssl.create_default_context(cafile=info["ca_path"]))
        conn.request("GET", "/api2/json/version",
                     headers={"Authorization": f"PVEAPIToken={info['token_id']}={info['token_secret']}"})
        assert json.loads(conn.getresponse().read())["data"]["version"] == "9.1.9"
        conn.close()
        entries = [json.loads(x) for x in log.read_text().splitlines()]
        assert entries == [{"method": "GET", "path": "/version", "form": {},
                            "member": info["members"][1], "token_id": "root@pam!sim",
                            "status": 200}]


def test_startup_is_fast():
    start = time.monotonic()
    with Simulator(members=1) as one:
        assert len(one.members) == 1
        assert time.monotonic() - start < 1.0


# -- envelope, reason phrase, 501 ---------------------------------------------------

def test_success_envelope_and_headers(sim):
    status, reason, body, headers = raw(sim, "GET", "/version")
    assert (status, reason) == (200, "OK")
    assert json.loads(body) == {"data": {"version": "9.1.9", "release": "9.1",
                                         "repoid": sim.state.version["repoid"]}}
    assert headers["content-type"] == "application/json;charset=UTF-8"
    assert headers["server"] == "pve-api-daemon/3.0"
    assert "connection" not in headers


def test_error_envelope_reason_is_first_line(sim):
    status, reason, body, headers = raw(sim, "GET", "/pools/nowhere")
    assert (status, reason) == (500, "pool 'nowhere' does not exist")
    assert json.loads(body) == {"data": None, "message": "pool 'nowhere' does not exist\n"}
    assert headers["connection"] == "close"


@pytest.mark.parametrize("method, path", [
    ("GET", "/foo"),
    ("DELETE", "/access/acl"),             # ACL has only GET and PUT
    ("GET", "/cluster/ha/status/current"),  # in the schema, not simulated
])
def test_not_implemented(sim, method, path):
    status, reason, body = raw(sim, method, path)[:3]
    assert status == 501
    assert reason == f"Method '{method} {path}' not implemented"
    assert json.loads(body)["message"] == f"Method '{method} {path}' not implemented"


def test_body_on_get_or_delete_and_odd_content_type(sim):
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert raw(sim, "DELETE", "/pools/x", form, body="a=b")[:3] == (
        501, "Unexpected content for method 'DELETE'", b"")
    status, reason, body = raw(sim, "POST", "/pools", {"Content-Type": "text/plain"}, body="x")[:3]
    assert (status, body) == (506, b"") and "not implemented" in reason


def test_query_wins_over_body_and_json_bodies(sim):
    hdr = {"Content-Type": "application/x-www-form-urlencoded"}
    assert raw(sim, "POST", "/pools?comment=query&_dc=123", hdr, body="poolid=qb&comment=body")[0] == 200
    assert sim.request("GET", "/pools/qb")[1]["data"]["comment"] == "query"
    entry = [e for e in sim.log if e["path"] == "/pools" and e["method"] == "POST"][-1]
    assert entry["form"] == {"poolid": "qb", "comment": "query"}
    assert raw(sim, "POST", "/pools", {"Content-Type": "application/json"},
               body=json.dumps({"poolid": "js", "comment": 7}))[0] == 200


# -- authentication -------------------------------------------------------------------

def test_401_variants(sim):
    expired_id, expired_secret = make_token(sim, "old@pve", "gone", privsep=0, expire=1000)
    cases = [
        ({"Authorization": f"PVEAPIToken={sim.token_id}:{sim.token_secret}"}, "Authentication failed!"),
        ({"Authorization": f"PVEAPIToken={sim.token_id}=wrong"}, "Authentication failed!"),
        ({}, "No ticket"),
        ({"Authorization": f"PVEAPIToken={expired_id}={expired_secret}"}, "Authentication failed!"),
        ({"Cookie": "PVEAuthCookie=PVE:root@pam:00000001::forged"}, "Authentication failed!"),
    ]
    for headers, reason in cases:
        status, got_reason, body, resp_headers = raw(sim, "GET", "/version", headers, token=False)
        assert (status, got_reason, body) == (401, reason, b""), headers
        assert resp_headers["connection"] == "close"
    assert sim.log[-1]["token_id"] is None and sim.log[-1]["status"] == 401


def test_ticket_and_csrf(sim):
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    bad = raw(sim, "POST", "/access/ticket", form, token=False,
              body=urllib.parse.urlencode({"username": "root@pam", "password": "nope"}))
    assert (bad[0], json.loads(bad[2])["message"]) == (401, "authentication failure\n")
    status, body = raw(sim, "POST", "/access/ticket", form, token=False,
                       body=urllib.parse.urlencode({"username": "root@pam",
                                                    "password": sim.root_password}))[0:3:2]
    data = json.loads(body)["data"]
    assert status == 200 and data["username"] == "root@pam" and data["clustername"] == "simcluster"
    assert data["ticket"].startswith("PVE:root@pam:") and "::" in data["ticket"]
    cookie = {"Cookie": f"PVEAuthCookie={urllib.parse.quote(data['ticket'])}"}
    assert raw(sim, "GET", "/pools", cookie, token=False)[0] == 200
    assert raw(sim, "POST", "/pools", {**cookie, **form}, body="poolid=tk", token=False)[:2] == (
        401, "Permission denied - invalid csrf token")
    ok = raw(sim, "POST", "/pools", {**cookie, **form, "CSRFPreventionToken": data["CSRFPreventionToken"]},
             body="poolid=tk", token=False)
    assert ok[0] == 200 and sim.log[-1]["token_id"] == "root@pam"
    assert not [e for e in sim.writes() if e["path"] == "/access/ticket"]


# -- permissions ------------------------------------------------------------------------

def test_403_privsep_token_lacks_privilege(sim):
    token = make_token(sim, "audit@pve", "ro", privsep=1,
                       roles=[("/", "PVEAuditor", "user"), ("/", "PVEAuditor", "token")])
    assert sim.request("GET", "/pools", token=token)[0] == 200
    assert sim.request("POST", "/pools", {"poolid": "denied"}, token=token) == (
        403, {"data": None, "message": "Permission check failed (/pool/denied, Pool.Allocate)\n"})
    # the user may, but a privsep token with only an ACL on another path may not
    sim.state.set_acl("/", "PVEPoolAdmin", users="audit@pve")
    assert sim.request("POST", "/pools", {"poolid": "denied"}, token=token)[0] == 403
    status, body = sim.request("GET", "/storage/local", token=token)
    assert body["message"] == "Permission check failed (/storage/local, Datastore.Allocate)\n"
    # any-of checks list the alternatives
    nobody = make_token(sim, "nobody@pve", "tt", privsep=0)
    assert sim.request("GET", "/access/groups/g", token=nobody)[1]["message"] == \
        "Permission check failed (/access/groups, Sys.Audit|Group.Allocate)\n"
    # permission is checked before parameter validation
    assert sim.request("POST", "/pools", {"poolid": "x", "bogus": 1}, token=token)[0] == 403


def test_privsep_zero_token_gets_user_privileges(sim):
    token = make_token(sim, "ops@pve", "full", privsep=0, roles=[("/pool", "PVEPoolAdmin", "user")])
    assert sim.request("POST", "/pools", {"poolid": "opspool"}, token=token)[0] == 200
    assert sim.request("POST", "/storage", {"storage": "s1", "type": "dir", "path": "/s"},
                       token=token)[0] == 403


def test_acl_list_filtered_for_auditor(sim):
    assert sim.request("PUT", "/access/acl", {"path": "/pool/house/", "roles": "PVEAuditor",
                                              "users": "root@pam"})[0] == 200
    rows = sim.request("GET", "/access/acl")[1]["data"]
    assert {"path": "/pool/house", "type": "user", "ugid": "root@pam", "roleid": "PVEAuditor"} in rows
    token = make_token(sim, "reader@pve", "acl", privsep=1,
                       roles=[("/", "PVEAuditor", "user"), ("/", "PVEAuditor", "token")])
    assert sim.request("GET", "/access/acl", token=token) == (200, {"data": []})


def test_token_not_allowed_where_allowtoken_is_0(sim):
    status, body = sim.request("PUT", "/access/password", {"userid": "root@pam", "password": "x" * 10})
    assert status == 403
    assert body["message"] == ("Permission check failed (URI '/access/password' not available with "
                               "API token, need proper ticket.\n)\n")


# -- parameter validation -------------------------------------------------------------

VALIDATION = [
    ("POST", "/pools", {"poolid": "v1", "bogus": "x"},
     {"bogus": "property is not defined in schema and the schema does not allow additional properties"}),
    ("PUT", "/access/acl", {"path": "/", "roles": "PVEAuditor", "users": "root@pam", "propagate": "true"},
     {"propagate": "type check ('boolean') failed - got 'true'"}),
    ("GET", "/storage", {"type": "floppy"},
     {"type": "value 'floppy' does not have a value in the enumeration 'btrfs, cephfs, cifs, dir, esxi, "
              "iscsi, iscsidirect, lvm, lvmthin, nfs, pbs, rbd, zfs, zfspool'"}),
    ("POST", "/access/users/root@pam/token/1bad", {}, {"tokenid": "value does not match the regex pattern"}),
    ("POST", "/access/groups", {"groupid": "bad name"},
     {"groupid": "invalid format - group name 'bad name' contains invalid characters\n"}),
    ("POST", "/pools", {}, {"poolid": "property is missing and it is not optional"}),
    ("PUT", "/storage/local", {"prune-backups": "keep-last=x"},
     {"prune-backups": "invalid format - format error\nprune-backups.keep-last: type check ('integer') "
                       "failed - got 'x'\n"}),
    ("PUT", "/storage/local", {"content": "iso,floppy"},
     {"content": "invalid format - invalid content type 'floppy'\n"}),
    ("POST", "/access/users", {"userid": "a@pve", "expire": "-1"},
     {"expire": "value must have a minimum value of 0"}),
    ("PUT", "/access/roles/x", {"append": "1"}, {"privs": "missing property required by 'append'"}),
]


@pytest.mark.parametrize("method, path, form, errors", VALIDATION)
def test_400_parameter_verification(sim, method, path, form, errors):
    status, body = sim.request(method, path, form)
    assert status == 400
    assert body == {"data": None, "message": "Parameter verification failed.\n", "errors": errors}


# -- missing objects, duplicates, section-config rules ---------------------------------

MISSING = [
    ("GET", "/pools/nope", "pool 'nope' does not exist\n"),
    ("GET", "/access/users/nope@pve", "no such user ('nope@pve')\n"),
    ("GET", "/access/groups/nope", "group 'nope' does not exist\n"),
    ("GET", "/access/roles/nope", "role 'nope' does not exist\n"),
    ("GET", "/storage/nope", "storage 'nope' does not exist\n"),
    ("GET", "/access/users/root@pam/token/nope", "no such token 'nope' for user 'root@pam'\n"),
]


@pytest.mark.parametrize("method, path, message", MISSING)
def test_500_does_not_exist(sim, method, path, message):
    assert sim.request(method, path) == (500, {"data": None, "message": message})


DUPLICATES = [
    ("/pools", {"poolid": "dup"}, "create pool failed: pool 'dup' already exists\n"),
    ("/access/users", {"userid": "dup@pve"}, "create user failed: user 'dup@pve' already exists\n"),
    ("/access/groups", {"groupid": "dup"}, "create group failed: group 'dup' already exists\n"),
    ("/access/roles", {"roleid": "Dup"}, "create role failed: role 'Dup' already exists\n"),
    ("/storage", {"storage": "dup", "type": "dir", "path": "/d"},
     "create storage failed: storage ID 'dup' already defined\n"),
]


@pytest.mark.parametrize("path, form, message", DUPLICATES)
def test_500_already_exists(sim, path, form, message):
    assert sim.request("POST", path, form)[0] == 200
    assert sim.request("POST", path, form) == (500, {"data": None, "message": message})


def test_storage_set_delete_conflict_digest_and_secrets(sim):
    assert sim.request("POST", "/storage", {"storage": "nfs1", "type": "nfs", "server": "192.0.2.7",
                                            "export": "/srv", "content": "iso,backup"})[0] == 200
    item = sim.request("GET", "/storage/nfs1")[1]["data"]
    assert item["content"] == "backup,iso" and item["shared"] == 1
    assert "password" not in item and len(item["digest"]) == 40
    assert sim.request("PUT", "/storage/nfs1", {"content": "iso", "delete": "content"})[1]["message"] == \
        "update storage failed: cannot set and delete property 'content' at the same time!\n"
    assert sim.request("PUT", "/storage/nfs1", {"disable": "1", "digest": item["digest"]})[0] == 200
    stale = sim.request("PUT", "/storage/nfs1", {"disable": "0", "digest": item["digest"]})
    assert stale == (500, {"data": None, "message": "update storage failed: detected modified "
                                                    "configuration - file changed by other user? Try again.\n"})
    fresh = sim.request("GET", "/storage/nfs1")[1]["data"]
    assert fresh["disable"] == 1 and fresh["digest"] != item["digest"]
    # fixed options are not in the update schema at all
    assert sim.request("PUT", "/storage/nfs1", {"export": "/other"})[0] == 400
    assert sim.request("PUT", "/storage/nfs1", {"delete": "disable"})[0] == 200
    assert "disable" not in sim.request("GET", "/storage/nfs1")[1]["data"]
    # an NFS storage cannot hold "none" (pve-storage NFSPlugin plugindata)
    assert sim.request("PUT", "/storage/nfs1", {"content": ""})[1]["message"] == \
        "update storage failed: storage does not support content type 'none'\n"


def test_a_required_secret_in_the_request_counts_as_given(sim):
    # esxi's add hook requires a password, which PVE stores apart from storage.cfg and never returns.
    form = {"storage": "esx1", "type": "esxi", "server": "esx.example.org", "username": "root"}
    assert sim.request("POST", "/storage", form) == (
        500, {"data": None, "message": "create storage failed: missing password\n"})
    assert sim.request("POST", "/storage", dict(form, password="Esx1-Passw0rd"))[0] == 200
    item = sim.request("GET", "/storage/esx1")[1]["data"]
    assert item["type"] == "esxi" and item["content"] == "import" and "password" not in item


def test_builtin_storages_and_roles(sim):
    local = sim.request("GET", "/storage/local")[1]["data"]
    assert (local["type"], local["path"], local["content"]) == ("dir", "/var/lib/vz", "backup,iso,vztmpl")
    roles = {r["roleid"]: r for r in sim.request("GET", "/access/roles")[1]["data"]}
    assert roles["PVEAuditor"]["special"] == 1 and "Sys.Audit" in roles["PVEAuditor"]["privs"]
    assert sim.request("PUT", "/access/roles/PVEAdmin", {"privs": "Sys.Audit"})[1]["message"] == \
        "auto-generated role 'PVEAdmin' cannot be modified\n"
    assert sim.request("GET", "/access/roles/NoAccess") == (200, {"data": {}})


def test_group_members_order_varies(sim):
    sim.request("POST", "/access/groups", {"groupid": "crew", "comment": "Crew"})
    for user in ("a@pve", "b@pve", "c@pve"):
        assert sim.request("POST", "/access/users", {"userid": user, "groups": "crew"})[0] == 200
    first = sim.request("GET", "/access/groups/crew")[1]["data"]
    second = sim.request("GET", "/access/groups/crew")[1]["data"]
    assert first["comment"] == "Crew" and sorted(first["members"]) == ["a@pve", "b@pve", "c@pve"]
    assert first["members"] != second["members"]
    user = sim.request("GET", "/access/users/a@pve")[1]["data"]
    assert user["groups"] == ["crew"] and "userid" not in user
    assert sim.request("DELETE", "/access/groups/crew")[0] == 200
    assert sim.request("GET", "/access/users/a@pve")[1]["data"]["groups"] == []


def test_pool_with_members_cannot_be_deleted(sim):
    assert sim.request("POST", "/pools", {"poolid": "full", "comment": "c"})[0] == 200
    assert sim.request("PUT", "/pools/full", {"storage": "local"})[0] == 200
    status, body = sim.request("DELETE", "/pools/full")
    assert (status, body["message"]) == (500, "delete pool failed: pool 'full' is not empty "
                                              "(contains storage 'local')\n")
    assert sim.request("PUT", "/pools/full", {"storage": "local", "delete": "1"})[0] == 200
    assert sim.request("DELETE", "/pools/full")[0] == 200


def test_nested_pools_by_query_as_pve_8_1_addresses_them(sim):
    """pve-manager PVE/API2/Pool.pm: index, create_pool, update_pool, delete_pool with poolid as a parameter."""
    assert sim.request("POST", "/pools", {"poolid": "lab"})[0] == 200
    status, body = sim.request("POST", "/pools", {"poolid": "none/web"})
    assert (status, body["message"]) == (500, "create pool failed: parent 'none' of pool 'none/web' does not exist\n")
    status, body = sim.request("POST", "/pools", {"poolid": "lab/9web"})
    assert (status, body["message"]) == (500, "create pool failed: pool name must start with a letter\n")
    assert sim.request("POST", "/pools", {"poolid": "lab/web", "comment": "Web"})[0] == 200
    assert sim.request("PUT", "/pools", {"poolid": "lab/web", "storage": "local"})[0] == 200
    status, body = sim.request("GET", "/pools", {"poolid": "lab/web"})
    assert status == 200 and [(p["poolid"], p["comment"], [m["id"] for m in p["members"]]) for p in body["data"]] == [
        ("lab/web", "Web", ["storage/node1/local"])]
    # the deprecated item path cannot name a nested pool: PVE has no handler for /pools/lab/web
    assert sim.request("GET", "/pools/lab%2Fweb")[0] == 501
    assert sim.request("GET", "/pools/lab")[1]["data"]["poolid"] == "lab"  # read_pool answers index's entry
    status, body = sim.request("DELETE", "/pools", {"poolid": "lab"})
    assert (status, body["message"]) == (500, "delete pool failed: pool 'lab' is not empty (contains pool 'lab/web')\n")
    status, body = sim.request("DELETE", "/pools", {"poolid": "lab/web"})
    assert (status, body["message"]) == (500, "delete pool failed: pool 'lab/web' is not empty "
                                              "(contains storage 'local')\n")
    assert sim.request("PUT", "/pools", {"poolid": "lab/web", "storage": "local", "delete": "1"})[0] == 200
    assert sim.request("DELETE", "/pools", {"poolid": "lab/web"})[0] == 200
    assert sim.request("DELETE", "/pools", {"poolid": "lab"})[0] == 200
    status, body = sim.request("GET", "/pools", {"poolid": "lab"})
    assert (status, body["message"]) == (500, "pool 'lab' does not exist\n")


def test_one_pool_is_answered_to_any_user(sim):
    """Pool.pm index checks Pool.Audit with noerr and ignores the answer when poolid is given; the list filters."""
    assert sim.request("POST", "/pools", {"poolid": "lab"})[0] == 200
    assert sim.request("POST", "/access/users", {"userid": "ro@pve"})[0] == 200
    token = sim.request("POST", "/access/users/ro@pve/token/ro", {"privsep": "0"})[1]["data"]
    token = (token["full-tokenid"], token["value"])
    assert sim.request("GET", "/pools", token=token)[1]["data"] == []
    assert sim.request("GET", "/pools", {"poolid": "lab"}, token=token)[1]["data"][0]["poolid"] == "lab"


# -- failover helpers and forced answers ------------------------------------------------

def test_refuse_hang_restore():
    with Simulator(members=2) as sim2:
        host, port = sim2.members[0].split(":")
        sim2.refuse(0)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((host, int(port)), timeout=2)
        assert sim2.request("GET", "/version", member=1)[0] == 200
        sim2.restore(0)
        assert sim2.members[0] == f"{host}:{port}"
        assert sim2.request("GET", "/version", member=0)[0] == 200

        sim2.hang(1)
        started = time.monotonic()
        with pytest.raises((socket.timeout, TimeoutError)):
            sim2.request("PUT", "/pools/x", {"comment": "c"}, member=1, timeout=0.5)
        assert time.monotonic() - started < 3
        hung = sim2.writes()[-1]
        assert (hung["path"], hung["status"], hung["token_id"]) == ("/pools/x", None, "root@pam!sim")
        sim2.restore(1)
        assert sim2.request("GET", "/version", member=1)[0] == 200


def test_force_answers_after_auth(sim):
    sim.force("GET", r"^/version$", 503, "service busy", times=1)
    assert raw(sim, "GET", "/version", token=False)[0] == 401  # auth still comes first
    status, reason, body = raw(sim, "GET", "/version")[:3]
    assert (status, reason) == (503, "service busy")
    assert json.loads(body) == {"data": None, "message": "service busy\n"}
    assert raw(sim, "GET", "/version")[0] == 200  # times=1 used up
    sim.force("PUT", "/storage/", 400, "Parameter verification failed.", errors={"content": "bad"})
    assert sim.request("PUT", "/storage/local", {"disable": "0"}) == (
        400, {"data": None, "message": "Parameter verification failed.\n", "errors": {"content": "bad"}})
    sim.clear_faults()
    assert sim.request("PUT", "/storage/local", {"disable": "0"})[0] == 200


def test_control_endpoint(sim):
    hdr = {"Content-Type": "application/json"}
    spec = {"op": "force", "method": "GET", "path_regex": "^/nodes$", "status": 500, "message": "boom"}
    host, port = sim.members[0].split(":")
    ctx = ssl.create_default_context(cafile=sim.ca_path)

    def control(body, token=True):
        conn = http.client.HTTPSConnection(host, int(port), timeout=5, context=ctx)
        headers = dict(hdr)
        if token:
            headers["Authorization"] = f"PVEAPIToken={sim.token_id}={sim.token_secret}"
        conn.request("POST", "/_sim/fault", body=json.dumps(body), headers=headers)
        resp = conn.getresponse()
        resp.read()
        conn.close()
        return resp.status

    before = len(sim.log)
    assert control(spec, token=False) == 401
    assert control(spec) == 200
    assert sim.request("GET", "/nodes")[0] == 500
    assert control({"op": "clear"}) == 200
    assert sim.request("GET", "/nodes")[0] == 200
    assert all(e["path"] != "/_sim/fault" for e in sim.log[before:])


# -- tasks ------------------------------------------------------------------------------

def test_task_lifecycle(sim):
    upid = sim.start_task("node2", "vzcreate", "101", "root@pam!sim", exitstatus="WARNINGS: 1",
                          duration=0.4, log=["creating CT", "WARN: something"])
    assert upid.startswith("UPID:node2:") and upid.endswith(":vzcreate:101:root@pam!sim:")
    quoted = urllib.parse.quote(upid, safe="")
    status = sim.request("GET", f"/nodes/node2/tasks/{quoted}/status")[1]["data"]
    assert status["status"] == "running" and "exitstatus" not in status
    assert (status["user"], status["tokenid"], status["type"]) == ("root@pam", "sim", "vzcreate")
    time.sleep(0.45)
    status = sim.request("GET", f"/nodes/node2/tasks/{quoted}/status")[1]["data"]
    assert (status["status"], status["exitstatus"]) == ("stopped", "WARNINGS: 1")
    log = sim.request("GET", f"/nodes/node2/tasks/{quoted}/log")[1]
    assert log["total"] == 3 and log["data"][-1] == {"n": 3, "t": "TASK WARNINGS: 1"}

    failed = sim.start_task("node1", "qmstart", "100", "root@pam", exitstatus="VM 100 already running")
    log = sim.request("GET", f"/nodes/node1/tasks/{urllib.parse.quote(failed, safe='')}/log")[1]
    assert log["data"] == [{"n": 1, "t": "TASK ERROR: VM 100 already running"}]
    assert sim.request("GET", "/nodes/node1/tasks/UPID:nope/status")[1]["errors"] == {
        "upid": "unable to parse worker upid"}
    assert sim.request("GET", f"/nodes/node3/tasks/{quoted}/status")[1]["errors"] == {"upid": "no such task"}
    assert sim.request("GET", f"/nodes/node9/tasks/{quoted}/status")[1]["message"].startswith(
        "hostname lookup 'node9' failed")


# -- the request log --------------------------------------------------------------------

def test_log_entries_and_writes(sim):
    sim.clear_log()
    sim.request("GET", "/pools")
    sim.request("POST", "/pools", {"poolid": "logged", "comment": "x"})
    sim.request("DELETE", "/pools/logged")
    log = sim.log
    assert [(e["method"], e["path"], e["status"]) for e in log] == [
        ("GET", "/pools", 200), ("POST", "/pools", 200), ("DELETE", "/pools/logged", 200)]
    assert set(log[0]) == {"method", "path", "form", "member", "token_id", "status"}
    assert log[1]["form"] == {"poolid": "logged", "comment": "x"}
    assert log[1]["member"] == sim.members[0] and log[1]["token_id"] == "root@pam!sim"
    assert [e["method"] for e in sim.writes()] == ["POST", "DELETE"]
    log[0]["status"] = 999  # a copy
    assert sim.log[0]["status"] == 200
    assert [json.loads(x) for x in Path(sim.log_path).read_text().splitlines()][-1] == sim.log[-1]


def test_fallback_rules_without_schema_file(tmp_path):
    code = ("import sys; sys.path.insert(0, %r)\n"
            "from simulator import Simulator\n"
            "with Simulator(members=1) as s:\n"
            "    print(s.request('POST', '/pools', {'poolid': 'p', 'x': '1'})[0],"
            " s.request('GET', '/version')[0])\n") % str(TESTS)
    env = dict(os.environ, PVE_API_SCHEMA=str(tmp_path / "missing.json"))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=30, check=False)
    assert proc.stdout.split() == ["400", "200"]
    assert proc.stderr.count("not found") == 1
