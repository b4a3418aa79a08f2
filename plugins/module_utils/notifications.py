# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the notification families of PVE and PBS share: both servers run proxmox-notify, so what each endpoint type
takes and what its create needs, the matchers' statements, the check that a new name is free (endpoints and matchers
share one file) and the built-ins' reset are one set of rules. ``endpoint_family`` and ``matcher_family`` build a
server's family from them (as ceph.py builds the Ceph daemon families); what a server adds is its paths, its
schema's rules for a few values (``rules``: wire name -> the field's extra keyword rules) and its wire (the scheme).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii
import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import ArrayParameter, Flag, Integer, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import SAFE_ID
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, Exporting, Family, ItemStore, Lifecycle, Listing, Where)
from ansible_collections.homeflare.proxmox.plugins.module_utils.type_rules import TypeRules

# What each type takes (proxmox-notify endpoints/<type>.rs), in wire names, and what its create needs.
# sendmail and smtp also need a recipient (mailto or mailto-user) to be created.
TYPES = {
    'sendmail': dict(options=['mailto', 'mailto-user', 'from-address', 'author'], create_needs=[]),
    'smtp': dict(options=['server', 'port', 'mode', 'username', 'password', 'mailto', 'mailto-user', 'from-address',
                          'author'], create_needs=['server', 'from-address']),
    'gotify': dict(options=['server', 'token'], create_needs=['server', 'token']),
    'webhook': dict(options=['url', 'method', 'header', 'body', 'secret'], create_needs=['url', 'method']),
}
# What every type takes besides its own options.
COMMON = ['comment', 'disable']
ENDPOINT_TYPES = TypeRules('endpoint', TYPES, common=COMMON)
# The types whose create needs a recipient.
MAIL = ('sendmail', 'smtp')

# proxmox-notify lib.rs Severity.
SEVERITIES = ['info', 'notice', 'warning', 'error', 'unknown']
# matcher.rs MATCH_FIELD_ENTRY_REGEX (SAFE_ID_REGEX for the field); FromStr also wants the exact: or regex: prefix.
MATCH_FIELD = re.compile(r'(exact|regex):([A-Za-z0-9_][A-Za-z0-9._\-]*)=(.*)', re.S)


# -- endpoint values ---------------------------------------------------------------------------------

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


# -- matcher statements ------------------------------------------------------------------------------

def severities(text):
    """One match-severity entry matches any of its severities: compared as a sorted set, as PVE trims them."""
    return ','.join(sorted(set(item.strip() for item in text.split(','))))


def unknown_severity(text):
    unknown = [item.strip() for item in text.split(',') if item.strip() not in SEVERITIES]
    return 'names %s, not one of %s' % (', '.join(unknown), ', '.join(SEVERITIES)) if unknown else None


def field_statement(text):
    """exact:<field>=<v1>,<v2> matches any of the values: compared as a sorted set, as PVE trims them."""
    match = MATCH_FIELD.fullmatch(text)
    if match is None or match.group(1) == 'regex':
        return text
    values = sorted(set(item.strip() for item in match.group(3).split(',')))
    return 'exact:%s=%s' % (match.group(2), ','.join(values))


def bad_statement(text):
    if MATCH_FIELD.fullmatch(text) is None:
        return 'is not exact:<field>=<value>[,<value>...] or regex:<field>=<regex>'
    return None


# -- names, shared by the endpoints of every type and the matchers -------------------------------------

def targets(root):
    """The list of every endpoint with its type (targets.rs), under a server's notification ``root``."""
    return (root + '/targets', lambda row: '%s endpoint' % row.get('type'))


def matchers(root):
    return (root + '/matchers', lambda row: 'matcher')


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


