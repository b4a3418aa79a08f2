#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pbs_api_token
short_description: Declare the metadata of a Proxmox Backup Server API token
version_added: 0.5.0
description:
  - Repairs or removes one API token's metadata on a Proxmox Backup Server
    (C(/access/users/{userid}/token/{token-name}) on port 8007) - its O(comment), O(enable) and O(expire).
  - PBS tokens are always privilege-separated - there is no C(privsep) - a token holds only what the ACL grants the
    token itself (C(user@realm!name), see M(homeflare.proxmox.pbs_acl)), and never more than its user holds there
    (the intersection of the two). So a token for PVE's C(pbs) storage or for the OpenBao engine needs an ACL entry
    for the token and one for its user.
  - A token's secret exists only in the answer of the call that creates it. So a missing token is not created unless
    O(create_missing=true) - the task fails instead, telling how to create it where the secret can be kept
    (C(proxmox-backup-manager user generate-token) or the OpenBao/Vault PBS secrets mount), and writes nothing.
  - With O(create_missing=true) a missing token is created and the task's result carries its secret once, in
    RV(secret). Such a result is hidden by Ansible (as with C(no_log) - no output, no diff, nothing at C(-vvv)), so
    C(register) it to keep the secret. A later run that finds the token returns no secret.
  - PBS would create a token for a user that does not exist; the create reads the user first and refuses then.
  - O(expire) is always declared (with O(state=present)); O(comment) and O(enable) are managed when declared.
    Writes carry the digest of C(user.cfg).
  - A missing token is PBS's own answer (C(no such token)) confirmed by the user's token list; any other failed
    read fails the task. Reading needs C(Sys.Audit) on C(/access/users) (or the token's own user), writing
    C(Permissions.Modify) there; without them PBS answers 403 and the task fails.
  - Removing a token destroys its secret (and PBS drops the token's ACL entries); it needs O(confirm_removal=true). A
    token is never replaced - a new O(token_name) is a new token, and the old one is left standing.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  userid:
    description: The user the token belongs to, C(name@realm).
    type: str
    required: true
  token_name:
    description:
      - The token's name, the part after C(!) of its full id C(user@realm!name) (wire name C(token-name)).
      - A full id is refused; give its user in O(userid).
    type: str
    required: true
  comment:
    description: The token's comment, at most 128 characters on one line. An empty string removes it.
    type: str
  enable:
    description: Whether the token may log in (its user must be enabled too). PBS leaves the key out when enabled.
    type: bool
  expire:
    description: When the token expires, in seconds since the epoch; V(0) never. Required with O(state=present).
    type: int
  create_missing:
    description:
      - Create the token when it does not exist, and return its secret in RV(secret), once.
      - Off by default, because a secret nobody registers is lost.
    type: bool
    default: false
  confirm_removal:
    description: Must be V(true) with O(state=absent); removing a token destroys its secret.
    type: bool
    default: false
notes:
  - A token minted by OpenBao for the collection's own credentials should not be declared here; its O(expire) is what
    bounds its lease.
seealso:
  - module: homeflare.proxmox.pbs_user
  - module: homeflare.proxmox.pbs_acl
  - module: homeflare.proxmox.api_token
'''

EXAMPLES = r'''
- name: Create the token PVE's pbs storage logs in with, if missing, and keep its secret
  homeflare.proxmox.pbs_api_token:
    api_host: pbs.example.org
    api_token_id: "{{ pbs_token_id }}"
    api_token_secret: "{{ pbs_token_secret }}"
    userid: pve-cluster@pbs
    token_name: storage
    comment: PVE storage cluster
    expire: 0
    create_missing: true
  register: storage_token

- name: Keep the secret (only a run that created the token has one)
  ansible.builtin.copy:
    content: "{{ storage_token.secret }}"
    dest: /root/pbs-storage-token
    mode: "0600"
  when: storage_token.secret is defined

- name: Let the token back up into one datastore (its user needs the role there too)
  homeflare.proxmox.pbs_acl:
    api_host: pbs.example.org
    path: /datastore/cluster
    auth_id: pve-cluster@pbs!storage
    role: DatastoreBackup

- name: Disable a token without deleting it
  homeflare.proxmox.pbs_api_token:
    api_host: pbs.example.org
    userid: pve-cluster@pbs
    token_name: old
    enable: false
    expire: 0

- name: Remove a token
  homeflare.proxmox.pbs_api_token:
    api_host: pbs.example.org
    userid: pve-cluster@pbs
    token_name: old
    state: absent
    confirm_removal: true
'''

RETURN = r'''
object:
  description: The token's managed fields as read after the run (empty when absent). Never the secret.
  returned: always
  type: dict
  sample: {"userid": "pve-cluster@pbs", "token_name": "storage", "comment": "PVE storage cluster", "expire": 0}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["comment"]}
secret:
  description:
    - The new token's secret, for the header C(PBSAPIToken=<full_tokenid>:<secret>). Only in the run that created the
      token; the whole result is then hidden from display.
  returned: when the token was created
  type: str
  sample: "00000000-0000-0000-0000-000000000000"
full_tokenid:
  description: The new token's full id, C(user@realm!name).
  returned: when the token was created
  type: str
  sample: "pve-cluster@pbs!storage"
served_by:
  description:
    - The server (C(host:port)) that answered last.
    - Absent when no server answered (refused before any request, or unreachable).
  returned: when a member answered
  type: str
  sample: "pbs.example.org:8007"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_api_token import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
