"""/access/domains: authentication realms, domains.cfg (pve-access-control ``API2/Domains.pm``).

domains.cfg is a SectionConfig of ``PVE::Auth::Plugin``'s types (``Auth/PAM.pm``, ``PVE.pm``,
``LDAP.pm``, ``AD.pm``, ``OpenId.pm``): each type takes its own options (``REALM_TYPES``, the
plugins' ``options()``), some of them required on create, OpenID's ``username-claim`` fixed.
Reading the file always yields the built-in ``pam`` and ``pve`` realms (``Plugin::parse_config``
adds them with their default comment), so a DELETE of one succeeds and the realm is back, reset,
on the next read; creating either name or type is refused.

The LDAP/AD bind ``password`` never reaches domains.cfg: the API extracts it and the plugin's
hooks keep it in /etc/pve/priv/realm/<realm>.pw (``state.realm_secrets``); a read never returns
it. OpenID's ``client-key`` is an ordinary option of the section (``Auth/OpenId.pm``), stored in
domains.cfg and answered by the item read like any other. Every write runs under the domain
config lock, so a failure is "<add|update|delete> auth server failed: <why>" (500).
"""

import hashlib
import re
from collections import OrderedDict

from ... import schema as schema_mod
from ...errors import die, locked, param_exc
from ...formats import split_list
from ..state import register_slice
from .base import route
from .texts import read_back, section_comment

# domains.cfg, with PVE's two built-in realms as pve-manager writes it on install; and the realms' bind
# passwords (/etc/pve/priv/realm/<realm>.pw)
register_slice("realms", lambda: OrderedDict((
    ("pam", {"type": "pam", "comment": "Linux PAM standard authentication"}),
    ("pve", {"type": "pve", "comment": "Proxmox VE authentication server", "default": 1}))))
register_slice("realm_secrets", dict)

_LDAP_COMMON = ("server1", "server2", "port", "secure", "sslversion", "default", "comment", "tfa", "verify",
                "capath", "cert", "certkey", "base_dn", "bind_dn", "password", "user_attr", "filter",
                "sync_attributes", "user_classes", "group_dn", "group_name_attr", "group_filter",
                "group_classes", "sync-defaults-options", "mode", "case-sensitive")
# type -> (options, required on create, fixed once created): the plugins' options().
REALM_TYPES = {
    "pam": (("default", "comment", "tfa"), (), ()),
    "pve": (("default", "comment", "tfa"), (), ()),
    "ldap": (_LDAP_COMMON, ("server1", "base_dn", "user_attr"), ()),
    "ad": (_LDAP_COMMON + ("domain",), ("server1", "domain"), ()),
    "openid": (("issuer-url", "client-id", "client-key", "autocreate", "username-claim", "groups-claim",
                "groups-autocreate", "groups-overwrite", "prompt", "scopes", "acr-values", "default", "comment",
                "query-userinfo"), ("issuer-url", "client-id"), ("username-claim",)),
}
BUILTIN_COMMENTS = {"pve": "Proxmox VE authentication server", "pam": "Linux PAM standard authentication"}

# Formats the official schema names but the simulator's registry does not hold:
# Plugin.pm's pve-tfa-config and realm-sync-options, pve-common's ldap-simple-attr(-list).
_TFA = {
    "type": {"type": "string", "enum": ["yubico", "oath"]},
    "id": {"type": "string", "optional": 1},
    "key": {"type": "string", "optional": 1},
    "url": {"type": "string", "optional": 1},
    "digits": {"type": "integer", "minimum": 6, "maximum": 8, "optional": 1},
    "step": {"type": "integer", "minimum": 10, "optional": 1},
}
_SYNC_OPTIONS = {
    "scope": {"type": "string", "enum": ["users", "groups", "both"], "optional": 1},
    "remove-vanished": {"type": "string", "optional": 1,
                        "pattern": r"(?:(?:(?:acl|properties|entry);)*(?:acl|properties|entry))|none"},
    "full": {"type": "boolean", "optional": 1},
    "enable-new": {"type": "boolean", "optional": 1},
    "purge": {"type": "boolean", "optional": 1},
}
_PROPERTY_FORMATS = {"tfa": _TFA, "sync-defaults-options": _SYNC_OPTIONS}
_SIMPLE_ATTR = re.compile(r"^[a-zA-Z0-9]+$")
_LDAP_ATTRS = {"group_name_attr": False, "user_classes": True, "group_classes": True}


