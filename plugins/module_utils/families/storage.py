# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The storage family: sections of storage.cfg, /storage/{storage}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    Flag, Integer, PRUNE_BACKUPS, PropertyString, Text, TokenSet, clearable, prune_backups_rule)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, Family, Lifecycle, Listing, Where)
from ansible_collections.homeflare.proxmox.plugins.module_utils.type_rules import TypeRules

# What each plugin of pve-storage 9 takes (PVE/Storage/<Type>Plugin.pm: options() and plugindata()), in wire
# names: the options it accepts, those a create needs (less the path PVE defaults to /mnt/pve/<id> for nfs,
# cifs and cephfs), the content it can hold. Kept in step with the simulator's port by
# tests/unit/test_storage_types_table.py.
_FILE_STORE = ['content', 'create-base-path', 'create-subdirs', 'disable', 'format', 'max-protected-backups', 'nodes',
               'prune-backups']
_FILE_CONTENT = ['images', 'rootdir', 'vztmpl', 'iso', 'backup', 'snippets', 'import']
_BLOCK = ['content', 'disable', 'nodes']
PLUGINS = {
    'btrfs': dict(options=_FILE_STORE + ['is_mountpoint', 'nocow', 'path', 'preallocation', 'shared'],
                  required=['path'], content=_FILE_CONTENT),
    'cephfs': dict(options=_FILE_STORE + ['fs-name', 'fuse', 'keyring', 'monhost', 'options', 'path', 'subdir',
                                          'username'],
                   required=[], content=['vztmpl', 'iso', 'backup', 'snippets', 'import']),
    'cifs': dict(options=_FILE_STORE + ['domain', 'options', 'password', 'path', 'preallocation', 'server', 'share',
                                        'smbversion', 'snapshot-as-volume-chain', 'subdir', 'username'],
                 required=['server', 'share'], content=_FILE_CONTENT),
    'dir': dict(options=_FILE_STORE + ['is_mountpoint', 'path', 'preallocation', 'shared', 'snapshot-as-volume-chain'],
                required=['path'], content=_FILE_CONTENT),
    'esxi': dict(options=_BLOCK + ['password', 'port', 'server', 'shared', 'skip-cert-verification', 'username'],
                 required=['server', 'username'], content=['import'], create_needs=['password']),
    'iscsi': dict(options=_BLOCK + ['portal', 'target'], required=['portal', 'target'], content=['images']),
    'iscsidirect': dict(options=_BLOCK + ['portal', 'target'], required=['portal', 'target'], content=['images']),
    'lvm': dict(options=_BLOCK + ['base', 'saferemove', 'shared', 'snapshot-as-volume-chain', 'tagged_only',
                                  'vgname'],
                required=['vgname'], content=['images', 'rootdir']),
    'lvmthin': dict(options=_BLOCK + ['thinpool', 'vgname'], required=['thinpool', 'vgname'],
                    content=['images', 'rootdir']),
    'nfs': dict(options=_FILE_STORE + ['export', 'options', 'path', 'preallocation', 'server',
                                       'snapshot-as-volume-chain'],
                required=['export', 'server'], content=_FILE_CONTENT),
    'pbs': dict(options=['content', 'datastore', 'disable', 'encryption-key', 'fingerprint', 'master-pubkey',
                         'max-protected-backups', 'namespace', 'nodes', 'password', 'port', 'prune-backups', 'server',
                         'username'],
                required=['datastore', 'server'], content=['backup']),
    'rbd': dict(options=_BLOCK + ['data-pool', 'keyring', 'krbd', 'monhost', 'namespace', 'pool', 'username'],
                required=[], content=['images', 'rootdir']),
    'zfs': dict(options=_BLOCK + ['blocksize', 'comstar_hg', 'comstar_tg', 'iscsiprovider', 'lio_tpg', 'nowritecache',
                                  'pool', 'portal', 'sparse', 'target', 'zfs-base-path'],
                required=['blocksize', 'iscsiprovider', 'pool', 'portal', 'target'], content=['images']),
    'zfspool': dict(options=_BLOCK + ['blocksize', 'mountpoint', 'pool', 'sparse'], required=['pool'],
                    content=['images', 'rootdir']),
}
TYPES = sorted(PLUGINS)


STORAGE_TYPES = TypeRules('storage', PLUGINS)


