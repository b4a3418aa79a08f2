"""The simulator's credential engine, its PBS server and the PVE task owner check.

Run: python -m pytest tests/unit/test_simulator_bao_pbs.py -q
"""

import http.client
import json
import re
import ssl
import sys
import time
import urllib.parse
import uuid
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from simulator import Simulator  # noqa: E402
# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import (  # noqa: E402,F401  pylint: disable=unused-import
    SERVE_KEYS, _no_faults, serve_process, sim)

PBS_UPID_RE = re.compile(
    r"^UPID:(?P<node>[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?):(?P<pid>[0-9A-F]{8}):(?P<pstart>[0-9A-F]{8,9}):"
    r"(?P<task_id>[0-9A-F]{8,16}):(?P<starttime>[0-9A-F]{8}):(?P<wtype>[^:\s]+):(?P<wid>[^:\s]*):"
    r"(?P<authid>[^:\s]+):$")


def https(address, ca_path, method, path, headers=None, body=None):
    """One HTTPS exchange: (status, reason, body text, headers with lower-case names)."""
    host, port = address.replace("https://", "").split(":")
    conn = http.client.HTTPSConnection(host, int(port), timeout=5,
                                       context=ssl.create_default_context(cafile=ca_path))
    try:
        conn.request(method, path, body=body, headers=dict(headers or {}))
        resp = conn.getresponse()
        return (resp.status, resp.reason, resp.read().decode(),
                {k.lower(): v for k, v in resp.getheaders()})
    finally:
        conn.close()


def bao(sim, path, token=True, method="GET", headers=None):
    hdrs = dict(headers or {})
    if token is True:
        hdrs["X-Vault-Token"] = sim.bao_token
    elif token:
        hdrs["X-Vault-Token"] = token
    return https(sim.bao_addr, sim.ca_path, method, path, hdrs)


def mint(sim, role):
    status, _reason, body, _headers = bao(sim, f"/v1/{sim.bao_mount}/creds/{role}")
    assert status == 200, body
    return json.loads(body)


def pbs(sim, method, path, body=None, auth=None, headers=None):
    hdrs = dict(headers or {})
    if auth is None:
        auth = f"PBSAPIToken={sim.pbs_token_id}:{sim.pbs_token_secret}"
    if auth:
        hdrs["Authorization"] = auth
    if body is not None:
        hdrs.setdefault("Content-Type", "application/x-www-form-urlencoded")
        body = urllib.parse.urlencode(body) if isinstance(body, dict) else body
    return https(sim.pbs_members[0], sim.ca_path, method, "/api2/json" + path, hdrs, body)


# -- the credential engine -------------------------------------------------------

@pytest.mark.parametrize("role, ttl, roleid", [
    ("read", 3600, "PVEAuditor"),
    ("provision", 300, "Administrator"),
])
def test_mint_answer_and_cluster_state(sim, role, ttl, roleid):
    before = len(sim.log)
    status, _reason, body, headers = bao(sim, f"/v1/proxmox-sim/creds/{role}",
                                         headers={"X-Vault-Request": "true"})
    now = time.time()
    assert status == 200 and headers["content-type"] == "application/json"
    answer = json.loads(body)
    assert set(answer) == {"request_id", "lease_id", "renewable", "lease_duration", "data",
                           "wrap_info", "warnings", "auth"}
    assert uuid.UUID(answer["request_id"]) and answer["lease_id"].startswith(f"proxmox-sim/creds/{role}/")
    assert (answer["renewable"], answer["lease_duration"]) == (False, ttl)
    assert answer["wrap_info"] is None and answer["warnings"] is None and answer["auth"] is None
    token_id, secret = answer["data"]["token_id"], answer["data"]["secret"]
    assert set(answer["data"]) == {"token_id", "secret"} and uuid.UUID(secret)
    userid, tokenname = token_id.split("!")
    assert userid == f"hf-{role}@pve" and re.fullmatch(rf"{role}-\d{{10}}-\d+", tokenname)
    # visible through the PVE API like any other token
    status, listed = sim.request("GET", f"/access/users/{userid}/token")
    row = [t for t in listed["data"] if t["tokenid"] == tokenname]
    assert status == 200 and len(row) == 1 and row[0]["privsep"] == 1
    assert abs(row[0]["expire"] - (now + ttl)) <= 3
    acl = sim.request("GET", "/access/acl")[1]["data"]
    assert {"path": "/", "type": "token", "ugid": token_id, "roleid": roleid} in \
        [{k: r[k] for k in ("path", "type", "ugid", "roleid")} for r in acl]
    assert {"path": "/", "type": "user", "ugid": userid, "roleid": roleid} in \
        [{k: r[k] for k in ("path", "type", "ugid", "roleid")} for r in acl]
    assert token_id in sim.minted(role) and token_id not in sim.minted("other")
    assert sim.bao_log[-1] == {"method": "GET", "path": f"/v1/proxmox-sim/creds/{role}",
                               "status": 200, "namespace": None}
    # the engine is not a PVE member: only the two sim.request calls were logged
    assert len(sim.log) == before + 2