def _ids(state):
    """domains.cfg as Plugin::parse_config reads it: pam and pve always there, one default at most."""
    for realm in ("pve", "pam"):
        entry = state.realms.setdefault(realm, {})
        entry["type"] = realm
        if not entry.get("comment"):
            entry["comment"] = BUILTIN_COMMENTS[realm]
    seen_default = False
    for entry in state.realms.values():
        if entry.get("default"):
            if seen_default:
                del entry["default"]
            seen_default = True
    return state.realms


def _config_text(state):
    out = []
    for realm, entry in _ids(state).items():
        out.append(f"{entry['type']}: {realm}\n")
        out.extend(f"\t{key} {entry[key]}\n" for key in sorted(entry) if key != "type")
        out.append("\n")
    return "".join(out)


def _digest(state):
    return hashlib.sha1(_config_text(state).encode()).hexdigest()


def _check_formats(params):
    """The parameter formats PVE checks before the handler runs (400 Parameter verification failed)."""
    props = {key: {"type": "string", "optional": 1, "format": fmt} for key, fmt in _PROPERTY_FORMATS.items()}
    schema_mod.validate({key: params[key] for key in props if key in params}, {"properties": props})
    errors = {}
    for key, is_list in _LDAP_ATTRS.items():
        for attr in (split_list(params[key]) if is_list else [params[key]]) if key in params else []:
            if not _SIMPLE_ATTR.match(attr):
                errors[key] = f"invalid format - value '{attr}' does not look like a simple ldap attribute name\n"
    if errors:
        raise param_exc(errors)


def _map_sync_defaults(config, delete_deprecated):
    """Domains.pm $map_sync_default_options: the deprecated full/purge become remove-vanished."""
    text = config.get("sync-defaults-options")
    if text is None:
        return
    opts = dict(part.split("=", 1) for part in text.split(",") if "=" in part)
    if opts.get("remove-vanished") is None and (opts.get("full") == "1" or opts.get("purge") == "1"):
        props = (["entry", "properties"] if opts.get("full") == "1" else [])
        props += ["acl"] if opts.get("purge") == "1" else []
        opts["remove-vanished"] = ";".join(props)
    if delete_deprecated:
        opts.pop("full", None)
        opts.pop("purge", None)
    config["sync-defaults-options"] = ",".join(f"{key}={opts[key]}" for key in sorted(opts))


def _check_config(ctx, typ, params, create):
    """SectionConfig::check_config for the type's options (values already schema-checked)."""
    options, required, fixed = REALM_TYPES[typ]
    settings = {}
    for key, value in params.items():
        if key == "type":
            continue
        if not create and key in fixed:
            raise die(f"can't change value of fixed parameter '{key}'")
        if key not in options:
            raise die(f"unexpected property '{key}'")
        value = str(value)
        if "\n" in value or "\r" in value:
            raise die("property contains a line feed")
        kind = (ctx.schema_props.get(key) or {}).get("type")
        settings[key] = int(value) if kind in ("boolean", "integer") else value
    if create:
        for key in required:
            if params.get(key) is None:
                raise die(f"missing value for required option '{key}'")
        settings["type"] = typ
    return settings


def _set_default(ids, config):
    if config.get("default"):
        for entry in ids.values():
            entry.pop("default", None)


def _store_password(state, realm, typ, password):
    """LDAP.pm on_add_hook / on_update_hook: the bind password goes to priv/realm/<realm>.pw, or is removed."""
    if typ not in ("ldap", "ad"):
        return
    if password is not None:
        state.realm_secrets[realm] = password
    else:
        state.realm_secrets.pop(realm, None)


