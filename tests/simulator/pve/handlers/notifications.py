"""/cluster/notifications: endpoints and matchers, notifications.cfg (pve-manager
``API2/Cluster/Notifications.pm`` over proxmox-notify's ``api/{mod,sendmail,smtp,gotify,webhook,matcher}.rs``).

One SectionConfig holds every endpoint (sendmail, smtp, gotify, webhook) and every matcher, so a
name is unique across all of them ("Cannot create 'x', an entity with the same name already
exists"). Secrets live in priv/notifications.cfg (``state.notification_secrets``): the smtp
``password``, the gotify ``token`` and the webhook ``secret`` list; a read never returns them
(webhook answers the secrets' names only). Arrays (``mailto``, ``target``, ``match-*``, webhook
``header``) are kept in the order sent.

PVE ships ``mail-to-root`` (sendmail) and ``default-matcher``: they are read even when the file
does not hold them, with ``origin`` ``builtin`` (unchanged) or ``modified-builtin`` (the file holds
a different section of that name); a DELETE only drops the file's section, so the built-in is
back with its shipped defaults and PVE answers success. proxmox-notify's errors keep their HTTP
status (404 for a missing endpoint or matcher, 400 for a refused value). A value its Rust types
cannot parse (a match-field statement, a severity, a calendar span, a webhook header or secret, a
``delete`` name) never reaches proxmox-notify: proxmox-perl-rs' ``bindings/notify.rs`` takes it as a
typed argument, perlmod's deserializer fails before the Rust function runs and croaks
``error: <serde's message>`` (perlmod ``Error`` Display, ``perlmod-macro/src/function.rs``), which PVE's
``raise_api_error`` passes on as a plain die (500). Every read carries the SHA-256 ``digest`` of
notifications.cfg, checked on update.
"""

import copy
import hashlib
import re
from collections import OrderedDict

from ...errors import ApiError, die, locked
from ...notify import MATCH_FIELD, SEVERITIES, daily_duration_error, normalise, valid_base64
from ..state import register_slice
from .base import route

register_slice("notification_endpoints", OrderedDict)  # notifications.cfg endpoints
register_slice("notification_matchers", OrderedDict)   # notifications.cfg matchers
register_slice("notification_secrets", dict)           # priv/notifications.cfg

TYPES = ("gotify", "sendmail", "smtp", "webhook")
# What PVE's context ships (proxmox-notify context/pve.rs default config).
BUILTIN_ENDPOINTS = {"mail-to-root": {"type": "sendmail", "mailto-user": ["root@pam"],
                                      "comment": "Send mails to root@pam's email address"}}
BUILTIN_MATCHERS = {"default-matcher": {"mode": "all", "target": ["mail-to-root"],
                                        "comment": "Route all notifications to mail-to-root"}}
SECRETS = {"smtp": ("password",), "gotify": ("token",), "webhook": ("secret",)}
# The properties each type lets PUT delete (proxmox-notify Deleteable<Type>Property), in the enums' order
# (serde lists the variants in it).
DELETABLE = {
    "sendmail": ("author", "comment", "disable", "from-address", "mailto", "mailto-user"),
    "smtp": ("author", "comment", "disable", "mailto", "mailto-user", "password", "port", "username"),
    "gotify": ("comment", "disable"),
    "webhook": ("comment", "disable", "header", "body", "secret"),
    "matcher": ("comment", "disable", "invert-match", "match-calendar", "match-field", "match-severity", "mode",
                "target"),
}


def _not_found(message):
    return ApiError(404, message + "\n")


def _bad_request(message):
    return ApiError(400, message + "\n")


def _undeserializable(message):
    """An argument perlmod cannot deserialize: it croaks ``error: <message>`` (500)."""
    return die(f"error: {message}")


def _one_of(names):
    """serde's ``OneOf`` (de/mod.rs): `a`, `a` or `b`, one of `a`, `b`, `c`."""
    quoted = [f"`{name}`" for name in names]
    if len(quoted) < 3:
        return " or ".join(quoted)
    return "one of " + ", ".join(quoted)


def _rust_debug(text):
    """Rust's ``{:?}`` of a str: double quotes, with quotes, backslashes and control characters escaped."""
    escapes = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}
    return '"' + "".join(escapes.get(char, char if char.isprintable() else f"\\u{{{ord(char):x}}}")
                         for char in text) + '"'


# -- the file ------------------------------------------------------------------------------