@pytest.mark.parametrize("role, method, path, form, status, message", [
    ("provision", "GET", "/pools", None, 200, None),
    ("provision", "POST", "/pools", {"poolid": "minted"}, 200, None),
    ("provision", "DELETE", "/pools/to-delete", None, 200, None),
    ("read", "GET", "/pools", None, 200, None),
    ("read", "GET", "/cluster/status", None, 200, None),
    ("read", "GET", "/storage/local", None, 403, "Permission check failed (/storage/local, Datastore.Allocate)\n"),
    ("read", "POST", "/pools", {"poolid": "nope"}, 403, "Permission check failed (/pool/nope, Pool.Allocate)\n"),
    ("read", "PUT", "/storage/local", {"content": "iso"}, 403, "Permission check failed (/storage, Datastore.Allocate)\n"),
])
def test_minted_token_on_pve(sim, role, method, path, form, status, message):
    # Each case stands alone (xdist may run them on different workers, in any order).
    if method == "DELETE":
        assert sim.request("POST", "/pools", {"poolid": path.rsplit("/", 1)[1]})[0] == 200
    data = mint(sim, role)["data"]
    got, body = sim.request(method, path, form, token=(data["token_id"], data["secret"]))
    assert got == status, body
    if message:
        assert body["message"] == message


@pytest.mark.parametrize("fault, path, token, headers, status, errors", [
    ("sealed", "/v1/proxmox-sim/creds/read", True, None, 503, ["Vault is sealed"]),
    ("deny", "/v1/proxmox-sim/creds/read", True, None, 403, ["permission denied"]),
    (None, "/v1/proxmox-sim/creds/read", None, None, 403, ["permission denied"]),
    (None, "/v1/proxmox-sim/creds/read", "s.wrong", None, 403, ["permission denied"]),
    (None, "/v1/proxmox-sim/creds/nope", True, None, 400, ["unknown role: nope"]),
    (None, "/v1/other/creds/read", True, None, 404,
     ['no handler for route "other/creds/read". route entry not found.']),
    (None, "/v1/proxmox-sim/roles/read", True, None, 404, []),
    (None, "/v1/proxmox-sim/creds/read", True, {"X-Vault-Namespace": "ops"}, 200, None),
    ("sealed", "/v1/proxmox-sim/creds/nope", None, None, 503, ["Vault is sealed"]),
])
def test_engine_answers(sim, fault, path, token, headers, status, errors):
    sim.bao_fault(fault)
    minted = len(sim.minted())
    got, _reason, body, hdrs = bao(sim, path, token=token, headers=headers)
    assert got == status and hdrs["content-type"] == "application/json"
    if errors is not None:
        assert json.loads(body) == {"errors": errors}
        assert len(sim.minted()) == minted
    assert sim.bao_log[-1] == {"method": "GET", "path": path, "status": status,
                               "namespace": (headers or {}).get("X-Vault-Namespace")}


def test_engine_write_to_creds_is_405_and_extra_tokens(sim):
    got, _reason, body, _hdrs = bao(sim, "/v1/proxmox-sim/creds/read", method="POST")
    assert (got, json.loads(body)) == (405, {"errors": ["unsupported operation"]})
    assert bao(sim, "/v1/proxmox-sim/creds/read", token="s.extra")[0] == 403
    sim.add_bao_token("s.extra")
    assert bao(sim, "/v1/proxmox-sim/creds/read", token="s.extra")[0] == 200


