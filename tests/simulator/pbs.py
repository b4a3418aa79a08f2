"""A Proxmox Backup Server on its own port: PBS's wire rules, minimal families.

Ported from proxmox-rs ``proxmox-rest-server`` (``rest.rs``, ``formatter.rs``),
``proxmox-auth-api`` (``http_check_auth``, ``Authid``) and proxmox-backup
(``api2/config/datastore.rs``, ``api2/node/tasks.rs``):

* ``/api2/json`` prefix; success ``{"data": ...}`` plus result attributes as
  siblings (``digest``, ``total``); **errors are plain text** (status from the
  error, else 400; reason phrase the canonical one), ``Content-Type:
  application/json;charset=UTF-8`` except on the auth layer's 401s, which carry
  no content type. Connections stay open after errors (hyper).
* Order: non-``/api2`` paths; format (``json`` only); route lookup; **auth**
  (unless the method is ``world``) -> 401 ``authentication failed - <why>``;
  unknown path or method -> 404 ``Path '/api2/json/x' not found.``; content
  type, body size; parameters (form: ``parse_parameter_strings``; JSON:
  ``verify_json``) -> 400 ``parameter verification failed - 'name': <why>``;
  the handler.
* Auth: ``Authorization: PBSAPIToken=<user@realm!name>:<secret>`` (or a space
  after the prefix). Another scheme (a PVE header) is "no credentials"; the
  token id is parsed like ``Authid::from_str`` (``=secret`` after the id ->
  ``invalid token name``); unknown/disabled -> ``user account or token disabled
  or expired.``; wrong secret -> ``invalid credentials``.
* Permissions (``pbs_access.py``): after the route lookup and auth, the method's
  schema ``permissions`` are checked like proxmox-router ``check_api_permission``
  against acl.cfg (URI parameters only) -> 403 ``permission check failed``;
  tokens are privilege-separated, so ``root@pam!sim`` holds ``Admin`` on ``/``
  through a seeded ACL entry.

State shares nothing with the PVE cluster: ``PbsState`` is datastore.cfg,
user.cfg, the token shadow, acl.cfg and the task list of one PBS host.
"""

import hashlib
import json
import re
import secrets
import sys
import threading
import time
import traceback
import urllib.parse
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from http import HTTPStatus

from . import pbs_schema
from .pbs_schema import SAFE_ID, ParameterError, SchemaError
from .pve import Response, parse_query, split_target
from .state import TaskEnd

MAX_BODY = 64 * 1024
PBS_TOKEN_USER = "root@pam"
PBS_TOKEN_NAME = "sim"
_USER_NAME_RE = re.compile(r"^(?:[^\s:/\x00-\x1f\x7f]+)$")
_SAFE_ID_RE = re.compile(rf"^{SAFE_ID}\Z")
_PBS_UPID_RE = re.compile(
    r"^UPID:(?P<node>[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?):(?P<pid>[0-9A-Fa-f]{8}):"
    r"(?P<pstart>[0-9A-Fa-f]{8,9}):(?P<task_id>[0-9A-Fa-f]{8,16}):(?P<starttime>[0-9A-Fa-f]{8}):"
    r"(?P<wtype>[^:\s]+):(?P<wid>[^:\s]*):(?P<authid>[^:\s]+):\Z")
# DataStoreConfig members that moved into prune jobs (create_datastore clears them)
_PRUNE_KEYS = ("keep-last", "keep-hourly", "keep-daily", "keep-weekly", "keep-monthly",
               "keep-yearly")


