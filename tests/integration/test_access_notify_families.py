"""Realms, API tokens, notification endpoints and matchers in real ansible-playbook runs, on both paths.

Each step runs the four families in one play: check-mode create writes nothing → create (one write
per object) → re-run changed=false, zero writes, one GET per object → drift made behind the
modules' back → --check --diff names exactly the drifted fields and writes nothing → a real run
repairs with one write per object → state=absent → again a no-op (the module path skips the two
confirming re-runs). Then: no secret in any output
(-vvv), a new token's secret only in the registered variable, bad input refused before any request.

``MATRIX``, ``SETUP`` and ``BAD_INPUT`` have the shapes of test_matrix.FAMILIES/SETUP and
test_bad_input.CORPUS. Until these modules join the action group, every task names its connection.
"""

import pytest

from conftest import EXECUTION_PATHS, connection, reconfirms
from test_matrix import api

LDAP_BIND_PASSWORD = 'LdapBindPassw0rd-7c1'
SMTP_PASSWORD = 'SmtpPassw0rd-3f9'
OIDC_CLIENT_KEY = 'OidcClientKey-5d2'
GOTIFY_TOKEN = 'GotifyAppToken-8e4'
WEBHOOK_SECRET = 'V2ViaG9va1NlY3JldC0yYjY='  # base64 of WebhookSecret-2b6

# Made once before every case, outside the declarations: the user the token belongs to.
SETUP = [('POST', '/access/users', {'userid': 'ci@pve'})]

MATRIX = {
    'realm': dict(
        prefix='/access/domains',
        args={'realm': 'corp', 'type': 'ldap', 'server1': 'ldap.example.org', 'mode': 'ldaps', 'port': 636,
              'base_dn': 'dc=example,dc=org', 'user_attr': 'uid', 'bind_dn': 'cn=pve,dc=example,dc=org',
              'password': LDAP_BIND_PASSWORD, 'comment': 'Corporate directory'},
        drift=[('PUT', '/access/domains/corp', {'comment': 'edited in the UI', 'port': '389'})],
        drifted={'comment': 'comment', 'port': 'port'},
        absent={'realm': 'corp', 'state': 'absent'},
    ),
    'api_token': dict(
        prefix='/access/users/ci@pve/token',
        args={'userid': 'ci@pve', 'tokenid': 'deploy', 'comment': 'CI deployments', 'expire': 0, 'privsep': True,
              'create_missing': True},
        drift=[('PUT', '/access/users/ci@pve/token/deploy', {'comment': 'edited', 'privsep': '0'})],
        drifted={'comment': 'comment', 'privsep': 'privsep'},
        absent={'userid': 'ci@pve', 'tokenid': 'deploy', 'state': 'absent', 'confirm_removal': True},
    ),
    'notification_endpoint': dict(
        prefix='/cluster/notifications/endpoints',
        args={'type': 'smtp', 'name': 'ops-mail', 'server': 'smtp.example.org', 'mode': 'starttls',
              'from_address': 'pve@example.org', 'mailto': ['ops@example.org'], 'username': 'pve',
              'password': SMTP_PASSWORD, 'comment': 'Operations'},
        # disable is always compared, though undeclared
        drift=[('PUT', '/cluster/notifications/endpoints/smtp/ops-mail', {'mailto': 'oncall@example.org',
                                                                          'disable': '1'})],
        drifted={'mailto': 'mailto', 'disable': 'disable'},
        absent={'type': 'smtp', 'name': 'ops-mail', 'state': 'absent'},
    ),
    'notification_matcher': dict(
        prefix='/cluster/notifications/matchers',
        # PVE's own endpoint as target: the matcher depends on none of the other objects here.
        args={'name': 'ops-errors', 'target': ['mail-to-root'], 'match_severity': ['error'],
              'match_field': ['exact:type=vzdump'], 'mode': 'any', 'comment': 'Errors'},
        drift=[('PUT', '/cluster/notifications/matchers/ops-errors', {'match-severity': 'warning', 'mode': 'all'})],
        drifted={'match_severity': 'match-severity', 'mode': 'mode'},
        absent={'name': 'ops-errors', 'state': 'absent'},
    ),
}
MODULES = sorted(MATRIX)

