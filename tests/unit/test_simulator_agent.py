"""The simulator's QEMU guest agent (tests/simulator/pve/handlers/agent.py) over real HTTPS: exec and exec-status
running real commands in the guest's directory, file-write and file-read, and PVE's answers for an agent that is
not configured, not running or silent.

Run: python -m pytest tests/unit/test_simulator_agent.py -q
"""

import base64
import os
import sys
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import
from simulator.pve.handlers.agent import agent_root  # noqa: E402
from simulator.pve.handlers.guests import add_guest  # noqa: E402

AGENT = "/nodes/node1/qemu/700/agent"


@pytest.fixture(autouse=True)
def guest(sim):
    add_guest(sim.state, "qemu", 700, "node1", {"agent": "1", "name": "agentvm"}, status="running")
    limit = sim.state.agent["limit"]
    yield
    sim.state.agent["limit"] = limit
    with sim.state.lock:
        sim.state.guests.pop(700, None)
        sim.state.guests.pop(701, None)
        sim.state.agent_unresponsive.discard(700)


def ok(sim, method, path, form=None):
    status, body = sim.request(method, path, form)
    assert status == 200, (method, path, form, body)
    return body["data"]


def finished(sim, pid, vmid=700):
    """exec-status polled until the command exited."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        status = ok(sim, "GET", f"/nodes/node1/qemu/{vmid}/agent/exec-status", {"pid": pid})
        if status["exited"]:
            return status
        time.sleep(0.05)
    raise AssertionError("the command did not finish")


def living_in_group(pgid):
    """The processes of a process group that are not zombies (Linux /proc)."""
    living = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            living.append(int(entry))
    return living


def test_exec_runs_the_command_in_the_guests_directory_with_stdin_and_both_outputs(sim):
    root = agent_root(sim.state, 700)
    script = "read line; echo \"got $line\"; pwd; echo $HOME; echo oops >&2; exit 3"
    pid = ok(sim, "POST", AGENT + "/exec", {"command": ["/bin/sh", "-c", script], "input-data": "hello\n"})["pid"]
    assert isinstance(pid, int)
    status = finished(sim, pid)
    assert status == {"exited": 1, "exitcode": 3, "out-data": "got hello\n%s\n%s/root\n" % (root, root),
                      "err-data": "oops\n"}
    # qemu-ga forgets a pid once it reported it exited
    assert sim.request("GET", AGENT + "/exec-status", {"pid": pid}) == \
        (500, {"data": None, "message": "Agent error: Invalid parameter 'pid'\n"})


def test_a_running_command_is_not_exited_and_one_past_the_limit_is_killed_with_its_group(sim):
    sim.state.agent["limit"] = 1.0
    pid = ok(sim, "POST", AGENT + "/exec", {"command": ["/bin/sh", "-c", "sleep 30 & sleep 30"]})["pid"]
    assert ok(sim, "GET", AGENT + "/exec-status", {"pid": pid}) == {"exited": 0}
    status = finished(sim, pid)
    assert status == {"exited": 1, "signal": 9}
    assert living_in_group(pid) == []  # the background sleep went with its group


def test_output_that_is_not_ascii_arrives_as_pves_byte_string(sim):
    pid = ok(sim, "POST", AGENT + "/exec", {"command": ["printf", "gr\\303\\274n"]})["pid"]
    # PVE decodes qemu-ga's base64 into bytes; its JSON encoder writes each byte as one character
    assert finished(sim, pid)["out-data"] == "gr\u00c3\u00bcn"


def test_exec_refusals(sim):
    # PVE 9's schema makes command required, so qemu_exec's "command or input-data" check is never reached
    status, body = sim.request("POST", AGENT + "/exec", {"input-data": "x"})
    assert status == 400 and body["errors"] == {"command": "property is missing and it is not optional"}
    assert sim.request("POST", AGENT + "/exec", {"command": "/no/such/program"}) == (500, {"data": None, "message": (
        "Agent error: Failed to execute child process \u201c/no/such/program\u201d (No such file or directory)\n")})


def test_file_write_truncates_and_file_read_reads_it_back_by_offset(sim):
    path = os.path.join(agent_root(sim.state, 700), "root", "data.bin")
    payload = bytes(range(256)) * 3
    for _written in range(2):  # written twice: there once (guest-file-open "wb")
        form = {"file": path, "encode": 0, "content": base64.b64encode(payload).decode()}
        assert ok(sim, "POST", AGENT + "/file-write", form) is None
    with open(path, "rb") as handle:
        assert handle.read() == payload
    ok(sim, "POST", AGENT + "/file-write", {"file": path, "content": "plain text"})
    assert ok(sim, "GET", AGENT + "/file-read", {"file": path}) == {"content": "plain text", "bytes-read": 10}
    with open(path, "wb") as handle:
        handle.write(payload)
    part = ok(sim, "GET", AGENT + "/file-read", {"file": path, "decode": 0, "offset": 700, "count": 50})
    assert part == {"content": base64.b64encode(payload[700:750]).decode(), "bytes-read": 50, "truncated": 1}
    rest = ok(sim, "GET", AGENT + "/file-read", {"file": path, "decode": 0, "offset": 750})
    assert rest == {"content": base64.b64encode(payload[750:]).decode(), "bytes-read": 18}


@pytest.mark.parametrize("method, command, form, message", [
    ("GET", "file-read", {"file": "/etc/hostname"},
     "failed to open file '/etc/hostname' (mode: 'r'): Permission denied"),
    ("GET", "file-read", {"file": "missing.txt"},
     "failed to open file 'missing.txt' (mode: 'r'): No such file or directory"),
    ("POST", "file-write", {"file": "/tmp/../../outside", "content": "x"},
     "failed to open file '/tmp/../../outside' (mode: 'wb'): Permission denied"),
    ("POST", "file-write", {"file": "nodir/file", "content": "x"},
     "failed to open file 'nodir/file' (mode: 'wb'): No such file or directory"),
])
def test_file_paths_outside_the_guest_or_missing_answer_as_qemu_ga(sim, method, command, form, message):
    assert sim.request(method, AGENT + "/" + command, form) == \
        (500, {"data": None, "message": "Agent error: %s\n" % message})


@pytest.mark.parametrize("setup, message", [
    (dict(config={"name": "noagent"}, status="running"), "No QEMU guest agent configured"),
    (dict(config={"agent": "1"}, status="stopped"), "VM 701 is not running"),
    (dict(config={"agent": "0"}, status="running"), "QEMU guest agent is not running"),
])
def test_an_agent_that_is_off_or_absent_is_refused_before_anything_runs(sim, setup, message):
    add_guest(sim.state, "qemu", 701, "node1", setup["config"], status=setup["status"])
    for method, command, form in (("POST", "exec", {"command": ["true"]}), ("GET", "exec-status", {"pid": 1}),
                                  ("POST", "file-write", {"file": "x", "content": "x"}),
                                  ("GET", "file-read", {"file": "x"})):
        assert sim.request(method, f"/nodes/node1/qemu/701/agent/{command}", form) == \
            (500, {"data": None, "message": message + "\n"})


def test_a_silent_agent_and_a_guest_elsewhere(sim):
    sim.state.agent_unresponsive.add(700)
    assert sim.request("POST", AGENT + "/exec", {"command": ["true"]}) == \
        (500, {"data": None, "message": "QEMU guest agent is not running\n"})
    assert sim.request("POST", "/nodes/node2/qemu/700/agent/exec", {"command": ["true"]}) == \
        (500, {"data": None, "message": "Configuration file 'nodes/node2/qemu-server/700.conf' does not exist\n"})


def test_file_write_content_is_bounded_as_pve_bounds_it(sim):
    status, body = sim.request("POST", AGENT + "/file-write", {"file": "x", "content": "a" * (60 * 1024 + 1)})
    assert status == 400 and "content" in body["errors"], body
