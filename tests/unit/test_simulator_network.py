"""The simulator's node networking (tests/simulator/pve/handlers/network.py) over real HTTPS: the staged
/etc/network/interfaces.new, the `changes` diff beside `data`, the reader's derived fields, the writer's
checks, the srvreload apply with its fault knob and the revert, with pve-manager's messages.

Run: python -m pytest tests/unit/test_simulator_network.py -q
"""

import re
import sys
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import

NET = "/nodes/node1/network"
VMBR0 = {"type": "bridge", "cidr": "192.168.100.11/24", "gateway": "192.168.100.1", "bridge_ports": "eno1",
         "autostart": "1"}  # what vmbr0 is on node1, as a full update sends it
UPID_RE = re.compile(r"^UPID:node1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:srvreload:networking:root@pam!sim:$")


# The writer's dies without a newline carry Perl's location (pve-common f665029, PVE/Network/Interfaces.pm).
WRITER_AT = " at /usr/share/perl5/PVE/Network/Interfaces.pm line {}.\n"


@pytest.fixture(autouse=True)
def fresh_nodes(sim):
    """Every test starts from the install layout on every node, nothing staged and no faults."""
    state = sim.state
    with state.lock:
        state.networks.clear()
        state.network_reload_failure.clear()
    yield
    with state.lock:
        state.networks.clear()
        state.network_reload_failure.clear()
        state.sdn_running = None
        for info in state.nodes.values():
            info["online"] = 1


def bad(errors):
    return 400, {"data": None, "message": "Parameter verification failed.\n", "errors": errors}


def err(message, status=500):
    return status, {"data": None, "message": message}


def ok(sim, method, path, form=None, token=None):
    status, body = sim.request(method, path, form, token=token)
    assert status == 200, (method, path, form, body)
    return body["data"]


def listing(sim, path=NET, form=None, token=None):
    """(rows by iface, changes or None) of the list."""
    status, body = sim.request("GET", path, form, token=token)
    assert status == 200, body
    assert set(body) <= {"data", "changes"}
    return {row.pop("iface"): row for row in body["data"]}, body.get("changes")


def apply(sim, node="node1"):
    """PUT /nodes/{node}/network and wait for its task; (upid, final status)."""
    upid = ok(sim, "PUT", f"/nodes/{node}/network")
    deadline = time.time() + 5
    while True:
        status = ok(sim, "GET", f"/nodes/{node}/tasks/{upid}/status")
        if status["status"] == "stopped" or time.time() > deadline:
            return upid, status
        time.sleep(0.05)


def user_token(sim, userid, acl=(), role=None):
    """A privilege-separated token of a new user, with (path, role) ACL rows for both."""
    state = sim.state
    if role:
        state.custom_roles[role[0]] = set(role[1])
    state.add_user(userid)
    secret = state.add_token(userid, "tk", privsep=1)
    for path, roleid in acl:
        state.set_acl(path, roleid, users=userid)
        state.set_acl(path, roleid, tokens=f"{userid}!tk")
    return f"{userid}!tk", secret


# -- reads ------------------------------------------------------------------------------------------

def test_a_fresh_node_reads_the_install_layout_with_what_pve_derives_from_the_file(sim):
    rows, changes = listing(sim)
    assert changes is None
    assert rows == {
        "eno1": {"type": "eth", "method": "manual", "method6": "manual", "families": ["inet"],
                 "priority": 3, "exists": 1, "active": 1},
        "eno2": {"type": "eth", "method": "manual", "method6": "manual", "families": ["inet"],
                 "priority": 4, "exists": 1},
        "vmbr0": {"type": "bridge", "method": "static", "method6": "manual", "families": ["inet"],
                  "priority": 5, "autostart": 1, "active": 1, "cidr": "192.168.100.11/24",
                  "address": "192.168.100.11", "netmask": "24", "gateway": "192.168.100.1",
                  "bridge_ports": "eno1", "bridge_stp": "off", "bridge_fd": "0"},
    }
    # the item read is the same object without `iface`; lo is readable but never listed
    assert ok(sim, "GET", f"{NET}/vmbr0") == rows["vmbr0"]
    assert ok(sim, "GET", f"{NET}/lo") == {"type": "loopback", "method": "loopback", "method6": "manual",
                                           "families": ["inet"], "priority": 2, "autostart": 1,
                                           "active": 1}
    # node2 has one NIC, so its bridge sits elsewhere in the file
    rows2, _changes = listing(sim, "/nodes/node2/network")
    assert sorted(rows2) == ["eno1", "vmbr0"]
    assert (rows2["vmbr0"]["priority"], rows2["vmbr0"]["cidr"]) == (4, "192.168.100.12/24")


