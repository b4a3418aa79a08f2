"""/nodes/{node}/tasks: the task list, a task's index, status and log, and stopping a task.

Ports pve-manager ``PVE/API2/Tasks.pm`` (node_tasks, upid_index, stop_task, read_task_log,
read_task_status) over pve-common ``PVE/UPID.pm`` (decode, read_status, normalize_status_type),
``PVE/Tools.pm`` dump_logfile, ``PVE/INotify.pm`` read_active_workers and ``PVE/RESTEnvironment.pm``
active_workers / check_worker / fork_worker.

A node's tasks come from two files: ``/var/log/pve/tasks/active`` (the running tasks) and the archive
``index`` (the finished ones, newest last, read backwards). A simulated task is in the active file while it
runs and in the archive once it stopped (PVE archives it as soon as ``active_workers`` sees it gone).
"""

import gzip
import re
import time

from ...errors import die, param_exc
from ...formats import FORMATS, TOKENID_RE, FormatError, split_list
from ...tasks import decode_upid
from .base import Download, Result, route
from .texts import perl_true

STATUS_TYPES = ("ok", "warning", "error", "unknown")


def _verify_task_status_type(value):
    """pve-common JSONSchema.pm verify_task_status_type (the ``statusfilter`` list's items)."""
    if value.lower() not in STATUS_TYPES:
        raise FormatError(f"invalid status '{value}'")


# pve-common registers this format with the others; the task list is its only user
FORMATS.setdefault("pve-task-status-type", _verify_task_status_type)


def normalize_status_type(status):
    """UPID.pm normalize_status_type: ok, warning, error or unknown."""
    if not status:
        return "unknown"
    if status == "OK":
        return "ok"
    if re.match(r"WARNINGS: \d+\n?\Z", status):
        return "warning"
    if status == "unexpected status":
        return "unknown"
    return "error"


def check_task_user(row, authid):
    """Tasks.pm $check_task_user: a token sees its own tasks, a user sees its own and its tokens' tasks. On a
    row $convert_token_task split (``user`` + ``tokenid``); an active-file row keeps the full token id as
    ``user``, so there only the token itself is the owner."""
    if "tokenid" in row:
        return authid in (f"{row['user']}!{row['tokenid']}", row["user"])
    return authid == row["user"]


def _decoded(p):
    decoded = decode_upid(p["upid"])
    if decoded is None:
        raise param_exc({"upid": "unable to parse worker upid"})
    return decoded


def _task_file(ctx, p):
    """The task whose log file is on ``node`` (``-f $filename``), or the 400 PVE answers."""
    _decoded(p)
    task = ctx.state.tasks.get(p["upid"])
    if task is None or task.node != p["node"]:
        raise param_exc({"upid": "no such task"})
    return task


def _check_owner(ctx, node, row, priv):
    if not check_task_user(row, ctx.authid):
        ctx.access.check(ctx.authid, f"/nodes/{node}", [priv])


def _decoded_row(task):
    """What UPID.pm decode returns for a task's UPID."""
    return {"upid": task.upid, "node": task.node, "pid": task.pid, "pstart": task.pstart,
            "starttime": task.starttime, "type": task.type, "id": task.id, "user": task.user}


def _split_token(row):
    """Tasks.pm $convert_token_task (pve_verify_tokenid, split_tokenid)."""
    if TOKENID_RE.match(row["user"]):
        row["user"], row["tokenid"] = row["user"].split("!", 1)
    return row


def _endtime(task):
    return int(task.started + task.duration)


