"""/cluster/replication and /cluster/replication/{id}: replication.cfg (pve-manager
``API2/ReplicationConfig.pm``, pve-guest-common ``PVE/ReplicationConfig.pm``, the guests'
``get_replicatable_volumes`` in qemu-server and pve-container).

``state.replication_jobs`` maps a job id (``<vmid>-<jobnum>``) to its section: ``type: local``
plus the options as the file holds them (text). Reads add ``id``, ``guest`` and ``jobnum``
(text, as parse_replication_job_id captures them); the item read adds the file's ``digest``,
which an update may send back.

A create needs the guest (``state.guests[vmid]``: ``type``, ``node`` and its ``config``, the
disk keys as PVE writes them, e.g. ``{"scsi0": "local-zfs:vm-100-disk-0,size=8G"}``), a target
node other than the guest's, and at least one replicatable volume: a disk on a storage that is
not shared, owned by the guest, on a ``zfspool`` storage (the one plugin with the ``replicate``
feature). Shared storage is skipped, so a guest on Ceph only gets ``No replicatable volumes
found``; a disk on another local storage gets ``missing replicate feature on volume '<volid>'``.

DELETE only marks the job (``remove_job`` = ``full``, or ``local`` with ``keep=1``): pvesr
removes it on its next run, which ``run_pvesr(state)`` plays; ``force=1`` drops the entry at once.
"""

import hashlib
import re
from collections import OrderedDict

from ...errors import die, locked, param_exc
from ...formats import split_list
from ..state import register_slice
from .base import route
from .texts import read_back, section_comment

register_slice("replication_jobs", OrderedDict)  # replication.cfg

# the local plugin's options(): option -> required
OPTIONS = {"target": True, "schedule": False, "rate": False, "comment": False, "disable": False,
           "remove_job": False, "source": False}
DISKS = {"qemu": re.compile(r"^((ide|sata|scsi|virtio)\d+|efidisk0|tpmstate0|unused\d+)$"),
         "lxc": re.compile(r"^(rootfs|mp\d+|unused\d+)$")}
OWNER = re.compile(r"^(?:vm|base|subvol|basevol)-(\d+)-")


def _raw_config(state):
    out = []
    for jid, job in state.replication_jobs.items():
        out.append(f"{job['type']}: {jid}\n")
        out.extend(f"\t{key} {value}\n" for key, value in sorted(job.items()) if key != "type")
        out.append("\n")
    return "".join(out)


def _digest(state):
    return hashlib.sha1(_raw_config(state).encode()).hexdigest()


def _guest_of(jid):
    guest, _sep, jobnum = jid.partition("-")
    return guest, jobnum


def _view(jid, job):
    guest, jobnum = _guest_of(jid)
    return dict(job, id=jid, guest=guest, jobnum=jobnum)


def _replicatable(state, vmid, guest):
    """get_replicatable_volumes($storecfg, $vmid, $conf, 0, 0) of the guest's type."""
    found = []
    for key, value in sorted((guest.get("config") or {}).items()):
        if not DISKS[guest["type"]].match(key):
            continue
        volid, *options = value.split(",")
        attrs = dict(option.partition("=")[::2] for option in options)
        if volid == "none" or attrs.get("media") == "cdrom" or attrs.get("replicate") == "0":
            continue
        if volid.startswith("/"):
            if guest["type"] == "lxc":
                continue  # a bind or device mount point, not a volume
            raise die(f"unable to replicate local file/device '{volid}'")
        storeid, _sep, volname = volid.partition(":")
        scfg = state.storage_config(storeid)
        if state.storage_view(storeid).get("shared"):
            continue
        owner = OWNER.match(volname.rsplit("/", 1)[-1])
        if not owner or int(owner.group(1)) != vmid:
            continue
        if scfg["type"] != "zfspool":
            raise die(f"missing replicate feature on volume '{volid}'")
        found.append(volid)
    return found


def _check_config(params):
    """SectionConfig::check_config for the local plugin (the schema already checked the values)."""
    settings = {}
    for key, value in sorted(params.items()):
        if key not in OPTIONS:
            raise die(f"unexpected property '{key}'")
        if "\n" in str(value) or "\r" in str(value):
            raise die("property contains a line feed")
        settings[key] = str(value)
    return settings


