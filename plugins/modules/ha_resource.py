#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: ha_resource
short_description: Declare a Proxmox VE HA resource (a guest under the HA manager)
version_added: 0.2.0
description:
  - Puts one guest under the HA manager, repairs its HA settings, or takes it out (C(/cluster/ha/resources/{sid})).
  - Every option has PVE's default when undeclared (O(hastate=started), no comment, one restart, one relocation,
    failback on), so a setting changed by hand is reported as drift and repaired.
  - O(hastate) is configuration that moves power, at once - V(started) boots a stopped guest, V(stopped) and
    V(disabled) shut a running one down, V(ignored) takes it out of the HA manager's hands. Review a
    C(--check --diff) run before applying a changed O(hastate).
  - Removing the resource (O(state=absent)) leaves the guest as it is, and PVE also removes it from every HA rule
    (C(purge), on by default), deleting the rules left with no resources. Remove the rules first
    (M(homeflare.proxmox.ha_rule) with O(state=absent)), in the reverse order of creation.
  - The guest must exist, or PVE refuses the create (C(resource 'vm:100' does not exist in cluster)). PVE checks
    the VMID only, not whether V(vm:) names a VM and V(ct:) a container.
  - Not managed - HA groups (PVE 9 has migrated them to rules, see M(homeflare.proxmox.ha_rule)), so C(group) is
    never sent; C(type), which PVE takes from the sid's prefix and refuses on update; PVE's C(digest).
  - Writes need C(Sys.Console) on C(/) (which also opens a shell on every node); reads C(Sys.Audit).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  sid:
    description:
      - The guest's HA id (wire name C(sid)) - V(vm:<vmid>) for a VM, V(ct:<vmid>) for a container.
      - A bare VMID or another prefix is refused before any request (PVE would take a bare VMID, but reads answer
        the prefixed form only).
    type: str
    required: true
  hastate:
    description:
      - The state the HA manager keeps the guest in (wire name C(state); O(state) says whether the resource exists).
      - V(enabled) is PVE's alias for V(started) and reads back as V(started); it is refused before any request.
    type: str
    choices: [started, stopped, enabled, disabled, ignored]
    default: started
  comment:
    description:
      - The resource's comment, at most 4096 characters. Undeclared means none; clearing it sends C(delete=comment).
    type: str
    default: ''
  max_restart:
    description: How often the HA manager restarts the guest on its node after a failed start before relocating it.
    type: int
    default: 1
  max_relocate:
    description: How often the HA manager relocates the guest to another node after failed starts.
    type: int
    default: 1
  failback:
    description:
      - Whether the guest migrates back to the node of highest priority in its node-affinity rule when that node
        comes online again.
    type: bool
    default: true
seealso:
  - module: homeflare.proxmox.ha_rule
'''

EXAMPLES = r'''
- name: Keep the web VM running under the HA manager
  homeflare.proxmox.ha_resource:
    sid: vm:100
    comment: Web front end
    max_restart: 2

- name: Keep the test container stopped, but recovered on another node if its node fails
  homeflare.proxmox.ha_resource:
    sid: ct:120
    hastate: stopped

# Verify without writing: `ansible-playbook site.yml --check --diff`
# reports plan.action (create/update/delete/none) and plan.changed (field names).
- name: Take the container out of HA (the guest keeps running)
  homeflare.proxmox.ha_resource:
    sid: ct:101
    state: absent
'''

RETURN = r'''
object:
  description: The resource's managed fields as read after the run (empty when absent).
  returned: always
  type: dict
  sample: {"sid": "vm:100", "hastate": "started", "comment": "Web front end", "max_restart": 2, "max_relocate": 1,
           "failback": true}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["hastate"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.ha_resource import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