def test_the_list_filters_by_type(sim):
    ok(sim, "POST", NET, {"iface": "bond0", "type": "bond", "slaves": "eno2"})
    ok(sim, "POST", NET, {"iface": "vmbr1", "type": "bridge", "bridge_ports": "bond0"})
    ok(sim, "POST", NET, {"iface": "eno1.10", "type": "vlan"})

    def names(kind):
        return sorted(listing(sim, form={"type": kind})[0])

    assert names("bridge") == names("any_bridge") == names("any_local_bridge") == ["vmbr0", "vmbr1"]
    assert names("eth") == ["eno1", "eno2"]
    assert names("bond") == ["bond0"]
    assert names("vlan") == ["eno1.10"]
    assert names("OVSBridge") == names("vnet") == []
    assert names("include_sdn") == ["bond0", "eno1", "eno1.10", "eno2", "vmbr0", "vmbr1"]


def test_any_bridge_adds_the_applied_sdn_vnets_the_caller_may_see(sim):
    sim.state.sdn_running = {"zones": {"lab": {"type": "simple", "ipam": "pve"},
                                       "far": {"type": "simple", "nodes": {"node2"}}},
                             "vnets": {"v1": {"type": "vnet", "zone": "lab", "alias": "lab net"},
                                       "v2": {"type": "vnet", "zone": "far"}},
                             "subnets": {}}
    rows, _changes = listing(sim, form={"type": "any_bridge"})
    assert rows["v1"] == {"type": "vnet", "active": "1", "ipam": 1, "vlanaware": 0, "comments": "lab net"}
    assert sorted(rows) == ["v1", "vmbr0"]  # v2's zone is not on node1
    assert sorted(listing(sim, form={"type": "any_local_bridge"})[0]) == ["vmbr0"]
    assert sorted(listing(sim, form={"type": "vnet"})[0]) == ["v1"]


def test_a_missing_interface_is_a_400_on_the_iface_parameter(sim):
    missing = bad({"iface": "interface does not exist"})
    assert sim.request("GET", f"{NET}/vmbr9") == missing
    assert sim.request("PUT", f"{NET}/vmbr9", {"type": "bridge"}) == missing
    assert sim.request("DELETE", f"{NET}/vmbr9") == missing
    assert sim.state.networks["node1"]["staged"] is None


def test_an_unknown_node_fails_the_hostname_lookup(sim):
    lookup = err("hostname lookup 'nosuch' failed - failed to get address info for: nosuch: "
                 "Name or service not known\n")
    assert sim.request("GET", "/nodes/nosuch/network") == lookup
    assert sim.request("GET", "/nodes/nosuch/network/vmbr0") == lookup
    assert sim.request("PUT", "/nodes/nosuch/network") == lookup


# -- staging and `changes` --------------------------------------------------------------------------

def test_a_write_stages_interfaces_new_and_the_list_carries_the_diff_beside_data(sim):
    ok(sim, "PUT", f"{NET}/vmbr0", dict(VMBR0, comments="uplink"))
    net = sim.state.networks["node1"]
    assert net["staged"] is not None and "comments" not in net["interfaces"]["vmbr0"]
    rows, changes = listing(sim)
    header, hunk = changes.split("@@ -23,5 +23,6 @@\n")
    assert re.match(r"^--- /etc/network/interfaces\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} \+0000\n"
                    r"\+\+\+ /etc/network/interfaces\.new\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} \+0000\n$",
                    header)
    assert hunk == (" \tbridge-ports eno1\n \tbridge-stp off\n \tbridge-fd 0\n+#uplink\n \n"
                    " source /etc/network/interfaces.d/*\n")
    # reads answer from interfaces.new: comments come back with the newline each comment line ends in
    assert rows["vmbr0"]["comments"] == "uplink\n"
    assert ok(sim, "GET", f"{NET}/vmbr0")["comments"] == "uplink\n"
    # the other node is untouched
    assert listing(sim, "/nodes/node2/network")[1] is None


