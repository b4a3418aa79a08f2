#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: role
short_description: Declare a Proxmox VE role and its complete set of privileges
version_added: 0.1.0
description:
  - Creates, repairs or removes one role (C(/access/roles/{roleid})).
  - O(privs) is the complete set, compared order-free; privileges added by hand are revoked on the next run.
  - Built-in roles (C(Administrator), C(PVEAuditor), ...) can be read but PVE refuses to change them.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  roleid:
    description: The role's id (wire name C(roleid)).
    type: str
    required: true
  privs:
    description:
      - The complete set of privileges, for example V(VM.Audit) and V(Sys.Audit). Required with O(state=present);
        at least one privilege (an empty role cannot be told apart from a missing one).
      - Each must be a privilege PVE 8 or 9 knows; an unknown one (a typo such as C(VM.Adit)) is refused before any
        request, with the nearest known names.
    type: list
    elements: str
seealso:
  - module: homeflare.proxmox.acl
'''

EXAMPLES = r'''
- name: Declare an auditor-like role
  homeflare.proxmox.role:
    roleid: Monitoring
    privs:
      - Sys.Audit
      - VM.Audit
      - Datastore.Audit
'''

RETURN = r'''
object:
  description: The role's managed fields as read after the run (empty when absent).
  returned: always
  type: dict
  sample: {"roleid": "Monitoring", "privs": ["Datastore.Audit", "Sys.Audit", "VM.Audit"]}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["privs"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.role import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
