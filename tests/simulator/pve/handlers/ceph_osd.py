"""Ceph OSDs, the Ceph service stop/start and a node's disk list (pve-manager PVE/API2/Ceph/OSD.pm,
PVE/API2/Ceph.pm start/stop, PVE/Ceph/Services.pm ceph_service_cmd; pve-storage PVE/API2/Disks.pm list,
PVE/Diskmanage.pm get_disks / verify_blockdev_path).

State (in ``state.ceph``, see handlers/ceph.py, and ``state.disks``, see handlers/zfs.py):

* ``"osds"``: id -> {"id", "host", "device_class", "in" (0/1), "up" (0/1), "dev"?: the /dev/sdX it was
  created on (seeded OSDs have none)}.
* ``"crush_hosts"``: the host buckets in CRUSH order; a host stays after its last OSD is destroyed, as
  ``osd crush remove`` leaves the bucket.
* ``"stopped"``: the mon/mgr/mds services (``"mon.node1"``) stopped with ``/ceph/stop``.
* ``"service_pending"``: [{"due", "service", "action"}]: a stop/start lands ``apply_delay``
  seconds after its task ended (the daemon takes a while to go down or boot); every OSD/monitor read
  applies what came due.
* ``disks[node][dev]["used"]``: an OSD turns its disk into an LVM PV ("LVM"); destroy leaves the PV
  unless ``cleanup`` (``ceph-volume lvm zap --destroy`` + pvremove), so the disk reads used, osdid -1.
  A ZFS pool's disk reads "ZFS"; disks may carry "type" ("ssd"/"hdd"), "model", "serial", "wwn", "gpt".

* createosd / destroyosd have no permissions block: only root@pam (a ticket) passes, every API token
  (root@pam's too) gets 403.
* destroyosd checks that the OSD is in this node's CRUSH host first, so an unknown id reads
  "does not belong" (a die without newline: Perl appends `` at .../OSD.pm line 1008.``, the line in
  pve-manager 14a22df3). Then "in", then "up".
* Task logs: OSD.pm's prints, Diskmanage wipe_blockdev's, and the last line ceph-volume prints
  (``--> ceph-volume lvm create successful for: <dev>``, ``--> Zapping successful for OSD: <id>``;
  ceph-volume's own output, listed as unverified in docs/simulator.md).
* ``state.task_outcomes[type]`` with an error text makes the task die before it changes anything.
"""

import re
import time

from ...errors import die, die_at, param_exc
from .base import route
from .ceph import checked_ceph, fork
from .zfs import resolve

CEPH_VERSION = "19.2.3"
CEPH_RELEASE = "squid"
CEPH_VERSION_LONG = f"ceph version {CEPH_VERSION} (c92aebb279828e9c3c1f5d24613efca272649e62) {CEPH_RELEASE} (stable)"
# Ceph's OSDMap::get_flag_string order; the last four are always set on a current cluster
FLAG_ORDER = ("pauserd", "pausewr", "noup", "nodown", "noout", "noin", "nobackfill", "norebalance",
              "norecover", "noscrub", "nodeep-scrub", "notieragent", "nosnaptrim")
ALWAYS_FLAGS = ("sortbitwise", "recovery_deletes", "purged_snapdirs", "pglog_hardlimit")
SERVICE_RE = re.compile(r"^(mon|osd|mds|mgr|radosgw)(?:\.([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?))?$")


# -- services and their due state changes ---------------------------------------------------------

def ceph_services(state, configured=False):
    """``checked_ceph`` (check_ceph_inited), then the service stops/starts that have come due."""
    ceph = checked_ceph(state, configured=configured)
    now = time.time()
    pending = ceph.get("service_pending", [])
    for item in [item for item in pending if item["due"] <= now]:
        pending.remove(item)
        _apply_service(ceph, item["service"], item["action"])
    return ceph


