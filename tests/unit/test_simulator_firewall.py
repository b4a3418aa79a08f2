"""The firewall families: the simulator's port of pve-firewall over real HTTPS, and the collection's
firewall families against it (rule edit scripts, normalisation, bad input, the scope dispatcher).

Run: python -m pytest tests/unit/test_simulator_firewall.py -q
"""

import random
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from collection_root import COLLECTIONS  # noqa: E402

if COLLECTIONS not in sys.path:
    sys.path.insert(0, COLLECTIONS)

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator  # noqa: E402

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import argument_spec, execute  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.families import (  # noqa: E402
    firewall_alias, firewall_ipset, firewall_options, firewall_rules)
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import

MODIFIED = "detected modified configuration - file changed by other user? Try again.\n"


@pytest.fixture(autouse=True)
def _empty_firewall(request):
    if "sim" in request.fixturenames:
        simulator = request.getfixturevalue("sim")
        simulator.state.firewall = {}
        simulator.clear_log()


def ok(answer):
    status, body = answer
    assert status == 200, body
    return body["data"]


def bad(key, text):
    return 400, {"data": None, "message": "Parameter verification failed.\n", "errors": {key: text}}


def died(message):
    return 500, {"data": None, "message": message + "\n"}


def without_digest(rows):
    return [dict((key, value) for key, value in row.items() if key != "digest") for row in rows]


# -- aliases ----------------------------------------------------------------------------------------

def test_alias_is_keyed_lower_case_and_stored_as_pve_reads_it_back(sim):
    alias = {"name": "HomeLan", "cidr": "192.0.2.5/32", "comment": "  home  "}
    ok(sim.request("POST", "/cluster/firewall/aliases", alias))
    assert without_digest(ok(sim.request("GET", "/cluster/firewall/aliases"))) == [
        {"name": "HomeLan", "cidr": "192.0.2.5", "ipversion": 4, "comment": "home"}]
    assert ok(sim.request("GET", "/cluster/firewall/aliases/HOMELAN"))["name"] == "HomeLan"
    assert sim.request("POST", "/cluster/firewall/aliases", {"name": "homelan", "cidr": "192.0.2.6"}) == bad(
        "name", "alias 'homelan' already exists")
    ok(sim.request("POST", "/cluster/firewall/aliases", {"name": "v6", "cidr": "2001:db8::1/128", "comment": "0"}))
    assert ok(sim.request("GET", "/cluster/firewall/aliases/v6")) == {
        "name": "v6", "cidr": "2001:db8::1", "ipversion": 6}


def test_missing_alias_is_a_400_naming_the_name(sim):
    assert sim.request("GET", "/cluster/firewall/aliases/nope") == bad("name", "no such alias")
    assert sim.request("PUT", "/cluster/firewall/aliases/nope", {"cidr": "192.0.2.1"}) == bad("name", "no such alias")
    ok(sim.request("DELETE", "/cluster/firewall/aliases/nope"))  # PVE deletes nothing and says nothing


def test_alias_update_rewrites_it_from_the_parameters_and_checks_the_digest(sim):
    ok(sim.request("POST", "/cluster/firewall/aliases", {"name": "a1", "cidr": "192.0.2.1", "comment": "x"}))
    digest = ok(sim.request("GET", "/cluster/firewall/aliases"))[0]["digest"]
    ok(sim.request("PUT", "/cluster/firewall/aliases/a1", {"cidr": "192.0.2.2", "digest": digest}))
    assert ok(sim.request("GET", "/cluster/firewall/aliases/a1")) == {
        "name": "a1", "cidr": "192.0.2.2", "ipversion": 4}
    assert sim.request("PUT", "/cluster/firewall/aliases/a1", {"cidr": "192.0.2.3", "digest": digest}) == died(
        MODIFIED.strip())
    assert sim.request("DELETE", "/cluster/firewall/aliases/a1", {"digest": digest}) == died(MODIFIED.strip())
    ok(sim.request("PUT", "/cluster/firewall/aliases/a1", {"cidr": "192.0.2.3", "rename": "a2"}))
    assert [row["name"] for row in ok(sim.request("GET", "/cluster/firewall/aliases"))] == ["a2"]


@pytest.mark.parametrize("cidr, error", [
    ("300.1.1.1", "invalid format - value does not look like a valid IP address or CIDR network\n"),
    # past pve-firewall's own pattern, Net::IP's text (Firewall.pm pve_verify_ip_or_cidr)
    ("192.0.2.0/33", "invalid format - Prefix length 33 is longer than IP address (32)\n"),
    ("192.0.2.7/0", "invalid format - Invalid prefix 11000000000000000000001000000111/0\n"),
    ("lan", "invalid format - value does not look like a valid IP address or CIDR network\n"),
])
def test_alias_address_is_checked(sim, cidr, error):
    assert sim.request("POST", "/cluster/firewall/aliases", {"name": "a1", "cidr": cidr}) == bad("cidr", error)


# -- ipsets -----------------------------------------------------------------------------------------

def test_ipset_names_are_lower_cased_and_entries_kept_sorted_and_normalised(sim):
    ok(sim.request("POST", "/cluster/firewall/ipset", {"name": "Trusted", "comment": "t"}))
    assert without_digest(ok(sim.request("GET", "/cluster/firewall/ipset"))) == [{"name": "trusted", "comment": "t"}]
    assert sim.request("GET", "/cluster/firewall/ipset/Trusted") == died("no such IPSet 'Trusted'")
    for form in ({"cidr": "198.51.100.7/32", "nomatch": 1, "comment": "one"}, {"cidr": "192.0.2.0/24"},
                 {"cidr": "2001:db8::/64", "nomatch": 0}):
        ok(sim.request("POST", "/cluster/firewall/ipset/trusted", form))
    assert without_digest(ok(sim.request("GET", "/cluster/firewall/ipset/trusted"))) == [
        {"cidr": "192.0.2.0/24"}, {"cidr": "198.51.100.7", "nomatch": 1, "comment": "one"}, {"cidr": "2001:db8::/64"}]
    assert sim.request("POST", "/cluster/firewall/ipset/trusted", {"cidr": "192.0.2.0/24"}) == bad(
        "cidr", "address '192.0.2.0/24' already exists")
    assert sim.request("POST", "/cluster/firewall/ipset/trusted", {"cidr": "0.0.0.0/0"}) == bad(
        "cidr", "a zero prefix is not allowed in ipset entries")
    assert sim.request("POST", "/cluster/firewall/ipset/trusted", {"cidr": "office"}) == died("no such alias 'office'")
    assert sim.request("POST", "/cluster/firewall/ipset/trusted", {"cidr": "192.0.2.1/24"})[0] == 400


