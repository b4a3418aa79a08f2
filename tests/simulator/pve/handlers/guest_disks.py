"""Moving guest volumes between storages and guests, and detaching VM disks (qemu-server 9, pve-container 6).

Ports ``API2/Qemu.pm`` move_vm_disk (``$load_and_check_move``, ``$move_updatefn``,
``$load_and_check_reassign_configs``, ``$disk_reassignfn``) with ``QemuServer.pm`` clone_disk and
resolve_dst_disk_format, ``API2/Qemu.pm`` unlink (update_vm with ``delete``), ``API2/LXC.pm`` move_volume
(``$move_to_storage_checks``, ``$storage_realcmd``, ``$load_and_check_reassign_configs``,
``$volume_reassignfn``) with ``LXC.pm`` copy_volume and alloc_disk, and what those call of pve-storage
(``Storage.pm`` rename_volume, resolve_format_hint, volume_has_feature; the plugins' get_formats,
volume_has_feature ``rename`` and rename_volume naming).

* ``POST .../qemu/{vmid}/move_disk`` with ``storage``: task ``qmmove`` (id the vmid). The disk gets a new volume
  on the target storage in the source's format when the storage takes it (else the storage's default, with the
  source's warning), the old volume becomes ``unusedN`` unless ``delete=1`` (then it is freed). A running VM
  moves too (drive-mirror); only its TPM state cannot. With ``target-vmid``: the volume is renamed to the other
  VM (``vm-<target>-disk-<n>``), leaves the source (and its boot order) and is set on the target through the
  synchronous config update (``unusedN`` targets directly); task ``qmmove``, id ``<vmid>-<disk>><target>-<key>``.
* ``PUT .../qemu/{vmid}/unlink``: update_vm with ``delete=<idlist>`` and ``force``, synchronous, ``null``.
* ``POST .../lxc/{vmid}/move_volume``: task ``move_volume`` (id the vmid, or ``<vmid>-<key>><target>-<key>``); a
  running container's volumes do not move to another storage; the new volume is allocated as alloc_disk does
  (``raw`` on a directory storage, ``subvol`` on ZFS, the storage must hold ``rootdir``), checks that PVE makes in
  the worker fail the task.

The copies themselves are instant; the task logs carry the lines the sources print around them (no progress
lines).
"""

import re
from dataclasses import replace

from ...errors import ApiError, die, param_exc
from ...formats import FormatError
from . import guests as g
from . import lxc, qemu
from .base import route
from .texts import perl_true

_OWN_PART = re.compile(r"^((?:\d+/)?base-\d+-disk-\d+[^/]*/)?(.+)$")  # a linked clone's base, then its own name


# -- volumes (pve-storage) --------------------------------------------------------------------------

def _on(value):
    return perl_true(None if value is None else str(value))


def volume_format(state, volid):
    """parse_volname's format: what the volume was allocated as, else what its name says."""
    info = g.volume(state, volid)
    if info and info.get("format"):
        return info["format"]
    volname = g.parse_volid(volid)[1] or ""
    m = re.search(r"\.(raw|qcow2|vmdk|subvol)$", volname)
    if m:
        return m.group(1)
    return "subvol" if re.search(r"(?:^|/)subvol-", volname) else "raw"


def storage_formats(state, sid):
    """The plugin's get_formats: (default, valid formats). LvmThinPlugin inherits LVMPlugin's."""
    scfg = state.storage_config(sid)
    if scfg["type"] in ("lvm", "lvmthin"):
        if _on(scfg.get("snapshot-as-volume-chain")):
            return "qcow2", {"qcow2", "raw"}
        return "raw", {"raw"}
    valid = set((state.storage_type_info(scfg["type"]) or {}).get("formats") or ())
    if not valid:
        return "raw", {"raw"}
    return scfg.get("format") or "raw", valid


