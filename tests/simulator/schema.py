"""The official PVE API schema: path index and request validation.

* ``load()`` finds ``pve-api-schema.json`` (``$PVE_API_SCHEMA``, else
  ``<repo>/../shared/pve-api/pve-api-schema.json``), parses it once per process
  and indexes it into a trie keyed by path segment (``{var}`` = wildcard,
  literal segments win, as in ``PVE::RESTHandler::find_handler``). Without the
  file it says so once on stderr and falls back to ``fallback_schema``.
* ``validate()`` is a port of ``PVE::JSONSchema::validate`` / ``check_prop`` /
  ``check_type`` / ``check_object`` / ``check_format`` /
  ``parse_property_string`` with PVE's exact messages and error keys.

The schema file is read from shared/ at runtime and never copied.
"""

import json
import os
import re
import sys
import threading
from pathlib import Path

from .errors import ApiError
from .fallback_schema import TREE as FALLBACK_TREE
from .formats import FORMATS, FORMAT_VALIDATORS, FormatError, split_list


def shared_schema_path(env_var, filename):
    """``$<env_var>``, else ``<repo>/../shared/pve-api/<filename>``."""
    env = os.environ.get(env_var)
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[2]
    return repo.parent / "shared" / "pve-api" / filename


def schema_path():
    return shared_schema_path("PVE_API_SCHEMA", "pve-api-schema.json")


# Paths whose last variable takes the rest of the path, slashes included (an ipset entry's CIDR).
REST_OF_PATH = ("/cluster/firewall/ipset/{name}/{cidr}", "/nodes/{node}/firewall/ipset/{name}/{cidr}",
                "/nodes/{node}/qemu/{vmid}/firewall/ipset/{name}/{cidr}",
                "/nodes/{node}/lxc/{vmid}/firewall/ipset/{name}/{cidr}",
                "/nodes/{node}/storage/{storage}/content/{volume}")  # Status.pm: volume IDs may contain '/'


class Node:
    __slots__ = ("literal", "var_name", "var", "info", "path")

    def __init__(self):
        self.literal = {}
        self.var_name = None
        self.var = None
        self.info = {}
        self.path = None


class SchemaIndex:
    """Trie of API paths -> method infos (parameters, permissions, ...)."""

    def __init__(self, tree, source):
        self.source = source
        self.root = Node()
        self.root.path = "/"
        self.methods = 0
        for entry in walk(tree):
            self._add(entry["path"], entry.get("info") or {})

    def _add(self, path, info):
        node = self.root
        for seg in [s for s in path.split("/") if s]:
            m = re.fullmatch(r"\{([^}]+)\}", seg)
            if m:
                if node.var is None:
                    node.var = Node()
                    node.var_name = m.group(1)
                node = node.var
            else:
                node = node.literal.setdefault(seg, Node())
        node.path = path
        node.info.update(info)
        self.methods += len(info)

    def find(self, method, rel_path):
        """Return (template, info, uri_params) or None (-> 501)."""
        node = self.root
        params = {}
        segments = [s for s in rel_path.split("/") if s]
        for index, seg in enumerate(segments):
            if seg in node.literal:
                node = node.literal[seg]
            elif node.var is not None:
                # PVE registers these with fragmentDelimiter => '': the variable keeps the rest of the path.
                rest = node.var.path in REST_OF_PATH
                params[node.var_name] = "/".join(segments[index:]) if rest else seg
                node = node.var
                if rest:
                    break
            else:
                return None
        info = node.info.get(method)
        if info is None:
            return None
        return node.path, info, params

    def lookup(self, method, template):
        """Method info of a path template (for tests and fallbacks)."""
        found = self.find(method, template)
        return found[1] if found else None


def walk(nodes):
    """Every node of an api_dump tree (``[{path, info, children}]``), parents before children."""
    for node in nodes:
        yield node
        yield from walk(node.get("children") or [])


