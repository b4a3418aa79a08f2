"""/cluster/sdn/fabrics: PVE 9's openfabric and ospf fabrics and their nodes, staged and applied with
the rest of the SDN configuration.

Ports pve-network's ``PVE::API2::Network::SDN::Fabrics`` (index, list_all), ``::Fabrics::Fabric``
(index, get_fabric, add_fabric, update_fabric, delete_fabric), ``::Fabrics::Node`` (list_nodes) and
``::Fabrics::FabricNode`` (list_nodes_fabric, get_node, add_node, update_node, delete_node), and
``PVE::Network::SDN::Fabrics`` (node_properties, fabric_properties, config). The logic behind them is
Rust: proxmox-perl-rs ``pve-rs/src/bindings/sdn/fabrics.rs`` (PVE::RS::SDN::Fabrics: add_fabric,
update_fabric, add_node, update_node, to_raw, digest) over proxmox-ve-rs
``proxmox-ve-config/src/sdn/fabric/mod.rs`` (FabricConfig, FabricEntry, FabricConfigError: the texts
below) and ``section_config/protocol/{openfabric,ospf}.rs`` (each protocol's validate), at commit
05dc11f (2025-11-12, the PVE 9.1 fabrics: no route filters, WireGuard or BGP).

* The staged file ``/etc/pve/sdn/fabrics.cfg`` is ``state.sdn["fabrics"]`` (fabric id -> the API's
  fabric object) and ``state.sdn["fabric_nodes"]`` (``<fabric>_<node>``, the section id -> the API's
  node object); ``PUT /cluster/sdn`` (sdn.apply) copies them into the running config with the zones.
* A write is Rust's: the change is made to the parsed config, then ``to_raw`` validates the whole
  config (``FabricConfig::validate``) before the file is written, so every rule is checked on every
  write and the first broken one is the error, prefixed by the lock's message ("adding fabric
  failed: ..."). The errors keep their trailing newline (perlmod dies with the error's text).
* The digest is the SHA-256 of the parsed config (``digest``: serde_json of the config); the list of
  fabrics carries none outside the pending view (Fabric.pm index reads ``$current_config->{digest}``
  of the Rust object, an empty hash), every other read does.
* The ``interfaces`` of a node and a fabric update's ``delete`` are a ``oneOf`` by ``protocol``: the
  variant of the request's protocol is checked here like JSONSchema.pm check_prop picks it.
* Not simulated: the node status views (/nodes/{node}/sdn/fabrics/...), the FRR configuration and the
  interfaces the apply would bring up.
"""

import copy
import hashlib
import ipaddress
import json
import re
from collections import OrderedDict

from ... import schema as schema_mod
from ...errors import die, die_at, param_exc
from .base import route
from .sdn import _pending, _sdn_lock

AUDIT_OR_ALLOCATE = ["SDN.Audit", "SDN.Allocate"]
NODE_PRIVS = ["Sys.Audit", "Sys.Modify"]
MODIFIED = "detected modified configuration - file changed by other user? Try again."
FABRIC_PM = "PVE/API2/Network/SDN/Fabrics/Fabric.pm"
# Fabric.pm delete_fabric's dies without a newline (pve-network ecf98c5).
NODE_MODIFY_AT, EVPN_USE_AT, VXLAN_USE_AT = 231, 243, 252

# The API objects' keys (Rust's api::Fabric and api::Node, tagged by protocol), in serialization order.
FABRIC_KEYS = {"openfabric": ("id", "protocol", "ip_prefix", "ip6_prefix", "hello_interval", "csnp_interval"),
               "ospf": ("id", "protocol", "ip_prefix", "ip6_prefix", "area")}
NODE_KEYS = ("fabric_id", "node_id", "protocol", "ip", "ip6", "interfaces")
# The interface property strings as PropertyString serializes them: the struct's fields in declaration order.
INTERFACE_KEYS = {"openfabric": ("name", "hello_multiplier", "ip", "ip6"), "ospf": ("name", "ip")}
# FabricDeletableProperties<T> and NodeDeletableProperties<T>: the untagged names each protocol's updater takes
# (OspfDeletableProperties has no variant, so "area" cannot be deleted although the Perl schema lists it).
FABRIC_DELETABLE = {"openfabric": ("ip_prefix", "ip6_prefix", "hello_interval", "csnp_interval"),
                    "ospf": ("ip_prefix", "ip6_prefix")}
NODE_DELETABLE = ("ip", "ip6", "interfaces")


