"""ZFS pools of a node (pve-storage src/PVE/API2/Disks/ZFS.pm, PVE::Diskmanage).

``state.zfs_pools``: node -> {pool name -> {"raidlevel", "devices" (the by-id paths ZFS was given, in
the order sent), "ashift", "compression", "draid-config"?, "state", "errors", "size", "alloc", "free",
"frag", "dedup"}}.
``state.disks`` (seeded by ``zfs_init``): node -> {"/dev/sdX": {"by_id": "/dev/disk/by-id/...",
"size": bytes, "used": None or what else holds it, e.g. "LVM"}}; a disk in a pool counts as used.

* Devices are resolved the way ``verify_blockdev_path`` does (a by-id link names its /dev/sdX) and
  refused while in use (``device '/dev/sdb' is already in use``) before the task starts; ZFS is
  then given the by-id link, so ``zpool status -P`` shows ``<by-id>-part1`` leaves.
* The sanity checks (disk counts, dRAID minimum, an existing pool) die before the fork; ``zpool
  create`` never runs. ``add_storage`` goes through API2::Storage::Config create_or_update: a dry run
  before the fork refuses a storage of that ID that already covers the node (or all nodes) or has
  another type/pool; the task then adds a ``zfspool`` storage limited to the node, or adds the node to
  an existing one's ``nodes``.
* A missing pool: ``zpool status`` / ``zpool destroy`` fail, so the read or the task dies with
  run_command's words (that zpool exits 1 for a missing pool is assumed).
"""

from ...errors import die
from ...formats import split_list
from ..state import register_slice
from .base import route
from .guests import run_task

# node -> {pool name -> {"raidlevel", "devices" (as created, in order), "ashift", "compression",
# "draid-config"?, "state", "errors", ...}}.
register_slice("zfs_pools", dict, node_local=True)
# The nodes' disks (seeded by zfs_init): node -> {"/dev/sdX": {"by_id", "size", "used"}}; no request
# changes them, so they are not a file.
register_slice("disks", dict, snapshot=False, node_local=True)

MIN_DISKS = {"single": 1, "mirror": 2, "raid10": 4, "raidz": 3, "raidz2": 4, "raidz3": 5,
             "draid": 3, "draid2": 4, "draid3": 5}
DISK_SIZE = 512 * 1024 ** 3


def zfs_init(state, nodes=("node1", "node2", "node3"), count=4):
    """Test helper: ``count`` free 512 GiB disks per node, /dev/sdb.. with /dev/disk/by-id/ata-SIM_<node>_<n>."""
    with state.lock:
        disks = {}
        for node in nodes:
            disks[node] = {f"/dev/sd{chr(ord('b') + i)}": {"by_id": f"/dev/disk/by-id/ata-SIM_SSD_{node}_{i}",
                                                           "size": DISK_SIZE, "used": None}
                           for i in range(count)}
        state.disks = disks
        state.zfs_pools = {}
    return disks


def _disks(state, node):
    return state.disks.get(node, {})


def resolve(state, node, path):
    """PVE::Diskmanage::verify_blockdev_path: a by-id link resolves to its /dev/sdX. abs_path resolves a
    relative name against the daemon's cwd, /; it fails only when a parent directory is missing, which
    the simulator assumes for an absolute path outside /dev."""
    for dev, info in _disks(state, node).items():
        if path in (dev, info["by_id"]):
            return dev
    if not path.startswith("/"):
        raise die(f"got unusual device path '/{path}'")
    if not path.startswith("/dev/"):
        raise die(f"failed to get absolute path to {path}")
    raise die("not a valid block device")  # assert_blockdev


def _in_use(state, node, dev):
    if _disks(state, node)[dev]["used"]:
        return True
    return any(dev in pool["devices"] for pool in state.zfs_pools.get(node, {}).values())


