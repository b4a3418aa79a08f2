"""Fixtures for real ``ansible-playbook`` runs against the simulator."""

import json
import os
import subprocess
import sys

import pytest
import yaml

from collection_root import COLLECTIONS
from simulator import Simulator

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.dirname(sys.executable)


@pytest.fixture
def sim():
    with Simulator(members=3) as simulator:
        yield simulator


class Run:
    """One finished ansible-playbook run: its exit code, output and recorded task results."""

    def __init__(self, proc, results):
        self.rc = proc.returncode
        self.output = proc.stdout + proc.stderr
        self.results = results

    def result(self, index=-1):
        return self.results[index]['result']

    @property
    def failed(self):
        return [line for line in self.results if line['status'] in ('failed', 'item_failed')]

    def __repr__(self):
        return "Run(rc=%s)\n%s\n%s" % (self.rc, self.output[-3000:], self.failed)


def connection(sim):
    return dict(sim.module_options(), api_timeout=5)


@pytest.fixture
def sim_connection(sim):
    """The connection options for ``sim``, as module_defaults or role variables take them."""
    return connection(sim)


@pytest.fixture
def playbook(sim, tmp_path):
    """Run tasks (a list of task dicts) in one play against ``sim``; returns a Run."""
    counter = {'n': 0}

    def run(tasks, check=False, diff=False, verbosity=0, defaults=None, env=None, play_extra=None, hosts=None, forks=None,
            inventory_lines=None):
        counter['n'] += 1
        name = 'play%d' % counter['n']
        play = {
            'name': 'Integration play',
            'hosts': 'all' if hosts else 'localhost',
            'gather_facts': False,
            'module_defaults': {'group/homeflare.proxmox.proxmox': defaults if defaults is not None
                                else connection(sim)},
            'tasks': tasks,
        }
        play.update(play_extra or {})
        book = tmp_path / ('%s.yml' % name)
        book.write_text(yaml.safe_dump([play], sort_keys=False))
        record = tmp_path / ('%s.jsonl' % name)
        # Each test has its own lease cache and no OpenBao settings from the developer's shell.
        environment = dict((key, value) for key, value in os.environ.items() if not key.startswith(('BAO_', 'VAULT_')))
        runtime = tmp_path / 'run'
        runtime.mkdir(mode=0o700, exist_ok=True)
        environment.update({
            'XDG_RUNTIME_DIR': str(runtime),
            'ANSIBLE_COLLECTIONS_PATH': COLLECTIONS,
            'ANSIBLE_CALLBACK_PLUGINS': os.path.join(HERE, 'callback_plugins'),
            'ANSIBLE_CONNECTION_PLUGINS': os.path.join(HERE, 'connection_plugins'),
            'ANSIBLE_CALLBACKS_ENABLED': 'record_results',
            'RECORD_RESULTS_FILE': str(record),
            'ANSIBLE_NOCOLOR': '1',
            'ANSIBLE_RETRY_FILES_ENABLED': '0',
            'ANSIBLE_LOCALHOST_WARNING': '0',
            'ANSIBLE_INVENTORY_UNPARSED_WARNING': '0',
            'ANSIBLE_PYTHON_INTERPRETER': sys.executable,
            'ANSIBLE_LOCAL_TEMP': str(tmp_path / 'ansible-tmp'),
            'ANSIBLE_HOME': str(tmp_path / 'ansible-home'),
        })
        environment.update(env or {})
        inventory = 'localhost,'
        if hosts:
            inventory = str(tmp_path / ('%s.ini' % name))
            with open(inventory, 'w') as handle:
                handle.write(''.join(inventory_lines or ['%s ansible_connection=local\n' % host for host in hosts]))
        command = [os.path.join(BIN, 'ansible-playbook'), '-i', inventory, '-c', 'local', str(book)]
        if forks:
            command += ['--forks', str(forks)]
        if check:
            command.append('--check')
        if diff:
            command.append('--diff')
        if verbosity:
            command.append('-' + 'v' * verbosity)
        proc = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300, check=False)
        results = []
        if record.exists():
            results = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
        return Run(proc, results)

    return run


# The environment that puts a run on each execution path (plugins/action/controller.py).
EXECUTION_PATHS = {
    'controller': {},
    'module': {'HOMEFLARE_PROXMOX_EXECUTION': 'module'},
}


def reconfirms(path):
    """Whether a lifecycle test makes its confirming re-runs (after the repair, the second absent) on ``path``.

    They only show again what step 3 showed: a converged object costs zero writes. The module path proved
    that in its step 3 already and pays a process start per task; the controller path makes every
    confirming re-run. Skipping them on the module path keeps the suite within its time.
    """
    return path != 'module'


def writes(sim):
    return sim.writes()


def gets(sim):
    return [entry for entry in sim.log if entry['method'] == 'GET']