def test_configured_role(sim):
    sim.request("POST", "/pools", {"poolid": "lab"})
    sim.configure_bao_role("lab", roleid="PVEPoolAdmin", path="/pool/lab/", ttl=60)
    data = mint(sim, "lab")
    token_id = data["data"]["token_id"]
    assert data["lease_duration"] == 60 and token_id.startswith("hf-lab@pve!lab-")
    info = sim.state.users["hf-lab@pve"]["tokens"][token_id.split("!")[1]]
    assert abs(info["expire"] - (time.time() + 60)) <= 3
    assert sim.state.acl["/pool/lab"]["tokens"][token_id] == {"PVEPoolAdmin": 1}
    token = (token_id, data["data"]["secret"])
    assert sim.request("GET", "/pools/lab", token=token)[0] == 200
    assert sim.request("POST", "/pools", {"poolid": "other"}, token=token)[0] == 403
    sim.request("DELETE", "/pools/lab")


@pytest.mark.parametrize("action", ["revoke_token", "expire_token"])
def test_revoked_or_expired_token_is_401(sim, action):
    data = mint(sim, "provision")["data"]
    token = (data["token_id"], data["secret"])
    assert sim.request("GET", "/version", token=token)[0] == 200
    assert getattr(sim, action)(data["token_id"]) is True
    assert sim.request("GET", "/version", token=token) == (401, "")
    assert (data["token_id"] in sim.minted("provision")) == (action == "expire_token")
    assert getattr(sim, action)("nobody@pve!gone") is False


def test_hvac_reads_the_engine(sim):
    hvac = pytest.importorskip("hvac")
    client = hvac.Client(url=sim.bao_addr, token=sim.bao_token, verify=sim.ca_path, namespace="team")
    secret = client.read("proxmox-sim/creds/read")
    assert secret["lease_duration"] == 3600 and secret["data"]["token_id"].startswith("hf-read@pve!")
    assert sim.bao_log[-1]["namespace"] == "team"
    assert client.read("proxmox-sim/roles/read") is None
    sim.bao_fault("deny")
    with pytest.raises(hvac.exceptions.Forbidden):
        client.read("proxmox-sim/creds/read")
    sim.bao_fault("sealed")
    with pytest.raises(hvac.exceptions.VaultDown):
        client.read("proxmox-sim/creds/read")


# -- PVE: the task owner check --------------------------------------------------

def test_task_status_owner_check(sim):
    state = sim.state
    state.add_user("tasks@pve")
    owner = state.add_token("tasks@pve", "owner", privsep=1)
    other = state.add_token("tasks@pve", "other", privsep=1)
    auditor = state.add_token("tasks@pve", "auditor", privsep=1)
    state.set_acl("/nodes/node2", "PVEAuditor", users="tasks@pve", tokens="tasks@pve!auditor")
    upid = sim.start_task("node2", "vzcreate", "101", "tasks@pve!owner")
    path = f"/nodes/node2/tasks/{urllib.parse.quote(upid, safe='')}/status"
    cases = [(("tasks@pve!owner", owner), 200), (("tasks@pve!auditor", auditor), 200),
             (("tasks@pve!other", other), 403), (None, 200)]
    for token, status in cases:
        got, body = sim.request("GET", path, token=token)
        assert got == status, (token, body)
        if status == 403:
            assert body["message"] == "Permission check failed (/nodes/node2, Sys.Audit)\n"
        else:
            assert (body["data"]["user"], body["data"]["tokenid"]) == ("tasks@pve", "owner")
    # the token's own user (by ticket) sees its tokens' tasks: Tasks.pm $check_task_user ("user sees user + token
    # tasks"), with or without Sys.Audit on the node
    state.passwords["tasks@pve"] = "secret123"
    status, ticket = sim.request("POST", "/access/ticket", {"username": "tasks@pve", "password": "secret123"})
    assert status == 200
    got = https(sim.url(0), sim.ca_path, "GET", "/api2/json" + path,
                {"Cookie": "PVEAuthCookie=" + urllib.parse.quote(ticket["data"]["ticket"])})
    assert got[0] == 200
    state.acl["/nodes/node2"]["users"].pop("tasks@pve")
    got = https(sim.url(0), sim.ca_path, "GET", "/api2/json" + path,
                {"Cookie": "PVEAuthCookie=" + urllib.parse.quote(ticket["data"]["ticket"])})
    assert got[0] == 200