def _sections(state):
    """name -> (kind, section, origin), as proxmox-notify's Config::new reads notifications.cfg.

    ``kind`` is the endpoint type or ``matcher``; ``origin`` is None for what a user created.
    """
    res = OrderedDict()
    for table, builtins in ((state.notification_endpoints, BUILTIN_ENDPOINTS),
                            (state.notification_matchers, BUILTIN_MATCHERS)):
        for name, default in builtins.items():
            if name not in table:
                res[name] = (default.get("type", "matcher"), copy.deepcopy(default), "builtin")
        for name, section in table.items():
            origin = None
            if name in builtins:
                origin = "builtin" if section == builtins[name] else "modified-builtin"
            res[name] = (section.get("type", "matcher"), section, origin)
    return res


def _config_text(state):
    out = []
    for table in (state.notification_endpoints, state.notification_matchers):
        for name, section in table.items():
            out.append(f"{section.get('type', 'matcher')}: {name}\n")
            for key, value in section.items():
                if key == "type":
                    continue
                for item in value if isinstance(value, list) else [value]:
                    out.append(f"\t{key} {item}\n")
            out.append("\n")
    return "".join(out)


def _digest(state):
    return hashlib.sha256(_config_text(state).encode()).hexdigest()


def _verify_digest(state, digest):
    """api/mod.rs verify_digest."""
    if digest and digest != _digest(state):
        raise _bad_request("detected modified configuration - file changed by other user? Try again.")


def _ensure_unique(state, name):
    """api/mod.rs ensure_unique: endpoints and matchers share one SectionConfig."""
    if name in _sections(state):
        raise _bad_request(f"Cannot create '{name}', an entity with the same name already exists")


def _view(name, section, origin, secrets=None):
    """A section as the API answers it: name first, arrays as lists, no secret values."""
    res = {"name": name}
    res.update((key, copy.deepcopy(value)) for key, value in section.items() if key != "type")
    if origin:
        res["origin"] = origin
    if section.get("type") == "webhook":
        names = [_property(item).get("name") for item in (secrets or {}).get("secret", [])]
        if names:
            res["secret"] = [f"name={item}" for item in names]
    return res


def _current(table, builtins, name):
    """A copy of the section to change: the file's, or the built-in's shipped defaults."""
    return copy.deepcopy(table[name] if name in table else builtins[name])


def _check_delete(kind, keys):
    """PUT's delete: each key must be one the kind's Deleteable enum names (else serde's unknown_variant)."""
    for key in keys or []:
        if key not in DELETABLE[kind]:
            raise _undeserializable(f"unknown variant `{key}`, expected {_one_of(DELETABLE[kind])}")


def _delete_keys(kind, keys, section, secrets):
    for key in keys or []:
        (secrets if key in SECRETS.get(kind, ()) else section).pop(key, None)


# -- values -------------------------------------------------------------------------------

def _property(text):
    """name=<name>[,value=<base64>] as ``PropertyString<KeyAndBase64Val>`` deserializes it (proxmox-schema
    ``property_string.rs`` next_property, ``de/mod.rs`` MapAccess, serde's derive) -> dict. Quoted values
    are not simulated."""
    res = {}
    data = str(text)
    while data:
        comma, equals = data.find(","), data.find("=")
        key = None
        if equals != -1 and (comma == -1 or equals < comma):
            key, data = data[:equals], data[equals + 1:]
        value, _sep, data = data.partition(",")
        if key is None:
            raise _undeserializable("value without key, but schema does not define a default key")
        if key in res:
            raise _undeserializable(f"duplicate field `{key}`")
        if key not in ("name", "value"):
            raise _undeserializable(f"unknown key {_rust_debug(key)}")
        res[key] = value
    if "name" not in res:
        raise _undeserializable("missing field `name`")
    return res


def _check_headers(headers):
    """api/webhook.rs update_endpoint: every header needs a value, in base64."""
    for header in headers:
        parsed = _property(header)
        if parsed.get("value") is None:
            raise _bad_request(f"header '{parsed['name']}' has empty value")
        if not valid_base64(parsed["value"]):
            raise _bad_request(f"header '{parsed['name']}' does not have valid base64 encoded data")


def _new_secrets(given, old):
    """webhook.rs update: a secret with a value is set, one without keeps its old value."""
    res, seen = [], set()
    known = dict((_property(item)["name"], item) for item in old)
    for item in given:
        parsed = _property(item)
        if parsed.get("value") is not None:
            if not valid_base64(parsed["value"]):
                raise _bad_request(f"secret '{parsed['name']}' does not have valid base64 encoded data")
            kept = item
        elif parsed["name"] in known:
            kept = known[parsed["name"]]
        else:
            raise _bad_request(f"secret '{parsed['name']}' not known")
        if parsed["name"] in seen:
            raise _bad_request(f"secret '{parsed['name']}' defined multiple times")
        seen.add(parsed["name"])
        res.append(kept)
    return res


