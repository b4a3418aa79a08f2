"""/cluster/sdn: zones, vnets, subnets and the apply (pve-network 1.x for PVE 9.1).

Ports ``PVE::API2::Network::SDN`` (index, reload), ``::SDN::Zones``, ``::SDN::Vnets``,
``::SDN::Subnets`` and behind them ``PVE::Network::SDN`` (pending_config, commit_config,
lock_sdn_config), the zone plugins (``Zones::{Simple,Vlan,QinQ,Vxlan,Evpn,Faucet}Plugin``
options() and their vnet_update_hook / on_update_hook / on_delete_hook), ``VnetPlugin``,
``SubnetPlugin`` (on_update_hook, validate_dhcp_ranges) and ``Subnets::sdn_subnets_config``.

* Writes change the staged files only (``state.sdn``); the plain GET reads them, ``running=1``
  the applied config (``state.sdn_running``, empty before the first apply), ``pending=1`` the
  merged view of pending_config. Running and pending views carry ``digest: null`` (neither is
  a parsed file).
* Every write runs under the cluster-wide SDN lock: what dies inside is a 500 prefixed with the
  method's message (``create sdn zone object failed: ...``), a 400 exception stringified. Without
  quorum the lock itself fails (``cfs-lock 'domain-sdn' error: no quorum!``); the creates ask
  ``check_cfs_quorum`` first (``cluster not ready - no quorum?``).
* Where PVE dies without a newline, Perl appends the source line: those lines are pve-network's at
  commit ecf98c5 (2026-03-31; they move between releases).
* Controllers, IPAMs and DNS servers are sdn_plugins.py's; a zone's checks of the ones it names
  (the zone API's dns/reversedns/ipam checks, EvpnPlugin's controller) read them there.
* Not simulated: the IPAM database (gateways and allocations),
  the global lock of ``/cluster/sdn/lock`` (``lock-token`` is accepted and ignored) and the node
  network reload the apply starts on every node. Fabrics are sdn_fabrics.py's (their tables live in
  ``state.sdn`` so the apply commits them too).
"""

import copy
import hashlib
import ipaddress
import re
from collections import OrderedDict
from contextlib import contextmanager

from ... import schema as schema_mod
from ...errors import die, die_at, locked, param_exc
from ...formats import FormatError, split_list
from ..state import register_slice
from . import network
from .base import route

# The staged files /etc/pve/sdn/{zones,vnets,subnets}.cfg, id -> section ({"type": ..., option: value}; integers
# and booleans as int, nodes/exitnodes a sorted list, dhcp-range a list of strings, subnet ids
# "<zone>-<network>-<mask>"), and the applied .running-config (a copy of the three tables at the last apply),
# None until the first apply.
# The fabrics' tables (fabrics, fabric_nodes) are sdn_fabrics.py's: the apply commits them with the rest.
register_slice("sdn", lambda: {"zones": OrderedDict(), "vnets": OrderedDict(), "subnets": OrderedDict(),
                               "fabrics": OrderedDict(), "fabric_nodes": OrderedDict()})
register_slice("sdn_running", lambda: None)
# Fault knob: the exit status of the next SDN apply's reloadnetworkall task, then None again.
register_slice("sdn_apply_failure", lambda: None, snapshot=False)

AUDIT_OR_ALLOCATE = ["SDN.Audit", "SDN.Allocate"]
ALLOCATE = ["SDN.Allocate"]
MODIFIED = "detected modified configuration - file changed by other user? Try again."

# The options() of each zone plugin: option -> required.
_ZONE_COMMON = {"nodes": False, "mtu": False, "dns": False, "reversedns": False, "dnszone": False, "ipam": False}
ZONE_OPTIONS = {
    "simple": dict(_ZONE_COMMON, dhcp=False),
    "vlan": dict(_ZONE_COMMON, **{"bridge": True, "bridge-disable-mac-learning": False}),
    "qinq": dict(_ZONE_COMMON, **{"tag": True, "bridge": True, "bridge-disable-mac-learning": False,
                                  "vlan-protocol": False}),
    "vxlan": dict(_ZONE_COMMON, **{"peers": False, "vxlan-port": False, "fabric": False}),
    "evpn": dict(_ZONE_COMMON, **{"vrf-vxlan": True, "controller": True, "exitnodes": False,
                                  "exitnodes-local-routing": False, "exitnodes-primary": False,
                                  "advertise-subnets": False, "disable-arp-nd-suppression": False,
                                  "bridge-disable-mac-learning": False, "rt-import": False,
                                  "vxlan-port": False, "mac": False}),
    "faucet": {"nodes": False, "dp-id": True, "controller": True, "dns": False, "reversedns": False,
               "dnszone": False, "ipam": False},
}
VNET_OPTIONS = {"zone": True, "tag": False, "alias": False, "vlanaware": False, "isolate-ports": False}
SUBNET_OPTIONS = {"vnet": True, "gateway": False, "snat": False, "dnszoneprefix": False, "dhcp-range": False,
                  "dhcp-dns-server": False}
