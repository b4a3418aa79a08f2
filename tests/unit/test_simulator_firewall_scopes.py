"""The guests' and the vnets' firewalls in the simulator (tests/simulator/pve/handlers/firewall.py) over real
HTTPS: /nodes/{node}/{qemu,lxc}/{vmid}/firewall and /cluster/sdn/vnets/{vnet}/firewall as pve-firewall answers
them (mirror 6f1311f: src/PVE/API2/Firewall/VM.pm, Vnet.pm, Rules.pm, Aliases.pm, IPSet.pm, Helpers.pm and
src/PVE/Firewall.pm), with pve-network's running config deciding which vnets exist.

Run: python -m pytest tests/unit/test_simulator_firewall_scopes.py -q
"""

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import
from simulator.pve.handlers.guests import add_guest  # noqa: E402

VM = "/nodes/node1/qemu/100/firewall"
CT = "/nodes/node1/lxc/101/firewall"
VNET = "/cluster/sdn/vnets/web/firewall"
# PVE::Tools::assert_if_modified
MODIFIED = "detected modified configuration - file changed by other user? Try again.\n"
# SHA-1 over nothing: copy_opject_with_digest of an empty options hash
EMPTY_DIGEST = "da39a3ee5e6b4b0d3255bfef95601890afd80709"
# API2/Firewall/Helpers.pm check_vnet_access: `die "invalid vnet specified"` (no newline: Perl adds where, line 55)
INVALID_VNET = "invalid vnet specified at /usr/share/perl5/PVE/API2/Firewall/Helpers.pm line 55.\n"


@pytest.fixture(autouse=True)
def clean(sim):
    """Every test starts with no firewall files, guests 100 (VM) and 101 (CT) on node1, no SDN, no ACLs."""
    state = sim.state
    with state.lock:
        state.firewall = {}
        state.guests.clear()
        state.acl.clear()
        for table in state.sdn.values():
            table.clear()
        state.sdn_running = None
    add_guest(state, "qemu", 100, "node1")
    add_guest(state, "lxc", 101, "node1")
    sim.clear_log()


def ok(sim, method, path, form=None, **kwargs):
    status, body = sim.request(method, path, form, **kwargs)
    assert status == 200, (method, path, form, body)
    return body["data"]


def bad(key, text):
    """raise_param_exc: 400 with the parameter's text."""
    return 400, {"data": None, "message": "Parameter verification failed.\n", "errors": {key: text}}


def died(message, status=500):
    return status, {"data": None, "message": message}


def without(rows, key="digest"):
    return [dict((name, value) for name, value in row.items() if name != key) for row in rows]


def user_token(sim, userid, acl):
    """A privsep=0 token for a new user with the given {path: role} grants."""
    state = sim.state
    if userid not in state.users:
        state.add_user(userid)
    secret = state.add_token(userid, "tok", privsep=0)
    for path, role in acl.items():
        state.set_acl(path, role, users=userid)
    return f"{userid}!tok", secret


def running_vnet(sim, vnet="web", zone="lab", apply=True):
    ok(sim, "POST", "/cluster/sdn/zones", {"zone": zone, "type": "simple"})
    ok(sim, "POST", "/cluster/sdn/vnets", {"vnet": vnet, "zone": zone})
    if apply:
        ok(sim, "PUT", "/cluster/sdn")


# -- the guest scope: index and options -------------------------------------------------------------

@pytest.mark.parametrize("base", [VM, CT])
def test_guest_index_lists_the_five_children(sim, base):
    # VM.pm VMBase index
    assert ok(sim, "GET", base) == [{"name": n} for n in ("rules", "aliases", "ipset", "refs", "options")]


