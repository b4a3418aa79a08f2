"""HTTP/TLS plumbing: members, fault injection, the request log, ``Simulator``.

Every member is a ``ThreadingHTTPServer`` on its own 127.0.0.1 port (TLS is
negotiated in the connection's worker thread, so a silent client cannot block
the acceptor). All members share one ``ClusterState`` and hand each request to
an *app*: ``pve.PveApi`` for the cluster members, ``pbs.PbsApi`` for the PBS
server (its own state) and ``bao.BaoEngine`` for the OpenBao-style credential
engine (``/v1/<mount>/creds/<role>``, minting into the cluster state). An app
has ``handle(req) -> Response``, ``describe(req, authenticate)``,
``log_hung(req)`` and optionally ``server_header`` / ``close_on_error``.
"""

import http.client
import json
import os
import re
import secrets
import shutil
import socket
import ssl
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from . import tls as tls_mod
from .auth import Authenticator
from .bao import DEFAULT_MOUNT, BaoEngine
from .errors import ApiError
from .pbs import PBS_TOKEN_NAME, PBS_TOKEN_USER, PbsApi
from .pve import MAX_BODY, PveApi, Request, Response, _json_headers, _reason
from .state import ClusterState

TOKEN_USER = "root@pam"
TOKEN_NAME = "sim"
CONTROL_PATH = "/_sim/fault"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30  # idle keep-alive connections

    def version_string(self):
        return "pve-api-daemon/3.0"

    def send_response(self, code, message=None):
        self.send_response_only(code, message)
        server = getattr(self.server.member.app, "server_header", self.version_string())
        if server:
            self.send_header("Server", server)
        self.send_header("Date", self.date_time_string())

    def log_message(self, *args):  # the simulator keeps its own request log
        pass

    def handle_one_request(self):
        try:
            self.raw_requestline = self.rfile.readline(65537)
        except (OSError, ssl.SSLError):
            self.close_connection = True
            return
        if not self.raw_requestline:
            self.close_connection = True
            return
        if len(self.raw_requestline) > 65536:
            self.send_error(414)
            return
        if not self.parse_request():
            return
        try:
            self._dispatch()
            self.wfile.flush()
        except (OSError, ssl.SSLError):
            self.close_connection = True

    def _dispatch(self):
        member = self.server.member
        sim = member.sim
        length = int(self.headers.get("Content-Length") or 0)
        body = b""
        if length and not self.headers.get("Transfer-Encoding") and length <= MAX_BODY:
            body = self.rfile.read(length)
        elif length or self.headers.get("Transfer-Encoding"):
            self.close_connection = True  # body left unread
        req = Request(self.command, self.path, self.headers, body, member, length,
                      connection=self.connection)
        if self.path.split("?", 1)[0] == CONTROL_PATH and member.app is sim.api:
            self._send(sim.control(req))
            return
        if member.hanging:
            member.app.log_hung(req)  # it reached the member; status stays null
            member.hang_release.wait(sim.hang_limit)
            self.close_connection = True
            return
        self._send(member.app.handle(req))

    def _send(self, resp):
        reason = resp.reason.encode("latin-1", "replace").decode("latin-1")
        self.send_response(resp.status, reason)
        for key, value in resp.headers:
            self.send_header(key, value)
            if key.lower() == "connection" and value.lower() == "close":
                self.close_connection = True
        self.send_header("Content-Length", str(len(resp.body)))
        close_on_error = getattr(self.server.member.app, "close_on_error", True)
        if resp.status >= 400 and close_on_error and not self.close_connection:
            self.send_header("Connection", "close")
        if resp.status >= 400 and close_on_error:
            self.close_connection = True
        self.end_headers()
        self.wfile.write(resp.body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address, member):
        self.member = member
        super().__init__(address, _Handler)

    def finish_request(self, request, client_address):
        member = self.member
        try:
            request.settimeout(30)
            # The answer's headers and body go out in separate writes: without this each request waits for
            # the peer's delayed ACK (~40 ms).
            request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = member.sim.tls_context.wrap_socket(request, server_side=True)
        except (OSError, ssl.SSLError):
            return
        member.track(conn)
        try:
            self.RequestHandlerClass(conn, client_address, self)
        except Exception:  # a client vanishing mid-answer is not our problem
            pass
        finally:
            member.untrack(conn)
            try:
                conn.close()
            except OSError:
                pass

    def handle_error(self, request, client_address):
        pass