def test_ipset_entry_update_sets_nomatch_and_comment_from_the_parameters(sim):
    ok(sim.request("POST", "/cluster/firewall/ipset", {"name": "s1"}))
    ok(sim.request("POST", "/cluster/firewall/ipset/s1", {"cidr": "192.0.2.9", "comment": "c", "nomatch": 1}))
    digest = ok(sim.request("GET", "/cluster/firewall/ipset/s1"))[0]["digest"]
    ok(sim.request("PUT", "/cluster/firewall/ipset/s1/192.0.2.9", {"digest": digest}))
    assert without_digest([ok(sim.request("GET", "/cluster/firewall/ipset/s1/192.0.2.9"))]) == [{"cidr": "192.0.2.9"}]
    assert sim.request("PUT", "/cluster/firewall/ipset/s1/192.0.2.9", {"digest": digest}) == died(MODIFIED.strip())
    assert sim.request("GET", "/cluster/firewall/ipset/s1/192.0.2.8") == bad("cidr", "no such IP/Network")


def test_ipset_comment_changes_through_rename_to_itself_and_delete_needs_force(sim):
    ok(sim.request("POST", "/cluster/firewall/ipset", {"name": "s1", "comment": "old"}))
    digest = ok(sim.request("GET", "/cluster/firewall/ipset"))[0]["digest"]
    ok(sim.request("POST", "/cluster/firewall/ipset", {"name": "s1", "rename": "s1", "comment": "new",
                                                       "digest": digest}))
    assert ok(sim.request("GET", "/cluster/firewall/ipset"))[0]["comment"] == "new"
    assert sim.request("POST", "/cluster/firewall/ipset", {"name": "s1", "rename": "s1", "digest": digest}) == died(
        MODIFIED.strip())
    assert sim.request("POST", "/cluster/firewall/ipset", {"name": "s1"}) == bad("name", "IPSet 's1' already exists")
    assert sim.request("POST", "/cluster/firewall/ipset", {"name": "s2", "rename": "s3"}) == bad(
        "name", "IPSet 's3' does not exist")
    ok(sim.request("POST", "/cluster/firewall/ipset/s1", {"cidr": "192.0.2.1"}))
    assert sim.request("DELETE", "/cluster/firewall/ipset/s1") == died("IPSet 's1' is not empty")
    ok(sim.request("DELETE", "/cluster/firewall/ipset/s1", {"force": 1}))
    assert sim.request("DELETE", "/cluster/firewall/ipset/s1") == died("no such IPSet 's1'")


# PVE routes /ipset/{name}/{cidr} with fragmentDelimiter '': the CIDR keeps its slash.
def test_an_entry_with_a_prefix_is_addressed_by_its_cidr(sim):
    ok(sim.request("POST", "/cluster/firewall/ipset", {"name": "s1"}))
    ok(sim.request("POST", "/cluster/firewall/ipset/s1", {"cidr": "192.0.2.0/24"}))
    ok(sim.request("DELETE", "/cluster/firewall/ipset/s1/192.0.2.0%2F24"))


# -- security groups and rules ------------------------------------------------------------------------

def rules(sim, path="/cluster/firewall/rules"):
    return ok(sim.request("GET", path))


def test_a_new_rule_goes_on_top_disabled_unless_enable_is_sent(sim):
    ok(sim.request("POST", "/cluster/firewall/rules", {"type": "in", "action": "ACCEPT", "macro": "ssh",
                                                       "comment": " first "}))
    ok(sim.request("POST", "/cluster/firewall/rules", {"type": "out", "action": "DROP", "proto": "icmp",
                                                       "enable": 1, "pos": 5}))
    listed = rules(sim)
    assert without_digest(listed) == [
        {"type": "out", "action": "DROP", "proto": "icmp", "enable": 1, "ipversion": 4, "pos": 0},
        {"type": "in", "action": "ACCEPT", "macro": "SSH", "enable": 0, "comment": "first", "pos": 1}]
    assert listed[0]["digest"] == listed[1]["digest"]
    assert ok(sim.request("GET", "/cluster/firewall/rules/1"))["macro"] == "SSH"
    assert sim.request("GET", "/cluster/firewall/rules/2") == died("no rule at position 2")


def test_moveto_puts_the_rule_before_the_one_that_was_there(sim):
    for name in "cba":
        ok(sim.request("POST", "/cluster/firewall/rules", {"type": "in", "action": "ACCEPT", "comment": name}))
    ok(sim.request("PUT", "/cluster/firewall/rules/0", {"moveto": 2}))
    assert [rule["comment"] for rule in rules(sim)] == ["b", "a", "c"]
    ok(sim.request("PUT", "/cluster/firewall/rules/0", {"moveto": 3}))
    assert [rule["comment"] for rule in rules(sim)] == ["a", "c", "b"]
    ok(sim.request("PUT", "/cluster/firewall/rules/2", {"moveto": 0}))
    assert [rule["comment"] for rule in rules(sim)] == ["b", "a", "c"]


