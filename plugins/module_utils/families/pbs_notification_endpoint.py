# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PBS notification endpoint family: /config/notifications/endpoints/{type}/{name} (proxmox-backup
src/api2/config/notifications/{sendmail,smtp,gotify,webhook}.rs over proxmox-notify).

The crate is PVE's (proxmox-notify), so what each type takes, what its create needs, the list kind, the
name check and the built-in reset come from the PVE family; what differs is PBS's schema (names of 2 to 32
characters, a comment of at most 128 on one line, a port range, recipients of 2 to 64 characters), the
paths, and the wire (repeated keys for lists and ``delete``, the digest beside ``data``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.notification_endpoint import (
    COMMON, TYPES, Items, check_create, is_reset_builtin, key_and_value, origin, refuse_taken_name,
    valid_key_and_value)
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_datastore import SAFE_ID, SINGLE_LINE
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family, ItemStore

SINGLE_LINE_TEXT = re.compile(SINGLE_LINE)


def recipient(text):
    """PBS's rule for one mailto / mailto-user item (its schema: 2 to 64 characters on one line)."""
    if not 2 <= len(text) <= 64:
        return 'is %d characters long; PBS takes 2 to 64' % len(text)
    if SINGLE_LINE_TEXT.fullmatch(text) is None:
        return 'holds a control character'
    return None


def check_type(ident, declared, state):
    """An option the type does not take stops the task before any request; so does clearing one it needs."""
    kind = ident['type']
    allowed = set(wire.replace('-', '_') for wire in TYPES[kind]['options'] + COMMON)
    foreign = sorted(option for option in declared if option not in allowed)
    if foreign:
        raise DeclarationError('option %s: a %s endpoint does not take %s' % (foreign[0], kind, ', '.join(foreign)))
    for wire in TYPES[kind]['create_needs']:
        if declared.get(wire.replace('-', '_')) == '':
            raise DeclarationError('option %s: a %s endpoint needs it, so it cannot be empty' % (
                wire.replace('-', '_'), kind))


# targets.rs lists every endpoint with its type; matchers share the endpoints' namespace.
TARGETS = ('/config/notifications/targets', lambda row: '%s endpoint' % row.get('type'))
MATCHERS = ('/config/notifications/matchers', lambda row: 'matcher')


class EndpointStore(ItemStore):
    """The type is in every path; a create posts to the type's collection, once the name is known to be free."""

    def create(self, client, family, ident, form):
        refuse_taken_name(client, family, ident, '%s endpoint' % ident['type'], [TARGETS, MATCHERS])
        return client.post(item_path(family.collection, ident), dict(form, name=ident['name']),
                           role=family.write_role)


FAMILY = Family(
    name='pbs notification endpoint',
    placeholders={'password': ('smtp',), 'token': ('gotify',), 'secret': ('webhook',)},
    # shipped and unchanged (a modified built-in holds the user's changes: it is exported)
    builtin=lambda ident, raw: raw.get('origin') == 'builtin',
    identity=[
        Text('type', required=True, choices=sorted(TYPES), schema_key=None),
        Text('name', required=True, min_length=2, max_length=32, pattern=SAFE_ID),
    ],
    fields=[
        Text('comment', clear='delete', max_length=128, pattern=SINGLE_LINE),
        # Always compared: an endpoint disabled by hand is enabled again unless declared disabled.
        Flag('disable', default=False),
        Items('mailto', valid=recipient),
        Items('mailto-user', valid=recipient),
        Text('from-address', clear='delete'),
        Text('author', clear='delete'),
        Text('server'),
        Integer('port', clear='delete', minimum=0, maximum=65535),
        # proxmox-notify applies tls when none is stored (and PBS cannot delete mode).
        Text('mode', choices=['insecure', 'starttls', 'tls'], absent_means='tls'),
        Text('username', clear='delete'),
        # The smtp endpoint's call holds the options above; the webhook's and gotify's own ones are checked by
        # the simulator against their calls in PBS's schema (its url pattern is PBS's http(s) URL, shortened).
        Text('url', pattern=r'^https?://[^\s/?#]+(?:[/?#]\S*)?$', schema_key=None),
        Text('method', choices=['get', 'post', 'put'], schema_key=None),
        Items('header', item=key_and_value, valid=valid_key_and_value, schema_key=None),
        Text('body', clear='delete', schema_key=None),
        # Kept in priv/notifications.cfg: sent on create, never read, compared or shown.
        Text('password', secret=True),
        Text('token', secret=True, schema_key=None),
        Items('secret', secret=True, valid=valid_key_and_value, schema_key=None),
    ],
    collection='/config/notifications/endpoints/{type}',
    item='/config/notifications/endpoints/{type}/{name}',
    scheme='pbs',
    # proxmox-notify's HttpError keeps its status: 404 "endpoint 'x' not found" (a wrong type reads so too).
    absence=Absence((404,), r"endpoint '[^']*' not found"),
    store=EndpointStore(),
    # notifications.cfg's digest, answered beside the item: PUT checks it; DELETE takes none.
    send_digest=True,
    schema=('POST', '/config/notifications/endpoints/smtp'),
    check_declaration=check_type,
    check_create=check_create,
    report=origin,
    list_delete=True,
    removed=is_reset_builtin,
)
