"""The Proxmox Backup Server job families (remote, sync, verify and prune jobs) through real ansible-playbook runs,
on both execution paths, against the simulator's PBS server.

One play per step holds every family, the remote before the sync job that names it (and after it on removal); the
datastores the jobs name are created through PBS's API first. The lifecycle is the integration matrix's: check-mode
create writes nothing, create, a re-run with no write, drift named field by field and repaired in one write (with
the file's digest), absent twice (the module path skips the two confirming re-runs). Then each family's own
rules: a prune job's narrowed retention, PBS's own "missing" answer, the remote's write-only password, a push
job found through the list of every direction.

``MATRIX`` and ``BAD_INPUT`` have the shapes of test_matrix.FAMILIES and test_bad_input.CORPUS.
"""

import pytest

from conftest import EXECUTION_PATHS, reconfirms
from test_matrix import assert_drift_named
from test_pbs_families import pbs_api, pbs_connection

PASSWORD = 'remote-Secret-7f3a'
FINGERPRINT = ':'.join(['AB', 'cd'] * 16)

MATRIX = {
    'pbs_remote': dict(
        prefix='/config/remote',
        args={'name': 'main', 'host': 'pbs-main.example.org', 'auth_id': 'sync@pbs!offsite', 'password': PASSWORD,
              'fingerprint': FINGERPRINT, 'comment': 'Main site'},
        # host and comment changed by hand; the port is undeclared: not named, not repaired
        drift=[('PUT', '/config/remote/main', {'host': 'pbs-old.example.org', 'comment': 'old', 'port': '8008'})],
        drifted={'host': 'host', 'comment': 'comment'},
        absent={'name': 'main', 'state': 'absent'},
    ),
    'pbs_sync_job': dict(
        prefix='/config/sync',
        args={'id': 'from-main', 'store': 'offsite', 'remote': 'main', 'remote_store': 'cluster',
              'schedule': 'hourly', 'group_filter': ['type:vm', 'exclude:group:vm/9000'], 'transfer_last': 7,
              'remove_vanished': False, 'comment': 'Pull the main site'},
        drift=[('PUT', '/config/sync/from-main', {'schedule': 'daily', 'group-filter': ['type:ct'],
                                                  'rate-in': '10 MiB'})],
        drifted={'schedule': 'schedule', 'group_filter': 'group-filter'},
        absent={'id': 'from-main', 'state': 'absent'},
    ),
    'pbs_verify_job': dict(
        prefix='/config/verify',
        args={'id': 'verify-all', 'store': 'offsite', 'schedule': 'weekly', 'ignore_verified': True,
              'outdated_after': 30, 'comment': 'Weekly'},
        # verified snapshots no longer skipped (PBS's default true goes back by delete=); threads undeclared
        drift=[('PUT', '/config/verify/verify-all', {'schedule': 'daily', 'ignore-verified': 'false',
                                                     'read-threads': '2'})],
        drifted={'schedule': 'schedule', 'ignore_verified': 'ignore-verified'},
        absent={'id': 'verify-all', 'state': 'absent'},
    ),
    'pbs_prune_job': dict(
        prefix='/config/prune',
        args={'id': 'retention', 'store': 'offsite', 'schedule': 'daily', 'keep_last': 3, 'keep_daily': 7,
              'keep_weekly': 4, 'comment': 'A month'},
        # fewer dailies by hand: bringing them back to 7 widens, so no confirmation; max-depth undeclared
        drift=[('PUT', '/config/prune/retention', {'schedule': 'weekly', 'keep-daily': '5', 'max-depth': '2'})],
        drifted={'schedule': 'schedule', 'keep_daily': 'keep-daily'},
        absent={'id': 'retention', 'state': 'absent'},
    ),
}
MODULES = list(MATRIX)


def remote(**changes):
    return dict(MATRIX['pbs_remote']['args'], **changes)


def sync(**changes):
    return dict(MATRIX['pbs_sync_job']['args'], **changes)


