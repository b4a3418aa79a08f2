"""/nodes/{node}/lxc: containers (pve-container 6, PVE 9).

Ports ``API2/LXC.pm`` (create_vm, destroy_vm, resize_vm, ip), ``API2/LXC/Config.pm`` (update_vm),
``API2/LXC/Status.pm`` (vm_start, vm_stop, vm_shutdown, vm_reboot) and ``LXC/Config.pm``
(update_pct_config, vmconfig_hotplug_pending, vmconfig_apply_pending, apply_pending_mountpoint,
print_ct_mountpoint, parse/print_lxc_network), ``LXC.pm`` (create_disks, vm_stop, vm_reboot,
get_interfaces).
Reads, the pending array, snapshots and /cluster/resources are in ``guests.py``.

* Create: the vmid must be free cluster-wide (``CT 101 already exists on node 'node1'``, or ``VM``
  when a VM has it), ``unprivileged`` defaults to 1 (0 needs Sys.Modify on /), the template must be
  a ``vztmpl`` volume (a missing file fails the task: ``can't find file '<volid>'``), the storages
  must be enabled on the node and hold ``rootdir``. ``rootfs`` defaults to ``<storage>:4`` with
  ``storage`` default ``local``. The task writes ``arch`` (amd64), ``hostname`` (``CT<vmid>``),
  ``memory``/``swap`` (512), ``ostype`` and ``unprivileged``: PVE detects ``ostype`` from the
  unpacked template's files; here it is the template file name's distribution. ``password`` and
  ``ssh-public-keys`` go into the container, not the config. A template file on a storage that is not shared is
  the node's own (``guests.volume`` with the node).
* An OCI image (a ``.tar`` template whose bytes, kept by content_sources' oci-registry-pull or upload, list
  ``oci-layout``, ``index.json`` and ``blobs/``: Create.pm archive_is_oci_format) is ``Detected OCI archive`` and
  restored as restore_oci_archive does: its entrypoint (``Entrypoint`` + ``Cmd``, when not /sbin/init) with
  ``cmode: console`` and every NIC ``host-managed=1``, its ``Env`` as ``env``; ``ostype`` from the os-release ID
  in its layers (``unmanaged`` when it has none).
* Update: on a running container the keys ``vmconfig_hotplug_pending`` applies live (``FASTPLUG``,
  ``HOTPLUG_SET``, ``HOTPLUG_DELETE``) change at once, the rest waits in ``[pve:pending]`` until the
  next start or reboot. A NIC sent without ``hwaddr`` gets a new one.
* ``GET .../interfaces`` lists what the running container reports (``guests.reported_interfaces``)
  in ``ip --json a``'s terms; for a container that is not running it answers ``data: null``.
* Shutdown of a container in ``state.shutdown_ignored`` fails after ``timeout`` with
  ``container did not stop`` (lxc-stop --nokill), unless ``forceStop=1`` kills it.
"""

import hashlib
import io
import json
import re
import tarfile

from ...errors import ApiError, die, die_at, locked, param_exc, perm_exc
from ...formats import split_list
from . import guests as g
from . import vzdump as vz
from .base import route

TYP = "lxc"
BASE = "/nodes/{node}/lxc"
VOLUME_KEY = re.compile(r"^(rootfs|mp\d+|unused\d+)$")
MOUNT_KEY = re.compile(r"^(rootfs|mp\d+)$")
NEW_DISK = re.compile(r"^(?:([^/:\s]+):)?(\d+(?:\.\d+)?)$")
OSTYPES = ("debian", "devuan", "ubuntu", "centos", "fedora", "opensuse", "archlinux", "alpine", "gentoo",
           "nixos")
# LXC/Setup.pm: the os-release IDs of the setup plugins, and the flavours mapped onto one ($plugin_alias).
OS_RELEASE_IDS = dict([(name, name) for name in OSTYPES + ("openeuler",)] + [
    ("opensuse-leap", "opensuse"), ("opensuse-tumbleweed", "opensuse"), ("opensuse-slowroll", "opensuse"),
    ("openEuler", "openeuler"), ("arch", "archlinux"), ("sles", "opensuse"), ("rocky", "centos"),
    ("almalinux", "centos")])

# vmconfig_hotplug_pending: what a running container takes at once.
FASTPLUG = {"description", "onboot", "startup", "protection", "hostname", "hookscript", "cores", "tags", "lock"}
HOTPLUG_SET = re.compile(r"^(cpulimit|cpuunits|memory|swap|net\d+)$")
HOTPLUG_NEW = re.compile(r"^(mp|dev)\d+$")  # only where nothing is configured yet
HOTPLUG_DELETE = re.compile(r"^(unused\d+|swap|cpulimit|cpuunits|net\d+)$")


def _fmt(key):
    return g.option_format(TYP, key)


def print_mountpoint(key, mp):
    return g.print_ps(mp, _fmt(key), skip=("mp",) if key == "rootfs" else ())


