"""Handler registry and the context a handler receives.

A handler implements the semantics of one API method and nothing else:
routing, authentication, the permission check, parameter validation and the
``{"data": ...}`` envelope are done generically by ``pve.api.PveApi``. Register
with ``@route("GET", "/pools/{poolid}")`` (the schema's path template).
A handler gets ``(ctx, params)`` with params validated and coerced (booleans
and integers as ``int``), and returns the ``data`` value, or a ``Result`` when
the answer carries envelope siblings such as ``total``.
"""

from dataclasses import dataclass, field

ROUTES = {}


def route(method, template):
    def register(fn):
        key = (method, template)
        if key in ROUTES:
            raise RuntimeError(f"duplicate handler for {method} {template}")
        ROUTES[key] = fn
        return fn
    return register


@dataclass
class Result:
    data: object = None
    extra: dict = field(default_factory=dict)  # envelope siblings: total, changes


@dataclass
class Download:
    """A method's ``{download => {fh, stream => 1, 'content-type', 'content-encoding', 'content-disposition'}}``
    answer, which pveproxy streams as the raw body (pve-http-server ``AnyEvent.pm send_file_start``)."""
    body: bytes
    content_type: str
    encoding: object = None
    disposition: object = None


@dataclass
class Context:
    state: object        # pve.state.ClusterState
    access: object       # auth.Access
    authenticator: object  # auth.Authenticator
    authid: object       # "user@realm" / "user@realm!token" / None
    member: object       # http.Member (has .node and .address)
    method: str
    rel_path: str
    template: str
    raw: dict = field(default_factory=dict)  # the validated parameters as sent (strings)
    schema: dict = field(default_factory=dict)  # the method's "parameters" schema

    @property
    def node(self):
        return self.member.node

    @property
    def schema_props(self):
        return self.schema.get("properties") or {}
