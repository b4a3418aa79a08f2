"""/nodes/{node}/qemu: virtual machines (qemu-server 9, PVE 9).

Ports ``API2/Qemu.pm`` (create_vm with create_disks and check_storage_access, update_vm_api for
``PUT`` and ``POST .../config``, destroy_vm, resize_vm, clone_vm, template, vm_start, vm_stop,
vm_shutdown, vm_reboot), ``API2/Qemu/Agent.pm`` with ``QemuServer/Agent.pm`` (network-get-interfaces,
assert_agent_available) and ``QemuServer.pm`` (vmconfig_hotplug_pending, vmconfig_apply_pending,
vmconfig_update_disk/net/agent, get_default_bootdevices, print_bootorder, template_create,
_do_vm_stop). Reads, the pending array, snapshots and /cluster/resources are in ``guests.py``.

* Create (``qmcreate``): ``<storage>:<GiB>`` disks get new volumes, allocated in key order
  (``efidisk0`` before ``scsi0``), and are written ``<volid>,<options sorted>,size=<n>G`` as
  ``print_drive`` sorts them (``size`` among the options); an ISO gets its ``size``; ``efidisk0``
  is the OVMF vars file (128K for 2m, 528K for 4m, an LV rounds that to 4M), ``tpmstate0`` 4M.
  NICs get a MAC; ``smbios1``, ``vmgenid``, ``meta`` and ``boot`` (first disk, first CD-ROM, first
  NIC) are added. A used vmid answers ``unable to create VM 101 - CT 101 already exists on node
  'node1'`` at once.
* Import (create and update, ``$check_drive_param``, ``$check_storage_access``, ``create_disks`` with
  ``$import_from_volid`` and ``clone_disk``): ``<storage>:0,import-from=<source>`` copies a volume of content
  ``import`` (qcow2, raw, vmdk) or a guest's images volume to a new disk as large as the source (a qcow2's
  virtual size), in its format where the storage takes it; the drive is written without ``import-from`` and
  with the new volume's ``size``. The checks answer before the task (wrong syntax, wrong content type, access);
  a missing source fails the task as PVE does. A disk inside an OVA (extracted first by PVE) and a host path
  answer 501 "not simulated".
* Update: ``PUT`` answers when done, ``POST`` is the ``qmconfig`` task; digest, lock and a missing
  guest are refused before either. On a running VM the ``FAST_PLUG`` options apply at once, the
  rest as ``vmconfig_hotplug_pending`` would with the VM's ``hotplug`` (default
  ``network,disk,usb``): NICs and scsi/virtio disks live, memory and CPUs only with their hotplug
  feature, everything else waits in ``[PENDING]`` for the next start or reboot.
* Resize is a task whose every check runs in the task (``shrinking disks is not supported``).
* The guest agent's ``network-get-interfaces`` answers ``{"result": [...]}`` (the interfaces of
  ``guests.reported_interfaces``) or dies as ``assert_agent_available`` does; ``state.agent_unresponsive``
  (vmids) makes a configured agent silent.
* Shutdown of a VM in ``state.shutdown_ignored`` fails with ``VM quit/powerdown failed - got
  timeout``; with ``forceStop=1`` it is terminated (``WARNINGS: 1``). Start of a running VM fails
  its task with ``VM 100 already running``; stop and shutdown of a stopped VM succeed.
"""

import re
import time

from ...errors import ApiError, die, die_at, locked, param_exc, perm_exc
from ...formats import split_list
from . import cloudinit as ci
from . import guest_rights as rights
from . import guests as g
from . import storage_content as sc
from . import vzdump as vz
from .base import route

TYP = "qemu"
BASE = "/nodes/{node}/qemu"
DRIVE_KEY = re.compile(r"^((ide|sata|scsi|virtio)\d+|efidisk0|tpmstate0)$")
BOOT_DRIVES = ([f"ide{i}" for i in range(4)] + [f"scsi{i}" for i in range(31)]
               + [f"virtio{i}" for i in range(16)] + [f"sata{i}" for i in range(6)])
NEW_DISK = re.compile(r"^(([^/:\s]+):)?(\d+(\.\d+)?)$")
QEMU_VERSION = "10.1.2"  # pve-qemu-kvm of PVE 9.1 (meta: creation-qemu)
EFIVARS_SIZE = {"2m": 128 * 1024, "4m": 528 * 1024}  # OVMF_VARS.fd / OVMF_VARS_4M.fd
TPMSTATE_SIZE = 4 * 1024 ** 2
SNAPSHOT_KEYS = ("snapshots", "parent", "snaptime", "vmstate", "snapstate", "runningcpu", "runningmachine",
                 "running-nets-host-mtu")
EXTRA_OPTIONS = ("vmstate", "meta", "parent", "snaptime", "runningmachine", "runningcpu")
# $check_drive_param: what an imported EFI disk and TPM state must say besides import-from.
IMPORT_NEEDS = {"efidisk0": ("efitype", "pre-enrolled-keys"), "tpmstate0": ("version",)}
# pve-storage Plugin.pm parse_volname's import volumes: one disk inside an OVA ("ova+<format>"), or a file whose
# extension is its format; Drive.pm $QEMU_FORMAT_RE is what QEMU can read.
_SAFE = r"[ a-zA-Z0-9\-.+=_]+"
OVA_DISK = re.compile(rf"^import/({_SAFE}\.ova/{_SAFE}\.(qcow2|raw|vmdk))$")
IMPORT_FILE = re.compile(rf"^import/({_SAFE}\.(ova|ovf|qcow2|raw|vmdk))$")
QEMU_FORMATS = ("raw", "qcow", "qcow2", "qed", "vmdk", "cloop")

# vmconfig_hotplug_pending: applied on a running VM whatever its hotplug setting ($fast_plug_option
# and the cloud-init options), and the hotplug feature the other live changes need.
FAST_PLUG = {"description", "hookscript", "lock", "migrate_downtime", "migrate_speed", "name", "onboot",
             "protection", "shares", "startup", "tags", "vmstatestorage", "cicustom", "cipassword", "citype",
             "ciuser", "ciupgrade", "nameserver", "searchdomain", "sshkeys"}
LIVE_ALWAYS = re.compile(r"^(cpuunits|cpulimit|ipconfig\d+)$")
NEEDS_FEATURE = [(re.compile(r"^(tablet|usb\d+)$"), "usb"), (re.compile(r"^vcpus$"), "cpu"),
                 (re.compile(r"^memory$"), "memory"), (re.compile(r"^net\d+$"), "network"),
                 (re.compile(r"^(scsi|virtio)\d+$"), "disk")]


def _fmt(key):
    return g.option_format(TYP, key)


def parse_drive(key, text):
    return g.parse_ps(_fmt(key), text)


def print_drive(key, drive):
    return g.print_ps(drive, _fmt(key))


def is_cdrom(drive):
    return drive.get("media") == "cdrom"


def normalised_net(state, text):
    """parse_net + print_net: ``<model>=<mac>`` first, a new MAC when none is set."""
    net = g.parse_ps(_fmt("net0"), text)
    net.setdefault("macaddr", g.random_mac(state))
    return g.print_ps(net, _fmt("net0"))


def _hotplug_features(conf):
    """parse_hotplug_features: ``1`` (the default) is network,disk,usb; ``0`` none."""
    value = str(conf.get("hotplug", "1"))
    if value == "1":
        return {"network", "disk", "usb"}
    return set() if value == "0" else set(split_list(value))