# -- PBS ------------------------------------------------------------------------------

@pytest.mark.parametrize("auth, status, body", [
    ("PBSAPIToken={id}:{secret}", 200, None),
    ("PBSAPIToken {id}:{secret}", 200, None),
    ("PVEAPIToken={id}={secret}", 401, "authentication failed - no authentication credentials provided."),
    ("PVEAPIToken={id}:{secret}", 401, "authentication failed - no authentication credentials provided."),
    ("PBSAPIToken={id}={secret}", 401, "authentication failed - invalid token name"),
    ("PBSAPIToken={id}:wrong", 401, "authentication failed - invalid credentials"),
    ("PBSAPIToken=root@pam!nope:{secret}", 401, "authentication failed - user account or token disabled or expired."),
    ("PBSAPIToken=root@pam:{secret}", 401, "authentication failed - not an API token ID"),
    # percent_decode_str(..).decode_utf8() of the secret
    ("PBSAPIToken={id}:%ff", 401, "authentication failed - failed to decode API token header"),
    ("", 401, "authentication failed - no authentication credentials provided."),
])
def test_pbs_auth_header(sim, auth, status, body):
    header = auth.format(id=sim.pbs_token_id, secret=sim.pbs_token_secret)
    got, reason, text, headers = pbs(sim, "GET", "/version", auth=header)
    assert got == status
    if status == 200:
        assert json.loads(text) == {"data": {"version": "4.1", "release": "2",
                                             "repoid": sim.pbs_state.version["repoid"]}}
        assert headers["content-type"] == "application/json;charset=UTF-8"
    else:
        assert (reason, text) == ("Unauthorized", body)
        assert "content-type" not in headers and "connection" not in headers
    assert sim.log[-1]["member"] == sim.pbs_members[0]
    assert sim.log[-1]["token_id"] == (sim.pbs_token_id if status == 200 else None)


