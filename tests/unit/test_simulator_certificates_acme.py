"""The simulator's node certificates and ACME: /nodes/{node}/certificates (info, custom), /cluster/acme (accounts,
plugins, tos, meta, directories, challenge schema) and /nodes/{node}/certificates/acme/certificate.

Each answers as pve-manager builds it (PVE/API2/Certificates.pm, PVE/CertHelpers.pm, PVE/API2/ACME.pm,
PVE/API2/ACMEAccount.pm, PVE/API2/ACMEPlugin.pm, PVE/NodeConfig.pm get_acme_conf) over pve-common
src/PVE/Certificate.pm: real X.509 certificates, PVE's info fields, its errors in its words, its worker tasks; the
ACME CA is the simulator's own.

Run: python -m pytest tests/unit/test_simulator_certificates_acme.py -q
"""

import base64
import hashlib
import http.client
import ipaddress
import json
import re
import ssl
import sys
import urllib.parse
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from simulator.pve.handlers import acme  # noqa: E402
from simulator.pve.handlers.node_settings import settings  # noqa: E402
# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import ok, refused  # noqa: E402
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import

CUSTOM = '/nodes/node1/certificates/custom'
INFO = '/nodes/node1/certificates/info'
ORDER = '/nodes/node1/certificates/acme/certificate'
CUSTOM_PEM = '/etc/pve/nodes/node1/pveproxy-ssl.pem'
LE_NEW_ACCOUNT = 'https://acme-v02.api.letsencrypt.org/acme/new-acct'
NOT_SET = "Custom certificate file exists but force flag is not set.\n\n"
UPID_RE = re.compile(r'^UPID:node1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:(\w+)::root@pam(?:!sim)?:$')


@pytest.fixture(autouse=True)
def _fresh_state(request):
    """Every test starts with the installer's certificates, no ACME account, plugin or node config."""
    if 'sim' not in request.fixturenames:
        yield
        return
    state = request.getfixturevalue('sim').state
    with state.lock:
        state.cert_files.clear()
        state.acme_accounts.clear()
        state.acme_plugins = {'exists': False, 'ids': {}}
        state.acme_ca = acme._ca_factory()
        state.node_settings.clear()
        state.tasks.clear()
    yield
    with state.lock:
        for userid in [userid for userid in state.users if userid != 'root@pam']:
            for name in list(state.users[userid]['tokens']):
                state.remove_token(userid, name)
            state.drop_acl_subject('users', userid)
            del state.users[userid]


# -- helpers ------------------------------------------------------------------------------------------------------

def as_root(sim, method, path, form=None):
    """One request with a ticket of root@pam (the ACME account methods are root@pam's only); (status, body)."""
    status, login = sim.request('POST', '/access/ticket', {'username': 'root@pam', 'password': sim.root_password})
    assert status == 200, login
    headers = {'Cookie': 'PVEAuthCookie=' + urllib.parse.quote(login['data']['ticket']),
               'CSRFPreventionToken': login['data']['CSRFPreventionToken']}
    encoded = urllib.parse.urlencode(form or {})
    target, body = '/api2/json' + path, None
    if method in ('GET', 'DELETE'):
        target += '?' + encoded if encoded else ''
    else:
        body = encoded
        headers['Content-Type'] = 'application/x-www-form-urlencoded'
    host, port = sim.members[0].split(':')
    conn = http.client.HTTPSConnection(host, int(port), timeout=10,
                                       context=ssl.create_default_context(cafile=sim.ca_path))
    try:
        conn.request(method, target, body=body, headers=headers)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read().decode())
    finally:
        conn.close()


def root_ok(sim, method, path, form=None):
    status, body = as_root(sim, method, path, form)
    assert status == 200, (method, path, status, body)
    return body['data']


def task(sim, upid, typ):
    """(exit status, log lines) of a finished worker of type ``typ`` that root@pam (ticket or token) started on
    node1."""
    assert UPID_RE.match(upid).group(1) == typ, upid
    found = sim.state.tasks[upid]
    return found.exitstatus, found.log()[:-1]


def token_with(sim, roles):
    """A privilege-separated token of a new user, with ``roles`` [(path, role)] on the user and the token."""
    sim.state.add_user('cert@pve')
    secret = sim.state.add_token('cert@pve', 'tk', privsep=1)
    for path, role in roles:
        sim.state.set_acl(path, role, users='cert@pve', tokens='cert@pve!tk')
    return 'cert@pve!tk', secret