def _vdevs(pool):
    """The config tree `zpool status -P` prints: the pool, its raid vdevs, the leaves."""
    by_id = [f"{dev}-part1" for dev in pool["by_id"]]
    leaf = [{"name": name, "state": "ONLINE", "read": 0, "write": 0, "cksum": 0, "msg": "", "leaf": 1}
            for name in by_id]
    level = pool["raidlevel"]
    if level == "single":
        groups = leaf
    elif level == "raid10":
        groups = [{"name": f"mirror-{i // 2}", "state": "ONLINE", "read": 0, "write": 0, "cksum": 0, "msg": "",
                   "leaf": 0, "children": leaf[i:i + 2]} for i in range(0, len(leaf), 2)]
    else:
        label = {"raidz": "raidz1", "draid": "draid1"}.get(level, level)
        groups = [{"name": f"{label}-0", "state": "ONLINE", "read": 0, "write": 0, "cksum": 0, "msg": "",
                   "leaf": 0, "children": leaf}]
    return groups


@route("GET", "/nodes/{node}/disks/zfs")
def pool_index(ctx, p):
    """ZFS.pm index (get_pool_data: `zpool list -HpPLo name,size,alloc,free,frag,dedup,health`)."""
    return [{"name": name, "size": pool["size"], "alloc": pool["alloc"], "free": pool["free"],
             "frag": pool["frag"], "dedup": pool["dedup"], "health": pool["state"]}
            for name, pool in sorted(ctx.state.zfs_pools.get(p["node"], {}).items())]


@route("GET", "/nodes/{node}/disks/zfs/{name}")
def pool_detail(ctx, p):
    """ZFS.pm detail: `zpool status -P <name>` parsed into a tree."""
    name = p["name"]
    pool = ctx.state.zfs_pools.get(p["node"], {}).get(name)
    if pool is None:  # run_command's "command '$cmdstr' failed: $err" (pve-common PVE/Cmd.pm)
        raise die(f"command '/sbin/zpool status -P {name}' failed: exit code 1")
    data = {"name": name, "state": pool["state"], "errors": pool["errors"], "leaf": 0,
            "children": [{"name": name, "state": pool["state"], "read": 0, "write": 0, "cksum": 0, "msg": "",
                          "leaf": 0, "children": _vdevs(pool)}]}
    for key in ("status", "action", "scan"):
        if pool.get(key):
            data[key] = pool[key]
    return data


@route("POST", "/nodes/{node}/disks/zfs")
def pool_create(ctx, p):
    """ZFS.pm create (task zfscreate)."""
    state = ctx.state
    node, name, level = p["node"], p["name"], p["raidlevel"]
    devs = split_list(p["devices"])
    draid = None
    if "draid-config" in p:
        if not level.startswith("draid"):
            raise die("draid-config set without using dRAID level")
        draid = dict((k, int(v)) for k, v in (item.split("=", 1) for item in split_list(p["draid-config"])))
    resolved = []
    for dev in devs:
        dev = resolve(state, node, dev)
        if _in_use(state, node, dev):  # Diskmanage assert_disk_unused
            raise die(f"device '{dev}' is already in use")
        resolved.append(dev)
    if p.get("add_storage"):
        ctx.access.check(ctx.authid, "/storage", ["Datastore.Allocate"])
        _storage_create_or_update(state, name, node, dryrun=True)
    if name in state.zfs_pools.get(node, {}):
        raise die(f"pool '{name}' already exists on node '{node}'")
    count = len(resolved)
    if level == "raid10" and count % 2:
        raise die("raid10 needs an even number of disks")
    if level == "single" and count > 1:
        raise die("please give only one disk for single disk mode")
    if count < MIN_DISKS[level]:
        raise die(f"{level} needs at least {MIN_DISKS[level]} disks")
    if level.startswith("draid"):
        needed = MIN_DISKS[level] - 2 + ((draid or {}).get("data") or 0) + ((draid or {}).get("spares") or 0)
        if count < needed:
            raise die(f"At least {needed} disks needed for current dRAID config")

    def work(log):
        disks = _disks(state, node)
        by_id = [disks[dev]["by_id"] for dev in resolved]
        ashift = p.get("ashift", 12)
        if level == "raid10":
            vdev = [word for i in range(0, len(by_id), 2) for word in ("mirror", *by_id[i:i + 2])]
        elif level.startswith("draid"):  # draid2:2d:1s
            spec = level + (f":{draid['data']}d" if (draid or {}).get("data") else "") + \
                (f":{draid['spares']}s" if (draid or {}).get("spares") else "")
            vdev = [spec, *by_id]
        else:
            vdev = [by_id[0]] if level == "single" else [level, *by_id]
        log.append(f"# /sbin/zpool create -o ashift={ashift} {name} {' '.join(vdev)}")
        log.append(f"# /sbin/zfs set compression={p.get('compression', 'on')} {name}")
        log.append(f"# systemctl enable zfs-import@{_escape_unit(name)}.service")  # PVE ships that unit
        size = sum(disks[dev]["size"] for dev in resolved)
        pool = {"raidlevel": level, "devices": resolved, "by_id": by_id, "ashift": ashift,
                "compression": p.get("compression", "on"), "state": "ONLINE", "errors": "No known data errors",
                "size": size, "alloc": 0, "free": size, "frag": 0, "dedup": 1.0}
        if draid is not None:
            pool["draid-config"] = p["draid-config"]
        state.zfs_pools.setdefault(node, {})[name] = pool
        if p.get("add_storage"):
            _storage_create_or_update(state, name, node, log=log)

    return run_task(ctx, node, "zfscreate", name, work)


