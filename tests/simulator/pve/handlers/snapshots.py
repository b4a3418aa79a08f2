"""Guest snapshots: take, describe, read, roll back and delete one snapshot of a VM or a container.

Ports qemu-server ``PVE/API2/Qemu.pm`` (``snapshot``, ``snapshot_cmd_idx``, ``update_snapshot_config``,
``get_snapshot_config``, ``rollback``, ``delsnapshot``), pve-container ``src/PVE/API2/LXC/Snapshot.pm`` (the same
methods) and pve-guest-common ``src/PVE/AbstractConfig.pm`` (``__snapshot_prepare``, ``__snapshot_commit``,
``snapshot_delete``, ``snapshot_rollback``, ``__snapshot_copy_config``, ``__snapshot_apply_config``). The list
(``GET .../snapshot``) is guests.py's ``_snapshot_list``; a snapshot is ``guests[vmid]["snapshots"][name]``
(see guests.py's docstring).

* ``POST .../snapshot`` answers a ``qmsnapshot`` / ``vzsnapshot`` task. PVE refuses the reserved names before it
  forks (``current`` for both; ``pending`` in any case for a VM, ``vzdump`` for a container); qemu-server also
  loads the VM's config first, so a missing VM is PVE's typed absence, where a missing container fails the task.
  The worker refuses a template, a locked guest and a name in use (``snapshot name 'x' already used``), drops a
  parent reference to the new name (the cycle guard), copies the config, sets ``snaptime`` and the description
  (only a Perl-true one), and makes the snapshot the config's ``parent``. ``vmstate`` (VM only: the container's
  schema has no such parameter, so the generic validation refuses it) records a RAM state volume when the VM runs.
* ``DELETE .../snapshot/{snapname}`` answers a ``qmdelsnapshot`` / ``vzdelsnapshot`` task whose worker fails for a
  missing snapshot (``snapshot 'x' does not exist``), a template or a lock; it re-links the parent references
  (the config's and every other snapshot's) to the deleted snapshot's parent.
* ``PUT .../snapshot/{snapname}/config`` sets the description at once (no task), nothing without one;
  ``GET .../config`` answers the snapshot's own config (its description, snaptime, parent, vmstate).
* ``POST .../snapshot/{snapname}/rollback`` answers a ``qmrollback`` / ``vzrollback`` task: the guest is stopped,
  its config becomes the snapshot's (its ``unusedN`` and description kept, the volumes only it used added as
  ``unusedN``), ``parent`` the snapshot; a snapshot with a RAM state, or ``start=1``, starts it again.

Tasks run at once (guests.run_task), so ``state.task_outcomes["qmsnapshot"]`` (a knob) makes one fail.
"""

import re
import time
from collections import OrderedDict

from ...errors import die
from . import guests as g
from .base import route
from .lxc import MOUNT_KEY, _volume_of
from .qemu import DRIVE_KEY, is_cdrom, parse_drive

BASES = {"qemu": "/nodes/{node}/qemu/{vmid}/snapshot", "lxc": "/nodes/{node}/lxc/{vmid}/snapshot"}
TASK_TYPES = {"qemu": ("qmsnapshot", "qmdelsnapshot", "qmrollback"),
              "lxc": ("vzsnapshot", "vzdelsnapshot", "vzrollback")}
UNUSED_KEY = re.compile(r"^unused\d+$")


def reserved(typ, snapname):
    """The names each create refuses before it forks (Qemu.pm ``snapshot``, LXC/Snapshot.pm ``snapshot``)."""
    if snapname == "current":
        return "current"
    if typ == "qemu" and snapname.lower() == "pending":
        return "pending"
    if typ == "lxc" and snapname == "vzdump":
        return "vzdump"
    return None


def is_template(guest):
    return str((guest.get("config") or {}).get("template", "0")) == "1"


def snapshot_of(guest, snapname):
    snap = (guest.get("snapshots") or {}).get(snapname)
    if snap is None:
        raise die(f"snapshot '{snapname}' does not exist")
    return snap


def volumes_of(typ, conf):
    """The volids a config's disks name (QemuConfig / LXC::Config foreach_volume), CD drives and bind mounts aside."""
    found = set()
    for key, value in conf.items():
        if typ == "qemu" and DRIVE_KEY.match(key):
            drive = parse_drive(key, value)
            if drive.get("file") and drive["file"] != "none" and not is_cdrom(drive):
                found.add(drive["file"])
        elif typ == "lxc" and MOUNT_KEY.match(key):
            volid = _volume_of(key, value)
            if volid:
                found.add(volid)
    return found


def create_work(state, typ, node, vmid, snapname, vmstate, description):
    """AbstractConfig snapshot_create: __snapshot_prepare, then __snapshot_commit (the volume snapshots are kept
    by nothing here: the simulator's volumes have no snapshots of their own)."""
    def work(log):
        guest = g.writable(g.load_guest(state, typ, node, vmid))
        if is_template(guest):
            raise die("you can't take a snapshot if it's a template")
        g.check_lock(guest)
        snapshots = guest["snapshots"]
        if snapname in snapshots:
            raise die(f"snapshot name '{snapname}' already used")
        for name in sorted(snapshots):
            if snapshots[name].get("parent") == snapname:
                log.append(f"deleting parent '{snapname}' reference from '{name}' to avoid bogus snapshot cycle.")
                snapshots[name].pop("parent", None)
        conf = guest["config"]
        snap = {"config": OrderedDict((key, value) for key, value in conf.items()
                                      if key not in g.SNAPSHOT_SKIP and not UNUSED_KEY.match(key)),
                "snaptime": int(time.time()), "description": description if g.perl_true(description) else None}
        if conf.get("parent"):
            snap["parent"] = conf["parent"]
        if vmstate and guest["status"] == "running":  # __snapshot_check_running: a stopped VM has no RAM to save
            snap["config"]["vmstate"] = f"local-lvm:vm-{vmid}-state-{snapname}"
        snapshots[snapname] = snap
        conf["parent"] = snapname
        g.reload(guest)
    return work


