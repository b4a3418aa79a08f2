"""Ceph monitors (pve-manager PVE/API2/Ceph/MON.pm listmon, createmon, destroymon; PVE/Ceph/Services.pm
get_services_info).

State (in ``state.ceph``, see handlers/ceph.py): ``"mons"``: id -> {"host", "addr"?: the monitor's IP};
a seeded monitor without ``addr`` sits on its node's address, ``10.0.0.<nodeid>``. Knob
``"public_network"`` (a CIDR, absent by default): a new monitor's address must lie in it.
A monitor stopped with ``/ceph/stop`` (``"stopped"``, handlers/ceph_osd.py) drops out of the quorum.

* The refusals come before the fork: an address in use (a second monitor on a node without
  ``mon-address`` hits its node's address), an existing id; destroy refuses an unknown id, a monitor
  whose directory is on another node, the last monitor.
* The first monitor of a cluster also makes the node's manager, as createmon does.
* The refusals are MON.pm's ($find_mon_ips, $assert_mon_prerequisites, $assert_mon_can_remove); inside
  the ceph.conf lock they are re-asserted and surface unchanged (cfs_lock_file re-raises a code error).
* The task log carries monmaptool's own first line (src/tools/monmaptool.cc, via run_command) and, for
  the first monitor, createmon's prints.
"""

import ipaddress

from ...errors import die
from ...formats import split_list
from .base import route
from .ceph import fork
from .ceph_osd import CEPH_VERSION, CEPH_VERSION_LONG, ceph_services


def node_address(state, node):
    """The node's cluster address (remote_node_ip): 10.0.0.<nodeid>."""
    return f"10.0.0.{state.nodes.get(node, {}).get('nodeid', len(state.nodes) + 1)}"


def _mon_addr(state, mon):
    return mon.get("addr") or node_address(state, mon["host"])


def _ranks(state, ceph):
    """The monmap's ranks: monitors ordered by address."""
    order = sorted(ceph["mons"], key=lambda mon_id: ipaddress.ip_address(_mon_addr(state, ceph["mons"][mon_id])))
    return {mon_id: rank for rank, mon_id in enumerate(order)}


@route("GET", "/nodes/{node}/ceph/mon")
def mon_index(ctx, p):
    """MON.pm listmon: the broadcast services merged with `mon metadata` and `quorum_status`."""
    state = ctx.state
    ceph = ceph_services(state)
    ranks = _ranks(state, ceph)
    rows = []
    for mon_id, mon in sorted(ceph["mons"].items()):
        row = {"name": mon_id, "host": mon["host"], "service": 1, "direxists": 1, "state": "stopped",
               "ceph_version": CEPH_VERSION_LONG, "ceph_version_short": CEPH_VERSION,
               "rank": ranks[mon_id], "addr": f"{_mon_addr(state, mon)}:6789/0"}
        if f"mon.{mon_id}" not in ceph.get("stopped", ()):
            row.update(quorum=1, state="running")
        rows.append(row)
    return rows


def _find_mon_ips(state, ceph, node, mon_address):
    """MON.pm $find_mon_ips: the addresses given, else the node's; inside the public network if set."""
    ips = list(dict.fromkeys(split_list(mon_address)))
    net = ceph.get("public_network")
    if not net:
        return ips or [node_address(state, node)]
    network = ipaddress.ip_network(net, strict=False)
    if not ips:
        ip = node_address(state, node)
        if ipaddress.ip_address(ip) not in network:
            raise die(f"No active IP found for the requested ceph public network '{net}' on node '{node}'")
        return [ip]
    for ip in ips:
        if ipaddress.ip_address(ip) not in network:
            raise die(f"Specified monitor IP '{ip}' not configured or up on {node}!")
    return ips


def _assert_can_create(state, ceph, mon_id, ips):
    """MON.pm $assert_mon_prerequisites."""
    used = {ipaddress.ip_address(_mon_addr(state, mon)) for mon in ceph["mons"].values()}
    for ip in ips:
        canonical = ipaddress.ip_address(ip)
        if canonical in used:
            raise die(f"monitor address '{canonical}' already in use")
    if mon_id in ceph["mons"]:
        raise die(f"monitor '{mon_id}' already exists")


@route("POST", "/nodes/{node}/ceph/mon/{monid}")
def mon_create(ctx, p):
    """MON.pm createmon (task cephcreatemon, id mon.<id>)."""
    state = ctx.state
    ceph = ceph_services(state)  # check_ceph_installed('ceph_mon') says the same as check_ceph_inited
    node = p["node"]
    mon_id = p.get("monid") or node
    ips = _find_mon_ips(state, ceph, node, p.get("mon-address"))
    _assert_can_create(state, ceph, mon_id, ips)
    first = not ceph["mons"]

    def work(log):
        _assert_can_create(state, ceph, mon_id, ips)
        if first:
            log.append("creating new monitor keyring")
        log.append("monmaptool: monmap file /tmp/monmap")
        ceph["mons"][mon_id] = {"host": node, "addr": ips[0]}
        if first:
            log += ["created the first monitor, assume it's safe to disable insecure global ID reclaim for new "
                    "setup", "Configuring keyring for ceph-crash.service"]
        if first and node not in ceph["mgrs"]:  # MGR.pm createmgr, Services.pm create_mgr
            log.append(f"creating manager directory '/var/lib/ceph/mgr/ceph-{node}'")
            ceph["mgrs"][node] = {"host": node}

    return fork(ctx, node, "cephcreatemon", f"mon.{mon_id}", work)


def _assert_can_remove(ceph, node, mon_id):
    """MON.pm $assert_mon_can_remove."""
    mon = ceph["mons"].get(mon_id)
    if mon is None:
        raise die(f"no such monitor id '{mon_id}'")
    if mon["host"] != node:
        raise die(f"monitor filesystem '/var/lib/ceph/mon/ceph-{mon_id}' does not exist on this node")
    if len(ceph["mons"]) <= 1:
        raise die("can't remove last monitor")


@route("DELETE", "/nodes/{node}/ceph/mon/{monid}")
def mon_delete(ctx, p):
    """MON.pm destroymon (task cephdestroymon, id mon.<id>): `mon remove`, mon_host and section dropped."""
    ceph = ceph_services(ctx.state)
    node, mon_id = p["node"], p["monid"]
    _assert_can_remove(ceph, node, mon_id)

    def work(log):
        _assert_can_remove(ceph, node, mon_id)
        del ceph["mons"][mon_id]
        ceph.get("stopped", set()).discard(f"mon.{mon_id}")

    return fork(ctx, node, "cephdestroymon", f"mon.{mon_id}", work)
