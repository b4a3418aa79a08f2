"""/pools and /pools/{poolid} (pve-manager PVE/API2/Pool.pm, PVE 9 shape).

Since PVE 8.1 a pool is addressed as ``/pools?poolid=`` (``index``, ``update_pool``, ``delete_pool``): only that
form can name a nested pool (``lab/web``). The ``/pools/{poolid}`` handlers are the deprecated aliases
(``read_pool``, ``update_pool_deprecated``, ``delete_pool_deprecated``); a nested id there is a path PVE has no
handler for (501).
"""

import re

from ...errors import die, locked
from ...formats import split_list
from .base import route
from .entries import must_be_new, must_exist, set_or_drop


def _pool(state, poolid):
    return must_exist(state.pools, poolid, "pool")


def _check_member(members, item, label, delete):
    """Removing needs a member, adding a non-member (label: ``VM 100``, ``Storage 'local'``)."""
    if delete and item not in members:
        raise die(f"{label} is not a pool member")
    if not delete and item in members:
        raise die(f"{label} is already a pool member")


def _members(ctx, pool, typ=None):
    state = ctx.state
    members = []
    for vmid in sorted(pool["vms"], key=int):
        guest = state.guests.get(int(vmid))
        if not guest or (typ and typ != guest["type"]):
            continue
        members.append({"id": f"{guest['type']}/{vmid}", "vmid": int(vmid),
                        "node": guest["node"], "type": guest["type"],
                        "status": guest.get("status", "stopped"),
                        "name": guest.get("name", f"guest{vmid}")})
    if typ in (None, "storage"):
        for sid in sorted(pool["storage"]):
            scfg = state.storage.get(sid)
            if scfg is None:
                continue
            node = ctx.node
            if scfg.get("nodes") and node not in scfg["nodes"]:
                node = sorted(scfg["nodes"])[0]
            members.append({"id": f"storage/{node}/{sid}", "storage": sid, "node": node,
                            "type": "storage", "plugintype": scfg["type"],
                            "status": "available",
                            "content": state.render_value("content", scfg.get("content", set())),
                            "shared": 1 if scfg.get("shared") or
                            (state.storage_type_info(scfg["type"]) or {}).get("shared") else 0})
    return members


@route("GET", "/pools")
def index(ctx, p):
    """Pool.pm ``index``: every pool the user may audit, or one pool with its members. With ``poolid``, PVE's
    Pool.Audit check is made with noerr and its answer unused, so the pool is answered to any user."""
    state = ctx.state
    poolid = p.get("poolid")
    if poolid:
        pool = _pool(state, poolid)
        entry = {"members": _members(ctx, pool, p.get("type"))}
        if pool.get("comment") is not None:
            entry["comment"] = pool["comment"]
        entry["poolid"] = poolid
        return [entry]
    res = []
    for pid in sorted(state.pools):
        if not ctx.access.check(ctx.authid, f"/pool/{pid}", ["Pool.Audit"], True):
            continue
        entry = {"poolid": pid}
        if state.pools[pid].get("comment") is not None:
            entry["comment"] = state.pools[pid]["comment"]
        res.append(entry)
    return res


@route("POST", "/pools")
def create(ctx, p):
    state = ctx.state
    poolid = p["poolid"]
    with locked(state, "create pool failed"):
        must_be_new(state.pools, poolid, "pool")
        parent, _slash, leaf = poolid.rpartition("/")
        if parent and parent not in state.pools:
            raise die(f"parent '{parent}' of pool '{poolid}' does not exist")
        if not re.match(r"[A-Za-z]", leaf):
            raise die("pool name must start with a letter")
        state.pools[poolid] = {"vms": set(), "storage": set()}
        if p.get("comment"):
            state.pools[poolid]["comment"] = p["comment"]
    return None


@route("GET", "/pools/{poolid}")
def read(ctx, p):
    """Pool.pm ``read_pool`` (deprecated): ``index``'s one entry, ``poolid`` included."""
    return index(ctx, p)[0]


@route("PUT", "/pools/{poolid}")
@route("PUT", "/pools")
def update(ctx, p):
    state, access, authid = ctx.state, ctx.access, ctx.authid
    poolid = p["poolid"]
    with locked(state, "update pools failed"):
        pool = _pool(state, poolid)
        if p.get("comment") is not None:
            set_or_drop(pool, "comment", p["comment"])
        for vmid in split_list(p.get("vms")):
            access.check_perm_modify(authid, f"/vms/{vmid}")
            owner = next((pid for pid, other in state.pools.items() if vmid in other["vms"]), None)
            _check_member(pool["vms"], vmid, f"VM {vmid}", p.get("delete"))
            if p.get("delete"):
                pool["vms"].discard(vmid)
            else:
                if owner is not None:
                    if not p.get("allow-move"):
                        raise die(f"VM {vmid} belongs already to pool '{owner}' and "
                                  "'allow-move' is not set")
                    access.check(authid, f"/pool/{owner}", ["Pool.Allocate"])
                    state.pools[owner]["vms"].discard(vmid)
                pool["vms"].add(vmid)
        for sid in split_list(p.get("storage")):
            access.check_perm_modify(authid, f"/storage/{sid}")
            _check_member(pool["storage"], sid, f"Storage '{sid}'", p.get("delete"))
            if p.get("delete"):
                pool["storage"].discard(sid)
            else:
                pool["storage"].add(sid)
    return None


@route("DELETE", "/pools/{poolid}")
@route("DELETE", "/pools")
def delete(ctx, p):
    state = ctx.state
    poolid = p["poolid"]
    with locked(state, "delete pool failed"):
        pool = _pool(state, poolid)
        for child in sorted(other for other in state.pools if other.rpartition("/")[0] == poolid):
            raise die(f"pool '{poolid}' is not empty (contains pool '{child}')")
        for vmid in sorted(pool["vms"], key=int):
            if int(vmid) in state.guests:
                raise die(f"pool '{poolid}' is not empty (contains VM {vmid})")
        for sid in sorted(pool["storage"]):
            if sid in state.storage:
                raise die(f"pool '{poolid}' is not empty (contains storage '{sid}')")
        del state.pools[poolid]
        state.drop_acl_path(f"/pool/{poolid}")
    return None
