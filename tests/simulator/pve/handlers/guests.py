"""Guests (LXC containers and QEMU VMs): what both families share. ``lxc.py`` and ``qemu.py`` hold
what differs (create, update, resize, power, clone, template, destroy).

Ports pve-guest-common ``AbstractConfig.pm`` (load_config's typed absence, check_lock,
check_protection, the pending-delete list, cleanup_pending, load_current_config,
load_snapshot_config), ``GuestHelpers.pm`` (config_with_pending_array, get_unique_tags),
pve-cluster ``check_vmid_unused``, pve-common ``JSONSchema.pm`` (print_property_string,
format_size, parse_size) and ``Tools.pm`` (random_ether_addr), pve-storage's volume naming
(``Plugin.pm`` find_free_diskname, parse_volname, check_volume_access, storage_check_enabled)
and pve-manager ``API2/Cluster.pm`` resources with ``API2Tools.pm`` extract_*_stats.

State (``state.guests`` / ``state.volumes``, both rolled back with a failed request):

* ``guests[vmid]``: ``{"type": "qemu"|"lxc", "node", "status": "running"|"stopped", "config":
  OrderedDict key -> text (the ``<vmid>.conf`` options, ``lock`` excepted), "pending": key -> text,
  "pending_delete": key -> force (0/1), "snapshots": name -> {"description", "snaptime",
  "parent"?, "config"}, "lock": None or a lock name, "name": the display name (kept for pools.py),
  "started": epoch of the last start, "interfaces": None or what the running guest reports (see below),
  "cloudinit"?: a VM's ``[special:cloudinit]`` section, key -> text (cloudinit.py)}``.
  Bare entries (no ``config``) read as an empty config.
* ``volumes[storage][volname]``: ``{"size": bytes, "vmid": int or None, "format": "raw"|"qcow2"|
  "subvol"|None, "content": "images"|"rootdir"|"vztmpl"|"iso"}``; ``local``'s three container
  templates and one ISO are seeded on first use. A file made by a download, an upload or an OCI pull
  (content_sources.py) also keeps its bytes (``"data"``) and its ``"ctime"``.
* ``node_volumes[node][storage][volname]``: the files (ISO images, templates, backups, snippets, import images)
  of a storage that is not shared, which each node has on its own disk: what one node downloaded is there
  only; ``None`` where a file of ``volumes`` (a seeded template, on every node) was deleted on that node.
  ``volume(state, volid, node)``, ``node_files``, ``put_file`` and ``remove_volume`` read and write both.

The raw file (``file_text``) is written the way ``write_vm_config`` / ``write_pct_config`` write it
(description as ``#`` lines through ``encode_text``, keys sorted, ``[PENDING]`` / ``[pve:pending]`` then
the snapshots); ``digest`` is its SHA-1. Every write ends with ``reload``: each description becomes what
``parse_pct_config`` / ``parse_vm_config`` read back from that file (``parse_descriptions``). Reads type
values as PVE's ``check_type`` does: integers and booleans as JSON numbers, ``number`` options as strings.

Worker tasks run at once and end at once: the state change is made inside the request and the
task records ``OK`` (or ``WARNINGS: n``) or, when the work dies, the error, with every change of
that work rolled back (``run_task``).

Validation: PVE's API dump folds ``net0`` .. ``net31`` into one ``net[n]`` property
(``RESTHandler::api_clone_schema``); ``expand_indexed_parameters`` gives the guest methods their
indexed properties back (``net0`` .. ``net31``, ``scsi0`` .. ``scsi30``, ...), so a property string
is checked against its format by the generic pipeline and ``net99`` is refused as PVE refuses it.

Test helpers (plain functions, state lock taken):

* ``add_guest(state, type, vmid, node, config=None, status="stopped", template=False)``: seed a
  guest as PVE would have written it. A disk given as ``<storage>:<GiB>`` gets a new volume
  (``local-lvm:vm-<vmid>-disk-<n>,size=<n>G``), a disk naming a volume registers it with the
  ``size=`` given (8 GiB without), a NIC without a MAC gets one, ``template=True`` writes
  ``template: 1`` and turns the disks into ``base-`` volumes. Returns the guest entry.
* ``guest_config(state, vmid)``: the config as ``GET .../config`` answers it (pending merged,
  ``digest`` added, values typed).
* ``add_snapshot(state, vmid, name, description="", snaptime=None, vmstate=False)``: a snapshot as
  ``snapshot_create`` leaves it (the current config copied, ``parent`` chained, the config's ``parent``
  set to the new one).
* ``set_guest_interfaces(state, vmid, interfaces)``: what the running guest reports (the QEMU agent's
  ``network-get-interfaces``, a container's ``interfaces``), ``None`` for the default.
* ``seed_many_guests(state, count, ...)``: many guests at once for scale tests and benchmarks.

What a running guest reports (``reported_interfaces``): the loopback, then ``guest["interfaces"]``
when a test set it, else one interface per ``netN`` of the config: the NIC's MAC (lower case); a
container's ``name``, a VM's ``ens<18+N>`` (its PCI slot); the static ``ip``/``ip6`` of the NIC
(a VM's ``ipconfigN``), for ``dhcp`` (and a VM without ``ipconfigN``) the lease
``10.<100+N>.<vmid/256>.<vmid%256>/16``, for ``auto``/``dhcp`` IPv6 ``fd00:<100+N in hex>::<EUI-64>/64``;
every NIC last has its link-local ``fe80::<EUI-64>/64``. ``state.agent_unresponsive`` (vmids) is the
fault knob for a VM whose agent is configured but does not answer.
"""

import hashlib
import ipaddress
import random
import re
import time
import uuid
from collections import OrderedDict
from types import SimpleNamespace

from ...errors import ApiError, die, die_at, perm_exc
from ...schema import load as load_schema, parse_property_string
from ..state import register_slice
from .base import route
from .ha import purge_from_rules
from .texts import PERL_SPACE, decode_text, encode_text, perl_lines, perl_true

# The guests and the storages' volumes (see the module docstring; both rolled back with a failed request).
register_slice("guests", dict)
register_slice("volumes", dict)
register_slice("node_volumes", dict)
# Fault knob: vmids whose guest ignores an ACPI/clean shutdown (the shutdown task times out unless
# forceStop=1 is sent, which then stops it hard).
register_slice("shutdown_ignored", set, snapshot=False)
# Fault knob: vmids of VMs whose guest agent is configured (`agent: 1`) but does not answer: the agent
# commands fail with "QEMU guest agent is not running" (QemuServer/Agent.pm assert_agent_available).
register_slice("agent_unresponsive", set, snapshot=False)

TYPES = ("lxc", "qemu")
CONF_DIR = {"lxc": "lxc", "qemu": "qemu-server"}
GUEST_WORD = {"lxc": "CT", "qemu": "VM"}
HA_TYPE = {"lxc": "ct", "qemu": "vm"}
PENDING_HEADER = {"lxc": "[pve:pending]", "qemu": "[PENDING]"}
MAC_PREFIX = "BC:24:11"  # datacenter.cfg mac_prefix default (pve-cluster DataCenterConfig.pm)
GIB = 1024 ** 3

# How many of each indexed option a guest has (pve-container LXC/Config.pm, qemu-server's
# $MAX_NETS, $MAX_SCSI_DISKS ...): what api_clone_schema folded into "<name>[n]".
INDEXED = {
    "lxc": {"net": 32, "mp": 256, "unused": 256, "dev": 256},
    "qemu": {"net": 32, "ipconfig": 32, "scsi": 31, "virtio": 16, "sata": 6, "ide": 4, "unused": 256,
             "usb": 14, "hostpci": 16, "serial": 4, "parallel": 3, "numa": 8, "virtiofs": 10},
}

