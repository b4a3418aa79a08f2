#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: acme_certificate
short_description: Declare that a Proxmox VE node serves a valid ACME certificate for its configured domains
version_added: 0.5.0
description:
  - Orders, renews or revokes a node's ACME certificate (C(/nodes/{node}/certificates/acme/certificate)) for the
    domains the node's config names - the C(acme) property's C(domains) and C(acmedomain0) to C(acmedomain5) of
    C(/nodes/{node}/config), set with M(homeflare.proxmox.node_config). The node's config also names the account
    (C(acme) C(account=), by default V(default)) and each domain's plugin.
  - Reads the node's config and its certificate info (C(GET /nodes/{node}/certificates/info), the
    C(pveproxy-ssl.pem) row). A certificate that is valid, covers every configured domain (its SAN names, a
    wildcard covering one label) and does not expire within O(renew_days) days is a no-op - zero writes.
  - Otherwise the plan's C(call) says what is done and its C(reason) why - V(order) (C(POST), with C(force) over a
    custom certificate that is there) when the node has no custom certificate or its certificate misses a domain;
    V(renew) (C(PUT) with C(force)) when a covering certificate is expired or due. Each is a PVE task (validating
    every domain with its plugin, then installing the certificate and restarting pveproxy), waited for up to
    O(task_timeout) seconds. A failed order fails with PVE's and the CA's words from the task.
  - After the task the certificate is read again; one that still misses a domain, or the same one as before, fails
    the module.
  - O(state=absent) revokes the node's certificate at the CA and removes it (C(DELETE)), so the node serves its
    self-signed C(pve-ssl.pem) again; it needs O(confirm_removal=true). A custom certificate that does not cover the
    configured domains is not the node's ACME certificate and is left alone.
  - A node with no ACME domains configured is refused in a real run before any write; check mode plans the order
    and says why it cannot be made yet (a play that configures the domains first runs in that order).
  - Do not declare this module and M(homeflare.proxmox.certificate) for the same node.
  - Reading needs C(Sys.Audit) on C(/nodes/{node}); ordering, renewing and revoking need C(Sys.Modify) on
    C(/nodes/{node}).
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
  renew_days:
    description:
      - Renew a covering certificate that expires within this many days (Let's Encrypt's certificates last 90 days;
        PVE's own renewal starts 30 days ahead). V(0) renews only an expired one.
      - A value above the CA's certificate lifetime renews on every run; the module warns when a new certificate
        is already due.
    type: int
    default: 30
  state:
    description:
      - V(present) orders or renews until the node serves a certificate covering its configured domains that is not
        due; V(absent) revokes that certificate and removes it.
      - In check mode nothing is written; the result's RV(plan) says what a real run would do, and why.
    type: str
    choices: [present, absent]
    default: present
  confirm_removal:
    description: Must be V(true) with O(state=absent); a revoked certificate can never be used again.
    type: bool
    default: false
  task_timeout:
    description:
      - Seconds to wait for the order, renewal or revocation task to end (DNS validation waits for each plugin's
        validation delay). Past them the module fails, naming the task to check (it goes on).
    type: int
    default: 600
seealso:
  - module: homeflare.proxmox.acme_account
  - module: homeflare.proxmox.acme_plugin
  - module: homeflare.proxmox.node_config
  - module: homeflare.proxmox.certificate
'''

EXAMPLES = r'''
- name: Every node serves a Let's Encrypt certificate for its configured domains, renewed 30 days ahead
  homeflare.proxmox.acme_certificate:
    node: "{{ item }}"
  loop: [pve1, pve2, pve3]

# Verify without writing: `ansible-playbook site.yml --check --diff` (the plan's reason says why)
- name: Renew two weeks ahead only
  homeflare.proxmox.acme_certificate:
    node: pve1
    renew_days: 14

- name: Revoke a node's ACME certificate and go back to the self-signed one
  homeflare.proxmox.acme_certificate:
    node: pve3
    state: absent
    confirm_removal: true
'''

RETURN = r'''
object:
  description:
    - The node's custom certificate as read after the run (empty when absent) - the identity, C(domains) (its SAN
      names), C(expires) (UTC), C(days_left), C(fingerprint), C(subject) and C(issuer).
  returned: always
  type: dict
  sample: {"node": "pve1", "domains": ["pve1.example.org"], "expires": "2026-04-01T10:00:00Z", "days_left": 89,
           "fingerprint": "5C:1A:...:9E", "subject": "/CN=pve1.example.org", "issuer": "/C=US/O=Let's Encrypt/CN=R11"}
plan:
  description:
    - What the run decided. C(read) is V(found) (the node has a custom certificate) or V(absent); C(action) one of
      V(create), V(update), V(delete), V(none).
    - C(changed) names what is wrong - V(domains) (a configured domain is not covered), V(expires) (due for renewal).
    - C(call) is the PVE call made (V(order), V(renew), V(revoke)) or null; C(reason) says why, in words.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["expires"], "call": "renew",
           "reason": "pve1's certificate for pve1.example.org expires at 2026-04-01T10:00:00Z (in 12 days), within
                      renew_days (30): renew it"}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.acme_certificate import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