class StorageFamily(Family):
    def check_declaration(self, declaration):
        """Content the type cannot hold (PVE drops it silently); the type's options are STORAGE_TYPES' rules."""
        if declaration.state != 'present':
            return
        declared = declaration.values
        plugin = PLUGINS[declared['type']]
        unsupported = [item for item in declared.get('content') or [] if item not in plugin['content']]
        if unsupported:
            raise DeclarationError('option content: a %s storage cannot hold %s (it holds %s)' % (
                declared['type'], ', '.join(unsupported), ', '.join(plugin['content'])))

    def check_create(self, declaration):
        """What the plugin's add hook insists on (ESXi: the password), only known to matter once the storage is
        absent."""
        missing = [wire.replace('-', '_') for wire in PLUGINS[declaration.values['type']].get('create_needs', [])
                   if not declaration.values.get(wire.replace('-', '_'))]
        if missing:
            raise DeclarationError('option %s is required to create a %s storage' % (
                missing[0], declaration.values['type']))

    def is_builtin(self, ident, raw):
        # the directory storage every installation has
        return ident['storage'] == 'local'


# Where the storage is (path, server, pool, ...), with the format PVE's schema gives each: set on create, a change
# is refused (PVE's fixed options).
LOCATION = [('path', 'pve-storage-path'), ('server', 'pve-storage-server'), ('export', 'pve-storage-path'),
            ('share', None), ('datastore', None), ('pool', None), ('vgname', 'pve-storage-vgname'),
            ('thinpool', 'pve-storage-vgname'), ('portal', 'pve-storage-portal-dns'), ('target', None),
            ('iscsiprovider', None), ('blocksize', None), ('base', 'pve-volume-id')]
# The storage.cfg flags, undeclared unmanaged, declared false cleared (delete=).
FLAGS = ['disable', 'shared', 'krbd', 'sparse', 'nowritecache', 'saferemove', 'tagged_only', 'nocow', 'fuse',
         'skip-cert-verification', 'snapshot-as-volume-chain']

FAMILY = StorageFamily(
    'storage', 'storage',
    identity=[Text('storage', required=True, format='pve-storage-id')],
    fields=[Text('type', create_only=True, choices=TYPES)] + [
        Text(wire, create_only=True, format=rule) for wire, rule in LOCATION] + [
        TokenSet('content', empty_token='none', format='pve-storage-content'),
        TokenSet('nodes', clear='delete', format='pve-node'),
        clearable('monhost', format='pve-storage-portal-dns-list'),
        clearable('subdir', format='pve-storage-path'),
        clearable('namespace'),
        clearable('data-pool'),
        clearable('fs-name', format='pve-configid'),
        clearable('mountpoint', format='pve-storage-path'),
        clearable('zfs-base-path', format='pve-storage-path'),
        clearable('is_mountpoint'),
        clearable('domain', max_length=256),
        clearable('smbversion', choices=['default', '2.0', '2.1', '3', '3.0', '3.11']),
        clearable('format', choices=['raw', 'qcow2', 'subvol', 'vmdk']),
        clearable('preallocation', choices=['off', 'metadata', 'falloc', 'full']),
        clearable('username'),
        clearable('fingerprint', pattern=r'([A-Fa-f0-9]{2}:){31}[A-Fa-f0-9]{2}'),
        clearable('options', format='pve-storage-options'),
        clearable('comstar_hg'),
        clearable('comstar_tg'),
        clearable('lio_tpg'),
        clearable('port', Integer, minimum=1, maximum=65535),
        clearable('max-protected-backups', Integer, minimum=-1),
        clearable('prune-backups', PropertyString, keys=PRUNE_BACKUPS, rule=prune_backups_rule),
    ] + [clearable(wire, Flag) for wire in FLAGS] + [
        # PVE creates the base path and its subdirectories unless told not to.
        clearable('create-base-path', Flag, absent_means=True),
        clearable('create-subdirs', Flag, absent_means=True),
        # Stored apart from storage.cfg (/etc/pve/priv): sent on create, never read back.
        Text('password', secret=True, max_length=256),
        Text('keyring', secret=True),
        Text('encryption-key', secret=True),
        Text('master-pubkey', secret=True),
    ],
    where=Where(collection='/storage', item='/storage/{storage}', listing=Listing('/storage'),
                absence=Absence((404, 500), r'does not exist'), read_role='provision'),
    # storage.cfg's digest: a storage edited by someone else between read and write is not overwritten.
    lifecycle=Lifecycle(retain=True, send_digest=True),
    type_rules=STORAGE_TYPES,
)
