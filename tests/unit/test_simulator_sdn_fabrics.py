"""The simulator's SDN fabrics (tests/simulator/pve/handlers/sdn_fabrics.py) over real HTTPS: openfabric
and ospf fabrics and their nodes staged in fabrics.cfg, Rust's validation of every write, the digest,
the pending and running views, and the apply (PUT /cluster/sdn) making them live with the zones.

Run: python -m pytest tests/unit/test_simulator_sdn_fabrics.py -q
"""

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import

MODIFIED = "detected modified configuration - file changed by other user? Try again.\n"
FABRICS = "/cluster/sdn/fabrics/fabric"


@pytest.fixture(autouse=True)
def clean(sim):
    """Every test starts with empty SDN files and nothing applied."""
    state = sim.state
    with state.lock:
        for table in state.sdn.values():
            table.clear()
        state.sdn_running = None
    yield


def err(message, status=500):
    return status, {"data": None, "message": message}


def ok(sim, method, path, form=None):
    status, body = sim.request(method, path, form)
    assert status == 200, (method, path, form, body)
    return body["data"]


def fabric(sim, fid="f1", protocol="openfabric", **options):
    options.setdefault("ip_prefix", "10.0.0.0/24")
    if protocol == "ospf":
        options.setdefault("area", "0")
    return ok(sim, "POST", FABRICS, dict(options, id=fid, protocol=protocol))


def node(sim, node_id, fid="f1", protocol="openfabric", **options):
    return ok(sim, "POST", f"/cluster/sdn/fabrics/node/{fid}", dict(options, node_id=node_id, protocol=protocol))


def post_node(sim, fid, node_id, protocol="openfabric", **form):
    """The node POST's answer (status, body)."""
    return sim.request("POST", f"/cluster/sdn/fabrics/node/{fid}", dict(form, node_id=node_id, protocol=protocol))


def three_nodes(sim):
    fabric(sim, hello_interval=3)
    for i, name in enumerate(("node1", "node2", "node3"), start=1):
        node(sim, name, ip=f"10.0.0.{i}", interfaces=[f"name=ens{18 + i}", f"name=ens{21 + i},hello_multiplier=3"])


def test_the_index_names_fabric_node_and_all(sim):
    assert ok(sim, "GET", "/cluster/sdn/fabrics") == [{"subdir": "fabric"}, {"subdir": "node"}, {"subdir": "all"}]


def test_a_fabric_reads_back_with_its_canonical_prefix_and_the_digest(sim):
    fabric(sim, ip_prefix="10.0.0.7/24", hello_interval="3", csnp_interval=10)
    read = ok(sim, "GET", f"{FABRICS}/f1")
    digest = read.pop("digest")
    assert len(digest) == 64
    assert read == {"id": "f1", "protocol": "openfabric", "ip_prefix": "10.0.0.0/24", "hello_interval": 3,
                    "csnp_interval": 10}


def test_the_fabric_list_carries_no_digest_outside_the_pending_view(sim):
    fabric(sim)
    assert "digest" not in ok(sim, "GET", FABRICS)[0]
    assert len(ok(sim, "GET", FABRICS, {"pending": 1})[0]["digest"]) == 64
    assert len(ok(sim, "GET", "/cluster/sdn/fabrics/all")["fabrics"][0]["digest"]) == 64


def test_fabric_ids_follow_pve_sdn_fabric_id_and_exist_once(sim):
    status, body = sim.request("POST", FABRICS, {"id": "fabric-long", "protocol": "openfabric",
                                                 "ip_prefix": "10.0.0.0/24"})
    assert status == 400 and body["errors"] == {"id": "invalid format - Fabric ID 'fabric-long' contains "
                                                      "illegal characters\n"}
    fabric(sim)
    assert sim.request("POST", FABRICS, {"id": "f1", "protocol": "openfabric", "ip_prefix": "10.9.0.0/24"}) == err(
        "adding fabric failed: fabric 'f1' already exists in config\n")


