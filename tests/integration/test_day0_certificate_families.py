"""Day 0 certificates (issue 23): a node's custom certificate, the cluster's ACME account and DNS plugin, and a
node's ACME certificate, with real ansible-playbook runs on both execution paths.

The matrix declares a self-signed certificate (made here with ``cryptography``) on node1, an ACME account at Let's
Encrypt's staging directory (the simulator's own CA answers it), a Cloudflare DNS plugin, and an ACME certificate
on node2, whose config names ``node2.example.org`` (``SETUP``). Each step runs the four modules in one play, in
dependency order (removal in the reverse): check-mode create writes nothing → create (one write each) → re-run
changed=false, zero writes, one GET each under its prefix → drift through the API → --check --diff names exactly
the drifted fields and writes nothing → a real run repairs with one write each → state=absent → again a no-op (the
module path skips the two confirming re-runs). The ACME account methods are root@pam's alone (PVE gives every API
token 403 ``user != root@pam``): the account's tasks log in with root's password (``ROOT_ONLY``, ``as_root``) and
so does the drift made through the API (``call``).

``MATRIX``, ``SETUP``, ``BAD_INPUT`` and ``SECRETS`` have the shapes of test_cluster_families' (the drift of an ACME
certificate is a domain added to the node's config; its repair is an order over the certificate there, so the
write carries ``force``).
"""

import base64
from datetime import datetime, timedelta, timezone

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from conftest import EXECUTION_PATHS, connection, reconfirms
from test_storage_hw_families import as_root

from simulator.pve.handlers import acme as sim_acme

ROOT_ONLY = ('acme_account',)
CUSTOM_PEM = '/etc/pve/nodes/%s/pveproxy-ssl.pem'
CUSTOM_KEY = '/etc/pve/nodes/%s/pveproxy-ssl.key'


