"""/cluster/sdn/{controllers,ipams,dns}: the SDN plugins a zone names (pve-network 1.x for PVE 9.1).

Ports ``PVE::API2::Network::SDN::Controllers``, ``::Ipams`` and ``::Dns`` (index, read, create,
update, delete), behind them ``PVE::Network::SDN::{Controllers,Ipams,Dns}`` (config,
sdn_*_config) and the plugins' options() and hooks: ``Controllers::{Evpn,Bgp,Isis,Faucet}Plugin``
(on_update_hook, EvpnPlugin on_delete_hook), ``Ipams::{PVE,Netbox,PhpIpam}Plugin`` and
``Dns::PowerdnsPlugin`` (on_update_hook: verify_api).

* Controllers are staged like zones (``state.sdn["controllers"]``, part of the running config the
  apply commits: ``PVE::Network::SDN::commit_config``); ``running=1`` and ``pending=1`` as for zones.
* IPAMs and DNS servers are written directly (sdn/ipams.cfg, sdn/dns.cfg have no running copy):
  ``state.sdn_ipams`` and ``state.sdn_dns``. ``Ipams::config`` always adds the built-in ``pve``;
  the first write stores it in the file.
* Every read returns the section as stored, secrets included: PVE's read of an IPAM answers its
  ``token``, of a DNS server its ``key`` (``$api_sdn_ipams_config`` dclones the section).
* The external APIs the IPAM and DNS hooks call (verify_api: netbox ``GET /ipam/aggregates/``,
  phpipam ``GET /sections/<id>``, powerdns ``GET <url>``) answer as ``state.sdn_api_failures``
  says: url -> ``"<code> <message>"`` of the failed answer (``PVE::Network::SDN::api_request``),
  absent: the call succeeds. Subnet registration in an external IPAM is not simulated.
"""

import copy
import hashlib
from collections import OrderedDict

from ...errors import die, die_at
from ...formats import split_list
from ..state import register_slice
from .base import route
from . import sdn

register_slice("sdn_ipams", OrderedDict)
register_slice("sdn_dns", OrderedDict)
# Fault knob: url -> "<code> <message>" of the answer the plugin's API call gets (not a config file).
register_slice("sdn_api_failures", dict, snapshot=False)

# options() of each plugin: option -> required.
CONTROLLER_OPTIONS = {
    "evpn": {"asn": True, "peers": False, "fabric": False},
    "bgp": {"node": True, "asn": True, "peers": True, "bgp-multipath-as-path-relax": False, "ebgp": False,
            "ebgp-multihop": False, "loopback": False},
    "isis": {"isis-domain": True, "isis-net": True, "isis-ifaces": True, "node": True, "loopback": False},
    "faucet": {},
}
IPAM_OPTIONS = {
    "pve": {},
    "netbox": {"url": True, "token": True, "fingerprint": False},
    "phpipam": {"url": True, "token": True, "section": True, "fingerprint": False},
}
DNS_OPTIONS = {
    # Dns/Plugin.pm's propertyList also has reversev6mask, which no plugin's options() takes.
    "powerdns": {"url": True, "key": True, "ttl": False, "reversemaskv6": False, "fingerprint": False},
}
EVPN_PM = "PVE/Network/SDN/Controllers/EvpnPlugin.pm"
BGP_PM = "PVE/Network/SDN/Controllers/BgpPlugin.pm"
ISIS_PM = "PVE/Network/SDN/Controllers/IsisPlugin.pm"


def controllers(state):
    """The staged sdn/controllers.cfg (PVE::Network::SDN::Controllers::config)."""
    return state.sdn.setdefault("controllers", OrderedDict())


def ipam_ids(state):
    """Ipams::config's ids: the file's, and the built-in pve always."""
    return set(state.sdn_ipams) | {"pve"}


def dns_ids(state):
    return set(state.sdn_dns)