def resolve_format_hint(state, sid, hint):
    """Storage::resolve_format_hint: the hint when the storage takes it, else its default."""
    default, valid = storage_formats(state, sid)
    return hint if hint and hint in valid else default


def rename_supported(state, volid):
    """Storage::volume_has_feature(..., 'rename', ...): a current (not base) volume of a plugin that renames
    (Plugin/BTRFS: qcow2, raw, vmdk; LVM: qcow2, raw; LvmThin, ZFSPool, RBD: any); never a path."""
    sid = g.parse_volid(volid)[0]
    if sid is None:
        return False
    stype = state.storage_config(sid)["type"]
    if g.parse_volname(state, volid)[2]:
        return False
    fmt = volume_format(state, volid)
    if stype in g.FILE_STORAGES:
        return fmt in ("qcow2", "raw", "vmdk")
    if stype == "lvm":
        return fmt in ("qcow2", "raw")
    return stype in ("lvmthin", "zfspool", "rbd")


def can_replicate(state, volid):
    """Storage::storage_can_replicate: only ZFSPoolPlugin (raw and subvol volumes)."""
    sid = g.parse_volid(volid)[0]
    return state.storage_config(sid)["type"] == "zfspool" and volume_format(state, volid) in ("raw", "subvol")


def rename_volume(state, volid, target_vmid):
    """Storage::rename_volume with the plugin's find_free_diskname for the target: ``<target>/vm-<target>-disk-<n>.
    <fmt>`` on a directory storage, ``vm-<target>-disk-<n>`` elsewhere; a linked clone keeps its base part."""
    sid, volname = g.parse_volid(volid)
    fmt = volume_format(state, volid)
    number = g.free_disk_number(state, sid, target_vmid)  # the source still exists while the name is chosen
    vols = g.ensure_volumes(state).setdefault(sid, {})
    info = vols.pop(volname, None) or {"size": 0, "vmid": None, "format": fmt, "content": "images"}
    base = _OWN_PART.match(volname).group(1) or ""
    name = f"{'subvol' if fmt == 'subvol' else 'vm'}-{target_vmid}-disk-{number}"
    if state.storage_config(sid)["type"] in g.FILE_STORAGES:
        name = f"{target_vmid}/{name}.{fmt}"
    vols[base + name] = dict(info, vmid=target_vmid)
    return f"{sid}:{base}{name}"


def _replicated(state, vmid):
    """ReplicationConfig::check_for_existing_jobs($vmid, 1)."""
    return any(jid.split("-", 1)[0] == str(vmid) for jid in state.replication_jobs)


def _assert_digest(guest, sent, prefix):
    """Tools::assert_if_modified inside ``eval``, re-died as ``"<prefix>: $@"``."""
    try:
        g.assert_if_modified(guest, sent)
    except ApiError as err:
        raise die(f"{prefix}: {err.message}") from err


def _same_node(state, vmid, target, word, plural):
    """PVE::Cluster::get_vmlist: both guests exist (any type), on one node."""
    if vmid not in state.guests:
        raise die(f"could not find {word} {vmid}")
    if target not in state.guests:
        raise die(f"could not find {word if word == 'CT' else 'target VM'} {target}")
    source_node, target_node = state.guests[vmid]["node"], state.guests[target]["node"]
    if source_node != target_node:
        raise die(f"Both {plural} need to be on the same node ({source_node} != {target_node})")


# -- QEMU: move_disk ---------------------------------------------------------------------------------

def _is_cloudinit(drive):
    return bool(g.has_cloudinit_drive({"ide0": drive.get("file") or ""}))


def _in_use(guest, skip, volid):
    """Drive.pm is_volume_in_use: another drive of the config (not ``skip``), or a drive of any snapshot."""
    def scan(conf, skip_key):
        for key, value in conf.items():
            if not qemu.DRIVE_KEY.match(key) or key == skip_key:
                continue
            drive = qemu.parse_drive(key, value)
            if drive.get("file") and not qemu.is_cdrom(drive) and drive["file"] == volid:
                return True
        return False
    if scan(guest.get("config") or {}, skip):
        return True
    return any(scan(snap.get("config") or {}, None) for snap in (guest.get("snapshots") or {}).values())