# What PVE's local storage holds on a fresh install (plus the templates our tests use).
SEED_VOLUMES = {
    "vztmpl/debian-12-standard_12.7-1_amd64.tar.zst": 126 * 1024 ** 2,
    "vztmpl/ubuntu-24.04-standard_24.04-2_amd64.tar.zst": 141 * 1024 ** 2,
    "vztmpl/alpine-3.20-default_20240908_amd64.tar.xz": 3 * 1024 ** 2,
    "iso/debian-12.7.0-amd64-netinst.iso": 631 * 1024 ** 2,
}
FILE_STORAGES = ("dir", "nfs", "cifs", "glusterfs", "btrfs", "cephfs")
BLOCK_ROUNDING = {"lvm": 4 * 1024 ** 2, "lvmthin": 4 * 1024 ** 2}  # the LV extent size


# -- schema: indexed parameters --------------------------------------------------------------

def _walk(node):
    yield node
    for child in node.literal.values():
        yield from _walk(child)
    if node.var is not None:
        yield from _walk(node.var)


def expand_indexed_parameters(index):
    """Replace ``<name>[n]`` by ``<name>0`` .. ``<name>N-1`` in the guest methods' parameters."""
    for node in _walk(index.root):
        path = node.path or ""
        family = next((t for t in TYPES if path.startswith(f"/nodes/{{node}}/{t}")), None)
        if family is None:
            continue
        for info in node.info.values():
            props = (info.get("parameters") or {}).get("properties") or {}
            for key in [k for k in props if k.endswith("[n]")]:
                name = key[:-3]
                sub = props.pop(key)
                for i in range(INDEXED[family].get(name, 1)):
                    props[f"{name}{i}"] = sub


expand_indexed_parameters(load_schema())


def config_props(typ):
    """The config options of a type, as the update method's schema has them."""
    return load_schema().lookup("PUT", f"/nodes/{{node}}/{typ}/{{vmid}}/config")["parameters"]["properties"]


NOT_OPTIONS = ("node", "vmid", "delete", "revert", "digest", "skiplock", "force")


def option_exists(typ, key):
    """Config::option_exists: a key of the guest's config description."""
    return key in config_props(typ) and key not in NOT_OPTIONS


def option_format(typ, key):
    """The property-string format of an option (a dict) or None."""
    fmt = (config_props(typ).get(key) or {}).get("format")
    return fmt if isinstance(fmt, dict) else None


def typed(typ, key, value):
    """check_type of the config parsers: integers and booleans as numbers, the rest as text."""
    kind = (config_props(typ).get(key) or {}).get("type")
    if kind == "boolean":
        return 1 if str(value).lower() in ("1", "on", "yes", "true") else 0
    if kind == "integer" and re.match(r"^-?\d+$", str(value)):
        return int(value)
    return value


# -- property strings -------------------------------------------------------------------------

def parse_size(text):
    """JSONSchema::parse_size: bytes, or None."""
    m = re.match(r"^(\d+(?:\.\d+)?)([KMGT])?$", str(text))
    if not m:
        return None
    factor = {None: 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}[m.group(2)]
    return int(float(m.group(1)) * factor)


def format_size(size):
    """JSONSchema::format_size: the largest unit that divides the size (0 is ``0T``)."""
    size = int(size)
    for unit in ("", "K", "M", "G"):
        if size % 1024:
            return f"{size}{unit}"
        size //= 1024
    return f"{size}T"


def parse_ps(fmt, text):
    """parse_property_string, with ``size`` turned into bytes (parse_drive / parse_volume do)."""
    res = parse_property_string(fmt, text, "")
    if res.get("size") is not None:
        res["size"] = parse_size(res["size"])
    return res


def print_ps(data, fmt, skip=()):
    """JSONSchema::print_property_string: the default key's bare value (``model=mac`` combined
    through a key alias), then the required keys, then the rest, each group sorted."""
    default_key = next((k for k, sub in fmt.items() if sub.get("default_key")), None)
    aliases = {sub["keyAlias"]: sub["alias"] for sub in fmt.values() if sub.get("keyAlias")}
    done = set(skip)
    parts = []

    def value_text(key, value):
        if (fmt.get(key) or {}).get("format") == "disk-size":
            return format_size(value if isinstance(value, int) else parse_size(value))
        return str(value)

    def add(key, bare=False):
        if key in done or data.get(key) is None:
            return
        done.add(key)
        combine = aliases.get(key)
        if combine and data.get(combine) is not None:
            parts.append(f"{value_text(key, data[key])}={value_text(combine, data[combine])}")
            done.add(combine)
            return
        parts.append(value_text(key, data[key]) if bare else f"{key}={value_text(key, data[key])}")

    if default_key:
        add(default_key, bare=True)
    for key in sorted(data):
        if key in fmt and not fmt[key].get("optional"):
            add(key)
    for key in sorted(data):
        add(key)
    return ",".join(parts)


def random_mac(state):
    """Tools::random_ether_addr with datacenter.cfg's mac_prefix (default BC:24:11)."""
    prefix = state.datacenter.get("mac_prefix", MAC_PREFIX).upper()
    octets = [random.randint(0, 255) for _octet in range(6)]
    octets[0] = (octets[0] & 0xFE) | 2
    mac = ":".join(f"{o:02X}" for o in octets)
    return prefix + mac[len(prefix):]


def get_unique_tags(state, text):
    """GuestHelpers::get_unique_tags under datacenter.cfg's tag-style."""
    style = {}
    for part in (state.datacenter.get("tag-style") or "").split(","):
        key, _sep, value = part.partition("=")
        style[key] = value
    case_sensitive = style.get("case-sensitive") in ("1", "true", "yes", "on")
    tags = [t for t in re.split(r"[,;\s]+", text or "") if t]
    if style.get("ordering") != "config":
        tags.sort(key=lambda t: t if case_sensitive else t.lower())
    seen, res = set(), []
    for tag in tags:
        tag = tag if case_sensitive else tag.lower()
        if tag not in seen:
            seen.add(tag)
            res.append(tag)
    return ";".join(res)


# -- guests and their config file ----------------------------------------------------------------

def new_guest(typ, node, status="stopped"):
    return {"type": typ, "node": node, "status": status, "config": OrderedDict(), "pending": {},
            "pending_delete": {}, "snapshots": {}, "lock": None, "name": None, "started": None,
            "interfaces": None}


def writable(guest):
    """A guest entry with every part a write touches (older tests seed bare entries)."""
    guest.setdefault("config", OrderedDict())
    for key in ("pending", "pending_delete", "snapshots"):
        guest.setdefault(key, {})
    guest.setdefault("lock", None)
    return guest


def config_path(typ, node, vmid):
    return f"nodes/{node}/{CONF_DIR[typ]}/{vmid}.conf"


def load_guest(state, typ, node, vmid):
    """AbstractConfig::load_config on ``node``: the typed absence when the file is not there."""
    guest = state.guests.get(vmid)
    if guest is None or guest["type"] != typ or guest["node"] != node:
        raise die(f"Configuration file '{config_path(typ, node, vmid)}' does not exist")
    return guest


def display_name(guest, vmid):
    """The config's ``name`` (VM) or ``hostname`` (CT); a bare entry's ``name``; PVE's default."""
    if "config" not in guest and guest.get("name"):
        return guest["name"]
    conf = guest.get("config") or {}
    if guest["type"] == "qemu":
        return conf.get("name") or f"VM {vmid}"
    return conf.get("hostname") or f"CT{vmid}"


def sync_name(guest, vmid):
    """Keep ``name`` (read by pools.py) the display name of the current config."""
    guest["name"] = display_name(guest, vmid)


def file_conf(guest):
    """The options as the file holds them: the config plus its lock."""
    conf = dict(guest.get("config") or {})
    if guest.get("lock"):
        conf["lock"] = guest["lock"]
    return conf


