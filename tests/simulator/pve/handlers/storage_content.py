"""/nodes/{node}/storage/{storage}/content: what a storage holds (pve-storage 9).

Ports ``API2/Storage/Content.pm`` (index, info, delete and ``$real_volume_id``), ``Storage.pm`` (volume_list,
check_volume_access, vdisk_free with volume_is_base_and_used, path) and the plugins' list_images /
list_volumes / path (``Plugin.pm``, ``BTRFSPlugin.pm``, ``LvmThinPlugin.pm``, ``LVMPlugin.pm``,
``ZFSPoolPlugin.pm``, ``RBDPlugin.pm``).

* The volumes are ``state.volumes[storage]``, the storage's truth: every disk, root file system and mount point
  a guest was created, cloned, moved or seeded (``add_guest``) with is there, and so are ``local``'s templates
  and ISO; an ``unusedN`` keeps naming its volume until the volume is freed. A volume removed here is gone
  even while a config still names it, as on PVE.
* ``GET .../content``: each content type the storage holds (``content`` narrows to one), in volume_list's
  order and then sorted by volid: images and container volumes (``content`` ``rootdir`` when the owner is a
  container, ``images`` otherwise; on a storage that is not shared, the volumes of guests on other nodes are
  not there), then ISO images and templates (without ``vmid``), backups, snippets and import files, each with
  the fields its plugin's list gives (directory storages: ``volid, format, size, vmid, used, parent, ctime``,
  ``parent`` null or ``../<vmid>/<base>`` for a linked clone; LVM-thin ``volid`` (the LV's own name), ``format,
  size, vmid, ctime``; ZFS and RBD ``name, size, parent, format, vmid``), then filtered by
  check_volume_access as the caller's privileges allow. A volume's ``ctime`` is when the simulator first listed
  it (a downloaded, uploaded or pulled file's: when it was written); ``used`` is its full size (LVM and LVM-thin
  report none). The files of a storage that is not shared are the node's own (``guests.node_files``).
* ``GET .../content/{volume}``: ``{path, size, used, format}`` (a missing volume: the plugin's error); a qcow2
  import image's ``size`` is its virtual size (qemu-img info), ``used`` the file's.
  ``DELETE``: the task ``imgdel`` (id ``<owner>@<storage>`` or the storage), ``Removed volume '<volid>'``; a base
  volume with linked clones fails the task; a volume a guest uses is removed all the same (pve-storage does
  not look); ``delay`` answers ``null`` once the task is done (or its error). The storage in the path may be
  left out of the volume (``vm-100-disk-0``), a volume on another storage is 400 ``storage ID mismatch``.
"""

import re
import struct
import time

from ...errors import ApiError, die, param_exc
from ..state import register_slice
from . import guests as g
from .base import route

BASE = "/nodes/{node}/storage/{storage}/content"
CONTENT_TYPES = ("rootdir", "images", "vztmpl", "iso", "backup", "snippets", "import")  # volume_list's order
# The subdirectories Plugin.pm get_subdir uses for each content type.
SUBDIRS = {"images": "images", "rootdir": "private", "iso": "template/iso", "vztmpl": "template/cache",
           "backup": "dump", "snippets": "snippets", "import": "import"}
ISO_RE = re.compile(r"^[^/]+\.(?:iso|img)$", re.I)
VZTMPL_RE = re.compile(r"^[^/]+\.(?:(tar)(?!\.)|tar\.(gz|xz|zst|bz2))$", re.I)
BACKUP_RE = re.compile(r"^[^/]+\.(tgz|(?:tar|vma)(?:\.(?:gz|lzo|zst|bz2))?)$")
IMPORT_RE = re.compile(r"^[-a-zA-Z0-9.+=_]+\.(ova|ovf|qcow2|raw|vmdk)$", re.I)  # SAFE_CHAR_CLASS_RE, IMPORT_EXT_RE_1
BACKUP_NAME = re.compile(r"^vzdump-(openvz|lxc|qemu)-(\d+)-(\d{4})_(\d\d)_(\d\d)-(\d\d)_(\d\d)_(\d\d)\.")
OWNER = re.compile(r"^(?:vm|base|subvol)-(\d+)-")
QCOW2_MAGIC = b"QFI\xfb"

