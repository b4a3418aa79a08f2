# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The datacenter options: datacenter.cfg, /cluster/options (one object that always exists)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    Flag, Integer, PropertyString, Text, TokenSet, clearable, unknown_choice)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family, Lifecycle, Where

# PVE::JSONSchema's tag (PVE_TAG_RE), as the schema's patterns spell it.
TAG = r'(?i:[a-z0-9_][a-z0-9_\-\+\.]*)'
COLOR = r'[0-9a-fA-F]{6}'
COLOR_OVERRIDE = r'(?:%s:%s(?::%s)?)' % (TAG, COLOR, COLOR)
KEYBOARDS = ['de', 'de-ch', 'da', 'en-gb', 'en-us', 'es', 'fi', 'fr', 'fr-be', 'fr-ca', 'fr-ch', 'hu', 'is', 'it',
             'ja', 'lt', 'mk', 'nl', 'no', 'pl', 'pt', 'pt-br', 'sv', 'sl', 'tr']
LANGUAGES = ['ar', 'ca', 'da', 'de', 'en', 'es', 'eu', 'fa', 'fr', 'hr', 'he', 'it', 'ja', 'ka', 'kr', 'nb', 'nl', 'nn',
             'pl', 'pt_BR', 'ru', 'sl', 'sv', 'tr', 'ukr', 'zh_CN', 'zh_TW']


class OneOf(Text):
    """A property-string key with an enum: no argument spec checks it, so it checks itself."""

    def declared(self, value):
        value = super(OneOf, self).declared(value)
        if value not in self.choices:
            self.refuse(value, unknown_choice(value, self.choices))
        return value


class TagList(TokenSet):
    """Tags as a set, written ``;``-separated (``registered-tags``; PVE reads them back as a sorted list)."""

    def encode(self, value):
        return ';'.join(value)


def network_traffic():
    """The format of ``migration`` and ``replication``: ``[type=]<secure|insecure>[,network=<CIDR>]``."""
    return dict(type=OneOf('type', choices=['secure', 'insecure']), network=Text('network', format='CIDR'))


def next_id_range(pairs):
    """write_datacenter_config: lower (default 100) may not exceed upper (default 1000000)."""
    lower, upper = int(pairs.get('lower', 100)), int(pairs.get('upper', 1000000))
    if lower > upper:
        return 'has lower %d above upper %d; PVE keeps lower <= upper' % (lower, upper)
    return None


class DatacenterFamily(Family):
    def view(self, raw):
        """The read with ``user-allow-list`` as PVE writes it (``;``-joined) rather than the list it answers."""
        shaped = dict(raw)
        access = shaped.get('user-tag-access')
        if isinstance(access, dict) and isinstance(access.get('user-allow-list'), list):
            shaped['user-tag-access'] = dict(access, **{'user-allow-list': ';'.join(access['user-allow-list'])})
        return shaped


FAMILY = DatacenterFamily(
    'cluster_options', 'datacenter options',
    identity=[],
    fields=[
        clearable('keyboard', choices=KEYBOARDS),
        clearable('language', choices=LANGUAGES),
        clearable('console', choices=['applet', 'vv', 'html5', 'xtermjs']),
        clearable('email_from', format='email-opt'),
        clearable('http_proxy', pattern=r'http://.*'),
        clearable('mac_prefix', format='mac-prefix'),
        clearable('max_workers', Integer, minimum=1),
        clearable('fencing', choices=['watchdog', 'hardware', 'both']),
        # Stored as the file's comment lines: every line reads back with a newline.
        clearable('description', max_length=65536, normalise=lambda text: text.rstrip('\n')),
        clearable('migration', PropertyString, default_key='type', keys=network_traffic()),
        clearable('replication', PropertyString, default_key='type', keys=network_traffic()),
        clearable('ha', PropertyString, keys={'shutdown_policy': OneOf('shutdown_policy', choices=[
            'freeze', 'failover', 'conditional', 'migrate'])}),
        clearable('crs', PropertyString, keys={
            'ha': OneOf('ha', choices=['basic', 'static', 'dynamic']),
            'ha-rebalance-on-start': Flag('ha-rebalance-on-start'),
            'ha-auto-rebalance': Flag('ha-auto-rebalance'),
            'ha-auto-rebalance-method': OneOf('ha-auto-rebalance-method', choices=['bruteforce', 'topsis']),
            # numbers (PVE checks them: 0 or more)
            'ha-auto-rebalance-hold-duration': Text('ha-auto-rebalance-hold-duration'),
            'ha-auto-rebalance-margin': Text('ha-auto-rebalance-margin'),
            'ha-auto-rebalance-threshold': Text('ha-auto-rebalance-threshold')}),
        clearable('next-id', PropertyString, rule=next_id_range, keys={
            'lower': Integer('lower', minimum=100, maximum=999999999),
            'upper': Integer('upper', minimum=100, maximum=1000000000)}),
        clearable('bwlimit', PropertyString, keys=dict(
            (key, Integer(key, minimum=0)) for key in ('clone', 'default', 'migration', 'move', 'restore'))),
        clearable('tag-style', PropertyString, keys={
            'case-sensitive': Flag('case-sensitive'),
            'color-map': Text('color-map', pattern=r'%s(?:;%s)*' % (COLOR_OVERRIDE, COLOR_OVERRIDE)),
            'ordering': OneOf('ordering', choices=['config', 'alphabetical']),
            'shape': OneOf('shape', choices=['full', 'circle', 'dense', 'none'])}),
        clearable('user-tag-access', PropertyString, keys={
            'user-allow': OneOf('user-allow', choices=['none', 'list', 'existing', 'free']),
            'user-allow-list': Text('user-allow-list', pattern=r'%s(?:;%s)*' % (TAG, TAG))}),
        clearable('registered-tags', TagList, pattern=r'(?:%s;)*%s' % (TAG, TAG)),
        clearable('webauthn', PropertyString, keys={
            'allow-subdomains': Flag('allow-subdomains'), 'id': Text('id'), 'origin': Text('origin'),
            'rp': Text('rp')}),
    ],
    where=Where(item='/cluster/options', schema=('PUT', '/cluster/options')),
    lifecycle=Lifecycle(singleton=True),
)
