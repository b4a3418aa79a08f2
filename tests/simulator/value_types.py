"""The JSON type of every value a config read answers, as PVE's and PBS's parsers give it: one place.

A config file is text; what a read answers is what the product's parser made of that text, so the type of a
value depends on the property's schema type and on which parser read the file, never on how the simulator
happened to store it (an ``int`` for a string property, ``"1"`` for a boolean). ``answer`` retypes a read's
``data`` by the read's property schema (``properties``) under the parser that reads its file (``PARSERS``):

* ``section-config``: pve-common ``SectionConfig.pm check_value`` returns ``$value + 0`` for boolean, integer
  and number properties (JSON numbers) and the text for every other (storage.cfg, domains.cfg, the SDN,
  HA, metric server, jobs and replication files). So a ``pbs`` storage's ``master-pubkey 1`` (a string
  property) reads as ``"1"``.
* ``guest-config``: qemu-server ``QemuServer.pm check_type`` and pve-container ``LXC/Config.pm check_type``
  return 1/0 for booleans and ``int($1)`` for integers; a ``number`` is returned as the text it matched, a
  Perl string, so ``cpulimit: 0.5`` reads as ``"0.5"`` (pve-wire.md 2.6).
* ``user-config``: pve-access-control ``AccessControl.pm parse_user_config``: ``enable`` 1/0, ``expire``
  ``int()``, a token's ``privsep`` 1/0, the rest text: booleans and integers numbers.
* ``key-value``: pve-common ``JSONSchema.pm parse_config`` (datacenter.cfg through pve-cluster
  ``DataCenterConfig.pm``): only booleans go through ``parse_boolean`` (1/0); every other value stays the
  text read, integers included.
* ``firewall``: pve-firewall ``Firewall.pm parse_clusterfw_option`` / ``parse_hostfw_option`` /
  ``parse_vmfw_option`` (a guest's file) / ``parse_vnetfw_option`` and the rule parser: ``int()`` on the flag
  and integer options, the text otherwise: booleans and integers numbers.
* ``notify``: pve-manager ``API2/Cluster/Notifications.pm`` answers proxmox-notify's typed config through
  perlmod, whose serializer hands a Rust ``bool`` to Perl as an unsigned integer (perlmod-rs
  ``perlmod/src/ser/mod.rs serialize_bool``): flags 1/0, numbers JSON numbers.
* ``serde`` (PBS): the typed Rust config structs serialized by serde_json: booleans JSON ``true``/``false``,
  integers and numbers JSON numbers, the rest strings.

Only scalars are retyped; a list or an object (a property string the handler expanded, a map) is the
handler's. A key the property schema does not name (``digest``, ``type`` of a list row) is left alone.
"""

import re

SCALAR_TYPES = ("boolean", "integer", "number", "string")


class Parser:
    """One product parser's rule: which schema types come out of the file as JSON numbers (or booleans)."""

    def __init__(self, name, source, numeric, json_booleans=False, bare_flag_on=False):
        self.name = name
        self.source = source
        self.numeric = frozenset(numeric)
        self.json_booleans = json_booleans
        # a flag written without a value (``enabled`` alone on its line, stored as '') reads as set
        self.bare_flag_on = bare_flag_on

    def json_type(self, schema_type):
        """The JSON type a value of ``schema_type`` reads as: 'boolean', 'number' or 'string'."""
        if schema_type == "boolean" and self.json_booleans:
            return "boolean"
        return "number" if schema_type in self.numeric else "string"

    def value(self, value, schema_type):
        if schema_type not in SCALAR_TYPES or not _scalar(value):
            return value
        wanted = self.json_type(schema_type)
        if value == "" and wanted != "string":
            # SectionConfig check_value: `$value = 1 if $ct eq 'boolean' && !defined($value)`; elsewhere an
            # empty value is what the handler kept (the parsers refuse it, the simulator never writes one)
            return (True if wanted == "boolean" else 1) if self.bare_flag_on and schema_type == "boolean" else value
        if wanted == "boolean":
            return _truth(value)
        if wanted == "number":
            return _number(value, schema_type)
        return _text(value)


NUMBERS = ("boolean", "integer", "number")
PARSERS = {parser.name: parser for parser in (
    Parser("section-config", "pve-common src/PVE/SectionConfig.pm check_value", NUMBERS, bare_flag_on=True),
    Parser("guest-config", "qemu-server src/PVE/QemuServer.pm check_type; pve-container src/PVE/LXC/Config.pm "
                           "check_type", ("boolean", "integer")),
    Parser("user-config", "pve-access-control src/PVE/AccessControl.pm parse_user_config", ("boolean", "integer")),
    Parser("key-value", "pve-common src/PVE/JSONSchema.pm parse_config", ("boolean",)),
    Parser("firewall", "pve-firewall src/PVE/Firewall.pm parse_*fw_option, parse_fw_rule", ("boolean", "integer")),
    Parser("notify", "pve-manager PVE/API2/Cluster/Notifications.pm: proxmox-notify's typed config through perlmod "
                     "(PVE::RS::Notify; perlmod-rs perlmod/src/ser/mod.rs serialize_bool: Value::new_uint)", NUMBERS),
    Parser("serde", "proxmox-backup: serde_json of the pbs-api-types config structs", NUMBERS, json_booleans=True),
)}

