# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SDN fabric family (PVE 9): a fabric of the staged sdn/fabrics.cfg, /cluster/sdn/fabrics/fabric/{id}.

A fabric is an openfabric or ospf routing domain between nodes (their addresses from the fabric's prefix); its
nodes are ``sdn_fabric_node``. A write is staged; nothing is live until ``sdn_apply``. PVE keeps the prefixes
canonical (no host bits) and cannot delete them (the PUT's ``delete`` takes only hello_interval and
csnp_interval), so they are compared when declared; the intervals mean PVE's default when undeclared and are
cleared with ``delete=``. Every PUT needs the protocol (proxmox-ve-rs FabricUpdater is tagged by it).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Integer, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import ABSENT, Absence, Lifecycle, Where
from ansible_collections.homeflare.proxmox.plugins.module_utils.staging import Staged, StagedStore

FABRICS = '/cluster/sdn/fabrics/fabric'
FABRIC = '/cluster/sdn/fabrics/fabric/{id}'
ALL = '/cluster/sdn/fabrics/all'
# Each protocol's own options (pve-network PVE/Network/SDN/Fabrics.pm fabric_properties' instance-types).
PROTOCOL_OPTIONS = {'openfabric': ('hello_interval', 'csnp_interval'), 'ospf': ('area',)}


def pending_row(rows, wanted):
    """The row of a pending view (GET /cluster/sdn/fabrics/all?pending=1) whose keys match ``wanted``: PVE's
    pending_config puts a new object's keys, its id among them, under ``pending``."""
    for row in rows or []:
        keys = dict(row.get('pending') or {}, **dict((key, value) for key, value in row.items() if key != 'pending'))
        if all(keys.get(key) == value for key, value in wanted.items()):
            return row
    return ABSENT


def staged_fabrics(client, role):
    """The fabric ids of the staged fabrics.cfg (what a node's write is checked against)."""
    return set(row.get('id') for row in client.get(FABRICS, role=role) or [])


class FabricStore(StagedStore):
    def read_pending(self, client, family, ident):
        rows = (client.get(ALL, params=dict(pending=1), role=family.read_role) or {}).get('fabrics')
        return pending_row(rows, dict(id=ident['id']))


class Prefix(Text):
    """A fabric's node prefix as PVE keeps it: the network, compressed (FabricConfig::add_fabric canonicalises);
    one with host bits is refused, since it would never read back as declared."""

    def __init__(self, wire, version, **kwargs):
        super(Prefix, self).__init__(wire, format='CIDR', **kwargs)
        self.version = version

    def declared(self, value):
        # the text as written: canonical() already drops host bits, which must be refused here
        text = '' if value is None else str(value).strip()
        if text:
            self.check_text(text)
        network = ipaddress.ip_network(text, strict=False)
        if network.version != self.version:
            self.refuse(text, 'is not an IPv%d network' % self.version)
        if network.compressed != ipaddress.ip_interface(text).with_prefixlen:
            self.refuse(text, 'has host bits set; declare the network, %s' % network.compressed)
        return network.compressed

    def canonical(self, value):
        text = super(Prefix, self).canonical(value)
        try:
            return ipaddress.ip_network(text, strict=False).compressed if text else text
        except ValueError:
            return text


def area_text(value):
    """proxmox-sdn-types Area: an IPv4 address or a 32-bit number, kept as written."""
    text = str(value).strip()
    try:
        return str(ipaddress.IPv4Address(text))
    except ValueError:
        pass
    if text.isdigit() and int(text) < 2 ** 32:
        return str(int(text))
    return text


def valid_area(text):
    try:
        ipaddress.IPv4Address(text)
        return True
    except ValueError:
        return text.isdigit() and int(text) < 2 ** 32


class FabricFamily(Staged):
    def check_declaration(self, declaration):
        values = declaration.values
        if declaration.state != 'present':
            return
        protocol = values.get('protocol')
        if not protocol:
            raise DeclarationError('option protocol is required with state=present (openfabric or ospf)')
        foreign = sorted(option for options in PROTOCOL_OPTIONS.values() for option in options
                         if option not in PROTOCOL_OPTIONS[protocol] and values.get(option) is not None)
        if foreign:
            raise DeclarationError('option %s: a %s fabric does not take %s' % (foreign[0], protocol,
                                                                                ', '.join(foreign)))
        # proxmox-ve-config section_config/protocol/{openfabric,ospf}.rs validate
        if protocol == 'ospf':
            if not values.get('area'):
                raise DeclarationError('option area is required for an ospf fabric')
            if not values.get('ip_prefix'):
                raise DeclarationError('option ip_prefix is required for an ospf fabric (its node addresses)')
            if values.get('ip6_prefix'):
                raise DeclarationError('option ip6_prefix: an ospf fabric is IPv4 only (PVE: IPv6 is currently not '
                                       'supported for protocol ospf)')
        elif not values.get('ip_prefix') and not values.get('ip6_prefix'):
            raise DeclarationError('option ip_prefix or ip6_prefix is required for an openfabric fabric (its node '
                                   'addresses)')
        if values.get('area') and not valid_area(values['area']):
            raise DeclarationError('option area: %r is neither a number (0 to 4294967295) nor an IPv4 address '
                                   '(proxmox-sdn-types Area)' % values['area'])


def interval(wire):
    """An openfabric interval: PVE's default (no key) when undeclared, a hand-set value cleared with delete=."""
    field = Integer(wire, clear='delete', minimum=1, maximum=600)
    field.default = field.unset
    return field


FAMILY = FabricFamily(
    'sdn_fabric', 'sdn_fabric',
    identity=[Text('id', required=True, format='pve-sdn-fabric-id')],
    fields=[
        # The PUT needs it too (the updater is tagged by protocol); a fabric is never re-typed.
        Text('protocol', create_only=True, always_send=True, choices=['openfabric', 'ospf']),
        Prefix('ip_prefix', 4),
        Prefix('ip6_prefix', 6),
        interval('hello_interval'),
        interval('csnp_interval'),
        Text('area', normalise=area_text),
    ],
    where=Where(collection=FABRICS, item=FABRIC, absence=Absence((500,), r"^fabric '.*' does not exist"),
                store=FabricStore()),
    # A write carries the digest of fabrics.cfg: another writer's edit of the file is refused, then re-judged.
    lifecycle=Lifecycle(send_digest=True),
)