# Zones::Plugin decode_value: node lists are kept as sets, answered sorted and comma-joined.
NODE_LISTS = ("nodes", "exitnodes")
NOT_FOUND = {"zones": "sdn '{}' does not exist", "vnets": "sdn vnet '{}' does not exist",
             "subnets": "sdn subnet '{}' does not exist"}
# SubnetPlugin's pve-sdn-dhcp-range (the simulator's formats do not know it); 'ip' is no JSON type.
DHCP_RANGE = {"start-address": {"type": "ip"}, "end-address": {"type": "ip"}}
DHCP_RANGES = {"type": "array", "items": {"type": "string", "format": DHCP_RANGE}}

# Where the dies without a newline happen (file, line) at pve-network ecf98c5: Zones/Plugin.pm on_delete_hook,
# Zones/EvpnPlugin.pm on_update_hook, and the vnet API's create/update calling SectionConfig lookup (croak).
ZONE_IN_USE_AT = ("PVE/Network/SDN/Zones/Plugin.pm", 148)
EVPN_ZONE_PM = "PVE/Network/SDN/Zones/EvpnPlugin.pm"
EVPN_CONTROLLER_AT = (EVPN_ZONE_PM, 354)
VNETS_PM = "PVE/API2/Network/SDN/Vnets.pm"
VNET_CREATE_LOOKUP, VNET_UPDATE_LOOKUP = 326, 402


# -- quorum and the lock ---------------------------------------------------------------------


def _check_cfs_quorum(state):
    """PVE::Cluster::check_cfs_quorum."""
    if not state.quorate():
        raise die("cluster not ready - no quorum?")


@contextmanager
def _sdn_lock(state, errmsg):
    """PVE::Network::SDN::lock_sdn_config: the 'sdn' domain lock of pmxcfs, which a node without
    quorum cannot take (cfs_lock: ``no quorum!``); errors inside are prefixed with ``errmsg``."""
    if not state.quorate():
        raise die(f"{errmsg}: cfs-lock 'domain-sdn' error: no quorum!")
    with locked(state, errmsg):
        yield


# -- the section config files ----------------------------------------------------------------

def _options(kind, section):
    if kind == "zones":
        return ZONE_OPTIONS[section["type"]]
    return VNET_OPTIONS if kind == "vnets" else SUBNET_OPTIONS


def _encode(value):
    """PVE::Network::SDN::encode_value: node lists and DHCP ranges as sorted, comma-joined text."""
    if isinstance(value, list):
        return ",".join(sorted(value))
    return value


def _render(kind, table):
    """The file SectionConfig::write_config writes: required options first, empty values left out."""
    out = []
    for sid, section in table.items():
        options = _options(kind, section)
        out.append(f"{section['type']}: {sid}\n")
        for key in sorted(options, key=lambda option: (not options[option], option)):
            value = section.get(key)
            if value is None:
                continue
            lines = value if key == "dhcp-range" else [_encode(value)]
            out.extend(f"\t{key} {line}\n" for line in lines)
        out.append("\n")
    return "".join(out)


def _digest(kind, table):
    return hashlib.sha1(_render(kind, table).encode()).hexdigest()


def _check_config(options, params, create):
    """SectionConfig::check_config (with the plugins' decode_value): the settings to store."""
    settings = {}
    for key in sorted(params):
        if key not in options:
            raise die(f"unexpected property '{key}'")
        value = params[key]
        if isinstance(value, str) and re.search(r"[\n\r]", value):
            raise die("property contains a line feed")
        settings[key] = sorted(set(split_list(value))) if key in NODE_LISTS else value
    if create:
        for key in sorted(options):
            if options[key] and key not in params:
                raise die(f"missing value for required option '{key}'")
    return settings