def test_a_write_that_changes_nothing_still_stages_but_has_no_changes(sim):
    ok(sim, "PUT", f"{NET}/vmbr0", VMBR0)
    assert sim.state.networks["node1"]["staged"] is not None
    assert listing(sim)[1] is None


def test_whitespace_only_differences_give_no_changes(sim):
    ok(sim, "PUT", f"{NET}/vmbr0", dict(VMBR0, comments="uplink to core"))
    apply(sim)
    ok(sim, "PUT", f"{NET}/vmbr0", dict(VMBR0, comments="uplink   to core  "))
    assert listing(sim)[1] is None  # diff -b
    # the staged file says it: runs of blanks kept, trailing ones gone
    assert ok(sim, "GET", f"{NET}/vmbr0")["comments"] == "uplink   to core\n"


def test_create_reads_back_what_pve_derives(sim):
    ok(sim, "POST", NET, {"iface": "vmbr1", "type": "bridge", "bridge_ports": "eno2", "address": "10.1.0.1",
                          "netmask": "255.255.0.0", "autostart": "1", "comments": "lab\nsecond line",
                          "mtu": "1500"})
    assert ok(sim, "GET", f"{NET}/vmbr1") == {
        "type": "bridge", "method": "static", "method6": "manual", "families": ["inet"], "priority": 6,
        "autostart": 1, "cidr": "10.1.0.1/16", "address": "10.1.0.1", "netmask": "16",
        "bridge_ports": "eno2", "bridge_stp": "off", "bridge_fd": "0", "mtu": "1500",
        "comments": "lab\nsecond line\n"}  # not active: nothing was applied yet
    assert sim.request("POST", NET, {"iface": "vmbr1", "type": "bridge"}) == bad(
        {"iface": "interface already exists"})
    # a NIC of the node exists whether or not the file names it
    assert sim.request("POST", NET, {"iface": "eno2", "type": "eth"}) == bad({"iface": "interface already exists"})


def test_cidr_address_and_netmask_convert_and_conflict(sim):
    assert sim.request("POST", NET, {"iface": "vmbr1", "type": "bridge", "cidr": "10.2.0.1/24",
                                     "address": "10.2.0.1", "netmask": "255.255.255.0"}) == bad(
        {"address": "address conflicts with cidr"})
    ok(sim, "POST", NET, {"iface": "vmbr1", "type": "bridge", "cidr": "10.2.0.1/24", "cidr6": "fd00:2::1/64",
                          "gateway6": "fd00:2::fe"})
    item = ok(sim, "GET", f"{NET}/vmbr1")
    assert {k: item[k] for k in ("families", "method", "method6", "cidr", "address", "netmask", "cidr6",
                                 "address6", "netmask6", "gateway6")} == {
        "families": ["inet", "inet6"], "method": "static", "method6": "static", "cidr": "10.2.0.1/24",
        "address": "10.2.0.1", "netmask": "24", "cidr6": "fd00:2::1/64", "address6": "fd00:2::1",
        "netmask6": "64", "gateway6": "fd00:2::fe"}
    assert sim.request("POST", NET, {"iface": "vmbr2", "type": "bridge", "cidr6": "2001:db8::5/64"}) == bad(
        {"address": "2001:db8::5 with type 'RESERVED', cannot be used as host IPv6 address."})
    assert sim.request("POST", NET, {"iface": "vmbr2", "type": "bridge", "cidr6": "fd00:3::1/64",
                                     "gateway6": "fd00:3::fe"}) == bad(
        {"gateway6": "Default ipv6 gateway already exists on interface 'vmbr1'."})