def run_pvesr(state):
    """What pvesr's next run does with the jobs marked for removal: it removes them (and their
    snapshots; with ``remove_job=full`` the replicated volumes on the target too)."""
    with state.lock:
        for jid in [jid for jid, job in state.replication_jobs.items() if job.get("remove_job")]:
            del state.replication_jobs[jid]


@route("GET", "/cluster/replication")
def index(ctx, p):
    return [_view(jid, job) for jid, job in sorted(ctx.state.replication_jobs.items())
            if ctx.access.check(ctx.authid, f"/vms/{_guest_of(jid)[0]}", ["VM.Audit"], True)]


@route("GET", "/cluster/replication/{id}")
def read(ctx, p):
    state, jid = ctx.state, p["id"]
    job = state.replication_jobs.get(jid)
    if job is None:
        raise die(f"no such replication job '{jid}'")
    ctx.access.check(ctx.authid, f"/vms/{_guest_of(jid)[0]}", ["VM.Audit"])  # ReplicationConfig.pm read
    return dict(_view(jid, job), digest=_digest(state))


@route("POST", "/cluster/replication")
def create(ctx, p):
    state = ctx.state
    params = dict(ctx.raw)
    typ = params.pop("type")
    jid = params.pop("id")
    vmid = int(_guest_of(jid)[0])
    ctx.access.check(ctx.authid, f"/vms/{vmid}", ["VM.Replicate"])
    guest = state.guests.get(vmid)
    if guest is None:
        raise die(f"Guest '{vmid}' does not exist.")
    target = params["target"]
    if target not in state.nodes:
        raise die(f"Target '{target}' does not exist.")
    source = guest["node"]
    if params.get("source") and params["source"] != source:
        raise die(f"Source '{params['source']}' does not match current node of guest '{vmid}' ({source})")
    params["source"] = source
    if target == source:
        raise die("Source and target must not be identical")
    if not _replicatable(state, vmid, guest):
        raise die("No replicatable volumes found")
    with locked(state):
        if jid in state.replication_jobs:
            raise die(f"replication job '{jid}' already exists")
        settings = _check_config(params)
        # ReplicationConfig::write_config: one job per guest and target
        for other, job in state.replication_jobs.items():
            if _guest_of(other)[0] == str(vmid) and job.get("target") == target:
                raise die(f"replication job for guest '{vmid}' to target '{typ}/{target}' already exists")
        # ReplicationConfig write_config/parse_config: the comment through encode_text
        state.replication_jobs[jid] = read_back({"type": typ, **settings}, "comment", section_comment)
    return None


@route("PUT", "/cluster/replication/{id}")
def update(ctx, p):
    state = ctx.state
    params = dict(ctx.raw)
    jid = params.pop("id")
    digest = params.pop("digest", None)
    delete = split_list(params.pop("delete", None))
    ctx.access.check(ctx.authid, f"/vms/{_guest_of(jid)[0]}", ["VM.Replicate"])
    with locked(state):
        if digest and digest != _digest(state):
            raise die("detected modified configuration - file changed by other user? Try again.")
        job = state.replication_jobs.get(jid)
        if job is None:
            raise die(f"no such job '{jid}'")
        job.update(_check_config(params))
        read_back(job, "comment", section_comment)
        for key in delete:
            if key not in OPTIONS:
                raise die(f"no such option '{key}'")
            if OPTIONS[key]:
                raise die(f"unable to delete required option '{key}'")
            job.pop(key, None)
    return None


@route("DELETE", "/cluster/replication/{id}")
def delete(ctx, p):
    state, jid = ctx.state, p["id"]
    ctx.access.check(ctx.authid, f"/vms/{_guest_of(jid)[0]}", ["VM.Replicate"])
    with locked(state):
        if p.get("force"):
            if p.get("keep"):
                raise param_exc({"keep": "conflicts with parameter 'force'"})
            state.replication_jobs.pop(jid, None)
            return None
        job = state.replication_jobs.get(jid)
        if job is None:
            raise die(f"no such job '{jid}'")
        # the local plugin removes the replicated volumes on the target too, unless told to keep them
        job["remove_job"] = "local" if p.get("keep") else "full"
    return None
