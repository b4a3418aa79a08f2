"""The simulator's HA families (tests/simulator/pve/handlers/ha.py) over real HTTPS: resources, rules and the
groups PVE 9 has migrated away, with pve-ha-manager's checks, messages and read shapes.

Run: python -m pytest tests/unit/test_simulator_ha.py -q
"""

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import

NOT_IN_SCHEMA = "property is not defined in schema and the schema does not allow additional properties"
MODIFIED = "detected modified configuration - file changed by other user? Try again.\n"


@pytest.fixture(autouse=True)
def guests(sim):
    """Every test starts with no HA configuration and three guests: VMs 100 and 102, container 101."""
    state = sim.state
    with state.lock:
        state.ha_resources.clear()
        state.ha_rules.clear()
        state.guests.clear()
        state.guests.update({100: {"type": "qemu", "node": "node1", "status": "stopped"},
                             101: {"type": "lxc", "node": "node2", "status": "stopped"},
                             102: {"type": "qemu", "node": "node3", "status": "running"}})
    yield state.guests
    with state.lock:
        state.guests.clear()


def err(message, status=500):
    return status, {"data": None, "message": message}


def bad(errors):
    return 400, {"data": None, "message": "Parameter verification failed.\n", "errors": errors}


def ok(sim, method, path, form=None):
    status, body = sim.request(method, path, form)
    assert status == 200, (method, path, form, body)
    return body["data"]


def resources(sim, *sids):
    for sid in sids:
        ok(sim, "POST", "/cluster/ha/resources", {"sid": sid})


def rule(sim, ruleid, **form):
    return sim.request("POST", "/cluster/ha/rules", dict(form, rule=ruleid))


# -- resources --------------------------------------------------------------------------------------

def test_a_resource_reads_back_as_stored_with_its_sid_type_and_the_files_digest(sim):
    ok(sim, "POST", "/cluster/ha/resources", {"sid": "vm:100", "comment": "web", "max_restart": "2"})
    item = ok(sim, "GET", "/cluster/ha/resources/vm:100")
    digest = item.pop("digest")
    assert len(digest) == 40
    # what was not sent is not there: state, max_relocate and failback read as their defaults
    assert item == {"sid": "vm:100", "type": "vm", "comment": "web", "max_restart": 2}
    assert ok(sim, "GET", "/cluster/ha/resources") == [dict(item, digest=digest)]


def test_the_list_filters_by_type_and_every_row_carries_the_digest(sim):
    resources(sim, "vm:100", "ct:101")
    rows = ok(sim, "GET", "/cluster/ha/resources")
    assert [row["sid"] for row in rows] == ["ct:101", "vm:100"]
    assert len(set(row["digest"] for row in rows)) == 1
    assert [row["sid"] for row in ok(sim, "GET", "/cluster/ha/resources", {"type": "ct"})] == ["ct:101"]


def test_a_bare_vmid_resolves_through_the_guest_list(sim):
    ok(sim, "POST", "/cluster/ha/resources", {"sid": "101"})
    assert ok(sim, "GET", "/cluster/ha/resources/101")["sid"] == "ct:101"
    assert sim.request("GET", "/cluster/ha/resources/999") == err(
        "unable to detect SID from VMID - VM/CT 999 does not exist\n")


@pytest.mark.parametrize("form, message", [
    ({"sid": "vm:555"}, "resource 'vm:555' does not exist in cluster\n"),
    ({"sid": "vm:101"}, "resource 'vm:101' - guest with ID 101 is not a VM\n"),
    ({"sid": "ct:100"}, "resource 'ct:100' - guest with ID 100 is not a container\n"),
    ({"sid": "vm:100", "type": "ct"}, "types does not match\n"),
    ({"sid": "xx:100"}, "unknown section type 'xx'\n"),
    ({"sid": "vm:abc"}, "invalid VMID\n"),
    ({"sid": "vm:100", "group": "prefer1"}, "invalid parameter 'group': ha groups have been migrated to rules\n"),
    ({"sid": "vm:100", "comment": "two\nlines"}, "property contains a line feed\n"),
])
def test_a_create_pve_refuses(sim, form, message):
    assert sim.request("POST", "/cluster/ha/resources", form) == err(message)
    assert sim.state.ha_resources == {}


