"""POST /nodes/{node}/vzdump: a backup now, and the archives a restore reads (pve-manager 9).

Ports ``PVE/API2/VZDump.pm`` (vzdump) over ``PVE/VZDump.pm`` (verify_vzdump_parameters, get_included_guests,
new with storage_info, exec_backup, exec_backup_task, compressor_info, $generate_notes) and
``PVE/API2/Backup.pm`` assert_param_permission_common.

* The call answers a ``vzdump`` task (its id the vmid when there is one guest) for the guests of ``vmid``
  (or ``all``/``exclude``, or ``pool``) that live on the node asked; guests on other nodes are skipped (``skip
  external VMs``) and, when none is left, the answer is the string ``OK`` and no task (PVE's "silent exit").
  A vmid no node has is backed up on every node that is asked and fails there (``unable to find VM '105'``).
* The task, for each guest in vmid order: a file ``vzdump-{qemu|lxc}-<vmid>-<YYYY_MM_DD-HH_MM_SS>`` (local
  time) ``.vma`` (VM) or ``.tar`` (CT), plus ``.lzo`` / ``.gz`` / ``.zst`` per ``compress``, in the storage's
  ``backup/`` directory (``guests.put_file``: a storage that is not shared keeps it on that node only), with
  its notes (``notes-template``: ``{{cluster}}``, ``{{guestname}}``, ``{{node}}``, ``{{vmid}}``, ``\\n``) and
  the protected flag. The file keeps the guest's config (``guest`` in the volume's info: type and config
  without its pending part and lock) so a restore can rebuild it (``archive_config``). A guest that fails is
  logged and the task ends ``job errors``; the archives of the others stay, as on PVE.
* A storage that does not hold ``backup``: the task fails ``could not get storage information for 'x':
  can't use storage 'x' for backups - wrong content type``; a missing one ``could not activate storage ...``.
* Not simulated: pruning (``prune-backups``, ``remove``), the protected-backup limit, hook scripts, PBS and
  backup-provider storages (501), notifications, ``stop`` (501).

``add_backup(state, node, storage, vmid, ...)`` seeds an archive of a guest for tests (and for a guest that no
longer exists, with ``typ`` and ``config``).
"""

import copy
import re
import time

from ...errors import ApiError, die, param_exc, perm_exc
from ...formats import split_list
from . import guests as g
from . import storage_content as sc
from .base import route

EXTENSIONS = {"qemu": ".vma", "lxc": ".tar"}
COMPRESSION = {"1": "lzo", "lzo": "lzo", "gzip": "gz", "zstd": "zst"}  # compressor_info's extension
ROOT_ONLY = ("tmpdir", "dumpdir", "script", "job-id")
NOTES_VARS = ("cluster", "guestname", "node", "vmid")
# What a backup's config leaves out: the lock vzdump holds, and what restore_update_config_line drops.
NOT_IN_ARCHIVE = ("lock", "parent")


def backup_name(typ, vmid, when, compress=None):
    """exec_backup_task's $basename and extension."""
    stamp = time.strftime("%Y_%m_%d-%H_%M_%S", time.localtime(when))
    ext = EXTENSIONS[typ]
    if compress not in (None, "", "0"):
        ext += "." + COMPRESSION[compress]
    return f"vzdump-{typ}-{vmid}-{stamp}{ext}"


def _archived_config(guest):
    """The config file vzdump puts into the archive (no snapshots, no pending part, no lock)."""
    return {key: value for key, value in guest["config"].items() if key not in NOT_IN_ARCHIVE}


