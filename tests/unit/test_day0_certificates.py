"""The pure logic of the Day 0 certificate families (issue 23): PEM checks and fingerprints without an X.509 library
(module_utils/pem.py), a DNS plugin's ``data`` as PVE takes it, a node's configured ACME domains, and how
acme_certificate judges a node (its plan, reason and diff), against certificates made with ``cryptography`` and the
simulator's port of PVE's own checks."""

import base64
import time
from datetime import datetime, timedelta, timezone

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

from ansible_collections.homeflare.proxmox.plugins.module_utils import pem
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.families import (
    acme_account, acme_certificate, acme_plugin, certificate)
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.acme_certificate import (
    Certificate, NoCertificate, configured_domains, covers)
from simulator.pve.handlers import certificates as pve_certificates

DAY = 24 * 60 * 60


def make(name='pve1.example.org', key=None, days=90):
    key = key or ec.generate_private_key(ec.SECP256R1())
    now = datetime.now(timezone.utc)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(days=1))
            .not_valid_after(now + timedelta(days=days)).sign(key, hashes.SHA256()))
    return cert, key


def cert_pem(cert):
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def key_pem(key, fmt=serialization.PrivateFormat.PKCS8, encryption=None):
    return key.private_bytes(serialization.Encoding.PEM, fmt, encryption or serialization.NoEncryption()).decode()


CERT, KEY = make()
CA, _CA_KEY = make('Example CA')
CHAIN = cert_pem(CERT) + cert_pem(CA)


# -- pem.py -----------------------------------------------------------------------------------------------------

def test_the_fingerprint_is_pves_of_the_leaf():
    assert pem.leaf_fingerprint(CHAIN) == pve_certificates.fingerprint(CERT)
    assert pem.leaf_fingerprint('Bag Attributes\n' + CHAIN) == pve_certificates.fingerprint(CERT)
    assert pem.leaf_fingerprint(key_pem(KEY)) is None


@pytest.mark.parametrize('text', [
    CHAIN, cert_pem(CERT), 'subject=/CN=x\n' + CHAIN, CHAIN.rstrip('\n'), cert_pem(CERT) + '\n\n' + cert_pem(CA),
    cert_pem(CERT) + key_pem(KEY), key_pem(KEY), 'no pem', cert_pem(CERT).replace('\n', '\n ', 3),
    cert_pem(CERT) + 'trailing text', cert_pem(CERT).replace('-----END', 'x-----END'), '',
])
def test_chain_and_key_checks_agree_with_pves(text):
    """pem-certificate-chain and pem-string as the simulator's port of Certificate.pm check_pem takes them."""
    def pve_accepts(check):
        try:
            check(text)
        except Exception:  # pylint: disable=broad-except
            return False
        return True
    assert pem.is_pem(text, multiple=True) == pve_accepts(
        lambda value: pve_certificates.check_pem(value, multiple=True))
    assert pem.is_pem(text, label=r'[^\n]*?') == pve_accepts(
        lambda value: pve_certificates.check_pem(value, label=pve_certificates._ANY_LABEL))


def test_chain_problems_name_what_is_wrong():
    assert pem.chain_problem(CHAIN) is None
    assert 'no -----BEGIN CERTIFICATE-----' in pem.chain_problem('/etc/ssl/pve1.pem')
    assert pem.chain_problem(key_pem(KEY)) == 'holds no certificate (its PEM blocks: PRIVATE KEY)'
    assert 'holds PRIVATE KEY besides its certificates' in pem.chain_problem(CHAIN + key_pem(KEY))
    broken = cert_pem(CERT).replace('M', '*', 1)
    assert 'not base64' in pem.chain_problem(broken)


def test_key_problems_name_what_is_wrong_and_never_quote_the_key():
    assert pem.key_problem(key_pem(KEY)) is None
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    assert pem.key_problem(key_pem(rsa_key, serialization.PrivateFormat.TraditionalOpenSSL)) is None
    encrypted = key_pem(KEY, encryption=serialization.BestAvailableEncryption(b'secret'))
    problems = [pem.key_problem(text) for text in (
        'not a key', cert_pem(CERT), encrypted, key_pem(KEY) + key_pem(KEY),
        key_pem(rsa_key, serialization.PrivateFormat.TraditionalOpenSSL,
                serialization.BestAvailableEncryption(b'secret')))]
    assert problems[0].startswith('is not PEM') and problems[1] == 'is a CERTIFICATE block, not a private key'
    assert 'encrypted' in problems[2] and 'encrypted' in problems[4]
    assert problems[3].startswith('holds 2 PEM blocks')
    body = [line for line in key_pem(KEY).splitlines() if '-----' not in line]
    assert not [line for line in body if line in str(problems)]


