# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PBS notification matcher family: /config/notifications/matchers/{name} (proxmox-backup
src/api2/config/notifications/matchers.rs over proxmox-notify api/matcher.rs).

The matcher's statements are proxmox-notify's, so their checks and canonical forms are the PVE family's;
PBS's schema gives the name, target and comment rules.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.notification_endpoint import (
    Items, is_reset_builtin, origin, refuse_taken_name)
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.notification_matcher import (
    bad_statement, field_statement, severities, unknown_severity)
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_datastore import SAFE_ID, SINGLE_LINE
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_notification_endpoint import TARGETS
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family, ItemStore, Listing

TARGET_NAME = re.compile(SAFE_ID)


def bad_target(text):
    """PBS's name schema for targets and matchers: 2 to 32 characters, SAFE_ID."""
    if not 2 <= len(text) <= 32:
        return 'is %d characters long; an endpoint name has 2 to 32' % len(text)
    if TARGET_NAME.fullmatch(text) is None:
        return 'is not an endpoint name (letters, digits, _, . and -, not - or . first)'
    return None


def refuse_unknown_targets(client, family, ident, form):
    """Every target written must be an endpoint on the server (a real run only: check mode cannot know the endpoints
    the same run creates first). PBS would refuse the write too (404 "endpoint 'x' does not exist"); this says which
    names are missing and what exists, before any write."""
    if not form.get('target'):
        return
    known = set(row.get('name') for row in client.get(TARGETS[0], role=family.read_role) or [])
    unknown = sorted(set(form['target']) - known)
    if unknown:
        names = ', '.join("'%s'" % name for name in unknown)
        there = ', '.join(sorted(known)) or 'none'
        raise Refused('%s names target %s, which is no endpoint on the server (it has %s); declare the endpoints '
                      'first. Nothing was written.' % (family.describe(ident), names, there))


class MatcherStore(ItemStore):
    """A new matcher's name must not be an endpoint's (PBS keeps both in one file); its targets must be endpoints."""

    def create(self, client, family, ident, form):
        refuse_taken_name(client, family, ident, 'matcher', [TARGETS])
        refuse_unknown_targets(client, family, ident, form)
        return super(MatcherStore, self).create(client, family, ident, form)

    def update(self, client, family, ident, form, live):
        refuse_unknown_targets(client, family, ident, form)
        return super(MatcherStore, self).update(client, family, ident, form, live)


FAMILY = Family(
    name='pbs notification matcher',
    # shipped and unchanged (a modified built-in holds the user's changes: it is exported)
    builtin=lambda ident, raw: raw.get('origin') == 'builtin',
    identity=[Text('name', required=True, min_length=2, max_length=32, pattern=SAFE_ID)],
    fields=[
        # Each list is combined by mode (all: every entry matches, any: one does), so its order means nothing.
        Items('match-field', item=field_statement, valid=bad_statement),
        Items('match-severity', item=severities, valid=unknown_severity),
        Items('match-calendar'),
        # Each target must be an endpoint on the server: PBS refuses others (404 "endpoint 'x' does not exist").
        Items('target', valid=bad_target),
        Text('mode', choices=['all', 'any'], absent_means='all'),
        Flag('invert-match'),
        Text('comment', clear='delete', max_length=128, pattern=SINGLE_LINE),
        # Always compared: a matcher disabled by hand is enabled again unless declared disabled.
        Flag('disable', default=False),
    ],
    collection='/config/notifications/matchers',
    item='/config/notifications/matchers/{name}',
    listing=Listing('/config/notifications/matchers'),
    scheme='pbs',
    # proxmox-notify answers a missing matcher with 404 "matcher 'x' not found".
    absence=Absence((404,), r"matcher '[^']*' not found"),
    store=MatcherStore(),
    send_digest=True,
    report=origin,
    list_delete=True,
    removed=is_reset_builtin,
)
