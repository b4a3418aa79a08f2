"""What the inventory plugin (issue 13) reads from the simulator, over real HTTPS: the QEMU guest
agent's network-get-interfaces with its three refusals, the LXC interfaces, snapshots seeded with
``add_snapshot``, and 1,000 guests from ``seed_many_guests`` listed by one /cluster/resources.

Run: python -m pytest tests/unit/test_simulator_inventory.py -q
"""

import sys
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from simulator import fixtures  # noqa: E402
from simulator.pve.handlers.guests import (add_guest, add_snapshot, guest_config, seed_many_guests,  # noqa: E402
                                           set_guest_interfaces)

# the shared fixtures, bound here so pytest finds them (and pyflakes sees no unused import)
sim = fixtures.sim
_no_faults = fixtures._no_faults  # pylint: disable=protected-access

MAC = "BC:24:11:AA:BB:01"
LINK_LOCAL = "fe80::be24:11ff:feaa:bb01"  # EUI-64 of MAC
AGENT = "/nodes/node1/qemu/100/agent/network-get-interfaces"
LO_QGA = {"name": "lo", "hardware-address": "00:00:00:00:00:00",
          "ip-addresses": [{"ip-address-type": "ipv4", "ip-address": "127.0.0.1", "prefix": 8},
                           {"ip-address-type": "ipv6", "ip-address": "::1", "prefix": 128}]}
LO_LXC = {"name": "lo", "hwaddr": "00:00:00:00:00:00", "hardware-address": "00:00:00:00:00:00",
          # ip-address-type is what `ip --json a` calls the family (PVE/LXC.pm get_interfaces)
          "inet": "127.0.0.1/8", "inet6": "::1/128",
          "ip-addresses": [{"ip-address": "127.0.0.1", "ip-address-type": "inet", "prefix": 8},
                           {"ip-address": "::1", "ip-address-type": "inet6", "prefix": 128}]}


@pytest.fixture(autouse=True)
def clean(sim):
    """Every test starts without guests, volumes, pools, ACLs or silent agents."""
    state = sim.state
    with state.lock:
        for table in (state.guests, state.volumes, state.pools, state.acl):
            table.clear()
        state.agent_unresponsive.clear()
    yield


def ok(sim, path, form=None, **kwargs):
    status, body = sim.request("GET", path, form, **kwargs)
    assert status == 200, (path, body)
    return body["data"]


def died(message):
    """A handler's ``die``: HTTP 500, the message with its newline, no errors."""
    return 500, {"data": None, "message": message + "\n"}


def without_statistics(result):
    return [{k: v for k, v in iface.items() if k != "statistics"} for iface in result]


def vm(sim, config=None, status="running", vmid=100, node="node1"):
    base = {"name": "web", "net0": f"virtio={MAC},bridge=vmbr0", "agent": "1"}
    base.update(config or {})
    return add_guest(sim.state, "qemu", vmid, node, {k: v for k, v in base.items() if v is not None}, status)


def token_with(sim, role, privs, path="/vms/100"):
    """A privilege-separated token holding ``privs`` (as role ``role``) on ``path``."""
    state = sim.state
    state.custom_roles[role] = frozenset(privs)
    user = f"{role.lower()}@pve"
    if user not in state.users:
        state.add_user(user)
    secret = state.add_token(user, "inv", privsep=1)
    state.set_acl(path, role, users=user, tokens=f"{user}!inv")
    return f"{user}!inv", secret


# -- QEMU guest agent: network-get-interfaces -------------------------------------------------------

def test_the_agent_reports_the_loopback_and_each_nic_with_its_dhcp_lease_and_link_local_address(sim):
    vm(sim, {"net1": "virtio=BC:24:11:AA:BB:02,bridge=vmbr1", "ipconfig1": "ip=192.0.2.10/24,gw=192.0.2.1,ip6=auto"},
       vmid=300)
    data = ok(sim, "/nodes/node1/qemu/300/agent/network-get-interfaces")
    assert list(data) == ["result"]
    assert without_statistics(data["result"]) == [
        LO_QGA,
        {"name": "ens18", "hardware-address": "bc:24:11:aa:bb:01",
         "ip-addresses": [{"ip-address-type": "ipv4", "ip-address": "10.100.1.44", "prefix": 16},  # 300 = 1*256+44
                          {"ip-address-type": "ipv6", "ip-address": LINK_LOCAL, "prefix": 64}]},
        {"name": "ens19", "hardware-address": "bc:24:11:aa:bb:02",
         "ip-addresses": [{"ip-address-type": "ipv4", "ip-address": "192.0.2.10", "prefix": 24},
                          {"ip-address-type": "ipv6", "ip-address": "fd00:65::be24:11ff:feaa:bb02", "prefix": 64},
                          {"ip-address-type": "ipv6", "ip-address": "fe80::be24:11ff:feaa:bb02", "prefix": 64}]}]
    stats = data["result"][1]["statistics"]
    assert set(stats) == {"rx-bytes", "rx-dropped", "rx-errs", "rx-packets",
                          "tx-bytes", "tx-dropped", "tx-errs", "tx-packets"}
    assert all(isinstance(value, int) for value in stats.values())


