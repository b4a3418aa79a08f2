"""The shared cluster state: user.cfg, storage.cfg, tasks, nodes.

One ``ClusterState`` is shared by every member. Its data mirrors PVE's config
files, because digests, ``delete=`` semantics and "does not exist" messages
all follow the file model: values are kept the way the file would round-trip
them (an empty comment disappears, ``enable``/``expire`` always present ...).

All mutation happens under ``state.lock`` (an RLock); the API pipeline holds
it for the permission check, validation and the handler of every request.
"""

import copy
import hashlib
import random
import re
import secrets
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field

from .auth import BUILTIN_ROLES
from .errors import die
from .formats import TOKENID_RE, USERID_RE, FormatError, verify_username
from .storage_types import TYPES as STORAGE_TYPES

UPID_RE = re.compile(
    r"^UPID:([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):"
    r"([0-9A-Fa-f]{8}):([^:\s/]+):([^:\s/]*):([^:\s/]+):$")


class TaskEnd:
    """How a worker task (PVE or PBS) ends: it runs for ``duration`` seconds from
    ``started`` and then closes its log with the line for ``exitstatus``."""

    def running(self, now=None):
        return (now or time.time()) < self.started + self.duration

    def final_line(self):
        if self.exitstatus == "OK":
            return "TASK OK"
        if self.exitstatus.startswith("WARNINGS"):
            return f"TASK {self.exitstatus}"
        return f"TASK ERROR: {self.exitstatus}"


@dataclass
class Task(TaskEnd):
    upid: str
    node: str
    pid: int
    pstart: int
    starttime: int
    type: str
    id: str
    user: str
    exitstatus: str = "OK"
    started: float = 0.0
    duration: float = 0.0
    lines: list = field(default_factory=list)

    def log(self, now=None):
        if self.running(now):
            return list(self.lines)
        return list(self.lines) + [self.final_line()]


def decode_upid(upid):
    m = UPID_RE.match(upid or "")
    if not m:
        return None
    return {"node": m.group(1), "pid": int(m.group(3), 16), "pstart": int(m.group(4), 16),
            "starttime": int(m.group(5), 16), "type": m.group(6), "id": m.group(7),
            "user": m.group(8)}


