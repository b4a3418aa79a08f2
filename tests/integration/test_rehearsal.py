"""The rehearsal twin (docs/rehearsal.md): a cluster populated through the API is exported by the real export module,
``serve.py --seed FILE`` starts a twin from the file as a subprocess, and the same declaration applied to the twin
(a real run, not check mode) writes nothing; a changed declaration writes exactly its changes there. The same for a
backup server's export.
"""

import copy
import json
import time

import yaml

from conftest import REPO, connection
from test_day0_declare import declare as day0_declare, prepare_apt, prepare_certificates
from test_export import export_with_the_example, populated
from test_pbs_families import backup_server_declaration, pbs_api, pbs_connection, role_task
from test_storage_hw_families import as_root

from simulator.fixtures import serve_process
from simulator.server import is_dry_run
from simulator.twin import seeded_simulator


class Twin:
    """A running ``serve.py --seed`` and its contract line."""

    def __init__(self, proc, log):
        self.proc = proc
        self.log_path = log
        self.line = json.loads(proc.stdout.readline())

    def connection(self, server='pve'):
        line = self.line
        if server == 'pbs':
            return {'api_host': line['pbs_members'], 'api_token_id': line['pbs_token_id'],
                    'api_token_secret': line['pbs_token_secret'], 'ca_path': line['ca_path'], 'api_timeout': 10}
        return {'api_host': line['members'], 'api_token_id': line['token_id'],
                'api_token_secret': line['token_secret'], 'ca_path': line['ca_path'], 'api_timeout': 10}

    def log(self):
        with open(self.log_path, encoding='utf-8') as handle:
            return [json.loads(line) for line in handle if line.strip()]

    def writes(self):
        """What Simulator.writes() counts, read from the twin's request log file."""
        return [(entry['method'], entry['path']) for entry in self.log()
                if entry['method'] in ('POST', 'PUT', 'DELETE') and entry['path'] != '/access/ticket'
                and not is_dry_run(entry)]

    def clear(self):
        open(self.log_path, 'w', encoding='utf-8').close()  # the twin appends: an emptied file holds what comes next


def start_twin(tmp_path, *files):
    """``serve.py --seed FILE ...`` as a user runs it (from the clone), until the caller's block ends."""
    log = tmp_path / 'twin.log'
    extra = []
    for path in files:
        extra += ['--seed', str(path)]
    return serve_process(REPO, log, *extra), log


def secret_variables(exported):
    """The variables the export's placeholders name (a vault in real life)."""
    return dict((entry['variable'], 'provided-in-a-vault') for entry in exported['secrets'])


def assert_every_family_seeded(twin, exported):
    report = twin.line['twin']
    assert report['unseeded'] == [], report['unseeded']
    # every family the export wrote, with every one of its objects, judged a match on the twin
    assert report['seeded'] == exported['counts'], (report['seeded'], exported['counts'])


