# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""HTTP to PVE and PBS: members, failover, auth headers, envelope, typed errors.

The one HTTP client of the collection. Reads fail over on any transport failure;
writes only when the request provably never left (ARCHITECTURE §5).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import binascii
import contextlib
import copy
import os
import re
import ssl
import socket
import threading

try:
    from urllib.parse import quote
except ImportError:  # pragma: no cover - Python 2 is not supported, kept for sanity's compile test
    from urllib import quote

try:
    import requests
    import urllib3
    HAS_REQUESTS = True
    REQUESTS_IMPORT_ERROR = None
except ImportError as exc:  # pragma: no cover - reported by the entry point
    requests = None
    urllib3 = None
    HAS_REQUESTS = False
    REQUESTS_IMPORT_ERROR = exc

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    ApiError, AuthenticationFailed, DeclarationError, MaybeApplied, Unreachable)

WRITE_METHODS = ('POST', 'PUT', 'DELETE')
# A host written as an address (IPv4 or IPv6), whose first "label" names no node.
IP_LITERAL = re.compile(r'^[0-9.]+$|:')
# The form fields PVE's upload reads, in the order it reads them (pve-http-server AnyEvent.pm file_upload_multipart).
UPLOAD_FIELDS = ('content', 'checksum-algorithm', 'checksum')


class Scheme:
    """What differs between PVE and PBS on the wire; a client has exactly one."""

    def __init__(self, name, port, token_prefix, token_separator, cookie_name, list_style, parents,
                 answers_in_text=False):
        self.name = name
        self.port = port
        self.token_prefix = token_prefix
        self.token_separator = token_separator
        self.cookie_name = cookie_name
        self.list_style = list_style
        # A list parameter as repeated keys (PBS) also takes delete= as a list.
        self.delete_as_list = list_style == 'repeat'
        # PBS (proxmox-router) sends a failure as plain text, where PVE sends JSON, and answers a section's digest
        # beside ``data`` (PVE keeps it inside the object).
        self.errors_as_text = answers_in_text
        self.digest_beside_data = answers_in_text
        # Where the values of a collection path's placeholder come from: {placeholder: (list path, the rows' key)}.
        self.parents = parents

    def token_header(self, token_id, secret):
        return '%s=%s%s%s' % (self.token_prefix, token_id, self.token_separator, secret)

    def error_message(self, response):
        """PVE wraps errors in JSON with ``message``/``errors``; PBS sends plain text."""
        errors = {}
        text = ''
        try:
            body = response.json()
        except ValueError:
            body = None
        if isinstance(body, dict):
            text = body.get('message') or ''
            errors = body.get('errors') or {}
        elif self.errors_as_text or body is None:
            text = (response.text or '').strip()[:300]
        return (text or response.reason or '').strip(), errors


SCHEMES = {
    'pve': Scheme('pve', 8006, 'PVEAPIToken', '=', 'PVEAuthCookie', 'comma',
                  parents={'node': ('/nodes', 'node'), 'userid': ('/access/users', 'userid'),
                           'vnet': ('/cluster/sdn/vnets', 'vnet')}),
    'pbs': Scheme('pbs', 8007, 'PBSAPIToken', ':', 'PBSAuthCookie', 'repeat',
                  parents={'userid': ('/access/users', 'userid')}, answers_in_text=True),
}


def item_path(template, values):
    """Fill ``{name}`` placeholders with URL-quoted values (``:`` and ``@`` stay as PVE writes them)."""
    return template.format(**dict((key, quote(str(value), safe=':@!')) for key, value in values.items()))


class Repeated(tuple):
    """A list PVE takes as an array parameter: one key per item, never comma-joined (a notification
    target's ``mailto``, a matcher's ``match-field``); PVE would read a joined string as one item."""


def encode_form(form, scheme):
    """A list of (key, value) pairs, form-encoded the way the scheme wants.

    Booleans become 1/0; None is dropped; lists are comma-joined for PVE and
    repeated keys for PBS; a ``Repeated`` list is repeated keys on both.
    """
    pairs = []
    for key in sorted(form):
        value = form[key]
        if value is None:
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        values = ['1' if item is True else '0' if item is False else str(item) for item in values]
        repeat = isinstance(value, Repeated) or (scheme.list_style != 'comma' and isinstance(value, (list, tuple)))
        if not repeat:
            pairs.append((key, ','.join(values)))
        else:
            pairs.extend((key, item) for item in values)
    return pairs


def check_port(option, port):
    if not 1 <= port <= 65535:
        raise DeclarationError('option %s: %s is not a TCP port (1-65535)' % (option, port))
    return port


