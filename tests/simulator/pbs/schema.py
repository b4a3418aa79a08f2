"""The official PBS API schema: lazy loading, path index, parameter parsing.

* ``load()`` finds ``pbs-api-schema.json`` (``$PBS_API_SCHEMA``, else
  ``<repo>/../shared/pve-api/pbs-api-schema.json``) and indexes it with the
  same trie as the PVE schema. It is parsed on the first PBS request, not at
  ``Simulator()`` start. Without the file it says so once on stderr and uses
  ``FALLBACK_TREE`` (the simulated methods, loosely).
* ``parse_parameter_strings()`` ports proxmox-schema's
  ``do_parse_parameter_strings`` (form bodies and query strings) and
  ``verify_object()`` its ``ObjectSchemaType::verify_json`` (JSON bodies),
  with proxmox-schema's texts (``schema does not allow additional
  properties.``, ``parameter is missing and it is not optional.``,
  ``Unable to parse boolean option.``, ``value must have a minimum value of 1
  (got 0)``, ``value does not match the regex pattern`` ...). A
  ``ParameterError`` prints like the Rust one: ``parameter verification failed
  - 'name': <reason>`` or ``parameter verification failed:\\n- 'a': ...``.
* A property-string value is checked like ``de::verify::verify``
  (proxmox-schema ``de/verify.rs``, ``de/mod.rs``, ``property_string.rs`` of
  proxmox-rs f3305009a212): ``duplicate key``, ``schema does not allow
  additional properties`` (no period), ``not an integer: "x"``, ``schema
  validation failed: <why>``, and the syntax errors ``unexpected end of
  string`` / ``garbage after quoted string`` / ``unsupported escape
  sequence``.

The schema file is read from shared/ at runtime and never copied.
"""

import re

from ..schema import LazySchema, shared_schema_path

_PATTERNS = {}

SAFE_ID = r"(?:[A-Za-z0-9_][A-Za-z0-9._\-]*)"
_CNTRL = r"\x00-\x1f\x7f"


def schema_path():
    return shared_schema_path("PBS_API_SCHEMA", "pbs-api-schema.json")


_SCHEMA = LazySchema(
    schema_path, lambda: FALLBACK_TREE,
    "PBS schema file {path} not found; validating PBS requests with the simulator's "
    "own minimal rules")


def load():
    """The process-wide PBS schema index (parsed on first use)."""
    return _SCHEMA.load()


# -- errors (proxmox-schema ParameterError) --------------------------------------

class SchemaError(Exception):
    """One failed check (anyhow::Error with this text)."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message

    def __str__(self):
        return self.message


class ParameterError(SchemaError):
    """A list of (name, error) pairs; prints like proxmox-schema's Display."""

    def __init__(self, errors=None):
        self.errors = list(errors or [])
        super().__init__("")

    def push(self, name, err):
        self.errors.append((name, err))

    def add_errors(self, prefix, err):
        if isinstance(err, ParameterError):
            for key, sub in err.errors:
                self.errors.append((f"{prefix}/{key}", sub))
        else:
            self.errors.append((prefix, err))

    def __str__(self):
        if not self.errors:
            return ""
        if len(self.errors) == 1:
            name, err = self.errors[0]
            return f"parameter verification failed - '{name}': {err}".strip()
        lines = "".join(f"- '{name}': {err}\n" for name, err in self.errors)
        return ("parameter verification failed:\n" + lines).strip()  # Display trims the message


# -- regexes ------------------------------------------------------------------------

def compile_pattern(pattern):
    """A PBS schema pattern (``/^...$/``, POSIX classes) as a Python regex.

    Rust's ``is_match`` searches, so the pattern's own anchors decide; a final
    ``$`` means end of text (Rust), not "before a final newline" (Python)."""
    cached = _PATTERNS.get(pattern)
    if cached is not None:
        return cached
    text = pattern
    if len(text) >= 2 and text.startswith("/") and text.endswith("/"):
        text = text[1:-1]
    text = text.replace("[[:^cntrl:]]", f"[^{_CNTRL}]").replace("[:cntrl:]", _CNTRL)
    if not text.startswith("(?m)") and text.endswith("$") and not text.endswith("\\$"):
        text = text[:-1] + r"\Z"
    compiled = re.compile(text)
    _PATTERNS[pattern] = compiled
    return compiled


# -- simple values ---------------------------------------------------------------

def _rust_num(value):
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _check_range(schema, value):
    minimum, maximum = schema.get("minimum"), schema.get("maximum")
    if minimum is not None and value < minimum:
        raise SchemaError(f"value must have a minimum value of {_rust_num(minimum)} (got {_rust_num(value)})")
    if maximum is not None and value > maximum:
        raise SchemaError(f"value must have a maximum value of {_rust_num(maximum)} (got {_rust_num(value)})")