# When the simulator first listed each volume (its ``ctime``): "<storage>:<volname>" -> epoch.
register_slice("volume_ctimes", dict, snapshot=False)


def _ctime(state, sid, volname):
    return state.volume_ctimes.setdefault(f"{sid}:{volname}", int(time.time()))


def _own(volname):
    """A linked clone's own name (``base-100-disk-0/vm-101-disk-0`` -> ``vm-101-disk-0``) and its base part."""
    m = re.match(r"^((?:\d+/)?base-\d+-disk-\d+[^/]*)/(.+)$", volname)
    return (m.group(2), m.group(1)) if m else (volname, None)


def _image_owner(volname):
    own = _own(volname)[0]
    m = re.match(r"^(\d+)/", own)  # a directory storage's owner is its subdirectory
    if m:
        return int(m.group(1))
    m = OWNER.match(own.rsplit("/", 1)[-1])
    return int(m.group(1)) if m else None


def _image_format(info, volname):
    if info.get("format"):
        return info["format"]
    m = re.search(r"\.(raw|qcow2|vmdk|subvol)$", volname)
    return m.group(1) if m else ("subvol" if "subvol-" in volname else "raw")


def _image_entry(state, sid, scfg, volname, info, owner):
    """One volume as the storage type's list_images gives it."""
    stype, size, fmt = scfg["type"], int(info.get("size") or 0), _image_format(info, volname)
    own, base = _own(volname)
    if stype in g.FILE_STORAGES:
        entry = {"volid": f"{sid}:{volname}", "format": fmt, "size": size, "vmid": owner, "used": size,
                 "parent": f"../{base}" if base else None}
        if stype == "btrfs" and fmt == "subvol":
            entry.update(size=0, used=0)  # BTRFSPlugin: no quota read, no ctime
        else:
            entry["ctime"] = _ctime(state, sid, volname)
        return entry
    if stype == "lvmthin":
        return {"volid": f"{sid}:{own}", "format": "raw", "size": size, "vmid": owner,
                "ctime": _ctime(state, sid, volname)}
    if stype == "lvm":
        return {"volid": f"{sid}:{volname}", "format": fmt, "size": size, "vmid": owner,
                "ctime": _ctime(state, sid, volname)}
    if stype in ("zfspool", "rbd"):
        return {"volid": f"{sid}:{volname}", "name": own, "size": size,
                "parent": f"{base}@__base__" if base else None, "format": "raw" if stype == "rbd" else fmt,
                "vmid": owner}
    return {"volid": f"{sid}:{volname}", "format": fmt, "size": size, "vmid": owner}


def _images(state, sid, scfg, node, vmid, wanted):
    """Plugin::list_volumes for images/rootdir: list_images, the content by the owner's type."""
    res = []
    for volname, info in sorted(g.ensure_volumes(state).get(sid, {}).items()):
        if info.get("content") not in ("images", "rootdir"):
            continue
        owner = _image_owner(volname)
        if owner is None or (vmid is not None and owner != vmid):
            continue
        if scfg["type"] == "lvm" and not re.match(r"^vm-\d+-", volname):
            continue  # LVMPlugin list_images takes vm-<vmid>- LVs only
        guest = state.guests.get(owner)
        if guest is not None and guest.get("node") != node and not g.storage_shared(state, sid):
            continue  # on that guest's node's local storage, not this node's
        content = "rootdir" if guest is not None and guest["type"] == "lxc" else "images"
        if content != wanted:
            continue
        entry = _image_entry(state, sid, scfg, volname, info, owner)
        entry["content"] = content
        res.append(entry)
    return res


def _archive_ctime(match):
    """Storage::archive_info: the backup's time from its name (timelocal)."""
    year, month, day, hour, minute, second = (int(x) for x in match.groups()[2:])
    return int(time.mktime((year, month, day, hour, minute, second, 0, 0, -1)))