class Member:
    def __init__(self, host, port):
        self.host = host
        self.port = port

    @classmethod
    def parse(cls, text, default_port):
        """``host``, ``host:port``, ``[v6]`` or ``[v6]:port``; anything else is refused naming api_host."""
        text = str(text).strip()
        if not text or '/' in text or any(char.isspace() for char in text):
            raise DeclarationError('option api_host: %r is not a cluster member; give host or host:port '
                                   '(no scheme, no path)' % text)
        if text.startswith('['):
            host, _bracket, rest = text[1:].partition(']')
            port = rest[1:] if rest.startswith(':') else rest
        elif text.count(':') == 1:
            host, port = text.split(':')
        else:
            host, port = text, ''
        if not host or (port and not port.isdigit()):
            raise DeclarationError('option api_host: %r is not a cluster member; give host or host:port' % text)
        return cls(host, check_port('api_host', int(port)) if port else default_port)

    @property
    def name(self):
        host = '[%s]' % self.host if ':' in self.host else self.host
        return '%s:%s' % (host, self.port)

    def is_named(self, name):
        """Whether ``name`` is this member: its host, host:port, or (a DNS name) the host's first label, as a
        node's name is its host name's."""
        if not name:
            return False
        if name in (self.host, self.name):
            return True
        return not IP_LITERAL.search(self.host) and self.host.split('.', 1)[0] == name


def _chain(exc):
    """The exception and everything it wraps (requests hides the socket error several levels down)."""
    seen = []
    todo = [exc]
    while todo:
        current = todo.pop()
        if not isinstance(current, BaseException) or any(current is item for item in seen):
            continue
        seen.append(current)
        todo.extend([current.__cause__, current.__context__, getattr(current, 'reason', None)])
        todo.extend(arg for arg in getattr(current, 'args', ()) if isinstance(arg, BaseException))
    return seen


def never_left(exc):
    """True only when the request provably never reached a server, judged by error types, never text.

    Connection refused, DNS failure, a certificate refused in the handshake and a
    connect timeout happen before any byte of the request is sent.
    """
    if requests is not None and isinstance(exc, requests.exceptions.ConnectTimeout):
        return True
    for item in _chain(exc):
        if isinstance(item, (ConnectionRefusedError, socket.gaierror, ssl.SSLCertVerificationError)):
            return True
        if urllib3 is not None and isinstance(item, urllib3.exceptions.NameResolutionError):
            return True
    return False


def describe_transport_failure(exc):
    for item in _chain(exc):
        if isinstance(item, ConnectionRefusedError):
            return 'connection refused'
        if isinstance(item, socket.gaierror):
            return 'name resolution failed'
        if isinstance(item, ssl.SSLCertVerificationError):
            return 'TLS certificate not trusted: %s' % (item.verify_message or item.reason)
    if requests is not None and isinstance(exc, requests.exceptions.ConnectTimeout):
        return 'connect timed out'
    if requests is not None and isinstance(exc, requests.exceptions.ReadTimeout):
        return 'no answer within the timeout'
    return type(exc).__name__


# Members that answered last, per member list, for this process.
_LAST_GOOD = {}


class MultipartFile:
    """A multipart/form-data body read from disk while it is sent: an iterable of byte chunks with a length, so
    requests sends a Content-Length instead of a chunked body, and a file of any size is read ``CHUNK`` bytes at a
    time, never whole. Each iteration reads the file afresh (a request that never left is sent again)."""

    CHUNK = 1024 * 1024

    def __init__(self, fields, file_path, file_name, boundary=None):
        unknown = sorted(set(fields) - set(UPLOAD_FIELDS))
        if unknown:
            raise ValueError('PVE reads no upload field %s' % ', '.join(unknown))
        if any(char in file_name for char in '"\r\n'):
            raise ValueError('an upload file name cannot hold a quote or a line break: %r' % file_name)
        self.boundary = boundary or binascii.hexlify(os.urandom(16)).decode('ascii')
        head = []
        for name in UPLOAD_FIELDS:
            if fields.get(name) is not None:
                head.append('--%s\r\nContent-Disposition: form-data; name="%s"\r\n\r\n%s\r\n'
                            % (self.boundary, name, fields[name]))
        head.append('--%s\r\nContent-Disposition: form-data; name="filename"; filename="%s"\r\n'
                    'Content-Type: application/octet-stream\r\n\r\n' % (self.boundary, file_name))
        self.head = ''.join(head).encode('utf-8')
        self.tail = ('\r\n--%s--\r\n' % self.boundary).encode('ascii')
        self.file_path = file_path
        self.size = os.path.getsize(file_path)

    @property
    def content_type(self):
        return 'multipart/form-data; boundary=%s' % self.boundary

    def __len__(self):
        return len(self.head) + self.size + len(self.tail)

    def __iter__(self):
        yield self.head
        left = self.size
        with open(self.file_path, 'rb') as handle:
            while left > 0:
                chunk = handle.read(min(self.CHUNK, left))
                if not chunk:
                    raise IOError('%s became shorter while it was uploaded' % self.file_path)
                left -= len(chunk)
                yield chunk
        yield self.tail