def _check_matcher_values(params):
    """What proxmox-notify's FromStr impls (matcher.rs, lib.rs Severity) refuse, in the binding's argument
    order: severities, field statements, calendar spans. FieldMatcher's errors are ``Error::FilterFailed``
    (``could not apply filter: ...``); the regex text is Python's, not the regex crate's."""
    for entry in params.get("match-severity") or []:
        for severity in entry.split(","):
            if severity.strip() not in SEVERITIES:
                raise _undeserializable(f"invalid severity {severity.strip()}")
    for statement in params.get("match-field") or []:
        m = MATCH_FIELD.match(statement)
        if not m or not m.group(1):
            raise _undeserializable(f"could not apply filter: invalid match-field statement: {statement}")
        if m.group(1) == "regex":
            try:
                re.compile(m.group(3))
            except re.error as err:
                raise _undeserializable(f"could not apply filter: invalid regex: {err}") from err
    for span in params.get("match-calendar") or []:
        error = daily_duration_error(span)
        if error:
            raise _undeserializable(f"could not parse schedule: {error}")


def _ensure_endpoints_exist(state, targets):
    """api/mod.rs ensure_endpoint_exists."""
    sections = _sections(state)
    for target in targets or []:
        if target not in sections or sections[target][0] == "matcher":
            raise _not_found(f"endpoint '{target}' does not exist")


def _needs_recipient(section):
    """api/sendmail.rs and api/smtp.rs add_endpoint / update_endpoint."""
    if section["type"] in ("sendmail", "smtp") and not section.get("mailto") and not section.get("mailto-user"):
        raise _bad_request("must at least provide one recipient, either in mailto or in mailto-user")


def _settings(params):
    """The request's options as the section stores them (booleans and integers as numbers)."""
    return dict((key, value) for key, value in params.items() if key not in ("name", "delete", "digest"))


# -- the index ----------------------------------------------------------------------------

@route("GET", "/cluster/notifications")
def index(ctx, p):
    return [{"name": name} for name in ("endpoints", "matchers", "targets", "matcher-fields",
                                        "matcher-field-values")]


@route("GET", "/cluster/notifications/endpoints")
def endpoints_index(ctx, p):
    return [{"name": typ} for typ in TYPES]


@route("GET", "/cluster/notifications/targets")
def targets(ctx, p):
    """api/mod.rs get_targets: every endpoint, gotify, sendmail, smtp, webhook in that order."""
    res = []
    sections = _sections(ctx.state)
    for typ in TYPES:
        for name, (kind, section, origin) in sections.items():
            if kind != typ:
                continue
            row = {"name": name, "origin": origin or "user-created", "type": typ}
            for key in ("disable", "comment"):
                if section.get(key) is not None:
                    row[key] = section[key]
            res.append(row)
    return res


# -- endpoints ----------------------------------------------------------------------------

def _endpoint(state, typ, name):
    """api/<type>.rs get_endpoint: another type's section of that name is not found either."""
    found = _sections(state).get(name)
    if found is None or found[0] != typ:
        raise _not_found(f"endpoint '{name}' not found")
    return found


def _endpoints(ctx, typ):
    state = ctx.state
    res = []
    for name, (kind, section, origin) in _sections(state).items():
        if kind == typ:
            row = _view(name, section, None, state.notification_secrets.get(name))
            row["origin"] = origin or "user-created"
            res.append(row)
    return res


def _read_endpoint(ctx, typ, name):
    state = ctx.state
    _kind, section, origin = _endpoint(state, typ, name)
    res = _view(name, section, origin, state.notification_secrets.get(name))
    res["digest"] = _digest(state)
    return res


def _create_endpoint(ctx, typ, p):
    state = ctx.state
    name = p["name"]
    with locked(state):
        section = {"type": typ}
        section.update(_settings(p))
        for item in section.get("header", []) + section.get("secret", []):
            _property(item)  # the binding's WebhookConfig argument, before add_endpoint runs
        _ensure_unique(state, name)
        secrets = dict((key, section.pop(key)) for key in SECRETS.get(typ, ()) if key in section)
        _needs_recipient(section)
        state.notification_endpoints[name] = section
        if secrets:
            state.notification_secrets[name] = secrets
    return None