def test_a_second_default_gateway_is_refused(sim):
    assert sim.request("POST", NET, {"iface": "vmbr1", "type": "bridge", "cidr": "10.3.0.2/24",
                                     "gateway": "10.3.0.1"}) == bad(
        {"gateway": "Default gateway already exists on interface 'vmbr0'."})
    assert sim.request("PUT", f"{NET}/eno2", {"type": "eth", "cidr": "10.3.0.2/24", "gateway": "10.3.0.1"}) == \
        bad({"gateway": "Default gateway already exists on interface 'vmbr0'."})
    ok(sim, "PUT", f"{NET}/vmbr0", dict(VMBR0, gateway="192.168.100.254"))  # its own gateway may change


def test_an_update_without_cidr_goes_manual_but_the_address_lines_stay(sim):
    ok(sim, "PUT", f"{NET}/vmbr0", {"type": "bridge", "comments": "x"})
    item = ok(sim, "GET", f"{NET}/vmbr0")
    assert (item["method"], item["cidr"], item["gateway"]) == ("manual", "192.168.100.11/24", "192.168.100.1")
    assert "-iface vmbr0 inet static\n+iface vmbr0 inet manual\n" in listing(sim)[1]


def test_delete_removes_settings_and_cidr_takes_the_address_with_it(sim):
    ok(sim, "PUT", f"{NET}/vmbr0", {"type": "bridge", "delete": "cidr,gateway,autostart"})
    item = ok(sim, "GET", f"{NET}/vmbr0")
    assert not {"cidr", "address", "netmask", "gateway", "autostart"} & set(item)
    assert item["method"] == "manual"
    ok(sim, "DELETE", NET)
    # delete=address alone: the cidr still in the stanza writes the address back
    ok(sim, "PUT", f"{NET}/vmbr0", dict(VMBR0, delete="address"))
    assert ok(sim, "GET", f"{NET}/vmbr0")["cidr"] == "192.168.100.11/24"
    # set and delete of one key: PVE deletes first, then sets
    ok(sim, "PUT", f"{NET}/vmbr0", dict(VMBR0, mtu="1500", delete="mtu"))
    assert ok(sim, "GET", f"{NET}/vmbr0")["mtu"] == "1500"


def test_a_type_other_than_the_live_one_is_written_as_given_and_read_as_the_file_says(sim):
    ok(sim, "PUT", f"{NET}/vmbr0", dict(VMBR0, type="eth"))
    assert ok(sim, "GET", f"{NET}/vmbr0")["type"] == "bridge"
    changes = listing(sim)[1]
    assert "-\tbridge-ports eno1\n-\tbridge-stp off\n-\tbridge-fd 0\n" in changes
    assert "+\tbridge_ports eno1\n+\tbridge_stp off\n" in changes


def test_bridge_vlan_aware_and_vids(sim):
    ok(sim, "PUT", f"{NET}/vmbr0", dict(VMBR0, bridge_vlan_aware="1"))
    item = ok(sim, "GET", f"{NET}/vmbr0")
    assert (item["bridge_vlan_aware"], item["bridge_vids"]) == (1, "2-4094")
    ok(sim, "PUT", f"{NET}/vmbr0", dict(VMBR0, bridge_vlan_aware="1", bridge_vids="10 20-30"))
    assert ok(sim, "GET", f"{NET}/vmbr0")["bridge_vids"] == "10 20-30"
    # 0 is still defined, so the writer turns it on; only delete= turns it off
    ok(sim, "PUT", f"{NET}/vmbr0", dict(VMBR0, bridge_vlan_aware="0"))
    assert ok(sim, "GET", f"{NET}/vmbr0")["bridge_vlan_aware"] == 1
    ok(sim, "PUT", f"{NET}/vmbr0", dict(VMBR0, delete="bridge_vlan_aware"))
    assert not {"bridge_vlan_aware", "bridge_vids"} & set(ok(sim, "GET", f"{NET}/vmbr0"))
    # create joins the list with spaces; update stores it as sent
    ok(sim, "POST", NET, {"iface": "vmbr1", "type": "bridge", "bridge_vlan_aware": "1", "bridge_vids": "5,6"})
    assert ok(sim, "GET", f"{NET}/vmbr1")["bridge_vids"] == "5 6"
    ok(sim, "PUT", f"{NET}/vmbr1", {"type": "bridge", "bridge_vlan_aware": "1", "bridge_vids": "7,8"})
    assert ok(sim, "GET", f"{NET}/vmbr1")["bridge_vids"] == "7,8"


