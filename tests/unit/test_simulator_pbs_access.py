"""The PBS simulator's users, API tokens, ACL and permission checks (issue 12).

Run: python -m pytest tests/unit/test_simulator_pbs_access.py -q
"""

import sys
import time
import uuid
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import

MODIFIED = "detected modified configuration - file changed by other user? Try again."


def fresh(prefix="u"):
    return f"{prefix}{uuid.uuid4().hex[:8]}@pbs"


def token_for(sim, userid, name="t", roles=(), user_roles=()):
    """A user with a privilege-separated token; ``roles``/``user_roles``: (path, role[, propagate])."""
    state = sim.pbs_state
    secret = state.add_token(userid, name)
    with state.lock:
        for grant in user_roles:
            state.acl_insert(grant[0], userid, grant[1], *grant[2:])
        for grant in roles:
            state.acl_insert(grant[0], f"{userid}!{name}", grant[1], *grant[2:])
    return f"{userid}!{name}", secret


def admin_token(sim):
    return token_for(sim, fresh("admin"), roles=[("/", "Admin")], user_roles=[("/", "Admin")])


# -- users ---------------------------------------------------------------------------------

def test_user_create_read_list_shapes(sim):
    userid = fresh()
    status, body = sim.pbs_request("POST", "/access/users", {"userid": userid, "comment": "c",
                                                             "email": "a@b.c", "enable": 1})
    assert status == 200 and body == {"data": None}
    status, body = sim.pbs_request("GET", f"/access/users/{userid}")
    assert status == 200
    assert body["data"] == {"userid": userid, "comment": "c", "email": "a@b.c", "enable": True}
    assert len(body["digest"]) == 64
    status, body = sim.pbs_request("GET", "/access/users")
    by_id = {u["userid"]: u for u in body["data"]}
    assert by_id["root@pam"] == {"userid": "root@pam", "comment": "Superuser"}
    assert "tokens" not in by_id[userid]


def test_user_list_include_tokens(sim):
    userid = fresh()
    sim.pbs_state.add_token(userid, "one")
    status, body = sim.pbs_request("GET", "/access/users", {"include_tokens": 1})
    user = next(u for u in body["data"] if u["userid"] == userid)
    assert user["tokens"] == [{"tokenid": f"{userid}!one"}]


def test_user_create_refusals(sim):
    userid = fresh()
    assert sim.pbs_request("POST", "/access/users", {"userid": userid})[0] == 200
    assert sim.pbs_request("POST", "/access/users", {"userid": userid}) == (
        400, f"user '{userid}' already exists.")
    assert sim.pbs_request("POST", "/access/users", {"userid": "x@nowhere"}) == (400, "unknown realm 'nowhere'")
    status, text = sim.pbs_request("POST", "/access/users", {"userid": "bad"})
    assert status == 400 and text.startswith("parameter verification failed - 'userid'")


def test_user_read_missing(sim):
    assert sim.pbs_request("GET", "/access/users/nobody@pbs") == (400, "no such user 'nobody@pbs'")
    assert sim.pbs_request("PUT", "/access/users/nobody@pbs", {"comment": "x"}) == (
        400, "no such user 'nobody@pbs'")
    assert sim.pbs_request("DELETE", "/access/users/nobody@pbs") == (400, "user 'nobody@pbs' does not exist.")


def test_user_update_delete_keys_enable_expire(sim):
    userid = fresh()
    sim.pbs_state.add_user(userid, comment="c", firstname="Ann", enable=True, expire=5000000000)
    form = {"delete": ["comment", "firstname"], "enable": 0, "expire": 0, "email": "x@y.z"}
    assert sim.pbs_request("PUT", f"/access/users/{userid}", form)[0] == 200
    data = sim.pbs_request("GET", f"/access/users/{userid}")[1]["data"]
    assert data == {"userid": userid, "enable": False, "email": "x@y.z"}
    assert sim.pbs_request("PUT", f"/access/users/{userid}", {"enable": 1, "comment": "  "})[0] == 200
    assert sim.pbs_request("GET", f"/access/users/{userid}")[1]["data"] == {"userid": userid, "email": "x@y.z"}


