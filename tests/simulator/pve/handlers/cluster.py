"""/version, /nodes, /cluster/status, /cluster/nextid (pve-manager ``PVE/API2.pm``, ``PVE/API2/Nodes.pm``,
``PVE/API2/Cluster.pm``)."""

from ...errors import die, param_exc
from ...schema import load as load_schema
from .base import route
from .cluster_options import NEXT_ID_DEFAULTS, PATH as OPTIONS_PATH, read_property_string
from .subscription import read_etc_subscription


@route("GET", "/version")
def version(ctx, p):
    """API2.pm version: datacenter.cfg's ``console`` when set (parse_datacenter_config reads ``applet`` as
    ``html5``), then version, release and repoid (pvecfg version_info)."""
    res = {}
    console = ctx.state.datacenter.get("console")
    if console is not None:
        res["console"] = "html5" if console == "applet" else console
    res.update((key, ctx.state.version[key]) for key in ("version", "release", "repoid"))
    return res


@route("GET", "/nodes")
def nodes(ctx, p):
    res = []
    for name, info in ctx.state.nodes.items():
        entry = {"id": f"node/{name}", "node": name, "type": "node",
                 "status": "online" if info["online"] else "offline",
                 "level": "", "ssl_fingerprint": ctx.member.sim.tls.fingerprint}
        if info["online"] and ctx.access.check(ctx.authid, f"/nodes/{name}", ["Sys.Audit"], True):
            entry.update({"uptime": 123456, "cpu": 0.0123, "maxcpu": 8,
                          "mem": 3 * 2**30, "maxmem": 32 * 2**30,
                          "disk": 5 * 2**30, "maxdisk": 100 * 2**30})
        res.append(entry)
    return res


@route("GET", "/cluster/status")
def cluster_status(ctx, p):
    """Cluster.pm get_status: the cluster row (pmxcfs clinfo: nodes, config version, quorate), then one row per
    member with nodeid, local and online as numbers, ``ip`` when pmxcfs knows it, ``level`` always (the
    subscription level, '' without one: extract_node_stats always answers an entry). A standalone node (no
    corosync.conf, so no members) answers its one fake row."""
    state = ctx.state
    if state.corosync is None:  # "fake entry for local node if no cluster defined", level from /etc/subscription
        level = (read_etc_subscription(state, ctx.node) or {}).get("level") or ""
        return [{"type": "node", "id": f"node/{ctx.node}", "name": ctx.node, "ip": state.nodes[ctx.node]["ip"],
                 "local": 1, "nodeid": 0, "online": 1, "level": level}]
    res = [{"type": "cluster", "id": "cluster", "name": state.cluster_name,
            "nodes": len(state.nodes), "version": len(state.nodes),
            "quorate": 1 if state.quorate() else 0}]
    for name, info in state.nodes.items():
        entry = {"type": "node", "id": f"node/{name}", "name": name,
                 "nodeid": info["nodeid"], "local": 1 if name == ctx.node else 0,
                 "online": info["online"]}
        if info.get("ip") is not None:
            entry["ip"] = info["ip"]
        entry["level"] = ""
        res.append(entry)
    return res


def _next_id_bounds(state):
    """datacenter.cfg ``next-id`` as parse_datacenter_config reads it: the bounds stay the text of the file."""
    text = state.datacenter.get("next-id")
    if not text:
        return {}
    fmt = load_schema().lookup("PUT", OPTIONS_PATH)["parameters"]["properties"]["next-id"]["format"]
    return read_property_string(fmt, text, "next-id")


@route("GET", "/cluster/nextid")
def nextid(ctx, p):
    """Cluster.pm nextid over every guest of the cluster (pmxcfs vmlist). The answer is a JSON **string**:
    the handler returns the ``vmid`` parameter as sent, or a loop counter that was just used as a hash key
    (``$idlist->{$i}``), and JSON::XS encodes a Perl scalar with a string value as a string."""
    guests = ctx.state.guests
    if p.get("vmid"):
        vmid = p["vmid"]
        if vmid not in guests:
            return ctx.raw["vmid"]
        raise param_exc({"vmid": f"VM {vmid} already exists"})
    bounds = _next_id_bounds(ctx.state)
    lower = bounds.get("lower", str(NEXT_ID_DEFAULTS["lower"]))
    upper = bounds.get("upper", str(NEXT_ID_DEFAULTS["upper"]))
    for candidate in range(int(lower), int(upper)):  # upper is exclusive
        if candidate not in guests:
            return str(candidate)
    raise die(f"unable to get any free VMID in range [{lower}, {upper}]")
