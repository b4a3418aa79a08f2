"""The drift report callback (homeflare.proxmox.drift_report), through real ansible-playbook runs.

Each run enables it beside the test recorder and the default stdout callback, and batches many
objects, so the whole file costs a few playbook runs.
"""

import json
import os
from xml.etree import ElementTree

import pytest
import xmlschema
from markdown_it import MarkdownIt

from simulator.pve.handlers.guests import add_guest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DECLARE = os.path.join(REPO, 'plugins', 'modules', 'declare.py')
JUNIT_SCHEMA = os.path.join(REPO, 'tests', 'unit', 'data', 'junit.xsd')


def report_env(path, **renderings):
    env = {
        'ANSIBLE_CALLBACKS_ENABLED': 'record_results,homeflare.proxmox.drift_report',
        'HOMEFLARE_DRIFT_REPORT': str(path),
    }
    for name, target in renderings.items():  # junit=..., markdown=...
        env['HOMEFLARE_DRIFT_REPORT_%s' % name.upper()] = str(target)
    return env


def read_report(path):
    text = path.read_text()
    return text, json.loads(text)


def api(sim, calls):
    for method, path, form in calls:
        status, body = sim.request(method, path, form)
        assert status == 200, (method, path, status, body)


def row_of(report, task, item=None):
    rows = [row for row in report['objects'] if row['task'] == task and row.get('item') == item]
    assert len(rows) == 1, (task, item, report['objects'])
    return rows[0]