def _render(table, options_of):
    """SectionConfig::write_config: required options first, unset ones left out."""
    out = []
    for sid, section in table.items():
        options = options_of[section["type"]]
        out.append(f"{section['type']}: {sid}\n")
        for key in sorted(options, key=lambda option: (not options[option], option)):
            if section.get(key) is not None:
                out.append(f"\t{key} {section[key]}\n")
        out.append("\n")
    return "".join(out)


def _digest(table, options_of):
    return hashlib.sha1(_render(table, options_of).encode()).hexdigest()


def _section(table, sid, key, digest):
    """$api_sdn_*_config: the stored section (secrets and all), its id under ``key``, the file's digest."""
    if sid not in table:
        raise die(f"sdn '{sid}' does not exist")
    res = copy.deepcopy(table[sid])
    res[key] = sid
    res["digest"] = digest
    return res


def _update(table, sid, options_of, params, delete):
    """The update's check_config, delete_from_config and assignment (the hook is the caller's)."""
    if sid not in table:
        raise die(f"sdn '{sid}' does not exist")
    section, options = table[sid], options_of[table[sid]["type"]]
    settings = sdn._check_config(options, params, create=False)
    sdn._delete_options(section, options, settings, split_list(delete))
    sdn._store(section, settings)
    return section


# -- controllers (staged) ------------------------------------------------------------------------

def _controller_config(state, p):
    """(table, digest) a read shows: pending=1 wins over running=1 over the staged file."""
    running = (state.sdn_running or {}).get("controllers") or {}
    if p.get("pending"):
        return sdn._pending(running, controllers(state)), None
    if p.get("running"):
        return running, None
    return controllers(state), _digest(controllers(state), CONTROLLER_OPTIONS)


def _controller_update_hook(state, controllerid, local_node):
    """The plugin's on_update_hook. Bgp and Isis count the other controllers of their type on the
    local node (the node answering) and die from the second one on, as PVE does."""
    table = controllers(state)
    controller = table[controllerid]
    typ = controller["type"]
    others = [(sid, other) for sid, other in sorted(table.items()) if sid != controllerid]
    if typ == "evpn":
        if any(other["type"] == "evpn" for _sid, other in others):
            raise die_at("only 1 global evpn controller can be defined", EVPN_PM, 491)
        if bool(controller.get("peers")) == bool(controller.get("fabric")):
            raise die_at("must have exactly one of peers / fabric defined", EVPN_PM, 496)
    elif typ in ("bgp", "isis"):
        local = [sid for sid, other in others if other["type"] == typ and other.get("node") == local_node]
        if len(local) > 1:
            raise die_at(*(("only 1 bgp controller can be defined", BGP_PM, 183) if typ == "bgp" else
                           ("only 1 bgp or isis controller can be defined", ISIS_PM, 123)))


@route("GET", "/cluster/sdn/controllers")
def controller_index(ctx, p):
    """API2/Network/SDN/Controllers.pm index: rows the user may audit, optionally of one type."""
    table, digest = _controller_config(ctx.state, p)
    res = []
    for sid in sorted(table):
        if not ctx.access.check_any(ctx.authid, f"/sdn/controllers/{sid}", sdn.AUDIT_OR_ALLOCATE, True):
            continue
        item = _section(table, sid, "controller", digest)
        if not p.get("type") or p["type"] == item.get("type"):
            res.append(item)
    return res


@route("GET", "/cluster/sdn/controllers/{controller}")
def controller_read(ctx, p):
    """API2/Network/SDN/Controllers.pm read."""
    table, digest = _controller_config(ctx.state, p)
    return _section(table, p["controller"], "controller", digest)