def test_rule_update_in_place_with_delete_and_the_digest_guard(sim):
    ok(sim.request("POST", "/cluster/firewall/rules", {"type": "in", "action": "ACCEPT", "proto": "tcp",
                                                       "dport": "22", "comment": "ssh", "enable": 1}))
    digest = rules(sim)[0]["digest"]
    ok(sim.request("PUT", "/cluster/firewall/rules/0", {"dport": "2222", "delete": "comment", "digest": digest}))
    assert without_digest(rules(sim)) == [
        {"type": "in", "action": "ACCEPT", "proto": "tcp", "dport": "2222", "enable": 1, "pos": 0}]
    assert sim.request("PUT", "/cluster/firewall/rules/0", {"enable": 0, "digest": digest}) == died(MODIFIED.strip())
    assert sim.request("DELETE", "/cluster/firewall/rules/0", {"digest": digest}) == died(MODIFIED.strip())
    assert sim.request("PUT", "/cluster/firewall/rules/0", {"delete": "action"}) == bad(
        "delete", "unable to delete required property 'action'")
    assert sim.request("PUT", "/cluster/firewall/rules/0", {"delete": "proto"}) == bad(
        "proto", "missing property - 'dport' requires this property")
    ok(sim.request("DELETE", "/cluster/firewall/rules/0"))
    assert rules(sim) == []


@pytest.mark.parametrize("form, key, text", [
    ({"type": "in", "action": "accept"}, "action", "unknown action 'accept'"),
    ({"type": "in", "action": "ACCEPT", "dport": "22"}, "proto", "missing property - 'dport' requires this property"),
    ({"type": "in", "action": "ACCEPT", "proto": "icmp", "sport": "22"}, "sport",
     "protocol 'icmp' does not support ports"),
    ({"type": "in", "action": "ACCEPT", "macro": "Telnetx"}, "macro", "unknown macro 'Telnetx'"),
    ({"type": "in", "action": "ACCEPT", "source": "office"}, "source", "no such alias 'office'"),
    ({"type": "in", "action": "ACCEPT", "source": "+office"}, "source", "no such ipset 'office'"),
    ({"type": "in", "action": "ACCEPT", "proto": "tcp", "icmp-type": "echo-request"}, "proto",
     "missing property - 'icmp-type' requires this property"),
    ({"type": "in", "action": "ACCEPT", "proto": "icmp", "icmp-type": "neighbor-solicitation"}, "icmp-type",
     "invalid icmp-type 'neighbor-solicitation' for proto 'icmp'"),
    ({"type": "in", "action": "ACCEPT", "proto": "tcp", "dport": "80,"}, "dport",
     "invalid format - extraneous commas in list\n"),
    ({"type": "in", "action": "ACCEPT", "proto": "tcp", "dport": "90:80"}, "dport",
     "invalid format - backwards range '90:80' not allowed, did you mean '80:90'?\n"),
    ({"type": "in", "action": "ACCEPT", "proto": "tcp", "dport": "nosuchservice"}, "dport",
     "invalid format - invalid port 'nosuchservice'\n"),
    ({"type": "in", "action": "ACCEPT", "proto": "bogus"}, "proto", "invalid format - unknown protocol 'bogus'\n"),
    ({"type": "in", "action": "ACCEPT", "source": "192.0.2.1,2001:db8::1"}, "source",
     "invalid format - detected mixed ipv4/ipv6 addresses in address list '192.0.2.1,2001:db8::1'\n"),
    ({"type": "in", "action": "ACCEPT", "source": "192.0.2.1-192.0.2.9,192.0.2.20"}, "source",
     "invalid format - you can't use a range in a list\n"),
    # Net::IP's own texts (Net/IP.pm 1.26), behind parse_address_list's prefix
    ({"type": "in", "action": "ACCEPT", "source": "192.0.2.9-192.0.2.1"}, "source",
     "invalid format - invalid IP address: Begin address is greater than End address 192.0.2.9 - 192.0.2.1\n"),
    ({"type": "in", "action": "ACCEPT", "source": "192.0.2.1-2001:db8::1"}, "source",
     "invalid format - invalid IP address: Not a valid IPv4 address 2001:db8::1\n"),
    ({"type": "in", "action": "ACCEPT", "source": "192.0.2.5/24"}, "source",
     "invalid format - invalid IP address: Invalid prefix 11000000000000000000001000000101/24\n"),
    ({"type": "in", "action": "ACCEPT", "source": "192.0.300.1"}, "source",
     "invalid format - invalid IP address: Invalid quad in IP address 192.0.300.1 - 300\n"),
    ({"type": "in", "action": "ACCEPT", "source": "2001:db8::1::2"}, "source",
     "invalid format - invalid IP address: Invalid address 2001:db8::1::2 (More than one :: pattern)\n"),
    ({"type": "sideways", "action": "ACCEPT"}, "type",
     "value 'sideways' does not have a value in the enumeration 'in, out, forward, group'"),
])
def test_verify_rule_refuses_like_pve(sim, form, key, text):
    assert sim.request("POST", "/cluster/firewall/rules", form) == bad(key, text)
    assert rules(sim) == []


def test_an_alias_of_the_other_ip_version_is_a_plain_error(sim):
    """verify_rule checks an alias's version outside its eval: the die is a 500, not a parameter error."""
    ok(sim.request("POST", "/cluster/firewall/aliases", {"name": "office", "cidr": "2001:db8::/48"}))
    assert sim.request("POST", "/cluster/firewall/rules", {"type": "in", "action": "ACCEPT", "proto": "icmp",
                                                           "source": "office"}) == died(
        "detected mixed ipv4/ipv6 addresses in rule")
    assert rules(sim) == []


def test_rules_may_refer_to_existing_aliases_and_ipsets(sim):
    ok(sim.request("POST", "/cluster/firewall/aliases", {"name": "office", "cidr": "2001:db8::/48"}))
    ok(sim.request("POST", "/cluster/firewall/ipset", {"name": "admins"}))
    ok(sim.request("POST", "/cluster/firewall/rules", {"type": "in", "action": "ACCEPT", "source": "+admins",
                                                       "dest": "office"}))
    assert rules(sim)[0]["ipversion"] == 6