def test_a_resource_is_created_once(sim):
    resources(sim, "vm:100")
    assert sim.request("POST", "/cluster/ha/resources", {"sid": "vm:100"}) == err(
        "create resource failed: resource ID 'vm:100' already defined\n")


def test_enabled_reads_back_as_started(sim):
    ok(sim, "POST", "/cluster/ha/resources", {"sid": "vm:100", "state": "enabled"})
    assert ok(sim, "GET", "/cluster/ha/resources/vm:100")["state"] == "started"


def test_the_requested_state_moves_the_guests_power_and_a_delete_leaves_it(sim, guests):
    resources(sim, "vm:100")
    assert guests[100]["status"] == "running"
    ok(sim, "PUT", "/cluster/ha/resources/vm:100", {"state": "stopped"})
    assert guests[100]["status"] == "stopped"
    ok(sim, "PUT", "/cluster/ha/resources/vm:100", {"state": "started"})
    ok(sim, "DELETE", "/cluster/ha/resources/vm:100")
    assert guests[100]["status"] == "running"


def test_an_update_sets_and_deletes(sim):
    ok(sim, "POST", "/cluster/ha/resources", {"sid": "vm:100", "comment": "web", "failback": "0"})
    ok(sim, "PUT", "/cluster/ha/resources/vm:100", {"max_relocate": "3", "delete": "comment,failback"})
    item = ok(sim, "GET", "/cluster/ha/resources/vm:100")
    assert (item.get("comment"), item.get("failback"), item["max_relocate"]) == (None, None, 3)
    # PVE sets first and deletes after, without refusing the pair: the delete wins
    ok(sim, "PUT", "/cluster/ha/resources/vm:100", {"comment": "x", "delete": "comment"})
    assert "comment" not in ok(sim, "GET", "/cluster/ha/resources/vm:100")
    # an empty text is not written to the file: it reads as unset
    ok(sim, "PUT", "/cluster/ha/resources/vm:100", {"comment": "y"})
    ok(sim, "PUT", "/cluster/ha/resources/vm:100", {"comment": ""})
    assert "comment" not in ok(sim, "GET", "/cluster/ha/resources/vm:100")


@pytest.mark.parametrize("form, answer", [
    ({"delete": "type"}, err("update resources config failed: no such option 'type'\n")),
    ({"comment": "two\nlines"}, err("update resources config failed: property contains a line feed\n")),
    ({"type": "vm"}, bad({"type": NOT_IN_SCHEMA})),
    ({"group": "g1"}, err("invalid parameter 'group': ha groups have been migrated to rules\n")),
    ({"digest": "0" * 40}, err("update resources config failed: " + MODIFIED)),
])
def test_an_update_pve_refuses(sim, form, answer):
    resources(sim, "vm:100")
    assert sim.request("PUT", "/cluster/ha/resources/vm:100", form) == answer


def test_a_missing_resource(sim):
    assert sim.request("GET", "/cluster/ha/resources/vm:100") == err("no such resource 'vm:100'\n")
    assert sim.request("PUT", "/cluster/ha/resources/vm:100", {"comment": "x"}) == err(
        "update resources config failed: no such resource 'vm:100'\n")
    assert sim.request("DELETE", "/cluster/ha/resources/vm:100") == err(
        "cannot delete service 'vm:100', not HA managed!\n")


def test_deleting_a_resource_purges_it_from_every_rule_and_drops_the_emptied_ones(sim):
    resources(sim, "vm:100", "ct:101", "vm:102")
    ok(sim, "POST", "/cluster/ha/rules", {"rule": "only100", "type": "node-affinity", "resources": "vm:100",
                                          "nodes": "node1"})
    ok(sim, "POST", "/cluster/ha/rules", {"rule": "apart", "type": "resource-affinity", "affinity": "negative",
                                          "resources": "vm:100,ct:101,vm:102"})
    ok(sim, "DELETE", "/cluster/ha/resources/vm:100")
    assert [row["rule"] for row in ok(sim, "GET", "/cluster/ha/rules")] == ["apart"]
    assert ok(sim, "GET", "/cluster/ha/rules/apart")["resources"] == "ct:101,vm:102"
    # purge=0 leaves the rules alone
    ok(sim, "DELETE", "/cluster/ha/resources/ct:101", {"purge": "0"})
    assert ok(sim, "GET", "/cluster/ha/rules/apart")["resources"] == "ct:101,vm:102"


