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

A file upload (``POST .../storage/{storage}/upload``, pve-manager ``HTTPServer.pm``'s ``isUpload``) may be
larger than ``MAX_BODY``: its body is read up to ``MAX_UPLOAD`` (``Request.upload``), and
``parse_content_type`` / ``read_multipart`` port pve-http-server ``AnyEvent.pm``'s multipart reader for it.
"""

import re
import socket
import ssl
import threading
import urllib.parse
from dataclasses import dataclass, field
from email.utils import formatdate
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 512 * 1024  # the most a member reads of a body (pveproxy's limit; PbsApi checks its own)
# pveproxy streams an upload to a temporary file without a limit; the simulator keeps it in memory, up to this
MAX_UPLOAD = 256 * 1024 ** 2
CONTROL_PATH = "/_sim/fault"
# HTTPServer.pm auth_handler: the one path whose POST body is a file upload (matched on the API-relative path)
UPLOAD_PATH = re.compile(r"^/nodes/([^/]+)/storage/([^/]+)/upload$")
# AnyEvent.pm: where its dies without a newline say they are (Perl's " at FILE line N." suffix)
_ANYEVENT = "/usr/share/perl5/PVE/APIServer/AnyEvent.pm"


@dataclass
class Request:
    method: str
    target: str
    headers: object      # email.message.Message-like (case-insensitive .get)
    body: bytes
    member: object
    body_length: int = 0
    connection: object = None  # the TLS socket (lets a refusal spare its own answer)
    upload: bool = False  # a POST .../upload with a body (read up to MAX_UPLOAD): AnyEvent.pm's upload branch


@dataclass
class Response:
    status: int
    reason: str
    body: bytes = b""
    headers: list = field(default_factory=list)
    # a streamed file (pve-http-server AnyEvent.pm send_file_start with `stream`): no Content-Length, the body
    # ends where the server shuts the connection down (response_stream's push_shutdown)
    stream: bool = False
    # no answer at all, the connection is closed (a die pveproxy only warns about: its client never hears back)
    drop: bool = False


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


def is_upload(method, target):
    """HTTPServer.pm auth_handler's ``isUpload``: a POST to ``/nodes/{node}/storage/{storage}/upload``."""
    m = re.match(r"^/api2/[^/]+(/.*)$", split_target(target)[0])
    if method != "POST" or not m:
        return False
    rel = re.sub(r"/+", "/", m.group(1))
    return UPLOAD_PATH.match(rel.rstrip("/") if len(rel) > 1 else rel) is not None


def parse_content_type(ctype):
    """AnyEvent.pm parse_content_type: (type, boundary or None)."""
    parts = re.split(r"\s*[;,]\s*", ctype or "")
    for value in parts[1:]:
        m = re.match(r"^\s*boundary\s*=\s*(\S+?)\s*$", value)
        if m:
            return parts[0], m.group(1)
    return parts[0], None


class MultipartError(Exception):
    """What file_upload_multipart dies with (pveproxy answers it as a plain-text 500)."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


def _assert_form_disposition(value):
    if value != b"form-data":
        raise MultipartError(f"wrong Content-Disposition '{value.decode('utf-8', 'replace')}' in multipart, "
                             "expected 'form-data'\n")


def read_multipart(body, boundary):
    """AnyEvent.pm file_upload_multipart over the whole body at once: the fields ``content``,
    ``checksum-algorithm`` and ``checksum`` (in that order, as its phase 1 extracts them) before the file part,
    whose field must be ``filename`` (its ``filename=`` is the file's name), then the data up to the closing
    delimiter. Returns (fields, data); raises MultipartError with pveproxy's text."""
    newline = rb"\r?\n"
    delim = rb"--" + re.escape(boundary.encode()) + newline
    close_delim = rb"--" + re.escape(boundary.encode()) + rb"--"
    fields = {}
    buf = body
    m = re.match(rb"(?s)^.*?(" + delim + rb")", buf)  # phase 0: everything before the first delimiter goes
    if not m:
        raise MultipartError(f"upload failed at {_ANYEVENT} line 1370.\n")
    buf = buf[m.start(1):]

    def remove_until_data(data):
        return re.sub(rb"(?s)^.*?(?:\r?\n){2}", b"", data, count=1)

    for name in (b"content", b"checksum-algorithm", b"checksum"):  # phase 1
        m = re.match(rb"(?s)^" + delim + rb".*?Content-Disposition: (.*?); name=\"" + name + rb"\"(.*?" + delim
                     + rb")", buf)
        if m:
            _assert_form_disposition(m.group(1))
            buf = remove_until_data(m.group(2) + buf[m.end():])
            value = re.match(rb"(?s)^(.*?)(" + delim + rb")", buf)
            if value:
                buf = buf[value.start(2):]
                fields[name.decode()] = value.group(1).decode("utf-8", "replace").strip()
    m = re.match(rb"(?s)^" + delim + rb"Content-Disposition: (.*?); name=\"(.*?)\"; filename=\"([^\"]+)\"", buf)
    if not m:
        raise MultipartError(f"upload failed at {_ANYEVENT} line 1370.\n")
    _assert_form_disposition(m.group(1))
    if m.group(2) != b"filename":
        raise MultipartError(f"wrong field name '{m.group(2).decode('utf-8', 'replace')}' for file upload, "
                             f"expected 'filename' at {_ANYEVENT} line 1325.\n")
    fields["filename"] = m.group(3).decode("utf-8", "replace").strip()
    buf = remove_until_data(buf[m.end():])
    m = re.match(rb"(?s)^(.*?)(?:" + newline + rb")?+" + close_delim + rb".*$", buf)  # phase 2
    if not m:
        raise MultipartError(f"upload failed at {_ANYEVENT} line 1370.\n")
    return fields, m.group(1)


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
        upload = bool(length) and is_upload(self.command, self.path)
        body = b""
        if length and not self.headers.get("Transfer-Encoding") and length <= (MAX_UPLOAD if upload else MAX_BODY):
            body = self.rfile.read(length)
        elif length or self.headers.get("Transfer-Encoding"):
            self.close_connection = True  # body left unread
        req = Request(self.command, self.path, self.headers, body, member, length,
                      connection=self.connection, upload=upload and len(body) == length)
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
        if resp.drop:
            self.close_connection = True
            return
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
