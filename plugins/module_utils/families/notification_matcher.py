# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The notification matcher family: /cluster/notifications/matchers/{name}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.families.notification_endpoint import (
    TARGETS, Items, is_reset_builtin, origin, refuse_taken_name)
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import why_not
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family, ItemStore, Listing

# proxmox-notify lib.rs Severity.
SEVERITIES = ['info', 'notice', 'warning', 'error', 'unknown']
# matcher.rs MATCH_FIELD_ENTRY_REGEX (SAFE_ID_REGEX for the field); FromStr also wants the exact: or regex: prefix.
MATCH_FIELD = re.compile(r'(exact|regex):([A-Za-z0-9_][A-Za-z0-9._\-]*)=(.*)', re.S)


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


def bad_target(text):
    allowed = why_not('pve-configid', text)
    return 'is not an endpoint name (%s)' % allowed if allowed else None


class MatcherStore(ItemStore):
    """A new matcher's name must not be an endpoint's: PVE keeps both in one file."""

    def create(self, client, family, ident, form):
        refuse_taken_name(client, family, ident, 'matcher', [TARGETS])
        return super(MatcherStore, self).create(client, family, ident, form)


FAMILY = Family(
    name='notification matcher',
    # shipped and unchanged (a modified built-in holds the user's changes: it is exported)
    builtin=lambda ident, raw: raw.get('origin') == 'builtin',
    identity=[Text('name', required=True, format='pve-configid')],
    fields=[
        # Each list is combined by mode (all: every entry matches, any: one does), so its order means nothing.
        Items('match-field', item=field_statement, valid=bad_statement),
        Items('match-severity', item=severities, valid=unknown_severity),
        Items('match-calendar'),
        Items('target', valid=bad_target),
        Text('mode', choices=['all', 'any'], absent_means='all'),
        Flag('invert-match'),
        Text('comment', clear='delete'),
        # Always compared: a matcher disabled by hand is enabled again unless declared disabled.
        Flag('disable', default=False),
    ],
    collection='/cluster/notifications/matchers',
    item='/cluster/notifications/matchers/{name}',
    listing=Listing('/cluster/notifications/matchers'),
    # proxmox-notify answers a missing matcher with 404 "matcher 'x' not found".
    absence=Absence((404,), r'not found'),
    store=MatcherStore(),
    send_digest=True,
    report=origin,
    list_delete=True,
    removed=is_reset_builtin,
)
