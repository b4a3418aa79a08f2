# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An ACME account of the cluster: /cluster/acme/account/{name} (pve-manager PVE/API2/ACMEAccount.pm).

Registering, updating the contact and deactivating are worker tasks (``acmeregister``, ``acmeupdate``,
``acmedeactivate``). PVE lets only root@pam itself call these methods (no API token, not even root's own).
The account's contact is read from the CA's account object (``mailto:`` addresses); the directory is fixed once
registered; the terms-of-service URL and the external account binding go with the registration only."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text, TokenSet
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, Exporting, Family, Lifecycle, Where)

MAILTO = 'mailto:'


class AcmeAccountFamily(Family):
    def check_declaration(self, declaration):
        declared = declaration.values
        if declaration.state == 'present' and not declared.get('contact'):
            raise DeclarationError('option contact is required with state=present (PVE registers an account with '
                                   'at least one e-mail address)')
        # ACMEAccount.pm: eab-kid and eab-hmac-key each require the other
        for option, other in (('eab_kid', 'eab_hmac_key'), ('eab_hmac_key', 'eab_kid')):
            if declared.get(option) and not declared.get(other):
                raise DeclarationError('option %s needs %s too: PVE binds an external account with both'
                                       % (option, other))

    def view(self, raw):
        """The CA's account object holds the contact as ``mailto:`` URLs; the declaration holds addresses."""
        contact = (raw.get('account') or {}).get('contact') or []
        return {'contact': [item[len(MAILTO):] if str(item).startswith(MAILTO) else item for item in contact],
                'directory': raw.get('directory')}

    def report(self, raw):
        account = raw.get('account') or {}
        return {'location': raw.get('location'), 'status': account.get('status'), 'tos': raw.get('tos')}


FAMILY = AcmeAccountFamily(
    'acme_account', 'ACME account',
    identity=[Text('name', default='default', format='pve-configid')],
    fields=[
        TokenSet('contact', format='email'),
        # The CA's directory URL: the account lives at that CA, so another one is refused, never re-registered.
        Text('directory', create_only=True, pattern=r'^https?://.*'),
        # Agreeing to the terms and binding an external account are parts of the registration only.
        Text('tos_url', create_param=True),
        Text('eab-kid', create_param=True),
        Text('eab-hmac-key', secret=True),
    ],
    where=Where(collection='/cluster/acme/account', item='/cluster/acme/account/{name}',
                # ACMEAccount.pm get_account: 400 name "ACME account config file 'x' does not exist."
                absence=Absence((400,), errors={'name': r'does not exist'})),
    # Deactivation is final at the CA: state=absent needs confirm_removal.
    lifecycle=Lifecycle(retain=True, task_timeout=60),
    # The HMAC key matters to a registration only, which an export never declares (eab_kid is not readable).
    exporting=Exporting(placeholders={}),
)
