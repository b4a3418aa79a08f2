"""The PBS simulator's prune, sync and verify jobs and remotes (issue 12).

Run: python -m pytest tests/unit/test_simulator_pbs_jobs.py -q
"""

import sys
import uuid
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from simulator import fixtures  # noqa: E402
from simulator.pbs.state import PbsState  # noqa: E402
from simulator.pbs.handlers import Ctx  # noqa: E402
from simulator.pbs.handlers.jobs import (  # noqa: E402
    drop_datastore_jobs, file_digest, sync_job_modify_access, sync_job_read_access)

# the module-scoped simulator and the autouse fault reset, bound here so pytest finds them
sim = fixtures.sim
_no_faults = fixtures._no_faults

FINGERPRINT = ":".join(["ab"] * 32)
WRONG_DIGEST = "0" * 64


def new_id(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def call(sim, method, path, form=None):
    return sim.pbs_request(method, path, form)


def created(sim, path, form):
    status, body = call(sim, "POST", path, form)
    assert (status, body) == (200, {"data": None})
    return form.get("id") or form.get("name")


def prune_job(sim, **extra):
    return created(sim, "/config/prune", {"id": new_id("p"), "store": "store1", "schedule": "daily", **extra})


def remote(sim, **extra):
    return created(sim, "/config/remote", {"name": new_id("r"), "host": "pbs2.example", "auth-id": "sync@pbs",
                                           "password": "s3cret", "fingerprint": FINGERPRINT, **extra})


# -- prune jobs ---------------------------------------------------------------------------

def test_prune_create_list_and_read_carry_the_file_digest(sim):
    job_id = prune_job(sim, **{"keep-last": 3, "disable": 0, "comment": "  spaced  "})
    digest = file_digest("prune", sim.pbs_state.prune_jobs)
    status, listed = call(sim, "GET", "/config/prune")
    assert status == 200 and listed["digest"] == digest
    item = {"id": job_id, "store": "store1", "schedule": "daily", "keep-last": 3, "comment": "  spaced  "}
    assert item in listed["data"]   # disable=false is not serialized
    assert call(sim, "GET", f"/config/prune/{job_id}") == (200, {"data": item, "digest": digest})


def test_prune_duplicate_id(sim):
    job_id = prune_job(sim)
    assert call(sim, "POST", "/config/prune", {"id": job_id, "store": "store1", "schedule": "daily"}) == (
        400, f"parameter verification failed - 'id': job '{job_id}' already exists.")


@pytest.mark.parametrize("form, error", [
    ({"id": "ab"}, "'id': value must be at least 3 characters long"),
    ({"id": "-bad"}, "'id': value does not match the regex pattern"),
    ({"keep-last": 0}, "'keep-last': value must have a minimum value of 1 (got 0)"),
    ({"max-depth": 8}, "'max-depth': value must have a maximum value of 7 (got 8)"),
    ({"comment": "x" * 129}, "'comment': value may only be 128 characters long"),
    ({"schedule": None}, "'schedule': parameter is missing and it is not optional."),
])
def test_prune_schema_refusals(sim, form, error):
    body = {"id": new_id("p"), "store": "store1", "schedule": "daily", **form}
    body = {k: v for k, v in body.items() if v is not None}
    assert call(sim, "POST", "/config/prune", body) == (400, f"parameter verification failed - {error}")


def test_prune_update_delete_ns_and_digest(sim):
    job_id = prune_job(sim, **{"keep-last": 3, "keep-daily": 7, "ns": "a/b", "disable": 1})
    path = f"/config/prune/{job_id}"
    assert call(sim, "PUT", path, {"keep-daily": 2, "digest": WRONG_DIGEST}) == (
        400, "detected modified configuration - file changed by other user? Try again.")
    digest = call(sim, "GET", path)[1]["digest"]
    status, _body = call(sim, "PUT", path, {"delete": ["keep-last", "comment"], "ns": "", "disable": 0,
                                            "keep-daily": 2, "digest": digest})
    assert status == 200
    assert call(sim, "GET", path)[1]["data"] == {"id": job_id, "store": "store1", "schedule": "daily",
                                                 "keep-daily": 2}
    assert call(sim, "PUT", path, {"delete": "schedule"}) == (
        400, "parameter verification failed - 'delete': value 'schedule' is not defined in the enumeration.")


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_prune_missing_job_is_the_generic_lookup_error(sim, method):
    assert call(sim, method, "/config/prune/nope") == (400, "no such prune 'nope'")


def test_prune_delete_checks_the_digest(sim):
    job_id = prune_job(sim)
    path = f"/config/prune/{job_id}"
    assert call(sim, "DELETE", path, {"digest": WRONG_DIGEST})[0] == 400
    digest = file_digest("prune", sim.pbs_state.prune_jobs)
    assert call(sim, "DELETE", path, {"digest": digest}) == (200, {"data": None})
    assert job_id not in sim.pbs_state.prune_jobs


# -- verification jobs -----------------------------------------------------------------------

def test_verify_create_read_update_delete(sim):
    job_id = created(sim, "/config/verify", {"id": new_id("v"), "store": "store1", "ns": "team",
                                             "ignore-verified": 1, "outdated-after": 30})
    path = f"/config/verify/{job_id}"
    status, body = call(sim, "GET", path)
    assert status == 200 and body["digest"] == file_digest("verification", sim.pbs_state.verify_jobs)
    assert body["data"] == {"id": job_id, "store": "store1", "ns": "team", "ignore-verified": True,
                            "outdated-after": 30}
    assert call(sim, "PUT", path, {"comment": "  nightly  ", "ns": "", "read-threads": 2,
                                   "delete": "outdated-after"})[0] == 200
    assert call(sim, "GET", path)[1]["data"] == {"id": job_id, "store": "store1", "ns": "team",
                                                 "ignore-verified": True, "comment": "nightly", "read-threads": 2}
    assert call(sim, "PUT", path, {"comment": " "})[0] == 200
    assert "comment" not in sim.pbs_state.verify_jobs[job_id]
    assert call(sim, "DELETE", path) == (200, {"data": None})
    assert call(sim, "DELETE", path) == (400, f"no such verification '{job_id}'")


def test_verify_comment_max_length_is_the_schema_limit(sim):
    assert call(sim, "POST", "/config/verify", {"id": new_id("v"), "store": "store1", "comment": "é" * 129}) == (
        400, "parameter verification failed - 'comment': value may only be 128 characters long")
    assert call(sim, "POST", "/config/verify", {"id": new_id("v"), "store": "store1", "comment": "é" * 128})[0] == 200


# -- sync jobs ---------------------------------------------------------------------------------

def test_sync_create_read_and_direction_filter(sim):
    pull = created(sim, "/config/sync", {"id": new_id("s"), "store": "store1", "remote": "nowhere",
                                         "remote-store": "far", "group-filter": ["type:vm", "exclude:group:ct/100"],
                                         "transfer-last": 2, "rate-in": "10MiB"})
    push = created(sim, "/config/sync", {"id": new_id("s"), "store": "store1", "remote": "nowhere",
                                         "remote-store": "far", "sync-direction": "push"})
    status, body = call(sim, "GET", f"/config/sync/{pull}")
    assert status == 200 and body["digest"] == file_digest("sync", sim.pbs_state.sync_jobs)
    assert body["data"]["group-filter"] == ["type:vm", "exclude:group:ct/100"]
    listed = {job["id"] for job in call(sim, "GET", "/config/sync")[1]["data"]}
    assert pull in listed and push not in listed   # the list defaults to pull jobs
    assert push in {job["id"] for job in call(sim, "GET", "/config/sync", {"sync-direction": "push"})[1]["data"]}
    assert {pull, push} <= {job["id"] for job in call(sim, "GET", "/config/sync", {"sync-direction": "all"})[1]["data"]}


@pytest.mark.parametrize("form, status, error", [
    ({"group-filter": "vm"}, 400, "parameter verification failed - 'group-filter': input doesn't match expected "
                                  "format '<group:GROUP||type:<vm|ct|host>|regex:REGEX>'"),
    ({"group-filter": "kind:vm"}, 400,
     "parameter verification failed - 'group-filter': expected 'group', 'type' or 'regex' prefix, got 'kind'"),
    ({"group-filter": "type:lxc"}, 400, "parameter verification failed - 'group-filter': invalid backup type \"lxc\""),
    ({"remote": None, "remote-store": "store1"}, 400, "source and target datastore can't be the same"),
    ({"ns": "a/b", "max-depth": 6}, 400,
     "namespace 'a/b's depth and recursion depth exceed limit: 2 + 6 > 7"),
    ({"transfer-last": 0}, 400, "parameter verification failed - 'transfer-last': "
                                "value must have a minimum value of 1 (got 0)"),
    ({"sync-direction": "both"}, 400,
     "parameter verification failed - 'sync-direction': value 'both' is not defined in the enumeration."),
])
def test_sync_refusals(sim, form, status, error):
    body = {"id": new_id("s"), "store": "store1", "remote": "rem1", "remote-store": "far", **form}
    body = {k: v for k, v in body.items() if v is not None}
    assert call(sim, "POST", "/config/sync", body) == (status, error)


def test_sync_update_and_missing_job(sim):
    job_id = created(sim, "/config/sync", {"id": new_id("s"), "store": "store1", "remote": "rem1",
                                           "remote-store": "far", "schedule": "hourly", "remove-vanished": 1})
    path = f"/config/sync/{job_id}"
    assert call(sim, "PUT", path, {"delete": ["schedule", "remove-vanished"], "comment": " c ",
                                   "remote-ns": "x", "max-depth": 3})[0] == 200
    assert call(sim, "GET", path)[1]["data"] == {"id": job_id, "store": "store1", "remote": "rem1",
                                                 "remote-store": "far", "comment": "c", "remote-ns": "x",
                                                 "max-depth": 3}
    assert call(sim, "PUT", path, {"digest": WRONG_DIGEST})[0] == 400
    assert call(sim, "DELETE", path) == (200, {"data": None})
    assert call(sim, "GET", path) == (400, f"no such sync '{job_id}'")
    assert call(sim, "PUT", path, {"comment": "x"}) == (400, f"no such sync '{job_id}'")
    assert call(sim, "DELETE", path) == (404, f"job '{job_id}' does not exist.")


@pytest.mark.parametrize("filters, error", [
    (["group:vm/100", "exclude:group:ct/a.b"], None),
    (["group:100"], "value does not match the regex pattern"),   # BACKUP_GROUP_SCHEMA: <type>/<id>
    (["include:group:vm/"], "value does not match the regex pattern"),
    (['type:l"xc'], 'invalid backup type "l\\"xc"'),             # {ty:?}: Rust Debug quoting
])
def test_sync_group_filter_values(sim, filters, error):
    body = {"id": new_id("s"), "store": "store1", "remote": "rem1", "remote-store": "far", "group-filter": filters}
    expected = (200, {"data": None}) if error is None else (
        400, f"parameter verification failed - 'group-filter': {error}")
    assert call(sim, "POST", "/config/sync", body) == expected


def test_push_jobs_refuse_resync_corrupt(sim):
    base = {"store": "store1", "remote": "rem1", "remote-store": "far", "sync-direction": "push"}
    assert call(sim, "POST", "/config/sync", {"id": new_id("s"), **base, "resync-corrupt": 0}) == (
        400, "push jobs do not support resync-corrupt option")
    job_id = created(sim, "/config/sync", {"id": new_id("s"), **base})
    path = f"/config/sync/{job_id}"
    assert call(sim, "PUT", path, {"sync-direction": "push", "resync-corrupt": 1}) == (
        400, "push jobs do not support resync-corrupt option")
    # update_sync_job tests the update's own sync-direction, not the stored one
    assert call(sim, "PUT", path, {"resync-corrupt": 1})[0] == 200
    assert call(sim, "GET", path)[1]["data"]["resync-corrupt"] is True


def test_sync_update_unmount_on_done_needs_run_on_mount(sim):
    job_id = created(sim, "/config/sync", {"id": new_id("s"), "store": "store1", "remote": "rem1",
                                           "remote-store": "far"})
    path = f"/config/sync/{job_id}"
    assert call(sim, "PUT", path, {"unmount-on-done": 1}) == (
        400, "'unmount-on-done' can only be set when 'run-on-mount' is enabled")
    assert call(sim, "PUT", path, {"unmount-on-done": 0})[0] == 200
    assert call(sim, "PUT", path, {"unmount-on-done": 1, "run-on-mount": 1})[0] == 200


# -- sync job access (src/api2/config/sync.rs check_sync_job_{read,modify}_access) ----------------

def _access_state():
    """sync.rs sync_job_access_test's acl.cfg (PBS 4: localstore2 holds DatastoreAudit too), plus push
    grants on remote1/remotestore1."""
    state = PbsState()
    grants = [
        ("/datastore/localstore1", ("read@pbs", "write@pbs"), "DatastoreAudit"),
        ("/datastore/localstore1", ("write@pbs",), "DatastoreBackup"),
        ("/datastore/localstore2", ("write@pbs",), "DatastoreAudit"),
        ("/datastore/localstore2", ("write@pbs", "poweruser@pbs"), "DatastorePowerUser"),
        ("/datastore/localstore3", ("write@pbs",), "DatastoreAdmin"),
        ("/remote/remote1", ("read@pbs", "write@pbs"), "RemoteAudit"),
        ("/remote/remote1/remotestore1", ("write@pbs", "poweruser@pbs"), "RemoteSyncOperator"),
        ("/datastore/localstore1", ("pusher@pbs",), "DatastoreReader"),
        ("/datastore/localstore2", ("pusher@pbs",), "DatastoreAudit"),
        ("/datastore/localstore2", ("pusher@pbs",), "DatastoreBackup"),
        ("/remote/remote1/remotestore1", ("pusher@pbs",), "RemoteSyncPushOperator"),
        ("/remote/remote1/remotestore2", ("pusher@pbs",), "RemoteDatastorePowerUser"),
        ("/remote/remote1/remotestore1/a", ("nsonly@pbs",), "RemoteSyncPushOperator"),
        ("/datastore/localstore1", ("nsonly@pbs",), "DatastoreReader"),
    ]
    for path, ugids, role in grants:
        for ugid in ugids:
            state.acl_insert(path, ugid, role)
    return state


def _access(state, authid, job):
    ctx = Ctx(state, authid, {}, {})
    return sync_job_read_access(ctx, job), sync_job_modify_access(ctx, job)


def test_pull_job_access_is_the_sources_test():
    """sync.rs sync_job_access_test, assertion for assertion."""
    state = _access_state()
    job = {"id": "regular", "remote": "remote0", "remote-store": "remotestore1", "store": "localstore0",
           "owner": "write@pbs"}
    assert _access(state, "root@pam", job) == (True, True)          # no ACL needed
    assert _access(state, "noperm@pbs", job) == (False, False)
    assert _access(state, "read@pbs", job)[0] is False               # neither end readable
    job["remote"] = "remote1"
    assert _access(state, "read@pbs", job)[0] is False               # local end not readable
    job.update(remote="remote0", store="localstore1")
    assert _access(state, "read@pbs", job)[0] is False               # remote end not readable
    job["store"] = "localstore0"
    assert _access(state, "write@pbs", job)[1] is False
    job.update(remote="remote0", store="localstore1")
    assert _access(state, "write@pbs", job)[1] is False              # no Remote.Read on remote0
    job["remote"] = "remote1"
    assert _access(state, "read@pbs", job)[0] is True
    for owner in ("read@pbs", None, "write@pbs"):
        assert _access(state, "read@pbs", dict(job, owner=owner))[1] is False
    assert _access(state, "write@pbs", job) == (True, True)
    job["remove-vanished"] = True
    assert _access(state, "write@pbs", job)[1] is False              # Datastore.Prune missing
    job["store"] = "localstore2"
    assert _access(state, "write@pbs", job)[1] is True
    assert _access(state, "write@pbs", dict(job, owner="read@pbs"))[1] is False   # owner change: Modify
    assert _access(state, "write@pbs", dict(job, owner=None))[1] is False         # root@pam too
    job["store"] = "localstore3"
    assert _access(state, "write@pbs", dict(job, owner="read@pbs"))[1] is True
    assert _access(state, "write@pbs", dict(job, owner=None))[1] is True


def test_pull_job_modify_needs_datastore_audit():
    """PBS 4's job visibility check: DatastorePowerUser (Backup and Prune, no Audit) is not enough."""
    state = _access_state()
    job = {"id": "j", "remote": "remote1", "remote-store": "remotestore1", "store": "localstore2",
           "owner": "poweruser@pbs"}
    assert _access(state, "poweruser@pbs", job) == (False, False)
    state.acl_insert("/datastore/localstore2", "poweruser@pbs", "DatastoreAudit")
    assert _access(state, "poweruser@pbs", job) == (False, True)     # reading needs Remote.Audit on /remote/remote1


def test_local_pull_job_access():
    state = _access_state()
    job = {"id": "j", "remote-store": "localstore1", "store": "localstore3", "owner": "write@pbs"}
    assert _access(state, "write@pbs", job) == (True, True)          # no remote: no Remote.Read
    assert _access(state, "write@pbs", dict(job, **{"remote-store": "elsewhere"})) == (False, True)


def test_push_job_access():
    state = _access_state()
    job = {"id": "p", "remote": "remote1", "remote-store": "remotestore1", "store": "localstore1",
           "owner": "someone@pbs", "sync-direction": "push"}
    # Remote.Audit on /remote/remote1/remotestore1, but no Remote.DatastoreBackup
    assert _access(state, "write@pbs", job) == (True, False)
    # Datastore.Read on the source: ownership does not matter
    assert _access(state, "pusher@pbs", job) == (True, True)
    assert _access(state, "pusher@pbs", dict(job, **{"remove-vanished": True})) == (True, False)
    assert _access(state, "pusher@pbs", dict(job, **{"remove-vanished": True, "remote-store": "remotestore2"})) \
        == (True, True)                                               # RemoteDatastorePowerUser: DatastorePrune
    # no Datastore.Read: Datastore.Backup, and Datastore.Modify unless the caller owns the job
    backup = dict(job, store="localstore2")
    assert _access(state, "pusher@pbs", backup) == (True, False)
    assert _access(state, "pusher@pbs", dict(backup, owner="pusher@pbs")) == (True, True)
    assert _access(state, "pusher@pbs", dict(backup, owner="pusher@pbs!tok")) == (True, True)
    for path, role in (("/datastore/localstore2", "DatastoreAudit"), ("/datastore/localstore2", "DatastoreBackup"),
                       ("/remote/remote1/remotestore1", "RemoteSyncPushOperator")):
        state.acl_insert(path, "pusher@pbs!tok", role)
    # a token does not own its user's job
    assert _access(state, "pusher@pbs!tok", dict(backup, owner="pusher@pbs")) == (True, False)
    # a store the caller cannot audit
    assert _access(state, "pusher@pbs", dict(job, store="localstore3")) == (False, False)
    # no remote: neither read nor modify (Remote must always be present for push)
    assert _access(state, "root@pam", {k: v for k, v in job.items() if k != "remote"}) == (False, False)


def test_push_job_access_covers_the_remote_namespace():
    state = _access_state()
    job = {"id": "p", "remote": "remote1", "remote-store": "remotestore1", "store": "localstore1",
           "sync-direction": "push", "remote-ns": "a/b"}
    assert _access(state, "nsonly@pbs", job) == (True, True)          # granted on .../remotestore1/a, propagated
    assert _access(state, "nsonly@pbs", dict(job, **{"remote-ns": "c"})) == (False, False)
    assert _access(state, "nsonly@pbs", {k: v for k, v in job.items() if k != "remote-ns"}) == (False, False)


def test_push_job_denied_over_http(sim):
    state = sim.pbs_state
    secret = state.add_token("pushdeny@pbs", "t")
    with state.lock:
        for ugid in ("pushdeny@pbs", "pushdeny@pbs!t"):
            state.acl_insert("/datastore/store1", ugid, "DatastoreReader")
            state.acl_insert("/remote/rem1", ugid, "RemoteSyncOperator")
    token = ("pushdeny@pbs!t", secret)
    body = {"id": new_id("s"), "store": "store1", "remote": "rem1", "remote-store": "far", "sync-direction": "push"}
    assert sim.pbs_request("POST", "/config/sync", body, token=token) == (400, "permission check failed")
    with state.lock:
        for ugid in ("pushdeny@pbs", "pushdeny@pbs!t"):
            state.acl_insert("/remote/rem1", ugid, "RemoteSyncPushOperator")
    assert sim.pbs_request("POST", "/config/sync", body, token=token) == (200, {"data": None})


# -- remotes ---------------------------------------------------------------------------------

def test_remote_password_is_never_returned(sim):
    name = remote(sim, port=8007, comment="offsite")
    status, listed = call(sim, "GET", "/config/remote")
    digest = file_digest("remote", sim.pbs_state.remotes, id_key="name")
    assert status == 200 and listed["digest"] == digest
    item = {"name": name, "host": "pbs2.example", "auth-id": "sync@pbs", "fingerprint": FINGERPRINT,
            "port": 8007, "comment": "offsite"}
    assert item in listed["data"] and all("password" not in r for r in listed["data"])
    assert call(sim, "GET", f"/config/remote/{name}") == (200, {"data": item, "digest": digest})
    assert call(sim, "PUT", f"/config/remote/{name}", {"password": "n3w", "digest": digest})[0] == 200
    assert sim.pbs_state.remotes[name]["password"] == "n3w"
    assert call(sim, "GET", f"/config/remote/{name}")[1]["digest"] != digest   # remote.cfg changed


def test_remote_update_delete_and_comment(sim):
    name = remote(sim, port=8007, comment="offsite")
    assert call(sim, "PUT", f"/config/remote/{name}", {"delete": ["port", "fingerprint"], "comment": "  "})[0] == 200
    assert call(sim, "GET", f"/config/remote/{name}")[1]["data"] == {
        "name": name, "host": "pbs2.example", "auth-id": "sync@pbs"}
    assert call(sim, "PUT", f"/config/remote/{name}", {"delete": "password"}) == (
        400, "parameter verification failed - 'delete': value 'password' is not defined in the enumeration.")


@pytest.mark.parametrize("form, error", [
    ({"password": None}, "'password': parameter is missing and it is not optional."),
    ({"name": "ab"}, "'name': value must be at least 3 characters long"),
    ({"fingerprint": "ab:cd"}, "'fingerprint': value does not match the regex pattern"),
    ({"auth-id": "sync"}, "'auth-id': value does not match the regex pattern"),
])
def test_remote_schema_refusals(sim, form, error):
    body = {"name": new_id("r"), "host": "pbs2.example", "auth-id": "sync@pbs", "password": "pw", **form}
    body = {k: v for k, v in body.items() if v is not None}
    assert call(sim, "POST", "/config/remote", body) == (400, f"parameter verification failed - {error}")


def test_remote_refusals(sim):
    name = remote(sim)
    assert call(sim, "POST", "/config/remote", {"name": name, "host": "h", "auth-id": "a@pbs", "password": "p"}) == (
        400, f"parameter verification failed - 'name': remote '{name}' already exists.")
    job_id = created(sim, "/config/sync", {"id": new_id("s"), "store": "store1", "remote": name,
                                           "remote-store": "far"})
    assert call(sim, "DELETE", f"/config/remote/{name}") == (
        400, f"parameter verification failed - 'name': remote '{name}' is used by sync job '{job_id}' "
             "(datastore 'store1')")
    assert call(sim, "DELETE", f"/config/sync/{job_id}")[0] == 200
    assert call(sim, "DELETE", f"/config/remote/{name}", {"digest": WRONG_DIGEST})[0] == 400
    assert call(sim, "DELETE", f"/config/remote/{name}") == (200, {"data": None})
    assert call(sim, "DELETE", f"/config/remote/{name}") == (404, f"remote '{name}' does not exist.")
    assert call(sim, "GET", f"/config/remote/{name}") == (400, f"no such remote '{name}'")
    assert call(sim, "PUT", f"/config/remote/{name}", {"port": 1}) == (400, f"no such remote '{name}'")


# -- datastore removal -------------------------------------------------------------------------

def test_drop_datastore_jobs_takes_both_directions_and_keeps_other_stores():
    """PBS 4.1.1 ("fix push sync jobs cleanup on datastore destroy"): push jobs of the store go too."""
    state = PbsState()
    state.prune_jobs.update({"p1": {"id": "p1", "store": "gone", "schedule": "daily"},
                             "p2": {"id": "p2", "store": "kept", "schedule": "daily"}})
    state.verify_jobs["v1"] = {"id": "v1", "store": "gone"}
    state.sync_jobs.update({"s1": {"id": "s1", "store": "gone", "remote-store": "x"},
                            "s2": {"id": "s2", "store": "gone", "remote-store": "x", "sync-direction": "push"},
                            "s3": {"id": "s3", "store": "kept", "remote-store": "gone"}})
    drop_datastore_jobs(state, "gone")
    assert (list(state.prune_jobs), list(state.verify_jobs), list(state.sync_jobs)) == (["p2"], [], ["s3"])


@pytest.mark.parametrize("keep", [False, True])
def test_datastore_delete_drops_its_acl_subtree(sim, keep):
    name, ugid = new_id("ds"), new_id("acl") + "@pbs"
    state = sim.pbs_state
    with state.lock:
        state.datastores[name] = {"path": f"/mnt/{name}"}
        state.acl_insert(f"/datastore/{name}", ugid, "DatastoreAudit")
        state.acl_insert(f"/datastore/{name}/ns1", ugid, "DatastoreBackup")
        state.acl_insert(f"/datastore/{name}x", ugid, "DatastoreAudit")
    form = {"keep-job-configs": 1} if keep else None
    assert call(sim, "DELETE", f"/config/datastore/{name}", form)[0] == 200
    paths = {e["path"] for e in state.acl if e["ugid"] == ugid}
    expected = {f"/datastore/{name}x"} | ({f"/datastore/{name}", f"/datastore/{name}/ns1"} if keep else set())
    assert paths == expected
