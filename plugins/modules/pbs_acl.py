#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pbs_acl
short_description: Declare one Proxmox Backup Server ACL entry
version_added: 0.5.0
description:
  - Grants or revokes one role on one path for one user or API token of a Proxmox Backup Server (C(PUT /access/acl)
    on port 8007, one role per request, C(delete=1) to revoke).
  - An entry is a row of C(GET /access/acl) identified by (O(path), O(auth_id), O(role)); changing any of them
    declares another entry. Only O(propagate) is managed on an existing entry. Updates carry the digest of
    C(acl.cfg).
  - PBS tokens are always privilege-separated - a token holds what its own entries grant, intersected with what
    its user holds on the same path. So a token for PVE's C(pbs) storage or the OpenBao engine needs an entry for
    the token (C(user@realm!name)) and one for its user.
  - PBS keeps C(NoAccess) alone - granting it to an auth id on a path drops that auth id's other roles there, and
    granting another role drops a C(NoAccess) there. Declare either, not both.
  - Paths are normalised the way PBS stores them (C(datastore/cluster/) is C(/datastore/cluster)); a path outside
    PBS's roots (C(/access), C(/datastore), C(/remote), C(/system), C(/tape)) or too deep is refused before any
    request. PBS refuses an entry for a user or token that does not exist (declare them first).
  - PBS lists every entry only to a holder of C(Sys.Audit) on C(/access/acl) (others get their own tokens' entries,
    without an error). When the row is missing, C(GET /access/permissions) confirms the credential could have seen
    it; otherwise the task fails instead of planning a create. Writing needs C(Permissions.Modify) on
    C(/access/acl). After a write the entry is read back and must be there.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  path:
    description: The ACL path, for example C(/), C(/datastore/cluster), C(/datastore/cluster/ns1), C(/remote/other).
    type: str
    required: true
  auth_id:
    description: The user (C(name@realm)) or API token (C(name@realm!token)) the role is granted to (wire name
      C(auth-id)). PBS has no group members, so groups are not declared here.
    type: str
    required: true
  role:
    description: The role granted.
    type: str
    required: true
    choices: [Admin, Audit, NoAccess, DatastoreAdmin, DatastoreReader, DatastoreBackup, DatastorePowerUser,
              DatastoreAudit, RemoteAudit, RemoteAdmin, RemoteSyncOperator, RemoteSyncPushOperator,
              RemoteDatastorePowerUser, RemoteDatastoreAdmin, TapeAudit, TapeAdmin, TapeOperator, TapeReader]
  propagate:
    description: Whether the entry is inherited below O(path).
    type: bool
    default: true
seealso:
  - module: homeflare.proxmox.pbs_user
  - module: homeflare.proxmox.pbs_api_token
  - module: homeflare.proxmox.acl
'''

EXAMPLES = r'''
- name: Let PVE's storage user back up into the cluster datastore
  homeflare.proxmox.pbs_acl:
    api_host: pbs.example.org
    api_token_id: "{{ pbs_token_id }}"
    api_token_secret: "{{ pbs_token_secret }}"
    path: /datastore/cluster
    auth_id: pve-cluster@pbs
    role: DatastoreBackup

- name: And its token, which never holds more than its user
  homeflare.proxmox.pbs_acl:
    api_host: pbs.example.org
    path: /datastore/cluster
    auth_id: pve-cluster@pbs!storage
    role: DatastoreBackup

- name: Revoke an auditor's entry
  homeflare.proxmox.pbs_acl:
    api_host: pbs.example.org
    path: /
    auth_id: audit@pbs
    role: Audit
    state: absent
'''

RETURN = r'''
object:
  description: The entry as read after the run (empty when not bound).
  returned: always
  type: dict
  sample: {"path": "/datastore/cluster", "auth_id": "pve-cluster@pbs!storage", "role": "DatastoreBackup",
           "propagate": true}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "absent", "action": "create", "changed": []}
served_by:
  description:
    - The server (C(host:port)) that answered last.
    - Absent when no server answered (refused before any request, or unreachable).
  returned: when a member answered
  type: str
  sample: "pbs.example.org:8007"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_acl import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
