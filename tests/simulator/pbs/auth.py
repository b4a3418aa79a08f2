"""Who a PBS request is and what it may do: auth ids, privileges, roles, acl.cfg (issue 12).

Ported from proxmox-backup:

* proxmox-auth-api ``Authid::from_str`` (``parse_authid``).
* ``pbs-api-types/src/acl.rs`` of PBS 4 (the ``proxmox`` repository, GitHub mirror proxmox/proxmox-rs,
  commit f3305009a212 of 2026-05-25; pbs-api-types 1.0.18; the push-sync privileges and roles came
  with 92b652935b0d "api types: define remote permissions and roles for push sync", 2024-11-11):
  the privilege bits (``PRIVILEGES``, in bit order, ``Remote.Datastore{Backup,Modify,Prune}`` right
  after ``Remote.Read``) and the roles, each a fixed set of privileges (``Admin`` = every bit), with
  the ``Role`` enum's doc comments as their descriptions.
* ``pbs-config/src/acl.rs``: ``AclTree::roles`` (roles along the path: propagating ones from the
  ancestors, every one on the last component, the most specific node wins, ``NoAccess`` alone)
  and ``check_acl_path`` (PBS 4's, read in pve-loong64-port/proxmox-backup 0511b092d832, a port
  that tracks proxmox-backup: ``/remote/{remote}/{store}/{namespace}`` and the ``s3-endpoint`` /
  ``encryption-keys`` system paths).
* ``pbs-config/src/cached_user_info.rs``: ``lookup_privs_details`` (root@pam -- never its tokens
  -- has everything; a token's privileges are the intersection with its owner's) and
  ``check_privs``.
* proxmox-router ``permission.rs`` ``check_api_permission`` (the pipeline's schema check).

The routes of users, tokens and the ACL are handlers/access.py.
"""

import re

from .errors import PbsAuthError, PbsError
from .schema import SAFE_ID

_USER_NAME_RE = re.compile(r"^(?:[^\s:/\x00-\x1f\x7f]+)$")
_SAFE_ID_RE = re.compile(rf"^{SAFE_ID}\Z")


def parse_authid(text):
    """proxmox-auth-api ``Authid::from_str``; returns (userid, tokenname or None)."""
    at = text.rfind("@")
    if at < 0:
        raise PbsAuthError("not a valid user id")
    bang = text.rfind("!")
    realm_end = len(text) if bang < 0 or bang < at else bang
    if realm_end == len(text) - 1:
        raise PbsAuthError("empty token name in userid")
    userid = text[:realm_end]
    name, realm = userid[:userid.rfind("@")], userid[userid.rfind("@") + 1:]
    if not _USER_NAME_RE.match(name):
        raise PbsAuthError("invalid user name in user id")
    if not (3 <= len(realm) <= 32) or not _SAFE_ID_RE.match(realm):
        raise PbsAuthError("invalid realm in user id")
    token = None
    if realm_end < len(text):
        token = text[realm_end + 1:]
        if not _SAFE_ID_RE.match(token):
            raise PbsAuthError("invalid token name")
    return userid, token


PRIVILEGES = (
    "Sys.Audit", "Sys.Modify", "Sys.PowerManagement",
    "Datastore.Audit", "Datastore.Allocate", "Datastore.Modify", "Datastore.Read", "Datastore.Verify",
    "Datastore.Backup", "Datastore.Prune",
    "Permissions.Modify",
    "Remote.Audit", "Remote.Modify", "Remote.Read",
    "Remote.DatastoreBackup", "Remote.DatastoreModify", "Remote.DatastorePrune",
    "Sys.Console",
    "Tape.Audit", "Tape.Modify", "Tape.Write", "Tape.Read",
    "Realm.Allocate",
)
PRIV = {name: 1 << bit for bit, name in enumerate(PRIVILEGES)}
ALL_PRIVS = (1 << len(PRIVILEGES)) - 1   # ROLE_ADMIN is u64::MAX: every privilege there is