def test_bridge_ports_read_back_sorted_and_a_used_port_is_refused(sim):
    ok(sim, "POST", NET, {"iface": "eno3", "type": "eth"})
    ok(sim, "POST", NET, {"iface": "vmbr1", "type": "bridge", "bridge_ports": "eno3 eno2"})
    assert ok(sim, "GET", f"{NET}/vmbr1")["bridge_ports"] == "eno2 eno3"
    assert "exists" not in ok(sim, "GET", f"{NET}/eno3")  # not a NIC of the node
    assert sim.request("POST", NET, {"iface": "vmbr2", "type": "bridge", "bridge_ports": "eno1"}) == bad(
        {"bridge_ports": "eno1 is already used on interface 'vmbr0'."})
    assert sim.request("POST", NET, {"iface": "vmbr2", "type": "bridge", "bridge_ports": "eno9"}) == err(
        "bridge 'vmbr2' - unable to find bridge port 'eno9'\n")


def test_bonds_slaves_mode_and_primary(sim):
    # without slaves PVE writes "bond-slaves none" and reads back an empty list with the defaults
    ok(sim, "POST", NET, {"iface": "bond0", "type": "bond"})
    item = ok(sim, "GET", f"{NET}/bond0")
    assert [item[k] for k in ("type", "slaves", "bond_mode", "bond_miimon")] == ["bond", "", "balance-rr", "100"]
    ok(sim, "PUT", f"{NET}/bond0", {"type": "bond", "slaves": "eno2", "bond_mode": "802.3ad",
                                    "bond_xmit_hash_policy": "layer3+4"})
    item = ok(sim, "GET", f"{NET}/bond0")
    assert (item["slaves"], item["bond_mode"], item["bond_xmit_hash_policy"]) == ("eno2", "802.3ad", "layer3+4")
    assert ok(sim, "GET", f"{NET}/eno2")["autostart"] == 1  # the writer starts every slave
    assert sim.request("POST", NET, {"iface": "bond1", "type": "bond", "slaves": "eno1"}) == bad(
        {"slaves": "eno1 is already used on interface 'vmbr0'."})
    assert sim.request("PUT", f"{NET}/bond0", {"type": "bond", "slaves": "eno2", "bond_mode": "active-backup",
                                               "bond-primary": "eno1"}) == err(
        "bond 'bond0' - bond-primary interface is not a slave" + WRITER_AT.format(908))
    ok(sim, "PUT", f"{NET}/bond0", {"type": "bond", "slaves": "eno2", "bond_mode": "active-backup",
                                    "bond-primary": "eno2"})
    assert ok(sim, "GET", f"{NET}/bond0")["bond-primary"] == "eno2"
    assert sim.request("POST", NET, {"iface": "bond1", "type": "bond", "slaves": "eno7"}) == err(
        "bond 'bond1' - wrong interface type on slave 'eno7' ('' != 'eth or bond')\n")


