# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The notification endpoint family: /cluster/notifications/endpoints/{type}/{name}.

One family serves the four endpoint types: the type is part of every path (an identity field), and
the type's own table says what it takes. What the matcher family shares lives here too: the array
field kind and the check that a new name is free (PVE keeps endpoints and matchers in one file).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii
import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import Repeated, item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text, TokenSet
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import EMAIL, USER, why_not
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family, ItemStore


class Items(TokenSet):
    """A PVE array parameter (mailto, target, match-field, a webhook's headers).

    Compared as a set of items, each in the canonical form ``item`` gives it (PVE keeps the order
    sent; none of these lists means anything by it); an item is never split at commas; ``valid``
    says why a declared item is refused (or None). Written as a list: one key per item.
    """

    def __init__(self, wire, item=None, valid=None, **kwargs):
        kwargs.setdefault('clear', 'delete')
        super(Items, self).__init__(wire, **kwargs)
        self.item = item or (lambda text: text)
        self.valid = valid

    def canonical(self, value):
        values = value if isinstance(value, (list, tuple)) else [value]
        items = set(str(item).strip() for item in values if item is not None) - set([''])
        return sorted(set(self.item(item) for item in items))

    def declared(self, value):
        values = value if isinstance(value, (list, tuple)) else [value]
        for item in values:
            why = self.valid(str(item).strip()) if self.valid else None
            if why:
                self.refuse('<secret>' if self.secret else item, why)
        return self.canonical(value)

    def encode(self, value):
        return Repeated(value)


def email_or_username(text):
    # PVE's email-or-username format: an address, or a user name without whitespace, ':' or '/'.
    if EMAIL.fullmatch(text) is None and re.fullmatch(USER, text) is None:
        return 'is neither an e-mail address nor a user name'
    return None


def userid(text):
    allowed = why_not('pve-userid', text)
    return 'is not a valid pve-userid (%s)' % allowed if allowed else None


def key_and_value(text):
    """proxmox-notify KeyAndBase64Val (webhook headers and secrets): name=<name>,value=<base64>."""
    pairs = dict(part.split('=', 1) for part in text.split(',') if '=' in part)
    return 'name=%s,value=%s' % (pairs.get('name', ''), pairs.get('value', ''))


def valid_key_and_value(text):
    parts = [part for part in text.split(',') if part.strip()]
    pairs = dict(part.split('=', 1) for part in parts if '=' in part)
    if len(pairs) != len(parts) or set(pairs) != set(['name', 'value']) or not pairs['name']:
        return "is not name=<name>,value=<base64 of the value>"
    try:
        base64.b64decode(pairs['value'], validate=True)
    except (binascii.Error, ValueError):
        return 'has a value that is not base64'
    return None


# What each type takes (proxmox-notify endpoints/<type>.rs), in wire names, and what its create needs.
# sendmail and smtp also need a recipient (mailto or mailto-user) to be created.
TYPES = {
    'sendmail': dict(options=['mailto', 'mailto-user', 'from-address', 'author'], create_needs=[]),
    'smtp': dict(options=['server', 'port', 'mode', 'username', 'password', 'mailto', 'mailto-user', 'from-address',
                          'author'], create_needs=['server', 'from-address']),
    'gotify': dict(options=['server', 'token'], create_needs=['server', 'token']),
    'webhook': dict(options=['url', 'method', 'header', 'body', 'secret'], create_needs=['url', 'method']),
}
COMMON = ['comment', 'disable']


def check_type(ident, declared, state):
    """An option the type does not take stops the task before any request; so does clearing one it needs."""
    kind = ident['type']
    by_wire = dict((field.wire, field) for field in FAMILY.fields)
    allowed = TYPES[kind]['options'] + COMMON
    foreign = sorted(field.option for wire, field in by_wire.items() if field.option in declared and wire not in allowed)
    if foreign:
        raise DeclarationError('option %s: a %s endpoint does not take %s' % (foreign[0], kind, ', '.join(foreign)))
    for wire in TYPES[kind]['create_needs']:
        if declared.get(by_wire[wire].option) == '':
            raise DeclarationError('option %s: a %s endpoint needs it, so it cannot be empty' % (
                by_wire[wire].option, kind))


