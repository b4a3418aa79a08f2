"""The connection plugin ``homeflare.proxmox.qemu_agent`` through real ``ansible-playbook`` runs: hosts from the
inventory plugin (``connection_for_vms: qemu_agent``), ``command``, ``copy``, ``template``, ``fetch``, ``setup``
and ``become`` inside a simulated VM whose agent runs them for real in its own directory; a stopped VM and an
agent that is off fail as unreachable with PVE's answer; no secret at -vvvv or on a command line PVE logs; a
member that hangs during ``file-write`` leaves the file written once.

Run: python -m pytest tests/integration/test_qemu_agent.py -q
"""

import json
import os
import stat
import subprocess
import sys

import pytest
import yaml

from collection_root import COLLECTIONS
from simulator.errors import ApiError
from simulator.pve.handlers.agent import agent_root
from simulator.pve.handlers.guests import add_guest

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)
SUDO_PASSWORD = 'guest-sudo-Pa55'
# The guest's own sudo: -S reads the password as the first line of stdin, -p's prompt goes to stderr; the command
# then runs with BECAME set to the user it became.
GUEST_SUDO = r'''#!/bin/sh
prompt=''; user=root
while [ $# -gt 0 ]; do
  case "$1" in -p) prompt=$2; shift 2;; -u) user=$2; shift 2;; -*) shift;; *) break;; esac
done
printf '%s' "$prompt" >&2
IFS= read -r password
if [ "$password" != "''' + SUDO_PASSWORD + r'''" ]; then
  echo 'Sorry, try again.' >&2; echo 'sudo: 1 incorrect password attempt' >&2; exit 1
fi
BECAME=$user exec "$@"
'''


def seed(sim):
    add_guest(sim.state, 'qemu', 500, 'node2', {'name': 'agentvm', 'agent': 'enabled=1,fstrim_cloned_disks=1'},
              status='running')
    add_guest(sim.state, 'qemu', 501, 'node1', {'name': 'stoppedvm', 'agent': '1'}, status='stopped')
    add_guest(sim.state, 'qemu', 502, 'node1', {'name': 'agentoff', 'agent': '0'}, status='running')
    add_guest(sim.state, 'qemu', 503, 'node1', {'name': 'noagent'}, status='running')
    add_guest(sim.state, 'lxc', 504, 'node1', {'hostname': 'ct1'}, status='running')
    root = agent_root(sim.state, 500)
    sudo = os.path.join(root, 'usr', 'local', 'bin', 'sudo')
    with open(sudo, 'w') as handle:
        handle.write(GUEST_SUDO)
    os.chmod(sudo, stat.S_IRWXU)
    return root


class Play:
    def __init__(self, proc, results):
        self.rc = proc.returncode
        self.output = proc.stdout + proc.stderr
        self.results = results

    def of(self, host, task):
        return [line for line in self.results if line['host'] == host and line['task'] == task]

    def __repr__(self):
        return 'Play(rc=%s)\n%s' % (self.rc, self.output[-4000:])


@pytest.fixture
def agent_play(sim, tmp_path):
    """Run one play (a dict) with the inventory plugin's hosts, the credential from the environment only."""
    inventory = tmp_path / 'cluster.pve.yml'
    inventory.write_text(yaml.safe_dump({
        'plugin': 'homeflare.proxmox.pve', 'api_host': sim.members, 'ca_path': sim.ca_path, 'api_timeout': 5,
        'connection_for_vms': 'qemu_agent', 'compose': {'ansible_python_interpreter': repr(sys.executable)}}))
    counter = {'n': 0}

    def run(play, verbosity=0, env=None, inventory_path=None):
        counter['n'] += 1
        book = tmp_path / ('play%d.yml' % counter['n'])
        book.write_text(yaml.safe_dump([play], sort_keys=False))
        record = tmp_path / ('play%d.jsonl' % counter['n'])
        environment = dict((key, value) for key, value in os.environ.items()
                           if not key.startswith(('BAO_', 'VAULT_', 'PROXMOX_')))
        runtime = tmp_path / 'run'
        runtime.mkdir(mode=0o700, exist_ok=True)
        environment.update({
            'PROXMOX_TOKEN_ID': sim.token_id, 'PROXMOX_TOKEN_SECRET': sim.token_secret,
            'XDG_RUNTIME_DIR': str(runtime), 'ANSIBLE_COLLECTIONS_PATH': COLLECTIONS,
            'ANSIBLE_INVENTORY_ENABLED': 'homeflare.proxmox.pve,ini',
            'ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED': 'true',
            'ANSIBLE_CALLBACK_PLUGINS': os.path.join(HERE, 'callback_plugins'),
            'ANSIBLE_CALLBACKS_ENABLED': 'record_results', 'RECORD_RESULTS_FILE': str(record),
            'ANSIBLE_NOCOLOR': '1', 'ANSIBLE_RETRY_FILES_ENABLED': '0', 'ANSIBLE_HOST_KEY_CHECKING': '0',
            'ANSIBLE_HOME': str(tmp_path / 'ansible-home'), 'ANSIBLE_LOCAL_TEMP': str(tmp_path / 'ansible-tmp'),
        })
        environment.update(env or {})
        command = [os.path.join(BIN, 'ansible-playbook'), '-i', str(inventory_path or inventory), str(book)]
        if verbosity:
            command.append('-' + 'v' * verbosity)
        proc = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300, check=False)
        results = []
        if record.exists():
            results = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
        return Play(proc, results)

    return run


