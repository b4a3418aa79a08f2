# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API token family: a token's metadata, /access/users/{userid}/token/{tokenid}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text, perl_true_text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    ABSENT, Absence, ItemStore, Lifecycle, Where, absent)
from ansible_collections.homeflare.proxmox.plugins.module_utils.tokens import CREATE_MISSING, SECRET_KEY, TokenFamily


class TokenStore(ItemStore):
    """A successful read that lacks both expire and privsep is no token (seen from PVE for a missing one)."""

    def read(self, client, family, ident):
        raw = super(TokenStore, self).read(client, family, ident)
        if not absent(raw) and 'expire' not in raw and 'privsep' not in raw:
            return ABSENT
        return raw


class ApiTokenFamily(TokenFamily):
    def mint_command(self, declaration):
        ident = declaration.ident
        return 'pveum user token add %s %s --privsep %d' % (ident['userid'], ident['tokenid'],
                                                            1 if declaration.values['privsep'] else 0)

    def created(self, declaration, answer):
        return {'full_tokenid': answer.get('full-tokenid'), SECRET_KEY: answer.get('value')}


FAMILY = ApiTokenFamily(
    'api_token', 'API token',
    identity=[
        Text('userid', required=True, format='pve-userid', max_length=64),
        # PVE's token-subid (the name after '!'); a full id 'user@realm!name' does not match it.
        Text('tokenid', required=True, pattern=r'(?:[A-Za-z][A-Za-z0-9\.\-_]+)'),
    ],
    fields=[
        Text('comment', clear='delete', normalise=perl_true_text),  # user.cfg: '0' is never written
        Integer('expire', minimum=0),
        Flag('privsep', absent_means=True),
    ],
    # the user's tokens (an export lists them there)
    where=Where(collection='/access/users/{userid}/token', item='/access/users/{userid}/token/{tokenid}',
                create_on='item',
                # A missing token is 500 "no such token 'x' for user 'y'"; a missing user 500 "no such user ('y')".
                absence=Absence((404, 500), r'no such token|no such user'),
                store=TokenStore(),
                # PVE lets only the token's own user or a holder of User.Modify read it.
                read_role='provision'),
    # Deleting a token destroys a secret nothing can recreate.
    lifecycle=Lifecycle(retain=True),
    controls=CREATE_MISSING,
)