def _apply_service(ceph, service, action):
    kind, _sep, ident = service.partition(".")
    if kind == "osd":
        osd = ceph["osds"].get(int(ident))
        if osd is not None:
            osd["up"] = int(action == "start" and "noup" not in ceph["flags"])
    elif action == "stop":
        ceph.setdefault("stopped", set()).add(service)
    else:
        ceph.setdefault("stopped", set()).discard(service)


def _node_services(ceph, node, kind=None):
    """The daemons of this node (what ceph.target / ceph-<kind>.target reach)."""
    units = [f"osd.{osd_id}" for osd_id, osd in sorted(ceph["osds"].items()) if osd["host"] == node]
    for key, name in (("mons", "mon"), ("mgrs", "mgr"), ("mdss", "mds")):
        units += [f"{name}.{ident}" for ident, info in ceph.get(key, {}).items() if info["host"] == node]
    return [unit for unit in units if kind is None or unit.startswith(kind + ".")]


def _daemon_host(ceph, kind, ident):
    if kind == "osd":
        osd = ceph["osds"].get(int(ident)) if ident.isdigit() else None
        return osd and osd["host"]
    table = {"mon": "mons", "mgr": "mgrs", "mds": "mdss"}.get(kind)
    info = ceph.get(table, {}).get(ident) if table else None
    return info and info["host"]


def _service_task(ctx, p, action):
    """Ceph.pm stop/start (task srvstop/srvstart, id the service or 'ceph'): systemctl on this node."""
    state = ctx.state
    ceph = ceph_services(state)
    node, service = p["node"], p.get("service")
    typ = {"stop": "srvstop", "start": "srvstart"}[action]

    def work(log):
        _forced_failure(state, typ)
        match = SERVICE_RE.match(service or "")
        if match and match.group(2):
            kind, ident = match.group(1), match.group(2)
            unit = f"ceph-{kind}@{ident}"
            # systemd stops an instance that is not running without complaint; starting one whose
            # data directory is on another node fails in its pre-start script (run_command's words,
            # pve-common PVE/Cmd.pm; systemctl's exit code 1 is assumed)
            if _daemon_host(ceph, kind, ident) != node:
                if action == "start":
                    raise die(f"command '/bin/systemctl start {unit}' failed: exit code 1")
                return
            targets = [f"{kind}.{ident}"]
        else:
            kind = match.group(1) if match else None
            targets = _node_services(ceph, node, kind)
        delay = ceph.get("apply_delay") or 0
        pending = ceph.setdefault("service_pending", [])
        for target in targets:
            if delay:
                pending.append({"due": time.time() + delay, "service": target, "action": action})
            else:
                _apply_service(ceph, target, action)

    return fork(ctx, node, typ, service or "ceph", work)


@route("POST", "/nodes/{node}/ceph/stop")
def service_stop(ctx, p):
    """Ceph.pm stop."""
    return _service_task(ctx, p, "stop")


@route("POST", "/nodes/{node}/ceph/start")
def service_start(ctx, p):
    """Ceph.pm start."""
    return _service_task(ctx, p, "start")


def _forced_failure(state, typ):
    """``state.task_outcomes[typ]`` holding an error: the work dies first, so nothing changes."""
    forced = state.task_outcomes.get(typ)
    if forced and forced != "OK" and not forced.startswith("WARNINGS"):
        del state.task_outcomes[typ]
        raise die(forced)


# -- disks (Diskmanage.pm get_disks) -------------------------------------------------------------

def _zfs_pool_of(state, node, dev):
    for name, pool in state.zfs_pools.get(node, {}).items():
        if dev in pool["devices"]:
            return name
    return None


def _osds_on(state, node, dev):
    ceph = state.ceph or {}
    return [osd_id for osd_id, osd in sorted(ceph.get("osds", {}).items())
            if osd["host"] == node and osd.get("dev") == dev]


def disk_usage(state, node, dev):
    """determine_usage of the whole disk: an LVM PV (an OSD's too) before a ZFS pool's partitions."""
    used = state.disks.get(node, {}).get(dev, {}).get("used")
    if used:
        return used
    if _zfs_pool_of(state, node, dev):
        return "ZFS"
    return None


