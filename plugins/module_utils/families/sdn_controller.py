# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SDN controller family: sections of the staged sdn/controllers.cfg, /cluster/sdn/controllers/{controller}.

Like a zone, a write is staged: nothing is live until ``sdn_apply`` (PVE's running config holds the
controllers beside the zones and vnets). The options a type needs are compared when declared and never
cleared; the others mean PVE's default when undeclared and are cleared with ``delete=``. An evpn
controller has peers or a fabric, never both: declaring one clears the other in the same write.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_zone import default, needed
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text, TokenSet
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Lifecycle, Listing, Where
from ansible_collections.homeflare.proxmox.plugins.module_utils.sdn_references import check_named
from ansible_collections.homeflare.proxmox.plugins.module_utils.staging import Staged
from ansible_collections.homeflare.proxmox.plugins.module_utils.type_rules import TypeRules

# pve-network 9 Controllers/<Type>Plugin.pm options(), in wire names. faucet is PVE's, not managed here.
CONTROLLER_TYPES = TypeRules('controller', {
    'evpn': dict(options=['asn', 'peers', 'fabric'], required=['asn']),
    'bgp': dict(options=['node', 'asn', 'peers', 'bgp-multipath-as-path-relax', 'ebgp', 'ebgp-multihop',
                         'loopback'], required=['node', 'asn', 'peers']),
    'isis': dict(options=['node', 'isis-domain', 'isis-net', 'isis-ifaces', 'loopback'],
                 required=['node', 'isis-domain', 'isis-net', 'isis-ifaces']),
})


class ControllerFamily(Staged):
    def check_declaration(self, declaration):
        """EvpnPlugin on_update_hook: exactly one of peers and fabric (PVE refuses the write otherwise)."""
        values = declaration.values
        if declaration.state == 'present' and values.get('type') == 'evpn' and \
                bool(values.get('peers')) == bool(values.get('fabric')):
            raise DeclarationError('option peers or option fabric: an evpn controller has exactly one of them '
                                   '(its BGP peers, or the fabric whose nodes peer)')

    def check_references(self, declaration, raw, batch, client):
        check_named(client, self, declaration, raw, batch,
                    [('fabric', 'fabric', declaration.values.get('fabric'))])


FAMILY = ControllerFamily(
    'sdn_controller', 'sdn_controller',
    identity=[Text('controller', required=True, format='pve-sdn-controller-id')],
    fields=[
        # PVE's PUT has no type: a controller is never retyped or recreated.
        Text('type', create_only=True, choices=['bgp', 'evpn', 'faucet', 'isis'], format='pve-configid'),
        # The local ASN; evpn and bgp need it.
        needed(Integer, 'asn', minimum=0, maximum=4294967295),
        # bgp needs its peers; an evpn controller has peers or a fabric, so its peers are cleared for a fabric.
        default(TokenSet, 'peers', format='ip-list'),
        default(Text, 'fabric', format='pve-sdn-fabric-id'),
        needed(Text, 'node', format='pve-node'),
        default(Flag, 'ebgp'),
        default(Integer, 'ebgp-multihop'),
        default(Flag, 'bgp-multipath-as-path-relax'),
        default(Text, 'loopback'),
        needed(Text, 'isis-domain'),
        needed(Text, 'isis-net', format='pve-sdn-isis-net', normalise=lambda value: value.lower()),
        needed(TokenSet, 'isis-ifaces', format='pve-iface-list'),
    ],
    where=Where(collection='/cluster/sdn/controllers', item='/cluster/sdn/controllers/{controller}',
                listing=Listing('/cluster/sdn/controllers'), absence=Absence((500,), r"^sdn '.*' does not exist"),
                # The item read needs SDN.Allocate on /sdn/controllers/{controller}.
                read_role='provision'),
    # A write carries the file's digest: another writer's edit of the same file is refused, then re-judged.
    lifecycle=Lifecycle(send_digest=True),
    type_rules=CONTROLLER_TYPES,
)
