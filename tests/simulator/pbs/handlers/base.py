"""Handler registry and the context a PBS handler receives.

Register with ``@route("GET", "/config/datastore/{name}")`` (the schema's path template); a handler gets
a ``Ctx`` with the typed parameters and returns the ``data`` value, or a ``Result`` when the answer
carries siblings (``digest``, ``total``). Routing, auth, the schema's permissions and the parameters
are ``api.PbsApi``'s.
"""

from dataclasses import dataclass, field

from .. import auth
from ..state import PbsState


ROUTES = {}


def route(method, template):
    def register(fn):
        ROUTES[(method, template)] = fn
        return fn
    return register


@dataclass
class Ctx:
    state: PbsState
    authid: str
    params: dict
    schema: dict

    def check_privs(self, path, privs, partial=False):
        """A handler's own privilege check (pbs-config ``CachedUserInfo::check_privs``): ``path`` is a list of
        components (``["datastore", "store1"]``); unless the auth id has every one of ``privs`` there
        (``partial``: any one) raise PbsError(400, "missing permissions 'A&B' on '/datastore/store1'") --
        PBS bails with a plain error there, so the status is 400, not 403."""
        auth.check_privs(self.state, self.authid, path, privs, partial)
        return True

    def has_privs(self, path, privs, partial=False):
        """The same test as a bool (handlers that filter a list or choose a branch, ``lookup_privs``)."""
        return auth.has_privs(self.state, self.authid, path, privs, partial)


@dataclass
class Result:
    data: object = None
    extra: dict = field(default_factory=dict)