def make_cert(key=None, cn='pve.example.com', san=('pve.example.com',), days=365, subject=None):
    """A self-signed certificate and its key, both PEM."""
    key = key or ec.generate_private_key(ec.SECP256R1())
    now = datetime.now(timezone.utc)
    name = subject or x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    names = [x509.IPAddress(ipaddress.ip_address(n)) if ':' in n or n[0].isdigit() else x509.DNSName(n)
             for n in san]
    builder = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
               .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(days=1))
               .not_valid_after(now + timedelta(days=days)))
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    cert = builder.sign(key, hashes.SHA256())
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption()).decode()
    return cert.public_bytes(serialization.Encoding.PEM).decode(), key_pem, cert


def pve_fingerprint(cert):
    digest = cert.fingerprint(hashes.SHA256()).hex().upper()
    return ':'.join(digest[i:i + 2] for i in range(0, 64, 2))


def upload(sim, cert, key=None, **extra):
    form = {'certificates': cert, **extra}
    if key is not None:
        form['key'] = key
    return sim.request('POST', CUSTOM, form)


def filenames(sim):
    return [entry['filename'] for entry in ok(sim, 'GET', INFO)]


def node_config(sim, text, node='node1'):
    """Write /etc/pve/nodes/<node>/config as it is on disk (node_settings' file)."""
    settings(sim.state, node)['config'] = text


def register(sim, name='default', **form):
    form = {'contact': 'admin@example.com', 'tos_url': acme.LE_TOS, **form}
    if name is not None:
        form['name'] = name
    return task(sim, root_ok(sim, 'POST', '/cluster/acme/account', form), 'acmeregister')


# -- /nodes/{node}/certificates: index and info ---------------------------------------------------------------------

def test_index_lists_the_three_children(sim):
    assert ok(sim, 'GET', '/nodes/node1/certificates') == [{'name': 'acme'}, {'name': 'custom'}, {'name': 'info'}]
    assert ok(sim, 'GET', '/nodes/node1/certificates/acme') == [{'name': 'certificate'}]


def test_info_of_a_fresh_node_is_the_cluster_ca_and_the_served_certificate(sim):
    root_ca, pve_ssl = ok(sim, 'GET', INFO)
    assert [root_ca['filename'], pve_ssl['filename']] == ['pve-root-ca.pem', 'pve-ssl.pem']
    # pve-ssl.pem is the certificate the members serve: its fingerprint is /nodes' ssl_fingerprint
    assert pve_ssl['fingerprint'] == sim.tls.fingerprint == ok(sim, 'GET', '/nodes')[0]['ssl_fingerprint']
    with open(sim.ca_path, encoding='ascii') as fh:
        ca_text = fh.read()
    assert root_ca['pem'] == ca_text
    served = x509.load_pem_x509_certificate(pve_ssl['pem'].encode())
    assert pve_ssl['notafter'] == int(served.not_valid_after_utc.timestamp())
    assert pve_ssl['notbefore'] == int(served.not_valid_before_utc.timestamp())
    assert pve_ssl['subject'] == '/O=homeflare simulator/CN=localhost'
    assert pve_ssl['issuer'] == root_ca['subject'] == '/O=homeflare simulator/CN=Simulator CA'
    assert pve_ssl['san'] == ['127.0.0.1', 'localhost'] and root_ca['san'] == []
    assert (pve_ssl['public-key-type'], pve_ssl['public-key-bits']) == ('id-ecPublicKey', 256)
    assert re.fullmatch(r'([0-9A-F]{2}:){31}[0-9A-F]{2}', root_ca['fingerprint'])


def test_info_of_an_unknown_node_fails_the_proxy_lookup(sim):
    status, message, _errors = refused(sim, 'GET', '/nodes/nodex/certificates/info')
    assert status == 500 and message.startswith("hostname lookup 'nodex' failed")


# -- POST/DELETE /nodes/{node}/certificates/custom -------------------------------------------------------------------

def test_upload_answers_the_certificates_info_and_info_lists_it(sim):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cert_pem, key_pem, cert = make_cert(key, san=('pve.example.com', '10.0.0.5', '2001:db8::1'))
    status, body = upload(sim, 'leading text is stripped\n' + cert_pem, key_pem, restart=1)
    assert status == 200, body
    answer = body['data']
    assert answer['filename'] == 'pveproxy-ssl.pem' and answer['fingerprint'] == pve_fingerprint(cert)
    assert answer['san'] == ['pve.example.com', '10.0.0.5', '2001:0db8:0000:0000:0000:0000:0000:0001']
    assert (answer['public-key-type'], answer['public-key-bits']) == ('rsaEncryption', 2048)
    assert answer['subject'] == answer['issuer'] == '/CN=pve.example.com' and answer['pem'] == cert_pem
    assert filenames(sim) == ['pve-root-ca.pem', 'pve-ssl.pem', 'pveproxy-ssl.pem']
    assert 'PRIVATE KEY' not in json.dumps(body) + json.dumps(ok(sim, 'GET', INFO))  # the key is never answered