def _files(state, sid, node, content, vmid):
    """Plugin.pm $get_subdir_files for one content type of a storage with a path, as ``node`` has it."""
    res = []
    prefix = content + "/"
    for volname, info in g.node_files(state, sid, node).items():
        if info.get("content") != content or not volname.startswith(prefix):
            continue
        name = volname[len(prefix):]
        entry = None
        if content == "iso" and ISO_RE.match(name):
            entry = {"volid": f"{sid}:iso/{name}", "format": "iso"}
        elif content == "vztmpl" and VZTMPL_RE.match(name):
            m = VZTMPL_RE.match(name)
            entry = {"volid": f"{sid}:vztmpl/{name}", "format": "tar" if m.group(1) else "t" + m.group(2)}
        elif content == "backup" and BACKUP_RE.match(name):
            if vmid is not None and not re.search(rf"\S+-{vmid}-\S+", name):
                continue
            entry = {"volid": f"{sid}:backup/{name}", "format": BACKUP_RE.match(name).group(1)}
            parsed = BACKUP_NAME.match(name)
            if parsed:
                entry["ctime"] = _archive_ctime(parsed)
            entry["subtype"] = parsed.group(1) if parsed else "unknown"
            owner = re.search(rf"-([1-9][0-9]{{2,8}})-[^/]+\.{re.escape(entry['format'])}$", name)
            if vmid is not None or owner:
                entry["vmid"] = vmid if vmid is not None else int(owner.group(1))
            # Plugin.pm list_volumes (get_subdir_files): the .notes file's text, and the .protected file's mark
            if info.get("notes") is not None:
                entry["notes"] = info["notes"]
            if info.get("protected"):
                entry["protected"] = 1
        elif content == "snippets":
            entry = {"volid": f"{sid}:snippets/{name}", "format": "snippet"}
        elif content == "import" and IMPORT_RE.match(name):
            entry = {"volid": f"{sid}:import/{name}", "format": IMPORT_RE.match(name).group(1)}
        if entry is None:
            continue
        entry["size"] = int(info.get("size") or 0)
        entry.setdefault("ctime", info.get("ctime") or _ctime(state, sid, volname))
        entry["content"] = content
        res.append(entry)
    return res


def volume_list(state, sid, node, vmid=None, content=None):
    """Storage::volume_list: the storage's content types (or the one asked for), activate_storage (enabled on
    ``node``), the plugin's list_volumes, sorted by lower-cased volid."""
    scfg, held = g.storage_content(state, sid)
    types = [t for t in ([content] if content else CONTENT_TYPES) if t in held]
    g.check_storage_enabled(state, sid, node)
    res = []
    for ctype in types:
        if ctype in ("images", "rootdir"):
            res += _images(state, sid, scfg, node, vmid, ctype)
        elif scfg["type"] in g.FILE_STORAGES:  # $scfg->{path}
            if ctype in ("iso", "vztmpl") and vmid is not None:
                continue
            res += _files(state, sid, node, ctype, vmid)
    res.sort(key=lambda item: item["volid"].lower())
    return res


# -- volume names and access ---------------------------------------------------------------------

def parse_volname(state, volid):
    """The plugin's parse_volname: (vtype, owner vmid or None, is base); dies as the plugin does."""
    sid, volname = g.parse_volid(volid)
    scfg = state.storage_config(sid)
    if scfg["type"] in g.FILE_STORAGES:
        m = re.match(r"^(iso|vztmpl|backup|snippets|import)/(.+)$", volname)
        if m:
            owner = re.match(r"^vzdump-(?:openvz|lxc|qemu)-(\d+)-.", m.group(2)) if m.group(1) == "backup" else None
            return m.group(1), int(owner.group(1)) if owner else None, False
    vtype, owner, is_base = g.parse_volname(state, volid)
    return vtype, owner, is_base


