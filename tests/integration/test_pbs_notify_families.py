"""The Proxmox Backup Server notification families (endpoints, matchers) through real ansible-playbook runs, on both
execution paths, against the simulator's PBS server.

One play per step holds both families, the endpoint before the matcher that targets it (absent: the other way
round). The lifecycle is the integration matrix's: check-mode create writes nothing, create, a re-run with no write,
drift named field by field and repaired in one write, absent twice. Then: no secret in any output or diff (-vvv),
a matcher naming an unknown endpoint refused with nothing written, built-ins reset, names shared by endpoints and
matchers, lists as repeated keys, absence only by PBS's own answer.

``MATRIX`` and ``BAD_INPUT`` have the shapes of test_matrix.FAMILIES and test_bad_input.CORPUS. Until these modules
join the action group, every task names its connection.
"""

import pytest

from conftest import EXECUTION_PATHS
from test_matrix import assert_drift_named
from simulator.pbs.handlers.notifications import BUILTIN_ENDPOINTS, BUILTIN_MATCHERS
from test_pbs_families import pbs_api, pbs_connection

SMTP_PASSWORD = 'PbsSmtpPassw0rd-4a7'
GOTIFY_TOKEN = 'PbsGotifyToken-9c1'
WEBHOOK_SECRET = 'UGJzV2ViaG9va1NlY3JldC02ZDM='  # base64 of PbsWebhookSecret-6d3
ENDPOINTS = '/config/notifications/endpoints'
MATCHERS = '/config/notifications/matchers'

MATRIX = {
    'pbs_notification_endpoint': dict(
        prefix=ENDPOINTS,
        args={'type': 'smtp', 'name': 'ops-mail', 'server': 'smtp.example.org', 'mode': 'starttls', 'port': 587,
              'from_address': 'pbs@example.org', 'mailto': ['ops@example.org', 'backup@example.org'],
              'username': 'pbs', 'password': SMTP_PASSWORD, 'comment': 'Backup operators'},
        # one recipient dropped and the endpoint disabled by hand (disable is always compared, though undeclared)
        drift=[('PUT', ENDPOINTS + '/smtp/ops-mail', {'mailto': ['ops@example.org'], 'disable': 'true'})],
        drifted={'mailto': 'mailto', 'disable': 'disable'},
        absent={'type': 'smtp', 'name': 'ops-mail', 'state': 'absent'},
    ),
    'pbs_notification_matcher': dict(
        prefix=MATCHERS,
        # targets the endpoint above: it is created first and removed last
        args={'name': 'ops-errors', 'target': ['ops-mail'], 'match_severity': ['error', 'warning,error'],
              'match_field': ['exact:type=gc,verify'], 'mode': 'any', 'comment': 'Failed maintenance'},
        drift=[('PUT', MATCHERS + '/ops-errors', {'match-severity': ['warning'], 'mode': 'all'})],
        drifted={'match_severity': 'match-severity', 'mode': 'mode'},
        absent={'name': 'ops-errors', 'state': 'absent'},
    ),
}
MODULES = ['pbs_notification_endpoint', 'pbs_notification_matcher']


def endpoint(**changes):
    return dict(MATRIX['pbs_notification_endpoint']['args'], **changes)


def matcher(**changes):
    return dict(MATRIX['pbs_notification_matcher']['args'], **changes)