def test_an_openfabric_fabric_needs_a_prefix_an_ospf_one_an_ipv4_prefix_and_an_area(sim):
    assert sim.request("POST", FABRICS, {"id": "f1", "protocol": "openfabric"}) == err(
        "adding fabric failed: fabric 'f1' does not have an IP prefix configured\n")
    assert sim.request("POST", FABRICS, {"id": "o1", "protocol": "ospf", "ip_prefix": "10.1.0.0/24"}) == err(
        "adding fabric failed: missing field `area`\n")
    assert sim.request("POST", FABRICS, {"id": "o1", "protocol": "ospf", "area": "0",
                                         "ip6_prefix": "fd00::/64"}) == err(
        "adding fabric failed: fabric 'o1' does not have an IP prefix configured\n")
    assert sim.request("POST", FABRICS, {"id": "o1", "protocol": "ospf", "area": "0", "ip_prefix": "10.1.0.0/24",
                                         "ip6_prefix": "fd00::/64"}) == err(
        "adding fabric failed: IPv6 is currently not supported for protocol ospf\n")
    assert ok(sim, "GET", FABRICS) == []


def test_the_ospf_area_is_a_number_or_an_ipv4_address_unique_across_fabrics(sim):
    assert sim.request("POST", FABRICS, {"id": "o1", "protocol": "ospf", "area": "backbone",
                                         "ip_prefix": "10.1.0.0/24"}) == err(
        "adding fabric failed: Area is not a number, nor an ip address\n")
    fabric(sim, "o1", "ospf", area="0.0.0.1", ip_prefix="10.1.0.0/24")
    # 1 and 0.0.0.1 are the same area
    assert sim.request("POST", FABRICS, {"id": "o2", "protocol": "ospf", "area": "1",
                                         "ip_prefix": "10.2.0.0/24"}) == err(
        "adding fabric failed: duplicate OSPF area\n")
    fabric(sim, "o2", "ospf", area="2", ip_prefix="10.2.0.0/24")
    assert [row["area"] for row in ok(sim, "GET", FABRICS)] == ["0.0.0.1", "2"]


def test_fabric_prefixes_must_not_overlap(sim):
    fabric(sim, "a1", ip_prefix="10.0.0.0/16")
    assert sim.request("POST", FABRICS, {"id": "b1", "protocol": "openfabric", "ip_prefix": "10.0.5.0/24"}) == err(
        "adding fabric failed: IP prefix 10.0.5.0/24 in fabric 'b1' overlaps with IPv4 prefix 10.0.0.0/16 in "
        "fabric 'a1'\n")


def test_a_node_s_ip_must_be_inside_the_prefix_and_unique_in_the_fabric(sim):
    fabric(sim)
    assert post_node(sim, "f1", "node1", ip="10.9.0.1") == err(
        "adding node failed: node IP 10.9.0.1 is outside the IP prefix 10.0.0.0/24 of the fabric\n")
    node(sim, "node1", ip="10.0.0.1")
    assert post_node(sim, "f1", "node2", ip="10.0.0.1") == err(
        "adding node failed: fabric f1 contains nodes with duplicated IPs\n")
    assert post_node(sim, "f1", "node2") == err(
        "adding node failed: node 'f1_node2' does not have an IP configured for this fabric prefix 10.0.0.0/24\n")
    assert post_node(sim, "f1", "node2", ip="10.0.0.2", ip6="fd00::2") == err(
        "adding node failed: fabric 'f1' does not have an IP prefix configured for the node IP fd00::2\n")


def test_a_node_needs_its_fabric_with_the_same_protocol_and_exists_once(sim):
    assert post_node(sim, "f1", "node1", ip="10.0.0.1") == err(
        "adding node failed: fabric 'f1' does not exist in configuration\n")
    fabric(sim)
    assert post_node(sim, "f1", "node1", "ospf", ip="10.0.0.1") == err(
        "adding node failed: node has a different protocol than the referenced fabric\n")
    node(sim, "node1", ip="10.0.0.1")
    assert post_node(sim, "f1", "node1", ip="10.0.0.9") == err(
        "adding node failed: node 'node1' already exists in config for fabric f1\n")