def test_user_digest_checked(sim):
    userid = fresh()
    sim.pbs_state.add_user(userid)
    assert sim.pbs_request("PUT", f"/access/users/{userid}", {"comment": "x", "digest": "0" * 64}) == (
        400, MODIFIED)
    digest = sim.pbs_request("GET", f"/access/users/{userid}")[1]["digest"]
    assert sim.pbs_request("PUT", f"/access/users/{userid}", {"comment": "x", "digest": digest})[0] == 200


def test_user_delete_takes_tokens_and_acl(sim):
    userid = fresh()
    token_for(sim, userid, roles=[("/datastore", "DatastoreAudit")], user_roles=[("/", "Audit")])
    assert sim.pbs_request("DELETE", f"/access/users/{userid}")[0] == 200
    state = sim.pbs_state
    assert userid not in state.users and f"{userid}!t" not in state.tokens
    assert not [e for e in state.acl if e["ugid"].startswith(userid)]


def test_pam_password_needs_superuser(sim):
    status, text = sim.pbs_request("POST", "/access/users", {"userid": "pamuser@pam", "password": "12345678"})
    assert (status, text) == (400, "only superuser can edit pam credentials!")
    assert "pamuser@pam" in sim.pbs_state.users  # saved before the password step failed


# -- tokens --------------------------------------------------------------------------------

def test_token_generate_once_and_authenticate(sim):
    userid = fresh()
    sim.pbs_state.add_user(userid)
    status, body = sim.pbs_request("POST", f"/access/users/{userid}/token/ci", {"comment": "ci"})
    assert status == 200
    assert body["data"]["tokenid"] == f"{userid}!ci"
    secret = body["data"]["value"]
    assert str(uuid.UUID(secret)) == secret
    assert secret not in str(sim.pbs_state.token_shadow)  # kept hashed
    assert sim.pbs_request("GET", "/version", token=(f"{userid}!ci", secret))[0] == 200
    assert sim.pbs_request("GET", "/version", token=(f"{userid}!ci", "wrong"))[0] == 401
    assert sim.pbs_request("POST", f"/access/users/{userid}/token/ci") == (
        400, f"token 'ci' for user '{userid}' already exists.")


def test_token_list_and_read_shapes(sim):
    userid = fresh()
    sim.pbs_state.add_user(userid)
    sim.pbs_request("POST", f"/access/users/{userid}/token/a", {"comment": "x", "expire": 0})
    status, body = sim.pbs_request("GET", f"/access/users/{userid}/token")
    assert body["data"] == [{"token-name": "a", "tokenid": f"{userid}!a", "comment": "x", "expire": 0}]
    assert len(body["digest"]) == 64
    assert sim.pbs_request("GET", f"/access/users/{userid}/token/a")[1]["data"] == {
        "tokenid": f"{userid}!a", "comment": "x", "expire": 0}
    assert sim.pbs_request("GET", f"/access/users/{userid}/token/zz") == (400, f"no such token '{userid}!zz'")
    assert sim.pbs_request("GET", "/access/users/ghost@pbs/token")[1]["data"] == []


def test_token_update_regenerate_and_disable(sim):
    userid = fresh()
    tokenid, secret = token_for(sim, userid, name="r")
    status, body = sim.pbs_request("PUT", f"/access/users/{userid}/token/r", {"regenerate": 1})
    assert status == 200 and set(body["data"]) == {"secret"}
    assert sim.pbs_request("GET", "/version", token=(tokenid, secret))[0] == 401
    new = body["data"]["secret"]
    assert sim.pbs_request("GET", "/version", token=(tokenid, new))[0] == 200
    assert sim.pbs_request("PUT", f"/access/users/{userid}/token/r", {"enable": 0}) == (200, {"data": None})
    assert sim.pbs_request("GET", "/version", token=(tokenid, new)) == (
        401, "authentication failed - user account or token disabled or expired.")


def test_token_delete(sim):
    userid = fresh()
    token_for(sim, userid, name="d", roles=[("/", "Audit")])
    assert sim.pbs_request("DELETE", f"/access/users/{userid}/token/d")[0] == 200
    assert f"{userid}!d" not in sim.pbs_state.tokens
    assert not [e for e in sim.pbs_state.acl if e["ugid"] == f"{userid}!d"]
    assert sim.pbs_request("DELETE", f"/access/users/{userid}/token/d") == (
        400, f"token 'd' of user '{userid}' does not exist.")


