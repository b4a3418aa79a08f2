"""The inventory plugin ``homeflare.proxmox.pve`` through real ``ansible-inventory`` runs against the simulator.

Each run is one process; the tests batch several groupings, filters and facts per run to keep the suite fast.
"""

import json
import os
import subprocess
import sys

import pytest
import yaml

from collection_root import COLLECTIONS
from simulator.pve.handlers.guests import add_guest, set_guest_interfaces

BIN = os.path.dirname(sys.executable)
PREFIX = 'proxmox_'

# vmid: (type, node, status, config, pool); names repeat on purpose (two 'web1').
GUESTS = {
    100: ('qemu', 'node1', 'running', {'name': 'web1', 'tags': 'web;prod', 'agent': '1',
                                       'net0': 'virtio=BC:24:11:00:01:00,bridge=vmbr0'}, 'lab'),
    101: ('lxc', 'node2', 'running', {'hostname': 'web1', 'tags': 'web',
                                      'net0': 'name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:01:01,ip=dhcp'}, None),
    102: ('qemu', 'node2', 'stopped', {'name': 'db1', 'tags': 'db;prod'}, 'lab'),
    103: ('lxc', 'node3', 'stopped', {'hostname': 'cache1'}, None),
}
TEMPLATE = 9000


def seed(sim):
    status, _body = sim.request('POST', '/pools', {'poolid': 'lab'})
    assert status == 200
    for vmid, (kind, node, state, config, pool) in GUESTS.items():
        add_guest(sim.state, kind, vmid, node, config=config, status=state)
        if pool:
            with sim.state.lock:
                sim.state.pools[pool]['vms'].add(vmid)
    add_guest(sim.state, 'qemu', TEMPLATE, 'node1', config={'name': 'tmpl-debian'}, template=True)
    with sim.state.lock:
        sim.state.guests[102]['snapshots'] = {'before-upgrade': {'snaptime': 1700000000, 'description': 'safe'}}
    sim.clear_log()


def unwrap(value):
    """ansible-inventory marks strings that came from an inventory source (2.19+); compare the plain values."""
    if isinstance(value, dict):
        if set(value) == {'__ansible_unsafe'}:
            return value['__ansible_unsafe']
        return dict((key, unwrap(item)) for key, item in value.items())
    if isinstance(value, list):
        return [unwrap(item) for item in value]
    return value


class Inventory:
    def __init__(self, proc, listing):
        self.proc = proc
        self.listing = listing

    @property
    def hostvars(self):
        return self.listing['_meta']['hostvars']

    def hosts(self, group):
        return sorted(self.listing.get(group, {}).get('hosts', []))

    @property
    def output(self):
        return self.proc.stdout + self.proc.stderr


@pytest.fixture
def inventory(sim, tmp_path):
    """Run ansible-inventory on a configuration (a dict) with ``args``; the connection is the simulator's."""
    counter = {'n': 0}

    def run(options, *args, env=None, connection=True, name=None):
        counter['n'] += 1
        config = {'plugin': 'homeflare.proxmox.pve'}
        if connection:
            config.update(api_host=sim.members, api_token_id=sim.token_id, api_token_secret=sim.token_secret,
                          ca_path=sim.ca_path, api_timeout=5)
        config.update(options)
        path = tmp_path / (name or 'cluster%d.pve.yml' % counter['n'])
        path.write_text(yaml.safe_dump(config))
        environment = dict((key, value) for key, value in os.environ.items()
                           if not key.startswith(('BAO_', 'VAULT_', 'PROXMOX_')))
        runtime = tmp_path / 'run'
        runtime.mkdir(mode=0o700, exist_ok=True)
        environment.update({'ANSIBLE_COLLECTIONS_PATH': COLLECTIONS, 'XDG_RUNTIME_DIR': str(runtime),
                            'ANSIBLE_INVENTORY_ENABLED': 'homeflare.proxmox.pve', 'ANSIBLE_NOCOLOR': '1',
                            # a source that fails fails the command (by default Ansible only warns)
                            'ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED': 'true',
                            'ANSIBLE_HOME': str(tmp_path / 'ansible-home'),
                            'ANSIBLE_LOCAL_TEMP': str(tmp_path / 'ansible-tmp')})
        environment.update(env or {})
        command = [os.path.join(BIN, 'ansible-inventory'), '-i', str(path)] + list(args or ['--list'])
        proc = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=120, check=False)
        listing = None
        if '--list' in command and proc.returncode == 0:
            # with -v..., Ansible's own lines come first on stdout
            listing = unwrap(json.loads(proc.stdout[proc.stdout.index('{\n'):]))
        return Inventory(proc, listing)

    return run