def _delete_options(section, options, settings, keys):
    """SectionConfig::delete_from_config."""
    for key in keys:
        if key not in options:
            raise die(f"no such option '{key}'")
        if options[key]:
            raise die(f"unable to delete required option '{key}'")
        if key in settings:
            raise die(f"cannot set and delete property '{key}' at the same time!")
        section.pop(key, None)


def _store(section, settings):
    """Set options as the file keeps them: an empty value is not written, so it reads as unset."""
    for key, value in settings.items():
        if value in ("", []):
            section.pop(key, None)
        else:
            section[key] = value


def _take(params, *keys):
    """extract_param for each key; what is left are the options to check. ``lock-token`` is taken
    and ignored (no global lock is ever held here)."""
    taken = [params.pop(key, None) for key in keys]
    params.pop("lock-token", None)
    return taken


# -- the three views: staged, running, pending -----------------------------------------------

def _pending(running, staged):
    """PVE::Network::SDN::pending_config: running values on top, the staged ones that differ
    (or 'deleted') under ``pending``, ``state`` new/changed/deleted."""
    def text(value):
        return None if value is None else str(_encode(value))

    res = {}
    for sid in sorted(running):
        old, new, item = running[sid], staged.get(sid) or {}, res.setdefault(sid, {})
        for key in sorted(old):
            item[key] = copy.deepcopy(old[key])
            if not new:
                item["state"] = "deleted"
            elif new.get(key) is None:
                item.setdefault("pending", {})[key] = "deleted"
                item["state"] = "changed"
            elif text(old[key]) != text(new[key]):
                item["state"] = "changed"
        if item.get("state"):
            item.setdefault("pending", {})
    for sid in sorted(staged):
        old, new, item = running.get(sid) or {}, staged[sid], res.setdefault(sid, {})
        for key in sorted(new):
            if key in ("type", "vnet"):
                item[key] = new[key]
            elif text(old.get(key)) is None or text(old[key]) != text(new[key]):
                item.setdefault("pending", {})[key] = copy.deepcopy(new[key])
            if not old:
                item["state"] = "new"
            elif old.get(key) is None:
                item["state"] = "changed"
        if item.get("state"):
            item.setdefault("pending", {})
    return res


def _config(state, kind, p):
    """(table, digest) a read shows: pending=1 wins over running=1 over the staged file."""
    running = (state.sdn_running or {}).get(kind) or {}
    if p.get("pending"):
        return _pending(running, state.sdn[kind]), None
    if p.get("running"):
        return running, None
    return state.sdn[kind], _digest(kind, state.sdn[kind])


def _dhcp_ranges(texts):
    """Subnets::get_dhcp_ranges: each range parsed into start-address/end-address."""
    ranges = []
    for text in texts or ():
        try:
            ranges.append(schema_mod.parse_property_string(DHCP_RANGE, text, "dhcp-range"))
        except FormatError:
            continue  # PVE warns and skips a range it cannot parse
    return ranges


def _item(kind, table, sid, digest):
    """$api_sdn_{zones,vnets,subnets}_config: a section with its id, the file digest and, for a
    subnet, what sdn_subnets_config derives from the id and the parsed DHCP ranges."""
    if sid not in table:
        raise die(NOT_FOUND[kind].format(sid))
    res = copy.deepcopy(table[sid])
    if kind == "zones":
        res["zone"] = sid
        for part in (res, res.get("pending") or {}):
            for key in NODE_LISTS:
                if key in part:
                    part[key] = _encode(part[key])
    elif kind == "vnets":
        res["vnet"] = sid
    else:
        zone, network, mask = (sid.split("-") + [None, None])[:3]
        res.update(id=sid, cidr=f"{network}/{mask}", zone=zone, network=network, mask=mask, subnet=sid)
        res["dhcp-range"] = _dhcp_ranges(res.get("dhcp-range"))
    res["digest"] = digest
    return res


# -- /cluster/sdn --------------------------------------------------------------------------------

@route("GET", "/cluster/sdn")
def index(ctx, p):
    """API2/Network/SDN.pm index."""
    return [{"id": sub} for sub in ("vnets", "zones", "controllers", "ipams", "dns", "fabrics")]