def test_vlan_names_derive_the_raw_device_and_id(sim):
    ok(sim, "POST", NET, {"iface": "eno1.10", "type": "vlan", "vlan-raw-device": "eno2"})
    item = ok(sim, "GET", f"{NET}/eno1.10")
    assert {k: item[k] for k in ("type", "vlan-raw-device", "vlan-id", "exists")} == {
        "type": "vlan", "vlan-raw-device": "eno1", "vlan-id": "10", "exists": 1}
    assert sim.request("POST", NET, {"iface": "vlan20", "type": "vlan"}) == err(
        "missing vlan-raw-device option" + WRITER_AT.format(954))
    ok(sim, "POST", NET, {"iface": "vlan20", "type": "vlan", "vlan-raw-device": "vmbr0", "vlan-id": "99"})
    item = ok(sim, "GET", f"{NET}/vlan20")
    assert (item["vlan-raw-device"], item["vlan-id"], item["exists"]) == ("vmbr0", "20", None)
    assert sim.request("POST", NET, {"iface": "mgmt", "type": "vlan", "vlan-raw-device": "eno1"}) == err(
        "missing vlan-id option" + WRITER_AT.format(962))
    ok(sim, "POST", NET, {"iface": "mgmt", "type": "vlan", "vlan-raw-device": "eno1", "vlan-id": "30"})
    assert ok(sim, "GET", f"{NET}/mgmt")["vlan-id"] == "30"
    assert sim.request("POST", NET, {"iface": "eno9.10", "type": "vlan"}) == err(
        "vlan 'eno9.10' - unable to find parent 'eno9'\n")


def test_mtu_must_fit_the_ports_below(sim):
    assert sim.request("PUT", f"{NET}/vmbr0", dict(VMBR0, mtu="9000")) == err(
        "interface 'eno1' - mtu 1500 is lower than 'vmbr0' - mtu 9000\n")
    ok(sim, "PUT", f"{NET}/eno1", {"type": "eth", "mtu": "9000"})
    ok(sim, "PUT", f"{NET}/vmbr0", dict(VMBR0, mtu="9000"))
    assert ok(sim, "GET", f"{NET}/vmbr0")["mtu"] == "9000"


def test_open_vswitch_types_need_a_package_pve_does_not_install(sim):
    assert sim.request("POST", NET, {"iface": "vmbr5", "type": "OVSBridge"}) == err(
        "Open VSwitch is not installed (need package 'openvswitch-switch')\n")


def test_deleting_an_interface_is_staged_and_the_writer_refuses_a_used_one(sim):
    ok(sim, "DELETE", f"{NET}/eno2")
    assert "-iface eno2 inet manual\n" in listing(sim)[1]
    # a NIC stays listed: the node still has it
    assert ok(sim, "GET", f"{NET}/eno2") == {"type": "eth", "method": "manual", "method6": "manual",
                                             "families": ["inet"], "exists": 1}
    assert sim.request("DELETE", f"{NET}/eno1") == err("bridge 'vmbr0' - unable to find bridge port 'eno1'\n")


# -- apply and revert -------------------------------------------------------------------------------

def test_apply_renames_the_shadow_and_answers_the_srvreload_task_of_the_caller(sim):
    ok(sim, "POST", NET, {"iface": "vmbr1", "type": "bridge", "bridge_ports": "eno2", "autostart": "1"})
    upid, status = apply(sim)
    assert UPID_RE.match(upid), upid
    assert (status["status"], status["exitstatus"], status["type"], status["id"]) == (
        "stopped", "OK", "srvreload", "networking")
    assert (status["user"], status["tokenid"]) == ("root@pam", "sim")
    assert ok(sim, "GET", f"/nodes/node1/tasks/{upid}/log") == [{"n": 1, "t": "TASK OK"}]
    assert sim.state.networks["node1"]["staged"] is None
    rows, changes = listing(sim)
    assert changes is None
    assert rows["vmbr1"]["active"] == 1 and rows["eno2"]["active"] == 1


def test_the_reload_task_runs_for_a_moment(sim):
    started = time.time()
    upid = ok(sim, "PUT", NET)
    status = ok(sim, "GET", f"/nodes/node1/tasks/{upid}/status")["status"]
    if time.time() - started < 0.4:  # the task runs half a second
        assert status == "running"
    assert apply(sim)[1]["exitstatus"] == "OK"


def test_apply_with_nothing_staged_still_reloads(sim):
    upid, status = apply(sim, "node2")
    assert upid.startswith("UPID:node2:") and status["exitstatus"] == "OK"
    assert listing(sim, "/nodes/node2/network")[1] is None


