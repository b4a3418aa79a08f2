"""/access/groups (pve-access-control API2/Group.pm)."""

from ...errors import locked
from .base import route
from .entries import must_be_new, must_exist, set_or_drop, written


@route("GET", "/access/groups")
def index(ctx, p):
    privs = ["User.Modify", "Sys.Audit", "Group.Allocate"]
    res = []
    for gid, group in ctx.state.groups.items():
        if not ctx.access.check_any(ctx.authid, f"/access/groups/{gid}", privs, True):
            continue
        entry = {"groupid": gid, "users": ",".join(sorted(group["users"]))}
        if group.get("comment") is not None:
            entry["comment"] = group["comment"]
        res.append(entry)
    return res


@route("POST", "/access/groups")
def create(ctx, p):
    state = ctx.state
    with locked(state, "create group failed"):
        gid = p["groupid"]
        must_be_new(state.groups, gid, "group")
        state.groups[gid] = {"users": set()}
        if written(p.get("comment")):
            state.groups[gid]["comment"] = p["comment"]
    return None


@route("GET", "/access/groups/{groupid}")
def read(ctx, p):
    group = must_exist(ctx.state.groups, p["groupid"], "group")
    # Perl hash order: the member list comes back in a varying order
    res = {"members": ctx.state.varying_order(group["users"])}
    if group.get("comment") is not None:
        res["comment"] = group["comment"]
    return res


@route("PUT", "/access/groups/{groupid}")
def update(ctx, p):
    state = ctx.state
    with locked(state, "update group failed"):
        group = must_exist(state.groups, p["groupid"], "group")
        if p.get("comment") is not None:
            set_or_drop(group, "comment", p["comment"])
    return None


@route("DELETE", "/access/groups/{groupid}")
def delete(ctx, p):
    state = ctx.state
    with locked(state, "delete group failed"):
        gid = p["groupid"]
        must_exist(state.groups, gid, "group")
        for userid in state.groups.pop(gid)["users"]:
            state.users.get(userid, {}).get("groups", set()).discard(gid)
        state.drop_acl_subject("groups", gid)
    return None
