"""Migration: a guest moves to another node of the cluster, directly or through HA.

Ports qemu-server ``API2/Qemu.pm migrate_vm`` with ``QemuMigrate.pm`` (prepare, scan_local_volumes, the phases'
outcome), pve-container ``API2/LXC.pm migrate_vm`` with ``LXC/Migrate.pm`` (prepare, phase1), pve-ha-manager
``API2/HA/Resources.pm migrate`` (``queue_crm_commands``) with the CRM's handling of the queued command
(``HA/Manager.pm update_crm_commands``, ``queue_resource_motion``) and the LRM's ``Resources/PVEVM.pm`` /
``PVECT.pm migrate``, and pve-common ``JSONSchema.pm parse_idmap`` / ``map_id``.

* ``POST /nodes/{node}/{qemu,lxc}/{vmid}/migrate`` checks what PVE checks before it forks (the target is another
  cluster node, the config exists on ``node``, the lock, a running guest's mode, the storages on the target) and
  answers a ``qmigrate`` / ``vzmigrate`` task; what the migration itself refuses ends that task with PVE's error
  and moves nothing (a running VM's attached local disks without ``with-local-disks``, a linked clone's or a
  snapshotted disk on a local storage, a storage type that cannot migrate, a target node that is offline). A
  guest HA manages answers a ``hamigrate`` task that only queues the request for HA, as ``ha-manager migrate``.
* A running VM migrates with ``online=1`` and stays running; a running container only with ``restart=1``: it is
  shut down, moved and started on the target. Local volumes keep their names (see ``guests.move_guest``); a
  ``targetstorage`` / ``target-storage`` map moves them to another storage.
* ``POST /cluster/ha/resources/{sid}/migrate`` answers ``{sid, requested-node}`` at once and queues
  ``migrate <sid> <node>`` (``state.ha_crm_commands``, /etc/pve/ha/crm_commands). The CRM takes the queue
  ``state.ha_crm_delay`` seconds later (a knob; PVE's CRM runs every 10 s) on a thread of its own, so the guest
  moves after the request was answered, as on PVE: a service already on the target, an offline target or a
  negative resource affinity with a service on the target is logged and ignored, else the LRM migrates it as
  root@pam (a VM online with ``force`` and ``with-local-disks``, a container shut down, moved and started again).
"""

import re
import threading
from types import SimpleNamespace

from ...errors import ApiError, die, die_at, locked, param_exc
from ...formats import split_list
from ..state import register_slice
from . import guests as g
from .base import route
from .ha import parse_sid
from .lxc import MOUNT_KEY
from .qemu import DRIVE_KEY, is_cdrom, parse_drive

register_slice("ha_crm_commands", list)  # /etc/pve/ha/crm_commands: what the CRM takes on its next round
# Fault knob: seconds between a queued HA command and the CRM's round that acts on it.
register_slice("ha_crm_delay", lambda: 0.5, snapshot=False)

# QemuMigrate.pm / LXC/Migrate.pm: the storage types whose local volumes can be copied to another node.
MIGRATABLE = ("dir", "btrfs", "zfspool", "lvmthin", "lvm")
UNUSED_KEY = re.compile(r"^unused\d+$")
# QemuMigrate::Helpers::check_local_resources: host devices passed through without a mapping
LOCAL_DEVICE = re.compile(r"^(hostpci\d+|usb\d+)$")
# a linked clone's volume names its base: [<vmid>/]base-<vmid>-disk-<n>[...]/vm-...
LINKED_BASE = re.compile(r"^((?:\d+/)?base-\d+-disk-\d+[^/]*)/")


# -- shared checks ----------------------------------------------------------------------------------

