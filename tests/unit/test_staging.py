"""The staged families' own rules, without HTTP: pending counts, health, per-type tables, subnet values."""

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import argument_spec
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import ApiError, DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.families import node_network, sdn_subnet, sdn_zone
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import update_form
from ansible_collections.homeflare.proxmox.plugins.module_utils.staging import changed_lines, cluster_health

DIFF = """--- /etc/network/interfaces
+++ /etc/network/interfaces.new
@@ -1,4 +1,5 @@
 auto lo
-iface vmbr0 inet static
+iface vmbr0 inet manual
+\tmtu 9000
 iface eno1 inet manual
"""


def test_changed_lines_count_what_the_diff_adds_and_removes_but_not_its_headers():
    assert changed_lines(DIFF) == 3
    assert changed_lines('') == 0
    assert changed_lines(None) == 0


class Status:
    def __init__(self, rows):
        self.rows = rows

    def get(self, path, params=None, role='read'):
        assert path == '/cluster/status'
        return self.rows


def node(name, online=1):
    return dict(type='node', name=name, online=online)


@pytest.mark.parametrize('rows, problems', [
    ([dict(type='cluster', quorate=1), node('n1'), node('n2')], []),
    ([node('n1')], []),  # standalone: no cluster row, quorate by definition
    ([dict(type='cluster', quorate=1), node('n1'), node('n2', online=0)], ['node n2 is offline']),
    ([dict(type='cluster', quorate=0), node('n1', 0), node('n2', 0), node('n3')],
     ['the cluster is not quorate', 'node n1 is offline', 'node n2 is offline']),
])
def test_cluster_health_names_every_reason_a_reload_is_unsafe(rows, problems):
    assert cluster_health(Status(rows)) == problems


def declare(family, **params):
    full = dict((option, None) for option in argument_spec(family))
    full.update(state='present', confirm_removal=False)
    full.update(params)
    return family.declaration(full)


@pytest.mark.parametrize('params, option', [
    (dict(zone='lab', type='vlan'), 'bridge'),
    (dict(zone='lab', type='vlan', bridge='vmbr0', peers=['10.0.0.1']), 'peers'),
    (dict(zone='lab', type='simple', tag=5), 'tag'),
    (dict(zone='lab', type='evpn', controller='ctl'), 'vrf_vxlan'),
    (dict(zone='lab', type='faucet'), 'type'),
    (dict(zone='lab'), 'type'),
])
def test_a_zone_takes_only_its_types_options(params, option):
    with pytest.raises(DeclarationError, match='option %s' % option):
        declare(sdn_zone.FAMILY, **params)


def test_a_qinq_service_tag_of_0_is_a_real_tag():
    declaration = declare(sdn_zone.FAMILY, zone='lab', type='qinq', bridge='vmbr0', tag=0)
    assert declaration.values['tag'] == 0


def test_dropping_a_zones_mtu_clears_it_with_delete():
    declaration = declare(sdn_zone.FAMILY, zone='lab', type='simple')
    assert update_form(sdn_zone.FAMILY, declaration, ['mtu'], {}) == {'delete': 'mtu'}


@pytest.mark.parametrize('params, option', [
    (dict(node='n1', iface='bond0', type='bond'), 'slaves'),
    (dict(node='n1', iface='vmbr0', type='bridge', slaves=['eno1']), 'slaves'),
    (dict(node='n1', iface='vlan10', type='vlan'), 'vlan_raw_device'),
    (dict(node='n1', iface='eno1.10', type='vlan', vlan_id=4095), 'vlan_id'),
    (dict(node='n1', iface='vmbr0', type='bridge', cidr='10.0.0.300/24'), 'cidr'),
    (dict(node='n1', iface='vmbr0', type='bridge', gateway='10.0.0.1'), 'gateway'),
    (dict(node='n1', iface='x', type='eth'), 'iface'),
    (dict(node='n1', iface='vmbr0', type='OVSBridge'), 'type'),
])
def test_an_interface_takes_only_its_types_options(params, option):
    with pytest.raises(DeclarationError, match='option %s' % option):
        declare(node_network.FAMILY, **params)


def test_a_bridge_lists_its_ports_space_separated_and_clears_vlan_awareness_with_delete():
    declaration = declare(node_network.FAMILY, node='n1', iface='vmbr1', type='bridge', bridge_ports=['eno2', 'eno1'],
                          bridge_vlan_aware=False)
    form = update_form(node_network.FAMILY, declaration, ['bridge_ports', 'bridge_vlan_aware'], {})
    assert form == {'bridge_ports': 'eno1 eno2', 'delete': 'bridge_vlan_aware', 'type': 'bridge'}


def test_a_missing_interface_is_only_the_400_naming_iface():
    absence = node_network.FAMILY.absence
    assert absence.matches(ApiError.for_status(400, 'Parameter verification failed.',
                                               errors={'iface': 'interface does not exist'}))
    assert not absence.matches(ApiError.for_status(400, 'Parameter verification failed.',
                                                   errors={'type': 'interface does not exist'}))
    assert not absence.matches(ApiError.for_status(500, 'interface does not exist'))


def test_a_subnet_is_declared_as_its_network():
    declaration = declare(sdn_subnet.FAMILY, vnet='web', subnet='fd00:0::/64', gateway='fd00::1')
    assert declaration.ident['subnet'] == 'fd00::/64'
    with pytest.raises(DeclarationError, match="option subnet: '10.0.0.1/24' has host bits set; declare the "
                                               "network, 10.0.0.0/24"):
        declare(sdn_subnet.FAMILY, vnet='web', subnet='10.0.0.1/24')
    with pytest.raises(DeclarationError, match='option subnet'):
        declare(sdn_subnet.FAMILY, vnet='web', subnet='10.0.0.0/33')
    with pytest.raises(DeclarationError, match='option gateway: 10.1.0.1 is outside the subnet 10.0.0.0/24'):
        declare(sdn_subnet.FAMILY, vnet='web', subnet='10.0.0.0/24', gateway='10.1.0.1')


def test_dhcp_ranges_compare_as_a_set_whatever_their_spelling():
    field = sdn_subnet.FAMILY.fields[-1]
    declared = field.declared([{'start_address': '10.0.0.50', 'end_address': '10.0.0.60'},
                               'start-address=10.0.0.10,end-address=10.0.0.20'])
    live = field.live([{'start-address': '10.0.0.10', 'end-address': '10.0.0.20'},
                       {'end-address': '10.0.0.60', 'start-address': '10.0.0.50'}])
    assert declared == live
    with pytest.raises(DeclarationError, match='option dhcp_range'):
        field.declared(['start-address=10.0.0.10,end-address=later'])