def refuse_unknown_targets(client, family, ident, form, listed):
    """Every target written must be an endpoint on the server (a real run only: check mode cannot know the endpoints
    the same run creates first). PBS would refuse the write too (404 "endpoint 'x' does not exist"); this says which
    names are missing and what exists, before any write. ``listed`` is the server's list of endpoints."""
    if not form.get('target'):
        return
    known = set(row.get('name') for row in client.get(listed, role=family.read_role) or [])
    unknown = sorted(set(form['target']) - known)
    if unknown:
        names = ', '.join("'%s'" % name for name in unknown)
        there = ', '.join(sorted(known)) or 'none'
        raise Refused('%s names target %s, which is no endpoint on the server (it has %s); declare the endpoints '
                      'first. Nothing was written.' % (family.describe(ident), names, there))


class EndpointStore(ItemStore):
    """The type is in every path; a create posts to the type's collection, once the name is known to be free."""

    def __init__(self, root):
        self.lists = [targets(root), matchers(root)]

    def create(self, client, family, ident, form):
        refuse_taken_name(client, family, ident, '%s endpoint' % ident['type'], self.lists)
        return client.post(item_path(family.collection, ident), dict(form, name=ident['name']),
                           role=family.write_role)


class MatcherStore(ItemStore):
    """A new matcher's name must not be an endpoint's (both are kept in one file); with ``known_targets`` its
    targets must be endpoints on the server (PBS's), on create and update."""

    def __init__(self, root, known_targets=False):
        self.targets = targets(root)
        self.known_targets = known_targets

    def create(self, client, family, ident, form):
        refuse_taken_name(client, family, ident, 'matcher', [self.targets])
        if self.known_targets:
            refuse_unknown_targets(client, family, ident, form, self.targets[0])
        return super(MatcherStore, self).create(client, family, ident, form)

    def update(self, client, family, ident, form, live):
        if self.known_targets:
            refuse_unknown_targets(client, family, ident, form, self.targets[0])
        return super(MatcherStore, self).update(client, family, ident, form, live)


# -- the families ---------------------------------------------------------------------------------

def origin(raw):
    """PVE's own endpoints and matchers carry their origin: builtin, or modified-builtin once changed."""
    return {'origin': raw['origin']} if raw.get('origin') else {}


class NotificationFamily(Family):
    """An endpoint or a matcher; the server ships some (mail-to-root, default-matcher), which carry their origin."""

    def report(self, raw):
        return origin(raw)

    def is_reset(self, raw):
        """A built-in as its DELETE leaves it: the server resets it to the shipped defaults."""
        return raw.get('origin') == 'builtin'

    def is_builtin(self, ident, raw):
        """Shipped and unchanged (a modified built-in holds the user's changes: it is exported)."""
        return raw.get('origin') == 'builtin'


class EndpointFamily(NotificationFamily):
    """One family serves the four endpoint types: the type is part of every path (an identity field), and the type's
    own table (ENDPOINT_TYPES) says what it takes."""

    def check_declaration(self, declaration):
        """An option the type does not take stops the task before any request; so does clearing one it needs."""
        ENDPOINT_TYPES.check_options(self.fields, declaration.values, declaration.ident['type'])

    def check_create(self, declaration):
        """What the server insists on when the endpoint is created (known to matter once it is absent)."""
        kind = declaration.ident['type']
        ENDPOINT_TYPES.check_create(self.fields, declaration.values, kind)
        if kind in MAIL and not (declaration.values.get('mailto') or declaration.values.get('mailto_user')):
            raise DeclarationError('option mailto or mailto_user is required to create a %s endpoint (a recipient)'
                                   % kind)


def ruled(rules):
    """A field maker that adds the server's own ``rules`` (wire name -> keyword rules) to the shared ones."""

    def field(kind, wire, **kwargs):
        kwargs.update(rules.get(wire, {}))
        return kind(wire, **kwargs)
    return field


# Each server's notification root and its schema's rule for an endpoint's or a matcher's name (PVE's pve-configid;
# PBS's: 2 to 32 characters, SAFE_ID).
ROOTS = {'pve': '/cluster/notifications', 'pbs': '/config/notifications'}
NAME_RULES = {'pve': dict(format='pve-configid'), 'pbs': dict(min_length=2, max_length=32, pattern=SAFE_ID)}