def test_interfaces_are_checked_by_the_protocol_s_variant_and_read_back_canonical(sim):
    fabric(sim)
    fabric(sim, "o1", "ospf", ip_prefix="10.1.0.0/24")
    status, body = post_node(sim, "f1", "node1", ip="10.0.0.1", interfaces=["name=ens19,hello_multiplier=1"])
    assert status == 400 and body["errors"] == {
        "interfaces[0]": "invalid format - format error\ninterfaces[0].hello_multiplier: "
                         "value must have a minimum value of 2\n"}
    status, body = post_node(sim, "o1", "node1", "ospf", ip="10.1.0.1", interfaces=["name=ens19,hello_multiplier=3"])
    assert status == 400 and "interfaces[0]" in body["errors"]
    node(sim, "node1", ip="10.0.0.1", interfaces=["hello_multiplier=3,name=ens19", "ip=10.5.0.1/31,name=ens20"])
    read = ok(sim, "GET", "/cluster/sdn/fabrics/node/f1/node1")
    assert read["interfaces"] == ["name=ens19,hello_multiplier=3", "name=ens20,ip=10.5.0.1/31"]
    assert read["fabric_id"] == "f1" and read["node_id"] == "node1" and read["protocol"] == "openfabric"


def test_an_interface_of_a_node_is_in_one_fabric_only(sim):
    fabric(sim)
    fabric(sim, "f2", ip_prefix="10.1.0.0/24")
    node(sim, "node1", ip="10.0.0.1", interfaces=["name=ens19"])
    assert post_node(sim, "f2", "node1", ip="10.1.0.1", interfaces=["name=ens19"]) == err(
        "adding node failed: interface is already in use by another fabric\n")
    node(sim, "node1", "f2", ip="10.1.0.1", interfaces=["name=ens20"])


def test_an_ospf_node_needs_an_ipv4_address_and_takes_no_ipv6(sim):
    fabric(sim, "o1", "ospf", ip_prefix="10.1.0.0/24")
    assert post_node(sim, "o1", "node1", "ospf") == err(
        "adding node failed: node 'o1_node1' does not have an IP configured for this fabric prefix 10.1.0.0/24\n")
    node(sim, "node1", "o1", "ospf", ip="10.1.0.1", interfaces=["name=ens19"])


def test_updates_change_and_delete_what_the_protocol_s_updater_takes(sim):
    fabric(sim, hello_interval=3)
    ok(sim, "PUT", f"{FABRICS}/f1", {"protocol": "openfabric", "csnp_interval": 20, "delete": "hello_interval"})
    assert ok(sim, "GET", f"{FABRICS}/f1")["csnp_interval"] == 20
    assert "hello_interval" not in ok(sim, "GET", f"{FABRICS}/f1")
    status, body = sim.request("PUT", f"{FABRICS}/f1", {"protocol": "openfabric", "delete": "area"})
    assert status == 400 and "delete[0]" in body["errors"]
    assert sim.request("PUT", f"{FABRICS}/f1", {"protocol": "ospf", "area": "1"}) == err(
        "updating fabric failed: node has a different protocol than the referenced fabric\n")
    fabric(sim, "o1", "ospf", ip_prefix="10.1.0.0/24")
    # the schema lists area, but OspfDeletableProperties has no variant: Rust cannot deserialize it
    assert sim.request("PUT", f"{FABRICS}/o1", {"protocol": "ospf", "delete": "area"}) == err(
        "updating fabric failed: data did not match any variant of untagged enum FabricDeletableProperties\n")


def test_a_prefix_change_that_leaves_a_node_outside_is_refused_and_nothing_changes(sim):
    three_nodes(sim)
    assert sim.request("PUT", f"{FABRICS}/f1", {"protocol": "openfabric", "ip_prefix": "10.8.0.0/24"}) == err(
        "updating fabric failed: node IP 10.0.0.1 is outside the IP prefix 10.8.0.0/24 of the fabric\n")
    assert ok(sim, "GET", f"{FABRICS}/f1")["ip_prefix"] == "10.0.0.0/24"


def test_node_updates_and_deletes(sim):
    three_nodes(sim)
    ok(sim, "PUT", "/cluster/sdn/fabrics/node/f1/node2", {"protocol": "openfabric", "ip": "10.0.0.20",
                                                          "delete": "interfaces"})
    read = ok(sim, "GET", "/cluster/sdn/fabrics/node/f1/node2")
    assert read["ip"] == "10.0.0.20" and read["interfaces"] == []
    assert sim.request("PUT", "/cluster/sdn/fabrics/node/f1/node9", {"protocol": "openfabric"}) == err(
        "updating node failed: node 'node9' does not exist in fabric 'f1'\n")
    assert sim.request("GET", "/cluster/sdn/fabrics/node/f1/node9") == err(
        "node 'node9' does not exist in fabric 'f1'\n")
    ok(sim, "DELETE", "/cluster/sdn/fabrics/node/f1/node3")
    assert [row["node_id"] for row in ok(sim, "GET", "/cluster/sdn/fabrics/node/f1")] == ["node1", "node2"]