def normalised_net(state, text):
    """parse_lxc_network + print_lxc_network: ``type=veth``, a new hwaddr when none is set."""
    net = g.parse_ps(_fmt("net0"), text)
    net["type"] = "veth"
    net.setdefault("hwaddr", g.random_mac(state))
    return g.print_ps(net, _fmt("net0"))


def create_disk(state, vmid, key, text):
    """PVE::LXC::create_disks for one mount point given as ``<storage>:<GiB>``."""
    mp = g.parse_ps(_fmt(key), text)
    m = NEW_DISK.match(mp.get("volume", ""))
    if not m:
        return text
    sid, size = m.group(1), int(float(m.group(2)) * 1024 * 1024) * 1024
    stype = state.storage_config(sid)["type"]
    if stype in g.FILE_STORAGES:
        fmt = "raw" if size > 0 else "subvol"
    else:
        fmt = "subvol" if stype == "zfspool" else "raw"
    mp["volume"] = g.alloc_volume(state, sid, vmid, size, "rootdir", fmt=fmt,
                                  prefix="subvol" if fmt == "subvol" else "vm")
    mp["size"] = size
    return print_mountpoint(key, mp)


def _storage_of(volid):
    """Storage::parse_volume_id of a volume mount point (``<storage>:<GiB>`` included)."""
    sid = g.parse_volid(volid)[0]
    if sid is None:
        raise die(f"unable to parse volume ID '{volid}'")
    return sid


def _volume_of(key, text):
    """The volume of a mount point or unused entry, None for bind and device mounts."""
    volid = g.parse_ps(_fmt(key), text).get("volume", "")
    return None if volid.startswith("/") else volid


def _free_owned(state, vmid, volid):
    """delete_mountpoint_volume: only volumes the container owns are freed."""
    if volid and (g.parse_volname(state, volid)[1] == vmid):
        g.free_volume(state, volid)


def _apply_mountpoint(state, guest, vmid, key):
    """apply_pending_mountpoint: allocate a new disk, keep a replaced volume as unusedN."""
    conf = guest["config"]
    value = create_disk(state, vmid, key, guest["pending"][key])
    old = conf.get(key)
    if old is not None:
        old_volid, new_volid = _volume_of(key, old), _volume_of(key, value)
        if old_volid and old_volid != new_volid:
            g.add_unused_volume(conf, old_volid)
    conf[key] = value
    del guest["pending"][key]


def _apply_value(state, guest, vmid, key):
    if MOUNT_KEY.match(key):
        _apply_mountpoint(state, guest, vmid, key)
        return
    value = guest["pending"].pop(key)
    guest["config"][key] = normalised_net(state, value) if key.startswith("net") else value


def _apply_delete(state, guest, vmid, key):
    conf = guest["config"]
    if key.startswith("mp") and conf.get(key):
        volid = _volume_of(key, conf[key])
        if volid:
            g.add_unused_volume(conf, volid)
    elif key.startswith("unused"):
        _free_owned(state, vmid, _volume_of(key, conf[key]))
    conf.pop(key, None)
    guest["pending_delete"].pop(key, None)


def apply_pending(state, guest, vmid, live_only=False, selection=None):
    """vmconfig_apply_pending (a stopped container) or vmconfig_hotplug_pending (``live_only``: the
    keys a running container takes), both limited to ``selection`` (the keys a request changed;
    None at start). Returns the per-key errors."""
    errors = {}
    conf, pending = guest["config"], guest["pending"]

    def chosen(key):
        return selection is None or key in selection

    for key in sorted(guest["pending_delete"]):
        if not chosen(key) or (live_only and key not in FASTPLUG and not HOTPLUG_DELETE.match(key)):
            continue
        try:
            _apply_delete(state, guest, vmid, key)
        except ApiError as err:
            errors[key] = f"unable to apply pending change {key} : {err.message.rstrip()}"
    g.cleanup_pending(guest)
    for key in sorted(pending):
        if not chosen(key) or (live_only and not (key in FASTPLUG or HOTPLUG_SET.match(key)
                                                  or (HOTPLUG_NEW.match(key) and key not in conf))):
            continue
        try:
            _apply_value(state, guest, vmid, key)
        except ApiError as err:
            errors[key] = (f"unable to hotplug {key}: " if live_only
                           else f"unable to apply pending change {key} : ") + err.message.rstrip()
    return errors


