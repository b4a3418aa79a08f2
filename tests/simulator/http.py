"""The HTTP/TLS plumbing every simulated server shares: members, requests, answers.

Every member is a ``ThreadingHTTPServer`` on its own 127.0.0.1 port (TLS is
negotiated in the connection's worker thread, so a silent client cannot block
the acceptor). A member hands each request (``Request``) to its *app* and sends
the ``Response`` back: ``pve.api.PveApi`` for the cluster members, ``pbs.api.PbsApi``
for the PBS server and ``bao.BaoEngine`` for the credential engine. An app has
``handle(req) -> Response``, ``describe(req, authenticate)``, ``log_hung(req)`` and
optionally ``server_header`` (None: no ``Server`` header) and ``close_on_error``
(False: keep-alive after errors). ``POST /_sim/fault`` on a cluster member goes to
``Simulator.control`` instead (server.py).
"""

import socket
import ssl
import threading
import urllib.parse
from dataclasses import dataclass, field
from email.utils import formatdate
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 512 * 1024  # the most a member reads of a body (pveproxy's limit; PbsApi checks its own)
CONTROL_PATH = "/_sim/fault"


@dataclass
class Request:
    method: str
    target: str
    headers: object      # email.message.Message-like (case-insensitive .get)
    body: bytes
    member: object
    body_length: int = 0
    connection: object = None  # the TLS socket (lets a refusal spare its own answer)


@dataclass
class Response:
    status: int
    reason: str
    body: bytes = b""
    headers: list = field(default_factory=list)
    # a streamed file (pve-http-server AnyEvent.pm send_file_start with `stream`): no Content-Length, the body
    # ends where the server shuts the connection down (response_stream's push_shutdown)
    stream: bool = False


def reason(message, status):
    """The reason phrase of an answer: the message's first line, else the status's own phrase."""
    text = (message or "").split("\n", 1)[0].strip()
    if not text:
        try:
            text = HTTPStatus(status).phrase
        except ValueError:
            text = "Error"
    return text


def json_headers():
    """The headers of every PVE JSON answer (pveproxy: no caching)."""
    return [("Content-Type", "application/json;charset=UTF-8"),
            ("Cache-Control", "max-age=0"), ("Pragma", "no-cache"),
            ("Expires", formatdate(usegmt=True))]


def _single(values):
    return values[0] if len(values) == 1 else list(values)


def parse_query(query):
    parsed = urllib.parse.parse_qs(query, keep_blank_values=True)
    return {k: _single(v) for k, v in parsed.items()}


def split_target(target):
    raw_path, _sep, query = target.partition("?")
    return urllib.parse.unquote(raw_path), query


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
        if resp.stream:
            self.close_connection = True
        else:
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
    """One member of a simulated server: a port, a node name, its app and its fault flags."""

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
