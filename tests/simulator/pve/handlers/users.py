"""/access/users and /access/users/{userid}/token (pve-access-control API2/User.pm)."""

import uuid
from contextlib import contextmanager

from ...errors import die, locked, param_exc, perm_exc
from ...formats import split_list
from .base import route
from .entries import must_be_new, set_or_drop, written

_USER_FIELDS = ("enable", "expire", "firstname", "lastname", "email", "comment", "keys")
_REALM_TYPES = {"pam": "pam", "pve": "pve"}


def _extract(user, full):
    res = {k: user[k] for k in _USER_FIELDS if user.get(k) is not None}
    if full:
        res["groups"] = sorted(user.get("groups", ()))
        res["tokens"] = {t: dict(i) for t, i in user["tokens"].items()} if user.get("tokens") \
            else None
    return res


def _set_groups(state, userid, groups, append):
    user = state.users[userid]
    if not append:
        for group in list(user["groups"]):
            state.groups.get(group, {}).get("users", set()).discard(userid)
        user["groups"] = set()
    for group in split_list(groups):
        if group not in state.groups:
            raise die(f"no such group '{group}'")
        state.groups[group]["users"].add(userid)
        user["groups"].add(group)


@route("GET", "/access/users")
def index(ctx, p):
    state, access, authid = ctx.state, ctx.access, ctx.authid
    privs = ["User.Modify", "Sys.Audit"]
    can_mod = access.check_any(authid, "/access/groups", privs, True)
    allowed = access.group_member_join(access.filter_groups(authid, privs, True))
    res = []
    for userid in sorted(state.users):
        if not (can_mod or userid == authid) and userid not in allowed:
            continue
        user = state.users[userid]
        entry = _extract(user, p.get("full"))
        if p.get("enabled") is not None and bool(entry.get("enable")) != bool(p["enabled"]):
            continue
        if "groups" in entry:
            entry["groups"] = ",".join(entry["groups"])
        if entry.get("tokens") is not None:
            entry["tokens"] = [{"tokenid": t, **entry["tokens"][t]} for t in sorted(entry["tokens"])]
        realm = userid.rsplit("@", 1)[1]
        if realm in _REALM_TYPES:
            entry["realm-type"] = _REALM_TYPES[realm]
        entry["userid"] = userid
        res.append(entry)
    return res


@route("POST", "/access/users")
def create(ctx, p):
    state = ctx.state
    userid = p["userid"]
    with locked(state, "create user failed"):
        must_be_new(state.users, userid, "user")
        if p.get("password") is not None:  # domain_set_password runs before the user is added
            _check_password_realm(state, userid)
        user = {"enable": 1 if p.get("enable", 1) else 0, "expire": int(p.get("expire") or 0),
                "groups": set(), "tokens": {}}
        state.users[userid] = user
        try:
            if p.get("groups"):
                _set_groups(state, userid, p["groups"], append=True)
        except Exception:
            del state.users[userid]
            raise
        for key in ("firstname", "lastname", "email", "comment", "keys"):
            if written(p.get(key)):
                user[key] = p[key]
        if p.get("password") is not None:
            state.passwords[userid] = p["password"]
    return None


@route("GET", "/access/users/{userid}")
def read(ctx, p):
    return _extract(ctx.state.check_user_exist(p["userid"]), True)


@route("PUT", "/access/users/{userid}")
def update(ctx, p):
    state = ctx.state
    userid = p["userid"]
    with locked(state, "update user failed"):
        user = state.check_user_exist(userid)
        if p.get("enable") is not None:
            user["enable"] = 1 if p["enable"] else 0
        if p.get("expire") is not None:
            user["expire"] = int(p["expire"])
        if p.get("groups") is not None:
            _set_groups(state, userid, p["groups"], append=bool(p.get("append")))
        for key in ("firstname", "lastname", "email", "comment", "keys"):
            if p.get(key) is not None:
                set_or_drop(user, key, p[key])
    return None


@route("DELETE", "/access/users/{userid}")
def delete(ctx, p):
    state = ctx.state
    userid = p["userid"]
    with locked(state, "delete user failed"):
        user = state.users.pop(userid, None)  # PVE autovivifies, so a missing user is no error
        if user:
            for group in user.get("groups", ()):
                state.groups.get(group, {}).get("users", set()).discard(userid)
            for token in user.get("tokens", {}):
                full = f"{userid}!{token}"
                state.token_secrets.pop(full, None)
                state.drop_acl_subject("tokens", full)
        if not userid.endswith("@pam"):
            state.passwords.pop(userid, None)  # only Auth/PVE.pm delete_user drops one; PAM's stays
        state.drop_acl_subject("users", userid)
        if userid == "root@pam":
            # AccessControl.pm userconfig_force_defaults: user.cfg always reads back an enabled root@pam
            state.users[userid] = {"enable": 1, "expire": 0, "groups": set(), "tokens": {}}
    return None