def test_a_test_sets_the_addresses_the_agent_reports(sim):
    vm(sim)
    set_guest_interfaces(sim.state, 100, [{"name": "eth0", "addresses": ["198.51.100.7/24", "2001:db8::7/64"]},
                                          {"name": "docker0", "hwaddr": "02:42:AC:11:00:01",
                                           "addresses": ["172.17.0.1/16"]}])
    assert without_statistics(ok(sim, AGENT)["result"]) == [
        LO_QGA,
        {"name": "eth0", "hardware-address": "bc:24:11:aa:bb:01",  # the config's NIC in that position
         "ip-addresses": [{"ip-address-type": "ipv4", "ip-address": "198.51.100.7", "prefix": 24},
                          {"ip-address-type": "ipv6", "ip-address": "2001:db8::7", "prefix": 64}]},
        {"name": "docker0", "hardware-address": "02:42:ac:11:00:01",
         "ip-addresses": [{"ip-address-type": "ipv4", "ip-address": "172.17.0.1", "prefix": 16}]}]
    set_guest_interfaces(sim.state, 100, {"eth0": []})  # an interface without addresses has no ip-addresses
    assert without_statistics(ok(sim, AGENT)["result"])[1] == {"name": "eth0", "hardware-address": "bc:24:11:aa:bb:01"}
    set_guest_interfaces(sim.state, 100, None)  # back to what the config gives
    assert [i["name"] for i in ok(sim, AGENT)["result"]] == ["lo", "ens18"]
    with pytest.raises(ValueError):
        set_guest_interfaces(sim.state, 100, {"eth0": ["not-an-address"]})


@pytest.mark.parametrize("agent, status, message", [
    (None, "running", "No QEMU guest agent configured"),
    (None, "stopped", "No QEMU guest agent configured"),
    ("1", "stopped", "VM 100 is not running"),
    ("enabled=1,fstrim_cloned_disks=1", "stopped", "VM 100 is not running"),
    ("0", "running", "QEMU guest agent is not running"),   # defined, so QEMU runs without an agent socket
    ("enabled=0", "running", "QEMU guest agent is not running"),
])
def test_the_agent_refuses_as_assert_agent_available_does(sim, agent, status, message):
    vm(sim, {"agent": agent}, status=status)
    assert sim.request("GET", AGENT) == died(message)


def test_an_agent_that_does_not_answer_and_a_missing_vm(sim):
    vm(sim)
    sim.state.agent_unresponsive.add(100)
    assert sim.request("GET", AGENT) == died("QEMU guest agent is not running")
    sim.state.agent_unresponsive.discard(100)
    assert ok(sim, AGENT)["result"][0]["name"] == "lo"
    assert sim.request("GET", "/nodes/node2/qemu/100/agent/network-get-interfaces") == \
        died("Configuration file 'nodes/node2/qemu-server/100.conf' does not exist")
    add_guest(sim.state, "lxc", 101, "node1", {"hostname": "ct"}, "running")
    assert sim.request("GET", "/nodes/node1/qemu/101/agent/network-get-interfaces") == \
        died("Configuration file 'nodes/node1/qemu-server/101.conf' does not exist")


def test_the_agent_follows_the_vm_power_state(sim):
    vm(sim, status="stopped")
    assert sim.request("GET", AGENT) == died("VM 100 is not running")
    assert sim.request("POST", "/nodes/node1/qemu/100/status/start")[0] == 200
    assert len(ok(sim, AGENT)["result"]) == 2


def test_the_agent_needs_guest_agent_audit_on_the_vm(sim):
    vm(sim)
    audit_only = token_with(sim, "InvVMAudit", ["VM.Audit"])
    message = "Permission check failed (/vms/100, VM.GuestAgent.Audit|VM.GuestAgent.Unrestricted)\n"
    assert sim.request("GET", AGENT, token=audit_only) == (403, {"data": None, "message": message})
    agent_audit = token_with(sim, "InvAgentAudit", ["VM.GuestAgent.Audit"])
    assert ok(sim, AGENT, token=agent_audit)["result"][0]["name"] == "lo"
    unrestricted = token_with(sim, "InvAgentAll", ["VM.GuestAgent.Unrestricted"])
    assert ok(sim, AGENT, token=unrestricted)["result"][0]["name"] == "lo"


