"""Notification endpoints and matchers of a Proxmox Backup Server (issue 12).

Ports proxmox-backup ``src/api2/config/notifications/{sendmail,smtp,gotify,webhook,matchers,targets}.rs``
over proxmox-notify ``api/{mod,sendmail,smtp,gotify,webhook,matcher}.rs``, ``lib.rs`` (``Config::new``)
and ``context/pbs.rs`` (``DEFAULT_CONFIG``):

* One section config holds every endpoint and matcher, so a name is unique across all of them
  (400 ``Cannot create 'x', an entity with the same name already exists``).
* ``Config::new`` adds the shipped ``mail-to-root`` sendmail endpoint and ``default-matcher`` when
  the file lacks them, and marks every section's ``origin``: ``builtin`` (equal to the shipped one),
  ``modified-builtin`` or ``user-created``. Every read carries ``origin``. A DELETE of a built-in only
  drops the section, so the next read has the shipped one again (a reset, never refused).
* proxmox-notify's ``HttpError`` keeps its status: 404 ``endpoint 'x' not found`` / ``matcher 'x'
  not found`` / ``endpoint 'x' does not exist`` (a matcher target), 400 for a refused value or a
  wrong ``digest``. A matcher value its Rust type cannot parse is a serde error: 400 with the
  ``FromStr`` text (``could not apply filter: invalid match-field statement: x``); a ``match-calendar``
  value gets proxmox-time's ``parse_daily_duration`` text, ported with its nom parsers (``could not parse
  schedule: unable to parse daily duration at 'x' - Context("weekday")``).
* Secrets (priv/notifications.cfg) are write-only: smtp ``password``, gotify ``token``, webhook
  ``secret``; a webhook read lists the secrets' names only (``name=x``). The digest covers the public
  file only. Item reads answer ``digest`` as a sibling of ``data``; lists answer none.
* Privileges are the schema's (Sys.Audit / Sys.Modify on /system/notifications): the generic check.

State: ``state.notification_endpoints[name] = {"type": <type>, <option>: <value>, ...}`` with the
secrets kept in the same dict under their parameter names (never rendered), and
``state.notification_matchers[name] = {<option>: <value>, ...}``; arrays are lists in the order sent.
"""

import copy
import hashlib
import re

from ...notify import MATCH_FIELD, SEVERITIES, daily_duration_error, normalise, valid_base64
from ..schema import parse_property_string
from ..errors import PbsError
from .base import Result, route

TYPES = ("sendmail", "smtp", "gotify", "webhook")
TARGET_ORDER = ("gotify", "sendmail", "smtp", "webhook")  # api/mod.rs get_targets
# context/pbs.rs DEFAULT_CONFIG
BUILTIN_ENDPOINTS = {"mail-to-root": {"type": "sendmail", "comment": "Send mails to root@pam's email address",
                                      "mailto-user": ["root@pam"]}}
BUILTIN_MATCHERS = {"default-matcher": {"mode": "all", "target": ["mail-to-root"],
                                        "comment": "Route all notifications to mail-to-root"}}
SECRETS = {"smtp": ("password",), "gotify": ("token",), "webhook": ("secret",)}
# accepted on create but never stored: ``origin`` is computed, ``filter`` is deprecated (skip_serializing)
NOT_STORED = ("name", "delete", "digest", "origin", "filter")
_KEY_VALUE = {"properties": {"name": {"type": "string"}, "value": {"type": "string", "optional": 1}}}


# -- notifications.cfg -------------------------------------------------------------------

def _config(state):
    """Config::new: the shipped sections join the file when it lacks them (after its own sections)."""
    for table, builtins in ((state.notification_endpoints, BUILTIN_ENDPOINTS),
                            (state.notification_matchers, BUILTIN_MATCHERS)):
        for name, section in builtins.items():
            if name not in table:
                table[name] = copy.deepcopy(section)
    return state


def _public(section):
    """What notifications.cfg holds for a section (no type line, no secrets)."""
    hidden = ("type", *SECRETS.get(section.get("type"), ()))
    return {key: value for key, value in section.items() if key not in hidden}


def _origin(name, section):
    builtin = BUILTIN_ENDPOINTS.get(name) or BUILTIN_MATCHERS.get(name)
    if builtin is None:
        return "user-created"
    same = section.get("type") == builtin.get("type") and _public(section) == _public(builtin)
    return "builtin" if same else "modified-builtin"