@route("PUT", "/cluster/sdn")
def apply(ctx, p):
    """API2/Network/SDN.pm reload: commit_config under the lock, then a ``reloadnetworkall`` worker
    that asks every node to reload its network (``state.sdn_apply_failure``: its exit status)."""
    state = ctx.state
    with _sdn_lock(state, "could not commit SDN config"):
        state.sdn_running = copy.deepcopy(state.sdn)
    failure, state.sdn_apply_failure = state.sdn_apply_failure, None
    log = [] if failure and not failure.startswith("WARNINGS") else \
        [f"{node}: reloading network config" for node in state.nodes]
    if not failure or failure.startswith("WARNINGS"):
        # Each node's `pvesh set /nodes/<node>/network`: the node network apply, staged interfaces and all.
        for node, info in state.nodes.items():
            if info["online"]:
                network.reload_config(ctx, {"node": node})
    return state.start_task(ctx.node, "reloadnetworkall", "", ctx.authid, exitstatus=failure or "OK", log=log)


# -- zones -------------------------------------------------------------------------------------

def _check_zone_references(state, settings):
    """The zone API's checks of the DNS servers and the IPAM a write names (Zones.pm create/update)."""
    from . import sdn_plugins  # it builds on this module
    for key in ("dns", "reversedns"):
        if settings.get(key) and settings[key] not in sdn_plugins.dns_ids(state):
            raise param_exc({key: f"{settings[key]} don't exist"})
    if settings.get("dnszone") and not settings.get("dns"):
        raise param_exc({"dnszone": "missing dns server"})
    if settings.get("ipam") and settings["ipam"] not in sdn_plugins.ipam_ids(state):
        raise param_exc({"ipam": f"{settings['ipam']} not existing"})


def _zone_update_hook(state, zoneid):
    """VxlanPlugin / EvpnPlugin on_update_hook (the other types have none). EvpnPlugin overrides
    Vxlan's: its controller must be a staged evpn controller, its vrf-vxlan unique, and a zone
    without a mac gets a random one (datacenter.cfg's mac_prefix)."""
    from . import sdn_plugins
    from .guests import random_mac
    zones = state.sdn["zones"]
    zone = zones[zoneid]
    if zone["type"] == "vxlan" and bool(zone.get("peers")) == bool(zone.get("fabric")):
        message = "must have exactly one of peers / fabric defined"
        raise param_exc({"fabric": message, "peers": message})
    if zone["type"] != "evpn":
        return
    controller = sdn_plugins.controllers(state).get(zone["controller"])
    if controller is None:
        raise die_at(f"controller {zone['controller']} don't exist", *EVPN_CONTROLLER_AT)
    if controller["type"] != "evpn":
        raise die_at(f"{zone['controller']} is not a evpn controller type", EVPN_ZONE_PM, 356)
    for other, section in sorted(zones.items()):
        if other != zoneid and section.get("vrf-vxlan") is not None and \
                str(section["vrf-vxlan"]) == str(zone["vrf-vxlan"]):
            raise die_at(f"vrf-vxlan {zone['vrf-vxlan']} is already declared in {other}", EVPN_ZONE_PM, 366)
    if zone.get("mac") is None:
        zone["mac"] = random_mac(state)


@route("GET", "/cluster/sdn/zones")
def zone_index(ctx, p):
    """API2/Network/SDN/Zones.pm index: rows the user may audit, optionally of one type."""
    table, digest = _config(ctx.state, "zones", p)
    res = []
    for zoneid in sorted(table):
        if not ctx.access.check_any(ctx.authid, f"/sdn/zones/{zoneid}", AUDIT_OR_ALLOCATE, True):
            continue
        item = _item("zones", table, zoneid, digest)
        if not p.get("type") or p["type"] == item.get("type"):
            res.append(item)
    return res


@route("GET", "/cluster/sdn/zones/{zone}")
def zone_read(ctx, p):
    """API2/Network/SDN/Zones.pm read."""
    table, digest = _config(ctx.state, "zones", p)
    return _item("zones", table, p["zone"], digest)