def description_lines(typ, conf, pending=False):
    r"""The ``#`` lines a section starts with: write_pct_config (``$conf->{description} || ''``, each line of
    split(/\n/) encoded) / write_vm_config (the same when true; a false one in [PENDING] is a bare ``#``)."""
    descr = conf.get("description")
    if perl_true(descr):
        return ["#" + encode_text(line) for line in perl_lines(descr)]
    if typ == "qemu" and descr is not None and pending:
        return ["#"]
    return []


def _section(typ, conf, pending=False):
    out = description_lines(typ, conf, pending)
    out += [f"{key}: {conf[key]}" for key in sorted(conf) if key != "description"]
    return "".join(line + "\n" for line in out)


_BLANK = re.compile(r"^\s*$", re.A)  # the file is read as bytes: Perl's \s is ASCII there
_DESCRIPTION_LINE = re.compile(r"^(description):\s*(.*\S)\s*$", re.A)
_SECTIONS = {
    "lxc": [(re.compile(r"^\[pve:pending\]\s*$", re.I | re.A), "pending"),
            (re.compile(r"^\[([a-z][a-z0-9_\-]+)\]\s*$", re.I | re.A), "snapshot")],
    "qemu": [(re.compile(r"^\[PENDING\]\s*$", re.I | re.A), "pending"),
             (re.compile(r"^\[special:(cloudinit|fleecing)\]\s*$", re.I | re.A), "special"),
             (re.compile(r"^\[([a-z][a-z0-9_\-]+)\]\s*$", re.I | re.A), "snapshot"),
             (re.compile(r"^\[([^\]]*)\]\s*$", re.I | re.A), None)],
}


def parse_descriptions(typ, raw):
    r"""The descriptions parse_pct_config / parse_vm_config read from a raw file: {section: text}, a section
    being ``"main"``, ``"pending"``, ``("snapshot", name)`` or ``("special", name)``; one without is left out.

    Both append every ``#`` line decoded plus a newline (a ``description:`` line, the old form, without one).
    pve-container keeps the text when Perl-true; qemu-server keeps any it saw, trailing white space
    stripped (``$descr =~ s/\s+$//``), and skips the lines of an unknown section."""
    found = {}
    section, descr = "main", None

    def finish():
        if typ == "lxc" and perl_true(descr):
            found[section] = descr
        elif typ == "qemu" and descr is not None:
            found[section] = descr.rstrip(PERL_SPACE)

    for line in raw.split("\n"):
        if _BLANK.match(line):
            continue
        header = next(((m, kind) for rx, kind in _SECTIONS[typ] for m in [rx.match(line)] if m), None)
        if header:
            finish()
            match, kind = header
            # qemu-server: an unknown section's lines are skipped; its (earlier) description stays where it was
            section = kind if kind in ("pending", None) else (kind, match.group(1))
            descr = None
            continue
        if section is None:
            continue
        if line.startswith("#"):
            descr = (descr or "") + decode_text(line[1:]) + "\n"
            continue
        match = _DESCRIPTION_LINE.match(line)
        if match:
            descr = (descr or "") + decode_text(match.group(2))
    finish()
    return found


def reload(guest):
    """load_config after write_config: every description becomes what the parser reads back from the file just
    written (pve-container adds a newline to each line, qemu-server strips trailing white space)."""
    guest = writable(guest)
    found = parse_descriptions(guest["type"], file_text(guest))
    tables = [("main", guest["config"]), ("pending", guest["pending"])]
    tables += [(("snapshot", name), snap) for name, snap in guest["snapshots"].items()]
    for section, table in tables:
        if section in found:
            table["description"] = found[section]
        else:
            table.pop("description", None)
    return guest


def pending_delete_text(pending_delete):
    """AbstractConfig::print_pending_delete: sorted, a forced delete prefixed with '!'."""
    return ",".join(("!" if force else "") + key for key, force in sorted(pending_delete.items()))


def file_text(guest):
    """The raw ``<vmid>.conf`` the digest is computed over."""
    typ = guest["type"]
    raw = _section(typ, file_conf(guest))
    pending = dict(guest.get("pending") or {})
    if guest.get("pending_delete"):
        pending["delete"] = pending_delete_text(guest["pending_delete"])
    if pending:
        raw += f"\n{PENDING_HEADER[typ]}\n" + _section(typ, pending, pending=True)
    # write_vm_config: [special:cloudinit] only while the VM has a cloud-init drive (QemuConfig has_cloudinit)
    if typ == "qemu" and guest.get("cloudinit") is not None and has_cloudinit_drive(guest.get("config") or {}):
        raw += "\n[special:cloudinit]\n" + _section(typ, guest["cloudinit"])
    for name, snap in sorted((guest.get("snapshots") or {}).items()):
        conf = dict(snap.get("config") or {})
        conf.update({k: snap[k] for k in ("description", "snaptime", "parent") if snap.get(k) is not None})
        raw += f"\n[{name}]\n" + _section(typ, conf)
    return raw


_CLOUDINIT_FILE = re.compile(r"[:/](?:vm-\d+-)?cloudinit(?:\.(?:raw|qcow|qcow2|qed|vmdk|cloop))?$")


def has_cloudinit_drive(conf):
    """QemuConfig has_cloudinit: the first drive whose file is a cloud-init volume (Drive.pm drive_is_cloudinit)."""
    for key in sorted(conf):
        volume = str(conf[key]).split(",", maxsplit=1)[0]
        if re.match(r"^(ide|sata|scsi|virtio)\d+$", key) and _CLOUDINIT_FILE.search(volume):
            return key
    return None


def digest(guest):
    return hashlib.sha1(file_text(guest).encode()).hexdigest()


def check_lock(guest):
    if guest.get("lock"):
        raise die(f"{GUEST_WORD[guest['type']]} is locked ({guest['lock']})")


def check_protection(guest, message):
    if str((guest.get("config") or {}).get("protection", "0")) == "1":
        raise die(f"{message} - protection mode enabled")


def assert_if_modified(guest, sent):
    """Tools::assert_if_modified (LXC); qemu has its own wording."""
    if sent and sent != digest(guest):
        raise die("detected modified configuration - file changed by other user? Try again.")


def merged_config(guest, current=False):
    """AbstractConfig::load_current_config plus the digest load_config adds."""
    conf = file_conf(guest)
    if not current:
        conf.update(guest.get("pending") or {})
        for key in guest.get("pending_delete") or {}:
            conf.pop(key, None)
    return conf


def typed_view(typ, conf, extra=None):
    res = {key: typed(typ, key, value) for key, value in conf.items()}
    res.update(extra or {})
    return res


def cleanup_pending(guest):
    """AbstractConfig::cleanup_pending: drop pending values equal to the current ones and pending
    deletes of options that are not set."""
    conf, pending = guest["config"], guest["pending"]
    for key in [k for k, v in pending.items() if conf.get(k) == v]:
        del pending[key]
    for key in [k for k in guest["pending_delete"] if k not in conf]:
        del guest["pending_delete"][key]


def add_unused_volume(conf, volid, limit=256):
    """AbstractConfig::add_unused_volume: the lowest free unusedN, no duplicates."""
    free = None
    for i in range(limit - 1, -1, -1):
        key = f"unused{i}"
        if conf.get(key) == volid:
            return key
        if key not in conf:
            free = key
    if free is None:
        raise die("Too many unused volumes - please delete them first.")
    conf[free] = volid
    return free


def check_vmid_unused(state, vmid):
    """pve-cluster Cluster.pm check_vmid_unused."""
    guest = state.guests.get(vmid)
    if guest is not None:
        raise die(f"{GUEST_WORD[guest['type']]} {vmid} already exists on node '{guest['node']}'")


def check_pool_exist(state, pool):
    """pve-access-control RPCEnvironment.pm check_pool_exist: a permission exception (403)."""
    if pool not in state.pools:
        raise perm_exc(f"pool '{pool}' does not exist")