@pytest.mark.parametrize("base", [VM, CT])
def test_guest_options_are_set_deleted_and_guarded_by_their_digest(sim, base):
    assert ok(sim, "GET", f"{base}/options") == {"digest": EMPTY_DIGEST}
    ok(sim, "PUT", f"{base}/options", {"enable": 1, "policy_in": "DROP", "log_level_in": "info", "macfilter": 0,
                                       "digest": EMPTY_DIGEST})
    options = ok(sim, "GET", f"{base}/options")
    assert without([options]) == [{"enable": 1, "policy_in": "DROP", "log_level_in": "info", "macfilter": 0}]
    # VM.pm set_options: assert_if_modified, then `no such option` for a delete outside $vm_option_properties
    assert sim.request("PUT", f"{base}/options", {"enable": 0, "digest": EMPTY_DIGEST}) == died(MODIFIED)
    assert sim.request("PUT", f"{base}/options", {"delete": "policy_forward"}) == bad(
        "delete", "no such option 'policy_forward'")
    ok(sim, "PUT", f"{base}/options", {"delete": "policy_in,macfilter", "digest": options["digest"]})
    assert without([ok(sim, "GET", f"{base}/options")]) == [{"enable": 1, "log_level_in": "info"}]
    # a vnet's option is no guest option: the schema refuses it
    assert sim.request("PUT", f"{base}/options", {"policy_forward": "DROP"})[0] == 400


def test_a_guest_firewall_is_one_file_per_vmid_whatever_the_node_type_or_guest(sim):
    """VM.pm never checks the vmid: load_vmfw_conf reads /etc/pve/firewall/<vmid>.fw (pmxcfs, cluster-wide) and
    generic_fw_config_parser answers an empty config for a file that is not there."""
    ok(sim, "POST", f"{VM}/aliases", {"name": "db", "cidr": "192.0.2.10"})
    for path in ("/nodes/node2/qemu/100/firewall", "/nodes/node3/lxc/100/firewall"):
        assert [row["name"] for row in ok(sim, "GET", f"{path}/aliases")] == ["db"]
    # a vmid no guest has: an empty file to read, and one a write creates
    assert ok(sim, "GET", "/nodes/node1/qemu/999/firewall/rules") == []
    assert ok(sim, "GET", "/nodes/node2/qemu/999/firewall/options") == {"digest": EMPTY_DIGEST}
    ok(sim, "POST", "/nodes/node2/lxc/999/firewall/rules", {"type": "in", "action": "ACCEPT"})
    assert len(ok(sim, "GET", "/nodes/node1/qemu/999/firewall/rules")) == 1
    # only options and log are `proxyto => 'node'`: pveproxy's hostname lookup refuses a node that is not there
    assert sim.request("GET", "/nodes/nowhere/qemu/100/firewall/options") == died(
        "hostname lookup 'nowhere' failed - failed to get address info for: nowhere: Name or service not known\n")
    assert [row["name"] for row in ok(sim, "GET", "/nodes/nowhere/qemu/100/firewall/aliases")] == ["db"]


# -- the guest scope: rules -----------------------------------------------------------------------

@pytest.mark.parametrize("base", [VM, CT])
def test_guest_rules_are_created_on_top_moved_updated_and_deleted_with_the_digest(sim, base):
    ok(sim, "POST", f"{base}/rules", {"type": "in", "action": "ACCEPT", "macro": "ssh", "enable": 1})
    ok(sim, "POST", f"{base}/rules", {"type": "out", "action": "DROP", "proto": "tcp", "dport": "25", "pos": 5})
    rules = ok(sim, "GET", f"{base}/rules")
    assert without(rules) == [
        {"pos": 0, "type": "out", "action": "DROP", "proto": "tcp", "dport": "25", "enable": 0},
        {"pos": 1, "type": "in", "action": "ACCEPT", "macro": "SSH", "enable": 1}]
    digest = rules[0]["digest"]
    ok(sim, "PUT", f"{base}/rules/0", {"moveto": 2, "digest": digest})
    assert [rule["type"] for rule in ok(sim, "GET", f"{base}/rules")] == ["in", "out"]
    # Rules.pm update_rule / delete_rule: assert_if_modified, then `no rule at position`
    assert sim.request("PUT", f"{base}/rules/0", {"enable": 0, "digest": digest}) == died(MODIFIED)
    assert sim.request("DELETE", f"{base}/rules/0", {"digest": digest}) == died(MODIFIED)
    assert sim.request("GET", f"{base}/rules/7") == died("no rule at position 7\n")
    ok(sim, "PUT", f"{base}/rules/1", {"comment": "mail", "iface": "net0"})
    assert without([ok(sim, "GET", f"{base}/rules/1")]) == [
        {"pos": 1, "type": "out", "action": "DROP", "proto": "tcp", "dport": "25", "enable": 0,
         "iface": "net0", "comment": "mail"}]
    ok(sim, "DELETE", f"{base}/rules/0")
    assert [rule["type"] for rule in ok(sim, "GET", f"{base}/rules")] == ["out"]