def test_writes_need_sys_console_reads_sys_audit(sim):
    state = sim.state
    state.add_user("haaudit@pve")
    secret = state.add_token("haaudit@pve", "ro", privsep=0)
    state.set_acl("/", "PVEAuditor", users="haaudit@pve")
    token = ("haaudit@pve!ro", secret)
    assert sim.request("GET", "/cluster/ha/resources", token=token)[0] == 200
    assert sim.request("GET", "/cluster/ha/rules", token=token)[0] == 200
    assert sim.request("POST", "/cluster/ha/resources", {"sid": "vm:100"}, token=token) == err(
        "Permission check failed (/, Sys.Console)\n", 403)


# -- groups -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("method, path, form, verb", [
    ("GET", "/cluster/ha/groups", None, "index groups"),
    ("POST", "/cluster/ha/groups", {"group": "g1", "nodes": "node1"}, "create group"),
    ("GET", "/cluster/ha/groups/g1", None, "read group"),
    ("PUT", "/cluster/ha/groups/g1", {"comment": "x"}, "update group"),
    ("DELETE", "/cluster/ha/groups/g1", None, "delete group"),
])
def test_ha_groups_have_been_migrated_to_rules(sim, method, path, form, verb):
    assert sim.request(method, path, form) == err(f"cannot {verb}: ha groups have been migrated to rules\n")


# -- rules -----------------------------------------------------------------------------------------

def test_a_node_affinity_rule_reads_back_normalised(sim):
    resources(sim, "vm:100", "ct:101")
    ok(sim, "POST", "/cluster/ha/rules", {"rule": "pin", "type": "node-affinity", "resources": "vm:100 ct:101",
                                          "nodes": "node3:0,node1:2,node2:1,node1:5", "strict": "0"})
    item = ok(sim, "GET", "/cluster/ha/rules/pin")
    assert len(item.pop("digest")) == 40
    # sets re-sorted; one priority per node (the last wins), sorted by name, 0 as the bare name;
    # strict kept as sent (0), disable absent
    assert item == {"rule": "pin", "type": "node-affinity", "order": 1, "resources": "ct:101,vm:100",
                    "nodes": "node1:5,node2:1,node3", "strict": 0}


def test_a_resource_affinity_rule_and_the_list_filters(sim):
    resources(sim, "vm:100", "ct:101", "vm:102")
    ok(sim, "POST", "/cluster/ha/rules", {"rule": "pin", "type": "node-affinity", "resources": "vm:102",
                                          "nodes": "node1"})
    ok(sim, "POST", "/cluster/ha/rules", {"rule": "apart", "type": "resource-affinity", "affinity": "negative",
                                          "resources": "vm:100,ct:101", "comment": "keep%20apart: always"})
    item = ok(sim, "GET", "/cluster/ha/rules/apart")
    assert (item["order"], item["affinity"], item["comment"]) == (2, "negative", "keep apart: always")
    assert "nodes" not in item and "strict" not in item
    assert [row["rule"] for row in ok(sim, "GET", "/cluster/ha/rules")] == ["pin", "apart"]
    assert [row["rule"] for row in ok(sim, "GET", "/cluster/ha/rules", {"type": "resource-affinity"})] == ["apart"]
    assert [row["rule"] for row in ok(sim, "GET", "/cluster/ha/rules", {"resource": "vm:102"})] == ["pin"]