def _source_size(state, drive):
    info = g.volume(state, drive["file"])
    return info["size"] if info else drive.get("size") or 0


def _clone_disk(state, guest, vmid, disk, drive, storage, fmt, log):
    """QemuServer.pm clone_disk, a full copy to ``storage`` for the same VM: the new drive."""
    unused = disk.startswith("unused")
    if guest["status"] == "running" and not unused and disk == "tpmstate0":
        raise die("cannot move TPM state while VM is running")
    old = drive["file"]
    log.append(f"create full clone of drive {disk} ({old})")
    dst_format = resolve_format_hint(state, storage, fmt or volume_format(state, old))
    if fmt and fmt != dst_format:
        log.append(f"format '{fmt}' is not supported by the target storage '{storage}' - using '{dst_format}' "
                   "instead")
    if _is_cloudinit(drive):
        new = _alloc_cloudinit(state, storage, vmid, dst_format)
    else:
        if disk == "efidisk0":
            size = qemu.EFIVARS_SIZE.get(drive.get("efitype", "2m"), qemu.EFIVARS_SIZE["2m"])
        elif disk == "tpmstate0":
            size = qemu.TPMSTATE_SIZE
        else:
            size = _source_size(state, drive)
        g.check_storage_enabled(state, storage, guest["node"])  # vdisk_alloc's activate_storage
        new = g.alloc_volume(state, storage, vmid, size, "images", fmt=dst_format)
    log.append(f"allocated target volume '{new}'")
    result = {k: v for k, v in drive.items() if k != "format"}
    result["file"] = new
    if not unused:
        result["size"] = g.volume(state, new)["size"]
    return result


def _alloc_cloudinit(state, sid, vmid, fmt):
    """vdisk_alloc of ``vm-<vmid>-cloudinit`` (``.<fmt>`` on a storage with a path), CLOUDINIT_DISK_SIZE."""
    g.check_storage_enabled(state, sid, state.guests[vmid]["node"])
    file_storage = state.storage_config(sid)["type"] in g.FILE_STORAGES
    volname = f"{vmid}/vm-{vmid}-cloudinit.{fmt}" if file_storage else f"vm-{vmid}-cloudinit"
    g.ensure_volumes(state).setdefault(sid, {})[volname] = {"size": 4 * 1024 ** 2, "vmid": vmid, "format": fmt,
                                                            "content": "images"}
    return f"{sid}:{volname}"