def _boot_order(conf):
    m = re.search(r"(?:^|,)order=([^,]*)", conf.get("boot") or "")
    return [d for d in (m.group(1).split(";") if m else []) if d]


def _default_boot(conf):
    """get_default_bootdevices: the first disk, the first CD-ROM, the first NIC."""
    devs = []
    for want_cdrom in (False, True):
        for key in BOOT_DRIVES:
            if key in conf and is_cdrom(parse_drive(key, conf[key])) == want_cdrom:
                devs.append(key)
                break
    devs += [f"net{i}" for i in range(32) if f"net{i}" in conf][:1]
    return "order=" + ";".join(devs)


# -- volumes -----------------------------------------------------------------------------------

def _owned_volume(state, vmid, drive):
    """The drive's volume when the VM owns it (vm_is_volid_owner), else None."""
    volid = drive.get("file", "")
    sid = g.parse_volid(volid)[0]
    if is_cdrom(drive) or sid is None or sid not in state.storage:
        return None
    try:
        return volid if g.parse_volname(state, volid)[1] == vmid else None
    except ApiError:
        return None


def _register_unused(state, vmid, conf, drive):
    """vmconfig_register_unused_drive (write_vm_config drops an unusedN whose volume is in use)."""
    volid = _owned_volume(state, vmid, drive)
    in_use = any(DRIVE_KEY.match(k) and parse_drive(k, v).get("file") == volid for k, v in conf.items())
    if volid and not in_use:
        g.add_unused_volume(conf, volid)


def check_drive_param(state, params):
    """$check_drive_param: an import is ``<storage>:0,import-from=<source>`` (an EFI disk with efitype and
    pre-enrolled-keys, a TPM state with version); ISO images need media=cdrom; every drive is printed the PVE way."""
    for key in sorted(k for k in params if DRIVE_KEY.match(k)):
        drive = parse_drive(key, params[key])
        volid = drive.get("file", "")
        if drive.get("import-from"):
            new = NEW_DISK.match(volid)
            if not new or float(new.group(3)) != 0:
                raise param_exc({key: "'import-from' requires special syntax - use <storage ID>:0,"
                                      "import-from=<source>"})
            for required in IMPORT_NEEDS.get(key, ()):
                if drive.get(required) is None:
                    raise param_exc({key: f"need to specify '{required}' when using 'import-from'"})
        sid, volname = g.parse_volid(volid)
        if sid and not NEW_DISK.match(volid) and volname != "cloudinit":
            if g.parse_volname(state, volid)[0] == "iso" and not is_cdrom(drive):
                raise param_exc({key: "explicit 'media=cdrom' is required for iso images"})
        params[key] = print_drive(key, drive)


def checked_parse_volname(state, volid):
    """Drive.pm checked_parse_volname over the plugin's parse_volname: (content type, owner vmid, format); an
    import volume's format is its extension (``ova+<format>`` for a disk inside an OVA), QEMU must read it."""
    from .guest_disks import volume_format  # guest_disks imports this module
    vtype, owner, _base = g.parse_volname(state, volid)
    volname = g.parse_volid(volid)[1]
    fmt = "raw"
    if vtype == "import":
        ova, plain = OVA_DISK.match(volname), IMPORT_FILE.match(volname)
        if not (ova or plain):
            raise die(f"unable to parse directory volume name '{volname}'")
        if ova:
            return vtype, owner, f"ova+{ova.group(2)}"
        fmt = plain.group(2)
    elif vtype == "images":
        fmt = volume_format(state, volid)
    if fmt not in QEMU_FORMATS:
        raise die(f"volume '{volid}' - not a QEMU image format '{fmt}'")
    return vtype, owner, fmt


def _check_import_access(ctx, key, source, extraction_storage):
    """$check_storage_access for ``import-from``: a volume of content images or import (a disk inside an OVA also
    needs a file based working storage for images), then VM.Clone on the owner of a guest's disk or access to the
    volume (a host path is root@pam's)."""
    state = ctx.state
    sid = g.parse_volid(source)[0]
    owner = None
    if sid:
        state.storage_config(sid)  # "storage '<id>' does not exist"
        vtype, owner, fmt = checked_parse_volname(state, source)
        if vtype not in ("images", "import"):
            raise param_exc({key: f"{source} has wrong type '{vtype}' - needs to be 'images' or 'import'"})
        if vtype == "import" and fmt.startswith("ova+"):  # Helpers.pm needs_extraction
            working = extraction_storage or sid
            scfg, content = g.storage_content(state, working)
            if "images" not in content or scfg["type"] not in g.FILE_STORAGES:
                param = "import-working-storage" if extraction_storage else key
                raise param_exc({param: f"import working storage '{working}' does not support 'images' content "
                                        "type or is not file based."})
            ctx.access.check(ctx.authid, f"/storage/{working}", ["Datastore.AllocateSpace"])
    if owner:
        ctx.access.check(ctx.authid, f"/vms/{owner}", ["VM.Clone"])
    else:
        g.check_volume_access(ctx, source)


def check_storage_access(ctx, params, default_storage, extraction_storage=None):
    """$check_storage_access for the drives and unused volumes of a request."""
    state = ctx.state
    for key in sorted(k for k in params if DRIVE_KEY.match(k)):
        drive = parse_drive(key, params[key])
        volid = drive.get("file", "")
        new = NEW_DISK.match(volid)
        if volid in ("", "none", "cloudinit") or volid.endswith(":cloudinit"):
            continue
        if is_cdrom(drive) and volid == "cdrom":
            ctx.access.check(ctx.authid, "/", ["Sys.Console"])
        elif not is_cdrom(drive) and new:
            sid = new.group(2) or default_storage
            if not sid:
                raise die("no storage ID specified (and no default storage)")
            ctx.access.check(ctx.authid, f"/storage/{sid}", ["Datastore.AllocateSpace"])
            if "images" not in g.storage_content(state, sid)[1]:
                raise param_exc({"storage": f"storage '{sid}' does not support vm images"})
        else:
            g.check_volume_access(ctx, volid)
            if g.parse_volid(volid)[0] and g.parse_volname(state, volid)[0] not in ("images", "iso"):
                raise param_exc({key: "content type needs to be 'images' or 'iso'"})
        if drive.get("import-from"):
            _check_import_access(ctx, key, drive["import-from"], extraction_storage)
    for key in sorted(k for k in params if k.startswith("unused")):
        g.check_volume_access(ctx, g.parse_ps(_fmt(key), params[key])["file"], "images")