def parse_idmap(text, param):
    """JSONSchema.pm parse_idmap for storage ids: identity (``1``), ``source:target`` entries, one default."""
    if not text:
        return None
    idmap = {"identity": False, "entries": {}, "default": None}
    for entry in split_list(text):
        m = re.match(r"^([^:]+):([^:]+)$", entry)
        if entry == "1":
            idmap["identity"] = True
        elif m:
            if m.group(1) in idmap["entries"]:
                raise param_exc({param: f"failed to parse storage map: duplicate mapping for source '{m.group(1)}'"})
            idmap["entries"][m.group(1)] = m.group(2)
        else:
            if idmap["default"] is not None:
                raise param_exc({param: "failed to parse storage map: default target ID can only be provided once"})
            idmap["default"] = entry
    if idmap["identity"] and (idmap["default"] or idmap["entries"]):
        raise param_exc({param: "failed to parse storage map: identity mapping cannot be combined with other "
                                "mappings"})
    return idmap


def map_id(idmap, source):
    """JSONSchema.pm map_id: the entry, else the default, else the source itself."""
    if idmap is None:
        return source
    return idmap["entries"].get(source) or idmap["default"] or source


def check_storage_access_migrate(ctx, sid, target, content):
    """$check_storage_access_migrate of both API modules: enabled on the target, the privilege, the content."""
    g.check_storage_enabled(ctx.state, sid, target)
    ctx.access.check(ctx.authid, f"/storage/{sid}", ["Datastore.AllocateSpace"])
    if content not in g.storage_content(ctx.state, sid)[1]:
        what = "vm images" if content == "images" else "CT rootdirs"
        raise die(f"storage '{sid}' does not support {what}")


def check_target(ctx, p):
    """Both migrate_vm: another node of a quorate cluster."""
    state, target = ctx.state, p["target"]
    if target == p["node"]:
        raise param_exc({"target": "target is local node."})
    if not state.quorate():  # Cluster.pm check_cfs_quorum
        raise die("cluster not ready - no quorum?")
    if target not in state.nodes:  # Cluster.pm check_node_exists
        raise die(f"no such cluster node '{target}'")


def storage_map(ctx, p, param, content, target):
    """The ``targetstorage`` / ``target-storage`` map, each storage it names checked on the target."""
    idmap = parse_idmap(p.get(param), param)
    if idmap is not None:
        for sid in sorted(set(idmap["entries"].values()) | ({idmap["default"]} if idmap["default"] else set())):
            check_storage_access_migrate(ctx, sid, target, content)
    return idmap


def ssh_reachable(state, target):
    """The migration's ``/bin/true`` over SSH: an offline node does not answer it."""
    if not state.nodes[target]["online"]:
        raise die("Can't connect to destination address using public key")


def lrm(state):
    """The context a migration the HA stack runs has: root@pam on the source node (RPCEnvironment type ``ha``)."""
    return SimpleNamespace(state=state, authid="root@pam")


def base_of(volid):
    m = LINKED_BASE.match(g.parse_volid(volid)[1] or "")
    return m.group(1) if m else None


# -- QEMU -------------------------------------------------------------------------------------------

def aborted(step):
    """AbstractMigrate::migrate around the phases: what dies is logged and the task ends ``migration aborted``."""
    def work(log):
        try:
            step(log)
        except ApiError as err:
            log.append(f"ERROR: migration aborted (duration 00:00:01): {err.stringify().rstrip()}")
            raise die("migration aborted") from err
    return work


def vm_volumes(conf, snapshots):
    """QemuServer::foreach_volid, what a migration scans: volid -> the attributes it has (attached, unused,
    snapshot, cdrom)."""
    found = {}

    def drives(table, attr):
        for key, value in table.items():
            if DRIVE_KEY.match(key):
                drive = parse_drive(key, value)
                volid = drive.get("file", "")
                if volid:
                    found.setdefault(volid, set()).update([attr] + (["cdrom"] if is_cdrom(drive) else []))
            elif UNUSED_KEY.match(key) and attr == "attached":
                found.setdefault(value, set()).add("unused")

    drives(conf, "attached")
    for snap in snapshots.values():
        drives(snap.get("config") or {}, "snapshot")
    return found