def _disk_rows(state, node, dev, info, skipsmart, include_partitions):
    in_pool = _zfs_pool_of(state, node, dev) is not None
    dtype = info.get("type", "ssd")
    model = info.get("model", "SIM_SSD")
    by_id = info["by_id"]
    serial = info.get("serial") or by_id.rsplit("/", 1)[-1].removeprefix(f"ata-{model}_")
    gpt = 1 if in_pool else int(info.get("gpt", 0))
    row = {"devpath": dev, "by_id_link": by_id, "size": info["size"], "type": dtype, "model": model,
           "serial": serial, "vendor": "ATA", "wwn": info.get("wwn", "unknown"), "gpt": gpt,
           "rpm": 0 if dtype == "ssd" else 7200,
           "health": "UNKNOWN" if skipsmart else "PASSED",
           "wearout": "N/A" if skipsmart or dtype != "ssd" else 100}
    used = disk_usage(state, node, dev)
    osds = _osds_on(state, node, dev)
    row["osdid"] = osds[0] if osds else -1
    row["osdid-list"] = osds or None
    if osds:
        row.update(bluestore=1, osdencrypted=0)
    parts = []
    if in_pool:  # zpool create partitions the disk: data on 1, an 8 MiB reserve on 9
        reserve = 8 * 1024 ** 2
        parts = [(f"{dev}1", info["size"] - 2 * reserve, "ZFS"), (f"{dev}9", reserve, "ZFS reserved")]
        if include_partitions:
            used = "partitions"
    if used:
        row["used"] = used
    rows = [row]
    if include_partitions:
        rows += [{"devpath": path, "parent": dev, "gpt": gpt, "type": "partition", "size": size, "used": pused,
                  "osdid": -1, "osdid-list": None} for path, size, pused in parts]
    return rows


@route("GET", "/nodes/{node}/disks/list")
def disk_list(ctx, p):
    """Disks.pm list: get_disks sorted by name, ``type`` unused / journal_disks filtered."""
    state, node = ctx.state, p["node"]
    rows = []
    for dev, info in state.disks.get(node, {}).items():
        rows += _disk_rows(state, node, dev, info, p.get("skipsmart"), p.get("include-partitions"))
    res = []
    for row in sorted(rows, key=lambda r: r["devpath"]):
        used = row.get("used")
        if p.get("type") == "unused" and used:
            continue
        if p.get("type") == "journal_disks" and (row["osdid"] >= 0 or (
                used and not ((used == "partitions" and row["gpt"]) or used == "LVM"))):
            continue
        res.append(row)
    return res


# -- OSDs -----------------------------------------------------------------------------------------

def _no_such_osd(ceph, osd_id):
    """OSD.pm $get_osd_status with an id: "no such OSD '$osdid'"."""
    osd = ceph["osds"].get(osd_id)
    if osd is None:
        raise die(f"no such OSD '{osd_id}'")
    return osd


def _crush_hosts(ceph):
    hosts = ceph.setdefault("crush_hosts", [])
    for _osd_id, osd in sorted(ceph["osds"].items()):
        if osd["host"] not in hosts:
            hosts.append(osd["host"])
    return hosts


def _osd_size(state, osd):
    disk = state.disks.get(osd["host"], {}).get(osd.get("dev"), {})
    return disk.get("size") or 512 * 1024 ** 3


def _weight(size):
    return round(size / 1024 ** 4, 5)  # CRUSH weight: TiB


def _osd_node(state, osd_id, osd):
    """One `osd df tree` leaf as OSD.pm index rebuilds it."""
    size = _osd_size(state, osd)
    return {"id": osd_id, "name": f"osd.{osd_id}", "type": "osd", "status": "up" if osd["up"] else "down",
            "crush_weight": _weight(size), "reweight": 1 if osd["in"] else 0, "device_class": osd["device_class"],
            "pgs": 0, "in": osd["in"], "total_space": size, "bytes_used": 0, "percent_used": 0.0,
            "commit_latency_ms": 0, "apply_latency_ms": 0, "osdtype": "bluestore",
            "blfsdev": f"/dev/dm-{osd_id}", "dbdev": None, "waldev": None,
            "ceph_version": CEPH_VERSION_LONG, "ceph_version_short": CEPH_VERSION,
            "host": osd["host"], "leaf": 1}


