#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: apt_repository
short_description: Enable or disable an APT repository of a Proxmox VE node
version_added: 0.1.0
description:
  - Declares whether one APT repository of a node is enabled, through C(/nodes/{node}/apt/repositories) (the
    node's Updates > Repositories view). A task names either a standard repository by O(handle), or one
    repository entry (stanza) of a file by O(path) and O(index); one of the two, never both.
  - A standard repository in none of the files is disabled. Declared enabled, it is added with C(PUT handle=)
    to its standard file (C(proxmox.sources), C(pve-enterprise.sources), C(ceph.sources)). One that is in the
    files is switched on or off on its own stanza (C(POST path= index= enabled=)), because PVE 9.1's C(PUT)
    appends a second copy even when the repository is there, disabled. Declared disabled, a repository in none of
    the files is left alone, and every enabled stanza of it is switched off.
  - Every write carries the digest of the files as read, so another writer's edit is never overwritten (the task
    reads again and judges once more). PVE rewrites only the file it changes, as its own writer renders it; the
    other files keep their text.
  - Nothing is ever removed, and no repository entry is added by path (the API cannot), so there is no C(state)
    option; an O(path) or O(index) the node does not have fails naming what it has.
  - A standard repository counts only with the running release's suite (C(trixie) on PVE 9), as PVE counts it.
  - Reading needs C(Sys.Audit) on C(/nodes/{node}); writing C(Sys.Modify) on C(/nodes/{node}).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  node:
    description: The node whose repositories these are.
    type: str
    required: true
  handle:
    description:
      - A standard repository of PVE 9, as C(standard-repos) of the read names it. Not with O(path) and O(index).
      - V(enterprise) and V(ceph-squid-enterprise) need a subscription; V(no-subscription) is the one for nodes
        without (homeflare.proxmox.subscription).
    type: str
    choices: [enterprise, no-subscription, test, ceph-squid-enterprise, ceph-squid-no-subscription, ceph-squid-test]
  path:
    description:
      - The file of a repository entry, C(/etc/apt/sources.list) or C(/etc/apt/sources.list.d/<name>.list) or
        C(.sources). Needs O(index); not with O(handle).
    type: str
  index:
    description:
      - The entry's position in O(path) as PVE parses it, from V(0) (a C(.sources) file's stanzas, a C(.list) file's
        lines that hold a repository, commented out or not). Needs O(path).
      - The result's RV(object) shows what the entry is (types, URIs, suites, components); stanzas added before it
        move it.
    type: int
  enabled:
    description:
      - Whether the repository is enabled (wire name C(enabled); PVE writes C(Enabled) in a C(.sources) stanza, a
        C(#) in front of a C(.list) line).
    type: bool
    default: true
notes:
  - The digest PVE answers covers every file it reads, so an edit of any of them between the read and the write
    is another writer's change.
seealso:
  - module: homeflare.proxmox.subscription
'''

EXAMPLES = r'''
- name: No subscription yet - the no-subscription repository instead of the enterprise ones
  homeflare.proxmox.apt_repository:
    node: pve1
    handle: "{{ item.handle }}"
    enabled: "{{ item.enabled }}"
  loop:
    - {handle: no-subscription, enabled: true}
    - {handle: enterprise, enabled: false}
    - {handle: ceph-squid-enterprise, enabled: false}

- name: Switch off the Debian source-package stanza (the second one of debian.sources)
  homeflare.proxmox.apt_repository:
    node: pve1
    path: /etc/apt/sources.list.d/debian.sources
    index: 1
    enabled: false

# Verify without writing: `ansible-playbook site.yml --check --diff`
# plans an update naming `enabled` for every repository that differs.
'''

RETURN = r'''
object:
  description:
    - The repository's identity and O(enabled) as read after the run.
    - For a O(handle), C(stanzas) lists where it is in the files (C(path), C(index), C(enabled)); empty until it is
      added. For a O(path) and O(index), C(types), C(uris), C(suites) and C(components) say what the entry is.
  returned: always
  type: dict
  sample: {"node": "pve1", "handle": "no-subscription", "enabled": true,
           "stanzas": [{"path": "/etc/apt/sources.list.d/proxmox.sources", "index": 0, "enabled": true}]}
plan:
  description:
    - What the run decided. C(read) is V(found); C(action) is V(update) or V(none).
    - C(changed) lists the drifted option names (V(enabled)).
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["enabled"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.apt_repository import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