class Reply:
    """A successful answer: ``data`` plus the envelope's siblings (``changes``, ``total``, PBS ``digest``)."""

    def __init__(self, data, extras):
        self.data = data
        self.extras = extras


class SharedReads:
    """The answers a phase that writes nothing shares between the objects that read the same thing
    (``Client.sharing_reads``); ``answers`` is None outside such a phase."""

    def __init__(self):
        self.answers = None
        self.lock = threading.Lock()


class Client:
    """One connection to one PVE cluster or PBS: members, verification, timeout and credentials."""

    def __init__(self, scheme, hosts, credentials, port=None, validate_certs=True, ca_path=None, timeout=20,
                 session=None):
        self.scheme = SCHEMES[scheme]
        self.members = [Member.parse(host, port or self.scheme.port) for host in hosts]
        self.credentials = credentials
        self.verify = (ca_path or True) if validate_certs else False
        self.timeout = timeout
        self.session = session or requests.Session()
        # The environment (REQUESTS_CA_BUNDLE, proxies) must not override what the task says.
        self.session.trust_env = False
        if not validate_certs:
            urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
        self._key = tuple(member.name for member in self.members)
        # The member that answered last (success or API error): the result says which one served.
        self.served_by = None
        # Shared with this client's per-thread twins: one credential fetch (a mint, a login) at a time, so
        # threads reading at once mint or log in once, not once each.
        self._credential_lock = threading.Lock()
        self._threads = threading.local()
        # A read phase's answers (sharing_reads), shared with the per-thread twins: copy.copy keeps this one object.
        self._shared = SharedReads()

    def for_this_thread(self):
        """This client for the calling thread: the same members and credentials on a connection pool of the
        thread's own (a requests session is not made to be shared between threads), made once per thread."""
        twin = getattr(self._threads, 'client', None)
        if twin is None:
            twin = copy.copy(self)
            twin.session = requests.Session()
            twin.session.trust_env = False
            self._threads.client = twin
        return twin

    @contextlib.contextmanager
    def sharing_reads(self):
        """Within it, a ``shared_get`` is sent once and its answer kept for the next caller: for a phase that writes
        nothing (a declare's reads, where every guest-scoped firewall object locates its guest in the same
        /cluster/resources). Outside it, ``shared_get`` is a plain ``get``."""
        self._shared.answers = {}
        try:
            yield self
        finally:
            self._shared.answers = None

    def shared_get(self, path, params=None, role='read'):
        """A read whose answer a ``sharing_reads`` phase gives every caller; they read it and never change it."""
        key = (path, tuple(sorted((params or {}).items())), role)
        with self._shared.lock:
            answers = self._shared.answers
            if answers is not None and key in answers:
                return answers[key]
        data = self.get(path, params, role)
        with self._shared.lock:
            if self._shared.answers is not None:
                self._shared.answers.setdefault(key, data)
        return data

    def at(self, host):
        """A client for one server of its own (a node before it joins a cluster answers for itself only): the same
        scheme, verification, timeout and credential source, a login of its own (a ticket is a server's own)."""
        for_server = getattr(self.credentials, 'for_server', None)
        return Client(self.scheme.name, [host], for_server() if for_server else self.credentials,
                      port=self.members[0].port if self.members else None,
                      validate_certs=self.verify is not False,
                      ca_path=self.verify if isinstance(self.verify, str) else None, timeout=self.timeout)

    def auth(self, role):
        with self._credential_lock:
            return self.credentials.auth_for(role, self)

    # -- public verbs -------------------------------------------------------------------
    def get(self, path, params=None, role='read'):
        return self.request('GET', path, params, role).data

    def post(self, path, form=None, role='provision'):
        return self.request('POST', path, form, role).data

    def put(self, path, form=None, role='provision'):
        return self.request('PUT', path, form, role).data

    def delete(self, path, params=None, role='provision'):
        return self.request('DELETE', path, params, role).data

    def request(self, method, path, form=None, role='read', repeatable=False):
        return self.authenticated(role, lambda auth: self.send(method, path, form, auth, repeatable=repeatable))

    def upload(self, path, fields, file_path, file_name, role='provision', member=None):
        """POST a file as PVE's upload takes it (pve-http-server AnyEvent.pm ``file_upload_multipart``): a
        multipart/form-data body of ``fields`` (content, checksum-algorithm, checksum: the only ones PVE reads, in
        the order it reads them) and then the file part ``filename``, streamed from ``file_path`` with a
        Content-Length (PVE refuses a chunked body). ``member`` is tried first when the connection lists it (a
        host, or a host whose first label is that node's name: PVE's upload has no proxyto, so the member that
        receives the file is the one that stores it, or copies it on). Fails over like any write: only when the
        request provably never left, so a file is never uploaded twice."""
        body = MultipartFile(fields, file_path, file_name)

        def attempt(auth):
            headers = {'Accept': 'application/json', 'Content-Type': body.content_type}
            if auth is not None:
                auth.apply('POST', headers)
            return self.over_members('POST', path, lambda url: self.session.request(
                'POST', url, headers=headers, verify=self.verify, timeout=(self.timeout, self.timeout),
                allow_redirects=False, data=body), prefer=member)

        return self.authenticated(role, attempt).data

    def authenticated(self, role, attempt):
        """``attempt(auth)`` with the role's credential; once more with a renewed one after a 401."""
        try:
            return attempt(self.auth(role))
        except AuthenticationFailed:
            # A cached minted token may have been revoked or expired early: re-mint once and retry.
            # PVE and PBS answer 401 from their auth layer before any handler runs, so the 401
            # itself proves a write was not applied and the retry cannot apply it twice.
            renew = getattr(self.credentials, 'renew', None)
            with self._credential_lock:
                renewed = renew is not None and renew(role)
            if not renewed:
                raise
            return attempt(self.auth(role))

    # -- transport ----------------------------------------------------------------------
    def ordered_members(self, prefer=None):
        """The members to try: the one named ``prefer`` (see ``upload``) first, then the last that answered."""
        last = _LAST_GOOD.get(self._key)
        return sorted(self.members, key=lambda member: (not member.is_named(prefer), member.name != last))

    def send(self, method, path, form, auth, repeatable=False):
        """Send with failover; ``auth`` adds headers and cookies (see credentials.py). A ``repeatable`` POST, one
        whose repeat leaves the cluster as one call does (a login changes nothing; a guest agent's file-write
        truncates and writes the same bytes), fails over like a read when a member stops answering."""
        pairs = encode_form(form or {}, self.scheme)
        headers = {'Accept': 'application/json'}
        if method in ('POST', 'PUT'):
            headers['Content-Type'] = 'application/x-www-form-urlencoded'
        if auth is not None:
            auth.apply(method, headers)
        return self.over_members(method, path, lambda url: self.session.request(
            method, url, headers=headers, verify=self.verify, timeout=(self.timeout, self.timeout),
            allow_redirects=False,
            params=pairs if method in ('GET', 'DELETE') else None,
            data=pairs if method in ('POST', 'PUT') else None), repeatable=repeatable)

    def over_members(self, method, path, attempt, repeatable=False, prefer=None):
        """``attempt(url)`` on each member in turn until one answers; a write moves on only when the request
        provably never left (ARCHITECTURE section 5)."""
        failures = []
        for member in self.ordered_members(prefer):
            url = 'https://%s/api2/json%s' % (member.name, path)
            try:
                response = attempt(url)
            except requests.exceptions.RequestException as exc:
                why = describe_transport_failure(exc)
                if method in WRITE_METHODS and not repeatable and not never_left(exc):
                    raise MaybeApplied(method, path, member.name, why)
                failures.append((member.name, why))
                continue
            _LAST_GOOD[self._key] = member.name
            self.served_by = member.name
            return self.parse(response, method, path, member.name)
        raise Unreachable(failures)

    def parse(self, response, method, path, member):
        if 200 <= response.status_code < 300:
            try:
                body = response.json()
            except ValueError:
                body = {'data': response.text}
            if not isinstance(body, dict):
                return Reply(body, {})
            extras = dict((key, value) for key, value in body.items() if key != 'data')
            return Reply(body.get('data'), extras)
        message, errors = self.scheme.error_message(response)
        raise ApiError.for_status(response.status_code, message, method=method, path=path, errors=errors,
                                  member=member)