def make_pair(name, days=365):
    """A self-signed certificate for ``name`` and its key, both PEM, and the certificate's PVE fingerprint."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.now(timezone.utc)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(days=1))
            .not_valid_after(now + timedelta(days=days))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .sign(key, hashes.SHA256()))
    digest = cert.fingerprint(hashes.SHA256()).hex().upper()
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    return (cert.public_bytes(serialization.Encoding.PEM).decode(), key_pem,
            ':'.join(digest[i:i + 2] for i in range(0, 64, 2)))


CERT, KEY, FINGERPRINT = make_pair('node1.example.org')
OTHER_CERT, OTHER_KEY, OTHER_FINGERPRINT = make_pair('other.example.org')
CF_TOKEN = 'cf-token-4b1d9e77'
DATA = {'CF_Token': CF_TOKEN, 'CF_Account_ID': 'ops-account-4711'}
DATA_WIRE = base64.b64encode(('CF_Token=%s\nCF_Account_ID=ops-account-4711\n' % CF_TOKEN).encode()).decode()
SOMEONE_ELSES_DATA = base64.b64encode(b'CF_Token=someone-elses\n').decode()

SETUP = [('PUT', '/nodes/node2/config', {'acmedomain0': 'node2.example.org'})]

MATRIX = {
    'acme_account': dict(
        prefix='/cluster/acme/account',
        args={'name': 'default', 'contact': ['admin@example.org', 'ops@example.org'],
              'directory': sim_acme.LE_STAGING, 'tos_url': sim_acme.LE_TOS},
        drift=[('PUT', '/cluster/acme/account/default', {'contact': 'someone@example.org'})],
        drifted={'contact': 'contact'},
        absent={'name': 'default', 'state': 'absent', 'confirm_removal': True},
    ),
    'acme_plugin': dict(
        prefix='/cluster/acme/plugins',
        args={'id': 'cloudflare', 'type': 'dns', 'api': 'cf', 'data': DATA, 'validation_delay': 60,
              'nodes': ['node2', 'node1']},
        # the data someone else set is never compared, so it is left alone
        drift=[('PUT', '/cluster/acme/plugins/cloudflare', {'validation-delay': '10', 'nodes': 'node1',
                                                            'data': SOMEONE_ELSES_DATA})],
        drifted={'validation_delay': 'validation-delay', 'nodes': 'nodes'},
        absent={'id': 'cloudflare', 'state': 'absent'},
    ),
    'certificate': dict(
        prefix='/nodes/node1/certificates',
        args={'node': 'node1', 'certificates': CERT, 'key': KEY, 'force': True},
        drift=[('POST', '/nodes/node1/certificates/custom', {'certificates': OTHER_CERT, 'key': OTHER_KEY,
                                                             'force': '1'})],
        drifted={'certificates': 'certificates'},
        absent={'node': 'node1', 'state': 'absent'},
    ),
    'acme_certificate': dict(
        prefix='/nodes/node2/certificates',
        args={'node': 'node2'},
        # a domain added to the node's config: the certificate there no longer covers it
        drift=[('PUT', '/nodes/node2/config', {'acmedomain1': 'www.example.org'})],
        # the repair orders over the certificate there, which PVE takes only with force
        drifted={'domains': 'force'},
        absent={'node': 'node2', 'state': 'absent', 'confirm_removal': True},
    ),
}
# Dependency order: the account and the plugin before the certificate ordered with them.
MODULES = ['acme_account', 'acme_plugin', 'certificate', 'acme_certificate']

# (module, options, the option the message must name): refused before any request.
BAD_INPUT = [
    ('certificate', {'node': 'node1', 'certificates': 'not a certificate', 'key': KEY}, 'certificates'),
    ('certificate', {'node': 'node1', 'certificates': '/etc/ssl/pve1.pem', 'key': KEY}, 'certificates'),
    ('certificate', {'node': 'node1', 'certificates': KEY, 'key': KEY}, 'certificates'),
    ('certificate', {'node': 'node1', 'certificates': CERT + KEY, 'key': KEY}, 'certificates'),
    ('certificate', {'node': 'node1', 'certificates': CERT.replace('\n', '\n!', 2), 'key': KEY}, 'certificates'),
    ('certificate', {'node': 'node1', 'certificates': CERT, 'key': 'not a key'}, 'key'),
    ('certificate', {'node': 'node1', 'certificates': CERT, 'key': CERT}, 'key'),
    ('certificate', {'node': 'node1', 'certificates': CERT, 'key': KEY + KEY}, 'key'),
    ('certificate', {'node': 'node1', 'key': KEY}, 'certificates'),
    ('certificate', {'node': 'node 1', 'certificates': CERT}, 'node'),
    ('certificate', {'node': 'node1', 'certificates': CERT, 'restart': 'maybe'}, 'restart'),
    ('acme_account', {'name': 'default'}, 'contact'),
    ('acme_account', {'contact': ['not an email']}, 'contact'),
    ('acme_account', {'name': '1st', 'contact': ['admin@example.org']}, 'name'),
    ('acme_account', {'contact': ['admin@example.org'], 'directory': 'ftp://ca.example.org/dir'}, 'directory'),
    ('acme_account', {'contact': ['admin@example.org'], 'eab_kid': 'kid-1'}, 'eab_hmac_key'),
    ('acme_account', {'contact': ['admin@example.org'], 'eab_hmac_key': 'hmac-1'}, 'eab_kid'),
    ('acme_account', {'name': 'default', 'state': 'absent'}, 'confirm_removal'),
    ('acme_plugin', {'id': 'cloudflare', 'api': 'cf'}, 'type'),
    ('acme_plugin', {'id': 'cloudflare', 'type': 'dns'}, 'api'),
    ('acme_plugin', {'id': 'cloudflare', 'type': 'dns', 'api': 'cloudflare'}, 'api'),
    ('acme_plugin', {'id': 'web', 'type': 'standalone', 'api': 'cf'}, 'api'),
    ('acme_plugin', {'id': 'web', 'type': 'standalone', 'validation_delay': 10}, 'validation_delay'),
    ('acme_plugin', {'id': 'cloudflare', 'type': 'dns', 'api': 'cf', 'data': {'CF Token': 'x'}}, 'data'),
    ('acme_plugin', {'id': 'cloudflare', 'type': 'dns', 'api': 'cf', 'data': {'CF_Token': 'a\nb'}}, 'data'),
    ('acme_plugin', {'id': 'cloudflare', 'type': 'dns', 'api': 'cf', 'data': {}}, 'data'),
    ('acme_plugin', {'id': 'cloudflare', 'type': 'dns', 'api': 'cf', 'validation_delay': 172801},
     'validation_delay'),
    ('acme_plugin', {'id': 'cloudflare', 'type': 'dns', 'api': 'cf', 'nodes': ['node 1']}, 'nodes'),
    ('acme_plugin', {'id': '1cf', 'type': 'dns', 'api': 'cf'}, 'id'),
    ('acme_certificate', {'node': 'node 2'}, 'node'),
    ('acme_certificate', {'node': 'node2', 'renew_days': -1}, 'renew_days'),
    ('acme_certificate', {'node': 'node2', 'renew_days': 'soon'}, 'renew_days'),
    ('acme_certificate', {'node': 'node2', 'state': 'absent'}, 'confirm_removal'),
]

EAB_DIRECTORY = 'https://ca.example.org/acme/directory'
EAB_HMAC_KEY = 'eab-hmac-9f3c2a71d0'
SECRETS = {
    'certificate': [{'node': 'node1', 'certificates': CERT, 'key': KEY}],
    'acme_account': [{'name': 'corporate', 'contact': ['pki@example.org'], 'directory': EAB_DIRECTORY,
                      'eab_kid': 'kid-7', 'eab_hmac_key': EAB_HMAC_KEY}],
    'acme_plugin': [{'id': 'cloudflare', 'type': 'dns', 'api': 'cf', 'data': DATA}],
}


def call(sim, calls):
    """API calls as a user would make them; the ACME account methods as root@pam (PVE lets nobody else)."""
    for method, path, form in calls:
        status, body = sim.request(method, path, form, as_root=path.startswith('/cluster/acme/account'))
        assert status == 200, (method, path, status, body)


def prepare(sim):
    call(sim, SETUP)


def of(module, entries):
    prefix = MATRIX[module]['prefix']
    return [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]


def task(sim, module, args, name=None):
    options = dict(args, **connection(sim))
    if module in ROOT_ONLY:
        options = as_root(sim, options)
    return {'name': name or module, 'homeflare.proxmox.%s' % module: options, 'ignore_errors': True}


def step(sim, playbook, path, key, check=False, diff=False, modules=None):
    """Run ``key`` (args or absent) of ``modules`` in one play, in their order; {module: result}."""
    modules = modules or MODULES
    sim.clear_log()
    run = playbook([task(sim, module, MATRIX[module][key]) for module in modules], check=check, diff=diff,
                   env=EXECUTION_PATHS[path])
    assert run.rc == 0 and not run.failed, [(line['task'], line['result'].get('msg')) for line in run.failed] or run
    return run, dict((line['task'], line['result']) for line in run.results)


def custom(sim, node, suffix='pem'):
    return sim.state.cert_files.get((CUSTOM_PEM if suffix == 'pem' else CUSTOM_KEY) % node)


def plugin(sim, plugin_id):
    return sim.state.acme_plugins['ids'].get(plugin_id)


def info(sim, node):
    status, body = sim.request('GET', '/nodes/%s/certificates/info' % node)
    assert status == 200, body
    return next((row for row in body['data'] if row['filename'] == 'pveproxy-ssl.pem'), None)


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_day0_certificate_families_matrix(sim, playbook, path):
    prepare(sim)

    # 1. check mode: create, nothing written
    run, results = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        assert results[module]['changed'] is True and results[module]['plan']['action'] == 'create', module
    assert results['acme_certificate']['plan']['call'] == 'order'
    assert sim.writes() == []

    # 2. create: one write each; the secrets go with the create and never come back
    run, results = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert results[module]['changed'] is True, module
        assert len(of(module, sim.writes())) == 1, (module, sim.writes())
    assert custom(sim, 'node1') == CERT and custom(sim, 'node1', 'key') == KEY
    assert results['certificate']['object']['certificates'] == FINGERPRINT
    assert plugin(sim, 'cloudflare')['data'] == DATA_WIRE
    assert sim.state.acme_accounts['default']['directory'] == sim_acme.LE_STAGING
    assert results['acme_account']['object']['status'] == 'valid'
    assert results['acme_certificate']['object']['domains'] == ['node2.example.org']
    assert info(sim, 'node2')['issuer'].endswith('/CN=Simulated ACME CA')
    for secret in (KEY, CF_TOKEN, DATA_WIRE):
        assert secret not in run.output + str(results)

    # 3. re-run: adopted, zero writes, one GET each
    run, results = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert results[module]['plan']['action'] == 'none' and results[module]['plan']['changed'] == [], module
        assert [entry['method'] for entry in of(module, sim.log)] == ['GET'], (module, sim.log)
    assert sim.writes() == []
    assert 'expires at' in results['acme_certificate']['plan']['reason']

    # 4. drift behind the module's back
    for module in MODULES:
        call(sim, MATRIX[module]['drift'])

    # 5. --check --diff names exactly the drifted fields and writes nothing
    run, results = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        drifted = sorted(MATRIX[module]['drifted'])
        assert results[module]['plan']['action'] == 'update', module
        assert sorted(results[module]['plan']['changed']) == drifted, (module, results[module]['plan'])
        diff = results[module]['diff']
        assert sorted(key for key in diff['after'] if diff['before'].get(key) != diff['after'][key]) == drifted, module
    assert results['certificate']['diff']['before']['certificates'] == OTHER_FINGERPRINT
    assert results['certificate']['diff']['after']['certificates'] == FINGERPRINT
    assert results['acme_certificate']['diff']['after']['domains'] == ['node2.example.org', 'www.example.org']
    assert 'not www.example.org' in results['acme_certificate']['plan']['reason']
    for field in set().union(*(MATRIX[module]['drifted'] for module in MODULES)):
        assert field in run.output, 'the --diff output must show %s' % field
    assert sim.writes() == []

    # 6. a real run repairs with one write each, carrying the drifted fields
    run, results = step(sim, playbook, path, 'args')
    for module in MODULES:
        written = of(module, sim.writes())
        assert results[module]['changed'] is True and len(written) == 1, (module, written)
        sent = set(written[0]['form']) | set(str(written[0]['form'].get('delete', '')).split(','))
        assert set(MATRIX[module]['drifted'].values()) <= sent, (module, written)
    assert 'digest' in of('acme_plugin', sim.writes())[0]['form']
    assert plugin(sim, 'cloudflare')['data'] == SOMEONE_ELSES_DATA
    assert custom(sim, 'node1') == CERT and info(sim, 'node1')['fingerprint'] == FINGERPRINT
    assert sorted(info(sim, 'node2')['san']) == ['node2.example.org', 'www.example.org']
    if reconfirms(path):
        run, results = step(sim, playbook, path, 'args')
        assert not any(results[module]['changed'] for module in MODULES) and sim.writes() == []

    # 7. state=absent in the reverse order (the certificate is revoked with the account), 8. again a no-op
    removal = list(reversed(MODULES))
    run, results = step(sim, playbook, path, 'absent', modules=removal)
    for module in removal:
        assert results[module]['plan']['action'] == 'delete' and len(of(module, sim.writes())) == 1, module
    assert results['acme_certificate']['plan']['call'] == 'revoke'
    assert info(sim, 'node1') is None and info(sim, 'node2') is None
    assert plugin(sim, 'cloudflare') is None
    assert 'default' not in sim.state.acme_accounts and '_deactivated_default_0' in sim.state.acme_accounts
    if reconfirms(path):
        run, results = step(sim, playbook, path, 'absent', modules=removal)
        for module in removal:
            assert results[module]['changed'] is False and results[module]['object'] == {}, module
        assert sim.writes() == []


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_secrets_never_appear_in_output_result_or_diff(sim, playbook, path):
    sim.state.acme_ca['meta'][EAB_DIRECTORY] = {'externalAccountRequired': True}
    # the key's body lines too, and the plugin data as it goes on the wire
    secrets = [KEY, EAB_HMAC_KEY, CF_TOKEN, DATA_WIRE] + [line for line in KEY.splitlines() if '-----' not in line]
    tasks = [task(sim, module, args, name='%s %d' % (module, index))
             for module, objects in SECRETS.items() for index, args in enumerate(objects)]
    for check in (True, False, False):
        run = playbook(tasks, check=check, diff=True, verbosity=4, env=EXECUTION_PATHS[path])
        assert run.rc == 0 and not run.failed, run
        for secret in secrets:
            assert secret not in run.output and secret not in str(run.results)
    # they were sent: the node has the key, the plugin its data, the CA bound the external account
    assert custom(sim, 'node1', 'key') == KEY
    assert plugin(sim, 'cloudflare')['data'] == DATA_WIRE
    assert sim.state.acme_accounts['corporate']['directory'] == EAB_DIRECTORY


def controller_play(sim, playbook, declarations, check=False, diff=False):
    """[(module, args)] in one play on the controller path; the task results in order (a failed one with
    ``failed: True``)."""
    run = playbook([task(sim, module, args, name='%s %d' % (module, index))
                    for index, (module, args) in enumerate(declarations)], check=check, diff=diff)
    assert len(run.results) == len(declarations), run
    return [dict(line['result'], failed=line['status'] == 'failed') for line in run.results]


def test_the_proxy_restarts_only_when_asked_and_another_certificate_needs_force(sim, playbook):
    declared = {'node': 'node1', 'certificates': CERT, 'key': KEY}
    sim.clear_log()
    # a node with no custom certificate takes one without force; no restart unless asked
    first, = controller_play(sim, playbook, [('certificate', declared)])
    upload, = sim.writes()
    assert first['plan']['action'] == 'create' and {'force', 'restart'} & set(upload['form']) == set()
    # another certificate there: refused without force, in check mode too, nothing written
    call(sim, MATRIX['certificate']['drift'])
    sim.clear_log()
    checked, real = controller_play(sim, playbook, [('certificate', declared)], check=True) + controller_play(
        sim, playbook, [('certificate', declared)])
    for result in (checked, real):
        assert result.get('failed') and 'force: true' in result['msg'] and OTHER_FINGERPRINT in result['msg']
    assert sim.writes() == [] and custom(sim, 'node1') == OTHER_CERT
    # with force and restart: one upload carrying both; the removal restarts only when asked
    sim.clear_log()
    controller_play(sim, playbook, [('certificate', dict(declared, force=True, restart=True)),
                                    ('certificate', {'node': 'node1', 'state': 'absent', 'restart': True}),
                                    ('certificate', dict(declared, force=True)),
                                    ('certificate', {'node': 'node1', 'state': 'absent'})])
    assert [(entry['method'], entry['form'].get('force'), entry['form'].get('restart'))
            for entry in sim.writes()] == [('POST', '1', '1'), ('DELETE', None, '1'), ('POST', None, None),
                                           ('DELETE', None, None)]


def test_a_key_that_does_not_match_fails_with_pves_words_and_the_old_pair_stays(sim, playbook):
    controller_play(sim, playbook, [('certificate', {'node': 'node1', 'certificates': CERT, 'key': KEY})])
    result, = controller_play(sim, playbook, [('certificate', {'node': 'node1', 'certificates': OTHER_CERT,
                                                               'key': KEY, 'force': True})])
    assert result.get('failed') and 'key does not match the certificate (chain)' in result['msg'], result
    assert 'Setting certificate files failed' in result['msg'] and KEY not in result['msg']
    assert custom(sim, 'node1') == CERT and custom(sim, 'node1', 'key') == KEY


def test_acme_accounts_are_root_only_and_the_cas_refusal_is_reported(sim, playbook):
    declared = dict(MATRIX['acme_account']['args'])
    no_terms = dict(declared, name='noterms')
    del no_terms['tos_url']
    # with the play's API token PVE refuses; without agreeing to the terms the CA refuses, in the task
    with_token = {'name': 'token', 'homeflare.proxmox.acme_account': dict(declared, **connection(sim)),
                  'ignore_errors': True}
    run = playbook([with_token, task(sim, 'acme_account', no_terms), task(sim, 'acme_account', declared),
                    task(sim, 'acme_account', dict(declared, directory=sim_acme.LE_PRODUCTION)),
                    task(sim, 'acme_account', dict(declared, tos_url='https://ca.example.org/terms-v2.pdf'))])
    token, refused, created, moved, terms = [dict(line['result'], failed=line['status'] == 'failed')
                                             for line in run.results]
    assert token.get('failed') and 'user != root@pam' in token['msg'], token
    assert refused.get('failed') and 'must agree to terms of service' in refused['msg'], refused
    assert created['changed'] and created['plan']['action'] == 'create'
    # the directory is fixed once registered
    assert moved.get('failed') and 'directory' in moved['msg'] and 'cannot be changed in place' in moved['msg']
    # the terms agreed to go with the registration only: never compared
    assert terms['changed'] is False and terms['object']['tos'] == sim_acme.LE_TOS
    assert sorted(sim.state.acme_accounts) == ['default']


def test_acme_certificate_renews_when_due_and_reports_why(sim, playbook):
    prepare(sim)
    account = ('acme_account', MATRIX['acme_account']['args'])
    controller_play(sim, playbook, [account, ('acme_certificate', {'node': 'node2'})])
    first = info(sim, 'node2')
    sim.clear_log()
    # the CA's 90-day certificate is due within renew_days 90: renewed (PUT, force), the old one revoked
    renewed, again = controller_play(sim, playbook, [('acme_certificate', {'node': 'node2', 'renew_days': 90}),
                                                     ('acme_certificate', {'node': 'node2'})])
    assert renewed['plan']['call'] == 'renew' and renewed['plan']['changed'] == ['expires']
    assert 'within renew_days (90): renew it' in renewed['plan']['reason']
    assert 'every run will renew it' in str(renewed.get('warnings'))
    put, = [entry for entry in sim.writes() if entry['path'].endswith('/acme/certificate')]
    assert (put['method'], put['form']) == ('PUT', {'force': '1'})
    assert info(sim, 'node2')['fingerprint'] != first['fingerprint']
    ca = sim.state.acme_ca['cas'][sim_acme.LE_STAGING]
    assert [record['revoked'] for record in ca.issued.values()] == [True, False]
    assert again['changed'] is False and 'after renew_days 30' in again['plan']['reason']


def test_a_failed_order_is_reported_with_pves_words(sim, playbook):
    prepare(sim)
    sim.state.acme_ca['invalid_domains'].add('node2.example.org')
    account = ('acme_account', MATRIX['acme_account']['args'])
    _account, result = controller_play(sim, playbook, [account, ('acme_certificate', {'node': 'node2'})])
    assert result.get('failed') and 'acmenewcert' in result['msg'], result
    assert "validating challenge '" in result['msg'] and "failed - status: invalid" in result['msg']
    assert info(sim, 'node2') is None


def test_acme_certificate_without_domains_plans_in_check_mode_and_refuses_a_real_run(sim, playbook):
    sim.clear_log()
    checked, = controller_play(sim, playbook, [('acme_certificate', {'node': 'node3'})], check=True)
    real, = controller_play(sim, playbook, [('acme_certificate', {'node': 'node3'})])
    assert checked['plan']['action'] == 'create' and 'no ACME domains configured yet' in checked['plan']['reason']
    assert real.get('failed') and 'node_config' in real['msg'] and 'Nothing was written' in real['msg']
    assert sim.writes() == []
    # a custom certificate that does not cover the node's domains is not its ACME certificate: absent leaves it
    call(sim, [('PUT', '/nodes/node1/config', {'acmedomain0': 'node1.example.org'}),
               ('POST', '/nodes/node1/certificates/custom', {'certificates': OTHER_CERT, 'key': OTHER_KEY})])
    sim.clear_log()
    left, = controller_play(sim, playbook, [('acme_certificate', {'node': 'node1', 'state': 'absent',
                                                                  'confirm_removal': True})])
    assert left['changed'] is False and 'left alone' in left['plan']['reason'] and sim.writes() == []
