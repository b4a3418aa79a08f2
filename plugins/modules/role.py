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
attributes:
  check_mode:
    support: full
    description: Sends no write; RV(plan) names the action and the drifted fields.
  diff_mode:
    support: full
    description: Shows the managed fields before and after, the same in check mode and in a real run.
  action_group:
    support: full
    description: One of the C(homeflare.proxmox.proxmox) group, so O(api_host) and the credentials can be set once in C(module_defaults).
    membership:
      - homeflare.proxmox.proxmox
options:
  roleid:
    description: The role's id (wire name C(roleid)).
    type: str
    required: true
  privs:
    description:
      - The complete set of privileges, for example V(VM.Audit) and V(Sys.Audit). Required with O(state=present);
        at least one privilege (an empty role cannot be told apart from a missing one).
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
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text, TokenSet
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Family


def require_privs(ident, declared, state):
    if state == 'present' and not declared.get('privs'):
        raise DeclarationError('option privs: declare at least one privilege for state=present')


FAMILY = Family(
    name='role',
    identity=[Text('roleid', required=True, pattern=r'^[A-Za-z0-9.\-_]+$')],
    fields=[TokenSet('privs', pattern=r'^[A-Za-z]+(\.[A-Za-z]+)+$')],
    collection='/access/roles',
    item='/access/roles/{roleid}',
    absence=Absence((404, 500), r'does not exist'),
    # The item read is a map {privilege: 1}; keys with a dot are privileges.
    view=lambda raw: {'privs': dict((key, flag) for key, flag in raw.items() if '.' in key)},
    check_declaration=require_privs,
)


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
