"""Ceph managers, metadata servers and CephFS (pve-manager PVE/API2/Ceph/MGR.pm, MDS.pm, FS.pm,
PVE/Ceph/Services.pm).

State (in ``state.ceph``, see handlers/ceph.py): ``"mgrs"``: id -> {"host"}, the first one active,
the others standby; ``"mdss"``: MDS id -> {"host", "standby_replay"
(0/1), "state": "up:standby" | "up:active", "rank"?}; ``"fs"``: name -> {"metadata_pool",
"data_pools"}.

* A new MDS is a standby; creating a CephFS makes one standby active (rank 0). PVE refuses a
  CephFS without a running MDS, or without a standby one.
* CephFS create makes ``<name>_data`` (pg_num) and ``<name>_metadata`` (a quarter, at least 8)
  with application cephfs: ordinary pools afterwards. A failure after a pool was made removes the
  pools again. ``add-storage`` adds a ``cephfs`` storage (backup,iso,vztmpl).
* A manager's directory lives on its node: creating an id that exists, or deleting one that is
  not on the node asked, fails inside the task with Services.pm's words.
* Deleting an MDS whose directory is not on the node asked (another node's, or an unknown id) ends
  ``WARNINGS: 1`` (Services.pm destroy_mds warns and goes on); ``auth del`` of an unknown MDS succeeds.
* ``add-storage`` with a storage ID in use is refused before the fork (FS.pm createfs,
  PVE::Storage::assert_sid_unused).
* PVE 9's schema has no DELETE for a CephFS.
"""

from ...errors import ApiError, die
from .base import route
from .ceph import checked_ceph, create_pool, fork


def _mgr_dir(mgr_id):
    return f"/var/lib/ceph/mgr/ceph-{mgr_id}"


@route("GET", "/nodes/{node}/ceph/mgr")
def mgr_index(ctx, p):
    """MGR.pm index: the services with their `mgr dump` state."""
    ceph = checked_ceph(ctx.state, configured=False)
    return [{"name": mgr_id, "host": mgr["host"], "addr": f"{mgr['host']}:6801",
             "state": "standby" if index else "active"}
            for index, (mgr_id, mgr) in enumerate(ceph["mgrs"].items())]


@route("POST", "/nodes/{node}/ceph/mgr/{id}")
def mgr_create(ctx, p):
    """MGR.pm createmgr (task cephcreatemgr, id ``mgr.<id>``), Services.pm create_mgr."""
    if ctx.state.ceph is None:  # Tools.pm check_ceph_installed('ceph_mgr')
        raise die("binary not installed: /usr/bin/ceph-mgr")
    ceph = checked_ceph(ctx.state, configured=False)
    mgr_id = p.get("id") or p["node"]

    def work(log):
        if mgr_id in ceph["mgrs"]:
            raise die(f"ceph manager directory '{_mgr_dir(mgr_id)}' already exists")
        log += [f"creating manager directory '{_mgr_dir(mgr_id)}'", f"creating keys for 'mgr.{mgr_id}'",
                "setting owner for directory", f"enabling service 'ceph-mgr@{mgr_id}.service'",
                f"starting service 'ceph-mgr@{mgr_id}.service'"]
        ceph["mgrs"][mgr_id] = {"host": p["node"]}

    return fork(ctx, p["node"], "cephcreatemgr", f"mgr.{mgr_id}", work)


@route("DELETE", "/nodes/{node}/ceph/mgr/{id}")
def mgr_delete(ctx, p):
    """MGR.pm destroymgr (task cephdestroymgr), Services.pm destroy_mgr."""
    ceph = checked_ceph(ctx.state, configured=False)
    mgr_id = p["id"]

    def work(log):
        mgr = ceph["mgrs"].get(mgr_id)
        if mgr is None or mgr["host"] != p["node"]:
            raise die(f"ceph manager directory '{_mgr_dir(mgr_id)}' not found")
        log += [f"disabling service 'ceph-mgr@{mgr_id}.service'", f"stopping service 'ceph-mgr@{mgr_id}.service'",
                f"removing manager directory '{_mgr_dir(mgr_id)}'", f"removing authkeys for mgr.{mgr_id}"]
        del ceph["mgrs"][mgr_id]

    return fork(ctx, p["node"], "cephdestroymgr", f"mgr.{mgr_id}", work)


def _mds_row(mds_id, mds):
    row = {"name": mds_id, "host": mds["host"], "addr": f"{mds['host']}:6800", "state": mds["state"],
           "standby_replay": mds["standby_replay"]}
    if "rank" in mds:
        row["rank"] = mds["rank"]
    return row


@route("GET", "/nodes/{node}/ceph/mds")
def mds_index(ctx, p):
    """MDS.pm index: ceph.conf's mds sections merged with the cluster's MDS state."""
    ceph = checked_ceph(ctx.state, configured=False)
    return [_mds_row(mds_id, mds) for mds_id, mds in sorted(ceph["mdss"].items())]