SENDMAIL = {'type': 'sendmail', 'name': 'team', 'mailto': ['team@example.org']}
BAD_INPUT = [
    ('pbs_notification_endpoint', endpoint(type='sms'), 'type'),
    ('pbs_notification_endpoint', endpoint(name='x'), 'name'),
    ('pbs_notification_endpoint', endpoint(name='.mail'), 'name'),
    ('pbs_notification_endpoint', endpoint(comment='x' * 129), 'comment'),
    ('pbs_notification_endpoint', endpoint(port=70000), 'port'),
    ('pbs_notification_endpoint', endpoint(mode='ssl'), 'mode'),
    ('pbs_notification_endpoint', endpoint(mailto=['x' * 65]), 'mailto'),
    ('pbs_notification_endpoint', endpoint(from_address=''), 'from_address'),
    ('pbs_notification_endpoint', endpoint(token=GOTIFY_TOKEN), 'token'),
    ('pbs_notification_endpoint', dict(SENDMAIL, server='smtp.example.org'), 'server'),
    ('pbs_notification_endpoint', {'type': 'webhook', 'name': 'hook', 'url': 'chat.example.org', 'method': 'post'},
     'url'),
    ('pbs_notification_endpoint', {'type': 'webhook', 'name': 'hook', 'url': 'https://h', 'method': 'patch'},
     'method'),
    ('pbs_notification_endpoint', {'type': 'webhook', 'name': 'hook', 'url': 'https://h', 'method': 'post',
                                   'header': ['Content-Type']}, 'header'),
    ('pbs_notification_endpoint', {'type': 'gotify', 'name': 'phone', 'server': 'https://g', 'mailto': ['a@x.org']},
     'mailto'),
    ('pbs_notification_matcher', matcher(name='m'), 'name'),
    ('pbs_notification_matcher', matcher(match_severity=['fatal']), 'match_severity'),
    ('pbs_notification_matcher', matcher(match_field=['type=gc']), 'match_field'),
    ('pbs_notification_matcher', matcher(mode='some'), 'mode'),
    ('pbs_notification_matcher', matcher(target=['bad target']), 'target'),
    ('pbs_notification_matcher', matcher(target=['t' * 33]), 'target'),
    ('pbs_notification_matcher', matcher(comment='line\nbreak'), 'comment'),
    ('pbs_notification_matcher', matcher(invert_match='perhaps'), 'invert_match'),
]


def of(module, entries):
    prefix = MATRIX[module]['prefix']
    return [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]


def task(sim, module, args, **extra):
    return dict({'name': module, 'homeflare.proxmox.%s' % module: dict(args, **pbs_connection(sim))}, **extra)