def _render(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _digest(state):
    """SHA-256 of notifications.cfg as save_config writes it (every section, secrets elsewhere)."""
    out = []
    for table, kind in ((state.notification_endpoints, None), (state.notification_matchers, "matcher")):
        for name, section in table.items():
            out.append(f"{kind or section['type']}: {name}\n")
            for key, value in _public(section).items():
                for item in value if isinstance(value, list) else [value]:
                    out.append(f"\t{key} {_render(item)}\n")
            out.append("\n")
    return hashlib.sha256("".join(out).encode()).hexdigest()


def _verify_digest(state, params):
    """api/mod.rs verify_digest."""
    digest = params.get("digest")
    if digest is not None and digest != _digest(state):
        raise PbsError(400, "detected modified configuration - file changed by other user? Try again.")


def _ensure_unique(state, name):
    """api/mod.rs ensure_unique: endpoints and matchers share one namespace."""
    if name in state.notification_endpoints or name in state.notification_matchers:
        raise PbsError(400, f"Cannot create '{name}', an entity with the same name already exists")


def _view(name, section):
    """The section as the API answers it: name, public options, origin; webhook secret names only."""
    res = {"name": name, **copy.deepcopy(_public(section))}
    if section.get("type") == "webhook" and section.get("secret"):
        res["secret"] = [f"name={_key_value(item)['name']}" for item in section["secret"]]
    res["origin"] = _origin(name, section)
    return res


def _settings(params):
    return {key: value for key, value in params.items() if key not in NOT_STORED}


# -- values ------------------------------------------------------------------------------

def _key_value(text):
    """KeyAndBase64Val from its property string (the schema has already checked its shape)."""
    return parse_property_string(_KEY_VALUE, text)


def _print_key_value(pair):
    """PropertyString Display: the schema's key order (name, value)."""
    return ",".join(f"{key}={pair[key]}" for key in ("name", "value") if key in pair)


def _check_headers(headers):
    """api/webhook.rs update_endpoint: every header needs a base64 value."""
    for header in headers:
        pair = _key_value(header)
        if pair.get("value") is None:
            raise PbsError(400, f"header '{pair['name']}' has empty value")
        if not valid_base64(pair["value"]):
            raise PbsError(400, f"header '{pair['name']}' does not have valid base64 encoded data")


def _merge_secrets(given, old):
    """api/webhook.rs update_endpoint: a secret with a value is set, a bare name keeps the old value."""
    known = {_key_value(item)["name"]: item for item in old}
    merged, seen = [], set()
    for item in given:
        pair = _key_value(item)
        if pair.get("value") is not None:
            if not valid_base64(pair["value"]):
                raise PbsError(400, f"secret '{pair['name']}' does not have valid base64 encoded data")
            kept = _print_key_value(pair)
        elif pair["name"] in known:
            kept = known[pair["name"]]
        else:
            raise PbsError(400, f"secret '{pair['name']}' not known")
        if pair["name"] in seen:
            raise PbsError(400, f"secret '{pair['name']}' defined multiple times")
        seen.add(pair["name"])
        merged.append(kept)
    return merged


def _parse_matcher_values(settings):
    """serde of MatcherConfig: FieldMatcher / SeverityMatcher / CalendarMatcher ``FromStr`` (400, its text)."""
    for statement in settings.get("match-field") or []:
        m = MATCH_FIELD.match(statement)
        if not m or not m.group(1):
            raise PbsError(400, f"could not apply filter: invalid match-field statement: {statement}")
        if m.group(1) == "regex":
            try:
                re.compile(m.group(3))
            except re.error as err:
                raise PbsError(400, f"could not apply filter: invalid regex: {err}") from err
    for entry in settings.get("match-severity") or []:
        for severity in entry.split(","):
            if severity.strip() not in SEVERITIES:
                raise PbsError(400, f"invalid severity {severity.strip()}")
    for span in settings.get("match-calendar") or []:
        problem = daily_duration_error(span)
        if problem:
            raise PbsError(400, f"could not parse schedule: {problem}")
    normalise(settings)


def _needs_recipient(section):
    """api/{sendmail,smtp}.rs add/update_endpoint."""
    if section["type"] in ("sendmail", "smtp") and not section.get("mailto") and not section.get("mailto-user"):
        raise PbsError(400, "must at least provide one recipient, either in mailto or in mailto-user")


# -- endpoints -----------------------------------------------------------------------------

def _endpoint(state, typ, name):
    """api/<type>.rs get_endpoint: the section of that type, else 404."""
    section = state.notification_endpoints.get(name)
    if section is None or section["type"] != typ:
        raise PbsError(404, f"endpoint '{name}' not found")
    return section


def list_endpoints(ctx, typ):
    """<type>.rs list_endpoints -> proxmox-notify get_endpoints."""
    state = _config(ctx.state)
    return [_view(name, section) for name, section in state.notification_endpoints.items()
            if section["type"] == typ]


def get_endpoint(ctx, typ):
    """<type>.rs get_endpoint: the section plus the file's digest."""
    state = _config(ctx.state)
    name = ctx.params["name"]
    return Result(_view(name, _endpoint(state, typ, name)), {"digest": _digest(state)})


def add_endpoint(ctx, typ):
    """<type>.rs add_endpoint -> proxmox-notify add_endpoint (ensure_unique, recipients)."""
    state = _config(ctx.state)
    name = ctx.params["name"]
    _ensure_unique(state, name)
    section = {"type": typ, **_settings(ctx.params)}
    for key in ("header", "secret"):
        if key in section:
            section[key] = [_print_key_value(_key_value(item)) for item in section[key]]
    _needs_recipient(section)
    state.notification_endpoints[name] = section


def update_endpoint(ctx, typ):
    """<type>.rs update_endpoint -> proxmox-notify update_endpoint: digest, lookup, delete, set."""
    state = _config(ctx.state)
    params, name = ctx.params, ctx.params["name"]
    _verify_digest(state, params)
    section = copy.deepcopy(_endpoint(state, typ, name))
    old_secrets = section.get("secret") or []  # read before ``delete``: a bare name still keeps its value
    for key in params.get("delete") or []:
        section.pop(key, None)
    settings = _settings(params)
    if "header" in settings:
        _check_headers(settings["header"])
        settings["header"] = [_print_key_value(_key_value(item)) for item in settings["header"]]
    if "secret" in settings:
        settings["secret"] = _merge_secrets(settings["secret"], old_secrets)
    section.update(settings)
    _needs_recipient(section)
    state.notification_endpoints[name] = section


def delete_endpoint(ctx, typ):
    """<type>.rs delete_endpoint -> api/mod.rs ensure_safe_to_delete: a built-in is only reset."""
    state = _config(ctx.state)
    name = ctx.params["name"]
    section = _endpoint(state, typ, name)
    if _origin(name, section) == "user-created":
        referrers = sorted(matcher for matcher, config in state.notification_matchers.items()
                           if name in (config.get("target") or []))
        if referrers:
            raise PbsError(400, f"cannot delete '{name}', referenced by: {', '.join(referrers)}")
    del state.notification_endpoints[name]


def _register(typ):
    collection = f"/config/notifications/endpoints/{typ}"
    item = collection + "/{name}"
    route("GET", collection)(lambda ctx: list_endpoints(ctx, typ))
    route("POST", collection)(lambda ctx: add_endpoint(ctx, typ))
    route("GET", item)(lambda ctx: get_endpoint(ctx, typ))
    route("PUT", item)(lambda ctx: update_endpoint(ctx, typ))
    route("DELETE", item)(lambda ctx: delete_endpoint(ctx, typ))


for _type in TYPES:
    _register(_type)


@route("GET", "/config/notifications/targets")
def list_targets(ctx):
    """targets.rs list_targets -> api/mod.rs get_targets: gotify, sendmail, smtp, webhook in turn."""
    state = _config(ctx.state)
    rows = []
    for typ in TARGET_ORDER:
        for name, section in state.notification_endpoints.items():
            if section["type"] != typ:
                continue
            row = {"name": name, "origin": _origin(name, section), "type": typ}
            row.update((key, section[key]) for key in ("disable", "comment") if key in section)
            rows.append(row)
    return rows


# -- matchers ------------------------------------------------------------------------------

def _matcher(state, name):
    """api/matcher.rs get_matcher."""
    section = state.notification_matchers.get(name)
    if section is None:
        raise PbsError(404, f"matcher '{name}' not found")
    return section


def _ensure_endpoints_exist(state, targets):
    """api/mod.rs ensure_endpoints_exist: a target must be an endpoint (a matcher is not)."""
    for target in targets or []:
        if target not in state.notification_endpoints:
            raise PbsError(404, f"endpoint '{target}' does not exist")


@route("GET", "/config/notifications/matchers")
def list_matchers(ctx):
    """matchers.rs list_matchers."""
    state = _config(ctx.state)
    return [_view(name, section) for name, section in state.notification_matchers.items()]


@route("GET", "/config/notifications/matchers/{name}")
def get_matcher(ctx):
    """matchers.rs get_matcher: the section plus the file's digest."""
    state = _config(ctx.state)
    name = ctx.params["name"]
    return Result(_view(name, _matcher(state, name)), {"digest": _digest(state)})


@route("POST", "/config/notifications/matchers")
def add_matcher(ctx):
    """matchers.rs add_matcher -> api/matcher.rs add_matcher (values parsed before the handler)."""
    settings = _settings(ctx.params)
    _parse_matcher_values(settings)
    state = _config(ctx.state)
    _ensure_unique(state, ctx.params["name"])
    _ensure_endpoints_exist(state, settings.get("target"))
    state.notification_matchers[ctx.params["name"]] = settings


@route("PUT", "/config/notifications/matchers/{name}")
def update_matcher(ctx):
    """matchers.rs update_matcher -> api/matcher.rs update_matcher: digest, lookup, delete, set."""
    params, name = ctx.params, ctx.params["name"]
    settings = _settings(params)
    _parse_matcher_values(settings)
    state = _config(ctx.state)
    _verify_digest(state, params)
    section = copy.deepcopy(_matcher(state, name))
    for key in params.get("delete") or []:
        section.pop(key, None)
    if "target" in settings:
        _ensure_endpoints_exist(state, settings["target"])
    section.update(settings)
    state.notification_matchers[name] = section


@route("DELETE", "/config/notifications/matchers/{name}")
def delete_matcher(ctx):
    """matchers.rs delete_matcher: nothing refers to a matcher; a built-in is reset."""
    state = _config(ctx.state)
    _matcher(state, ctx.params["name"])
    del state.notification_matchers[ctx.params["name"]]
