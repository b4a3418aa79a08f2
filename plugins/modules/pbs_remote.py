#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pbs_remote
short_description: Declare a Proxmox Backup Server remote
version_added: 0.5.0
description:
  - Creates, repairs or removes one remote of a Proxmox Backup Server (C(/config/remote/{name}) on port 8007, with
    a C(PBSAPIToken) or a PBS login), the other server a sync job (M(homeflare.proxmox.pbs_sync_job)) pulls from or
    pushes to.
  - Options left undeclared are not managed (neither sent nor compared); a declared option is compared and written
    alone. An option declared empty (V('')) is removed (C(delete=)). Writes carry the digest of C(remote.cfg).
  - O(password) is write-only. It is sent when the remote is created and never read, compared, returned or shown,
    so a changed password is not drift; to replace it, remove the remote and create it again.
  - O(fingerprint) is compared (case aside) - a remote whose certificate fingerprint changed is repaired.
  - The vendor's limits (a O(name) of 3 to 32 characters, a O(comment) of at most 128 characters on one line, a
    host name or address, a port) are checked before any request.
  - A missing remote is PBS's own answer (C(no such remote)) confirmed by the remote list; any other failed read
    fails the task. PBS refuses to remove a remote a sync job still uses (remove the job first).
  - Needs C(Remote.Audit) on C(/remote/{name}) to read and C(Remote.Modify) to write.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  name:
    description: The remote's name, 3 to 32 letters, digits, C(_), C(.) and C(-) (not first).
    type: str
    required: true
  host:
    description: The other server's host name or IP address. Required to create.
    type: str
  port:
    description: Its API port (PBS uses 8007 when unset).
    type: int
  auth_id:
    description: The user or API token (C(user@realm) or C(user@realm!token)) to log in as. Required to create.
    type: str
  password:
    description:
      - The password or token secret of O(auth_id). Required to create; sent only then, never read or compared.
    type: str
  fingerprint:
    description:
      - The SHA-256 fingerprint of the other server's certificate (32 hex pairs separated by C(:)); empty removes
        it (the system's CAs must then trust the certificate).
    type: str
  use_node_proxy:
    description: Connect through the node's HTTP proxy.
    type: bool
  comment:
    description: A comment, at most 128 characters on one line.
    type: str
seealso:
  - module: homeflare.proxmox.pbs_sync_job
'''

EXAMPLES = r'''
- name: The main site, reached with a sync token
  homeflare.proxmox.pbs_remote:
    api_host: pbs-offsite.example.org
    api_token_id: "{{ pbs_token_id }}"
    api_token_secret: "{{ pbs_token_secret }}"
    name: main
    host: pbs.example.org
    auth_id: sync@pbs!offsite
    password: "{{ main_sync_token_secret }}"
    fingerprint: "{{ main_fingerprint }}"

- name: Remove the remote (its sync jobs first)
  homeflare.proxmox.pbs_remote:
    api_host: pbs-offsite.example.org
    name: main
    state: absent
'''

RETURN = r'''
object:
  description: The remote's managed fields as read after the run (empty when absent); never the password.
  returned: always
  type: dict
  sample: {"name": "main", "host": "pbs.example.org", "auth_id": "sync@pbs!offsite"}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["fingerprint"]}
served_by:
  description:
    - The server (C(host:port)) that answered last.
    - Absent when no server answered (refused before any request, or unreachable).
  returned: when a member answered
  type: str
  sample: "pbs.example.org:8007"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_remote import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
