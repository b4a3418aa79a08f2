"""The simulator's SDN controllers, IPAMs and DNS servers (tests/simulator/pve/handlers/sdn_plugins.py) over real
HTTPS: controllers staged and applied with the zones, IPAMs and DNS servers written directly, the plugins' hooks and
PVE's messages, and the zone checks that name them (sdn.py).

Run: python -m pytest tests/unit/test_simulator_sdn_plugins.py -q
"""

import re
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import
from test_simulator_sdn import apply, err, ok, zone  # noqa: E402

EVPN_ZONE_PM = "/usr/share/perl5/PVE/Network/SDN/Zones/EvpnPlugin.pm"
EVPN_CONTROLLER_PM = "/usr/share/perl5/PVE/Network/SDN/Controllers/EvpnPlugin.pm"


@pytest.fixture(autouse=True)
def clean(sim):
    """Every test starts with empty SDN files, nothing applied, no IPAM, DNS server or API failure."""
    state = sim.state
    with state.lock:
        for table in state.sdn.values():
            table.clear()
        state.sdn_running = None
        state.sdn_ipams.clear()
        state.sdn_dns.clear()
        state.sdn_api_failures.clear()


def controller(sim, sid, typ="evpn", **options):
    return ok(sim, "POST", "/cluster/sdn/controllers", dict(options, controller=sid, type=typ))


def create_controller(sim, **form):
    return sim.request("POST", "/cluster/sdn/controllers", form)


def at(path, line):
    return f" at {path} line {line}.\n"


def test_a_controller_is_staged_until_the_apply_and_then_running(sim):
    controller(sim, "evpn1", asn="65000", peers="10.0.0.1,10.0.0.2")
    pending = ok(sim, "GET", "/cluster/sdn/controllers", {"pending": "1"})
    assert pending == [{"controller": "evpn1", "type": "evpn", "state": "new", "digest": None,
                        "pending": {"asn": 65000, "peers": "10.0.0.1,10.0.0.2"}}]
    assert ok(sim, "GET", "/cluster/sdn/controllers", {"running": "1"}) == []
    staged = ok(sim, "GET", "/cluster/sdn/controllers/evpn1")
    assert staged["asn"] == 65000 and re.fullmatch(r"[0-9a-f]{40}", staged["digest"])
    apply(sim)
    assert ok(sim, "GET", "/cluster/sdn/controllers/evpn1", {"running": "1"})["peers"] == "10.0.0.1,10.0.0.2"
    assert ok(sim, "GET", "/cluster/sdn/controllers", {"pending": "1"})[0].get("state") is None


def test_the_controller_hooks_refuse_as_pve_does(sim):
    controller(sim, "evpn1", asn="65000", peers="10.0.0.1")
    assert create_controller(sim, controller="evpn2", type="evpn", asn="65001", peers="10.0.0.9") == err(
        "create sdn controller object failed: only 1 global evpn controller can be defined"
        + at(EVPN_CONTROLLER_PM, 491))
    ok(sim, "DELETE", "/cluster/sdn/controllers/evpn1")
    assert create_controller(sim, controller="evpn1", type="evpn", asn="65000") == err(
        "create sdn controller object failed: must have exactly one of peers / fabric defined"
        + at(EVPN_CONTROLLER_PM, 496))
    # bgp needs node, asn and peers (options()); isis its domain, net, interfaces and node
    assert create_controller(sim, controller="bgp1", type="bgp", asn="65000", node="node1") == err(
        "missing value for required option 'peers'\n")
    assert create_controller(sim, controller="bgp1", type="bgp", asn="65000", node="node1", peers="10.0.0.1",
                             **{"isis-domain": "x"}) == err(
        "unexpected property 'isis-domain'\n")


def test_a_controller_a_zone_names_cannot_be_removed_and_an_evpn_zone_needs_an_evpn_controller(sim):
    controller(sim, "bgp1", "bgp", asn="65000", node="node1", peers="10.0.0.1")
    assert sim.request("POST", "/cluster/sdn/zones", {"zone": "ev", "type": "evpn", "controller": "bgp1",
                                                      "vrf-vxlan": "100"}) == err(
        "create sdn zone object failed: bgp1 is not a evpn controller type" + at(EVPN_ZONE_PM, 356))
    assert sim.request("POST", "/cluster/sdn/zones", {"zone": "ev", "type": "evpn", "controller": "none",
                                                      "vrf-vxlan": "100"}) == err(
        "create sdn zone object failed: controller none don't exist" + at(EVPN_ZONE_PM, 354))
    controller(sim, "evpn1", asn="65000", peers="10.0.0.1")
    zone(sim, "ev", "evpn", controller="evpn1", **{"vrf-vxlan": "100"})
    # EvpnPlugin on_update_hook gives the zone a MAC of datacenter.cfg's prefix
    assert ok(sim, "GET", "/cluster/sdn/zones/ev")["mac"].startswith("BC:24:11:")
    assert sim.request("POST", "/cluster/sdn/zones", {"zone": "ev2", "type": "evpn", "controller": "evpn1",
                                                      "vrf-vxlan": "100"}) == err(
        "create sdn zone object failed: vrf-vxlan 100 is already declared in ev" + at(EVPN_ZONE_PM, 366))
    assert sim.request("DELETE", "/cluster/sdn/controllers/evpn1") == err(
        "delete sdn controller object failed: controller evpn1 is used by ev" + at(EVPN_CONTROLLER_PM, 475))