class LazySchema:
    """A process-wide ``SchemaIndex``, parsed on the first ``load()``.

    ``path`` gives the schema file; without the file, ``load()`` says so once on
    stderr (``pve-simulator: <missing>``, ``{path}`` filled in) and indexes
    ``fallback()`` instead, under the name ``fallback``."""

    def __init__(self, path, fallback, missing):
        self._path = path
        self._fallback = fallback
        self._missing = missing
        self._lock = threading.Lock()
        self._index = None

    def load(self):
        with self._lock:
            if self._index is None:
                path = self._path()
                try:
                    with open(path, encoding="utf-8") as fh:
                        tree = json.load(fh)
                    self._index = SchemaIndex(tree, str(path))
                except FileNotFoundError:
                    print("pve-simulator: " + self._missing.format(path=path), file=sys.stderr)
                    self._index = SchemaIndex(self._fallback(), "fallback")
            return self._index


def _fallback_tree():
    return FALLBACK_TREE


_SCHEMA = LazySchema(
    schema_path, _fallback_tree,
    "schema file {path} not found; validating with the simulator's own minimal rules "
    "(tests/simulator/fallback_schema.py)")


def load():
    """The process-wide schema index (parsed once, ~50 ms for the 2 MB file)."""
    return _SCHEMA.load()


# ---------------------------------------------------------------------------
# Validation: port of PVE::JSONSchema (pve-common src/PVE/JSONSchema.pm)
# ---------------------------------------------------------------------------

_INTEGER_RE = re.compile(r"^[+-]?\d+$")
_NUMBER_RE = re.compile(r"^[+-]?(\d+\.\d+|\d+\.|\.\d+|\d+)([eE][+-]?\d+)?$")
_PATTERN_CACHE = {}


def _perl_ref(value):
    if isinstance(value, list):
        return "ARRAY"
    if isinstance(value, dict):
        return "HASH"
    if isinstance(value, bool):
        return "JSON::PP::Boolean"
    return None


def add_error(errors, path, msg):
    path = path or "_root"
    if path in errors:
        # Perl: join ('\n', ...) with single quotes -> a literal backslash-n
        errors[path] = errors[path] + "\\n" + msg
    else:
        errors[path] = msg


def _num(value):
    return float(value)


def _perl_num_text(value):
    """How Perl prints a schema bound (``minimum => '0'`` prints as 0)."""
    try:
        f = float(value)
    except (TypeError, ValueError):
        return str(value)
    return str(int(f)) if f.is_integer() else str(f)


def check_type(path, typ, value, errors):
    if not typ:
        return True
    if isinstance(typ, list):
        for t in typ:
            tmp = {}
            check_type(path, t, value, tmp)
            if not tmp:
                return True
        add_error(errors, path, f"type check ('{'|'.join(typ)}') failed")
        return False
    if isinstance(typ, dict):
        tmp = {}
        check_prop(value, typ, path, tmp)
        if not tmp:
            return True
        add_error(errors, path, "type check failed")
        return False
    if typ == "any":
        return True
    if typ == "null":
        if value is not None:
            add_error(errors, path, f"type check ('{typ}') failed - value is not null")
            return False
        return True
    ref = _perl_ref(value)
    if typ == "array":
        if ref != "ARRAY":
            add_error(errors, path, f"type check ('{typ}') failed")
            return False
        return True
    if typ == "object":
        if ref != "HASH":
            add_error(errors, path, f"type check ('{typ}') failed")
            return False
        return True
    if typ == "boolean" and isinstance(value, bool):
        return True  # JSON true/false
    if ref:
        add_error(errors, path, f"type check ('{typ}') failed - got {ref}")
        return False
    if typ == "string":
        return True
    if typ == "boolean":
        if value in ("1", "0"):
            return True
        add_error(errors, path, f"type check ('{typ}') failed - got '{value}'")
        return False
    if typ == "integer":
        if not _INTEGER_RE.match(value):
            add_error(errors, path, f"type check ('{typ}') failed - got '{value}'")
            return False
        return True
    if typ == "number":
        if not _NUMBER_RE.match(value):
            add_error(errors, path, f"type check ('{typ}') failed - got '{value}'")
            return False
        return True
    return True  # unknown types are not verified