def test_subject_names_read_as_x509_name_oneline(sim):
    rdn = x509.RelativeDistinguishedName
    subject = x509.Name([rdn([x509.NameAttribute(NameOID.COUNTRY_NAME, 'AT')]),
                         rdn([x509.NameAttribute(NameOID.ORGANIZATION_NAME, 'A/B+C'),
                              x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, 'Ops-1')]),
                         rdn([x509.NameAttribute(NameOID.COMMON_NAME, 'Wien\u00e9')])])
    cert_pem, key_pem, _cert = make_cert(subject=subject, san=())
    answer = upload(sim, cert_pem, key_pem)[1]['data']
    # '+' joins the entries of one RDN; '/' and '+' in values are escaped, bytes past '~' hex-escaped
    assert answer['subject'] == '/C=AT/O=A\\/B\\+C+OU=Ops-1/CN=Wien\\xC3\\xA9' and answer['san'] == []


def test_pem_parameters_are_checked_as_pem(sim):
    cert_pem, key_pem, _cert = make_cert()
    bad = "invalid format - not a valid PEM-formatted string.\n"
    assert refused(sim, 'POST', CUSTOM, {'certificates': 'garbage', 'key': key_pem}) == (
        400, 'Parameter verification failed.\n', {'certificates': bad})
    assert refused(sim, 'POST', CUSTOM, {'certificates': cert_pem + 'trailing', 'key': key_pem})[2] == {
        'certificates': bad}
    assert refused(sim, 'POST', CUSTOM, {'certificates': cert_pem, 'key': 'nope'})[2] == {'key': bad}
    # a chain is blocks separated by newlines; a key may carry any label
    chain = cert_pem + '\n' + make_cert()[0]
    assert upload(sim, chain, key_pem)[0] == 200


def test_a_certificate_without_a_key_needs_an_existing_key_and_force(sim):
    cert_pem, key_pem, _cert = make_cert()
    assert refused(sim, 'POST', CUSTOM, {'certificates': cert_pem}) == (
        400, 'Parameter verification failed.\n',
        {'key': 'Attempted to upload custom certificate without (existing) key.'})
    assert upload(sim, cert_pem, key_pem)[0] == 200
    assert refused(sim, 'POST', CUSTOM, {'certificates': cert_pem, 'key': key_pem}) == (500, NOT_SET, None)
    # the existing key is used with a new certificate for it
    renewed_pem, _key, renewed = make_cert(serialization.load_pem_private_key(key_pem.encode(), None))
    assert upload(sim, renewed_pem, force=1)[1]['data']['fingerprint'] == pve_fingerprint(renewed)


def test_a_lone_key_file_blocks_the_upload_too(sim):
    cert_pem, key_pem, _cert = make_cert()
    sim.state.cert_files['/etc/pve/nodes/node1/pveproxy-ssl.key'] = key_pem
    assert refused(sim, 'POST', CUSTOM, {'certificates': cert_pem, 'key': key_pem}) == (
        500, "Custom certificate key file exists but force flag is not set.\n\n", None)


def test_a_key_that_does_not_match_removes_the_new_files_or_restores_the_old(sim):
    cert_pem, key_pem, cert = make_cert()
    other_key = make_cert()[1]
    mismatch = re.compile(r'^Setting certificate files failed - \d+: key does not match the certificate \(chain\) '
                          r'\(Inappropriate ioctl for device\)\n\n\n$')
    status, message, _errors = refused(sim, 'POST', CUSTOM, {'certificates': cert_pem, 'key': other_key})
    assert status == 500 and mismatch.match(message), message
    assert filenames(sim) == ['pve-root-ca.pem', 'pve-ssl.pem']
    assert upload(sim, cert_pem, key_pem)[0] == 200
    new_pem = make_cert()[0]
    assert mismatch.match(refused(sim, 'POST', CUSTOM, {'certificates': new_pem, 'key': other_key, 'force': 1})[1])
    assert ok(sim, 'GET', INFO)[2]['fingerprint'] == pve_fingerprint(cert)  # both old files came back


def test_an_unreadable_chain_or_key_fails_the_ssl_check(sim):
    cert_pem, key_pem, _cert = make_cert()
    junk = '-----BEGIN CERTIFICATE-----\n' + base64.b64encode(b'not a certificate').decode() + \
        '\n-----END CERTIFICATE-----\n'
    message = refused(sim, 'POST', CUSTOM, {'certificates': cert_pem + junk, 'key': key_pem})[1]
    assert re.match(r'^Setting certificate files failed - \d+: could not load certificate \(chain\) ', message)
    encrypted = serialization.load_pem_private_key(key_pem.encode(), None).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b'pass phrase')).decode()
    message = refused(sim, 'POST', CUSTOM, {'certificates': cert_pem, 'key': encrypted})[1]
    assert re.match(r'^Setting certificate files failed - \d+: key does not match the certificate \(chain\) ', message)
    assert filenames(sim) == ['pve-root-ca.pem', 'pve-ssl.pem']


