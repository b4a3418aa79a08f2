#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: sdn_ipam
short_description: Declare a Proxmox VE SDN IPAM (NetBox, phpIPAM)
version_added: 0.2.0
description:
  - Creates, repairs or removes one SDN IPAM plugin, a section of C(/etc/pve/sdn/ipams.cfg)
    (C(/cluster/sdn/ipams/{ipam})), which a zone names in its C(ipam) option to allocate its subnets' addresses.
  - B(Not staged.) PVE keeps no running copy of C(ipams.cfg), so a write is live at once and
    M(homeflare.proxmox.sdn_apply) has nothing to apply for it. A zone naming the IPAM is staged as usual.
  - PVE calls the IPAM's API on every create and update (NetBox C(GET /ipam/aggregates/), phpIPAM
    C(GET /sections/<section>)) and refuses the write when it does not answer; the run then fails with PVE's message
    and nothing is written.
  - O(type) decides which options the IPAM takes. V(netbox) takes O(url) (needed), O(token) (needed to create) and
    O(fingerprint); V(phpipam) also O(section) (needed); V(pve), the built-in IPAM, takes none.
  - B(The token is a secret.) PVE answers it in every read, but this module never compares, returns, shows or
    exports it (an export puts a placeholder). It is written when the IPAM is created. On an existing IPAM a changed
    token cannot be seen, so it is written again only with O(update_secret=always), which writes it on every real
    run and reports that as a change (check mode says it would). Run once with V(always) to rotate it.
  - The built-in V(pve) IPAM always exists (PVE adds it to every read); it cannot be removed or retyped.
  - PVE does not check the zones naming an IPAM it removes; M(homeflare.proxmox.declare) removes zones first.
  - The IPAM is read with the write credential (PVE wants C(SDN.Allocate) on C(/sdn/ipams/{ipam}) to read it).
    Each update carries the digest of the file it was judged on; when another writer changed the file in between,
    the object is read and judged again once.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  ipam:
    description: The IPAM id (wire name C(ipam)), a letter, then letters and digits.
    type: str
    required: true
  type:
    description: The IPAM type, which decides the options it takes. Required with O(state=present); fixed once
      created.
    type: str
    choices: [netbox, phpipam, pve]
  url:
    description:
      - V(netbox) and V(phpipam), which need it. The API's base URL, such as V(https://netbox.example.org/api).
      - Compared when declared; never cleared.
    type: str
  token:
    description:
      - V(netbox) and V(phpipam). The API token; needed to create the IPAM.
      - A secret, never compared or shown. Written on create, and on every real run with O(update_secret=always).
    type: str
  section:
    description:
      - V(phpipam), which needs it. The phpIPAM section id the subnets are kept in.
      - Compared when declared; never cleared.
    type: int
  fingerprint:
    description:
      - V(netbox) and V(phpipam). The SHA-256 fingerprint of the API's certificate, pinned instead of the system's
        CAs; compared case-insensitively.
      - Undeclared means none (the system's CAs); a value set by hand is cleared with C(delete=fingerprint).
    type: str
  update_secret:
    description:
      - What a run does with a declared O(token) on an IPAM that exists. V(on_create) writes it only when the IPAM
        is created; V(always) writes it on every real run and reports a change.
    type: str
    default: on_create
    choices: [on_create, always]
seealso:
  - module: homeflare.proxmox.sdn_zone
  - module: homeflare.proxmox.sdn_dns
'''

EXAMPLES = r'''
- name: A NetBox IPAM and a zone allocating from it
  module_defaults:
    group/homeflare.proxmox.proxmox:
      api_host: [pve1.example.org, pve2.example.org]
      api_token_id: "automation@pve!ansible"
      api_token_secret: "{{ vault_pve_token_secret }}"
  block:
    - name: NetBox (live at once; PVE checks that the API answers)
      homeflare.proxmox.sdn_ipam:
        ipam: netbox
        type: netbox
        url: https://netbox.example.org/api
        token: "{{ vault_netbox_token }}"

    - name: A zone whose subnets NetBox allocates (staged)
      homeflare.proxmox.sdn_zone:
        zone: lab
        type: simple
        ipam: netbox

    - name: Apply
      homeflare.proxmox.sdn_apply:

- name: Rotate the NetBox token (written, and reported changed, on every run with always)
  homeflare.proxmox.sdn_ipam:
    ipam: netbox
    type: netbox
    url: https://netbox.example.org/api
    token: "{{ vault_netbox_new_token }}"
    update_secret: always
'''

RETURN = r'''
object:
  description: The IPAM's managed fields as read after the run (empty when absent); never its token.
  returned: always
  type: dict
  sample: {"ipam": "netbox", "type": "netbox", "url": "https://netbox.example.org/api", "fingerprint": ""}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names, and V(token) when O(update_secret=always) writes it.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["url"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_ipam import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