def add_to_pool(state, vmid, pool):
    """AccessControl::add_vm_to_pool."""
    if pool:
        state.pools[pool].setdefault("vms", set()).add(str(vmid))


def root_only(ctx, p, *keys):
    """``raise_param_exc({ key => "Only root may use this option." })`` for API tokens too."""
    for key in keys:
        if p.get(key) and ctx.authid != "root@pam":
            raise ApiError(400, "Parameter verification failed.\n",
                           errors={key: "Only root may use this option."})


def ha_sid(guest, vmid):
    return f"{HA_TYPE[guest['type']]}:{vmid}"


def ha_managed(state, guest, vmid):
    return ha_sid(guest, vmid) in state.ha_resources


def ha_state(state, sid):
    requested = state.ha_resources[sid].get("state", "started")
    return "started" if requested == "enabled" else requested


def replication_job(state, vmid):
    """ReplicationConfig::check_for_existing_jobs."""
    for jid in state.replication_jobs:
        if jid.split("-", 1)[0] == str(vmid):
            raise die(f"There is a replication job '{jid}' for guest '{vmid}' - Please remove that first.")


def guards_without_purge(state, guest, vmid, purge):
    """The destroy checks both families make before the running check."""
    if purge:
        return
    if ha_managed(state, guest, vmid):
        raise die(f"unable to remove {GUEST_WORD[guest['type']]} {vmid} - used in HA resources and purge "
                  "parameter not set.")
    replication_job(state, vmid)


def destroy(state, vmid, purge, log):
    """What follows destroy_vm / destroy_lxc_container: remove_vm_access (the ACL path and the pool
    membership, always), the firewall config, and with purge the replication jobs, the backup
    jobs' vmid lists and the HA resource (and its rules)."""
    guest = state.guests[vmid]
    state.drop_acl_path(f"/vms/{vmid}")
    for pool in state.pools.values():
        pool.get("vms", set()).discard(str(vmid))
    if purge:
        log.append(f"purging {GUEST_WORD[guest['type']]} {vmid} from related configurations..")
        for jid in [j for j in state.replication_jobs if j.split("-", 1)[0] == str(vmid)]:
            del state.replication_jobs[jid]
        for jid in list(state.backup_jobs):
            job = state.backup_jobs[jid]
            if job.get("type") != "vzdump":
                continue
            for key in ("vmid", "exclude"):
                if job.get(key) is None:
                    continue
                rest = ",".join(v for v in re.split(r"[,;\s]+", job[key]) if v and v != str(vmid))
                if rest:
                    job[key] = rest
                elif key == "vmid":
                    del state.backup_jobs[jid]  # remove_vmid_from_job: a job left without guests goes
                else:
                    del job[key]
                break
        sid = ha_sid(guest, vmid)
        if sid in state.ha_resources:
            purge_from_rules(state, sid)
            del state.ha_resources[sid]
            log.append(f"NOTE: removed {GUEST_WORD[guest['type']]} {vmid} from HA resource configuration.")
    del state.guests[vmid]


# -- tasks --------------------------------------------------------------------------------------

def run_task(ctx, node, typ, vmid, work):
    """RPCEnvironment::fork_worker, finished at once: ``work(log)`` changes the state; when it dies
    the task ends with the error and nothing it changed is kept. A returned count of warnings
    ends the task with ``WARNINGS: n``. ``state.task_outcomes[typ]`` (a fault knob, used once) forces the
    exit status: an error text is a work that died, so its changes are rolled back too."""
    state = ctx.state
    log = []
    with state.lock:
        saved = state.snapshot()
        forced = state.task_outcomes.pop(typ, None)
        try:
            warnings = work(log)
            exitstatus = f"WARNINGS: {warnings}" if warnings else "OK"
        except ApiError as err:
            state.restore(saved)
            exitstatus = err.stringify().rstrip("\n").split("\n")[0]
        if forced is not None:
            if forced != "OK" and not forced.startswith("WARNINGS"):
                state.restore(saved)
            exitstatus = forced
        return state.start_task(node, typ, str(vmid), ctx.authid, exitstatus=exitstatus, log=log)


# -- storages and volumes ---------------------------------------------------------------------

# The content types whose volumes are files in a subdirectory of a storage with a path (Plugin.pm parse_volname).
FILE_VOLNAME = re.compile(r"^(?:iso|vztmpl|backup|snippets|import)/")


def ensure_volumes(state):
    """Seed local's templates and ISO the first time volumes are used (a minimal state has none: a fresh
    install's ``local`` is empty). A node's own files go with their storage's table: once ``volumes`` has none
    (a test cleared it), they are gone too."""
    for tables in state.node_volumes.values():
        for sid in [sid for sid in tables if sid not in state.volumes]:
            del tables[sid]
    if "local" not in state.volumes and "local" in state.storage:
        seeded = {} if state.minimal else SEED_VOLUMES
        state.volumes["local"] = {name: {"size": size, "vmid": None, "format": None,
                                         "content": name.split("/", 1)[0]}
                                  for name, size in seeded.items()}
    return state.volumes


def storage_content(state, sid):
    scfg = state.storage_config(sid)
    content = scfg.get("content")
    if content is None:
        content = set((state.storage_type_info(scfg["type"]) or {}).get("default_content", ()))
    return scfg, content


def check_storage_enabled(state, sid, node):
    """Storage::storage_check_enabled (+ storage_check_node)."""
    scfg = state.storage_config(sid)
    if str(scfg.get("disable", 0)) == "1":
        raise die(f"storage '{sid}' is disabled")
    if scfg.get("nodes") and node not in scfg["nodes"]:
        raise die(f"storage '{sid}' is not available on node '{node}'")
    return scfg


def storage_enabled_on(state, sid, node):
    try:
        check_storage_enabled(state, sid, node)
    except ApiError:
        return False
    return True


def parse_volid(volid):
    """Storage::parse_volume_id (noerr): (storage, volname) or (None, None)."""
    m = re.match(r"^([a-z][a-z0-9\-_.]*[a-z0-9]):(.+)$", volid or "", re.I)
    return (m.group(1), m.group(2)) if m else (None, None)


# The word each plugin's parse_volname dies with ("unable to parse lvm volume name ...").
VOLNAME_KIND = {"zfspool": "zfs", "lvmthin": "lvm", "iscsidirect": "iscsi", "pbs": "PBS"}


def parse_volname(state, volid):
    """The plugin's parse_volname: (content type, owner vmid or None, is base)."""
    sid, volname = parse_volid(volid)
    scfg = state.storage_config(sid)
    m = re.match(r"^iso/|^vztmpl/|^backup/|^snippets/|^import/", volname)
    if m and scfg["type"] in FILE_STORAGES:
        return m.group()[:-1], None, False
    m = re.match(r"^(?:(?:\d+/)?base-\d+-disk-\d+[^/]*/)?(?:\d+/)?(vm|base|subvol)-(\d+)-(?:disk-\d+|cloudinit)"
                 r"(\.\w+)?$", volname)
    if m:
        return "images", int(m.group(2)), m.group(1) == "base"
    kind = "directory" if scfg["type"] in FILE_STORAGES else VOLNAME_KIND.get(scfg["type"], scfg["type"])
    raise die(f"unable to parse {kind} volume name '{volname}'")


def check_volume_access(ctx, volid, content=None):
    """Storage::check_volume_access (content type, then the storage privileges)."""
    sid, _volname = parse_volid(volid)
    if sid is None:
        if ctx.authid != "root@pam":  # Storage.pm check_volume_access dies without a newline (pve-storage 0c56bad)
            raise die_at("Only root can pass arbitrary filesystem paths.", "PVE/Storage.pm", 651)
        return
    vtype, owner, _base = parse_volname(ctx.state, volid)
    if content and vtype != content and not (content == "rootdir" and vtype == "images"):
        raise die(f"unable to use volume {volid} - content type needs to be '{content}'")
    if ctx.access.check(ctx.authid, f"/storage/{sid}", ["Datastore.Allocate"], True):
        return
    if vtype in ("iso", "vztmpl", "import"):
        ctx.access.check_any(ctx.authid, f"/storage/{sid}", ["Datastore.AllocateSpace", "Datastore.Audit"])