def guest_reads(sim):
    return [entry['path'] for entry in sim.log if entry['method'] == 'GET']


# ansible-core's inventory API (templating, constructed): on the oldest and newest too
@pytest.mark.compat
def test_one_request_lists_every_guest_grouped_by_node_pool_tag_type_and_status(sim, inventory):
    seed(sim)
    run = inventory({})
    assert run.proc.returncode == 0, run.output
    assert guest_reads(sim) == ['/cluster/resources']
    assert sim.log[0]['form'] == {'type': 'vm'}
    # the lowest vmid keeps the shared name; the template is left out
    assert run.hosts('proxmox_guests') == ['cache1', 'db1', 'web1', 'web1-101']
    # (older ansible-core wraps warnings)
    assert "guest 101 is named 'web1' like another guest: its host is 'web1-101'" in ' '.join(run.output.split())
    assert run.hosts('proxmox_node_node1') == ['web1']
    assert run.hosts('proxmox_node_node2') == ['db1', 'web1-101']
    assert run.hosts('proxmox_pool_lab') == ['db1', 'web1']
    assert run.hosts('proxmox_tag_prod') == ['db1', 'web1'] and run.hosts('proxmox_tag_web') == ['web1', 'web1-101']
    assert run.hosts('proxmox_type_lxc') == ['cache1', 'web1-101'] and run.hosts('proxmox_type_qemu') == ['db1',
                                                                                                          'web1']
    assert run.hosts('proxmox_status_running') == ['web1', 'web1-101']
    assert run.hosts('proxmox_status_stopped') == ['cache1', 'db1']
    web = run.hostvars['web1']
    assert web == {'proxmox_vmid': 100, 'proxmox_node': 'node1', 'proxmox_type': 'qemu', 'proxmox_status': 'running',
                   'proxmox_name': 'web1', 'proxmox_tags': ['prod', 'web'], 'proxmox_pool': 'lab',
                   'proxmox_template': False}
    assert 'ansible_host' not in web

    graph = inventory({}, '--graph')
    assert graph.proc.returncode == 0, graph.output
    assert '@proxmox_tag_web:' in graph.proc.stdout and '|--web1-101' in graph.proc.stdout


def test_naming_prefixes_groupings_templates_and_nodes(sim, inventory):
    seed(sim)
    by_vmid = inventory({'host_name': 'vmid', 'group_prefix': 'pve_', 'group_by': ['tag'],
                         'include_templates': True, 'want_nodes': True})
    assert by_vmid.proc.returncode == 0, by_vmid.output
    assert by_vmid.hosts('pve_guests') == ['100', '101', '102', '103', str(TEMPLATE)]
    assert by_vmid.hosts('pve_tag_db') == ['102'] and 'pve_node_node1' not in by_vmid.listing
    assert by_vmid.hostvars[str(TEMPLATE)]['proxmox_template'] is True
    assert by_vmid.hosts('pve_nodes') == ['node1', 'node2', 'node3']
    # the nodes come from the same one request (read without its type filter)
    assert guest_reads(sim) == ['/cluster/resources'] and sim.log[0]['form'] == {}

    both = inventory({'host_name': 'name-vmid', 'facts_prefix': 'pve_'})
    assert both.hosts('proxmox_guests') == ['cache1-103', 'db1-102', 'web1-100', 'web1-101']
    assert both.hostvars['db1-102']['pve_vmid'] == 102


