"""Ceph pools and cluster flags (pve-manager PVE/API2/Ceph/Pool.pm, PVE/API2/Cluster/Ceph.pm, PVE/Ceph/Tools.pm).

``state.ceph`` is None until ``pveceph init`` (see ``ceph_init``); then it is one dict::

    {"configured": bool,               # the admin keyring exists (check_ceph_configured)
     "mon_allow_pool_delete": bool,     # pveceph init writes true; False makes a destroy task fail
     "flags": set of Ceph OSD-map flags ("noout", "pauserd", "pausewr", ...),
     "crush_rules": {rule id: rule name},
     "ec_profiles": set of erasure code profile names,
     "next_pool_id": int,
     "pools": {name: {"id", "type" (1 replicated, 3 erasure), "size", "min_size", "pg_num", "pg_num_final",
                      "pg_num_min"?, "crush_rule" (id), "pg_autoscale_mode", "target_size_bytes"?,
                      "target_size_ratio"?, "applications" (list), "erasure_code_profile"?,
                      "nodelete", "nopgchange", "nosizechange", "noscrub", "nodeep-scrub" (0/1),
                      "bytes_used"}},
     "fs": {fs name: {"metadata_pool", "data_pools"}},   # pools CephFS holds (refused on delete)
     "pending": [{"due": epoch, "pool", "op": "set"|"destroy", "settings"}],
     "autoscale_on_read": bool,         # knob: each pool status/list read steps pg_num toward pg_num_final
     "apply_delay": seconds,            # knob: a set/destroy takes effect that long after its task ended OK
     "mgrs": {id: {"host"}},            # the first one is the active mgr (handlers/ceph_daemons.py)
     "mdss": {id: {"host", "standby_replay", "state", "rank"?}},  # handlers/ceph_daemons.py
     "mons": {id: {"host"}}, "osds": {id: {"id", "host", "device_class", "in", "up"}}}  # seeded, not served yet

* A missing pool is Ceph's answer to ``osd pool get``, a plain 500:
  ``error with 'osd pool get': mon_cmd failed - unrecognized pool '<name>'``; a set on a missing pool
  dies with the same words (set_pool asks ``osd pool get`` before it sets anything).
* Create over an existing pool is not refused: Ceph's ``osd pool create`` answers "already exists"
  with success (PVE prints nothing of it) and ``set_pool`` then applies the settings (pg_num included:
  a PG merge).
* Each setting is its own mon command; a value equal to what ``osd pool get`` read before the loop is
  skipped (``skipping 'size', did not change``), the failed ones are printed and the task dies
  ``Could not set: <keys>`` (Tools.pm ``set_pool``), ``size`` applied first. The refusals are Ceph's
  (src/mon/OSDMonitor.cc prepare_command_pool_set, _command_pool_application, _check_remove_pool) behind
  PVE::RADOS's ``error with '<command>': mon_cmd failed - `` (docs/simulator.md lists them as unverified).
* Writes leave what Ceph already applied when the task dies half-way (no rollback, unlike a
  config-file write); ``state.task_outcomes`` still forces an exit status.
* Destroy: an RBD storage on the pool with images refuses it unless ``force`` (``remove_storages``
  does not bypass that); Ceph then refuses a pool CephFS uses, ``mon_allow_pool_delete`` false and the
  pool's ``nodelete`` flag, all inside the task (the request itself answers 200 and a UPID).
"""

import re
import time

from ...errors import ApiError, die
from ..state import register_slice
from .base import route

# None until a node runs `pveceph init`, then one dict for the cluster's Ceph (the shape above).
register_slice("ceph", lambda: None)

# Tools.pm check_ceph_installed('ceph_mon') (via check_ceph_inited) and check_ceph_configured
NOT_INSTALLED = "binary not installed: /usr/bin/ceph-mon"
NOT_CONFIGURED = "ceph not fully configured - missing '/etc/pve/priv/ceph.client.admin.keyring'"