def create_disks(state, vmid, conf, settings, default_storage, node, log):
    """API2/Qemu.pm create_disks: allocate ``<storage>:<GiB>`` disks (key order), size the rest."""
    res = {}
    template = str(conf.get("template", "0")) == "1"
    for key in sorted(k for k in settings if DRIVE_KEY.match(k)):
        drive = parse_drive(key, settings[key])
        volid = drive.get("file", "")
        new = NEW_DISK.match(volid)
        if volid in ("", "none", "cdrom"):
            drive.pop("size", None)
        elif volid.endswith("cloudinit"):
            sid = g.parse_volid(volid)[0] or default_storage
            if not sid:
                raise die("no storage ID specified (and no default storage)")
            drive["file"] = _alloc_cloudinit(state, sid, vmid)
            drive["media"] = "cdrom"
            drive.pop("format", None)
        elif new and drive.get("import-from"):
            sid = new.group(2) or default_storage
            if not sid:
                raise die("no storage ID specified (and no default storage)")
            g.check_storage_enabled(state, sid, node)
            drive["file"] = import_disk(state, vmid, node, key, drive, sid, drive.pop("import-from"), log)
            drive.pop("format", None)
            drive["size"] = g.volume(state, drive["file"])["size"]
        elif new:
            sid = new.group(2) or default_storage
            if not sid:
                raise die("no storage ID specified (and no default storage)")
            g.check_storage_enabled(state, sid, node)
            size = int(float(new.group(3)) * 1024 * 1024) * 1024
            if key == "efidisk0":
                size = EFIVARS_SIZE.get(drive.get("efitype", "2m"), EFIVARS_SIZE["2m"])
            elif key == "tpmstate0":
                size = TPMSTATE_SIZE
            new_volid = g.alloc_volume(state, sid, vmid, size, "images", fmt=drive.pop("format", None))
            if template:
                new_volid = g.rename_to_base(state, new_volid)
            drive["file"] = new_volid
            drive["size"] = g.volume(state, new_volid)["size"]
        else:
            sid = g.parse_volid(volid)[0]
            if sid:
                if g.parse_volname(state, volid)[0] not in ("images", "iso"):
                    # API2/Qemu.pm $create_disks dies without a newline (qemu-server e6352be, line 688)
                    raise die_at(f"cannot use volume {volid} - content type needs to be 'images' or 'iso'",
                                 "PVE/API2/Qemu.pm", 688)
                info = g.volume(state, volid)
                if info is None:
                    raise die(f"volume {volid} does not exist")
                drive["size"] = info["size"]
        res[key] = print_drive(key, drive)
        if new:
            log.append(f"{key}: successfully created disk '{res[key]}'")
    return res


def source_size(state, volid, node):
    """Storage::volume_size_info of an import source on ``node``: what qemu-img info says (a qcow2's virtual size,
    storage_content.virtual_size); None when there is no such volume."""
    return sc.virtual_size(state, volid, node)


def _source_drive(state, owner, node, source):
    """$import_from_volid's source VM: none for an import file; the drive of its owner that holds the volume."""
    other = state.guests.get(owner) if owner else None
    if other is None:
        return None
    if other["node"] != node:
        raise die(f"owner VM {owner} not on local node")
    conf = other.get("config") or {}
    return next((k for k in sorted(conf) if DRIVE_KEY.match(k) and parse_drive(k, conf[k]).get("file") == source),
                None)


def import_disk(state, vmid, node, key, drive, sid, source, log):
    """create_disks' import-from branch: $import_from_volid and clone_disk, a full copy of ``source`` allocated on
    ``sid`` as large as the source (an EFI disk as its vars file, a TPM state 4 MiB), in the source's format when
    the storage takes it. Returns the new volid. An import file is untrusted: it is checked (``failed to stat``)
    before the copy, whose errors read ``cannot import from '<source>' - ...``. Not simulated (501): a disk inside
    an OVA, which PVE first extracts to a working storage, and a host path (root@pam's ``qm disk import``)."""
    if g.parse_volid(source)[0] is None:
        raise ApiError(501, f"importing '{source}' from a host path is not simulated", exception=False)
    vtype, owner, fmt = checked_parse_volname(state, source)
    if fmt.startswith("ova+"):
        raise ApiError(501, f"extracting {source} (a disk inside an OVA) is not simulated", exception=False)
    if vtype == "import" and g.volume(state, source, node) is None:
        raise die(f"failed to stat '{sc.volume_path(state, source)}'")  # file_size_info, untrusted
    from .guest_disks import resolve_format_hint  # guest_disks imports this module
    try:
        size = source_size(state, source, node)
        if not size:
            raise die(f"could not get size of {source}")
        if g.has_cloudinit_drive({"ide0": source}):
            raise die("cannot import from cloudinit disk")
        drivename = _source_drive(state, owner, node, source)
        if drivename and drivename != key:
            for special, what in (("efidisk0", "EFI disk"), ("tpmstate0", "TPM state")):
                if special in (drivename, key):
                    raise die(f"cloning from/to {what} requires {what}")
        log.append(f"create full clone of drive {drivename + ' ' if drivename else ''}({source})")
        dst_format = resolve_format_hint(state, sid, drive.get("format") or fmt)
        if drive.get("format") and drive["format"] != dst_format:
            log.append(f"format '{drive['format']}' is not supported by the target storage '{sid}' - using "
                       f"'{dst_format}' instead")
        if key == "efidisk0":
            size = EFIVARS_SIZE.get(drive.get("efitype", "2m"), EFIVARS_SIZE["2m"])
        elif key == "tpmstate0":
            size = TPMSTATE_SIZE
        new_volid = g.alloc_volume(state, sid, vmid, size, "images", fmt=dst_format)
        log.append(f"allocated target volume '{new_volid}'")
        if key != "efidisk0":  # QemuImage::convert's progress (an EFI disk is copied by qemu-img dd, silently)
            total = _render_bytes(size)
            log.append(f"transferred 0.0 B of {total} (0.00%)")
            log.append(f"transferred {total} of {total} (100.00%)")
    except ApiError as err:
        raise die(f"cannot import from '{source}' - {err.stringify()}") from err
    return new_volid


def _render_bytes(value):
    """PVE::Format render_bytes with precision 1."""
    units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
    unit = 0
    while value > 1023 and unit < len(units) - 1:
        value /= 1024
        unit += 1
    return f"{value:.1f} {units[unit]}"


def _alloc_cloudinit(state, sid, vmid):
    """The cloud-init drive ``vm-<vmid>-cloudinit`` (4 MiB)."""
    scfg = state.storage_config(sid)
    volname = (f"{vmid}/vm-{vmid}-cloudinit.qcow2" if scfg["type"] in g.FILE_STORAGES
               else f"vm-{vmid}-cloudinit")
    fmt = "qcow2" if "/" in volname else "raw"
    vols = g.ensure_volumes(state).setdefault(sid, {})
    vols[volname] = {"size": 4 * 1024 ** 2, "vmid": vmid, "format": fmt, "content": "images"}
    return f"{sid}:{volname}"


def _free_owned(state, vmid, drive, log=None):
    """Free a volume the VM owns; with ``log`` a failure is a warning (destroy_vm)."""
    volid = _owned_volume(state, vmid, drive)
    if not volid:
        return 0
    try:
        g.free_volume(state, volid)
    except ApiError as err:
        if log is None:
            raise
        log.append(f"Could not remove disk '{volid}', check manually: {err.message.rstrip()}")
        return 1
    return 0


# -- pending -----------------------------------------------------------------------------------

def _apply_delete(state, guest, vmid, key, force):
    """vmconfig_delete_or_detach_drive for a drive (forced: the volume goes), then the key."""
    conf = guest["config"]
    if DRIVE_KEY.match(key) and key in conf:
        drive = parse_drive(key, conf.pop(key))
        if force:
            _free_owned(state, vmid, drive)
        else:
            _register_unused(state, vmid, conf, drive)
    conf.pop(key, None)
    guest["pending_delete"].pop(key, None)


def _apply_value(state, guest, vmid, key):
    conf = guest["config"]
    value = guest["pending"].pop(key)
    old = conf.get(key)
    conf[key] = value
    if DRIVE_KEY.match(key) and old is not None:
        _register_unused(state, vmid, conf, parse_drive(key, old))


