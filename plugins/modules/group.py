#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: group
short_description: Declare a Proxmox VE user group
version_added: 0.1.0
description:
  - Creates, repairs or removes one group (C(/access/groups/{groupid})).
  - Membership is written from the user side (M(homeflare.proxmox.user) O(homeflare.proxmox.user#module:groups)); the
    group reports its members, sorted.
  - Removing a group also removes every ACL grant whose subject is the group.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  groupid:
    description: The group's id (wire name C(groupid)).
    type: str
    required: true
  comment:
    description: The group's comment. Undeclared means empty.
    type: str
    default: ''
seealso:
  - module: homeflare.proxmox.user
  - module: homeflare.proxmox.acl
'''

EXAMPLES = r'''
- name: Declare the operators group
  homeflare.proxmox.group:
    groupid: operators
    comment: People on call
'''

RETURN = r'''
object:
  description: The group's managed fields as read after the run (empty when absent), plus C(members), sorted.
  returned: always
  type: dict
  sample: {"groupid": "operators", "comment": "People on call", "members": ["alice@pve"]}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "none", "changed": []}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.group import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