@route("GET", "/access/domains")
def index(ctx, p):
    res = []
    for realm, entry in _ids(ctx.state).items():
        row = {"realm": realm, "type": entry["type"]}
        if entry.get("comment"):
            row["comment"] = entry["comment"]
        if entry.get("default"):
            row["default"] = 1
        tfa = dict(part.split("=", 1) for part in str(entry.get("tfa") or "").split(",") if "=" in part)
        if tfa.get("type"):
            row["tfa"] = tfa["type"]
        res.append(row)
    return res


@route("GET", "/access/domains/{realm}")
def read(ctx, p):
    realm = p["realm"]
    entry = _ids(ctx.state).get(realm)
    if entry is None:
        raise die(f"domain '{realm}' does not exist")
    data = dict(entry)
    if data["type"] in ("ad", "ldap"):
        _map_sync_defaults(data, delete_deprecated=False)
    if realm == "pam":
        data["plugin"] = "PVE::Auth::PAM"  # parse_config sets it on the pam section
    data["digest"] = _digest(ctx.state)
    return data


@route("POST", "/access/domains")
def create(ctx, p):
    state = ctx.state
    params = dict(ctx.raw)
    password = params.pop("password", None)
    _check_formats(params)
    with locked(state, "add auth server failed"):
        ids = _ids(state)
        realm = params.pop("realm")
        typ = params["type"]
        check_connection = params.pop("check-connection", None)
        if realm in ids:
            raise die(f"domain '{realm}' already exists")
        if realm in ("pam", "pve"):
            raise die(f"unable to use reserved name '{realm}'")
        if typ in ("pam", "pve"):
            raise die(f"unable to create builtin type '{typ}'")
        if check_connection is not None and typ not in ("ldap", "ad"):
            raise die("'check-connection' parameter can only be set for realms of type 'ldap' or 'ad'")
        if typ in ("ad", "ldap"):
            _map_sync_defaults(params, delete_deprecated=True)
        config = _check_config(ctx, typ, params, create=True)
        _set_default(ids, config)
        ids[realm] = read_back(config, "comment", section_comment)  # Auth/Plugin.pm: through encode_text
        if "password" not in REALM_TYPES[typ][0]:
            password = None  # PVE warns "ignoring password parameter"
        _store_password(state, realm, typ, password)
    return None


@route("PUT", "/access/domains/{realm}")
def update(ctx, p):
    state = ctx.state
    params = dict(ctx.raw)
    password = params.pop("password", None)
    _check_formats(params)
    with locked(state, "update auth server failed"):
        ids = _ids(state)
        digest = params.pop("digest", None)
        if digest and digest != _digest(state):
            raise die("detected modified configuration - file changed by other user? Try again.")
        realm = params.pop("realm")
        typ = (ids.get(realm) or {}).get("type")
        check_connection = params.pop("check-connection", None)
        if realm not in ids:
            raise die(f"domain '{realm}' does not exist")
        if check_connection is not None and typ not in ("ldap", "ad"):
            raise die("'check-connection' parameter can only be set for realms of type 'ldap' or 'ad'")
        delete = params.pop("delete", None)
        if not delete and not params and password is None:
            raise die("no options specified")
        delete_password = False
        for key in split_list(delete):  # Domains.pm deletes whatever is named, required options too
            ids[realm].pop(key, None)
            delete_password = delete_password or key == "password"
        if typ in ("ad", "ldap"):
            _map_sync_defaults(params, delete_deprecated=True)
        config = _check_config(ctx, typ, params, create=False)
        _set_default(ids, config)
        ids[realm].update(config)
        read_back(ids[realm], "comment", section_comment)
        if delete_password or password is not None:
            _store_password(state, realm, typ, password)
    return None


@route("DELETE", "/access/domains/{realm}")
def delete(ctx, p):
    state = ctx.state
    realm = p["realm"]
    with locked(state, "delete auth server failed"):
        ids = _ids(state)
        if realm not in ids:
            raise die(f"authentication domain '{realm}' does not exist")
        state.realm_secrets.pop(realm, None)  # LDAP.pm on_delete_hook
        del ids[realm]
    return None