# PVE::Ceph::Tools::get_possible_osd_flags
FLAG_DESCRIPTIONS = {
    "pause": "Pauses read and writes.",
    "noup": "OSDs are not allowed to start.",
    "nodown": "OSD failure reports are being ignored, such that the monitors will not mark OSDs down.",
    "noout": "OSDs will not automatically be marked out after the configured interval.",
    "noin": "OSDs that were previously marked out will not be marked back in when they start.",
    "nobackfill": "Backfilling of PGs is suspended.",
    "norebalance": "Rebalancing of PGs is suspended.",
    "norecover": "Recovery of PGs is suspended.",
    "noscrub": "Scrubbing is disabled.",
    "nodeep-scrub": "Deep Scrubbing is disabled.",
    "notieragent": "Cache tiering activity is suspended.",
}
POOL_FLAGS = ("noscrub", "nodeep-scrub", "nodelete", "nopgchange", "nosizechange")
SIZE_UNITS = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}


# -- the cluster --------------------------------------------------------------------------

def ceph_init(state, nodes=("node1", "node2", "node3"), osds_per_node=2):
    """Test helper: the Ceph a cluster has after ``pveceph init``, one mon and one mgr per node,
    ``osds_per_node`` OSDs per node (``osd.0``.., class ssd, up and in) and the ``.mgr`` pool."""
    with state.lock:
        state.ceph = {
            "configured": True, "mon_allow_pool_delete": True, "flags": set(),
            "crush_rules": {0: "replicated_rule"}, "ec_profiles": {"default"}, "next_pool_id": 1,
            "pools": {}, "fs": {}, "pending": [], "autoscale_on_read": False, "apply_delay": 0,
            "mons": {node: {"host": node} for node in nodes},
            "mgrs": {node: {"host": node} for node in nodes},
            "mdss": {},
            "osds": {},
        }
        for index, node in enumerate(n for n in nodes for _osd in range(osds_per_node)):
            state.ceph["osds"][index] = {"id": index, "host": node, "device_class": "ssd", "in": 1, "up": 1}
        create_pool(state, ".mgr", {"pg_num": 1, "size": 3, "min_size": 2, "application": "mgr",
                                    "pg_autoscale_mode": "on"})
        state.ceph["pools"][".mgr"]["pg_num_final"] = 1
    return state.ceph


def checked_ceph(state, configured=True):
    """check_ceph_inited / check_ceph_configured, then apply the writes that have come due."""
    ceph = state.ceph
    if ceph is None:
        raise die(NOT_INSTALLED)
    if configured and not ceph.get("configured", True):
        raise die(NOT_CONFIGURED)
    _apply_due(ceph)
    return ceph


def _apply_due(ceph, now=None):
    now = now or time.time()
    due = [item for item in ceph["pending"] if item["due"] <= now]
    ceph["pending"] = [item for item in ceph["pending"] if item["due"] > now]
    for item in due:
        pool = ceph["pools"].get(item["pool"])
        if pool is None:
            continue
        if item["op"] == "destroy":
            del ceph["pools"][item["pool"]]
        else:
            pool.update(item["settings"])


def _effect(ceph, op, name, settings=None):
    """A forked write's effect: now, or ``apply_delay`` seconds after the task ended."""
    if not ceph.get("apply_delay"):
        ceph["pending"].append({"due": 0, "pool": name, "op": op, "settings": settings or {}})
        _apply_due(ceph)
    else:
        ceph["pending"].append({"due": time.time() + ceph["apply_delay"], "pool": name, "op": op,
                                "settings": settings or {}})


