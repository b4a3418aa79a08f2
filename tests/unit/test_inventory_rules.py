"""The inventory plugin's decisions (plugins/plugin_utils/inventory.py) and its options' agreement with the modules'."""

import yaml

from ansible_collections.homeflare.proxmox.plugins.connection import qemu_agent
from ansible_collections.homeflare.proxmox.plugins.inventory import pve
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import CONNECTION_ARGUMENT_SPEC
from ansible_collections.homeflare.proxmox.plugins.plugin_utils.inventory import (
    AGENT_CONNECTION_OPTIONS, Selection, agent_addresses, agent_enabled, first_in, group_names, guest_vars, host_names,
    lxc_addresses, tags_of, usable)


def row(vmid, name, **extra):
    return dict({'vmid': vmid, 'name': name, 'node': 'node1', 'type': 'qemu', 'status': 'running'}, **extra)


def test_every_connection_option_of_the_modules_is_an_inventory_option_with_the_same_default():
    options = yaml.safe_load(pve.DOCUMENTATION)['options']
    for name, spec in CONNECTION_ARGUMENT_SPEC.items():
        assert name in options, name
        assert options[name].get('default') == spec.get('default'), name
        if spec.get('fallback'):
            assert [entry['name'] for entry in options[name]['env']] == spec['fallback'][1], name


def test_every_connection_option_is_a_qemu_agent_option_with_the_same_default_and_a_host_variable():
    options = yaml.safe_load(qemu_agent.DOCUMENTATION)['options']
    for name, spec in CONNECTION_ARGUMENT_SPEC.items():
        assert options[name].get('default') == spec.get('default'), name
        assert {'name': 'ansible_proxmox_' + name} in options[name]['vars'], name
        if spec.get('fallback'):
            assert [entry['name'] for entry in options[name]['env']] == spec['fallback'][1], name
    # what the inventory may hand to a host: connection options, never a secret
    assert set(AGENT_CONNECTION_OPTIONS) <= set(CONNECTION_ARGUMENT_SPEC)
    assert not [name for name in AGENT_CONNECTION_OPTIONS if CONNECTION_ARGUMENT_SPEC[name].get('no_log')]
    assert 'bao_approle_role_id' not in AGENT_CONNECTION_OPTIONS


def test_the_agent_is_enabled_by_its_default_key_or_enabled():
    assert [agent_enabled({'agent': value}) for value in ('1', 'enabled=1,fstrim_cloned_disks=1', 'type=isa,enabled=1',
                                                          '0', 'enabled=0', 'fstrim_cloned_disks=1', '')] \
        == [True, True, True, False, False, False, False]
    assert agent_enabled({}) is False and agent_enabled(None) is False


def test_shared_names_fall_back_to_name_vmid_for_all_but_the_lowest_vmid():
    names, renamed = host_names([row(105, 'web'), row(101, 'web'), row(102, ''), row(103, 'db')], 'name')
    assert names == {101: 'web', 102: '102', 103: 'db', 105: 'web-105'}
    assert [vmid for vmid, _message in renamed] == [105]
    # a guest named like another's fallback still gets a host of its own
    names, _renamed = host_names([row(1, 'a'), row(2, 'a'), row(3, 'a-2')], 'name')
    assert len(set(names.values())) == 3
    assert host_names([row(7, 'x')], 'vmid')[0] == {7: '7'}
    assert host_names([row(7, 'x')], 'name-vmid')[0] == {7: 'x-7'}


def test_tags_groups_and_variables():
    assert tags_of({'tags': 'b;a,c d'}) == ['a', 'b', 'c', 'd']
    guest = row(100, 'web', tags='web;prod', pool='lab', template=0)
    assert group_names(guest, ['node', 'pool', 'tag', 'type', 'status'], 'p_') == [
        'p_node_node1', 'p_pool_lab', 'p_tag_prod', 'p_tag_web', 'p_type_qemu', 'p_status_running']
    assert group_names(row(1, 'x'), ['pool'], 'p_') == []
    assert guest_vars(guest, 'x_')['x_tags'] == ['prod', 'web'] and guest_vars(guest, 'x_')['x_template'] is False


def test_selection_includes_excludes_and_templates():
    guest = row(100, 'web', tags='web', pool='lab')
    assert Selection({}).keeps(guest)
    assert not Selection({}).keeps(dict(guest, template=1))
    assert Selection({'include_templates': True}).keeps(dict(guest, template=1))
    assert not Selection({'include_tags': ['db']}).keeps(guest)
    assert not Selection({'exclude_pools': ['lab']}).keeps(guest)
    assert not Selection({'include_pools': ['lab']}).keeps(row(1, 'x'))
    assert Selection({'include_types': ['qemu'], 'exclude_statuses': ['stopped']}).keeps(guest)


def test_addresses_from_the_agent_and_from_a_container():
    agent = {'result': [{'name': 'lo', 'ip-addresses': [{'ip-address': '127.0.0.1'}, {'ip-address': '::1'}]},
                        {'name': 'eth0', 'ip-addresses': [{'ip-address': '10.20.0.5'},
                                                          {'ip-address': 'fe80::1'}]}]}
    assert agent_addresses(agent) == [('lo', '127.0.0.1'), ('lo', '::1'), ('eth0', '10.20.0.5'), ('eth0', 'fe80::1')]
    container = [{'name': 'eth0', 'inet': '192.168.1.5/24', 'inet6': 'fd00::5/64 fe80::5/64'}]
    assert lxc_addresses(container) == [('eth0', '192.168.1.5'), ('eth0', 'fd00::5'), ('eth0', 'fe80::5')]
    assert [usable(address) for address in ('127.0.0.1', '::1', 'fe80::1', '10.1.1.1', 'garbage')] == [
        False, False, False, True, False]


def test_ansible_host_prefers_the_first_network_that_holds_an_address():
    addresses = ['192.168.1.5', '10.20.0.5', 'fd00::5']
    assert first_in(addresses, ['10.0.0.0/8', '0.0.0.0/0']) == '10.20.0.5'
    assert first_in(addresses, ['0.0.0.0/0']) == '192.168.1.5'
    assert first_in(addresses, ['fd00::/8']) == 'fd00::5'
    assert first_in(addresses, ['172.16.0.0/12']) is None