def test_a_cluster_export_seeds_a_twin_that_takes_the_declaration_as_a_no_op(sim, playbook, tmp_path):
    populated(sim, playbook)
    destination = tmp_path / 'cluster.yml'
    exported = export_with_the_example(playbook, destination).result(0)
    variables = secret_variables(exported)

    started = time.monotonic()
    serving, log = start_twin(tmp_path, destination)
    with serving as proc:
        twin = Twin(proc, log)
        startup = time.monotonic() - started
        assert twin.line['twin']['nodes'] == ['node1', 'node2', 'node3']
        assert startup < 30, startup
        assert_every_family_seeded(twin, exported)
        assert twin.log() == []  # seeding's own requests are not the user's

        # the same declaration, for real: every object adopted, nothing written; exported again, the same
        tasks = [{'name': 'Apply', 'homeflare.proxmox.declare': {'objects': '{{ cluster_objects }}'}},
                 {'name': 'Export', 'homeflare.proxmox.export': {}}]
        run = playbook(tasks, defaults=twin.connection(),
                       play_extra={'vars_files': [str(destination)], 'vars': variables})
        assert run.rc == 0, run
        applied, again = run.result(0), run.result(1)
        assert applied['changed'] is False and applied['summary']['matched'] == sum(exported['counts'].values())
        assert twin.writes() == []
        assert again['objects'] == exported['objects']

        # a changed declaration: one storage option, one new user, one guest's memory; exactly those writes
        changed = copy.deepcopy(yaml.safe_load(destination.read_text()))
        objects = changed['cluster_objects']
        backup1 = [entry for entry in objects['storage'] if entry['storage'] == 'backup1'][0]
        backup1['prune_backups'] = 'keep-daily=14,keep-last=3'
        objects['user'].append({'userid': 'bob@pve', 'comment': 'New operator'})
        db1 = [entry for entry in objects['vm'] if entry['vmid'] == 202][0]
        db1['memory'] = '2048'
        edited = tmp_path / 'changed.yml'
        edited.write_text(yaml.safe_dump(changed))
        twin.clear()
        run = playbook([tasks[0]], defaults=twin.connection(),
                       play_extra={'vars_files': [str(edited)], 'vars': variables})
        assert run.rc == 0, run
        assert run.result(0)['summary']['update'] == 2 and run.result(0)['summary']['create'] == 1
        assert sorted(twin.writes()) == [('POST', '/access/users'), ('PUT', '/nodes/node1/qemu/202/config'),
                                         ('PUT', '/storage/backup1')], twin.writes()
        forms = dict(((entry['method'], entry['path']), entry['form']) for entry in twin.log()
                     if entry['method'] != 'GET')
        assert forms[('PUT', '/storage/backup1')]['prune-backups'] == 'keep-daily=14,keep-last=3'
        assert forms[('PUT', '/nodes/node1/qemu/202/config')]['memory'] == '2048'
        assert forms[('POST', '/access/users')]['userid'] == 'bob@pve'


def test_a_backup_server_export_seeds_the_twin_s_backup_server(sim, playbook, tmp_path):
    variables = dict(backup_server_declaration(), backup_server_connection=pbs_connection(sim))
    pbs_api(sim, [('POST', '/access/users', {'userid': 'ci@pbs'}), ('POST', '/access/users/ci@pbs/token/deploy', {})])
    assert playbook([role_task(variables)], defaults={}).rc == 0
    run = playbook([{'name': 'Export', 'homeflare.proxmox.export': {'server': 'pbs'}}], defaults=pbs_connection(sim))
    assert run.rc == 0, run
    exported = run.result(0)
    destination = tmp_path / 'pbs.json'  # the export's whole result, as JSON
    destination.write_text(json.dumps(exported))

    serving, log = start_twin(tmp_path, destination)
    with serving as proc:
        twin = Twin(proc, log)
        assert twin.line['twin']['nodes'] == ['node1']  # a backup server's objects name no PVE node
        assert_every_family_seeded(twin, exported)
        run = playbook([role_task({'backup_server_objects': '{{ exported.objects }}',
                                   'backup_server_connection': twin.connection('pbs')}),
                        {'name': 'Export', 'homeflare.proxmox.export': dict(twin.connection('pbs'), server='pbs')}],
                       defaults={}, play_extra={'vars': dict(secret_variables(exported), exported=exported)})
        assert run.rc == 0, run
        assert twin.writes() == []
        assert run.result()['objects'] == exported['objects']


def test_the_day0_families_seed_too(sim, playbook, tmp_path):
    """Subscriptions, certificates (their keys never read back), ACME accounts (registered with the twin's CA),
    plugins (a secret mapping) and certificates ordered: each seeded and judged a match (in this process)."""
    prepare_apt(sim)
    prepare_certificates(sim)
    day0_declare(sim, playbook)
    run = playbook([{'name': 'Export', 'homeflare.proxmox.export': {}}], defaults=as_root(sim, connection(sim)))
    assert run.rc == 0, run
    exported = run.result(0)
    assert {'subscription', 'certificate', 'acme_account', 'acme_plugin', 'acme_certificate'} <= set(exported['counts'])
    destination = tmp_path / 'day0.json'
    destination.write_text(json.dumps(exported))
    twin, report = seeded_simulator([str(destination)])
    twin.stop()
    assert report['unseeded'] == [], report['unseeded']
    assert report['seeded'] == exported['counts']