# -- the config -----------------------------------------------------------------------------------

def _fabrics(table):
    return table.setdefault("fabrics", OrderedDict())


def _nodes(table):
    return table.setdefault("fabric_nodes", OrderedDict())


def _running(state):
    """PVE::Network::SDN::Fabrics::config(1): the running config's fabrics, empty before the first apply
    that knew fabrics."""
    running = state.sdn_running or {}
    return running.get("fabrics") or {}, running.get("fabric_nodes") or {}


def _digest(state):
    """PerlFabricConfig::digest: SHA-256 over the parsed config, fabric by fabric with its nodes."""
    fabrics, nodes = _fabrics(state.sdn), _nodes(state.sdn)
    tree = {fid: {"fabric": fabric, "nodes": {sid: node for sid, node in nodes.items()
                                              if node["fabric_id"] == fid}}
            for fid, fabric in fabrics.items()}
    return hashlib.sha256(json.dumps(tree, sort_keys=True).encode()).hexdigest()


def _ordered(obj, keys):
    return OrderedDict((key, obj[key]) for key in keys if obj.get(key) is not None)


def _section_id(fabric_id, node_id):
    """NodeSectionId's Display: ``<fabric>_<node>``."""
    return f"{fabric_id}_{node_id}"


# -- what Rust's deserialization and FabricConfig make of a request -------------------------------

def _number(value, key):
    """proxmox_serde::perl::deserialize_u16: an integer (the schema's 'number' lets 1.5 through)."""
    try:
        return int(str(value))
    except ValueError:
        raise die(f"invalid value: floating point `{value}`, expected u16 for key `{key}`") from None


def _prefix(value, version, key):
    """Ipv4Cidr / Ipv6Cidr: the family is the field's; FabricConfig::add_fabric keeps it canonical."""
    try:
        network = ipaddress.ip_network(value, strict=False)
    except ValueError:
        network = None
    if network is None or network.version != version:
        raise die(f"invalid value for {key}: {value} is not an IPv{version} CIDR")
    return network.compressed


def _area(value):
    """proxmox-sdn-types area.rs Area::from_str: an IPv4 address or a 32-bit number, kept as entered."""
    try:
        return str(ipaddress.IPv4Address(value))
    except ValueError:
        pass
    if re.fullmatch(r"\d+", value) and int(value) < 2 ** 32:
        return str(int(value))
    raise die("Area is not a number, nor an ip address")


def _area_ipv4(area):
    """Area::get_ipv4_representation: what two areas are compared as."""
    return ipaddress.IPv4Address(int(area)) if area.isdigit() else ipaddress.IPv4Address(area)


def _fabric_values(protocol, params, base=None):
    """The fabric object after deserializing ``params`` onto ``base`` (a new fabric when None)."""
    fabric = dict(base or {})
    for key in ("ip_prefix", "ip6_prefix"):
        if params.get(key) not in (None, ""):
            fabric[key] = _prefix(params[key], 4 if key == "ip_prefix" else 6, key)
    if protocol == "openfabric":
        for key in ("hello_interval", "csnp_interval"):
            if params.get(key) not in (None, ""):
                fabric[key] = _number(params[key], key)
    elif params.get("area") not in (None, ""):
        fabric["area"] = _area(str(params["area"]))
    elif base is None:
        raise die("missing field `area`")
    return fabric


def _interface(protocol, text):
    """A PropertyString<…InterfaceProperties> read back: its keys in serialization order, an address
    canonical as Ipv4Cidr/Ipv6Cidr keeps it (the address itself, not the network)."""
    parsed = dict(part.split("=", 1) for part in text.split(",") if "=" in part)
    out = []
    for key in INTERFACE_KEYS[protocol]:
        if parsed.get(key) in (None, ""):
            continue
        value = parsed[key]
        if key in ("ip", "ip6"):
            value = ipaddress.ip_interface(value).with_prefixlen
        elif key == "hello_multiplier":
            value = str(int(value))
        out.append(f"{key}={value}")
    return ",".join(out)


def _check_variant(ctx, params, key, protocol):
    """JSONSchema.pm check_object's oneOf with a type-property: the variant whose instance-types hold the
    request's protocol checks the value (items, enums, property-string formats)."""
    prop = ctx.schema_props.get(key) or {}
    if key not in params or not prop.get("oneOf"):
        return
    errors = {}
    for variant in prop["oneOf"]:
        if protocol in (variant.get("instance-types") or ()):
            value = params[key] if isinstance(params[key], list) else [params[key]]
            schema_mod.check_prop(value, variant, key, errors)
    if errors:
        raise param_exc(errors)


