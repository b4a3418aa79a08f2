#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: api_token
short_description: Declare the metadata of a Proxmox VE API token
version_added: 0.1.0
description:
  - Repairs or removes one API token's metadata (C(/access/users/{userid}/token/{tokenid})) - its O(comment), O(expire)
    and O(privsep).
  - A token's secret exists only in the answer of the call that creates it. So a missing token is not created unless
    O(create_missing=true) - the task fails instead, telling how to create it where the secret can be kept
    (C(pveum user token add) or the OpenBao/Vault PVE secrets mount), and writes nothing.
  - With O(create_missing=true) a missing token is created and the task's result carries its secret once, in
    RV(secret). Such a result is hidden by Ansible (as with C(no_log) - no output, no diff, nothing at C(-vvv)), so
    C(register) it to keep the secret. A later run that finds the token returns no secret.
  - O(expire) and O(privsep) are always declared (with O(state=present)) - left to PVE's defaults they would change a
    live token when it is adopted.
  - The token is read with the write credential (PVE lets only the token's own user or a holder of C(User.Modify)
    read it).
  - Removing a token destroys its secret; it needs O(confirm_removal=true). A token is never replaced - a new
    O(tokenid) is a new token, and the old one is left standing.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  userid:
    description: The user the token belongs to, C(name@realm) (wire name C(userid)).
    type: str
    required: true
  tokenid:
    description:
      - The token's name, the part after C(!) of its full id C(user@realm!name) (wire name C(tokenid)).
      - A full id is refused; give its user in O(userid).
    type: str
    required: true
  comment:
    description: The token's comment. An empty string removes it.
    type: str
  expire:
    description: When the token expires, in seconds since the epoch; V(0) never. Required with O(state=present).
    type: int
  privsep:
    description:
      - V(true) limits the token to the ACLs granted to the token itself (C(user@realm!name)); V(false) gives it all of its
        user's privileges. Required with O(state=present).
    type: bool
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
  - A token created for the collection's own credential minting should not be declared here; its O(expire) is what
    bounds its lease.
  - The token of a user that does not exist cannot be read with an API token - PVE's permission check answers 403 - so
    the task fails; declare the user first (M(homeflare.proxmox.user)).
seealso:
  - module: homeflare.proxmox.user
  - module: homeflare.proxmox.acl
'''

EXAMPLES = r'''
- name: Keep the CI token's metadata as declared (it was created with pveum)
  homeflare.proxmox.api_token:
    userid: ci@pve
    tokenid: deploy
    comment: CI deployments
    expire: 0
    privsep: true

- name: Create the monitoring token if missing, and keep its secret
  homeflare.proxmox.api_token:
    userid: monitor@pve
    tokenid: prometheus
    expire: 0
    privsep: true
    create_missing: true
  register: monitor_token

- name: Store the secret (only a run that created the token has one)
  ansible.builtin.copy:
    content: "{{ monitor_token.secret }}"
    dest: /etc/prometheus/pve-token
    mode: "0600"
  when: monitor_token.secret is defined

- name: Remove a token
  homeflare.proxmox.api_token:
    userid: ci@pve
    tokenid: old
    state: absent
    confirm_removal: true
'''

RETURN = r'''
object:
  description: The token's managed fields as read after the run (empty when absent). Never the secret.
  returned: always
  type: dict
  sample: {"userid": "ci@pve", "tokenid": "deploy", "comment": "CI deployments", "expire": 0, "privsep": true}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["comment"]}
secret:
  description:
    - The new token's secret, for the header C(PVEAPIToken=<full_tokenid>=<secret>). Only in the run that created the
      token; the whole result is then hidden from display.
  returned: when the token was created
  type: str
  sample: "00000000-0000-0000-0000-000000000000"
full_tokenid:
  description: The new token's full id, C(user@realm!name).
  returned: when the token was created
  type: str
  sample: "monitor@pve!prometheus"
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.api_token import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