class Member:
    """One cluster member: a port, a node name, and its fault flags."""

    def __init__(self, sim, index, node, app):
        self.sim = sim
        self.index = index
        self.node = node
        self.app = app
        self.port = None
        self.server = None
        self.thread = None
        self.refused = False
        self.hanging = False
        self.hang_release = threading.Event()
        self._conns = set()
        self._lock = threading.Lock()

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    def listen(self):
        self.server = _Server(("127.0.0.1", self.port or 0), self)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05},
                                       name=f"pve-sim-{self.node}", daemon=True)
        self.thread.start()
        self.refused = False

    def close(self, keep=None):
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.thread.join(5)
            self.server = None
        with self._lock:
            conns = list(self._conns)
        for conn in conns:  # a refused member also drops its keep-alive connections
            if conn is keep:
                continue
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def track(self, conn):
        with self._lock:
            self._conns.add(conn)

    def untrack(self, conn):
        with self._lock:
            self._conns.discard(conn)

    def refuse(self, keep=None):
        if not self.refused:
            self.close(keep)
            self.refused = True

    def hang(self):
        self.hang_release = threading.Event()
        self.hanging = True

    def restore(self):
        if self.hanging:
            self.hanging = False
            self.hang_release.set()
        if self.refused:
            self.listen()


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
                 bao_mount=DEFAULT_MOUNT, pbs_members=1):
        if members < 1 or pbs_members < 1:
            raise ValueError("members and pbs_members must be >= 1")
        self.member_count = members
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
        nodes = [f"node{i + 1}" for i in range(max(3, self.member_count))]
        self.state = ClusterState(nodes)
        self.token_secret = str(uuid.uuid4())
        self.state.add_token(TOKEN_USER, TOKEN_NAME, privsep=0, secret=self.token_secret)
        self.root_password = secrets.token_urlsafe(12)
        self.state.passwords[TOKEN_USER] = self.root_password
        self.authenticator = Authenticator(self.state)
        self.api = PveApi(self)
        if self.log_path is None:
            self.log_path = os.path.join(self.tls.directory, "requests.log")
            self._own_log = True
        else:
            self._own_log = False
        self._log_file = open(self.log_path, "a", encoding="utf-8")
        self._members = [Member(self, i, nodes[i], self.api) for i in range(self.member_count)]
        self.bao_token = "s." + secrets.token_urlsafe(18)
        self.bao = BaoEngine(self, self.bao_mount)
        self._bao_member = Member(self, 0, "bao", self.bao)
        self.pbs = PbsApi(self)
        self.pbs_token_secret = self.pbs.state.add_token(PBS_TOKEN_USER, PBS_TOKEN_NAME)
        self._pbs_members = [Member(self, i, self.pbs.state.node, self.pbs) for i in range(self.pbs_member_count)]
        try:
            for member in self._members + [self._bao_member] + self._pbs_members:
                member.listen()
        except Exception:
            self.stop()
            raise
        self._started = True
        return self

    def stop(self):
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

    def clear_log(self):
        with self._log_lock:
            self._log = []

    def writes(self):
        return [e for e in self.log if e["method"] in ("POST", "PUT", "DELETE")
                and not (e["method"] == "POST" and e["path"] == "/access/ticket")]

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
    def request(self, method, path, form=None, token=None, member=0, timeout=10.0):
        """Real HTTPS to a member; returns (status, parsed JSON or text)."""
        token_id, secret = token or (self.token_id, self.token_secret)
        auth = f"PVEAPIToken={token_id}={secret}"
        return self._http(self._members[member].address, method, path, form, auth, timeout)

    def _http(self, address, method, path, form, auth, timeout):
        method = method.upper()
        path = path if path.startswith("/api2/") else "/api2/json" + path
        body = None
        headers = {"Authorization": auth}
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
            return Response(401, "Authentication failed!", b"", _json_headers())
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
    return Response(status, _reason(message or "OK", status), json.dumps(body).encode(),
                    _json_headers() + [("Connection", "close")])