@pytest.mark.parametrize("method, path, body, status, text", [
    ("GET", "/config/datastore/nope", None, 400, "no such datastore 'nope'"),
    ("GET", "/nope", None, 404, "Path '/api2/json/nope' not found."),
    ("PUT", "/version", None, 404, "Path '/api2/json/version' not found."),
    ("GET", "/config/datastore/ab", None, 400,
     "parameter verification failed - 'name': value must be at least 3 characters long"),
    ("POST", "/config/datastore", {"name": "ok1"}, 400,
     "parameter verification failed - 'path': parameter is missing and it is not optional."),
    ("POST", "/config/datastore", {"name": "ok1", "path": "/x", "keep-daily": "0", "verify-new": "maybe"}, 400,
     "parameter verification failed:\n- 'keep-daily': value must have a minimum value of 1 (got 0)\n"
     "- 'verify-new': Unable to parse boolean option."),
    ("POST", "/config/datastore", {"name": "ok1", "path": "/x", "bogus": "1"}, 400,
     "parameter verification failed - 'bogus': schema does not allow additional properties."),
    ("POST", "/config/datastore", {"name": "-bad", "path": "/x"}, 400,
     "parameter verification failed - 'name': value does not match the regex pattern"),
    ("POST", "/config/datastore", '{"name": "ok1", "path": "/x", "verify-new": 1}', 400,
     "parameter verification failed - 'verify-new': Expected boolean value."),
    ("DELETE", "/config/datastore/nope", None, 404, "datastore 'nope' does not exist."),
    # core::str::Utf8Error's Display
    ("POST", "/config/datastore", b"name=\xff", 400,
     "Request body not uft8: invalid utf-8 sequence of 1 bytes from index 5"),
    ("POST", "/config/datastore", b"name=\xe2\x82", 400,
     "Request body not uft8: incomplete utf-8 byte sequence from index 5"),
    # property strings: proxmox-schema de::verify (its own texts), nested in the parameter's error
    ("POST", "/config/datastore", {"name": "ok1", "path": "/x", "tuning": "bogus=1,gc-atime-cutoff=0,"
                                   "chunk-order=random,gc-atime-safety-check=maybe,gc-cache-capacity=x"}, 400,
     "parameter verification failed - 'tuning': parameter verification failed:\n"
     "- 'bogus': schema does not allow additional properties\n"
     "- 'gc-atime-cutoff': schema validation failed: value must have a minimum value of 1 (got 0)\n"
     "- 'chunk-order': schema validation failed: value 'random' is not defined in the enumeration.\n"
     "- 'gc-atime-safety-check': not a boolean: \"maybe\"\n"
     "- 'gc-cache-capacity': not an integer: \"x\""),
    ("POST", "/config/datastore", {"name": "ok1", "path": "/x", "tuning": "gc-atime-cutoff=5,gc-atime-cutoff=6"},
     400, "parameter verification failed - 'tuning': parameter verification failed - 'gc-atime-cutoff': "
          "duplicate key"),
    ("POST", "/config/datastore", {"name": "ok1", "path": "/x", "maintenance-mode": "message=x"}, 400,
     "parameter verification failed - 'maintenance-mode': parameter verification failed - 'type': "
     "property is missing and it is not optional"),
    ("POST", "/config/datastore", {"name": "ok1", "path": "/x", "maintenance-mode": 'offline,message="x'}, 400,
     "parameter verification failed - 'maintenance-mode': unexpected end of string"),
    ("POST", "/config/datastore", {"name": "ok1", "path": "/x", "maintenance-mode": 'offline,message="x"y'}, 400,
     "parameter verification failed - 'maintenance-mode': garbage after quoted string"),
    ("POST", "/config/datastore", {"name": "ok1", "path": "/x", "maintenance-mode": 'offline,message="\\q"'}, 400,
     "parameter verification failed - 'maintenance-mode': unsupported escape sequence"),
    ("POST", "/config/datastore", {"name": "ok1", "path": "/x", "notify": "never"}, 400,
     "parameter verification failed - 'notify': value without key, but schema does not define a default key"),
    ("GET", "/nodes/localhost/tasks/UPID:bad/status", None, 400,
     "parameter verification failed - 'upid': value must be at least 36 characters long"),
])
def test_pbs_plain_text_errors(sim, method, path, body, status, text):
    headers = {"Content-Type": "application/json"} if isinstance(body, str) else None
    got, reason, answer, hdrs = pbs(sim, method, path, body=body, headers=headers)
    assert (got, answer) == (status, text)
    assert reason == {400: "Bad Request", 404: "Not Found"}[status]
    assert hdrs["content-type"] == "application/json;charset=UTF-8" and "connection" not in hdrs
    assert sim.log[-1]["status"] == status and sim.log[-1]["token_id"] == sim.pbs_token_id


