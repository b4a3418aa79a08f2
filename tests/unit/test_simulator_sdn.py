"""The simulator's SDN families (tests/simulator/pve/handlers/sdn.py) over real HTTPS: zones, vnets and
subnets staged as pve-network stages them, the pending and running views, the apply, and PVE's checks
and messages.

Run: python -m pytest tests/unit/test_simulator_sdn.py -q
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
NOT_IN_SCHEMA = "property is not defined in schema and the schema does not allow additional properties"


@pytest.fixture(autouse=True)
def clean(sim):
    """Every test starts with empty SDN files, nothing applied and every node online."""
    state = sim.state
    with state.lock:
        for table in state.sdn.values():
            table.clear()
        state.sdn_running = None
        state.sdn_apply_failure = None
    yield
    with state.lock:
        for node in state.nodes.values():
            node["online"] = 1


def err(message, status=500):
    return status, {"data": None, "message": message}


def bad(errors):
    return 400, {"data": None, "message": "Parameter verification failed.\n", "errors": errors}


def ok(sim, method, path, form=None, **kwargs):
    status, body = sim.request(method, path, form, **kwargs)
    assert status == 200, (method, path, form, body)
    return body["data"]


def zone(sim, zoneid, typ="simple", **options):
    return ok(sim, "POST", "/cluster/sdn/zones", dict(options, zone=zoneid, type=typ))


def vnet(sim, vnetid, zoneid, **options):
    return ok(sim, "POST", "/cluster/sdn/vnets", dict(options, vnet=vnetid, zone=zoneid))


def subnet(sim, vnetid, cidr, **options):
    return ok(sim, "POST", f"/cluster/sdn/vnets/{vnetid}/subnets", dict(options, subnet=cidr, type="subnet"))


def apply(sim):
    return ok(sim, "PUT", "/cluster/sdn")


def user_token(sim, userid, acl):
    """A token with privsep=0 for a new user with the given {path: role} grants."""
    state = sim.state
    if userid not in state.users:
        state.add_user(userid)
    secret = state.add_token(userid, "tok", privsep=0)
    for path, role in acl.items():
        state.set_acl(path, role, users=userid)
    return f"{userid}!tok", secret


# -- the index and the apply ---------------------------------------------------------------------

def test_the_sdn_index_lists_pve_9_children(sim):
    assert ok(sim, "GET", "/cluster/sdn") == [
        {"id": "vnets"}, {"id": "zones"}, {"id": "controllers"}, {"id": "ipams"}, {"id": "dns"}, {"id": "fabrics"}]


def test_the_apply_commits_the_staged_files_and_returns_a_reloadnetworkall_upid(sim):
    zone(sim, "lab")
    vnet(sim, "web", "lab", alias="front")
    subnet(sim, "web", "10.1.0.0/24", gateway="10.1.0.1")
    upid = apply(sim)
    assert upid.startswith("UPID:node1:") and upid.endswith(":reloadnetworkall::root@pam!sim:")
    status = ok(sim, "GET", f"/nodes/node1/tasks/{upid}/status")
    assert (status["type"], status["id"], status["status"], status["exitstatus"]) == (
        "reloadnetworkall", "", "stopped", "OK")
    log = [line["t"] for line in ok(sim, "GET", f"/nodes/node1/tasks/{upid}/log")]
    assert log == ["node1: reloading network config", "node2: reloading network config",
                   "node3: reloading network config", "TASK OK"]
    assert [row["zone"] for row in ok(sim, "GET", "/cluster/sdn/zones", {"running": "1"})] == ["lab"]
    assert ok(sim, "GET", "/cluster/sdn/vnets/web", {"running": "1"})["alias"] == "front"
    assert ok(sim, "GET", "/cluster/sdn/vnets/web/subnets/lab-10.1.0.0-24", {"running": "1"})["gateway"] == "10.1.0.1"
    # nothing is pending any more
    assert ok(sim, "GET", "/cluster/sdn/zones", {"pending": "1"}) == [
        {"type": "simple", "zone": "lab", "digest": None}]


def test_the_apply_runs_on_the_member_that_answered(sim):
    upid = ok(sim, "PUT", "/cluster/sdn", member=2)
    assert upid.startswith("UPID:node3:")
    assert ok(sim, "GET", f"/nodes/node3/tasks/{upid}/status")["exitstatus"] == "OK"


def test_the_failure_knob_ends_the_next_apply_task_with_its_status_and_still_commits(sim):
    zone(sim, "lab")
    sim.state.sdn_apply_failure = "cluster not ready - no quorum?"
    upid = apply(sim)
    assert ok(sim, "GET", f"/nodes/node1/tasks/{upid}/status")["exitstatus"] == "cluster not ready - no quorum?"
    assert [line["t"] for line in ok(sim, "GET", f"/nodes/node1/tasks/{upid}/log")] == [
        "TASK ERROR: cluster not ready - no quorum?"]
    assert ok(sim, "GET", "/cluster/sdn/zones/lab", {"running": "1"})["zone"] == "lab"
    # one apply only
    assert ok(sim, "GET", f"/nodes/node1/tasks/{apply(sim)}/status")["exitstatus"] == "OK"


def test_the_failure_knob_can_end_the_task_with_warnings(sim):
    sim.state.sdn_apply_failure = "WARNINGS: 1"
    upid = apply(sim)
    assert ok(sim, "GET", f"/nodes/node1/tasks/{upid}/status")["exitstatus"] == "WARNINGS: 1"
    assert ok(sim, "GET", f"/nodes/node1/tasks/{upid}/log")[-1]["t"] == "TASK WARNINGS: 1"


def test_without_quorum_the_apply_cannot_take_the_sdn_lock_and_commits_nothing(sim):
    zone(sim, "lab")
    tasks = len(sim.state.tasks)
    sim.state.nodes["node2"]["online"] = 0
    sim.state.nodes["node3"]["online"] = 0
    assert ok(sim, "GET", "/cluster/status")[0]["quorate"] == 0
    assert sim.request("PUT", "/cluster/sdn") == err(
        "could not commit SDN config: cfs-lock 'domain-sdn' error: no quorum!\n")
    assert ok(sim, "GET", "/cluster/sdn/zones", {"running": "1"}) == []
    assert len(sim.state.tasks) == tasks


def test_without_quorum_creates_ask_check_cfs_quorum_and_the_other_writes_fail_at_the_lock(sim):
    zone(sim, "lab")
    vnet(sim, "web", "lab")
    sim.state.nodes["node3"]["online"] = 0
    sim.state.nodes["node2"]["online"] = 0
    no_quorum = err("cluster not ready - no quorum?\n")
    assert sim.request("POST", "/cluster/sdn/zones", {"zone": "z2", "type": "simple"}) == no_quorum
    assert sim.request("POST", "/cluster/sdn/vnets", {"vnet": "v2", "zone": "lab"}) == no_quorum
    assert sim.request("POST", "/cluster/sdn/vnets/web/subnets",
                       {"subnet": "10.0.0.0/24", "type": "subnet"}) == no_quorum
    assert sim.request("PUT", "/cluster/sdn/zones/lab", {"mtu": "1400"}) == err(
        "update sdn zone object failed: cfs-lock 'domain-sdn' error: no quorum!\n")
    assert sim.request("DELETE", "/cluster/sdn/vnets/web") == err(
        "delete sdn vnet object failed: cfs-lock 'domain-sdn' error: no quorum!\n")
    # reads do not need quorum
    assert [row["zone"] for row in ok(sim, "GET", "/cluster/sdn/zones")] == ["lab"]


def test_the_apply_accepts_a_lock_token_when_no_lock_is_held(sim):
    assert ok(sim, "PUT", "/cluster/sdn", {"lock-token": "x", "release-lock": "1"}).startswith("UPID:")


# -- the three views ------------------------------------------------------------------------------

def test_writes_are_staged_the_plain_read_shows_them_running_is_empty_until_applied(sim):
    zone(sim, "lab", mtu="1450")
    assert ok(sim, "GET", "/cluster/sdn/zones/lab")["mtu"] == 1450
    assert ok(sim, "GET", "/cluster/sdn/zones", {"running": "1"}) == []
    assert sim.request("GET", "/cluster/sdn/zones/lab", {"running": "1"}) == err("sdn 'lab' does not exist\n")


def test_pending_shows_new_objects_with_their_values_under_pending(sim):
    zone(sim, "lab", nodes="node2,node1", mtu="1450")
    vnet(sim, "web", "lab")
    subnet(sim, "web", "10.1.0.0/24", gateway="10.1.0.1")
    assert ok(sim, "GET", "/cluster/sdn/zones/lab", {"pending": "1"}) == {
        "type": "simple", "zone": "lab", "state": "new", "digest": None,
        "pending": {"mtu": 1450, "nodes": "node1,node2"}}
    assert ok(sim, "GET", "/cluster/sdn/vnets", {"pending": "1"}) == [
        {"type": "vnet", "vnet": "web", "state": "new", "digest": None, "pending": {"zone": "lab"}}]
    assert ok(sim, "GET", "/cluster/sdn/vnets/web/subnets", {"pending": "1"}) == [
        {"type": "subnet", "vnet": "web", "state": "new", "pending": {"gateway": "10.1.0.1"},
         "id": "lab-10.1.0.0-24", "subnet": "lab-10.1.0.0-24", "cidr": "10.1.0.0/24", "zone": "lab",
         "network": "10.1.0.0", "mask": "24", "dhcp-range": [], "digest": None}]


def test_pending_keeps_running_values_on_top_and_marks_changes_and_removals(sim):
    zone(sim, "lab", mtu="1450", nodes="node1")
    apply(sim)
    ok(sim, "PUT", "/cluster/sdn/zones/lab", {"mtu": "1400", "delete": "nodes", "ipam": "pve"})
    assert ok(sim, "GET", "/cluster/sdn/zones/lab", {"pending": "1"}) == {
        "type": "simple", "zone": "lab", "mtu": 1450, "nodes": "node1", "state": "changed", "digest": None,
        "pending": {"mtu": 1400, "nodes": "deleted", "ipam": "pve"}}
    # the plain read is the staged file
    staged = ok(sim, "GET", "/cluster/sdn/zones/lab")
    assert (staged["mtu"], staged["ipam"], "nodes" in staged) == (1400, "pve", False)


def test_a_staged_delete_stays_listed_as_deleted_and_running_until_applied(sim):
    zone(sim, "lab", mtu="1450")
    apply(sim)
    ok(sim, "DELETE", "/cluster/sdn/zones/lab")
    assert sim.request("GET", "/cluster/sdn/zones/lab") == err("sdn 'lab' does not exist\n")
    assert ok(sim, "GET", "/cluster/sdn/zones", {"pending": "1"}) == [
        {"type": "simple", "zone": "lab", "mtu": 1450, "state": "deleted", "pending": {}, "digest": None}]
    assert ok(sim, "GET", "/cluster/sdn/zones/lab", {"running": "1"})["mtu"] == 1450
    apply(sim)
    assert ok(sim, "GET", "/cluster/sdn/zones", {"pending": "1"}) == []


def test_pending_wins_over_running(sim):
    zone(sim, "lab")
    assert ok(sim, "GET", "/cluster/sdn/zones", {"pending": "1", "running": "1"})[0]["state"] == "new"


def test_the_zone_list_filters_by_type_in_every_view(sim):
    zone(sim, "za")
    zone(sim, "zb", "vlan", bridge="vmbr0")
    assert [row["zone"] for row in ok(sim, "GET", "/cluster/sdn/zones", {"type": "vlan"})] == ["zb"]
    assert [row["zone"] for row in ok(sim, "GET", "/cluster/sdn/zones", {"type": "simple", "pending": "1"})] == ["za"]
    assert sim.request("GET", "/cluster/sdn/zones", {"type": "bogus"})[0] == 400


# -- digests -----------------------------------------------------------------------------------------

def test_each_file_has_one_digest_that_every_row_carries_and_a_write_changes(sim):
    zone(sim, "za")
    zone(sim, "zb")
    rows = ok(sim, "GET", "/cluster/sdn/zones")
    assert len({row["digest"] for row in rows}) == 1 and len(rows[0]["digest"]) == 40
    before = rows[0]["digest"]
    vnet(sim, "web", "za")
    assert ok(sim, "GET", "/cluster/sdn/zones/za")["digest"] == before  # another file
    assert ok(sim, "GET", "/cluster/sdn/vnets/web")["digest"] != before
    ok(sim, "PUT", "/cluster/sdn/zones/zb", {"mtu": "1400"})
    assert ok(sim, "GET", "/cluster/sdn/zones/za")["digest"] != before


def test_a_stale_digest_is_refused_inside_the_lock_a_current_one_passes(sim):
    zone(sim, "lab")
    vnet(sim, "web", "lab")
    subnet(sim, "web", "10.1.0.0/24")
    for path in ("/cluster/sdn/zones/lab", "/cluster/sdn/vnets/web", "/cluster/sdn/vnets/web/subnets/lab-10.1.0.0-24"):
        digest = ok(sim, "GET", path)["digest"]
        ok(sim, "PUT", path, {"digest": digest})
    assert sim.request("PUT", "/cluster/sdn/zones/lab", {"mtu": "1400", "digest": "0" * 40}) == err(
        "update sdn zone object failed: " + MODIFIED)
    assert sim.request("PUT", "/cluster/sdn/vnets/web", {"alias": "x", "digest": "0" * 40}) == err(
        "update sdn vnet object failed: " + MODIFIED)
    assert sim.request("PUT", "/cluster/sdn/vnets/web/subnets/lab-10.1.0.0-24", {"digest": "0" * 40}) == err(
        "update sdn subnet object failed: " + MODIFIED)


# -- zones ---------------------------------------------------------------------------------------------

def test_a_zone_reads_back_as_stored(sim):
    zone(sim, "lab", "vxlan", peers="10.0.0.2, 10.0.0.1", nodes="node3,node1,node1", mtu="1450",
         **{"vxlan-port": "4790"})
    item = ok(sim, "GET", "/cluster/sdn/zones/lab")
    item.pop("digest")
    # peers as sent, nodes a sorted set, integers as numbers, ipam absent when not sent
    assert item == {"zone": "lab", "type": "vxlan", "peers": "10.0.0.2, 10.0.0.1", "nodes": "node1,node3",
                    "mtu": 1450, "vxlan-port": 4790}


def test_booleans_are_stored_as_sent_and_empty_values_are_not_stored(sim):
    zone(sim, "lab", "vlan", bridge="vmbr0", **{"bridge-disable-mac-learning": "0"})
    vnet(sim, "web", "lab", tag="10", vlanaware="0", alias="")
    assert ok(sim, "GET", "/cluster/sdn/zones/lab")["bridge-disable-mac-learning"] == 0
    item = ok(sim, "GET", "/cluster/sdn/vnets/web")
    assert (item["vlanaware"], item["tag"], "alias" in item) == (0, 10, False)
    assert sim.request("POST", "/cluster/sdn/vnets", {"vnet": "vx", "zone": "lab", "vlanaware": "true"}) == bad(
        {"vlanaware": "type check ('boolean') failed - got 'true'"})


def test_ipam_pve_is_stored_other_ipams_dns_servers_do_not_exist(sim):
    zone(sim, "lab", ipam="pve")
    assert ok(sim, "GET", "/cluster/sdn/zones/lab")["ipam"] == "pve"
    assert sim.request("POST", "/cluster/sdn/zones", {"zone": "z2", "type": "simple", "ipam": "netbox"}) == err(
        "create sdn zone object failed: 400 Parameter verification failed.\nipam: netbox not existing\n")
    assert sim.request("POST", "/cluster/sdn/zones", {"zone": "z2", "type": "simple", "dns": "pdns"}) == err(
        "create sdn zone object failed: 400 Parameter verification failed.\ndns: pdns don't exist\n")
    assert sim.request("PUT", "/cluster/sdn/zones/lab", {"dnszone": "lab.example"}) == err(
        "update sdn zone object failed: 400 Parameter verification failed.\ndnszone: missing dns server\n")


def test_a_zone_type_takes_only_its_options_and_needs_its_required_ones(sim):
    assert sim.request("POST", "/cluster/sdn/zones", {"zone": "zz", "type": "simple", "bridge": "vmbr0"}) == err(
        "unexpected property 'bridge'\n")
    assert sim.request("POST", "/cluster/sdn/zones", {"zone": "zz", "type": "vlan"}) == err(
        "missing value for required option 'bridge'\n")
    assert sim.request("POST", "/cluster/sdn/zones", {"zone": "zz", "type": "qinq", "bridge": "vmbr0"}) == err(
        "missing value for required option 'tag'\n")
    zone(sim, "lab", "vlan", bridge="vmbr0")
    assert sim.request("PUT", "/cluster/sdn/zones/lab", {"peers": "10.0.0.1"}) == err(
        "update sdn zone object failed: unexpected property 'peers'\n")


def test_a_vxlan_zone_needs_exactly_one_of_peers_and_fabric(sim):
    both = "must have exactly one of peers / fabric defined"
    assert sim.request("POST", "/cluster/sdn/zones", {"zone": "zz", "type": "vxlan"}) == err(
        f"create sdn zone object failed: 400 Parameter verification failed.\nfabric: {both}\npeers: {both}\n")
    zone(sim, "lab", "vxlan", peers="10.0.0.1")
    assert sim.request("PUT", "/cluster/sdn/zones/lab", {"fabric": "f1"}) == err(
        f"update sdn zone object failed: 400 Parameter verification failed.\nfabric: {both}\npeers: {both}\n")
    assert ok(sim, "GET", "/cluster/sdn/zones/lab")["peers"] == "10.0.0.1"


def test_an_evpn_zone_needs_a_controller_which_the_simulator_has_none_of(sim):
    assert sim.request("POST", "/cluster/sdn/zones", {"zone": "zz", "type": "evpn", "controller": "ctl",
                                                      "vrf-vxlan": "100"}) == err(
        "create sdn zone object failed: controller ctl don't exist "
        "at /usr/share/perl5/PVE/Network/SDN/Zones/EvpnPlugin.pm line 354.\n")


def test_the_type_cannot_be_changed(sim):
    zone(sim, "lab")
    assert sim.request("PUT", "/cluster/sdn/zones/lab", {"type": "vlan"}) == bad({"type": NOT_IN_SCHEMA})


def test_zone_ids_follow_parse_sdn_zone_id_and_exist_once(sim):
    assert sim.request("POST", "/cluster/sdn/zones", {"zone": "1lab", "type": "simple"}) == bad(
        {"zone": "invalid format - zone ID '1lab' contains illegal characters\n"})
    assert sim.request("POST", "/cluster/sdn/zones", {"zone": "toolongid", "type": "simple"}) == bad(
        {"zone": "invalid format - zone ID 'toolongid' can't be more length than 8 characters\n"})
    zone(sim, "lab")
    assert sim.request("POST", "/cluster/sdn/zones", {"zone": "lab", "type": "vlan", "bridge": "vmbr0"}) == err(
        "create sdn zone object failed: sdn zone object ID 'lab' already defined\n")


def test_a_missing_zone_is_pves_500_in_every_method(sim):
    assert sim.request("GET", "/cluster/sdn/zones/nope") == err("sdn 'nope' does not exist\n")
    assert sim.request("PUT", "/cluster/sdn/zones/nope", {"mtu": "1400"}) == err(
        "update sdn zone object failed: sdn 'nope' does not exist\n")
    assert sim.request("DELETE", "/cluster/sdn/zones/nope") == err(
        "delete sdn zone object failed: sdn 'nope' does not exist\n")


def test_delete_follows_delete_from_config(sim):
    zone(sim, "lab", "vlan", bridge="vmbr0", mtu="1450")
    assert sim.request("PUT", "/cluster/sdn/zones/lab", {"mtu": "1400", "delete": "mtu"}) == err(
        "update sdn zone object failed: cannot set and delete property 'mtu' at the same time!\n")
    assert sim.request("PUT", "/cluster/sdn/zones/lab", {"delete": "bridge"}) == err(
        "update sdn zone object failed: unable to delete required option 'bridge'\n")
    assert sim.request("PUT", "/cluster/sdn/zones/lab", {"delete": "peers"}) == err(
        "update sdn zone object failed: no such option 'peers'\n")
    ok(sim, "PUT", "/cluster/sdn/zones/lab", {"delete": "mtu,dns"})
    assert "mtu" not in ok(sim, "GET", "/cluster/sdn/zones/lab")


def test_a_zone_with_vnets_cannot_be_deleted(sim):
    zone(sim, "lab")
    vnet(sim, "web", "lab")
    assert sim.request("DELETE", "/cluster/sdn/zones/lab") == err(
        "delete sdn zone object failed: zone lab is used by vnet web "
        "at /usr/share/perl5/PVE/Network/SDN/Zones/Plugin.pm line 148.\n")
    ok(sim, "DELETE", "/cluster/sdn/vnets/web")
    ok(sim, "DELETE", "/cluster/sdn/zones/lab")


def test_the_ipam_of_a_zone_with_subnets_cannot_change(sim):
    zone(sim, "lab", ipam="pve")
    vnet(sim, "web", "lab")
    subnet(sim, "web", "10.1.0.0/24")
    assert sim.request("PUT", "/cluster/sdn/zones/lab", {"delete": "ipam"}) == err(
        "update sdn zone object failed: 400 Parameter verification failed.\n"
        "ipam: can't change ipam if a subnet is already defined in this zone\n")
    assert ok(sim, "GET", "/cluster/sdn/zones/lab")["ipam"] == "pve"


# -- vnets -----------------------------------------------------------------------------------------

def test_a_vnet_reads_back_with_its_id_and_digest(sim):
    zone(sim, "lab", "vlan", bridge="vmbr0")
    vnet(sim, "web", "lab", tag="10", alias="front end", **{"isolate-ports": "1"})
    item = ok(sim, "GET", "/cluster/sdn/vnets/web")
    assert len(item.pop("digest")) == 40
    assert item == {"vnet": "web", "type": "vnet", "zone": "lab", "tag": 10, "alias": "front end",
                    "isolate-ports": 1}


def test_a_vnet_needs_an_existing_zone(sim):
    assert sim.request("POST", "/cluster/sdn/vnets", {"vnet": "web", "zone": "nope"}) == err(
        "create sdn vnet object failed: cannot lookup undefined type! "
        "at /usr/share/perl5/PVE/API2/Network/SDN/Vnets.pm line 326.\n")
    zone(sim, "lab")
    vnet(sim, "web", "lab")
    assert sim.request("PUT", "/cluster/sdn/vnets/web", {"zone": "nope"}) == err(
        "update sdn vnet object failed: cannot lookup undefined type! "
        "at /usr/share/perl5/PVE/API2/Network/SDN/Vnets.pm line 402.\n")
    # a token without SDN.Allocate on the zone path is stopped by the permission check first
    token = user_token(sim, "netuser@pve", {"/sdn/zones/lab": "PVESDNAdmin"})
    assert sim.request("POST", "/cluster/sdn/vnets", {"vnet": "v2", "zone": "nope"}, token=token) == err(
        "Permission check failed (/sdn/zones/nope, SDN.Allocate)\n", 403)
    assert sim.request("POST", "/cluster/sdn/vnets", {"vnet": "v2"}, token=token) == err(
        "Permission check failed (/sdn/zones/-, SDN.Allocate)\n", 403)


def test_vnet_ids_follow_parse_sdn_vnet_id_and_exist_once(sim):
    zone(sim, "lab")
    assert sim.request("POST", "/cluster/sdn/vnets", {"vnet": "web-1", "zone": "lab"}) == bad(
        {"vnet": "invalid format - vnet ID 'web-1' contains illegal characters\n"})
    vnet(sim, "web", "lab")
    assert sim.request("POST", "/cluster/sdn/vnets", {"vnet": "web", "zone": "lab"}) == err(
        "create sdn vnet object failed: sdn vnet object ID 'web' already defined\n")


def test_a_missing_vnet_is_pves_500_without_the_lock_prefix(sim):
    missing = err("sdn vnet 'nope' does not exist\n")
    assert sim.request("GET", "/cluster/sdn/vnets/nope") == missing
    assert sim.request("GET", "/cluster/sdn/vnets/nope", {"running": "1"}) == missing
    assert sim.request("PUT", "/cluster/sdn/vnets/nope", {"alias": "x"}) == missing
    assert sim.request("DELETE", "/cluster/sdn/vnets/nope") == missing
    assert sim.request("GET", "/cluster/sdn/vnets/nope/subnets") == missing


def test_a_simple_zone_refuses_a_tag(sim):
    zone(sim, "lab")
    assert sim.request("POST", "/cluster/sdn/vnets", {"vnet": "web", "zone": "lab", "tag": "10"}) == err(
        "create sdn vnet object failed: 400 Parameter verification failed.\n"
        "tag: vlan tag is not allowed on simple zone\n")


def test_a_vlan_zone_needs_a_tag_up_to_4096_unique_in_the_zone(sim):
    zone(sim, "lab", "vlan", bridge="vmbr0")
    zone(sim, "dmz", "vlan", bridge="vmbr1")
    prefix = "create sdn vnet object failed: 400 Parameter verification failed.\n"
    assert sim.request("POST", "/cluster/sdn/vnets", {"vnet": "va", "zone": "lab"}) == err(
        prefix + "tag: missing vlan tag\n")
    assert sim.request("POST", "/cluster/sdn/vnets", {"vnet": "va", "zone": "lab", "tag": "4097"}) == err(
        prefix + "tag: vlan tag max value is 4096\n")
    vnet(sim, "va", "lab", tag="10")
    assert sim.request("POST", "/cluster/sdn/vnets", {"vnet": "vb", "zone": "lab", "tag": "10"}) == err(
        prefix + "tag: tag 10 already exist in vnet va\n")
    vnet(sim, "vb", "dmz", tag="10")  # another zone
    assert sim.request("PUT", "/cluster/sdn/vnets/vb", {"zone": "lab"}) == err(
        "update sdn vnet object failed: 400 Parameter verification failed.\ntag: tag 10 already exist in vnet va\n")


def test_a_qinq_zone_allows_one_tagless_vnet(sim):
    zone(sim, "lab", "qinq", bridge="vmbr0", tag="100")
    vnet(sim, "va", "lab")
    assert sim.request("POST", "/cluster/sdn/vnets", {"vnet": "vb", "zone": "lab"}) == err(
        "create sdn vnet object failed: 400 Parameter verification failed.\n"
        "tag: tag-less vnet already exists in zone lab vnet va\n")
    vnet(sim, "vb", "lab", tag="20")


def test_vxlan_vnis_are_unique_across_vxlan_zones(sim):
    zone(sim, "one", "vxlan", peers="10.0.0.1")
    zone(sim, "two", "vxlan", peers="10.0.0.1")
    vnet(sim, "va", "one", tag="100")
    assert sim.request("POST", "/cluster/sdn/vnets", {"vnet": "vb", "zone": "two", "tag": "100"}) == err(
        "create sdn vnet object failed: 400 Parameter verification failed.\n"
        "tag: vxlan tag 100 already exist in vnet va in zone one \n")
    assert sim.request("POST", "/cluster/sdn/vnets", {"vnet": "vb", "zone": "two"}) == err(
        "create sdn vnet object failed: 400 Parameter verification failed.\ntag: missing vxlan tag\n")


def test_a_vnet_with_subnets_cannot_be_deleted_moved_or_made_vlanaware(sim):
    zone(sim, "lab")
    zone(sim, "dmz")
    vnet(sim, "web", "lab")
    subnet(sim, "web", "10.1.0.0/24")
    assert sim.request("DELETE", "/cluster/sdn/vnets/web") == err(
        "delete sdn vnet object failed: 400 Parameter verification failed.\n"
        "vnet: Can't delete vnet if subnets exists\n")
    assert sim.request("PUT", "/cluster/sdn/vnets/web", {"zone": "dmz"}) == err(
        "update sdn vnet object failed: 400 Parameter verification failed.\n"
        "zone: can't change zone if subnets exist\n")
    assert sim.request("PUT", "/cluster/sdn/vnets/web", {"vlanaware": "1"}) == err(
        "update sdn vnet object failed: 400 Parameter verification failed.\n"
        "vlanaware: vlanaware vnet is not compatible with subnets\n")
    assert sim.request("PUT", "/cluster/sdn/vnets/web", {"delete": "zone"}) == err(
        "update sdn vnet object failed: unable to delete required option 'zone'\n")


def test_vnet_delete_is_staged(sim):
    zone(sim, "lab")
    vnet(sim, "web", "lab")
    apply(sim)
    ok(sim, "DELETE", "/cluster/sdn/vnets/web")
    assert ok(sim, "GET", "/cluster/sdn/vnets", {"pending": "1"}) == [
        {"type": "vnet", "vnet": "web", "zone": "lab", "state": "deleted", "pending": {}, "digest": None}]
    assert [row["vnet"] for row in ok(sim, "GET", "/cluster/sdn/vnets", {"running": "1"})] == ["web"]


def test_vnet_reads_check_the_zone_path_the_list_filters_by_it(sim):
    zone(sim, "lab")
    zone(sim, "dmz")
    vnet(sim, "web", "lab")
    vnet(sim, "db", "dmz")
    token = user_token(sim, "auditor@pve", {"/sdn/zones/lab": "PVEAuditor"})
    assert [row["vnet"] for row in ok(sim, "GET", "/cluster/sdn/vnets", token=token)] == ["web"]
    assert ok(sim, "GET", "/cluster/sdn/vnets/web", token=token)["zone"] == "lab"
    assert sim.request("GET", "/cluster/sdn/vnets/db", token=token) == err(
        "Permission check failed (/sdn/zones/dmz/db, SDN.Audit|SDN.Allocate)\n", 403)
    assert sim.request("PUT", "/cluster/sdn/vnets/web", {"alias": "x"}, token=token) == err(
        "Permission check failed (/sdn/zones/lab/web, SDN.Allocate)\n", 403)
    assert sim.request("GET", "/cluster/sdn/vnets/db/subnets", token=token)[0] == 403
    assert [row["zone"] for row in ok(sim, "GET", "/cluster/sdn/zones", token=token)] == ["lab"]
    # the zone item read needs SDN.Allocate (the schema's check)
    assert sim.request("GET", "/cluster/sdn/zones/lab", token=token) == err(
        "Permission check failed (/sdn/zones/lab, SDN.Allocate)\n", 403)


# -- subnets -----------------------------------------------------------------------------------------

def test_a_subnet_is_named_after_the_zone_and_reads_back_with_its_parts(sim):
    zone(sim, "lab", ipam="pve")
    vnet(sim, "web", "lab")
    subnet(sim, "web", "10.1.0.0/24", gateway="10.1.0.1", snat="1", dnszoneprefix="adm",
           **{"dhcp-range": ["start-address=10.1.0.100,end-address=10.1.0.150",
                             "start-address=10.1.0.200,end-address=10.1.0.210"],
              "dhcp-dns-server": "10.1.0.1"})
    item = ok(sim, "GET", "/cluster/sdn/vnets/web/subnets/lab-10.1.0.0-24")
    assert len(item.pop("digest")) == 40
    assert item == {
        "id": "lab-10.1.0.0-24", "subnet": "lab-10.1.0.0-24", "type": "subnet", "vnet": "web", "zone": "lab",
        "cidr": "10.1.0.0/24", "network": "10.1.0.0", "mask": "24", "gateway": "10.1.0.1", "snat": 1,
        "dnszoneprefix": "adm", "dhcp-dns-server": "10.1.0.1",
        "dhcp-range": [{"start-address": "10.1.0.100", "end-address": "10.1.0.150"},
                       {"start-address": "10.1.0.200", "end-address": "10.1.0.210"}]}
    assert [row["subnet"] for row in ok(sim, "GET", "/cluster/sdn/vnets/web/subnets")] == ["lab-10.1.0.0-24"]


def test_a_subnet_post_needs_type_subnet_and_a_cidr(sim):
    zone(sim, "lab")
    vnet(sim, "web", "lab")
    assert sim.request("POST", "/cluster/sdn/vnets/web/subnets", {"subnet": "10.1.0.0/24"}) == bad(
        {"type": "property is missing and it is not optional"})
    assert sim.request("POST", "/cluster/sdn/vnets/web/subnets", {"subnet": "10.1.0.0", "type": "subnet"}) == bad(
        {"subnet": "invalid format - value does not look like a valid CIDR network\n"})
    subnet(sim, "web", "10.1.0.0/24")
    assert sim.request("POST", "/cluster/sdn/vnets/web/subnets", {"subnet": "10.1.0.0/24", "type": "subnet"}) == err(
        "create sdn subnet object failed: sdn subnet object ID 'lab-10.1.0.0-24' already defined\n")


def test_a_gateway_must_be_in_the_subnet_unless_it_is_a_slash_32(sim):
    zone(sim, "lab")
    vnet(sim, "web", "lab")
    assert sim.request("POST", "/cluster/sdn/vnets/web/subnets",
                       {"subnet": "10.1.0.0/24", "type": "subnet", "gateway": "10.2.0.1"}) == err(
        "create sdn subnet object failed: 400 Parameter verification failed.\n"
        "gateway: 10.2.0.1 is not in subnet 10.1.0.0/24\n")
    subnet(sim, "web", "192.0.2.7/32", gateway="10.9.9.9")
    subnet(sim, "web", "fd00:1::/64", gateway="fd00:1::1")
    assert [row["subnet"] for row in ok(sim, "GET", "/cluster/sdn/vnets/web/subnets")] == [
        "lab-192.0.2.7-32", "lab-fd00:1::-64"]


def test_a_vlanaware_vnet_takes_no_subnet(sim):
    zone(sim, "lab")
    vnet(sim, "web", "lab", vlanaware="1")
    assert sim.request("POST", "/cluster/sdn/vnets/web/subnets", {"subnet": "10.1.0.0/24", "type": "subnet"}) == err(
        "create sdn subnet object failed: 400 Parameter verification failed.\n"
        "vnet: you can't add a subnet on a vlanaware vnet\n")


@pytest.mark.parametrize("ranges, message", [
    (["start-address=10.1.0.50,end-address=10.1.0.10"],
     "start-address 10.1.0.50 must be smaller than end-address 10.1.0.10"),
    (["start-address=10.2.0.1,end-address=10.2.0.9"], "start-address 10.2.0.1 is not in subnet 10.1.0.0/24"),
    (["start-address=10.1.0.1,end-address=10.1.0.0/30"], "end-address must be a singular IP"),
    (["start-address=foo,end-address=10.1.0.9"], "start-address is not a valid IP foo"),
    (["start-address=10.1.0.10,end-address=10.1.0.20", "start-address=10.1.0.15,end-address=10.1.0.30"],
     "dhcp ranges must not overlap"),
])
def test_dhcp_ranges_are_validated_inside_the_lock(sim, ranges, message):
    zone(sim, "lab")
    vnet(sim, "web", "lab")
    assert sim.request("POST", "/cluster/sdn/vnets/web/subnets",
                       {"subnet": "10.1.0.0/24", "type": "subnet", "dhcp-range": ranges}) == err(
        f"create sdn subnet object failed: 400 Parameter verification failed.\ndhcp-range: {message}\n")


def test_a_dhcp_range_that_is_no_property_string_is_a_400(sim):
    zone(sim, "lab")
    vnet(sim, "web", "lab")
    status, body = sim.request("POST", "/cluster/sdn/vnets/web/subnets",
                               {"subnet": "10.1.0.0/24", "type": "subnet", "dhcp-range": "start-address=10.1.0.5"})
    assert status == 400 and list(body["errors"]) == ["dhcp-range[0]"]
    assert "end-address: property is missing" in body["errors"]["dhcp-range[0]"]


def test_a_subnet_read_under_another_vnet_is_wrong_vnet(sim):
    zone(sim, "lab")
    vnet(sim, "web", "lab")
    vnet(sim, "db", "lab")
    subnet(sim, "web", "10.1.0.0/24")
    assert sim.request("GET", "/cluster/sdn/vnets/db/subnets/lab-10.1.0.0-24") == bad({"vnet": "wrong vnet"})
    assert ok(sim, "GET", "/cluster/sdn/vnets/db/subnets") == []
    assert sim.request("GET", "/cluster/sdn/vnets/web/subnets/lab-10.9.0.0-24") == err(
        "sdn subnet 'lab-10.9.0.0-24' does not exist\n")


def test_a_subnet_put_under_another_vnet_moves_it_as_pve_does(sim):
    zone(sim, "lab")
    vnet(sim, "web", "lab")
    vnet(sim, "db", "lab")
    subnet(sim, "web", "10.1.0.0/24")
    ok(sim, "PUT", "/cluster/sdn/vnets/db/subnets/lab-10.1.0.0-24", {"gateway": "10.1.0.1"})
    assert ok(sim, "GET", "/cluster/sdn/vnets/db/subnets/lab-10.1.0.0-24")["vnet"] == "db"


def test_subnet_updates_and_deletes(sim):
    zone(sim, "lab")
    vnet(sim, "web", "lab")
    subnet(sim, "web", "10.1.0.0/24", gateway="10.1.0.1", snat="1")
    path = "/cluster/sdn/vnets/web/subnets/lab-10.1.0.0-24"
    assert sim.request("PUT", path, {"snat": "0", "delete": "snat"}) == err(
        "update sdn subnet object failed: cannot set and delete property 'snat' at the same time!\n")
    assert sim.request("PUT", path, {"delete": "vnet"}) == err(
        "update sdn subnet object failed: unable to delete required option 'vnet'\n")
    ok(sim, "PUT", path, {"delete": "gateway", "dnszoneprefix": "adm"})
    item = ok(sim, "GET", path)
    assert ("gateway" in item, item["dnszoneprefix"], item["snat"]) == (False, "adm", 1)
    assert sim.request("PUT", "/cluster/sdn/vnets/web/subnets/lab-10.9.0.0-24", {"snat": "1"}) == err(
        "update sdn subnet object failed: sdn subnet 'lab-10.9.0.0-24' does not exist\n")
    ok(sim, "DELETE", path)
    assert ok(sim, "GET", "/cluster/sdn/vnets/web/subnets") == []


def test_deleting_a_missing_subnet_passes_unless_the_zone_has_an_ipam(sim):
    zone(sim, "lab")
    zone(sim, "ipz", ipam="pve")
    vnet(sim, "web", "lab")
    vnet(sim, "db", "ipz")
    ok(sim, "DELETE", "/cluster/sdn/vnets/web/subnets/lab-10.9.0.0-24")
    assert sim.request("DELETE", "/cluster/sdn/vnets/db/subnets/ipz-10.9.0.0-24") == err(
        "delete sdn subnet object failed: zone '' doesn't exist in IPAM DB\n")


def test_subnet_views_follow_the_staging(sim):
    zone(sim, "lab")
    vnet(sim, "web", "lab")
    subnet(sim, "web", "10.1.0.0/24", **{"dhcp-range": "start-address=10.1.0.5,end-address=10.1.0.9"})
    apply(sim)
    ok(sim, "DELETE", "/cluster/sdn/vnets/web/subnets/lab-10.1.0.0-24")
    rows = ok(sim, "GET", "/cluster/sdn/vnets/web/subnets", {"pending": "1"})
    assert [(row["subnet"], row["state"], row["dhcp-range"]) for row in rows] == [
        ("lab-10.1.0.0-24", "deleted", [{"start-address": "10.1.0.5", "end-address": "10.1.0.9"}])]
    running = ok(sim, "GET", "/cluster/sdn/vnets/web/subnets/lab-10.1.0.0-24", {"running": "1"})
    assert (running["cidr"], running["digest"]) == ("10.1.0.0/24", None)
