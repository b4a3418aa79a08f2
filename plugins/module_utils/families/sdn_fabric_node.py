# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SDN fabric node family (PVE 9): one node of a fabric, /cluster/sdn/fabrics/node/{fabric_id}/{node_id}.

A node takes its fabric's protocol (PVE refuses another), so the module never asks for it: the store reads the
fabric on create and sends the live node's on update. Its addresses and interfaces mean "none" when undeclared,
and a hand-made one is cleared with ``delete=`` (PVE's NodeDeletableProperties: ip, ip6, interfaces). The fabric
must exist in the staged configuration, or be declared in the same ``declare``, before any request.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import MissingReference
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import ArrayParameter, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_fabric import (
    ALL, FABRIC, pending_row, staged_fabrics)
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import why_not
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Lifecycle, Where, absent
from ansible_collections.homeflare.proxmox.plugins.module_utils.staging import Staged, StagedStore

NODES = '/cluster/sdn/fabrics/node/{fabric_id}'
NODE = '/cluster/sdn/fabrics/node/{fabric_id}/{node_id}'
# An interface's keys as PVE serializes the property string (the Rust struct's field order); ospf takes the
# first and the third only (OspfInterfaceProperties).
INTERFACE_KEYS = ('name', 'hello_multiplier', 'ip', 'ip6')


def interface_pairs(item):
    if isinstance(item, dict):
        return dict((str(key), '' if value is None else str(value).strip()) for key, value in item.items())
    return dict(part.strip().split('=', 1) for part in str(item).split(',') if '=' in part)


def interface_text(item):
    """One interface as PVE reads it back: name=…[,hello_multiplier=…][,ip=…][,ip6=…], addresses compressed."""
    pairs = interface_pairs(item)
    out = []
    for key in INTERFACE_KEYS:
        value = pairs.get(key)
        if value in (None, ''):
            continue
        if key in ('ip', 'ip6'):
            try:
                value = ipaddress.ip_interface(value).with_prefixlen
            except ValueError:
                pass
        out.append('%s=%s' % (key, value))
    return ','.join(out)


def interface_problem(item):
    """Why PVE's interface format (node_properties' oneOf variants) refuses one, or None."""
    pairs = interface_pairs(item)
    unknown = sorted(set(pairs) - set(INTERFACE_KEYS))
    if unknown:
        return 'has %s, which an interface does not take (it takes %s)' % (', '.join(unknown), ', '.join(
            INTERFACE_KEYS))
    if not pairs.get('name') or why_not('pve-iface', pairs['name']):
        return 'needs name=<interface>, a network interface name such as ens19'
    multiplier = pairs.get('hello_multiplier')
    if multiplier and (not multiplier.isdigit() or not 2 <= int(multiplier) <= 100):
        return 'needs hello_multiplier as a whole number from 2 to 100'
    for key, fmt in (('ip', 'CIDRv4'), ('ip6', 'CIDRv6')):
        if pairs.get(key) and why_not(fmt, pairs[key]):
            return 'needs %s as an address with its prefix length (%s)' % (
                key, '10.0.1.1/31' if key == 'ip' else 'fd00:1::1/127')
    return None


class Interfaces(ArrayParameter):
    """The node's fabric interfaces, an order-free set of property strings (or mappings with the same keys)."""

    elements = 'raw'

    def __init__(self, wire, **kwargs):
        super(Interfaces, self).__init__(wire, each=interface_text, valid=None, **kwargs)

    def canonical(self, value):
        values = value if isinstance(value, (list, tuple)) else [value]
        return sorted(set(interface_text(item) for item in values if item not in (None, '')))

    def declared(self, value):
        values = value if isinstance(value, (list, tuple)) else [value]
        for item in values:
            why = interface_problem(item)
            if why:
                self.refuse(item, why)
        return self.canonical(value)


class NodeStore(StagedStore):
    def read_pending(self, client, family, ident):
        rows = (client.get(ALL, params=dict(pending=1), role=family.read_role) or {}).get('nodes')
        return pending_row(rows, dict(fabric_id=ident['fabric'], node_id=ident['node']))

    def create(self, client, family, ident, form):
        fabric = client.get(item_path(FABRIC, dict(id=ident['fabric'])), role=family.read_role) or {}
        form = dict(form, node_id=ident['node'], protocol=fabric.get('protocol'))
        return client.post(item_path(NODES, dict(fabric_id=ident['fabric'])), form, role=family.write_role)

    def update(self, client, family, ident, form, live):
        return client.put(family.path(ident), dict(form, protocol=live.get('protocol')), role=family.write_role)


class FabricNodeFamily(Staged):
    def find_all(self, client):
        """Every fabric's nodes from the staged list of all (GET /cluster/sdn/fabrics/node keys rows by node name
        only, so a node in two fabrics would be one row there)."""
        found = []
        for row in (client.get(ALL, role=self.read_role) or {}).get('nodes') or []:
            ident = dict(fabric=row.get('fabric_id'), node=row.get('node_id'))
            raw = self.store.read(client, self, ident)
            if not absent(raw):
                found.append((ident, raw))
        return found

    def describe(self, ident):
        return "sdn_fabric_node '%s' of fabric '%s'" % (ident['node'], ident['fabric'])

    def check_references(self, declaration, raw, batch, client):
        """The fabric must be in the staged configuration, or declared present in the same ``declare`` (which
        writes fabrics before their nodes)."""
        fabric = declaration.ident['fabric']
        if any(entry.module == 'sdn_fabric' and entry.declaration.ident['id'] == fabric
               and entry.declaration.state != 'absent' for entry in batch):
            return
        if fabric in staged_fabrics(client, self.read_role):
            return
        raise MissingReference("%s: fabric '%s' does not exist (GET /cluster/sdn/fabrics/fabric lists no such "
                               "fabric) and is not declared here. Declare it first (sdn_fabric). Nothing was "
                               "written." % (self.describe(declaration.ident), fabric))


FAMILY = FabricNodeFamily(
    'sdn_fabric_node', 'sdn_fabric_node',
    identity=[
        Text('fabric_id', option='fabric', required=True, format='pve-sdn-fabric-id'),
        Text('node_id', option='node', required=True, format='pve-node'),
    ],
    fields=[
        Text('ip', default='', clear='delete', format='ipv4'),
        Text('ip6', default='', clear='delete', format='ipv6',
             normalise=lambda value: str(ipaddress.ip_address(value)) if value and not why_not('ipv6', value)
             else value),
        Interfaces('interfaces', default=[]),
    ],
    # A node of a missing fabric reads as the fabric's absence: both are "does not exist" (FabricConfigError).
    where=Where(collection=NODES, item=NODE, absence=Absence((500,), r"does not exist in (configuration|fabric)"),
                store=NodeStore()),
    # A write carries the digest of fabrics.cfg: another writer's edit of the file is refused, then re-judged.
    lifecycle=Lifecycle(send_digest=True),
)
