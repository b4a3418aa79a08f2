"""``Simulator``: the servers one test runs against, with faults, the request log and the control endpoint.

A simulator is a PVE cluster (``Member``s of one ``pve.api.PveApi`` over one
``pve.state.ClusterState``; with ``fresh=True`` each member a standalone node with its own
until it joins a cluster: handlers/cluster_config.py), a Proxmox Backup Server (``pbs.api.PbsApi``, its own
``PbsState``) and the OpenBao-style credential engine (``bao.BaoEngine``,
``/v1/<mount>/creds/<role>``, minting into the cluster state and the PBS state), each
member on its own port (the plumbing is http.py), all with one CA and one request log.
"""

import http.client
import json
import os
import re
import secrets
import shutil
import threading
import time
import urllib.parse
import uuid

from . import tls as tls_mod
from .auth import Authenticator
from .bao import DEFAULT_MOUNT, BaoEngine
from .errors import ApiError
from .http import CONTROL_PATH, Member, Response, json_headers, reason
from .pbs.api import PbsApi
from .pbs.state import PBS_TOKEN_NAME, PBS_TOKEN_USER
from .pve.api import PveApi
from .pve.handlers import agent
from .pve.handlers.content_sources import seed_oci_image
from .pve.handlers.node_settings import DOMAIN as FRESH_DOMAIN
from .pve.state import ClusterState

TOKEN_USER = "root@pam"

TOKEN_NAME = "sim"
# A fresh node's address (TEST-NET-1, never contacted: the simulator resolves a join's hostname itself).
FRESH_IPS = "192.0.2.{}"


def is_dry_run(entry):
    """A realm sync with dry-run=1 (Domains.pm): a task that writes nothing."""
    return (entry["method"] == "POST" and re.match(r"^/access/domains/[^/]+/sync$", str(entry["path"]))
            and str((entry.get("form") or {}).get("dry-run")) in ("1", "true", "yes", "on"))


class _Match:
    """Which requests a forced answer or a hook applies to, and how many more times."""

    def __init__(self, method, path_regex, times, server="pve", params=None):
        self.method = (method or "*").upper()
        self.regex = re.compile(path_regex)
        self.remaining = times
        self.server = server  # "pve" (the cluster's members) or "pbs" (the backup server)
        # Parameters the request must carry too (an item named by a query: GET /pools?poolid=lab).
        self.params = dict(params or {})

    def take(self, method, path, server="pve", params=None):
        """True for a matching request while uses remain (consumes one)."""
        if server != self.server or (self.remaining is not None and self.remaining <= 0):
            return False
        if self.method not in ("*", method) or self.regex.search(path) is None:
            return False
        if any(str((params or {}).get(key)) != str(value) for key, value in self.params.items()):
            return False
        if self.remaining is not None:
            self.remaining -= 1
        return True


class _Fault(_Match):
    def __init__(self, method, path_regex, status, message, errors, times, server="pve", params=None):
        super().__init__(method, path_regex, times, server, params)
        self.status = int(status)
        self.message = message if message.endswith("\n") else message + "\n"
        self.errors = errors


class _Hook(_Match):
    def __init__(self, method, path_regex, action, times, server="pve", params=None):
        super().__init__(method, path_regex, times, server, params)
        self.action = action