def test_filters_include_exclude_and_jinja(sim, inventory):
    seed(sim)
    cases = [
        ({'include_nodes': ['node2']}, ['db1', 'web1-101']),  # named among every guest, filtered or not
        ({'exclude_nodes': ['node2', 'node3']}, ['web1']),
        ({'include_tags': ['prod']}, ['db1', 'web1']),
        ({'exclude_tags': ['web']}, ['cache1', 'db1']),
        ({'include_pools': ['lab']}, ['db1', 'web1']),
        ({'exclude_pools': ['lab']}, ['cache1', 'web1-101']),
        ({'include_statuses': ['running']}, ['web1', 'web1-101']),
        ({'exclude_statuses': ['running']}, ['cache1', 'db1']),
        ({'include_types': ['lxc']}, ['cache1', 'web1-101']),
        ({'exclude_types': ['lxc']}, ['db1', 'web1']),
        ({'filters': ["proxmox_vmid > 101", "'prod' in proxmox_tags"]}, ['db1']),
    ]
    for options, expected in cases:
        run = inventory(options)
        assert run.proc.returncode == 0, (options, run.output)
        assert run.hosts('proxmox_guests') == expected, (options, run.listing)


# ansible-core's inventory API (templating, constructed): on the oldest and newest too
@pytest.mark.compat
def test_constructed_compose_groups_and_keyed_groups(sim, inventory):
    seed(sim)
    run = inventory({'compose': {'vm_label': "proxmox_name ~ '@' ~ proxmox_node"},
                     'groups': {'databases': "'db' in proxmox_tags"},
                     'keyed_groups': [{'key': 'proxmox_tags', 'prefix': 'tagged'}], 'strict': True})
    assert run.proc.returncode == 0, run.output
    assert run.hostvars['db1']['vm_label'] == 'db1@node2'
    assert run.hosts('databases') == ['db1']
    assert run.hosts('tagged_prod') == ['db1', 'web1']

    broken = inventory({'filters': ['undefined_thing.attribute']})
    assert broken.proc.returncode != 0 and "filter 'undefined_thing.attribute'" in broken.output, broken.output


def test_config_and_snapshot_facts_are_read_per_guest(sim, inventory):
    seed(sim)
    run = inventory({'want_config': True, 'want_snapshots': True, 'facts_workers': 2})
    assert run.proc.returncode == 0, run.output
    assert run.hostvars['db1']['proxmox_snapshots'] == ['before-upgrade']
    assert run.hostvars['web1']['proxmox_snapshots'] == []
    assert run.hostvars['db1']['proxmox_config']['name'] == 'db1'
    assert run.hostvars['cache1']['proxmox_config']['hostname'] == 'cache1'
    reads = guest_reads(sim)
    assert reads[0] == '/cluster/resources' and len(reads) == 1 + 2 * len(GUESTS)
    assert '/nodes/node1/qemu/%d/config' % TEMPLATE not in reads  # left out: not read


def test_a_thousand_guests_in_one_request(sim, inventory):
    with sim.state.lock:
        for vmid in range(1000, 2000):
            add_guest(sim.state, 'lxc' if vmid % 2 else 'qemu', vmid, 'node%d' % (vmid % 3 + 1),
                      config={'hostname' if vmid % 2 else 'name': 'guest%d' % vmid, 'tags': 'bulk'},
                      status='running' if vmid % 3 else 'stopped')
    sim.clear_log()
    run = inventory({})
    assert run.proc.returncode == 0, run.output
    assert len(run.hosts('proxmox_tag_bulk')) == 1000
    assert [(entry['method'], entry['path']) for entry in sim.log] == [('GET', '/cluster/resources')]


def test_with_the_first_member_down_the_second_answers(sim, inventory):
    seed(sim)
    sim.refuse(0)
    run = inventory({})
    assert run.proc.returncode == 0, run.output
    assert run.hosts('proxmox_guests') == ['cache1', 'db1', 'web1', 'web1-101']
    assert {entry['member'] for entry in sim.log} == {sim.members[1]}


def test_a_failed_read_fails_the_inventory_clearly(sim, inventory):
    seed(sim)
    sim.force('GET', r'^/cluster/resources$', 403, 'Permission check failed (/, Sys.Audit)')
    run = inventory({})
    assert run.proc.returncode != 0
    assert 'homeflare.proxmox.pve' in run.output and 'Permission check failed' in run.output