def check_object(path, schema, value, additional, errors):
    if not isinstance(schema, dict):
        add_error(errors, path, "Invalid schema definition.")
        return
    if not isinstance(value, dict):
        add_error(errors, path, "an object is required")
        return
    for key, sub in schema.items():
        check_prop(value.get(key), sub, f"{path}.{key}" if path else key, errors)
    for key in value:
        newpath = f"{path}.{key}" if path else key
        sub = schema.get(key)
        if sub:
            requires = sub.get("requires")
            if requires:
                if isinstance(requires, dict):
                    check_prop(value, requires, path, errors)
                elif value.get(requires) is None:
                    # JSONSchema.pm check_object (the wording of pve-common 9.0.8 and later, commit 0f0e791)
                    add_error(errors, f"{path}.{requires}" if path else requires,
                              f"missing property required by '{newpath}'")
            continue
        if additional is not None and not isinstance(additional, dict) and not additional:
            add_error(errors, newpath, "property is not defined in schema and the schema "
                                       "does not allow additional properties")
            continue
        if isinstance(additional, dict):
            check_prop(value[key], additional, newpath, errors)


def _compile_pattern(pattern):
    compiled = _PATTERN_CACHE.get(pattern)
    if compiled is None:
        py = pattern.replace("(?^i:", "(?i:").replace("(?^:", "(?:")
        py = py.replace("[[:alnum:]", "[a-zA-Z0-9").replace("[:alnum:]", "a-zA-Z0-9")
        # PVE matches m/^$pattern$/ ; inline (?i:...) groups are scoped in Python
        try:
            compiled = re.compile(rf"^(?:{py})$", re.S)
        except re.error:
            compiled = re.compile(r"^.*$", re.S)  # never refuse on a pattern we cannot read
        _PATTERN_CACHE[pattern] = compiled
    return compiled


def check_prop(value, schema, path, errors):
    if not isinstance(schema, dict):
        add_error(errors, path, "Invalid schema definition.")
        return
    if schema.get("extends"):
        check_prop(value, schema["extends"], path, errors)
    if value is None:
        if schema.get("type") == "null":
            return
        # JSONSchema.pm check_object: a oneOf by type-property is as optional as its instance's variant (the
        # handler checks the variant itself; here: optional when every variant is)
        variants = schema.get("oneOf") if schema.get("type-property") else None
        if variants and all(variant.get("optional") for variant in variants):
            return
        if not schema.get("optional") and not schema.get("alias") and not schema.get("group"):
            add_error(errors, path, "property is missing and it is not optional")
        return
    if not check_type(path, schema.get("type"), value, errors):
        return
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for i, element in enumerate(value):
                check_prop(element, items, f"{path}[{i}]", errors)
        return
    if isinstance(value, dict):
        if schema.get("properties") or schema.get("additionalProperties"):
            check_object(path, schema.get("properties") or {}, value,
                         schema.get("additionalProperties"), errors)
        return
    if isinstance(value, bool):
        value = "1" if value else "0"
    fmt = schema.get("format")
    if fmt:
        try:
            check_format(fmt, value, path)
        except FormatError as err:
            add_error(errors, path, "invalid format - " + err.text())
            return
    pattern = schema.get("pattern")
    if pattern and not _compile_pattern(pattern).match(value):
        add_error(errors, path, "value does not match the regex pattern")
        return
    if schema.get("maxLength") is not None and len(value) > int(schema["maxLength"]):
        add_error(errors, path, f"value may only be {schema['maxLength']} characters long")
        return
    if schema.get("minLength") is not None and len(value) < int(schema["minLength"]):
        add_error(errors, path, f"value must be at least {schema['minLength']} characters long")
        return
    if _NUMBER_RE.match(value):
        if schema.get("maximum") is not None and _num(value) > _num(schema["maximum"]):
            add_error(errors, path,
                      f"value must have a maximum value of {_perl_num_text(schema['maximum'])}")
            return
        if schema.get("minimum") is not None and _num(value) < _num(schema["minimum"]):
            add_error(errors, path,
                      f"value must have a minimum value of {_perl_num_text(schema['minimum'])}")
            return
    enum = schema.get("enum")
    if enum and value not in [str(e) for e in enum]:
        add_error(errors, path, f"value '{value}' does not have a value in the enumeration "
                                f"'{', '.join(str(e) for e in enum)}'")