class Simulator:
    """A PVE 9 cluster on loopback: N members sharing one state.

    ``Simulator(members=3, log_path=None)`` starts nothing; ``start()``/``stop()``
    or ``with Simulator() as sim:``. See docs/simulator.md for the whole API.
    """

    def __init__(self, members=3, log_path=None, unauthorized_delay=0.0, hang_limit=600.0,
                 bao_mount=DEFAULT_MOUNT, pbs_members=1, fresh=False, node_names=None, minimal=False):
        if members < 1 or pbs_members < 1:
            raise ValueError("members and pbs_members must be >= 1")
        if node_names is not None and len(node_names) < members:
            raise ValueError("node_names: one name per member at least")
        self.member_count = members
        # fresh: every member a standalone node as the installer leaves it, each answering for itself only
        self.fresh = fresh
        # the nodes' names: given, exactly those (pve1, ... for a playbook written for a real cluster; the
        # rehearsal twin's export's); else node1..nodeN, at least three in a cluster
        self.node_names = tuple(node_names) if node_names else None
        # minimal: a state holding only what every PVE holds, not the demo objects (the rehearsal twin's base)
        self.minimal = minimal
        # addresses of the one backup server (a host reachable on two networks, say): one state, one log
        self.pbs_member_count = pbs_members
        self.log_path = log_path
        self.unauthorized_delay = unauthorized_delay
        self.hang_limit = hang_limit
        self.token_id = f"{TOKEN_USER}!{TOKEN_NAME}"
        self.token_secret = None
        self.root_password = None
        self.tls = None
        self.tls_context = None
        self.state = None
        self.authenticator = None
        self.api = None
        self._members = []
        self._log = []
        self._log_lock = threading.Lock()
        self._log_file = None
        self._faults = []
        self._hooks = []
        self._fault_lock = threading.Lock()
        self._started = False
        self._client_ctx = None
        # the credential engine and the PBS server (own ports, same CA)
        self.bao_mount = bao_mount
        self.bao_token = None
        self.bao = None
        self.pbs = None
        self.pbs_token_id = f"{PBS_TOKEN_USER}!{PBS_TOKEN_NAME}"
        self.pbs_token_secret = None
        self._bao_member = None
        self._pbs_members = []

    # -- lifecycle --------------------------------------------------------------
    def start(self):
        if self._started:
            return self
        self.tls = tls_mod.generate()
        self.tls_context = self.tls.server_context()
        self.token_secret = str(uuid.uuid4())
        self.root_password = secrets.token_urlsafe(12)
        count = self.member_count if self.fresh else max(3, self.member_count)
        nodes = list(self.node_names or [f"node{i + 1}" for i in range(count)])
        if self.fresh:
            apis = [self._standalone_api(node, FRESH_IPS.format(11 + i))
                    for i, node in enumerate(nodes[:self.member_count])]
            self.api = apis[0]
            self.state, self.authenticator = self.api.state, self.api.authenticator
        else:
            self.state = self._seeded(ClusterState(nodes, minimal=self.minimal))
            self.authenticator = Authenticator(self.state)
            self.api = PveApi(self)
            apis = [self.api] * self.member_count
        if self.log_path is None:
            self.log_path = os.path.join(self.tls.directory, "requests.log")
            self._own_log = True
        else:
            self._own_log = False
        self._log_file = open(self.log_path, "a", encoding="utf-8")
        self._members = [Member(self, i, nodes[i], apis[i]) for i in range(self.member_count)]
        for i, api in enumerate(self._guest_apis()):  # the QEMU agents' guest directories (handlers/agent.py)
            api.state.agent["root"] = os.path.join(self.tls.directory, "guests-%d" % i)
        self.bao_token = "s." + secrets.token_urlsafe(18)
        self.bao = BaoEngine(self, self.bao_mount)
        self._bao_member = Member(self, 0, "bao", self.bao)
        self.pbs = PbsApi(self)
        self.pbs_token_secret = self.pbs.state.add_token(PBS_TOKEN_USER, PBS_TOKEN_NAME)
        self.pbs.state.passwords[PBS_TOKEN_USER] = self.root_password  # root@pam logs in on PBS too
        self._pbs_members = [Member(self, i, self.pbs.state.node, self.pbs) for i in range(self.pbs_member_count)]
        try:
            for member in self._members + [self._bao_member] + self._pbs_members:
                member.listen()
        except Exception:
            self.stop()
            raise
        self._started = True
        return self

    def _seeded(self, state):
        """The contract's credentials on a state: the token (privilege-separation off) and root@pam's password."""
        state.add_token(TOKEN_USER, TOKEN_NAME, privsep=0, secret=self.token_secret)
        state.passwords[TOKEN_USER] = self.root_password
        return state

    def _standalone_api(self, node, ip):
        """One freshly installed node: its own state (no corosync.conf), its own ticket keys."""
        state = self._seeded(ClusterState([node], cluster_name=None, node_ips=[ip]))
        return PveApi(self, state, Authenticator(state))

    def member_state(self, i=0):
        """The state member ``i`` answers from (``fresh``: its own until it joins a cluster)."""
        return self._members[i].app.state

    def member_of_host(self, host):
        """The member a join's ``hostname`` reaches (its node's name, FQDN or address), or None."""
        for member in self._members:
            info = member.app.state.nodes.get(member.node) or {}
            if host in (member.node, f"{member.node}.{FRESH_DOMAIN}", info.get("ip")):
                return member
        return None

    def _guest_apis(self):
        """Each PVE state once (fresh members have one each, a cluster's share one)."""
        apis = []
        for member in self._members:
            if all(member.app is not other for other in apis):
                apis.append(member.app)
        return apis

    def stop(self):
        for api in self._guest_apis():
            agent.stop_all(api.state)  # no guest command outlives the simulator
        extra = [self._bao_member] if self._bao_member is not None else []
        for member in self._members + extra + self._pbs_members:
            if member.hanging:
                member.hanging = False
                member.hang_release.set()
            member.close()
        self._members = []
        self._bao_member = None
        self._pbs_members = []
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        if self.tls is not None:
            if getattr(self, "_own_log", False):
                self.log_path = None
            shutil.rmtree(self.tls.directory, ignore_errors=True)
            self.tls = None
            self._client_ctx = None
        self._started = False

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- public attributes ------------------------------------------------------
    @property
    def members(self):
        return [m.address for m in self._members]

    @property
    def ca_path(self):
        return self.tls.ca_path if self.tls else None

    def url(self, member=0):
        return f"https://{self._members[member].address}"

    def module_options(self):
        """The collection's connection options for this simulator (module_defaults of its group)."""
        return {"api_host": self.members, "api_token_id": self.token_id,
                "api_token_secret": self.token_secret, "ca_path": self.ca_path}

    @property
    def bao_pbs_mount(self):
        """The engine's mount that mints Proxmox Backup Server tokens."""
        return self.bao.pbs_mount

    @property
    def bao_addr(self):
        return f"https://{self._bao_member.address}" if self._bao_member else None

    @property
    def pbs_members(self):
        return [m.address for m in self._pbs_members]

    def pbs_url(self, member=0):
        return f"https://{self._pbs_members[member].address}"

    @property
    def pbs_state(self):
        return self.pbs.state if self.pbs else None

    # -- request log ----------------------------------------------------------
    def record(self, entry):
        with self._log_lock:
            self._log.append(entry)
            if self._log_file is not None:
                self._log_file.write(json.dumps(entry) + "\n")
                self._log_file.flush()

    @property
    def log(self):
        with self._log_lock:
            return json.loads(json.dumps(self._log))

    def clear_log(self, file=False):
        """Forget the requests so far; ``file``: the log file's lines too (the twin's seeding is not the user's)."""
        with self._log_lock:
            self._log = []
            if file and self._log_file is not None:
                self._log_file.seek(0)
                self._log_file.truncate()

    def writes(self):
        return [e for e in self.log if e["method"] in ("POST", "PUT", "DELETE")
                and not (e["method"] == "POST" and e["path"] == "/access/ticket")
                and not is_dry_run(e)]

    # -- faults -------------------------------------------------------------------
    def _server_members(self, server):
        return self._pbs_members if server == "pbs" else self._members

    def refuse(self, i, server="pve"):
        self._server_members(server)[i].refuse()

    def hang(self, i, server="pve"):
        self._server_members(server)[i].hang()

    def restore(self, i, server="pve"):
        self._server_members(server)[i].restore()

    def force(self, method, path_regex, status, message, errors=None, times=None, server="pve", params=None):
        """Answer matching requests with ``status`` and ``message``; ``server="pbs"`` for the backup server's;
        ``params``: only requests that carry these parameters (query or form) too."""
        with self._fault_lock:
            self._faults.append(_Fault(method, path_regex, status, message, errors, times, server, params))

    def before(self, method, path_regex, action, times=None, server="pve", params=None):
        """Run ``action(params)`` before matching requests are routed (after authentication and logging).

        The action may change the shared state (another writer got there between a client's read and
        its write) or ``params`` in place (PVE accepted a key and ignored it). Python only.
        """
        with self._fault_lock:
            self._hooks.append(_Hook(method, path_regex, action, times, server, params))

    def run_hooks(self, method, path, params, server="pve"):
        with self._fault_lock:
            actions = [hook.action for hook in self._hooks if hook.take(method, path, server, params)]
        for action in actions:
            action(params)

    def clear_faults(self):
        with self._fault_lock:
            self._faults = []
            self._hooks = []
        for member in self._members + self._pbs_members:
            member.restore()
        if self.bao is not None:
            self.bao.set_fault(None)

    def take_fault(self, method, path, server="pve", params=None):
        """The ApiError a forced fault answers with, or None (consumes one use)."""
        with self._fault_lock:
            for fault in self._faults:
                if fault.take(method, path, server, params):
                    return ApiError(fault.status, fault.message, errors=fault.errors)
        return None

    # -- the outside world the nodes reach --------------------------------------------
    def seed_oci_image(self, reference, data):
        """Let ``oci-registry-pull`` find ``reference`` (``alpine:3.22``, ``ghcr.io/org/image:tag``): ``data`` is
        the OCI archive a pull writes (the registry stand-in, pve/handlers/content_sources.py)."""
        states = {id(member.app.state): member.app.state for member in self._members}
        for state in states.values():
            seed_oci_image(state, reference, data)

    # -- tasks ----------------------------------------------------------------------
    def start_task(self, node, type, id, user, exitstatus="OK", duration=0.0, log=None):
        return self.state.start_task(node, type, id, user, exitstatus=exitstatus,
                                     duration=duration, log=log)

    # -- the credential engine ---------------------------------------------------
    def configure_bao_role(self, name, roleid="PVEAuditor", path="/", ttl=3600):
        """Add or change an engine role (``read`` and ``provision`` exist by default)."""
        return self.bao.configure_role(name, roleid=roleid, path=path, ttl=ttl)

    def add_bao_token(self, token):
        """Let the engine accept another Vault token besides ``bao_token``."""
        with self.bao._lock:  # pylint: disable=protected-access
            self.bao.tokens.add(token)

    def bao_fault(self, mode):
        """None (normal), 'sealed' (503 Vault is sealed) or 'deny' (403 permission denied)."""
        self.bao.set_fault(mode)

    def minted(self, role=None, server="pve"):
        """Full token ids minted by the engine that still exist in the cluster (``server="pbs"``: by its PBS
        mount, still on the backup server)."""
        return self.bao.pbs_minted(role) if server == "pbs" else self.bao.minted(role)

    @property
    def bao_log(self):
        with self.bao._lock:  # pylint: disable=protected-access
            return [dict(e) for e in self.bao.log]

    def clear_bao_log(self):
        with self.bao._lock:  # pylint: disable=protected-access
            self.bao.log = []

    def revoke_token(self, tokenid, server="pve"):
        """Delete a PVE API token (and its ACL rows); True if it existed. ``server="pbs"``: a PBS token."""
        if server == "pbs":
            return self.pbs.state.remove_token(tokenid)
        userid, sep, name = tokenid.partition("!")
        with self.state.lock:
            if not sep or name not in self.state.users.get(userid, {}).get("tokens", {}):
                return False
            self.state.remove_token(userid, name)
            return True

    def expire_token(self, tokenid):
        """Set a PVE API token's ``expire`` in the past; True if it exists."""
        userid, sep, name = tokenid.partition("!")
        with self.state.lock:
            info = self.state.users.get(userid, {}).get("tokens", {}).get(name) if sep else None
            if info is None:
                return False
            info["expire"] = int(time.time()) - 1
            return True

    # -- PBS --------------------------------------------------------------------------
    def pbs_start_task(self, type, id, user=None, exitstatus="OK", duration=0.0, log=None):
        """Record a PBS worker task, return its UPID (``user`` defaults to the PBS token)."""
        return self.pbs.state.start_task(type, id, user or self.pbs_token_id,
                                         exitstatus=exitstatus, duration=duration, log=log)

    def pbs_request(self, method, path, form=None, token=None, member=0, timeout=10.0):
        """Real HTTPS to the PBS server with ``PBSAPIToken=id:secret``."""
        token_id, secret = token or (self.pbs_token_id, self.pbs_token_secret)
        auth = f"PBSAPIToken={token_id}:{secret}"
        return self._http(self._pbs_members[member].address, method, path, form, auth, timeout)

    # -- client side ----------------------------------------------------------
    def request(self, method, path, form=None, token=None, member=0, timeout=10.0, as_root=False):
        """Real HTTPS to a member; returns (status, parsed JSON or text). ``as_root``: with a root@pam ticket
        from that member instead of the token (what PVE lets only root@pam do: create or join a cluster)."""
        address = self._members[member].address
        if as_root:
            status, login = self._http(address, "POST", "/access/ticket",
                                       {"username": TOKEN_USER, "password": self.root_password}, None, timeout)
            if status != 200:
                return status, login
            headers = {"Cookie": f"PVEAuthCookie={login['data']['ticket']}",
                       "CSRFPreventionToken": login["data"]["CSRFPreventionToken"]}
            return self._http(address, method, path, form, None, timeout, headers)
        token_id, secret = token or (self.token_id, self.token_secret)
        auth = f"PVEAPIToken={token_id}={secret}"
        return self._http(address, method, path, form, auth, timeout)

    def pbs_login(self, username, password, member=0, timeout=10.0):
        """POST /access/ticket on the PBS server; returns (status, parsed JSON or text)."""
        return self._http(self._pbs_members[member].address, "POST", "/access/ticket",
                          {"username": username, "password": password}, None, timeout)[:2]

    def login(self, username, password, member=0, timeout=10.0):
        """POST /access/ticket as a client logs in; returns (status, parsed JSON or text)."""
        return self._http(self._members[member].address, "POST", "/access/ticket",
                          {"username": username, "password": password}, None, timeout)

    def _http(self, address, method, path, form, auth, timeout, headers=None):
        method = method.upper()
        path = path if path.startswith("/api2/") else "/api2/json" + path
        body = None
        headers = dict(headers or {})
        if auth:
            headers["Authorization"] = auth
        encoded = urllib.parse.urlencode(form or {}, doseq=True)
        if method in ("GET", "DELETE"):
            if encoded:
                path += "?" + encoded
        else:
            body = encoded
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        host, port = address.split(":")
        if self._client_ctx is None:
            self._client_ctx = self.tls.client_context()
        conn = http.client.HTTPSConnection(host, int(port), timeout=timeout,
                                           context=self._client_ctx)
        try:
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            raw = resp.read().decode("utf-8", "replace")
        finally:
            conn.close()
        try:
            return resp.status, json.loads(raw)
        except ValueError:
            return resp.status, raw

    # -- control endpoint (POST /_sim/fault) ----------------------------------
    def control(self, req):
        """Fault injection for people running serve.py by hand. Not logged."""
        auth = req.headers.get("Authorization") or ""
        expected = f"PVEAPIToken={self.token_id}={self.token_secret}"
        if auth.strip() != expected:
            return Response(401, "Authentication failed!", b"", json_headers())
        if req.method != "POST":
            return _control_answer(501, None, f"Method '{req.method} {CONTROL_PATH}' not implemented")
        try:
            spec = json.loads(req.body.decode("utf-8") or "{}")
            op = spec.get("op")
            if op == "force":
                self.force(spec.get("method", "*"), spec["path_regex"], spec["status"],
                           spec["message"], spec.get("errors"), spec.get("times"), params=spec.get("params"))
            elif op == "refuse":
                # keep the connection this answer goes out on
                self._members[int(spec["member"])].refuse(keep=req.connection)
            elif op in ("hang", "restore"):
                getattr(self, op)(int(spec["member"]))
            elif op == "clear":
                self.clear_faults()
            elif op == "start_task":
                upid = self.start_task(spec["node"], spec["type"], spec.get("id", ""),
                                       spec.get("user", self.token_id),
                                       spec.get("exitstatus", "OK"),
                                       float(spec.get("duration", 0)), spec.get("log"))
                return _control_answer(200, upid)
            elif op == "bao_fault":
                self.bao_fault(spec.get("mode"))
            elif op == "bao_role":
                self.configure_bao_role(spec["name"], spec.get("roleid", "PVEAuditor"),
                                        spec.get("path", "/"), int(spec.get("ttl", 3600)))
            elif op == "add_bao_token":
                self.add_bao_token(spec["token"])
            elif op in ("revoke_token", "expire_token"):
                return _control_answer(200, 1 if getattr(self, op)(spec["tokenid"]) else 0)
            elif op == "pbs_start_task":
                upid = self.pbs_start_task(spec["type"], spec.get("id", ""), spec.get("user"),
                                           spec.get("exitstatus", "OK"),
                                           float(spec.get("duration", 0)), spec.get("log"))
                return _control_answer(200, upid)
            else:
                return _control_answer(400, None, f"unknown op {op!r}")
        except (KeyError, TypeError, ValueError, re.error, IndexError) as err:
            return _control_answer(400, None, f"bad fault request: {err!r}")
        return _control_answer(200, None)


def _control_answer(status, data, message=None):
    body = {"data": data}
    if message:
        body["message"] = message + "\n"
    return Response(status, reason(message or "OK", status), json.dumps(body).encode(),
                    json_headers() + [("Connection", "close")])