def autoscale(state, step=False):
    """The pg_autoscaler: pools in mode ``on`` move pg_num to ``pg_num_final`` (at least ``pg_num_min``);
    ``step`` moves one power of two only, as Ceph does gradually."""
    for pool in (state.ceph or {}).get("pools", {}).values():
        if pool["pg_autoscale_mode"] != "on":
            continue
        final = max(pool["pg_num_final"], pool.get("pg_num_min") or 1)
        if step and pool["pg_num"] != final:
            pool["pg_num"] = max(final, pool["pg_num"] // 2) if pool["pg_num"] > final else \
                min(final, pool["pg_num"] * 2)
        else:
            pool["pg_num"] = final
        pool["pgp_num"] = pool["pg_num"]


def _on_read(state):
    if state.ceph.get("autoscale_on_read"):
        autoscale(state, step=True)


def fork(ctx, node, typ, worker_id, work):
    """RPCEnvironment::fork_worker, finished at once. Unlike a config-file write nothing is rolled
    back when the work dies: each mon command Ceph already took stays applied. A work that returns a
    count of Perl ``warn``s ends ``WARNINGS: n``."""
    log = []
    try:
        warnings = work(log)
        exitstatus = f"WARNINGS: {warnings}" if warnings else "OK"
    except ApiError as err:
        exitstatus = err.stringify().rstrip("\n").split("\n")[0]
    return ctx.state.start_task(node, typ, worker_id, ctx.authid, exitstatus=exitstatus, log=log)


def _unrecognized(name):
    """Tools.pm get_pool_properties on a missing pool: Ceph's `osd pool get` refusal behind PVE::RADOS."""
    return die(f"error with 'osd pool get': mon_cmd failed - unrecognized pool '{name}'")


class _MonRefusal(Exception):
    """Ceph's status text for a refused mon command (OSDMonitor.cc); PVE::RADOS prefixes it."""


def _perl_str(value):
    """A number as Perl interpolates it ("$value"): 0.5, 1 (not 1.0)."""
    return "%.15g" % value if isinstance(value, float) else str(value)


# -- pool settings: Ceph's `osd pool set` / `osd pool application enable` --------------------

def _rule_id(ceph, name):
    for rule_id, rule_name in ceph["crush_rules"].items():
        if rule_name == name:
            return rule_id
    return None


def _setting_change(ceph, pool, name, key, value):
    """One mon command (OSDMonitor.cc prepare_command_pool_set / _command_pool_application): the changed
    fields, or raise the text Ceph answers."""
    if key == "application":
        apps = list(pool["applications"])
        if value in apps:
            return {}
        if apps:  # PVE sends no --yes-i-really-mean-it
            raise _MonRefusal(f"Are you SURE? Pool '{name}' already has an enabled application; pass "
                              "--yes-i-really-mean-it to proceed anyway")
        return {"applications": [value]}
    if key == "size":
        if pool["nosizechange"]:
            raise _MonRefusal("pool size change is disabled; you must unset nosizechange flag for the pool first")
        # by default a new size resets min_size (https://tracker.ceph.com/issues/44862)
        return {"size": value, "min_size": value - value // 2}
    if key == "min_size":
        if pool["nosizechange"]:
            raise _MonRefusal("pool min size change is disabled; you must unset nosizechange flag for the pool "
                              "first")
        size = pool["size"]
        if value > size or value < 1:
            raise _MonRefusal(f"pool min_size must be between 1 and size, which is set to {size}")
        return {"min_size": value}
    if key == "pg_num":
        if pool["nopgchange"]:
            raise _MonRefusal("pool pg_num change is disabled; you must unset nopgchange flag for the pool first")
        return {"pg_num": value, "pgp_num": value}
    if key == "pg_num_min":  # a pool option: nopgchange does not guard it
        if value > pool["pg_num"]:
            raise _MonRefusal(f"specified pg_num_min {value} > pg_num {pool['pg_num']}")
        return {"pg_num_min": value}
    if key == "crush_rule":
        rule_id = _rule_id(ceph, value)
        if rule_id is None:
            raise _MonRefusal(f"crush rule {value} does not exist")
        return {"crush_rule": rule_id}
    return {key: value}


def _pool_properties(ceph, pool):
    """Tools.pm get_pool_properties (`osd pool get <pool> all`), the keys setpool can send: crush_rule by
    name; the pool options only while set (Ceph unsets an option set to 0)."""
    props = {key: pool[key] for key in ("size", "min_size", "pg_num", "pg_autoscale_mode")}
    props["crush_rule"] = ceph["crush_rules"].get(pool["crush_rule"], str(pool["crush_rule"]))
    for key in ("pg_num_min", "target_size_bytes", "target_size_ratio"):
        if pool.get(key):
            props[key] = pool[key]
    return props


def _set_pool(ceph, name, settings, log, pool=None):
    """PVE::Ceph::Tools::set_pool: the pool's type and properties first (a missing pool dies there),
    size/crush_rule dropped for an erasure coded pool, then size first and the rest sorted; a value equal
    to the property read before the loop is skipped; the failed keys end the task."""
    pool = pool if pool is not None else ceph["pools"].get(name)
    if pool is None:
        raise _unrecognized(name)
    settings = dict(settings)
    if pool["type"] == 3:
        for key in ("size", "crush_rule"):
            if settings.get(key):
                log.append(f"cannot set '{key}' for erasure coded pool")
                del settings[key]
    keys = sorted(k for k in settings if k != "size")
    if "size" in settings:
        keys.insert(0, "size")
    current = _pool_properties(ceph, pool)
    view = dict(pool)
    changes, failed = {}, []
    for key in keys:
        value = _perl_str(settings[key])
        if key in current and value == _perl_str(current[key]):
            log.append(f"skipping '{key}', did not change")
            continue
        log.append(f"pool {name}: applying {key} = {value}")
        try:
            change = _setting_change(ceph, view, name, key, settings[key])
        except _MonRefusal as refusal:  # printed, as set_pool prints the mon error, and the next key is tried
            command = "osd pool application enable" if key == "application" else "osd pool set"
            log.append(f"error with '{command}': mon_cmd failed - {refusal}")
            failed.append(key)
            continue
        view.update(change)
        changes.update(change)
    return changes, failed


def _parse_size(text):
    """PVE::JSONSchema::parse_size."""
    match = re.match(r"^(\d+(?:\.\d+)?)([KMGT])?$", text)
    return int(float(match.group(1)) * SIZE_UNITS[match.group(2) or ""])


def _ceph_settings(params):
    settings = {k: v for k, v in params.items() if k not in ("node", "name", "add_storages", "erasure-coding")}
    if "target_size_ratio" in settings:
        settings["target_size_ratio"] = float(settings["target_size_ratio"])
    if "target_size" in settings:
        settings["target_size_bytes"] = _parse_size(settings.pop("target_size"))
    return settings


def create_pool(state, name, settings, log=None, pool_type=1, ec_profile=None):
    """Tools.pm create_pool: ``osd pool create`` (success when the pool exists), then set_pool."""
    ceph = state.ceph
    log = log if log is not None else []
    settings = dict(settings)
    pool = ceph["pools"].get(name)
    if pool is None:
        pg_num = settings.get("pg_num") or 128
        pool = {"id": ceph["next_pool_id"], "type": pool_type, "size": 3, "min_size": 2, "pg_num": pg_num,
                "pgp_num": pg_num, "pg_num_final": 32, "crush_rule": 0, "pg_autoscale_mode": "on",
                "applications": [], "bytes_used": 0, **{flag: 0 for flag in POOL_FLAGS}}
        if ec_profile:
            pool["erasure_code_profile"] = ec_profile
        ceph["next_pool_id"] += 1
        ceph["pools"][name] = pool
    changes, failed = _set_pool(ceph, name, settings, log)
    pool.update(changes)
    if failed:  # Tools.pm set_pool
        raise die(f"Could not set: {', '.join(sorted(failed))}")


def _rbd_storages(state, pool):
    """Pool.pm $get_storages: the rbd storages on the pool (or its data-pool)."""
    return {sid: scfg for sid, scfg in state.storage.items()
            if scfg.get("type") == "rbd" and pool in (scfg.get("pool", "rbd"), scfg.get("data-pool"))}


def _add_storage(state, name, pool, data_pool=None):
    """Pool.pm $add_storage (API2::Storage::Config create), its error wrapped by createpool: "adding PVE
    storage for ceph pool '$name' failed: $@" around Config.pm's "create storage failed: storage ID
    '$storeid' already defined" (lock_storage_config's "$errmsg: $err")."""
    if name in state.storage:
        raise die(f"adding PVE storage for ceph pool '{name}' failed: create storage failed: "
                  f"storage ID '{name}' already defined")
    state.storage[name] = {"type": "rbd", "pool": pool, "krbd": 0, "content": {"rootdir", "images"}}
    if data_pool:
        state.storage[name]["data-pool"] = data_pool


# -- pool endpoints -------------------------------------------------------------------------

@route("GET", "/nodes/{node}/ceph/pool")
def pool_index(ctx, p):
    """Pool.pm lspools: `osd dump` fields, autoscale status and `df` usage per pool."""
    ceph = checked_ceph(ctx.state, configured=False)
    _on_read(ctx.state)
    res = []
    for name, pool in ceph["pools"].items():
        autoscale_status = _autoscale_status(name, pool)
        row = {"pool": pool["id"], "pool_name": name, "size": pool["size"], "min_size": pool["min_size"],
               "pg_num": pool["pg_num"], "crush_rule": pool["crush_rule"],
               "pg_autoscale_mode": pool["pg_autoscale_mode"],
               "application_metadata": {app: {} for app in pool["applications"]},
               "autoscale_status": autoscale_status, "pg_num_final": autoscale_status["pg_num_final"],
               "bytes_used": pool["bytes_used"], "percent_used": 0.0,
               "type": {1: "replicated", 3: "erasure"}.get(pool["type"], "unknown")}
        for key, attr in (("pg_num_min", "pg_num_min"), ("target_size", "target_size_bytes"),
                          ("target_size_ratio", "target_size_ratio")):
            if pool.get(attr) is not None:
                row[key] = pool[attr]
        if pool["crush_rule"] in ceph["crush_rules"]:
            row["crush_rule_name"] = ceph["crush_rules"][pool["crush_rule"]]
        res.append(row)
    return res


def _autoscale_status(name, pool):
    final = max(pool["pg_num_final"], pool.get("pg_num_min") or 1)
    return {"pool_name": name, "pool_id": pool["id"], "pg_num_target": pool["pg_num"], "pg_num_final": final,
            "pg_autoscale_mode": pool["pg_autoscale_mode"], "would_adjust": final != pool["pg_num"],
            "target_bytes": pool.get("target_size_bytes") or 0, "target_ratio": pool.get("target_size_ratio") or 0.0}


@route("POST", "/nodes/{node}/ceph/pool")
def pool_create(ctx, p):
    """Pool.pm createpool (task cephcreatepool)."""
    state = ctx.state
    if not state.quorate():  # pve-cluster Cluster.pm check_cfs_quorum
        raise die("cluster not ready - no quorum?")
    ceph = checked_ceph(state)
    name = p["name"]
    settings = _ceph_settings(p)
    ec = _parse_ec(ceph, p.get("erasure-coding"))
    add_storages = p.get("add_storages")
    if ec and add_storages is None:
        add_storages = 1
    if add_storages:
        ctx.access.check(ctx.authid, "/storage", ["Datastore.Allocate"])
        if not re.match(r"^[a-z][a-z0-9\-_.]*[a-z0-9]$", name, re.I):  # Pool.pm createpool
            raise die("pool name contains characters which are illegal for storage naming")
    for key, default in (("pg_num", 128), ("size", 3), ("min_size", 2), ("application", "rbd"),
                         ("pg_autoscale_mode", "warn")):
        settings.setdefault(key, default)

    def work(log):
        pool, data_pool = name, None
        if ec:
            profile = ec.get("profile")
            if not profile:
                profile = f"pve_ec_{name}"
                ceph["ec_profiles"].add(profile)
                log.append(f"created new erasure code profile '{profile}'")
            data_settings = {k: v for k, v in settings.items() if k not in ("size", "min_size", "crush_rule")}
            data_settings["allow_ec_overwrites"] = "true"
            settings["pg_num"] = 32
            pool, data_pool = f"{name}-metadata", f"{name}-data"
            create_pool(state, data_pool, data_settings, log, pool_type=3, ec_profile=profile)
        create_pool(state, pool, settings, log)
        if add_storages:
            _add_storage(state, name, pool, data_pool)

    return fork(ctx, p["node"], "cephcreatepool", name, work)


def _parse_ec(ceph, text):
    """Pool.pm ec_parse_and_check (the format itself is checked by the schema)."""
    if not text:
        return None
    ec = dict(item.split("=", 1) for item in text.split(","))
    if ec.get("profile") and ec["profile"] not in ceph["ec_profiles"]:
        raise die(f"Erasure code profile '{ec['profile']}' does not exist.")
    return ec


@route("GET", "/nodes/{node}/ceph/pool/{name}")
def pool_children(ctx, p):
    """Pool.pm poolindex: a static index, no check that the pool (or Ceph) exists."""
    return [{"name": "status"}]


@route("GET", "/nodes/{node}/ceph/pool/{name}/status")
def pool_status(ctx, p):
    """Pool.pm getpool: `osd pool get <name> all` (+ df, autoscale-status, applications with verbose)."""
    ceph = checked_ceph(ctx.state, configured=False)
    _on_read(ctx.state)
    name = p["name"]
    pool = ceph["pools"].get(name)
    if pool is None:
        raise _unrecognized(name)
    data = {"id": pool["id"], "name": name, "size": pool["size"], "min_size": pool["min_size"],
            "pg_num": pool["pg_num"], "pgp_num": pool["pgp_num"],
            "crush_rule": ceph["crush_rules"].get(pool["crush_rule"], str(pool["crush_rule"])),
            "pg_autoscale_mode": pool["pg_autoscale_mode"],
            # PVE interpolates Ceph's JSON booleans: "0"/"1" strings on the wire
            **{flag: str(pool[flag]) for flag in POOL_FLAGS},
            "write_fadvise_dontneed": "0", "hashpspool": "1", "use_gmt_hitset": "1", "fast_read": "0"}
    for key, attr in (("pg_num_min", "pg_num_min"), ("target_size", "target_size_bytes"),
                      ("target_size_ratio", "target_size_ratio")):
        if pool.get(attr) is not None:
            data[key] = pool[attr]
    if p.get("verbose"):
        data["autoscale_status"] = _autoscale_status(name, pool)
        data["statistics"] = {"stored": pool["bytes_used"], "objects": 0, "bytes_used": pool["bytes_used"],
                              "percent_used": 0.0, "max_avail": 0}
        data["application_list"] = list(pool["applications"])
    return data


@route("PUT", "/nodes/{node}/ceph/pool/{name}")
def pool_update(ctx, p):
    """Pool.pm setpool (task cephsetpool): only the keys sent are set."""
    ceph = checked_ceph(ctx.state)
    name = p["name"]
    settings = _ceph_settings(p)

    def work(log):
        pending = [item for item in ceph["pending"] if item["pool"] == name]
        pool = ceph["pools"].get(name)
        if pool is not None and pending:  # the state Ceph will have once the due writes land
            pool = dict(pool)
            for item in pending:
                pool.update(item["settings"])
        changes, failed = _set_pool(ceph, name, settings, log, pool)
        if changes:
            _effect(ceph, "set", name, changes)
        if failed:
            raise die(f"Could not set: {', '.join(sorted(failed))}")

    return fork(ctx, p["node"], "cephsetpool", name, work)


@route("DELETE", "/nodes/{node}/ceph/pool/{name}")
def pool_delete(ctx, p):
    """Pool.pm destroypool (task cephdestroypool), Ceph's OSDMonitor::_check_remove_pool inside it."""
    state = ctx.state
    ceph = checked_ceph(state, configured=False)
    if p.get("remove_storages"):
        ctx.access.check(ctx.authid, "/storage", ["Datastore.Allocate"])
    name = p["name"]

    def work(log):
        storages = _rbd_storages(state, name)
        if not p.get("force"):
            for sid in sorted(storages):
                log.append(f"checking storage '{sid}' for RBD images..")
                if state.volumes.get(sid):  # Pool.pm destroypool
                    raise die(f"ceph pool '{name}' still in use by storage '{sid}'")
        pool = ceph["pools"].get(name)
        if pool is None:  # get_pool_properties before destroy_pool
            raise _unrecognized(name)
        # destroy_pool's `osd pool delete`, refused by OSDMonitor.cc _check_remove_pool in this order
        prefix = "error with 'osd pool delete': mon_cmd failed - "
        if any(name == fs["metadata_pool"] or name in fs["data_pools"] for fs in ceph["fs"].values()):
            raise die(f"{prefix}pool '{name}' is in use by CephFS")
        if not ceph["mon_allow_pool_delete"]:
            raise die(f"{prefix}pool deletion is disabled; you must first set the mon_allow_pool_delete config "
                      "option to true before you can destroy a pool")
        if pool["nodelete"]:
            raise die(f"{prefix}pool deletion is disabled; you must unset nodelete flag for the pool first")
        _effect(ceph, "destroy", name)
        profile = pool.get("erasure_code_profile")
        if profile:
            log.append(f"found erasure coded profile '{profile}', destroying its CRUSH rule")
            if p.get("remove_ecprofile", 1):
                log.append(f"destroying erasure coded profile '{profile}'")
                ceph["ec_profiles"].discard(profile)
        if p.get("remove_storages"):
            for sid, scfg in storages.items():
                if not scfg.get("monhost"):  # external clusters are not pveceph's
                    del state.storage[sid]

    return fork(ctx, p["node"], "cephdestroypool", name, work)


# -- flags (PVE/API2/Cluster/Ceph.pm) ---------------------------------------------------------

def _real_flag(flag):
    """Tools.pm get_real_flag_name: 'pause' reads as Ceph's 'pauserd'."""
    return "pauserd" if flag == "pause" else flag


def _set_flag(ceph, flag, value):
    real = ("pauserd", "pausewr") if flag == "pause" else (flag,)
    for name in real:
        if value:
            ceph["flags"].add(name)
        else:
            ceph["flags"].discard(name)


@route("GET", "/cluster/ceph/flags")
def flags_index(ctx, p):
    """get_all_flags."""
    ceph = checked_ceph(ctx.state)
    return [{"name": flag, "description": FLAG_DESCRIPTIONS[flag], "value": int(_real_flag(flag) in ceph["flags"])}
            for flag in sorted(FLAG_DESCRIPTIONS)]


@route("PUT", "/cluster/ceph/flags")
def flags_update(ctx, p):
    """set_flags (task cephsetflags): only the flags sent, and only those that change."""
    ceph = checked_ceph(ctx.state)

    def work(log):
        for flag in sorted(FLAG_DESCRIPTIONS):
            if flag not in p or bool(p[flag]) == (_real_flag(flag) in ceph["flags"]):
                continue
            log.append(f"{'set' if p[flag] else 'unset'} {flag}")  # Cluster/Ceph.pm set_flags
            _set_flag(ceph, flag, p[flag])

    return fork(ctx, ctx.node, "cephsetflags", "", work)


@route("GET", "/cluster/ceph/flags/{flag}")
def flag_read(ctx, p):
    """get_flag."""
    return int(_real_flag(p["flag"]) in checked_ceph(ctx.state)["flags"])


@route("PUT", "/cluster/ceph/flags/{flag}")
def flag_update(ctx, p):
    """update_flag: synchronous `osd set|unset`."""
    _set_flag(checked_ceph(ctx.state), p["flag"], p["value"])
    return None
