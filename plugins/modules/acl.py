#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: acl
short_description: Declare one Proxmox VE ACL grant
version_added: 0.1.0
description:
  - Grants or revokes one role on one path for one user, group or API token.
  - A grant is a row of C(GET /access/acl) identified by (O(path), O(type), O(ugid), O(roleid)); changing any of
    them declares another grant. Only O(propagate) is managed on an existing grant.
  - Paths are normalised the way PVE stores them (C(pool/lab/) is C(/pool/lab)).
  - The list is read with the write credential, because PVE filters it to the paths the caller may modify
    (an auditor sees an empty list, never a refusal). When the row is missing, C(GET /access/permissions) confirms
    the credential could have seen it; otherwise the task fails instead of planning a create. After a write the
    grant is read back and must be bound.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  path:
    description: The ACL path, for example C(/), C(/pool/lab), C(/storage/local), C(/vms/100).
    type: str
    required: true
  type:
    description: What O(ugid) names. Written as C(users), C(groups) or C(tokens).
    type: str
    required: true
    choices: [user, group, token]
  ugid:
    description: The user (C(name@realm)), group, or token (C(name@realm!token)) the role is granted to.
    type: str
    required: true
  roleid:
    description: The role granted.
    type: str
    required: true
  propagate:
    description: Whether the grant is inherited below O(path). PVE leaves the key out when true.
    type: bool
    default: true
seealso:
  - module: homeflare.proxmox.role
  - module: homeflare.proxmox.user
  - module: homeflare.proxmox.group
'''

EXAMPLES = r'''
- name: Let the operators group audit everything
  homeflare.proxmox.acl:
    path: /
    type: group
    ugid: operators
    roleid: PVEAuditor

- name: Revoke a token's grant on a pool
  homeflare.proxmox.acl:
    path: /pool/lab
    type: token
    ugid: ci@pve!deploy
    roleid: PVEVMAdmin
    state: absent
'''

RETURN = r'''
object:
  description: The grant as read after the run (empty when not bound).
  returned: always
  type: dict
  sample: {"path": "/pool/lab", "type": "group", "ugid": "operators", "roleid": "PVEAuditor", "propagate": true}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "absent", "action": "create", "changed": ["propagate"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.acl import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