def apply_pending(state, guest, vmid):
    """vmconfig_apply_pending: a stopped VM takes every pending change."""
    for key, force in sorted(guest["pending_delete"].items()):
        _apply_delete(state, guest, vmid, key, force)
    g.cleanup_pending(guest)
    new_cloudinit_drive = False
    for key in sorted(guest["pending"]):
        new_cloudinit_drive |= bool(DRIVE_KEY.match(key) and g.has_cloudinit_drive({key: guest["pending"][key]}))
        _apply_value(state, guest, vmid, key)
    if new_cloudinit_drive:
        ci.apply_config(state, guest)


def _disk_live(conf, key, value, features):
    """vmconfig_update_disk on a running VM: True (applied), False (stays pending) or an error."""
    if key in ("efidisk0", "tpmstate0"):
        return False
    new = parse_drive(key, value)
    if key in conf:
        old = parse_drive(key, conf[key])
        if new.get("media", "disk") != old.get("media", "disk"):
            raise die("unable to change media type")
        if is_cdrom(old):
            return True
        if new.get("file") != old.get("file"):
            return "disk" in features
        cold = ("aio", "discard", "iothread", "queues", "cache", "ssd", "product", "vendor", "ro")
        return all(new.get(k) == old.get(k) for k in cold)
    return "disk" in features and not re.match(r"^(ide|sata)\d+$", key)


def _net_live(conf, key, value, features):
    """vmconfig_update_net: bridge/tag/trunks/firewall/rate/link_down change live, anything else
    (model, MAC, queues, mtu, a NIC without bridge, a new NIC) needs the network hotplug."""
    if key in conf:
        old, new = (g.parse_ps(_fmt(key), text) for text in (conf[key], value))
        if all(old.get(k) == new.get(k) for k in ("model", "macaddr", "queues", "mtu")) \
                and old.get("bridge") and new.get("bridge"):
            return True
    return "network" in features


def _agent_live(conf, value):
    """vmconfig_update_agent: only fstrim_cloned_disks changes live."""
    if not conf.get("agent"):
        return False
    fmt = _fmt("agent")
    old, new = (g.parse_ps(fmt, text) for text in (conf["agent"], value))
    return {k: v for k, v in old.items() if k != "fstrim_cloned_disks"} == \
        {k: v for k, v in new.items() if k != "fstrim_cloned_disks"}


def _needs(key, features):
    for pattern, feature in NEEDS_FEATURE:
        if pattern.match(key):
            return feature in features
    return None


def hotplug_pending(state, guest, vmid):
    """vmconfig_hotplug_pending: what a running VM takes now; the rest stays pending."""
    conf, pending = guest["config"], guest["pending"]
    features = _hotplug_features(conf)
    errors = {}
    for key in [k for k in pending if k in FAST_PLUG]:
        new = pending.pop(key)
        ci.record_live_change(guest, key, conf.get(key), new)
        conf[key] = new
    for key, force in sorted(guest["pending_delete"].items()):
        live = key in FAST_PLUG or LIVE_ALWAYS.match(key)
        if key == "hotplug":
            live = not re.search(r"cpu|memory", str(conf.get("hotplug", "")))
        elif key == "balloon":
            live = str(conf.get("balloon", "1")) != "0"
        elif DRIVE_KEY.match(key):
            live = "disk" in features and not re.match(r"^(efidisk|ide|sata|tpmstate)\d+$", key)
        elif _needs(key, features) is not None:
            live = _needs(key, features)
        if live:
            old = conf.get(key)
            _apply_delete(state, guest, vmid, key, force)
            ci.record_live_change(guest, key, old, None)
    for key in sorted(pending):
        value = pending[key]
        try:
            if key == "hotplug":
                live = not re.search(r"cpu|memory", f"{value} {conf.get('hotplug', '')}")
            elif key == "balloon":
                live = (str(conf.get("balloon", "1")) != "0") == (str(value) != "0")
            elif key == "agent":
                live = _agent_live(conf, value)
            elif re.match(r"^net\d+$", key):
                live = _net_live(conf, key, value, features)
            elif DRIVE_KEY.match(key):
                live = _disk_live(conf, key, value, features)
            elif LIVE_ALWAYS.match(key):
                live = True
            else:
                live = bool(_needs(key, features))
        except ApiError as err:
            errors[key] = f"hotplug problem - {err.message.rstrip()}"
            continue
        if live:
            old = conf.get(key)
            _apply_value(state, guest, vmid, key)
            ci.record_live_change(guest, key, old, conf.get(key))
    if "cloudinit" in features and ci.has_changes(guest):
        ci.update_drive(state, guest)
    return errors


# -- create -----------------------------------------------------------------------------------

def _resolve_cdrom(params):
    value = params.pop("cdrom", None)
    if value:
        params["ide2"] = value if "media=" in value else value + ",media=cdrom"


# -- restore (create_vm with archive) -----------------------------------------------------------

def _restored_line(state, vmid, key, value, storage, unique):
    """QemuServer.pm restore_update_config_line for one key of the archived config: None drops it. A disk gets
    a new volume (restore_allocate_devices: the archive's storage unless ``storage``), as large as it was."""
    if key.startswith("unused") or key in SNAPSHOT_KEYS:
        return None
    if DRIVE_KEY.match(key):
        drive = parse_drive(key, value)
        if str(drive.get("backup", "1")) == "0":
            return None  # vzdump left it out ("#" before the line)
        sid = g.parse_volid(drive.get("file", ""))[0]
        if is_cdrom(drive) or sid is None:
            return value
        target = storage or sid
        if "images" not in g.storage_content(state, target)[1]:  # QemuServer.pm $parse_backup_hints' check
            raise die(f"Content type 'images' is not available on storage '{target}'")
        size = drive.get("size") or int((g.volume(state, drive["file"]) or {}).get("size") or g.GIB)
        drive.pop("format", None)  # format can change on restore
        drive["file"] = g.alloc_volume(state, target, vmid, size, "images")
        return print_drive(key, drive)
    if re.match(r"^net\d+$", key) and unique:
        net = g.parse_ps(_fmt(key), value)
        net["macaddr"] = g.random_mac(state)
        return g.print_ps(net, _fmt(key))
    if key == "vmgenid" and value != "0":
        return g.new_uuid()  # always a new one when the archive had one
    if key == "smbios1" and unique:
        smbios = g.parse_ps(_fmt(key), value)
        smbios["uuid"] = g.new_uuid()
        return g.print_ps(smbios, _fmt(key))
    return value