def verify(**changes):
    return dict(MATRIX['pbs_verify_job']['args'], **changes)


def prune(**changes):
    return dict(MATRIX['pbs_prune_job']['args'], **changes)


BAD_INPUT = [
    ('pbs_remote', remote(name='ab'), 'name'),
    ('pbs_remote', remote(comment='x' * 129), 'comment'),
    ('pbs_remote', remote(host='pbs main'), 'host'),
    ('pbs_remote', remote(port=70000), 'port'),
    ('pbs_remote', remote(auth_id='sync'), 'auth_id'),
    ('pbs_remote', remote(fingerprint='AB:CD'), 'fingerprint'),
    ('pbs_sync_job', sync(id='x' * 33), 'id'),
    ('pbs_sync_job', sync(comment='two\nlines'), 'comment'),
    ('pbs_sync_job', sync(schedule='every full moon'), 'schedule'),
    ('pbs_sync_job', sync(group_filter=['type:lxc']), 'group_filter'),
    ('pbs_sync_job', sync(ns='a/b/c/d', max_depth=4), 'max_depth'),
    ('pbs_sync_job', sync(sync_direction='sideways'), 'sync_direction'),
    ('pbs_sync_job', sync(transfer_last=0), 'transfer_last'),
    ('pbs_verify_job', verify(id='vj'), 'id'),
    ('pbs_verify_job', verify(comment='x' * 129), 'comment'),
    ('pbs_verify_job', verify(max_depth=8), 'max_depth'),
    ('pbs_verify_job', verify(outdated_after=-1), 'outdated_after'),
    ('pbs_verify_job', verify(store='-bad'), 'store'),
    ('pbs_prune_job', prune(id='-retention'), 'id'),
    ('pbs_prune_job', prune(comment='x' * 129), 'comment'),
    ('pbs_prune_job', prune(keep_daily=0), 'keep_daily'),
    ('pbs_prune_job', prune(schedule='now and then'), 'schedule'),
    ('pbs_prune_job', prune(schedule=''), 'schedule'),
    ('pbs_prune_job', prune(ns='a/b', max_depth=6), 'max_depth'),
    ('pbs_prune_job', prune(confirm_narrowing='maybe'), 'confirm_narrowing'),
]


def of(module, entries):
    prefix = MATRIX[module]['prefix']
    return [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]


def seed_datastores(sim, *names):
    """The datastores the jobs name, created through PBS's API (a task that ends at once)."""
    for name in names:
        pbs_api(sim, [('POST', '/config/datastore', {'name': name, 'path': '/mnt/datastore/%s' % name})])
    for name in names:
        assert name in sim.pbs_state.datastores


def connected(sim, args, connection=None):
    """The task's options with the PBS connection (in the task, so the test does not depend on the action group)."""
    return dict(connection or pbs_connection(sim), **args)


