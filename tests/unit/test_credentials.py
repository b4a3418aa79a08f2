"""Credential sources: exactly one, never a silent fallback; tickets carry CSRF on writes only."""

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils import api
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import (
    PasswordTicket, StaticToken, credentials_from_params)
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    ApiError, CredentialError, DeclarationError)

CHOICES = [
    (dict(api_token_id='a@pve!t', api_token_secret='s'), StaticToken, None),
    (dict(api_user='a@pve', api_password='p'), PasswordTicket, None),
    (dict(api_token_id='a@pve!t'), None, 'together'),
    (dict(api_user='a@pve'), None, 'together'),
    (dict(api_token_id='a@pve!t', api_token_secret='s', api_user='a@pve', api_password='p'), None, 'exclusive'),
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

    def send(self, method, path, form, auth):
        self.logins += 1
        assert (method, path, auth) == ('POST', '/access/ticket', None)
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
