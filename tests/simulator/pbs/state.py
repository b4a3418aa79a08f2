"""The state of one Proxmox Backup Server: datastore.cfg, user.cfg, the token shadow, acl.cfg, the job
and notification files, and its worker tasks.

It shares nothing with the PVE cluster. All access happens under ``state.lock``; ``settle()`` applies
the effects of the tasks that have ended (a datastore is written when its create task ends).
"""

import hashlib
import secrets
import threading
import time
import uuid
from collections import OrderedDict

from ..tasks import PbsTask, escape_unit, pbs_stamp, pbs_upid

PBS_TOKEN_USER = "root@pam"
PBS_TOKEN_NAME = "sim"


class PbsState:
    """One PBS host: datastore.cfg, tokens, prune jobs, tasks. Guarded by ``lock``."""

    def __init__(self, node="pbs"):
        self.lock = threading.RLock()
        self.node = node
        self.version = {"version": "4.1", "release": "2", "repoid": secrets.token_hex(20)}
        # user.cfg as PBS stores it: only the keys that are set ("enable" only once false/explicit)
        self.users = {"root@pam": {"comment": "Superuser"}}  # userid -> {"comment"?, "enable"?, ...}
        self.tokens = {}          # "user@realm!name" -> {"comment"?, "enable"?, "expire"?}
        self.passwords = {}       # userid -> password (the pbs realm's shadow.json, root@pam's PAM)
        self.tickets = {}         # ticket -> userid (a login's PBSAuthCookie), and its CSRF token
        self.token_shadow = {}    # "user@realm!name" -> salted hash of the secret (token.shadow)
        self.forbidden_delay = 0.0  # seconds a 403 waits (PBS: 0.5 s from the request's start)
        self.datastores = OrderedDict()
        self.prune_jobs = OrderedDict()
        # acl.cfg (auth.py, handlers/access.py): tokens are privilege-separated, so the simulator's own token gets
        # Admin on / here (root@pam itself needs no entry: the superuser has every privilege)
        self.acl = [{"path": "/", "ugid": f"{PBS_TOKEN_USER}!{PBS_TOKEN_NAME}", "ugid_type": "user",
                     "roleid": "Admin", "propagate": True}]
        # issue 12 (handlers/jobs.py owns these): sync.cfg, verification.cfg, remote.cfg
        self.sync_jobs = OrderedDict()
        self.verify_jobs = OrderedDict()
        self.remotes = OrderedDict()
        # issue 12 (handlers/notifications.py owns these): notifications.cfg (+ priv/notifications.cfg secrets)
        self.notification_endpoints = OrderedDict()   # name -> {"type": "sendmail"|"smtp"|"gotify"|"webhook", ...}
        self.notification_matchers = OrderedDict()
        self.tasks = {}
        # worker type (create-datastore, ...) -> the exit status its next task ends with, used once
        self.task_outcomes = {}
        self.task_duration = 0.0  # seconds a create/delete-datastore task runs
        # the API daemon's pid/pstart (every PBS worker task shares them)
        self.pid = secrets.randbelow(0x3FFFFF - 0x1000) + 0x1000
        self.pstart = secrets.randbelow(0xFFFFFFF - 0x100000) + 0x100000
        self._task_counter = 0

    # -- user.cfg, token.shadow (pbs-config user.rs, token_shadow.rs) ------------------
    def add_user(self, userid, **config):
        """A user.cfg entry as POST /access/users stores it (a test's shortcut)."""
        with self.lock:
            self.users[userid] = dict(config)

    def add_token(self, userid, tokenname, secret=None, enable=True, expire=0):
        """A token (its user is created when missing); returns the secret."""
        with self.lock:
            self.users.setdefault(userid, {})
            config = {}
            if not enable:
                config["enable"] = False
            if expire:
                config["expire"] = int(expire)
            self.tokens[f"{userid}!{tokenname}"] = config
            return self.set_token_secret(f"{userid}!{tokenname}", secret)

    def set_token_secret(self, tokenid, secret=None):
        """token_shadow::generate_and_set_secret: only a salted hash is kept."""
        secret = secret or str(uuid.uuid4())
        salt = secrets.token_hex(8)
        self.token_shadow[tokenid] = f"{salt}${hashlib.sha256((salt + secret).encode()).hexdigest()}"
        return secret

    def remove_token(self, tokenid):
        """A token, its secret and its ACL entries gone (a revocation); True if it existed."""
        with self.lock:
            if tokenid not in self.tokens:
                return False
            del self.tokens[tokenid]
            self.token_shadow.pop(tokenid, None)
            self.acl_delete_authid(tokenid)
            return True

    def token_secret_matches(self, tokenid, secret):
        salt, _sep, digest = self.token_shadow.get(tokenid, "$").partition("$")
        return secrets.compare_digest(hashlib.sha256((salt + secret).encode()).hexdigest(), digest)

    @staticmethod
    def _is_active(config, now):
        """User::is_active / ApiToken::is_active: enable defaults to true, expire 0 = never."""
        expire = config.get("expire") or 0
        return config.get("enable", True) is not False and not (expire and expire < now)

    def authid_active(self, userid, token):
        user = self.users.get(userid)
        now = time.time()
        if user is None or not self._is_active(user, now):
            return False
        if token is None:
            return True
        info = self.tokens.get(f"{userid}!{token}")
        return info is not None and self._is_active(info, now)

    def _section_text(self, kind, sections, id_key):
        out = []
        for section_id, cfg in sections.items():
            out.append(f"{kind}: {section_id}\n")
            out.extend(f"\t{key} {self._render(value)}\n" for key, value in cfg.items() if key != id_key)
            out.append("\n")
        return "".join(out)

    def user_digest(self):
        text = self._section_text("user", self.users, "userid") + self._section_text("token", self.tokens, "tokenid")
        return hashlib.sha256(text.encode()).hexdigest()

    # -- acl.cfg (pbs-config acl.rs AclTree) -------------------------------------------
    @staticmethod
    def acl_path(path):
        """split_acl_path joined again: the path an entry is stored under."""
        return "/" + "/".join(c for c in path.split("/") if c)

    def acl_insert(self, path, ugid, roleid, propagate=True, ugid_type="user"):
        """AclTreeNode::insert_user_role: NoAccess replaces every role of ``ugid`` on the node,
        any other role drops a NoAccess there."""
        path = self.acl_path(path)
        same = [e for e in self.acl if (e["path"], e["ugid"], e["ugid_type"]) == (path, ugid, ugid_type)]
        for entry in same:
            if roleid == "NoAccess" or entry["roleid"] in ("NoAccess", roleid):
                self.acl.remove(entry)
        self.acl.append({"path": path, "ugid": ugid, "ugid_type": ugid_type, "roleid": roleid,
                         "propagate": bool(propagate)})

    def acl_delete(self, path, ugid, roleid, ugid_type="user"):
        """AclTree::delete_user_role: never fails."""
        key = (self.acl_path(path), ugid, ugid_type, roleid)
        self.acl = [e for e in self.acl if (e["path"], e["ugid"], e["ugid_type"], e["roleid"]) != key]

    def acl_delete_node(self, path):
        """AclTree::delete_node: every entry on ``path`` and below it."""
        prefix = self.acl_path(path).rstrip("/") + "/"
        self.acl = [e for e in self.acl if not (e["path"] + "/").startswith(prefix)]

    def acl_delete_authid(self, authid):
        self.acl = [e for e in self.acl if not (e["ugid_type"] == "user" and e["ugid"] == authid)]

    def acl_text(self):
        """acl.cfg as AclTree::write_node_config writes it (root@pam's own entries are not saved)."""
        lines = []
        for path in sorted({e["path"] for e in self.acl}, key=lambda p: [c for c in p.split("/") if c]):
            for propagate in (False, True):
                roles_of = {}
                for e in self.acl:
                    if e["path"] == path and e["propagate"] == propagate and e["ugid"] != "root@pam":
                        ugid = e["ugid"] if e["ugid_type"] == "user" else f"@{e['ugid']}"
                        roles_of.setdefault(e["roleid"], set()).add(ugid)
                grouped = {}
                for role, ugids in roles_of.items():
                    grouped.setdefault(",".join(sorted(ugids)), set()).add(role)
                for uglist in sorted(grouped):
                    roles = grouped[uglist]
                    role_list = "NoAccess" if "NoAccess" in roles else ",".join(sorted(roles))
                    lines.append(f"acl:{int(propagate)}:{path}:{uglist}:{role_list}\n")
        return "".join(lines)

    def acl_digest(self):
        return hashlib.sha256(self.acl_text().encode()).hexdigest()

    # -- datastore.cfg -------------------------------------------------------
    @staticmethod
    def _render(value):
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    def config_text(self):
        out = []
        for name, cfg in self.datastores.items():
            out.append(f"datastore: {name}\n")
            for key, value in cfg.items():
                out.append(f"\t{key} {self._render(value)}\n")
            out.append("\n")
        return "".join(out)

    def digest(self):
        return hashlib.sha256(self.config_text().encode()).hexdigest()

    def view(self, name):
        return {"name": name, **self.datastores[name]}

    # -- tasks -----------------------------------------------------------------
    def start_task(self, wtype, wid, authid, exitstatus="OK", duration=None, log=None,
                   on_done=None):
        """Record a worker task and return its UPID (proxmox-rest-server format)."""
        with self.lock:
            self.settle()
            if exitstatus == "OK" and wtype in self.task_outcomes:
                exitstatus = self.task_outcomes.pop(wtype)
            now = time.time()
            self._task_counter += 1
            starttime = int(now)
            wid_text = escape_unit(wid) if wid else ""
            upid = pbs_upid(self.node, self.pid, self.pstart, self._task_counter, starttime, wtype, wid_text,
                            authid)
            stamp = pbs_stamp(starttime)
            lines = [f"{stamp}: {line}" for line in (log or [])]
            self.tasks[upid] = PbsTask(
                upid=upid, pid=self.pid, pstart=self.pstart, task_id=self._task_counter,
                starttime=starttime, type=wtype, wid=wid or None, authid=authid,
                exitstatus=exitstatus, started=now,
                duration=self.task_duration if duration is None else float(duration),
                lines=lines, on_done=on_done)
            self.settle()
            return upid

    def settle(self):
        """Apply the effects of tasks that have ended (config written at the end)."""
        with self.lock:
            now = time.time()
            for task in sorted(self.tasks.values(), key=lambda t: t.task_id):
                if task.applied or task.running(now):
                    continue
                task.applied = True
                ok = task.exitstatus == "OK" or task.exitstatus.startswith("WARNINGS")
                if ok and task.on_done is not None:
                    task.on_done()
