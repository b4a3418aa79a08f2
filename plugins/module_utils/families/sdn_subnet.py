# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SDN subnet family: sections of the staged sdn/subnets.cfg.

A subnet is created with its CIDR (``POST /cluster/sdn/vnets/{vnet}/subnets subnet=10.0.0.0/24``)
but read, changed and removed as ``<zone>-<network>-<mask>`` (``lab-10.0.0.0-24``), the zone being
its vnet's. So the store reads the vnet first. A subnet with that id under another vnet is refused,
never "absent": creating it would fail with "already defined" on every run.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import Repeated, item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import ApiError, DeclarationError, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Field, Flag, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import why_not
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    ABSENT, Absence, Lifecycle, Where, absent)
from ansible_collections.homeflare.proxmox.plugins.module_utils.staging import Staged, StagedStore

SUBNETS = '/cluster/sdn/vnets/{vnet}/subnets'
SUBNET = '/cluster/sdn/vnets/{vnet}/subnets/{subnet}'
# Reading a subnet under another vnet: HTTP 400 with this one parameter error (pve-network API2 Subnets read).
WRONG_VNET = Absence((400,), errors={'vnet': r'wrong vnet'})
VNET_ABSENT = Absence((500,), r'does not exist')
RANGE_KEYS = ('start-address', 'end-address')


class DhcpRanges(Field):
    """The subnet's DHCP ranges, an order-free set. Declared as ``start-address=A,end-address=B`` strings
    or as mappings with those keys; PVE reads them back as objects and takes them as repeated keys."""

    ansible_type = 'list'
    elements = 'raw'
    unset = []

    def canonical(self, value):
        ranges = set()
        for item in value or []:
            if isinstance(item, dict):
                pairs = dict((str(key).replace('_', '-'), str(text).strip()) for key, text in item.items())
            else:
                pairs = dict(part.split('=', 1) for part in str(item).split(',') if '=' in part)
            ranges.add(','.join('%s=%s' % (key, pairs.get(key, '')) for key in RANGE_KEYS))
        return sorted(ranges)

    def declared(self, value):
        ranges = self.canonical(value)
        for text in ranges:
            for pair in text.split(','):
                key, address = pair.split('=', 1)
                if why_not('ip', address):
                    self.refuse(text, 'needs %s as an IP address (start-address=10.0.0.100,end-address=10.0.0.200)'
                                % key)
        return ranges

    def encode(self, value):
        return Repeated(value)


class Network(Text):
    """A declared CIDR as PVE keeps it in the subnet's id: the network address, compressed, no host bits."""

    def declared(self, value):
        text = super(Network, self).declared(value)
        try:
            return ipaddress.ip_network(text, strict=True).compressed
        except ValueError:
            self.refuse(text, 'has host bits set; declare the network, %s' % ipaddress.ip_network(
                text, strict=False).compressed)


class SubnetStore(StagedStore):
    """Subnets addressed by their zone-prefixed id, which the vnet's zone decides."""

    def subnet_id(self, client, family, ident):
        """``<zone>-<network>-<mask>``, or None when the vnet does not exist (nor then does the subnet)."""
        try:
            vnet = client.get(item_path('/cluster/sdn/vnets/{vnet}', ident), role=family.read_role) or {}
        except ApiError as exc:
            if VNET_ABSENT.matches(exc):
                return None
            raise
        address, _slash, bits = ident['subnet'].partition('/')
        return '%s-%s-%s' % (vnet.get('zone'), address, bits)

    def path_of(self, client, family, ident):
        subnet = self.subnet_id(client, family, ident)
        return None if subnet is None else item_path(SUBNET, dict(vnet=ident['vnet'], subnet=subnet))

    def read(self, client, family, ident):
        path = self.path_of(client, family, ident)
        if path is None:
            return ABSENT
        try:
            return self.read_at(client, family, path)
        except ApiError as exc:
            if WRONG_VNET.matches(exc):
                raise Refused("subnet %s exists under another vnet than '%s' (a subnet's id is its zone and network, "
                              "so the two collide). A subnet cannot move between vnets: remove it from the other vnet, "
                              "then declare it here. Nothing was written." % (ident['subnet'], ident['vnet']))
            raise

    def read_pending(self, client, family, ident):
        for row in self.read_at(client, family, item_path(SUBNETS, ident), dict(pending=1)) or []:
            if row.get('cidr') == ident['subnet']:
                return row
        return ABSENT

    def create(self, client, family, ident, form):
        form = dict(form, subnet=ident['subnet'], type='subnet')
        return client.post(item_path(SUBNETS, ident), form, role=family.write_role)

    def update(self, client, family, ident, form, live):
        return client.put(item_path(SUBNET, dict(vnet=ident['vnet'], subnet=live['subnet'])), form,
                          role=family.write_role)

    def delete(self, client, family, ident):
        return client.delete(self.path_of(client, family, ident), role=family.write_role)


class SubnetFamily(Staged):
    def check_declaration(self, declaration):
        gateway, subnet = declaration.values.get('gateway'), declaration.ident['subnet']
        if gateway and ipaddress.ip_address(gateway) not in ipaddress.ip_network(subnet):
            raise DeclarationError('option gateway: %s is outside the subnet %s' % (gateway, subnet))

    def find_all(self, client):
        """Every vnet's subnets, by network: the list's ``subnet`` is the zone-prefixed id, ``cidr`` the identity."""
        found = []
        for vnet in client.get('/cluster/sdn/vnets', role=self.read_role) or []:
            for row in client.get(item_path(SUBNETS, dict(vnet=vnet['vnet'])), role=self.read_role) or []:
                ident = dict(vnet=vnet['vnet'], subnet=row.get('cidr'))
                raw = self.store.read(client, self, ident)
                if not absent(raw):
                    found.append((ident, raw))
        return found


FAMILY = SubnetFamily(
    'sdn_subnet', 'sdn_subnet',
    identity=[
        # A path input here (the create call's own vnet parameter has no format): PVE's vnet id rules apply.
        Text('vnet', required=True, format='pve-sdn-vnet-id', schema_key=None),
        Network('subnet', required=True, format='pve-sdn-subnet-id'),
    ],
    fields=[
        Text('gateway', default='', clear='delete', format='ip'),
        Flag('snat', default=False, clear='delete'),
        Text('dnszoneprefix', default='', clear='delete', format='dns-name'),
        Text('dhcp-dns-server', default='', clear='delete', format='ip'),
        DhcpRanges('dhcp-range', default=[], clear='delete'),
    ],
    where=Where(item=SUBNET, collection=SUBNETS, absence=Absence((500,), r'does not exist'), store=SubnetStore()),
    # A write carries the file's digest: another writer's edit of the same file is refused, then re-judged.
    lifecycle=Lifecycle(send_digest=True),
)