# ansible-core's inventory API (templating, constructed): on the oldest and newest too
@pytest.mark.compat
def test_templated_options_environment_fallbacks_and_bad_options(sim, inventory):
    seed(sim)
    templated = inventory({'api_token_secret': "{{ lookup('ansible.builtin.env', 'SIM_SECRET') }}"},
                          env={'SIM_SECRET': sim.token_secret})
    assert templated.proc.returncode == 0, templated.output
    assert templated.hosts('proxmox_guests')

    from_env = inventory({}, connection=False, env={
        'PROXMOX_HOST': ','.join(sim.members), 'PROXMOX_TOKEN_ID': sim.token_id,
        'PROXMOX_TOKEN_SECRET': sim.token_secret, 'PROXMOX_CA_PATH': sim.ca_path})
    assert from_env.proc.returncode == 0, from_env.output
    assert from_env.hosts('proxmox_guests') == templated.hosts('proxmox_guests')

    sim.clear_log()
    bad = inventory({'ca_path': '/nonexistent/ca.pem'})
    assert bad.proc.returncode != 0 and 'ca_path' in bad.output
    assert sim.log == []


def test_an_openbao_read_token_is_minted_once_and_shared_with_the_modules(sim, inventory, playbook):
    seed(sim)
    bao = {'api_token_id': None, 'api_token_secret': None, 'bao_addr': sim.bao_addr, 'bao_token': sim.bao_token,
           'bao_ca_path': sim.ca_path, 'bao_creds_mount': sim.bao_mount}
    first = inventory(bao, '--list', '-vvvv')
    assert first.proc.returncode == 0, first.output
    assert sim.bao_token not in first.output
    assert len(sim.minted('read')) == 1
    (token,) = sim.minted('read')
    assert {entry['token_id'] for entry in sim.log} == {token}
    again = inventory(bao)
    assert again.proc.returncode == 0 and len(sim.minted('read')) == 1  # the lease cache served the second run

    # a play on the same lease cache reads with the same token
    run = playbook([{'name': 'Read', 'homeflare.proxmox.pool': {'poolid': 'lab'}}], check=True, defaults={
        'api_host': sim.members, 'ca_path': sim.ca_path, 'bao_addr': sim.bao_addr, 'bao_token': sim.bao_token,
        'bao_ca_path': sim.ca_path, 'bao_creds_mount': sim.bao_mount})
    assert run.rc == 0, run
    assert sim.minted('read') == [token]


def test_no_secret_in_the_verbose_output_or_the_cache(sim, inventory, tmp_path):
    seed(sim)
    cache = tmp_path / 'inventory-cache'
    options = {'cache': True, 'cache_plugin': 'ansible.builtin.jsonfile', 'cache_connection': str(cache),
               'want_config': True, 'api_password': None}
    run = inventory(options, '--list', '-vvvv')
    assert run.proc.returncode == 0, run.output
    cached = [os.path.join(root, name) for root, _dirs, names in os.walk(str(cache)) for name in names]
    assert cached, 'the inventory cache was not written'
    texts = [run.output] + [open(path).read() for path in cached]
    for text in texts:
        assert sim.token_secret not in text

    # a password login: the password is in neither
    login = inventory({'api_token_id': None, 'api_token_secret': None, 'api_user': 'root@pam',
                       'api_password': sim.root_password}, '--list', '-vvvv')
    assert login.proc.returncode == 0, login.output
    assert login.hosts('proxmox_guests') == run.hosts('proxmox_guests')
    assert sim.root_password not in login.output

    # the second run is served from the cache: no request at all
    sim.clear_log()
    again = inventory(options, name='cluster1.pve.yml')
    assert again.proc.returncode == 0, again.output
    assert sim.log == []
    assert again.hosts('proxmox_guests') == run.hosts('proxmox_guests')