def _delete_list(value):
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    return [part for item in items for part in re.split(r"[,;\s]+", str(item)) if part]


# -- FabricConfig::validate ----------------------------------------------------------------------

def _validate(state):
    """FabricConfig::validate, then each FabricEntry::validate and the protocol's own validate, in
    BTreeMap order: the first broken rule is the write's error."""
    fabrics, nodes = _fabrics(state.sdn), _nodes(state.sdn)
    ordered = sorted(fabrics)
    for i, first in enumerate(ordered):
        for second in ordered[i + 1:]:
            one, two = fabrics[first], fabrics[second]
            for key, label, family in (("ip_prefix", "IP prefix", "IPv4"), ("ip6_prefix", "IPv6 prefix", "IPv6")):
                if one.get(key) and two.get(key) and ipaddress.ip_network(one[key]).overlaps(
                        ipaddress.ip_network(two[key])):
                    raise die(f"{label} {two[key]} in fabric '{second}' overlaps with {family} prefix "
                              f"{one[key]} in fabric '{first}'")
    areas, node_interfaces = set(), set()
    for fid in ordered:
        fabric = fabrics[fid]
        members = sorted((node["node_id"], node) for node in nodes.values() if node["fabric_id"] == fid)
        if fabric["protocol"] == "ospf":
            area = _area_ipv4(fabric["area"])
            if area in areas:
                raise die("duplicate OSPF area")
            areas.add(area)
        for node_id, node in members:
            for text in node.get("interfaces") or []:
                name = dict(part.split("=", 1) for part in text.split(",") if "=" in part).get("name")
                if (node_id, name) in node_interfaces:
                    raise die("interface is already in use by another fabric")
                node_interfaces.add((node_id, name))
        _validate_entry(fid, fabric, members)


def _validate_entry(fid, fabric, members):
    """FabricEntry::validate: each node's IPs inside the fabric's prefixes and unique, each node's and
    then the fabric's protocol rules."""
    seen = {"ip": set(), "ip6": set()}
    for node_id, node in members:
        sid = _section_id(fid, node_id)
        for key, prefix_key in (("ip", "ip_prefix"), ("ip6", "ip6_prefix")):
            prefix, address = fabric.get(prefix_key), node.get(key)
            if prefix is None and address is not None:
                raise die(f"fabric '{fid}' does not have an IP prefix configured for the node IP {address}")
            if prefix is not None and address is None:
                raise die(f"node '{sid}' does not have an IP configured for this fabric prefix {prefix}")
            if prefix is not None and ipaddress.ip_address(address) not in ipaddress.ip_network(prefix):
                raise die(f"node IP {address} is outside the IP prefix {prefix} of the fabric")
        for key in ("ip", "ip6"):
            if node.get(key) is not None:
                if node[key] in seen[key]:
                    raise die(f"fabric {fid} contains nodes with duplicated IPs")
                seen[key].add(node[key])
        # NodeSection<…>::validate
        if node["protocol"] == "openfabric" and node.get("ip") is None and node.get("ip6") is None:
            raise die(f"node '{sid}' does not have an IP configured")
        if node["protocol"] == "ospf":
            if node.get("ip") is None:
                raise die(f"node '{sid}' does not have an IP configured")
            if node.get("ip6") is not None:
                raise die("IPv6 is currently not supported for protocol ospf")
    # FabricSection<…>::validate
    if fabric["protocol"] == "openfabric" and not fabric.get("ip_prefix") and not fabric.get("ip6_prefix"):
        raise die(f"fabric '{fid}' does not have an IP prefix configured")
    if fabric["protocol"] == "ospf":
        if not fabric.get("ip_prefix"):
            raise die(f"fabric '{fid}' does not have an IP prefix configured")
        if fabric.get("ip6_prefix"):
            raise die("IPv6 is currently not supported for protocol ospf")


def _assert_digest(state, digest):
    """PVE::Tools::assert_if_modified."""
    if digest and digest != _digest(state):
        raise die(MODIFIED)


def _fabric_or_die(state, fid):
    fabric = _fabrics(state.sdn).get(fid)
    if fabric is None:
        raise die(f"fabric '{fid}' does not exist in configuration")
    return fabric


def _node_or_die(state, fid, node_id):
    _fabric_or_die(state, fid)
    node = _nodes(state.sdn).get(_section_id(fid, node_id))
    if node is None:
        raise die(f"node '{node_id}' does not exist in fabric '{fid}'")
    return node


