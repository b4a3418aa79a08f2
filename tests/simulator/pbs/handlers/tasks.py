"""Worker tasks of a Proxmox Backup Server: status and log (proxmox-backup ``src/api2/node/tasks.rs``)."""

from ...tasks import PBS_UPID_RE, unescape_unit
from ..auth import parse_authid
from ..errors import PbsAuthError, PbsError
from .base import Result, route


def _task(ctx):
    upid = ctx.params["upid"]
    m = PBS_UPID_RE.match(upid)
    if not m:
        raise PbsError(400, f"unable to parse UPID '{upid}'")
    task = ctx.state.tasks.get(upid)
    owner = m.group("authid")
    try:
        parse_authid(owner)
    except PbsAuthError as err:
        raise PbsError(400, str(err)) from err
    # check_task_access: the owner (or the user owning the token) may always read; anybody else needs
    # Sys.Audit on /system/tasks
    if ctx.authid not in (owner, owner.split("!")[0]) and not ctx.has_privs(["system", "tasks"], ["Sys.Audit"]):
        raise PbsError(400, "task access not allowed")
    return m, task, owner


@route("GET", "/nodes/{node}/tasks/{upid}/status")
def task_status(ctx):
    m, task, owner = _task(ctx)
    user, token = parse_authid(owner)
    res = {"upid": ctx.params["upid"], "node": m.group("node"), "pid": int(m.group("pid"), 16),
           "pstart": int(m.group("pstart"), 16), "starttime": int(m.group("starttime"), 16),
           "type": m.group("wtype"), "id": unescape_unit(m.group("wid")) if m.group("wid") else None,
           "user": user}
    if token is not None:
        res["tokenid"] = token
    if task is not None and task.running():
        res["status"] = "running"
    else:
        res["status"] = "stopped"
        res["exitstatus"] = task.exitstatus if task is not None else "unknown"
        res["endtime"] = task.endtime if task is not None else 0
    return res


@route("GET", "/nodes/{node}/tasks/{upid}/log")
def task_log(ctx):
    task = _task(ctx)[1]
    if task is None:
        raise PbsError(400, "No such file or directory (os error 2)")
    start = ctx.params.get("start") or 0
    limit = ctx.params.get("limit")
    limit = 50 if limit is None else limit
    until_end = limit == 0
    lines = []
    count = 0
    for text in task.log():
        count += 1
        if count < start:
            continue
        if not until_end:
            if limit == 0:
                continue
            limit -= 1
        lines.append({"n": count, "t": text})
    return Result(lines, {"total": count, "success": 1, "_content_type": "application/json"})