@route("POST", "/cluster/sdn/controllers")
def controller_create(ctx, p):
    """API2/Network/SDN/Controllers.pm create: check_config before the quorum check and the lock."""
    state = ctx.state
    params = dict(p)
    typ, sid = sdn._take(params, "type", "controller")
    settings = sdn._check_config(CONTROLLER_OPTIONS[typ], params, create=True)
    sdn._check_cfs_quorum(state)
    with sdn._sdn_lock(state, "create sdn controller object failed"):
        table = controllers(state)
        if sid in table:
            raise die(f"sdn controller object ID '{sid}' already defined")
        table[sid] = {"type": typ}
        sdn._store(table[sid], settings)
        _controller_update_hook(state, sid, ctx.node)
    return None


@route("PUT", "/cluster/sdn/controllers/{controller}")
def controller_update(ctx, p):
    """API2/Network/SDN/Controllers.pm update."""
    state = ctx.state
    params = dict(p)
    sid, digest, delete = sdn._take(params, "controller", "digest", "delete")
    with sdn._sdn_lock(state, "update sdn controller object failed"):
        table = controllers(state)
        if digest and digest != _digest(table, CONTROLLER_OPTIONS):
            raise die(sdn.MODIFIED)
        _update(table, sid, CONTROLLER_OPTIONS, params, delete)
        _controller_update_hook(state, sid, ctx.node)
    return None


@route("DELETE", "/cluster/sdn/controllers/{controller}")
def controller_delete(ctx, p):
    """API2/Network/SDN/Controllers.pm delete: EvpnPlugin on_delete_hook refuses a controller a
    staged zone names (the other plugins have none)."""
    state, sid = ctx.state, p["controller"]
    with sdn._sdn_lock(state, "delete sdn controller object failed"):
        table = controllers(state)
        if sid not in table:
            raise die(f"sdn '{sid}' does not exist")
        if table[sid]["type"] == "evpn":
            for zoneid, zone in sorted(state.sdn["zones"].items()):
                if zone.get("controller") == sid:
                    raise die_at(f"controller {sid} is used by {zoneid}", EVPN_PM, 475)
        del table[sid]
    return None


# -- IPAMs and DNS servers (written directly) -----------------------------------------------------

def _verify_api(state, kind, section):
    """The plugin's on_update_hook: one call to its API (verify_api), failing as the knob says."""
    if kind == "pve":
        return
    failure = state.sdn_api_failures.get(section.get("url"))
    if failure is None:
        return
    reason = f"Invalid response from server: {failure}\n"
    raise die({"netbox": "Can't connect to netbox api: ", "phpipam": "Can't connect to phpipam api: ",
               "powerdns": "dns api error: "}[kind] + reason)


class _Directly:
    """One directly written plugin file: its state slice, options, id key, ACL path and noun."""

    def __init__(self, slice_name, key, options, acl, noun, builtin=None):
        self.slice_name, self.key, self.options, self.acl, self.noun = slice_name, key, options, acl, noun
        self.builtin = builtin  # Ipams::config adds {pve: {type: pve}} to every read

    def stored(self, state):
        return getattr(state, self.slice_name)

    def config(self, state):
        """config(): the file's sections (and the built-in one) and the file's digest."""
        table = self.stored(state)
        digest = _digest(table, self.options)
        if self.builtin and self.builtin not in table:
            table = OrderedDict(table, **{self.builtin: {"type": self.builtin}})
        return table, digest

    def for_write(self, state):
        """The table a write changes: config() as read, which write_config stores whole (the built-in too)."""
        table = self.stored(state)
        if self.builtin and self.builtin not in table:
            table[self.builtin] = {"type": self.builtin}
        return table

    def index(self, ctx, p):
        table, digest = self.config(ctx.state)
        res = []
        for sid in sorted(table):
            if not ctx.access.check_any(ctx.authid, f"{self.acl}/{sid}", sdn.AUDIT_OR_ALLOCATE, True):
                continue
            item = _section(table, sid, self.key, digest)
            if not p.get("type") or p["type"] == item.get("type"):
                res.append(item)
        return res

    def read(self, ctx, p):
        table, digest = self.config(ctx.state)
        return _section(table, p[self.key], self.key, digest)

    def create(self, ctx, p):
        state = ctx.state
        params = dict(p)
        typ, sid = sdn._take(params, "type", self.key)
        settings = sdn._check_config(self.options[typ], params, create=True)
        sdn._check_cfs_quorum(state)
        with sdn._sdn_lock(state, f"create sdn {self.noun} object failed"):
            table = self.for_write(state)
            if sid in table:
                raise die(f"sdn {self.noun} object ID '{sid}' already defined")
            table[sid] = {"type": typ}
            sdn._store(table[sid], settings)
            _verify_api(state, typ, table[sid])
        return None

    def update(self, ctx, p):
        state = ctx.state
        params = dict(p)
        sid, digest, delete = sdn._take(params, self.key, "digest", "delete")
        with sdn._sdn_lock(state, f"update sdn {self.noun} object failed"):
            if digest and digest != self.config(state)[1]:
                raise die(sdn.MODIFIED)
            section = _update(self.for_write(state), sid, self.options, params, delete)
            _verify_api(state, section["type"], section)
        return None

    def delete(self, ctx, p, errmsg):
        state, sid = ctx.state, p[self.key]
        with sdn._sdn_lock(state, errmsg):
            table = self.for_write(state)
            if sid not in table:
                raise die(f"sdn '{sid}' does not exist")
            # Neither API checks the zones naming the plugin: a zone may keep a vanished IPAM or DNS server.
            del table[sid]
        return None


