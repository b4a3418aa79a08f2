# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The user family: /access/users/{userid}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    Flag, Integer, Text, TokenSet, perl_true_text)
from ansible_collections.homeflare.proxmox.plugins.module_utils.passwords import (
    UPDATE_PASSWORD, PasswordFamily, PasswordStore)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, Exporting, Family, ItemStore, Listing, Where)


class UserFamily(PasswordFamily, Family):
    # AccessControl.pm domain_set_password: the realm's plugin stores it, and only Auth/PVE.pm keeps its own
    # (PAM.pm runs chpasswd on the one node answering, for root only; a directory's plugin dies "can't set
    # password on auth type").
    password_realm = 'pve'
    server = 'PVE'
    other_realms = ("A pam password is the node's own (set on the one node answering, by root@pam only), a "
                    "directory keeps its own.")

    def check_declaration(self, declaration):
        self.check_password_declaration(declaration)

    def report(self, raw):
        tokens = raw.get('tokens') or []
        names = tokens.keys() if isinstance(tokens, dict) else [token.get('tokenid') for token in tokens]
        return {'tokens': sorted(name for name in names if name)}

    def is_builtin(self, ident, raw):
        return ident['userid'] == 'root@pam'


# PVE's pve-userid format (name@realm).
FAMILY = UserFamily(
    'user', 'user',
    identity=[Text('userid', required=True, format='pve-userid', max_length=64)],
    fields=[
        Text('comment', default='', max_length=2048, normalise=perl_true_text),  # user.cfg: '0' is never written
        Text('email', default='', format='email-opt', max_length=254),
        Flag('enable', default=True, absent_means=True),
        Integer('expire', default=0, absent_means=0, minimum=0),
        Text('firstname', default='', max_length=1024),
        Text('lastname', default='', max_length=1024),
        # An empty groups= clears every membership.
        TokenSet('groups', default=[], format='pve-groupid'),
        # User.pm create_user's "Initial password"; PUT /access/password sets it again (update_password=always)
        Text('password', secret=True, min_length=8, max_length=64),
    ],
    where=Where(collection='/access/users', item='/access/users/{userid}', store=PasswordStore(ItemStore()),
                # full=1: the rows carry groups (as a string) and tokens.
                listing=Listing('/access/users', params={'full': 1}),
                # A missing user is 500 "no such user ('x@pve')".
                absence=Absence((404, 500), r'no such user|does not exist')),
    # a password is optional and never read: no placeholder
    exporting=Exporting(placeholders={}),
    controls={'update_password': UPDATE_PASSWORD},
)
