"""/nodes/{node}/tasks/{upid}/status and .../log (pve-manager API2/Tasks.pm)."""

from ...errors import param_exc
from ...tasks import decode_upid
from .base import Result, route


def _task(ctx, p):
    upid = p["upid"]
    decoded = decode_upid(upid)
    if decoded is None:
        raise param_exc({"upid": "unable to parse worker upid"})
    task = ctx.state.tasks.get(upid)
    if task is None or task.node != p["node"]:
        raise param_exc({"upid": "no such task"})
    if ctx.authid != task.user:
        # only the task owner may read it without Sys.Audit on the node
        ctx.access.check(ctx.authid, f"/nodes/{p['node']}", ["Sys.Audit"])
    return task


@route("GET", "/nodes/{node}/tasks/{upid}/status")
def status(ctx, p):
    task = _task(ctx, p)
    res = {"upid": task.upid, "node": task.node, "pid": task.pid, "pstart": task.pstart,
           "starttime": task.starttime, "type": task.type, "id": task.id, "user": task.user}
    if "!" in task.user:
        res["user"], res["tokenid"] = task.user.split("!", 1)
    if task.running():
        res["status"] = "running"
    else:
        res["status"] = "stopped"
        res["exitstatus"] = task.exitstatus
    return res


@route("GET", "/nodes/{node}/tasks/{upid}/log")
def log(ctx, p):
    task = _task(ctx, p)
    lines = task.log()
    start = p.get("start") or 0
    limit = p.get("limit") or 50
    data = [{"n": i + 1, "t": text} for i, text in enumerate(lines)][start:start + limit]
    return Result(data, {"total": len(lines)})
