"""The PVE wire rules: one request in, one PVE-shaped answer out.

Order of checks, as pveproxy does it (``PVE::APIServer::AnyEvent`` and
``PVE::HTTPServer::rest_handler``):

1. method other than GET/POST/PUT/DELETE -> 501 ``method 'X' not available``
   (status line only); chunked bodies -> 501; non-``/api2/json`` paths -> 501/500;
2. authentication (token, ticket + CSRF) -> 401 with no body;
3. a body on GET/DELETE -> 501 ``Unexpected content for method 'X'``; a content
   type other than form/JSON -> 506 (status line only);
4. injected faults (``Simulator.force``) -> the forced answer;
5. route lookup in the schema -> 501 ``Method 'X /p' not implemented``;
6. URI vs query/body conflict -> 400; ``allowtoken`` -> 403;
7. the method's ``permissions`` -> 403 (before parameter validation);
8. ``proxyto: node`` with an unknown node -> 500 hostname lookup failure;
9. parameter validation against the schema -> 400 + ``errors``;
10. the family handler (no handler -> 501), wrapped in ``{"data": ...}``.

A file upload (``Request.upload``: a POST to ``.../storage/{storage}/upload`` with a body) takes pveproxy's
upload branch after step 2 instead of step 3 (``_receive_upload``): Datastore.AllocateTemplate on the storage
(HTTPServer.pm auth_handler), a multipart body, no ``tmpfilename`` in the query, then the multipart fields are
the form and the file waits in ``state.upload_tmpfiles`` under the ``tmpfilename`` the handler gets.
"""

import hashlib
import json
import re
import sys
import time
import traceback

from .. import schema as schema_mod
from ..auth import Access
from ..errors import ApiError, AuthFailure, die, param_exc, perm_exc
from ..http import (MAX_BODY, MultipartError, Response, json_headers, parse_content_type, parse_query, read_multipart,
                    reason, split_target)
from ..value_types import PVE_FILES, PVE_PENDING, Typing
from .handlers import ROUTES, Context, Result
from .handlers.base import Download

_KNOWN_METHODS = ("GET", "POST", "PUT", "DELETE")


def bare(status, text):
    """A status line without body (PVE's ``$self->error`` and auth-layer 401s)."""
    return Response(status, reason(text, status), b"", json_headers())


def envelope(data, extra=None):
    body = {"data": data}
    body.update(extra or {})
    return Response(200, "OK", json.dumps(body).encode(), json_headers())


def streamed(download):
    """send_file_start's streamed answer: the file's type, encoding and disposition, PVE's no-cache headers."""
    headers = [("Content-Type", download.content_type)]
    headers += [(name, value) for name, value in (("Content-Encoding", download.encoding),
                                                  ("Content-Disposition", download.disposition)) if value]
    headers += [header for header in json_headers() if header[0] != "Content-Type"]
    return Response(200, "OK", download.body, headers, stream=True)


def error_response(status, message, errors=None):
    body = {"data": None, "message": message}
    if errors:
        body["errors"] = errors
    return Response(status, reason(message, status), json.dumps(body).encode(), json_headers())


def api_rel_path(path):
    """'/api2/json/pools/' -> ('json', '/pools'); None if not an API path."""
    m = re.match(r"^/api2/([^/]+)(/.*)?$", path)
    if not m:
        return None, None
    rel = re.sub(r"/+", "/", m.group(2) or "/")
    if len(rel) > 1:
        rel = rel.rstrip("/")
    return m.group(1), rel


