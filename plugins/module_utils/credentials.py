# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a credential comes from, and the connection options every module shares.

Sources: a static API token, or a user and password exchanged for a ticket.
Each source answers ``auth_for(role, client)`` with an object that adds the
right headers to one request. OpenBao/Vault sources plug in at the same seam.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.module_utils.basic import env_fallback

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    ApiError, CredentialError, DeclarationError)

# One place for the options of the connection doc fragment (plugins/doc_fragments/connection.py).
CONNECTION_ARGUMENT_SPEC = dict(
    api_host=dict(type='list', elements='str', required=True, fallback=(env_fallback, ['PROXMOX_HOST'])),
    api_port=dict(type='int', fallback=(env_fallback, ['PROXMOX_PORT'])),
    api_token_id=dict(type='str', fallback=(env_fallback, ['PROXMOX_TOKEN_ID'])),
    api_token_secret=dict(type='str', no_log=True, fallback=(env_fallback, ['PROXMOX_TOKEN_SECRET'])),
    api_user=dict(type='str', fallback=(env_fallback, ['PROXMOX_USER'])),
    api_password=dict(type='str', no_log=True, fallback=(env_fallback, ['PROXMOX_PASSWORD'])),
    validate_certs=dict(type='bool', default=True, fallback=(env_fallback, ['PROXMOX_VALIDATE_CERTS'])),
    ca_path=dict(type='path', fallback=(env_fallback, ['PROXMOX_CA_PATH'])),
    api_timeout=dict(type='int', default=20, fallback=(env_fallback, ['PROXMOX_TIMEOUT'])),
)


class TokenAuth:
    """``Authorization: PVEAPIToken=<id>=<secret>`` (PBS: ``PBSAPIToken=<id>:<secret>``)."""

    def __init__(self, header):
        self._header = header

    def apply(self, method, headers):
        headers['Authorization'] = self._header


class TicketAuth:
    """The ticket cookie on every request and the CSRF token on writes."""

    def __init__(self, cookie, csrf):
        self._cookie = cookie
        self._csrf = csrf

    def apply(self, method, headers):
        headers['Cookie'] = self._cookie
        if method != 'GET':
            headers['CSRFPreventionToken'] = self._csrf


class StaticToken:
    """One API token for every role."""

    def __init__(self, token_id, secret):
        if '!' not in token_id:
            raise DeclarationError("api_token_id must look like 'user@realm!name', got %r" % token_id)
        self.token_id = token_id
        self._secret = secret

    def auth_for(self, role, client):
        return TokenAuth(client.scheme.token_header(self.token_id, self._secret))


class PasswordTicket:
    """A user and password exchanged once per process for a ticket (``POST /access/ticket``)."""

    def __init__(self, user, password):
        self.user = user
        self._password = password
        self._auth = None

    def auth_for(self, role, client):
        if self._auth is None:
            try:
                answer = client.send('POST', '/access/ticket', {'username': self.user, 'password': self._password},
                                     None).data
            except ApiError as exc:
                raise CredentialError('Logging in as %s failed: %s' % (self.user, exc.describe()))
            cookie = '%s=%s' % (client.scheme.cookie_name, answer['ticket'])
            self._auth = TicketAuth(cookie, answer['CSRFPreventionToken'])
        return self._auth


def credentials_from_params(params):
    """The one credential source a task's options name; never a silent fallback to another."""
    token_id, secret = params.get('api_token_id'), params.get('api_token_secret')
    user, password = params.get('api_user'), params.get('api_password')
    if (token_id or secret) and (user or password):
        raise DeclarationError('api_token_id/api_token_secret and api_user/api_password are mutually exclusive')
    if token_id or secret:
        if not (token_id and secret):
            raise DeclarationError('api_token_id and api_token_secret must be given together')
        return StaticToken(token_id, secret)
    if user or password:
        if not (user and password):
            raise DeclarationError('api_user and api_password must be given together')
        return PasswordTicket(user, password)
    raise DeclarationError('no credential: set api_token_id and api_token_secret, or api_user and api_password '
                           '(or the PROXMOX_TOKEN_ID/PROXMOX_TOKEN_SECRET environment variables)')