def update_pct_config(state, guest, vmid, params, delete=(), revert=()):
    """Config::update_pct_config: deletes and values go to [pve:pending], then apply or hotplug."""
    conf = guest["config"]
    for key in revert:
        guest["pending"].pop(key, None)
        guest["pending_delete"].pop(key, None)
    for key in delete:
        if key not in conf and key not in guest["pending"]:
            continue  # "cannot delete '$opt' - not set in current configuration!" (a warning)
        if key in ("memory", "rootfs", "ostype"):
            raise die(f"unable to delete required option '{key}'")
        if re.match(r"^(unused|mp)\d+$", key):
            g.check_protection(guest, f"can't remove CT {vmid} drive '{key}'")
        elif key == "unprivileged":
            raise die(f"unable to delete read-only option: '{key}'")
        guest["pending_delete"][key] = 0
    for key in sorted(params):
        value = params[key]
        if MOUNT_KEY.match(key):
            g.check_protection(guest, f"can't update CT {vmid} drive '{key}'")
            volid = g.parse_ps(_fmt(key), value).get("volume", "")
            if not volid.startswith("/"):
                sid = _storage_of(volid)
                if "rootdir" not in g.storage_content(state, sid)[1]:
                    raise die(f"storage '{sid}' does not allow content type 'rootdir' (Container)")
        elif key == "unprivileged":
            raise die(f"unable to modify read-only option: '{key}'")
        elif key in ("nameserver", "searchdomain"):
            # LXC.pm verify_nameserver_list / verify_searchdomain_list: the schema checked each address; the
            # list is kept joined by spaces
            value = " ".join(split_list(value))
        elif key == "tags":
            value = g.get_unique_tags(state, value)
        guest["pending"][key] = value
        guest["pending_delete"].pop(key, None)
    g.cleanup_pending(guest)
    errors = apply_pending(state, guest, vmid, live_only=guest["status"] == "running",
                           selection=set(params) | set(delete))
    g.reload(guest)  # write_config, then the next load_config parses the description back
    return errors


# -- create -----------------------------------------------------------------------------------

def _detect_ostype(ostemplate):
    """Stands in for PVE::LXC::Setup's detection, which reads the unpacked template's files."""
    name = ostemplate.rsplit("/", 1)[-1].split("-", 1)[0].lower()
    name = {"rockylinux": "centos", "almalinux": "centos", "opensuse": "opensuse"}.get(name, name)
    if name not in OSTYPES:
        raise die("unable to detect OS distribution")
    return name


def oci_image(data):
    """Create.pm archive_is_oci_format (a ``.tar`` listing ``oci-layout``, ``index.json`` and ``blobs/``) and what
    PVE::RS::OCI parse_and_extract_image reads of it: (the image config, the os-release ID the unpacked layers give
    (Setup.pm get_ct_os_release: /etc/os-release, else /usr/lib/os-release) or None, whether /etc/os-release is
    there), or None when ``data`` is no OCI archive."""
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data or b""))
        names = set(archive.getnames())
    except tarfile.TarError:
        return None
    if not ({"oci-layout", "index.json"} <= names and any(name.startswith("blobs/") for name in names)):
        return None

    def blob(digest):
        member = archive.extractfile("blobs/" + digest.replace(":", "/", 1))
        if member is None:
            raise KeyError(digest)
        return member.read()

    try:
        manifest = json.loads(blob(json.loads(archive.extractfile("index.json").read())["manifests"][0]["digest"]))
        config = json.loads(blob(manifest["config"]["digest"])).get("config") or {}
        releases = {}  # the unpacked layers: a later layer's file wins
        for layer in manifest.get("layers") or []:
            with tarfile.open(fileobj=io.BytesIO(blob(layer["digest"]))) as files:
                for member in files.getmembers():
                    name = re.sub(r"^\./", "", member.name)
                    if name in ("etc/os-release", "usr/lib/os-release"):
                        text = files.extractfile(member).read().decode() if member.isfile() else None
                        releases[name] = text
    except (KeyError, IndexError, TypeError, ValueError, tarfile.TarError) as err:
        raise die(f"failed to parse OCI image - {err}") from err
    text = releases.get("etc/os-release") or releases.get("usr/lib/os-release") or ""
    found = re.search(r'^ID="?([^"\n]*)"?$', text, re.M)
    return config, found.group(1) if found else None, "etc/os-release" in releases


def _tar(files):
    """A tar archive of {name: bytes}."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as archive:
        for name, data in files.items():
            member = tarfile.TarInfo(name)
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    return out.getvalue()


def make_oci_archive(config=None, os_release=None):
    """A small OCI image archive (what ``skopeo copy ... oci-archive:`` writes) for tests to seed: one layer holding
    ``etc/os-release`` (when given), the image config's ``config`` object (Entrypoint, Cmd, Env, Volumes ...)."""
    blobs = {}

    def add(data):
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        blobs["blobs/sha256/" + digest.split(":", 1)[1]] = data
        return {"digest": digest, "size": len(data)}

    layer = add(_tar({"etc/os-release": os_release.encode()} if os_release else {"etc/hostname": b"oci\n"}))
    image_config = add(json.dumps({"architecture": "amd64", "os": "linux", "config": config or {},
                                   "rootfs": {"type": "layers", "diff_ids": [layer["digest"]]}}).encode())
    manifest = add(json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                               "config": dict(image_config, mediaType="application/vnd.oci.image.config.v1+json"),
                               "layers": [dict(layer, mediaType="application/vnd.oci.image.layer.v1.tar")]}).encode())
    index = {"schemaVersion": 2, "manifests": [dict(manifest, mediaType="application/vnd.oci.image.manifest.v1+json")]}
    return _tar(dict({"oci-layout": b'{"imageLayoutVersion": "1.0.0"}', "index.json": json.dumps(index).encode()},
                     **blobs))