def step(sim, playbook, path, key, check=False, diff=False):
    """One play of both families' declaration ``key``; (run, results by module)."""
    modules = MODULES[::-1] if key == 'absent' else MODULES
    sim.clear_log()
    run = playbook([task(sim, module, MATRIX[module][key]) for module in modules], check=check, diff=diff,
                   env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    return run, results_by_task(run)


def results_by_task(run):
    return dict((line['task'], line['result']) for line in run.results)


def state(sim):
    return sim.pbs_state.notification_endpoints, sim.pbs_state.notification_matchers


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_the_pbs_notification_families_lifecycle(sim, playbook, path):
    # 1. check-mode create writes nothing and says create (the matcher's target does not exist yet: not judged)
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        assert outcome[module]['changed'] is True and outcome[module]['plan']['action'] == 'create', outcome[module]
    assert sim.writes() == []

    # 2. create: one write each; lists went as repeated keys, the secret to the private file
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['changed'] is True, (module, outcome[module])
        assert len(of(module, sim.writes())) == 1, (module, sim.writes())
        assert outcome[module]['object']['origin'] == 'user-created'
    endpoints, matchers = state(sim)
    assert sorted(endpoints['ops-mail']['mailto']) == ['backup@example.org', 'ops@example.org']
    assert endpoints['ops-mail']['password'] == SMTP_PASSWORD
    assert matchers['ops-errors']['target'] == ['ops-mail']
    assert sorted(matchers['ops-errors']['match-severity']) == ['error', 'error,warning']  # sent canonical

    # 3. re-run: zero writes, one GET per object
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['plan'] == {'read': 'found', 'action': 'none', 'changed': []}, outcome[module]
        assert [entry['method'] for entry in of(module, sim.log)] == ['GET'], (module, sim.log)
    assert sim.writes() == []

    # 4. drift through the PBS API, 5. named field by field in check mode, nothing written
    for module in MODULES:
        pbs_api(sim, MATRIX[module]['drift'])
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    assert sim.writes() == []
    for module in MODULES:
        assert_drift_named(outcome[module], MATRIX[module]['drifted'])
    for field in ('mailto', 'disable', 'match_severity', 'mode'):
        assert field in run.output, 'the --diff output must show %s' % field

    # 6. a real run repairs in one write each, carrying the drifted fields and notifications.cfg's digest
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        written = of(module, sim.writes())
        assert len(written) == 1 and written[0]['method'] == 'PUT', (module, written)
        assert set(MATRIX[module]['drifted'].values()) <= set(written[0]['form']), written
        assert written[0]['form'].get('digest'), written
        assert 'password' not in written[0]['form'], written  # a secret goes with the create only
    endpoints, matchers = state(sim)
    assert sorted(endpoints['ops-mail']['mailto']) == ['backup@example.org', 'ops@example.org']
    assert endpoints['ops-mail']['password'] == SMTP_PASSWORD  # kept: never sent again, never compared
    run, outcome = step(sim, playbook, path, 'args')
    assert sim.writes() == []

    # 7. absent (matcher first: PBS refuses to remove an endpoint a matcher targets), 8. again a no-op
    run, outcome = step(sim, playbook, path, 'absent')
    for module in MODULES:
        assert outcome[module]['plan']['action'] == 'delete', (module, outcome[module])
        deleted = of(module, sim.writes())
        assert len(deleted) == 1 and deleted[0]['method'] == 'DELETE', deleted
        assert 'digest' not in (deleted[0]['form'] or {}), deleted  # PBS's DELETE takes none
    assert 'ops-mail' not in state(sim)[0] and 'ops-errors' not in state(sim)[1]
    run, outcome = step(sim, playbook, path, 'absent')
    for module in MODULES:
        assert outcome[module]['changed'] is False and outcome[module]['object'] == {}, module
    assert sim.writes() == []


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_no_secret_is_ever_shown(sim, playbook, path):
    gotify = {'type': 'gotify', 'name': 'phone', 'server': 'https://gotify.example.org', 'token': GOTIFY_TOKEN}
    webhook = {'type': 'webhook', 'name': 'chat', 'method': 'post', 'url': 'https://chat.example.org/hook',
               'secret': ['name=key,value=%s' % WEBHOOK_SECRET], 'comment': 'Chat'}
    tasks = [task(sim, 'pbs_notification_endpoint', args) for args in (endpoint(), gotify, webhook)]
    run = playbook(tasks, diff=True, verbosity=3, env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    endpoints = state(sim)[0]
    # every secret was sent: only never shown
    assert endpoints['ops-mail']['password'] == SMTP_PASSWORD
    assert endpoints['phone']['token'] == GOTIFY_TOKEN
    assert endpoints['chat']['secret'] == ['name=key,value=%s' % WEBHOOK_SECRET]

    # a drifted re-run (check mode, diff) and a changed secret: the secret is still neither compared nor shown
    pbs_api(sim, [('PUT', ENDPOINTS + '/webhook/chat', {'comment': 'edited'})])
    changed = [task(sim, 'pbs_notification_endpoint', endpoint(password='Another-' + SMTP_PASSWORD)),
               task(sim, 'pbs_notification_endpoint', gotify), task(sim, 'pbs_notification_endpoint', webhook)]
    sim.clear_log()
    again = playbook(changed, check=True, diff=True, verbosity=3, env=EXECUTION_PATHS[path])
    assert again.rc == 0, again
    outcome = [line['result'] for line in again.results]
    assert [result['plan']['changed'] for result in outcome] == [[], [], ['comment']], outcome
    assert sim.writes() == []
    for output in (run, again):
        for secret in (sim.pbs_token_secret, SMTP_PASSWORD, GOTIFY_TOKEN, WEBHOOK_SECRET):
            assert secret not in output.output, secret
            assert secret not in repr(output.results), secret
    # what PBS answers for a webhook's secrets (their names) is no option of the result either
    assert 'secret' not in outcome[2]['object'] and 'secret' not in outcome[2]['diff']['before']


def test_a_matcher_naming_an_unknown_target_fails_clearly_with_nothing_written(sim, playbook):
    path = 'controller'  # the refusal is the family's, the same on the module path
    sim.clear_log()
    run = playbook([task(sim, 'pbs_notification_matcher', matcher(target=['mail-to-root', 'nowhere']),
                         ignore_errors=True)], env=EXECUTION_PATHS[path])
    result = run.result()
    assert run.results[0]['status'] == 'failed', run
    assert "target 'nowhere'" in result['msg'] and 'no endpoint on the server' in result['msg'], result['msg']
    assert 'mail-to-root' in result['msg'] and 'Nothing was written' in result['msg']
    assert sim.writes() == [] and 'ops-errors' not in state(sim)[1]

    # the same for an update: the matcher exists, its new target does not
    run = playbook([task(sim, 'pbs_notification_matcher', matcher(target=['mail-to-root']))],
                   env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    sim.clear_log()
    run = playbook([task(sim, 'pbs_notification_matcher', matcher(target=['gone']), ignore_errors=True)],
                   env=EXECUTION_PATHS[path])
    assert run.results[0]['status'] == 'failed' and "target 'gone'" in run.result()['msg'], run
    assert sim.writes() == [] and state(sim)[1]['ops-errors']['target'] == ['mail-to-root']


def test_a_name_is_unique_across_endpoints_and_matchers(sim, playbook):
    pbs_api(sim, [('POST', MATCHERS, {'name': 'team', 'target': 'mail-to-root'})])
    sim.clear_log()
    run = playbook([task(sim, 'pbs_notification_endpoint', SENDMAIL, ignore_errors=True),
                    task(sim, 'pbs_notification_matcher', {'name': 'mail-to-root'}, ignore_errors=True)])
    messages = [line['result']['msg'] for line in run.results]
    assert all(line['status'] == 'failed' for line in run.results), run
    assert 'a matcher of that name exists' in messages[0], messages
    assert 'a sendmail endpoint of that name exists' in messages[1], messages
    assert sim.writes() == []


def test_removing_a_built_in_resets_it_and_then_is_a_no_op(sim, playbook):
    pbs_api(sim, [('PUT', ENDPOINTS + '/sendmail/mail-to-root', {'comment': 'changed'}),
                  ('PUT', MATCHERS + '/default-matcher', {'disable': 'true'})])
    builtins = [task(sim, 'pbs_notification_matcher', {'name': 'default-matcher', 'state': 'absent'}),
                task(sim, 'pbs_notification_endpoint', {'type': 'sendmail', 'name': 'mail-to-root', 'state': 'absent'})]
    run = playbook(builtins)
    assert run.rc == 0, run
    for line in run.results:
        result = line['result']
        assert result['changed'] is True and result['object']['origin'] == 'builtin', result
        assert 'reverted to its shipped defaults' in str(result)
    # the sections were dropped, and PBS's reads (Config::new) give the shipped ones again
    assert dict(state(sim)[0]) == BUILTIN_ENDPOINTS and dict(state(sim)[1]) == BUILTIN_MATCHERS
    sim.clear_log()
    run = playbook(builtins)
    assert run.rc == 0 and not any(line['result']['changed'] for line in run.results), run
    assert sim.writes() == []


def test_lists_are_repeated_keys_compared_as_sets_and_cleared_together(sim, playbook):
    args = dict(SENDMAIL, mailto=['b@example.org', 'a@example.org'], mailto_user=['root@pam'], comment='Team')
    run = playbook([task(sim, 'pbs_notification_endpoint', args)])
    assert run.rc == 0, run
    assert sorted(state(sim)[0]['team']['mailto']) == ['a@example.org', 'b@example.org']
    # the order PBS keeps means nothing: no write
    pbs_api(sim, [('PUT', ENDPOINTS + '/sendmail/team', {'mailto': ['b@example.org', 'a@example.org']})])
    sim.clear_log()
    run = playbook([task(sim, 'pbs_notification_endpoint', args)])
    assert run.rc == 0 and run.result()['changed'] is False and sim.writes() == [], run
    # clearing two options at once: one PUT whose delete is two repeated keys
    run = playbook([task(sim, 'pbs_notification_endpoint', dict(args, mailto=[], comment=''))])
    assert run.rc == 0, run
    written = sim.writes()
    assert len(written) == 1 and sorted(written[0]['form']['delete']) == ['comment', 'mailto'], written
    assert 'mailto' not in state(sim)[0]['team'] and 'comment' not in state(sim)[0]['team']


def test_absent_only_by_pbs_own_answer(sim, playbook):
    """A 404 that is not proxmox-notify's "not found" (a PBS without the notification API, a proxy) fails."""
    sim.force('GET', r'^/config/notifications/(endpoints/sendmail|matchers)/team$', 404, 'Path not found',
              server='pbs')
    sim.clear_log()
    run = playbook([task(sim, 'pbs_notification_endpoint', SENDMAIL, ignore_errors=True),
                    task(sim, 'pbs_notification_matcher', {'name': 'team', 'state': 'absent'}, ignore_errors=True)])
    for line in run.results:
        assert line['status'] == 'failed' and 'plan' not in line['result'], line
        assert 'Path not found' in line['result']['msg'], line['result']['msg']
    assert sim.writes() == []