def parse_boolean(text):
    low = text.lower()
    if low in ("1", "on", "yes", "true"):
        return True
    if low in ("0", "off", "no", "false"):
        return False
    raise SchemaError("Unable to parse boolean option.")


def _parse_int(text):
    """Rust ``str::parse::<isize>`` with its error texts."""
    if text == "":
        raise SchemaError("cannot parse integer from empty string")
    if not re.fullmatch(r"[+-]?[0-9]+", text) or text in ("+", "-"):
        raise SchemaError("invalid digit found in string")
    value = int(text)
    if value > 2 ** 63 - 1:
        raise SchemaError("number too large to fit in target type")
    if value < -2 ** 63:
        raise SchemaError("number too small to fit in target type")
    return value


def _parse_float(text):
    if text == "":
        raise SchemaError("cannot parse float from empty string")
    if not re.fullmatch(r"[+-]?(inf|infinity|nan|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)",
                        text, re.I):
        raise SchemaError("invalid float literal")
    return float(text)


def check_string(schema, value):
    """StringSchema::check_constraints."""
    length = len(value)
    if schema.get("minLength") is not None and length < schema["minLength"]:
        raise SchemaError(f"value must be at least {schema['minLength']} characters long")
    if schema.get("maxLength") is not None and length > schema["maxLength"]:
        raise SchemaError(f"value may only be {schema['maxLength']} characters long")
    if schema.get("pattern"):
        if not compile_pattern(schema["pattern"]).search(value):
            raise SchemaError("value does not match the regex pattern")
    elif schema.get("enum"):
        if value not in schema["enum"]:
            raise SchemaError(f"value '{value}' is not defined in the enumeration.")
    elif isinstance(schema.get("format"), dict):
        verify_property_string(schema["format"], value)


def parse_simple_value(schema, text):
    typ = schema.get("type", "string")
    if typ == "boolean":
        return parse_boolean(text)
    if typ == "integer":
        value = _parse_int(text)
        _check_range(schema, value)
        return value
    if typ == "number":
        value = _parse_float(text)
        _check_range(schema, value)
        return value
    if typ == "string":
        check_string(schema, text)
        return text
    if typ == "null":
        raise SchemaError("internal error - found Null schema.")
    raise SchemaError("unable to parse complex (sub) objects.")


# -- property strings -----------------------------------------------------------

def rust_debug_str(text):
    """``format!("{:?}", s)`` of a Rust ``&str``: in double quotes, with backslash, quote, newline, CR,
    tab and NUL escaped and other control characters as ``u{hex}`` escapes."""
    out = []
    for char in text:
        code = ord(char)
        if char in _DEBUG_ESCAPES:
            out.append(_DEBUG_ESCAPES[char])
        elif code < 0x20 or code == 0x7f or 0x80 <= code < 0xa0:
            out.append(f"\\u{{{code:x}}}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


_DEBUG_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}
_QUOTED_ESCAPES = {'"': '"', "\\": "\\", "n": "\n"}


def _next_property(data):
    """property_string.rs ``next_property``: (key or None, value, rest). A key ends at the first ``=``
    before any ``,``; a value is quoted (escaped quote, backslash and ``n``) or runs to the next ``,``."""
    key = None
    if not data.startswith('"'):
        stops = [pos for pos in (data.find(","), data.find("=")) if pos >= 0]
        if stops and data[min(stops)] == "=":
            key, data = data[:min(stops)], data[min(stops) + 1:]
        if not data.startswith('"'):
            value, _comma, rest = data.partition(",")
            return key, value, rest
    value, data = _parse_quoted_string(data)
    if data:
        if not data.startswith(","):
            raise SchemaError("garbage after quoted string")
        data = data[1:]
    return key, value, data


def _parse_quoted_string(data):
    """property_string.rs ``parse_quoted_string``: (unescaped value, rest after the closing quote)."""
    out = []
    pos = 1
    while pos < len(data):
        char = data[pos]
        if char == '"':
            return "".join(out), data[pos + 1:]
        if char == "\\":
            pos += 1
            if pos == len(data):
                break
            if data[pos] not in _QUOTED_ESCAPES:
                raise SchemaError("unsupported escape sequence")
            char = _QUOTED_ESCAPES[data[pos]]
        out.append(char)
        pos += 1
    raise SchemaError("unexpected end of string")


def _property_entries(text):
    """proxmox-schema PropertyIterator: (key or None, value) pairs."""
    while text:
        key, value, text = _next_property(text)
        yield key, value


