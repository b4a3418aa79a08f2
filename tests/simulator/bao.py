"""OpenBao/Vault dynamic-secrets mounts that mint PVE and PBS API tokens.

No Proxmox secrets plugin can run in the tests, so the simulator serves the
engine itself, on its own TLS port (same CA as the members), in Vault's HTTP
API shape:

* ``GET /v1/<mount>/creds/<role>`` with ``X-Vault-Token`` (or
  ``Authorization: Bearer``) mints a real API token into the shared cluster
  state: user ``hf-<role>@pve`` (created on first use), token
  ``<role>-<unixtime>-<counter>``, ``privsep=1``, ``expire`` = now + ttl, and
  the role's ACL row on the token *and* on the user (privsep intersection).
  The answer is a Vault dynamic secret: ``request_id``, ``lease_id``,
  ``renewable: false``, ``lease_duration``, ``data: {token_id, secret}``,
  ``wrap_info``/``warnings``/``auth`` null.
* Checks in Vault's order: sealed -> 503 ``Vault is sealed``; token missing,
  unknown or denied -> 403 ``permission denied``; unknown mount -> 404 ``no
  handler for route "<path>". route entry not found.``; another path on the
  mount -> 404 with no errors; a write to ``creds/<role>`` -> 405
  ``unsupported operation``; unknown role -> 400 ``unknown role: <name>``
  (what Vault's database and PKI engines answer for a missing role).
* A second mount (``PBS_MOUNT``) mints Proxmox Backup Server tokens the same way into the PBS server's
  state: user ``hf-<role>@pbs`` (created on first use), token ``<role>-<unixtime>-<counter>`` with its
  ``expire``, and the role's ACL entry on the token *and* on the user (PBS tokens are always
  privilege-separated). Its roles: ``read`` = ``Audit`` on ``/`` and ``RemoteAudit`` on ``/remote`` (PBS's
  Audit role cannot read remotes), ``provision`` = ``Admin`` on ``/``.
* ``GET /v1/sys/health`` (no token) and ``GET /v1/auth/token/lookup-self``
  answer minimally, so clients that probe before reading work.

Requests go to ``sim.bao_log`` (method, path, status, namespace), never to
the PVE request log.
"""

import json
import secrets
import string
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass

from .auth import check_path, normalize_path
from .formats import TOKENID_RE, USERID_RE
from .http import Response, split_target

DEFAULT_MOUNT = "proxmox-sim"
PBS_MOUNT = "proxmox-backup-sim"
_LEASE_CHARS = string.ascii_letters + string.digits


@dataclass
class BaoRole:
    name: str
    roleid: str = "PVEAuditor"
    path: str = "/"
    ttl: int = 3600
    # further (path, role) grants beside (path, roleid)
    extra: tuple = ()

    @property
    def userid(self):
        return f"hf-{self.name}@pve"


def _vault_headers():
    return [("Content-Type", "application/json"), ("Cache-Control", "no-store")]


def _answer(status, body):
    reason = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found",
              405: "Method Not Allowed", 500: "Internal Server Error",
              503: "Service Unavailable"}.get(status, "Error")
    return Response(status, reason, json.dumps(body).encode(), _vault_headers())


def _errors(status, *messages):
    return _answer(status, {"errors": list(messages)})


