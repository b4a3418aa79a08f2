# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PBS user family: user sections of user.cfg, /access/users/{userid} (proxmox-backup
src/api2/access/user.rs). A missing user is PBS's generic lookup error, confirmed by the user list."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import SINGLE_LINE
from ansible_collections.homeflare.proxmox.plugins.module_utils.passwords import (
    UPDATE_PASSWORD, PasswordFamily, PasswordStore)
from ansible_collections.homeflare.proxmox.plugins.module_utils.pbs_jobs import USERID, section, strip
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Exporting, Family, Lifecycle


class PbsUserFamily(PasswordFamily, Family):
    # The only realm whose passwords PBS keeps itself (create_user's store_password); pam's is the host's
    # and needs root@pam's own login, a directory's (ldap, ad, openid) is the directory's.
    password_realm = 'pbs'
    server = 'PBS'
    other_realms = ("PBS refuses a pam password to anybody but root@pam's own login - 'only superuser can edit pam "
                    "credentials!' - and only after it saved the user; a directory keeps its own.")

    def check_declaration(self, declaration):
        self.check_password_declaration(declaration)

    def is_builtin(self, ident, raw):
        return ident['userid'] == 'root@pam'


# the user list (all of it with Sys.Audit) confirms a missing user; the password goes to its own endpoint
WHERE = section('/access/users', 'userid', 'user')
WHERE.store = PasswordStore(WHERE.store)

FAMILY = PbsUserFamily(
    'pbs_user', 'pbs user',
    identity=[Text('userid', required=True, min_length=3, max_length=64, pattern=USERID)],
    fields=[
        Text('comment', clear='delete', max_length=128, pattern=SINGLE_LINE, normalise=strip),
        # PBS stores neither enable=1 nor expire=0: a missing key is the default.
        Flag('enable', absent_means=True),
        Integer('expire', absent_means=0, minimum=0),
        Text('firstname', clear='delete', min_length=2, max_length=64, pattern=SINGLE_LINE),
        Text('lastname', clear='delete', min_length=2, max_length=64, pattern=SINGLE_LINE),
        Text('email', clear='delete', min_length=2, max_length=64, pattern=SINGLE_LINE),
        # Taken by the create; PUT /access/password sets it again (update_password=always): never read or compared.
        Text('password', secret=True, min_length=8, max_length=64, pattern=SINGLE_LINE),
    ],
    where=WHERE,
    scheme='pbs',
    lifecycle=Lifecycle(send_digest=True),
    # a password is optional (a user may log in with tokens only): no placeholder
    exporting=Exporting(placeholders={}),
    controls={'update_password': UPDATE_PASSWORD},
)