def step(sim, playbook, path, args_key, check=False, diff=False):
    modules = [module for module in MODULES if MATRIX[module][args_key] is not None]
    if args_key == 'absent':
        modules = modules[::-1]
    sim.clear_log()
    run = playbook([{'name': module, 'homeflare.proxmox.%s' % module: connected(sim, MATRIX[module][args_key])}
                    for module in modules], check=check, diff=diff, defaults={}, env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    return run, dict((line['task'], line['result']) for line in run.results)


def play(sim, playbook, tasks, path='controller', check=False, diff=False, verbosity=0):
    """Tasks (name, module, args[, extra]) in one play; returns (run, {name: line})."""
    sim.clear_log()
    run = playbook([dict({'name': name, 'homeflare.proxmox.%s' % module: connected(sim, args)},
                         **(extra[0] if extra else {}))
                    for name, module, args, *extra in tasks], check=check, diff=diff, defaults={},
                   env=EXECUTION_PATHS[path], verbosity=verbosity)
    return run, dict((line['task'], line) for line in run.results)


def sent(form):
    """The wire keys a write set or deleted."""
    form = dict(form or {})
    deleted = form.pop('delete', [])
    return set(form) | set([deleted] if isinstance(deleted, str) else deleted)


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_the_pbs_job_families_lifecycle(sim, playbook, path):
    seed_datastores(sim, 'offsite', 'cluster')
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        assert outcome[module]['plan']['action'] == 'create', (module, outcome[module])
    assert sim.writes() == []

    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['changed'] is True, (module, outcome[module])
        assert len(of(module, sim.writes())) == 1, (module, sim.writes())
    state = sim.pbs_state
    assert state.remotes['main']['password'] == PASSWORD and state.remotes['main']['fingerprint'] == FINGERPRINT.lower()
    assert sorted(state.sync_jobs['from-main']['group-filter']) == ['exclude:group:vm/9000', 'type:vm']
    assert 'ignore-verified' not in state.verify_jobs['verify-all']  # PBS's default, not sent
    assert state.prune_jobs['retention']['keep-daily'] == 7
    assert PASSWORD not in run.output

    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['plan'] == {'read': 'found', 'action': 'none', 'changed': []}, module
    assert sim.writes() == []

    for module in MODULES:
        pbs_api(sim, MATRIX[module]['drift'])
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    assert sim.writes() == []
    for module in MODULES:
        result = outcome[module]
        assert_drift_named(result, MATRIX[module]['drifted'])
        assert 'password' not in result['diff']['before'] and 'password' not in result['diff']['after']
        assert not result.get('warnings'), result  # widening the retention is no narrowing

    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        written = of(module, sim.writes())
        assert len(written) == 1, (module, written)
        assert set(MATRIX[module]['drifted'].values()) == sent(written[0]['form']) - {'digest'}, written
        assert written[0]['form'].get('digest'), written  # the config file's digest goes with the update
        assert 'password' not in written[0]['form']
    assert state.remotes['main']['port'] == 8008
    assert state.sync_jobs['from-main']['rate-in'] == '10 MiB'
    assert state.verify_jobs['verify-all']['read-threads'] == 2
    assert state.prune_jobs['retention']['max-depth'] == 2  # undeclared: left alone (recursion stays limited)
    assert 'ignore-verified' not in state.verify_jobs['verify-all']
    if reconfirms(path):
        run, outcome = step(sim, playbook, path, 'args')
        assert sim.writes() == []

    run, outcome = step(sim, playbook, path, 'absent')
    for module in MODULES:
        assert outcome[module]['plan']['action'] == 'delete', (module, outcome[module])
        assert len(of(module, sim.writes())) == 1, module
    if reconfirms(path):
        run, outcome = step(sim, playbook, path, 'absent')
        for module in MODULES:
            assert outcome[module]['changed'] is False and outcome[module]['object'] == {}, module
        assert sim.writes() == []
    assert PASSWORD not in run.output


NARROWING = 'the next run deletes backups'


def changed(line):
    return line['status'] == 'ok' and line['result']['changed'] is True


def unchanged(line):
    return line['status'] == 'ok' and line['result']['changed'] is False


def warnings_of(line):
    return ' '.join(line['result'].get('warnings') or [])


def test_a_narrowed_retention_warns_in_check_mode_and_needs_the_confirmation(sim, playbook):
    path = 'controller'  # the refusal is the family's, the same on the module path
    seed_datastores(sim, 'offsite')
    run, lines = play(sim, playbook, [('create', 'pbs_prune_job', prune())], path)
    assert changed(lines['create']) and not warnings_of(lines['create'])

    fewer = prune(keep_daily=3)
    run, lines = play(sim, playbook, [('check', 'pbs_prune_job', fewer)], path, check=True, diff=True)
    line = lines['check']
    assert line['result']['plan']['changed'] == ['keep_daily'], line
    assert NARROWING in warnings_of(line) and 'keep-daily 7 -> 3' in warnings_of(line), line
    assert 'confirm_narrowing=true' in warnings_of(line)
    assert sim.writes() == []

    run, lines = play(sim, playbook, [('real', 'pbs_prune_job', fewer, {'ignore_errors': True})], path)
    line = lines['real']
    assert line['status'] == 'failed' and NARROWING in line['result']['msg'], line
    assert 'confirm_narrowing=true' in line['result']['msg'] and 'Nothing was written' in line['result']['msg']
    assert sim.writes() == []
    assert sim.pbs_state.prune_jobs['retention']['keep-daily'] == 7

    # A keep line dropped while others stay is a narrowing too (the keep_* options are one policy).
    dropped = dict(prune(), keep_daily=None)
    del dropped['keep_daily']
    run, lines = play(sim, playbook, [('dropped', 'pbs_prune_job', dropped, {'ignore_errors': True})], path)
    assert lines['dropped']['status'] == 'failed', lines['dropped']
    assert 'keep-daily 7 -> removed' in lines['dropped']['result']['msg']
    assert sim.writes() == []

    run, lines = play(sim, playbook, [('confirmed', 'pbs_prune_job', dict(fewer, confirm_narrowing=True))], path)
    line = lines['confirmed']
    assert changed(line) and NARROWING in warnings_of(line), line
    written = sim.writes()
    assert len(written) == 1 and written[0]['form']['keep-daily'] == '3' and written[0]['form'].get('digest')
    assert sim.pbs_state.prune_jobs['retention']['keep-daily'] == 3

    # Widening needs nothing; the dropped line goes by delete= once confirmed.
    run, lines = play(sim, playbook, [('wider', 'pbs_prune_job', prune(keep_daily=14)),
                                      ('drop', 'pbs_prune_job', dict(dropped, confirm_narrowing=True))], path)
    assert changed(lines['wider']) and not warnings_of(lines['wider']), lines['wider']
    assert changed(lines['drop']), lines['drop']
    assert sim.writes()[1]['form']['delete'] in ('keep-daily', ['keep-daily'])
    assert 'keep-daily' not in sim.pbs_state.prune_jobs['retention']


def test_a_job_that_kept_everything_is_narrowed_by_its_first_keep_line(sim, playbook):
    seed_datastores(sim, 'offsite')
    bare = {'id': 'all-kept', 'store': 'offsite', 'schedule': 'daily'}
    run, lines = play(sim, playbook, [
        ('create', 'pbs_prune_job', bare),
        ('undeclared keeps', 'pbs_prune_job', dict(bare, comment='keeps unmanaged')),
        ('first keep', 'pbs_prune_job', dict(bare, keep_last=5), {'ignore_errors': True})])
    assert changed(lines['create']) and changed(lines['undeclared keeps'])
    assert not warnings_of(lines['undeclared keeps'])
    assert lines['first keep']['status'] == 'failed', lines['first keep']
    assert 'every backup kept' in lines['first keep']['result']['msg']
    assert 'keep-last' not in sim.pbs_state.prune_jobs['all-kept']


def test_a_missing_section_is_absent_only_by_pbss_own_answer(sim, playbook):
    """A token without privileges reads 400 ``missing permissions``: a failure, never "absent" (no create)."""
    seed_datastores(sim, 'offsite')
    pbs_api(sim, [('POST', '/config/prune', {'id': 'retention', 'store': 'offsite', 'schedule': 'daily'}),
                  ('POST', '/config/verify', {'id': 'verify-all', 'store': 'offsite'})])
    secret = sim.pbs_state.add_token('nobody@pbs', 'ro')
    weak = dict(pbs_connection(sim), api_token_id='nobody@pbs!ro', api_token_secret=secret)
    sim.clear_log()
    run = playbook([{'name': 'prune', 'homeflare.proxmox.pbs_prune_job': connected(sim, prune(), weak),
                     'ignore_errors': True},
                    {'name': 'verify', 'homeflare.proxmox.pbs_verify_job': connected(sim, verify(), weak),
                     'ignore_errors': True}], defaults={})
    for line in run.results:
        assert line['status'] == 'failed' and 'missing permissions' in line['result']['msg'], line
        assert 'plan' not in line['result']
    assert sim.writes() == []

    # PBS's own 400 (``no such prune 'x'``), confirmed by the job list: absent.
    run, lines = play(sim, playbook, [('gone', 'pbs_prune_job', {'id': 'other', 'state': 'absent'}),
                                      ('gone remote', 'pbs_remote', {'name': 'nowhere', 'state': 'absent'})])
    assert unchanged(lines['gone']) and lines['gone']['result']['plan']['read'] == 'absent'
    assert unchanged(lines['gone remote'])
    assert [entry['path'] for entry in sim.log] == ['/config/prune/other', '/config/prune',
                                                    '/config/remote/nowhere', '/config/remote']


def test_a_push_job_is_found_through_the_list_of_every_direction(sim, playbook):
    seed_datastores(sim, 'offsite')
    push = {'id': 'to-main', 'sync_direction': 'push', 'store': 'offsite', 'remote': 'main',
            'remote_store': 'cluster', 'remove_vanished': True}
    run, lines = play(sim, playbook, [('remote', 'pbs_remote', remote()), ('push', 'pbs_sync_job', push),
                                      ('again', 'pbs_sync_job', push),
                                      ('local', 'pbs_sync_job', {'id': 'local', 'store': 'offsite',
                                                                 'remote_store': 'offsite'}, {'ignore_errors': True}),
                                      ('pull default', 'pbs_sync_job', dict(sync(), sync_direction='pull'))])
    assert changed(lines['push']) and unchanged(lines['again']), lines
    assert sim.pbs_state.sync_jobs['to-main']['sync-direction'] == 'push'
    assert lines['local']['status'] == 'failed' and 'remote_store' in lines['local']['result']['msg']
    # pull is PBS's unset direction: declared, it is not sent, and the re-read matches
    assert 'sync-direction' not in sim.pbs_state.sync_jobs['from-main']

    # the remote is in use: PBS refuses its removal, naming the job
    run, lines = play(sim, playbook, [('remote', 'pbs_remote', {'name': 'main', 'state': 'absent'},
                                       {'ignore_errors': True}),
                                      ('push gone', 'pbs_sync_job', {'id': 'to-main', 'state': 'absent'}),
                                      ('push gone again', 'pbs_sync_job', {'id': 'to-main', 'state': 'absent'})])
    assert lines['remote']['status'] == 'failed' and 'is used by sync job' in lines['remote']['result']['msg']
    assert changed(lines['push gone']) and unchanged(lines['push gone again'])
    assert {'method': 'GET', 'path': '/config/sync', 'form': {'sync-direction': 'all'}} in [
        dict((key, entry[key]) for key in ('method', 'path', 'form')) for entry in sim.log]


def test_the_remotes_password_is_write_only(sim, playbook):
    run, lines = play(sim, playbook, [('create', 'pbs_remote', remote()),
                                      ('other password', 'pbs_remote', remote(password='another-Secret-99')),
                                      ('fingerprint case', 'pbs_remote', remote(fingerprint=FINGERPRINT.upper()))],
                      diff=True, verbosity=3)
    assert changed(lines['create'])
    # a password is never read, so another one is not drift; the fingerprint compares case aside
    assert unchanged(lines['other password']) and unchanged(lines['fingerprint case'])
    assert sim.pbs_state.remotes['main']['password'] == PASSWORD
    assert PASSWORD not in run.output and 'another-Secret-99' not in run.output
    for line in run.results:
        assert PASSWORD not in str(line['result'])

    run, lines = play(sim, playbook, [('no password', 'pbs_remote', dict(remote(name='other'), password=None),
                                       {'ignore_errors': True})])
    assert lines['no password']['status'] == 'failed' and 'password' in lines['no password']['result']['msg']
    assert [entry['method'] for entry in sim.log] == ['GET', 'GET']  # read, confirmed absent, refused