class BaoEngine:
    """The credential engine app (plugs into ``http.Member`` like ``PveApi``)."""

    server_header = None     # Go's net/http sends no Server header
    close_on_error = False   # and keeps the connection open after an error

    def __init__(self, sim, mount=DEFAULT_MOUNT):
        self.sim = sim
        self.mount = mount
        self.roles = {}
        self.tokens = set()
        self.fault = None
        self.counter = 0
        self.minted_ids = []      # [(full token id, role name)] in mint order
        self.pbs_minted_ids = []  # the same for the PBS mount
        self.log = []
        self._lock = threading.Lock()
        self.configure_role("read", roleid="PVEAuditor", path="/", ttl=3600)
        self.configure_role("provision", roleid="Administrator", path="/", ttl=300)
        self.pbs_mount = PBS_MOUNT
        # PBS's Audit role holds no Remote.Audit: a reader of remotes and sync jobs needs RemoteAudit too
        self.pbs_roles = {"read": BaoRole("read", "Audit", "/", 3600, extra=(("/remote", "RemoteAudit"),)),
                          "provision": BaoRole("provision", "Admin", "/", 300)}

    # -- configuration ------------------------------------------------------
    def configure_role(self, name, roleid="PVEAuditor", path="/", ttl=3600):
        acl_path = normalize_path(path)
        if acl_path is None or not check_path(acl_path):
            raise ValueError(f"invalid ACL path {path!r}")
        if int(ttl) <= 0:
            raise ValueError("ttl must be > 0")
        role = BaoRole(name, roleid, acl_path, int(ttl))
        if not USERID_RE.match(role.userid) or not TOKENID_RE.match(f"{role.userid}!{name}-1-1"):
            raise ValueError(f"invalid role name {name!r}")
        with self._lock:
            self.roles[name] = role
        return role

    def set_fault(self, mode):
        if mode not in (None, "sealed", "deny"):
            raise ValueError("bao fault must be None, 'sealed' or 'deny'")
        self.fault = mode

    def minted(self, role=None):
        state = self.sim.state
        with self._lock:
            ids = list(self.minted_ids)
        out = []
        with state.lock:
            for full, name in ids:
                if role is not None and name != role:
                    continue
                userid, token = full.split("!", 1)
                if token in state.users.get(userid, {}).get("tokens", {}):
                    out.append(full)
        return out

    def pbs_minted(self, role=None):
        """minted() for the PBS mount: the tokens still on the backup server."""
        state = self.sim.pbs.state
        with self._lock:
            ids = list(self.pbs_minted_ids)
        with state.lock:
            return [full for full, name in ids if (role is None or name == role) and full in state.tokens]

    # -- the app interface ----------------------------------------------------
    def describe(self, req, authenticate=False):
        path = split_target(req.target)[0]
        return {"method": req.method, "path": path,
                "status": None, "namespace": req.headers.get("X-Vault-Namespace")}

    def log_hung(self, req):
        self._record(self.describe(req))

    def _record(self, entry):
        with self._lock:
            self.log.append(entry)

    def handle(self, req):
        entry = self.describe(req)
        resp = self._handle(req, entry["path"])
        entry["status"] = resp.status
        self._record(entry)
        return resp

    def _handle(self, req, path):
        rel = path[len("/v1/"):].strip("/") if path.startswith("/v1/") else None
        if rel == "sys/health" and req.method in ("GET", "HEAD"):
            return self._health()
        if self.fault == "sealed":
            return _errors(503, "Vault is sealed")
        if rel is None:
            return _errors(404)
        token = (req.headers.get("X-Vault-Token") or "").strip()
        if not token:
            auth = req.headers.get("Authorization") or ""
            if auth.startswith("Bearer "):
                token = auth[len("Bearer "):].strip()
        if not token or token not in self._accepted() or self.fault == "deny":
            return _errors(403, "permission denied")
        if rel == "auth/token/lookup-self" and req.method == "GET":
            return self._lookup_self(token)
        mount, _sep, rest = rel.partition("/")
        if mount not in (self.mount, self.pbs_mount):
            return _errors(404, f'no handler for route "{rel}". route entry not found.')
        parts = rest.split("/")
        if len(parts) != 2 or parts[0] != "creds" or not parts[1]:
            return _errors(404)
        if req.method != "GET":
            return _errors(405, "unsupported operation")
        name = urllib.parse.unquote(parts[1])
        return self._mint_pbs(name) if mount == self.pbs_mount else self._mint(name)

    def _accepted(self):
        with self._lock:
            return {self.sim.bao_token, *self.tokens}

    def _health(self):
        sealed = self.fault == "sealed"
        body = {"initialized": True, "sealed": sealed, "standby": False,
                "performance_standby": False, "server_time_utc": int(time.time()),
                "version": "2.4.1", "cluster_name": "proxmox-sim"}
        return _answer(503 if sealed else 200, body)

    def _lookup_self(self, token):
        body = {"request_id": str(uuid.uuid4()), "lease_id": "", "renewable": False,
                "lease_duration": 0,
                "data": {"id": token, "policies": ["root"], "ttl": 0, "renewable": False,
                         "display_name": "token", "path": "auth/token/create"},
                "wrap_info": None, "warnings": None, "auth": None}
        return _answer(200, body)

    # -- minting -----------------------------------------------------------------
    def _mint(self, name):
        with self._lock:
            role = self.roles.get(name)
        if role is None:
            return _errors(400, f"unknown role: {name}")
        state = self.sim.state
        with state.lock:
            if role.roleid not in state.all_roles():
                return _errors(500, f"error minting token: role '{role.roleid}' does not exist")
            now = int(time.time())
            with self._lock:
                self.counter += 1
                counter = self.counter
            tokenid = f"{name}-{now}-{counter}"
            userid = role.userid
            if userid not in state.users:
                state.add_user(userid)
            secret = state.add_token(userid, tokenid, privsep=1, expire=now + role.ttl)
            full = f"{userid}!{tokenid}"
            state.set_acl(role.path, role.roleid, users=userid, tokens=full, propagate=1)
        with self._lock:
            self.minted_ids.append((full, name))
        return self._lease(self.mount, name, role, full, secret)

    def _mint_pbs(self, name):
        """A PBS token for ``name`` (the PBS server's user, token and ACL entries), as _mint does for PVE."""
        role = self.pbs_roles.get(name)
        if role is None:
            return _errors(400, f"unknown role: {name}")
        state = self.sim.pbs.state
        now = int(time.time())
        with self._lock:
            self.counter += 1
            tokenid = f"{name}-{now}-{self.counter}"
        userid = f"hf-{name}@pbs"
        with state.lock:
            if userid not in state.users:
                state.add_user(userid)
            secret = state.add_token(userid, tokenid, expire=now + role.ttl)
            full = f"{userid}!{tokenid}"
            for authid in (userid, full):
                for path, roleid in ((role.path, role.roleid),) + role.extra:
                    state.acl_insert(path, authid, roleid, propagate=True)
        with self._lock:
            self.pbs_minted_ids.append((full, name))
        return self._lease(self.pbs_mount, name, role, full, secret)

    @staticmethod
    def _lease(mount, name, role, full, secret):
        lease = "".join(_LEASE_CHARS[byte % len(_LEASE_CHARS)] for byte in secrets.token_bytes(24))
        body = {"request_id": str(uuid.uuid4()),
                "lease_id": f"{mount}/creds/{name}/{lease}",
                "renewable": False, "lease_duration": role.ttl,
                "data": {"token_id": full, "secret": secret},
                "wrap_info": None, "warnings": None, "auth": None}
        return _answer(200, body)
