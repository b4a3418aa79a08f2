"""Authentication (tokens, tickets, CSRF) and permission evaluation.

Ported from pve-access-control: ``PVE::AccessControl::roles`` (ACL tree walk
with propagation, user ACLs overriding group ACLs, NoAccess),
``PVE::RPCEnvironment::permissions`` (root@pam = everything; a token with
privsep=0 gets its user's privileges, privsep=1 the intersection of its own and
its user's) and ``exec_api2_perm_check`` / ``check_api2_permissions`` (the
``permissions`` block of every API method).
"""

import base64
import hashlib
import hmac
import re
import secrets
import time
import urllib.parse

from .errors import AuthFailure, die, die_at, perm_exc
from .formats import TOKENID_RE, USERID_RE, FormatError, split_list, verify_username
from .privileges import VALID_PRIVS

TICKET_LIFETIME = 7200


def split_tokenid(tokenid):
    m = TOKENID_RE.match(tokenid or "")
    if not m:
        return None, None
    return f"{m.group(1)}@{m.group(2)}", m.group(3)


def normalize_path(path):
    """PVE::AccessControl::normalize_path."""
    if not path:
        return None
    path = re.sub(r"/+", "/", path)
    path = re.sub(r"/$", "", path)
    if not path:
        path = "/"
    if not path.startswith("/"):
        path = "/" + path
    if not re.match(r"^[A-Za-z0-9\.\-_/]+$", path):
        return None
    return path


_SEG = r"[A-Za-z0-9\.\-_]+"
_AN = r"[A-Za-z0-9]+"
# AccessControl.pm check_path, alternative by alternative ([[:alnum:]] spelled ASCII).
_ACL_PATH_RE = re.compile(rf"""^(
    /
  | /access | /access/groups | /access/groups/{_SEG} | /access/realm | /access/realm/{_SEG}
  | /nodes | /nodes/{_SEG}
  | /pool | /pool/[A-Za-z0-9\.\-_]+(?:/[A-Za-z0-9\.\-_]+){{0,2}}
  | /sdn | /sdn/controllers | /sdn/controllers/[A-Za-z0-9_\-]+ | /sdn/dns | /sdn/dns/{_AN}
  | /sdn/fabrics | /sdn/fabrics/{_AN} | /sdn/ipams | /sdn/ipams/{_AN}
  | /sdn/prefix-lists | /sdn/prefix-lists/{_AN} | /sdn/route-maps | /sdn/route-maps/{_AN}
  | /sdn/zones | /sdn/zones/{_SEG} | /sdn/zones/{_SEG}/{_SEG} | /sdn/zones/{_SEG}/{_SEG}/[1-9][0-9]{{0,3}}
  | /storage | /storage/{_SEG}
  | /vms | /vms/[1-9][0-9]{{2,}}
  | /mapping | /mapping/{_SEG} | /mapping/{_SEG}/{_SEG}
)$""", re.X)


def check_path(path):
    """PVE::AccessControl::check_path: is this a path ACLs may be set on?"""
    return bool(_ACL_PATH_RE.match(path))


def template_replace(template, params):
    """PVE::Tools::template_replace: '{var}' -> value, '-' when undefined."""
    def repl(m):
        val = params.get(m.group(1))
        return "-" if val is None else str(val)
    return re.sub(r"\{([^}]+)\}", repl, template)


