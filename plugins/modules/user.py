#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: user
short_description: Declare a Proxmox VE user account
version_added: 0.1.0
description:
  - Creates, repairs or removes one user (C(/access/users/{userid})).
  - Every option but O(userid) has a default, so an undeclared field is compared against it and repaired
    (an e-mail added by hand is drift). O(groups) is the complete set of groups.
  - O(password) is a secret, sent but never read, compared, shown or returned. With O(update_password=on_create) it is
    set when the user is created only; with O(update_password=always) every real run sets it again
    (C(PUT /access/password)) and reports a change (C(password) in C(plan.changed)), and check mode says it would.
  - Two-factor keys are not managed here; the user's API tokens are reported, not managed.
  - Removing a user also removes its tokens and ACL grants; PVE refuses to remove C(root@pam).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  userid:
    description: The user id with its realm, C(name@realm) (wire name C(userid)).
    type: str
    required: true
  comment:
    description: Comment.
    type: str
    default: ''
  email:
    description: E-mail address.
    type: str
    default: ''
  enable:
    description: Whether the account may log in. PVE leaves the key out when enabled; that reads as V(true).
    type: bool
    default: true
  expire:
    description: Account expiry as seconds since the epoch; V(0) means never.
    type: int
    default: 0
  firstname:
    description: First name.
    type: str
    default: ''
  lastname:
    description: Last name.
    type: str
    default: ''
  groups:
    description: The complete set of groups the user belongs to, compared order-free. The groups must exist.
    type: list
    elements: str
    default: []
  password:
    description:
      - The user's login password, 8 to 64 characters, for users of the V(pve) realm only (PVE keeps no other
        realm's; a V(pam) password is the node's own, a directory keeps its own); refused for any other realm
        before any request.
      - Never compared (no read gives it back), so a password changed by hand is not drift; see O(update_password).
    type: str
  update_password:
    description:
      - V(on_create) sends O(password) with the create only; a found user's password is left alone.
      - V(always) sets O(password) on every real run of a found user and reports changed. PVE lets no API token
        change a password (C(PUT /access/password) has C(allowtoken => 0)) and asks anybody but C(root@pam) for
        their own password, so this needs O(api_user) and O(api_password) (the login's password is sent as the
        C(confirmation-password)); with an API token the task is refused, in check mode too.
    type: str
    choices: [on_create, always]
    default: on_create
seealso:
  - module: homeflare.proxmox.group
  - module: homeflare.proxmox.acl
'''

EXAMPLES = r'''
- name: Declare an operator
  homeflare.proxmox.user:
    userid: alice@pve
    email: alice@example.org
    groups: [operators]

- name: A local account whose password is set when it is created, and left alone afterwards
  homeflare.proxmox.user:
    userid: backup-admin@pve
    password: "{{ vault_backup_admin_password }}"

- name: Reset the password on every run (needs a password login)
  homeflare.proxmox.user:
    userid: backup-admin@pve
    password: "{{ vault_backup_admin_password }}"
    update_password: always
    api_user: root@pam
    api_password: "{{ vault_root_password }}"
'''

RETURN = r'''
object:
  description: The user's managed fields as read after the run (empty when absent), plus C(tokens), the names of its API tokens.
  returned: always
  type: dict
  sample: {"userid": "alice@pve", "comment": "", "email": "alice@example.org", "enable": true, "expire": 0,
           "firstname": "", "lastname": "", "groups": ["operators"], "tokens": []}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["groups"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.user import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