class PbsError(Exception):
    """An error answer: plain text body, this status (anyhow errors are 400)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


class PbsAuthError(Exception):
    pass


def escape_unit(text):
    """proxmox_systemd::escape_unit(text, false): how a worker id sits in a UPID."""
    out = []
    for index, char in enumerate(text):
        if char == "/":
            out.append("-")
        elif (index == 0 and char == ".") or not (char in "_." or (char.isascii() and char.isalnum())):
            out.extend(f"\\x{byte:x}" for byte in char.encode())
        else:
            out.append(char)
    return "".join(out)


def unescape_unit(text):
    data = bytearray()
    pos = 0
    while pos < len(text):
        if text.startswith("\\x", pos):
            m = re.match(r"[0-9a-fA-F]{1,2}", text[pos + 2:])
            if m:
                data.append(int(m.group(0), 16))
                pos += 2 + m.end()
                continue
        char = text[pos]
        data.extend(b"/" if char == "-" else char.encode())
        pos += 1
    return data.decode("utf-8", "replace")


def parse_authid(text):
    """proxmox-auth-api ``Authid::from_str``; returns (userid, tokenname or None)."""
    at = text.rfind("@")
    if at < 0:
        raise PbsAuthError("not a valid user id")
    bang = text.rfind("!")
    realm_end = len(text) if bang < 0 or bang < at else bang
    if realm_end == len(text) - 1:
        raise PbsAuthError("empty token name in userid")
    userid = text[:realm_end]
    name, realm = userid[:userid.rfind("@")], userid[userid.rfind("@") + 1:]
    if not _USER_NAME_RE.match(name):
        raise PbsAuthError("invalid user name in user id")
    if not (3 <= len(realm) <= 32) or not _SAFE_ID_RE.match(realm):
        raise PbsAuthError("invalid realm in user id")
    token = None
    if realm_end < len(text):
        token = text[realm_end + 1:]
        if not _SAFE_ID_RE.match(token):
            raise PbsAuthError("invalid token name")
    return userid, token


@dataclass
class PbsTask(TaskEnd):
    upid: str
    pid: int
    pstart: int
    task_id: int
    starttime: int
    type: str
    wid: str
    authid: str
    exitstatus: str = "OK"
    started: float = 0.0
    duration: float = 0.0
    lines: list = field(default_factory=list)
    on_done: object = None   # applied once when the task ends with OK/WARNINGS
    applied: bool = False

    @property
    def endtime(self):
        return int(self.started + self.duration)

    def log(self, now=None):
        lines = list(self.lines)
        if not self.running(now):
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(self.endtime))
            stamp = f"{stamp[:-2]}:{stamp[-2:]}"
            lines.append(f"{stamp}: {self.final_line()}")
        return lines


class PbsState:
    """One PBS host: datastore.cfg, tokens, prune jobs, tasks. Guarded by ``lock``."""

    def __init__(self, node="pbs"):
        self.lock = threading.RLock()
        self.node = node
        self.version = {"version": "4.1", "release": "2", "repoid": secrets.token_hex(20)}
        # user.cfg as PBS stores it: only the keys that are set ("enable" only once false/explicit)
        self.users = {"root@pam": {"comment": "Superuser"}}  # userid -> {"comment"?, "enable"?, ...}
        self.tokens = {}          # "user@realm!name" -> {"comment"?, "enable"?, "expire"?}
        self.token_shadow = {}    # "user@realm!name" -> salted hash of the secret (token.shadow)
        self.forbidden_delay = 0.0  # seconds a 403 waits (PBS: 0.5 s from the request's start)
        self.datastores = OrderedDict()
        self.prune_jobs = OrderedDict()
        # acl.cfg (pbs_access.py): tokens are privilege-separated, so the simulator's own token gets
        # Admin on / here (root@pam itself needs no entry: the superuser has every privilege)
        self.acl = [{"path": "/", "ugid": f"{PBS_TOKEN_USER}!{PBS_TOKEN_NAME}", "ugid_type": "user",
                     "roleid": "Admin", "propagate": True}]
        # issue 12 (pbs_jobs.py owns these): sync.cfg, verification.cfg, remote.cfg
        self.sync_jobs = OrderedDict()
        self.verify_jobs = OrderedDict()
        self.remotes = OrderedDict()
        # issue 12 (pbs_notify.py owns these): notifications.cfg (+ priv/notifications.cfg secrets)
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
            upid = (f"UPID:{self.node}:{self.pid:08X}:{self.pstart:08X}:{self._task_counter:08X}:"
                    f"{starttime:08X}:{wtype}:{wid_text}:{authid}:")
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(starttime))
            stamp = f"{stamp[:-2]}:{stamp[-2:]}"
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


# -- handlers ---------------------------------------------------------------------

ROUTES = {}


def route(method, template):
    def register(fn):
        ROUTES[(method, template)] = fn
        return fn
    return register


@dataclass
class Ctx:
    state: PbsState
    authid: str
    params: dict
    schema: dict

    def check_privs(self, path, privs, partial=False):
        """A handler's own privilege check (pbs-config ``CachedUserInfo::check_privs``): ``path`` is a list of
        components (``["datastore", "store1"]``); unless the auth id has every one of ``privs`` there
        (``partial``: any one) raise PbsError(400, "missing permissions 'A&B' on '/datastore/store1'") --
        PBS bails with a plain error there, so the status is 400, not 403."""
        pbs_access.check_privs(self.state, self.authid, path, privs, partial)
        return True

    def has_privs(self, path, privs, partial=False):
        """The same test as a bool (handlers that filter a list or choose a branch, ``lookup_privs``)."""
        return pbs_access.has_privs(self.state, self.authid, path, privs, partial)


@dataclass
class Result:
    data: object = None
    extra: dict = field(default_factory=dict)


@route("GET", "/version")
def version(ctx):
    return dict(ctx.state.version)


@route("GET", "/config/datastore")
def datastore_list(ctx):
    state = ctx.state
    return Result([state.view(name) for name in state.datastores], {"digest": state.digest()})


@route("GET", "/config/datastore/{name}")
def datastore_read(ctx):
    state, name = ctx.state, ctx.params["name"]
    if name not in state.datastores:
        raise PbsError(400, f"no such datastore '{name}'")
    data = state.view(name)
    return Result(data, {"digest": state.digest()})


def _config_members():
    """The DataStoreConfig members (the read method's ``returns`` properties)."""
    found = pbs_schema.load().find("GET", "/config/datastore/{name}")
    returns = (found[1].get("returns") or {}) if found else {}
    return set(returns.get("properties") or {}) - {"name"}


@route("POST", "/config/datastore")
def datastore_create(ctx):
    state, params = ctx.state, ctx.params
    name = params["name"]
    if name in state.datastores:
        raise PbsError(400, str(ParameterError([("name", f"datastore '{name}' already exists.")])))
    members = _config_members() or set(params)
    config = {k: v for k, v in params.items() if k in members and k != "name"}
    prune_job = None
    if config.get("prune-schedule"):
        job_id = f"default-{name}-{uuid.uuid4()}"[:32]
        prune_job = {"id": job_id, "store": name, "schedule": config["prune-schedule"],
                     **{k: config[k] for k in _PRUNE_KEYS if k in config}}
    for key in (*_PRUNE_KEYS, "prune-schedule"):
        config.pop(key, None)  # "now handled by prune jobs"
    path = config.get("path", "")
    exitstatus = "OK"
    if not config.get("backing-device") and not path.startswith("/"):
        exitstatus = f'expected absolute path - got "{path}"'

    def done():
        state.datastores[name] = config
        if prune_job is not None:
            state.prune_jobs[prune_job["id"]] = prune_job

    return state.start_task("create-datastore", name, ctx.authid, exitstatus=exitstatus,
                            log=[f"create datastore '{name}' on disk {path}"], on_done=done)


def _check_digest(state, params):
    """A ``digest`` parameter must match the current datastore.cfg."""
    digest = params.get("digest")
    if digest is not None and digest != state.digest():
        raise PbsError(400, "detected modified configuration - file changed by other user? Try again.")


@route("PUT", "/config/datastore/{name}")
def datastore_update(ctx):
    state, params = ctx.state, ctx.params
    name = params["name"]
    _check_digest(state, params)
    if name not in state.datastores:
        raise PbsError(400, f"no such datastore '{name}'")
    data = dict(state.datastores[name])
    for key in params.get("delete") or []:
        data.pop(key, None)
    for key in (*_PRUNE_KEYS, "prune-schedule"):
        if key in params:
            raise PbsError(400, str(ParameterError(
                [(key, "datastore prune settings have been replaced by prune jobs")])))
    for key, value in params.items():
        if key in ("name", "delete", "digest"):
            continue
        if key == "comment":
            value = value.strip()
            if not value:
                data.pop("comment", None)
                continue
        data[key] = value
    state.datastores[name] = data
    return None


@route("DELETE", "/config/datastore/{name}")
def datastore_delete(ctx):
    state, params = ctx.state, ctx.params
    name = params["name"]
    _check_digest(state, params)
    if name not in state.datastores:
        raise PbsError(404, f"datastore '{name}' does not exist.")
    if not params.get("keep-job-configs"):
        pbs_jobs.drop_datastore_jobs(state, name)

    def done():
        state.datastores.pop(name, None)

    return state.start_task("delete-datastore", name, ctx.authid, on_done=done)


def _task(ctx):
    upid = ctx.params["upid"]
    m = _PBS_UPID_RE.match(upid)
    if not m:
        raise PbsError(400, f"unable to parse UPID '{upid}'")
    task = ctx.state.tasks.get(upid)
    owner = m.group("authid")
    try:
        parse_authid(owner)
    except PbsAuthError as err:
        raise PbsError(400, str(err)) from err
    # check_task_access: the owner (or the user owning the token) may always read; anybody else needs
    # Sys.Audit on /system/tasks
    if ctx.authid not in (owner, owner.split("!")[0]) and not ctx.has_privs(["system", "tasks"], ["Sys.Audit"]):
        raise PbsError(400, "task access not allowed")
    return m, task, owner


@route("GET", "/nodes/{node}/tasks/{upid}/status")
def task_status(ctx):
    m, task, owner = _task(ctx)
    user, token = parse_authid(owner)
    res = {"upid": ctx.params["upid"], "node": m.group("node"), "pid": int(m.group("pid"), 16),
           "pstart": int(m.group("pstart"), 16), "starttime": int(m.group("starttime"), 16),
           "type": m.group("wtype"), "id": unescape_unit(m.group("wid")) if m.group("wid") else None,
           "user": user}
    if token is not None:
        res["tokenid"] = token
    if task is not None and task.running():
        res["status"] = "running"
    else:
        res["status"] = "stopped"
        res["exitstatus"] = task.exitstatus if task is not None else "unknown"
        res["endtime"] = task.endtime if task is not None else 0
    return res


@route("GET", "/nodes/{node}/tasks/{upid}/log")
def task_log(ctx):
    task = _task(ctx)[1]
    if task is None:
        raise PbsError(400, "No such file or directory (os error 2)")
    start = ctx.params.get("start") or 0
    limit = ctx.params.get("limit")
    limit = 50 if limit is None else limit
    until_end = limit == 0
    lines = []
    count = 0
    for text in task.log():
        count += 1
        if count < start:
            continue
        if not until_end:
            if limit == 0:
                continue
            limit -= 1
        lines.append({"n": count, "t": text})
    return Result(lines, {"total": count, "success": 1, "_content_type": "application/json"})


# -- the app -------------------------------------------------------------------------

def _headers(content_type="application/json;charset=UTF-8"):
    return [("Content-Type", content_type)] if content_type else []


def _reason(status):
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def plain(status, message, content_type=True):
    return Response(status, _reason(status), message.encode(),
                    _headers() if content_type else [])


class PbsApi:
    """One PBS server's API (plugs into ``server.Member`` like ``PveApi``)."""

    server_header = None    # hyper sends no Server header
    close_on_error = False  # and keeps connections open after an error

    def __init__(self, sim):
        self.sim = sim
        self.state = PbsState()
        self._schema = None

    @property
    def schema(self):
        if self._schema is None:
            self._schema = pbs_schema.load()
        return self._schema

    # -- log --------------------------------------------------------------------
    @staticmethod
    def _components(path):
        return [c for c in path.split("/") if c]  # split_target has percent-decoded it

    def describe(self, req, authenticate=False):
        raw_path, query = split_target(req.target)
        comps = [c for c in raw_path.split("/") if c]
        rel = "/" + "/".join(comps[2:]) if comps[:1] == ["api2"] and len(comps) >= 2 else raw_path
        token_id = None
        if authenticate:
            try:
                token_id = self.authenticate(req.headers)
            except PbsAuthError:
                pass
        form = {}
        if req.body:
            try:
                form = self._body_form(req)
            except (ValueError, PbsError):
                form = {}
        form.update(parse_query(query))
        form.pop("_dc", None)
        return {"method": req.method, "path": rel, "form": form, "member": req.member.address,
                "token_id": token_id, "status": None}

    def log_hung(self, req):
        self.sim.record(self.describe(req, authenticate=True))

    @staticmethod
    def _body_form(req):
        ctype = (req.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        text = req.body.decode("utf-8", "replace")
        if ctype == "application/json":
            data = json.loads(text) if text.strip() else {}
            return data if isinstance(data, dict) else {}
        return parse_query(text)

    # -- auth (proxmox-auth-api http_check_auth) --------------------------------
    def authenticate(self, headers):
        prefix = "PBSAPIToken"
        auth = headers.get("Authorization") or ""
        if not auth.startswith(prefix) or auth[len(prefix):len(prefix) + 1] not in (" ", "="):
            raise PbsAuthError("no authentication credentials provided.")
        value = auth[len(prefix) + 1:]
        tokenid, sep, secret = value.partition(":")
        userid, token = parse_authid(tokenid)
        state = self.state
        with state.lock:
            if not state.authid_active(userid, token):
                raise PbsAuthError("user account or token disabled or expired.")
            if not sep:
                raise PbsAuthError("failed to split API token header")
            secret = urllib.parse.unquote(secret)
            if token is None:
                raise PbsAuthError("not an API token ID")
            if f"{userid}!{token}" not in state.tokens:
                raise PbsAuthError("invalid API token")
            if not state.token_secret_matches(f"{userid}!{token}", secret):
                raise PbsAuthError("invalid credentials")
        return f"{userid}!{token}"

    # -- the pipeline (rest.rs Formatted::handle_request) ----------------------------
    def handle(self, req):
        entry = self.describe(req)
        try:
            resp = self._handle(req, entry)
        except Exception as err:  # a simulator bug: say so, answer 500
            traceback.print_exc(file=sys.stderr)
            resp = plain(500, f"simulator internal error: {err}")
        entry["status"] = resp.status
        self.sim.record(entry)
        return resp

    def _handle(self, req, entry):
        raw_path, query = split_target(req.target)
        comps = self._components(raw_path)
        if not comps or comps[0] != "api2":
            if req.method != "GET":
                return plain(400, "invalid http method for path", content_type=False)
            return plain(404, f"no such file: '{'/'.join(comps)}'", content_type=False)
        full_path = "/" + "/".join(comps)
        if len(comps) < 2:
            return plain(404, f"invalid api path '{full_path}'", content_type=False)
        if comps[1] != "json":
            return plain(400, f"Unsupported output format '{comps[1]}'.", content_type=False)
        rel = "/" + "/".join(comps[2:])
        found = self.schema.find(req.method, rel)
        perms = (found[1].get("permissions") or {}) if found else {}
        authid = None
        if perms.get("user") != "world":
            try:
                authid = self.authenticate(req.headers)
            except PbsAuthError as err:
                if self.sim.unauthorized_delay:
                    time.sleep(self.sim.unauthorized_delay)
                return plain(401, f"authentication failed - {err}", content_type=False)
        entry["token_id"] = authid
        if found is None:
            return plain(404, f"Path '{full_path}' not found.")
        template, info, uri_params = found
        with self.state.lock:
            allowed = pbs_access.api_permission_ok(self.state, perms, authid, uri_params)
        if not allowed:
            # rest.rs: the answer waits until 0.5 s after the request started
            time.sleep(self.state.forbidden_delay)
            return plain(403, "permission check failed")
        forced = self.sim.take_fault(req.method, rel, server="pbs")  # Simulator.force(..., server="pbs")
        if forced is not None:
            return plain(forced.status, forced.message.rstrip("\n"))
        try:
            params = self._parameters(req, query, info.get("parameters") or {}, uri_params)
            self.sim.run_hooks(req.method, rel, params, server="pbs")
            handler = ROUTES.get((req.method, template))
            if handler is None:
                raise PbsError(501, f"Method '{req.method} {rel}' not implemented by the simulator")
            with self.state.lock:
                self.state.settle()
                result = handler(Ctx(self.state, authid, params, info.get("parameters") or {}))
        except PbsError as err:
            return plain(err.status, err.message)
        except SchemaError as err:
            return plain(400, str(err))
        if not isinstance(result, Result):
            result = Result(result)
        extra = dict(result.extra)
        ctype = extra.pop("_content_type", "application/json;charset=UTF-8")
        body = {"data": result.data}
        body.update(extra)
        return Response(200, "OK", json.dumps(body).encode(), _headers(ctype))

    def _parameters(self, req, query, pschema, uri_params):
        """get_request_parameters: form or JSON body + query + URI parameters."""
        ctype_header = req.headers.get("Content-Type")
        is_json = False
        if ctype_header is not None:
            ctype = ctype_header.split(";")[0]
            if ctype == "application/json":
                is_json = True
            elif ctype != "application/x-www-form-urlencoded":
                raise PbsError(400, f'unsupported content type Ok("{ctype_header}")')
        if req.headers.get("Transfer-Encoding") or req.body_length >= MAX_BODY:
            raise PbsError(400, "Request body too large")
        try:
            text = req.body.decode("utf-8")
        except UnicodeDecodeError as err:
            raise PbsError(400, f"Request body not uft8: {err}") from err
        if is_json:
            try:
                params = json.loads(text) if text else {}
            except ValueError as err:
                raise PbsError(400, str(err)) from err
            props = pschema.get("properties") or {}
            for key, value in uri_params.items():
                if key in props and isinstance(params, dict):
                    params[key] = pbs_schema.parse_simple_value(props[key], value)
            pbs_schema.verify_object(pschema, params)
            return params
        pairs = urllib.parse.parse_qsl(text, keep_blank_values=True)
        pairs += [(k, v) for k, v in urllib.parse.parse_qsl(query, keep_blank_values=True)
                  if k != "_dc"]
        pairs += list(uri_params.items())
        return pbs_schema.parse_parameter_strings(pschema, pairs, True)


# The issue 12 endpoints register their routes on import (they import ``route`` from here).
from . import pbs_access, pbs_jobs, pbs_notify  # noqa: E402,F401  pylint: disable=unused-import