class PveApi:
    """PVE API semantics shared by every member of one simulated cluster."""

    def __init__(self, sim, state=None, authenticator=None):
        """The cluster of ``state`` (default: the simulator's one state); ``serve.py --fresh`` makes one per
        standalone node, and a node that joins a cluster is served by the cluster's from then on."""
        self.sim = sim
        self.state = state or sim.state
        self.schema = schema_mod.load()
        self.typing = Typing(self.schema, PVE_FILES, PVE_PENDING)
        self.access = Access(self.state)
        self.authenticator = authenticator or sim.authenticator

    # -- logging helpers ------------------------------------------------------
    def describe(self, req, authenticate=False):
        """Best-effort log entry for a request (path after /api2/json, params)."""
        path, query = split_target(req.target)
        rel = api_rel_path(path)[1]
        token_id = None
        if authenticate and rel is not None:
            try:
                token_id = self.authenticator.authenticate(req.method, rel, req.headers)[0]
            except AuthFailure:
                pass
        form = {}
        if req.upload:
            form = self._upload_fields(req)
        elif req.body:
            try:
                form = self._parse_body(req)
            except ApiError:
                form = {}
        form.update(parse_query(query))
        form.pop("_dc", None)
        return {"method": req.method, "path": rel if rel is not None else path, "form": form,
                "member": req.member.address, "token_id": token_id, "status": None}

    def log_hung(self, req):
        """A request that reached a hung member: logged with ``status: null``."""
        self.sim.record(self.describe(req, authenticate=True))

    def handle(self, req):
        entry = self.describe(req)
        try:
            resp = self._handle(req, entry)
        except Exception as err:  # a simulator bug: answer like PVE would for a die
            traceback.print_exc(file=sys.stderr)
            resp = error_response(500, f"simulator internal error: {err}\n")
        entry["status"] = None if resp.drop else resp.status
        self.sim.record(entry)
        return resp

    # -- the pipeline -----------------------------------------------------------
    @staticmethod
    def _parse_body(req):
        ctype = (req.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        text = req.body.decode("utf-8", "replace")
        if ctype == "application/json":
            try:
                data = json.loads(text) if text.strip() else {}
            except ValueError as err:
                raise ApiError(400, f"malformed JSON body: {err}\n") from err
            if not isinstance(data, dict):
                raise ApiError(400, "malformed JSON body: not an object\n")
            return data
        return parse_query(text)

    @staticmethod
    def _upload_fields(req):
        """The multipart fields of an upload (its file left out), for the log."""
        boundary = parse_content_type(req.headers.get("Content-Type"))[1]
        try:
            return read_multipart(req.body, boundary)[0] if boundary else {}
        except MultipartError:
            return {}

    def _receive_upload(self, req, rel, query, authid):
        """pveproxy's upload branch (HTTPServer.pm auth_handler, AnyEvent.pm authenticate_and_handle_request and
        file_upload_multipart): (refusal or None, the form). Its dies before the multipart is read are only
        warned about: the client gets no answer at all."""
        storage = re.match(r"^/nodes/[^/]+/storage/([^/]+)/upload$", rel).group(1)
        try:
            with self.state.lock:
                self.access.check(authid, f"/storage/{storage}", ["Datastore.AllocateTemplate"])
        except ApiError as err:  # a PVE::Exception from auth_handler: status line only, delayed like a 401
            if self.sim.unauthorized_delay:
                time.sleep(self.sim.unauthorized_delay)
            return bare(err.status, err.message), None
        ctype, boundary = parse_content_type(req.headers.get("Content-Type"))
        params = parse_query(query)
        if not (boundary and ctype == "multipart/form-data") or "tmpfilename" in params:
            return Response(0, "", drop=True), None
        try:
            fields, data = read_multipart(req.body, boundary)
        except MultipartError as err:  # AnyEvent.pm error(): the text is the body, no JSON
            headers = [header for header in json_headers() if header[0] != "Content-Type"]
            return Response(500, reason(err.message, 500), err.message.encode(), headers), None
        tmpfilename = "/var/tmp/pveupload-" + hashlib.md5(f"{id(req)}{time.time()}".encode()).hexdigest()
        with self.state.lock:
            self.state.upload_tmpfiles[tmpfilename] = data
        params.update(fields)
        params["tmpfilename"] = tmpfilename
        return None, params

    def _handle(self, req, entry):
        method = req.method
        if method not in _KNOWN_METHODS:
            return bare(501, f"method '{method}' not available")
        te = req.headers.get("Transfer-Encoding")
        if te:
            if te.lower() == "chunked":
                return bare(501, "chunked transfer encoding not supported")
            return bare(501, f"Unknown transfer encoding '{te}'")
        path, query = split_target(req.target)
        fmt, rel = api_rel_path(path)
        if rel is None:
            return bare(500, f"no such file '{path}'")
        if fmt != "json":
            return bare(501, "no such uri")

        try:
            authid, is_token = self.authenticator.authenticate(method, rel, req.headers)
        except AuthFailure as err:
            if self.sim.unauthorized_delay:
                time.sleep(self.sim.unauthorized_delay)
            return bare(401, err.reason)
        entry["token_id"] = authid

        form = None
        if req.upload:
            refusal, form = self._receive_upload(req, rel, query, authid)
            if refusal is not None:
                return refusal
        elif req.body_length:
            if method not in ("PUT", "POST"):
                return bare(501, f"Unexpected content for method '{method}'")
            if req.body_length > MAX_BODY:
                return bare(501, "for data too large")
            ctype_header = req.headers.get("Content-Type") or ""
            ctype = ctype_header.split(";")[0].strip().lower()
            if ctype not in ("", "application/x-www-form-urlencoded", "application/json"):
                return bare(506, f"upload 'Content-Type '{ctype_header}' not implemented")

        try:
            resp = self._dispatch(req, method, rel, query, authid, is_token, form)
        except ApiError as err:
            if err.status == 401 and self.sim.unauthorized_delay:
                time.sleep(self.sim.unauthorized_delay)
            resp = error_response(err.status, err.message, err.errors)
        finally:
            if form is not None:  # the request's end unlinks its temporary file (AnyEvent.pm cleanup)
                with self.state.lock:
                    self.state.upload_tmpfiles.pop(form["tmpfilename"], None)
        if form is not None:
            resp.headers.append(("Connection", "close"))  # an upload never keeps the connection alive
        return resp

    def _dispatch(self, req, method, rel, query, authid, is_token, form=None):
        if form is not None:  # an upload: the query, then the multipart fields over it (AnyEvent.pm)
            params = dict(form)
        else:
            params = self._parse_body(req) if req.body else {}
            params.update(parse_query(query))  # the query string wins over the body
        params.pop("_dc", None)

        forced = self.sim.take_fault(method, rel, params=params)
        if forced is not None:
            raise forced
        self.sim.run_hooks(method, rel, params)

        found = self.schema.find(method, rel)
        if found is None:
            raise ApiError(501, f"Method '{method} {rel}' not implemented", exception=False)
        template, info, uri_params = found
        for key in sorted(params):
            if key in uri_params and str(params[key]) != uri_params[key]:
                raise param_exc({key: "duplicate parameter (already defined in URI) with "
                                      "conflicting values!"})
        params.update(uri_params)

        if is_token and not info.get("allowtoken"):
            raise perm_exc(f"URI '{rel}' not available with API token, need proper ticket.\n")

        state = self.state
        with state.lock:
            self.access.check_api2_permissions(info.get("permissions"), authid, params)
            if info.get("proxyto") == "node":
                node = params.get("node")
                if node not in state.nodes:
                    raise die(f"hostname lookup '{node}' failed - failed to get address info "
                              f"for: {node}: Name or service not known")
            pschema = info.get("parameters") or {}
            normalized = schema_mod.normalize_params(params, pschema)
            schema_mod.validate(normalized, pschema)
            handler = ROUTES.get((method, template))
            if handler is None:
                raise ApiError(501, f"Method '{method} {rel}' not implemented", exception=False)
            ctx = Context(state=state, access=self.access, authenticator=self.authenticator,
                          authid=authid, member=req.member, method=method, rel_path=rel,
                          template=template, raw=normalized, schema=pschema)
            result = handler(ctx, schema_mod.coerce(normalized, pschema))
        if isinstance(result, Download):
            return streamed(result)
        if not isinstance(result, Result):
            result = Result(result)
        if method == "GET":  # a config read answers what PVE's parser makes of the file (value_types)
            result.data = self.typing.answer(template, result.data)
        return envelope(result.data, result.extra)