def _move_to_storage(ctx, p):
    state, node, vmid, disk = ctx.state, p["node"], p["vmid"], p["disk"]
    storage, fmt = p["storage"], p.get("format")

    def load_and_check():
        guest = g.writable(g.load_guest(state, "qemu", node, vmid))
        g.check_lock(guest)
        g.assert_if_modified(guest, p.get("digest"))
        conf = guest["config"]
        if not perl_true(conf.get(disk)):
            raise die(f"disk '{disk}' does not exist")
        drive = qemu.parse_drive(disk, conf[disk])
        if not drive.get("file"):
            raise die(f"disk '{disk}' has no associated volume")
        if qemu.is_cdrom(drive) and not _is_cloudinit(drive):  # drive_is_cdrom($drive, 1)
            raise die("you can't move a cdrom")
        old = drive["file"]
        oldsid = g.parse_volid(old)[0]
        if oldsid is None:
            raise die(f"unable to parse volume ID '{old}'")
        g.parse_volname(state, old)
        oldfmt = volume_format(state, old)
        if oldsid == storage and (not fmt or not oldfmt or oldfmt == fmt):
            raise die("you can't move to the same storage with same format")
        g.check_storage_enabled(state, storage, node)
        if "images" not in g.storage_content(state, storage)[1]:
            raise param_exc({"storage": f"storage '{storage}' does not support vm images"})
        snapshotted = _in_use(guest, disk, old)
        if snapshotted and p.get("delete"):
            raise die("you can't move a disk with snapshots and delete the source")
        return guest, drive, oldsid, snapshotted

    def work(log):
        guest, drive, oldsid, snapshotted = load_and_check()
        conf, old = guest["config"], drive["file"]
        log.append(f"copying volume '{old}' from current storage '{oldsid}' to target storage '{storage}'")
        g.check_storage_enabled(state, oldsid, node)  # activate_volumes, before the eval
        try:
            if snapshotted:
                log.append("moving disk with snapshots, snapshots will not be moved!")  # a plain warn: no count
            newdrive = _clone_disk(state, guest, vmid, disk, drive, storage, fmt, log)
            conf[disk] = qemu.print_drive(disk, newdrive)
            if not p.get("delete"):
                key = g.add_unused_volume(conf, old)
                log.append(f"adding source volume '{old}' as '{key}' to config")
            if str(conf.get("template", "0")) == "1":
                qemu.make_template(state, guest, disk)
        except ApiError as err:
            raise die(f"storage migration failed: {err.stringify()}") from err
        g.reload(guest)
        if p.get("delete"):
            log.append(f"removing source volume '{old}' after successful copy")
            try:
                g.free_volume(state, old)
            except ApiError as err:
                log.append(err.message.rstrip("\n"))  # warn $@: logged, not counted

    ctx.access.check(ctx.authid, f"/storage/{storage}", ["Datastore.AllocateSpace"])
    load_and_check()
    return g.run_task(ctx, node, "qmmove", vmid, work)


def _boot_without(conf, disk):
    """device_bootorder without ``disk``, printed back (print_bootorder: nothing left, no ``boot``). The legacy
    ``boot: cdn`` form is not ported: only an ``order=`` list changes."""
    m = re.search(r"(?:^|,)order=([^,]*)", conf.get("boot") or "")
    devs = [d for d in re.split(r"[;,\s]+", m.group(1)) if d] if m else []
    if disk not in devs:
        return False
    devs.remove(disk)
    if devs:
        conf["boot"] = "order=" + ";".join(devs)
    else:
        conf.pop("boot", None)
    return True