def test_security_groups_lower_case_their_names_and_keep_only_what_a_group_rule_holds(sim):
    ok(sim.request("POST", "/cluster/firewall/groups", {"group": "Web", "comment": "w"}))
    assert without_digest(ok(sim.request("GET", "/cluster/firewall/groups"))) == [{"group": "web", "comment": "w"}]
    base = "/cluster/firewall/groups/web"
    # verify_rule judges the rule type against the scope before anything else
    assert sim.request("POST", base, {"type": "group", "action": "other"}) == bad(
        "type", "invalid rule type 'group' for rule_env 'group'")
    assert sim.request("POST", base, {"type": "in", "action": "ACCEPT", "iface": "eth0"}) == bad(
        "type", "parameter -i not allowed for this rule type")
    ok(sim.request("POST", base, {"type": "in", "action": "ACCEPT", "macro": "HTTPS", "enable": 1}))
    ok(sim.request("POST", "/cluster/firewall/rules", {"type": "group", "action": "web", "iface": "vmbr0",
                                                       "source": "192.0.2.1", "enable": 1}))
    assert without_digest(rules(sim)) == [{"type": "group", "action": "web", "iface": "vmbr0", "enable": 1, "pos": 0}]
    assert sim.request("DELETE", base) == died("Security group 'web' is not empty")
    assert sim.request("GET", "/cluster/firewall/groups/nope") == died("no such security group 'nope'")
    digest = ok(sim.request("GET", "/cluster/firewall/groups"))[0]["digest"]
    ok(sim.request("POST", "/cluster/firewall/groups", {"group": "web", "rename": "web", "comment": "x",
                                                        "digest": digest}))
    assert sim.request("POST", "/cluster/firewall/groups", {"group": "web2", "rename": "nope"}) == bad(
        "group", "Security group 'nope' does not exist")
    ok(sim.request("DELETE", base + "/0"))
    ok(sim.request("DELETE", base))
    assert ok(sim.request("GET", "/cluster/firewall/groups")) == []


def test_node_rules_live_in_each_nodes_host_file(sim):
    ok(sim.request("POST", "/nodes/node1/firewall/rules", {"type": "in", "action": "ACCEPT", "iface": "vmbr0",
                                                           "enable": 1}))
    assert len(rules(sim, "/nodes/node1/firewall/rules")) == 1
    assert rules(sim, "/nodes/node2/firewall/rules") == []
    status, body = sim.request("GET", "/nodes/nowhere/firewall/rules")
    assert status == 500 and body["message"].startswith("hostname lookup 'nowhere' failed")


# -- options ----------------------------------------------------------------------------------------

def test_cluster_options_carry_a_digest_and_delete_known_options_only(sim):
    options = ok(sim.request("GET", "/cluster/firewall/options"))
    assert set(options) == {"digest"}
    ok(sim.request("PUT", "/cluster/firewall/options", {"enable": 1, "policy_in": "DROP",
                                                        "log_ratelimit": "enable=1,burst=10",
                                                        "digest": options["digest"]}))
    options = ok(sim.request("GET", "/cluster/firewall/options"))
    assert (options["enable"], options["policy_in"], options["log_ratelimit"]) == (1, "DROP", "enable=1,burst=10")
    assert sim.request("PUT", "/cluster/firewall/options", {"policy_in": "ACCEPT", "digest": "0" * 40}) == died(
        MODIFIED.strip())
    assert sim.request("PUT", "/cluster/firewall/options", {"delete": "nosmurfs"}) == bad(
        "delete", "no such option 'nosmurfs'")
    ok(sim.request("PUT", "/cluster/firewall/options", {"delete": "policy_in,log_ratelimit"}))
    assert without_digest([ok(sim.request("GET", "/cluster/firewall/options"))]) == [{"enable": 1}]
    assert sim.request("PUT", "/cluster/firewall/options", {"log_ratelimit": "rate=often"})[0] == 400


def test_a_timestamp_in_the_cluster_enable_reads_as_off_after_a_minute(sim):
    ok(sim.request("PUT", "/cluster/firewall/options", {"enable": 5}))
    assert ok(sim.request("GET", "/cluster/firewall/options"))["enable"] > 1
    sim.state.firewall["cluster"]["options"]["enable"] -= 120
    assert ok(sim.request("GET", "/cluster/firewall/options"))["enable"] == 0


def test_node_options_are_per_node(sim):
    ok(sim.request("PUT", "/nodes/node2/firewall/options", {"enable": 1, "nosmurfs": 0, "log_level_in": "info"}))
    assert without_digest([ok(sim.request("GET", "/nodes/node2/firewall/options"))]) == [
        {"enable": 1, "nosmurfs": 0, "log_level_in": "info"}]
    assert without_digest([ok(sim.request("GET", "/nodes/node1/firewall/options"))]) == [{}]
    assert sim.request("PUT", "/nodes/node2/firewall/options", {"nf_conntrack_helpers": "ftp,tftpx"}) == bad(
        "nf_conntrack_helpers",
        "invalid format - unknown helper tftpx at /usr/share/perl5/PVE/Firewall.pm line 1167.\n")
    assert sim.request("PUT", "/nodes/node2/firewall/options", {"policy_in": "DROP"})[0] == 400


def test_the_directory_indexes(sim):
    assert [row["name"] for row in ok(sim.request("GET", "/cluster/firewall"))] == [
        "aliases", "rules", "options", "groups", "ipset", "macros", "refs"]
    assert [row["name"] for row in ok(sim.request("GET", "/nodes/node1/firewall"))] == ["rules", "options", "log"]


# -- the collection's families against the simulator ---------------------------------------------------

def run(sim, family, args, check=False):
    params = ArgumentSpecValidator(argument_spec(family)).validate(dict(args, **sim.module_options(), api_timeout=5))
    assert not params.errors.errors, params.errors.msg
    result, _warnings = execute(family, params.validated_parameters, check, True)
    return result


