"""/cluster/metrics/server and /cluster/metrics/server/{id}: status.cfg (pve-manager
``API2/Cluster/MetricServer.pm``, ``PVE/Status/{Plugin,Graphite,InfluxDB,OpenTelemetry}.pm``).

status.cfg is a SectionConfig: ``state.metric_servers`` maps an id to its section
(``type`` plus the options as the file holds them, all text: a read answers ``"port": "8086"``).
Create is ``POST`` on the item path (the collection has only GET). ``type`` is fixed, ``server``
and ``port`` are required by the create and update schemas. The InfluxDB ``token`` is taken out
of the request (``extract_sensitive_params``) and kept by the plugin's hooks in
``/etc/pve/priv/metricserver/<id>.pw`` (here ``state.metric_secrets``); the other types have no
hook, so a token sent to them is dropped. Reads never return it. The connection test a write
runs (InfluxDB over HTTP(S), Graphite over TCP) is not simulated: it always passes.
"""

import hashlib
from collections import OrderedDict

from ...errors import die, locked
from ...formats import split_list
from ..state import register_slice
from .base import route

register_slice("metric_servers", OrderedDict)  # status.cfg
# priv/metricserver/<id>.pw (InfluxDB tokens); not in the snapshot (it never was)
register_slice("metric_secrets", dict, snapshot=False)

# each plugin's options(): option -> required
TYPES = {
    "graphite": {"server": True, "port": False, "proto": False, "timeout": False, "path": False,
                 "disable": False},
    "influxdb": {"server": True, "port": True, "mtu": False, "disable": False, "organization": False,
                 "bucket": False, "token": False, "influxdbproto": False, "timeout": False,
                 "max-body-size": False, "api-path-prefix": False, "verify-certificate": False},
    "opentelemetry": {"server": True, "port": False, "disable": False, "otel-protocol": False,
                      "otel-path": False, "otel-timeout": False, "otel-headers": False,
                      "otel-verify-ssl": False, "otel-max-body-size": False,
                      "otel-resource-attributes": False, "otel-compression": False},
}
SENSITIVE = ("token",)
# the plugins whose on_add/on_update/on_delete hooks keep a credential file
KEEPS_TOKEN = ("influxdb",)


def _raw_config(state):
    out = []
    for sid, section in state.metric_servers.items():
        out.append(f"{section['type']}: {sid}\n")
        out.extend(f"\t{key} {value}\n" for key, value in sorted(section.items()) if key != "type")
        out.append("\n")
    return "".join(out)


def _digest(state):
    return hashlib.sha1(_raw_config(state).encode()).hexdigest()


def _sensitive(params, delete=()):
    """PVE::Tools::extract_sensitive_params: a deleted secret becomes None, a sent one its value."""
    found = {}
    for key in SENSITIVE:
        if key in delete:
            found[key] = None
        value = params.pop(key, None)
        if value is not None:
            found[key] = value
    return found


def _check_config(typ, params, create):
    """SectionConfig::check_config with the plugin's options (values as sent, checked by the schema)."""
    options = TYPES[typ]
    settings = {}
    for key, value in sorted(params.items()):
        if key not in options:
            raise die(f"unexpected property '{key}'")
        if "\n" in str(value) or "\r" in str(value):
            raise die("property contains a line feed")
        settings[key] = str(value)
    if create:
        for key, required in options.items():
            if required and key not in SENSITIVE and params.get(key) is None:
                raise die(f"missing value for required option '{key}'")
    return settings


def _keep_token(state, sid, typ, sensitive, create):
    """InfluxDB on_add_hook / on_update_hook: write, or remove, <id>.pw (an update that names no token
    leaves it)."""
    if typ not in KEEPS_TOKEN or (not create and "token" not in sensitive):
        return
    token = sensitive.get("token")
    if token is None:
        state.metric_secrets.pop(sid, None)
    else:
        state.metric_secrets[sid] = token


@route("GET", "/cluster/metrics/server")
def index(ctx, p):
    return [{"id": sid, "disable": section.get("disable", 0), "type": section["type"],
             "server": section.get("server"), "port": section.get("port")}
            for sid, section in sorted(ctx.state.metric_servers.items())]


@route("GET", "/cluster/metrics/server/{id}")
def read(ctx, p):
    section = ctx.state.metric_servers.get(p["id"])
    if section is None:
        raise die(f"status server entry '{p['id']}' does not exist")
    return dict(section)


@route("POST", "/cluster/metrics/server/{id}")
def create(ctx, p):
    state = ctx.state
    params = dict(ctx.raw)
    typ = params.pop("type")
    sid = params.pop("id")
    sensitive = _sensitive(params)
    with locked(state):
        if sid in state.metric_servers:
            raise die(f"Metric server '{sid}' already exists")
        settings = _check_config(typ, params, create=True)
        state.metric_servers[sid] = {"type": typ, **settings}
        _keep_token(state, sid, typ, sensitive, create=True)
    return None


@route("PUT", "/cluster/metrics/server/{id}")
def update(ctx, p):
    state = ctx.state
    params = dict(ctx.raw)
    sid = params.pop("id")
    digest = params.pop("digest", None)
    delete = split_list(params.pop("delete", None))
    sensitive = _sensitive(params, delete)
    with locked(state):
        if digest and digest != _digest(state):
            raise die("detected modified configuration - file changed by other user? Try again.")
        section = state.metric_servers.get(sid)
        if section is None:
            raise die(f"no such server '{sid}'")
        typ = section["type"]
        settings = _check_config(typ, params, create=False)
        section.update(settings)
        for key in delete:
            if key not in TYPES[typ]:
                raise die(f"no such option '{key}'")
            if TYPES[typ][key]:
                raise die(f"unable to delete required option '{key}'")
            if key in settings:
                raise die(f"cannot set and delete property '{key}' at the same time!")
            section.pop(key, None)
        _keep_token(state, sid, typ, sensitive, create=False)
    return None


@route("DELETE", "/cluster/metrics/server/{id}")
def delete(ctx, p):
    state = ctx.state
    with locked(state):
        section = state.metric_servers.get(p["id"])
        if section is None:
            # PVE looks the plugin up by the missing section's type (undef) before anything else
            raise die("unknown section type ''")
        state.metric_servers.pop(p["id"])
        state.metric_secrets.pop(p["id"], None)  # the plugin's on_delete_hook
    return None