def test_pbs_datastore_create_read_and_task(sim):
    state = sim.pbs_state
    status, _r, text, _h = pbs(sim, "POST", "/config/datastore",
                               {"name": "store-a", "path": "/mnt/a", "comment": "A", "gc-schedule": "daily"})
    assert status == 200
    upid = json.loads(text)["data"]
    m = PBS_UPID_RE.match(upid)
    assert m and (m["wtype"], m["wid"], m["authid"], m["node"]) == \
        ("create-datastore", "store\\x2da", "root@pam!sim", state.node)
    status, _r, text, _h = pbs(sim, "GET", f"/nodes/localhost/tasks/{urllib.parse.quote(upid, safe='')}/status")
    task = json.loads(text)["data"]
    assert task == {"upid": upid, "node": state.node, "pid": int(m["pid"], 16), "pstart": int(m["pstart"], 16),
                    "starttime": int(m["starttime"], 16), "type": "create-datastore", "id": "store-a",
                    "user": "root@pam", "tokenid": "sim", "status": "stopped", "exitstatus": "OK",
                    "endtime": task["endtime"]}
    assert task["endtime"] >= task["starttime"]
    listed = json.loads(pbs(sim, "GET", "/config/datastore")[2])
    item = json.loads(pbs(sim, "GET", "/config/datastore/store-a")[2])
    assert item["data"] == {"name": "store-a", "path": "/mnt/a", "comment": "A", "gc-schedule": "daily"}
    assert item["data"] in listed["data"] and re.fullmatch(r"[0-9a-f]{64}", item["digest"])
    assert listed["digest"] == item["digest"] and set(item) == {"data", "digest"}
    # a duplicate, then a PUT with a stale digest, then a good one
    status, _r, text, _h = pbs(sim, "POST", "/config/datastore", {"name": "store-a", "path": "/mnt/b"})
    assert (status, text) == (400, "parameter verification failed - 'name': datastore 'store-a' already exists.")
    status, _r, text, _h = pbs(sim, "PUT", "/config/datastore/store-a", {"comment": "B", "digest": "0" * 64})
    assert (status, text) == (400, "detected modified configuration - file changed by other user? Try again.")
    status, _r, text, _h = pbs(sim, "PUT", "/config/datastore/store-a",
                               f"comment=B&delete=gc-schedule&digest={item['digest']}")
    assert (status, json.loads(text)) == (200, {"data": None})
    assert json.loads(pbs(sim, "GET", "/config/datastore/store-a")[2])["data"] == \
        {"name": "store-a", "path": "/mnt/a", "comment": "B"}
    # delete answers a UPID; the section goes when the task ends
    status, _r, text, _h = pbs(sim, "DELETE", "/config/datastore/store-a")
    assert status == 200 and PBS_UPID_RE.match(json.loads(text)["data"])["wtype"] == "delete-datastore"
    assert pbs(sim, "GET", "/config/datastore/store-a")[:3:2] == (400, "no such datastore 'store-a'")


def test_pbs_running_and_failing_tasks(sim):
    state = sim.pbs_state
    state.task_duration = 0.4
    try:
        upid = json.loads(pbs(sim, "POST", "/config/datastore", {"name": "slow", "path": "/mnt/slow"})[2])["data"]
        path = f"/nodes/{state.node}/tasks/{upid}/status"
        running = json.loads(pbs(sim, "GET", path)[2])["data"]
        assert running["status"] == "running" and "exitstatus" not in running and "endtime" not in running
        assert pbs(sim, "GET", "/config/datastore/slow")[0] == 400  # written when the task ends
        time.sleep(0.5)
        assert json.loads(pbs(sim, "GET", path)[2])["data"]["exitstatus"] == "OK"
        assert pbs(sim, "GET", "/config/datastore/slow")[0] == 200
    finally:
        state.task_duration = 0.0
    upid = json.loads(pbs(sim, "POST", "/config/datastore", {"name": "rel", "path": "relative"})[2])["data"]
    status = json.loads(pbs(sim, "GET", f"/nodes/localhost/tasks/{upid}/status")[2])["data"]
    assert (status["status"], status["exitstatus"]) == ("stopped", 'expected absolute path - got "relative"')
    log = json.loads(pbs(sim, "GET", f"/nodes/localhost/tasks/{upid}/log")[2])
    assert log["total"] == len(log["data"]) and log["success"] == 1
    assert log["data"][-1]["t"].endswith('TASK ERROR: expected absolute path - got "relative"')
    assert pbs(sim, "GET", "/config/datastore/rel")[0] == 400
    upid = sim.pbs_start_task("verify", "store1", exitstatus="WARNINGS: 2")
    assert json.loads(pbs(sim, "GET", f"/nodes/localhost/tasks/{upid}/status")[2])["data"]["exitstatus"] == "WARNINGS: 2"
    unknown = upid.replace(upid.split(":")[4], "0000FFFF")
    assert json.loads(pbs(sim, "GET", f"/nodes/localhost/tasks/{unknown}/status")[2])["data"]["exitstatus"] == "unknown"


def test_pbs_request_helper_and_writes(sim):
    sim.clear_log()
    status, body = sim.pbs_request("POST", "/config/datastore", {"name": "helper", "path": "/mnt/h"})
    assert status == 200 and body["data"].startswith("UPID:")
    assert sim.pbs_request("GET", "/config/datastore/helper")[1]["data"]["path"] == "/mnt/h"
    assert [(e["method"], e["path"], e["member"]) for e in sim.writes()] == \
        [("POST", "/config/datastore", sim.pbs_members[0])]