def test_expired_token_refused(sim):
    userid = fresh()
    secret = sim.pbs_state.add_token(userid, "old", expire=int(time.time()) - 1)
    assert sim.pbs_request("GET", "/version", token=(f"{userid}!old", secret))[0] == 401


# -- ACL -----------------------------------------------------------------------------------------

def test_acl_put_read_shape_and_digest(sim):
    userid = fresh()
    sim.pbs_state.add_user(userid)
    digest = sim.pbs_request("GET", "/access/acl")[1]["digest"]
    form = {"path": "/datastore/s1", "role": "DatastoreAdmin", "auth-id": userid, "propagate": 0,
            "digest": digest}
    assert sim.pbs_request("PUT", "/access/acl", form) == (200, {"data": None})
    assert sim.pbs_request("PUT", "/access/acl", form) == (400, MODIFIED)
    status, body = sim.pbs_request("GET", "/access/acl", {"path": "/datastore/s1", "exact": 1})
    assert {"path": "/datastore/s1", "ugid": userid, "ugid_type": "user", "roleid": "DatastoreAdmin",
            "propagate": False} in body["data"]


def test_acl_put_refusals(sim):
    form = {"path": "/", "role": "Audit"}
    assert sim.pbs_request("PUT", "/access/acl", dict(form, **{"auth-id": "ghost@pbs"})) == (400, "no such user.")
    assert sim.pbs_request("PUT", "/access/acl", dict(form, **{"auth-id": "ghost@pbs!t"})) == (
        400, "no such API token.")
    assert sim.pbs_request("PUT", "/access/acl", form) == (400, "missing 'userid' or 'group' parameter.")
    assert sim.pbs_request("PUT", "/access/acl", dict(form, group="admins")) == (
        400, "parameter 'group' - groups are currently not supported.")
    userid = fresh()
    sim.pbs_state.add_user(userid)
    assert sim.pbs_request("PUT", "/access/acl", {"path": "/bogus", "role": "Audit", "auth-id": userid}) == (
        400, "invalid acl path '/bogus'.")


def test_acl_delete_entry(sim):
    userid = fresh()
    sim.pbs_state.add_user(userid)
    base = {"path": "/remote/r1", "role": "RemoteAudit", "auth-id": userid}
    assert sim.pbs_request("PUT", "/access/acl", base)[0] == 200
    assert sim.pbs_request("PUT", "/access/acl", dict(base, delete=1))[0] == 200
    assert not [e for e in sim.pbs_state.acl if e["ugid"] == userid]
    # deleting what is not there (or for an unknown user) is no error
    assert sim.pbs_request("PUT", "/access/acl", dict(base, **{"auth-id": "ghost@pbs", "delete": 1}))[0] == 200


def test_acl_no_access_replaces_roles(sim):
    userid = fresh()
    state = sim.pbs_state
    state.add_user(userid)
    with state.lock:
        state.acl_insert("/system", userid, "Audit")
        state.acl_insert("/system", userid, "NoAccess")
    assert [e["roleid"] for e in state.acl if e["ugid"] == userid] == ["NoAccess"]


def test_acl_read_filtered_for_unprivileged(sim):
    userid = fresh()
    tokenid, secret = token_for(sim, userid, roles=[("/datastore", "DatastoreAudit")],
                                user_roles=[("/datastore", "DatastoreAudit")])
    with sim.pbs_state.lock:
        sim.pbs_state.add_token(userid, "other")
        sim.pbs_state.acl_insert("/remote", f"{userid}!other", "RemoteAudit")
    # a token without Sys.Audit on /access/acl sees nothing at all
    assert sim.pbs_request("GET", "/access/acl", token=(tokenid, secret))[1]["data"] == []


def test_roles_list(sim):
    status, body = sim.pbs_request("GET", "/access/roles")
    roles = {r["roleid"]: r for r in body["data"]}
    assert roles["DatastoreReader"] == {
        "roleid": "DatastoreReader", "comment": "Datastore Reader (inspect datastore content and do restores)",
        "privs": ["Datastore.Audit", "Datastore.Read", "Datastore.Verify"]}
    assert roles["NoAccess"]["privs"] == []
    assert "Realm.Allocate" in roles["Admin"]["privs"]