@pytest.mark.parametrize("base, env", [(VM, "vm"), (CT, "ct")])
def test_a_guest_rule_has_no_forward_chain_and_names_only_netN_interfaces(sim, base, env):
    # Firewall.pm verify_rule: $rule_env_direction_lookup ('vm'/'ct' => in, out, group)
    assert sim.request("POST", f"{base}/rules", {"type": "forward", "action": "ACCEPT"}) == bad(
        "type", f"invalid rule type 'forward' for rule_env '{env}'")
    # verify_rule: pve_verify_iface, then the guests' own `m/^net(\d+)$/`
    assert sim.request("POST", f"{base}/rules", {"type": "in", "action": "ACCEPT", "iface": "eth0"}) == bad(
        "iface", "value does not match the regex pattern 'net\\d+'")
    ok(sim, "POST", f"{base}/rules", {"type": "in", "action": "ACCEPT", "iface": "net1"})
    # the cluster's security groups, by name (verify_rule checks the name's characters, not that it exists)
    ok(sim, "POST", f"{base}/rules", {"type": "group", "action": "webservers", "iface": "net0"})
    assert [rule["type"] for rule in ok(sim, "GET", f"{base}/rules")] == ["group", "in"]


def test_a_guest_rule_references_the_guests_and_the_clusters_aliases_and_ipsets(sim):
    ok(sim, "POST", "/cluster/firewall/aliases", {"name": "office", "cidr": "198.51.100.0/24"})
    ok(sim, "POST", "/cluster/firewall/ipset", {"name": "admins"})
    ok(sim, "POST", f"{VM}/aliases", {"name": "DB", "cidr": "2001:db8::10"})
    ok(sim, "POST", f"{VM}/ipset", {"name": "peers"})
    for rule in ({"source": "dc/office", "dest": "+guest/peers"}, {"source": "+dc/admins", "dest": "guest/db"},
                 {"source": "office", "dest": "+admins"}, {"source": "+peers", "dest": "DB"}):
        ok(sim, "POST", f"{VM}/rules", dict(rule, type="in", action="ACCEPT"))
    assert [rule.get("ipversion") for rule in ok(sim, "GET", f"{VM}/rules")] == [6, 4, 6, 4]
    # verify_rule's $check_ipset_or_alias_property: the alias by its lower-cased name in either file, the set as
    # written; the error names the reference as written (alias) or the set's name (ipset)
    assert sim.request("POST", f"{VM}/rules", {"type": "in", "action": "ACCEPT", "source": "guest/nope"}) == bad(
        "source", "no such alias 'guest/nope'")
    assert sim.request("POST", f"{VM}/rules", {"type": "in", "action": "ACCEPT", "dest": "+guest/Peers"}) == bad(
        "dest", "no such ipset 'Peers'")
    # the other guest's names are not this guest's
    assert sim.request("POST", f"{CT}/rules", {"type": "in", "action": "ACCEPT", "source": "db"}) == bad(
        "source", "no such alias 'db'")
    # an alias of the other IP version: $set_ip_version dies outside verify_rule's eval, a plain 500
    assert sim.request("POST", f"{VM}/rules", {"type": "in", "action": "ACCEPT", "source": "office",
                                               "dest": "db"}) == died("detected mixed ipv4/ipv6 addresses in rule\n")


def test_the_scope_of_an_alias_picks_which_one_gives_the_rules_ip_version(sim):
    """verify_rule: guest/ takes the guest's alias, dc/ the cluster's, no scope the guest's first."""
    ok(sim, "POST", "/cluster/firewall/aliases", {"name": "gw", "cidr": "192.0.2.1"})
    ok(sim, "POST", f"{VM}/aliases", {"name": "gw", "cidr": "2001:db8::1"})
    for source in ("dc/gw", "guest/gw", "gw"):
        ok(sim, "POST", f"{VM}/rules", {"type": "in", "action": "ACCEPT", "source": source})
    assert [(rule["source"], rule["ipversion"]) for rule in ok(sim, "GET", f"{VM}/rules")] == [
        ("gw", 6), ("guest/gw", 6), ("dc/gw", 4)]


# -- the guest scope: aliases and ipsets ------------------------------------------------------------