def restore(ctx, p, archive, params):
    """API2/Qemu.pm create_vm with ``archive`` (a storage's vzdump file), worker ``qmrestore``:
    restore_file_archive rebuilds the VM from the config the archive keeps (``vzdump.archive_config``), the
    options sent override it (override_conf). ``force`` restores over an existing VM of this node (its disks
    are freed); without it a used vmid fails before the task. A file path, a pipe, PBS and external backup
    providers are not simulated."""
    state, node, vmid, access, authid = ctx.state, p["node"], p["vmid"], ctx.access, ctx.authid
    for key in ("bwlimit", "force", "start", "ha-managed", "unique", "live-restore", "import-working-storage"):
        params.pop(key, None)
    pool, storage, force = params.pop("pool", None), params.pop("storage", None), p.get("force")
    if pool is not None:
        g.check_pool_exist(state, pool)
    if storage is not None:
        access.check(authid, f"/storage/{storage}", ["Datastore.AllocateSpace"])
    if p.get("ha-managed"):
        access.check(authid, "/", ["Sys.Console"])
    if p.get("start") and not (access.check(authid, f"/vms/{vmid}", ["VM.PowerMgmt"], True)
                               or (pool and access.check(authid, f"/pool/{pool}", ["VM.PowerMgmt"], True))):
        raise perm_exc(f"/vms/{vmid}, VM.PowerMgmt")
    vz.check_restore_allowed(ctx, vmid, pool, force)
    for key in sorted(params):
        if DRIVE_KEY.match(key):
            raise param_exc({key: "option conflicts with option 'archive'"})
    if archive == "-":
        raise die("pipe requires cli environment")
    sid = g.parse_volid(archive)[0]
    if sid is None:
        raise ApiError(501, "a restore from a file path is not simulated", exception=False)
    vz.check_archive_access(ctx, archive)
    if state.storage_config(sid)["type"] == "pbs":
        raise ApiError(501, "a restore from a Proxmox Backup Server is not simulated", exception=False)
    if vz.archive_config(state, archive, node) is None:
        raise die(f"can't find file '{archive}'")  # $classify_restore_archive: abs_filesystem_path
    if params:
        _resolve_cdrom(params)
        rights.check_config_perm(ctx, params)
        for key in [k for k in params if re.match(r"^net\d+$", k)]:
            params[key] = normalised_net(state, params[key])
    emsg = f"unable to restore VM {vmid} -"
    old = state.guests.get(vmid)
    if old is not None and not (force and old["type"] == TYP and old["node"] == node):
        raise die(f"{emsg} {g.GUEST_WORD[old['type']]} {vmid} already exists on node '{old['node']}'")
    if old is not None:
        g.check_lock(old)

    def work(log):
        if old is not None:
            g.check_protection(old, emsg)
            if old.get("status") == "running":
                raise die(f"{emsg} vm is running")
            for key, value in list(old["config"].items()):
                if DRIVE_KEY.match(key) or key.startswith("unused"):
                    _free_owned(state, vmid, parse_drive(key, value) if DRIVE_KEY.match(key) else {"file": value})
        backup = vz.archive_config(state, archive, node)
        if backup["type"] != TYP:
            raise die(f"{emsg} '{archive}' is not a VM backup (simulated)")
        log.append(f"restore vma archive: {archive}")
        guest = g.new_guest(TYP, node)
        conf = guest["config"]
        for key, value in backup["config"].items():
            restored = _restored_line(state, vmid, key, value, storage, p.get("unique"))
            if restored is not None:
                conf[key] = restored
                if DRIVE_KEY.match(key) and restored != value:
                    log.append(f"new volume ID is '{parse_drive(key, restored)['file']}'")
        conf.update(params)
        state.guests[vmid] = guest
        g.reload(guest)
        g.add_to_pool(state, vmid, pool)
        g.sync_name(guest, vmid)
        if p.get("start"):
            log.append("Execute autostart")
            g.start(guest)
        if p.get("ha-managed"):
            log.append("Add HA resource with request-state 'started'" if p.get("start")
                       else "Add HA resource with request-state 'stopped'")
            state.ha_resources[f"vm:{vmid}"] = {"type": "vm", "state": "started" if p.get("start") else "stopped"}
    return g.run_task(ctx, node, "qmrestore", vmid, work)


@route("POST", BASE)
def create(ctx, p):
    """API2/Qemu.pm create_vm (a restore: ``restore`` below)."""
    state, node, vmid, access, authid = ctx.state, p["node"], p["vmid"], ctx.access, ctx.authid
    params = {k: v for k, v in ctx.raw.items() if k not in ("node", "vmid")}
    archive = params.pop("archive", None)
    if archive:
        return restore(ctx, p, archive, params)
    for key in ("bwlimit", "force", "start", "ha-managed", "unique", "live-restore", "import-working-storage"):
        params.pop(key, None)
    if params.get("sshkeys") is not None:
        ci.validate_ssh_public_keys(params["sshkeys"])
    pool = params.pop("pool", None)
    storage = params.pop("storage", None)
    if pool is not None:
        g.check_pool_exist(state, pool)
    if storage is not None:
        access.check(authid, f"/storage/{storage}", ["Datastore.AllocateSpace"])
    if p.get("ha-managed"):
        access.check(authid, "/", ["Sys.Console"])
    if p.get("start") and not (access.check(authid, f"/vms/{vmid}", ["VM.PowerMgmt"], True)
                               or (pool and access.check(authid, f"/pool/{pool}", ["VM.PowerMgmt"], True))):
        raise perm_exc(f"/vms/{vmid}, VM.PowerMgmt")
    if not (access.check(authid, f"/vms/{vmid}", ["VM.Allocate"], True)
            or (pool and access.check(authid, f"/pool/{pool}", ["VM.Allocate"], True))):
        raise perm_exc()
    if params:
        _resolve_cdrom(params)
        check_storage_access(ctx, params, storage, p.get("import-working-storage"))
        rights.check_config_perm(ctx, params)
        check_drive_param(state, params)
        for key in [k for k in params if re.match(r"^net\d+$", k)]:
            params[key] = normalised_net(state, params[key])
    try:
        g.check_vmid_unused(state, vmid)
    except ApiError as err:
        raise die(f"unable to create VM {vmid} - {err.message}") from err

    def work(log):
        guest = g.new_guest(TYP, node)
        state.guests[vmid] = guest
        conf = guest["config"]
        try:
            conf.update(params)
            conf["meta"] = f"creation-qemu={QEMU_VERSION},ctime={int(time.time())}"
            conf.update(create_disks(state, vmid, conf, params, storage, node, log))
            if not conf.get("boot"):
                conf["boot"] = _default_boot(conf)
            if not conf.get("smbios1"):
                conf["smbios1"] = f"uuid={g.new_uuid()}"
            if conf.get("vmgenid", "1") == "1" and conf.get("arch") != "aarch64":
                conf["vmgenid"] = g.new_uuid()
            if "tags" in conf:
                conf["tags"] = g.get_unique_tags(state, conf["tags"])
        except ApiError as err:
            raise die(f"unable to create VM {vmid} - {err.stringify()}") from err
        g.reload(guest)
        g.add_to_pool(state, vmid, pool)
        g.sync_name(guest, vmid)
        if p.get("ha-managed"):
            log.append("Add as HA resource")
            state.ha_resources[f"vm:{vmid}"] = {"type": "vm", "state": "started" if p.get("start") else "stopped"}
        if p.get("start"):
            log.append("Execute autostart")
            g.start(guest)
    return g.run_task(ctx, node, "qmcreate", vmid, work)


# -- update -----------------------------------------------------------------------------------

def _option_exists(key):
    return g.option_exists(TYP, key) or key in EXTRA_OPTIONS