def test_a_stale_digest_is_refused_a_current_one_passes(sim):
    fabric(sim)
    digest = ok(sim, "GET", f"{FABRICS}/f1")["digest"]
    node(sim, "node1", ip="10.0.0.1")
    assert sim.request("PUT", f"{FABRICS}/f1", {"protocol": "openfabric", "hello_interval": 5,
                                                "digest": digest}) == err(f"updating fabric failed: {MODIFIED}")
    current = ok(sim, "GET", f"{FABRICS}/f1")["digest"]
    assert current != digest
    ok(sim, "PUT", f"{FABRICS}/f1", {"protocol": "openfabric", "hello_interval": 5, "digest": current})


def test_deleting_a_fabric_takes_its_nodes_and_is_refused_while_a_vxlan_zone_names_it(sim):
    three_nodes(sim)
    sim.state.sdn["zones"]["vx"] = {"type": "vxlan", "fabric": "f1"}
    assert sim.request("DELETE", f"{FABRICS}/f1") == err(
        'deleting fabric failed: this fabric is still used in the VXLAN zone "vx" at '
        '/usr/share/perl5/PVE/API2/Network/SDN/Fabrics/Fabric.pm line 252.\n')
    del sim.state.sdn["zones"]["vx"]
    ok(sim, "DELETE", f"{FABRICS}/f1")
    assert ok(sim, "GET", "/cluster/sdn/fabrics/all") == {"fabrics": [], "nodes": []}
    assert sim.request("DELETE", f"{FABRICS}/f1") == err(
        "deleting fabric failed: fabric 'f1' does not exist in configuration\n")


def test_writes_are_staged_the_apply_makes_them_running_and_pending_shows_the_difference(sim):
    three_nodes(sim)
    assert ok(sim, "GET", FABRICS, {"running": 1}) == []
    pending = ok(sim, "GET", "/cluster/sdn/fabrics/all", {"pending": 1})
    assert [row["state"] for row in pending["fabrics"] + pending["nodes"]] == ["new"] * 4
    # pending_config copies only type and vnet to the top: a new row's id is under pending
    assert pending["fabrics"][0]["pending"]["id"] == "f1" and "id" not in pending["fabrics"][0]
    ok(sim, "PUT", "/cluster/sdn")
    assert [row["id"] for row in ok(sim, "GET", FABRICS, {"running": 1})] == ["f1"]
    pending = ok(sim, "GET", "/cluster/sdn/fabrics/all", {"pending": 1})
    assert [row.get("state") for row in pending["fabrics"] + pending["nodes"]] == [None] * 4
    ok(sim, "PUT", "/cluster/sdn/fabrics/node/f1/node1", {"protocol": "openfabric", "interfaces": ["name=ens30"]})
    rows = ok(sim, "GET", "/cluster/sdn/fabrics/node/f1", {"pending": 1})
    assert rows[0]["state"] == "changed" and rows[0]["pending"] == {"interfaces": ["name=ens30"]}
    assert [row.get("state") for row in rows[1:]] == [None, None]
    ok(sim, "DELETE", f"{FABRICS}/f1")
    pending = ok(sim, "GET", "/cluster/sdn/fabrics/all", {"pending": 1})
    assert [row["state"] for row in pending["fabrics"] + pending["nodes"]] == ["deleted"] * 4


def test_without_quorum_the_writes_fail_at_the_lock(sim):
    state = sim.state
    with state.lock:
        for name in ("node2", "node3"):
            state.nodes[name]["online"] = 0
    try:
        assert sim.request("POST", FABRICS, {"id": "f1", "protocol": "openfabric", "ip_prefix": "10.0.0.0/24"}) == err(
            "adding fabric failed: cfs-lock 'domain-sdn' error: no quorum!\n")
    finally:
        with state.lock:
            for name in ("node2", "node3"):
                state.nodes[name]["online"] = 1
