#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: node_config
short_description: Declare the options of a Proxmox VE node's config
version_added: 0.1.0
description:
  - Repairs the declared options of one node's C(/etc/pve/nodes/<node>/config) (C(/nodes/{node}/config)), its
    notes, wake-on-LAN, start-on-boot delay, ballooning target and ACME settings. The config always exists (a node
    without the file has no options set), so there is nothing to create or remove and no C(state) option.
  - Options left undeclared are not managed (neither sent nor compared). An option declared empty (V(''), or
    V([]) for O(acme_domains)) is removed from the file (C(delete=)), so PVE's default applies again.
  - Every write carries the file's digest, so another writer's change is never overwritten (PVE refuses the write;
    the task reads, judges and writes once more).
  - PVE checks the ACME settings as a whole (each domain once across O(acme) and O(acme_domains), each plugin
    defined in C(/cluster/acme/plugins)); a refusal fails the task with PVE's words.
  - Reading needs C(Sys.Audit) on C(/); writing C(Sys.Modify) on C(/).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  node:
    description: The node whose config this is (PVE proxies the call to it).
    type: str
    required: true
  description:
    description:
      - The node's notes (the Notes panel), kept as comment lines at the top of the file, up to 65536 characters.
      - Compared as PVE reads it back; every line ends with a newline and trailing spaces of a line are gone.
    type: str
  wakeonlan:
    description:
      - Wake-on-LAN settings as C([mac=]<MAC address>[,bind-interface=<interface>][,broadcast-address=<IPv4>]),
        compared as a set of pairs.
    type: str
  startall_onboot_delay:
    description:
      - Seconds to wait before starting the guests marked start-on-boot, 0 to 300 (wire name
        C(startall-onboot-delay); PVE's default 0).
    type: int
  ballooning_target:
    description:
      - The RAM usage target for ballooning in percent of total memory, 0 to 100 (wire name C(ballooning-target);
        PVE's default 80).
    type: int
  acme:
    description:
      - The node's ACME settings as C([account=<name>][,domains=<domain>[;<domain>...]]) (the account of
        M(homeflare.proxmox.acme_account), PVE's default V(default); domains validated with the standalone
        plugin), compared as a set of pairs.
    type: str
  acme_domains:
    description:
      - The node's ACME domains with their validation plugin, each
        C([domain=]<domain>[,plugin=<id>][,alias=<domain>]) (wire names C(acmedomain0) to C(acmedomain5), at most
        six).
      - Compared as a set, order-free, as PVE reads them back (the domain lower-cased; no plugin is the same as
        V(plugin=standalone)). A repair keeps the slots of the domains that stay, puts new domains in the free
        slots from C(acmedomain0) on and clears the others; V([]) clears them all.
      - M(homeflare.proxmox.acme_certificate) orders the certificate for these domains.
    type: list
    elements: str
seealso:
  - module: homeflare.proxmox.acme_plugin
  - module: homeflare.proxmox.acme_certificate
'''

EXAMPLES = r'''
- name: Notes, wake-on-LAN and the ACME domains of a node
  homeflare.proxmox.node_config:
    node: pve1
    description: |
      Rack 3, top. Managed by Ansible.
    wakeonlan: BC:24:11:00:00:01
    startall_onboot_delay: 30
    acme: account=default
    acme_domains:
      - domain=pve1.example.org,plugin=cloudflare
      - pve.example.org

# Verify without writing: `ansible-playbook site.yml --check --diff`
# names in plan.changed every option that differs from the declaration.
- name: No wake-on-LAN settings any more (removed from the file)
  homeflare.proxmox.node_config:
    node: pve1
    wakeonlan: ''
'''

RETURN = r'''
object:
  description: The node and the declared options as read after the run.
  returned: always
  type: dict
  sample: {"node": "pve1", "wakeonlan": "mac=BC:24:11:00:00:01", "acme_domains": ["domain=pve.example.org",
           "domain=pve1.example.org,plugin=cloudflare"]}
plan:
  description:
    - What the run decided. C(read) is V(found); C(action) is V(update) or V(none).
    - C(changed) lists the drifted option names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["acme_domains"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.node_config import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
