# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PBS user family: user sections of user.cfg, /access/users/{userid} (proxmox-backup
src/api2/access/user.rs). A missing user is PBS's generic lookup error, confirmed by the user list."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import SINGLE_LINE
from ansible_collections.homeflare.proxmox.plugins.module_utils.pbs_jobs import USERID, section, strip
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Exporting, Family, Lifecycle

# PBS's schema pattern (pbs-api-types), with the POSIX classes spelled out for Python.
# The only realm whose passwords PBS keeps itself (create_user's store_password); pam's is the host's
# and needs root@pam's own login, a directory's (ldap, ad, openid) is the directory's.
PASSWORD_REALM = 'pbs'


class PbsUserFamily(Family):
    def check_declaration(self, declaration):
        userid = declaration.ident['userid']
        realm = userid.rsplit('@', 1)[-1]
        if declaration.values.get('password') and realm != PASSWORD_REALM:
            raise DeclarationError(
                "option password: PBS keeps passwords only for the realm 'pbs', and %s is in '%s' (PBS refuses a pam "
                "password to anybody but root@pam's own login - 'only superuser can edit pam credentials!' - and "
                "only after it saved the user; a directory keeps its own). Leave password out." % (userid, realm))

    def is_builtin(self, ident, raw):
        return ident['userid'] == 'root@pam'


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
        # Taken by the create only (PUT ignores it; PUT /access/password changes it): never read or compared.
        Text('password', secret=True, min_length=8, max_length=64, pattern=SINGLE_LINE),
    ],
    # the user list (all of it with Sys.Audit) confirms a missing user
    where=section('/access/users', 'userid', 'user'),
    scheme='pbs',
    lifecycle=Lifecycle(send_digest=True),
    # a password is optional (a user may log in with tokens only): no placeholder
    exporting=Exporting(placeholders={}),
)
