"""Users, API tokens and ACL of a Proxmox Backup Server (issue 12).

Ported from proxmox-backup:

* ``pbs-api-types/src/acl.rs``: the privilege bits (``PRIVILEGES``, in bit order) and the roles,
  each a fixed set of privileges (``Admin`` = every bit).
* ``pbs-config/src/acl.rs``: ``AclTree::roles`` (roles along the path: propagating ones from the
  ancestors, every one on the last component, the most specific node wins, ``NoAccess`` alone)
  and ``check_acl_path``.
* ``pbs-config/src/cached_user_info.rs``: ``lookup_privs_details`` (root@pam -- never its tokens
  -- has everything; a token's privileges are the intersection with its owner's) and
  ``check_privs``.
* proxmox-router ``permission.rs`` ``check_api_permission`` (the pipeline's schema check).
* ``src/api2/access/{user,acl,role,mod}.rs``: the routes below.

Groups exist in the schema only: a group ACL entry can be read back from acl.cfg but nobody is a
member, and PUT /access/acl refuses ``group`` like PBS.
"""

from .pbs import PbsError, Result, route

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
_MODIFIED = "detected modified configuration - file changed by other user? Try again."


def priv_names(mask):
    """privs_to_priv_names: the names of the bits set, in bit order."""
    return [name for name in PRIVILEGES if PRIV[name] & mask]


def _components(path):
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
    for roleid, propagate in acl_roles(state, authid, _components(path)).items():
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
        raise PbsError(400, f"missing permissions '{names}' on '/{'/'.join(_components(path))}'")


def check_acl_path(path):
    """pbs-config acl.rs check_acl_path, with the PBS 4 paths its schema checks privileges on."""
    comps = _components([path])
    size = len(comps)
    allowed = size == 0
    if comps and comps[0] == "access":
        allowed = size == 1 or (comps[1] in ("acl", "users", "domains") and size == 2) or (
            comps[1] == "openid" and size <= 3)
    elif comps and comps[0] == "datastore":
        allowed = size <= 2 + MAX_NAMESPACE_DEPTH
    elif comps and comps[0] == "remote":
        allowed = size <= 3
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


# -- user.cfg ----------------------------------------------------------------------------

_USER_KEYS = ("comment", "enable", "expire", "firstname", "lastname", "email")
_TOKEN_KEYS = ("comment", "enable", "expire")


def _user_view(state, userid):
    return {"userid": userid, **state.users[userid]}


def _token_view(tokenid, config):
    return {"tokenid": tokenid, **config}


def _user_of(authid):
    return authid.split("!")[0]


def _check_user_digest(state, params):
    if params.get("digest") is not None and params["digest"] != state.user_digest():
        raise PbsError(400, _MODIFIED)


def _lookup(sections, kind, section_id):
    """SectionConfigData::lookup's error for a missing section."""
    if section_id not in sections:
        raise PbsError(400, f"no such {kind} '{section_id}'")
    return sections[section_id]


def _check_realm(realm):
    """auth.rs lookup_authenticator: pam and pbs (no other realm is configured here)."""
    if realm not in ("pam", "pbs"):
        raise PbsError(400, f"unknown realm '{realm}'")


@route("GET", "/access/users")
def user_list(ctx):
    """api2/access/user.rs list_users: everybody, or just the caller's user without Sys.Audit."""
    state = ctx.state
    own = _user_of(ctx.authid)
    audit = ctx.has_privs(["access", "users"], ["Sys.Audit"])
    out = []
    for userid in state.users:
        if not (audit or userid == own):
            continue
        view = _user_view(state, userid)
        tokens = [_token_view(t, cfg) for t, cfg in state.tokens.items() if _user_of(t) == userid]
        if ctx.params.get("include_tokens") and tokens:
            view["tokens"] = tokens
        out.append(view)
    return Result(out, {"digest": state.user_digest()})


@route("POST", "/access/users")
def user_create(ctx):
    """user.rs create_user: the user is saved before the password step can still fail."""
    state, params = ctx.state, ctx.params
    userid = params["userid"]
    if userid in state.users:
        raise PbsError(400, f"user '{userid}' already exists.")
    realm = userid.rsplit("@", 1)[1]
    _check_realm(realm)
    state.users[userid] = {k: params[k] for k in _USER_KEYS if k in params}
    if "password" in params and realm == "pam" and ctx.authid != "root@pam":
        raise PbsError(400, "only superuser can edit pam credentials!")
    return None


@route("GET", "/access/users/{userid}")
def user_read(ctx):
    """user.rs read_user."""
    state, userid = ctx.state, ctx.params["userid"]
    _lookup(state.users, "user", userid)
    return Result(_user_view(state, userid), {"digest": state.user_digest()})


