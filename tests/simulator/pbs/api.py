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
  or expired.``; a secret not UTF-8 once percent-decoded -> ``failed to decode
  API token header``; wrong secret -> ``invalid credentials``. The
  ``authentication failed - <why>`` body is proxmox-rest-server's up to 1.0.3
  (PBS 4.1.0/4.1.1); 1.0.4 and later answer ``authentication failed`` only.
* Permissions (``auth.py``): after the route lookup and auth, the method's
  schema ``permissions`` are checked like proxmox-router ``check_api_permission``
  against acl.cfg (URI parameters only) -> 403 ``permission check failed``;
  tokens are privilege-separated, so ``root@pam!sim`` holds ``Admin`` on ``/``
  through a seeded ACL entry.

State shares nothing with the PVE cluster: ``state.PbsState`` is datastore.cfg,
user.cfg, the token shadow, acl.cfg and the task list of one PBS host. The
families are ``handlers/`` (``handlers.base.route``).
"""

import json
import sys
import time
import traceback
import urllib.parse
from http import HTTPStatus

from ..http import Response, parse_query, split_target
from . import schema as pbs_schema
from .auth import api_permission_ok, parse_authid
from .errors import PbsAuthError, PbsError
from .handlers import ROUTES, Ctx, Result
from .schema import SchemaError
from .state import PbsState
from ..value_types import PBS_FILES, Typing

MAX_BODY = 64 * 1024


# -- the app -------------------------------------------------------------------------

def _headers(content_type="application/json;charset=UTF-8"):
    return [("Content-Type", content_type)] if content_type else []


def _reason(status):
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def _utf8_error(err):
    """Rust ``core::str::Utf8Error`` Display (``valid_up_to`` and ``error_len`` as Python finds them)."""
    if err.reason == "unexpected end of data":
        return f"incomplete utf-8 byte sequence from index {err.start}"
    return f"invalid utf-8 sequence of {err.end - err.start} bytes from index {err.start}"


def _cookie(header, name):
    """One cookie's value from a Cookie header, or None."""
    for part in header.split(";"):
        key, sep, value = part.strip().partition("=")
        if sep and key == name:
            return value
    return None


def plain(status, message, content_type=True):
    return Response(status, _reason(status), message.encode(),
                    _headers() if content_type else [])


class PbsApi:
    """One PBS server's API (plugs into ``http.Member`` like ``PveApi``)."""

    server_header = None    # hyper sends no Server header
    close_on_error = False  # and keeps connections open after an error

    def __init__(self, sim):
        self.sim = sim
        self.state = PbsState()
        self._schema = None
        self._typing = None

    @property
    def schema(self):
        if self._schema is None:
            self._schema = pbs_schema.load()
        return self._schema

    @property
    def typing(self):
        if self._typing is None:
            self._typing = Typing(self.schema, PBS_FILES)
        return self._typing

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
    def authenticate(self, headers, method="GET"):
        prefix = "PBSAPIToken"
        auth = headers.get("Authorization") or ""
        cookie = _cookie(headers.get("Cookie") or "", "PBSAuthCookie")
        if not auth and cookie is not None:
            return self._ticket_login(cookie, method, headers)
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
            try:
                secret = urllib.parse.unquote_to_bytes(secret).decode("utf-8")  # percent_decode_str
            except UnicodeDecodeError:
                raise PbsAuthError("failed to decode API token header") from None
            if token is None:
                raise PbsAuthError("not an API token ID")
            if f"{userid}!{token}" not in state.tokens:
                raise PbsAuthError("invalid API token")
            if not state.token_secret_matches(f"{userid}!{token}", secret):
                raise PbsAuthError("invalid credentials")
        return f"{userid}!{token}"

    def _ticket_login(self, ticket, method, headers):
        """proxmox-auth-api: a ticket from POST /access/ticket (cookie PBSAuthCookie), and on a write its CSRF
        token (the simulator's texts)."""
        state = self.state
        with state.lock:
            entry = state.tickets.get(urllib.parse.unquote(ticket))
            if entry is None:
                raise PbsAuthError("invalid ticket")
            userid, csrf = entry
            if not state.authid_active(userid, None):
                raise PbsAuthError("user account or token disabled or expired.")
        if method != "GET" and headers.get("CSRFPreventionToken") != csrf:
            raise PbsAuthError("invalid csrf token")
        return userid

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
                authid = self.authenticate(req.headers, req.method)
            except PbsAuthError as err:
                if self.sim.unauthorized_delay:
                    time.sleep(self.sim.unauthorized_delay)
                return plain(401, f"authentication failed - {err}", content_type=False)
        entry["token_id"] = authid
        if found is None:
            return plain(404, f"Path '{full_path}' not found.")
        template, info, uri_params = found
        with self.state.lock:
            allowed = api_permission_ok(self.state, perms, authid, uri_params)
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
        if req.method == "GET":  # a config read answers what PBS's typed structs serialize to
            result.data = self.typing.answer(template, result.data)
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
            raise PbsError(400, f"Request body not uft8: {_utf8_error(err)}") from err
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