def _reassign_vm_disk(ctx, p):
    state, node, vmid, disk = ctx.state, p["node"], p["vmid"], p["disk"]
    target = p["target-vmid"]
    target_disk = p.get("target-disk") or disk

    def load_and_check():
        _same_node(state, vmid, target, "VM", "VMs")
        source = g.writable(g.load_guest(state, "qemu", node, vmid))
        g.check_lock(source)
        dest = g.writable(g.load_guest(state, "qemu", node, target))
        g.check_lock(dest)
        if perl_true(source["config"].get("template")) or perl_true(dest["config"].get("template")):
            raise die("Can't move disks from or to template VMs")
        if p.get("digest"):
            _assert_digest(source, p["digest"], f"VM {vmid}")
        if p.get("target-digest"):
            _assert_digest(dest, p["target-digest"], f"VM {target}")
        if source["config"].get(disk) is None:
            raise die(f"Disk '{disk}' for VM '{vmid}' does not exist")
        if perl_true(dest["config"].get(target_disk)):
            raise die(f"Target disk key '{target_disk}' is already in use for VM '{target}'")
        drive = qemu.parse_drive(disk, source["config"][disk])
        volid = drive.get("file")
        if not volid:
            raise die(f"disk '{disk}' has no associated volume")
        if qemu.is_cdrom(drive) and not _is_cloudinit(drive):
            raise die("CD drive contents can't be moved to another VM")
        if g.parse_volid(volid)[0] is None:
            raise die(f"Volume '{volid}' not managed by PVE")
        if _in_use(source, disk, volid):
            raise die("Can't move disk used by a snapshot to another VM")
        if not rename_supported(state, volid):
            raise die("Storage does not support moving of this disk to another VM")
        if source["status"] == "running" and not disk.startswith("unused"):
            raise die("Cannot move disk to another VM while the source VM is running - detach first")
        try:  # re-parsed in the target slot's format
            drive = qemu.parse_drive(target_disk, volid if target_disk.startswith("unused")
                                     else source["config"][disk])
        except (ApiError, FormatError) as err:
            raise die(f"failed to parse source disk for target disk format - {err}") from err
        if _replicated(state, target) and not can_replicate(state, volid):
            raise die("Cannot move disk to a replicated VM. Storage does not support replication!")
        return source, dest, drive

    def work(log):
        source, dest, drive = load_and_check()
        log.append(f"reassign disk '{disk}' from VM '{vmid}' as '{target_disk}' to VM '{target}'")
        drive["file"] = rename_volume(state, drive["file"], target)
        if _boot_without(source["config"], disk):
            log.append(f"removing disk '{disk}' from boot order config")
        del source["config"][disk]
        log.append(f"removing disk '{disk}' from VM '{vmid}' config")
        g.reload(source)
        drive_string = qemu.print_drive(target_disk, drive)
        if target_disk.startswith("unused"):
            dest["config"][target_disk] = drive_string
            g.reload(dest)
            return
        # &$update_vm_api({ node, vmid => $target_vmid, digest => $target_digest, $target_disk => ... }, 1)
        log.append(f"update VM {target}: -{target_disk} {drive_string}")
        raw = {"node": node, "vmid": str(target), target_disk: drive_string}
        if p.get("target-digest"):
            raw["digest"] = p["target-digest"]
        qemu.update_sync(replace(ctx, raw=raw), {"node": node, "vmid": target, "digest": p.get("target-digest")})

    if ctx.authid != "root@pam":
        ctx.access.check(ctx.authid, f"/vms/{target}", ["VM.Config.Disk"])  # check_vm_perm
    if vmid == target:
        raise param_exc({"target-vmid": "must be different than source VMID to reassign disk"})
    drive = load_and_check()[2]
    ctx.access.check(ctx.authid, f"/storage/{g.parse_volid(drive['file'])[0]}", ["Datastore.AllocateSpace"])
    return g.run_task(ctx, node, "qmmove", f"{vmid}-{disk}>{target}-{target_disk}", work)


@route("POST", "/nodes/{node}/qemu/{vmid}/move_disk")
def move_disk(ctx, p):
    """API2/Qemu.pm move_vm_disk: to another storage, or to another VM."""
    if p.get("target-vmid") and p.get("storage"):
        msg = "either set 'storage' or 'target-vmid', but not both"
        raise param_exc({"target-vmid": msg, "storage": msg})
    if p.get("target-vmid"):
        return _reassign_vm_disk(ctx, p)
    if p.get("storage"):
        return _move_to_storage(ctx, p)
    msg = "both 'storage' and 'target-vmid' missing, either needs to be set"
    raise param_exc({"target-vmid": msg, "storage": msg})


@route("PUT", "/nodes/{node}/qemu/{vmid}/unlink")
def unlink(ctx, p):
    """API2/Qemu.pm unlink: ``$param->{delete} = extract_param($param, 'idlist')``, then update_vm (synchronous):
    without ``force`` a disk's volume becomes ``unusedN``, with it the volume is destroyed; an ``unusedN`` always
    goes with its volume."""
    raw = {"node": p["node"], "vmid": str(p["vmid"]), "delete": p["idlist"]}
    params = {"node": p["node"], "vmid": p["vmid"], "delete": p["idlist"]}
    if p.get("force") is not None:
        raw["force"], params["force"] = str(p["force"]), p["force"]
    qemu.update_sync(replace(ctx, raw=raw), params)
    return None


