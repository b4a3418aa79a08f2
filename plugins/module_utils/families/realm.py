# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The realm family: sections of domains.cfg, /access/domains/{realm}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, PropertyString, Text, section_comment
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family

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
# PVE re-reads these two into domains.cfg whatever is deleted (PVE::Auth::Plugin::parse_config).
BUILTIN = ('pam', 'pve')

# Plugin.pm's pve-tfa-config format.
TFA = {'type': Text('type', pattern='yubico|oath'), 'id': Text('id'), 'key': Text('key'), 'url': Text('url'),
       'digits': Integer('digits', minimum=6, maximum=8), 'step': Integer('step', minimum=10)}


def tfa_rule(pairs):
    return None if 'type' in pairs else 'lacks type=yubico or type=oath'


def check_type(ident, declared, state):
    """The realm type's own table, before any request; and the built-in realms, which cannot go."""
    realm = ident['realm']
    if state == 'absent':
        if realm in BUILTIN:
            raise Refused("realm '%s' is built in: PVE keeps it whatever is deleted (a DELETE answers success and "
                          "the realm is back with its default comment), so state=absent cannot be met. Nothing was "
                          "written." % realm)
        return
    kind = declared.get('type')
    if not kind:
        raise DeclarationError('option type is required with state=present (one of %s)' % ', '.join(sorted(TYPES)))
    if realm in BUILTIN and kind != realm:
        raise DeclarationError("option type: the built-in realm '%s' has the type %s" % (realm, realm))
    if realm not in BUILTIN and kind in BUILTIN:
        raise DeclarationError('option type: %s is the type of the built-in realm of that name only; a new realm '
                               'is ad, ldap or openid' % kind)
    by_wire = dict((field.wire, field) for field in FAMILY.fields)
    foreign = sorted(field.option for wire, field in by_wire.items()
                     if wire != 'type' and field.option in declared and wire not in TYPES[kind]['options'])
    if foreign:
        raise DeclarationError('option %s: a %s realm does not take %s' % (foreign[0], kind, ', '.join(foreign)))
    missing = [by_wire[wire].option for wire in TYPES[kind]['required'] if not declared.get(by_wire[wire].option)]
    if missing:
        raise DeclarationError('option %s is required for a %s realm (it needs %s)' % (
            missing[0], kind, ', '.join(by_wire[wire].option for wire in TYPES[kind]['required'])))


class RealmFamily(Family):
    def argument_spec(self):
        spec = super(RealmFamily, self).argument_spec()
        spec['certkey']['no_log'] = False  # the client key's path, not a key
        return spec


def option(wire, kind=Text, **kwargs):
    """An updatable option; unset on update is delete=, as PVE's Domains.pm clears it."""
    return kind(wire, clear='delete', **kwargs)


FAMILY = RealmFamily(
    name='realm',
    placeholders={'password': ('ldap', 'ad'), 'client-key': ('openid',)},
    # the realms every PVE ships (an export leaves them out unless asked)
    builtin=lambda ident, raw: ident['realm'] in ('pam', 'pve'),
    identity=[Text('realm', required=True, format='pve-realm', max_length=32)],
    fields=[
        Text('type', create_only=True, choices=sorted(TYPES)),
        # domains.cfg (Auth/Plugin.pm write_config/parse_config): encode_text, read back with its spaces trimmed
        option('comment', max_length=4096, normalise=section_comment),
        option('default', kind=Flag),
        option('tfa', kind=PropertyString, keys=TFA, rule=tfa_rule, max_length=128),
        # LDAP and Active Directory
        option('server1', format='address', max_length=256),
        option('server2', format='address', max_length=256),
        option('port', kind=Integer, minimum=1, maximum=65535),
        option('mode', choices=['ldap', 'ldaps', 'ldap+starttls']),
        option('secure', kind=Flag),
        option('sslversion', choices=['tlsv1', 'tlsv1_1', 'tlsv1_2', 'tlsv1_3']),
        option('verify', kind=Flag),
        option('capath'),
        option('cert'),
        option('certkey'),
        option('base_dn', max_length=256),
        option('bind_dn', max_length=256),
        option('user_attr', pattern=r'\S{2,}', max_length=256),
        option('domain', pattern=r'\S+', max_length=256),
        option('filter', max_length=2048),
        option('sync_attributes', pattern=r'\w+=[^,]+(,\s*\w+=[^,]+)*'),
        option('group_dn', max_length=256),
        option('group_filter', max_length=2048),
        option('case-sensitive', kind=Flag, absent_means=True),
        # OpenID Connect
        option('issuer-url', max_length=256),
        option('client-id', max_length=256),
        Text('username-claim', create_only=True),
        option('groups-claim', pattern=r'(?:[A-Za-z0-9\.\-_]+)', max_length=256),
        option('autocreate', kind=Flag),
        option('groups-autocreate', kind=Flag),
        option('groups-overwrite', kind=Flag),
        option('prompt', pattern=r'(?:none|login|consent|select_account|\S+)'),
        option('scopes'),
        option('acr-values', pattern='^[^\\x00-\\x1F\\x7F <>#"]*$'),
        option('query-userinfo', kind=Flag, absent_means=True),
        # The LDAP/AD bind password (kept in /etc/pve/priv/realm/<realm>.pw) and the OpenID client key.
        Text('password', secret=True),
        Text('client-key', secret=True, max_length=256),
    ],
    collection='/access/domains',
    item='/access/domains/{realm}',
    # A missing realm is 500 "domain 'x' does not exist".
    absence=Absence((404, 500), r'does not exist'),
    # domains.cfg's digest: a realm edited by someone else between read and write is not overwritten.
    send_digest=True,
    check_declaration=check_type,
)