class ClusterState:
    """Everything the cluster knows. Handlers read and write it under ``lock``."""

    def __init__(self, node_names=("node1", "node2", "node3"), cluster_name="simcluster"):
        self.lock = threading.RLock()
        self.cluster_name = cluster_name
        self.version = {"version": "9.1.9", "release": "9.1", "repoid": "5c2b9a1e"}
        self.nodes = OrderedDict(
            (name, {"nodeid": i + 1, "online": 1, "ip": "127.0.0.1"})
            for i, name in enumerate(node_names))
        # user.cfg
        self.users = {}
        self.groups = {}
        self.custom_roles = {}
        self.pools = {}
        self.acl = {}  # normalised path -> {"users"|"groups"|"tokens": {id: {role: propagate}}}
        self.token_secrets = {}  # "user@realm!name" -> secret (priv/token.cfg)
        self.passwords = {}      # userid -> password (realm pve shadow / PAM)
        # storage.cfg (SectionConfig) + the secrets its plugins keep in /etc/pve/priv:
        # storage id -> {option: value} (password, keyring, encryption-key, master-pubkey)
        self.storage = OrderedDict()
        self.storage_secrets = {}
        # Guests (handlers/guests.py): vmid (int) -> {"type": "qemu"|"lxc", "node", "status": "running"|"stopped",
        # "config": the guest's config file as an OrderedDict key -> text (what `<vmid>.conf` holds, in file
        # order), "pending": its [pending] section (key -> text), "pending_delete": key -> force (0/1),
        # "snapshots": name -> {"description", "snaptime", "parent"?, "config"}, "lock": None or a lock name}.
        # Older tests seed bare {"type", "node", "status", "name"} entries: handlers treat a missing config as {}.
        self.guests = {}
        # Volumes of the storages (handlers/guests.py): storage id -> {volname: {"size": bytes, "vmid": int or
        # None, "format": "raw"|"qcow2"|..., "content": "images"|"rootdir"|"vztmpl"|"iso"}}. local's container
        # templates and one ISO are seeded.
        self.volumes = {}
        # Ceph (handlers/ceph.py): None until a node runs `pveceph init`, then one dict for the cluster's Ceph
        # (pools, osds, mons, mgrs, mdss, fs, flags, mon_allow_pool_delete, ...; the shape is handlers/ceph.py's).
        self.ceph = None
        # ZFS pools (handlers/zfs.py): node -> {pool name -> {"raidlevel", "devices" (as created, in order),
        # "ashift", "compression", "draid-config"?, "state", "errors", ...}}.
        self.zfs_pools = {}
        # The nodes' disks (handlers/zfs.py, seeded by zfs_init): node -> {"/dev/sdX": {"by_id", "size", "used"}};
        # no request changes them, so they are not a file.
        self.disks = {}
        # Fault knob: vmids whose guest ignores an ACPI/clean shutdown (the shutdown task times out unless
        # forceStop=1 is sent, which then stops it hard).
        self.shutdown_ignored = set()
        # Fault knob: vmids of VMs whose guest agent is configured (`agent: 1`) but does not answer: the agent
        # commands fail with "QEMU guest agent is not running" (QemuServer/Agent.pm assert_agent_available).
        self.agent_unresponsive = set()
        self.tasks = {}
        # Cluster families, one attribute per config file; each handler module owns its own:
        self.realms = OrderedDict()           # domains.cfg (handlers/domains.py)
        self.realm_secrets = {}               # /etc/pve/priv/realm/<realm>.pw
        self.datacenter = {}                  # datacenter.cfg (handlers/cluster_options.py)
        self.backup_jobs = OrderedDict()      # jobs.cfg vzdump sections (handlers/backup.py)
        self.replication_jobs = OrderedDict()  # replication.cfg (handlers/replication.py)
        self.metric_servers = OrderedDict()   # status.cfg (handlers/metrics.py)
        self.metric_secrets = {}              # priv/metricserver/<id>.pw (InfluxDB tokens)
        self.notification_endpoints = OrderedDict()  # notifications.cfg endpoints (handlers/notifications.py)
        self.notification_matchers = OrderedDict()   # notifications.cfg matchers
        self.notification_secrets = {}        # priv/notifications.cfg
        self.ha_resources = OrderedDict()     # ha/resources.cfg (handlers/ha.py)
        self.ha_rules = OrderedDict()         # ha/rules.cfg
        self.firewall = {}                    # scope -> firewall config (handlers/firewall.py)
        # SDN (handlers/sdn.py): the staged files /etc/pve/sdn/{zones,vnets,subnets}.cfg, id -> section
        # ({"type": ..., option: value}; integers and booleans as int, nodes/exitnodes a sorted list,
        # dhcp-range a list of strings, subnet ids "<zone>-<network>-<mask>"), and the applied
        # .running-config (a copy of the three tables at the last apply), None until the first apply.
        self.sdn = {"zones": OrderedDict(), "vnets": OrderedDict(), "subnets": OrderedDict()}
        self.sdn_running = None
        # Node networking (handlers/network.py, seeded per node on first use by network.node_network):
        # node -> {"interfaces": /etc/network/interfaces, "staged": /etc/network/interfaces.new or None,
        # "mtimes": {"interfaces": epoch, "staged": epoch or None}}, each file an OrderedDict
        # iface -> the options PVE's writer renders (values as sent or as read from the file).
        self.networks = {}
        # Fault knob (not a config file, so not in _FILES): node -> exit status of its next network
        # reload task (PUT /nodes/{node}/network), e.g. "command 'ifreload -a' failed: exit code 1"; used once.
        self.network_reload_failure = {}
        # Exit status of the next SDN apply's reloadnetworkall task (handlers/sdn.py), then None again.
        self.sdn_apply_failure = None
        # Fault knob for any worker task: task type (vzcreate, qmstart, ...) -> the exit status its next task ends
        # with ("WARNINGS: 1", or an error text); used once, by start_task.
        self.task_outcomes = {}
        # knobs for behaviour that differs between PVE versions / field reports
        self.acl_omit_default_propagate = True
        self._order_counter = 0
        self._seed()

    def _seed(self):
        self.users["root@pam"] = {"enable": 1, "expire": 0, "groups": set(), "tokens": {},
                                  "email": "root@localhost"}
        # PVE's two built-in realms (domains.cfg as pve-manager writes it on install)
        self.realms["pam"] = {"type": "pam", "comment": "Linux PAM standard authentication"}
        self.realms["pve"] = {"type": "pve", "comment": "Proxmox VE authentication server", "default": 1}
        self.storage["local"] = {"type": "dir", "path": "/var/lib/vz",
                                 "content": {"iso", "vztmpl", "backup"}}
        self.storage["local-lvm"] = {"type": "lvmthin", "thinpool": "data", "vgname": "pve",
                                     "content": {"rootdir", "images"}}

    def quorate(self):
        """Corosync's quorum as /cluster/status reports it: more than half of the nodes online."""
        return sum(node["online"] for node in self.nodes.values()) * 2 > len(self.nodes)

    # -- transactions (see errors.locked) ----------------------------------
    _FILES = ("users", "groups", "custom_roles", "pools", "acl", "token_secrets", "passwords",
              "storage", "storage_secrets", "realms", "realm_secrets", "datacenter", "backup_jobs",
              "replication_jobs", "metric_servers", "notification_endpoints", "notification_matchers",
              "notification_secrets", "ha_resources", "ha_rules", "firewall", "sdn", "sdn_running",
              "networks", "guests", "volumes", "ceph", "zfs_pools")

    def snapshot(self):
        return {name: copy.deepcopy(getattr(self, name)) for name in self._FILES}

    def restore(self, snapshot):
        for name, value in snapshot.items():
            setattr(self, name, value)

    # -- users / tokens -----------------------------------------------------
    def check_user_exist(self, userid, noerr=False):
        """AccessControl::check_user_exist (dies 'no such user')."""
        try:
            verify_username(userid or "")
        except FormatError as err:
            if noerr:
                return None
            raise die(err.message) from err
        user = self.users.get(userid)
        if user is not None:
            return user
        if noerr:
            return None
        raise die(f"no such user ('{userid}')")

    def check_token_exist(self, userid, tokenid, noerr=False):
        user = self.check_user_exist(userid, noerr)
        if user is None:
            return None
        token = user.get("tokens", {}).get(tokenid)
        if token is not None:
            return token
        if noerr:
            return None
        raise die(f"no such token '{tokenid}' for user '{userid}'")

    def user_enabled(self, userid):
        user = self.users.get(userid)
        if user is None or not user.get("enable"):
            return False
        expire = user.get("expire") or 0
        return not (expire and expire < time.time())

    def add_user(self, userid, password=None, enable=1, expire=0, groups=(), **fields):
        """Create a user directly (test helper; the API path is POST /access/users)."""
        with self.lock:
            if not USERID_RE.match(userid):
                raise ValueError(f"bad userid {userid!r}")
            user = {"enable": 1 if enable else 0, "expire": int(expire or 0),
                    "groups": set(), "tokens": {}}
            for key, value in fields.items():
                if value:
                    user[key] = value
            self.users[userid] = user
            for group in groups:
                self.groups.setdefault(group, {"users": set()})["users"].add(userid)
                user["groups"].add(group)
            if password is not None:
                self.passwords[userid] = password
            return user

    def add_token(self, userid, tokenid, privsep=1, expire=0, comment=None, secret=None):
        """Create an API token directly and return its secret (test helper)."""
        with self.lock:
            if not TOKENID_RE.match(f"{userid}!{tokenid}"):
                raise ValueError(f"bad token id {userid}!{tokenid}")
            user = self.users[userid]
            info = {"privsep": 1 if privsep else 0, "expire": int(expire or 0)}
            if comment:
                info["comment"] = comment
            user.setdefault("tokens", {})[tokenid] = info
            secret = secret or str(uuid.uuid4())
            self.token_secrets[f"{userid}!{tokenid}"] = secret
            return secret

    def remove_token(self, userid, tokenid):
        with self.lock:
            self.users.get(userid, {}).get("tokens", {}).pop(tokenid, None)
            full = f"{userid}!{tokenid}"
            self.token_secrets.pop(full, None)
            self.drop_acl_subject("tokens", full)

    # -- roles ------------------------------------------------------------
    def all_roles(self):
        roles = dict(BUILTIN_ROLES)
        roles.update(self.custom_roles)
        return roles

    @staticmethod
    def role_is_special(role):
        return role in BUILTIN_ROLES

    # -- ACL ----------------------------------------------------------------
    def acl_node(self, path):
        return self.acl.setdefault(path, {"users": {}, "groups": {}, "tokens": {}})

    def set_acl(self, path, roleid, users=(), groups=(), tokens=(), propagate=1):
        """Bind a role directly (test helper; the API path is PUT /access/acl)."""
        with self.lock:
            node = self.acl_node(path)
            for kind, ids in (("users", users), ("groups", groups), ("tokens", tokens)):
                for ugid in ([ids] if isinstance(ids, str) else ids):
                    node[kind].setdefault(ugid, {})[roleid] = 1 if propagate else 0

    def drop_acl_subject(self, kind, ugid):
        for node in self.acl.values():
            node[kind].pop(ugid, None)
        self.prune_acl()

    def drop_acl_path(self, path):
        self.acl.pop(path, None)

    def prune_acl(self):
        for path in list(self.acl):
            node = self.acl[path]
            for kind in node:
                for ugid in list(node[kind]):
                    if not node[kind][ugid]:
                        del node[kind][ugid]
            if not any(node.values()):
                del self.acl[path]

    def acl_rows(self):
        """Flat ACL list in PVE's order (depth-first, sorted children)."""
        rows = []
        for path in sorted(self.acl, key=lambda p: [s for s in p.split("/") if s]):
            node = self.acl[path]
            for kind, typ in (("users", "user"), ("groups", "group"), ("tokens", "token")):
                for ugid, role_map in node[kind].items():
                    for role, propagate in role_map.items():
                        rows.append({"path": path, "type": typ, "ugid": ugid,
                                     "roleid": role, "propagate": propagate})
        return rows

    # -- groups -------------------------------------------------------------
    def varying_order(self, items):
        """Members in a different order on consecutive calls (Perl hash order)."""
        items = sorted(items)
        if len(items) < 2:
            return items
        self._order_counter += 1
        shift = self._order_counter % len(items)
        return items[shift:] + items[:shift]

    # -- storage.cfg --------------------------------------------------------
    @staticmethod
    def render_value(key, value):
        """Storage::Plugin encode_value: sets as lists (empty content is ``none``),
        content-dirs as ``type=path`` pairs."""
        if isinstance(value, dict):
            return ",".join(f"{k}={v}" for k, v in sorted(value.items()))
        if isinstance(value, (set, frozenset)):
            text = ",".join(sorted(value))
            return text or ("none" if key == "content" else "")
        return str(value)

    def storage_config_text(self):
        """The raw storage.cfg the digest is computed over."""
        out = []
        for sid, scfg in self.storage.items():
            out.append(f"{scfg['type']}: {sid}\n")
            for key in sorted(k for k in scfg if k != "type"):
                out.append(f"\t{key} {self.render_value(key, scfg[key])}\n")
            out.append("\n")
        return "".join(out)

    def storage_digest(self):
        return hashlib.sha1(self.storage_config_text().encode()).hexdigest()

    def storage_config(self, sid, noerr=False):
        scfg = self.storage.get(sid)
        if scfg is None and not noerr:
            raise die(f"storage '{sid}' does not exist")
        return scfg

    def storage_view(self, sid):
        """What GET /storage/{storage} answers: api_storage_config over what parse_config
        made of the section (the type's default content, ``shared`` forced on the types of
        @SHARED_STORAGE). content-dirs stays a map, as api_storage_config leaves it."""
        scfg = self.storage[sid]
        info = STORAGE_TYPES[scfg["type"]]
        res = {"storage": sid, "digest": self.storage_digest()}
        for key, value in scfg.items():
            if isinstance(value, (set, frozenset)):
                res[key] = self.render_value(key, value)
            elif isinstance(value, dict):
                res[key] = dict(value)
            else:
                res[key] = value
        res.setdefault("content", ",".join(sorted(info["default_content"])))
        if info.get("shared"):
            res["shared"] = 1
        return res

    @staticmethod
    def storage_type_info(typ):
        return STORAGE_TYPES.get(typ)

    def set_storage_secret(self, sid, key, value):
        """Write one of a storage's files under /etc/pve/priv (password, keyring, encryption
        key, master public key); ``None`` removes it."""
        stored = self.storage_secrets.setdefault(sid, {})
        if value is None:
            stored.pop(key, None)
        else:
            stored[key] = value
        if not stored:
            del self.storage_secrets[sid]

    # -- tasks --------------------------------------------------------------
    def start_task(self, node, type, id, user, exitstatus="OK", duration=0.0, log=None):
        """Record a task and return its UPID (PVE UPID.pm encode)."""
        with self.lock:
            if exitstatus == "OK" and type in self.task_outcomes:
                exitstatus = self.task_outcomes.pop(type)
            now = time.time()
            pid = random.randint(0x1000, 0x3FFFFF)
            pstart = random.randint(0x100000, 0xFFFFFFF)
            starttime = int(now)
            upid = f"UPID:{node}:{pid:08X}:{pstart:08X}:{starttime:08X}:{type}:{id}:{user}:"
            while upid in self.tasks:
                pid += 1
                upid = f"UPID:{node}:{pid:08X}:{pstart:08X}:{starttime:08X}:{type}:{id}:{user}:"
            self.tasks[upid] = Task(upid=upid, node=node, pid=pid, pstart=pstart,
                                    starttime=starttime, type=type, id=str(id), user=user,
                                    exitstatus=exitstatus, started=now,
                                    duration=float(duration), lines=list(log or []))
            return upid


def new_secret():
    return secrets.token_urlsafe(18)