@route("POST", "/nodes/{node}/ceph/mds/{name}")
def mds_create(ctx, p):
    """MDS.pm createmds (task cephcreatemds, id ``mds.<id>``), Services.pm create_mds."""
    if ctx.state.ceph is None:  # Tools.pm check_ceph_installed('ceph_mds')
        raise die("binary not installed: /usr/bin/ceph-mds")
    ceph = checked_ceph(ctx.state, configured=False)
    mds_id = p.get("name") or p["node"]
    if mds_id[0].isdigit():
        raise die("ID of the MDS cannot start with a number!")

    def work(log):
        if mds_id in ceph["mdss"]:
            raise die(f"MDS '{mds_id}' already referenced in ceph config, abort!")
        log += [f"creating MDS directory '/var/lib/ceph/mds/ceph-{mds_id}'", f"creating keys for 'mds.{mds_id}'",
                "setting ceph as owner for service directory", f"enabling service 'ceph-mds@{mds_id}.service'",
                f"starting service 'ceph-mds@{mds_id}.service'"]
        ceph["mdss"][mds_id] = {"host": p["node"], "standby_replay": int(bool(p.get("hotstandby"))),
                                "state": "up:standby"}

    return fork(ctx, p["node"], "cephcreatemds", f"mds.{mds_id}", work)


@route("DELETE", "/nodes/{node}/ceph/mds/{name}")
def mds_delete(ctx, p):
    """MDS.pm destroymds (task cephdestroymds), Services.pm destroy_mds: systemctl disable/stop, the
    directory (a warning when it is not on this node), ``auth del`` (of an unknown MDS too)."""
    ceph = checked_ceph(ctx.state, configured=False)
    mds_id, node = p["name"], p["node"]

    def work(log):
        service_dir = f"/var/lib/ceph/mds/ceph-{mds_id}"
        log += [f"disabling service 'ceph-mds@{mds_id}.service'", f"stopping service 'ceph-mds@{mds_id}.service'"]
        here = ceph["mdss"].get(mds_id, {}).get("host") == node
        if here:
            log.append(f"removing ceph-mds directory '{service_dir}'")
        else:
            log.append(f"cannot cleanup MDS {mds_id} directory, '{service_dir}' not found")
        log.append(f"removing ceph auth for 'mds.{mds_id}'")
        mds = ceph["mdss"].pop(mds_id, None)
        if mds and mds["state"] == "up:active":  # a standby takes over the rank
            for other in ceph["mdss"].values():
                if other["state"] == "up:standby":
                    other.update(state="up:active", rank=mds["rank"])
                    break
        return 0 if here else 1

    return fork(ctx, node, "cephdestroymds", f"mds.{mds_id}", work)


@route("GET", "/nodes/{node}/ceph/fs")
def fs_index(ctx, p):
    """FS.pm index (`fs ls`): the first data pool only."""
    ceph = checked_ceph(ctx.state, configured=False)
    return [{"name": name, "metadata_pool": fs["metadata_pool"], "data_pool": fs["data_pools"][0]}
            for name, fs in ceph["fs"].items()]


@route("POST", "/nodes/{node}/ceph/fs/{name}")
def fs_create(ctx, p):
    """FS.pm createfs (task cephfscreate)."""
    state = ctx.state
    ceph = checked_ceph(state)
    name = p.get("name") or "cephfs"
    pg_num = p.get("pg_num") or 128
    data_pool, metadata_pool = f"{name}_data", f"{name}_metadata"
    if data_pool in ceph["pools"] or metadata_pool in ceph["pools"]:
        raise die(f"ceph pools '{data_pool}' and/or '{metadata_pool}' already exist")
    if name in ceph["fs"]:
        raise die(f"ceph fs '{name}' already exists")
    if not ceph["mdss"]:
        raise die("no running Metadata Server (MDS) found!")
    if not any(mds["state"] == "up:standby" for mds in ceph["mdss"].values()):
        raise die("no standby Metadata Server (MDS) found!")
    if p.get("add-storage") and name in state.storage:  # PVE::Storage::assert_sid_unused
        raise die(f"storage ID '{name}' already defined")

    def work(log):
        created = []
        try:
            log.append(f"creating data pool '{data_pool}'...")
            create_pool(state, data_pool, {"application": "cephfs", "pg_num": pg_num}, log)
            created.append(data_pool)
            log.append(f"creating metadata pool '{metadata_pool}'...")
            create_pool(state, metadata_pool, {"application": "cephfs",
                                               "pg_num": pg_num // 4 if pg_num >= 32 else 8}, log)
            created.append(metadata_pool)
            log.append(f"configuring new CephFS '{name}'")
            ceph["fs"][name] = {"metadata_pool": metadata_pool, "data_pools": [data_pool]}
        except ApiError:
            if created:
                log.append("Encountered error after creating at least one pool")
            for pool in created:
                log.append(f"cleaning up left over pool '{pool}'")
                ceph["pools"].pop(pool, None)
            raise
        log.append(f"Successfully create CephFS '{name}'")
        standby = next(mds for mds in ceph["mdss"].values() if mds["state"] == "up:standby")
        standby.update(state="up:active", rank=0)
        if p.get("add-storage"):
            log.append(f"Adding '{name}' to storage configuration...")
            if name in state.storage:  # only when a storage appeared after the early check
                raise die(f"adding storage for CephFS '{name}' failed, check log and add manually!\n"
                          f"create storage failed: storage ID '{name}' already defined")
            state.storage[name] = {"type": "cephfs", "content": {"backup", "iso", "vztmpl"}}

    return fork(ctx, p["node"], "cephfscreate", name, work)