@pytest.mark.compat
def test_a_check_run_reports_every_object_and_no_secret(sim, playbook, tmp_path):
    secret = 'DriftRep0rt-Passw0rd-k3'
    api(sim, [('POST', '/pools', {'poolid': 'same', 'comment': 'Same'}),
              ('POST', '/pools', {'poolid': 'edited', 'comment': 'edited in the UI'})])
    path = tmp_path / 'reports' / 'ci' / 'drift.json'  # parent directories are created
    tasks = [
        {'name': 'Matching pool', 'homeflare.proxmox.pool': {'poolid': 'same', 'comment': 'Same'}},
        {'name': 'Drifted pool', 'homeflare.proxmox.pool': {'poolid': 'edited', 'comment': 'Lab guests'}},
        {'name': 'Missing pool', 'homeflare.proxmox.pool': {'poolid': 'fresh', 'comment': 'New'}},
        {'name': 'Bad pool', 'homeflare.proxmox.pool': {'poolid': 'bad pool!'}, 'ignore_errors': True},
        {'name': 'Backup storage', 'homeflare.proxmox.storage': {
            'storage': 'pbs1', 'type': 'pbs', 'server': 'backup.invalid', 'datastore': 'main',
            'username': 'sync@pbs', 'password': secret, 'content': ['backup']}},
        {'name': 'Hidden pool', 'homeflare.proxmox.pool': {'poolid': 'edited', 'comment': secret}, 'no_log': True},
        {'name': 'Skipped pool', 'homeflare.proxmox.pool': {'poolid': 'never'}, 'when': False},
        {'name': 'Not a proxmox task', 'ansible.builtin.debug': {'msg': 'not in the report'}},
    ]
    junit, markdown = tmp_path / 'junit' / 'drift.xml', tmp_path / 'summary.md'
    sim.clear_log()
    run = playbook(tasks, check=True, diff=True, env=report_env(path, junit=junit, markdown=markdown))
    assert run.rc == 0, run
    assert sim.writes() == []
    assert len(run.results) == 7, run.results  # the test recorder still sees every result

    text, report = read_report(path)
    assert report['version'] == 1 and report['check_mode'] is True
    assert report['generated'].endswith('Z')
    assert report['summary'] == {'judged': 5, 'matched': 1, 'drifted': 1, 'missing': 2, 'failed': 1,
                                 'hidden': 1, 'skipped': 1}
    assert [row['task'] for row in report['objects']] == [
        'Matching pool', 'Drifted pool', 'Missing pool', 'Bad pool', 'Backup storage', 'Hidden pool', 'Skipped pool']
    assert row_of(report, 'Matching pool') == {
        'module': 'pool', 'task': 'Matching pool', 'host': 'localhost', 'read': 'found', 'action': 'none',
        'changed': [], 'failed': False, 'verdict': 'matched'}
    drifted = row_of(report, 'Drifted pool')
    assert (drifted['read'], drifted['action'], drifted['changed'], drifted['verdict']) == (
        'found', 'update', ['comment'], 'drifted')
    missing = row_of(report, 'Missing pool')
    assert (missing['read'], missing['action'], missing['verdict']) == ('absent', 'create', 'missing')
    assert 'comment' in missing['changed']
    failed = row_of(report, 'Bad pool')
    assert failed['failed'] is True and failed['verdict'] == 'failed'
    assert 'poolid' in failed['msg']
    storage = row_of(report, 'Backup storage')
    assert (storage['module'], storage['action'], storage['verdict']) == ('storage', 'create', 'missing')
    assert 'password' not in storage['changed']
    hidden = row_of(report, 'Hidden pool')
    assert hidden == {'module': 'pool', 'task': 'Hidden pool', 'host': 'localhost', 'read': None, 'action': None,
                      'changed': [], 'failed': False, 'hidden': True, 'msg': 'output hidden by no_log',
                      'verdict': 'hidden'}
    assert row_of(report, 'Skipped pool')['verdict'] == 'skipped'
    # Only names and verdicts: no object values, diffs or module arguments, and no secret.
    for forbidden in (secret, sim.token_secret, 'edited in the UI', 'Lab guests', 'backup.invalid', 'invocation',
                      '"diff"', '"object"'):
        assert forbidden not in text, forbidden

    # The printed table: the counts, then each drifted, missing or failed object with its fields.
    output = run.output
    assert 'DRIFT REPORT (check mode): %s' % path in output
    assert 'judged 5  matched 1  drifted 1  missing 2  failed 1  (not judged: hidden 1, skipped 1)' in output
    assert 'drifted  pool: Drifted pool [localhost]: update comment' in output
    assert 'missing  pool: Missing pool [localhost]: create ' in output
    assert 'missing  storage: Backup storage [localhost]: create ' in output
    assert 'failed   pool: Bad pool [localhost]: ' in output
    assert 'Matching pool [localhost]' not in output.split('DRIFT REPORT')[1]
    assert secret not in output and sim.token_secret not in output

    # The same judgement as JUnit XML a CI system reads, and as a Markdown job summary; neither holds a value.
    junit_text, markdown_text = junit.read_text(), markdown.read_text()
    xmlschema.XMLSchema(JUNIT_SCHEMA).validate(junit_text)
    cases = {case.get('name'): case for case in ElementTree.fromstring(junit_text).iter('testcase')}
    assert sorted(cases) == sorted('%s: %s [localhost]' % (row['module'], row['task']) for row in report['objects'])
    assert cases['pool: Drifted pool [localhost]'].find('failure').get('message') == 'update comment'
    assert cases['pool: Missing pool [localhost]'].find('failure').get('type') == 'missing'
    assert 'poolid' in cases['pool: Bad pool [localhost]'].find('failure').get('message')
    assert cases['pool: Hidden pool [localhost]'].find('skipped') is not None
    assert list(cases['pool: Matching pool [localhost]']) == []
    assert '| pool: Drifted pool | localhost | drifted | update | comment |' in markdown_text
    assert '| storage: Backup storage | localhost | missing | create |' in markdown_text
    assert MarkdownIt('commonmark').enable('table').render(markdown_text).count('<table>') == 3
    for rendering in (junit_text, markdown_text):
        for forbidden in (secret, sim.token_secret, 'edited in the UI', 'Lab guests', 'backup.invalid'):
            assert forbidden not in rendering, forbidden


@pytest.mark.compat
def test_loop_items_are_rows_of_their_own(sim, playbook, tmp_path):
    secret = 'L00p-Item-Secret-v8'
    api(sim, [('POST', '/pools', {'poolid': 'l1', 'comment': ''})])
    path = tmp_path / 'loop.json'
    tasks = [
        {'name': 'Pools by name', 'homeflare.proxmox.pool': {'poolid': '{{ item }}'},
         'loop': ['l1', 'l2', 'bad pool!'], 'ignore_errors': True},
        # Dict items may hold secrets: without a scalar label, rows name them by position.
        {'name': 'Pools by dict', 'homeflare.proxmox.pool': {'poolid': '{{ item.id }}'},
         'loop': [{'id': 'd1', 'token': secret}, {'id': 'l1', 'token': secret}]},
        {'name': 'Pools by label', 'homeflare.proxmox.pool': {'poolid': '{{ item.id }}'},
         'loop': [{'id': 'l1', 'token': secret}], 'loop_control': {'label': '{{ item.id }}'}},
        # no_log items are counted, never labelled (ansible-core 2.17 also drops the loop's own results).
        {'name': 'Hidden loop', 'homeflare.proxmox.pool': {'poolid': '{{ item }}'}, 'loop': ['h1', 'h2'],
         'no_log': True},
    ]
    run = playbook(tasks, check=True, env=report_env(path))
    assert run.rc == 0, run

    text, report = read_report(path)
    assert [(row['task'], row.get('item'), row['verdict']) for row in report['objects']] == [
        ('Pools by name', 'l1', 'matched'),
        ('Pools by name', 'l2', 'missing'),
        ('Pools by name', 'bad pool!', 'failed'),
        ('Pools by dict', 'item 1', 'missing'),
        ('Pools by dict', 'item 2', 'matched'),
        ('Pools by label', 'l1', 'matched'),
        ('Hidden loop', 'item 1', 'hidden'),
        ('Hidden loop', 'item 2', 'hidden'),
    ]
    assert report['summary'] == {'judged': 6, 'matched': 3, 'drifted': 0, 'missing': 2, 'failed': 1,
                                 'hidden': 2, 'skipped': 0}
    assert 'poolid' in row_of(report, 'Pools by name', 'bad pool!')['msg']
    assert secret not in text
    assert 'missing  pool: Pools by name (item=l2) [localhost]: create' in run.output
    assert 'failed   pool: Pools by name (item=bad pool!) [localhost]: ' in run.output


