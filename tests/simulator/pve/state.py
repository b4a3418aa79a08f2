"""The shared cluster state: user.cfg, storage.cfg, tasks, nodes, and the slices the handler modules own.

One ``ClusterState`` is shared by every member. Its data mirrors PVE's config
files, because digests, ``delete=`` semantics and "does not exist" messages
all follow the file model: values are kept the way the file would round-trip
them (an empty comment disappears, ``enable``/``expire`` always present ...).

The core keeps user.cfg (users, groups, roles, pools, ACL, token secrets,
passwords), storage.cfg, the nodes and the tasks. Every other attribute is a
*slice* that the handler module owning it declares at import time with
``register_slice(name, factory, snapshot=True)``: each new state gets
``factory()`` as that attribute, and a slice with ``snapshot`` (a config file)
is copied by ``snapshot()`` and put back by ``restore()``; fault knobs and
caches are ``snapshot=False``. A slice with ``node_local`` is keyed by node name and
holds files outside /etc/pve (resolv.conf, the apt sources, /etc/subscription, the
node's interfaces and disks): a node that joins a cluster keeps them (``adopt_node``).

All mutation happens under ``state.lock`` (an RLock); the API pipeline holds
it for the permission check, validation and the handler of every request.
"""

import copy
import hashlib
import random
import secrets
import threading
import time
import uuid
from collections import OrderedDict

from ..errors import die
from ..formats import TOKENID_RE, USERID_RE, FormatError, verify_username
from ..privileges import BUILTIN_ROLES
from ..tasks import Task, pve_upid
from .storage_types import TYPES as STORAGE_TYPES

# The files the core keeps (``snapshot()`` copies them before the registered slices).
CORE_FILES = ("users", "groups", "custom_roles", "pools", "acl", "token_secrets", "passwords",
              "storage", "storage_secrets")
_SLICES = {}        # name -> factory, in registration order
_SNAPSHOTTED = []   # the registered slices that snapshot() copies
_NODE_LOCAL = []    # the registered slices keyed by node that survive a join


def register_slice(name, factory, snapshot=True, node_local=False):
    """Declare the ``ClusterState`` attribute ``name`` that a handler module owns: every state made
    afterwards starts with ``factory()`` there; with ``snapshot`` (a config file) a failed write puts it
    back (``snapshot``/``restore``, see errors.locked); with ``node_local`` it is a dict by node name of
    files a node keeps when it joins a cluster. Returns ``factory``."""
    if name in _SLICES or name in CORE_FILES or hasattr(ClusterState, name):
        raise RuntimeError(f"state slice {name!r} registered twice")
    _SLICES[name] = factory
    if snapshot:
        _SNAPSHOTTED.append(name)
    if node_local:
        _NODE_LOCAL.append(name)
    return factory


def snapshot_names():
    """What ``ClusterState.snapshot`` copies: the core files, then the registered file slices."""
    return CORE_FILES + tuple(_SNAPSHOTTED)


class ClusterState:
    """Everything the cluster knows. Handlers read and write it under ``lock``."""

    def __init__(self, node_names=("node1", "node2", "node3"), cluster_name="simcluster", node_ips=None,
                 minimal=False):
        self.lock = threading.RLock()
        # minimal: only what every PVE holds (root@pam, the built-in realms and roles, the ``local`` storage, the
        # installer's node files), none of the simulator's demo objects: the rehearsal twin's base (twin.py)
        self.minimal = minimal
        # None: a standalone node, as the installer leaves it (no corosync.conf)
        self.cluster_name = cluster_name
        # repoid: `git rev-parse --short=16` since pve-manager 0e77456f (2023)
        self.version = {"version": "9.1.9", "release": "9.1", "repoid": "5c2b9a1e7d30f4c2"}
        ips = node_ips or ["127.0.0.1"] * len(node_names)
        self.nodes = OrderedDict(
            (name, {"nodeid": i + 1 if cluster_name else 0, "online": 1, "ip": ips[i]})
            for i, name in enumerate(node_names))
        # corosync.conf's nodelist (pve-cluster Corosync.pm): name -> {nodeid, quorum_votes, ring<N>_addr}, its
        # totem section and its config_version; None on a standalone node
        self.corosync = None
        if cluster_name:
            self.corosync = {"nodelist": OrderedDict(
                (name, {"name": name, "nodeid": info["nodeid"], "quorum_votes": 1, "ring0_addr": info["ip"]})
                for name, info in self.nodes.items()),
                "totem": {"cluster_name": cluster_name, "config_version": len(self.nodes), "ip_version": "ipv4-6",
                          "link_mode": "passive", "secauth": "on", "version": 2,
                          "interface": {"0": {"linknumber": 0}}}}
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
        self.tasks = {}
        # Fault knob for any worker task: task type (vzcreate, qmstart, ...) -> the exit status its next task ends
        # with ("WARNINGS: 1", or an error text); used once, by start_task.
        self.task_outcomes = {}
        # knobs for behaviour that differs between PVE versions / field reports
        self.acl_omit_default_propagate = True
        self._order_counter = 0
        # the handler modules' slices (register_slice): guests, firewall, sdn, ...
        for name, factory in _SLICES.items():
            setattr(self, name, factory())
        self._seed()

    def _seed(self):
        self.users["root@pam"] = {"enable": 1, "expire": 0, "groups": set(), "tokens": {},
                                  "email": "root@localhost"}
        self.storage["local"] = {"type": "dir", "path": "/var/lib/vz",
                                 "content": {"iso", "vztmpl", "backup"}}
        if self.minimal:
            return
        self.storage["local-lvm"] = {"type": "lvmthin", "thinpool": "data", "vgname": "pve",
                                     "content": {"rootdir", "images"}}

    def quorate(self):
        """Corosync's quorum as /cluster/status reports it: more than half of the votes online (a standalone node's
        /etc/pve is always writable: check_cfs_quorum passes)."""
        if self.corosync is None:
            return True
        votes = dict((name, entry.get("quorum_votes", 1)) for name, entry in self.corosync["nodelist"].items())
        online = sum(votes.get(name, 1) for name, node in self.nodes.items() if node["online"])
        return online * 2 > sum(votes.get(name, 1) for name in self.nodes)

    def adopt_node(self, other, node):
        """A node of the standalone state ``other`` joined this cluster (pve-cluster Setup.pm finish_join): its
        /etc/pve is replaced by this cluster's, so it keeps only what lives outside it - the node-local slices and
        its task log (/var/log/pve/tasks)."""
        for name in _NODE_LOCAL:
            mine, theirs = getattr(self, name), getattr(other, name)
            if node in theirs:
                mine[node] = copy.deepcopy(theirs[node])
        self.tasks.update((upid, task) for upid, task in other.tasks.items() if task.node == node)

    # -- transactions (see errors.locked) ----------------------------------
    def snapshot(self):
        return {name: copy.deepcopy(getattr(self, name)) for name in snapshot_names()}

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
        """AccessControl::check_token_exist."""
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
        """pve-storage Storage.pm storage_config."""
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
            upid = pve_upid(node, pid, pstart, starttime, type, id, user)
            while upid in self.tasks:
                pid += 1
                upid = pve_upid(node, pid, pstart, starttime, type, id, user)
            self.tasks[upid] = Task(upid=upid, node=node, pid=pid, pstart=pstart,
                                    starttime=starttime, type=type, id=str(id), user=user,
                                    exitstatus=exitstatus, started=now,
                                    duration=float(duration), lines=list(log or []))
            return upid


def new_secret():
    return secrets.token_urlsafe(18)
