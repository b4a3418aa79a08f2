"""Every module's EXAMPLES, run as written against the simulator in check mode with real ansible-playbook.

One playbook holds them all: a block per module, each task renamed ``<module>: <its name>`` so a failure names
its module. The examples' own connection settings (``pve1.example.org``, ``{{ vault_pve_token_secret }}``)
are the reader's; they are taken out and the play's module defaults point at the simulator instead (its
backup server for the PBS modules). Nothing else of an example is changed.

An example that needs what the simulator cannot give says so in EXAMPLES with a comment the test reads:
``# examples-test: skip <reason>`` skips the task that follows it; ``# examples-test: skip-all <reason>``
skips the module's examples. Each skip is listed in the test's output.
"""

import ast
import copy
import glob
import os
import re

import pytest
import yaml

from conftest import REPO, connection
from test_day0_certificate_families import make_pair

from simulator import Simulator
from simulator.pve.handlers.ceph import ceph_init
from simulator.pve.handlers.guests import add_guest, add_snapshot
from simulator.pve.handlers.realm_sync import seed_directory
from simulator.pve.handlers.zfs import zfs_init

NODES = ('pve1', 'pve2', 'pve3', 'pve4')
MODULES = os.path.join(REPO, 'plugins', 'modules')
PREFIX = 'homeflare.proxmox.'
MARKER = re.compile(r'^\s*#\s*examples-test:\s*(skip|skip-all)\b\s*(.*)$')
# The connection fragment's options (plugins/doc_fragments/connection.py): where the example's cluster is.
CONNECTION = re.compile(r'^(api_|bao_|ca_path$|validate_certs$)')
# Variables the examples leave to the reader's inventory or vault: a value of the right form does for a check run.
SECRET = 'example-secret-0123'
VARS = dict(
    dict((name, SECRET) for name in (
        'vault_smtp_password', 'vault_gotify_token', 'vault_ldap_bind_password', 'vault_oidc_client_key',
        'vault_pdns_key', 'vault_netbox_token', 'vault_netbox_new_token', 'vault_backup_admin_password',
        'acme_eab_kid', 'acme_eab_hmac_key', 'cloudflare_dns_token', 'vault_root_password', 'influx_token',
        'main_sync_token_secret')),
    main_fingerprint=':'.join(['ab'] * 32), debian13_sha512='0' * 128, cluster_objects={},
    cloudflare_account_id='ops-account-4711')


def examples_text(path):
    with open(path) as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(target, 'id', None) == 'EXAMPLES' for target in node.targets):
            return node.value.value
    raise AssertionError('%s has no EXAMPLES' % path)


def skips(text):
    """The reasons to skip, by task index (None: every task), read from the examples-test markers."""
    lines = text.splitlines()
    starts = [number for number, line in enumerate(lines) if line.startswith('- ')]
    found = {}
    for number, line in enumerate(lines):
        match = MARKER.match(line)
        if not match:
            continue
        kind, reason = match.groups()
        assert reason.strip(), 'line %d: an examples-test skip needs its reason' % (number + 1)
        if kind == 'skip-all':
            found[None] = reason.strip()
            continue
        following = [index for index, start in enumerate(starts) if start > number]
        assert following, 'line %d: an examples-test skip with no task after it' % (number + 1)
        found[following[0]] = reason.strip()
    return found, len(starts)


def without_connection(args):
    return dict((key, value) for key, value in args.items() if not CONNECTION.match(key))


def logs_in(args):
    """Whether the example logs in with a password (root@pam only), not with a token."""
    return isinstance(args, dict) and 'api_password' in args


def is_pbs(module, task):
    """Whether the task is meant for a backup server (its own module, or its example's api_host names one)."""
    if module.startswith('pbs_'):
        return True
    args = task.get(PREFIX + module)
    return isinstance(args, dict) and 'pbs' in str(args.get('api_host', ''))


def rewrite(task, sim_connection, password):
    """The task with the example's connection settings replaced by the simulator's (``sim_connection``), in its
    module args and its module_defaults (which would otherwise replace the block's); ``password``: root@pam's."""
    task = copy.deepcopy(task)
    for key, value in list(task.items()):
        if key.startswith(PREFIX) and isinstance(value, dict):
            task[key] = without_connection(value)
            if logs_in(value):
                task[key].update(password)
        elif key == 'module_defaults':
            task[key] = dict((group, dict(without_connection(args), **sim_connection)) for group, args in value.items())
        elif key in ('block', 'rescue', 'always'):
            task[key] = [rewrite(inner, sim_connection, password) for inner in value]
    return task


def renamed(module, task):
    task['name'] = '%s: %s' % (module, task.get('name', '(unnamed)'))
    for key in ('block', 'rescue', 'always'):
        for inner in task.get(key, []):
            renamed(module, inner)
    return task


def collect(sim):
    """(module, tasks, skipped) for every module: its runnable example tasks and the skips with their reasons."""
    found = []
    for path in sorted(glob.glob(os.path.join(MODULES, '*.py'))):
        module = os.path.splitext(os.path.basename(path))[0]
        text = examples_text(path)
        tasks = yaml.safe_load(text)
        reasons, starts = skips(text)
        assert isinstance(tasks, list) and len(tasks) == starts, \
            '%s: EXAMPLES must be a list of tasks, each starting with "- " in column 0' % module
        if None in reasons:
            found.append((module, [], ['%s (all): %s' % (module, reasons[None])]))
            continue
        run = []
        for index, task in enumerate(tasks):
            if index in reasons:
                continue
            pbs = is_pbs(module, task)
            password = {'api_user': 'root@pam', 'api_password': sim.root_password, 'api_token_id': None,
                        'api_token_secret': None}
            run.append((pbs, renamed(module, rewrite(task, pbs_connection(sim) if pbs else connection(sim), password))))
        skipped = ['%s: %s: %s' % (module, tasks[index].get('name'), reason)
                   for index, reason in sorted(reasons.items())]
        found.append((module, run, skipped))
    return found


