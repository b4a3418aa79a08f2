"""Users, API tokens and ACL of a Proxmox Backup Server (issue 12): the routes.

Ported from proxmox-backup ``src/api2/access/{user,acl,role,mod}.rs``; the privileges, the roles and
the ACL walk they use are ``pbs/auth.py``.

Groups exist in the schema only: a group ACL entry can be read back from acl.cfg but nobody is a
member, and PUT /access/acl refuses ``group`` like PBS.
"""

import hmac
import secrets
import time

from ..auth import PRIV, ROLES, check_acl_path, components, lookup_privs_details, priv_names
from ..errors import PbsError
from .base import Result, route

_MODIFIED = "detected modified configuration - file changed by other user? Try again."


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
    if "password" in params:  # the authenticator's store_password (shadow.json for pbs, PAM for pam)
        state.passwords[userid] = params["password"]
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
    state.passwords.pop(userid, None)  # the authenticator's remove_password
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
    base = components([params["path"]]) if params.get("path") else []
    shown_base = params.get("path") or ""
    out = []
    for entry in sorted(state.acl, key=lambda e: (components([e["path"]]), e["ugid_type"] == "group")):
        comps = components([entry["path"]])
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
            comps = components([entry["path"]])
            paths.update("/" + "/".join(comps[:depth]) for depth in range(1, len(comps) + 1))
    out = {}
    for path in sorted(paths):
        privs, propagated = lookup_privs_details(state, target, components([path]))
        if privs:
            out[path] = {name: bool(PRIV[name] & propagated) for name in priv_names(privs)}
    return out


# -- logins and passwords (proxmox-auth-api create_ticket, api2/access/mod.rs change_password) ----------------

@route("POST", "/access/ticket")
def create_ticket(ctx):
    """A login with the password the user's realm keeps: a ticket (cookie PBSAuthCookie) and its CSRF token."""
    state, params = ctx.state, ctx.params
    username = params["username"]
    stored = state.passwords.get(username)
    if stored is None or not hmac.compare_digest(stored, params["password"]) \
            or not state.authid_active(username, None):
        raise PbsError(401, "permission check failed.")
    ticket = f"PBS:{username}:{int(time.time()):08X}::{secrets.token_urlsafe(24)}"
    csrf = f"{int(time.time()):08X}:{secrets.token_urlsafe(18)}"
    state.tickets[ticket] = (username, csrf)
    return {"username": username, "ticket": ticket, "CSRFPreventionToken": csrf}


@route("PUT", "/access/password")
def change_password(ctx):
    """change_password: user_update_auth asks anybody but root@pam for their own password, then no token; a user
    changes their own, root@pam and a holder of Permissions.Modify any but a pam user's."""
    state, params = ctx.state, ctx.params
    userid, authid = params["userid"], ctx.authid
    if _user_of(authid) != "root@pam":
        confirmation = params.get("confirmation-password")
        if confirmation is None:
            raise PbsError(401, "missing password")
        if not hmac.compare_digest(state.passwords.get(_user_of(authid), ""), confirmation):
            raise PbsError(401, "authentication failed")
    if _user_of(authid) != userid and userid not in state.users:
        raise PbsError(401, f"user '{userid}' does not exists.")
    if "!" in authid:
        raise PbsError(400, "API tokens cannot access this API endpoint")
    allowed = userid == authid or authid == "root@pam" or (
        ctx.has_privs([], ["Permissions.Modify"]) and not userid.endswith("@pam"))
    if not allowed:
        raise PbsError(400, "you are not authorized to change the password.")
    _check_realm(userid.rsplit("@", 1)[1])
    state.passwords[userid] = params["password"]
    return None
