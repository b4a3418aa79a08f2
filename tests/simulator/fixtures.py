"""What the simulator's own tests share (tests/unit/test_simulator*.py): fixtures, serve.py.

Import both into a test module: ``sim`` is one 3-member simulator per module,
and ``_no_faults`` (autouse) clears the faults a test injected into it."""

import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from . import Simulator


@pytest.fixture(scope="module")
def sim():
    with Simulator(members=3) as simulator:
        yield simulator


@pytest.fixture(autouse=True)
def _no_faults(request):
    yield
    if "sim" in request.fixturenames:
        request.getfixturevalue("sim").clear_faults()


SERVE = Path(__file__).resolve().parent / "serve.py"
# the keys of the JSON line serve.py prints when it is ready
SERVE_KEYS = {"members", "ca_path", "token_id", "token_secret", "log", "bao_addr",
              "bao_mount", "bao_token", "pbs_members", "pbs_token_id", "pbs_token_secret"}


@contextmanager
def serve_process(cwd, log, *extra):
    """``serve.py --log <log> [extra ...]`` in a subprocess (text pipes); on the way out it
    gets SIGTERM and must exit 0."""
    proc = subprocess.Popen([sys.executable, str(SERVE), "--log", str(log), *extra], cwd=str(cwd),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0


def ok(sim, method, path, form=None, token=None):
    """The ``data`` of a request the simulated PVE answers 200 (the unit tests' shorthand)."""
    status, body = sim.request(method, path, form, token=token)
    assert status == 200, (method, path, status, body)
    return body["data"]


def refused(sim, method, path, form=None, token=None):
    """(status, message, errors) of a request PVE refuses."""
    status, body = sim.request(method, path, form, token=token)
    assert status != 200, (method, path, body)
    return status, body.get("message"), body.get("errors")