@route("PUT", "/access/users/{userid}")
def user_update(ctx):
    """user.rs update_user: deletes first, then the set values; nothing is saved on an error."""
    state, params = ctx.state, ctx.params
    userid = params["userid"]
    _check_user_digest(state, params)
    data = dict(_lookup(state.users, "user", userid))
    for key in params.get("delete") or []:
        data.pop(key, None)
    if "comment" in params:
        _set_or_drop(data, "comment", params["comment"].strip())
    _apply_enable_expire(data, params)
    if "password" in params:
        self_service = _user_of(ctx.authid) == userid
        if not self_service and userid.endswith("@pam") and ctx.authid != "root@pam":
            raise PbsError(400, "only superuser can edit pam credentials!")
    for key in ("firstname", "lastname", "email"):
        if key in params:
            _set_or_drop(data, key, params[key])
    state.users[userid] = data
    return None


def _set_or_drop(data, key, value):
    if value:
        data[key] = value
    else:
        data.pop(key, None)


def _apply_enable_expire(data, params):
    """enable=1 and expire=0 are the defaults, so PBS drops the key instead of storing them."""
    if "enable" in params:
        if params["enable"]:
            data.pop("enable", None)
        else:
            data["enable"] = False
    if "expire" in params:
        _set_or_drop(data, "expire", params["expire"] if params["expire"] > 0 else None)


@route("DELETE", "/access/users/{userid}")
def user_delete(ctx):
    """user.rs delete_user: the user's tokens and every ACL entry of the user and its tokens go too."""
    state, params = ctx.state, ctx.params
    userid = params["userid"]
    _check_user_digest(state, params)
    if userid not in state.users:
        raise PbsError(400, f"user '{userid}' does not exist.")
    del state.users[userid]
    state.acl_delete_authid(userid)
    for tokenid in [t for t in state.tokens if _user_of(t) == userid]:
        _drop_token(state, tokenid)
    return None


# -- API tokens ------------------------------------------------------------------------------

def _drop_token(state, tokenid):
    state.remove_token(tokenid)


@route("GET", "/access/users/{userid}/token")
def token_list(ctx):
    """user.rs list_tokens: an unknown user simply has none."""
    state, userid = ctx.state, ctx.params["userid"]
    out = [{"token-name": t.split("!", 1)[1], **_token_view(t, cfg)}
           for t, cfg in state.tokens.items() if _user_of(t) == userid]
    return Result(out, {"digest": state.user_digest()})


@route("GET", "/access/users/{userid}/token/{token-name}")
def token_read(ctx):
    """user.rs read_token."""
    state = ctx.state
    tokenid = f"{ctx.params['userid']}!{ctx.params['token-name']}"
    return Result(_token_view(tokenid, _lookup(state.tokens, "token", tokenid)), {"digest": state.user_digest()})


@route("POST", "/access/users/{userid}/token/{token-name}")
def token_create(ctx):
    """user.rs generate_token: the secret is answered once, only its hash is kept. PBS does not
    check that the user exists."""
    state, params = ctx.state, ctx.params
    userid, name = params["userid"], params["token-name"]
    _check_user_digest(state, params)
    tokenid = f"{userid}!{name}"
    if tokenid in state.tokens:
        raise PbsError(400, f"token '{name}' for user '{userid}' already exists.")
    state.tokens[tokenid] = {k: params[k] for k in _TOKEN_KEYS if k in params}
    return {"tokenid": tokenid, "value": state.set_token_secret(tokenid)}


@route("PUT", "/access/users/{userid}/token/{token-name}")
def token_update(ctx):
    """user.rs update_token: ``regenerate`` answers the new secret, otherwise null."""
    state, params = ctx.state, ctx.params
    tokenid = f"{params['userid']}!{params['token-name']}"
    _check_user_digest(state, params)
    data = dict(_lookup(state.tokens, "token", tokenid))
    for key in params.get("delete") or []:
        data.pop(key, None)
    if "comment" in params:
        _set_or_drop(data, "comment", params["comment"].strip())
    _apply_enable_expire(data, params)
    state.tokens[tokenid] = data
    if params.get("regenerate"):
        return {"secret": state.set_token_secret(tokenid)}
    return None


@route("DELETE", "/access/users/{userid}/token/{token-name}")
def token_delete(ctx):
    """user.rs delete_token: its secret and ACL entries go too."""
    state, params = ctx.state, ctx.params
    userid, name = params["userid"], params["token-name"]
    _check_user_digest(state, params)
    tokenid = f"{userid}!{name}"
    if tokenid not in state.tokens:
        raise PbsError(400, f"token '{name}' of user '{userid}' does not exist.")
    _drop_token(state, tokenid)
    return None


# -- acl.cfg -------------------------------------------------------------------------------------

