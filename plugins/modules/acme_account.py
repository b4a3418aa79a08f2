#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: acme_account
short_description: Declare a Proxmox VE cluster's ACME account
version_added: 0.5.0
description:
  - Registers, updates or deactivates one ACME account of the cluster (C(/cluster/acme/account/{name}), kept in
    C(/etc/pve/priv/acme/<name>)), which the nodes order their certificates with
    (M(homeflare.proxmox.acme_certificate)).
  - Registering (C(POST /cluster/acme/account)), updating the contact (C(PUT)) and deactivating (C(DELETE)) are PVE
    tasks that talk to the CA, waited for up to O(task_timeout) seconds; a refusal of the CA fails the task with
    PVE's and the CA's words.
  - B(Root only) - PVE lets only C(root@pam) itself read and write ACME accounts; every API token, root's own
    included, gets 403 C(user != root@pam). Give this task C(api_user=root@pam) and C(api_password) (with
    C(api_token_id) and C(api_token_secret) set to null when the play's module defaults name a token).
  - O(contact) is compared as a set of addresses with the C(mailto:) contacts of the CA's account object. O(directory)
    is fixed once registered; a declaration that differs fails naming it, and nothing is written.
  - O(tos_url), O(eab_kid) and O(eab_hmac_key) go with the registration only and are never compared (PVE cannot
    change them). O(eab_hmac_key) is a secret - never returned or shown; PVE does not even keep it.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  name:
    description:
      - The account's name (wire name C(name)), a letter followed by letters, digits, C(_) and C(-). A node's config
        names the account it orders with (C(acme) C(account=), by default V(default)).
    type: str
    default: default
  contact:
    description:
      - The account's e-mail addresses (wire name C(contact)), a list or a comma-separated string; compared as a set.
        Required with O(state=present).
    type: list
    elements: str
  directory:
    description:
      - The URL of the CA's ACME directory (wire name C(directory)). PVE's default is Let's Encrypt's production
        directory, C(https://acme-v02.api.letsencrypt.org/directory); Let's Encrypt's staging one is
        C(https://acme-staging-v02.api.letsencrypt.org/directory).
      - Fixed once registered; compared only when declared.
    type: str
  tos_url:
    description:
      - The URL of the CA's terms of service; setting it agrees to them (wire name C(tos_url)). Let's Encrypt
        refuses a registration without it - read the current one with C(pvesh get /cluster/acme/tos).
      - Sent with the registration only, never compared; the result's C(tos) shows what the account agreed to.
    type: str
  eab_kid:
    description:
      - The key identifier of an External Account Binding (wire name C(eab-kid)), for a CA that requires one. Needs
        O(eab_hmac_key). Sent with the registration only.
    type: str
  eab_hmac_key:
    description:
      - The HMAC key of the External Account Binding (wire name C(eab-hmac-key)). Needs O(eab_kid).
      - A secret - sent with the registration only, never read, compared, returned or shown.
    type: str
  state:
    description:
      - V(present) registers the account or updates its contact; V(absent) deactivates it at the CA (PVE renames its
        file to C(_deactivated_<name>_<n>)).
      - In check mode nothing is written; the result's RV(plan) says what a real run would do.
    type: str
    choices: [present, absent]
    default: present
  confirm_removal:
    description: Must be V(true) with O(state=absent); a deactivated account can never be used again.
    type: bool
    default: false
  task_timeout:
    description:
      - Seconds to wait for the registration, update or deactivation task to end. Past them the module fails,
        naming the task to check (it goes on).
    type: int
    default: 60
seealso:
  - module: homeflare.proxmox.acme_plugin
  - module: homeflare.proxmox.acme_certificate
'''

EXAMPLES = r'''
- name: Register the cluster's Let's Encrypt account (root@pam only)
  homeflare.proxmox.acme_account:
    api_token_id: null
    api_token_secret: null
    api_user: root@pam
    api_password: "{{ pve_root_password }}"
    name: default
    contact: [admin@example.org]
    tos_url: https://letsencrypt.org/documents/LE-SA-v1.5-February-24-2025.pdf

- name: An account at a CA that binds external accounts
  homeflare.proxmox.acme_account:
    api_user: root@pam
    api_password: "{{ pve_root_password }}"
    name: corporate
    contact: [pki@example.org]
    directory: https://acme.example.org/directory
    eab_kid: "{{ acme_eab_kid }}"
    eab_hmac_key: "{{ acme_eab_hmac_key }}"
'''

RETURN = r'''
object:
  description:
    - The account as read after the run (empty when absent) - the identity, C(contact) and C(directory), and
      C(location) (the account's URL at the CA), C(status) (the CA's) and C(tos) (the terms agreed to, or null).
  returned: always
  type: dict
  sample: {"name": "default", "contact": ["admin@example.org"],
           "directory": "https://acme-v02.api.letsencrypt.org/directory",
           "location": "https://acme-v02.api.letsencrypt.org/acme/acct/123456789", "status": "valid",
           "tos": "https://letsencrypt.org/documents/LE-SA-v1.5-February-24-2025.pdf"}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete),
      V(none).
    - C(changed) lists the drifted field names (only V(contact) can drift).
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["contact"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.acme_account import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