def check_format(fmt, value, path):
    if isinstance(fmt, dict):
        return parse_property_string(fmt, value, path)
    if fmt == "regex":
        return None
    m = re.match(r"^(.*?)(?:-(list|opt))?$", fmt)
    name, kind = m.group(1), m.group(2) or "none"
    registered = FORMATS.get(name)
    if registered is None:
        return None  # unknown named format: accepted leniently
    if kind == "list":
        for element in split_list(value):
            registered(element)
        return None
    if kind == "opt":
        if value:
            registered(value)
        return None
    if isinstance(registered, dict):
        return parse_property_string(registered, value, path, validator=FORMAT_VALIDATORS.get(name))
    return registered(value)


def parse_boolean(text):
    if re.match(r"^(1|on|yes|true)$", text, re.I):
        return "1"
    if re.match(r"^(0|off|no|false)$", text, re.I):
        return "0"
    return None


def parse_property_string(fmt, data, path, additional=0, validator=None):
    """Port of JSONSchema::parse_property_string (raises FormatError)."""
    res = {}
    default_key = None
    for part in data.split(","):
        if re.match(r"^\s*$", part):
            continue
        m = re.match(r"^([^=]+)=(.+)$", part, re.S)
        if m:
            key, val = m.group(1), m.group(2)
            if key in res:
                raise FormatError(f"duplicate key in comma-separated list property: {key}")
            sub = fmt.get(key)
            if sub and sub.get("alias"):
                key_alias = sub.get("keyAlias")
                if key_alias:
                    if key_alias in res:
                        raise FormatError(f"key alias '{key_alias}' is already defined")
                    res[key_alias] = key
                key = sub["alias"]
                sub = fmt.get(key)
            if not sub:
                raise FormatError(f"invalid key in comma-separated list property: {key}")
            if sub.get("type") == "boolean":
                parsed = parse_boolean(val)
                val = parsed if parsed is not None else val
            res[key] = val
        elif "=" not in part:
            if default_key:
                raise FormatError(f"duplicate key in comma-separated list property: {default_key}")
            for key, sub in fmt.items():
                if isinstance(sub, dict) and sub.get("default_key"):
                    default_key = key
                    if not res.get(key):
                        res[key] = part
                        break
                    raise FormatError(
                        f"duplicate key in comma-separated list property: {default_key}")
            if not default_key:
                raise FormatError("value without key, but schema does not define a default key")
        else:
            raise FormatError("missing key in comma-separated list property")
    errors = {}
    check_object(path, fmt, res, additional, errors)
    if errors:
        raise FormatError("format error", errors=errors)
    if validator:
        return validator(res)
    return res


def normalize_params(params, schema):
    """Form/JSON decoding + RESTHandler's legacy normalisation, before validation.

    JSON numbers become strings (Perl scalars), JSON booleans become '1'/'0' for
    boolean parameters, arrays sent for ``*-list`` strings are joined with ','
    and a scalar sent for an ``array`` parameter becomes a one-element array.
    """
    props = (schema or {}).get("properties") or {}
    out = {}
    for key, value in params.items():
        sub = props.get(key) or {}
        if isinstance(value, bool) and sub.get("type") == "boolean":
            value = "1" if value else "0"
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            value = _perl_num_text(value) if isinstance(value, float) else str(value)
        if value:
            fmt = sub.get("format")
            if isinstance(value, list) and isinstance(fmt, str) and fmt.endswith("-list"):
                value = ",".join(str(v) for v in value)
            if sub.get("type") == "array" and not isinstance(value, list):
                value = [value]
        out[key] = value
    return out


def validate(params, schema):
    """Raise 400 'Parameter verification failed.' with PVE's ``errors`` map."""
    errors = {}
    if schema:
        check_prop(params, schema, "", errors)
    if errors:
        raise ApiError(400, "Parameter verification failed.\n", errors=errors)


def coerce(params, schema):
    """Validated strings -> Python values handlers can use: booleans and
    integers become ints; everything else stays as sent."""
    props = (schema or {}).get("properties") or {}
    out = {}
    for key, value in params.items():
        typ = (props.get(key) or {}).get("type")
        if isinstance(value, str) and typ in ("boolean", "integer"):
            value = int(value)
        out[key] = value
    return out