def _acl_view(entry, shown_path):
    return {"path": shown_path, "ugid": entry["ugid"], "ugid_type": entry["ugid_type"],
            "roleid": entry["roleid"], "propagate": entry["propagate"]}


@route("GET", "/access/acl")
def acl_read(ctx):
    """api2/access/acl.rs read_acl: without Sys.Audit on /access/acl a user sees only the entries of
    its own tokens (a token sees none). Below a ``path`` given as-is PBS appends ``/<component>``
    to it, so ``path=/`` lists children as ``//datastore``."""
    state, params = ctx.state, ctx.params
    audit = ctx.has_privs(["access", "acl"], ["Sys.Audit"])
    if not audit and "!" in ctx.authid:
        return Result([], {"digest": state.acl_digest()})
    base = _components([params["path"]]) if params.get("path") else []
    shown_base = params.get("path") or ""
    out = []
    for entry in sorted(state.acl, key=lambda e: (_components([e["path"]]), e["ugid_type"] == "group")):
        comps = _components([entry["path"]])
        if comps[:len(base)] != base or (params.get("exact") and len(comps) != len(base)):
            continue
        if not audit and (entry["ugid_type"] == "group" or "!" not in entry["ugid"]
                          or _user_of(entry["ugid"]) != _user_of(ctx.authid)):
            continue
        shown = shown_base + "".join(f"/{c}" for c in comps[len(base):])
        out.append(_acl_view(entry, shown or "/"))
    return Result(out, {"digest": state.acl_digest()})


@route("PUT", "/access/acl")
def acl_update(ctx):
    """acl.rs update_acl: without Permissions.Modify on /access/acl a user may only manage the ACL
    of its own tokens."""
    state, params = ctx.state, ctx.params
    authid, group = params.get("auth-id"), params.get("group")
    delete = bool(params.get("delete"))
    if not ctx.has_privs(["access", "acl"], ["Permissions.Modify"]):
        _check_unprivileged_acl_update(ctx.authid, authid, group)
    if params.get("digest") is not None and params["digest"] != state.acl_digest():
        raise PbsError(400, _MODIFIED)
    if group is not None:
        raise PbsError(400, "parameter 'group' - groups are currently not supported.")
    if authid is None:
        raise PbsError(400, "missing 'userid' or 'group' parameter.")
    if not delete:  # deleting entries of unknown users or invalid paths is allowed
        token = "!" in authid
        if authid not in (state.tokens if token else state.users):
            raise PbsError(400, f"no such {'API token' if token else 'user'}.")
        check_acl_path(params["path"])
        state.acl_insert(params["path"], authid, params["role"], params.get("propagate", True))
    else:
        state.acl_delete(params["path"], authid, params["role"])
    return None


def _check_unprivileged_acl_update(caller, authid, group):
    if group is not None:
        raise PbsError(400, "Unprivileged users are not allowed to create group ACL item.")
    if authid is None:
        raise PbsError(400, "Unprivileged user needs to provide auth_id to update ACL item.")
    if "!" in caller:
        raise PbsError(400, "Unprivileged API tokens can't set ACL items.")
    if "!" not in authid:
        raise PbsError(400, "Unprivileged users can only set ACL items for API tokens.")
    if _user_of(authid) != caller:
        raise PbsError(400, "Unprivileged users can only set ACL items for their own API tokens.")


@route("GET", "/access/roles")
def role_list(ctx):
    """api2/access/role.rs list_roles."""
    return [{"roleid": roleid, "privs": priv_names(privs), "comment": comment}
            for roleid, (privs, comment) in ROLES.items()]


@route("GET", "/access/permissions")
def permission_list(ctx):
    """api2/access/mod.rs list_permissions: {path: {privilege: propagates}} for the paths with any
    privilege -- every ACL path plus /, /access, /datastore, /remote, /system (or just ``path``).
    Another auth id needs Sys.Audit on /access unless it is one of the caller's own tokens."""
    state, params = ctx.state, ctx.params
    caller = ctx.authid
    target = params.get("auth-id") or caller
    if target != caller and not ctx.has_privs(["access"], ["Sys.Audit"]) and not (
            "!" in target and "!" not in caller and _user_of(target) == caller):
        raise PbsError(400, f"not allowed to list permissions of {target}")
    if params.get("path"):
        paths = {params["path"]}
    else:
        paths = {"/", "/access", "/datastore", "/remote", "/system"}
        for entry in state.acl:
            comps = _components([entry["path"]])
            paths.update("/" + "/".join(comps[:depth]) for depth in range(1, len(comps) + 1))
    out = {}
    for path in sorted(paths):
        privs, propagated = lookup_privs_details(state, target, _components([path]))
        if privs:
            out[path] = {name: bool(PRIV[name] & propagated) for name in priv_names(privs)}
    return out