def vm_local_volume(state, volid, attrs, running, node, target, idmap):
    """scan_local_volumes' $test_volid for one volume: None for a volume on a shared storage, else its target
    storage; an ApiError says why it cannot migrate."""
    if volid == "cdrom":
        raise die("can't migrate local cdrom drive")
    sid = g.parse_volid(volid)[0]
    scfg = g.check_storage_enabled(state, sid, node)
    shared = g.storage_shared(state, sid)
    target_sid = sid if shared else map_id(idmap, sid)
    target_storage_check_available(state, target_sid, volid, target)
    if shared:
        return None
    if "cdrom" in attrs and not re.search(r"vm-\d+-cloudinit", volid):
        raise die("local cdrom image")
    if "snapshot" in attrs:
        if running:
            raise die("online storage migration not possible if non-replicated snapshot exists")
        if not (scfg["type"] == "zfspool" or (g.volume(state, volid) or {}).get("format") == "qcow2"):
            raise die("non-migratable snapshot exists")
    if g.linked_clones(state, volid):
        raise die("referenced by linked clone(s)")
    return target_sid


def target_storage_check_available(state, target_sid, volid, target):
    """QemuMigrate.pm target_storage_check_available: enabled on the target node, with the volume's content."""
    g.check_storage_enabled(state, target_sid, target)
    vtype = g.parse_volname(state, volid)[0]
    if vtype not in g.storage_content(state, target_sid)[1]:
        raise die(f"{volid}: content type '{vtype}' is not available on storage '{target_sid}'")


def vm_migration(ctx, node, vmid, target, opts):
    """QemuMigrate->migrate: prepare (lock, the running mode, local devices, the target), phase1's
    scan_local_volumes, then the move (the config to the target; a running VM stays running)."""
    state = ctx.state

    def step(log):
        guest = g.load_guest(state, "qemu", node, vmid)
        g.check_lock(guest)
        running = guest["status"] == "running"
        if running and not opts.get("online"):
            raise die("can't migrate running VM without --online")
        devices = sorted(key for key, value in guest["config"].items()
                         if LOCAL_DEVICE.match(key) and "mapping=" not in value and value != "spice")
        if devices and (running or not opts.get("force")):
            raise die(f"can't migrate VM which uses local devices: {', '.join(devices)}")
        ssh_reachable(state, target)
        log.append(f"starting migration of VM {vmid} to node '{target}' ({state.nodes[target]['ip']})")
        relocated, errors, found = {}, {}, []
        for volid, attrs in sorted(vm_volumes(guest["config"], guest.get("snapshots") or {}).items()):
            if volid == "none":
                continue
            try:
                target_sid = vm_local_volume(state, volid, attrs, running, node, target,
                                             opts.get("storagemap"))
            except ApiError as err:  # PVE collects each volume's error, then aborts naming them all
                errors[volid] = err.stringify().rstrip("\n")
                continue
            if target_sid is None:
                continue
            ref = "attached" if "attached" in attrs else "unused" if "unused" in attrs else "referenced by snapshot(s)"
            if ref == "attached" and running and not opts.get("with-local-disks"):
                errors[volid] = "can't live migrate attached local disks without with-local-disks option"
            log.append(f"found local disk '{volid}' ({ref})")
            found.append(volid)
            if target_sid != g.parse_volid(volid)[0]:
                relocated[volid] = target_sid
        for volid in sorted(errors):
            log.append(f"can't migrate local disk '{volid}': {errors[volid]}")
        if errors:
            raise die("Problem found while scanning volumes - can't migrate VM - check log")
        for volid in found:
            stype = state.storage_config(g.parse_volid(volid)[0])["type"]
            if stype not in MIGRATABLE:
                raise die(f"Problem found while scanning volumes - can't migrate '{volid}' - storage type "
                          f"'{stype}' not supported")
            if base_of(volid):
                raise ApiError(500, "Problem found while scanning volumes - " + die_at(
                    f"can't migrate '{volid}' as it's a clone of '{base_of(volid)}'", "PVE/QemuMigrate.pm",
                    586).message, exception=False)
        if running:
            log.append("starting online/live migration")
        for old, new in g.move_guest(state, vmid, target, relocated).items():
            log.append(f"mapped: {old} => {new}")
        log.append("migration finished successfully (duration 00:00:01)")
    return aborted(step)