def writes(sim):
    return [(entry["method"], entry["path"], entry["form"]) for entry in sim.writes()]


RULES = [{"type": "in", "action": "ACCEPT", "macro": "SSH", "source": "192.0.2.0/24", "comment": "ssh"},
         {"type": "in", "action": "ACCEPT", "proto": "tcp", "dport": "8006"},
         {"type": "in", "action": "DROP", "log": "info"}]


def test_a_rule_list_is_created_last_rule_first_so_nothing_moves(sim):
    assert run(sim, firewall_rules.FAMILY, {"rules": RULES})["plan"]["action"] == "create"
    assert [method for method, _path, _form in writes(sim)] == ["POST"] * 3
    assert [rule.get("comment") for rule in rules(sim)] == ["ssh", None, None]
    assert all(rule["enable"] == 1 for rule in rules(sim))
    sim.clear_log()
    assert run(sim, firewall_rules.FAMILY, {"rules": RULES})["changed"] is False
    assert writes(sim) == [] and len(sim.log) == 1


@pytest.mark.parametrize("drift, expected", [
    # an out-of-band insert is deleted
    ([("POST", "/cluster/firewall/rules", {"type": "out", "action": "ACCEPT", "enable": 1})], [("DELETE", "0")]),
    # a reorder is one move
    ([("PUT", "/cluster/firewall/rules/2", {"moveto": 0})], [("PUT", "0")]),
    # a removal is re-created on top and moved to its place
    ([("DELETE", "/cluster/firewall/rules/1", {})], [("POST", ""), ("PUT", "1")]),
    # a rule edited by hand is rewritten in place, the lost key deleted
    ([("PUT", "/cluster/firewall/rules/1", {"dport": "443", "comment": "x"})], [("PUT", "1")]),
])
def test_rule_drift_is_repaired_by_position_with_the_digest_read_just_before(sim, drift, expected):
    run(sim, firewall_rules.FAMILY, {"rules": RULES})
    for method, path, form in drift:
        ok(sim.request(method, path, form))
    sim.clear_log()
    result = run(sim, firewall_rules.FAMILY, {"rules": RULES})
    assert result["plan"] == {"read": "found", "action": "update", "changed": ["rules"]}
    sent = writes(sim)
    assert [(method, path.rpartition("/rules")[2].lstrip("/")) for method, path, _form in sent] == expected
    digests = [entry["form"].get("digest") for entry in sim.writes()]
    reads = [entry for entry in sim.log if entry["method"] == "GET"]
    assert all(digests) and len(reads) == len(sent) + 2  # the plan's read, one after each write, the check
    sim.clear_log()
    assert run(sim, firewall_rules.FAMILY, {"rules": RULES})["changed"] is False
    assert writes(sim) == []


def test_a_stale_digest_makes_pve_refuse_and_the_task_re_judges(sim):
    run(sim, firewall_rules.FAMILY, {"rules": RULES})
    ok(sim.request("PUT", "/cluster/firewall/rules/2", {"moveto": 0}))
    # another writer adds a rule between the task's read and its first write
    sim.before("PUT", r"^/cluster/firewall/rules/\d+$", lambda params: sim.state.firewall["cluster"]["rules"].insert(
        0, {"type": "out", "action": "DROP", "enable": 1}), times=1)
    sim.clear_log()
    result = run(sim, firewall_rules.FAMILY, {"rules": RULES})
    assert result.get("failed") is not True, result
    assert [entry["status"] for entry in sim.writes()][0] == 500  # refused: the digest no longer matched
    assert firewall_rules.canonical_rules(rules(sim)) == firewall_rules.canonical_rules(RULES)


@pytest.mark.parametrize("current, desired", [(list(range(6)), list(range(6))[::-1]),
                                              ([0, 1, 2], [3, 4]), ([], [1, 2, 3]), ([1, 2, 3], [])])
def test_an_edit_script_always_reaches_the_declared_list(current, desired):
    def rule(number):
        return {"type": "in", "action": "ACCEPT", "comment": str(number), "enable": True}
    steps = firewall_rules.edit_script([rule(n) for n in current], [rule(n) for n in desired])
    work = [rule(n) for n in current]
    for step in steps:
        work = firewall_rules.applied(work, step)
    assert work == [rule(n) for n in desired]


def test_random_edit_scripts_converge_and_single_edits_cost_one_write():
    generator = random.Random(8)
    pool = [{"type": "in", "action": "ACCEPT", "comment": str(n), "enable": True} for n in range(9)]
    for _trial in range(500):
        current = generator.sample(pool, generator.randint(0, 7))
        desired = generator.sample(pool, generator.randint(0, 7))
        work = current
        for step in firewall_rules.edit_script(current, desired):
            work = firewall_rules.applied(work, step)
        assert work == desired
    base = pool[:6]
    for index in range(6):
        assert len(firewall_rules.edit_script(base[:index] + base[index + 1:], base)) <= 2  # removal
        assert len(firewall_rules.edit_script(base[:index] + [pool[8]] + base[index:], base)) == 1  # insert
        for target in range(6):
            assert len(firewall_rules.edit_script(firewall_rules.moved(base, index, target), base)) <= 1  # a move


def test_the_security_group_scope_creates_the_group_and_removes_it_with_its_rules(sim):
    args = {"scope": "group", "group": "Web", "comment": "public",
            "rules": [{"type": "in", "action": "ACCEPT", "macro": "https"}, {"type": "in", "action": "DROP"}]}
    assert run(sim, firewall_rules.FAMILY, args)["object"]["group"] == "web"
    assert [path for _method, path, _form in writes(sim)] == ["/cluster/firewall/groups"] + [
        "/cluster/firewall/groups/web"] * 2
    sim.clear_log()
    assert run(sim, firewall_rules.FAMILY, args)["changed"] is False
    assert len(sim.log) == 2  # the group list (comment) and the group's rules
    sim.clear_log()
    assert run(sim, firewall_rules.FAMILY, dict(args, comment="internal"))["plan"]["changed"] == ["comment"]
    assert writes(sim)[0][2]["rename"] == "web"
    sim.clear_log()
    assert run(sim, firewall_rules.FAMILY, dict(args, state="absent"))["plan"]["action"] == "delete"
    assert [(method, path) for method, path, _form in writes(sim)] == [
        ("DELETE", "/cluster/firewall/groups/web/0"), ("DELETE", "/cluster/firewall/groups/web/0"),
        ("DELETE", "/cluster/firewall/groups/web")]
    assert ok(sim.request("GET", "/cluster/firewall/groups")) == []