# -- the views --------------------------------------------------------------------------------------

def _view(state, p, kind):
    """(rows by id, digest) of a list: pending=1 the pending_config merge of running and staged, running=1
    the running config, else the staged file."""
    table = {"fabrics": _fabrics(state.sdn), "nodes": _nodes(state.sdn)}[kind]
    running = dict(zip(("fabrics", "nodes"), _running(state)))[kind]
    if p.get("pending"):
        return _pending(running, table), _digest(state)
    if p.get("running"):
        return copy.deepcopy(running), None
    return copy.deepcopy(table), _digest(state)


def _fabric_row(section, digest=None):
    """A fabric or node section as the API answers it: a copy, with the config's digest where the view has one."""
    row = copy.deepcopy(section)
    if digest:
        row["digest"] = digest
    return row


def _node_fabric(node):
    return node.get("fabric_id") if node.get("fabric_id") is not None else (node.get("pending") or {}).get("fabric_id")


def _node_id_of(sid, node):
    if node.get("node_id") is not None:
        return node["node_id"]
    return (node.get("pending") or {}).get("node_id") or sid.split("_", 1)[-1]


@route("GET", "/cluster/sdn/fabrics")
def fabrics_index(ctx, p):
    """API2/Network/SDN/Fabrics.pm index."""
    return [{"subdir": "fabric"}, {"subdir": "node"}, {"subdir": "all"}]


@route("GET", "/cluster/sdn/fabrics/all")
def list_all(ctx, p):
    """API2/Network/SDN/Fabrics.pm list_all: fabrics the user may audit, nodes of those on nodes the
    user may audit; every row carries the digest, except in the running view."""
    state = ctx.state
    fabrics, digest = _view(state, p, "fabrics")
    nodes, _digest_again = _view(state, p, "nodes")
    res_fabrics, res_nodes = [], []
    for fid in sorted(fabrics):
        if ctx.access.check_any(ctx.authid, f"/sdn/fabrics/{fid}", AUDIT_OR_ALLOCATE, True):
            row = _fabric_row(fabrics[fid], digest)
            res_fabrics.append(row)
    for sid in sorted(nodes):
        node = nodes[sid]
        if not ctx.access.check_any(ctx.authid, f"/sdn/fabrics/{_node_fabric(node)}", AUDIT_OR_ALLOCATE, True):
            continue
        # list_all checks /nodes/$node_id with its hash key, which is the section id <fabric>_<node>
        if not ctx.access.check_any(ctx.authid, f"/nodes/{sid}", NODE_PRIVS, True):
            continue
        row = _fabric_row(node, digest)
        res_nodes.append(row)
    return {"fabrics": res_fabrics, "nodes": res_nodes}


# -- fabrics ------------------------------------------------------------------------------------------

@route("GET", "/cluster/sdn/fabrics/fabric")
def fabric_index(ctx, p):
    """API2/Network/SDN/Fabrics/Fabric.pm index. The staged view carries no digest (the method reads the
    Rust object's ``{digest}`` hash entry, which is never set); the pending view does."""
    state = ctx.state
    fabrics, digest = _view(state, p, "fabrics")
    if not p.get("pending"):
        digest = None
    res = []
    for fid in sorted(fabrics):
        if ctx.access.check_any(ctx.authid, f"/sdn/fabrics/{fid}", AUDIT_OR_ALLOCATE, True):
            row = _fabric_row(fabrics[fid], digest)
            res.append(row)
    return res


@route("GET", "/cluster/sdn/fabrics/fabric/{id}")
def get_fabric(ctx, p):
    """Fabric.pm get_fabric: the staged fabric with the file's digest."""
    state = ctx.state
    fabric = _fabric_row(_fabric_or_die(state, p["id"]), _digest(state))
    return fabric


@route("POST", "/cluster/sdn/fabrics/fabric")
def add_fabric(ctx, p):
    """Fabric.pm add_fabric: FabricConfig::add_fabric (a new id, the prefixes canonical), then the
    validated write. No quorum check of its own: the SDN lock needs quorum."""
    state = ctx.state
    params = dict(p)
    params.pop("lock-token", None)
    with _sdn_lock(state, "adding fabric failed"):
        _assert_digest(state, params.pop("digest", None))
        protocol, fid = params["protocol"], params["id"]
        fabric = _fabric_values(protocol, params)
        fabric.update(id=fid, protocol=protocol)
        fabrics = _fabrics(state.sdn)
        if fid in fabrics:
            raise die(f"fabric '{fid}' already exists in config")
        fabrics[fid] = _ordered(fabric, FABRIC_KEYS[protocol])
        _validate(state)
    return None