def storage_shared(state, sid):
    """Every node sees the same storage: ``shared 1``, or a type of @SHARED_STORAGE (Plugin.pm)."""
    scfg = state.storage.get(sid) or {}
    return bool(scfg.get("shared") or (state.storage_type_info(scfg.get("type")) or {}).get("shared"))


def _files_per_node(state, sid):
    """A storage with a path that is not shared: each node has its own files there."""
    scfg = state.storage.get(sid)
    return scfg is not None and scfg["type"] in FILE_STORAGES and not storage_shared(state, sid)


def _node_own(state, sid, volname):
    return FILE_VOLNAME.match(volname or "") is not None and _files_per_node(state, sid)


def volume(state, volid, node=None):
    """The info of the volume ``volid`` names, or None. A file of a storage that is not shared is the one on
    ``node``; without a node, the one every node has, else any node's."""
    sid, volname = parse_volid(volid)
    vols = ensure_volumes(state).get(sid, {})
    if not _node_own(state, sid, volname):
        return vols.get(volname)
    if node is not None:
        mine = state.node_volumes.get(node, {}).get(sid, {})
        return mine[volname] if volname in mine else vols.get(volname)
    if vols.get(volname) is not None:
        return vols[volname]
    return next((tables[sid][volname] for tables in state.node_volumes.values()
                 if (tables.get(sid) or {}).get(volname) is not None), None)


def node_files(state, sid, node):
    """The files (ISO images, templates, backups, snippets, import images) ``node`` finds on ``sid``:
    volname -> info."""
    files = {name: info for name, info in ensure_volumes(state).get(sid, {}).items() if FILE_VOLNAME.match(name)}
    if _files_per_node(state, sid):
        for name, info in state.node_volumes.get(node, {}).get(sid, {}).items():
            if info is None:
                files.pop(name, None)
            else:
                files[name] = info
    return files


def put_file(state, sid, node, volname, info):
    """A file written on ``node``: every node's on a shared storage, that node's alone otherwise."""
    vols = ensure_volumes(state).setdefault(sid, {})
    if _node_own(state, sid, volname):
        state.node_volumes.setdefault(node, {}).setdefault(sid, {})[volname] = info
    else:
        vols[volname] = info


def remove_volume(state, volid, node):
    """Free a volume as ``node`` does: a file of a storage that is not shared on that node only (the other
    nodes keep a seeded one). Returns the info removed, or None."""
    sid, volname = parse_volid(volid)
    vols = ensure_volumes(state).get(sid, {})
    if not _node_own(state, sid, volname):
        return vols.pop(volname, None)
    mine = state.node_volumes.get(node, {}).get(sid, {})
    found = mine.pop(volname) if volname in mine else vols.get(volname)
    if volname in vols:
        state.node_volumes.setdefault(node, {}).setdefault(sid, {})[volname] = None
    return found


def _disk_numbers(state, sid, vmid):
    numbers = set()
    for volname in ensure_volumes(state).get(sid, {}):
        m = re.search(rf"(?:^|/)(?:vm|base|subvol)-{vmid}-disk-(\d+)(?:\.\w+)?$", volname)
        if m:
            numbers.add(int(m.group(1)))
    return numbers


def free_disk_number(state, sid, vmid):
    """Plugin.pm get_next_vm_diskname: the lowest ``n`` no ``(vm|base|subvol)-<vmid>-disk-<n>`` on ``sid`` has."""
    return next(i for i in range(1000) if i not in _disk_numbers(state, sid, vmid))


