# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The datacenter options: datacenter.cfg, /cluster/options (one object that always exists)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    Flag, Integer, PropertyString, Text, TokenSet, unknown_choice)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family

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


def as_read(raw):
    """The read with ``user-allow-list`` as PVE writes it (``;``-joined) rather than the list it answers."""
    view = dict(raw)
    access = view.get('user-tag-access')
    if isinstance(access, dict) and isinstance(access.get('user-allow-list'), list):
        view['user-tag-access'] = dict(access, **{'user-allow-list': ';'.join(access['user-allow-list'])})
    return view


def option(wire, kind=Text, **kwargs):
    """An option of datacenter.cfg: undeclared is unmanaged, declared empty is removed (delete=)."""
    return kind(wire, clear='delete', **kwargs)


FAMILY = Family(
    name='datacenter options',
    identity=[],
    fields=[
        option('keyboard', choices=KEYBOARDS),
        option('language', choices=LANGUAGES),
        option('console', choices=['applet', 'vv', 'html5', 'xtermjs']),
        option('email_from', format='email-opt'),
        option('http_proxy', pattern=r'http://.*'),
        option('mac_prefix', format='mac-prefix'),
        option('max_workers', kind=Integer, minimum=1),
        option('fencing', choices=['watchdog', 'hardware', 'both']),
        # Stored as the file's comment lines: every line reads back with a newline.
        option('description', max_length=65536, normalise=lambda text: text.rstrip('\n')),
        option('migration', kind=PropertyString, default_key='type', keys=network_traffic()),
        option('replication', kind=PropertyString, default_key='type', keys=network_traffic()),
        option('ha', kind=PropertyString, keys={'shutdown_policy': OneOf('shutdown_policy', choices=[
            'freeze', 'failover', 'conditional', 'migrate'])}),
        option('crs', kind=PropertyString, keys={
            'ha': OneOf('ha', choices=['basic', 'static', 'dynamic']),
            'ha-rebalance-on-start': Flag('ha-rebalance-on-start'),
            'ha-auto-rebalance': Flag('ha-auto-rebalance'),
            'ha-auto-rebalance-method': OneOf('ha-auto-rebalance-method', choices=['bruteforce', 'topsis']),
            # numbers (PVE checks them: 0 or more)
            'ha-auto-rebalance-hold-duration': Text('ha-auto-rebalance-hold-duration'),
            'ha-auto-rebalance-margin': Text('ha-auto-rebalance-margin'),
            'ha-auto-rebalance-threshold': Text('ha-auto-rebalance-threshold')}),
        option('next-id', kind=PropertyString, rule=next_id_range, keys={
            'lower': Integer('lower', minimum=100, maximum=999999999),
            'upper': Integer('upper', minimum=100, maximum=1000000000)}),
        option('bwlimit', kind=PropertyString, keys=dict(
            (key, Integer(key, minimum=0)) for key in ('clone', 'default', 'migration', 'move', 'restore'))),
        option('tag-style', kind=PropertyString, keys={
            'case-sensitive': Flag('case-sensitive'),
            'color-map': Text('color-map', pattern=r'%s(?:;%s)*' % (COLOR_OVERRIDE, COLOR_OVERRIDE)),
            'ordering': OneOf('ordering', choices=['config', 'alphabetical']),
            'shape': OneOf('shape', choices=['full', 'circle', 'dense', 'none'])}),
        option('user-tag-access', kind=PropertyString, keys={
            'user-allow': OneOf('user-allow', choices=['none', 'list', 'existing', 'free']),
            'user-allow-list': Text('user-allow-list', pattern=r'%s(?:;%s)*' % (TAG, TAG))}),
        option('registered-tags', kind=TagList, pattern=r'(?:%s;)*%s' % (TAG, TAG)),
        option('webauthn', kind=PropertyString, keys={
            'allow-subdomains': Flag('allow-subdomains'), 'id': Text('id'), 'origin': Text('origin'),
            'rp': Text('rp')}),
    ],
    item='/cluster/options',
    singleton=True,
    schema=('PUT', '/cluster/options'),
    view=as_read,
)