@route("PUT", "/cluster/sdn/fabrics/fabric/{id}")
def update_fabric(ctx, p):
    """Fabric.pm update_fabric: FabricConfig::update_fabric (the updater's protocol must be the
    fabric's), then the validated write."""
    state = ctx.state
    params = dict(p)
    params.pop("lock-token", None)
    protocol = params["protocol"]
    _check_variant(ctx, params, "delete", protocol)
    with _sdn_lock(state, "updating fabric failed"):
        fid = params.pop("id")
        _assert_digest(state, params.pop("digest", None))
        deletes = _delete_list(params.pop("delete", None))
        for key in deletes:
            if key not in FABRIC_DELETABLE[protocol]:
                raise die("data did not match any variant of untagged enum FabricDeletableProperties")
        fabric = _fabric_or_die(state, fid)
        if fabric["protocol"] != protocol:
            raise die("node has a different protocol than the referenced fabric")
        updated = _fabric_values(protocol, params, base=fabric)
        for key in deletes:
            updated.pop(key, None)
        _fabrics(state.sdn)[fid] = _ordered(updated, FABRIC_KEYS[protocol])
        _validate(state)
    return None


@route("DELETE", "/cluster/sdn/fabrics/fabric/{id}")
def delete_fabric(ctx, p):
    """Fabric.pm delete_fabric: Sys.Modify on each of its nodes, no EVPN controller nor VXLAN zone
    naming it, then FabricConfig::delete_fabric (its nodes go with it)."""
    state, fid = ctx.state, p["id"]
    with _sdn_lock(state, "deleting fabric failed"):
        fabric = _fabrics(state.sdn).get(fid)
        members = [] if fabric is None else sorted(
            node["node_id"] for node in _nodes(state.sdn).values() if node["fabric_id"] == fid)
        if fabric is None:
            # list_nodes_fabric of a fabric that does not exist dies first
            raise die(f"fabric '{fid}' does not exist in configuration")
        for node_id in members:
            if not ctx.access.check_any(ctx.authid, f"/nodes/{node_id}", ["Sys.Modify"], True):
                raise die_at(f"permission check failed: missing 'Sys.Modify' on node {node_id}",
                             FABRIC_PM, NODE_MODIFY_AT)
        for key, controller in sorted((state.sdn.get("controllers") or {}).items()):
            if controller.get("type") == "evpn" and controller.get("fabric") == fid:
                raise die_at(f'this fabric is still used in the EVPN controller "{key}"', FABRIC_PM, EVPN_USE_AT)
        for key, zone in sorted(state.sdn["zones"].items()):
            if zone.get("type") == "vxlan" and zone.get("fabric") == fid:
                raise die_at(f'this fabric is still used in the VXLAN zone "{key}"', FABRIC_PM, VXLAN_USE_AT)
        del _fabrics(state.sdn)[fid]
        for sid in [sid for sid, node in _nodes(state.sdn).items() if node["fabric_id"] == fid]:
            del _nodes(state.sdn)[sid]
        _validate(state)
    return None


# -- nodes --------------------------------------------------------------------------------------------

@route("GET", "/cluster/sdn/fabrics/node")
def list_nodes(ctx, p):
    """API2/Network/SDN/Fabrics/Node.pm list_nodes: the nodes of every fabric, keyed by node name (a node
    in two fabrics is one row: the hash keeps the last fabric's), filtered by both privileges."""
    state = ctx.state
    nodes, digest = _view(state, p, "nodes")
    by_name = OrderedDict()
    for sid in sorted(nodes):
        by_name[_node_id_of(sid, nodes[sid])] = nodes[sid]
    res = []
    for node_id in sorted(by_name):
        node = by_name[node_id]
        if not ctx.access.check_any(ctx.authid, f"/sdn/fabrics/{_node_fabric(node)}", AUDIT_OR_ALLOCATE, True):
            continue
        if not ctx.access.check_any(ctx.authid, f"/nodes/{node_id}", NODE_PRIVS, True):
            continue
        row = _fabric_row(node, digest)
        res.append(row)
    return res