def _privs(*names):
    mask = 0
    for name in names:
        mask |= PRIV[name]
    return mask


_DS_ADMIN = ("Datastore.Audit", "Datastore.Modify", "Datastore.Read", "Datastore.Verify", "Datastore.Backup",
             "Datastore.Prune")
# roleid -> (privileges, comment): the Role enum, in schema order, with its doc comments
ROLES = {
    "Admin": (ALL_PRIVS, "Administrator"),
    "Audit": (_privs("Sys.Audit", "Datastore.Audit"), "Auditor"),
    "NoAccess": (0, "Disable Access"),
    "DatastoreAdmin": (_privs(*_DS_ADMIN), "Datastore Administrator"),
    "DatastoreReader": (_privs("Datastore.Audit", "Datastore.Verify", "Datastore.Read"),
                        "Datastore Reader (inspect datastore content and do restores)"),
    "DatastoreBackup": (_privs("Datastore.Backup"), "Datastore Backup (backup and restore owned backups)"),
    "DatastorePowerUser": (_privs("Datastore.Prune", "Datastore.Backup"),
                           "Datastore PowerUser (backup, restore and prune owned backup)"),
    "DatastoreAudit": (_privs("Datastore.Audit"), "Datastore Auditor"),
    "RemoteAudit": (_privs("Remote.Audit"), "Remote Auditor"),
    "RemoteAdmin": (_privs("Remote.Audit", "Remote.Modify", "Remote.Read"), "Remote Administrator"),
    "RemoteSyncOperator": (_privs("Remote.Audit", "Remote.Read"), "Synchronization Operator"),
    "RemoteSyncPushOperator": (_privs("Remote.Audit", "Remote.DatastoreBackup"),
                               "Synchronisation Operator (push direction)"),
    "RemoteDatastorePowerUser": (_privs("Remote.Audit", "Remote.DatastoreBackup", "Remote.DatastorePrune"),
                                 "Remote Datastore Prune"),
    "RemoteDatastoreAdmin": (_privs("Remote.Audit", "Remote.DatastoreBackup", "Remote.DatastoreModify",
                                    "Remote.DatastorePrune"), "Remote Datastore Admin"),
    "TapeAudit": (_privs("Tape.Audit"), "Tape Auditor"),
    "TapeAdmin": (_privs("Tape.Audit", "Tape.Modify", "Tape.Read", "Tape.Write"), "Tape Administrator"),
    "TapeOperator": (_privs("Tape.Audit", "Tape.Read", "Tape.Write"), "Tape Operator"),
    "TapeReader": (_privs("Tape.Audit", "Tape.Read"), "Tape Reader"),
}
MAX_NAMESPACE_DEPTH = 7


def priv_names(mask):
    """privs_to_priv_names: the names of the bits set, in bit order."""
    return [name for name in PRIVILEGES if PRIV[name] & mask]


def components(path):
    """A path as a list of components; a component may itself hold slashes (namespaces)."""
    return [sub for comp in path for sub in str(comp).split("/") if sub]


# -- the ACL tree (pbs-config acl.rs) ------------------------------------------------------

def _node_roles(state, path, authid, leaf):
    """AclTreeNode::extract_roles for a user or token (group roles never apply: no members)."""
    roles = {}
    for entry in state.acl:
        if entry["path"] != path or entry["ugid_type"] != "user" or entry["ugid"] != authid:
            continue
        if entry["propagate"] or leaf:
            if entry["roleid"] == "NoAccess":
                return {"NoAccess": False}
            roles[entry["roleid"]] = entry["propagate"]
    return roles


def acl_roles(state, authid, comps):
    """AclTree::roles: {roleid: propagate} that apply to ``authid`` on ``comps``."""
    roles = _node_roles(state, "/", authid, not comps)
    for depth in range(1, len(comps) + 1):
        found = _node_roles(state, "/" + "/".join(comps[:depth]), authid, depth == len(comps))
        if found:
            roles = found  # a more specific node replaces what the ancestors gave
    return roles


