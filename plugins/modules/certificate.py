#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: certificate
short_description: Declare the custom TLS certificate a Proxmox VE node serves
version_added: 0.5.0
description:
  - Uploads, replaces or removes a node's custom certificate and key (C(pveproxy-ssl.pem) and C(pveproxy-ssl.key)),
    which the node's API and web interface serve instead of its self-signed C(pve-ssl.pem).
  - Read from C(GET /nodes/{node}/certificates/info); its C(pveproxy-ssl.pem) row is the custom certificate, and
    without one the certificate is absent. The declared chain is compared by the SHA-256 fingerprint of its first
    certificate with that row's C(fingerprint); the plan and the diff show fingerprints, never the PEM text.
  - One upload (C(POST /nodes/{node}/certificates/custom)) creates or replaces the pair; C(DELETE) on the same path
    removes it. The proxy restarts only with O(restart=true) - without it the node keeps serving the old
    certificate until pveproxy restarts.
  - A node that already has another custom certificate (uploaded by hand or ordered through ACME) is refused, naming
    that certificate, unless O(force=true) - as PVE itself refuses it. Do not declare this module and
    M(homeflare.proxmox.acme_certificate) for the same node.
  - O(key) is a secret - sent with every upload, never read, compared, returned or shown. A new key alone is not
    detected; it goes with the next new certificate.
  - The certificate, the chain and the key are checked before any request as PVE checks them (PEM blocks of base64
    lines; certificates only in O(certificates), one private key without a pass phrase in O(key)). PVE checks that
    the key matches the certificate; a mismatch fails with PVE's words, and PVE puts the old pair back.
  - Reading needs no privilege beyond a valid login; writing needs C(Sys.Modify) on C(/nodes/{node}).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  node:
    description: The node whose certificate this is (wire name C(node)).
    type: str
    required: true
  certificates:
    description:
      - The certificate in PEM, followed by its intermediate certificates (wire name C(certificates)). Required with
        O(state=present).
      - Text before the first C(-----BEGIN) line is dropped, as PVE drops it. A private key here is refused.
    type: str
  key:
    description:
      - The certificate's private key in PEM (wire name C(key)), without a pass phrase. Without it PVE keeps the
        node's current key, and refuses an upload when the node has none.
      - A secret - sent with every upload, never read, compared, returned or shown.
    type: str
  force:
    description:
      - Replace a custom certificate the node already has that is not the declared one (PVE's C(force)). Without
        it such a node is refused, naming the certificate found; a node without a custom certificate needs no
        O(force).
    type: bool
    default: false
  restart:
    description: Restart pveproxy after the upload or the removal, so the node serves the new certificate at once.
    type: bool
    default: false
  state:
    description:
      - V(present) uploads the declared certificate when the node serves another or none; V(absent) removes the
        custom certificate, whatever it is, so the node serves its self-signed C(pve-ssl.pem) again.
      - In check mode nothing is written; the result's RV(plan) says what a real run would do.
    type: str
    choices: [present, absent]
    default: present
seealso:
  - module: homeflare.proxmox.acme_certificate
'''

EXAMPLES = r'''
- name: Serve the company's certificate on pve1 and restart the proxy
  homeflare.proxmox.certificate:
    node: pve1
    certificates: "{{ lookup('ansible.builtin.file', 'certs/pve1.example.org.fullchain.pem') }}"
    key: "{{ pve1_tls_key }}"
    force: true
    restart: true

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Go back to the node's self-signed certificate
  homeflare.proxmox.certificate:
    node: pve1
    state: absent
    restart: true
'''

RETURN = r'''
object:
  description:
    - The custom certificate as read after the run (empty when absent) - the identity, C(certificates) as its
      SHA-256 fingerprint, and C(subject), C(issuer), C(san), C(notbefore), C(notafter) as PVE reports them. The key
      is never returned.
  returned: always
  type: dict
  sample: {"node": "pve1", "certificates": "5C:1A:...:9E", "subject": "/CN=pve1.example.org",
           "issuer": "/C=US/O=Let's Encrypt/CN=R11", "san": ["pve1.example.org"], "notbefore": 1767225600,
           "notafter": 1775001600}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete),
      V(none).
    - C(changed) is V(certificates) when the node serves another certificate than the declared one.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["certificates"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.certificate import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