def test_a_key_of_another_type_is_not_compared_with_the_certificate(sim):
    """OpenSSL's SSL_CTX keeps one key per type: an EC key is not checked against an RSA certificate."""
    cert_pem, _key, _cert = make_cert(rsa.generate_private_key(public_exponent=65537, key_size=2048))
    assert upload(sim, cert_pem, make_cert()[1])[0] == 200


def test_an_unreadable_certificate_stays_written(sim):
    junk = '-----BEGIN CERTIFICATE-----\n' + base64.b64encode(b'not a certificate').decode() + \
        '\n-----END CERTIFICATE-----\n'
    cert_pem, key_pem, _cert = make_cert()
    assert refused(sim, 'POST', CUSTOM, {'certificates': junk, 'key': key_pem}) == (
        500, f"Setting certificate files failed - unable to read certificate from '{CUSTOM_PEM}'\n\n\n", None)
    assert filenames(sim) == ['pve-root-ca.pem', 'pve-ssl.pem']  # info skips the file it cannot read
    assert refused(sim, 'POST', CUSTOM, {'certificates': cert_pem, 'key': key_pem})[1] == NOT_SET


def test_remove_custom_cert_removes_both_files(sim):
    cert_pem, key_pem, _cert = make_cert()
    assert upload(sim, cert_pem, key_pem)[0] == 200
    assert ok(sim, 'DELETE', CUSTOM, {'restart': 1}) is None
    assert filenames(sim) == ['pve-root-ca.pem', 'pve-ssl.pem']
    assert ok(sim, 'DELETE', CUSTOM) is None  # nothing left to remove is no error
    assert refused(sim, 'POST', CUSTOM, {'certificates': cert_pem})[2] == {
        'key': 'Attempted to upload custom certificate without (existing) key.'}


def test_custom_certificate_writes_need_sys_modify_on_the_node(sim):
    token = token_with(sim, [('/nodes/node1', 'PVEAuditor')])
    assert refused(sim, 'DELETE', CUSTOM, token=token)[:2] == (
        403, 'Permission check failed (/nodes/node1, Sys.Modify)\n')
    assert [e['filename'] for e in ok(sim, 'GET', INFO, token=token)] == ['pve-root-ca.pem', 'pve-ssl.pem']


# -- /cluster/acme: accounts, tos, meta, directories ----------------------------------------------------------------

def test_acme_index_and_directories(sim):
    assert [row['name'] for row in ok(sim, 'GET', '/cluster/acme')] == [
        'account', 'tos', 'meta', 'directories', 'plugins', 'challenge-schema']
    assert ok(sim, 'GET', '/cluster/acme/directories') == [
        {'name': "Let's Encrypt V2", 'url': 'https://acme-v02.api.letsencrypt.org/directory'},
        {'name': "Let's Encrypt V2 Staging", 'url': 'https://acme-staging-v02.api.letsencrypt.org/directory'}]


def test_tos_and_meta_come_from_the_directory(sim):
    assert ok(sim, 'GET', '/cluster/acme/tos') == acme.LE_TOS
    meta = ok(sim, 'GET', '/cluster/acme/meta', {'directory': acme.LE_STAGING})
    assert meta['termsOfService'] == acme.LE_TOS and meta['caaIdentities'] == ['letsencrypt.org']
    other = 'https://ca.example.com/acme/directory'
    assert ok(sim, 'GET', '/cluster/acme/meta', {'directory': other}) is None
    assert ok(sim, 'GET', '/cluster/acme/tos', {'directory': other}) is None
    assert refused(sim, 'GET', '/cluster/acme/meta', {'directory': 'ftp://x'})[2] == {
        'directory': 'value does not match the regex pattern'}
    # meta checks Sys.Audit on /nodes/{node}, and there is no node parameter
    token = token_with(sim, [('/nodes/node1', 'PVEAuditor')])
    assert refused(sim, 'GET', '/cluster/acme/meta', token=token)[:2] == (
        403, 'Permission check failed (/nodes/-, Sys.Audit)\n')


def test_account_methods_are_for_root_at_pam_itself(sim):
    assert ok(sim, 'GET', '/cluster/acme/account') == []  # the list is anybody's
    for method, path in (('POST', '/cluster/acme/account'), ('GET', '/cluster/acme/account/default'),
                         ('PUT', '/cluster/acme/account/default'), ('DELETE', '/cluster/acme/account/default')):
        assert refused(sim, method, path, {'contact': 'a@example.com'} if method == 'POST' else None)[:2] == (
            403, 'Permission check failed (user != root@pam)\n'), (method, path)


