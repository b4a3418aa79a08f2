"""/version, /nodes, /cluster/status."""

from .base import route


@route("GET", "/version")
def version(ctx, p):
    return dict(ctx.state.version)


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
    state = ctx.state
    res = [{"type": "cluster", "id": "cluster", "name": state.cluster_name,
            "nodes": len(state.nodes), "version": len(state.nodes),
            "quorate": 1 if state.quorate() else 0}]
    for name, info in state.nodes.items():
        res.append({"type": "node", "id": f"node/{name}", "name": name,
                    "nodeid": info["nodeid"], "local": 1 if name == ctx.node else 0,
                    "online": info["online"], "ip": info["ip"], "level": ""})
    return res