# Which parser reads the file behind a read, by the read's path template (the longest prefix wins). A read
# under none of them (a live status, a task, Ceph's own JSON) is answered as its handler built it.
PVE_FILES = {
    "/storage": "section-config",
    "/access/domains": "section-config",
    "/access/users": "user-config",
    "/access/groups": "user-config",
    "/access/roles": "user-config",
    "/access/acl": "user-config",
    "/pools": "user-config",
    "/cluster/options": "key-value",
    "/cluster/sdn": "section-config",
    "/cluster/ha": "section-config",
    "/cluster/metrics/server": "section-config",
    "/cluster/backup": "section-config",
    "/cluster/replication": "section-config",
    "/cluster/notifications": "notify",
    "/cluster/acme/plugins": "section-config",
    # pve-guest-common PVE/Mapping/{PCI,USB,Dir}.pm: each type's file a SectionConfig
    "/cluster/mapping": "section-config",
    "/cluster/firewall": "firewall",
    "/nodes/{node}/firewall": "firewall",
    # a guest's <vmid>.fw and a vnet's sdn/firewall/<vnet>.fw (not the guest config's or SDN's section parser)
    "/nodes/{node}/qemu/{vmid}/firewall": "firewall",
    "/nodes/{node}/lxc/{vmid}/firewall": "firewall",
    "/cluster/sdn/vnets/{vnet}/firewall": "firewall",
    # NodeConfig.pm parse_node_config: PVE::JSONSchema::parse_config, as datacenter.cfg
    "/nodes/{node}/config": "key-value",
    "/nodes/{node}/qemu/{vmid}/config": "guest-config",
    "/nodes/{node}/lxc/{vmid}/config": "guest-config",
}
# Reads that answer a guest config as rows ``{key, value, pending, delete}`` (pve-guest-common
# ``GuestHelpers.pm config_with_pending_array``, over the config check_type parsed): each row's ``value`` and
# ``pending`` are typed as the property its ``key`` names in the config read's schema.
PVE_PENDING = {
    "/nodes/{node}/qemu/{vmid}/pending": "/nodes/{node}/qemu/{vmid}/config",
    "/nodes/{node}/lxc/{vmid}/pending": "/nodes/{node}/lxc/{vmid}/config",
}
PENDING_CELLS = ("value", "pending")
PBS_FILES = {
    "/config": "serde",
    "/access/users": "serde",
    "/access/acl": "serde",
}


def parser_for(files, template):
    """The parser of the file a GET of ``template`` reads, or None."""
    best = None
    for prefix, name in files.items():
        if (template == prefix or template.startswith(prefix + "/")) and (best is None or len(prefix) > len(best)):
            best = prefix
    return PARSERS[files[best]] if best else None


# A path segment no schema has as a literal: finds the variable child of a path.
_ANY = "\x00"


def _object_properties(schema):
    schema = schema or {}
    if schema.get("type") == "array":
        schema = schema.get("items") or {}
    return schema.get("properties") or {}


def properties(index, template):
    """The property schema of what a GET of ``template`` answers: the read's own ``returns`` first, then the
    parameters of the writes of the same file (PUT/POST of the path; an item's collection POST; a list's item
    PUT and collection POST), each property's first definition winning."""
    info = index.find("GET", template)
    if info is None:
        return {}
    returns = info[1].get("returns") or {}
    found = dict(_object_properties(returns))
    sources = [("PUT", template), ("POST", template)]
    parent = template.rsplit("/", 1)[0]
    if re.search(r"/\{[^}]+\}$", template) and parent:
        sources.append(("POST", parent))
    if returns.get("type") == "array":
        sources.append(("PUT", template + "/" + _ANY))
    for method, path in sources:
        write = index.find(method, path)
        if write is None:
            continue
        for key, prop in ((write[1].get("parameters") or {}).get("properties") or {}).items():
            found.setdefault(key, prop)
    return found


class Typing:
    """The retyping of one product's reads: its schema index and its file table; memoized per template."""

    def __init__(self, index, files, pending=None):
        self.index = index
        self.files = files
        self.pending = pending or {}
        self._memo = {}

    def rule(self, template):
        """(parser, {property: schema type}) for a GET of ``template``, or None when no parser reads it (a
        pending read: the config read's rule)."""
        if template not in self._memo:
            source = self.pending.get(template, template)
            parser = parser_for(self.files, source)
            types = {}
            if parser is not None:
                types = {key: prop.get("type") for key, prop in properties(self.index, source).items()
                         if prop.get("type") in SCALAR_TYPES}
            self._memo[template] = (parser, types) if parser is not None else None
        return self._memo[template]

    def cells(self, template, data):
        """Every retyped place of an answer: (record, field, property) -- a record's own keys, or a pending row's
        ``value``/``pending`` under the property its ``key`` names."""
        rule = self.rule(template)
        rows = data if isinstance(data, list) else [data]
        for row in rows if rule is not None else ():
            if not isinstance(row, dict):
                continue
            if template in self.pending:
                yield from ((row, cell, row.get("key")) for cell in PENDING_CELLS if cell in row)
            else:
                yield from ((row, key, key) for key in list(row))

    def answer(self, template, data):
        """``data`` as the product's parser gives it (records in a list each retyped), in place."""
        rule = self.rule(template)
        if rule is None:
            return data
        parser, types = rule
        for row, field, prop in self.cells(template, data):
            if prop in types:
                row[field] = parser.value(row[field], types[prop])
        return data


def _scalar(value):
    return isinstance(value, (bool, int, float, str))


def _truth(value):
    if isinstance(value, str):
        return value.strip().lower() in ("1", "on", "yes", "true")
    return bool(value)


def _number(value, schema_type):
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"[+-]?\d+", text):
            return int(text)
        if schema_type == "boolean":
            return 1 if _truth(text) else 0
        try:
            number = float(text)
        except ValueError:
            return value  # not a number: as stored (the handler's validation let it through)
        return int(number) if number.is_integer() and schema_type == "integer" else number
    return value


def _text(value):
    """Perl's stringification of a stored scalar: 1/0 for a flag, ``0.5`` for a float, ``2`` for ``2.0``."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)