def check_create(declaration):
    """What PVE insists on when the endpoint is created (known to matter once it is absent)."""
    kind = declaration.ident['type']
    missing = [wire.replace('-', '_') for wire in TYPES[kind]['create_needs']
               if not declaration.values.get(wire.replace('-', '_'))]
    if missing:
        raise DeclarationError('option %s is required to create a %s endpoint' % (missing[0], kind))
    if kind in ('sendmail', 'smtp') and not (declaration.values.get('mailto') or declaration.values.get('mailto_user')):
        raise DeclarationError('option mailto or mailto_user is required to create a %s endpoint (a recipient)' % kind)


def refuse_taken_name(client, family, ident, mine, lists):
    """PVE keeps endpoints and matchers in one file, so a name is free only if no list holds it as another kind.

    ``mine`` is the kind being created: the same object created meanwhile by another writer is left to
    PVE's "already exists", which the core answers by judging again.
    """
    for path, kind in lists:
        for row in client.get(path, role=family.read_role) or []:
            if row.get('name') == ident['name'] and kind(row) != mine:
                raise Refused("%s cannot be created: a %s of that name exists, and names are unique across the "
                              "endpoints of every type and the matchers (PVE cannot change a type in place). Nothing "
                              "was written." % (family.describe(ident), kind(row)))


TARGETS = ('/cluster/notifications/targets', lambda row: '%s endpoint' % row.get('type'))
MATCHERS = ('/cluster/notifications/matchers', lambda row: 'matcher')


class EndpointStore(ItemStore):
    """The type is in every path; a create posts to the type's collection, once the name is known to be free."""

    def create(self, client, family, ident, form):
        refuse_taken_name(client, family, ident, '%s endpoint' % ident['type'], [TARGETS, MATCHERS])
        return client.post(item_path(family.collection, ident), dict(form, name=ident['name']),
                           role=family.write_role)


def origin(raw):
    """PVE's own endpoints and matchers carry their origin: builtin, or modified-builtin once changed."""
    return {'origin': raw['origin']} if raw.get('origin') else {}


def is_reset_builtin(raw):
    """A built-in (mail-to-root) as its DELETE leaves it: PVE resets it to the shipped defaults."""
    return raw.get('origin') == 'builtin'


FAMILY = Family(
    name='notification endpoint',
    placeholders={'password': ('smtp',), 'token': ('gotify',), 'secret': ('webhook',)},
    # shipped and unchanged (a modified built-in holds the user's changes: it is exported)
    builtin=lambda ident, raw: raw.get('origin') == 'builtin',
    identity=[
        Text('type', required=True, choices=sorted(TYPES), schema_key=None),
        Text('name', required=True, format='pve-configid'),
    ],
    fields=[
        Text('comment', clear='delete'),
        # Always compared: an endpoint disabled by hand is enabled again unless declared disabled.
        Flag('disable', default=False),
        Items('mailto', valid=email_or_username),
        Items('mailto-user', valid=userid),
        Text('from-address', clear='delete'),
        Text('author', clear='delete'),
        Text('server'),
        Integer('port', clear='delete'),
        # PVE applies tls when none is stored.
        Text('mode', choices=['insecure', 'starttls', 'tls'], absent_means='tls'),
        Text('username', clear='delete'),
        # The smtp endpoint's schema holds the options above; gotify's and webhook's own ones are checked
        # against their calls by tests/unit/test_simulator_access_notify.py.
        Text('url', schema_key=None),
        Text('method', choices=['get', 'post', 'put'], schema_key=None),
        Items('header', item=key_and_value, valid=valid_key_and_value, schema_key=None),
        Text('body', clear='delete', schema_key=None),
        # Kept in priv/notifications.cfg: sent on create, never read, compared or shown.
        Text('password', secret=True),
        Text('token', secret=True, schema_key=None),
        Items('secret', secret=True, valid=valid_key_and_value, schema_key=None),
    ],
    collection='/cluster/notifications/endpoints/{type}',
    item='/cluster/notifications/endpoints/{type}/{name}',
    # proxmox-notify answers a missing endpoint with 404 "endpoint 'x' not found".
    absence=Absence((404,), r'not found'),
    store=EndpointStore(),
    # notifications.cfg's digest: an edit by someone else between read and write is not overwritten.
    send_digest=True,
    schema=('POST', '/cluster/notifications/endpoints/smtp'),
    check_declaration=check_type,
    check_create=check_create,
    report=origin,
    list_delete=True,
    removed=is_reset_builtin,
)
