"""Worker tasks and their UPIDs, as both products have them.

* PVE (pve-common ``PVE::Tools`` upid_encode / upid_decode): ``UPID:node:PID:PSTART:STARTTIME:type:id:user:``,
  pid/pstart random per task; a task's log closes with ``TASK OK`` / ``TASK WARNINGS: n`` /
  ``TASK ERROR: ...``.
* PBS (proxmox-rest-server ``UPID``): ``UPID:node:PID:PSTART:TASK_ID:STARTTIME:wtype:wid:authid:``, the API
  daemon's pid/pstart for every task, a counter as task id, the worker id ``escape_unit``-ed; every log
  line carries an RFC 3339 time stamp.

The task lists themselves belong to the states (``pve.state.ClusterState.start_task``,
``pbs.state.PbsState.start_task``); the task routes to ``pve/handlers/tasks.py`` and ``pbs/handlers/tasks.py``.
"""

import re
import time
from dataclasses import dataclass, field

UPID_RE = re.compile(
    r"^UPID:([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):"
    r"([0-9A-Fa-f]{8}):([^:\s/]+):([^:\s/]*):([^:\s/]+):$")
PBS_UPID_RE = re.compile(
    r"^UPID:(?P<node>[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?):(?P<pid>[0-9A-Fa-f]{8}):"
    r"(?P<pstart>[0-9A-Fa-f]{8,9}):(?P<task_id>[0-9A-Fa-f]{8,16}):(?P<starttime>[0-9A-Fa-f]{8}):"
    r"(?P<wtype>[^:\s]+):(?P<wid>[^:\s]*):(?P<authid>[^:\s]+):\Z")


class TaskEnd:
    """How a worker task (PVE or PBS) ends: it runs for ``duration`` seconds from
    ``started`` and then closes its log with the line for ``exitstatus``."""

    def running(self, now=None):
        return (now or time.time()) < self.started + self.duration

    def final_line(self):
        if self.exitstatus == "OK":
            return "TASK OK"
        if self.exitstatus.startswith("WARNINGS"):
            return f"TASK {self.exitstatus}"
        return f"TASK ERROR: {self.exitstatus}"


# -- PVE ---------------------------------------------------------------------------------

@dataclass
class Task(TaskEnd):
    upid: str
    node: str
    pid: int
    pstart: int
    starttime: int
    type: str
    id: str
    user: str
    exitstatus: str = "OK"
    started: float = 0.0
    duration: float = 0.0
    lines: list = field(default_factory=list)

    def log(self, now=None):
        if self.running(now):
            return list(self.lines)
        return list(self.lines) + [self.final_line()]


def pve_upid(node, pid, pstart, starttime, wtype, wid, user):
    """PVE UPID.pm encode."""
    return f"UPID:{node}:{pid:08X}:{pstart:08X}:{starttime:08X}:{wtype}:{wid}:{user}:"


def decode_upid(upid):
    m = UPID_RE.match(upid or "")
    if not m:
        return None
    return {"node": m.group(1), "pid": int(m.group(3), 16), "pstart": int(m.group(4), 16),
            "starttime": int(m.group(5), 16), "type": m.group(6), "id": m.group(7),
            "user": m.group(8)}


# -- PBS ---------------------------------------------------------------------------------

def escape_unit(text):
    """proxmox_systemd::escape_unit(text, false): how a worker id sits in a UPID."""
    out = []
    for index, char in enumerate(text):
        if char == "/":
            out.append("-")
        elif (index == 0 and char == ".") or not (char in "_." or (char.isascii() and char.isalnum())):
            out.extend(f"\\x{byte:x}" for byte in char.encode())
        else:
            out.append(char)
    return "".join(out)


def unescape_unit(text):
    data = bytearray()
    pos = 0
    while pos < len(text):
        if text.startswith("\\x", pos):
            m = re.match(r"[0-9a-fA-F]{1,2}", text[pos + 2:])
            if m:
                data.append(int(m.group(0), 16))
                pos += 2 + m.end()
                continue
        char = text[pos]
        data.extend(b"/" if char == "-" else char.encode())
        pos += 1
    return data.decode("utf-8", "replace")


def pbs_upid(node, pid, pstart, task_id, starttime, wtype, wid_text, authid):
    """proxmox-rest-server UPID Display (``wid_text`` already escaped)."""
    return (f"UPID:{node}:{pid:08X}:{pstart:08X}:{task_id:08X}:"
            f"{starttime:08X}:{wtype}:{wid_text}:{authid}:")


def pbs_stamp(epoch):
    """The RFC 3339 local time a PBS task log line starts with."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(epoch))
    return f"{stamp[:-2]}:{stamp[-2:]}"


@dataclass
class PbsTask(TaskEnd):
    upid: str
    pid: int
    pstart: int
    task_id: int
    starttime: int
    type: str
    wid: str
    authid: str
    exitstatus: str = "OK"
    started: float = 0.0
    duration: float = 0.0
    lines: list = field(default_factory=list)
    on_done: object = None   # applied once when the task ends with OK/WARNINGS
    applied: bool = False

    @property
    def endtime(self):
        return int(self.started + self.duration)

    def log(self, now=None):
        lines = list(self.lines)
        if not self.running(now):
            lines.append(f"{pbs_stamp(self.endtime)}: {self.final_line()}")
        return lines