# -- API tokens ---------------------------------------------------------------

@contextmanager
def _locked_token(state, userid, tokenid, errmsg):
    """The token checked before and again under the config lock (``errmsg``
    prefixes a failure there); yields it."""
    with state.lock:
        state.check_token_exist(userid, tokenid)
        with locked(state, errmsg):
            yield state.check_token_exist(userid, tokenid)


@route("GET", "/access/users/{userid}/token")
def token_index(ctx, p):
    user = ctx.state.check_user_exist(p["userid"])
    return [{"tokenid": t, **info} for t, info in user.get("tokens", {}).items()]


@route("GET", "/access/users/{userid}/token/{tokenid}")
def token_read(ctx, p):
    return dict(ctx.state.check_token_exist(p["userid"], p["tokenid"]))


@route("POST", "/access/users/{userid}/token/{tokenid}")
def token_create(ctx, p):
    state = ctx.state
    userid, tokenid = p["userid"], p["tokenid"]
    with state.lock:
        existing = state.check_token_exist(userid, tokenid, noerr=True)
        state.check_user_exist(userid)
        if existing is not None:
            raise param_exc({"tokenid": "Token already exists."})
        with locked(state, "generating token failed"):
            full = f"{userid}!{tokenid}"
            value = str(uuid.uuid4())
            # the answer echoes the parameters as sent (Perl keeps them as strings)
            info = {"privsep": ctx.raw.get("privsep", 1)}
            if p.get("expire") is not None:
                info["expire"] = ctx.raw["expire"]
            if p.get("comment"):
                info["comment"] = p["comment"]
            stored = {"privsep": 1 if p.get("privsep", 1) else 0, "expire": int(p.get("expire") or 0)}
            if written(p.get("comment")):
                stored["comment"] = p["comment"]
            state.users[userid].setdefault("tokens", {})[tokenid] = stored
            state.token_secrets[full] = value
    return {"info": info, "value": value, "full-tokenid": full}


@route("PUT", "/access/users/{userid}/token/{tokenid}")
def token_update(ctx, p):
    state = ctx.state
    userid, tokenid = p["userid"], p["tokenid"]
    with _locked_token(state, userid, tokenid, "updating token info failed") as token:
        answer = dict(token)
        if p.get("privsep") is not None:
            token["privsep"] = 1 if p["privsep"] else 0
            answer["privsep"] = ctx.raw["privsep"]
        if p.get("expire") is not None:
            token["expire"] = int(p["expire"])
            answer["expire"] = ctx.raw["expire"]
        if p.get("comment"):
            token["comment"] = answer["comment"] = p["comment"]  # the answer is the token in memory
            set_or_drop(token, "comment", p["comment"])
        for key in split_list(p.get("delete")):
            if key != "comment":  # User.pm update_token_info: $deletable holds only comment
                raise param_exc({"delete": f"unknown option '{key}'"})
            token.pop("comment", None)
            answer.pop("comment", None)
    return answer


@route("DELETE", "/access/users/{userid}/token/{tokenid}")
def token_delete(ctx, p):
    state = ctx.state
    userid, tokenid = p["userid"], p["tokenid"]
    with _locked_token(state, userid, tokenid, "deleting token failed"):
        state.remove_token(userid, tokenid)
    return None


# -- passwords ----------------------------------------------------------------

def _check_password_realm(state, userid):
    """AccessControl.pm domain_set_password: the realm's plugin stores it; only PVE.pm and PAM.pm can."""
    realm = userid.rsplit("@", 1)[1]
    kind = (state.realms.get(realm) or {}).get("type")
    if kind is None:
        raise die(f"auth domain '{realm}' does not exist")
    if kind not in ("pve", "pam"):
        raise die(f"can't set password on auth type '{kind}'")  # Auth/Plugin.pm store_password


@route("PUT", "/access/password")
def change_password(ctx, p):
    """API2/AccessControl.pm change_password (allowtoken => 0 is the API layer's): reauth_user_for_user_modification
    asks anybody but root@pam for their own password, then domain_set_password stores it for the user's realm."""
    state, authuser = ctx.state, ctx.authid
    userid = p["userid"]
    state.check_user_exist(userid)
    realm = userid.rsplit("@", 1)[1]
    if userid == "root@pam" and authuser != "root@pam":
        raise perm_exc()
    if authuser != "root@pam":
        if p.get("confirmation-password") is None:
            raise param_exc({"confirmation-password": "password is required to modify user"})
        if not ctx.authenticator.check_password(authuser, p["confirmation-password"]):
            raise die("authentication failure")
        if authuser != userid and realm == "pam":
            raise perm_exc()  # do not allow to change system user passwords
    _check_password_realm(state, userid)
    with locked(state, "change password failed"):
        state.passwords[userid] = p["password"]
    return None