def _shell_quote(arg):
    """String::ShellQuote shell_quote, as PVE::Tools cmd2string joins an argument list."""
    if not arg:
        return "''"
    if not re.search(r"[^\w!%+,\-./:=@^]", arg, re.ASCII):
        return arg
    quoted = "'" + arg.replace("'", "'\\''") + "'"
    return re.sub(r"''$", "", re.sub(r"^''", "", quoted))


def restore_oci_archive(conf, image, log):
    """Create.pm restore_oci_archive: the image's volumes become directories; an entrypoint (Entrypoint + Cmd)
    other than /sbin/init is the container's, with ``cmode: console`` and host-managed NICs; ``Env`` becomes
    ``env``. (User, WorkingDir and StopSignal go to raw ``lxc.*`` keys, which the simulator does not keep.)"""
    config = image[0]
    for path in sorted(config.get("Volumes") or {}):
        log.append(f"creating base directory for volume at {path}")
    init_cmd = list(config.get("Entrypoint") or []) + list(config.get("Cmd") or [])
    if init_cmd and init_cmd[0] != "/sbin/init":
        conf["entrypoint"] = " ".join(_shell_quote(str(arg)) for arg in init_cmd)
        conf["cmode"] = "console"
        for key in sorted(k for k in conf if re.match(r"^net\d+$", k)):
            net = g.parse_ps(_fmt(key), conf[key])
            if net.get("host-managed") is None:
                log.append(f"Auto-Enabling host-managed network for network device {key}.")
                net["host-managed"] = 1
                conf[key] = g.print_ps(net, _fmt(key))
    if config.get("Env"):
        conf["env"] = "\0".join(config["Env"])


def _detect_oci_ostype(image, log):
    """LXC/Setup.pm $autodetect_type on the unpacked image: its os-release ID (or a flavour's), else, with no
    os-release at all, 'unmanaged' (the fallbacks look for files an image's layers are not searched for here)."""
    _config, os_id, has_release = image
    if os_id in OS_RELEASE_IDS:
        return OS_RELEASE_IDS[os_id]
    if os_id:
        log.append(f"unknown ID '{os_id}' in /etc/os-release file, trying fallback detection")
    if has_release:
        raise die("unable to detect OS distribution")
    log.append("/etc/os-release file not found and autodetection failed, falling back to 'unmanaged'")
    return "unmanaged"


def _check_and_activate_storage(ctx, sid, node):
    scfg, content = g.storage_content(ctx.state, sid)
    g.check_storage_enabled(ctx.state, sid, node)
    if "rootdir" not in content:
        raise param_exc({"storage": f"storage '{sid}' does not support container directories"})
    ctx.access.check(ctx.authid, f"/storage/{sid}", ["Datastore.AllocateSpace"])
    return scfg


def _volume_keys(keys):
    return sorted((k for k in keys if MOUNT_KEY.match(k)), key=lambda k: -1 if k == "rootfs" else int(k[2:]))


# -- restore (create_vm with restore=1) ------------------------------------------------------------

def _restored_mountpoints(archived, storage):
    """create_vm's storage-only restore: each volume mount point of the archived config as
    ``<storage>:<GiB>`` (its size kept), bind and device mount points kept for later."""
    volumes, delayed = {}, {}
    for key in _volume_keys(archived):
        mp = g.parse_ps(_fmt(key), archived[key])
        if mp.get("volume", "").startswith("/"):
            if key == "rootfs":
                raise die("restoring rootfs to bind mount is only possible by specifying -rootfs manually!")
            delayed[key] = archived[key]
            continue
        if mp.get("size") is None:
            raise die(f"unable to detect disk size - please specify {key} (size)")
        mp["volume"] = f"{storage}:{mp.pop('size') / g.GIB:g}"
        volumes[key] = print_mountpoint(key, mp)
    if "rootfs" not in volumes:
        raise die("rootfs configuration could not be recovered, please check and specify manually!")
    return volumes, delayed