@route("GET", "/nodes/{node}/ceph/osd")
def osd_index(ctx, p):
    """OSD.pm index: the CRUSH tree (root default -> hosts -> OSDs) and the osd dump flags."""
    state = ctx.state
    ceph = ceph_services(state)
    hosts = []
    for index, host in enumerate(_crush_hosts(ceph)):
        children = [_osd_node(state, osd_id, osd) for osd_id, osd in sorted(ceph["osds"].items())
                    if osd["host"] == host]
        bucket = {"id": -2 - index, "name": host, "type": "host", "reweight": -1,
                  "crush_weight": round(sum(c["crush_weight"] for c in children), 5), "pgs": 0,
                  "version": CEPH_VERSION_LONG, "leaf": 0}
        if children:
            bucket["children"] = children
        hosts.append(bucket)
    root = {"id": -1, "name": "default", "type": "root", "reweight": -1,
            "crush_weight": round(sum(h["crush_weight"] for h in hosts), 5), "pgs": 0, "leaf": 0}
    if hosts:
        root["children"] = hosts
    flags = [flag for flag in FLAG_ORDER if flag in ceph["flags"]] + list(ALWAYS_FLAGS)
    return {"root": {"leaf": 0, "children": [root]}, "flags": ",".join(flags)}


@route("POST", "/nodes/{node}/ceph/osd")
def osd_create(ctx, p):
    """OSD.pm createosd (task cephcreateosd, id the device's name): ceph-volume lvm create."""
    state = ctx.state
    ceph = ceph_services(state)
    node = p["node"]
    devs = {}
    for typ in ("dev", "db_dev", "wal_dev"):
        if not p.get(typ):
            continue
        dev = resolve(state, node, p[typ])
        if dev in devs.values():  # OSD.pm createosd
            raise param_exc({typ: f"cannot chose '{dev}' for more than one type."})
        devs[typ] = dev

    def check_disks():
        """OSD.pm $test_disk_requirements, before the fork and again inside it."""
        if disk_usage(state, node, devs["dev"]):
            raise die(f"device '{devs['dev']}' is already in use")
        for typ in ("db_dev", "wal_dev"):
            usage = disk_usage(state, node, devs[typ]) if typ in devs else None
            if usage and usage not in ("LVM", "partitions"):
                raise die(f"device '{devs[typ]}' is already in use and has no LVM on it")

    check_disks()
    dev = devs["dev"]

    def work(log):
        _forced_failure(state, "cephcreateosd")
        check_disks()
        disk = state.disks[node][dev]
        log.append(f"create OSD on {dev} (bluestore)")
        log.append(f"wiping block device {dev}")  # Diskmanage wipe_blockdev
        osd_id = next(i for i in range(len(ceph["osds"]) + 1) if i not in ceph["osds"])  # `osd new`: lowest free
        ceph["osds"][osd_id] = {"id": osd_id, "host": node, "dev": dev,
                                "device_class": p.get("crush-device-class") or disk.get("type", "ssd"),
                                "in": int("noin" not in ceph["flags"]), "up": int("noup" not in ceph["flags"])}
        _crush_hosts(ceph)
        disk["used"] = "LVM"
        log.append(f"--> ceph-volume lvm create successful for: {dev}")

    return fork(ctx, node, "cephcreateosd", dev.rsplit("/", 1)[-1], work)


@route("GET", "/nodes/{node}/ceph/osd/{osdid}")
def osd_children(ctx, p):
    """OSD.pm osdindex: static, no check that the OSD exists."""
    return [{"name": "metadata"}, {"name": "lv-info"}]