# ansible-core's inventory API (templating, constructed): on the oldest and newest too
@pytest.mark.compat
def test_addresses_from_the_agent_and_the_container_set_ansible_host_and_never_drop_a_guest(sim, inventory):
    seed(sim)
    set_guest_interfaces(sim.state, 100, {'ens18': ['192.168.50.10/24', '10.20.0.10/16', '2001:db8::10/64']})
    set_guest_interfaces(sim.state, 101, {'eth0': ['10.20.0.11/16']})
    add_guest(sim.state, 'qemu', 104, 'node3', config={'name': 'noagent'}, status='running')
    add_guest(sim.state, 'qemu', 105, 'node3', config={'name': 'silent', 'agent': '1'}, status='running')
    with sim.state.lock:
        sim.state.agent_unresponsive.add(105)
    sim.clear_log()
    run = inventory({'want_addresses': True, 'ansible_host_networks': ['10.20.0.0/16', '0.0.0.0/0']})
    assert run.proc.returncode == 0, run.output
    web = run.hostvars['web1']
    assert web['proxmox_addresses'] == ['192.168.50.10', '10.20.0.10', '2001:db8::10']  # no loopback, no fe80
    assert web['ansible_host'] == '10.20.0.10' and web['proxmox_notes'] == []
    assert run.hostvars['web1-101']['proxmox_addresses'] == ['10.20.0.11']
    assert run.hostvars['web1-101']['ansible_host'] == '10.20.0.11'
    # listed without addresses, with a note saying why; never dropped
    for host, why in (('noagent', 'No QEMU guest agent configured'), ('silent', 'QEMU guest agent is not running'),
                      ('db1', 'the guest is stopped'), ('cache1', 'the guest is stopped')):
        assert run.hostvars[host]['proxmox_addresses'] == [] and 'ansible_host' not in run.hostvars[host], host
        assert any(why in note for note in run.hostvars[host]['proxmox_notes']), (host, run.hostvars[host])
    # only running guests are asked, each once
    asked = sorted(path for path in guest_reads(sim) if path != '/cluster/resources')
    assert asked == ['/nodes/node1/qemu/100/agent/network-get-interfaces', '/nodes/node2/lxc/101/interfaces',
                     '/nodes/node3/qemu/104/agent/network-get-interfaces',
                     '/nodes/node3/qemu/105/agent/network-get-interfaces']

    # no network holds an address: ansible_host is left unset
    unset = inventory({'want_addresses': True, 'ansible_host_networks': ['172.16.0.0/12']})
    assert 'ansible_host' not in unset.hostvars['web1'] and unset.hostvars['web1']['proxmox_addresses']


def test_connection_for_vms_makes_running_vms_with_an_agent_hosts_of_the_agent_connection(sim, inventory):
    seed(sim)
    add_guest(sim.state, 'qemu', 104, 'node3', config={'name': 'agentoff', 'agent': 'enabled=0'}, status='running')
    run = inventory({'connection_for_vms': 'qemu_agent', 'api_port': 8006, 'bao_timeout': 30})
    assert run.proc.returncode == 0, run.output
    assert run.hosts('proxmox_qemu_agent') == ['web1']
    web = run.hostvars['web1']
    assert web['ansible_connection'] == 'homeflare.proxmox.qemu_agent' and web['ansible_proxmox_vmid'] == 100
    assert web['ansible_proxmox_api_host'] == sim.members and web['ansible_proxmox_ca_path'] == sim.ca_path
    assert web['ansible_proxmox_api_token_id'] == sim.token_id and web['ansible_proxmox_api_port'] == 8006
    assert web['ansible_proxmox_bao_timeout'] == 30 and web['ansible_proxmox_validate_certs'] is True
    # never a secret, and the config read to know the agent is not a variable unless asked for
    assert sim.token_secret not in json.dumps(run.listing)
    assert not any(name.endswith(('secret', 'password', 'bao_token', 'secret_id', 'role_id')) for name in web)
    assert 'proxmox_config' not in web
    # a stopped VM, a VM whose agent is off and a container keep their connection
    for host in ('db1', 'agentoff', 'web1-101'):
        assert 'ansible_connection' not in run.hostvars[host], (host, run.hostvars[host])
    # the config is read for running VMs only
    configs = sorted(path for path in guest_reads(sim) if path.endswith('/config'))
    assert configs == ['/nodes/node1/qemu/100/config', '/nodes/node3/qemu/104/config']