def test_the_formats_are_registered_as_pve_names_them():
    from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import FORMATS
    assert FORMATS['pem-certificate-chain'].accepts(CHAIN) and not FORMATS['pem-certificate-chain'].accepts('x')
    assert FORMATS['pem-string'].accepts(key_pem(KEY)) and not FORMATS['pem-string'].accepts(CHAIN)


# -- certificate ------------------------------------------------------------------------------------------------

def test_a_declared_chain_is_compared_and_shown_by_its_leaf_fingerprint():
    chain = certificate.FAMILY.fields[0]
    declared = chain.declared('Bag Attributes\n' + CHAIN)
    assert declared == CHAIN  # the leading text goes, as PVE drops it
    live = chain.live(pve_certificates.fingerprint(CERT).lower())
    assert not chain.differs(declared, certificate.FAMILY.view({'fingerprint': live})['certificates'])
    assert chain.differs(declared, pve_certificates.fingerprint(CA))
    assert certificate.shown(declared) == pve_certificates.fingerprint(CERT)
    with pytest.raises(DeclarationError) as refused:
        certificate.FAMILY.fields[1].declared(cert_pem(CERT))
    assert str(refused.value) == 'option key: the key is a CERTIFICATE block, not a private key'


# -- acme_plugin ------------------------------------------------------------------------------------------------

def test_plugin_data_is_base64_of_key_value_lines_in_the_declared_order():
    data = acme_plugin.FAMILY.fields[2]
    wire = data.declared({'CF_Token': 'abc', 'CF_Account_ID': 42})
    assert base64.b64decode(wire) == b'CF_Token=abc\nCF_Account_ID=42\n'
    assert base64.b64decode(data.declared({'X': 'caf\u00e9 = ok'})) == 'X=caf\u00e9 = ok\n'.encode()


@pytest.mark.parametrize('value, why', [
    ({'CF Token': 'x'}, "has the key 'CF Token', which is not a variable name"),
    ({'1KEY': 'x'}, "has the key '1KEY'"),
    ({'KEY': 'a\nb'}, 'has a line break in the value of KEY'),
    ({'KEY': True}, 'has a bool value for KEY'),
    ({}, 'names no credential'),
    ('CF_Token', 'must be a dict'),
])
def test_plugin_data_refusals_name_keys_never_values(value, why):
    with pytest.raises(DeclarationError) as refused:
        acme_plugin.FAMILY.fields[2].declared(value)
    assert why in str(refused.value) and 'a\nb' not in str(refused.value)


def test_the_standalone_plugin_is_built_in_and_reset_by_its_delete():
    assert acme_plugin.FAMILY.is_builtin({'id': 'standalone'}, {}) and not acme_plugin.FAMILY.is_builtin(
        {'id': 'cf'}, {})
    assert acme_plugin.FAMILY.is_reset({'plugin': 'standalone', 'type': 'standalone'})
    assert not acme_plugin.FAMILY.is_reset({'plugin': 'standalone', 'type': 'standalone', 'nodes': 'node1'})


# -- acme_account -----------------------------------------------------------------------------------------------

def test_an_accounts_contact_is_read_from_the_cas_mailto_urls():
    raw = {'account': {'contact': ['mailto:b@example.org', 'mailto:a@example.org'], 'status': 'valid'},
           'directory': 'https://ca.example.org/directory', 'location': 'https://ca.example.org/acct/1', 'tos': None}
    assert acme_account.FAMILY.current(raw)['contact'] == ['a@example.org', 'b@example.org']
    assert acme_account.FAMILY.report(raw) == {'location': 'https://ca.example.org/acct/1', 'status': 'valid',
                                               'tos': None}


# -- acme_certificate -------------------------------------------------------------------------------------------

def test_configured_domains_are_the_acme_property_and_each_acmedomain_lower_cased():
    config = {'acme': 'account=ops,domains=A.example.org;b.example.org', 'acmedomain0': 'C.example.org,plugin=cf',
              'acmedomain5': 'domain=d.example.org,alias=_acme.example.net', 'description': 'x'}
    assert configured_domains(config) == ['a.example.org', 'b.example.org', 'c.example.org', 'd.example.org']
    assert configured_domains({}) == [] and configured_domains({'acme': 'account=ops'}) == []


def test_a_wildcard_covers_one_label():
    assert covers(['*.example.org'], 'pve1.example.org') and covers(['PVE1.example.org'], 'pve1.example.org')
    assert not covers(['*.example.org'], 'a.pve1.example.org') and not covers(['*.example.org'], 'example.org')


def declaration(renew_days=30, state='present'):
    params = {'node': 'pve1', 'state': state, 'renew_days': renew_days, 'confirm_removal': state == 'absent',
              'task_timeout': None}
    return acme_certificate.FAMILY.declaration(params)


def found(domains, san, days_left):
    return Certificate(domains=domains, certificate={
        'filename': 'pveproxy-ssl.pem', 'san': san, 'notafter': int(time.time() + days_left * DAY + 60),
        'fingerprint': 'AA:BB', 'subject': '/CN=%s' % san[0], 'issuer': '/CN=R11'})