def test_register_account_runs_acmeregister_and_keeps_the_account(sim):
    exitstatus, log = register(sim, name=None, contact='admin@example.com,ops@example.com')
    location = log[-1].split("'")[1]
    assert exitstatus == 'OK' and log == ['Generating ACME account key..', 'Registering ACME account..',
                                          f"Registration successful, account URL: '{location}'"]
    assert location.startswith('https://acme-v02.api.letsencrypt.org/acme/acct/')
    assert root_ok(sim, 'GET', '/cluster/acme/account') == [{'name': 'default'}]
    account = root_ok(sim, 'GET', '/cluster/acme/account/default')
    assert account['directory'] == acme.LE_PRODUCTION and account['location'] == location
    assert account['tos'] == acme.LE_TOS and account['account']['status'] == 'valid'
    assert account['account']['contact'] == ['mailto:admin@example.com', 'mailto:ops@example.com']
    assert as_root(sim, 'POST', '/cluster/acme/account', {'contact': 'x@example.com'})[1]['errors'] == {
        'name': "ACME account config file 'default' already exists."}
    assert as_root(sim, 'GET', '/cluster/acme/account/other')[1]['errors'] == {
        'name': "ACME account config file 'other' does not exist."}


def test_a_refused_registration_fails_the_task_and_leaves_no_account(sim):
    exitstatus, _log = register(sim, tos_url='')  # Let's Encrypt wants its terms agreed
    problem = json.dumps({'type': 'urn:ietf:params:acme:error:malformed', 'detail': 'must agree to terms of service',
                          'status': 400}, indent=2).replace('\n', ' ')
    assert exitstatus == f'Registration failed: Error: POST to {LE_NEW_ACCOUNT} {problem} '
    assert root_ok(sim, 'GET', '/cluster/acme/account') == []


def test_external_account_binding(sim):
    directory = 'https://ca.example.com/acme/directory'
    sim.state.acme_ca['meta'][directory] = {'externalAccountRequired': True}
    exitstatus, _log = register(sim, directory=directory, tos_url='')
    assert 'urn:ietf:params:acme:error:externalAccountRequired' in exitstatus
    assert as_root(sim, 'POST', '/cluster/acme/account', {'contact': 'a@example.com', 'eab-kid': 'kid1'})[1][
        'errors'] == {'eab-hmac-key': "missing property required by 'eab-kid'"}
    assert register(sim, directory=directory, tos_url='', **{'eab-kid': 'kid1', 'eab-hmac-key': 'c2VjcmV0'})[0] == 'OK'
    account = root_ok(sim, 'GET', '/cluster/acme/account/default')
    assert account['directory'] == directory and account['tos'] is None
    assert 'c2VjcmV0' not in json.dumps(account) + repr(sim.state.acme_accounts)  # the HMAC key is not kept


def test_update_refresh_and_deactivate(sim):
    register(sim)
    upid = root_ok(sim, 'PUT', '/cluster/acme/account/default', {'contact': 'new@example.com'})
    assert task(sim, upid, 'acmeupdate') == ('OK', [])
    assert root_ok(sim, 'GET', '/cluster/acme/account/default')['account']['contact'] == ['mailto:new@example.com']
    assert task(sim, root_ok(sim, 'PUT', '/cluster/acme/account/default'), 'acmerefresh')[0] == 'OK'
    for i in range(2):
        exitstatus, log = task(sim, root_ok(sim, 'DELETE', '/cluster/acme/account/default'), 'acmedeactivate')
        assert (exitstatus, log) == ('OK', [
            "Renaming account file from '/etc/pve/priv/acme/default' to "
            f"'/etc/pve/priv/acme/_deactivated_default_{i}'"])
        assert root_ok(sim, 'GET', '/cluster/acme/account') == []  # the renamed file is no config ID
        assert as_root(sim, 'DELETE', '/cluster/acme/account/default')[1]['errors'] == {
            'name': "ACME account config file 'default' does not exist."}
        register(sim)
    assert sim.state.acme_accounts['_deactivated_default_0']['account']['status'] == 'deactivated'


# -- /cluster/acme/plugins and the challenge schema ------------------------------------------------------------------

def plugin(sim, plugin_id):
    return ok(sim, 'GET', f'/cluster/acme/plugins/{plugin_id}')


def test_the_standalone_plugin_is_always_there(sim):
    assert ok(sim, 'GET', '/cluster/acme/plugins') == [
        {'type': 'standalone', 'plugin': 'standalone', 'digest': hashlib.sha1(b'').hexdigest()}]
    assert ok(sim, 'DELETE', '/cluster/acme/plugins/standalone') is None
    assert plugin(sim, 'standalone')['type'] == 'standalone'  # parse_config adds it again
    assert refused(sim, 'POST', '/cluster/acme/plugins', {'id': 'standalone', 'type': 'standalone'})[:2] == (
        500, "ACME plugin ID 'standalone' already exists\n")