class Access:
    """Privilege queries against the cluster's user.cfg (``state``)."""

    def __init__(self, state):
        self.state = state

    # -- roles / privileges -------------------------------------------------
    def roles(self, authid, path):
        """{role: propagate} effective for authid on path (AccessControl::roles)."""
        if authid == "root@pam":
            return {"Administrator": 1}
        tokenid = None
        user = authid
        if TOKENID_RE.match(authid):
            tokenid = authid
            user = split_tokenid(authid)[0]
        split = [""] if path == "/" else path.split("/")
        node_path = ""
        roles = {}
        acl = self.state.acl
        for index, part in enumerate(split):
            final = index == len(split) - 1
            if part:
                node_path = f"{node_path}/{part}"
            entry = acl.get(node_path or "/")
            if entry is None:
                continue
            if tokenid:
                new = self._collect(entry["tokens"].get(tokenid), final)
                if new is not None:
                    roles = new
                continue
            new = self._collect(entry["users"].get(user), final)
            if new is not None:
                roles = new
                continue  # user ACLs override group ACLs
            new = None
            for group, role_map in entry["groups"].items():
                if user not in self.state.groups.get(group, {}).get("users", ()):
                    continue
                got = self._collect(role_map, final)
                if got:
                    new = {**(new or {}), **got}
            if new is not None:
                roles = new
        if "NoAccess" in roles:
            return {"NoAccess": roles["NoAccess"]}
        return roles

    @staticmethod
    def _collect(role_map, final):
        if not role_map:
            return None
        new = None
        for role, propagate in role_map.items():
            if final or propagate:
                new = new or {}
                new[role] = propagate
        return new

    def _privs_of(self, roles):
        privs = {}
        all_roles = self.state.all_roles()
        for role, propagate in roles.items():
            for priv in all_roles.get(role, ()):
                privs[priv] = privs.get(priv, 0) or propagate
        return privs

    def permissions(self, authid, path):
        """{priv: propagate} (RPCEnvironment::permissions)."""
        if authid == "root@pam":
            return {p: 1 for p in VALID_PRIVS}
        if path is None:
            return {}
        if TOKENID_RE.match(authid):
            user, token = split_tokenid(authid)
            info = self.state.users.get(user, {}).get("tokens", {}).get(token)
            if info is None:
                return {}
            user_privs = self.permissions(user, path)
            if not info.get("privsep"):
                return user_privs
            own = self._privs_of(self.roles(authid, path))
            return {p: (user_privs[p] and own[p]) for p in own if p in user_privs}
        if not USERID_RE.match(authid):
            return {}
        return self._privs_of(self.roles(authid, path))

    # -- checks ----------------------------------------------------------
    def check(self, authid, path, privs, noerr=False):
        perm = self.permissions(authid, path)
        for priv in privs:
            if priv not in perm:
                if noerr:
                    return False
                raise perm_exc(f"{path or ''}, {priv}")
        return True

    def check_any(self, authid, path, privs, noerr=False):
        perm = self.permissions(authid, path)
        if any(priv in perm for priv in privs):
            return True
        if noerr:
            return False
        raise perm_exc(f"{path or ''}, " + "|".join(privs))

    def check_full(self, authid, path, privs, any_, noerr=False):
        if any_:
            return self.check_any(authid, path, privs, noerr)
        return self.check(authid, path, privs, noerr)

    def check_perm_modify(self, authid, path, noerr=False):
        if not path:
            return self.check(authid, "/access", ["Permissions.Modify"], noerr)
        privs = ["Permissions.Modify"]
        if re.match(r"^/storage/.+$", path):
            privs.append("Datastore.Allocate")
        elif re.match(r"^/vms/.+$", path):
            privs.append("VM.Allocate")
        elif re.match(r"^/pool/.+$", path):
            privs.append("Pool.Allocate")
        return self.check_any(authid, path, privs, noerr)

    def filter_groups(self, authid, privs, any_):
        return {g for g in self.state.groups
                if self.check_full(authid, f"/access/groups/{g}", privs, any_, True)}

    def group_member_join(self, groups):
        users = set()
        for group in groups:
            users.update(self.state.groups.get(group, {}).get("users", ()))
        return users

    def check_user_exist(self, userid, noerr=False):
        return self.state.check_user_exist(userid, noerr)

    def exec_perm_check(self, check, authid, params, noerr=False):
        """RPCEnvironment::exec_api2_perm_check."""
        test = check[0]
        if test == "and":
            for sub in check[1:]:
                self.exec_perm_check(sub, authid, params)
            return True
        if test == "or":
            for sub in check[1:]:
                if self.exec_perm_check(sub, authid, params, True):
                    return True
            if noerr:
                return False
            raise perm_exc()
        if test == "perm":
            tmpl, privs = check[1], check[2]
            options = dict(zip(check[3::2], check[4::2]))
            require = options.get("require_param")
            if require and params.get(require) is None:
                if noerr:
                    return False
                raise perm_exc()
            path = normalize_path(template_replace(tmpl, params))
            return self.check_full(authid, path, privs, options.get("any"), noerr)
        if test == "userid-group":
            userid = params.get("userid")
            privs = check[1]
            options = dict(zip(check[2::2], check[3::2]))
            groups_param = options.get("groups_param")
            check_existing = groups_param != "create"
            if check_existing and not self.check_user_exist(userid, noerr):
                return False
            if not self.check_any(authid, "/access/groups", privs, True):
                groups = self.filter_groups(authid, privs, True)
                if groups_param:
                    wanted = split_list(params.get("groups"))
                    if not wanted:
                        raise perm_exc("/access/groups, " + "|".join(privs))
                    for group in wanted:
                        if group not in groups:
                            raise perm_exc(f"/access/groups/{group}, " + "|".join(privs))
                if check_existing and userid not in self.group_member_join(groups):
                    if noerr:
                        return False
                    raise perm_exc()
            return True
        if test == "userid-param":
            userid = params.get("userid") or ""
            try:  # Auth/Plugin.pm verify_username: too short, too long, or not a user name
                verify_username(userid)
            except FormatError as err:
                raise die(err.message) from err
            m = USERID_RE.match(userid)
            sub = check[1]
            if sub == "self":
                if not self.check_user_exist(userid, noerr):
                    return False
                if authid == userid:
                    return True
                if noerr:
                    return False
                raise perm_exc()
            if sub == "Realm.AllocateUser":
                return self.check(authid, f"/access/realm/{m.group(2)}",
                                  ["Realm.AllocateUser"], noerr)
            raise die_at("unknown userid-param test", "PVE/RPCEnvironment.pm", 536)
        if test == "perm-modify":
            path = normalize_path(template_replace(check[1], params))
            if path is None:
                return False
            return self.check_perm_modify(authid, path, noerr)
        # pve-access-control 5ccd07d: RPCEnvironment.pm exec_api2_perm_check dies without "\n"
        raise die_at("unknown permission test", "PVE/RPCEnvironment.pm", 545)

    def check_api2_permissions(self, perm, authid, params):
        """RPCEnvironment::check_api2_permissions."""
        if not authid and perm and perm.get("user") == "world":
            return True
        if not authid:
            raise perm_exc("user != null")
        if authid == "root@pam":
            return True
        if not perm:
            raise perm_exc("user != root@pam")
        if perm.get("user") == "all":
            return True
        if perm.get("check"):
            return self.exec_perm_check(perm["check"], authid, params)
        raise perm_exc()

    def compute_api_permission(self, authid):
        """RPCEnvironment::compute_api_permission (the ticket's ``cap``)."""
        priv_re = {
            "vms": r"VM\.|Permissions\.Modify",
            "access": r"(User|Group)\.|Permissions\.Modify",
            "storage": r"Datastore\.|Permissions\.Modify",
            "nodes": r"Sys\.|Permissions\.Modify",
            "sdn": r"SDN\.|Permissions\.Modify",
            "dc": r"Sys\.Audit|Sys\.Modify|SDN\.",
            "mapping": r"Mapping\.|Permissions.Modify",
        }
        res = {k: {} for k in priv_re}
        paths = ["/", "/nodes", "/access/groups", "/vms", "/storage", "/sdn", "/mapping"]
        paths += sorted(self.state.acl)
        seen = set()
        for path in paths:
            if path in seen:
                continue
            seen.add(path)
            perm = self.permissions(authid, path)
            m = re.match(r"^/(\w+)", path)
            top = m.group(1) if m else "dc"
            if top == "pool":
                for priv in perm:
                    if priv.startswith("VM."):
                        res["vms"][priv] = 1
                    elif priv.startswith("Datastore."):
                        res["storage"][priv] = 1
                    elif priv == "Permissions.Modify":
                        res["storage"][priv] = 1
                        res["vms"][priv] = 1
                continue
            regex = priv_re.get(top)
            if not regex:
                continue
            for priv in perm:
                if re.match(f"^({regex})", priv):
                    res[top][priv] = 1
        return res