def test_remote_acl_paths_reach_the_remote_namespaces(sim):
    """pbs-config check_acl_path (PBS 4): /remote/{remote}/{store}/{namespace}, namespaces up to 7 deep."""
    userid = fresh()
    sim.pbs_state.add_user(userid)
    form = {"role": "RemoteSyncPushOperator", "auth-id": userid}
    deepest = "/remote/r1/s1/" + "/".join(f"n{i}" for i in range(7))
    assert sim.pbs_request("PUT", "/access/acl", dict(form, path=deepest)) == (200, {"data": None})
    assert sim.pbs_request("PUT", "/access/acl", dict(form, path=deepest + "/n7")) == (
        400, f"invalid acl path '{deepest}/n7'.")


# pbs-api-types acl.rs (proxmox-rs f3305009a212): the bits in order, each role's set and doc comment
PBS4_PRIVILEGES = [
    "Sys.Audit", "Sys.Modify", "Sys.PowerManagement", "Datastore.Audit", "Datastore.Allocate",
    "Datastore.Modify", "Datastore.Read", "Datastore.Verify", "Datastore.Backup", "Datastore.Prune",
    "Permissions.Modify", "Remote.Audit", "Remote.Modify", "Remote.Read", "Remote.DatastoreBackup",
    "Remote.DatastoreModify", "Remote.DatastorePrune", "Sys.Console", "Tape.Audit", "Tape.Modify", "Tape.Write",
    "Tape.Read", "Realm.Allocate"]
PBS4_ROLES = {
    "Admin": (PBS4_PRIVILEGES, "Administrator"),
    "Audit": (["Sys.Audit", "Datastore.Audit"], "Auditor"),
    "NoAccess": ([], "Disable Access"),
    "DatastoreAdmin": (["Datastore.Audit", "Datastore.Modify", "Datastore.Read", "Datastore.Verify",
                        "Datastore.Backup", "Datastore.Prune"], "Datastore Administrator"),
    "DatastoreReader": (["Datastore.Audit", "Datastore.Read", "Datastore.Verify"],
                        "Datastore Reader (inspect datastore content and do restores)"),
    "DatastoreBackup": (["Datastore.Backup"], "Datastore Backup (backup and restore owned backups)"),
    "DatastorePowerUser": (["Datastore.Backup", "Datastore.Prune"],
                           "Datastore PowerUser (backup, restore and prune owned backup)"),
    "DatastoreAudit": (["Datastore.Audit"], "Datastore Auditor"),
    "RemoteAudit": (["Remote.Audit"], "Remote Auditor"),
    "RemoteAdmin": (["Remote.Audit", "Remote.Modify", "Remote.Read"], "Remote Administrator"),
    "RemoteSyncOperator": (["Remote.Audit", "Remote.Read"], "Synchronization Operator"),
    "RemoteSyncPushOperator": (["Remote.Audit", "Remote.DatastoreBackup"],
                               "Synchronisation Operator (push direction)"),
    "RemoteDatastorePowerUser": (["Remote.Audit", "Remote.DatastoreBackup", "Remote.DatastorePrune"],
                                 "Remote Datastore Prune"),
    "RemoteDatastoreAdmin": (["Remote.Audit", "Remote.DatastoreBackup", "Remote.DatastoreModify",
                              "Remote.DatastorePrune"], "Remote Datastore Admin"),
    "TapeAudit": (["Tape.Audit"], "Tape Auditor"),
    "TapeAdmin": (["Tape.Audit", "Tape.Modify", "Tape.Write", "Tape.Read"], "Tape Administrator"),
    "TapeOperator": (["Tape.Audit", "Tape.Write", "Tape.Read"], "Tape Operator"),
    "TapeReader": (["Tape.Audit", "Tape.Read"], "Tape Reader"),
}


def test_privileges_and_roles_are_pbs4s(sim):
    from simulator.pbs.auth import PRIVILEGES
    assert list(PRIVILEGES) == PBS4_PRIVILEGES
    body = sim.pbs_request("GET", "/access/roles")[1]
    # the Role enum's order; privs_to_priv_names lists a role's privileges in bit order
    assert [(r["roleid"], r["privs"], r["comment"]) for r in body["data"]] == [
        (roleid, privs, comment) for roleid, (privs, comment) in PBS4_ROLES.items()]