IPAMS = _Directly("sdn_ipams", "ipam", IPAM_OPTIONS, "/sdn/ipams", "ipam", builtin="pve")
DNS = _Directly("sdn_dns", "dns", DNS_OPTIONS, "/sdn/dns", "dns")


@route("GET", "/cluster/sdn/ipams")
def ipam_index(ctx, p):
    """API2/Network/SDN/Ipams.pm index (no running or pending view: the file is not staged)."""
    return IPAMS.index(ctx, p)


@route("GET", "/cluster/sdn/ipams/{ipam}")
def ipam_read(ctx, p):
    """API2/Network/SDN/Ipams.pm read: the section as stored, its token too."""
    return IPAMS.read(ctx, p)


@route("POST", "/cluster/sdn/ipams")
def ipam_create(ctx, p):
    """API2/Network/SDN/Ipams.pm create: the plugin's on_update_hook (verify_api) inside the lock."""
    return IPAMS.create(ctx, p)


@route("PUT", "/cluster/sdn/ipams/{ipam}")
def ipam_update(ctx, p):
    """API2/Network/SDN/Ipams.pm update."""
    return IPAMS.update(ctx, p)


@route("DELETE", "/cluster/sdn/ipams/{ipam}")
def ipam_delete(ctx, p):
    """API2/Network/SDN/Ipams.pm delete (its error prefix is the zone API's, as in PVE)."""
    return IPAMS.delete(ctx, p, "delete sdn zone object failed")


@route("GET", "/cluster/sdn/dns")
def dns_index(ctx, p):
    """API2/Network/SDN/Dns.pm index."""
    return DNS.index(ctx, p)


@route("GET", "/cluster/sdn/dns/{dns}")
def dns_read(ctx, p):
    """API2/Network/SDN/Dns.pm read: the section as stored, its key too."""
    return DNS.read(ctx, p)


@route("POST", "/cluster/sdn/dns")
def dns_create(ctx, p):
    """API2/Network/SDN/Dns.pm create: PowerdnsPlugin on_update_hook (one API call) inside the lock."""
    return DNS.create(ctx, p)


@route("PUT", "/cluster/sdn/dns/{dns}")
def dns_update(ctx, p):
    """API2/Network/SDN/Dns.pm update."""
    return DNS.update(ctx, p)


@route("DELETE", "/cluster/sdn/dns/{dns}")
def dns_delete(ctx, p):
    """API2/Network/SDN/Dns.pm delete."""
    return DNS.delete(ctx, p, "delete sdn dns object failed")