@route("POST", "/cluster/sdn/zones")
def zone_create(ctx, p):
    """API2/Network/SDN/Zones.pm create: check_config before the quorum check and the lock."""
    state = ctx.state
    params = dict(p)
    typ, zoneid = _take(params, "type", "zone")
    settings = _check_config(ZONE_OPTIONS[typ], params, create=True)
    _check_cfs_quorum(state)
    with _sdn_lock(state, "create sdn zone object failed"):
        zones = state.sdn["zones"]
        if zoneid in zones:
            raise die(f"sdn zone object ID '{zoneid}' already defined")
        _check_zone_references(state, settings)
        zones[zoneid] = {"type": typ}
        _store(zones[zoneid], settings)
        _zone_update_hook(state, zoneid)
    return None


@route("PUT", "/cluster/sdn/zones/{zone}")
def zone_update(ctx, p):
    """API2/Network/SDN/Zones.pm update."""
    state = ctx.state
    params = dict(p)
    zoneid, digest, delete = _take(params, "zone", "digest", "delete")
    with _sdn_lock(state, "update sdn zone object failed"):
        zones = state.sdn["zones"]
        if digest and digest != _digest("zones", zones):
            raise die(MODIFIED)
        if zoneid not in zones:
            raise die(NOT_FOUND["zones"].format(zoneid))
        zone, options = zones[zoneid], ZONE_OPTIONS[zones[zoneid]["type"]]
        settings = _check_config(options, params, create=False)
        old_ipam = zone.get("ipam")
        _delete_options(zone, options, settings, split_list(delete))
        _store(zone, settings)
        if zone.get("ipam") != old_ipam and any(sid.split("-")[0] == zoneid for sid in state.sdn["subnets"]):
            raise param_exc({"ipam": "can't change ipam if a subnet is already defined in this zone"})
        _check_zone_references(state, settings)
        _zone_update_hook(state, zoneid)
    return None


@route("DELETE", "/cluster/sdn/zones/{zone}")
def zone_delete(ctx, p):
    """API2/Network/SDN/Zones.pm delete."""
    state, zoneid = ctx.state, p["zone"]
    with _sdn_lock(state, "delete sdn zone object failed"):
        if zoneid not in state.sdn["zones"]:
            raise die(NOT_FOUND["zones"].format(zoneid))
        for vnetid, vnet in sorted(state.sdn["vnets"].items()):  # Zones::Plugin on_delete_hook
            if vnet.get("zone") == zoneid:
                raise die_at(f"zone {zoneid} is used by vnet {vnetid}", *ZONE_IN_USE_AT)
        del state.sdn["zones"][zoneid]
    return None


# -- vnets ----------------------------------------------------------------------------------------

def _check_vnet_access(ctx, vnetid, privs):
    """The vnet API's $check_vnet_access: the staged vnet must exist; privileges on its zone path."""
    vnet = ctx.state.sdn["vnets"].get(vnetid)
    if vnet is None:
        raise die(NOT_FOUND["vnets"].format(vnetid))
    ctx.access.check_any(ctx.authid, f"/sdn/zones/{vnet.get('zone')}/{vnetid}", privs)
    return vnet


def _subnets_of(state, vnetid):
    """Vnets::get_subnets over the staged subnets."""
    return [sid for sid, subnet in sorted(state.sdn["subnets"].items()) if subnet.get("vnet") == vnetid]


def _other_vnets(vnets, vnetid, same_zone):
    """The other vnets (sorted; Perl walks a hash) that a zone plugin compares tags with."""
    return [(sid, vnet) for sid, vnet in sorted(vnets.items()) if sid != vnetid and same_zone(vnet)]


def _vlan_hook(state, vnetid, vnet):
    """VlanPlugin (and FaucetPlugin) vnet_update_hook: a tag up to 4096, unique in the zone."""
    tag = vnet.get("tag")
    if tag is None:
        raise param_exc({"tag": "missing vlan tag"})
    if tag > 4096:
        raise param_exc({"tag": "vlan tag max value is 4096"})
    for sid, other in _other_vnets(state.sdn["vnets"], vnetid, lambda other: other.get("zone") == vnet["zone"]):
        if other.get("tag") and other["tag"] == tag:
            raise param_exc({"tag": f"tag {tag} already exist in vnet {sid}"})


def _qinq_hook(state, vnetid, vnet):
    """QinQPlugin vnet_update_hook: one vnet per customer tag, one without a tag, per zone."""
    tag, zoneid = vnet.get("tag"), vnet["zone"]
    if tag and tag > 4096:
        raise param_exc({"tag": "VLAN tag maximal value is 4096"})
    for sid, other in _other_vnets(state.sdn["vnets"], vnetid, lambda other: other.get("zone") == zoneid):
        if tag and other.get("tag") and other["tag"] == tag:
            raise param_exc({"tag": f"tag {tag} already exist in zone {zoneid} vnet {sid}"})
        if not tag and not other.get("tag"):
            raise param_exc({"tag": f"tag-less vnet already exists in zone {zoneid} vnet {sid}"})