@pytest.mark.skipif(not os.path.exists(DECLARE), reason='plugins/modules/declare.py does not exist yet')
def test_a_declare_batch_is_one_row_per_object(sim, playbook, tmp_path):
    api(sim, [('POST', '/pools', {'poolid': 'a', 'comment': ''})])
    path = tmp_path / 'declare.json'
    objects = {'pool': [{'poolid': 'a'}, {'poolid': 'b', 'comment': 'x'}]}
    tasks = [
        {'name': 'Declare the pools', 'homeflare.proxmox.declare': {'objects': objects}},
        # A batch failed by fail_on_drift still carries its objects: they are drifted or missing, not failed.
        {'name': 'Gate on drift', 'homeflare.proxmox.declare': {'objects': objects, 'fail_on_drift': True},
         'ignore_errors': True},
        # An invalid declaration carries no objects: the task is one failed row.
        {'name': 'Invalid batch', 'homeflare.proxmox.declare': {'objects': {'pool': [{'poolid': 'bad pool!'}]}},
         'ignore_errors': True},
    ]
    sim.clear_log()
    run = playbook(tasks, check=True, diff=True, env=report_env(path))
    assert run.rc == 0, run
    assert sim.writes() == []
    assert [line['status'] for line in run.results] == ['ok', 'failed', 'failed'], run.results

    text, report = read_report(path)
    assert report['summary'] == {'judged': 5, 'matched': 2, 'drifted': 0, 'missing': 2, 'failed': 1,
                                 'hidden': 0, 'skipped': 0}
    assert [(row['module'], row.get('name'), row['task'], row['read'], row['action'], row['verdict'])
            for row in report['objects']] == [
        ('pool', "pool 'a'", 'Declare the pools', 'found', 'none', 'matched'),
        ('pool', "pool 'b'", 'Declare the pools', 'absent', 'create', 'missing'),
        ('pool', "pool 'a'", 'Gate on drift', 'found', 'none', 'matched'),
        ('pool', "pool 'b'", 'Gate on drift', 'absent', 'create', 'missing'),
        ('declare', None, 'Invalid batch', None, None, 'failed'),
    ]
    assert 'comment' in report['objects'][1]['changed']
    assert 'poolid' in report['objects'][4]['msg']
    assert '"object"' not in text and '"x"' not in text
    assert "missing  pool 'b' (Declare the pools) [localhost]: create comment" in run.output
    assert 'failed   declare: Invalid batch [localhost]: ' in run.output


def test_a_guest_in_the_wrong_power_state_and_a_pending_apply_are_drift(sim, playbook, tmp_path):
    add_guest(sim.state, 'lxc', 201, 'node1', config={'hostname': 'web1', 'rootfs': 'local-lvm:4'})
    api(sim, [('POST', '/cluster/sdn/zones', {'zone': 'lab', 'type': 'simple'})])  # staged, not applied
    path = tmp_path / 'drift.json'
    tasks = [{'name': 'Started guest', 'homeflare.proxmox.lxc': {'node': 'node1', 'vmid': 201, 'hostname': 'web1',
                                                                 'state': 'started'}},
             {'name': 'SDN applied', 'homeflare.proxmox.sdn_apply': {}}]
    run = playbook(tasks, check=True, env=report_env(path))
    assert run.rc == 0, run
    _text, report = read_report(path)
    assert [(row['task'], row['action'], row['verdict']) for row in report['objects']] == [
        ('Started guest', 'power', 'drifted'), ('SDN applied', 'apply', 'drifted')]
    assert report['summary']['drifted'] == 2
