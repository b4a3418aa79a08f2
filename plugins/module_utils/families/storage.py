# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The storage family: sections of storage.cfg, /storage/{storage}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    Flag, Integer, PropertyString, Text, TokenSet)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family, Listing

TYPES = ['btrfs', 'cephfs', 'cifs', 'dir', 'esxi', 'iscsi', 'iscsidirect', 'lvm', 'lvmthin', 'nfs', 'pbs', 'rbd',
         'zfs', 'zfspool']
CONTENT = ['images', 'rootdir', 'vztmpl', 'backup', 'iso', 'snippets', 'import']
LOCATORS = ['path', 'server', 'export', 'share', 'datastore', 'pool', 'monhost', 'vgname', 'thinpool']


def require_type(ident, declared, state):
    if state == 'present' and not declared.get('type'):
        raise DeclarationError('option type is required with state=present (one of %s)' % ', '.join(TYPES))


FAMILY = Family(
    name='storage',
    identity=[Text('storage', required=True, pattern=r'^[A-Za-z][A-Za-z0-9\-_.]*[A-Za-z0-9]$')],
    fields=[Text('type', create_only=True, choices=TYPES)]
    + [Text(name, create_only=True) for name in LOCATORS]
    + [
        TokenSet('content', empty_token='none', choices=CONTENT),
        TokenSet('nodes', clear='delete'),
        Flag('disable', clear='delete'),
        Flag('shared', clear='delete'),
        Text('preallocation', choices=['off', 'metadata', 'falloc', 'full'], clear='delete'),
        PropertyString('prune-backups', clear='delete'),
        Text('username', clear='delete'),
        Text('fingerprint', clear='delete'),
        Text('options', clear='delete'),
        Integer('max-protected-backups', minimum=-1, clear='delete'),
        Text('password', secret=True),
        Text('keyring', secret=True),
        Text('encryption-key', secret=True),
    ],
    collection='/storage',
    item='/storage/{storage}',
    listing=Listing('/storage'),
    absence=Absence((404, 500), r'does not exist'),
    read_role='provision',
    retain=True,
    # storage.cfg's digest: a storage edited by someone else between read and write is not overwritten.
    send_digest=True,
    check_declaration=require_type,
)