def _vxlan_hook(state, vnetid, vnet):
    """VxlanPlugin / EvpnPlugin vnet_update_hook: a VNI, unique among all vxlan and evpn zones."""
    tag = vnet.get("tag")
    if tag is None:
        raise param_exc({"tag": "missing vxlan tag"})
    if tag > 16777216:
        raise param_exc({"tag": "vxlan tag max value is 16777216"})
    zones = state.sdn["zones"]
    if zones[vnet["zone"]]["type"] == "evpn" and vnet.get("vlanaware"):
        raise param_exc({"vlan-aware": "vlan-aware option can't be enabled with evpn"})
    for sid, other in _other_vnets(state.sdn["vnets"], vnetid, lambda other: (
            zones.get(other.get("zone")) or {}).get("type") in ("vxlan", "evpn")):
        if other.get("tag") and other["tag"] == tag:
            raise param_exc({"tag": f"vxlan tag {tag} already exist in vnet {sid} in zone {other['zone']} "})


def _simple_hook(state, vnetid, vnet):
    """SimplePlugin vnet_update_hook (the MAC it picks is no vnet option, so never written)."""
    if vnet.get("tag") is not None:
        raise param_exc({"tag": "vlan tag is not allowed on simple zone"})


VNET_HOOKS = {"simple": _simple_hook, "vlan": _vlan_hook, "faucet": _vlan_hook, "qinq": _qinq_hook,
              "vxlan": _vxlan_hook, "evpn": _vxlan_hook}


def _vnet_update_hooks(state, vnetid, lookup_line):
    """The zone plugin's vnet_update_hook, then VnetPlugin on_update_hook. A zone that does not
    exist has no type: SectionConfig::lookup croaks at the vnet API's call."""
    vnet = state.sdn["vnets"][vnetid]
    zone = state.sdn["zones"].get(vnet.get("zone"))
    if zone is None:
        raise die_at("cannot lookup undefined type!", VNETS_PM, lookup_line)
    VNET_HOOKS[zone["type"]](state, vnetid, vnet)
    if vnet.get("vlanaware") and _subnets_of(state, vnetid):
        raise param_exc({"vlanaware": "vlanaware vnet is not compatible with subnets"})


@route("GET", "/cluster/sdn/vnets")
def vnet_index(ctx, p):
    """API2/Network/SDN/Vnets.pm index: rows the user may audit on /sdn/zones/<zone>/<vnet>."""
    table, digest = _config(ctx.state, "vnets", p)
    res = []
    for vnetid in sorted(table):
        item = _item("vnets", table, vnetid, digest)
        zoneid = item.get("zone") if item.get("zone") is not None else (item.get("pending") or {}).get("zone")
        if ctx.access.check_any(ctx.authid, f"/sdn/zones/{zoneid or ''}/{vnetid}", AUDIT_OR_ALLOCATE, True):
            res.append(item)
    return res


@route("GET", "/cluster/sdn/vnets/{vnet}")
def vnet_read(ctx, p):
    """API2/Network/SDN/Vnets.pm read: the staged vnet must exist, whatever the view."""
    _check_vnet_access(ctx, p["vnet"], AUDIT_OR_ALLOCATE)
    table, digest = _config(ctx.state, "vnets", p)
    return _item("vnets", table, p["vnet"], digest)


@route("POST", "/cluster/sdn/vnets")
def vnet_create(ctx, p):
    """API2/Network/SDN/Vnets.pm create."""
    state = ctx.state
    params = dict(p)
    vnetid = _take(params, "type", "vnet")[1]
    _check_cfs_quorum(state)
    with _sdn_lock(state, "create sdn vnet object failed"):
        settings = _check_config(VNET_OPTIONS, params, create=True)
        vnets = state.sdn["vnets"]
        if vnetid in vnets:
            raise die(f"sdn vnet object ID '{vnetid}' already defined")
        vnets[vnetid] = {"type": "vnet"}
        _store(vnets[vnetid], settings)
        _vnet_update_hooks(state, vnetid, VNET_CREATE_LOOKUP)
    return None


