#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pbs_user
short_description: Declare a Proxmox Backup Server user
version_added: 0.5.0
description:
  - Creates, repairs or removes one user of a Proxmox Backup Server (C(/access/users/{userid}) on port 8007, with a
    C(PBSAPIToken) or a PBS login).
  - Options left undeclared are not managed (neither sent nor compared); a declared option is compared and written
    alone. O(comment), O(firstname), O(lastname) or O(email) declared empty (V('')) is removed (C(delete=)). Writes
    carry the digest of C(user.cfg).
  - O(password) is for a user of the C(pbs) realm; it is never read, compared or returned, so a changed password is
    not drift. O(update_password=on_create) sends it with the create only; O(update_password=always) sets it on every
    real run (C(PUT /access/password)) and reports a change, and check mode says it would.
  - A missing user is PBS's own answer (C(no such user)) confirmed by the user list; any other failed read fails
    the task.
  - Removing a user also removes its API tokens and every ACL entry of the user and of its tokens (PBS does this).
  - Needs C(Sys.Audit) on C(/access/users) to read and C(Permissions.Modify) there to write; a credential without them
    gets PBS's 403 (C(permission check failed)), never "absent".
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  userid:
    description: The user id with its realm, C(name@realm) (for example C(backup@pbs)), 3 to 64 characters.
    type: str
    required: true
  comment:
    description: A comment, at most 128 characters on one line. PBS strips surrounding blanks.
    type: str
  enable:
    description: Whether the account (and so each of its tokens) may log in. PBS leaves the key out when enabled.
    type: bool
  expire:
    description: Account expiry as seconds since the epoch; V(0) means never.
    type: int
  firstname:
    description: First name, 2 to 64 characters.
    type: str
  lastname:
    description: Last name, 2 to 64 characters.
    type: str
  email:
    description: E-mail address, 2 to 64 characters.
    type: str
  password:
    description:
      - The password, 8 to 64 characters, sent when the user is created (and on every run with
        O(update_password=always)). Never read, compared, returned or shown.
      - Only for the C(pbs) realm. PBS refuses a C(pam) user's password to anybody but C(root@pam) logged in (and only
        after it saved the user), and a directory realm keeps its own; such a declaration is refused before any
        request.
    type: str
  update_password:
    description:
      - V(on_create) sends O(password) with the create only; a found user's password is left alone.
      - V(always) sets O(password) on every real run of a found user and reports changed. PBS keeps
        C(PUT /access/password) from API tokens and asks anybody but C(root@pam) for their own password, so this
        needs O(api_user) and O(api_password) (sent as the C(confirmation-password)); with an API token the task is
        refused, in check mode too.
    type: str
    choices: [on_create, always]
    default: on_create
seealso:
  - module: homeflare.proxmox.pbs_api_token
  - module: homeflare.proxmox.pbs_acl
'''

EXAMPLES = r'''
- name: A user for the cluster's backups
  homeflare.proxmox.pbs_user:
    api_host: pbs.example.org
    api_token_id: "{{ pbs_token_id }}"
    api_token_secret: "{{ pbs_token_secret }}"
    userid: pve-cluster@pbs
    comment: PVE cluster backups
    enable: true
    expire: 0

- name: Disable an account and drop its e-mail address
  homeflare.proxmox.pbs_user:
    api_host: pbs.example.org
    userid: old@pbs
    enable: false
    email: ""

- name: Remove a user (and its tokens and ACL entries)
  homeflare.proxmox.pbs_user:
    api_host: pbs.example.org
    userid: old@pbs
    state: absent
'''

RETURN = r'''
object:
  description: The user's managed fields as read after the run (empty when absent). Never the password.
  returned: always
  type: dict
  sample: {"userid": "pve-cluster@pbs", "comment": "PVE cluster backups", "enable": true, "expire": 0}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["comment"]}
served_by:
  description:
    - The server (C(host:port)) that answered last.
    - Absent when no server answered (refused before any request, or unreachable).
  returned: when a member answered
  type: str
  sample: "pbs.example.org:8007"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_user import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