def _update_fn(ctx, p, guest, params, delete, revert, log):
    """$updatefn of update_vm_api: everything goes to [PENDING], then apply or hotplug."""
    state, vmid = ctx.state, p["vmid"]
    conf, pending = guest["config"], guest["pending"]
    force = 1 if p.get("force") else 0
    for key in revert:
        if key in conf:
            params[key] = conf[key]
        elif key in pending:
            delete.append(key)
    order = _boot_order(conf)
    for key in delete:
        value = conf.get(key, pending.get(key))
        if value is None:
            log.append(f"cannot delete '{key}' - not set in current configuration!")
            continue
        pending_value = pending.pop(key, None)
        if key in order and "bootorder" not in delete:
            order.remove(key)
            pending["boot"] = "order=" + ";".join(order)
        if key.startswith("unused"):
            drive = g.parse_ps(_fmt(key), value)
            g.check_protection(guest, f"can't remove unused disk '{drive['file']}'")
            _free_owned(state, vmid, drive)
            conf.pop(key, None)
        elif DRIVE_KEY.match(key):
            g.check_protection(guest, f"can't remove drive '{key}'")
            if pending_value is not None:
                _register_unused(state, vmid, conf, parse_drive(key, pending_value))
            guest["pending_delete"][key] = force
        elif key == "tags":
            conf.pop(key, None)
        else:
            guest["pending_delete"][key] = force
    for key in sorted(params):
        value = params[key]
        if pending.get(key) == value:
            continue
        if DRIVE_KEY.match(key):
            if key in pending:
                _register_unused(state, vmid, conf, parse_drive(key, pending[key]))
            value = create_disks(state, vmid, conf, {key: value}, None, p["node"], log)[key]
            if order and is_cdrom(parse_drive(key, value)) and key not in order:
                order.append(key)
                pending["boot"] = "order=" + ";".join(order)
        elif key == "tags":
            value = g.get_unique_tags(state, value)
        elif key == "boot":
            devs = _boot_order({"boot": value})
            for dev in devs:
                if not (conf.get(dev) or pending.get(dev) or params.get(dev)) or dev in delete:
                    raise die(f"invalid bootorder: device '{dev}' does not exist'")
            if devs:
                value = "order=" + ";".join(devs)
                if conf.get("bootdisk"):
                    guest["pending_delete"]["bootdisk"] = 0
        pending[key] = value
        guest["pending_delete"].pop(key, None)
    # written to [PENDING] and loaded again before it is applied: a pending description is read back once
    g.reload(guest)
    g.cleanup_pending(guest)
    if not pending and not guest["pending_delete"]:
        return
    if guest["status"] == "running":
        errors = hotplug_pending(state, guest, vmid)
    else:
        apply_pending(state, guest, vmid)
        errors = {}
    g.reload(guest)
    g.sync_name(guest, vmid)
    if errors:
        raise param_exc(errors)


def _update(ctx, p, sync):
    """update_vm_api: parameter checks, the early config checks, then $updatefn."""
    state, vmid = ctx.state, p["vmid"]
    params = {k: v for k, v in ctx.raw.items()
              if k not in ("node", "vmid", "digest", "background_delay", "skip_cloud_init", "import-working-storage",
                           "skiplock", "delete", "revert", "force")}
    g.root_only(ctx, p, "skiplock")
    if params.get("sshkeys") is not None:
        ci.validate_ssh_public_keys(params["sshkeys"])
    if not p.get("delete") and not p.get("revert") and not params:
        raise die("no options specified")
    _resolve_cdrom(params)
    revert = split_list(p.get("revert"))
    for key in revert:
        if not _option_exists(key):
            raise param_exc({"revert": f"unknown option '{key}'"})
        if key in params:
            raise param_exc({"delete": f"you can't use '-{key}' and -revert {key}' at the same time"})
    delete = []
    for key in split_list(p.get("delete")):
        key = "ide2" if key == "cdrom" else key
        if key in params:
            raise param_exc({"delete": f"you can't use '-{key}' and -delete {key}' at the same time"})
        if key in revert:
            raise param_exc({"revert": f"you can't use '-delete {key}' and -revert {key}' at the same time"})
        if not _option_exists(key):
            raise param_exc({"delete": f"unknown option '{key}'"})
        delete.append(key)
    rights.check_config_perm(ctx, params, (state.guests.get(vmid) or {}).get("config"), delete)
    check_drive_param(state, params)
    for key in [k for k in params if re.match(r"^net\d+$", k)]:
        params[key] = normalised_net(state, params[key])
    if params.get("vmgenid") == "1":
        params["vmgenid"] = g.new_uuid()
    check_storage_access(ctx, params, None, p.get("import-working-storage"))

    def load_and_check():
        guest = g.writable(g.load_guest(state, TYP, p["node"], vmid))
        if p.get("digest") and p["digest"] != g.digest(guest):
            raise die("checksum mismatch (file change by other user?)")
        if not p.get("skiplock"):
            g.check_lock(guest)
        return guest

    load_and_check()
    if sync:
        with locked(state):
            _update_fn(ctx, p, load_and_check(), params, delete, revert, [])
        return None
    return g.run_task(ctx, p["node"], "qmconfig", vmid,
                      lambda log: _update_fn(ctx, p, load_and_check(), params, delete, revert, log))


@route("PUT", BASE + "/{vmid}/config")
def update_sync(ctx, p):
    return _update(ctx, p, sync=True)


@route("POST", BASE + "/{vmid}/config")
def update_async(ctx, p):
    return _update(ctx, p, sync=False)


# -- resize -----------------------------------------------------------------------------------

@route("PUT", BASE + "/{vmid}/resize")
def resize(ctx, p):
    """API2/Qemu.pm resize_vm: a task from the start; every check runs inside it."""
    state, vmid, disk = ctx.state, p["vmid"], p["disk"]
    g.root_only(ctx, p, "skiplock")

    def work(log):
        guest = g.load_guest(state, TYP, p["node"], vmid)
        if p.get("digest") and p["digest"] != g.digest(guest):
            raise die("checksum mismatch (file change by other user?)")
        if not p.get("skiplock"):
            g.check_lock(guest)
        conf = guest.get("config") or {}
        if not conf.get(disk):
            raise die(f"disk '{disk}' does not exist")
        drive = parse_drive(disk, conf[disk])
        volid = drive.get("file")
        if not volid:
            raise die(f"disk '{disk}' has no associated volume")
        if is_cdrom(drive):
            raise die("you can't resize a cdrom")
        ctx.access.check(ctx.authid, f"/storage/{g.parse_volid(volid)[0]}", ["Datastore.AllocateSpace"])
        info = g.volume(state, volid)
        size = info["size"] if info else drive.get("size") or 0
        grow = p["size"].startswith("+")
        newsize = g.parse_size(p["size"].lstrip("+")) + (size if grow else 0)
        if newsize < size:
            raise die("shrinking disks is not supported")
        if newsize == size:
            return
        log.append(f"update VM {vmid}: resize --disk {disk} --size {p['size']}")
        if info is not None:
            info["size"] = newsize
        drive["size"] = newsize
        conf[disk] = print_drive(disk, drive)
    return g.run_task(ctx, p["node"], "resize", vmid, work)


# -- power ------------------------------------------------------------------------------------

def _ha_request(ctx, p, guest, requested, task):
    state, vmid = ctx.state, p["vmid"]

    def work(log):
        log.append(f"Requesting HA {'start' if requested == 'started' else 'stop'} for VM {vmid}")
        state.ha_resources[f"vm:{vmid}"]["state"] = requested
        if requested == "started":
            g.start(guest)
        else:
            guest["status"] = "stopped"
    return g.run_task(ctx, p["node"], task, vmid, work)


def _ha_guest(state, vmid):
    guest = state.guests.get(vmid)
    return guest if guest is not None and guest["type"] == TYP and g.ha_managed(state, guest, vmid) else None


def _running(state, vmid):
    guest = state.guests.get(vmid)
    return guest is not None and guest["type"] == TYP and guest["status"] == "running"


def _start_work(ctx, p):
    """vm_start: template, lock, already running; pending changes are applied first."""
    state, vmid = ctx.state, p["vmid"]
    guest = g.writable(g.load_guest(state, TYP, p["node"], vmid))
    if str(guest["config"].get("template", "0")) == "1":
        raise die("you can't start a vm if it's a template")
    if not p.get("skiplock"):
        g.check_lock(guest)
    if guest["status"] == "running":
        raise die(f"VM {vmid} already running")
    apply_pending(state, guest, vmid)
    ci.apply_config(state, guest)  # vm_start regenerates the cloud-init drive
    g.sync_name(guest, vmid)
    g.start(guest)