class Authenticator:
    """Tokens, tickets and CSRF tokens (PVE formats, HMAC-signed stand-ins)."""

    def __init__(self, state, clock=time.time):
        self.state = state
        self.clock = clock
        self._ticket_key = secrets.token_bytes(32)
        self._csrf_key = secrets.token_bytes(32)

    # -- tickets ----------------------------------------------------------
    def _sign(self, key, text):
        return base64.b64encode(hmac.new(key, text.encode(), hashlib.sha256).digest()).decode()

    def assemble_ticket(self, userid):
        plain = f"PVE:{userid.replace(':', '%3A')}:{int(self.clock()):08X}"
        return f"{plain}::{self._sign(self._ticket_key, plain)}"

    def verify_ticket(self, ticket):
        m = re.match(r"^(PVE:(\S+?):([A-Fa-f0-9]{8}))::(.+)$", ticket or "")
        if not m:
            return None
        plain, user, stamp, sig = m.groups()
        if not hmac.compare_digest(sig, self._sign(self._ticket_key, plain)):
            return None
        age = self.clock() - int(stamp, 16)
        if age < -300 or age > TICKET_LIFETIME:
            return None
        return urllib.parse.unquote(user)

    def assemble_csrf(self, userid):
        stamp = f"{int(self.clock()):08X}"
        return f"{stamp}:{self._sign(self._csrf_key, f'{stamp}:{userid}').rstrip('=')}"

    def verify_csrf(self, userid, token):
        m = re.match(r"^([A-Fa-f0-9]{8}):(\S+)$", token or "")
        if not m:
            return False
        stamp, sig = m.groups()
        if not hmac.compare_digest(sig, self._sign(self._csrf_key, f"{stamp}:{userid}").rstrip("=")):
            return False
        age = self.clock() - int(stamp, 16)
        return -300 <= age <= TICKET_LIFETIME

    # -- the auth layer (HTTPServer::auth_handler) -----------------------
    @staticmethod
    def extract(headers):
        """(api_token, ticket, csrf) from the request headers."""
        auth = headers.get("Authorization") or ""
        api_token = None
        m = re.search(r"(?:^|\s)PVEAPIToken(?:=| )([^;]*)", auth)
        if m:
            api_token = urllib.parse.unquote(m.group(1))
        ticket = None
        for part in (headers.get("Cookie") or "").split(";"):
            name, _sep, value = part.strip().partition("=")
            if name == "PVEAuthCookie" and value:
                ticket = urllib.parse.unquote(value)
        if ticket is None:
            m = re.search(r"(?:^|\s)PVEAuthCookie(?:=| )([^;]*)", auth)
            if m:
                ticket = urllib.parse.unquote(m.group(1))
        return api_token, ticket, headers.get("CSRFPreventionToken")

    def verify_token(self, api_token):
        """AccessControl::verify_token; any failure -> 401 ``Authentication failed!`` (pve-manager HTTPServer.pm
        auth_handler, which also dies ``No ticket``; the CSRF refusal is pve-common Ticket.pm
        verify_csrf_prevention_token)."""
        m = re.match(r"^(.*)=(.*)$", api_token or "", re.S)
        if not m:
            raise AuthFailure("Authentication failed!")
        tokenid, value = m.groups()
        user, token = split_tokenid(tokenid)
        if not user:
            raise AuthFailure("Authentication failed!")
        state = self.state
        if not state.user_enabled(user):
            raise AuthFailure("Authentication failed!")
        info = state.users[user].get("tokens", {}).get(token)
        if info is None:
            raise AuthFailure("Authentication failed!")
        expire = info.get("expire") or 0
        if expire and expire < self.clock():
            raise AuthFailure("Authentication failed!")
        secret = state.token_secrets.get(tokenid)
        if secret is None or not hmac.compare_digest(secret, value):
            raise AuthFailure("Authentication failed!")
        return tokenid

    def authenticate(self, method, rel_path, headers):
        """Return (authid or None, is_token). Raises AuthFailure for 401."""
        if (rel_path == "/access/domains" and method == "GET") or \
                (rel_path == "/access/ticket" and method in ("GET", "POST")):
            return None, False
        api_token, ticket, csrf = self.extract(headers)
        if api_token:
            return self.verify_token(api_token), True
        if not ticket:
            raise AuthFailure("No ticket")
        userid = self.verify_ticket(ticket)
        if not userid or not self.state.user_enabled(userid):
            raise AuthFailure("Authentication failed!")
        if method != "GET" and not self.verify_csrf(userid, csrf):
            raise AuthFailure("Permission denied - invalid csrf token")
        return userid, False

    def check_password(self, userid, password):
        stored = self.state.passwords.get(userid)
        return stored is not None and hmac.compare_digest(stored, password)