def test_ipset_entries_are_a_set_repaired_entry_by_entry(sim):
    args = {"name": "Admins", "entries": [{"cidr": "192.0.2.0/24", "comment": "office"},
                                          {"cidr": "198.51.100.7/32", "nomatch": True}]}
    run(sim, firewall_ipset.FAMILY, args)
    assert [path for _method, path, _form in writes(sim)] == ["/cluster/firewall/ipset"] + [
        "/cluster/firewall/ipset/admins"] * 2
    ok(sim.request("POST", "/cluster/firewall/ipset/admins", {"cidr": "203.0.113.1"}))
    ok(sim.request("PUT", "/cluster/firewall/ipset/admins/198.51.100.7", {"comment": "by hand"}))
    sim.clear_log()
    result = run(sim, firewall_ipset.FAMILY, args)
    assert result["plan"]["changed"] == ["entries"]
    assert [(method, path, sorted(form)) for method, path, form in writes(sim)] == [
        ("DELETE", "/cluster/firewall/ipset/admins/203.0.113.1", ["digest"]),
        ("PUT", "/cluster/firewall/ipset/admins/198.51.100.7", ["comment", "digest", "nomatch"])]
    assert run(sim, firewall_ipset.FAMILY, args)["changed"] is False


def test_an_alias_declared_with_32_and_another_case_is_the_same_alias(sim):
    run(sim, firewall_alias.FAMILY, {"name": "Mgmt", "cidr": "192.0.2.10"})
    sim.clear_log()
    result = run(sim, firewall_alias.FAMILY, {"name": "MGMT", "cidr": "192.0.2.10/32"})
    assert result["changed"] is False and result["object"]["ipversion"] == 4
    assert writes(sim) == []
    ok(sim.request("PUT", "/cluster/firewall/aliases/mgmt", {"cidr": "192.0.2.10", "comment": "by hand"}))
    sim.clear_log()
    assert run(sim, firewall_alias.FAMILY, {"name": "mgmt", "cidr": "192.0.2.10"})["plan"]["changed"] == ["comment"]
    # PVE rebuilds an alias from each PUT: the address goes along with the comment
    assert sorted(writes(sim)[0][2].items())[:2] == [("cidr", "192.0.2.10"), ("comment", "")]
    assert writes(sim)[0][2]["digest"]  # read from the alias list, whose rows carry it


def test_options_of_each_scope(sim):
    result = run(sim, firewall_options.FAMILY, {"enable": True, "ebtables": True, "policy_in": "DROP"})
    # ebtables is on by PVE's default, so declaring it changes nothing
    assert result["plan"]["changed"] == ["enable", "policy_in"]
    assert writes(sim)[0][2]["enable"] == "1" and "digest" in writes(sim)[0][2]
    result = run(sim, firewall_options.FAMILY, {"scope": "node", "node": "node3", "nf_conntrack_max": 262144,
                                                "nosmurfs": True})
    assert result["plan"]["changed"] == ["nosmurfs"]
    assert writes(sim)[-1][1] == "/nodes/node3/firewall/options"