# -- LXC interfaces ---------------------------------------------------------------------------------------

def ct(sim, net0, status="running", vmid=101, node="node1", **extra):
    config = {"hostname": "ct", "net0": net0}
    config.update(extra)
    return add_guest(sim.state, "lxc", vmid, node, config, status)


def test_a_running_container_lists_ip_a_as_pve_reads_it(sim):
    ct(sim, f"name=eth0,bridge=vmbr0,hwaddr={MAC},ip=192.0.2.5/24,gw=192.0.2.1,ip6=2001:db8::5/64",
       net1="name=eth1,bridge=vmbr1,hwaddr=BC:24:11:AA:BB:02,ip=dhcp")
    assert ok(sim, "/nodes/node1/lxc/101/interfaces") == [
        LO_LXC,
        {"name": "eth0", "hwaddr": "bc:24:11:aa:bb:01", "hardware-address": "bc:24:11:aa:bb:01",
         "inet": "192.0.2.5/24", "inet6": f"{LINK_LOCAL}/64",  # the last IPv6 address wins, as in get_interfaces
         "ip-addresses": [{"ip-address": "192.0.2.5", "ip-address-type": "inet", "prefix": 24},
                          {"ip-address": "2001:db8::5", "ip-address-type": "inet6", "prefix": 64},
                          {"ip-address": LINK_LOCAL, "ip-address-type": "inet6", "prefix": 64}]},
        {"name": "eth1", "hwaddr": "bc:24:11:aa:bb:02", "hardware-address": "bc:24:11:aa:bb:02",
         "inet": "10.101.0.101/16", "inet6": "fe80::be24:11ff:feaa:bb02/64",
         "ip-addresses": [{"ip-address": "10.101.0.101", "ip-address-type": "inet", "prefix": 16},
                          {"ip-address": "fe80::be24:11ff:feaa:bb02", "ip-address-type": "inet6", "prefix": 64}]}]


def test_a_container_a_test_gave_addresses_and_one_without_any(sim):
    ct(sim, f"name=eth0,bridge=vmbr0,hwaddr={MAC},ip=manual")
    assert ok(sim, "/nodes/node1/lxc/101/interfaces")[1] == {
        "name": "eth0", "hwaddr": "bc:24:11:aa:bb:01", "hardware-address": "bc:24:11:aa:bb:01",
        "inet6": f"{LINK_LOCAL}/64",
        "ip-addresses": [{"ip-address": LINK_LOCAL, "ip-address-type": "inet6", "prefix": 64}]}
    set_guest_interfaces(sim.state, 101, {"eth0": ["10.9.8.7/8"], "eth1": []})
    rows = ok(sim, "/nodes/node1/lxc/101/interfaces")
    assert rows[1] == {"name": "eth0", "hwaddr": "bc:24:11:aa:bb:01", "hardware-address": "bc:24:11:aa:bb:01",
                       "inet": "10.9.8.7/8",
                       "ip-addresses": [{"ip-address": "10.9.8.7", "ip-address-type": "inet", "prefix": 8}]}
    assert rows[2] == {"name": "eth1", "hwaddr": "bc:24:11:00:65:01", "hardware-address": "bc:24:11:00:65:01",
                       "ip-addresses": []}


@pytest.mark.parametrize("path", ["/nodes/node1/lxc/101/interfaces",   # stopped
                                  "/nodes/node2/lxc/102/interfaces",   # running, but on node1
                                  "/nodes/node1/lxc/999/interfaces",   # no such container
                                  "/nodes/node1/lxc/100/interfaces"])  # a VM
def test_a_container_that_is_not_running_here_answers_null(sim, path):
    ct(sim, f"name=eth0,bridge=vmbr0,hwaddr={MAC},ip=dhcp", status="stopped")
    ct(sim, "name=eth0,bridge=vmbr0,ip=dhcp", vmid=102)
    vm(sim)
    assert sim.request("GET", path) == (200, {"data": None})


def test_container_interfaces_need_vm_audit(sim):
    ct(sim, "name=eth0,bridge=vmbr0,ip=dhcp")
    nothing = token_with(sim, "InvNothing", ["Sys.Audit"], path="/")
    assert sim.request("GET", "/nodes/node1/lxc/101/interfaces", token=nothing) == (403, {
        "data": None, "message": "Permission check failed (/vms/101, VM.Audit)\n"})
    audit = token_with(sim, "InvCtAudit", ["VM.Audit"], path="/vms/101")
    assert [row["name"] for row in ok(sim, "/nodes/node1/lxc/101/interfaces", token=audit)] == ["lo", "eth0"]