# -- LXC: move_volume ---------------------------------------------------------------------------------

def _parse_volume(key, text):
    """LXC::Config parse_volume (die on a missing or malformed value, as parse_property_string does)."""
    try:
        return g.parse_ps(g.option_format("lxc", key), text or "")
    except FormatError as err:
        raise ApiError(500, err.message, errors=err.errors) from err


def _mount_type(volume):
    """LXC::Config classify_mountpoint."""
    if volume.startswith("/"):
        return "device" if volume.startswith("/dev") else "bind"
    return "volume"


def _in_use_by_snapshots(guest, volid):
    """LXC::Config is_volume_in_use_by_snapshots: a mount point of any snapshot names the volume."""
    for snap in (guest.get("snapshots") or {}).values():
        for key, value in (snap.get("config") or {}).items():
            if lxc.MOUNT_KEY.match(key) and _parse_volume(key, value).get("volume") == volid:
                return True
    return False


def _alloc_disk(state, vmid, sid, size, node):
    """LXC.pm alloc_disk: raw on a storage with a path that holds rootdir (subvol for a size 0), subvol on
    ZFS, raw on another rootdir storage."""
    scfg = state.storage_config(sid)
    content = g.storage_content(state, sid)[1]
    if "rootdir" in content and scfg["type"] in g.FILE_STORAGES:
        fmt = "raw" if size > 0 else "subvol"
    elif scfg["type"] == "zfspool":
        fmt = "subvol"
    elif "rootdir" in content:
        fmt = "raw"
    else:
        raise die(f"content type 'rootdir' is not available or configured on storage '{sid}'")
    g.check_storage_enabled(state, sid, node)  # vdisk_alloc's activate_storage
    return g.alloc_volume(state, sid, vmid, size, "rootdir", fmt=fmt, prefix="subvol" if fmt == "subvol" else "vm")


def _move_volume_to_storage(ctx, p):
    state, node, vmid, key, storage = ctx.state, p["node"], p["vmid"], p["volume"], p["storage"]

    def checks():
        guest = g.writable(g.load_guest(state, "lxc", node, vmid))
        g.check_lock(guest)
        if guest["status"] == "running":
            raise die("cannot move volumes of a running container")
        if key.startswith("unused"):
            raise die(f"cannot move volume '{key}', only configured volumes can be moved to another storage")
        mp = _parse_volume(key, guest["config"].get(key))
        if p.get("delete") and _in_use_by_snapshots(guest, mp["volume"]):
            raise die("you can't move a volume with snapshots and delete the source")
        g.assert_if_modified(guest, p.get("digest"))
        return guest, mp

    def work(log):
        guest, mp = checks()
        conf, old = guest["config"], mp["volume"]
        if _mount_type(old) != "volume":
            raise die(f"cannot copy volumes of type {_mount_type(old)}")
        info = g.volume(state, old)
        mp["size"] = info["size"] if info else mp.get("size") or 0  # volume_size_info
        new = _alloc_disk(state, vmid, storage, mp["size"], node)
        mp["volume"] = g.rename_to_base(state, new) if perl_true(conf.get("template")) else new
        conf[key] = lxc.print_mountpoint(key, mp)
        if not p.get("delete"):
            g.add_unused_volume(conf, old)
        else:
            try:
                g.free_volume(state, old)
            except ApiError as err:
                log.append(err.message.rstrip("\n"))  # warn $@, and the volume is kept as unusedN
                g.add_unused_volume(conf, old)
        g.reload(guest)

    ctx.access.check(ctx.authid, f"/storage/{storage}", ["Datastore.AllocateSpace"])
    checks()
    return g.run_task(ctx, node, "move_volume", vmid, work)


