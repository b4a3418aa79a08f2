"""/nodes/{node}/qemu/{vmid}/agent/{exec,exec-status,file-read,file-write}: the QEMU guest agent's commands.

Ports ``API2/Qemu/Agent.pm`` (the ``exec``, ``exec-status``, ``file-read`` and ``file-write`` methods) with
``QemuServer/Agent.pm`` (qemu_exec, qemu_exec_status, agent_cmd, check_agent_error), and what qemu-ga answers
them (qga/commands-posix.c and qga/commands.c: guest-exec, guest-exec-status, guest-file-open/-read/-write/-close).

A simulated VM's guest agent runs commands for real, as the test's own user, in a directory of its own
(the guest's filesystem stand-in, ``agent_root``): ``<root>/root`` is its HOME (qemu-ga runs as root),
``<root>/tmp`` its TMPDIR, ``<root>/usr/local/bin`` leads its PATH (where a test puts the guest's own tools, a
``sudo`` say). Every command runs in a session and process group of its own, is killed with its whole group
after ``state.agent["limit"]`` seconds (default 120), and every group still running is killed when the
simulator stops. File paths are the machine's own, but only inside the guest's directory: any other path
answers as qemu-ga does for a file it may not open (``Permission denied``), so a test never writes outside it.

* ``exec`` answers ``{"pid": N}`` at once; ``exec-status`` answers ``{"exited": 0}`` while it runs, then once
  ``exited``, ``exitcode`` (or ``signal``), and ``out-data``/``err-data`` when there was output (qemu-ga captures
  up to 16 MiB of each, ``*-truncated`` beyond), after which the pid is forgotten (qemu-ga frees it: a second
  query is ``Agent error: Invalid parameter 'pid'``). PVE decodes qemu-ga's base64 and sends the bytes as a Perl
  byte string, so each byte is one character of the JSON text (what is not ASCII arrives as Latin-1 code
  points, as PVE's JSON encoder writes it).
* ``file-write`` opens the file ``wb`` (it truncates: writing the same content twice leaves it once), writes the
  content (base64 by PVE unless ``encode=0``, then the client's base64, checked) and closes it.
* ``file-read`` reads ``count`` bytes (16 MiB at most) from ``offset`` in 1 MiB qemu-ga reads, ``truncated`` when
  it did not reach the end of the file, ``bytes-read`` always; with ``decode=0`` the content stays base64.
* Every command first asserts the agent (qemu.assert_agent_available: configured, VM running, agent answering).
"""

import base64
import binascii
import os
import signal
import subprocess
import tempfile
import threading

from ...errors import die
from ..state import register_slice
from . import guests as g
from .base import route
from .qemu import TYP, assert_agent_available

BASE = "/nodes/{node}/qemu/{vmid}/agent"
MAX_OUTPUT = 16 * 1024 * 1024  # qga/commands.c GUEST_EXEC_MAX_OUTPUT
MAX_READ_SIZE = 16 * 1024 * 1024  # API2/Qemu/Agent.pm $MAX_READ_SIZE
READ_CHUNK = 1024 * 1024  # file-read's $read_size: one guest-file-read per MiB
DEFAULT_LIMIT = 120.0
GUEST_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# root: where the guests' directories are made (the simulator's run directory; a temporary one when unset);
# limit: seconds a command may run; processes: vmid -> {pid: Process}.
register_slice("agent", lambda: {"root": None, "limit": DEFAULT_LIMIT, "processes": {}}, snapshot=False)


def agent_error(desc):
    """check_agent_error: qemu-ga's error ``desc`` becomes ``Agent error: <desc>``."""
    return die(f"Agent error: {desc}")


def agent_root(state, vmid):
    """The guest's directory (made on first use) with its HOME, TMPDIR and tool directory."""
    agent = state.agent
    if agent["root"] is None:
        agent["root"] = tempfile.mkdtemp(prefix="pve-sim-guests-")
    root = os.path.realpath(os.path.join(agent["root"], str(vmid)))
    for sub in ("root", "tmp", "usr/local/bin"):
        os.makedirs(os.path.join(root, sub), exist_ok=True)
    return root


def guest_file(state, vmid, path, mode):
    """The machine path of a guest path: absolute paths as they are, relative ones from the guest's ``/``
    (qemu-ga's working directory); outside the guest's directory a path cannot be opened."""
    root = agent_root(state, vmid)
    real = os.path.realpath(path if os.path.isabs(path) else os.path.join(root, path))
    if real != root and not real.startswith(root + os.sep):
        raise agent_error(f"failed to open file '{path}' (mode: '{mode}'): Permission denied")
    return real


def _open_error(path, mode, exc):
    return agent_error(f"failed to open file '{path}' (mode: '{mode}'): {exc.strerror}")


