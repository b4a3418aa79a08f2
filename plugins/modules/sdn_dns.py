#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: sdn_dns
short_description: Declare a Proxmox VE SDN DNS server (PowerDNS)
version_added: 0.2.0
description:
  - Creates, repairs or removes one SDN DNS plugin, a section of C(/etc/pve/sdn/dns.cfg) (C(/cluster/sdn/dns/{dns})),
    which a zone names in its C(dns) and C(reversedns) options to register its guests' names.
  - B(Not staged.) PVE keeps no running copy of C(dns.cfg), so a write is live at once and
    M(homeflare.proxmox.sdn_apply) has nothing to apply for it. A zone naming the server is staged as usual.
  - PVE calls the server's API on every create and update and refuses the write when it does not answer; the run
    then fails with PVE's message (C(dns api error ...)) and nothing is written.
  - O(type) V(powerdns) takes O(url) (needed), O(key) (needed to create), O(ttl), O(reversemaskv6) and
    O(fingerprint).
  - B(The API key is a secret.) PVE answers it in every read, but this module never compares, returns, shows or
    exports it (an export puts a placeholder). It is written when the server is created; on an existing one it is
    written again only with O(update_secret=always), on every real run and reported as a change; run once with
    V(always) to rotate it.
  - PVE does not check the zones naming a DNS server it removes; M(homeflare.proxmox.declare) removes zones first.
  - The server is read with the write credential (PVE wants C(SDN.Allocate) on C(/sdn/dns/{dns}) to read it). Each
    update carries the digest of the file it was judged on; when another writer changed the file in between, the
    object is read and judged again once.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  dns:
    description: The DNS plugin id (wire name C(dns)), a letter, then letters and digits.
    type: str
    required: true
  type:
    description: The plugin type. Required with O(state=present); fixed once created.
    type: str
    choices: [powerdns]
  url:
    description:
      - Needed. The PowerDNS API's server URL, such as V(https://pdns.example.org:8081/api/v1/servers/localhost).
      - Compared when declared; never cleared.
    type: str
  key:
    description:
      - The PowerDNS API key (C(X-API-Key)); needed to create the server.
      - A secret, never compared or shown. Written on create, and on every real run with O(update_secret=always).
    type: str
  ttl:
    description:
      - The TTL of the records PVE registers, in seconds.
      - Undeclared means PVE's default (14400, no key); a value set by hand is cleared with C(delete=ttl).
    type: int
  reversemaskv6:
    description:
      - The netmask of the IPv6 reverse zones' names, in place of the subnet's own.
      - Undeclared means the subnet's (no key); a value set by hand is cleared with C(delete=reversemaskv6).
    type: int
  fingerprint:
    description:
      - The SHA-256 fingerprint of the API's certificate, pinned instead of the system's CAs; compared
        case-insensitively.
      - Undeclared means none (the system's CAs); a value set by hand is cleared with C(delete=fingerprint).
    type: str
    default: ''
  update_secret:
    description:
      - What a run does with a declared O(key) on a server that exists. V(on_create) writes it only when the server
        is created; V(always) writes it on every real run and reports a change.
    type: str
    default: on_create
    choices: [on_create, always]
seealso:
  - module: homeflare.proxmox.sdn_zone
  - module: homeflare.proxmox.sdn_ipam
'''

EXAMPLES = r'''
- name: PowerDNS for a zone's forward and reverse names
  module_defaults:
    group/homeflare.proxmox.proxmox:
      api_host: [pve1.example.org, pve2.example.org]
      api_token_id: "automation@pve!ansible"
      api_token_secret: "{{ vault_pve_token_secret }}"
  block:
    - name: The PowerDNS server (live at once; PVE checks that the API answers)
      homeflare.proxmox.sdn_dns:
        dns: pdns
        type: powerdns
        url: https://pdns.example.org:8081/api/v1/servers/localhost
        key: "{{ vault_pdns_key }}"
        ttl: 3600

    - name: A zone registering its guests in lab.example.org (staged)
      homeflare.proxmox.sdn_zone:
        zone: lab
        type: simple
        dns: pdns
        reversedns: pdns
        dnszone: lab.example.org

    - name: Apply
      homeflare.proxmox.sdn_apply:
'''

RETURN = r'''
object:
  description: The server's managed fields as read after the run (empty when absent); never its key.
  returned: always
  type: dict
  sample: {"dns": "pdns", "type": "powerdns", "url": "https://pdns.example.org:8081/api/v1/servers/localhost",
           "ttl": 3600, "reversemaskv6": null, "fingerprint": ""}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names, and V(key) when O(update_secret=always) writes it.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["ttl"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.sdn_dns import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