@route("GET", "/nodes/{node}/tasks")
def node_tasks(ctx, p):
    """Tasks.pm node_tasks: the filters in PVE's order, ``start``/``limit`` counted over the matching tasks
    only, ``total`` = every matching task. Active rows keep the full token id as ``user``, carry ``saved``
    (the active file's "0") and read ``status`` RUNNING; archived rows have ``endtime`` and the exit status,
    with a token's task split into ``user`` + ``tokenid``."""
    node = p["node"]
    start = p.get("start", 0)
    limit = p.get("limit", 50)
    userfilter = p.get("userfilter")
    typefilter = p.get("typefilter")
    vmid = ctx.raw.get("vmid")
    errors = p.get("errors", 0)
    source = p.get("source", "archive")
    since, until = p.get("since"), p.get("until")
    statusfilter = dict.fromkeys(STATUS_TYPES, 1)
    if "statusfilter" in p and not errors:
        statusfilter = dict.fromkeys(STATUS_TYPES, 0)
        for name in split_list(p["statusfilter"]):
            statusfilter[name.lower()] = 1
    elif errors:
        statusfilter["ok"] = 0
    auditor = ctx.access.check(ctx.authid, f"/nodes/{node}", ["Sys.Audit"], True)
    count = 0
    res = []

    def listed(row):
        nonlocal count, limit
        if perl_true(userfilter) and userfilter.lower() not in row["user"].lower():
            return False
        if not (auditor or check_task_user(row, ctx.authid)):
            return False
        if perl_true(typefilter) and row["type"] != typefilter:
            return False
        if vmid and (not perl_true(row["id"]) or row["id"] != vmid):
            return False
        if since is not None and row["starttime"] < since:
            return False
        if until is not None and row["starttime"] > until:
            return False
        if not statusfilter.get(normalize_status_type(row.get("status"))):
            return False
        count += 1
        if count - 1 < start or limit <= 0:
            return False
        limit -= 1
        return True

    now = time.time()
    tasks = [task for task in ctx.state.tasks.values() if task.node == node]
    if source in ("active", "all"):
        for task in tasks:  # the active file lists the running tasks oldest first
            if task.running(now):
                row = dict(_decoded_row(task), saved="0")
                if listed(row):
                    row["status"] = "RUNNING"
                    res.append(row)
    if source != "active":
        archived = [(index, task) for index, task in enumerate(tasks) if not task.running(now)]
        # index is appended as tasks end and read backwards: the last to end comes first
        archived.sort(key=lambda item: (item[1].started + item[1].duration, item[0]), reverse=True)
        for _index, task in archived:
            row = _split_token(dict(_decoded_row(task), endtime=_endtime(task), status=task.exitstatus))
            if listed(row):
                res.append(row)
    return Result(res, {"total": count})


@route("GET", "/nodes/{node}/tasks/{upid}")
def upid_index(ctx, p):
    """Tasks.pm upid_index: the two children, whatever the UPID."""
    return [{"name": "log"}, {"name": "status"}]


@route("DELETE", "/nodes/{node}/tasks/{upid}")
def stop_task(ctx, p):
    """Tasks.pm stop_task: the owner, or Sys.Modify on the node; a running worker gets SIGTERM and dies
    with ``received interrupt`` (RESTEnvironment.pm fork_worker's signal handler); a stopped one is left."""
    task = _task_file(ctx, p)
    _check_owner(ctx, p["node"], _split_token(_decoded_row(task)), "Sys.Modify")
    now = time.time()
    if task.running(now):
        task.duration = now - task.started
        task.exitstatus = "received interrupt"
    return None


@route("GET", "/nodes/{node}/tasks/{upid}/status")
def status(ctx, p):
    """Tasks.pm read_task_status: the decoded UPID plus ``status`` and, once stopped, ``exitstatus``."""
    task = _task_file(ctx, p)
    res = _split_token(_decoded_row(task))
    _check_owner(ctx, p["node"], res, "Sys.Audit")
    if task.running():
        res["status"] = "running"
    else:
        res["status"] = "stopped"
        res["exitstatus"] = task.exitstatus
    return res


def task_file(upid):
    """UPID.pm decode's log file: /var/log/pve/tasks/<last hex digit of the start time>/<upid>."""
    return f"/var/log/pve/tasks/{upid.split(':')[4][7:8]}/{upid}"


def _download(task, upid):
    """read_task_log with ``download``: the log file itself, gzip-compressed above 1024 bytes, named
    ``task-<node>-<type>-<start, %FT%TZ>.log``; a missing file dies as the open does."""
    if task is None:
        raise die(f"Could not open file '{task_file(upid)}' - No such file or directory")
    text = "".join(line + "\n" for line in task.log()).encode()
    encoding = None
    if len(text) > 1024:  # "1024 is a practical cutoff for the size distribution of our log files"
        text, encoding = gzip.compress(text), "gzip"
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(task.starttime))
    return Download(text, "text/plain", encoding,
                    f'attachment; filename="task-{task.node}-{task.type}-{started}.log"')


@route("GET", "/nodes/{node}/tasks/{upid}/log")
def log(ctx, p):
    """Tasks.pm read_task_log over Tools.pm dump_logfile: no "no such task" check (a missing file reads as one
    line), ``limit`` 0 reads to the end, an empty log reads ``no content``; ``total`` counts every line."""
    _check_owner(ctx, p["node"], _split_token(_decoded(p)), "Sys.Audit")
    if p.get("download"):
        if "start" in p or "limit" in p:
            raise die("'download' cannot be used together with 'start' or 'limit' parameters")
    task = ctx.state.tasks.get(p["upid"])
    if task is not None and task.node != p["node"]:
        task = None
    if p.get("download"):
        return _download(task, p["upid"])
    if task is None:
        return Result([{"n": 1, "t": "unable to open file - No such file or directory"}], {"total": 1})
    lines = task.log()
    start = p.get("start", 0)
    limit = p.get("limit", 50)
    if not lines:
        return Result([{"n": 1, "t": "no content"}], {"total": 1})
    chosen = list(enumerate(lines, 1))[start:]
    if limit:
        chosen = chosen[:limit]
    return Result([{"n": n, "t": text} for n, text in chosen], {"total": len(lines)})
