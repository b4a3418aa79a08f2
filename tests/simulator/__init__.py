"""Proxmox VE API simulator for the homeflare.proxmox tests.

    import sys; sys.path.insert(0, "<repo>/tests")
    from simulator import Simulator

    with Simulator(members=3) as sim:
        status, body = sim.request("GET", "/version")

See docs/simulator.md.
"""

from .server import Simulator

__all__ = ["Simulator"]