def _archive_size(config):
    """A deterministic stand-in for the archive's size: a tenth of the volumes' sizes the config names."""
    total = 0
    for value in config.values():
        m = re.search(r"(?:^|,)size=(\d+)([KMGT]?)(?:,|$)", str(value))
        if m:
            total += int(m.group(1)) * 1024 ** " KMGT".index(m.group(2) or " ")
    return max(total // 10, 4096)


def store_archive(state, node, storage, typ, vmid, config, when, compress=None, notes=None, protected=False):
    """Write one archive file (and its notes and protection files); returns its volid."""
    volname = "backup/" + backup_name(typ, vmid, when, compress)
    fmt = EXTENSIONS[typ][1:] + ("." + COMPRESSION[compress] if compress not in (None, "", "0") else "")
    info = {"size": _archive_size(config), "vmid": vmid, "format": fmt, "content": "backup", "ctime": int(when),
            "subtype": typ, "guest": {"type": typ, "config": copy.deepcopy(dict(config))}}
    if notes:
        info["notes"] = notes
    if protected:
        info["protected"] = 1
    g.put_file(state, storage, node, volname, info)
    return f"{storage}:{volname}"


def add_backup(state, node, storage, vmid, when=None, compress="zstd", notes=None, protected=False, typ=None,
               config=None):
    """Seed an archive of guest ``vmid`` (as it is now, or ``typ`` + ``config`` for one that is gone) on
    ``storage`` as ``node`` sees it, made at ``when`` (epoch, default now). Returns the volid."""
    with state.lock:
        g.ensure_volumes(state)
        guest = state.guests.get(vmid)
        if config is None:
            config = _archived_config(guest)
        return store_archive(state, node, storage, typ or guest["type"], vmid, config,
                             int(time.time()) if when is None else when, compress, notes, protected)


def archive_config(state, volid, node):
    """What a restore reads from an archive (``extract_vzdump_config``): ``{"type", "config"}``, or None when
    the file is not on ``node`` or holds no guest config."""
    found = g.volume(state, volid, node)
    return None if found is None else found.get("guest")


# -- the call -----------------------------------------------------------------------------------

def _verify_notes_template(template):
    """VZDump.pm $verify_notes_template."""
    if "\n" in template:
        raise ValueError("contains a line feed")
    problems = [f"escape sequence '\\{m.group(1)}' at char {m.start()}"
                for m in re.finditer(r"\\(.)", template) if m.group(1) not in ("n", "\\")]
    problems += [f"variable '{m.group(1)}' at char {m.start(1)}"
                 for m in re.finditer(r"\{\{([^\s{}]+)\}\}", template) if m.group(1) not in NOTES_VARS]
    if problems:
        raise ValueError("found unknown: " + ", ".join(problems))


def _generate_notes(state, template, node, vmid, guest):
    """VZDump.pm $generate_notes: the variables, then ``\\n`` and ``\\\\``."""
    conf = guest["config"]
    name = conf.get("hostname") if guest["type"] == "lxc" else conf.get("name")
    values = {"cluster": state.cluster_name or "standalone node", "guestname": name or f"VM {vmid}",
              "node": node, "vmid": str(vmid)}
    text = re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), template)
    return re.sub(r"\{\{(" + "|".join(NOTES_VARS) + r")\}\}", lambda m: values[m.group(1)], text)


def _assert_param_permission(ctx, p):
    """VZDump.pm assert_param_permission_vzdump with Backup.pm assert_param_permission_common."""
    if ctx.authid == "root@pam":
        return
    for key in ROOT_ONLY:
        if key in p:
            raise param_exc({key: "Only root may set this option."})
    if any(p.get(key) is not None for key in ("bwlimit", "ionice", "performance")):
        ctx.access.check(ctx.authid, "/", ["Sys.Modify"])
    if p.get("prune-backups") is not None:
        ctx.access.check(ctx.authid, f"/storage/{p.get('storage') or 'local'}", ["Datastore.Allocate"])


def _verify_parameters(p):
    """VZDump.pm verify_vzdump_parameters (with $check_missing)."""
    for other in ("all", "exclude", "pool"):
        if p.get(other) and p.get("vmid"):
            raise param_exc({other: "option conflicts with option 'vmid'"})
    if p.get("notes-template"):
        try:
            _verify_notes_template(p["notes-template"])
        except ValueError as err:
            raise param_exc({"notes-template": f"{err}\n"}) from err
    if not (p.get("all") or p.get("stop") or p.get("pool") or p.get("exclude")) and not p.get("vmid"):
        raise param_exc({"vmid": "property is missing"})


def included_guests(state, p):
    """VZDump.pm get_included_guests: node -> vmids ('' for the ones no node has)."""
    if p.get("pool"):
        vmids = [int(v) for v in (state.pools.get(p["pool"]) or {}).get("vms", ())]
    elif p.get("vmid"):
        vmids = [int(v) for v in split_list(p["vmid"])]
    else:
        excluded = {int(v) for v in split_list(p.get("exclude"))}
        vmids = [vmid for vmid in state.guests if vmid not in excluded]
    per_node = {}
    for vmid in vmids:
        guest = state.guests.get(vmid)
        per_node.setdefault(guest["node"] if guest is not None else "", []).append(vmid)
    return per_node


def _storage_info(state, sid, node):
    """VZDump::new's storage checks (activate_storage, storage_info), as the job's errors."""
    errors = []
    try:
        g.check_storage_enabled(state, sid, node)
    except ApiError as err:
        errors.append(f"could not activate storage '{sid}': {err.message.rstrip()}")
    scfg = state.storage.get(sid)
    if scfg is None:
        errors.append(f"could not get storage information for '{sid}': storage '{sid}' does not exist")
    elif "backup" not in g.storage_content(state, sid)[1]:
        errors.append(f"could not get storage information for '{sid}': can't use storage '{sid}' for backups - "
                      "wrong content type")
    elif scfg["type"] not in g.FILE_STORAGES:
        raise ApiError(501, f"a backup to a storage of type '{scfg['type']}' is not simulated", exception=False)
    if errors:
        raise die("\n".join(errors))