def check_volume_access(ctx, volid, noerr=False):
    """Storage::check_volume_access($rpcenv, $user, $cfg, undef, $volid)."""
    access, authid = ctx.access, ctx.authid
    sid = g.parse_volid(volid)[0]
    try:
        vtype, owner, _base = parse_volname(ctx.state, volid)
        if access.check(authid, f"/storage/{sid}", ["Datastore.Allocate"], True):
            return True
        if vtype in ("iso", "vztmpl", "import"):
            access.check_any(authid, f"/storage/{sid}", ["Datastore.AllocateSpace", "Datastore.Audit"])
        elif vtype == "backup" and owner:
            access.check(authid, f"/storage/{sid}", ["Datastore.AllocateSpace"])
            access.check(authid, f"/vms/{owner}", ["VM.Backup"])
        elif vtype in ("images", "rootdir") and owner:
            access.check(authid, f"/storage/{sid}", ["Datastore.Audit"])
            access.check(authid, f"/vms/{owner}", ["VM.Config.Disk"])
        else:
            raise die(f"missing privileges to access {volid}")
    except ApiError:
        if noerr:
            return False
        raise
    return True


def real_volume_id(storage, volume):
    """Content.pm $real_volume_id: a volume name without a storage takes the path's."""
    if ":" not in volume:
        return f"{storage}:{volume}", storage
    sid = g.parse_volid(volume)[0]
    if sid is None:
        raise param_exc({"volume": f"unable to parse volume ID '{volume}'\n"})
    if storage and sid != storage:
        raise param_exc({"volume": f"storage ID mismatch ({sid} != {storage})\n"})
    return volume, sid


def volume_path(state, volid):
    """Storage::path: the plugin's path of a volume."""
    sid, volname = g.parse_volid(volid)
    scfg = state.storage_config(sid)
    stype = scfg["type"]
    vtype = parse_volname(state, volid)[0]
    own = _own(volname)[0]
    if stype in g.FILE_STORAGES:
        subdir = (scfg.get("content-dirs") or {}).get(vtype) or SUBDIRS[vtype]
        name = own if vtype in ("images", "rootdir") else volname.split("/", 1)[1]
        path = f"{scfg['path'].rstrip('/')}/{subdir.strip('/')}/{name}"
        if stype == "btrfs" and vtype == "images" and not re.search(r"\.(qcow2|vmdk|subvol)$", name):
            path = re.sub(r"\.raw$", "", path) + "/disk.raw"  # BTRFSPlugin: a raw image lives in a subvolume
        return path
    if stype in ("lvm", "lvmthin"):
        return f"/dev/{scfg['vgname']}/{own}"
    if stype == "zfspool":
        if own.startswith(("subvol-", "basevol-")):
            return f"{scfg.get('mountpoint') or '/' + scfg['pool']}/{own}"
        return f"/dev/zvol/{scfg['pool']}/{own}"
    if stype == "rbd":
        pool = scfg.get("pool") or "rbd"
        if scfg.get("namespace") is not None:
            pool += f"/{scfg['namespace']}"
        path = f"rbd:{pool}/{own}"
        if scfg.get("monhost") is None:
            path += ":conf=/etc/pve/ceph.conf"
        else:
            hosts = ";".join(re.split(r"[,; ]+", scfg["monhost"].strip())).replace(":", "\\:")
            keyring = "keyring" in state.storage_secrets.get(sid, {})
            path += f":conf=/etc/pve/priv/ceph/{sid}.conf:mon_host={hosts}"
            path += f":auth_supported={'cephx' if keyring else 'none'}"
        if "keyring" in state.storage_secrets.get(sid, {}):
            path += f":id={scfg.get('username') or 'admin'}:keyring=/etc/pve/priv/ceph/{sid}.keyring"
        return path
    raise ApiError(501, f"Method 'GET {BASE}/{{volume}}' not implemented by the simulator for storage type "
                        f"'{stype}'", exception=False)


# -- the methods ------------------------------------------------------------------------------------

@route("GET", BASE)
def index(ctx, p):
    """Content.pm index: volume_list, then only the volumes check_volume_access lets the caller see."""
    items = volume_list(ctx.state, p["storage"], p["node"], p.get("vmid"), p.get("content"))
    return [item for item in items if check_volume_access(ctx, item["volid"], noerr=True)]