def test_guest_aliases_are_kept_apart_from_the_clusters_with_digest_and_rename(sim):
    ok(sim, "POST", "/cluster/firewall/aliases", {"name": "db", "cidr": "192.0.2.1"})
    ok(sim, "POST", f"{VM}/aliases", {"name": "Db", "cidr": "192.0.2.10/32", "comment": " main "})
    listed = ok(sim, "GET", f"{VM}/aliases")
    assert without(listed) == [{"name": "Db", "cidr": "192.0.2.10", "ipversion": 4, "comment": "main"}]
    # Aliases.pm create_alias / read_alias / update_alias
    assert sim.request("POST", f"{VM}/aliases", {"name": "DB", "cidr": "192.0.2.11"}) == bad(
        "name", "alias 'DB' already exists")
    assert sim.request("GET", f"{VM}/aliases/nope") == bad("name", "no such alias")
    assert sim.request("PUT", f"{VM}/aliases/db", {"cidr": "192.0.2.12", "digest": "0" * 40}) == died(MODIFIED)
    ok(sim, "PUT", f"{VM}/aliases/db", {"cidr": "192.0.2.12", "rename": "primary", "digest": listed[0]["digest"]})
    assert without(ok(sim, "GET", f"{VM}/aliases")) == [{"name": "primary", "cidr": "192.0.2.12", "ipversion": 4}]
    assert sim.request("DELETE", f"{VM}/aliases/primary", {"digest": listed[0]["digest"]}) == died(MODIFIED)
    ok(sim, "DELETE", f"{VM}/aliases/primary")
    assert ok(sim, "GET", f"{VM}/aliases") == []
    assert [row["name"] for row in ok(sim, "GET", "/cluster/firewall/aliases")] == ["db"]
    assert 100 not in sim.state.firewall["guests"]  # save_vmfw_conf unlinks a file it has nothing to write in


def test_guest_ipsets_with_entries_nomatch_digest_and_alias_entries(sim):
    ok(sim, "POST", "/cluster/firewall/aliases", {"name": "office", "cidr": "198.51.100.0/24"})
    ok(sim, "POST", f"{CT}/aliases", {"name": "db", "cidr": "192.0.2.10"})
    ok(sim, "POST", f"{CT}/ipset", {"name": "Peers", "comment": "p"})
    assert without(ok(sim, "GET", f"{CT}/ipset")) == [{"name": "peers", "comment": "p"}]
    # IPSet.pm load_config of a set that is not there, create_ipset of a taken name
    assert sim.request("GET", f"{CT}/ipset/Peers") == died("no such IPSet 'Peers'\n")
    assert sim.request("POST", f"{CT}/ipset", {"name": "peers"}) == bad("name", "IPSet 'peers' already exists")
    for entry in ({"cidr": "192.0.2.0/24", "nomatch": 1}, {"cidr": "guest/db"}, {"cidr": "dc/office"},
                  {"cidr": "198.51.100.7/32", "comment": "one"}):
        ok(sim, "POST", f"{CT}/ipset/peers", entry)
    entries = ok(sim, "GET", f"{CT}/ipset/peers")
    assert without(entries) == [{"cidr": "192.0.2.0/24", "nomatch": 1}, {"cidr": "198.51.100.7", "comment": "one"},
                                {"cidr": "dc/office"}, {"cidr": "guest/db"}]
    # create_ip: resolve_alias (guest/ only the guest's file, dc/ only the cluster's; the name without its scope)
    assert sim.request("POST", f"{CT}/ipset/peers", {"cidr": "dc/db"}) == died("no such alias 'db'\n")
    assert sim.request("POST", f"{CT}/ipset/peers", {"cidr": "guest/office"}) == died("no such alias 'office'\n")
    assert sim.request("POST", f"{CT}/ipset/peers", {"cidr": "198.51.100.7"}) == bad(
        "cidr", "address '198.51.100.7' already exists")
    assert sim.request("PUT", f"{CT}/ipset/peers/guest%2Fdb", {"digest": "0" * 40}) == died(MODIFIED)
    ok(sim, "PUT", f"{CT}/ipset/peers/198.51.100.7", {"nomatch": 1, "digest": entries[0]["digest"]})
    assert ok(sim, "GET", f"{CT}/ipset/peers/198.51.100.7") == {
        "cidr": "198.51.100.7", "nomatch": 1, "digest": ok(sim, "GET", f"{CT}/ipset/peers")[0]["digest"]}
    assert sim.request("GET", f"{CT}/ipset/peers/192.0.2.99") == bad("cidr", "no such IP/Network")
    ok(sim, "DELETE", f"{CT}/ipset/peers/198.51.100.7")
    assert sim.request("DELETE", f"{CT}/ipset/peers") == died("IPSet 'peers' is not empty\n")
    ok(sim, "DELETE", f"{CT}/ipset/peers", {"force": 1})
    assert ok(sim, "GET", f"{CT}/ipset") == []