def lookup_privs_details(state, authid, path):
    """CachedUserInfo::lookup_privs_details: (privileges, propagated privileges) as bit masks."""
    if authid == "root@pam":
        return ALL_PRIVS, ALL_PRIVS
    privs = propagated = 0
    for roleid, propagate in acl_roles(state, authid, components(path)).items():
        role_privs = ROLES.get(roleid, (0, ""))[0]
        privs |= role_privs
        if propagate:
            propagated |= role_privs
    if "!" in authid:  # privilege-separated: never more than the owning user has
        owner_privs, owner_propagated = lookup_privs_details(state, authid.split("!")[0], path)
        privs &= owner_privs
        propagated &= owner_propagated
    return privs, propagated


def lookup_privs(state, authid, path):
    return lookup_privs_details(state, authid, path)[0]


def has_privs(state, authid, path, privs, partial=False):
    required = _privs(*privs)
    held = lookup_privs(state, authid, path)
    return bool(held & required) if partial else held & required == required


def check_privs(state, authid, path, privs, partial=False):
    """CachedUserInfo::check_privs: an anyhow error, so PBS answers 400."""
    if not has_privs(state, authid, path, privs, partial):
        names = ("|" if partial else "&").join(priv_names(_privs(*privs)))
        raise PbsError(400, f"missing permissions '{names}' on '/{'/'.join(components(path))}'")


def check_acl_path(path):
    """pbs-config acl.rs check_acl_path (PBS 4)."""
    comps = components([path])
    size = len(comps)
    allowed = size == 0
    if comps and comps[0] == "access":
        allowed = size == 1 or (comps[1] in ("acl", "users", "domains") and size == 2) or (
            comps[1] == "openid" and size <= 3)
    elif comps and comps[0] == "datastore":
        allowed = size <= 2 + MAX_NAMESPACE_DEPTH
    elif comps and comps[0] == "remote":
        allowed = size <= 3 + MAX_NAMESPACE_DEPTH  # push jobs grant on the remote's namespaces
    elif comps and comps[0] == "system":
        allowed = size == 1 or (
            comps[1] in ("certificates", "disks", "log", "status", "tasks", "time", "notifications")
            and size == 2) or (comps[1] in ("services", "s3-endpoint", "encryption-keys") and size <= 3) or (
            comps[1] == "network" and (size == 2 or (comps[2] == "dns" and size == 3)
                                       or (comps[2] == "interfaces" and size <= 4)))
    elif comps and comps[0] == "tape":
        allowed = size == 1 or (comps[1] in ("device", "pool", "job") and size <= 3)
    if not allowed:
        raise PbsError(400, f"invalid acl path '{path}'.")


# -- the pipeline's check (proxmox-router permission.rs) -----------------------------------

def api_permission_ok(state, perm, authid, uri_params):
    """check_api_permission over the schema's ``permissions``: only URI parameters fill ``{name}``.
    A method whose schema carries no permission (the fallback tree) is not checked."""
    if not perm or authid == "root@pam":
        return True
    return _permission_tail(state, perm, authid, uri_params)


def _permission_tail(state, perm, authid, uri_params):
    if "and" in perm:
        return all(_permission_tail(state, sub, authid, uri_params) for sub in perm["and"])
    if "or" in perm:
        return any(_permission_tail(state, sub, authid, uri_params) for sub in perm["or"])
    if "userParam" in perm:
        return authid is not None and authid == uri_params.get(perm["userParam"])
    if "check" in perm:
        check = perm["check"]
        path = []
        for comp in check.get("path") or []:
            if comp.startswith("{") and comp.endswith("}"):
                if comp[1:-1] not in uri_params:
                    return False
                comp = uri_params[comp[1:-1]]
            path.append(comp)
        held = lookup_privs(state, authid, path) if authid else 0
        required = _privs(*check.get("privs") or [])
        if not held:
            return False
        return bool(held & required) if check.get("partial") else held & required == required
    user = perm.get("user")
    if user == "world":
        return True
    if user == "all":
        return authid is not None
    return user is not None and authid == user