@route("POST", BASE + "/{vmid}/status/start")
def start(ctx, p):
    g.root_only(ctx, p, "skiplock", "stateuri", "migratedfrom", "migration_type", "migration_network",
                "targetstorage", "force-cpu", "with-conntrack-state", "nets-host-mtu")
    guest = _ha_guest(ctx.state, p["vmid"])
    if guest is not None:
        return _ha_request(ctx, p, guest, "started", "hastart")
    return g.run_task(ctx, p["node"], "qmstart", p["vmid"], lambda log: _start_work(ctx, p))


def _stop_work(ctx, p, log, shutdown):
    """_do_vm_stop: nothing to do for a stopped VM; a shutdown the guest ignores times out."""
    state, vmid = ctx.state, p["vmid"]
    if not _running(state, vmid):
        return 0
    guest = g.load_guest(state, TYP, p["node"], vmid)
    if not p.get("skiplock"):
        g.check_lock(guest)
    warnings = 0
    if shutdown and vmid in state.shutdown_ignored:
        if not p.get("forceStop"):
            raise die("VM quit/powerdown failed - got timeout")
        log.append("VM still running - terminating now with SIGTERM")
        warnings = 1
    guest["status"] = "stopped"
    return warnings


@route("POST", BASE + "/{vmid}/status/stop")
def stop(ctx, p):
    g.root_only(ctx, p, "skiplock", "keepActive", "migratedfrom")
    guest = _ha_guest(ctx.state, p["vmid"])
    if guest is not None:
        if p.get("overrule-shutdown"):
            raise param_exc({"overrule-shutdown": "Not applicable for HA resources."})
        return _ha_request(ctx, p, guest, "stopped", "hastop")
    return g.run_task(ctx, p["node"], "qmstop", p["vmid"], lambda log: _stop_work(ctx, p, log, False))


@route("POST", BASE + "/{vmid}/status/shutdown")
def shutdown(ctx, p):
    g.root_only(ctx, p, "skiplock", "keepActive")
    guest = _ha_guest(ctx.state, p["vmid"])
    if guest is not None:
        return _ha_request(ctx, p, guest, "stopped", "hastop")
    return g.run_task(ctx, p["node"], "qmshutdown", p["vmid"], lambda log: _stop_work(ctx, p, log, True))


@route("POST", BASE + "/{vmid}/status/reboot")
def reboot(ctx, p):
    """vm_reboot: a shutdown, then qmeventd starts the VM again (pending changes applied)."""
    state, vmid = ctx.state, p["vmid"]
    if not _running(state, vmid):
        raise die(f"VM {vmid} not running")

    def work(log):
        if not _running(state, vmid):
            return
        guest = g.writable(g.load_guest(state, TYP, p["node"], vmid))
        g.check_lock(guest)
        if vmid in state.shutdown_ignored:
            raise die("VM quit/powerdown failed - got timeout")
        apply_pending(state, guest, vmid)
        ci.apply_config(state, guest)
        g.sync_name(guest, vmid)
        g.start(guest)
    return g.run_task(ctx, p["node"], "qmreboot", vmid, work)


# -- destroy ----------------------------------------------------------------------------------

@route("DELETE", BASE + "/{vmid}")
def destroy(ctx, p):
    """API2/Qemu.pm destroy_vm: protection, HA and replication without purge, running; the lock
    is checked by the task (destroy_vm)."""
    state, vmid = ctx.state, p["vmid"]
    g.root_only(ctx, p, "skiplock")
    guest = g.load_guest(state, TYP, p["node"], vmid)
    g.check_protection(guest, f"can't remove VM {vmid}")
    g.guards_without_purge(state, guest, vmid, p.get("purge"))
    if guest["status"] == "running":
        raise die(f"VM {vmid} is running - destroy failed")

    def work(log):
        if not p.get("skiplock"):
            g.check_lock(guest)
        conf = guest.get("config") or {}
        warnings = 0
        for key in sorted(k for k in conf if DRIVE_KEY.match(k) or k.startswith("unused") or k == "vmstate"):
            drive = {"file": conf[key]} if key == "vmstate" else g.parse_ps(_fmt(key), conf[key])
            warnings += _free_owned(state, vmid, drive, log)
        if p.get("destroy-unreferenced-disks"):
            for sid, vols in g.ensure_volumes(state).items():
                for volname in [n for n, info in vols.items() if info.get("vmid") == vmid]:
                    warnings += _free_owned(state, vmid, {"file": f"{sid}:{volname}"}, log)
        g.destroy(state, vmid, p.get("purge"), log)
        state.firewall.get("guests", {}).pop(vmid, None)  # Qemu.pm destroy_vm: PVE::Firewall::remove_vmfw_conf
        return warnings
    return g.run_task(ctx, p["node"], "qmdestroy", vmid, work)


# -- clone and template -----------------------------------------------------------------------

@route("POST", BASE + "/{vmid}/clone")
def clone(ctx, p):
    """API2/Qemu.pm clone_vm: the checks answer at once, the copy is the ``qmclone`` task."""
    state, node, vmid, newid = ctx.state, p["node"], p["vmid"], p["newid"]
    storage, target, snapname = p.get("storage"), p.get("target"), p.get("snapname")
    if target == node:
        target = None

    def load_and_check():
        if p.get("pool") is not None:
            g.check_pool_exist(state, p["pool"])
        if target and target not in state.nodes:
            raise die(f"no such cluster node '{target}'")
        if storage:
            scfg = g.check_storage_enabled(state, storage, node)
            if "images" not in g.storage_content(state, storage)[1]:
                raise param_exc({"storage": f"storage '{storage}' does not support vm images"})
            if target:
                g.check_storage_enabled(state, storage, target)
                if not (scfg.get("shared") or (state.storage_type_info(scfg["type"]) or {}).get("shared")):
                    raise die(f"can't clone to non-shared storage '{storage}'")
        guest = g.load_guest(state, TYP, node, vmid)
        g.check_lock(guest)
        if snapname and snapname not in (guest.get("snapshots") or {}):
            raise die(f"snapshot '{snapname}' does not exist")
        full = p["full"] if p.get("full") is not None else str(guest["config"].get("template", "0")) != "1"
        if storage and not full:
            raise die("parameter 'storage' not allowed for linked clones")
        if p.get("format") and not full:
            raise die("parameter 'format' not allowed for linked clones")
        old = dict(guest["snapshots"][snapname]["config"] if snapname else guest.get("config") or {})
        shared = True
        for key in sorted(k for k in old if DRIVE_KEY.match(k)):
            drive = parse_drive(key, old[key])
            sid = g.parse_volid(drive.get("file", ""))[0]
            if sid is None:
                continue
            scfg = state.storage_config(sid)
            shared = shared and bool(scfg.get("shared") or (state.storage_type_info(scfg["type"]) or {}).get("shared"))
            if not is_cdrom(drive):
                ctx.access.check(ctx.authid, f"/storage/{storage or sid}", ["Datastore.AllocateSpace"])
                if not full and key != "tpmstate0" and not g.parse_volname(state, drive["file"])[2]:
                    what = " a snapshot of" if snapname else ""
                    raise die(f"Linked clone feature is not supported for{what} '{drive['file']}' ({key})")
        if target and not shared:
            raise die(f"can't clone VM to node '{target}' (VM uses local storage)")
        other = state.guests.get(newid)
        if other is not None and other["node"] == node and other["type"] == TYP:
            raise die(f"unable to create VM {newid}: config file already exists")
        return guest, old, full

    load_and_check()

    def work(log):
        guest, old, full = load_and_check()
        log.append(f"creating a clone of VM {vmid} with ID {newid}")
        if newid in state.guests:
            raise die(f"close (rename) atomic file '/etc/pve/nodes/{node}/qemu-server/{newid}.conf' failed: "
                      "File exists")
        new = g.new_guest(TYP, target or node)
        conf = new["config"]
        for key in sorted(old):
            if key in SNAPSHOT_KEYS or key.startswith("unused") or key == "template":
                continue
            value = old[key]
            if re.match(r"^net\d+$", key):
                net = g.parse_ps(_fmt(key), value)
                net["macaddr"] = g.random_mac(state)
                value = g.print_ps(net, _fmt(key))
            elif DRIVE_KEY.match(key):
                drive = parse_drive(key, value)
                if drive.get("file", "").endswith("cloudinit"):
                    drive["file"] = _alloc_cloudinit(state, g.parse_volid(drive["file"])[0], newid)
                    value = print_drive(key, drive)
                elif not is_cdrom(drive):
                    drive["file"] = g.clone_volume(state, drive["file"], newid, full or key == "tpmstate0",
                                                   storage if full else None)
                    drive["size"] = g.volume(state, drive["file"])["size"]
                    value = print_drive(key, drive)
                    log.append(f"{key}: {value}")
            conf[key] = value
        # parse_smbios1 / print_smbios1: the options sorted, a new uuid among them
        smbios = dict(part.split("=", 1) for part in (old.get("smbios1") or "").split(",") if "=" in part)
        smbios["uuid"] = g.new_uuid()
        conf["smbios1"] = ",".join(f"{k}={v}" for k, v in sorted(smbios.items()))
        if conf.get("vmgenid"):
            conf["vmgenid"] = g.new_uuid()
        conf["name"] = p.get("name") or f"Copy-of-VM-{old.get('name') or vmid}"
        if p.get("description"):
            conf["description"] = p["description"]
        warnings = 0
        if not snapname and guest.get("pending"):
            log.append(f"found pending changes for '{','.join(guest['pending'])}', discarding for clone")
            warnings = 1
        state.guests[newid] = new
        g.reload(new)
        g.sync_name(new, newid)
        g.add_to_pool(state, newid, p.get("pool"))
        return warnings
    return g.run_task(ctx, node, "qmclone", vmid, work)