def test_a_dns_plugin_reads_back_with_its_data_and_the_file_digest(sim):
    data = base64.b64encode(b'CF_Token=abc\nCF_Account_ID=42\n').decode()
    assert ok(sim, 'POST', '/cluster/acme/plugins', {'id': 'cf1', 'type': 'dns', 'api': 'cf', 'data': data,
                                                     'validation-delay': '60', 'nodes': 'node1,node2'}) is None
    got = plugin(sim, 'cf1')
    assert got == {'type': 'dns', 'api': 'cf', 'data': data, 'validation-delay': 60, 'nodes': 'node1,node2',
                   'plugin': 'cf1', 'digest': got['digest']}
    rows = ok(sim, 'GET', '/cluster/acme/plugins')
    assert {row['plugin'] for row in rows} == {'standalone', 'cf1'} and {row['digest'] for row in rows} == {
        got['digest']} != {hashlib.sha1(b'').hexdigest()}
    assert [row['plugin'] for row in ok(sim, 'GET', '/cluster/acme/plugins', {'type': 'dns'})] == ['cf1']


def test_plugin_options_are_checked_per_type(sim):
    def fails(method, path, form):
        status, message, _errors = refused(sim, method, path, form)
        assert status == 500
        return message
    assert fails('POST', '/cluster/acme/plugins', {'id': 'web', 'type': 'standalone', 'api': 'cf'}) == \
        "unexpected property 'api'\n"
    assert fails('POST', '/cluster/acme/plugins', {'id': 'dns1', 'type': 'dns'}) == \
        "missing value for required option 'api'\n"
    assert fails('POST', '/cluster/acme/plugins', {'id': 'dns1', 'type': 'dns', 'api': 'cf', 'data': 'a\nb'}) == \
        'property contains a line feed\n'
    assert fails('GET', '/cluster/acme/plugins/nope', None) == "ACME plugin 'nope' not defined\n"
    assert fails('PUT', '/cluster/acme/plugins/nope', {'disable': 1}) == "ACME plugin ID 'nope' does not exist\n"
    assert refused(sim, 'POST', '/cluster/acme/plugins', {'id': 'xy', 'type': 'http'})[2] == {
        'type': "value 'http' does not have a value in the enumeration 'dns, standalone'"}


def test_update_plugin(sim):
    ok(sim, 'POST', '/cluster/acme/plugins', {'id': 'cf1', 'type': 'dns', 'api': 'cf', 'data': 'ZGF0YQ=='})
    digest = plugin(sim, 'cf1')['digest']
    assert ok(sim, 'PUT', '/cluster/acme/plugins/cf1', {'api': 'ovh', 'disable': 1, 'digest': digest}) is None
    got = plugin(sim, 'cf1')
    assert (got['api'], got['disable'], got['data']) == ('ovh', 1, 'ZGF0YQ==')
    assert refused(sim, 'PUT', '/cluster/acme/plugins/cf1', {'disable': 0, 'digest': digest})[1] == \
        'detected modified configuration - file changed by other user? Try again.\n'
    assert refused(sim, 'PUT', '/cluster/acme/plugins/cf1', {'delete': 'api'})[1] == \
        "unable to delete required option 'api'\n"
    assert refused(sim, 'PUT', '/cluster/acme/plugins/cf1', {'delete': 'alias'})[1] == "no such option 'alias'\n"
    ok(sim, 'PUT', '/cluster/acme/plugins/cf1', {'delete': 'data', 'disable': 0})
    assert 'data' not in plugin(sim, 'cf1') and 'disable' not in plugin(sim, 'cf1')  # a false flag is not written
    ok(sim, 'DELETE', '/cluster/acme/plugins/cf1')
    assert [row['plugin'] for row in ok(sim, 'GET', '/cluster/acme/plugins')] == ['standalone']


def test_plugins_need_sys_modify_on_the_root(sim):
    token = token_with(sim, [('/', 'PVEAuditor')])
    assert refused(sim, 'GET', '/cluster/acme/plugins', token=token)[:2] == (
        403, 'Permission check failed (/, Sys.Modify)\n')


def test_challenge_schema_lists_the_dns_plugins(sim):
    rows = ok(sim, 'GET', '/cluster/acme/challenge-schema')
    api_enum = sim.api.schema.lookup('POST', '/cluster/acme/plugins')['parameters']['properties']['api']['enum']
    assert [row['id'] for row in rows] == sorted(api_enum) and {row['type'] for row in rows} == {'dns'}
    by_id = {row['id']: row for row in rows}
    assert by_id['cf']['name'] == 'Cloudflare Managed DNS' and 'CF_Token' in by_id['cf']['schema']['fields']
    assert by_id['1984hosting'] == {'id': '1984hosting', 'name': '1984hosting', 'type': 'dns', 'schema': {}}


