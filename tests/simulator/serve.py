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

``--seed FILE`` (repeatable) serves the rehearsal twin instead (twin.py, docs/rehearsal.md): FILE is what
``homeflare.proxmox.export`` returned (its result, its ``objects``, or ``cluster_objects:``/``backup_server_objects:``
as examples/export.yml writes it; YAML or JSON). The cluster has exactly the nodes the objects name (one member per
node unless ``--members``), holds only what every PVE holds plus those objects, and a backup server export
(``pbs_*`` modules) seeds the PBS server. Secret placeholders get dummy values. Seeding needs ansible-core (the
collection's own declare writes the objects) and takes a few seconds; the request log starts empty after it. The
line adds ``"root_password"`` and ``"twin"``: ``{"nodes", "seeded": {module: count}, "unseeded": [{"module", "object",
"reason"}], "ways": {module: "declare"|"module"|"state"}, "templated": [...], "seconds"}``; each unseeded object is
also printed to stderr.
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
    from simulator.twin import seeded_simulator  # noqa: E402
else:
    from . import Simulator  # noqa: E402
    from .twin import seeded_simulator  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Proxmox VE API simulator (and PBS, OpenBao); prints one JSON line once it listens",
        epilog="docs/simulator.md; the rehearsal twin (--seed): docs/rehearsal.md")
    parser.add_argument("--log", help="request log file (JSON lines); default: a temp file")
    parser.add_argument("--members", type=int, default=None,
                        help="cluster members (default 3; with --seed one per node the export names)")
    parser.add_argument("--auth-delay", type=float, default=0.0,
                        help="seconds to delay every 401 (PVE: 3; default 0)")
    parser.add_argument("--fresh", action="store_true",
                        help="standalone nodes as the installer leaves them, each answering for itself")
    parser.add_argument("--seed", action="append", metavar="FILE", default=None,
                        help="the rehearsal twin: hold the objects of this homeflare.proxmox.export file (YAML or "
                             "JSON; repeat for a cluster and a backup server export), on exactly its nodes and "
                             "nothing of the demo")
    args = parser.parse_args(argv)
    if args.seed and args.fresh:
        parser.error("--seed and --fresh exclude each other")

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())

    log_path = args.log
    if not log_path:  # a temp file that outlives the process, so it can be read afterwards
        fd, log_path = tempfile.mkstemp(prefix="pve-sim-", suffix=".log")
        os.close(fd)
    report = None
    if args.seed:
        try:
            sim, report = seeded_simulator(args.seed, log_path=log_path, unauthorized_delay=args.auth_delay,
                                           members=args.members)
        except (OSError, ValueError) as exc:  # an unreadable file, or not an export: said in one line
            parser.error("--seed: %s" % exc)
        for item in report["unseeded"]:
            print("twin: not seeded: %(module)s %(object)s: %(reason)s" % item, file=sys.stderr, flush=True)
    else:
        sim = Simulator(members=args.members or 3, log_path=log_path,
                        unauthorized_delay=args.auth_delay, fresh=args.fresh)
        sim.start()
    try:
        contract = {"members": sim.members, "ca_path": sim.ca_path,
                    "token_id": sim.token_id, "token_secret": sim.token_secret,
                    "log": sim.log_path, "bao_addr": sim.bao_addr,
                    "bao_mount": sim.bao_mount, "bao_token": sim.bao_token,
                    "pbs_members": sim.pbs_members, "pbs_token_id": sim.pbs_token_id,
                    "pbs_token_secret": sim.pbs_token_secret}
        if args.fresh or report is not None:
            contract["root_password"] = sim.root_password
        if report is not None:
            contract["twin"] = report
        print(json.dumps(contract), flush=True)
        while not done.wait(0.5):
            pass
    finally:
        sim.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