@pytest.mark.parametrize("form, answer", [
    ({"type": "node-affinity", "resources": "vm:100"}, err("missing value for required option 'nodes'\n")),
    ({"type": "resource-affinity", "resources": "vm:100,ct:101"},
     err("missing value for required option 'affinity'\n")),
    ({"type": "resource-affinity", "resources": "vm:100,ct:101", "affinity": "positive", "nodes": "node1",
      "strict": "1"}, bad({"nodes": NOT_IN_SCHEMA, "strict": NOT_IN_SCHEMA})),
    ({"type": "node-affinity", "resources": "vm:100", "nodes": "node1", "affinity": "positive"},
     bad({"affinity": NOT_IN_SCHEMA})),
    ({"type": "node-affinity", "resources": "vm:100,vm:102,vm:103", "nodes": "node1"},
     err("create ha rule failed: cannot use unmanaged resource(s) vm:102, vm:103.\n")),
    ({"type": "node-affinity", "resources": "vm:100", "nodes": "node1,node9"},
     err("create ha rule failed: cannot use non-existent node(s) node9.\n")),
    ({"type": "node-affinity", "resources": ",", "nodes": "node1"},
     err("create ha rule failed: no resources were specified\n")),
    ({"type": "node-affinity", "resources": "vm:100", "nodes": ","},
     err("create ha rule failed: no nodes were specified\n")),
    ({"type": "resource-affinity", "resources": "vm:100", "affinity": "negative"},
     err("create ha rule failed: 400 Rule 'r1' is invalid.\n"
         "resources: rule is ineffective as there are less than two resources\n")),
    ({"type": "node-affinity", "resources": "vm:100", "nodes": "node1", "comment": "a\nb"},
     err("property contains a line feed\n")),
])
def test_a_rule_pve_refuses(sim, form, answer):
    resources(sim, "vm:100", "ct:101")
    assert rule(sim, "r1", **form) == answer
    assert sim.state.ha_rules == {}


def test_a_rule_is_created_once_and_a_resource_in_one_node_affinity_rule_only(sim):
    resources(sim, "vm:100", "ct:101")
    form = {"type": "node-affinity", "resources": "vm:100", "nodes": "node1"}
    ok(sim, "POST", "/cluster/ha/rules", dict(form, rule="r1"))
    assert rule(sim, "r1", **form) == err("create ha rule failed: HA rule 'r1' already defined\n")
    assert rule(sim, "r2", type="node-affinity", resources="vm:100,ct:101", nodes="node1") == err(
        "create ha rule failed: 400 Rule 'r2' is invalid.\n"
        "resources: resource 'vm:100' is already used in another node affinity rule\n")


def test_positive_and_negative_rules_cannot_share_two_resources(sim):
    resources(sim, "vm:100", "ct:101")
    ok(sim, "POST", "/cluster/ha/rules", {"rule": "together", "type": "resource-affinity", "affinity": "positive",
                                          "resources": "vm:100,ct:101"})
    assert rule(sim, "apart", type="resource-affinity", affinity="negative", resources="vm:100,ct:101") == err(
        "create ha rule failed: 400 Rule 'apart' is invalid.\n"
        "resources: rule shares two or more resources with a positive resource affinity rule\n")


def test_an_update_takes_the_stored_rules_type_which_must_be_sent(sim):
    resources(sim, "vm:100", "ct:101")
    ok(sim, "POST", "/cluster/ha/rules", {"rule": "pin", "type": "node-affinity", "resources": "vm:100",
                                          "nodes": "node1"})
    assert sim.request("PUT", "/cluster/ha/rules/pin", {"comment": "x"}) == bad(
        {"type": "property is missing and it is not optional"})
    assert sim.request("PUT", "/cluster/ha/rules/pin", {"type": "resource-affinity", "comment": "x"}) == err(
        "update HA rules failed: unexpected property 'type'\n")
    ok(sim, "PUT", "/cluster/ha/rules/pin", {"type": "node-affinity", "nodes": "node2:3", "strict": "1"})
    item = ok(sim, "GET", "/cluster/ha/rules/pin")
    assert (item["nodes"], item["strict"]) == ("node2:3", 1)


def test_disable_0_is_dropped_only_delete_enables_a_rule_again(sim):
    resources(sim, "vm:100")
    ok(sim, "POST", "/cluster/ha/rules", {"rule": "pin", "type": "node-affinity", "resources": "vm:100",
                                          "nodes": "node1", "disable": "1"})
    assert ok(sim, "GET", "/cluster/ha/rules/pin")["disable"] == 1
    ok(sim, "PUT", "/cluster/ha/rules/pin", {"type": "node-affinity", "disable": "0"})
    assert ok(sim, "GET", "/cluster/ha/rules/pin")["disable"] == 1
    ok(sim, "PUT", "/cluster/ha/rules/pin", {"type": "node-affinity", "delete": "disable"})
    assert "disable" not in ok(sim, "GET", "/cluster/ha/rules/pin")