# -- /nodes/{node}/certificates/acme/certificate -------------------------------------------------------------------

def order(sim, form=None):
    return task(sim, ok(sim, 'POST', ORDER, form), 'acmenewcert')


def test_ordering_needs_the_node_domains(sim):
    # no node config at all: NodeConfig's domain hash never exists, and the check dereferences it
    assert refused(sim, 'POST', ORDER) == (500, "Can't use an undefined value as a HASH reference at "
                                                "/usr/share/perl5/PVE/API2/ACME.pm line 195.\n", None)
    assert refused(sim, 'DELETE', ORDER)[1].endswith('ACME.pm line 345.\n')
    node_config(sim, 'acme: account=default\n')
    # raise(..., 400) passes 400 as a hash key: a 500 with the bare message
    assert refused(sim, 'POST', ORDER) == (500, 'ACME domain list in node configuration is missing!', None)
    node_config(sim, 'acme: domains=a.example.com;A.example.com\n')
    assert refused(sim, 'POST', ORDER)[1] == "duplicate domain 'a.example.com' in ACME config properties\n"
    node_config(sim, 'acme: domains=a.example.com\nacmedomain1: A.example.com,plugin=cf1\n')
    assert refused(sim, 'POST', ORDER)[1] == \
        "duplicate domain 'a.example.com' in ACME config properties 'acmedomain1' and 'acme'\n"
    node_config(sim, 'acmedomain0: b.example.com,plugin=cf1\n')
    assert refused(sim, 'POST', ORDER)[1] == "plugin 'cf1' for domain 'b.example.com' not found!\n"


def test_ordering_without_the_account_fails_the_task(sim):
    node_config(sim, 'acme: domains=node1.example.com\n')
    assert order(sim) == ("ACME account config file 'default' does not exist.", [])
    register(sim)
    node_config(sim, 'acme: account=other,domains=node1.example.com\n')  # the node names its account
    assert order(sim) == ("ACME account config file 'other' does not exist.", [])


def test_a_new_certificate_is_ordered_validated_and_installed(sim):
    register(sim)
    node_config(sim, 'acme: domains=node1.example.com;WWW.example.com\n')
    exitstatus, log = order(sim)
    assert exitstatus == 'OK', log
    order_url = log[2].removeprefix('Order URL: ')
    auth_urls = [line.split("'")[1] for line in log if line.startswith('Getting authorization details')]
    assert log == [
        'Loading ACME account details', 'Placing ACME order', f'Order URL: {order_url}',
        '', f"Getting authorization details from '{auth_urls[0]}'", 'The validation for node1.example.com is pending!',
        'Setting up webserver', 'Triggering validation', 'Sleeping for 5 seconds',
        "Status is 'valid', domain 'node1.example.com' OK!",
        '', f"Getting authorization details from '{auth_urls[1]}'", 'The validation for www.example.com is pending!',
        'Setting up webserver', 'Triggering validation', 'Sleeping for 5 seconds',
        "Status is 'valid', domain 'www.example.com' OK!",
        '', 'All domains validated!', '', 'Creating CSR', 'Checking order status', 'Order is ready, finalizing order',
        'valid!', '', 'Downloading certificate', 'Setting pveproxy certificate and key', 'Restarting pveproxy']
    custom = ok(sim, 'GET', INFO)[2]
    assert custom['filename'] == 'pveproxy-ssl.pem' and custom['san'] == ['node1.example.com', 'www.example.com']
    assert custom['subject'] == '/CN=node1.example.com'
    assert custom['issuer'] == '/O=homeflare simulator/OU=acme-v02.api.letsencrypt.org/CN=Simulated ACME CA'
    assert (custom['public-key-type'], custom['public-key-bits']) == ('rsaEncryption', 4096)
    assert 85 * 86400 < custom['notafter'] - custom['notbefore'] <= 90 * 86400
    # the chain holds the CA too; the key is kept but never answered
    assert sim.state.cert_files[CUSTOM_PEM].count('BEGIN CERTIFICATE') == 2
    assert 'PRIVATE KEY' in sim.state.cert_files['/etc/pve/nodes/node1/pveproxy-ssl.key']
    # a custom certificate needs force; the account's authorizations are still valid
    assert refused(sim, 'POST', ORDER)[2] == {'force': "Custom certificate exists but 'force' is not set."}
    exitstatus, log = order(sim, {'force': 1})
    assert exitstatus == 'OK' and 'node1.example.com is already validated!' in log
    assert ok(sim, 'GET', INFO)[2]['fingerprint'] != custom['fingerprint']