LDAP = {'realm': 'dir', 'type': 'ldap', 'server1': 'ldap.example.org', 'base_dn': 'dc=x', 'user_attr': 'uid'}
TOKEN = {'userid': 'ci@pve', 'tokenid': 'deploy', 'expire': 0, 'privsep': True}
BAD_INPUT = [
    ('realm', dict(LDAP, port=70000), 'port'),
    ('realm', dict(LDAP, realm='1dir'), 'realm'),
    ('realm', dict(LDAP, realm='d' * 33), 'realm'),
    ('realm', {'realm': 'dir', 'type': 'ldap', 'server1': 'ldap.example.org', 'base_dn': 'dc=x'}, 'user_attr'),
    ('realm', {'realm': 'sso', 'type': 'openid', 'issuer_url': 'https://id', 'client_id': 'pve', 'password': 'x'},
     'password'),
    ('realm', dict(LDAP, type='radius'), 'type'),
    ('realm', dict(LDAP, server1='ldap example'), 'server1'),
    ('realm', dict(LDAP, tfa='type=sms'), 'tfa'),
    ('realm', {'realm': 'pam', 'state': 'absent'}, "realm 'pam' is built in"),
    ('realm', {'realm': 'local', 'type': 'pam'}, 'type'),
    ('realm', dict(LDAP, sync_defaults_options='scope=all'), 'sync_defaults_options'),
    ('realm', dict(LDAP, sync_defaults_options='full=1'), 'sync_defaults_options'),
    ('realm', dict(LDAP, sync_defaults_options='remove-vanished=entry;users'), 'sync_defaults_options'),
    ('realm_sync', {'realm': 'corp', 'scope': 'everything'}, 'scope'),
    ('realm_sync', {'realm': 'corp', 'remove_vanished': ['entry', 'users']}, 'remove_vanished'),
    ('realm_sync', {'realm': 'corp', 'remove_vanished': ['none', 'acl']}, 'remove_vanished'),
    ('realm_sync', {'realm': '1corp'}, 'realm'),
    ('realm_sync', {'scope': 'users'}, 'realm'),
    ('realm_sync', {'realm': 'corp', 'enable_new': 'perhaps'}, 'enable_new'),
    ('realm_sync', {'realm': 'corp', 'task_timeout': 0}, 'task_timeout'),
    ('api_token', {'tokenid': 'deploy', 'expire': 0, 'privsep': True}, 'userid'),
    ('api_token', dict(TOKEN, tokenid='ci@pve!deploy'), 'tokenid'),
    ('api_token', dict(TOKEN, userid='ci@pve!deploy'), 'userid'),
    ('api_token', dict(TOKEN, tokenid='1x'), 'tokenid'),
    ('api_token', {'userid': 'ci@pve', 'tokenid': 'deploy', 'privsep': True}, 'expire'),
    ('api_token', {'userid': 'ci@pve', 'tokenid': 'deploy', 'expire': 0}, 'privsep'),
    ('api_token', dict(TOKEN, expire=-1), 'expire'),
    ('api_token', {'userid': 'ci@pve', 'tokenid': 'deploy', 'state': 'absent'}, 'confirm_removal'),
    ('notification_endpoint', {'type': 'sms', 'name': 'ops'}, 'type'),
    ('notification_endpoint', {'type': 'sendmail', 'name': 'bad name', 'mailto': ['a@x.org']}, 'name'),
    ('notification_endpoint', {'type': 'gotify', 'name': 'push', 'server': 'https://g', 'mailto': ['a@x.org']},
     'mailto'),
    ('notification_endpoint', {'type': 'sendmail', 'name': 'ops', 'mailto': ['not an address']}, 'mailto'),
    ('notification_endpoint', {'type': 'sendmail', 'name': 'ops', 'mailto_user': ['root']}, 'mailto_user'),
    ('notification_endpoint', {'type': 'webhook', 'name': 'hook', 'url': 'https://h', 'method': 'patch'}, 'method'),
    ('notification_endpoint', {'type': 'webhook', 'name': 'hook', 'url': 'https://h', 'method': 'post',
                               'header': ['Content-Type']}, 'header'),
    ('notification_endpoint', {'type': 'smtp', 'name': 'ops', 'mode': 'ssl'}, 'mode'),
    ('notification_endpoint', {'type': 'smtp', 'name': 'ops', 'from_address': ''}, 'from_address'),
    ('notification_matcher', {'name': 'route', 'match_severity': ['fatal']}, 'match_severity'),
    ('notification_matcher', {'name': 'route', 'match_field': ['type=vzdump']}, 'match_field'),
    ('notification_matcher', {'name': 'route', 'mode': 'some'}, 'mode'),
    ('notification_matcher', {'name': 'route', 'target': ['bad target']}, 'target'),
    ('notification_matcher', {'name': 'bad name'}, 'name'),
    ('notification_matcher', {'name': 'route', 'invert_match': 'perhaps'}, 'invert_match'),
]


