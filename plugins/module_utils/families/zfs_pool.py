# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ZFS pool family: /nodes/{node}/disks/zfs/{name} (pve-storage PVE/API2/Disks/ZFS.pm).

Create only. There is no PUT, and no read returns what the pool was created with, so nothing is compared:
a comparison could only ever plan ``zpool destroy``. What the read does show (the vdev layout and the leaf
devices) is checked against a declaration and reported as a warning, never written."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Integer, PropertyString, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, ConfirmedAbsenceStore, Family, Lifecycle, Where)

RAID_LEVELS = ['single', 'mirror', 'raid10', 'raidz', 'raidz2', 'raidz3', 'draid', 'draid2', 'draid3']
# A top-level vdev's name in `zpool status` (mirror-0, raidz2-0, draid1:2d:4c:0s-0); a bare disk is a stripe.
VDEV = re.compile(r'(mirror|raidz[123]?|draid[123]?)(?::[^-]*)?-\d+$')
PARTITION = re.compile(r'-part\d+$')


class DeviceList(Text):
    """The pool's devices, in the declared order (raid10 pairs them consecutively: never sorted)."""

    ansible_type = 'list'
    elements = 'str'
    unset = []

    def canonical(self, value):
        if isinstance(value, (list, tuple)):
            return [str(item).strip() for item in value if str(item).strip()]
        return [item for item in re.split(r'[\s,;]+', str(value or '')) if item]

    def declared(self, value):
        devices = self.canonical(value)
        for device in devices:
            if not device.startswith('/dev/'):
                self.refuse(device, 'is not a block device path (/dev/disk/by-id/... is stable across reboots)')
        if len(set(devices)) != len(devices):
            self.refuse(devices, 'names a device twice')
        return devices

    def encode(self, value):
        return ','.join(value)


def layout(raw):
    """(raid level as PVE names it, leaf devices) of a pool read: ``zpool status -P`` as a tree whose first
    entry is the pool itself (logs, cache and spares are its siblings)."""
    top = raw.get('children') or []
    vdevs = (top[0].get('children') or []) if top else []
    kinds = [VDEV.match(str(vdev.get('name', ''))) for vdev in vdevs]
    leaves = []
    for vdev, kind in zip(vdevs, kinds):
        if kind:
            leaves.extend(leaf.get('name') for leaf in vdev.get('children') or [])
        else:
            leaves.append(vdev.get('name'))
    names = set(kind.group(1) for kind in kinds if kind)
    if not names:
        level = 'single'
    elif names == {'mirror'}:
        level = 'raid10' if len(vdevs) > 1 else 'mirror'
    else:
        level = names.pop().replace('raidz1', 'raidz').replace('draid1', 'draid')
    return level, [PARTITION.sub('', str(leaf)) for leaf in leaves]


class ZfsPoolFamily(Family):
    def check_declaration(self, declaration):
        declared = declaration.values
        if declaration.state == 'absent':
            raise DeclarationError(
                "option state: a ZFS pool is never removed by this collection: the only way is `zpool destroy`, which "
                "loses every dataset on it. Remove it from the declaration to stop managing it, and destroy it by "
                "hand (or with PVE's Disks > ZFS > Destroy) if that is really meant")
        if declared.get('draid_config') and not str(declared.get('raidlevel', '')).startswith('draid'):
            raise DeclarationError('option draid_config only applies to the raidlevels draid, draid2 and draid3')

    def check_create(self, declaration):
        for option in ('raidlevel', 'devices'):
            if not declaration.values.get(option):
                raise DeclarationError('option %s is required to create a ZFS pool' % option)

    def report(self, raw):
        return dict(pool_state=raw.get('state'), errors=raw.get('errors'), devices=layout(raw)[1])

    def advise(self, declaration, raw):
        """What the read shows that differs from the declaration, as warnings: a pool is never rebuilt to match."""
        level, devices = layout(raw)
        warnings = []
        what = "ZFS pool '%s' on %s" % (declaration.ident['name'], declaration.ident['node'])
        declared_level = declaration.values.get('raidlevel')
        if declared_level and declared_level != level:
            warnings.append('%s is %s but the task declares %s; a pool is never rebuilt, so nothing was written'
                            % (what, level, declared_level))
        declared = declaration.values.get('devices') or []
        by_id = [device for device in declared if device.startswith('/dev/disk/')]
        if by_id and by_id == declared and by_id != devices:
            warnings.append('%s is on %s but the task declares %s; nothing was written'
                            % (what, ', '.join(devices), ', '.join(declared)))
        return warnings


FAMILY = ZfsPoolFamily(
    'zfs_pool', 'zfs pool',
    identity=[Text('node', required=True, format='pve-node'),
              Text('name', required=True, format='pve-storage-id')],
    fields=[
        # All create parameters: no read returns them, so they are never compared or written again.
        Text('raidlevel', choices=RAID_LEVELS, create_param=True),
        DeviceList('devices', format='string', create_param=True),
        Integer('ashift', minimum=9, maximum=16, create_param=True),
        Text('compression', choices=['on', 'off', 'gzip', 'lz4', 'lzjb', 'zle', 'zstd'], create_param=True),
        PropertyString('draid-config', keys=dict(data=Integer('data', minimum=1), spares=Integer('spares', minimum=0)),
                       create_param=True),
    ],
    where=Where(collection='/nodes/{node}/disks/zfs', item='/nodes/{node}/disks/zfs/{name}',
                # `zpool status -P <name>` failing is how a missing pool answers; the node's pool list confirms it.
                absence=Absence((500,), r"zpool status .* failed: exit code 1"), store=ConfirmedAbsenceStore('name')),
    lifecycle=Lifecycle(task_timeout=300),
)
