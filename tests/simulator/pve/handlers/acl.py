"""/access/acl (pve-access-control API2/ACL.pm): GET the flat list, PUT a grant.

Deviations kept on purpose (field notes, measured on pve-manager 9.2):
* the list is filtered to paths where the caller may modify permissions
  (``check_perm_modify``) - an auditor gets 200 ``[]``;
* ``propagate`` is left out of a row when it is 1 (``state.acl_omit_default_propagate``;
  set it False to get PVE's source behaviour of always sending 1/0);
* a path not starting with '/' is refused with 400.
"""

from ...auth import check_path, normalize_path
from ...errors import die, locked, param_exc
from ...formats import split_list
from .base import route


@route("GET", "/access/acl")
def read(ctx, p):
    res = []
    for row in ctx.state.acl_rows():
        if not ctx.access.check_perm_modify(ctx.authid, row["path"], True):
            continue
        if ctx.state.acl_omit_default_propagate and row["propagate"] == 1:
            row = {k: v for k, v in row.items() if k != "propagate"}
        res.append(row)
    return res


@route("PUT", "/access/acl")
def update(ctx, p):
    state, access, authid = ctx.state, ctx.access, ctx.authid
    if not (p.get("users") or p.get("groups") or p.get("tokens")):
        raise param_exc({k: "either 'users', 'groups' or 'tokens' is required."
                         for k in ("users", "groups", "tokens")})
    raw_path = p["path"]
    path = normalize_path(raw_path) if raw_path.startswith("/") else None
    if not path:
        raise param_exc({"path": f"invalid ACL path '{raw_path}'"})
    delete = bool(p.get("delete"))
    if not delete and not check_path(path):
        raise param_exc({"path": f"invalid ACL path '{raw_path}'"})
    with locked(state, "ACL update failed"):
        auth_privs = access.permissions(authid, path)
        propagate = 1 if p.get("propagate") is None else (1 if p["propagate"] else 0)
        node = state.acl_node(path)
        roles = state.all_roles()
        for role in split_list(p["roles"]):
            if role not in roles:
                raise die(f"role '{role}' does not exist")
            if "Permissions.Modify" not in auth_privs:
                verb = "remove" if delete else "add"
                for priv in roles[role]:
                    if priv not in auth_privs:
                        raise param_exc({"role": f"Cannot {verb} role '{role}' - requires "
                                                 "'Permissions.Modify' or superset of privileges."})
                    if propagate and auth_privs[priv] != propagate and not delete:
                        raise param_exc({"role": f"Cannot {verb} role '{role}' with propagation - "
                                                 "requires 'Permissions.Modify' or propagated "
                                                 "superset of privileges."})
                if role == "NoAccess":
                    raise param_exc({"role": f"Cannot {verb} role '{role}' - requires "
                                             "'Permissions.Modify'"})
            for group in split_list(p.get("groups")):
                if group not in state.groups:
                    raise die(f"group '{group}' does not exist")
                _apply(node["groups"], group, role, propagate, delete)
            for userid in split_list(p.get("users")):
                if userid not in state.users:
                    raise die(f"user '{userid}' does not exist")
                _apply(node["users"], userid, role, propagate, delete)
            for tokenid in split_list(p.get("tokens")):
                userid, _sep, token = tokenid.partition("!")
                state.check_token_exist(userid, token)
                _apply(node["tokens"], tokenid, role, propagate, delete)
        state.prune_acl()
    return None


def _apply(subjects, ugid, role, propagate, delete):
    if delete:
        subjects.get(ugid, {}).pop(role, None)
    else:
        subjects.setdefault(ugid, {})[role] = propagate


@route("GET", "/access/permissions")
def permissions(ctx, p):
    """API2/AccessControl.pm ``permissions``: the caller's (or an owned token's) privileges."""
    authid = ctx.authid
    userid = p.get("userid") or authid
    if userid != authid and not userid.startswith(authid.split("!", 1)[0] + "!"):
        ctx.access.check(authid, "/access", ["Sys.Audit"])
    if p.get("path"):
        perms = ctx.access.permissions(userid, normalize_path(p["path"]))
        return {p["path"]: perms} if perms else {}
    paths = {"/"} | {row["path"] for row in ctx.state.acl_rows()}
    result = {}
    for path in sorted(paths):
        perms = ctx.access.permissions(userid, path)
        if perms:
            result[path] = perms
    return result
