# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A user's login password, on PVE (``user``) and PBS (``pbs_user``): a secret the create takes and no read ever
gives back, so it is never compared. ``update_password: on_create`` sends it with the create only;
``always`` sets it on every real run of a found user (``PUT /access/password``) and says so.

Both servers keep that endpoint from API tokens (PVE's change_password ``allowtoken => 0``, PBS's "API tokens
cannot access this API endpoint") and ask anybody but root@pam for their own password
(``confirmation-password``), so ``always`` on a found user needs a password login.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import PasswordTicket
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.secret_updates import SECRET_UPDATE, SecretUpdates

PASSWORD_PATH = '/access/password'
UPDATE_PASSWORD = SECRET_UPDATE


class PasswordStore:
    """The family's own store, less the password: an update sends the user's fields (when any drifted) and then the
    password, each to its own endpoint; everything else is the inner store's."""

    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def update(self, client, family, ident, form, live):
        form = dict(form)
        password = form.pop('password', None)
        answer = None
        if [key for key in form if key != 'digest']:
            answer = self.inner.update(client, family, ident, form, live)
        if password is not None:
            change = {'userid': ident['userid'], 'password': password}
            confirmation = confirmation_password(client.credentials)
            if confirmation is not None:
                change['confirmation-password'] = confirmation
            client.put(PASSWORD_PATH, change, role=family.write_role)
        return answer


def confirmation_password(credentials):
    """What change_password's reauth asks of anybody but root@pam: the login's own password."""
    if isinstance(credentials, PasswordTicket) and credentials.user != 'root@pam':
        return credentials.password
    return None


class PasswordFamily(SecretUpdates):
    """Mixed into a user family before Family: the realm rule, update_password (the plan is SecretUpdates') and the
    login check."""

    secret_control = 'update_password'
    password_realm = None  # the one realm whose passwords the server keeps itself
    server = None

    def check_password_declaration(self, declaration):
        userid = declaration.ident['userid']
        realm = userid.rsplit('@', 1)[-1]
        if declaration.values.get('password') and realm != self.password_realm:
            raise DeclarationError(
                "option password: %s keeps passwords only for the realm '%s', and %s is in '%s'. %s Leave password "
                "out." % (self.server, self.password_realm, userid, realm, self.other_realms))
        if declaration.controls.get('update_password') == 'always' and not declaration.values.get('password'):
            raise DeclarationError('option update_password: always sets the password on every run, and no '
                                   'password is declared')

    def check_plan(self, client, declaration, raw, the_plan):
        super(PasswordFamily, self).check_plan(client, declaration, raw, the_plan)
        if the_plan.action == 'update' and 'password' in the_plan.changed \
                and not isinstance(client.credentials, PasswordTicket):
            raise Refused('%s: update_password=always sets the password with PUT %s, which %s keeps from API '
                          'tokens. Connect with api_user and api_password (root@pam, or a user who gives its own '
                          'password as the confirmation %s asks for), or use update_password=on_create. Nothing '
                          'was written.' % (self.describe(declaration.ident), PASSWORD_PATH, self.server,
                                            self.server))