def test_guest_ipset_rename_checks_the_list_digest(sim):
    ok(sim, "POST", f"{VM}/ipset", {"name": "a1"})
    ok(sim, "POST", f"{VM}/ipset", {"name": "b1"})
    digest = ok(sim, "GET", f"{VM}/ipset")[0]["digest"]
    assert sim.request("POST", f"{VM}/ipset", {"name": "b1", "rename": "a1"}) == bad(
        "name", "IPSet 'b1' does already exist")
    assert sim.request("POST", f"{VM}/ipset", {"name": "c1", "rename": "zz"}) == bad(
        "name", "IPSet 'zz' does not exist")
    ok(sim, "POST", f"{VM}/ipset", {"name": "c1", "rename": "a1", "comment": "moved", "digest": digest})
    assert sim.request("POST", f"{VM}/ipset", {"name": "d1", "rename": "c1", "digest": digest}) == died(MODIFIED)
    assert without(ok(sim, "GET", f"{VM}/ipset")) == [{"name": "b1"}, {"name": "c1", "comment": "moved"}]


# -- the guest scope: refs ------------------------------------------------------------------------

def test_refs_list_the_clusters_the_sdns_and_the_guests_own_with_the_type_filter(sim):
    ok(sim, "POST", "/cluster/firewall/aliases", {"name": "Office", "cidr": "198.51.100.0/24", "comment": "hq"})
    ok(sim, "POST", "/cluster/firewall/ipset", {"name": "admins", "comment": "ops"})
    ok(sim, "POST", f"{VM}/aliases", {"name": "db", "cidr": "192.0.2.10"})
    ok(sim, "POST", f"{VM}/ipset", {"name": "peers"})
    running_vnet(sim)
    sdn = [{"type": "ipset", "name": name, "ref": f"+{name}", "scope": "sdn", "comment": comment} for name, comment in (
        ("web-all", "All subnets of VNet web"), ("web-dhcp", "DHCP ranges of VNet web"),
        ("web-gateway", "All gateways of VNet web"),
        ("web-no-gateway", "All subnets of VNet web, excluding gateways"))]
    # VM.pm refs: collect_refs of the cluster (dc), the SDN (sdn), the guest (guest); ipsets, then aliases
    assert ok(sim, "GET", f"{VM}/refs") == [
        {"type": "ipset", "name": "admins", "ref": "+admins", "scope": "dc", "comment": "ops"},
        {"type": "alias", "name": "office", "ref": "office", "scope": "dc", "comment": "hq"},
        *sdn,
        {"type": "ipset", "name": "peers", "ref": "+peers", "scope": "guest"},
        {"type": "alias", "name": "db", "ref": "db", "scope": "guest"}]
    assert [ref["ref"] for ref in ok(sim, "GET", f"{VM}/refs", {"type": "alias"})] == ["office", "db"]
    assert [ref["scope"] for ref in ok(sim, "GET", f"{CT}/refs", {"type": "ipset"})] == ["dc"] + ["sdn"] * 4
    # an SDN set is a set a rule may name (verify_rule looks in load_sdn_conf's ipsets too)
    ok(sim, "POST", f"{VM}/rules", {"type": "in", "action": "ACCEPT", "source": "+web-gateway"})
    # the SDN's sets are the vnets the user may audit (Helpers.pm get_allowed_vnets)
    token = user_token(sim, "auditor@pve", {"/vms/100": "PVEAuditor"})
    assert [ref["scope"] for ref in ok(sim, "GET", f"{VM}/refs", {"type": "ipset"}, token=token)] == ["dc", "guest"]


# -- the guest scope: privileges and destroy --------------------------------------------------------