def name_field(scheme):
    return Text('name', required=True, **NAME_RULES[scheme])


def endpoint_family(module, name, scheme, missing, rules):
    """The endpoint family of one server (``scheme``): ``missing`` the message of its 404 for a missing endpoint,
    ``rules`` its schema's own rules per field."""
    field = ruled(rules)
    root = ROOTS[scheme]
    return EndpointFamily(
        module, name,
        identity=[
            Text('type', required=True, choices=sorted(TYPES), schema_key=None),
            name_field(scheme),
        ],
        fields=[
            field(Text, 'comment', clear='delete'),
            # Always compared: an endpoint disabled by hand is enabled again unless declared disabled.
            field(Flag, 'disable', default=False),
            field(ArrayParameter, 'mailto'),
            field(ArrayParameter, 'mailto-user'),
            field(Text, 'from-address', clear='delete'),
            field(Text, 'author', clear='delete'),
            field(Text, 'server'),
            field(Integer, 'port', clear='delete'),
            # proxmox-notify applies tls when none is stored (and PBS cannot delete mode).
            field(Text, 'mode', choices=['insecure', 'starttls', 'tls'], absent_means='tls'),
            field(Text, 'username', clear='delete'),
            # The smtp endpoint's call holds the options above; gotify's and webhook's own ones are checked against
            # their calls by the tests (test_simulator_access_notify.py, the PBS simulator's schema).
            field(Text, 'url', schema_key=None),
            field(Text, 'method', choices=['get', 'post', 'put'], schema_key=None),
            field(ArrayParameter, 'header', each=key_and_value, valid=valid_key_and_value, schema_key=None),
            field(Text, 'body', clear='delete', schema_key=None),
            # Kept in priv/notifications.cfg: sent on create, never read, compared or shown.
            field(Text, 'password', secret=True),
            field(Text, 'token', secret=True, schema_key=None),
            field(ArrayParameter, 'secret', secret=True, valid=valid_key_and_value, schema_key=None),
        ],
        where=Where(collection=root + '/endpoints/{type}', item=root + '/endpoints/{type}/{name}',
                    absence=Absence((404,), missing), store=EndpointStore(root),
                    schema=('POST', root + '/endpoints/smtp')),
        scheme=scheme,
        # notifications.cfg's digest: an edit by someone else between read and write is not overwritten (PBS
        # answers it beside the item; its DELETE takes none).
        lifecycle=Lifecycle(send_digest=True, list_delete=True),
        exporting=Exporting(placeholders={'password': ('smtp',), 'token': ('gotify',), 'secret': ('webhook',)}),
    )


def matcher_family(module, name, scheme, missing, rules, known_targets=False):
    """The matcher family of one server (as ``endpoint_family``); ``known_targets``: a write's targets must be
    endpoints on the server, checked before it (PBS refuses others)."""
    field = ruled(rules)
    root = ROOTS[scheme]
    return NotificationFamily(
        module, name,
        identity=[name_field(scheme)],
        fields=[
            # Each list is combined by mode (all: every entry matches, any: one does), so its order means nothing.
            field(ArrayParameter, 'match-field', each=field_statement, valid=bad_statement),
            field(ArrayParameter, 'match-severity', each=severities, valid=unknown_severity),
            field(ArrayParameter, 'match-calendar'),
            field(ArrayParameter, 'target'),
            field(Text, 'mode', choices=['all', 'any'], absent_means='all'),
            field(Flag, 'invert-match'),
            field(Text, 'comment', clear='delete'),
            # Always compared: a matcher disabled by hand is enabled again unless declared disabled.
            field(Flag, 'disable', default=False),
        ],
        where=Where(collection=root + '/matchers', item=root + '/matchers/{name}', listing=Listing(root + '/matchers'),
                    absence=Absence((404,), missing), store=MatcherStore(root, known_targets)),
        scheme=scheme,
        lifecycle=Lifecycle(send_digest=True, list_delete=True),
    )
