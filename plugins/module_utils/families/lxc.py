# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An LXC container: POST /nodes/{node}/lxc from an ``ostemplate``; judged and written through guest.Guest.

The option table follows ``POST /nodes/{node}/lxc`` of pve-container 6 (PVE 9). Config keys are
compared when declared (undeclared is unmanaged); ``ostemplate``, ``storage``, ``pool``, ``password``
and ``ssh-public-keys`` go with the create only (PVE keeps none of them readable); ``unprivileged``
and ``arch`` cannot change in place. ``nameserver`` and ``searchdomain`` are word lists, kept by PVE joined by
spaces (LXC.pm verify_nameserver_list / verify_searchdomain_list) and compared in order.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    CommentText, Disk, Flag, Integer, Nic, Number, PropertyString, Text, TokenSet, WordList, pct_comment)
from ansible_collections.homeflare.proxmox.plugins.module_utils.guest import Guest, GuestInfo, check_template_ostype

# How many netN and mpN options the module offers (PVE allows 32 and 256).
NICS = 8
MOUNT_POINTS = 8

NET_KEYS = dict([(key, Text(key)) for key in ('bridge', 'gw', 'gw6', 'hwaddr', 'ip', 'ip6', 'name', 'trunks', 'type')] +
                [(key, Flag(key)) for key in ('firewall', 'host-managed', 'link_down')] +
                [('mtu', Integer('mtu', minimum=64, maximum=65535)), ('tag', Integer('tag', minimum=1, maximum=4094)),
                 ('rate', Number('rate'))])
ROOTFS_KEYS = dict([(key, Flag(key)) for key in ('acl', 'quota', 'replicate', 'ro', 'shared')] +
                   [(key, Text(key)) for key in ('mountoptions', 'size', 'volume')])
MP_KEYS = dict(ROOTFS_KEYS, mp=Text('mp'), backup=Flag('backup'), keepattrs=Flag('keepattrs'))
FEATURES = dict([(key, Flag(key)) for key in ('force_rw_sys', 'fuse', 'keyctl', 'mknod', 'nesting')] +
                [('mount', Text('mount'))])


def needs_name(pairs):
    return None if pairs.get('name') else 'needs name=<the interface name inside the container>'


class ContainerFamily(Guest):
    def check_create(self, declaration):
        if not declaration.values.get('ostemplate') and not declaration.values.get('restore_from'):
            raise Refused('%s does not exist, and creating it needs ostemplate (the container template volume, such '
                          'as local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst) or restore_from (a backup '
                          'volume)' % self.describe(declaration.ident))

    def check_template(self, declaration, raw):
        check_template_ostype(self, declaration, raw)


FIELDS = [
    Text('hostname', format='dns-name', max_length=255, clear='delete'),
    Text('ostemplate', max_length=255, create_param=True),
    # a backup volume the absent guest is created from instead (restore); never read or compared
    Text('restore_from', format='pve-volume-id', create_param=True, schema_key=None),
    Text('storage', format='pve-storage-id', create_param=True),
    # membership, compared when declared ('' = in no pool) and written by PUT /pools, not by the config write
    Text('pool', format='pve-poolid', clear='empty'),
    Text('password', min_length=5, secret=True),
    Text('ssh-public-keys', create_param=True),
    Flag('unprivileged', create_only=True),
    Text('arch', choices=['amd64', 'i386', 'arm64', 'armhf', 'riscv32', 'riscv64'], create_only=True),
    Text('ostype', choices=['debian', 'devuan', 'ubuntu', 'centos', 'fedora', 'opensuse', 'archlinux', 'alpine',
                            'gentoo', 'nixos', 'unmanaged'], clear='delete'),
    Integer('cores', minimum=1, maximum=8192, clear='delete'),
    Number('cpulimit', minimum=0, maximum=8192, clear='delete'),
    Integer('cpuunits', minimum=0, maximum=500000, clear='delete'),
    Integer('memory', minimum=16, clear='delete'),
    Integer('swap', minimum=0, clear='delete'),
    Flag('onboot', clear='delete'),
    Flag('protection', clear='delete'),
    Flag('console', absent_means=True, clear='delete'),
    Integer('tty', minimum=0, maximum=6, clear='delete'),
    Text('cmode', choices=['shell', 'console', 'tty'], clear='delete'),
    Text('startup', format='pve-startup-order', clear='delete'),
    WordList('nameserver', format='lxc-ip-with-ll-iface', clear='delete'),
    WordList('searchdomain', format='dns-name', clear='delete'),
    TokenSet('tags', separator=';', format='pve-tag', clear='delete'),
    CommentText('description', read_back=pct_comment, max_length=8192, clear='delete'),
    PropertyString('features', keys=FEATURES, clear='delete'),
    Flag('template', absent_means=False),
    Disk('rootfs', 'volume', tool='pct', keys=ROOTFS_KEYS),
] + [Disk('mp%d' % index, 'volume', mount='mp', tool='pct', keys=MP_KEYS, schema_key='mp[n]')
     for index in range(MOUNT_POINTS)] + [
    Nic('net%d' % index, 'hwaddr', implied={'type': 'veth'}, keys=NET_KEYS, rule=needs_name, schema_key='net[n]',
        clear='delete') for index in range(NICS)]

FAMILY = ContainerFamily('lxc', 'lxc', 'lxc', 'CT', 'hostname', FIELDS)

INFO = GuestInfo(FAMILY)
