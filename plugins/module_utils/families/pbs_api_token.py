# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PBS API token family: a token's metadata, token sections of user.cfg,
/access/users/{userid}/token/{token-name} (proxmox-backup src/api2/access/user.rs).

PBS tokens are always privilege-separated: a token holds what the ACL grants the token itself
(``user@realm!name``), intersected with what its user holds. So there is no ``privsep``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_user import FAMILY as USER
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import SAFE_ID, SINGLE_LINE
from ansible_collections.homeflare.proxmox.plugins.module_utils.pbs_jobs import USERID, strip
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, ConfirmedAbsenceStore, Lifecycle, Where, absent)
from ansible_collections.homeflare.proxmox.plugins.module_utils.tokens import CREATE_MISSING, SECRET_KEY, TokenFamily


class TokenStore(ConfirmedAbsenceStore):
    """Read as an item whose absence the user's token list confirms; created only for a user that exists."""

    def create(self, client, family, ident, form):
        # PBS's generate_token does not look the user up: it would mint a secret for a token nobody owns
        # (and that cannot log in). So the user is read first, and a missing one is refused.
        if absent(USER.store.read(client, USER, {'userid': ident['userid']})):
            raise Refused("pbs API token '%s!%s' cannot be created: its user %s does not exist on the backup server "
                          "(PBS would create the token anyway, owned by nobody). Declare the user first "
                          "(homeflare.proxmox.pbs_user). Nothing was written."
                          % (ident['userid'], ident['token_name'], ident['userid']))
        return super(TokenStore, self).create(client, family, ident, form)


class PbsTokenFamily(TokenFamily):
    def mint_command(self, declaration):
        ident = declaration.ident
        return 'proxmox-backup-manager user generate-token %s %s' % (ident['userid'], ident['token_name'])

    def created(self, declaration, answer):
        return {'full_tokenid': (answer or {}).get('tokenid'), SECRET_KEY: (answer or {}).get('value')}


FAMILY = PbsTokenFamily(
    'pbs_api_token', 'pbs API token',
    identity=[
        Text('userid', required=True, min_length=3, max_length=64, pattern=USERID),
        # The name after '!'; a full id 'user@realm!name' does not match it.
        Text('token-name', required=True, pattern=SAFE_ID),
    ],
    fields=[
        Text('comment', clear='delete', max_length=128, pattern=SINGLE_LINE, normalise=strip),
        # PBS stores neither enable=1 nor expire=0: a missing key is the default.
        Flag('enable', absent_means=True),
        Integer('expire', absent_means=0, minimum=0),
    ],
    where=Where(collection='/access/users/{userid}/token', item='/access/users/{userid}/token/{token-name}',
                create_on='item',
                # A missing token (or a token of a missing user) is 400 "no such token 'user@realm!name'"; the user's
                # token list (empty for a missing user) confirms it.
                absence=Absence((400,), r"no such token '"),
                store=TokenStore('token-name')),
    scheme='pbs',
    # Writes carry user.cfg's digest. Deleting a token destroys a secret nothing can recreate.
    lifecycle=Lifecycle(send_digest=True, retain=True),
    controls=CREATE_MISSING,
)
