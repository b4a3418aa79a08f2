# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The user family: /access/users/{userid}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.families.group import GROUPID_PATTERN
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text, TokenSet
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family, Listing


def token_names(raw):
    tokens = raw.get('tokens') or []
    names = tokens.keys() if isinstance(tokens, dict) else [token.get('tokenid') for token in tokens]
    return {'tokens': sorted(name for name in names if name)}


# PVE's pve-userid format (name@realm).
USERID_PATTERN = r'^[^\s:/@]+@[A-Za-z][A-Za-z0-9.\-_]+$'

FAMILY = Family(
    name='user',
    identity=[Text('userid', required=True, pattern=USERID_PATTERN)],
    fields=[
        Text('comment', default=''),
        Text('email', default=''),
        Flag('enable', default=True, absent_means=True),
        Integer('expire', default=0, absent_means=0, minimum=0),
        Text('firstname', default=''),
        Text('lastname', default=''),
        # An empty groups= clears every membership.
        TokenSet('groups', default=[], pattern=GROUPID_PATTERN),
    ],
    collection='/access/users',
    item='/access/users/{userid}',
    # full=1: the rows carry groups (as a string) and tokens.
    listing=Listing('/access/users', params={'full': 1}),
    # A missing user is 500 "no such user ('x@pve')".
    absence=Absence((404, 500), r'no such user|does not exist'),
    report=token_names,
)