@route("PUT", "/cluster/sdn/vnets/{vnet}")
def vnet_update(ctx, p):
    """API2/Network/SDN/Vnets.pm update."""
    state = ctx.state
    params = dict(p)
    vnetid, digest, delete = _take(params, "vnet", "digest", "delete")
    _check_vnet_access(ctx, vnetid, ALLOCATE)
    with _sdn_lock(state, "update sdn vnet object failed"):
        vnets = state.sdn["vnets"]
        if digest and digest != _digest("vnets", vnets):
            raise die(MODIFIED)
        settings = _check_config(VNET_OPTIONS, params, create=False)
        vnet = vnets[vnetid]
        old_zone = vnet.get("zone")
        _delete_options(vnet, VNET_OPTIONS, settings, split_list(delete))
        _store(vnet, settings)
        if not vnet.get("zone"):
            raise param_exc({"zone": "cannot delete zone"})
        if _subnets_of(state, vnetid) and old_zone != vnet["zone"]:
            raise param_exc({"zone": "can't change zone if subnets exist"})
        _vnet_update_hooks(state, vnetid, VNET_UPDATE_LOOKUP)
    return None


@route("DELETE", "/cluster/sdn/vnets/{vnet}")
def vnet_delete(ctx, p):
    """API2/Network/SDN/Vnets.pm delete."""
    state, vnetid = ctx.state, p["vnet"]
    _check_vnet_access(ctx, vnetid, ALLOCATE)
    with _sdn_lock(state, "delete sdn vnet object failed"):
        if _subnets_of(state, vnetid):  # VnetPlugin on_delete_hook
            raise param_exc({"vnet": "Can't delete vnet if subnets exists"})
        del state.sdn["vnets"][vnetid]
    return None


# -- subnets ------------------------------------------------------------------------------------

def _check_dhcp_range_format(params):
    """The schema's pve-sdn-dhcp-range items, checked like the request validation would."""
    errors = {}
    if "dhcp-range" in params:
        schema_mod.check_prop(params["dhcp-range"], DHCP_RANGES, "dhcp-range", errors)
    if errors:
        raise param_exc(errors)


def _single_ip(text, label):
    """Net::IP->new as validate_dhcp_ranges uses it: an address, or a prefix of one address."""
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    try:
        network = ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise param_exc({"dhcp-range": f"{label} is not a valid IP {text}"}) from None
    if network.num_addresses != 1:
        raise param_exc({"dhcp-range": f"{label} must be a singular IP"})
    return network.network_address


def _validate_dhcp_ranges(texts, cidr):
    """SubnetPlugin::validate_dhcp_ranges."""
    network = ipaddress.ip_network(cidr, strict=False)
    seen = []
    for dhcp_range in _dhcp_ranges(texts):
        start_text, end_text = dhcp_range.get("start-address"), dhcp_range.get("end-address")
        start, end = _single_ip(start_text, "start-address"), _single_ip(end_text, "end-address")
        if start.version == end.version and start > end:
            raise param_exc({"dhcp-range": f"start-address {start_text} must be smaller than end-address {end_text}"})
        for label, address, text in (("start-address", start, start_text), ("end-address", end, end_text)):
            if address.version != network.version or address not in network:
                raise param_exc({"dhcp-range": f"{label} {text} is not in subnet {cidr}"})
        if any(not (end < first or last < start) for first, last in seen):
            raise param_exc({"dhcp-range": "dhcp ranges must not overlap"})
        seen.append((start, end))


def _subnet_update_hook(state, subnetid):
    """SubnetPlugin on_update_hook (the IPAM registration of the gateway is not simulated)."""
    subnet = _item("subnets", state.sdn["subnets"], subnetid, None)
    cidr, vnetid, gateway = subnet["cidr"], subnet.get("vnet"), subnet.get("gateway")
    if vnetid:
        vnet = state.sdn["vnets"].get(vnetid)
        if vnet is None:
            raise param_exc({"vnet": f"{vnetid} don't exist"})
        if vnet.get("vlanaware"):
            raise param_exc({"vnet": "you can't add a subnet on a vlanaware vnet"})
    if gateway:
        address = ipaddress.ip_address(gateway)
        network = ipaddress.ip_network(cidr, strict=False)
        pointopoint = address.version == 4 and subnet["mask"] == "32"  # a /32 may route via any gateway
        if (address.version != network.version or address not in network) and not pointopoint:
            raise param_exc({"gateway": f"{gateway} is not in subnet {cidr}"})
    _validate_dhcp_ranges(state.sdn["subnets"][subnetid].get("dhcp-range"), cidr)