@route("POST", "/nodes/{node}/qemu/{vmid}/migrate")
def migrate_vm(ctx, p):
    """API2/Qemu.pm migrate_vm: the checks before the fork, then the ``qmigrate`` task (``hamigrate`` for a VM
    HA manages: the request goes to HA)."""
    state, node, vmid, target = ctx.state, p["node"], p["vmid"], p["target"]
    check_target(ctx, p)
    g.root_only(ctx, p, "force", "migration_type", "migration_network")
    guest = g.load_guest(state, "qemu", node, vmid)
    g.check_lock(guest)
    opts = dict(p)
    if guest["status"] == "running":
        if not p.get("online"):
            raise die("can't migrate running VM without --online")
    else:
        opts["online"] = 0  # "VM isn't running. Doing offline migration instead." (a warning to the daemon's log)
    opts["storagemap"] = storage_map(ctx, p, "targetstorage", "images", target)
    if opts["storagemap"] is None or opts["storagemap"]["identity"]:
        check_storage_availability(state, guest["config"], node, target)
    if g.ha_managed(state, guest, vmid):
        return ha_request(ctx, node, vmid, "VM", f"vm:{vmid}", target)
    return g.run_task(ctx, node, "qmigrate", vmid, vm_migration(ctx, node, vmid, target, opts))


def check_storage_availability(state, conf, node, target):
    """QemuServer::check_storage_availability: each drive's storage enabled on both nodes, with its content."""
    for key, value in conf.items():
        if not DRIVE_KEY.match(key):
            continue
        volid = parse_drive(key, value).get("file", "")
        sid = g.parse_volid(volid)[0]
        if sid is None:
            continue
        g.check_storage_enabled(state, sid, node)
        g.check_storage_enabled(state, sid, target)
        vtype = g.parse_volname(state, volid)[0]
        if vtype not in g.storage_content(state, sid)[1]:
            raise die(f"{volid}: content type '{vtype}' is not available on storage '{sid}'")


# -- LXC --------------------------------------------------------------------------------------------

def ct_mount_points(conf):
    """foreach_volume_full with include_unused: (key, parsed mount point) of rootfs, mpN and unusedN."""
    for key in sorted(conf):
        if MOUNT_KEY.match(key):
            mp = g.parse_ps(g.option_format("lxc", key), conf[key])
        elif UNUSED_KEY.match(key):
            mp = {"volume": conf[key]}
        else:
            continue
        volid = mp.get("volume", "")
        kind = "volume" if not volid.startswith("/") else "device" if volid.startswith("/dev/") else "bind"
        yield key, dict(mp, type=kind)