def delete_work(state, typ, node, vmid, snapname):
    """AbstractConfig snapshot_delete: the lock, the template check, then the parent references re-linked."""
    def work(log):
        guest = g.writable(g.load_guest(state, typ, node, vmid))
        snap = snapshot_of(guest, snapname)
        g.check_lock(guest)  # set_lock('snapshot-delete') dies on another lock
        if is_template(guest):
            raise die("you can't delete a snapshot if vm is a template")
        new_parent = snap.get("parent")
        for table in [guest["config"]] + [other for name, other in guest["snapshots"].items() if name != snapname]:
            if table.get("parent") == snapname:
                if new_parent:
                    table["parent"] = new_parent
                else:
                    table.pop("parent", None)
        del guest["snapshots"][snapname]
        g.reload(guest)
    return work


def rollback_work(state, typ, node, vmid, snapname, start):
    """AbstractConfig snapshot_rollback: stop, the snapshot's config applied (__snapshot_apply_config), the volumes
    only the current config used kept as unusedN (__snapshot_rollback_get_unused), started again for a RAM state
    (qemu-server) or ``start``."""
    def work(log):
        guest = g.writable(g.load_guest(state, typ, node, vmid))
        if is_template(guest):
            raise die("you can't rollback if vm is a template")
        snap = snapshot_of(guest, snapname)
        if snap.get("snapstate"):
            raise die(f"unable to rollback to incomplete snapshot (snapstate = {snap['snapstate']})")
        g.check_lock(guest)
        guest["status"] = "stopped"  # __snapshot_rollback_vm_stop
        current = guest["config"]
        restored = OrderedDict((key, value) for key, value in current.items()
                               if UNUSED_KEY.match(key) or key == "description")
        restored.update((key, value) for key, value in (snap.get("config") or {}).items()
                        if key not in g.SNAPSHOT_SKIP and not UNUSED_KEY.match(key))
        kept = volumes_of(typ, restored)
        for volid in sorted(volumes_of(typ, current) - kept):
            g.add_unused_volume(restored, volid)
        restored["parent"] = snapname
        guest["config"] = restored
        guest["pending"], guest["pending_delete"] = {}, {}
        g.reload(guest)
        g.sync_name(guest, vmid)
        if (typ == "qemu" and (snap.get("config") or {}).get("vmstate")) or start:
            g.start(guest)
    return work


def _register(typ):
    base = BASES[typ]
    create_type, delete_type, rollback_type = TASK_TYPES[typ]

    @route("POST", base)
    def create(ctx, p):
        name = reserved(typ, p["snapname"])
        if name:
            raise die(f"unable to use snapshot name '{name}' (reserved name)")
        if typ == "qemu":
            g.load_guest(ctx.state, typ, p["node"], p["vmid"])  # Qemu.pm loads the config before it forks
        return g.run_task(ctx, p["node"], create_type, p["vmid"],
                          create_work(ctx.state, typ, p["node"], p["vmid"], p["snapname"], p.get("vmstate"),
                                      p.get("description")))

    @route("GET", base + "/{snapname}")
    def command_index(ctx, p):
        return [{"cmd": "rollback"}, {"cmd": "config"}]

    @route("DELETE", base + "/{snapname}")
    def delete(ctx, p):
        return g.run_task(ctx, p["node"], delete_type, p["vmid"],
                          delete_work(ctx.state, typ, p["node"], p["vmid"], p["snapname"]))

    @route("PUT", base + "/{snapname}/config")
    def update_config(ctx, p):
        if p.get("description") is None:
            return None
        with ctx.state.lock:
            guest = g.writable(g.load_guest(ctx.state, typ, p["node"], p["vmid"]))
            g.check_lock(guest)
            snapshot_of(guest, p["snapname"])["description"] = p["description"]
            g.reload(guest)
        return None

    @route("GET", base + "/{snapname}/config")
    def read_config(ctx, p):
        guest = g.load_guest(ctx.state, typ, p["node"], p["vmid"])
        snap = snapshot_of(guest, p["snapname"])
        conf = dict(snap.get("config") or {})
        conf.update((key, snap[key]) for key in ("description", "snaptime", "parent", "snapstate")
                    if snap.get(key) is not None)
        return g.typed_view(typ, conf)

    @route("POST", base + "/{snapname}/rollback")
    def rollback(ctx, p):
        if typ == "qemu" and p.get("start"):
            # Qemu.pm: vm_start runs inside the worker, so its privilege is checked here
            ctx.access.check(ctx.authid, f"/vms/{p['vmid']}", ["VM.PowerMgmt"])
        return g.run_task(ctx, p["node"], rollback_type, p["vmid"],
                          rollback_work(ctx.state, typ, p["node"], p["vmid"], p["snapname"], p.get("start")))


for _typ in ("qemu", "lxc"):
    _register(_typ)