def _update_endpoint(ctx, typ, p):
    state = ctx.state
    name = p["name"]
    with locked(state):
        for item in (p.get("header") or []) + (p.get("secret") or []):
            _property(item)  # the binding's arguments are deserialized first: the updater, then delete
        _check_delete(typ, p.get("delete"))
        _verify_digest(state, p.get("digest"))
        _endpoint(state, typ, name)
        section = _current(state.notification_endpoints, BUILTIN_ENDPOINTS, name)
        secrets = copy.deepcopy(state.notification_secrets.get(name) or {})
        _delete_keys(typ, p.get("delete"), section, secrets)
        settings = _settings(p)
        if "header" in settings:
            _check_headers(settings["header"])
        if "secret" in settings:
            settings["secret"] = _new_secrets(settings["secret"], secrets.get("secret") or [])
        secrets.update((key, settings.pop(key)) for key in SECRETS.get(typ, ()) if key in settings)
        section.update(settings)
        _needs_recipient(section)
        state.notification_endpoints[name] = section
        state.notification_secrets[name] = dict((key, value) for key, value in secrets.items() if value)
        if not state.notification_secrets[name]:
            del state.notification_secrets[name]
    return None


def _delete_endpoint(ctx, typ, p):
    """api/mod.rs ensure_safe_to_delete: a built-in is only reset, so it may be referenced."""
    state = ctx.state
    name = p["name"]
    with locked(state):
        _kind, _section, origin = _endpoint(state, typ, name)
        if origin is None:
            referrers = sorted(matcher for matcher, (kind, section, _origin) in _sections(state).items()
                               if kind == "matcher" and name in (section.get("target") or []))
            if referrers:
                raise _bad_request(f"cannot delete '{name}', referenced by: {', '.join(referrers)}")
        state.notification_endpoints.pop(name, None)
        state.notification_secrets.pop(name, None)
    return None


def _register(typ):
    collection = f"/cluster/notifications/endpoints/{typ}"
    item = collection + "/{name}"
    route("GET", collection)(lambda ctx, p: _endpoints(ctx, typ))
    route("POST", collection)(lambda ctx, p: _create_endpoint(ctx, typ, p))
    route("GET", item)(lambda ctx, p: _read_endpoint(ctx, typ, p["name"]))
    route("PUT", item)(lambda ctx, p: _update_endpoint(ctx, typ, p))
    route("DELETE", item)(lambda ctx, p: _delete_endpoint(ctx, typ, p))


for _type in TYPES:
    _register(_type)


# -- matchers -----------------------------------------------------------------------------

def _matcher(state, name):
    """api/matcher.rs get_matcher."""
    found = _sections(state).get(name)
    if found is None or found[0] != "matcher":
        raise _not_found(f"matcher '{name}' not found")
    return found


@route("GET", "/cluster/notifications/matchers")
def matchers(ctx, p):
    res = []
    for name, (kind, section, origin) in _sections(ctx.state).items():
        if kind == "matcher":
            row = _view(name, section, None)
            row["origin"] = origin or "user-created"
            res.append(row)
    return res


@route("GET", "/cluster/notifications/matchers/{name}")
def read_matcher(ctx, p):
    _kind, section, origin = _matcher(ctx.state, p["name"])
    res = _view(p["name"], section, origin)
    res["digest"] = _digest(ctx.state)
    return res


@route("POST", "/cluster/notifications/matchers")
def create_matcher(ctx, p):
    state = ctx.state
    settings = _settings(p)
    _check_matcher_values(settings)
    normalise(settings)
    with locked(state):
        _ensure_unique(state, p["name"])
        _ensure_endpoints_exist(state, settings.get("target"))
        state.notification_matchers[p["name"]] = settings
    return None


@route("PUT", "/cluster/notifications/matchers/{name}")
def update_matcher(ctx, p):
    state = ctx.state
    name = p["name"]
    settings = _settings(p)
    _check_matcher_values(settings)
    normalise(settings)
    _check_delete("matcher", p.get("delete"))
    with locked(state):
        _verify_digest(state, p.get("digest"))
        _matcher(state, name)
        section = _current(state.notification_matchers, BUILTIN_MATCHERS, name)
        _delete_keys("matcher", p.get("delete"), section, {})
        if "target" in settings:
            _ensure_endpoints_exist(state, settings["target"])
        section.update(settings)
        state.notification_matchers[name] = section
    return None


@route("DELETE", "/cluster/notifications/matchers/{name}")
def delete_matcher(ctx, p):
    state = ctx.state
    with locked(state):
        _matcher(state, p["name"])
        state.notification_matchers.pop(p["name"], None)
    return None