def exec_commands(sim):
    return [entry['form'].get('command') for entry in sim.log if entry['path'].endswith('/agent/exec')]


# the connection plugin is the part that touches Ansible internals (ConnectionBase, become): oldest and newest
@pytest.mark.compat
def test_modules_files_facts_and_become_run_inside_the_vm_through_its_agent(sim, agent_play, tmp_path):
    root = seed(sim)
    payload = os.urandom(150 * 1024)  # four file-write chunks
    (tmp_path / 'big.bin').write_bytes(payload)
    (tmp_path / 'motd.j2').write_text('Welcome to {{ inventory_hostname }} ({{ ansible_facts.system }})\n')
    home = os.path.join(root, 'root')
    play = {
        'name': 'Inside the VM', 'hosts': 'proxmox_qemu_agent', 'gather_facts': True,
        'tasks': [
            {'name': 'command', 'ansible.builtin.command': 'echo hello from the guest', 'register': 'hello',
             'changed_when': False},
            {'name': 'copy', 'ansible.builtin.copy': {'src': str(tmp_path / 'big.bin'), 'dest': home + '/big.bin',
                                                      'mode': '0600'}},
            {'name': 'template', 'ansible.builtin.template': {'src': str(tmp_path / 'motd.j2'),
                                                              'dest': home + '/motd', 'mode': '0644'}},
            {'name': 'fetch', 'ansible.builtin.fetch': {'src': home + '/motd', 'dest': str(tmp_path / 'fetched') + '/',
                                                        'flat': True}},
            {'name': 'fetch big', 'ansible.builtin.fetch': {'src': home + '/big.bin',
                                                            'dest': str(tmp_path / 'fetched.bin'), 'flat': True}},
            {'name': 'become', 'ansible.builtin.command': 'sh -c "echo became $BECAME"', 'become': True,
             'register': 'became', 'changed_when': False},
        ],
        'vars': {'ansible_become_password': SUDO_PASSWORD},
    }
    run = agent_play(play, verbosity=4)
    assert run.rc == 0, run
    # only the running VM with its agent enabled is reached through the agent
    assert {line['host'] for line in run.results} == {'agentvm'}, run
    assert run.of('agentvm', 'command')[0]['result']['stdout'] == 'hello from the guest'
    facts = run.of('agentvm', 'Gathering Facts')[0]['result']['ansible_facts']
    assert facts['ansible_env']['HOME'] == home and facts['ansible_system'] == 'Linux'
    with open(os.path.join(home, 'big.bin'), 'rb') as handle:
        assert handle.read() == payload
    assert stat.S_IMODE(os.stat(os.path.join(home, 'big.bin')).st_mode) == 0o600
    with open(os.path.join(home, 'motd')) as handle:
        assert handle.read() == 'Welcome to agentvm (Linux)\n'
    assert (tmp_path / 'fetched' / 'motd').read_text() == 'Welcome to agentvm (Linux)\n'
    assert (tmp_path / 'fetched.bin').read_bytes() == payload
    assert run.of('agentvm', 'become')[0]['result']['stdout'] == 'became root'
    # the chunks of a file were joined and removed; Ansible removed its temporary directories
    assert [name for name in os.listdir(home) if '.part' in name] == []
    assert os.listdir(os.path.join(home, '.ansible', 'tmp')) == []
    # no secret in -vvvv, and the become password never on a command PVE passes to the guest
    assert sim.token_secret not in run.output and SUDO_PASSWORD not in run.output
    commands = exec_commands(sim)
    assert commands and all(SUDO_PASSWORD not in json.dumps(command) for command in commands)
    assert any(SUDO_PASSWORD in (entry['form'].get('input-data') or '') for entry in sim.log
               if entry['path'].endswith('/agent/exec')), 'the become password went nowhere'
    # every request of the connection went to the node the VM runs on
    agent_paths = {entry['path'].rsplit('/agent/', 1)[0] for entry in sim.log if '/agent/' in entry['path']}
    assert agent_paths == {'/nodes/node2/qemu/500'}