def test_a_dns_plugin_domain_and_a_failed_validation(sim):
    register(sim)
    ok(sim, 'POST', '/cluster/acme/plugins', {'id': 'cf1', 'type': 'dns', 'api': 'cf', 'validation-delay': 0})
    node_config(sim, 'acmedomain0: node1.example.com,plugin=cf1\n')
    sim.state.acme_ca['invalid_domains'].add('node1.example.com')
    exitstatus, log = order(sim)
    auth_url = log[4].split("'")[1]
    assert exitstatus == f"validating challenge '{auth_url}' failed - status: invalid"
    assert log[5:] == ['The validation for node1.example.com is pending!',
                       'Add TXT record: _acme-challenge.node1.example.com',
                       'Triggering validation', 'Sleeping for 5 seconds',
                       'Remove TXT record: _acme-challenge.node1.example.com']
    assert filenames(sim) == ['pve-root-ca.pem', 'pve-ssl.pem']
    sim.state.acme_ca['invalid_domains'].clear()
    ok(sim, 'PUT', '/cluster/acme/plugins/cf1', {'delete': 'validation-delay'})
    exitstatus, log = order(sim)
    assert exitstatus == 'OK' and 'Sleeping 30 seconds to wait for TXT record propagation' in log
    assert log.index("Status is 'valid', domain 'node1.example.com' OK!") + 1 == log.index(
        'Remove TXT record: _acme-challenge.node1.example.com')


def test_renew_checks_the_certificate_and_its_expiry(sim):
    register(sim)
    node_config(sim, 'acme: domains=node1.example.com\n')
    assert refused(sim, 'PUT', ORDER) == (
        500, 'No current (custom) certificate found, please order a new certificate!\n', None)
    assert order(sim)[0] == 'OK'
    before = ok(sim, 'GET', INFO)[2]['fingerprint']
    assert refused(sim, 'PUT', ORDER)[2] == {
        'force': "Certificate does not expire within the next 30 days, and 'force' is not set."}
    exitstatus, log = task(sim, ok(sim, 'PUT', ORDER, {'force': 1}), 'acmerenew')
    assert exitstatus == 'OK' and log[-3:] == ['Setting pveproxy certificate and key', 'Restarting pveproxy',
                                               'Revoking old certificate']
    assert ok(sim, 'GET', INFO)[2]['fingerprint'] != before
    # the old certificate is revoked: revoking it again is refused by the CA
    ca = acme.ca_for(sim.state, acme.LE_PRODUCTION)
    assert sum(record['revoked'] for record in ca.issued.values()) == 1


def test_renew_of_a_certificate_due_needs_no_force_and_warns_when_the_ca_refuses_the_revocation(sim):
    register(sim)
    node_config(sim, 'acme: domains=node1.example.com\n')
    cert_pem, key_pem, _cert = make_cert(days=10)
    assert upload(sim, cert_pem, key_pem)[0] == 200
    exitstatus, log = task(sim, ok(sim, 'PUT', ORDER), 'acmerenew')
    problem = json.dumps({'type': 'urn:ietf:params:acme:error:malformed', 'detail': 'Certificate not found',
                          'status': 404}, indent=2).split('\n')
    assert exitstatus == 'OK' and log[-len(problem) - 1:] == [
        'Revoke request to CA failed: Error: POST to https://acme-v02.api.letsencrypt.org/acme/revoke-cert'] + problem


def test_revoke_removes_the_files(sim):
    register(sim)
    node_config(sim, 'acme: domains=node1.example.com\n')
    assert order(sim)[0] == 'OK'
    exitstatus, log = task(sim, ok(sim, 'DELETE', ORDER), 'acmerevoke')
    assert (exitstatus, log) == ('OK', ['Loading ACME account details', 'Revoking old certificate',
                                        'Deleting certificate files',
                                        'Restarting pveproxy to revert to self-signed certificates'])
    assert filenames(sim) == ['pve-root-ca.pem', 'pve-ssl.pem']
    assert refused(sim, 'DELETE', ORDER) == (
        500, f"can't open '{CUSTOM_PEM}' - No such file or directory\n", None)
    # an expired certificate is no revocation error
    assert order(sim)[0] == 'OK'
    for record in acme.ca_for(sim.state, acme.LE_PRODUCTION).issued.values():
        record['not_after'] = 0
    assert task(sim, ok(sim, 'DELETE', ORDER), 'acmerevoke')[0] == 'OK'
    assert filenames(sim) == ['pve-root-ca.pem', 'pve-ssl.pem']
    # a certificate the CA did not issue cannot be revoked, and stays
    cert_pem, key_pem, _cert = make_cert()
    upload(sim, cert_pem, key_pem)
    exitstatus, _log = task(sim, ok(sim, 'DELETE', ORDER), 'acmerevoke')
    assert exitstatus.startswith('Revoke request to CA failed: Error: POST to '
                                 'https://acme-v02.api.letsencrypt.org/acme/revoke-cert {')
    assert filenames(sim)[-1] == 'pveproxy-ssl.pem'