def _missing(state, volid, path):
    """What volume_size_info dies with when the volume is not there."""
    stype = state.storage_config(g.parse_volid(volid)[0])["type"]
    if stype in ("lvm", "lvmthin"):
        vg_lv = path[len("/dev/"):]
        return die(f"can't get size of '{path}':   Failed to find logical volume \"{vg_lv}\"")
    return die(f"volume_size_info on '{volid}' failed - no format")


def virtual_size(state, volid, node=None):
    """What qemu-img info says a volume holds: a qcow2 file's virtual size (the big-endian u64 at offset 24 of its
    header), else its size; None when there is no such volume (on ``node``, for a node's own file)."""
    found = g.volume(state, volid, node)
    if found is None:
        return None
    data = found.get("data")
    if data is not None and volid.lower().endswith(".qcow2") and data[:4] == QCOW2_MAGIC and len(data) >= 32:
        return struct.unpack(">Q", data[24:32])[0]
    return int(found.get("size") or 0)


@route("GET", BASE + "/{volume}")
def info(ctx, p):
    """Content.pm info: check_volume_access, path, volume_size_info."""
    state = ctx.state
    volid, _sid = real_volume_id(p.get("storage"), p["volume"])
    check_volume_access(ctx, volid)
    path = volume_path(state, volid)
    found = g.volume(state, volid, p["node"])
    if found is None:
        raise _missing(state, volid, path)
    sid, volname = g.parse_volid(volid)
    stype = state.storage_config(sid)["type"]
    vtype = parse_volname(state, volid)[0]
    if vtype in ("images", "rootdir"):
        fmt = _image_format(found, volname)
    else:  # Plugin.pm parse_volname: 'raw' for every file but an import, whose extension it is
        fmt = volname.rsplit(".", 1)[-1].lower() if vtype == "import" else "raw"
    size = int(found.get("size") or 0)
    if not size and fmt != "subvol":
        raise die(f"volume '{volid}' has size zero")
    used = 0 if stype in ("lvm", "lvmthin") and fmt == "raw" else size
    if vtype == "import" and fmt == "qcow2":
        size = virtual_size(state, volid, p["node"])
    return {"path": path, "size": size, "used": used, "format": fmt}


@route("DELETE", BASE + "/{volume}")
def delete(ctx, p):
    """Content.pm delete: the privileges by content type, then the ``imgdel`` task (Storage::vdisk_free)."""
    state, node = ctx.state, p["node"]
    volid, sid = real_volume_id(p.get("storage"), p["volume"])
    vtype, owner, is_base = parse_volname(state, volid)
    path = volume_path(state, volid) if state.storage_config(sid)["type"] in g.FILE_STORAGES else None
    if vtype == "backup" and owner:
        ctx.access.check(ctx.authid, f"/storage/{sid}", ["Datastore.AllocateSpace"])
        ctx.access.check(ctx.authid, f"/vms/{owner}", ["VM.Backup"])
    else:
        ctx.access.check(ctx.authid, f"/storage/{sid}", ["Datastore.Allocate"])

    def work(log):
        g.check_storage_enabled(state, sid, node)  # activate_storage
        volname = g.parse_volid(volid)[1]
        if is_base and g.linked_clones(state, volid):
            raise die(f"base volume '{volname}' is still in use by linked clones")
        if g.volume(state, volid, node) is None:
            if path is not None:
                log.append(f"disk image '{path}' does not exist")  # Plugin.pm free_image warns, returns
        else:
            g.remove_volume(state, volid, node)
        state.volume_ctimes.pop(f"{sid}:{volname}", None)
        log.append(f"Removed volume '{volid}'")

    upid = g.run_task(ctx, node, "imgdel", f"{owner}@{sid}" if owner is not None else sid, work)
    if p.get("delay"):
        status = state.tasks[upid].exitstatus
        if status != "OK" and not status.startswith("WARNINGS"):
            raise die(status)
        return None
    return upid
