"""/access/groups (pve-access-control API2/Group.pm)."""

from ..errors import die, locked
from .base import route


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
        if gid in state.groups:
            raise die(f"group '{gid}' already exists")
        state.groups[gid] = {"users": set()}
        if p.get("comment"):
            state.groups[gid]["comment"] = p["comment"]
    return None


@route("GET", "/access/groups/{groupid}")
def read(ctx, p):
    group = ctx.state.groups.get(p["groupid"])
    if group is None:
        raise die(f"group '{p['groupid']}' does not exist")
    # Perl hash order: the member list comes back in a varying order
    res = {"members": ctx.state.varying_order(group["users"])}
    if group.get("comment") is not None:
        res["comment"] = group["comment"]
    return res


@route("PUT", "/access/groups/{groupid}")
def update(ctx, p):
    state = ctx.state
    with locked(state, "update group failed"):
        group = state.groups.get(p["groupid"])
        if group is None:
            raise die(f"group '{p['groupid']}' does not exist")
        if p.get("comment") is not None:
            if p["comment"]:
                group["comment"] = p["comment"]
            else:
                group.pop("comment", None)  # an empty comment does not survive user.cfg
    return None


@route("DELETE", "/access/groups/{groupid}")
def delete(ctx, p):
    state = ctx.state
    with locked(state, "delete group failed"):
        gid = p["groupid"]
        if gid not in state.groups:
            raise die(f"group '{gid}' does not exist")
        for userid in state.groups.pop(gid)["users"]:
            state.users.get(userid, {}).get("groups", set()).discard(gid)
        state.drop_acl_subject("groups", gid)
    return None
