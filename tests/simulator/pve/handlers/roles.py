"""/access/roles (pve-access-control API2/Role.pm)."""

import random
from contextlib import contextmanager

from ...errors import die, locked, param_exc
from ...formats import split_list
from .base import route
from .entries import must_be_new, must_exist


@route("GET", "/access/roles")
def index(ctx, p):
    return [{"roleid": rid, "privs": ",".join(sorted(privs)),
             "special": 1 if ctx.state.role_is_special(rid) else 0}
            for rid, privs in sorted(ctx.state.all_roles().items())]


@route("POST", "/access/roles")
def create(ctx, p):
    state = ctx.state
    rid = p["roleid"]
    if rid.lower().startswith("pve"):
        raise param_exc({"roleid": "cannot use role ID starting with the (case-insensitive) "
                                   "'PVE' namespace"})
    with locked(state, "create role failed"):
        must_be_new(state.all_roles(), rid, "role")
        state.custom_roles[rid] = frozenset(split_list(p.get("privs")))
    return None


@route("GET", "/access/roles/{roleid}")
def read(ctx, p):
    privs = must_exist(ctx.state.all_roles(), p["roleid"], "role")
    keys = list(privs)
    random.shuffle(keys)  # Perl hash: unstable key order
    return {k: 1 for k in keys}


@contextmanager
def _custom_role(state, rid, action, done):
    """A custom role changed under the lock (``"<action> role failed: ..."``);
    a built-in one ``cannot be <done>``."""
    if state.role_is_special(rid):
        raise die(f"auto-generated role '{rid}' cannot be {done}")
    with locked(state, f"{action} role failed"):
        must_exist(state.custom_roles, rid, "role")
        yield


@route("PUT", "/access/roles/{roleid}")
def update(ctx, p):
    state = ctx.state
    rid = p["roleid"]
    with _custom_role(state, rid, "update", "modified"):
        privs = set() if not p.get("append") else set(state.custom_roles[rid])
        privs.update(split_list(p.get("privs")))
        state.custom_roles[rid] = frozenset(privs)
    return None


@route("DELETE", "/access/roles/{roleid}")
def delete(ctx, p):
    state = ctx.state
    rid = p["roleid"]
    with _custom_role(state, rid, "delete", "deleted"):
        del state.custom_roles[rid]
        # user.cfg drops ACL entries naming an unknown role when it is read back
        for node in state.acl.values():
            for kind in node.values():
                for role_map in kind.values():
                    role_map.pop(rid, None)
        state.prune_acl()
    return None