def test_guest_firewall_reads_need_vm_audit_and_writes_vm_config_network_on_the_guest(sim):
    token = user_token(sim, "viewer@pve", {"/vms/100": "PVEAuditor"})
    assert ok(sim, "GET", f"{VM}/rules", token=token) == []
    assert ok(sim, "GET", f"{VM}/options", token=token) == {"digest": EMPTY_DIGEST}
    for method, path, form in (("POST", f"{VM}/rules", {"type": "in", "action": "DROP"}),
                               ("PUT", f"{VM}/options", {"enable": 1}),
                               ("POST", f"{VM}/aliases", {"name": "a1", "cidr": "192.0.2.1"}),
                               ("POST", f"{VM}/ipset", {"name": "s1"})):
        assert sim.request(method, path, form, token=token) == died(
            "Permission check failed (/vms/100, VM.Config.Network)\n", 403)
    assert sim.request("GET", f"{CT}/refs", token=token) == died("Permission check failed (/vms/101, VM.Audit)\n", 403)


@pytest.mark.parametrize("typ, vmid, base", [("qemu", 100, VM), ("lxc", 101, CT)])
def test_destroying_the_guest_removes_its_firewall_file(sim, typ, vmid, base):
    ok(sim, "POST", f"{base}/aliases", {"name": "db", "cidr": "192.0.2.10"})
    ok(sim, "PUT", f"{base}/options", {"enable": 1})
    upid = ok(sim, "DELETE", f"/nodes/node1/{typ}/{vmid}")
    assert ok(sim, "GET", f"/nodes/node1/tasks/{upid}/status")["exitstatus"] == "OK"
    # qemu-server / pve-container destroy_vm: PVE::Firewall::remove_vmfw_conf($vmid)
    assert vmid not in sim.state.firewall["guests"]
    assert ok(sim, "GET", f"{base}/aliases") == []
    assert ok(sim, "GET", f"{base}/options") == {"digest": EMPTY_DIGEST}


# -- the vnet scope -------------------------------------------------------------------------------

def test_vnet_firewall_needs_the_vnet_in_the_running_sdn_config(sim):
    # Vnet.pm index checks no vnet and declares no permissions: root@pam only (check_api2_permissions)
    assert sim.request("GET", VNET, as_root=True) == (200, {"data": [{"name": "rules"}, {"name": "options"}]})
    assert sim.request("GET", VNET) == died("Permission check failed (user != root@pam)\n", 403)
    # check_vnet_access: PVE::Network::SDN::Vnets::get_vnet($vnetid, 1) reads the running config
    for method, path, form in (("GET", f"{VNET}/options", None), ("PUT", f"{VNET}/options", {"enable": 1}),
                               ("GET", f"{VNET}/rules", None), ("GET", f"{VNET}/rules/0", None),
                               ("POST", f"{VNET}/rules", {"type": "forward", "action": "ACCEPT"})):
        assert sim.request(method, path, form) == died(INVALID_VNET), (method, path)
    running_vnet(sim, apply=False)  # staged, not applied
    assert sim.request("GET", f"{VNET}/rules") == died(INVALID_VNET)
    ok(sim, "PUT", "/cluster/sdn")
    assert ok(sim, "GET", f"{VNET}/rules") == []


def test_vnet_options_are_enable_policy_forward_and_log_level_forward_with_the_digest(sim):
    running_vnet(sim)
    assert ok(sim, "GET", f"{VNET}/options") == {"digest": EMPTY_DIGEST}
    ok(sim, "PUT", f"{VNET}/options", {"enable": 1, "policy_forward": "DROP", "log_level_forward": "info"})
    options = ok(sim, "GET", f"{VNET}/options")
    assert without([options]) == [{"enable": 1, "policy_forward": "DROP", "log_level_forward": "info"}]
    assert sim.request("PUT", f"{VNET}/options", {"enable": 0, "digest": EMPTY_DIGEST}) == died(MODIFIED)
    # Vnet.pm set_options: a delete outside $vnet_option_properties; the schema refuses a guest's option
    assert sim.request("PUT", f"{VNET}/options", {"delete": "policy_in"}) == bad(
        "delete", "no such option 'policy_in'")
    assert sim.request("PUT", f"{VNET}/options", {"policy_in": "DROP"})[0] == 400
    assert sim.request("PUT", f"{VNET}/options", {"policy_forward": "REJECT"})[0] == 400  # enum ACCEPT, DROP
    ok(sim, "PUT", f"{VNET}/options", {"delete": "policy_forward", "digest": options["digest"]})
    assert without([ok(sim, "GET", f"{VNET}/options")]) == [{"enable": 1, "log_level_forward": "info"}]