# -- the permission model ------------------------------------------------------------------

def test_token_without_privilege_gets_403(sim):
    tokenid, secret = token_for(sim, fresh(), user_roles=[("/", "Admin")])
    assert sim.pbs_request("GET", "/access/users/root@pam", token=(tokenid, secret)) == (
        403, "permission check failed")


def test_token_privileges_are_the_intersection_with_the_owner(sim):
    userid = fresh()
    # the token holds Admin, its owner only Audit: Sys.Audit passes, Permissions.Modify does not
    tokenid, secret = token_for(sim, userid, roles=[("/", "Admin")], user_roles=[("/", "Audit")])
    assert sim.pbs_request("GET", "/access/users/root@pam", token=(tokenid, secret))[0] == 200
    assert sim.pbs_request("POST", "/access/users", {"userid": fresh()}, token=(tokenid, secret)) == (
        403, "permission check failed")


def test_propagate(sim):
    userid = fresh()
    tokenid, secret = token_for(sim, userid, roles=[("/datastore", "DatastoreAudit", False)],
                                user_roles=[("/datastore", "DatastoreAudit", False)])
    state = sim.pbs_state
    state.datastores.setdefault("prop1", {"path": "/p"})
    assert sim.pbs_request("GET", "/config/datastore/prop1", token=(tokenid, secret))[0] == 403
    with state.lock:
        state.acl_insert("/datastore", tokenid, "DatastoreAudit", True)
        state.acl_insert("/datastore", userid, "DatastoreAudit", True)
    assert sim.pbs_request("GET", "/config/datastore/prop1", token=(tokenid, secret))[0] == 200


def test_user_param_does_not_admit_the_users_tokens(sim):
    userid = fresh()
    tokenid, secret = token_for(sim, userid)
    assert sim.pbs_request("GET", f"/access/users/{userid}", token=(tokenid, secret))[0] == 403


def test_datastore_create_needs_datastore_allocate(sim):
    tokenid, secret = token_for(sim, fresh(), roles=[("/datastore", "DatastoreAdmin")],
                                user_roles=[("/datastore", "DatastoreAdmin")])
    form = {"name": "denied1", "path": "/d"}
    assert sim.pbs_request("POST", "/config/datastore", form, token=(tokenid, secret)) == (
        403, "permission check failed")
    assert sim.pbs_request("DELETE", "/config/datastore/denied1", token=(tokenid, secret))[0] == 403


def test_root_token_and_admin_token_pass(sim):
    assert sim.pbs_request("GET", "/access/users/root@pam")[0] == 200
    tokenid, secret = admin_token(sim)
    assert sim.pbs_request("GET", "/access/users/root@pam", token=(tokenid, secret))[0] == 200


def test_check_privs_for_handlers(sim):
    from simulator.pbs.errors import PbsError
    from simulator.pbs.handlers import Ctx
    userid = fresh()
    tokenid, _secret = token_for(sim, userid, roles=[("/datastore/a", "DatastoreReader")],
                                 user_roles=[("/datastore/a", "DatastoreAdmin")])
    ctx = Ctx(sim.pbs_state, tokenid, {}, {})
    assert ctx.check_privs(["datastore", "a"], ["Datastore.Read"])
    assert ctx.has_privs(["datastore", "a"], ["Datastore.Modify", "Datastore.Read"], partial=True)
    try:
        ctx.check_privs(["datastore", "a"], ["Datastore.Modify", "Datastore.Read"])
    except PbsError as err:
        assert (err.status, err.message) == (
            400, "missing permissions 'Datastore.Modify&Datastore.Read' on '/datastore/a'")
    else:
        raise AssertionError("check_privs passed")


def test_permissions_listing(sim):
    userid = fresh()
    tokenid, secret = token_for(sim, userid, roles=[("/datastore/x", "DatastoreAudit")],
                                user_roles=[("/datastore", "DatastoreAdmin")])
    status, body = sim.pbs_request("GET", "/access/permissions", token=(tokenid, secret))
    assert status == 200
    assert body["data"] == {"/datastore/x": {"Datastore.Audit": True}}
    assert sim.pbs_request("GET", "/access/permissions", {"auth-id": "root@pam"}, token=(tokenid, secret)) == (
        400, "not allowed to list permissions of root@pam")
