"""/cluster/mapping/{pci,usb,dir}: cluster-wide resource mappings (pve-manager PVE/API2/Cluster/Mapping/
{PCI,USB,Dir}.pm, formats in pve-guest-common src/PVE/Mapping/{PCI,USB,Dir}.pm).

Each type is its own SectionConfig file (mapping/pci.cfg, usb.cfg, directory.cfg) with its own digest:
``state.mappings[type]`` maps an id to its section (``map``: the list of per-node property strings as sent).
Errors are the handlers' own ``die`` texts (create: "<type> ID '<id>' already defined", update: "... does not
exist", read: "mapping '<id>' not found"), prefixed by the lock's message. PVE's delete of a missing id
succeeds (it only deletes when defined). The per-entry assert_valid checks are not simulated.
"""

import hashlib
from collections import OrderedDict

from ...errors import die, locked
from ...formats import split_list
from ..state import register_slice
from .base import route

register_slice("mappings", lambda: {"pci": OrderedDict(), "usb": OrderedDict(), "dir": OrderedDict()})

# the options each plugin takes besides map (Mapping/<Type>.pm options())
OPTIONS = {"pci": ("description", "mdev", "live-migration-capable"), "usb": ("description",),
           "dir": ("description",)}
# the lock's error prefixes: (create, update); delete is "delete <type> mapping failed" for every type
LOCK_ERRORS = {"pci": ("create hardware mapping failed", "update hardware mapping failed"),
               "usb": ("create hardware mapping failed", "update hardware mapping failed"),
               "dir": ("create directory mapping failed", "update directory mapping failed")}


def mapping_exists(state, typ, mapping_id):
    """Whether ``typ`` (pci|usb|dir) has a mapping ``mapping_id`` (the vm hostpci/usb mapping= check)."""
    return mapping_id in state.mappings.get(typ, {})


def _digest(state, typ):
    text = "".join(f"{typ}: {mid}\n" + "".join(f"\t{k} {v}\n" for k, v in sorted(sec.items())) + "\n"
                   for mid, sec in state.mappings[typ].items())
    return hashlib.sha1(text.encode()).hexdigest()


def _settings(typ, params):
    out = {}
    for key, value in params.items():
        if key == "map":
            out["map"] = list(value) if isinstance(value, (list, tuple)) else [value]
        elif key in OPTIONS[typ]:
            out[key] = value
        else:
            raise die(f"unexpected property '{key}'")
    return out


def index(ctx, p, typ):
    # the index proxies to check-node (``proxyto_callback``), so the "wrong node to check" die never fires there
    check_node = ctx.raw.get("check-node")
    out = []
    for mid, section in ctx.state.mappings[typ].items():
        entry = dict(section, id=mid, digest=_digest(ctx.state, typ))
        if check_node is not None:
            node = ctx.node if check_node == "localhost" else check_node
            entry["checks"] = [] if any(f"node={node}" in e.split(",") for e in section.get("map", [])) else [
                {"severity": "warning", "message": f"No mapping for node {node}."}]
        out.append(entry)
    return out


def read(ctx, p, typ):
    section = ctx.state.mappings[typ].get(p["id"])
    if section is None:
        raise die(f"mapping '{p['id']}' not found")
    return dict(section, digest=_digest(ctx.state, typ))


def create(ctx, p, typ):
    params = dict(ctx.raw)
    mid = params.pop("id")
    with locked(ctx.state, LOCK_ERRORS[typ][0]):
        if mid in ctx.state.mappings[typ]:
            raise die(f"{typ} ID '{mid}' already defined")
        ctx.state.mappings[typ][mid] = _settings(typ, params)


def update(ctx, p, typ):
    params = dict(ctx.raw)
    mid = params.pop("id")
    digest = params.pop("digest", None)
    delete = split_list(params.pop("delete", None))
    with locked(ctx.state, LOCK_ERRORS[typ][1]):
        if digest and digest != _digest(ctx.state, typ):
            raise die("detected modified configuration - file changed by other user? Try again.")
        section = ctx.state.mappings[typ].get(mid)
        if section is None:
            raise die(f"{typ} ID '{mid}' does not exist")
        section.update(_settings(typ, params))
        for key in delete:
            section.pop(key, None)


def delete(ctx, p, typ):
    with locked(ctx.state, f"delete {typ} mapping failed"):
        ctx.state.mappings[typ].pop(p["id"], None)


def _bind(handler, typ):
    return lambda ctx, p: handler(ctx, p, typ)


# one route per type, as the schema has them (the three API modules are mounted under /cluster/mapping)
for mapping_type in OPTIONS:
    route("GET", f"/cluster/mapping/{mapping_type}")(_bind(index, mapping_type))
    route("POST", f"/cluster/mapping/{mapping_type}")(_bind(create, mapping_type))
    route("GET", f"/cluster/mapping/{mapping_type}/{{id}}")(_bind(read, mapping_type))
    route("PUT", f"/cluster/mapping/{mapping_type}/{{id}}")(_bind(update, mapping_type))
    route("DELETE", f"/cluster/mapping/{mapping_type}/{{id}}")(_bind(delete, mapping_type))