@pytest.mark.parametrize("form, message", [
    ({"delete": "resources"}, "unable to delete required option 'resources'"),
    ({"delete": "affinity"}, "no such option 'affinity'"),
    ({"delete": "comment", "comment": "x"}, "cannot set and delete property 'comment' at the same time!"),
    ({"resources": "vm:100,vm:102"}, "cannot use unmanaged resource(s) vm:102."),
    ({"digest": "0" * 40}, MODIFIED.strip()),
])
def test_a_rule_update_pve_refuses(sim, form, message):
    resources(sim, "vm:100")
    ok(sim, "POST", "/cluster/ha/rules", {"rule": "pin", "type": "node-affinity", "resources": "vm:100",
                                          "nodes": "node1", "comment": "c"})
    before = ok(sim, "GET", "/cluster/ha/rules/pin")
    assert sim.request("PUT", "/cluster/ha/rules/pin", dict(form, type="node-affinity")) == err(
        f"update HA rules failed: {message}\n")
    assert ok(sim, "GET", "/cluster/ha/rules/pin") == before


def test_a_read_carries_pves_feasibility_verdict(sim):
    resources(sim, "vm:100", "ct:101")
    ok(sim, "POST", "/cluster/ha/rules", {"rule": "apart", "type": "resource-affinity", "affinity": "negative",
                                          "resources": "vm:100,ct:101"})
    assert "errors" not in ok(sim, "GET", "/cluster/ha/rules/apart")
    ok(sim, "DELETE", "/cluster/ha/resources/ct:101")
    assert ok(sim, "GET", "/cluster/ha/rules/apart")["errors"] == {
        "resources": ["rule is ineffective as there are less than two resources"]}


def test_a_missing_rule_reads_as_missing_and_deletes_without_complaint(sim):
    assert sim.request("GET", "/cluster/ha/rules/nope") == err("no such ha rule 'nope'\n")
    assert sim.request("PUT", "/cluster/ha/rules/nope", {"type": "node-affinity", "comment": "x"}) == err(
        "update HA rules failed: HA rule 'nope' does not exist\n")
    assert sim.request("DELETE", "/cluster/ha/rules/nope") == (200, {"data": None})


def test_the_rules_digest_moves_with_any_rule(sim):
    resources(sim, "vm:100", "ct:101")
    ok(sim, "POST", "/cluster/ha/rules", {"rule": "ra", "type": "node-affinity", "resources": "vm:100",
                                          "nodes": "node1"})
    digest = ok(sim, "GET", "/cluster/ha/rules/ra")["digest"]
    ok(sim, "POST", "/cluster/ha/rules", {"rule": "rb", "type": "node-affinity", "resources": "ct:101",
                                          "nodes": "node2"})
    assert ok(sim, "GET", "/cluster/ha/rules/ra")["digest"] != digest
    stale = {"type": "node-affinity", "comment": "x", "digest": digest}
    assert sim.request("PUT", "/cluster/ha/rules/ra", stale) == err("update HA rules failed: " + MODIFIED)


# -- comments as SectionConfig reads them back ----------------------------------------------------------------------

def test_comments_read_back_as_section_config_parses_them(sim):
    # a resource's comment is kept as is: parse_config's ^\s+(\S+)(\s+(.*\S))?\s*$ trims it; '0' is never written
    ok(sim, "POST", "/cluster/ha/resources", {"sid": "vm:100", "comment": "  web\tfront \t"})
    assert ok(sim, "GET", "/cluster/ha/resources/vm:100")["comment"] == "web\tfront"
    ok(sim, "PUT", "/cluster/ha/resources/vm:100", {"comment": "0"})
    assert "comment" not in ok(sim, "GET", "/cluster/ha/resources/vm:100")
    # a rule's goes through encode_text (a tab is %09 in the file): only its spaces are trimmed
    resources(sim, "vm:102")
    assert rule(sim, "keep", type="node-affinity", resources="vm:102", nodes="node1", comment=" \tpinned ")[0] == 200
    assert ok(sim, "GET", "/cluster/ha/rules/keep")["comment"] == "\tpinned"