class Process:
    """One guest-exec: the command runs in a thread's ``communicate`` (stdin fed, output captured), bounded in
    time; its whole process group is killed when the limit passes or the simulator stops."""

    def __init__(self, argv, input_data, root, limit):
        env = {"PATH": os.path.join(root, "usr/local/bin") + ":" + GUEST_PATH, "HOME": os.path.join(root, "root"),
               "TMPDIR": os.path.join(root, "tmp"), "LANG": "C.UTF-8", "USER": "root", "LOGNAME": "root"}
        self.popen = subprocess.Popen(argv, cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, start_new_session=True)
        self.pid = self.popen.pid
        self.input = input_data
        self.limit = limit
        self.out = self.err = b""
        self.done = threading.Event()
        threading.Thread(target=self._run, daemon=True, name=f"agent-exec-{self.pid}").start()

    def _run(self):
        try:
            self.out, self.err = self.popen.communicate(self.input, timeout=self.limit)
        except subprocess.TimeoutExpired:
            self.kill()
            self.out, self.err = self.popen.communicate()
        finally:
            self.done.set()

    def kill(self):
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def status(self):
        """guest-exec-status as PVE answers it (booleans 0/1, output decoded)."""
        if not self.done.is_set():
            return {"exited": 0}
        res = {"exited": 1}
        code = self.popen.returncode
        if code < 0:
            res["signal"] = -code
        else:
            res["exitcode"] = code
        for name, data in (("out", self.out), ("err", self.err)):
            if data:
                res[f"{name}-data"] = data[:MAX_OUTPUT].decode("latin-1")
            if len(data) > MAX_OUTPUT:
                res[f"{name}-truncated"] = 1
        return res


def stop_all(state):
    """Kill every guest command still running and remove the guests' directories (the simulator stops)."""
    agent = state.agent
    for processes in agent["processes"].values():
        for process in processes.values():
            process.kill()
    for processes in agent["processes"].values():
        for process in processes.values():
            process.done.wait(5)
    agent["processes"].clear()


def _available(ctx, p):
    """load_config (the typed absence) then assert_agent_available, as every agent method starts."""
    state, vmid = ctx.state, p["vmid"]
    assert_agent_available(state, g.load_guest(state, TYP, p["node"], vmid), vmid)
    return state, vmid


@route("POST", BASE + "/exec")
def agent_exec(ctx, p):
    """Agent.pm exec -> qemu_exec: ``command`` (path and arguments) and/or ``input-data`` (stdin), at least one;
    a program qemu-ga cannot start is glib's spawn error."""
    state, vmid = _available(ctx, p)
    argv, input_data = list(p.get("command") or []), p.get("input-data")
    if not argv and input_data is None:
        raise die("command or input-data (or both) required")
    if not argv:  # qemu-ga's guest-exec needs a path: input-data alone is its missing-parameter error
        raise agent_error("Parameter 'path' is missing")
    root = agent_root(state, vmid)
    try:
        process = Process(argv, input_data.encode("utf-8") if input_data is not None else b"", root,
                          state.agent["limit"])
    except OSError as exc:
        raise agent_error(f"Failed to execute child process \u201c{argv[0]}\u201d ({exc.strerror})")
    state.agent["processes"].setdefault(vmid, {})[process.pid] = process
    return {"pid": process.pid}


@route("GET", BASE + "/exec-status")
def agent_exec_status(ctx, p):
    """Agent.pm exec-status -> qemu_exec_status; qemu-ga forgets a pid once it reported it exited."""
    state, vmid = _available(ctx, p)
    processes = state.agent["processes"].get(vmid, {})
    process = processes.get(int(p["pid"]))
    if process is None:
        raise agent_error("Invalid parameter 'pid'")
    res = process.status()
    if res["exited"]:
        del processes[process.pid]
    return res


@route("POST", BASE + "/file-write")
def agent_file_write(ctx, p):
    """Agent.pm file-write: guest-file-open ``wb`` (truncating), guest-file-write, guest-file-close."""
    state, vmid = _available(ctx, p)
    content = p["content"]
    if p.get("encode", 1):
        data = content.encode("utf-8")
    else:
        try:
            data = base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError):
            raise agent_error("Invalid parameter 'buf-b64'") from None
    path = guest_file(state, vmid, p["file"], "wb")
    try:
        with open(path, "wb") as handle:
            handle.write(data)
    except OSError as exc:
        raise _open_error(p["file"], "wb", exc) from None


@route("GET", BASE + "/file-read")
def agent_file_read(ctx, p):
    """Agent.pm file-read: guest-file-open (mode ``r``), guest-file-seek to ``offset``, 1 MiB guest-file-reads
    until ``count`` bytes or the end; ``truncated`` when the end was not reached (a read that returned less
    than asked is qemu-ga's eof)."""
    state, vmid = _available(ctx, p)
    count, offset = p.get("count", MAX_READ_SIZE), p.get("offset", 0)
    path = guest_file(state, vmid, p["file"], "r")
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise _open_error(p["file"], "r", exc) from None
    with handle:
        handle.seek(offset)
        data, eof = b"", False
        while len(data) < count and not eof:
            want = min(count - len(data), READ_CHUNK)
            chunk = handle.read(want)
            data += chunk
            eof = len(chunk) < want
    content = data.decode("latin-1") if p.get("decode", 1) else base64.b64encode(data).decode("ascii")
    res = {"content": content, "bytes-read": len(data)}
    if not eof:
        res["truncated"] = 1
    return res