@route("POST", BASE + "/{vmid}/template")
def template(ctx, p):
    """API2/Qemu.pm template: refused with snapshots, for a template, while running."""
    state, vmid, disk = ctx.state, p["vmid"], p.get("disk")

    def load_and_check():
        guest = g.writable(g.load_guest(state, TYP, p["node"], vmid))
        g.check_lock(guest)
        if guest["snapshots"]:
            raise die("unable to create template, because VM contains snapshots")
        if str(guest["config"].get("template", "0")) == "1" and not disk:
            raise die("you can't convert a template to a template")
        if guest["status"] == "running":
            raise die("you can't convert a VM to template if VM is running")
        return guest

    load_and_check()
    return g.run_task(ctx, p["node"], "qmtemplate", vmid, lambda log: make_template(state, load_and_check(), disk))


# -- guest agent ------------------------------------------------------------------------------

def agent_enabled(conf):
    """Agent.pm parse_guest_agent: the ``enabled`` flag (the default key) of the ``agent`` option."""
    return str(g.parse_ps(_fmt("agent"), conf["agent"]).get("enabled", "0")) in ("1", "on", "yes", "true")


def assert_agent_available(state, guest, vmid):
    """QemuServer/Agent.pm assert_agent_available: an ``agent`` option at all, the VM running, then the
    agent answering ``guest-ping`` (qga_check_running). ``agent: 0`` passes the first check (it is
    defined) but QEMU then has no agent socket, so the ping fails like a silent agent's."""
    conf = guest.get("config") or {}
    if conf.get("agent") is None:
        raise die("No QEMU guest agent configured")
    if guest.get("status") != "running":
        raise die(f"VM {vmid} is not running")
    if not agent_enabled(conf) or vmid in state.agent_unresponsive:
        raise die("QEMU guest agent is not running")


def _qga_statistics(position, addresses):
    """GuestNetworkInterfaceStat: counters a guest that has been up a while would show."""
    packets = 1000 * (position + 1) if addresses else 0
    return {"rx-bytes": packets * 150, "rx-dropped": 0, "rx-errs": 0, "rx-packets": packets,
            "tx-bytes": packets * 90, "tx-dropped": 0, "tx-errs": 0, "tx-packets": packets // 2}


def qga_interface(position, iface):
    """One GuestNetworkInterface of the agent's ``guest-network-get-interfaces`` answer."""
    res = {"name": iface["name"], "hardware-address": iface["hwaddr"]}
    if iface["addresses"]:
        res["ip-addresses"] = []
        for text in iface["addresses"]:
            address, prefix, family = g.split_address(text)
            res["ip-addresses"].append({"ip-address-type": family, "ip-address": address, "prefix": prefix})
    res["statistics"] = _qga_statistics(position, iface["addresses"])
    return res


@route("GET", BASE + "/{vmid}/agent/network-get-interfaces")
def agent_network_get_interfaces(ctx, p):
    """API2/Qemu/Agent.pm register_command('network-get-interfaces'): load_config (the typed absence),
    assert_agent_available, then ``{ result => mon_cmd($vmid, "guest-network-get-interfaces") }``.
    The permission (VM.GuestAgent.Audit or VM.GuestAgent.Unrestricted on /vms/{vmid}) is the schema's,
    checked by the pipeline."""
    state, vmid = ctx.state, p["vmid"]
    guest = g.load_guest(state, TYP, p["node"], vmid)
    assert_agent_available(state, guest, vmid)
    return {"result": [qga_interface(i, iface) for i, iface in enumerate(g.reported_interfaces(guest, vmid))]}


# -- test helper hooks (guests.add_guest, registered below) and template_create ---------------

def make_template(state, guest, disk=None):
    """template_create: ``template: 1``; the disks (or ``disk``) become base volumes."""
    conf = guest["config"]
    conf["template"] = "1"
    for key in sorted(k for k in conf if DRIVE_KEY.match(k)):
        drive = parse_drive(key, conf[key])
        if is_cdrom(drive) or (disk and key != disk) or g.parse_volid(drive.get("file", ""))[0] is None:
            continue
        if not g.parse_volname(state, drive["file"])[2]:
            drive["file"] = g.rename_to_base(state, drive["file"])
            conf[key] = print_drive(key, drive)


def seeded_value(state, vmid, node, key, value):
    """A config value as PVE would have written it."""
    if DRIVE_KEY.match(key):
        drive = parse_drive(key, value)
        new = NEW_DISK.match(drive.get("file", ""))
        if new and not is_cdrom(drive):
            return create_disks(state, vmid, {}, {key: value}, None, node, [])[key]
        if not is_cdrom(drive) and g.parse_volid(drive.get("file", ""))[0]:
            g.register_volume(state, drive["file"], vmid, drive.get("size") or 8 * g.GIB, "images")
        return print_drive(key, drive)
    if re.match(r"^net\d+$", key):
        return normalised_net(state, value)
    if key == "tags":
        return g.get_unique_tags(state, value)
    return value


g.register_family(TYP, seeded_value, make_template)