def pbs_connection(sim):
    return {'api_host': sim.pbs_members, 'api_token_id': sim.pbs_token_id, 'api_token_secret': sim.pbs_token_secret,
            'ca_path': sim.ca_path, 'api_timeout': 5}


@pytest.fixture
def sim():
    # The examples name their nodes pve1, pve2, ... as the README's cluster does.
    with Simulator(members=3, node_names=NODES) as simulator:
        seed(simulator)
        yield simulator


def seed(sim):
    """What the examples' text takes as already there ("created with pveum", "Ceph installed", a set they name)."""
    ceph_init(sim.state, nodes=NODES[:3])
    disks = zfs_init(sim.state, nodes=NODES)
    disks['pve1']['/dev/sdb']['by_id'] = '/dev/disk/by-id/ata-SAMSUNG_MZ7KH960HAJR-00005_S47NNA0M123456'
    for userid in ('ci@pve', 'monitor@pve'):
        sim.state.add_user(userid)
    sim.state.add_token('ci@pve', 'deploy')
    add_guest(sim.state, 'lxc', 101, 'pve1',
              {'hostname': 'web1', 'cores': 2, 'unprivileged': 1, 'rootfs': 'local-lvm:vm-101-disk-0,size=8G'})
    add_guest(sim.state, 'qemu', 120, 'pve1', {'name': 'db1', 'scsi0': 'local-lvm:vm-120-disk-0,size=32G'})
    add_snapshot(sim.state, 120, 'before-upgrade')
    seed_directory(sim.state, 'corp', users=[{'uid': 'alice'}], groups={'ops': ['alice']})
    for method, path, form in (
            ('POST', '/cluster/firewall/aliases', {'name': 'vpn-pool', 'cidr': '10.8.0.0/24'}),
            ('POST', '/cluster/firewall/ipset', {'name': 'admins'}),
            ('POST', '/cluster/firewall/groups', {'group': 'webservers'}),
            ('POST', '/storage', {'storage': 'nfs-isos', 'type': 'nfs', 'server': '10.0.0.5', 'export': '/isos',
                                  'content': 'iso'}),
            ('POST', '/access/domains', {'realm': 'corp', 'type': 'ldap', 'server1': 'ldap.example.org',
                                         'base_dn': 'dc=example,dc=org', 'user_attr': 'uid'})):
        status, body = sim.request(method, path, form)[:2]
        assert status == 200, (path, body)
    sim.pbs_state.add_token('pve-cluster@pbs', 'old')
    for path, form in (('/config/datastore', {'name': 'cluster', 'path': '/mnt/datastore/cluster'}),
                       ('/config/prune', {'id': 'cluster-retention', 'store': 'cluster', 'schedule': 'daily',
                                          'keep-last': 3, 'keep-daily': 7, 'keep-monthly': 12})):
        status, body = sim.pbs_request('POST', path, form)[:2]
        assert status == 200, (path, body)


def files(directory):
    """The controller-side files the examples read, next to the playbook (lookup('file'), a local src)."""
    chain, key = make_pair('pve1.example.org')[:2]
    for name, content in (('files/deploy.pub', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample deploy@example.org\n'),
                          ('files/installer.iso', 'not really an ISO\n'),
                          ('certs/pve1.example.org.fullchain.pem', chain)):
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    return key


def test_every_module_example_runs_in_check_mode(sim, playbook, tmp_path, monkeypatch):
    collected = collect(sim)
    assert len(collected) == len(glob.glob(os.path.join(MODULES, '*.py')))
    tasks = []
    for module, module_tasks, _skipped in collected:
        for pbs, task in module_tasks:
            tasks.append({'name': '%s examples' % module, 'block': [task],
                          'module_defaults': {'group/homeflare.proxmox.proxmox': pbs_connection(sim) if pbs
                                              else connection(sim)}})
    # Run on pve1, so an example's {{ inventory_hostname }} is a node.
    tls_key = files(tmp_path)
    monkeypatch.chdir(tmp_path)  # a path option (storage_content's src) is relative to where the play runs
    run = playbook(tasks, check=True, defaults={}, play_extra={'vars': dict(VARS, pve1_tls_key=tls_key)},
                   hosts=['pve1'], env={'PVE_SUBSCRIPTION_KEY': 'pve4c-0123456789'})
    skipped = [line for _module, _tasks, lines in collected for line in lines]
    print('skipped examples:\n  ' + '\n  '.join(skipped))
    failed = ['%s: %s' % (line['task'], line['result'].get('msg')) for line in run.failed]
    assert run.rc == 0 and not failed, '\n'.join(failed) or run.output[-3000:]
    # Every example task ran (a task with its own `when` may be skipped): none lost to a stopped play.
    ran = set(line['task'] for line in run.results)
    assert [name for name in expected(tasks) if name not in ran] == []


def expected(tasks):
    """The names of the tasks that must report a result: all but blocks and those with a `when` of their own."""
    for task in tasks:
        if 'block' in task:
            yield from expected(task['block'])
        elif 'when' not in task:
            yield task['name']