def _backup_one(ctx, p, node, vmid, log):
    """exec_backup_task for one guest: the archive, its notes and protection; dies as the task would."""
    state = ctx.state
    guest = state.guests.get(vmid)
    if guest is None:
        raise die(f"unable to find VM '{vmid}'")
    mode = p.get("mode") or "snapshot"
    if mode == "stop" and g.ha_managed(state, guest, vmid) and g.ha_state(state, g.ha_sid(guest, vmid)) == "started":
        raise die("Cannot execute a backup with stop mode on a HA managed and enabled Service. Use snapshot "
                  "mode or disable the Service.")
    typ, storage = guest["type"], p.get("storage") or "local"
    log.append(f"INFO: Starting Backup of VM {vmid} ({typ})")
    log.append(f"INFO: Backup started at {time.strftime('%Y-%m-%d %H:%M:%S')}")
    log.append(f"INFO: backup mode: {mode}")
    notes = None
    if p.get("notes-template"):
        log.append("INFO: adding notes to backup")
        notes = _generate_notes(state, p["notes-template"], node, vmid, guest)
    volid = store_archive(state, node, storage, typ, vmid, _archived_config(guest), int(time.time()),
                          p.get("compress"), notes, bool(p.get("protected")))
    if p.get("protected"):
        log.append("INFO: marking backup as protected")
    log.append(f"INFO: creating vzdump archive '{volid}'")
    log.append(f"INFO: Finished Backup of VM {vmid} (00:00:01)")


@route("POST", "/nodes/{node}/vzdump")
def vzdump(ctx, p):
    """API2/VZDump.pm vzdump."""
    state, node = ctx.state, p["node"]
    if p.get("stdout"):
        raise param_exc({"stdout": "option is only allowed on the command line interface."})
    _assert_param_permission(ctx, p)
    _verify_parameters(p)
    if p.get("stop"):
        raise ApiError(501, "stopping running backups is not simulated", exception=False)
    per_node = included_guests(state, p)
    local = per_node.pop(node, []) + per_node.pop("", [])
    skipped = sorted(vmid for vmids in per_node.values() for vmid in vmids)
    if not local and not p.get("all"):
        return "OK"  # silent exit if the guests run on other nodes
    storage = p.get("storage") or "local"  # read_vzdump_defaults: storage 'local' when no dumpdir
    ctx.access.check(ctx.authid, f"/storage/{storage}", ["Datastore.AllocateSpace"])
    log = ["INFO: starting new backup job: vzdump " + " ".join(
        [",".join(str(v) for v in sorted(local))] if p.get("vmid") else [])
        + "".join(f" --{k} {v}" for k, v in sorted(ctx.raw.items()) if k not in ("node", "vmid"))]
    if skipped:
        log.append("INFO: skip external VMs: " + ", ".join(str(v) for v in skipped))
    with state.lock:
        forced = state.task_outcomes.pop("vzdump", None)
        saved = state.snapshot()
        try:
            _storage_info(state, storage, node)
            tasks = []
            for vmid in sorted(local):
                if vmid in state.guests and not ctx.access.check(ctx.authid, f"/vms/{vmid}", ["VM.Backup"],
                                                                 bool(p.get("all"))):
                    continue
                tasks.append(vmid)
            errors = 0
            for vmid in tasks:
                try:
                    _backup_one(ctx, p, node, vmid, log)
                except ApiError as err:
                    errors += 1
                    log.append(f"ERROR: Backup of VM {vmid} failed - {err.message.rstrip()}")
            log.append("INFO: Backup job finished with errors" if errors else "INFO: Backup job finished successfully")
            exitstatus = "job errors" if errors else "OK"
        except ApiError as err:
            if err.status == 501:
                raise
            state.restore(saved)
            message = err.stringify().rstrip("\n")
            log.append(f"ERROR: Backup job failed - {message}")
            exitstatus = message.split("\n")[0]
        if forced is not None:
            if forced != "OK" and not forced.startswith("WARNINGS"):
                state.restore(saved)  # a fault knob: the job died before it wrote anything
            exitstatus = forced
        return state.start_task(node, "vzdump", str(local[0]) if len(local) == 1 else "", ctx.authid,
                                exitstatus=exitstatus, log=log)


# -- restore (called by qemu.py's and lxc.py's create) --------------------------------------------

def check_archive_access(ctx, archive):
    """Storage::check_volume_access with content 'backup': the content type, then (for a user without
    Datastore.Allocate) Datastore.AllocateSpace on the storage and VM.Backup on the archive's guest."""
    g.check_volume_access(ctx, archive, "backup")
    sc.check_volume_access(ctx, archive)


def check_restore_allowed(ctx, vmid, pool, force):
    """create_vm's privilege check on a restore: VM.Allocate (on the guest or its pool), or VM.Backup to
    restore over an existing guest with ``force``."""
    access, authid = ctx.access, ctx.authid
    if access.check(authid, f"/vms/{vmid}", ["VM.Allocate"], True):
        return
    if pool and access.check(authid, f"/pool/{pool}", ["VM.Allocate"], True):
        return
    exists = ctx.state.guests.get(vmid) is not None
    if force and exists and access.check(authid, f"/vms/{vmid}", ["VM.Backup"], True):
        return
    raise perm_exc()