def parse_property_string(schema, text):
    """Schema::parse_property_string for object schemas (a format dict): the typed values."""
    pairs = []
    for key, value in _property_entries(text):
        if key is None:
            default_key = schema.get("default_key")
            if not default_key:
                raise SchemaError(f"Value '{value}' without key, but schema does not define a default key.")
            key = default_key
        pairs.append((key, value))
    return parse_parameter_strings(schema, pairs, True)


def verify_property_string(schema, text):
    """proxmox-schema ``de::verify::verify`` (what ``StringSchema::check_constraints`` runs for a
    property-string format): a syntax error ends it with its own text; otherwise every key's problem
    is collected (``duplicate key``, ``schema does not allow additional properties``, the value's
    deserialization error) and then the missing required keys, as one ParameterError."""
    props = schema.get("properties") or {}
    required = {name for name, prop in props.items() if not prop.get("optional")}
    seen = set()
    errors = ParameterError()
    for key, value in _property_entries(text):
        if key is None:
            key = schema.get("default_key")
            if not key:
                raise SchemaError("value without key, but schema does not define a default key")
        prop = props.get(key)
        if prop is None:
            if not _additional(schema):
                errors.push(key, SchemaError("schema does not allow additional properties"))
            elif key in seen:
                errors.push(key, SchemaError("duplicate key"))
            seen.add(key)
            continue
        if not prop.get("optional"):
            if key not in required:
                errors.push(key, SchemaError("duplicate key"))
            required.discard(key)
        else:
            if key in seen:
                errors.push(key, SchemaError("duplicate key"))
            seen.add(key)
        try:
            _deserialize_value(prop, value)
        except SchemaError as err:
            errors.push(key, err)
    for name in sorted(required):
        errors.push(name, SchemaError("property is missing and it is not optional"))
    if errors.errors:
        raise errors


def _deserialize_value(schema, text):
    """de/mod.rs SchemaDeserializer::deserialize_any for one property-string value: a value Rust cannot
    parse says so, a failed constraint is ``schema validation failed: <why>``."""
    typ = schema.get("type", "string")
    if typ == "boolean":
        try:
            parse_boolean(text)
        except SchemaError:
            raise SchemaError(f"not a boolean: {rust_debug_str(text)}") from None
        return
    if typ == "null":
        raise SchemaError("null")
    try:
        if typ == "integer":
            value = _parse_int(text)
        elif typ == "number":
            value = _parse_float(text)
    except SchemaError:
        what = "an integer" if typ == "integer" else "a valid number"
        raise SchemaError(f"not {what}: {rust_debug_str(text)}") from None
    try:
        if typ in ("integer", "number"):
            _check_range(schema, value)
        elif typ == "string":
            check_string(schema, text)
    except SchemaError as err:
        raise SchemaError(f"schema validation failed: {err}") from None


# -- objects -----------------------------------------------------------------------

def _additional(schema):
    return bool(schema.get("additionalProperties"))


def parse_parameter_strings(schema, pairs, test_required=True):
    """do_parse_parameter_strings: (key, text) pairs -> typed dict or ParameterError."""
    props = schema.get("properties") or {}
    params = {}
    errors = ParameterError()
    for key, value in pairs:
        prop = props.get(key)
        if prop is not None:
            if prop.get("type") == "array":
                items = prop.get("items") or {"type": "string"}
                params.setdefault(key, [])
                try:
                    params[key].append(parse_simple_value(items, value))
                except SchemaError as err:
                    errors.push(key, err)
            else:
                try:
                    parsed = parse_simple_value(prop, value)
                except SchemaError as err:
                    errors.push(key, err)
                    continue
                if key in params:
                    errors.push(key, SchemaError("duplicate parameter."))
                else:
                    params[key] = parsed
        elif _additional(schema):
            old = params.get(key)
            if old is None:
                params[key] = value
            elif isinstance(old, list):
                old.append(value)
            else:
                params[key] = [old, value]
        else:
            errors.push(key, SchemaError("schema does not allow additional properties."))
    if test_required and not errors.errors:
        for name in sorted(props):
            if not props[name].get("optional") and params.get(name) is None:
                errors.push(name, SchemaError("parameter is missing and it is not optional."))
    if errors.errors:
        raise errors
    return params


