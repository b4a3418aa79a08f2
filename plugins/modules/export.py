#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: export
short_description: Read a live cluster or backup server as the objects homeflare.proxmox.declare takes
version_added: 0.5.0
description:
  - Reads every object family the collection declares, on a Proxmox VE cluster (O(server=pve)) or a Proxmox Backup
    Server (O(server=pbs)), and returns C(objects) in exactly the shape M(homeflare.proxmox.declare) takes, per
    module a list of that module's options.
  - Each object holds only what its module manages - its identity, every field that is set, and the fields whose
    undeclared meaning is a default only where they differ from it - in the normalised form the comparison uses,
    so a C(declare) of the export is a no-op. The families and the objects come in a stable order.
  - A family whose list carries every managed field costs one request; the others one list and one read per
    object, O(workers) at a time.
  - Secrets are never read back by the server, so they cannot be exported. Each secret an object's type takes is a
    placeholder, C({{ <variable> }}), and C(secrets) lists the variables to provide (in a vars file or a vault) before
    the declaration can recreate the object; an existing object's secret is never sent.
  - Guests are exported as their current config, never with anything that would create, resize or move them.
  - Read-only; check mode changes nothing.
author:
  - homeflare.proxmox contributors (@homeflare)
options:
  server:
    description: Whether O(api_host) is a Proxmox VE cluster (V(pve)) or a Proxmox Backup Server (V(pbs)).
    type: str
    default: pve
    choices: [pve, pbs]
  include:
    description: Only these modules' families (names of this collection's modules); all when empty.
    type: list
    elements: str
    default: []
  exclude:
    description: Not these modules' families.
    type: list
    elements: str
    default: []
  identity_pattern:
    description:
      - A regular expression; only objects whose identity (its values joined by C(/), for example C(ci@pve/deploy)
        for an API token) it matches somewhere are exported.
    type: str
  include_builtin:
    description:
      - Whether objects the server ships are exported too - the built-in roles, the C(pam) and C(pve) realms,
        C(root@pam), the C(local) storage, the built-in notification targets and matcher.
    type: bool
    default: false
  workers:
    description: How many per-object reads run at once.
    type: int
    default: 8
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes.info
seealso:
  - module: homeflare.proxmox.declare
'''

EXAMPLES = r'''
- name: Read the cluster as a declaration
  homeflare.proxmox.export:
    api_host: [pve1.example.org, pve2.example.org]
  register: exported

- name: Keep it under version control
  ansible.builtin.copy:
    content: "{{ {'cluster_objects': exported.objects} | to_nice_yaml(indent=2) }}"
    dest: group_vars/all/cluster.yml
    mode: "0644"
  delegate_to: localhost

- name: The variables its secret placeholders name
  ansible.builtin.debug:
    msg: "{{ exported.secrets | map(attribute='variable') | list }}"
'''

RETURN = r'''
objects:
  description: Per module (in declare's order), the options of each object (in identity order).
  returned: always
  type: dict
  sample: {"pool": [{"poolid": "lab", "comment": "Lab guests"}], "group": [{"groupid": "operators"}]}
secrets:
  description: The variables the secret placeholders name, with the object and option each one stands for.
  returned: always
  type: list
  elements: dict
  sample: [{"variable": "storage_backup_cifs_password", "module": "storage", "object": "storage 'backup-cifs'",
            "option": "password"}]
not_exported:
  description:
    - Families not exported, each with the reason (Ceph's when Ceph is not installed; snapshots, which are points in
      time rather than declarations, and backups, always). Never named C(skipped), which Ansible would read as a skipped task.
  returned: always
  type: dict
refused:
  description:
    - Live objects left out because their module refuses to declare them (Ceph's own C(.mgr) pool, a pool a CephFS
      owns), each with the module's reason; only declarations declare accepts are exported.
  returned: always
  type: list
  elements: dict
  sample: [{"module": "ceph_pool", "object": "ceph pool 'pve1', '.mgr'",
            "reason": "option name: '.mgr' is the Ceph manager's own pool; it is never declared here"}]
counts:
  description: How many objects of each module were exported.
  returned: always
  type: dict
served_by:
  description: The member (C(host:port)) that answered last.
  returned: when a member answered
  type: str
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.export import EXPORT


def main():
    run_module(EXPORT)


if __name__ == '__main__':
    main()
