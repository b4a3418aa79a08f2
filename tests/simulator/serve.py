"""Run the simulator by hand: ``python3 tests/simulator/serve.py [--log FILE]``.

Prints exactly one JSON line once every member listens::

    {"members": ["127.0.0.1:PORT", ...], "ca_path": "...", "token_id": "root@pam!sim",
     "token_secret": "...", "log": "FILE", "bao_addr": "https://127.0.0.1:PORT",
     "bao_mount": "proxmox-sim", "bao_token": "s....", "pbs_members": ["127.0.0.1:PORT"],
     "pbs_token_id": "root@pam!sim", "pbs_token_secret": "..."}

and serves until SIGTERM/SIGINT (exit status 0).

``--fresh`` serves the members as three freshly installed nodes instead: each address answers for its own node
only (no cluster, the enterprise repository enabled, no subscription, the installer's self-signed certificate), and
the line adds ``"root_password"``, root@pam's password on every node (what creating and joining a cluster take).
"""

import argparse
import json
import os
import signal
import sys
import tempfile
import threading

_HERE = os.path.dirname(os.path.abspath(__file__))
if __package__ in (None, ""):
    # run as a script: import the package from its parent (tests/), and keep this
    # directory off sys.path so its module names cannot shadow anything
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.getcwd()) != _HERE]
    sys.path.insert(0, os.path.dirname(_HERE))
    from simulator import Simulator  # noqa: E402
else:
    from . import Simulator  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description="Proxmox VE API simulator")
    parser.add_argument("--log", help="request log file (JSON lines); default: a temp file")
    parser.add_argument("--members", type=int, default=3, help="cluster members (default 3)")
    parser.add_argument("--auth-delay", type=float, default=0.0,
                        help="seconds to delay every 401 (PVE: 3; default 0)")
    parser.add_argument("--fresh", action="store_true",
                        help="standalone nodes as the installer leaves them, each answering for itself")
    args = parser.parse_args(argv)

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())

    log_path = args.log
    if not log_path:  # a temp file that outlives the process, so it can be read afterwards
        fd, log_path = tempfile.mkstemp(prefix="pve-sim-", suffix=".log")
        os.close(fd)
    sim = Simulator(members=args.members, log_path=log_path,
                    unauthorized_delay=args.auth_delay, fresh=args.fresh)
    sim.start()
    try:
        contract = {"members": sim.members, "ca_path": sim.ca_path,
                    "token_id": sim.token_id, "token_secret": sim.token_secret,
                    "log": sim.log_path, "bao_addr": sim.bao_addr,
                    "bao_mount": sim.bao_mount, "bao_token": sim.bao_token,
                    "pbs_members": sim.pbs_members, "pbs_token_id": sim.pbs_token_id,
                    "pbs_token_secret": sim.pbs_token_secret}
        if args.fresh:
            contract["root_password"] = sim.root_password
        print(json.dumps(contract), flush=True)
        while not done.wait(0.5):
            pass
    finally:
        sim.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