@pytest.mark.parametrize("family, args, message", [
    (firewall_options.FAMILY, {"scope": "cluster", "tcpflags": True}, "option tcpflags: scope=cluster does not take"),
    (firewall_options.FAMILY, {"scope": "node", "enable": True}, "option node is required with scope=node"),
    (firewall_options.FAMILY, {"scope": "node", "node": "node_1"}, "option node"),
    (firewall_options.FAMILY, {"log_ratelimit": "rate=fast"}, "option log_ratelimit"),
    (firewall_rules.FAMILY, {"scope": "node", "group": "web", "node": "node1", "rules": RULES}, "option group"),
    (firewall_rules.FAMILY, {"rules": []}, "option rules: declare at least one rule"),
    (firewall_rules.FAMILY, {"rules": [{"type": "in", "action": "accept"}]}, "option rules[0].action"),
    (firewall_rules.FAMILY, {"rules": [{"type": "group", "action": "web", "proto": "tcp"}]}, "option rules[0].proto"),
    (firewall_rules.FAMILY, {"scope": "group", "group": "web", "rules": [{"type": "in", "action": "DROP",
                                                                          "iface": "eth0"}]}, "option rules[0].iface"),
    (firewall_rules.FAMILY, {"rules": [{"type": "in", "action": "DROP", "source": "192.0.2.1/24"}]},
     "option rules[0].source"),
    (firewall_rules.FAMILY, {"rules": [{"type": "in", "action": "DROP", "proto": "tcp", "icmp_type": "any"}]},
     "option rules[0].proto"),
    (firewall_rules.FAMILY, {"rules": [{"type": "in", "action": "DROP", "proto": "tcp", "dport": "70000"}]},
     "option rules[0].dport"),
    (firewall_ipset.FAMILY, {"name": "s1", "entries": [{"cidr": "192.0.2.0/33"}]}, "option entries[0].cidr"),
    # clean_cidr makes both the same entry
    (firewall_ipset.FAMILY, {"name": "s1", "entries": [{"cidr": "192.0.2.0/24"}, {"cidr": "192.0.2.9/24"}]},
     "option entries[1].cidr: '192.0.2.0/24' is declared twice"),
    (firewall_ipset.FAMILY, {"name": "s1", "entries": [{"cidr": "192.0.2.1"}, {"cidr": "192.0.2.1/32"}]},
     "option entries[1].cidr"),
    (firewall_alias.FAMILY, {"name": "a1"}, "option cidr is required"),
    (firewall_alias.FAMILY, {"name": "a1", "cidr": "192.0.2.1/33"}, "option cidr"),
    # verify_rule's refusals, in its words
    (firewall_rules.FAMILY, {"rules": [{"type": "forward", "action": "REJECT"}]},
     "option rules[0].action: 'REJECT': cannot define REJECT rules on forward chain"),
    (firewall_rules.FAMILY, {"rules": [{"type": "in", "action": "DROP", "proto": "tcp", "dport": "echo-request"}]},
     "option rules[0].dport: 'echo-request': invalid port 'echo-request'"),
    (firewall_rules.FAMILY, {"rules": [{"type": "in", "action": "ACCEPT", "macro": "SSH", "dport": "2222"}]},
     "option rules[0].dport: '2222': parameter 'dport' already define in macro (value = '22')"),
    (firewall_rules.FAMILY, {"rules": [{"type": "in", "action": "ACCEPT", "macro": "DNS", "proto": "tcp"}]},
     "option rules[0].proto: 'tcp': parameter 'proto' already define in macro (value = 'udp')"),
    (firewall_rules.FAMILY, {"rules": [{"type": "in", "action": "ACCEPT", "macro": "nosuch"}]},
     "option rules[0].macro: 'nosuch': unknown macro 'nosuch'"),
    (firewall_rules.FAMILY, {"rules": [{"type": "in", "action": "ACCEPT", "proto": "icmp", "icmp_type": "8"}]},
     "option rules[0].icmp_type: '8': invalid icmp-type '8' for proto 'icmp'"),
    (firewall_rules.FAMILY, {"rules": [{"type": "in", "action": "ACCEPT", "proto": "icmpv6", "icmp_type": "any"}]},
     "invalid icmp-type 'any' for proto 'icmpv6'"),
    (firewall_alias.FAMILY, {"name": "a1", "cidr": "192.0.2.1", "comment": "two\nlines"}, "option comment"),
])
def test_bad_input_is_refused_before_any_request(sim, family, args, message):
    result = run(sim, family, args)
    assert result.get("failed") is True and message in result["msg"], result
    assert sim.log == []


def test_canonical_rules_compare_as_pve_keeps_them():
    live = {"type": "in", "action": "ACCEPT", "macro": "SSH", "enable": 1, "ipversion": 4, "pos": 0,
            "digest": "d", "icmp-type": "any", "comment": "x"}
    declared = {"type": "in", "action": "ACCEPT", "macro": "ssh", "enable": True, "icmp_type": "any",
                "comment": " x ", "source": None, "log": None}
    assert firewall_rules.canonical_rule(live) == firewall_rules.canonical_rule(declared)
    assert firewall_rules.rule_form(firewall_rules.canonical_rule(declared)) == {
        "type": "in", "action": "ACCEPT", "macro": "ssh", "icmp-type": "any", "enable": "1", "comment": "x"}
    before = firewall_rules.canonical_rule(dict(declared, log="info"))
    assert firewall_rules.rule_form(firewall_rules.canonical_rule(declared), before) == {"delete": "log"}


def test_the_dispatcher_offers_every_scopes_options_none_required():
    spec = argument_spec(firewall_rules.FAMILY)
    assert spec["scope"] == {"type": "str", "default": "cluster", "choices": ["cluster", "group", "node", "vm", "vnet"]}
    assert "required" not in spec["group"] and "default" not in spec["comment"]
    params = dict((option, None) for option in spec)
    with pytest.raises(DeclarationError, match="option group is required with scope=group"):
        firewall_rules.FAMILY.family(dict(params, scope="group"))
    assert firewall_rules.FAMILY.family(dict(params, scope="group", group="web")) is firewall_rules.GROUP


# -- issue 29: what PVE stores, refuses and resolves -------------------------------------------------

def test_an_ipset_entry_is_stored_as_its_network_and_an_alias_as_given(sim):
    ok(sim.request("POST", "/cluster/firewall/aliases", {"name": "lab", "cidr": "10.0.2.5/24"}))
    assert [row["cidr"] for row in ok(sim.request("GET", "/cluster/firewall/aliases"))] == ["10.0.2.5/24"]
    ok(sim.request("POST", "/cluster/firewall/ipset", {"name": "nets"}))
    ok(sim.request("POST", "/cluster/firewall/ipset/nets", {"cidr": "10.0.2.5/24"}))
    ok(sim.request("POST", "/cluster/firewall/ipset/nets", {"cidr": "2001:db8:0:0::7/64"}))
    cidrs = [row["cidr"] for row in ok(sim.request("GET", "/cluster/firewall/ipset/nets"))]
    assert cidrs == ["10.0.2.0/24", "2001:db8::/64"]
    assert sim.request("POST", "/cluster/firewall/ipset/nets", {"cidr": "10.0.2.9/24"}) == bad(
        "cidr", "address '10.0.2.0/24' already exists")
    # resolve_alias at cluster level: guest/ never resolves, and the text names the alias without its scope
    assert sim.request("POST", "/cluster/firewall/ipset/nets", {"cidr": "guest/lab"}) == died("no such alias 'lab'")
    assert sim.request("POST", "/cluster/firewall/ipset/nets", {"cidr": "dc/nope"}) == died("no such alias 'nope'")
    ok(sim.request("POST", "/cluster/firewall/ipset/nets", {"cidr": "dc/LAB"}))


