# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The storage family: sections of storage.cfg, /storage/{storage}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    PRUNE_BACKUPS, Flag, Integer, PropertyString, Text, TokenSet, prune_backups_rule)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family, Listing

TYPES = ['btrfs', 'cephfs', 'cifs', 'dir', 'esxi', 'iscsi', 'iscsidirect', 'lvm', 'lvmthin', 'nfs', 'pbs', 'rbd',
         'zfs', 'zfspool']


def require_type(ident, declared, state):
    if state == 'present' and not declared.get('type'):
        raise DeclarationError('option type is required with state=present (one of %s)' % ', '.join(TYPES))


def located(wire, **kwargs):
    """Where the storage is (path, server, pool, ...): set on create, a change is refused (PVE's fixed options)."""
    return Text(wire, create_only=True, **kwargs)


def option(wire, **kwargs):
    """An updatable option; unset on update is delete=, as PVE's SectionConfig clears it."""
    kind = kwargs.pop('kind', Text)
    return kind(wire, clear='delete', **kwargs)


FAMILY = Family(
    name='storage',
    identity=[Text('storage', required=True, format='pve-storage-id')],
    fields=[
        Text('type', create_only=True, choices=TYPES),
        located('path', format='pve-storage-path'),
        located('server', format='pve-storage-server'),
        located('export', format='pve-storage-path'),
        located('share'),
        located('datastore'),
        located('pool'),
        located('vgname', format='pve-storage-vgname'),
        located('thinpool', format='pve-storage-vgname'),
        located('portal', format='pve-storage-portal-dns'),
        located('target'),
        located('iscsiprovider'),
        located('blocksize'),
        located('base', format='pve-volume-id'),
        TokenSet('content', empty_token='none', format='pve-storage-content'),
        TokenSet('nodes', clear='delete', format='pve-node'),
        option('monhost', format='pve-storage-portal-dns-list'),
        option('subdir', format='pve-storage-path'),
        option('namespace'),
        option('data-pool'),
        option('fs-name', format='pve-configid'),
        option('mountpoint', format='pve-storage-path'),
        option('zfs-base-path', format='pve-storage-path'),
        option('is_mountpoint'),
        option('domain', max_length=256),
        option('smbversion', choices=['default', '2.0', '2.1', '3', '3.0', '3.11']),
        option('format', choices=['raw', 'qcow2', 'subvol', 'vmdk']),
        option('preallocation', choices=['off', 'metadata', 'falloc', 'full']),
        option('username'),
        option('fingerprint', pattern=r'([A-Fa-f0-9]{2}:){31}[A-Fa-f0-9]{2}'),
        option('options', format='pve-storage-options'),
        option('comstar_hg'),
        option('comstar_tg'),
        option('lio_tpg'),
        option('port', kind=Integer, minimum=1, maximum=65535),
        option('max-protected-backups', kind=Integer, minimum=-1),
        option('prune-backups', kind=PropertyString, keys=PRUNE_BACKUPS, rule=prune_backups_rule),
        option('disable', kind=Flag),
        option('shared', kind=Flag),
        option('krbd', kind=Flag),
        option('sparse', kind=Flag),
        option('nowritecache', kind=Flag),
        option('saferemove', kind=Flag),
        option('tagged_only', kind=Flag),
        option('nocow', kind=Flag),
        option('fuse', kind=Flag),
        option('skip-cert-verification', kind=Flag),
        option('snapshot-as-volume-chain', kind=Flag),
        # PVE creates the base path and its subdirectories unless told not to.
        option('create-base-path', kind=Flag, absent_means=True),
        option('create-subdirs', kind=Flag, absent_means=True),
        # Stored apart from storage.cfg (/etc/pve/priv): sent on create, never read back.
        Text('password', secret=True, max_length=256),
        Text('keyring', secret=True),
        Text('encryption-key', secret=True),
        Text('master-pubkey', secret=True),
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