def test_a_failing_reload_ends_the_task_with_the_knobs_status_once(sim):
    ok(sim, "PUT", f"{NET}/vmbr0", dict(VMBR0, comments="x"))
    sim.state.network_reload_failure["node1"] = "command 'ifreload -a' failed: exit code 1"
    upid, status = apply(sim)
    assert status["exitstatus"] == "command 'ifreload -a' failed: exit code 1"
    assert ok(sim, "GET", f"/nodes/node1/tasks/{upid}/log")[-1] == {
        "n": 1, "t": "TASK ERROR: command 'ifreload -a' failed: exit code 1"}
    assert sim.state.networks["node1"]["staged"] is None  # the rename came first
    assert "node1" not in sim.state.network_reload_failure
    assert apply(sim)[1]["exitstatus"] == "OK"


def test_revert_unlinks_the_shadow(sim):
    ok(sim, "POST", NET, {"iface": "vmbr1", "type": "bridge"})
    assert ok(sim, "DELETE", NET) is None
    rows, changes = listing(sim)
    assert changes is None and "vmbr1" not in rows
    assert sim.state.networks["node1"]["staged"] is None
    assert ok(sim, "DELETE", NET) is None  # nothing to revert is fine


# -- permissions and the cluster ------------------------------------------------------------------

def test_reads_need_sys_audit_writes_sys_modify_and_bridges_sdn_privileges(sim):
    auditor = user_token(sim, "netaudit@pve", acl=[("/", "PVEAuditor")])
    assert ok(sim, "GET", f"{NET}/vmbr0", token=auditor)["type"] == "bridge"
    assert sorted(listing(sim, token=auditor)[0]) == ["eno1", "eno2", "vmbr0"]  # PVEAuditor has SDN.Audit
    assert sim.request("POST", NET, {"iface": "vmbr1", "type": "bridge"}, token=auditor) == err(
        "Permission check failed (/nodes/node1, Sys.Modify)\n", 403)
    assert sim.request("PUT", NET, token=auditor) == err(
        "Permission check failed (/nodes/node1, Sys.Modify)\n", 403)
    # anyone may list, but sees a bridge only with SDN.Audit or SDN.Use on it (or on one of its VLANs)
    nobody = user_token(sim, "netnobody@pve")
    assert sim.request("GET", f"{NET}/vmbr0", token=nobody) == err(
        "Permission check failed (/nodes/node1, Sys.Audit)\n", 403)
    assert sorted(listing(sim, token=nobody)[0]) == ["eno1", "eno2"]
    vlan_user = user_token(sim, "netvlan@pve", acl=[("/sdn/zones/localnetwork/vmbr0/20", "PVESDNUser")])
    assert sorted(listing(sim, token=vlan_user)[0]) == ["eno1", "eno2", "vmbr0"]
    # Sys.Modify on one node writes there and nowhere else
    operator = user_token(sim, "netops@pve", acl=[("/nodes/node1", "NetOps")],
                          role=("NetOps", ["Sys.Audit", "Sys.Modify"]))
    assert ok(sim, "POST", NET, {"iface": "vmbr1", "type": "bridge"}, token=operator) is None
    upid = ok(sim, "PUT", NET, token=operator)
    assert upid.endswith(":srvreload:networking:netops@pve!tk:")
    assert ok(sim, "GET", f"/nodes/node1/tasks/{upid}/status", token=operator)["tokenid"] == "tk"
    assert sim.request("PUT", "/nodes/node2/network", token=operator) == err(
        "Permission check failed (/nodes/node2, Sys.Modify)\n", 403)


def test_cluster_status_shows_a_degraded_cluster(sim):
    def status():
        rows = ok(sim, "GET", "/cluster/status")
        return rows[0]["quorate"], {row["name"]: row["online"] for row in rows[1:]}

    assert status() == (1, {"node1": 1, "node2": 1, "node3": 1})
    sim.state.nodes["node3"]["online"] = 0
    assert status() == (1, {"node1": 1, "node2": 1, "node3": 0})
    sim.state.nodes["node2"]["online"] = 0
    assert status() == (0, {"node1": 1, "node2": 0, "node3": 0})
