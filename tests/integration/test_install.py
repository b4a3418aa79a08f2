"""The collection as users get it: built with ``ansible-galaxy collection build``, installed from the tarball into an
empty collections path, and run from there in a fresh virtualenv holding only ``requirements.txt`` and ansible-core.

The artifact must hold every runtime file and no test, simulator or build output. The installed copy runs
examples/demo.yml against the simulator (apply, then a re-apply that changes and writes nothing) and lists the
guests through its inventory plugin; nothing may resolve to the checkout.
"""

import json
import os
import re
import subprocess
import sys
import tarfile
import time

import pytest
import yaml

from collection_root import COLLECTIONS
from conftest import REPO

# Not compat-marked: the fresh virtualenv has its own ansible-core, so running this under scripts/compat.sh's
# interpreters would only repeat it.
pytestmark = pytest.mark.install

BIN = os.path.dirname(sys.executable)
NAME = 'homeflare.proxmox'
# A few times today's artifact (about 0.5 MB): room to grow, but a stray venv, build tree or data file fails it.
MAX_ARTIFACT_BYTES = 2 * 1024 * 1024


def galaxy_version():
    with open(os.path.join(REPO, 'galaxy.yml')) as handle:
        return yaml.safe_load(handle)['version']


@pytest.fixture(scope='module')
def artifact(tmp_path_factory):
    """The tarball built from the checkout itself (its caches and tests/ in place), as a maintainer releases it."""
    out = tmp_path_factory.mktemp('artifact')
    proc = subprocess.run([os.path.join(BIN, 'ansible-galaxy'), 'collection', 'build', '--output-path', str(out),
                           REPO], capture_output=True, text=True, timeout=120, check=False, cwd=str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    path = out / ('homeflare-proxmox-%s.tar.gz' % galaxy_version())
    assert path.is_file(), proc.stdout
    return path


def ansible_core_requirement():
    """ansible-core as requirements-dev.txt pins it for the project's Python (what the rest of the suite runs)."""
    with open(os.path.join(REPO, 'requirements-dev.txt')) as handle:
        for line in handle:
            if re.match(r'ansible-core\b', line.strip()):
                return line.strip()
    return 'ansible-core'


@pytest.fixture(scope='session')
def fresh_venv(tmp_path_factory):
    """A new virtualenv per session (never a previous one) with requirements.txt and ansible-core from PyPI."""
    venv = tmp_path_factory.mktemp('fresh-venv')
    start = time.monotonic()
    # sys.executable is .venv's python: venv builds on its base interpreter, with no site-packages of .venv.
    subprocess.run([sys.executable, '-m', 'venv', '--clear', str(venv)], check=True, timeout=120)
    python = str(venv / 'bin' / 'python')
    proc = subprocess.run([python, '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check',
                           ansible_core_requirement(), '-r', os.path.join(REPO, 'requirements.txt')],
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, 'pip could not install from PyPI:\n' + proc.stdout + proc.stderr
    print('fresh virtualenv %s ready in %.1f s' % (venv, time.monotonic() - start))
    return venv


def member_names(artifact_path):
    with tarfile.open(str(artifact_path)) as tar:
        return dict((member.name, member) for member in tar.getmembers())


def checkout_files(top):
    """The checkout's files under ``top`` as the artifact names them (bytecode is never shipped)."""
    found = set()
    for root, dirs, files in os.walk(os.path.join(REPO, top)):
        dirs[:] = [d for d in dirs if d != '__pycache__']
        found.update(os.path.relpath(os.path.join(root, f), REPO) for f in files if not f.endswith('.pyc'))
    return found


def test_the_artifact_holds_the_runtime_files_and_no_tests_simulator_or_build_output(artifact):
    members = member_names(artifact)
    files = set(name for name, member in members.items() if member.isfile())
    size = artifact.stat().st_size
    print('artifact %s: %d bytes, %d files' % (artifact.name, size, len(files)))
    assert size < MAX_ARTIFACT_BYTES

    # the test suite and the simulator it runs against (tests/simulator) stay in the checkout
    assert not [name for name in members if name == 'tests' or name.startswith('tests/')]
    assert not [name for name in members if 'simulator' in name.split('/')]
    assert not [name for name in members if name.split('/')[0] in ('build', '.venv', '.git', 'scripts', '.ci')]
    assert not [name for name in members if name.endswith(('.pyc', '.tar.gz')) or '__pycache__' in name]
    assert 'changelogs/.plugin-cache.yaml' not in files

    missing = checkout_files('plugins') - files
    assert not missing, sorted(missing)
    for top in ('roles', 'meta', 'docs', 'examples'):
        assert checkout_files(top) <= files, top
    runtime = {'MANIFEST.json', 'FILES.json', 'README.md', 'LICENSE', 'requirements.txt'}
    if os.path.exists(os.path.join(REPO, 'changelogs', 'changelog.yaml')):
        runtime.add('changelogs/changelog.yaml')
    assert runtime <= files


# The re-apply's second play: the guests the installed inventory plugin listed, the container the demo made among
# them, read at the start of the same ansible-playbook run.
INVENTORY_PLAY = [{
    'name': 'The cluster guests, as the homeflare.proxmox.pve inventory listed them',
    'hosts': 'localhost',
    'gather_facts': False,
    'tasks': [{
        'name': 'The demo container is a host, grouped by node, pool and tag',
        'ansible.builtin.assert': {'that': [
            "'lab-web' in groups['proxmox_guests']",
            "'lab-web' in groups['proxmox_node_node1']",
            "'lab-web' in groups['proxmox_pool_lab']",
            "'lab-web' in groups['proxmox_tag_web']",
            "hostvars['lab-web'].proxmox_vmid == 200",
            "hostvars['lab-web'].proxmox_type == 'lxc'",
        ]},
    }],
}]


def recap(output):
    """localhost's counts in the run's last PLAY RECAP (with several playbooks, each prints the running totals)."""
    found = re.findall(r'^localhost\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)', output,
                       re.MULTILINE)
    assert found, output[-3000:]
    return dict(zip(('ok', 'changed', 'unreachable', 'failed'), (int(value) for value in found[-1])))


def test_the_installed_copy_runs_the_demo_and_the_inventory_in_a_fresh_virtualenv(artifact, fresh_venv, sim, tmp_path):
    venv_bin = str(fresh_venv / 'bin')
    collections = tmp_path / 'collections'
    collections.mkdir()
    # Not the checkout: no ansible.cfg, collections/ or roles/ of the repository can be picked up from here.
    work = tmp_path / 'work'
    work.mkdir()
    config = tmp_path / 'ansible.cfg'
    config.write_text('[defaults]\n')
    runtime = tmp_path / 'run'
    runtime.mkdir(mode=0o700)
    # Nothing from the developer's shell that could point Ansible or Python elsewhere.
    environment = dict((key, value) for key, value in os.environ.items()
                       if not key.startswith(('ANSIBLE_', 'PROXMOX_', 'BAO_', 'VAULT_', 'HOMEFLARE_', 'PYTHON'))
                       and key != 'VIRTUAL_ENV')
    environment.update({
        'PATH': venv_bin + os.pathsep + os.environ.get('PATH', ''),
        'ANSIBLE_CONFIG': str(config),
        'ANSIBLE_COLLECTIONS_PATH': str(collections),
        'ANSIBLE_HOME': str(tmp_path / 'ansible-home'),
        'ANSIBLE_LOCAL_TEMP': str(tmp_path / 'ansible-tmp'),
        'ANSIBLE_PYTHON_INTERPRETER': os.path.join(venv_bin, 'python'),
        'ANSIBLE_NOCOLOR': '1',
        'ANSIBLE_RETRY_FILES_ENABLED': '0',
        'ANSIBLE_LOCALHOST_WARNING': '0',
        'ANSIBLE_INVENTORY_UNPARSED_WARNING': '0',
        'XDG_RUNTIME_DIR': str(runtime),
        # as scripts/demo.sh exports them from the simulator's contract line
        'PROXMOX_HOST': ','.join(sim.members),
        'PROXMOX_TOKEN_ID': sim.token_id,
        'PROXMOX_TOKEN_SECRET': sim.token_secret,
        'PROXMOX_CA_PATH': sim.ca_path,
    })

    def run(*command, timeout=300):
        proc = subprocess.run([os.path.join(venv_bin, command[0])] + list(command[1:]), capture_output=True,
                              text=True, env=environment, cwd=str(work), timeout=timeout, check=False)
        return proc, proc.stdout + proc.stderr

    proc, output = run('ansible-galaxy', 'collection', 'install', str(artifact), '-p', str(collections))
    assert proc.returncode == 0, output
    installed = collections / 'ansible_collections' / 'homeflare' / 'proxmox'
    assert (installed / 'MANIFEST.json').is_file() and not os.path.islink(str(installed))
    assert not (installed / 'tests').exists()

    # The only homeflare.proxmox this environment's Ansible knows is the installed one.
    proc, output = run('ansible-galaxy', 'collection', 'list', NAME, '--format', 'json')
    assert proc.returncode == 0, output
    assert json.loads(proc.stdout) == {str(collections / 'ansible_collections'): {NAME: {'version': galaxy_version()}}}

    demo = str(installed / 'examples' / 'demo.yml')
    proc, output = run('ansible-playbook', demo, '--diff')
    assert proc.returncode == 0, output[-3000:]
    applied = recap(output)
    assert applied['changed'] > 0 and applied['failed'] == 0, output[-3000:]
    assert sim.writes()

    # The re-apply and the inventory in one run: -i the plugin's config (the demo's play still runs on the implicit
    # localhost), the demo's play, then INVENTORY_PLAY over what the plugin listed.
    inventory = tmp_path / 'cluster.pve.yml'
    inventory.write_text(yaml.safe_dump({
        'plugin': 'homeflare.proxmox.pve', 'api_host': sim.members, 'api_token_id': sim.token_id,
        'api_token_secret': sim.token_secret, 'ca_path': sim.ca_path, 'api_timeout': 5}))
    checks = tmp_path / 'inventory_check.yml'
    checks.write_text(yaml.safe_dump(INVENTORY_PLAY, sort_keys=False))
    sim.clear_log()
    environment.update({'ANSIBLE_INVENTORY_ENABLED': 'homeflare.proxmox.pve',
                        # a source that fails fails the run (by default Ansible only warns)
                        'ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED': 'true'})
    proc, output = run('ansible-playbook', '-vv', '-i', str(inventory), demo, str(checks), '--diff')
    assert proc.returncode == 0, output[-3000:]
    reapplied = recap(output)
    assert reapplied['changed'] == 0 and reapplied['failed'] == 0, output[-3000:]
    assert sim.writes() == []
    assert '/cluster/resources' in [entry['path'] for entry in sim.log if entry['method'] == 'GET']

    # Ansible read its configuration from the temp file and the role's tasks from the installed copy, and nothing
    # in the run names the checkout or the suite's collections path (a symlink to the checkout).
    assert 'Using %s as config file' % config in output
    task_paths = re.findall(r'^task path: (\S+?):\d+$', output, re.MULTILINE)
    role_paths = [path for path in task_paths if '/roles/' in path]
    assert role_paths and all(path.startswith(str(installed) + '/roles/cluster/') for path in role_paths), task_paths
    assert REPO not in output and COLLECTIONS not in output