def ct_migration(ctx, node, vmid, target, opts):
    """LXC::Migrate->migrate: prepare (lock, the running mode, each mount point and its storages, the restart
    mode's shutdown), phase1's volume checks, then the move and, in restart mode, the start on the target."""
    state = ctx.state

    def step(log):
        guest = g.load_guest(state, "lxc", node, vmid)
        g.check_lock(guest)
        running = guest["status"] == "running"
        if running:
            if opts.get("online"):
                raise die("lxc live migration is currently not implemented")
            if not opts.get("restart"):
                raise die_at("running container can only be migrated in restart mode", "PVE/LXC/Migrate.pm", 53)
        local = {}
        for key, mp in ct_mount_points(guest["config"]):
            if mp["type"] != "volume":
                if str(mp.get("shared", "0")) == "1":
                    continue
                raise die(f"cannot migrate local {mp['type']} mount point '{key}'")
            volid = mp.get("volume") or ""
            sid = g.parse_volid(volid)[0]
            if sid is None:
                raise die(f"can't determine assigned storage for mount point '{key}'")
            g.check_storage_enabled(state, sid, node)
            if "rootdir" not in g.storage_content(state, sid)[1]:
                raise die(f"content type 'rootdir' is not available on storage '{sid}'")
            target_sid = sid
            if not g.storage_shared(state, sid):
                target_sid = map_id(opts.get("storagemap"), sid)
                local[volid] = target_sid
            g.check_storage_enabled(state, target_sid, target)
            if "rootdir" not in g.storage_content(state, target_sid)[1]:
                raise die(f"{volid}: content type 'rootdir' is not available on storage '{target_sid}'")
        ssh_reachable(state, target)
        if running:
            log.append(f"shutdown CT {vmid}")
            guest["status"] = "stopped"
        log.append(f"starting migration of CT {vmid} to node '{target}' ({state.nodes[target]['ip']})")
        errors = {}
        for volid in sorted(local):
            stype = state.storage_config(g.parse_volid(volid)[0])["type"]
            if stype not in MIGRATABLE:
                errors[volid] = f"storage type '{stype}' not supported"
            elif base_of(volid):
                errors[volid] = f"clone of '{base_of(volid)}'"
            elif guest.get("snapshots") and stype not in ("zfspool", "btrfs"):
                errors[volid] = "non-migratable snapshot exists"
            else:
                log.append(f"found local volume '{volid}' (in current VM config)")
        for volid in sorted(errors):
            log.append(f"can't migrate local volume '{volid}': {errors[volid]}")
        if errors:
            raise die("can't migrate CT - check log")
        relocated = dict((volid, sid) for volid, sid in local.items() if sid != g.parse_volid(volid)[0])
        for old, new in g.move_guest(state, vmid, target, relocated).items():
            log.append(f"mapped: {old} => {new}")
        if running:
            log.append("start container on target node")
            g.start(guest)
        log.append("migration finished successfully (duration 00:00:01)")
    return aborted(step)


@route("POST", "/nodes/{node}/lxc/{vmid}/migrate")
def migrate_ct(ctx, p):
    """API2/LXC.pm migrate_vm: the checks before the fork, then the ``vzmigrate`` task (``hamigrate`` for a
    container HA manages)."""
    state, node, vmid, target = ctx.state, p["node"], p["vmid"], p["target"]
    check_target(ctx, p)
    guest = g.load_guest(state, "lxc", node, vmid)
    if guest["status"] == "running" and not p.get("online") and not p.get("restart"):
        raise die("can't migrate running container without --online or --restart")
    opts = dict(p, storagemap=storage_map(ctx, p, "target-storage", "rootdir", target))
    if g.ha_managed(state, guest, vmid):
        return ha_request(ctx, node, vmid, "CT", f"ct:{vmid}", target)
    return g.run_task(ctx, node, "vzmigrate", vmid, ct_migration(ctx, node, vmid, target, opts))


# -- HA ---------------------------------------------------------------------------------------------

def queue_crm_command(state, command):
    """HA/Config.pm queue_crm_commands (under the HA domain lock), and the CRM's next round scheduled."""
    with locked(state, "queue crm command failed"):
        state.ha_crm_commands.append(command)
    timer = threading.Timer(state.ha_crm_delay, crm_round, args=(state,))
    timer.daemon = True
    timer.start()


def ha_request(ctx, node, vmid, word, sid, target):
    """The ``hamigrate`` worker of both migrate_vm: ``ha-manager migrate <sid> <target>``, which only queues."""
    def work(log):
        log.append(f"Requesting HA migration for {word} {vmid} to node {target}")
        queue_crm_command(ctx.state, f"migrate {sid} {target}")
    return g.run_task(ctx, node, "hamigrate", vmid, work)