def _reassign_ct_volume(ctx, p):
    state, node, vmid, key = ctx.state, p["node"], p["vmid"], p["volume"]
    target = p["target-vmid"]
    target_key = p.get("target-volume") or key

    def load_and_check():
        if key == "rootfs" or target_key == "rootfs":
            raise die("Cannot move to/from 'rootfs'")
        if key.startswith("unused") and not target_key.startswith("unused"):
            raise die("Moving an unused volume to a used one is not possible")
        _same_node(state, vmid, target, "CT", "containers")
        source = g.writable(g.load_guest(state, "lxc", node, vmid))
        g.check_lock(source)
        dest = source
        if target != vmid:
            dest = g.writable(g.load_guest(state, "lxc", node, target))
            g.check_lock(dest)
        if perl_true(source["config"].get("template")) or perl_true(dest["config"].get("template")):
            raise die("Can't move volumes from or to template CT")
        if p.get("digest"):
            _assert_digest(source, p["digest"], f"Container {vmid}")
        if p.get("target-digest"):
            _assert_digest(dest, p["target-digest"], f"Container {target}")
        if source["config"].get(key) is None:
            raise die(f"volume '{key}' for container '{vmid}' does not exist")
        if target_key in dest["config"]:
            raise die(f"Target volume key '{target_key}' is already in use for container '{target}'")
        mp = _parse_volume(key, source["config"][key])
        volid = mp.get("volume")
        if not volid:
            raise die(f"Volume '{key}' has no associated image")
        if _in_use_by_snapshots(source, volid):
            raise die("Cannot move volume used by a snapshot to another container")
        if not rename_supported(state, volid):
            raise die("Storage does not support moving of this disk to another container")
        if _mount_type(volid) != "volume":
            raise die("Cannot move a bindmount or device mount to another container")
        if source["status"] == "running" and not key.startswith("unused"):
            raise die("Cannot move in-use volume while the source CT is running - detach or shutdown first")
        if _replicated(state, target) and not can_replicate(state, volid):
            raise die(f"Cannot move volume on storage '{g.parse_volid(volid)[0]}' to a replicated container - "
                      "missing replication support")
        return source, dest, mp

    def work(log):
        source, dest, mp = load_and_check()
        log.append(f"moving volume '{key}' from container '{vmid}' to '{target}'")
        mp["volume"] = rename_volume(state, mp["volume"], target)
        del source["config"][key]
        log.append(f"removing volume '{key}' from container '{vmid}' config")
        g.reload(source)
        warnings = 0
        if target_key.startswith("unused"):
            dest["config"][target_key] = mp["volume"]
        else:
            errors = lxc.update_pct_config(state, dest, target, {target_key: lxc.print_mountpoint(target_key, mp)})
            for text in errors.values():  # $rpcenv->warn: logged and counted
                log.append(f"WARN: {text}")
                warnings += 1
        g.reload(dest)
        log.append(f"target container '{target}' updated with '{target_key}'")
        return warnings

    if ctx.authid != "root@pam":
        ctx.access.check(ctx.authid, f"/vms/{target}", ["VM.Config.Disk"])  # check_vm_perm
    mp = load_and_check()[2]
    ctx.access.check(ctx.authid, f"/storage/{g.parse_volid(mp['volume'])[0]}", ["Datastore.AllocateSpace"])
    return g.run_task(ctx, node, "move_volume", f"{vmid}-{key}>{target}-{target_key}", work)


@route("POST", "/nodes/{node}/lxc/{vmid}/move_volume")
def move_volume(ctx, p):
    """API2/LXC.pm move_volume: to another storage, or to another container (or key of the same one)."""
    if p.get("storage") and p.get("target-vmid"):
        # a plain die before the raise_param_exc branch below, which therefore never answers
        raise die("either set storage or target-vmid, but not both")
    if p.get("target-vmid"):
        return _reassign_ct_volume(ctx, p)
    if p.get("storage"):
        return _move_volume_to_storage(ctx, p)
    msg = "both 'storage' and 'target-vmid' missing, either needs to be set"
    raise param_exc({"target-vmid": msg, "storage": msg})