def test_the_ipams_always_list_the_built_in_pve_and_a_netbox_read_answers_its_token(sim):
    empty = ok(sim, "GET", "/cluster/sdn/ipams/pve")["digest"]
    assert ok(sim, "GET", "/cluster/sdn/ipams") == [{"ipam": "pve", "type": "pve", "digest": empty}]
    ok(sim, "POST", "/cluster/sdn/ipams", dict(ipam="netbox", type="netbox", url="https://netbox.lab/api",
                                               token="s3cret"))
    read = ok(sim, "GET", "/cluster/sdn/ipams/netbox")
    assert (read["url"], read["token"]) == ("https://netbox.lab/api", "s3cret")
    # not staged: no pending view, and the first write stored the built-in pve in the file
    assert sorted(sim.state.sdn_ipams) == ["netbox", "pve"]
    assert sim.request("POST", "/cluster/sdn/ipams", dict(ipam="php", type="phpipam", url="https://php.lab/api",
                                                          token="t")) == err(
        "missing value for required option 'section'\n")
    assert sim.request("POST", "/cluster/sdn/ipams", dict(ipam="netbox", type="netbox", url="https://x", token="t")) \
        == err("create sdn ipam object failed: sdn ipam object ID 'netbox' already defined\n")
    ok(sim, "PUT", "/cluster/sdn/ipams/netbox", dict(token="n3w", digest=read["digest"]))
    assert sim.state.sdn_ipams["netbox"]["token"] == "n3w"
    assert sim.request("PUT", "/cluster/sdn/ipams/netbox", dict(token="x", digest=read["digest"])) == err(
        "update sdn ipam object failed: detected modified configuration - file changed by other user? Try again.\n")


def test_the_plugins_api_checks_fail_as_the_knob_says_and_nothing_is_written(sim):
    sim.state.sdn_api_failures["https://netbox.lab/api"] = "500 Can't connect to netbox.lab:443 (Connection refused)"
    assert sim.request("POST", "/cluster/sdn/ipams", dict(ipam="netbox", type="netbox", url="https://netbox.lab/api",
                                                          token="t")) == err(
        "create sdn ipam object failed: Can't connect to netbox api: Invalid response from server: 500 Can't "
        "connect to netbox.lab:443 (Connection refused)\n")
    sim.state.sdn_api_failures["https://pdns.lab/api/v1/servers/localhost"] = "401 Unauthorized"
    assert sim.request("POST", "/cluster/sdn/dns", dict(dns="pdns", type="powerdns", key="k",
                                                        url="https://pdns.lab/api/v1/servers/localhost")) == err(
        "create sdn dns object failed: dns api error: Invalid response from server: 401 Unauthorized\n")
    assert dict(sim.state.sdn_ipams) == {} and dict(sim.state.sdn_dns) == {}


def test_a_dns_server_takes_powerdns_options_only_and_zones_check_the_names_they_use(sim):
    url = "https://pdns.lab/api/v1/servers/localhost"
    assert sim.request("POST", "/cluster/sdn/dns", dict(dns="pdns", type="powerdns", key="k", url=url,
                                                        reversev6mask="64")) == err(
        "unexpected property 'reversev6mask'\n")
    ok(sim, "POST", "/cluster/sdn/dns", dict(dns="pdns", type="powerdns", key="k", url=url, ttl="3600",
                                             reversemaskv6="56"))
    assert ok(sim, "GET", "/cluster/sdn/dns/pdns")["key"] == "k"
    assert sim.request("POST", "/cluster/sdn/zones", dict(zone="lab", type="simple", dns="other")) == err(
        "create sdn zone object failed: 400 Parameter verification failed.\ndns: other don't exist\n")
    assert sim.request("POST", "/cluster/sdn/zones", dict(zone="lab", type="simple", ipam="netbox")) == err(
        "create sdn zone object failed: 400 Parameter verification failed.\nipam: netbox not existing\n")
    zone(sim, "lab", dns="pdns", reversedns="pdns", dnszone="lab.example.org")
    # neither API checks the zones naming a DNS server or IPAM it removes
    ok(sim, "DELETE", "/cluster/sdn/dns/pdns")
    assert sim.request("DELETE", "/cluster/sdn/dns/pdns") == err("delete sdn dns object failed: sdn 'pdns' does not "
                                                                 "exist\n")
