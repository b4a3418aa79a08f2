# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hardware mapping family: cluster-wide PCI, USB and directory mappings, /cluster/mapping/{type}/{id}
(pve-manager PVE/API2/Cluster/Mapping/{PCI,USB,Dir}.pm; entry formats in pve-guest-common
src/PVE/Mapping/{PCI,USB,Dir}.pm ``$map_fmt``)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import ArrayParameter, Flag, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, Family, Lifecycle, Where)

VENDOR_DEVICE = r'[0-9A-Fa-f]{4}:[0-9A-Fa-f]{4}'
PCI_ADDRESS = r'(?:[a-fA-F0-9]{4,}:)?[a-fA-F0-9]{2}:[a-fA-F0-9]{2}(?:\.[a-fA-F0-9])?'
NODE = r'[a-zA-Z0-9](?:[a-zA-Z0-9\-]*[a-zA-Z0-9])?'
# each type's entry keys: key -> (required, pattern); node is every format's (PVE::Mapping::* $map_fmt)
ENTRY_KEYS = {
    'pci': {'node': (True, NODE), 'id': (True, VENDOR_DEVICE), 'subsystem-id': (False, VENDOR_DEVICE),
            'path': (True, r'(?:%s;)*%s' % (PCI_ADDRESS, PCI_ADDRESS)), 'iommugroup': (False, r'\d+'),
            'description': (False, r'[^,]*')},
    'usb': {'node': (True, NODE), 'id': (True, VENDOR_DEVICE), 'path': (False, r'\d+-\d+(?:\.\d+)*'),
            'description': (False, r'[^,]*')},
    'dir': {'node': (True, NODE), 'path': (True, r'/[^,]*')},
}
TYPES = sorted(ENTRY_KEYS)
PCI_ONLY = ('mdev', 'live-migration-capable')


def entry_pairs(text):
    pairs = [part.split('=', 1) if '=' in part else [part, None] for part in str(text).split(',') if part.strip()]
    return [(key.strip(), None if value is None else value.strip()) for key, value in pairs]


def normal_entry(text):
    """An entry as compared: its keys sorted, hex ids in lower case (PVE matches them case-free)."""
    pairs = entry_pairs(text)
    return ','.join(sorted('%s=%s' % (key, value.lower() if key in ('id', 'subsystem-id') else value)
                           for key, value in pairs if value is not None))


def entry_problem(typ, text):
    """Why one declared entry is not a valid ``typ`` map entry, or None."""
    keys = ENTRY_KEYS[typ]
    pairs = entry_pairs(text)
    seen = set()
    for key, value in pairs:
        if value is None:
            return 'has %r, which is not a key=value pair' % key
        if key not in keys:
            return 'has the key %r, which a %s mapping entry does not take (it takes %s)' % (
                key, typ, ', '.join(sorted(keys)))
        if key in seen:
            return 'names the key %r twice' % key
        seen.add(key)
        if not re.fullmatch(keys[key][1], value):
            return 'has %s=%s, which does not match %s' % (key, value, keys[key][1])
    missing = [key for key in sorted(keys) if keys[key][0] and key not in seen]
    if missing:
        return 'lacks the key %s, which a %s mapping entry needs' % (missing[0], typ)
    return None


class HardwareMappingFamily(Family):
    def check_declaration(self, declaration):
        """Each entry against its type's format, and the pci-only flags, before any request."""
        if declaration.state != 'present':
            return
        typ = declaration.ident['type']
        declared = declaration.values
        for wire in PCI_ONLY:
            option = wire.replace('-', '_')
            if typ != 'pci' and declared.get(option) is not None:
                raise DeclarationError('option %s: a %s mapping does not take it (only a pci mapping does)'
                                       % (option, typ))
        entries = declared.get('map')
        if entries is None:
            raise DeclarationError('option map is required with state=present (PVE wants it on create)')
        for entry in entries:
            why = entry_problem(typ, entry)
            if why:
                raise DeclarationError('option map: %r %s' % (entry, why))


FAMILY = HardwareMappingFamily(
    'hardware_mapping', 'hardware mapping',
    identity=[Text('type', required=True, choices=TYPES, schema_key=None),
              Text('id', required=True, format='pve-configid')],
    fields=[
        Text('description', clear='delete', max_length=4096),
        # Compared as a set of entries, each key by key; sent whole on every update (USB's PUT requires it).
        ArrayParameter('map', each=normal_entry, always_send=True),
        Flag('mdev', clear='delete', absent_means=False),
        Flag('live-migration-capable', clear='delete', absent_means=False),
    ],
    where=Where(collection='/cluster/mapping/{type}', item='/cluster/mapping/{type}/{id}',
                # no listing: an export lists each type's collection (the type's choices) and reads each mapping
                absence=Absence((500,), r'not found'), schema=('POST', '/cluster/mapping/pci')),
    # each type's file has a digest: an edit by someone else between read and write is not overwritten
    lifecycle=Lifecycle(send_digest=True),
)
