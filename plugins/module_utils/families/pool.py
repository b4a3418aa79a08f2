# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pool family: /pools/{poolid}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family, Listing

FAMILY = Family(
    name='pool',
    identity=[Text('poolid', required=True, format='pve-poolid')],
    fields=[Text('comment', default='')],
    collection='/pools',
    item='/pools/{poolid}',
    listing=Listing('/pools'),
    # PVE answers a missing pool with 500 "pool 'x' does not exist" (some versions 404).
    absence=Absence((404, 500), r'does not exist'),
    report=lambda raw: {'members': len(raw.get('members') or [])},
)