def restore(ctx, p, params):
    """API2/LXC.pm create_vm with ``restore=1``, worker ``vzrestore``: the config the archive keeps
    (``vzdump.archive_config``; recover_config in the task), its volume mount points made again on ``storage``
    (default ``local``) at their size, the options sent merged over it (restore_configuration; a user other than
    root@pam gets no raw ``lxc.*`` keys). ``force`` restores over an existing container of this node (its volumes
    are freed); without it a used vmid fails before the task. Mount points sent with the call, a pipe and PBS are
    not simulated."""
    state, node, vmid = ctx.state, p["node"], p["vmid"]
    old = state.guests.get(vmid)
    same_exists = old is not None and old["type"] == TYP and old["node"] == node
    if not (same_exists and p.get("force")):
        g.check_vmid_unused(state, vmid)
    else:
        if old.get("status") == "running":
            raise die("can't overwrite running container")
        g.check_protection(old, f"unable to restore CT {vmid}")
    unprivileged = params.pop("unprivileged", None)
    pool = params.pop("pool", None)
    if pool is not None:
        g.check_pool_exist(state, pool)
    vz.check_restore_allowed(ctx, vmid, pool, p.get("force"))
    ostemplate = params.pop("ostemplate")
    storage = params.pop("storage", "local")
    if ostemplate == "-":
        raise die("pipe requires cli environment")
    if any(MOUNT_KEY.match(k) for k in params):
        raise ApiError(501, "a restore with mount points given is not simulated", exception=False)
    vz.check_archive_access(ctx, ostemplate)
    if state.storage_config(g.parse_volid(ostemplate)[0])["type"] == "pbs":
        raise ApiError(501, "a restore from a Proxmox Backup Server is not simulated", exception=False)
    _check_and_activate_storage(ctx, storage, node)
    emsg = f"unable to restore CT {vmid} -"

    def work(log):
        try:
            log.append(f"recovering backed-up configuration from '{ostemplate}'")
            backup = vz.archive_config(state, ostemplate, node)
            if backup is None:
                raise die(f"can't find file '{ostemplate}'")  # Storage.pm abs_filesystem_path
            if backup["type"] != TYP:
                raise die(f"'{ostemplate}' is not a container backup (simulated)")
            archived = dict(backup["config"])
            was_template = archived.pop("template", None) == "1"
            keep_unprivileged = unprivileged if unprivileged is not None else archived.get("unprivileged", "0")
            if keep_unprivileged != "1" and not (same_exists and old["config"].get("unprivileged") != "1"):
                ctx.access.check(ctx.authid, "/", ["Sys.Modify"])
            volumes, delayed = _restored_mountpoints(archived, storage)
            if same_exists:
                for key, value in list(old["config"].items()):
                    if MOUNT_KEY.match(key) or key.startswith("unused"):
                        _free_owned(state, vmid, _volume_of(key, value) if MOUNT_KEY.match(key) else value)
            guest = g.new_guest(TYP, node)
            state.guests[vmid] = guest
            errors = update_pct_config(state, guest, vmid, params)
            if errors:
                raise param_exc(errors)
            conf = guest["config"]
            for key in _volume_keys(volumes):
                conf[key] = create_disk(state, vmid, key, volumes[key])
                log.append(f"{key}: {conf[key]}")
            log.append(f"restoring '{ostemplate}' now..")
            log.append("merging backed-up and given configuration..")
            for key, value in archived.items():
                if MOUNT_KEY.match(key) or key.startswith("unused") or key in conf:
                    continue
                if key.startswith("lxc") and ctx.authid != "root@pam":
                    continue  # restore_configuration with $restricted
                if re.match(r"^net\d+$", key) and p.get("unique"):
                    net = g.parse_ps(_fmt(key), value)
                    net.pop("hwaddr", None)
                    value = normalised_net(state, g.print_ps(net, _fmt(key)))
                conf[key] = value
            conf["unprivileged"] = keep_unprivileged
            if conf["unprivileged"] == "0":
                del conf["unprivileged"]
            conf.setdefault("hostname", f"CT{vmid}")
            conf.setdefault("memory", "512")
            conf.setdefault("swap", "512")
            conf.update(delayed)
            g.reload(guest)
            if was_template:
                log.append("Convert restored container to template...")
                make_template(state, guest)
        except ApiError as err:
            raise die(f"{emsg} {err.stringify()}") from err
        g.add_to_pool(state, vmid, pool)
        g.sync_name(guest, vmid)
        if p.get("start"):
            g.start(guest)
        if p.get("ha-managed"):
            log.append("Add as HA resource")
            state.ha_resources[f"ct:{vmid}"] = {"type": "ct", "state": "started" if p.get("start") else "stopped"}
    return g.run_task(ctx, node, "vzrestore", vmid, work)


