# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SDN DNS family: sections of sdn/dns.cfg, /cluster/sdn/dns/{dns}.

Written directly, like an IPAM: PVE keeps no running copy of dns.cfg, so a write is live at once. PVE calls the
server's API on every create and update (PowerdnsPlugin on_update_hook) and refuses the write when it does not
answer. The API key is a secret: never compared, returned or shown; written on create, and again only with
``update_secret: always`` (secret_updates.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_ipam import FINGERPRINT
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_zone import default, needed
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Integer, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, Family, Lifecycle, Listing, Where)
from ansible_collections.homeflare.proxmox.plugins.module_utils.secret_updates import UPDATE_SECRET, SecretUpdates
from ansible_collections.homeflare.proxmox.plugins.module_utils.type_rules import TypeRules

# pve-network 9 Dns/PowerdnsPlugin.pm options(); Dns/Plugin.pm's reversev6mask is taken by no plugin.
DNS_TYPES = TypeRules('DNS server', {
    'powerdns': dict(options=['url', 'key', 'ttl', 'reversemaskv6', 'fingerprint'], required=['url'],
                     create_needs=['key']),
})


class DnsFamily(SecretUpdates, Family):
    def check_create(self, declaration):
        DNS_TYPES.check_create(self.fields, declaration.values, declaration.values['type'])


FAMILY = DnsFamily(
    'sdn_dns', 'sdn_dns',
    identity=[Text('dns', required=True, format='pve-sdn-dns-id')],
    fields=[
        Text('type', create_only=True, choices=['powerdns'], format='pve-configid'),
        needed(Text, 'url'),
        Text('key', secret=True),
        # Undeclared: PVE's defaults (records with a TTL of 14400, the reverse zone of an IPv6 subnet by its mask).
        default(Integer, 'ttl'),
        default(Integer, 'reversemaskv6'),
        Text('fingerprint', default='', clear='delete', pattern=FINGERPRINT, normalise=lambda value: value.upper()),
    ],
    where=Where(collection='/cluster/sdn/dns', item='/cluster/sdn/dns/{dns}', listing=Listing('/cluster/sdn/dns'),
                absence=Absence((500,), r"^sdn '.*' does not exist"),
                # The item read needs SDN.Allocate on /sdn/dns/{dns}.
                read_role='provision'),
    lifecycle=Lifecycle(send_digest=True),
    type_rules=DNS_TYPES,
    controls=UPDATE_SECRET,
)
