# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SDN zone family: sections of the staged sdn/zones.cfg, /cluster/sdn/zones/{zone}.

A write is staged; nothing is live until ``sdn_apply``. Every option the type takes means its
default when undeclared (PVE leaves the key out), so an option set by hand is drift, cleared with
``delete=`` (an integer cannot be cleared with ``''``). The options a type needs (a vlan zone's
bridge, an evpn zone's controller) cannot be cleared, so they are required instead.

What a zone names (its controller, IPAM, DNS servers, fabric) must be live or declared beside it in the same
``declare``: judged before any write (sdn_references.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text, TokenSet
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Lifecycle, Listing, Where
from ansible_collections.homeflare.proxmox.plugins.module_utils.sdn_references import check_named
from ansible_collections.homeflare.proxmox.plugins.module_utils.staging import Staged
from ansible_collections.homeflare.proxmox.plugins.module_utils.type_rules import TypeRules

# pve-network 9 Zones/<Type>Plugin.pm options(), in wire names.
_COMMON = ['nodes', 'mtu', 'dns', 'reversedns', 'dnszone', 'ipam']
ZONE_TYPES = TypeRules('zone', {
    'simple': dict(options=_COMMON + ['dhcp']),
    'vlan': dict(options=_COMMON + ['bridge', 'bridge-disable-mac-learning'], required=['bridge']),
    'qinq': dict(options=_COMMON + ['bridge', 'bridge-disable-mac-learning', 'tag', 'vlan-protocol'],
                 required=['bridge', 'tag']),
    # PVE 9 takes its peers or a fabric (exactly one: check_declaration).
    'vxlan': dict(options=_COMMON + ['peers', 'fabric', 'vxlan-port']),
    'evpn': dict(options=_COMMON + ['controller', 'vrf-vxlan', 'mac', 'exitnodes', 'exitnodes-primary',
                                    'exitnodes-local-routing', 'advertise-subnets', 'disable-arp-nd-suppression',
                                    'bridge-disable-mac-learning', 'rt-import', 'vxlan-port'],
                 required=['controller', 'vrf-vxlan']),
})
# What a zone's options name (sdn_references.KINDS), checked before any write.
REFERENCES = (('controller', 'controller'), ('ipam', 'ipam'), ('dns', 'dns'), ('reversedns', 'dns'),
              ('fabric', 'fabric'))


def default(kind, wire, **kwargs):
    """An option whose undeclared meaning is PVE's default (no key); a hand-set value is cleared with delete=."""
    field = kind(wire, clear='delete', **kwargs)
    field.default = field.unset
    return field


def needed(kind, wire, **kwargs):
    """An option a type needs (never clearable): compared when declared, required by the type table."""
    return kind(wire, **kwargs)


class ZoneFamily(Staged):
    def check_declaration(self, declaration):
        """VxlanPlugin on_update_hook: exactly one of peers and fabric; the zone API: a dnszone needs its dns server.
        Both refused by PVE after the lock; here before any request."""
        values = declaration.values
        if declaration.state != 'present':
            return
        if values.get('type') == 'vxlan' and bool(values.get('peers')) == bool(values.get('fabric')):
            raise DeclarationError('option peers or option fabric: a vxlan zone has exactly one of them (the peers\' '
                                   'addresses, or the fabric whose nodes carry the tunnels)')
        if values.get('dnszone') and not values.get('dns'):
            raise DeclarationError('option dnszone: the zone registers names in it through its dns server, so it '
                                   'needs option dns too')

    def check_references(self, declaration, raw, batch, client):
        """The controller, IPAM, DNS servers and fabric the zone names: live, or declared in the same task."""
        names = []
        taken = self.type_rules.taken(declaration.values.get('type')) or []
        for wire, kind in REFERENCES:
            option = wire.replace('-', '_')
            value = declaration.values.get(option)
            if wire in taken and not (kind == 'ipam' and value == 'pve'):
                names.append((option, kind, value))
        check_named(client, self, declaration, raw, batch, names)


FAMILY = ZoneFamily(
    'sdn_zone', 'sdn_zone',
    identity=[Text('zone', required=True, format='pve-sdn-zone-id')],
    fields=[
        # PVE's PUT has no type: another type is refused (a zone is never retyped or recreated).
        Text('type', create_only=True, choices=['evpn', 'faucet', 'qinq', 'simple', 'vlan', 'vxlan'],
             format='pve-configid'),
        default(TokenSet, 'nodes', format='pve-node-list'),
        default(Integer, 'mtu'),
        default(Text, 'dns'),
        default(Text, 'reversedns'),
        default(Text, 'dnszone', format='dns-name'),
        # No ipam key means PVE's built-in 'pve' IPAM; written as ipam=pve, which every type takes.
        Text('ipam', default='pve', absent_means='pve', normalise=lambda value: value or 'pve'),
        default(Text, 'dhcp', choices=['dnsmasq']),
        needed(Text, 'bridge'),
        default(Flag, 'bridge-disable-mac-learning'),
        # The qinq service VLAN: 0 is a real tag (untagged service), not "unset".
        needed(Integer, 'tag', minimum=0),
        Text('vlan-protocol', default='802.1q', absent_means='802.1q', clear='delete',
             choices=['802.1q', '802.1ad']),
        # A vxlan zone's peers, or its fabric (a zone moved onto a fabric has its peers cleared in the same write).
        default(TokenSet, 'peers', format='ip-list'),
        default(Text, 'fabric', format='pve-sdn-fabric-id'),
        Integer('vxlan-port', default=4789, absent_means=4789, clear='delete', minimum=1, maximum=65536),
        needed(Text, 'controller'),
        needed(Integer, 'vrf-vxlan', minimum=1, maximum=16777215),
        # PVE generates the anycast MAC of an evpn zone when none is given: compared only when declared.
        Text('mac', format='mac-addr', normalise=lambda value: value.lower()),
        default(TokenSet, 'exitnodes', format='pve-node-list'),
        default(Text, 'exitnodes-primary', format='pve-node'),
        default(Flag, 'exitnodes-local-routing'),
        default(Flag, 'advertise-subnets'),
        default(Flag, 'disable-arp-nd-suppression'),
        # Route targets imported into the zone's VRF, besides its own.
        default(TokenSet, 'rt-import', format='pve-sdn-bgp-rt-list'),
    ],
    where=Where(collection='/cluster/sdn/zones', item='/cluster/sdn/zones/{zone}',
                listing=Listing('/cluster/sdn/zones'), absence=Absence((500,), r"^sdn '.*' does not exist"),
                # The item read needs SDN.Allocate (the list takes SDN.Audit but is filtered by privilege).
                read_role='provision'),
    # A write carries the file's digest: another writer's edit of the same file is refused, then re-judged.
    lifecycle=Lifecycle(send_digest=True),
    type_rules=ZONE_TYPES,
)
