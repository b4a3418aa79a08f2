#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: cluster
short_description: Declare a Proxmox VE cluster and its members (create, then join)
version_added: 0.2.0
description:
  - Takes freshly installed standalone nodes to one cluster. When no declared member is in the cluster yet, it is
    created on the first member of O(members) (C(POST /cluster/config)); every other member that is not in it yet
    joins it (C(POST /cluster/config/join) on the joining node, with the fingerprint and address of a member read
    from C(GET /cluster/config/join) and root@pam's password of that member, O(join_password)). Each create and join
    is a PVE task, waited for up to O(task_timeout) seconds; then the module waits up to O(quorum_timeout) seconds for
    the cluster to be quorate with every declared member online.
  - A node not yet in the cluster answers for itself only, so every such member is reached at its own
    O(members[].api_host) with the task's credentials, each with a login of its own.
  - A cluster whose declared members are all in it is a no-op with zero writes (one or two reads). A node that is in
    another cluster is refused, never forced. A member of the cluster that the task does not declare is refused too -
    the module never removes a member (the message gives C(pvecm delnode)). Corosync links, votes and node ids of a
    member are compared when declared, and a difference is refused (no API method edits C(corosync.conf)).
  - PVE lets only C(root@pam) create or join a cluster (the methods have no permissions a token could be granted),
    connect with O(api_user=root@pam) and O(api_password). A token can verify (check mode, adopting a complete
    cluster) but any write is refused before it is sent.
  - In check mode nothing is written; the result's RV(plan) lists the create and the joins (C(steps)), and the diff
    shows the member list before and after.
  - A join whose answer never came (a member that hangs) fails the task and is never sent again; the next run reads
    whether the node joined.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  name:
    description:
      - The cluster's name (wire name C(clustername)), a node-name-like label of at most 15 characters.
    type: str
    required: true
  members:
    description:
      - Every member, in order; the first one creates the cluster when none of them is in it yet.
    type: list
    elements: dict
    required: true
    suboptions:
      node:
        description: The node's name, as PVE knows it.
        type: str
        required: true
      api_host:
        description:
          - Where this node's API answers, C(host) or C(host:port) (port 8006 unless given).
          - Needed for a node that is not in the cluster yet (it answers for itself only) and for the first member
            of a cluster still to be created; a member of a complete cluster is read through the task's
            connection, so a declaration of a running cluster (and the export) can leave it out.
        type: str
      links:
        description:
          - The node's corosync link addresses, C(link0) first (IP addresses on the node). Empty - PVE uses the
            node's own address as its one link. Every member must declare the same number of links.
        type: list
        elements: str
        default: []
      votes:
        description: The node's quorum votes (PVE's default 1). Compared when declared; a difference is refused.
        type: int
      nodeid:
        description: The node's corosync node id (PVE picks the lowest free one). Compared when declared.
        type: int
  join_password:
    description:
      - The C(root@pam) password of the member a joining node logs in to (PVE's C(password)). Needed only when a join
        is planned; never compared, returned or shown.
    type: str
  task_timeout:
    description:
      - Seconds to wait for each create or join task to end.
    type: int
    default: 120
  quorum_timeout:
    description:
      - Seconds to wait after the writes for the cluster to be quorate with every declared member online.
    type: int
    default: 60
notes:
  - Order a day-0 run as the C(homeflare.proxmox.node) role does - repositories, DNS, time zone and hosts first, then
    the cluster, then what lives in C(/etc/pve) (node config, certificates, ACME), because a join replaces the joining
    node's C(/etc/pve) with the cluster's.
seealso:
  - module: homeflare.proxmox.node_hosts
  - module: homeflare.proxmox.apt_repository
'''

EXAMPLES = r'''
# examples-test: skip it joins fresh nodes at their own addresses (tests/integration/test_day0_cluster.py runs it)
- name: Three fresh nodes into one cluster
  homeflare.proxmox.cluster:
    api_host: 10.0.0.11
    api_user: root@pam
    api_password: "{{ vault_root_password }}"
    name: lab
    members:
      - {node: pve1, api_host: 10.0.0.11, links: [10.10.0.11]}
      - {node: pve2, api_host: 10.0.0.12, links: [10.10.0.12]}
      - {node: pve3, api_host: 10.0.0.13, links: [10.10.0.13]}
    join_password: "{{ vault_root_password }}"

# Verify with a token (no write is ever sent): --check --diff lists the joins a real run would make.
'''

RETURN = r'''
object:
  description:
    - The cluster as read after the run (empty while there is none) - its name, the declared members that are in it
      and whether it is quorate.
  returned: always
  type: dict
  sample: {"name": "lab", "members": ["pve1", "pve2", "pve3"], "quorate": true}
plan:
  description:
    - What the run decided. C(read) is V(absent) (no cluster yet) or V(found); C(action) V(create), V(update) (joins)
      or V(none); C(changed) is V(members) when a node is to join; C(steps) lists the create and each join, in the
      order they run (left out when there is nothing to do).
  returned: always
  type: dict
  sample: {"read": "absent", "action": "create", "changed": ["members"],
           "steps": [{"node": "pve1", "action": "create"}, {"node": "pve2", "action": "join"}]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.cluster import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