@route("GET", "/cluster/sdn/vnets/{vnet}/subnets")
def subnet_index(ctx, p):
    """API2/Network/SDN/Subnets.pm index: the subnets of the path's vnet."""
    _check_vnet_access(ctx, p["vnet"], AUDIT_OR_ALLOCATE)
    table, digest = _config(ctx.state, "subnets", p)
    items = (_item("subnets", table, subnetid, digest) for subnetid in sorted(table))
    return [item for item in items if item.get("vnet") == p["vnet"]]


@route("GET", "/cluster/sdn/vnets/{vnet}/subnets/{subnet}")
def subnet_read(ctx, p):
    """API2/Network/SDN/Subnets.pm read."""
    _check_vnet_access(ctx, p["vnet"], AUDIT_OR_ALLOCATE)
    table, digest = _config(ctx.state, "subnets", p)
    item = _item("subnets", table, p["subnet"], digest)
    if item.get("vnet") != p["vnet"]:
        raise param_exc({"vnet": "wrong vnet"})
    return item


@route("POST", "/cluster/sdn/vnets/{vnet}/subnets")
def subnet_create(ctx, p):
    """API2/Network/SDN/Subnets.pm create: the id is <zone of the vnet>-<network>-<mask>."""
    state = ctx.state
    params = dict(p)
    cidr = _take(params, "type", "subnet")[1]
    _check_dhcp_range_format(params)
    vnet = _check_vnet_access(ctx, params["vnet"], ALLOCATE)
    _check_cfs_quorum(state)
    with _sdn_lock(state, "create sdn subnet object failed"):
        subnetid = f"{vnet.get('zone')}-{cidr.replace('/', '-', 1)}"
        settings = _check_config(SUBNET_OPTIONS, params, create=True)
        subnets = state.sdn["subnets"]
        if subnetid in subnets:
            raise die(f"sdn subnet object ID '{subnetid}' already defined")
        subnets[subnetid] = {"type": "subnet"}
        _store(subnets[subnetid], settings)
        _subnet_update_hook(state, subnetid)
    return None


@route("PUT", "/cluster/sdn/vnets/{vnet}/subnets/{subnet}")
def subnet_update(ctx, p):
    """API2/Network/SDN/Subnets.pm update. Like PVE, the path's vnet is written into the subnet:
    a PUT under another vnet moves it there."""
    state = ctx.state
    params = dict(p)
    subnetid, digest, delete = _take(params, "subnet", "digest", "delete")
    _check_dhcp_range_format(params)
    _check_vnet_access(ctx, params["vnet"], ALLOCATE)
    with _sdn_lock(state, "update sdn subnet object failed"):
        subnets = state.sdn["subnets"]
        if subnetid not in subnets:
            raise die(NOT_FOUND["subnets"].format(subnetid))
        if digest and digest != _digest("subnets", subnets):
            raise die(MODIFIED)
        settings = _check_config(SUBNET_OPTIONS, params, create=False)
        _delete_options(subnets[subnetid], SUBNET_OPTIONS, settings, split_list(delete))
        _store(subnets[subnetid], settings)
        _subnet_update_hook(state, subnetid)
    return None


@route("DELETE", "/cluster/sdn/vnets/{vnet}/subnets/{subnet}")
def subnet_delete(ctx, p):
    """API2/Network/SDN/Subnets.pm delete. PVE does not check the vnet of the subnet; a missing
    subnet is no error unless the zone has an IPAM, whose del_subnet then finds no zone ''."""
    state, subnetid = ctx.state, p["subnet"]
    vnet = _check_vnet_access(ctx, p["vnet"], ALLOCATE)
    with _sdn_lock(state, "delete sdn subnet object failed"):
        zone = state.sdn["zones"].get(vnet.get("zone")) or {}
        if subnetid not in state.sdn["subnets"] and zone.get("ipam"):
            raise die("zone '' doesn't exist in IPAM DB")
        state.sdn["subnets"].pop(subnetid, None)
    return None
