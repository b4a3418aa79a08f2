# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's custom certificate: ``pveproxy-ssl.pem`` and its key (pve-manager PVE/API2/Certificates.pm).

Read from ``GET /nodes/{node}/certificates/info``: the ``pveproxy-ssl.pem`` row is the custom certificate, and
without it the node serves its self-signed ``pve-ssl.pem`` (absent). The declared chain is compared by its leaf's
fingerprint with that row's; the key is a secret, sent with every upload and never read. One upload
(``POST .../certificates/custom``) creates or replaces the pair, ``DELETE`` removes it; ``restart`` (a control)
asks PVE to restart pveproxy, which it otherwise does not."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils import pem
from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    ABSENT, Family, ItemStore, Where, absent, create_form, read_back)

CUSTOM = 'pveproxy-ssl.pem'
# An export's placeholder for the key (export.PLACEHOLDER): Ansible renders it before a module sees the value, but
# the export's own check of the options it writes sees it as it is.
EXPORT_PLACEHOLDER = re.compile(r'\{\{ *[A-Za-z_][A-Za-z0-9_]* *\}\}')
UPLOAD = '/nodes/{node}/certificates/custom'


class Chain(Text):
    """A PEM certificate chain, the node's certificate first. Compared by that leaf's fingerprint: the live value
    is the fingerprint PVE shows, the declared one the PEM text (which the upload sends)."""

    def declared(self, value):
        text = pem.strip_leading_text(self.canonical(value))
        why = pem.chain_problem(text)
        if why:
            raise DeclarationError('option %s %s' % (self.option, why))
        return text

    def differs(self, desired, current):
        return shown(desired) != current


class PrivateKey(Text):
    """A PEM private key: checked as PVE's ``pem-string`` and OpenSSL would read it, and never quoted."""

    def declared(self, value):
        if EXPORT_PLACEHOLDER.fullmatch(str(value)):
            return value
        text = pem.strip_leading_text(self.canonical(value))
        why = pem.key_problem(text)
        if why:
            raise DeclarationError('option %s: the key %s' % (self.option, why))
        return text


def shown(value):
    """A chain as the diff shows it: its leaf's fingerprint (a live value already is one)."""
    if value and '-----BEGIN' in value:
        return pem.leaf_fingerprint(value) or value
    return value


class CertificateInfo(ItemStore):
    """The custom certificate's row of the node's certificate info, or ABSENT (the node serves pve-ssl.pem)."""

    def read(self, client, family, ident):
        rows = client.get(family.path(ident), role=family.read_role) or []
        return next((row for row in rows if row.get('filename') == CUSTOM), ABSENT)


class CertificateFamily(Family):
    def check_declaration(self, declaration):
        if declaration.state == 'present' and not declaration.values.get('certificates'):
            raise DeclarationError('option certificates is required with state=present')

    def check_found(self, declaration, raw, changed):
        """PVE replaces a certificate that is there only with force; so does this module."""
        if changed and not declaration.controls.get('force'):
            raise Refused(
                "%s: the node already has a custom certificate (fingerprint %s, subject %s, issuer %s), not the "
                "declared one; PVE replaces it only with force, and so does this module: set force: true to replace "
                "it. Nothing was written." % (self.describe(declaration.ident), raw.get('fingerprint'),
                                              raw.get('subject'), raw.get('issuer')))

    def view(self, raw):
        return {'certificates': str(raw.get('fingerprint') or '').upper()}

    def diff(self, declaration, raw, the_plan):
        diff = super(CertificateFamily, self).diff(declaration, raw, the_plan)
        if 'certificates' in diff['after']:
            diff['after']['certificates'] = shown(diff['after']['certificates'])
        return diff

    def report(self, raw):
        return dict((key, raw.get(key)) for key in ('subject', 'issuer', 'san', 'notbefore', 'notafter'))

    def act(self, client, declaration, raw, the_plan, result):
        """One upload of the pair (force when a certificate is there) or one removal, each with restart only when
        asked; then the info read back and judged again."""
        path = item_path(UPLOAD, declaration.ident)
        restart = {'restart': '1'} if declaration.controls.get('restart') else {}
        if the_plan.action == 'delete':
            client.delete(path, params=restart or None, role=self.write_role)
        else:
            form = dict(create_form(self, declaration), **restart)
            if not absent(raw):
                form['force'] = '1'
            client.post(path, form, role=self.write_role)
        return read_back(client, self, declaration, the_plan, None), the_plan

    def export_options(self, ident, raw):
        """The leaf PVE answers (its chain is not readable back), whose fingerprint is the one compared."""
        options = super(CertificateFamily, self).export_options(ident, raw)
        options['certificates'] = raw.get('pem')
        return options


FAMILY = CertificateFamily(
    'certificate', 'certificate',
    identity=[Text('node', required=True, format='pve-node')],
    fields=[
        Chain('certificates', format='pem-certificate-chain'),
        # Kept in pveproxy-ssl.key, which no method answers: sent with every upload (without it PVE keeps the
        # node's current key), never compared.
        PrivateKey('key', secret=True, always_send=True, format='pem-string'),
    ],
    where=Where(item='/nodes/{node}/certificates/info', store=CertificateInfo(),
                schema=('POST', UPLOAD)),
    controls={'force': dict(type='bool', default=False), 'restart': dict(type='bool', default=False)},
)