def verify_json(schema, value):
    """Schema::verify_json for one value."""
    typ = schema.get("type", "string")
    if typ == "null":
        if value is not None:
            raise SchemaError("Expected Null, but value is not Null.")
    elif typ == "boolean":
        if not isinstance(value, bool):
            raise SchemaError("Expected boolean value.")
    elif typ == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise SchemaError("Expected integer value.")
        _check_range(schema, value)
    elif typ == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SchemaError("Expected number value.")
        _check_range(schema, value)
    elif typ == "string":
        if not isinstance(value, str):
            raise SchemaError("Expected string value.")
        check_string(schema, value)
    elif typ == "array":
        if isinstance(value, dict):
            raise SchemaError("Expected array - got object.")
        if not isinstance(value, list):
            raise SchemaError("Expected array - got scalar value.")
        items = schema.get("items") or {"type": "string"}
        for index, item in enumerate(value):
            try:
                verify_json(items, item)
            except SchemaError as err:
                raise ParameterError([(f"[{index}]", err)]) from err
    elif typ == "object":
        verify_object(schema, value)


def verify_object(schema, data):
    """ObjectSchemaType::verify_json (a JSON request body)."""
    if isinstance(data, list):
        raise SchemaError("Expected object - got array.")
    if not isinstance(data, dict):
        raise SchemaError("Expected object - got scalar value.")
    props = schema.get("properties") or {}
    errors = ParameterError()
    for key in sorted(data):  # serde_json's Map is ordered by key
        prop = props.get(key)
        if prop is not None:
            try:
                verify_json(prop, data[key])
            except SchemaError as err:
                errors.add_errors(key, err)
        elif not _additional(schema):
            errors.push(key, SchemaError("schema does not allow additional properties"))
    for name in sorted(props):
        if not props[name].get("optional") and data.get(name) is None:
            errors.push(name, SchemaError("property is missing and it is not optional"))
    if errors.errors:
        raise errors


# -- fallback rules (no schema file) -------------------------------------------

_NAME = {"type": "string", "minLength": 3, "maxLength": 32, "pattern": f"/^{SAFE_ID}$/"}
_NODE = {"type": "string", "pattern": r"/^(?:[a-zA-Z0-9](?:[a-zA-Z0-9\-]*[a-zA-Z0-9])?)$/"}
_UPID = {"type": "string", "minLength": 36, "pattern": r"/^UPID:[^:\s]+:[0-9A-Fa-f]{8}:[0-9A-Fa-f]{8,9}:"
         r"[0-9A-Fa-f]{8,16}:[0-9A-Fa-f]{8}:[^:\s]+:[^:\s]*:[^:\s]+:$/"}
_LOOSE = {"additionalProperties": True, "properties": {"name": _NAME}}

# Datastore options the simulator stores, typed as PBS types them, so create and update validate
# the same way with or without the schema file (closed objects, keep-* at least 1, real booleans).
_TEXT = {"type": "string", "optional": 1}
_FLAG = {"type": "boolean", "optional": 1}
_KEEP = {"type": "integer", "minimum": 1, "optional": 1}
_DATASTORE_OPTIONS = dict(
    {key: _TEXT for key in ("comment", "gc-schedule", "prune-schedule", "counter-reset-schedule", "notify",
                            "notify-user", "notification-mode", "notification-thresholds", "tuning",
                            "maintenance-mode")},
    **{"keep-" + window: _KEEP for window in ("last", "hourly", "daily", "weekly", "monthly", "yearly")},
    **{key: _FLAG for key in ("verify-new", "gc-on-unmount")})
_DATASTORE_CREATE = {"additionalProperties": False, "properties": dict(
    _DATASTORE_OPTIONS, name=_NAME, path={"type": "string", "minLength": 1, "maxLength": 4096},
    backend=_TEXT, **{"backing-device": _TEXT, "overwrite-in-use": _FLAG, "reuse-datastore": _FLAG})}
_DATASTORE_UPDATE = {"additionalProperties": False, "properties": dict(
    _DATASTORE_OPTIONS, name=_NAME, digest=_TEXT,
    delete={"type": "array", "optional": 1, "items": {"type": "string"}})}

FALLBACK_TREE = [
    {"path": "/version", "info": {"GET": {"parameters": {"properties": {}},
                                          "permissions": {"user": "all"}}}},
    {"path": "/config/datastore", "info": {
        "GET": {"parameters": {"properties": {}}, "permissions": {"user": "all"}},
        "POST": {"parameters": _DATASTORE_CREATE}}},
    {"path": "/config/datastore/{name}", "info": {
        "GET": {"parameters": {"properties": {"name": _NAME}}},
        "PUT": {"parameters": _DATASTORE_UPDATE}, "DELETE": {"parameters": _LOOSE}}},
    {"path": "/nodes/{node}/tasks/{upid}/status", "info": {
        "GET": {"parameters": {"properties": {"node": _NODE, "upid": _UPID}},
                "permissions": {"user": "all"}}}},
    {"path": "/nodes/{node}/tasks/{upid}/log", "info": {
        "GET": {"parameters": {"additionalProperties": True,
                               "properties": {"node": _NODE, "upid": _UPID}},
                "permissions": {"user": "all"}}}},
]
