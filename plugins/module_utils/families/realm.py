# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The realm family: sections of domains.cfg, /access/domains/{realm}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    Flag, Integer, PropertyString, Text, clearable, section_comment)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, Exporting, Family, Lifecycle, Where)
from ansible_collections.homeflare.proxmox.plugins.module_utils.type_rules import TypeRules

# What each type takes (pve-access-control PVE/Auth/<Type>.pm options()), in wire names, and what a create needs.
# Kept in step with the simulator's port by tests/unit/test_simulator_access_notify.py.
_LDAP = ['server1', 'server2', 'port', 'secure', 'sslversion', 'default', 'comment', 'tfa', 'verify', 'capath', 'cert',
         'certkey', 'base_dn', 'bind_dn', 'password', 'user_attr', 'filter', 'sync_attributes', 'user_classes',
         'group_dn', 'group_name_attr', 'group_filter', 'group_classes', 'sync-defaults-options', 'mode',
         'case-sensitive']
TYPES = {
    'pam': dict(options=['default', 'comment', 'tfa'], required=[]),
    'pve': dict(options=['default', 'comment', 'tfa'], required=[]),
    'ldap': dict(options=_LDAP, required=['server1', 'base_dn', 'user_attr']),
    'ad': dict(options=_LDAP + ['domain'], required=['server1', 'domain']),
    'openid': dict(options=['issuer-url', 'client-id', 'client-key', 'autocreate', 'username-claim', 'groups-claim',
                            'groups-autocreate', 'groups-overwrite', 'prompt', 'scopes', 'acr-values', 'default',
                            'comment', 'query-userinfo'],
                   required=['issuer-url', 'client-id']),
}
REALM_TYPES = TypeRules('realm', TYPES)
# PVE re-reads these two into domains.cfg whatever is deleted (PVE::Auth::Plugin::parse_config).
BUILTIN = ('pam', 'pve')

# Plugin.pm's pve-tfa-config format.
TFA = {'type': Text('type', pattern='yubico|oath'), 'id': Text('id'), 'key': Text('key'), 'url': Text('url'),
       'digits': Integer('digits', minimum=6, maximum=8), 'step': Integer('step', minimum=10)}


# Plugin.pm's realm-sync-options. The deprecated full and purge are refused: Domains.pm rewrites them into
# remove-vanished on every create and update, so a declared one would read back as drift.
SYNC_DEFAULTS = {'scope': Text('scope', choices=['users', 'groups', 'both']),
                 'remove-vanished': Text('remove-vanished', pattern=r'(?:(?:(?:acl|properties|entry);)*'
                                                                    r'(?:acl|properties|entry))|none'),
                 'enable-new': Flag('enable-new'), 'full': Flag('full'), 'purge': Flag('purge')}


def sync_defaults_rule(pairs):
    deprecated = sorted(key for key in ('full', 'purge') if key in pairs)
    if deprecated:
        return ('has the deprecated %s, which PVE rewrites into remove-vanished (full=1 is entry;properties, '
                'purge=1 is acl): declare remove-vanished instead' % ' and '.join(deprecated))
    return None


def tfa_rule(pairs):
    return None if 'type' in pairs else 'lacks type=yubico or type=oath'


class RealmFamily(Family):
    def check_declaration(self, declaration):
        """The realm type's own table, before any request; and the built-in realms, which cannot go."""
        realm = declaration.ident['realm']
        declared = declaration.values
        if declaration.state == 'absent':
            if realm in BUILTIN:
                raise Refused("realm '%s' is built in: PVE keeps it whatever is deleted (a DELETE answers success and "
                              "the realm is back with its default comment), so state=absent cannot be met. Nothing "
                              "was written." % realm)
            return
        kind = REALM_TYPES.declared_type(declared)
        if realm in BUILTIN and kind != realm:
            raise DeclarationError("option type: the built-in realm '%s' has the type %s" % (realm, realm))
        if realm not in BUILTIN and kind in BUILTIN:
            raise DeclarationError('option type: %s is the type of the built-in realm of that name only; a new '
                                   'realm is ad, ldap or openid' % kind)
        REALM_TYPES.check_options(self.fields, declared, kind)

    def is_builtin(self, ident, raw):
        # the realms every PVE ships (an export leaves them out unless asked)
        return ident['realm'] in BUILTIN

    def object_spec(self):
        spec = super(RealmFamily, self).object_spec()
        spec['certkey']['no_log'] = False  # the client key's path, not a key
        return spec


FAMILY = RealmFamily(
    'realm', 'realm',
    identity=[Text('realm', required=True, format='pve-realm', max_length=32)],
    fields=[
        Text('type', create_only=True, choices=sorted(TYPES)),
        # domains.cfg (Auth/Plugin.pm write_config/parse_config): encode_text, read back with its spaces trimmed
        clearable('comment', max_length=4096, normalise=section_comment),
        clearable('default', Flag),
        clearable('tfa', PropertyString, keys=TFA, rule=tfa_rule, max_length=128),
        # LDAP and Active Directory
        clearable('server1', format='address', max_length=256),
        clearable('server2', format='address', max_length=256),
        clearable('port', Integer, minimum=1, maximum=65535),
        clearable('mode', choices=['ldap', 'ldaps', 'ldap+starttls']),
        clearable('secure', Flag),
        clearable('sslversion', choices=['tlsv1', 'tlsv1_1', 'tlsv1_2', 'tlsv1_3']),
        clearable('verify', Flag),
        clearable('capath'),
        clearable('cert'),
        clearable('certkey'),
        clearable('base_dn', max_length=256),
        clearable('bind_dn', max_length=256),
        clearable('user_attr', pattern=r'\S{2,}', max_length=256),
        clearable('domain', pattern=r'\S+', max_length=256),
        clearable('filter', max_length=2048),
        clearable('sync_attributes', pattern=r'\w+=[^,]+(,\s*\w+=[^,]+)*'),
        clearable('group_dn', max_length=256),
        clearable('group_filter', max_length=2048),
        clearable('case-sensitive', Flag, absent_means=True),
        # the defaults of POST /access/domains/{realm}/sync (homeflare.proxmox.realm_sync) for what it leaves out
        clearable('sync-defaults-options', PropertyString, keys=SYNC_DEFAULTS, rule=sync_defaults_rule),
        # OpenID Connect
        clearable('issuer-url', max_length=256),
        clearable('client-id', max_length=256),
        Text('username-claim', create_only=True),
        clearable('groups-claim', pattern=r'(?:[A-Za-z0-9\.\-_]+)', max_length=256),
        clearable('autocreate', Flag),
        clearable('groups-autocreate', Flag),
        clearable('groups-overwrite', Flag),
        clearable('prompt', pattern=r'(?:none|login|consent|select_account|\S+)'),
        clearable('scopes'),
        clearable('acr-values', pattern='^[^\\x00-\\x1F\\x7F <>#"]*$'),
        clearable('query-userinfo', Flag, absent_means=True),
        # The LDAP/AD bind password (kept in /etc/pve/priv/realm/<realm>.pw) and the OpenID client key.
        Text('password', secret=True),
        Text('client-key', secret=True, max_length=256),
    ],
    where=Where(collection='/access/domains', item='/access/domains/{realm}',
                # A missing realm is 500 "domain 'x' does not exist".
                absence=Absence((404, 500), r'does not exist')),
    # domains.cfg's digest: a realm edited by someone else between read and write is not overwritten.
    lifecycle=Lifecycle(send_digest=True),
    exporting=Exporting(placeholders={'password': ('ldap', 'ad'), 'client-key': ('openid',)}),
)