def _affine(state, sid, affinity):
    """The resources sharing an enabled resource-affinity rule of ``affinity`` with ``sid``."""
    partners = set()
    for rule in state.ha_rules.values():
        if rule["type"] == "resource-affinity" and not rule.get("disable") and rule.get("affinity") == affinity \
                and sid in rule["resources"]:
            partners |= rule["resources"] - {sid}
    return sorted(partners)


def _node_of(state, sid):
    guest = state.guests.get(int(sid.split(":", 1)[1]))
    return guest["node"] if guest is not None else None


@route("POST", "/cluster/ha/resources/{sid}/migrate")
def ha_migrate(ctx, p):
    """API2/HA/Resources.pm migrate: the resource must be HA managed; the request is queued for the CRM and the
    answer names the resources that go along (positive affinity) and those on the target that block it."""
    state = ctx.state
    sid = parse_sid(state, p["sid"])[0]
    target = p["node"]
    if sid not in state.ha_resources:  # HA/Config.pm service_is_ha_managed
        raise die(f"resource '{sid}' is not HA managed")
    queue_crm_command(state, f"migrate {sid} {target}")
    result = {"sid": sid, "requested-node": target}
    together = _affine(state, sid, "positive")
    blocking = [{"sid": other, "cause": "resource-affinity"} for other in _affine(state, sid, "negative")
                if _node_of(state, other) == target]
    if together:
        result["comigrated-resources"] = together
    if blocking:
        result["blocking-resources"] = blocking
    return result


def crm_round(state):
    """The CRM takes the queued commands (Manager.pm update_crm_commands, queue_resource_motion) and the LRM of the
    source node carries out each motion: a ``qmigrate`` / ``vzmigrate`` task as root@pam."""
    with state.lock:
        commands, state.ha_crm_commands[:] = list(state.ha_crm_commands), []
        for command in commands:
            m = re.match(r"^(migrate|relocate)\s+(\S+)\s+(\S+)$", command)
            if m is None:
                continue
            sid, target = m.group(2), m.group(3)
            if sid not in state.ha_resources or state.ha_resources[sid].get("state") == "ignored":
                continue  # "crm command error - no such service"
            if target not in state.nodes or not state.nodes[target]["online"]:
                continue  # "crm command error - node not online"
            if _node_of(state, sid) == target:
                continue  # "ignore crm command - service already on target node"
            if any(_node_of(state, other) == target for other in _affine(state, sid, "negative")):
                continue  # "service '...' on node '...' in negative affinity with service '...'"
            for motion in [sid] + [other for other in _affine(state, sid, "positive")
                                   if other in state.ha_resources and _node_of(state, other) != target]:
                lrm_migrate(state, motion, target)


def lrm_migrate(state, sid, target):
    """Resources/PVEVM.pm migrate (online with force and with-local-disks) or PVECT.pm migrate (shut down, moved
    offline; the CRM then starts it on the target when its requested state is started)."""
    vmid = int(sid.split(":", 1)[1])
    guest = state.guests.get(vmid)
    if guest is None:
        return
    node, ctx = guest["node"], lrm(state)
    if guest["type"] == "qemu":
        opts = {"online": 1 if guest["status"] == "running" else 0, "force": 1, "with-local-disks": 1}
        g.run_task(ctx, node, "qmigrate", vmid, vm_migration(ctx, node, vmid, target, opts))
        return
    was_running = guest["status"] == "running"
    if was_running:
        guest["status"] = "stopped"
    g.run_task(ctx, node, "vzmigrate", vmid, ct_migration(ctx, node, vmid, target, {}))
    if was_running and g.ha_state(state, sid) == "started":
        g.start(guest)