@route("POST", BASE)
def create(ctx, p):
    """API2/LXC.pm create_vm (a restore: ``restore`` below)."""
    state, node, vmid = ctx.state, p["node"], p["vmid"]
    params = {k: v for k, v in ctx.raw.items() if k not in ("node", "vmid")}
    for key in ("ignore-unpack-errors", "bwlimit", "start", "ha-managed", "force", "unique", "password",
                "ssh-public-keys"):
        params.pop(key, None)
    if params.pop("restore", None) == "1":
        return restore(ctx, p, params)
    unprivileged = params.pop("unprivileged", "1")
    if unprivileged == "0":
        ctx.access.check(ctx.authid, "/", ["Sys.Modify"])
    g.check_vmid_unused(state, vmid)
    pool = params.pop("pool", None)
    if pool is not None:
        g.check_pool_exist(state, pool)
    if not (ctx.access.check(ctx.authid, f"/vms/{vmid}", ["VM.Allocate"], True)
            or (pool and ctx.access.check(ctx.authid, f"/pool/{pool}", ["VM.Allocate"], True))):
        raise perm_exc()
    ostemplate = params.pop("ostemplate")
    storage = params.pop("storage", "local")
    if ostemplate == "-":
        raise die("pipe requires cli environment")
    g.check_volume_access(ctx, ostemplate, "vztmpl")
    mp_param = {}
    for key in [k for k in params if MOUNT_KEY.match(k) or k.startswith("unused")]:
        value = params.pop(key)
        if MOUNT_KEY.match(key):
            mp_param[key] = f"{storage}:{value}" if re.match(r"^\d+(\.\d+)?$", value) else value
    if mp_param and "rootfs" not in mp_param:
        raise die("mount points configured, but 'rootfs' not set - aborting")
    for key in _volume_keys(mp_param):
        volid = g.parse_ps(_fmt(key), mp_param[key]).get("volume", "")
        if volid.startswith("/"):
            if ctx.authid != "root@pam":
                raise die("Only root can pass arbitrary filesystem paths.")
            continue
        _check_and_activate_storage(ctx, _storage_of(volid), node)
    if "rootfs" not in mp_param:
        _check_and_activate_storage(ctx, storage, node)
        mp_param["rootfs"] = f"{storage}:4"  # (the worker's default: "defaults to 4GB")

    def work(log):
        guest = g.new_guest(TYP, node)
        state.guests[vmid] = guest
        try:
            errors = update_pct_config(state, guest, vmid, params)
            if errors:
                raise param_exc(errors)
            conf = guest["config"]
            if unprivileged == "1":
                conf["unprivileged"] = "1"
            for key in _volume_keys(mp_param):
                conf[key] = create_disk(state, vmid, key, mp_param[key])
                log.append(f"{key}: {conf[key]}")
            template = g.volume(state, ostemplate, node)
            if template is None:
                raise die(f"can't find file '{ostemplate}'")
            image = oci_image(template.get("data")) if ostemplate.endswith(".tar") else None
            if image is not None:
                log.append("Detected OCI archive")
                restore_oci_archive(conf, image, log)
            else:
                log.append(f"extracting archive '{ostemplate}'")
            conf.setdefault("arch", "amd64")
            conf.setdefault("ostype", _detect_oci_ostype(image, log) if image else _detect_ostype(ostemplate))
            conf.setdefault("hostname", f"CT{vmid}")
            conf.setdefault("memory", "512")
            conf.setdefault("swap", "512")
        except ApiError as err:
            raise die(f"unable to create CT {vmid} - {err.stringify()}") from err
        g.add_to_pool(state, vmid, pool)
        g.sync_name(guest, vmid)
        if p.get("start"):
            g.start(guest)
        if p.get("ha-managed"):
            log.append("Add as HA resource")
            state.ha_resources[f"ct:{vmid}"] = {"type": "ct", "state": "started" if p.get("start") else "stopped"}
    return g.run_task(ctx, node, "vzcreate", vmid, work)


# -- update -----------------------------------------------------------------------------------

@route("PUT", BASE + "/{vmid}/config")
def update(ctx, p):
    """API2/LXC/Config.pm update_vm (synchronous)."""
    state, vmid = ctx.state, p["vmid"]
    params = {k: v for k, v in ctx.raw.items() if k not in ("node", "vmid", "digest")}
    if not params:
        raise die("no options specified")
    delete = split_list(params.pop("delete", None))
    revert = split_list(params.pop("revert", None))
    with locked(state):
        guest = g.writable(g.load_guest(state, TYP, p["node"], vmid))
        g.check_lock(guest)
        g.assert_if_modified(guest, p.get("digest"))
        for key in revert:
            if not g.option_exists(TYP, key):
                raise param_exc({"revert": f"unknown option '{key}'"})
            if key in params:
                raise param_exc({"revert": f"you can't use '-{key}' and '-revert {key}' at the same time"})
        for key in delete:
            if not g.option_exists(TYP, key):
                raise param_exc({"delete": f"unknown option '{key}'"})
            if key in params:
                raise param_exc({"delete": f"you can't use '-{key}' and -delete {key}' at the same time"})
            if key in revert:
                raise param_exc({"delete": f"you can't use '-delete {key}' and '-revert {key}' at the same time"})
        errors = update_pct_config(state, guest, vmid, params, delete, revert)
        if errors:
            raise param_exc(errors)
        g.sync_name(guest, vmid)
    return None


# -- resize -----------------------------------------------------------------------------------

