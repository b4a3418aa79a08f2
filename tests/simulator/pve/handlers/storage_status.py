"""GET /nodes/{node}/storage: the storages a node sees and their state (pve-storage 9).

Ports ``API2/Storage/Status.pm`` index over ``Storage.pm`` storage_info:

* every configured storage (with ``content``: only those holding one of the listed types and enabled on the node),
  as ``{storage, type, content, shared, enabled, active, total, used, avail}`` plus ``used_fraction`` once it has
  a size; ``enabled`` is storage_check_enabled on the node (not ``disable``d, and the node in its ``nodes``); an
  enabled storage is active (the simulator's storages always activate) and reports its capacity;
* ``storage`` narrows to one and is 400 ``storage: No such storage.`` when storage_info lacks it; ``enabled=1``
  drops the disabled ones; ``target`` keeps the shared storages both nodes may use (the clone dialog's filter);
* only the storages the caller holds Datastore.Audit or Datastore.AllocateSpace on.

``content`` is PVE's content_hash_to_string (sorted), ``shared`` the parsed config's flag (forced on for the types
of @SHARED_STORAGE, as storage_view has it). Capacity: a fixed total per storage (``CAPACITY``), ``used`` the sum of
the volumes the node finds there.
"""

from ...errors import param_exc
from . import guests as g
from .base import route

# What each simulated storage holds, in bytes (a dir storage's file system, an LVM volume group, ...).
CAPACITY = 512 * 1024 ** 3


def _used(state, sid, node):
    volumes = dict(g.ensure_volumes(state).get(sid, {}))
    volumes.update(g.node_files(state, sid, node))
    return sum(int((info or {}).get("size") or 0) for info in volumes.values())


def storage_info(state, node, content=None):
    """Storage.pm storage_info for ``node``: {storage: its status row} (content: only the enabled ones holding a
    wanted type)."""
    wanted = [item for item in (content or "").replace(";", ",").split(",") if item]
    info = {}
    for sid in state.storage:
        view = state.storage_view(sid)
        held = set(filter(None, str(view.get("content") or "").split(",")))
        enabled = g.storage_enabled_on(state, sid, node)
        if wanted and (not held & set(wanted) or not enabled):
            continue
        row = {"type": view["type"], "total": 0, "avail": 0, "used": 0, "shared": 1 if view.get("shared") else 0,
               "content": ",".join(sorted(held)), "active": 0, "enabled": 1 if enabled else 0}
        if enabled:
            used = _used(state, sid, node)
            row.update(total=CAPACITY, used=used, avail=max(CAPACITY - used, 0), active=1)
        info[sid] = row
    return info


@route("GET", "/nodes/{node}/storage")
def index(ctx, p):
    """Status.pm index: storage_info, then the caller's storages (Datastore.Audit or AllocateSpace)."""
    state, node = ctx.state, p["node"]
    info = storage_info(state, node, p.get("content"))
    wanted = p.get("storage")
    if wanted and wanted not in info:
        raise param_exc({"storage": "No such storage."})
    target = p.get("target")
    if target in (node, "localhost"):
        target = None
    res = []
    for sid in sorted(state.storage):
        data = info.get(sid)
        if data is None:
            continue
        if not ctx.access.check_any(ctx.authid, f"/storage/{sid}", ["Datastore.Audit", "Datastore.AllocateSpace"],
                                    True):
            continue
        if wanted and wanted != sid:
            continue
        scfg = state.storage_config(sid)
        if str(p.get("enabled") or "0") == "1" and str(scfg.get("disable") or 0) == "1":
            continue
        if target and (not data["shared"] or not g.storage_enabled_on(state, sid, node)
                       or not g.storage_enabled_on(state, sid, target)):
            continue
        entry = dict(data, storage=sid)
        if entry["total"]:
            entry["used_fraction"] = entry["used"] / entry["total"]
        res.append(entry)
    return res