def of(module, entries):
    prefix = MATRIX[module]['prefix']
    return [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]


def task(sim, module, args, **extra):
    return dict({'name': module, 'homeflare.proxmox.%s' % module: dict(args, **connection(sim))}, **extra)


def step(sim, playbook, path, key, check=False, diff=False, modules=MODULES):
    """One play of every family's declaration ``key``; (run, results by module)."""
    sim.clear_log()
    run = playbook([task(sim, module, MATRIX[module][key]) for module in modules], check=check, diff=diff,
                   env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    return run, dict((line['task'], line['result']) for line in run.results)


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_the_families_through_their_whole_life(sim, playbook, path):
    api(sim, SETUP)

    # 1. check-mode create writes nothing and says create
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        assert outcome[module]['changed'] is True and outcome[module]['plan']['action'] == 'create', module
    assert sim.writes() == []

    # 2. create: one write per object (the token's result is hidden: it holds the secret)
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['changed'] is True, module
        assert len(of(module, sim.writes())) == 1, (module, sim.writes())
    assert outcome['api_token'].get('secret') is None
    assert sim.state.realm_secrets['corp'] == LDAP_BIND_PASSWORD
    assert sim.state.notification_secrets['ops-mail'] == {'password': SMTP_PASSWORD}

    # 3. re-run: zero writes, one GET per object
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert outcome[module]['plan'] == {'read': 'found', 'action': 'none', 'changed': []}, module
        assert 'secret' not in outcome[module], module
        assert [entry['method'] for entry in of(module, sim.log)] == ['GET'], (module, sim.log)
    assert sim.writes() == []

    # 4. drift behind the modules' back
    for module in MODULES:
        api(sim, MATRIX[module]['drift'])

    # 5. --check --diff names exactly the drifted fields and writes nothing
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        drifted = sorted(MATRIX[module]['drifted'])
        result = outcome[module]
        assert result['plan']['action'] == 'update' and sorted(result['plan']['changed']) == drifted, module
        before, after = result['diff']['before'], result['diff']['after']
        assert sorted(key for key in after if before.get(key) != after[key]) == drifted, module
    for field in set().union(*(MATRIX[module]['drifted'] for module in MODULES)):
        assert field in run.output, 'the --diff output must show %s' % field
    assert sim.writes() == []

    # 6. a real run repairs with one write per object, carrying the drifted fields
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        written = of(module, sim.writes())
        assert len(written) == 1 and written[0]['method'] == 'PUT', (module, written)
        assert set(MATRIX[module]['drifted'].values()) <= set(written[0]['form']), (module, written)
    if reconfirms(path):
        run, outcome = step(sim, playbook, path, 'args')
        assert not any(outcome[module]['changed'] for module in MODULES)
        assert sim.writes() == []

    # 7. state=absent removes, 8. again is a no-op
    run, outcome = step(sim, playbook, path, 'absent')
    for module in MODULES:
        assert outcome[module]['plan']['action'] == 'delete' and len(of(module, sim.writes())) == 1, module
    if reconfirms(path):
        run, outcome = step(sim, playbook, path, 'absent')
        for module in MODULES:
            assert outcome[module]['changed'] is False and outcome[module]['object'] == {}, module
        assert sim.writes() == []


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_no_secret_is_ever_shown(sim, playbook, path, tmp_path):
    api(sim, SETUP)
    kept = tmp_path / 'token-secret'
    tasks = [task(sim, module, MATRIX[module]['args']) for module in MODULES]
    tasks[MODULES.index('api_token')]['register'] = 'created'
    tasks += [
        task(sim, 'realm', {'realm': 'sso', 'type': 'openid', 'issuer_url': 'https://id.example.org',
                            'client_id': 'pve', 'client_key': OIDC_CLIENT_KEY}),
        task(sim, 'notification_endpoint', {'type': 'gotify', 'name': 'phone', 'server': 'https://gotify.example.org',
                                            'token': GOTIFY_TOKEN}),
        task(sim, 'notification_endpoint', {'type': 'webhook', 'name': 'chat', 'method': 'post',
                                            'url': 'https://chat.example.org/hook',
                                            'secret': ['name=key,value=%s' % WEBHOOK_SECRET]}),
        # what the user asked for: the registered secret, written where it is kept (copy's own diff would show it)
        {'name': 'keep the secret', 'ansible.builtin.copy': {'content': '{{ created.secret }}', 'dest': str(kept)},
         'diff': False},
    ]
    run = playbook(tasks, diff=True, verbosity=3, env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    assert 'homeflare.proxmox.notification_endpoint' in run.output or 'notification_endpoint' in run.output
    token_secret = sim.state.token_secrets['ci@pve!deploy']
    assert kept.read_text() == token_secret
    for secret in (sim.token_secret, token_secret, LDAP_BIND_PASSWORD, SMTP_PASSWORD, OIDC_CLIENT_KEY,
                   GOTIFY_TOKEN, WEBHOOK_SECRET):
        assert secret not in run.output, secret
        assert secret not in repr(run.results), secret
    # every secret was sent: only never shown
    assert sim.state.notification_secrets['phone'] == {'token': GOTIFY_TOKEN}
    assert sim.state.notification_secrets['chat'] == {'secret': ['name=key,value=%s' % WEBHOOK_SECRET]}

    # a later run finds the token and returns no secret
    run = playbook([dict(task(sim, 'api_token', MATRIX['api_token']['args']), register='again'),
                    {'name': 'show', 'ansible.builtin.debug': {'var': 'again'}}], env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    assert run.results[0]['result']['changed'] is False and 'secret' not in run.results[1]['result']['again']
    assert token_secret not in run.output


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_missing_token_is_refused_with_guidance_unless_asked(sim, playbook, path):
    api(sim, SETUP)
    sim.clear_log()
    run = playbook([task(sim, 'api_token', TOKEN, ignore_errors=True)], env=EXECUTION_PATHS[path])
    result = run.result()
    assert run.results[0]['status'] == 'failed', run
    assert 'pveum user token add ci@pve deploy' in result['msg'] and 'create_missing=true' in result['msg']
    assert sim.writes() == [] and [entry['method'] for entry in sim.log] == ['GET']


def test_removing_a_built_in_resets_it_and_then_is_a_no_op(sim, playbook):
    api(sim, [('PUT', '/cluster/notifications/endpoints/sendmail/mail-to-root', {'comment': 'changed'}),
              ('PUT', '/cluster/notifications/matchers/default-matcher', {'disable': '1'})])
    builtins = [task(sim, 'notification_endpoint', {'type': 'sendmail', 'name': 'mail-to-root', 'state': 'absent'}),
                task(sim, 'notification_matcher', {'name': 'default-matcher', 'state': 'absent'})]
    run = playbook(builtins)
    assert run.rc == 0, run
    for line in run.results:
        assert line['result']['changed'] is True
        assert 'reverted to its shipped defaults' in str(line['result'])
    assert sim.state.notification_endpoints == {} and sim.state.notification_matchers == {}
    sim.clear_log()
    run = playbook(builtins)
    assert run.rc == 0 and not any(line['result']['changed'] for line in run.results), run
    assert sim.writes() == []


def test_lists_of_several_items_converge(sim, playbook):
    args = {'type': 'sendmail', 'name': 'team', 'mailto': ['b@example.org', 'a@example.org'],
            'mailto_user': ['root@pam']}
    run = playbook([task(sim, 'notification_endpoint', args)])
    assert run.rc == 0, run
    assert sim.request('GET', '/cluster/notifications/endpoints/sendmail/team')[1]['data']['mailto'] == [
        'a@example.org', 'b@example.org']
    # the order PVE keeps means nothing: no write
    api(sim, [('PUT', '/cluster/notifications/endpoints/sendmail/team',
               {'mailto': ['b@example.org', 'a@example.org']})])
    sim.clear_log()
    run = playbook([task(sim, 'notification_endpoint', args)])
    assert run.rc == 0 and run.result()['changed'] is False and sim.writes() == []
    # clearing two options at once
    run = playbook([task(sim, 'notification_endpoint', dict(args, mailto=[], comment=''))])
    assert run.rc == 0, run
