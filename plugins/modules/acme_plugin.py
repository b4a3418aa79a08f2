#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: acme_plugin
short_description: Declare a Proxmox VE ACME challenge plugin
version_added: 0.5.0
description:
  - Creates, repairs or removes one section of C(/etc/pve/priv/acme/plugins.cfg) (C(/cluster/acme/plugins/{id})),
    the way a node proves to the CA that it holds a domain - a V(dns) plugin through a DNS provider's API (acme.sh's
    C(dns_<api>) scripts), the V(standalone) one over HTTP on port 80. A node's config names the plugin per domain
    (C(acmedomainN) C(plugin=)).
  - Options left undeclared are not managed (neither sent nor compared). An empty O(nodes) list removes the
    restriction (C(delete=nodes)); O(disable=false) is written as C(delete=disable), as PVE stores it.
  - O(type) is fixed once created; a declaration that differs fails naming it, and nothing is written.
  - O(data) is a secret. PVE answers it back, but this module never compares, returns or shows it - it is sent
    when the plugin is created only, so new credentials are not detected - rotate them out of band
    (C(pvenode acme plugin set <id> --data <file>)) or remove and declare the plugin again.
  - Updates carry the digest read, so a plugin another writer changed meanwhile is read and judged again, never
    overwritten.
  - PVE always has a V(standalone) plugin of that name; removing it leaves PVE's own (a no-op).
  - Reading and writing need C(Sys.Modify) on C(/).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  id:
    description: The plugin's id (wire name C(id)), a letter followed by letters, digits, C(_) and C(-).
    type: str
    required: true
  type:
    description:
      - The challenge type. Required with O(state=present); fixed once created.
      - V(dns) takes O(api), O(data) and O(validation_delay) (O(api) required); V(standalone) none of them. Both take
        O(nodes) and O(disable).
    type: str
    choices: [dns, standalone]
  api:
    description: The DNS provider's API (acme.sh's C(dns_<api>) script), as PVE 9.1 lists them.
    type: str
    choices: [1984hosting, acmedns, acmeproxy, active24, ad, ali, alviy, anx, artfiles, arvan, aurora, autodns,
      aws, azion, azure, beget, bookmyname, bunny, cf, clouddns, cloudns, cn, conoha, constellix, cpanel, curanet,
      cyon, da, ddnss, desec, df, dgon, dnsexit, dnshome, dnsimple, dnsservices, doapi, domeneshop, dp, dpi,
      dreamhost, duckdns, durabledns, dyn, dynu, dynv6, easydns, edgecenter, edgedns, euserv, exoscale, fornex,
      freedns, freemyip, gandi_livedns, gcloud, gcore, gd, geoscaling, googledomains, he, he_ddns, hetzner,
      hetznercloud, hexonet, hostingde, huaweicloud, infoblox, infomaniak, internetbs, inwx, ionos, ionos_cloud,
      ipv64, ispconfig, jd, joker, kappernet, kas, kinghost, knot, la, leaseweb, lexicon, limacity, linode,
      linode_v4, loopia, lua, maradns, me, miab, mijnhost, misaka, myapi, mydevil, mydnsjp, mythic_beasts,
      namecheap, namecom, namesilo, nanelo, nederhost, neodigit, netcup, netlify, nic, njalla, nm, nsd, nsone,
      nsupdate, nw, oci, omglol, one, online, openprovider, openprovider_rest, openstack, opnsense, ovh, pdns,
      pleskxml, pointhq, porkbun, rackcorp, rackspace, rage4, rcode0, regru, scaleway, schlundtech, selectel,
      selfhost, servercow, simply, spaceship, technitium, tele3, tencent, timeweb, transip, udr, ultra, unoeuro,
      variomedia, veesp, vercel, vscale, vultr, websupport, west_cn, world4you, yandex360, yc, zilore, zone,
      zoneedit, zonomi]
  data:
    description:
      - The credentials the DNS API reads, as a dict of acme.sh variables (C(CF_Token), C(CF_Account_ID), ...;
        C(pvesh get /cluster/acme/challenge-schema) lists each API's). Sent the way PVE takes them (wire name
        C(data)) - base64 of one C(KEY=VALUE) line per entry, in the declared order.
      - Each key is a variable name (letters, digits and C(_)); each value one line of text.
      - A secret - sent when the plugin is created only, never compared, returned or shown.
    type: dict
  validation_delay:
    description:
      - Seconds to wait after publishing the TXT record before asking the CA to validate it (wire name
        C(validation-delay)), 0 to 172800; PVE's default is V(30).
    type: int
  nodes:
    description: The nodes that may use the plugin; all when unset. Compared as a set; V([]) removes the restriction.
    type: list
    elements: str
  disable:
    description: Whether the plugin is disabled.
    type: bool
seealso:
  - module: homeflare.proxmox.acme_account
  - module: homeflare.proxmox.acme_certificate
'''

EXAMPLES = r'''
- name: A Cloudflare DNS plugin
  homeflare.proxmox.acme_plugin:
    id: cloudflare
    type: dns
    api: cf
    data:
      CF_Token: "{{ cloudflare_dns_token }}"
      CF_Account_ID: "{{ cloudflare_account_id }}"
    validation_delay: 60

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Remove a plugin no domain uses any more
  homeflare.proxmox.acme_plugin:
    id: old-dns
    state: absent
'''

RETURN = r'''
object:
  description: The plugin's managed fields as read after the run (empty when absent). O(data) is never returned.
  returned: always
  type: dict
  sample: {"id": "cloudflare", "type": "dns", "api": "cf", "validation_delay": 60}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete),
      V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["validation_delay"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.acme_plugin import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