@route("PUT", BASE + "/{vmid}/resize")
def resize(ctx, p):
    """API2/LXC.pm resize_vm: the checks answer at once, the resize is a task."""
    state, vmid, disk = ctx.state, p["vmid"], p["disk"]
    text = p["size"]
    grow = text.startswith("+")
    request = g.parse_size(text.lstrip("+"))
    guest = g.load_guest(state, TYP, p["node"], vmid)
    g.check_lock(guest)
    g.assert_if_modified(guest, p.get("digest"))
    if not (guest.get("config") or {}).get(disk):
        raise ApiError(500, "format error\n", errors={"volume": "property is missing and it is not optional"})
    mp = g.parse_ps(_fmt(disk), guest["config"][disk])
    volid = mp["volume"]
    owner = g.parse_volname(state, volid)[1]
    if owner != vmid:
        # API2/LXC.pm resize_vm dies without a newline (pve-container 94f5585, line 2386)
        raise die_at(f"can't resize mount point owned by another container ({owner})", "PVE/API2/LXC.pm", 2386)
    ctx.access.check(ctx.authid, f"/storage/{g.parse_volid(volid)[0]}", ["Datastore.AllocateSpace"])
    info = g.volume(state, volid)
    size = info["size"] if info else (mp.get("size") or 0)
    newsize = size + request if grow else request
    if newsize < size:
        raise die("unable to shrink disk size")
    if newsize == size:
        raise die("disk is already at specified size")

    def work(log):
        if info is not None:
            info["size"] = newsize
        mp["size"] = newsize
        guest["config"][disk] = print_mountpoint(disk, mp)
    return g.run_task(ctx, p["node"], "resize", vmid, work)


# -- power ------------------------------------------------------------------------------------

def _ha_request(ctx, p, guest, requested, task):
    """A HA-managed container: the request goes to the HA manager (state moved at once here)."""
    state, vmid = ctx.state, p["vmid"]

    def work(log):
        log.append(f"Requesting HA {'start' if requested == 'started' else 'stop'} for CT {vmid}")
        state.ha_resources[f"ct:{vmid}"]["state"] = requested
        if requested == "started":
            g.start(guest)
        else:
            guest["status"] = "stopped"
    return g.run_task(ctx, p["node"], task, vmid, work)


def _running(state, vmid):
    guest = state.guests.get(vmid)
    return guest is not None and guest["type"] == TYP and guest["status"] == "running"


def _start_work(ctx, p, log):
    state, vmid = ctx.state, p["vmid"]
    guest = g.writable(g.load_guest(state, TYP, p["node"], vmid))
    if str(guest["config"].get("template", "0")) == "1":
        raise die("you can't start a CT if it's a template")
    if not p.get("skiplock") and guest.get("lock") != "mounted":
        g.check_lock(guest)
    apply_pending(state, guest, vmid)  # vm_start applies pending changes
    g.sync_name(guest, vmid)
    g.start(guest)


@route("POST", BASE + "/{vmid}/status/start")
def start(ctx, p):
    state, vmid = ctx.state, p["vmid"]
    g.root_only(ctx, p, "skiplock")
    if _running(state, vmid):
        raise die(f"CT {vmid} already running")
    guest = state.guests.get(vmid)
    if guest is not None and g.ha_managed(state, guest, vmid):
        return _ha_request(ctx, p, guest, "started", "hastart")
    return g.run_task(ctx, p["node"], "vzstart", vmid, lambda log: _start_work(ctx, p, log))


def _stop_checks(ctx, p):
    state, vmid = ctx.state, p["vmid"]
    if not _running(state, vmid):
        raise die(f"CT {vmid} not running")
    return state.guests[vmid]


@route("POST", BASE + "/{vmid}/status/stop")
def stop(ctx, p):
    g.root_only(ctx, p, "skiplock")
    guest = _stop_checks(ctx, p)
    if g.ha_managed(ctx.state, guest, p["vmid"]):
        if p.get("overrule-shutdown"):
            raise param_exc({"overrule-shutdown": "Not applicable for HA resources."})
        return _ha_request(ctx, p, guest, "stopped", "hastop")

    def work(log):
        guest_now = g.load_guest(ctx.state, TYP, p["node"], p["vmid"])
        if not p.get("skiplock") and guest_now.get("lock") != "mounted":
            g.check_lock(guest_now)
        guest_now["status"] = "stopped"
    return g.run_task(ctx, p["node"], "vzstop", p["vmid"], work)


@route("POST", BASE + "/{vmid}/status/shutdown")
def shutdown(ctx, p):
    state, vmid = ctx.state, p["vmid"]
    timeout = p.get("timeout", 60)
    guest = _stop_checks(ctx, p)
    if g.ha_managed(state, guest, vmid):
        return _ha_request(ctx, p, guest, "stopped", "hastop")

    def work(log):
        guest_now = g.load_guest(state, TYP, p["node"], vmid)
        g.check_lock(guest_now)
        if vmid in state.shutdown_ignored and not p.get("forceStop"):
            # lxc-stop --nokill gives up after the timeout; without --nokill it kills the container
            log.append(f"command 'lxc-stop -n {vmid} --nokill --timeout {timeout}' failed: exit code 1")
            raise die("container did not stop")
        guest_now["status"] = "stopped"
    return g.run_task(ctx, p["node"], "vzshutdown", vmid, work)


