# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pool family: /pools?poolid= (PVE 8.1+; /pools/{poolid} cannot name a nested pool such as lab/web)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text, perl_true_text
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, Family, Listing, QueryStore, Where)


class PoolFamily(Family):
    def check_create(self, declaration):
        """pve-manager PVE/API2/Pool.pm ``create_pool``: every level's name starts with a letter (a nested pool's
        parents met the same rule when they were made)."""
        poolid = declaration.ident['poolid']
        if not all(name[:1].isalpha() for name in poolid.split('/')):
            raise DeclarationError("option poolid: pool '%s': pool name must start with a letter" % poolid)

    def report(self, raw):
        return {'members': len(raw.get('members') or [])}


FAMILY = PoolFamily(
    'pool', 'pool',
    identity=[Text('poolid', required=True, format='pve-poolid')],
    fields=[Text('comment', default='', normalise=perl_true_text)],  # user.cfg: '0' is never written
    where=Where(collection='/pools', store=QueryStore(), listing=Listing('/pools'),
                # PVE answers a missing pool with 500 "pool 'x' does not exist" (some versions 404).
                absence=Absence((404, 500), r'does not exist')),
)