def _escape_unit(name):
    """PVE::Systemd::escape_unit: only '-' is escaped (and '/' becomes '-')."""
    return name.replace("-", "\\x2d").replace("/", "-")


def _storage_create_or_update(state, sid, node, dryrun=False, log=None):
    """API2::Storage::Config create_or_update with ZFS.pm's parameters (type zfspool, pool = the name,
    verify 'pool'): refuse a storage that already covers this node or differs, else add the node."""
    scfg = state.storage.get(sid)
    if scfg is not None:
        if not scfg.get("nodes") or node in scfg["nodes"]:
            raise die(f"Storage ID '{sid}' already exists on node {node}")
        for key, wanted in (("type", "zfspool"), ("pool", sid)):
            # a zfspool storage always has a pool, so Config.pm's "is not configured" die is not reached
            if scfg.get(key) != wanted:
                raise die(f"Option '{key}' ({wanted}) does not match existing storage configuration "
                          f"'{scfg.get(key)}'")
    if dryrun:
        return
    if scfg is not None:
        scfg["nodes"].add(node)
        log.append(f"Added '{node}' to nodes for storage '{sid}'")
    else:
        state.storage[sid] = {"type": "zfspool", "pool": sid, "content": {"rootdir", "images"}, "nodes": {node}}


@route("DELETE", "/nodes/{node}/disks/zfs/{name}")
def pool_delete(ctx, p):
    """ZFS.pm delete (task zfsremove); cleanup-config drops the node from the storages on the pool."""
    state = ctx.state
    node, name = p["node"], p["name"]
    if p.get("cleanup-config"):
        ctx.access.check(ctx.authid, "/storage", ["Datastore.Allocate"])

    def work(log):
        pools = state.zfs_pools.get(node, {})
        if name not in pools:  # ZFS.pm delete: run_command(['zpool', 'destroy', $name])
            raise die(f"command 'zpool destroy {name}' failed: exit code 1")
        del pools[name]
        if p.get("cleanup-config"):
            _cleanup_storages(state, node, name)

    return run_task(ctx, node, "zfsremove", name, work)


def _cleanup_storages(state, node, pool):
    """API2::Storage::Config cleanup_storages_for_node: a storage only for this node goes, one for
    several nodes loses this node, one for all nodes stays."""
    for sid in [sid for sid, scfg in state.storage.items() if scfg.get("type") == "zfspool"
                and scfg.get("pool") == pool]:
        nodes = state.storage[sid].get("nodes")
        if not nodes:
            continue
        if nodes == {node}:
            del state.storage[sid]
        elif node in nodes:
            nodes.discard(node)