def judged(raw, **kwargs):
    the_plan = acme_certificate.FAMILY.plan(declaration(**kwargs), raw)
    return the_plan.as_dict(), acme_certificate.FAMILY.diff(declaration(**kwargs), raw, the_plan)


def test_a_covering_certificate_not_due_is_a_no_op():
    plan, diff = judged(found(['pve1.example.org'], ['pve1.example.org', 'pve.example.org'], 60))
    assert (plan['action'], plan['call'], plan['changed']) == ('none', None, [])
    assert 'after renew_days 30' in plan['reason'] and diff['before'] == diff['after']


def test_no_certificate_is_an_order():
    plan, diff = judged(NoCertificate(['pve1.example.org']))
    assert (plan['read'], plan['action'], plan['call']) == ('absent', 'create', 'order')
    assert 'self-signed' in plan['reason'] and diff['before'] == {}
    assert diff['after']['domains'] == ['pve1.example.org'] and diff['after']['expires'].startswith('after ')


def test_a_missing_domain_is_an_order_over_the_certificate():
    plan, diff = judged(found(['pve1.example.org', 'www.example.org'], ['pve1.example.org'], 60))
    assert (plan['action'], plan['call'], plan['changed']) == ('update', 'order', ['domains'])
    assert plan['reason'] == "pve1's certificate covers pve1.example.org but not www.example.org: order a new one"
    assert [key for key in diff['after'] if diff['after'][key] != diff['before'].get(key)] == ['domains']


@pytest.mark.parametrize('days_left, renew_days, words', [
    (20, 30, 'within renew_days (30)'), (-2, 0, 'expired at'), (45, 60, 'within renew_days (60)')])
def test_a_covering_certificate_due_is_renewed(days_left, renew_days, words):
    plan, diff = judged(found(['pve1.example.org'], ['pve1.example.org'], days_left), renew_days=renew_days)
    assert (plan['action'], plan['call'], plan['changed']) == ('update', 'renew', ['expires'])
    assert words in plan['reason']
    assert [key for key in diff['after'] if diff['after'][key] != diff['before'].get(key)] == ['expires']


def test_absent_revokes_only_a_covering_certificate():
    covering = found(['pve1.example.org'], ['pve1.example.org'], 60)
    plan, diff = judged(covering, state='absent')
    assert (plan['action'], plan['call']) == ('delete', 'revoke') and diff['after'] == {}
    plan, _diff = judged(found(['pve1.example.org'], ['other.example.org'], 60), state='absent')
    assert plan['action'] == 'none' and 'left alone' in plan['reason']
    assert judged(NoCertificate(['pve1.example.org']), state='absent')[0]['action'] == 'none'


def test_no_configured_domain_plans_an_order_that_a_real_run_refuses():
    plan, _diff = judged(NoCertificate([]))
    assert plan['action'] == 'create' and 'no ACME domains configured yet' in plan['reason']
    the_plan = acme_certificate.FAMILY.plan(declaration(), NoCertificate([]))
    with pytest.raises(Exception) as refused:
        acme_certificate.FAMILY.check_write(declaration(), NoCertificate([]), the_plan)
    assert 'Nothing was written' in str(refused.value)


def test_renew_days_below_zero_is_refused():
    with pytest.raises(DeclarationError) as refused:
        declaration(renew_days=-1)
    assert str(refused.value) == 'option renew_days: -1 is below the minimum 0'


# -- the export -------------------------------------------------------------------------------------------------

def test_an_export_declares_the_leaf_and_placeholders_for_the_key_and_the_plugin_data():
    from ansible_collections.homeflare.proxmox.plugins.module_utils.export import Found
    found = Found()
    row = {'filename': 'pveproxy-ssl.pem', 'fingerprint': pve_certificates.fingerprint(CERT), 'pem': cert_pem(CERT)}
    found.add('certificate', None, certificate.FAMILY, {'node': 'pve1'}, row)
    plugin = {'plugin': 'cf', 'type': 'dns', 'api': 'cf', 'data': 'Q0ZfVG9rZW49YWJjCg==', 'digest': 'x'}
    found.add('acme_plugin', None, acme_plugin.FAMILY, {'id': 'cf'}, plugin)
    result = found.result()
    assert result['refused'] == [], result
    assert result['objects']['certificate'] == [{'node': 'pve1', 'certificates': cert_pem(CERT),
                                                 'key': '{{ certificate_pve1_key }}'}]
    assert result['objects']['acme_plugin'] == [{'id': 'cf', 'type': 'dns', 'api': 'cf',
                                                 'data': '{{ acme_plugin_cf_data }}'}]
    # declaring the exported leaf back is a no-op: the same fingerprint
    chain = certificate.FAMILY.fields[0]
    assert not chain.differs(chain.declared(cert_pem(CERT)), certificate.FAMILY.view(row)['certificates'])