def alloc_volume(state, sid, vmid, size, content, fmt=None, prefix="vm"):
    """Storage::vdisk_alloc with the plugin's free disk name: ``vm-<vmid>-disk-<n>`` (a file
    ``<vmid>/vm-<vmid>-disk-<n>.<fmt>`` on a directory storage). Returns the volid."""
    scfg = state.storage_config(sid)
    n = next(i for i in range(1000) if i not in _disk_numbers(state, sid, vmid))
    name = f"{prefix}-{vmid}-disk-{n}"
    if scfg["type"] in FILE_STORAGES:
        fmt = fmt or ("raw" if scfg["type"] == "btrfs" else "qcow2")
        volname = f"{vmid}/{name}.{fmt}"
    else:
        fmt = fmt or "raw"
        volname = name
    rounding = BLOCK_ROUNDING.get(scfg["type"], 1)
    size = -(-int(size) // rounding) * rounding
    ensure_volumes(state).setdefault(sid, {})[volname] = {"size": size, "vmid": vmid, "format": fmt,
                                                          "content": content}
    return f"{sid}:{volname}"


def register_volume(state, volid, vmid, size, content):
    """A volume a seeded config names (test helper path): keep it, or record it."""
    sid, volname = parse_volid(volid)
    if sid is None or sid not in state.storage:
        return
    fmt = "qcow2" if volname.endswith(".qcow2") else "subvol" if "subvol-" in volname else "raw"
    ensure_volumes(state).setdefault(sid, {}).setdefault(
        volname, {"size": size, "vmid": vmid, "format": fmt, "content": content})


def linked_clones(state, volid):
    """The volumes that use ``volid`` (a base volume) as their backing volume."""
    sid, volname = parse_volid(volid)
    return sorted(name for name in ensure_volumes(state).get(sid, {}) if name.startswith(volname + "/"))


def _own_part(volname):
    """A linked clone's own volume name, without its base volume's."""
    m = re.match(r"^(?:\d+/)?base-\d+-disk-\d+[^/]*/(.+)$", volname)
    return m.group(1) if m else volname


def free_volume(state, volid):
    """Storage::vdisk_free; a base volume still backing linked clones stays (Storage.pm vdisk_free's text)."""
    sid, volname = parse_volid(volid)
    if linked_clones(state, volid):
        raise die(f"base volume '{volname}' is still in use by linked clones")
    ensure_volumes(state).get(sid, {}).pop(volname, None)


def rename_to_base(state, volid):
    """Storage::vdisk_create_base: ``vm-100-disk-0`` becomes ``base-100-disk-0`` (a linked clone
    keeps its own name only)."""
    sid, volname = parse_volid(volid)
    vols = ensure_volumes(state).setdefault(sid, {})
    info = vols.pop(volname, None) or {"size": 0, "vmid": None, "format": "raw", "content": "images"}
    head, sep, last = _own_part(volname).rpartition("/")
    base = head + sep + re.sub(r"^(vm|subvol)-", "base-", last)
    vols[base] = info
    return f"{sid}:{base}"


def clone_volume(state, volid, newid, full, target_sid=None, content="images"):
    """Storage::vdisk_clone (linked: ``<base>/vm-<newid>-disk-<n>``) or a full copy to
    ``target_sid`` (default the source's storage)."""
    sid, volname = parse_volid(volid)
    info = volume(state, volid) or {"size": 0, "format": None}
    if full:
        target = target_sid or sid
        fmt = info.get("format") if state.storage_config(target)["type"] in FILE_STORAGES else None
        return alloc_volume(state, target, newid, info["size"], content, fmt=fmt)
    n = next(i for i in range(1000) if i not in _disk_numbers(state, sid, newid))
    name = f"vm-{newid}-disk-{n}"
    if state.storage_config(sid)["type"] in FILE_STORAGES:
        name = f"{newid}/{name}.{info.get('format') or 'qcow2'}"
    clone = f"{volname}/{name}"
    state.volumes[sid][clone] = dict(info, vmid=newid)
    return f"{sid}:{clone}"


# -- migration ----------------------------------------------------------------------------------------

def move_guest(state, vmid, target, relocated=None):
    """The end of a migration (QemuMigrate / LXC::Migrate phase3): the config file moves to ``target``'s
    directory, so reads on the source node answer the typed absence from then on. A local storage has the same
    name on every node and the simulator keeps one volume table per storage, so a volume migrated to its own
    storage keeps its name; ``relocated`` (volid -> target storage, a ``targetstorage`` map) gets a new volume
    there, the source's freed, and the config (and pending) values naming it rewritten. Returns old -> new volid."""
    guest = writable(state.guests[vmid])
    renamed = {}
    for volid, target_sid in sorted((relocated or {}).items()):
        info = volume(state, volid) or {"size": 0, "content": "images", "format": None}
        fmt = info.get("format") if state.storage_config(target_sid)["type"] in FILE_STORAGES else None
        renamed[volid] = alloc_volume(state, target_sid, vmid, info["size"], info["content"], fmt=fmt,
                                      prefix="subvol" if info.get("format") == "subvol" else "vm")
        free_volume(state, volid)
    if renamed:  # a volid is a whole property-string value: at the start, or after "=", up to "," or the end
        pattern = re.compile(r"(?<![^,=])(%s)(?=,|$)" % "|".join(re.escape(volid) for volid in renamed))
        for table in (guest["config"], guest["pending"]):
            for key, value in list(table.items()):
                if isinstance(value, str):
                    table[key] = pattern.sub(lambda m: renamed[m.group(1)], value)
    guest["node"] = target
    reload(guest)
    return renamed


# -- status figures -------------------------------------------------------------------------------

def uptime(guest):
    if guest.get("status") != "running":
        return 0
    return max(1, int(time.time() - (guest.get("started") or time.time() - 1)))


def start(guest):
    guest["status"] = "running"
    guest["started"] = time.time()


# -- shared reads -------------------------------------------------------------------------------

def _config_read(ctx, p, typ):
    """GET .../config: load_current_config, or load_snapshot_config with the file's digest."""
    if p.get("snapshot") and p.get("current"):
        msg = "cannot use 'snapshot' parameter with 'current'"
        raise ApiError(400, "Parameter verification failed.\n", errors={"snapshot": msg, "current": msg})
    guest = load_guest(ctx.state, typ, p["node"], p["vmid"])
    if p.get("snapshot"):
        snap = (guest.get("snapshots") or {}).get(p["snapshot"])
        if snap is None:
            raise die(f"snapshot '{p['snapshot']}' does not exist")
        conf = dict(snap.get("config") or {})
        conf.update({k: snap[k] for k in ("description", "snaptime", "parent") if snap.get(k) is not None})
    else:
        conf = merged_config(guest, p.get("current"))
    if typ == "qemu" and conf.get("cipassword"):
        conf["cipassword"] = "**********"
    return typed_view(typ, conf, {"digest": digest(guest)})


def _pending_read(ctx, p, typ):
    """GuestHelpers::config_with_pending_array over load_config (which adds ``digest``)."""
    guest = load_guest(ctx.state, typ, p["node"], p["vmid"])
    conf = file_conf(guest)
    conf["digest"] = digest(guest)
    pending = dict(guest.get("pending") or {})
    deletes = dict(guest.get("pending_delete") or {})
    if typ == "qemu":
        for table in (conf, pending):
            if table.get("cipassword") is not None:
                table["cipassword"] = "**********"
    res = []
    for key, value in conf.items():
        item = {"key": key, "value": typed(typ, key, value)}
        if key in pending:
            item["pending"] = typed(typ, key, pending.pop(key))
        if key in deletes:
            item["delete"] = 2 if deletes.pop(key) else 1
        res.append(item)
    res += [{"key": key, "pending": typed(typ, key, value)} for key, value in pending.items()]
    res += [{"key": key, "delete": 2} for key in deletes]  # (Perl: a true hashref, never 1)
    return res


def _snapshot_list(ctx, p, typ):
    """API2 ``snapshot_list``: the snapshots, then ``current``."""
    guest = load_guest(ctx.state, typ, p["node"], p["vmid"])
    res = []
    for name, snap in (guest.get("snapshots") or {}).items():
        item = {"name": name, "snaptime": int(snap.get("snaptime") or 0),
                "description": snap.get("description") or ""}
        if typ == "qemu":
            item["vmstate"] = 1 if (snap.get("config") or {}).get("vmstate") else 0
        if snap.get("parent"):
            item["parent"] = snap["parent"]
        res.append(item)
    current = {"name": "current", "digest": digest(guest), "running": 1 if guest["status"] == "running" else 0,
               "description": "You are here!"}
    if (guest.get("config") or {}).get("parent"):
        current["parent"] = guest["config"]["parent"]
    return res + [current]


def vm_stats(state, vmid, guest):
    """vmstatus of one guest (PVE::LXC::vmstatus / PVE::QemuServer::vmstatus)."""
    conf = guest.get("config") or {}
    running = guest.get("status") == "running"
    typ = guest["type"]
    res = {"vmid": vmid, "status": "running" if running else "stopped", "name": display_name(guest, vmid),
           "uptime": uptime(guest), "cpu": 0.0123 if running else 0, "netin": 0, "netout": 0,
           "diskread": 0, "diskwrite": 0}
    if typ == "lxc":
        memory = int(conf.get("memory", 512)) * 1024 ** 2
        res.update(type="lxc", cpus=int(conf.get("cores") or 0) or 8, maxmem=memory,
                   maxswap=int(conf.get("swap", 0)) * 1024 ** 2, maxdisk=_disk_size(conf, "rootfs"),
                   disk=GIB // 2 if running else 0, mem=memory // 4 if running else 0)
    else:
        memory = int(re.match(r"(?:current=)?(\d+)", str(conf.get("memory", "2048"))).group(1)) * 1024 ** 2
        cpus = int(conf.get("sockets") or 1) * int(conf.get("cores") or 1)
        res.update(cpus=int(conf.get("vcpus") or cpus), maxmem=memory, maxdisk=_boot_disk_size(conf), disk=0,
                   mem=memory // 4 if running else 0)
        if running:
            res["pid"] = 10000 + vmid
    if conf.get("template") in ("1", 1):
        res["template"] = 1
    if guest.get("lock"):
        res["lock"] = guest["lock"]
    if conf.get("tags") is not None:
        res["tags"] = conf["tags"]
    return res


def _disk_size(conf, key):
    value = conf.get(key)
    if not value:
        return 0
    m = re.search(r"(?:^|,)size=([^,]+)", value)
    return parse_size(m.group(1)) if m else 0


def _boot_disk_size(conf):
    """bootdisk_size: the first disk of the boot order (else the first disk), 0 without."""
    order = re.search(r"order=([^,]+)", conf.get("boot", "") or "")
    keys = order.group(1).split(";") if order else []
    keys += [k for k in sorted(conf) if re.match(r"^(ide|sata|scsi|virtio)\d+$", k)]
    for key in keys:
        if key in conf and "media=cdrom" not in conf[key]:
            return _disk_size(conf, key)
    return 0


def _vmlist(ctx, p, typ):
    state = ctx.state
    return [vm_stats(state, vmid, guest) for vmid, guest in sorted(state.guests.items())
            if guest["type"] == typ and guest["node"] == p["node"]
            and ctx.access.check(ctx.authid, f"/vms/{vmid}", ["VM.Audit"], True)]


def _status_current(ctx, p, typ):
    state = ctx.state
    guest = load_guest(state, typ, p["node"], p["vmid"])
    res = vm_stats(state, p["vmid"], guest)
    sid = ha_sid(guest, p["vmid"])
    res["ha"] = {"managed": 1, "state": ha_state(state, sid)} if sid in state.ha_resources else {"managed": 0}
    if typ == "qemu":
        res["qmpstatus"] = res["status"]
        if str((guest.get("config") or {}).get("agent", "0")).split(",", maxsplit=1)[0] in ("1", "enabled=1"):
            res["agent"] = 1
    return res


def _register_reads(typ):
    base = f"/nodes/{{node}}/{typ}"
    route("GET", base)(lambda ctx, p: _vmlist(ctx, p, typ))
    route("GET", base + "/{vmid}/config")(lambda ctx, p: _config_read(ctx, p, typ))
    route("GET", base + "/{vmid}/pending")(lambda ctx, p: _pending_read(ctx, p, typ))
    route("GET", base + "/{vmid}/snapshot")(lambda ctx, p: _snapshot_list(ctx, p, typ))
    route("GET", base + "/{vmid}/status/current")(lambda ctx, p: _status_current(ctx, p, typ))


for _typ in TYPES:
    _register_reads(_typ)


# -- what a running guest reports: its interfaces ----------------------------------------------------

LOOPBACK = {"name": "lo", "hwaddr": "00:00:00:00:00:00", "addresses": ["127.0.0.1/8", "::1/128"]}
FIRST_QEMU_NIC_SLOT = 18  # net0 sits in PCI slot 18 (qemu-server PCI.pm), so a Linux guest names it ens18


def eui64(mac):
    """The interface id SLAAC and the link-local address derive from a MAC (RFC 4291 appendix A)."""
    octets = [int(part, 16) for part in mac.split(":")]
    octets[0] ^= 0x02
    words = octets[:3] + [0xFF, 0xFE] + octets[3:]
    return ":".join(f"{words[i] << 8 | words[i + 1]:x}" for i in range(0, 8, 2))


def derived_mac(vmid, index):
    """A stable MAC for an interface the config does not describe."""
    return f"bc:24:11:{(vmid >> 8) & 0xFF:02x}:{vmid & 0xFF:02x}:{index & 0xFF:02x}"


def dhcp_lease(vmid, index):
    """The address the simulated DHCP server hands NIC ``index`` of guest ``vmid``."""
    return f"10.{100 + index}.{(vmid >> 8) & 0xFF}.{vmid & 0xFF}/16"


def _nic_addresses(mac, ip, ip6, vmid, index):
    """The addresses ``ip a`` lists for one NIC: IPv4, global IPv6, then the link-local one."""
    res = []
    if ip == "dhcp":
        res.append(dhcp_lease(vmid, index))
    elif ip and ip != "manual":
        res.append(ip)
    if ip6 in ("auto", "dhcp"):
        res.append(str(ipaddress.IPv6Interface(f"fd00:{100 + index:x}::{eui64(mac)}/64")))
    elif ip6 and ip6 != "manual":
        res.append(ip6)
    res.append(f"fe80::{eui64(mac)}/64")
    return res


def _nic_indexes(conf):
    return sorted(int(key[3:]) for key in conf if re.match(r"^net\d+$", key))


def _ipconfig(text):
    """The cloud-init ``ipconfigN`` property string (format pve-qm-ipconfig) as a dict."""
    return dict(part.split("=", 1) for part in (text or "").split(",") if "=" in part)


def default_interfaces(guest, vmid):
    """One interface per ``netN`` of the current config, as the guest would bring them up."""
    conf = guest.get("config") or {}
    res = []
    for index in _nic_indexes(conf):
        net = parse_ps(option_format(guest["type"], f"net{index}"), conf[f"net{index}"])
        if guest["type"] == "lxc":
            mac = (net.get("hwaddr") or derived_mac(vmid, index)).lower()
            ip, ip6, name = net.get("ip"), net.get("ip6"), net.get("name") or f"eth{index}"
        else:
            mac = (net.get("macaddr") or derived_mac(vmid, index)).lower()
            cloudinit = _ipconfig(conf.get(f"ipconfig{index}"))
            ip, ip6 = cloudinit.get("ip", "dhcp"), cloudinit.get("ip6")
            name = f"ens{FIRST_QEMU_NIC_SLOT + index}"
        res.append({"name": name, "hwaddr": mac, "addresses": _nic_addresses(mac, ip, ip6, vmid, index)})
    return res


def reported_interfaces(guest, vmid):
    """What the running guest reports: the loopback, then the test's interfaces or the default."""
    chosen = guest.get("interfaces")
    chosen = default_interfaces(guest, vmid) if chosen is None else chosen
    return ([] if any(i["name"] == "lo" for i in chosen) else [LOOPBACK]) + list(chosen)


def split_address(text):
    """``"10.0.0.5/24"`` -> (address, prefix, ``ipv4``|``ipv6``) as QGA and ``ip --json`` give them."""
    iface = ipaddress.ip_interface(text)
    return str(iface.ip), iface.network.prefixlen, f"ipv{iface.version}"


# -- /cluster/resources -------------------------------------------------------------------------------

@route("GET", "/cluster/resources")
def resources(ctx, p):
    """API2/Cluster.pm resources: every row filtered by the caller's privileges."""
    state, access, authid = ctx.state, ctx.access, ctx.authid
    kind = p.get("type")
    res = []
    members = {}
    for pool in sorted(state.pools):
        for vmid in state.pools[pool].get("vms", ()):
            members[int(vmid)] = pool
        if not kind and access.check(authid, f"/pool/{pool}", ["Pool.Audit"], True):
            res.append({"id": f"/pool/{pool}", "pool": pool, "type": "pool"})
    if kind in (None, "vm"):
        for vmid in sorted(state.guests, key=str):
            guest = state.guests[vmid]
            if not access.check(authid, f"/vms/{vmid}", ["VM.Audit"], True):
                continue
            stats = vm_stats(state, vmid, guest)
            entry = {"id": f"{guest['type']}/{vmid}", "vmid": vmid, "node": guest["node"], "type": guest["type"],
                     "template": stats.get("template", 0), "name": stats["name"], "status": stats["status"],
                     "uptime": stats["uptime"], "maxcpu": stats["cpus"], "cpu": stats["cpu"],
                     "maxmem": stats["maxmem"], "mem": stats["mem"], "maxdisk": stats["maxdisk"],
                     "disk": stats["disk"], "netin": 0, "netout": 0, "diskread": 0, "diskwrite": 0}
            for key in ("lock", "tags"):
                if key in stats:
                    entry[key] = stats[key]
            pool = members.get(vmid)
            if pool and access.check(authid, f"/pool/{pool}", ["Pool.Audit"], True):
                entry["pool"] = pool
            sid = ha_sid(guest, vmid)
            if sid in state.ha_resources:
                entry["hastate"] = ha_state(state, sid)
            res.append(entry)
    if kind in (None, "node"):
        for name, info in state.nodes.items():
            entry = {"id": f"node/{name}", "node": name, "type": "node",
                     "status": "online" if info["online"] else "offline", "level": "", "cgroup-mode": 2}
            if info["online"] and access.check(authid, f"/nodes/{name}", ["Sys.Audit"], True):
                entry.update({"uptime": 123456, "cpu": 0.0123, "maxcpu": 8, "mem": 3 * GIB, "maxmem": 32 * GIB,
                              "disk": 5 * GIB, "maxdisk": 100 * GIB})
            res.append(entry)
    if kind in (None, "storage"):
        for sid, scfg in state.storage.items():
            if not access.check(authid, f"/storage/{sid}", ["Datastore.Audit"], True):
                continue
            content = storage_content(state, sid)[1]
            shared = scfg.get("shared") or (state.storage_type_info(scfg["type"]) or {}).get("shared")
            for node in state.nodes:
                if storage_enabled_on(state, sid, node):
                    res.append({"id": f"storage/{node}/{sid}", "storage": sid, "node": node, "type": "storage",
                                "status": "available", "shared": 1 if shared else 0,
                                "content": ",".join(sorted(content)), "plugintype": scfg["type"],
                                "disk": 10 * GIB, "maxdisk": 100 * GIB})
    if kind in (None, "sdn"):
        zones = (state.sdn_running or {}).get("zones") or {}
        for node in state.nodes:
            for zone in sorted(zones):
                if access.check(authid, f"/sdn/zones/{zone}", ["SDN.Audit"], True):
                    res.append({"id": f"sdn/{node}/{zone}", "sdn": zone, "node": node, "type": "sdn",
                                "status": "ok", "zone-type": zones[zone].get("type")})
    return res


# -- test helpers -----------------------------------------------------------------------------------

# What add_guest needs of each type module (lxc.py, qemu.py import this one and register here):
# typ -> {"seeded_value": fn(state, vmid, node, key, text), "make_template": fn(state, guest)}.
FAMILIES = {}


def register_family(typ, seeded_value, make_template):
    """A type module's own seeding: how a seeded config value is written, how a guest becomes a template."""
    FAMILIES[typ] = SimpleNamespace(seeded_value=seeded_value, make_template=make_template)


def add_guest(state, typ, vmid, node, config=None, status="stopped", template=False):
    """Seed a guest as PVE would have written it (see the module docstring)."""
    family = FAMILIES[typ]
    with state.lock:
        ensure_volumes(state)
        guest = new_guest(typ, node, status)
        if status == "running":
            start(guest)
        for key, value in (config or {}).items():
            guest["config"][key] = family.seeded_value(state, vmid, node, key, str(value))
        if template:
            family.make_template(state, guest)
        reload(guest)
        sync_name(guest, vmid)
        state.guests[vmid] = guest
        return guest


SNAPSHOT_SKIP = ("snapshots", "snapstate", "snaptime", "vmstate", "lock", "digest", "description", "parent")


def add_snapshot(state, vmid, name, description="", snaptime=None, vmstate=False):
    """Seed a snapshot as AbstractConfig::snapshot_create leaves it: __snapshot_copy_config copies the
    current config (without the keys above and ``unusedN``), the snapshot's ``parent`` is the config's
    previous ``parent``, and the config's ``parent`` becomes the new snapshot. ``vmstate`` (QEMU)
    records a RAM state volume. Returns the snapshot entry."""
    with state.lock:
        guest = writable(state.guests[vmid])
        conf = guest["config"]
        snap = {"description": description, "snaptime": int(snaptime if snaptime is not None else time.time()),
                "config": OrderedDict((k, v) for k, v in conf.items()
                                      if k not in SNAPSHOT_SKIP and not re.match(r"^unused\d+$", k))}
        if conf.get("parent"):
            snap["parent"] = conf["parent"]
        if vmstate:
            snap["config"]["vmstate"] = f"local-lvm:vm-{vmid}-state-{name}"
        guest["snapshots"][name] = snap
        conf["parent"] = name
        reload(guest)
        return snap


def set_guest_interfaces(state, vmid, interfaces):
    """What the running guest reports besides its loopback (``None``: derived from its config).

    ``interfaces``: a list of ``{"name", "hwaddr"?, "addresses": ["10.1.2.3/24", "fd00::3/64"]}``
    or a mapping name -> addresses. A missing ``hwaddr`` is the MAC of the config's NIC in the same
    position (else a derived one). Nothing is added: no link-local address, no other NIC."""
    with state.lock:
        guest = state.guests[vmid]
        if interfaces is None:
            guest["interfaces"] = None
            return
        if isinstance(interfaces, dict):
            interfaces = [{"name": name, "addresses": list(addrs)} for name, addrs in interfaces.items()]
        defaults = default_interfaces(guest, vmid)
        chosen = []
        for position, item in enumerate(interfaces):
            addresses = [str(ipaddress.ip_interface(a)) for a in item.get("addresses") or ()]  # ValueError early
            mac = item.get("hwaddr") or (defaults[position]["hwaddr"] if position < len(defaults)
                                         else derived_mac(vmid, position))
            chosen.append({"name": item["name"], "hwaddr": mac.lower(), "addresses": addresses})
        guest["interfaces"] = chosen


SEED_ROLES = ("web", "db", "cache", "app", "mon")


def _every(i, period):
    """Whether position ``i`` is one of every ``period`` (0 or None: never)."""
    return bool(period) and i % period == 0


def seed_many_guests(state, count, nodes=None, first_vmid=1000, lxc_every=3, stopped_every=4, templates=2,
                     pools=("pool-a", "pool-b"), pool_every=10, no_agent_every=7, agent_down_every=11):
    """Seed ``count`` guests quickly (scale tests, benchmarks); returns their vmids.

    Guest ``i`` (vmid ``first_vmid + i``, 0-based) is on ``nodes[i % len(nodes)]`` (default: every node).
    A ``*_every`` of N picks the guests whose ``i`` is a multiple of N (0 or None: none): containers are
    the guests whose ``i + 1`` is one of ``lxc_every`` (the third, sixth ...), the rest VMs; the first
    ``templates`` VMs are templates; stopped are the templates and ``stopped_every``; the rest run.
    Names are ``<role>-<vmid>`` (web, db, cache, app, mon in turn); tags ``<role>;dev`` / ``<role>;prod``
    alternately, none on every sixth (``i % 6 == 5``); ``pool_every`` are in ``pools`` in turn (created
    when missing). VMs have ``agent: 1`` except ``no_agent_every``; of those, ``agent_down_every`` have
    an agent that does not answer (``state.agent_unresponsive``). Disks name their volumes
    (``local-lvm:vm-<vmid>-disk-0``) and NICs carry a MAC derived from the vmid (containers ``ip=dhcp``),
    so nothing is searched or drawn at random."""
    nodes = list(nodes or state.nodes)
    vmids = list(range(first_vmid, first_vmid + count))
    with state.lock:
        taken = [vmid for vmid in vmids if vmid in state.guests]
        if taken:
            raise ValueError(f"vmids already used: {taken[:5]}")
        for pool in pools:
            state.pools.setdefault(pool, {"vms": set(), "storage": set()})
        templates_left = templates
        for i, vmid in enumerate(vmids):
            typ = "lxc" if _every(i + 1, lxc_every) else "qemu"
            role = SEED_ROLES[i % len(SEED_ROLES)]
            mac = f"BC:24:11:{(vmid >> 16) & 0xFF:02X}:{(vmid >> 8) & 0xFF:02X}:{vmid & 0xFF:02X}"
            if typ == "qemu":
                config = {"name": f"{role}-{vmid}", "memory": 2048, "cores": 2, "ostype": "l26",
                          "scsi0": f"local-lvm:vm-{vmid}-disk-0,size=8G", "net0": f"virtio={mac},bridge=vmbr0"}
                if not _every(i, no_agent_every):
                    config["agent"] = "1"
            else:
                config = {"hostname": f"{role}-{vmid}", "memory": 512, "ostype": "debian",
                          "rootfs": f"local-lvm:vm-{vmid}-disk-0,size=4G",
                          "net0": f"name=eth0,bridge=vmbr0,hwaddr={mac},ip=dhcp,type=veth"}
            if i % 6 != 5:
                config["tags"] = f"{role};{'prod' if i % 2 else 'dev'}"
            template = typ == "qemu" and templates_left > 0
            templates_left -= template
            running = not template and not _every(i, stopped_every)
            add_guest(state, typ, vmid, nodes[i % len(nodes)], config, "running" if running else "stopped",
                      template)
            if pools and _every(i, pool_every):
                add_to_pool(state, vmid, pools[(i // pool_every) % len(pools)])
            if typ == "qemu" and "agent" in config and _every(i, agent_down_every):
                state.agent_unresponsive.add(vmid)
    return vmids


def guest_config(state, vmid):
    """The config as ``GET /nodes/{node}/{type}/{vmid}/config`` answers it."""
    with state.lock:
        guest = state.guests[vmid]
        conf = merged_config(guest)
        return typed_view(guest["type"], conf, {"digest": digest(guest)})


def new_uuid():
    """QemuServer::generate_uuid."""
    return str(uuid.uuid4())