@route("GET", "/nodes/{node}/ceph/osd/{osdid}/metadata")
def osd_metadata(ctx, p):
    """OSD.pm osddetails: `osd metadata`, then systemctl show for pid and memory."""
    state = ctx.state
    ceph = ceph_services(state)
    osd_id, node = p["osdid"], p["node"]
    osd = ceph["osds"].get(osd_id)
    if osd is None:  # Ceph's `osd metadata` refusal (OSDMonitor.cc) behind PVE::RADOS
        raise die(f"error with 'osd metadata': mon_cmd failed - osd.{osd_id} does not exist")
    if osd["host"] != node:  # OSD.pm osddetails
        raise die(f"OSD '{osd_id}' does not exists on host '{node}'")
    addr = f"10.0.0.{state.nodes.get(node, {}).get('nodeid', 1)}"
    ports = 6800 + 4 * osd_id

    def vec(port):
        return f"[v2:{addr}:{port}/{1000 + osd_id},v1:{addr}:{port + 1}/{1000 + osd_id}]"

    dev = osd.get("dev") or f"/dev/nvme{osd_id}n1"
    return {"osd": {"hostname": node, "id": osd_id, "mem_usage": 1024 ** 3 if osd["up"] else 0,
                    "osd_data": f"/var/lib/ceph/osd/ceph-{osd_id}", "osd_objectstore": "bluestore",
                    "pid": 2000 + osd_id if osd["up"] else 0, "version": f"{CEPH_VERSION} ({CEPH_RELEASE})",
                    "front_addr": vec(ports), "back_addr": vec(ports + 2), "hb_front_addr": vec(ports + 4),
                    "hb_back_addr": vec(ports + 6)},
            # PVE names the disk key physical_device although its schema says devices
            "devices": [{"dev_node": f"/dev/dm-{osd_id}", "physical_device": dev.rsplit("/", 1)[-1],
                         "size": _osd_size(state, osd), "support_discard": 1,
                         "type": state.disks.get(node, {}).get(osd.get("dev"), {}).get("type", "ssd"),
                         "device": "block"}]}


@route("DELETE", "/nodes/{node}/ceph/osd/{osdid}")
def osd_destroy(ctx, p):
    """OSD.pm destroyosd (task cephdestroyosd, id osd.N): crush remove, auth del, osd rm, zap."""
    state = ctx.state
    ceph = ceph_services(state)
    osd_id, node = p["osdid"], p["node"]
    osd = ceph["osds"].get(osd_id)
    if osd is None or osd["host"] != node:  # osd_belongs_to_node; the die has no newline: Perl's suffix
        raise die_at(f"OSD osd.{osd_id} does not belong to node {node}!", "PVE/API2/Ceph/OSD.pm", 1008)
    if osd["in"]:
        raise die("osd is in use (in == 1)")
    if osd["up"]:
        raise die("osd is still running (up == 1)")
    section = f"osd.{osd_id}"

    def work(log):
        _forced_failure(state, "cephdestroyosd")
        log += [f"destroy OSD {section}", f"Remove {section} from the CRUSH map",
                f"Remove the {section} authentication key.", f"Remove OSD {section}",
                f"Remove {section} mclock max capacity iops settings from config"]
        del ceph["osds"][osd_id]
        disk = state.disks.get(node, {}).get(osd.get("dev"))
        if disk is not None:  # Tools.pm ceph_volume_zap: ceph-volume lvm zap --osd-id N [--destroy]
            log.append(f"--> Zapping successful for OSD: {osd_id}")
            if p.get("cleanup"):  # zap --destroy removes the VG, pvremove the PV: the disk is free
                disk["used"] = None

    return fork(ctx, node, "cephdestroyosd", section, work)


def _in_out(ctx, p, value):
    ceph = ceph_services(ctx.state)
    _no_such_osd(ceph, p["osdid"])["in"] = value
    return None


@route("POST", "/nodes/{node}/ceph/osd/{osdid}/in")
def osd_in(ctx, p):
    """OSD.pm in: synchronous `osd in`."""
    return _in_out(ctx, p, 1)


@route("POST", "/nodes/{node}/ceph/osd/{osdid}/out")
def osd_out(ctx, p):
    """OSD.pm out: synchronous `osd out`."""
    return _in_out(ctx, p, 0)