@route("GET", "/cluster/sdn/fabrics/node/{fabric_id}")
def list_nodes_fabric(ctx, p):
    """FabricNode.pm list_nodes_fabric: the fabric's nodes the user may audit; the fabric must exist in
    the view read."""
    state, fid = ctx.state, p["fabric_id"]
    if p.get("pending"):
        staged_fabrics, running_fabrics = _fabrics(state.sdn), _running(state)[0]
        if fid not in staged_fabrics or fid not in running_fabrics:
            # both configs' list_nodes_fabric die for a fabric they do not have
            raise die(f"fabric '{fid}' does not exist in configuration")
    elif p.get("running"):
        if fid not in _running(state)[0]:
            raise die(f"fabric '{fid}' does not exist in configuration")
    else:
        _fabric_or_die(state, fid)
    nodes, digest = _view(state, p, "nodes")
    res = []
    for sid in sorted(nodes):
        node = nodes[sid]
        if _node_fabric(node) != fid:
            continue
        node_id = _node_id_of(sid, node)
        if not ctx.access.check_any(ctx.authid, f"/nodes/{node_id}", NODE_PRIVS, True):
            continue
        row = _fabric_row(node, digest)
        res.append(row)
    return res


@route("GET", "/cluster/sdn/fabrics/node/{fabric_id}/{node_id}")
def get_node(ctx, p):
    """FabricNode.pm get_node."""
    state = ctx.state
    node = _fabric_row(_node_or_die(state, p["fabric_id"], p["node_id"]), _digest(state))
    return node


def _node_values(protocol, params, base=None):
    node = dict(base or {})
    for key in ("ip", "ip6"):
        if params.get(key) not in (None, ""):
            node[key] = str(ipaddress.ip_address(params[key]))
    if "interfaces" in params and params["interfaces"] is not None:
        node["interfaces"] = [_interface(protocol, text) for text in params["interfaces"]]
    return node


@route("POST", "/cluster/sdn/fabrics/node/{fabric_id}")
def add_node(ctx, p):
    """FabricNode.pm add_node: FabricEntry::add_node (the fabric exists, has the node's protocol and not
    yet the node), then the validated write."""
    state = ctx.state
    params = dict(p)
    params.pop("lock-token", None)
    protocol = params["protocol"]
    _check_variant(ctx, params, "interfaces", protocol)
    with _sdn_lock(state, "adding node failed"):
        _assert_digest(state, params.pop("digest", None))
        fid, node_id = params["fabric_id"], params["node_id"]
        fabric = _fabric_or_die(state, fid)
        if fabric["protocol"] != protocol:
            raise die("node has a different protocol than the referenced fabric")
        sid = _section_id(fid, node_id)
        if sid in _nodes(state.sdn):
            raise die(f"node '{node_id}' already exists in config for fabric {fid}")
        node = _node_values(protocol, params)
        node.update(fabric_id=fid, node_id=node_id, protocol=protocol)
        node.setdefault("interfaces", [])
        _nodes(state.sdn)[sid] = _ordered(node, NODE_KEYS)
        _validate(state)
    return None


@route("PUT", "/cluster/sdn/fabrics/node/{fabric_id}/{node_id}")
def update_node(ctx, p):
    """FabricNode.pm update_node: FabricEntry::update_node, then the validated write."""
    state = ctx.state
    params = dict(p)
    params.pop("lock-token", None)
    protocol = params["protocol"]
    _check_variant(ctx, params, "interfaces", protocol)
    with _sdn_lock(state, "updating node failed"):
        fid, node_id = params.pop("fabric_id"), params.pop("node_id")
        _assert_digest(state, params.pop("digest", None))
        deletes = _delete_list(params.pop("delete", None))
        node = _node_or_die(state, fid, node_id)
        if node["protocol"] != protocol:
            raise die("node has a different protocol than the referenced fabric")
        updated = _node_values(protocol, params, base=node)
        for key in deletes:
            if key == "interfaces":
                updated["interfaces"] = []
            else:
                updated.pop(key, None)
        _nodes(state.sdn)[_section_id(fid, node_id)] = _ordered(updated, NODE_KEYS)
        _validate(state)
    return None


@route("DELETE", "/cluster/sdn/fabrics/node/{fabric_id}/{node_id}")
def delete_node(ctx, p):
    """FabricNode.pm delete_node: FabricEntry::delete_node."""
    state, fid, node_id = ctx.state, p["fabric_id"], p["node_id"]
    with _sdn_lock(state, "deleting node failed"):
        _node_or_die(state, fid, node_id)
        del _nodes(state.sdn)[_section_id(fid, node_id)]
        _validate(state)
    return None