def test_vnet_rules_are_forward_rules_or_security_groups_without_interfaces(sim):
    running_vnet(sim)
    ok(sim, "POST", "/cluster/firewall/aliases", {"name": "office", "cidr": "198.51.100.0/24"})
    # verify_rule: $rule_env_direction_lookup ('vnet' => forward, group), $rule_env_iface_lookup ('vnet' => 0)
    for direction in ("in", "out"):
        assert sim.request("POST", f"{VNET}/rules", {"type": direction, "action": "ACCEPT"}) == bad(
            "type", f"invalid rule type '{direction}' for rule_env 'vnet'")
    assert sim.request("POST", f"{VNET}/rules", {"type": "forward", "action": "REJECT"}) == bad(
        "action", "cannot define REJECT rules on forward chain")
    assert sim.request("POST", f"{VNET}/rules", {"type": "forward", "action": "ACCEPT", "iface": "net0"}) == bad(
        "type", "parameter -i not allowed for this rule type")
    # a vnet has no aliases or ipsets of its own: guest/ names nothing
    assert sim.request("POST", f"{VNET}/rules", {"type": "forward", "action": "ACCEPT", "source": "+guest/xy"}) == bad(
        "source", "no such ipset 'xy'")
    ok(sim, "POST", f"{VNET}/rules", {"type": "forward", "action": "ACCEPT", "source": "dc/office",
                                      "proto": "tcp", "dport": "443", "enable": 1})
    ok(sim, "POST", f"{VNET}/rules", {"type": "group", "action": "webservers"})
    rules = ok(sim, "GET", f"{VNET}/rules")
    assert without(rules) == [
        {"pos": 0, "type": "group", "action": "webservers", "enable": 0},
        {"pos": 1, "type": "forward", "action": "ACCEPT", "source": "dc/office", "proto": "tcp", "dport": "443",
         "enable": 1, "ipversion": 4}]
    assert sim.request("PUT", f"{VNET}/rules/1", {"type": "in", "digest": rules[0]["digest"]}) == bad(
        "type", "invalid rule type 'in' for rule_env 'vnet'")
    assert sim.request("DELETE", f"{VNET}/rules/1", {"digest": "0" * 40}) == died(MODIFIED)
    ok(sim, "PUT", f"{VNET}/rules/1", {"moveto": 0, "digest": rules[0]["digest"]})
    assert [rule["type"] for rule in ok(sim, "GET", f"{VNET}/rules")] == ["forward", "group"]
    ok(sim, "DELETE", f"{VNET}/rules/1")
    assert ok(sim, "GET", f"{VNET}/rules/0")["type"] == "forward"


def test_vnet_firewall_privileges_are_checked_on_the_vnets_zone_path(sim):
    running_vnet(sim)
    auditor = user_token(sim, "netaudit@pve", {"/sdn/zones/lab/web": "PVEAuditor"})
    nobody = user_token(sim, "nobody@pve", {})
    assert ok(sim, "GET", f"{VNET}/rules", token=auditor) == []
    assert ok(sim, "GET", f"{VNET}/options", token=auditor) == {"digest": EMPTY_DIGEST}
    # check_vnet_access -> check_any: the privileges in the order each method names them
    assert sim.request("GET", f"{VNET}/rules", token=nobody) == died(
        "Permission check failed (/sdn/zones/lab/web, SDN.Audit|SDN.Allocate)\n", 403)
    assert sim.request("GET", f"{VNET}/options", token=nobody) == died(
        "Permission check failed (/sdn/zones/lab/web, SDN.Allocate|SDN.Audit)\n", 403)
    for method, path, form in (("POST", f"{VNET}/rules", {"type": "forward", "action": "DROP"}),
                               ("PUT", f"{VNET}/options", {"enable": 1}),
                               ("DELETE", f"{VNET}/rules/0", None)):
        assert sim.request(method, path, form, token=auditor) == died(
            "Permission check failed (/sdn/zones/lab/web, SDN.Allocate)\n", 403)
    # the existence check comes first, for every user
    assert sim.request("GET", "/cluster/sdn/vnets/other/firewall/rules", token=nobody) == died(INVALID_VNET)