def test_a_wrong_become_password_a_stopped_vm_and_an_agent_that_is_off_fail_clearly(sim, agent_play, tmp_path):
    seed(sim)
    hosts = tmp_path / 'hosts.ini'
    hosts.write_text(''.join('%s ansible_connection=homeflare.proxmox.qemu_agent ansible_proxmox_vmid=%d '
                             'ansible_python_interpreter=%s\n' % (name, vmid, sys.executable)
                             for name, vmid in (('agentvm', 500), ('stoppedvm', 501), ('agentoff', 502),
                                                ('noagent', 503), ('ct1', 504), ('gone', 599))))
    members = ','.join(sim.members)
    play = {'name': 'Unreachable guests', 'hosts': 'all', 'gather_facts': False,
            'vars': {'ansible_proxmox_api_host': members, 'ansible_proxmox_ca_path': sim.ca_path,
                     'ansible_become_password': 'wrong-password'},
            'tasks': [{'name': 'become', 'ansible.builtin.command': 'true', 'become': True}]}
    run = agent_play(play, inventory_path=hosts)
    assert run.rc != 0
    messages = dict((line['host'], (line['status'], line['result'].get('msg', ''))) for line in run.results)
    assert messages['agentvm'][0] == 'failed' and 'Incorrect sudo password' in messages['agentvm'][1], run
    # (ansible-core 2.19+ puts "Task failed: " before the connection's message)
    expected = {'stoppedvm': 'VM 501: VM 501 is not running', 'agentoff': 'VM 502: QEMU guest agent is not running',
                'noagent': 'VM 503: No QEMU guest agent configured'}
    for host, text in expected.items():
        status, message = messages[host]
        assert status == 'unreachable' and message.endswith('homeflare.proxmox.qemu_agent: ' + text), messages[host]
    assert messages['ct1'][0] == 'unreachable' and 'is a container' in messages['ct1'][1]
    assert messages['gone'][0] == 'unreachable' and 'no guest 599 in the cluster' in messages['gone'][1]
    assert 'wrong-password' not in json.dumps(exec_commands(sim))


def test_a_member_that_hangs_during_file_write_leaves_the_file_written_once(sim, agent_play, tmp_path):
    root = seed(sim)
    home = os.path.join(root, 'root')
    payload = os.urandom(100 * 1024)
    (tmp_path / 'data.bin').write_bytes(payload)
    written = []

    def hang_first_member(params):
        # The first file-write reaches member 0, which stops answering from then on (its request never ends).
        written.append(params['file'])
        sim.hang(0)
        sim._members[0].hang_release.wait(30)  # pylint: disable=protected-access
        raise ApiError(500, 'the member went away\n')  # it died: its request is never applied

    sim.before('POST', r'/agent/file-write$', hang_first_member, times=1)
    play = {'name': 'Copy over a hanging member', 'hosts': 'agentvm', 'gather_facts': False,
            'vars': {'ansible_proxmox_api_timeout': 2},
            'tasks': [{'name': 'copy', 'ansible.builtin.copy': {'src': str(tmp_path / 'data.bin'),
                                                                'dest': home + '/data.bin'}}]}
    try:
        run = agent_play(play)
        log = list(sim.log)
    finally:
        sim.restore(0)
    assert run.rc == 0, run
    with open(os.path.join(home, 'data.bin'), 'rb') as handle:
        assert handle.read() == payload
    # the chunk member 0 never answered for went to the next member, and was written there once
    first = written[0]
    sent = [(entry['member'], entry['status']) for entry in log if entry['path'].endswith('/agent/file-write')
            and entry['form'].get('file') == first]
    assert sent == [(sim.members[1], 200)], sent
    # no command went to the hung member after it stopped answering
    assert all(entry['status'] is not None for entry in log if entry['path'].endswith('/agent/exec'))


def test_bad_connection_options_fail_before_any_request_naming_the_option(sim, agent_play, tmp_path):
    seed(sim)
    sim.clear_log()
    hosts = tmp_path / 'bad.ini'
    hosts.write_text('badca ansible_proxmox_vmid=500 ansible_proxmox_ca_path=%s\n'
                     'novmid\n'
                     'badtimeout ansible_proxmox_vmid=500 ansible_proxmox_api_timeout=0\n' % (tmp_path / 'missing.pem'))
    play = {'name': 'Bad options', 'hosts': 'all', 'gather_facts': False,
            'vars': {'ansible_connection': 'homeflare.proxmox.qemu_agent',
                     'ansible_proxmox_api_host': ','.join(sim.members)},
            'tasks': [{'name': 'ping', 'ansible.builtin.ping': {}}]}
    run = agent_play(play, inventory_path=hosts)
    assert run.rc != 0
    messages = dict((line['host'], line['result'].get('msg', '')) for line in run.results)
    assert 'option ca_path: %s does not exist' % (tmp_path / 'missing.pem') in messages['badca'], run
    assert 'vmid' in messages['novmid'], run
    assert 'option api_timeout: 0 is not a positive number of seconds' in messages['badtimeout'], run
    assert sim.log == []
