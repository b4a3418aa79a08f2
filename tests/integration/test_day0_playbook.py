"""examples/day0.yml from ``serve.py --fresh``: three standalone nodes to a quorate cluster in one playbook (the
homeflare.proxmox.node role).

--check before the first run plans every step and writes nothing → the run makes the cluster, with DNS, time
zone, hosts entries, the no-subscription repository instead of the enterprise one, an ACME account, a DNS plugin and
an ordered certificate on every node → the second run makes zero writes → drift made through the API is named by
--check --diff, field by field, and nothing is written. No secret shows at -vvvv.
"""

import os

import pytest
import yaml

from conftest import REPO
from simulator import Simulator
from simulator.pve.handlers.apt import node_files

CF_TOKEN = 'cf-day0-token-5a9e21'


@pytest.fixture
def sim():
    with Simulator(members=3, fresh=True) as simulator:
        yield simulator


def example():
    with open(os.path.join(REPO, 'examples', 'day0.yml')) as handle:
        play = yaml.safe_load(handle)[0]
    with open(os.path.join(REPO, 'examples', 'day0_inventory.yml')) as handle:
        inventory = yaml.safe_load(handle)
    return play, inventory


def day0(sim, playbook, check=False, diff=False, verbosity=0, report=None):
    """The example play over the simulator's nodes: each inventory host's API at its member's address, its link
    at the node's own address (192.0.2.1N), /etc/hosts naming those addresses."""
    play, inventory = example()
    hosts = sorted(inventory['pve_nodes']['hosts'])
    lines = ['[pve_nodes]\n'] + ['%s ansible_host=%s corosync_address=192.0.2.1%d ansible_connection=local\n'
                                 % (host, sim.members[index], index + 1) for index, host in enumerate(hosts)]
    variables = dict(play['vars'])
    variables['lab_hosts'] = [{'ip': '192.0.2.1%d' % (index + 1), 'names': ['%s.lab.example.org' % host, host]}
                              for index, host in enumerate(hosts)]
    extra = {'vars': variables, 'roles': play['roles'], 'connection': 'local'}
    env = {'PROXMOX_PASSWORD': sim.root_password, 'PROXMOX_CA_PATH': sim.ca_path, 'CF_TOKEN': CF_TOKEN}
    if report is not None:  # the drift report beside the test's recorder
        env.update(ANSIBLE_CALLBACKS_ENABLED='record_results,homeflare.proxmox.drift_report',
                   HOMEFLARE_DRIFT_REPORT=str(report))
    sim.clear_log()
    run = playbook([], check=check, diff=diff, verbosity=verbosity, hosts=hosts, inventory_lines=lines,
                   play_extra=extra, env=env, defaults={})
    assert run.rc == 0 and not run.failed, run
    return run


def task(line):
    return line['task'].replace('homeflare.proxmox.node : ', '')


def changed(run):
    return [task(line) for line in run.results if line['result'].get('changed')]


def test_day0_from_fresh_nodes(sim, playbook, tmp_path):
    # 1. --check before anything: every step planned, nothing written
    run = day0(sim, playbook, check=True, diff=True)
    planned = set(changed(run))
    assert {'Declare the APT repositories', 'Declare the DNS settings', 'Declare the time zone',
            'Declare the hosts entries', 'Declare the cluster and its members (once)',
            'Declare the ACME accounts (once)', 'Declare the ACME plugins (once)', 'Declare the node config',
            'Declare the ACME certificate'} <= planned, planned
    assert sim.writes() == []

    # 2. the run: one quorate cluster of the three nodes, each configured
    run = day0(sim, playbook, verbosity=4, report=tmp_path / 'applied.json')
    state = sim.member_state(0)
    assert all(sim.member_state(index) is state for index in range(3))
    assert list(state.nodes) == ['node1', 'node2', 'node3'] and state.quorate() and state.cluster_name == 'lab'
    status = sim.request('GET', '/cluster/status', member=2)[1]['data']
    assert status[0]['quorate'] == 1 and all(row['online'] for row in status[1:])
    for index, node in enumerate(('node1', 'node2', 'node3')):
        assert sim.request('GET', '/nodes/%s/dns' % node)[1]['data']['search'] == 'lab.example.org'
        assert sim.request('GET', '/nodes/%s/time' % node)[1]['data']['timezone'] == 'Europe/Berlin'
        assert '192.0.2.13 node3.lab.example.org node3' in sim.request('GET', '/nodes/%s/hosts' % node)[1]['data'][
            'data']
        repos = dict((row['handle'], row.get('status')) for row in sim.request(
            'GET', '/nodes/%s/apt/repositories' % node)[1]['data']['standard-repos'])
        assert repos['no-subscription'] == 1 and repos['enterprise'] != 1, repos
        info = sim.request('GET', '/nodes/%s/certificates/info' % node)[1]['data']
        custom = [row for row in info if row['filename'] == 'pveproxy-ssl.pem']
        assert custom and '%s.lab.example.org' % node in custom[0]['san'], info
        assert node_files(state, node)  # the node's own sources survived the join
    for secret in (sim.root_password, CF_TOKEN):
        where = run.output.find(secret)
        assert where < 0, run.output[max(0, where - 600):where + 100]
        assert secret not in (tmp_path / 'applied.json').read_text()

    # 3. the second run: zero writes
    run = day0(sim, playbook)
    assert changed(run) == [] and sim.writes() == []

    # 4. drift through the API: --check --diff names the fields, writes nothing
    status, body = sim.request('PUT', '/nodes/node2/dns', {'search': 'elsewhere.example', 'dns1': '192.0.2.53',
                                                           'dns2': '192.0.2.54'}, member=1)
    assert status == 200, body
    status, body = sim.request('PUT', '/nodes/node3/time', {'timezone': 'UTC'}, member=2)
    assert status == 200, body
    run = day0(sim, playbook, check=True, diff=True, report=tmp_path / 'drift.json')
    drifted = dict((task(line), line['result']['plan']['changed']) for line in run.results
                   if line['result'].get('changed'))
    assert drifted == {'Declare the DNS settings': ['search'], 'Declare the time zone': ['timezone']}, drifted
    assert 'elsewhere.example' in run.output and sim.writes() == []
    report = (tmp_path / 'drift.json').read_text()
    assert '"search"' in report and sim.root_password not in report and CF_TOKEN not in report

    # 5. the export of the new cluster: the plugin's data is a placeholder, the join password nowhere
    sim.clear_log()
    login = {'api_host': sim.members, 'api_user': 'root@pam', 'api_password': sim.root_password,
             'ca_path': sim.ca_path}
    run = playbook([{'name': 'Export', 'homeflare.proxmox.export': {}, 'register': 'exported'}], defaults=login,
                   verbosity=4)
    assert run.rc == 0, run
    objects = run.result()['objects']
    assert objects['cluster'] == [{'name': 'lab', 'members': [
        {'node': node, 'links': ['192.0.2.1%d' % (index + 1)], 'votes': 1}
        for index, node in enumerate(('node1', 'node2', 'node3'))]}]
    assert objects['acme_plugin'][0]['data'].startswith('{{') and CF_TOKEN not in run.output
    assert sim.writes() == []
