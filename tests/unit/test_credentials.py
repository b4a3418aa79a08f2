"""Credential sources: exactly one, never a silent fallback; tickets carry CSRF on writes only."""

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils import api
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import (
    PasswordTicket, StaticToken, credentials_from_params)
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    ApiError, CredentialError, DeclarationError)

CHOICES = [
    (dict(api_token_id='a@pve!tk', api_token_secret='s'), StaticToken, None),
    (dict(api_user='a@pve', api_password='p'), PasswordTicket, None),
    (dict(api_token_id='a@pve!tk'), None, 'together'),
    (dict(api_user='a@pve'), None, 'together'),
    (dict(api_token_id='a@pve!tk', api_token_secret='s', api_user='a@pve', api_password='p'), None, 'exclusive'),
    (dict(), None, 'no credential'),
    (dict(api_token_id='a@pve', api_token_secret='s'), None, "user@realm!name"),
]


@pytest.mark.parametrize('params, kind, error', CHOICES)
def test_one_source_from_the_options(params, kind, error):
    if error:
        with pytest.raises(DeclarationError, match=error) as caught:
            credentials_from_params(params)
        assert 's' != str(caught.value) and 'secret' not in str(caught.value).replace('api_token_secret', '')
    else:
        assert isinstance(credentials_from_params(params), kind)


class LoginClient:
    scheme = api.SCHEMES['pve']

    def __init__(self, answer):
        self.answer = answer
        self.logins = 0

    def send(self, method, path, form, auth, repeatable=False):
        self.logins += 1
        assert (method, path, auth, repeatable) == ('POST', '/access/ticket', None, True)
        if isinstance(self.answer, Exception):
            raise self.answer
        return api.Reply(self.answer, {})


def test_ticket_is_fetched_once_and_csrf_goes_on_writes_only():
    client = LoginClient({'ticket': 'PVE:a@pve:ABC::sig', 'CSRFPreventionToken': 'ABC:mac'})
    source = PasswordTicket('a@pve', 'pw')
    read_headers, write_headers = {}, {}
    source.auth_for('read', client).apply('GET', read_headers)
    source.auth_for('provision', client).apply('PUT', write_headers)
    assert client.logins == 1
    assert read_headers == {'Cookie': 'PVEAuthCookie=PVE:a@pve:ABC::sig'}
    assert write_headers == {'Cookie': 'PVEAuthCookie=PVE:a@pve:ABC::sig', 'CSRFPreventionToken': 'ABC:mac'}


def test_failed_login_is_a_credential_error_without_the_password():
    client = LoginClient(ApiError.for_status(401, 'authentication failure'))
    with pytest.raises(CredentialError, match='a@pve') as caught:
        PasswordTicket('a@pve', 'hunter22').auth_for('read', client)
    assert 'hunter22' not in str(caught.value)


def test_a_ticket_a_server_refuses_is_renewed_by_one_login_and_only_after_one():
    """A node that joined a cluster no longer knows the ticket its old key signed: after a 401 one new login."""
    client = LoginClient({'ticket': 'PVE:a@pve:ABC::sig', 'CSRFPreventionToken': 'ABC:mac'})
    source = PasswordTicket('a@pve', 'pw')
    assert source.renew('read') is False  # no ticket yet: a 401 is not the ticket's fault
    source.auth_for('read', client)
    assert source.renew('read') is True
    source.auth_for('read', client)
    assert client.logins == 2


def test_a_client_at_another_server_logs_in_there_on_its_own():
    params = dict(api_host=['pve1:8007'], api_user='root@pam', api_password='pw', validate_certs=True,
                  ca_path='/etc/ssl/lab-ca.pem', api_timeout=7)
    client = api.Client('pve', params['api_host'], credentials_from_params(params), validate_certs=True,
                        ca_path=params['ca_path'], timeout=7)
    other = client.at('10.0.0.12')
    assert [member.name for member in other.members] == ['10.0.0.12:8007']
    assert (other.verify, other.timeout, other.scheme.name) == ('/etc/ssl/lab-ca.pem', 7, 'pve')
    assert other.credentials is not client.credentials and other.credentials.user == 'root@pam'
    token = api.Client('pve', ['pve1'], StaticToken('a@pve!tk', 's'), validate_certs=False)
    assert token.at('pve2').credentials is token.credentials and token.at('pve2').verify is False


CONNECTION_PROBLEMS = [
    (dict(api_port=70000), 'option api_port: 70000 is not a TCP port (1-65535)'),
    (dict(api_port=0), 'option api_port: 0 is not a TCP port'),
    (dict(api_timeout=0), 'option api_timeout: 0 is not a positive number of seconds'),
    (dict(api_timeout=-5), 'option api_timeout: -5 is not a positive number of seconds'),
    (dict(api_host=[]), 'option api_host: name at least one cluster member'),
    (dict(api_host=['https://pve1.example.org:8006']), "option api_host: 'https://pve1.example.org:8006' is not a cluster member"),
    (dict(api_host=['pve1 pve2']), "option api_host: 'pve1 pve2' is not a cluster member"),
    (dict(api_host=['pve1:99999']), 'option api_host: 99999 is not a TCP port'),
    (dict(api_host=['pve1:https']), "option api_host: 'pve1:https' is not a cluster member"),
    (dict(api_host=['']), "option api_host: '' is not a cluster member"),
    (dict(ca_path='/nonexistent/ca.pem'), 'option ca_path: /nonexistent/ca.pem does not exist or is not a file'),
    (dict(api_token_id='root@pam'), "option api_token_id: 'root@pam' must look like 'user@realm!name'"),
    (dict(api_token_id='root!tk'), "option api_token_id: 'root!tk' must look like 'user@realm!name'"),
]


@pytest.mark.parametrize('override, message', CONNECTION_PROBLEMS)
def test_connection_options_are_checked_before_any_request(override, message):
    from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import client_from_params
    params = dict(api_host=['pve1.example.org', '[fd00::1]:8006'], api_port=None, api_token_id='root@pam!tk',
                  api_token_secret='s', validate_certs=True, ca_path=None, api_timeout=20)
    params.update(override)
    with pytest.raises(DeclarationError) as caught:
        client_from_params(params, 'pve')
    assert message in str(caught.value)


def test_a_ca_file_without_a_certificate_is_refused_and_ignored_without_verification(tmp_path):
    from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import client_from_params
    junk = tmp_path / 'ca.pem'
    junk.write_text('-----BEGIN NOTHING-----\n')
    params = dict(api_host=['pve1'], api_port=None, api_token_id='root@pam!tk', api_token_secret='s',
                  validate_certs=True, ca_path=str(junk), api_timeout=20)
    with pytest.raises(DeclarationError, match='option ca_path: .* holds no PEM certificate'):
        client_from_params(params, 'pve')
    params['validate_certs'] = False
    client = client_from_params(params, 'pve')
    assert [member.name for member in client.members] == ['pve1:8006']


@pytest.mark.parametrize('scheme, token_id, valid', [
    ('pve', 'root@pam!ci', True), ('pve', 'root@pam!c', False), ('pve', 'root@pam!1ci', False),
    ('pbs', 'root@pam!c', True), ('pbs', 'sync@pbs!1ci', True), ('pbs', 'sync@pbs', False),
])
def test_token_id_shape_follows_the_scheme(scheme, token_id, valid):
    if valid:
        assert StaticToken(token_id, 's', scheme).token_id == token_id
    else:
        with pytest.raises(DeclarationError, match='option api_token_id'):
            StaticToken(token_id, 's', scheme)