@pytest.mark.parametrize("rule, key, text", [
    ({"type": "forward", "action": "REJECT"}, "action", "cannot define REJECT rules on forward chain"),
    ({"type": "in", "action": "DROP", "proto": "tcp", "dport": "echo-request"}, "dport", "invalid port 'echo-request'"),
    ({"type": "in", "action": "DROP", "proto": "ipv6-icmp", "dport": "22"}, None, None),
    ({"type": "in", "action": "ACCEPT", "macro": "SSH", "proto": "tcp", "dport": "2222"}, "dport",
     "parameter 'dport' already define in macro (value = '22')"),
    ({"type": "in", "action": "ACCEPT", "macro": "ssh", "proto": "tcp", "dport": "22"}, None, None),
    ({"type": "in", "action": "ACCEPT", "macro": "PMG"}, None, None),
    # the format (pve-fw-icmp-type-spec) takes names only, before verify_rule
    ({"type": "in", "action": "ACCEPT", "proto": "icmp", "icmp-type": "8"}, "icmp-type",
     "invalid format - invalid icmp-type value '8'\n"),
    ({"type": "in", "action": "ACCEPT", "source": "+Admins"}, "source", "no such ipset 'Admins'"),
    ({"type": "in", "action": "ACCEPT", "source": "+dc/admins"}, None, None),
])
def test_rules_are_verified_as_verify_rule_does(sim, rule, key, text):
    ok(sim.request("POST", "/cluster/firewall/ipset", {"name": "Admins"}))  # kept as "admins"
    answer = sim.request("POST", "/cluster/firewall/rules", rule)
    assert answer == (bad(key, text) if key else (200, {"data": None})), answer


def test_references_are_checked_before_the_first_write(sim):
    ok(sim.request("POST", "/cluster/firewall/aliases", {"name": "office", "cidr": "198.51.100.0/24"}))
    ok(sim.request("POST", "/cluster/firewall/ipset", {"name": "admins"}))
    cases = [
        (firewall_ipset.FAMILY, {"name": "s1", "entries": [{"cidr": "192.0.2.0/24"}, {"cidr": "ofice"}]},
         "option entries: the entry 'ofice': no such alias 'ofice'"),
        (firewall_ipset.FAMILY, {"name": "s1", "entries": [{"cidr": "guest/office"}]}, "no such alias 'office'"),
        (firewall_rules.FAMILY, {"rules": [{"type": "in", "action": "ACCEPT", "source": "+Admins"}]},
         "option rules[0].source: '+Admins': no such ipset 'Admins'"),
        (firewall_rules.FAMILY, {"rules": [{"type": "in", "action": "ACCEPT", "dest": "dc/nowhere"}]},
         "option rules[0].dest: 'dc/nowhere': no such alias 'dc/nowhere'"),
        (firewall_rules.FAMILY, {"rules": [{"type": "group", "action": "web"}]},
         "option rules[0].action: 'web': no such security group 'web'"),
        (firewall_rules.FAMILY, {"rules": [{"type": "in", "action": "ACCEPT", "proto": "icmpv6", "source": "office"}]},
         "option rules[0].source: 'office': detected mixed ipv4/ipv6 addresses in rule"),
    ]
    for check in (True, False):
        for family, args, message in cases:
            sim.clear_log()
            result = run(sim, family, args, check=check)
            assert result.get("failed") is True and message in result["msg"], (args, result)
            assert writes(sim) == []
    # what resolves is written: scopes, case-insensitive aliases, the stored set name, an SDN set left to PVE
    assert run(sim, firewall_ipset.FAMILY, {"name": "s1", "entries": [{"cidr": "dc/Office"}]})["changed"] is True
    rules_ok = [{"type": "in", "action": "ACCEPT", "source": "+dc/admins", "dest": "guest/OFFICE"},
                {"type": "in", "action": "ACCEPT", "source": "+sdn/vnet0-all"}]
    assert run(sim, firewall_rules.FAMILY, {"rules": rules_ok})["changed"] is True


def test_host_bits_are_accepted_and_compared_as_pve_stores_them(sim):
    alias = {"name": "lab", "cidr": "10.0.2.5/24"}
    ipset = {"name": "nets", "entries": [{"cidr": "10.0.2.5/24"}, {"cidr": "2001:db8::7/64"}]}
    assert run(sim, firewall_alias.FAMILY, alias)["changed"] is True
    assert run(sim, firewall_ipset.FAMILY, ipset)["changed"] is True
    assert [form["cidr"] for method, path, form in writes(sim) if path.endswith("/nets")] == [
        "10.0.2.0/24", "2001:db8::/64"]
    sim.clear_log()
    assert run(sim, firewall_alias.FAMILY, alias)["changed"] is False
    assert run(sim, firewall_ipset.FAMILY, ipset)["changed"] is False
    assert writes(sim) == []


def test_declare_resolves_references_to_the_objects_it_declares(sim):
    from ansible_collections.homeflare.proxmox.plugins.module_utils.declare import DECLARE
    objects = {'firewall_alias': [{'name': 'Office', 'cidr': '198.51.100.0/24'}],
               'firewall_ipset': [{'name': 'admins', 'entries': [{'cidr': 'office'}]}],
               'firewall_rules': [{'rules': [{'type': 'group', 'action': 'web'},
                                             {'type': 'in', 'action': 'ACCEPT', 'source': '+admins'}]},
                                  {'scope': 'group', 'group': 'Web', 'rules': [{'type': 'in', 'action': 'DROP'}]}]}
    result = run(sim, DECLARE, {'objects': objects}, check=True)
    assert result['summary']['create'] == 4 and writes(sim) == [], result
    # the security group is written before the cluster rules naming it, though declared after them
    assert run(sim, DECLARE, {'objects': objects})['changed'] is True
    assert run(sim, DECLARE, {'objects': objects})['changed'] is False
    # an alias the same task removes is no longer there to name
    sim.clear_log()
    result = run(sim, DECLARE, {'objects': {'firewall_alias': [{'name': 'office', 'state': 'absent'}],
                                            'firewall_ipset': [{'name': 'more', 'entries': [{'cidr': 'office'}]}]}})
    assert result.get('failed') is True and "no such alias 'office'" in result['msg'], result
    assert writes(sim) == []