# -- contract and startup ----------------------------------------------------------

def test_serve_contract_keys(tmp_path):
    with serve_process(tmp_path, tmp_path / "r.log") as proc:
        info = json.loads(proc.stdout.readline())
        assert set(info) == SERVE_KEYS
        assert info["bao_mount"] == "proxmox-sim" and info["bao_addr"].startswith("https://127.0.0.1:")
        assert info["pbs_token_id"] == "root@pam!sim" and len(info["pbs_members"]) == 1
        got = https(info["bao_addr"], info["ca_path"], "GET", "/v1/proxmox-sim/creds/read",
                    {"X-Vault-Token": info["bao_token"]})
        assert got[0] == 200
        got = https(info["pbs_members"][0], info["ca_path"], "GET", "/api2/json/version",
                    {"Authorization": f"PBSAPIToken={info['pbs_token_id']}:{info['pbs_token_secret']}"})
        assert got[0] == 200


def test_startup_is_fast():
    start = time.monotonic()
    with Simulator(members=3) as fresh:
        elapsed = time.monotonic() - start
        assert fresh.bao_addr and fresh.pbs_members
    assert elapsed < 0.3


def test_the_pbs_mount_mints_privilege_separated_pbs_tokens(sim):
    status, _reason, body, _headers = bao(sim, f"/v1/{sim.bao_pbs_mount}/creds/read")
    assert status == 200, body
    lease = json.loads(body)
    token_id, secret = lease["data"]["token_id"], lease["data"]["secret"]
    assert token_id.startswith("hf-read@pbs!read-") and lease["lease_id"].startswith(f"{sim.bao_pbs_mount}/creds/read/")
    # the read role (Audit on /) reads the datastores and cannot create one
    assert sim.pbs_request("GET", "/config/datastore", token=(token_id, secret))[0] == 200
    assert sim.pbs_request("POST", "/config/datastore", {"name": "nope", "path": "/mnt/nope"},
                           token=(token_id, secret))[0] == 403
    status, _reason, body, _headers = bao(sim, f"/v1/{sim.bao_pbs_mount}/creds/provision")
    provision = json.loads(body)["data"]
    assert sim.pbs_request("POST", "/config/datastore", {"name": "yes1", "path": "/mnt/yes"},
                           token=(provision["token_id"], provision["secret"]))[0] == 200
    # the PVE cluster knows nothing of them
    assert "hf-read@pbs" not in sim.state.users


def test_forced_answers_and_hooks_reach_the_server_they_name(sim):
    sim.force("GET", r"^/config/datastore$", 500, "got timeout", server="pbs", times=1)
    sim.force("GET", r"^/version$", 503, "pve only", times=1)
    seen = []
    sim.before("POST", r"^/config/datastore$", lambda params: seen.append(params.pop("comment", None)),
               server="pbs", times=1)
    assert sim.pbs_request("GET", "/version")[0] == 200  # the PVE fault does not touch the backup server
    status, body = sim.pbs_request("GET", "/config/datastore")[:2]
    assert status == 500 and "got timeout" in str(body)
    assert sim.pbs_request("POST", "/config/datastore", {"name": "hooked", "path": "/mnt/h", "comment": "c"})[0] == 200
    assert seen == ["c"] and "comment" not in sim.pbs_state.datastores["hooked"]


def test_pbs_property_strings_parse_like_proxmox_schema():
    from simulator.pbs import schema as pbs_schema
    from simulator.pbs.schema import ParameterError, SchemaError
    fmt = {"default_key": "type", "additionalProperties": False, "properties": {
        "type": {"type": "string"}, "message": {"type": "string", "optional": 1}}}
    # a quoted value keeps commas and '=', escapes are \\", \\\\ and \\n; a key ends at the first '='
    assert pbs_schema.parse_property_string(fmt, 'offline,message="a,b=\\"c\\""') == {
        "type": "offline", "message": 'a,b="c"'}
    pbs_schema.verify_property_string(fmt, 'type=offline,message="x\\ny"')
    # the one-error Display trims the message, as Rust's does
    assert str(ParameterError([("a", SchemaError("x \n"))])) == "parameter verification failed - 'a': x"
