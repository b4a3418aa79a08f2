"""A small file server on 127.0.0.1 for the tests that make the simulator download something (download-url,
query-url-metadata): the URL a playbook declares points here, and nothing leaves the machine.

    with FileServer() as files:                       # plain HTTP; FileServer(tls=sim.tls) serves HTTPS with
        url = files.add("/img/debian.qcow2", data)    # the simulator's leaf (the nodes trust its CA),
        ...                                           # FileServer(tls=True) with a CA of its own (they do not)
        files.requests                                # [("GET", "/img/debian.qcow2"), ...]: proves a re-run
                                                      # downloads nothing
        files.fail("/img/debian.qcow2", 404)          # the next requests of that path answer 404
        files.hang("/img/debian.qcow2")               # ... or never answer (until release() or the end)

``add(path, data, headers=None)`` serves ``data`` with a Content-Length and ``application/octet-stream`` (or
the given headers, e.g. a ``Content-Disposition``) and returns its URL; GET and HEAD are answered, any other
path is a 404. ``url(path)`` is the URL of a path.
"""

import shutil
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from . import tls as tls_mod


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "simfiles/1.0"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self._answer(send_body=True)

    def do_HEAD(self):
        self._answer(send_body=False)

    def _answer(self, send_body):
        files = self.server.files
        path = urllib.parse.urlsplit(self.path).path
        files.log(self.command, path)
        failure, hung = files.fault(path)
        if hung is not None:
            hung.wait(files.hang_limit)
            self.close_connection = True
            return
        entry = files.entry(path)
        if failure is not None or entry is None:
            status = failure or 404
            body = f"{status} {self.responses.get(status, ('Error',))[0]}\n".encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if send_body:
                self.wfile.write(body)
            return
        data, headers = entry
        self.send_response(200)
        names = {name.lower() for name in headers}
        if "content-type" not in names:
            self.send_header("Content-Type", "application/octet-stream")
        for name, value in headers.items():
            self.send_header(name, value)
        if "content-length" not in names:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if send_body:
            self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True

    def __init__(self, files, context):
        self.files = files
        self.context = context
        super().__init__(("127.0.0.1", 0), _Handler)

    def get_request(self):
        conn, address = super().get_request()
        if self.context is not None:
            conn = self.context.wrap_socket(conn, server_side=True, do_handshake_on_connect=False)
        return conn, address

    def handle_error(self, request, client_address):
        pass  # a client that gave up (a refused certificate, a timeout) is not the server's problem


class FileServer:
    """Files on ``http://127.0.0.1:<port>`` (``tls``: ``https://``), see the module docstring."""

    def __init__(self, tls=None, hang_limit=60.0):
        self.tls = tls
        self.hang_limit = hang_limit
        self.requests = []
        self._files = {}
        self._failures = {}
        self._hangs = {}
        self._lock = threading.Lock()
        self._server = None
        self._thread = None
        self._own_tls = None

    # -- lifecycle -----------------------------------------------------------------------------------
    def start(self):
        context = None
        if self.tls is True:  # a CA of its own: the simulated nodes do not trust it
            self._own_tls = tls_mod.generate()
            context = self._own_tls.server_context()
        elif self.tls is not None:
            context = self.tls.server_context()
        self._server = _Server(self, context)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="sim-fileserver", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self.release()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(5)
            self._server = None
        if self._own_tls is not None:
            shutil.rmtree(self._own_tls.directory, ignore_errors=True)
            self._own_tls = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- content and faults --------------------------------------------------------------------------
    @property
    def port(self):
        return self._server.server_address[1]

    def url(self, path):
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self.port}{path}"

    def add(self, path, data, headers=None):
        with self._lock:
            self._files[path] = (bytes(data), dict(headers or {}))
        return self.url(path)

    def remove(self, path):
        with self._lock:
            self._files.pop(path, None)

    def fail(self, path, status):
        """Answer ``status`` for ``path`` from now on (``None``: serve it again)."""
        with self._lock:
            if status is None:
                self._failures.pop(path, None)
            else:
                self._failures[path] = int(status)

    def hang(self, path):
        """Requests of ``path`` get no answer until ``release()`` (or the server stops)."""
        with self._lock:
            self._hangs[path] = threading.Event()

    def release(self):
        with self._lock:
            hangs, self._hangs = self._hangs, {}
        for event in hangs.values():
            event.set()

    # -- the handler's side --------------------------------------------------------------------------
    def log(self, method, path):
        with self._lock:
            self.requests.append((method, path))

    def fault(self, path):
        with self._lock:
            return self._failures.get(path), self._hangs.get(path)

    def entry(self, path):
        with self._lock:
            return self._files.get(path)