@route("POST", BASE + "/{vmid}/status/reboot")
def reboot(ctx, p):
    """vm_reboot: stop (killed after ``timeout``), then start with the pending changes applied."""
    state, vmid = ctx.state, p["vmid"]
    if not _running(state, vmid):
        raise die(f"VM {vmid} not running")  # (sic: Status.pm says VM for a container here)

    def work(log):
        guest = g.writable(g.load_guest(state, TYP, p["node"], vmid))
        if guest["status"] != "running":
            return 0
        apply_pending(state, guest, vmid)
        g.sync_name(guest, vmid)
        g.start(guest)
        return 0
    return g.run_task(ctx, p["node"], "vzreboot", vmid, work)


# -- destroy ----------------------------------------------------------------------------------

@route("DELETE", BASE + "/{vmid}")
def destroy(ctx, p):
    """API2/LXC.pm destroy_vm: protection, lock, HA and replication without purge, running."""
    state, vmid = ctx.state, p["vmid"]
    guest = g.load_guest(state, TYP, p["node"], vmid)
    g.check_protection(guest, f"can't remove CT {vmid}")
    g.check_lock(guest)
    g.guards_without_purge(state, guest, vmid, p.get("purge"))
    if not p.get("force") and guest["status"] == "running":
        raise die(f"unable to destroy CT {vmid} - container is running")

    def work(log):
        warnings = 0
        if guest["status"] == "running":
            log.append(f"forced to stop CT {vmid} before destroying!")
            warnings += 1
            guest["status"] = "stopped"
        conf = guest.get("config") or {}
        for key in [k for k in conf if VOLUME_KEY.match(k)]:
            _free_owned(state, vmid, _volume_of(key, conf[key]))
        if p.get("destroy-unreferenced-disks"):
            for sid, vols in g.ensure_volumes(state).items():
                for volname in [n for n, info in vols.items() if info.get("vmid") == vmid]:
                    g.free_volume(state, f"{sid}:{volname}")
        g.destroy(state, vmid, p.get("purge"), log)
        state.firewall.get("guests", {}).pop(vmid, None)  # LXC.pm destroy_vm: PVE::Firewall::remove_vmfw_conf
        return warnings
    return g.run_task(ctx, p["node"], "vzdestroy", vmid, work)


# -- interfaces -------------------------------------------------------------------------------

def lxc_interface(iface):
    """One interface as PVE::LXC::get_interfaces reads ``ip --json a`` in the container's network
    namespace: ``inet``/``inet6`` are ``address/prefix`` of the *last* address of that family (the
    loop overwrites, so a NIC with a global and a link-local IPv6 shows the link-local one); it adds
    ``hardware-address`` and every address under ``ip-addresses``, whose ``ip-address-type`` is ``ip``'s
    own family name (``inet``/``inet6``, not the agent's ``ipv4``/``ipv6``)."""
    res = {"name": iface["name"], "hwaddr": iface["hwaddr"], "hardware-address": iface["hwaddr"],
           "ip-addresses": []}
    for text in iface["addresses"]:
        address, prefix, family = g.split_address(text)
        family = "inet" if family == "ipv4" else "inet6"
        res[family] = f"{address}/{prefix}"
        res["ip-addresses"].append({"ip-address": address, "ip-address-type": family, "prefix": prefix})
    return res


@route("GET", BASE + "/{vmid}/interfaces")
def interfaces(ctx, p):
    """API2/LXC.pm ``ip``: PVE::LXC::get_interfaces, which does not load the config and answers
    nothing (``data: null``) when find_lxc_pid fails: a stopped container, one on another node, or
    no container at all. get_interfaces was read in pve-container's LXC.pm (PVE 8); that the method
    calls it bare is from memory (the stored API2/LXC.pm versions predate it)."""
    guest = ctx.state.guests.get(p["vmid"])
    if guest is None or guest["type"] != TYP or guest["node"] != p["node"] or guest.get("status") != "running":
        return None
    return [lxc_interface(iface) for iface in g.reported_interfaces(guest, p["vmid"])]


# -- test helper hooks (guests.add_guest, registered below) -----------------------------------

def seeded_value(state, vmid, node, key, value):
    """A config value as PVE would have written it."""
    if MOUNT_KEY.match(key):
        value = create_disk(state, vmid, key, value)
        mp = g.parse_ps(_fmt(key), value)
        if not mp.get("volume", "/").startswith("/"):
            g.register_volume(state, mp["volume"], vmid, mp.get("size") or 8 * g.GIB, "rootdir")
        return value
    if re.match(r"^net\d+$", key):
        return normalised_net(state, value)
    if key == "tags":
        return g.get_unique_tags(state, value)
    return value


def make_template(state, guest):
    """template_create: ``template: 1`` and the volumes become base volumes."""
    conf = guest["config"]
    for key in [k for k in conf if MOUNT_KEY.match(k)]:
        mp = g.parse_ps(_fmt(key), conf[key])
        if not mp["volume"].startswith("/"):
            mp["volume"] = g.rename_to_base(state, mp["volume"])
            conf[key] = print_mountpoint(key, mp)
    conf["template"] = "1"


g.register_family(TYP, seeded_value, make_template)
