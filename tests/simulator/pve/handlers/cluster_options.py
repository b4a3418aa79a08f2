"""/cluster/options: datacenter.cfg (pve-manager ``API2/Cluster.pm`` get_options/set_options,
pve-cluster ``PVE/DataCenterConfig.pm`` parse/write_datacenter_config).

``state.datacenter`` holds the file: option -> its text as written (property strings as
strings), ``description`` as the text of the file's comment lines. A read parses it the way
``parse_datacenter_config`` does: the property strings PVE parses come back as objects,
``registered-tags`` and ``user-tag-access``'s ``user-allow-list`` as arrays, ``description``
is always present (every comment line plus a newline, ``''`` without one) and ``console:
applet`` reads ``html5``. Neither the read nor the write has a digest: ``PUT`` takes no
``digest`` parameter (PVE 9 schema) and writes under the file lock, last writer wins.
"""

from ...errors import die, locked
from ...formats import split_list
from ...schema import load, parse_property_string
from ..state import register_slice
from .base import route
from .texts import perl_lines

register_slice("datacenter", dict)  # datacenter.cfg

PATH = "/cluster/options"
# the options parse_datacenter_config turns into objects (their formats come from the schema)
PARSED = ("crs", "migration", "replication", "next-id", "ha", "notify", "u2f", "webauthn", "tag-style",
          "user-tag-access")
NEXT_ID_DEFAULTS = {"lower": 100, "upper": 1000000}


def _formats():
    """Each option's property-string format, as the PUT schema gives it."""
    props = load().lookup("PUT", PATH)["parameters"]["properties"]
    return {key: prop["format"] for key, prop in props.items() if isinstance(prop.get("format"), dict)}


def read_property_string(fmt, text, path):
    """A property string as PVE's reads answer it: an object whose booleans are 1/0 (parse_boolean's
    numbers) and whose other values stay the text they were (Perl strings)."""
    parsed = parse_property_string(fmt, text, path)
    return {key: int(value) if (fmt.get(key) or {}).get("type") == "boolean" else value
            for key, value in parsed.items()}


def _tags(text):
    return [tag for tag in text.split(";") if tag]


def _view(conf):
    """parse_datacenter_config over the file."""
    formats = _formats()
    res = {}
    for key, value in conf.items():
        if key == "description":
            continue
        if key in PARSED:
            value = read_property_string(formats[key], value, key)
            if key == "user-tag-access" and value.get("user-allow-list"):
                value["user-allow-list"] = _tags(value["user-allow-list"])
        elif key == "registered-tags":
            value = _tags(value)
        elif key == "console" and value == "applet":
            value = "html5"
        res[key] = value
    res["description"] = "".join(line + "\n" for line in perl_lines(conf.get("description", "")))
    return res


def _reprinted(key, value):
    """What write_datacenter_config writes for an option it read as a reference: the tag lists sorted
    (an option the request sets is written as sent)."""
    if key == "registered-tags":
        return ";".join(sorted(_tags(value)))
    if key == "user-tag-access":
        parts = []
        for part in value.split(","):
            name, _sep, item = part.partition("=")
            parts.append(f"{name}={';'.join(sorted(_tags(item)))}" if name == "user-allow-list" else part)
        return ",".join(parts)
    return value


def _check_next_id(text):
    """write_datacenter_config: the range must not be empty."""
    bounds = dict(NEXT_ID_DEFAULTS)
    bounds.update((key, int(item)) for key, _sep, item in
                  (part.partition("=") for part in text.split(",") if part))
    if bounds["lower"] > bounds["upper"]:
        raise die(f"lower ({bounds['lower']}) <= upper ({bounds['upper']}) boundary rule broken")


@route("GET", PATH)
def read(ctx, p):
    return _view(ctx.state.datacenter)


@route("PUT", PATH)
def update(ctx, p):
    state = ctx.state
    params = dict(ctx.raw)
    delete = split_list(params.pop("delete", None))
    # an error inside cfs_lock_file's code is re-raised as it is, without a lock prefix
    with locked(state):
        conf = state.datacenter
        for key in list(conf):
            if key not in params:
                conf[key] = _reprinted(key, conf[key])
        conf.update(params)
        for key in delete:
            conf.pop(key, None)
        if "migration_unsecure" in conf and "migration" not in conf:
            conf["migration"] = "insecure" if conf.pop("migration_unsecure") == "1" else "secure"
        if conf.get("console") == "applet":
            conf["console"] = "html5"
        if conf.get("next-id"):
            _check_next_id(conf["next-id"])
        if not conf.get("description"):
            conf.pop("description", None)
    return None