# -- snapshots --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("typ", ["qemu", "lxc"])
def test_seeded_snapshots_are_listed_with_their_parents_and_current(sim, typ):
    add_guest(sim.state, typ, 110, "node2", {"memory": 1024, "unused0": "local-lvm:vm-110-disk-9"}, "running")
    add_snapshot(sim.state, 110, "base", description="fresh install", snaptime=1700000000)
    add_snapshot(sim.state, 110, "upgrade", snaptime=1700003600, vmstate=(typ == "qemu"))
    rows = ok(sim, f"/nodes/node2/{typ}/110/snapshot")
    vmstate = {"vmstate": 0} if typ == "qemu" else {}
    assert sorted(rows[:-1], key=lambda r: r["snaptime"]) == [
        # the snapshot section's '#' lines as each parser reads them back (pve-container: a newline after each)
        {"name": "base", "snaptime": 1700000000, "description": "fresh install" + ("\n" if typ == "lxc" else ""),
         **vmstate},
        {"name": "upgrade", "snaptime": 1700003600, "description": "", "parent": "base",
         **({"vmstate": 1} if typ == "qemu" else {})}]
    assert rows[-1] == {"name": "current", "digest": guest_config(sim.state, 110)["digest"], "running": 1,
                        "description": "You are here!", "parent": "upgrade"}
    snap = ok(sim, f"/nodes/node2/{typ}/110/config", {"snapshot": "base"})
    assert str(snap["memory"]) == "1024"  # a VM's memory is a property string, a container's an integer
    assert "unused0" not in snap and snap["snaptime"] == 1700000000
    assert ok(sim, f"/nodes/node2/{typ}/110/config")["parent"] == "upgrade"


# -- many guests --------------------------------------------------------------------------------------------

def test_a_thousand_guests_are_seeded_fast_and_listed_by_one_request(sim):
    started = time.perf_counter()
    vmids = seed_many_guests(sim.state, 1000)
    seeded = time.perf_counter() - started
    assert seeded < 2.0, seeded
    assert vmids == list(range(1000, 2000))
    started = time.perf_counter()
    rows = ok(sim, "/cluster/resources", {"type": "vm"})
    listed = time.perf_counter() - started
    assert listed < 1.0, listed
    assert len(rows) == 1000
    by_type = {typ: [r for r in rows if r["type"] == typ] for typ in ("qemu", "lxc")}
    assert len(by_type["lxc"]) == 333 and len(by_type["qemu"]) == 667
    assert {r["node"] for r in rows} == {"node1", "node2", "node3"}
    assert [r["vmid"] for r in rows if r["template"]] == [1000, 1001]
    assert all(r["status"] == "stopped" for r in rows if r["template"])
    assert sum(r["status"] == "running" for r in rows) == 749  # not i % 4 == 0, not the templates
    assert sum(1 for r in rows if r.get("pool")) == 100
    assert {r["pool"] for r in rows if r.get("pool")} == {"pool-a", "pool-b"}
    first = {r["vmid"]: r for r in rows}
    assert (first[1000]["name"], first[1000]["tags"]) == ("web-1000", "dev;web")
    assert (first[1002]["name"], first[1002]["type"], first[1002]["tags"]) == ("cache-1002", "lxc", "cache;dev")
    assert "tags" not in first[1005]
    assert sum(1 for r in rows if "tags" not in r) == 166


def test_seeded_guests_answer_the_fact_requests(sim):
    seed_many_guests(sim.state, 30, first_vmid=200, nodes=["node1"], templates=0)
    assert len(sim.state.agent_unresponsive) == 1 and 222 in sim.state.agent_unresponsive
    assert sim.request("GET", "/nodes/node1/qemu/200/agent/network-get-interfaces") == \
        died("No QEMU guest agent configured")  # i = 0: no agent, and stopped
    assert sim.request("GET", "/nodes/node1/qemu/204/agent/network-get-interfaces") == \
        died("VM 204 is not running")
    assert sim.request("GET", "/nodes/node1/qemu/222/agent/network-get-interfaces") == \
        died("QEMU guest agent is not running")
    result = ok(sim, "/nodes/node1/qemu/201/agent/network-get-interfaces")["result"]
    assert result[1]["ip-addresses"][0] == {"ip-address-type": "ipv4", "ip-address": "10.100.0.201", "prefix": 16}
    assert result[1]["hardware-address"] == "bc:24:11:00:00:c9"
    rows = ok(sim, "/nodes/node1/lxc/202/interfaces")
    assert rows[1]["name"] == "eth0" and rows[1]["inet"] == "10.100.0.202/16"
    assert ok(sim, "/nodes/node1/lxc/208/interfaces") is None  # i = 8: stopped
    with pytest.raises(ValueError):
        seed_many_guests(sim.state, 2, first_vmid=229)
