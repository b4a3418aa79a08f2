#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: declare
short_description: Declare many Proxmox VE objects of many families in one task
version_added: 0.2.0
description:
  - Takes O(objects), a mapping from a module name of this collection to a list of that module's own options (same
    names, defaults and meanings, O(homeflare.proxmox.pool#module:state=absent) included; the connection options are
    given once, for the whole task).
  - Every object is validated before any request; one invalid object fails the task naming it, and nothing is read or
    written.
  - Each family whose list endpoint carries every managed field is read once through it (C(GET /pools),
    C(GET /access/roles), C(GET /access/groups), C(GET /access/users?full=1), C(GET /storage), C(GET /access/acl),
    C(GET /cluster/backup), C(GET /cluster/notifications/matchers), ...); the others are read object by object. PVE
    filters those lists by privilege, so an object missing from its list is confirmed absent by the family's own
    typed read before a create is planned.
  - Every object is judged with the same comparison as its single-object module. A check run stops there. A real run
    writes only the drifted objects, each as its module would (write, wait, read back, re-judge), creates and updates
    in dependency order (realms, roles, groups, pools, users, API tokens, ZFS pools, Ceph monitors, managers, OSDs,
    pools, metadata servers, CephFS and flags, storages, the files on them, ACL grants, datacenter options,
    metric servers, notification endpoints then matchers, backup and replication jobs, HA resources then rules,
    firewall aliases, IP sets, rules and options), deletes after them in the reverse order.
  - If any object cannot be judged (a failed read, a refused change), nothing is written and the task fails listing
    every such object. A failed write stops the run; the failure lists what was written before it and what was not
    attempted. RV(results) holds every object's judgement either way.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  objects:
    description:
      - The declaration. Keys are module names of this collection (the day-0 V(apt_repository), V(subscription),
        V(node_dns), V(node_time), V(node_hosts), V(cluster), V(acme_account), V(acme_plugin), V(node_config),
        V(certificate), V(acme_certificate), then V(realm), V(role), V(group), V(pool), V(user),
        V(api_token), V(zfs_pool), V(ceph_mon), V(ceph_mgr), V(ceph_osd), V(ceph_pool), V(ceph_mds), V(ceph_fs),
        V(ceph_flag), V(storage), V(storage_content), V(acl), V(cluster_options), V(metric_server), V(notification_endpoint),
        V(notification_matcher), V(lxc), V(vm), V(backup_job), V(replication_job), V(ha_resource), V(ha_rule),
        V(firewall_alias), V(firewall_ipset), V(firewall_rules), V(firewall_options), V(node_network),
        V(network_apply), V(sdn_zone), V(sdn_vnet), V(sdn_subnet), V(sdn_apply), and a backup server's V(pbs_user), V(pbs_api_token), V(pbs_remote),
        V(pbs_datastore), V(pbs_acl), V(pbs_sync_job), V(pbs_verify_job), V(pbs_prune_job), V(pbs_notification_endpoint),
        V(pbs_notification_matcher)); each value is a list of that
        module's options, for example a list of pools, each with a C(poolid) and a C(comment). V(cluster_options)
        takes a list of one.
      - V(firewall_rules) and V(firewall_options) take one item per scope (C(scope) with its C(group) or C(node)).
      - Storage content (V(storage_content) - ISOs, templates, images to import) is fetched after the storages and
        before the guests made from it; check mode downloads nothing.
      - Guests (V(lxc), V(vm)) are created after pools and storages and before the jobs and HA resources that name
        them; their power states act after their config is written, and C(summary.power) counts the guests whose only
        change is their power state.
      - Day 0 comes first - a node's repositories, subscription, DNS, time zone and hosts, then the V(cluster) (its create and joins need a
        root@pam password login), then the ACME account and plugins, the node config, then the certificates.
      - Storage hardware (V(zfs_pool) and the V(ceph_*) families) comes before the storages on it - monitors and
        managers before OSDs, OSDs before pools, pools and metadata servers before CephFS. V(ceph_osd) needs a
        root@pam password login for the whole task (PVE lets no API token create or destroy an OSD).
      - A Proxmox Backup Server's objects (the V(pbs_*) modules) are declared in a task of their own, with the
        backup server's connection (port 8007); a task that mixes them with Proxmox VE objects is refused before any
        request.
      - The applies run last, after every write and delete, each only if something is staged by then - V(network_apply)
        one item per node (C(node)), one node at a time, then V(sdn_apply) one item (C({})). In check mode an apply's
        plan also lists the objects of the same task that a real run would stage.
      - Secrets inside (a storage's O(homeflare.proxmox.storage#module:password)) are masked like the module's own
        C(no_log) options.
      - An API token's C(create_missing) is refused before any request - a new token's secret exists only in the
        answer that creates it and this module returns no secrets; create tokens with
        M(homeflare.proxmox.api_token) or M(homeflare.proxmox.pbs_api_token) and register the result.
    type: dict
    required: true
  fail_on_drift:
    description:
      - In check mode, fail after judging every object when any of them would change, listing each drifted object and
        its fields. The gate for CI; a playbook run with C(--check) then exits non-zero on drift.
      - Has no effect on a real run.
    type: bool
    default: false
seealso:
  - module: homeflare.proxmox.pool
  - module: homeflare.proxmox.role
  - module: homeflare.proxmox.group
  - module: homeflare.proxmox.user
  - module: homeflare.proxmox.storage
  - module: homeflare.proxmox.acl
  - module: homeflare.proxmox.cluster_options
'''

EXAMPLES = r'''
- name: Declare the access model of the cluster in one task
  homeflare.proxmox.declare:
    objects:
      role:
        - roleid: Monitoring
          privs: [Sys.Audit, VM.Audit]
      group:
        - groupid: operators
      pool:
        - poolid: lab
          comment: Lab guests
        - poolid: scratch
          state: absent
      user:
        - userid: alice@pve
          groups: [operators]
      acl:
        - path: /pool/lab
          type: group
          ugid: operators
          roleid: Monitoring

# In CI: `ansible-playbook site.yml --check --diff` exits non-zero when the cluster drifted.
- name: Gate on drift
  homeflare.proxmox.declare:
    objects: "{{ cluster_objects }}"
    fail_on_drift: true
'''

RETURN = r'''
results:
  description: One entry per declared object, in declaration order (by family, then as listed).
  returned: always
  type: list
  elements: dict
  contains:
    module:
      description: The family's module name.
      type: str
      sample: pool
    name:
      description: The object, named by its family and identity.
      type: str
      sample: pool 'lab'
    plan:
      description: As the single-object module's RV(homeflare.proxmox.pool#module:plan); missing when the object could not be judged.
      type: dict
      sample: {"read": "found", "action": "update", "changed": ["comment"]}
    object:
      description: The managed fields as read (for an object written in this run, as read back after the write).
      type: dict
      sample: {"poolid": "lab", "comment": "Lab guests"}
    failed:
      description: Present and true for an object that could not be judged or written; C(msg) says why.
      type: bool
  sample: [{"module": "pool", "name": "pool 'lab'", "plan": {"read": "found", "action": "none", "changed": []},
            "object": {"poolid": "lab", "comment": "Lab guests"}}]
summary:
  description:
    - Counts of the objects judged, matched (no change), to create, update and delete, to power on or off only, and
      failed; and of the applies
      (M(homeflare.proxmox.sdn_apply), M(homeflare.proxmox.network_apply)) that apply or revert staged changes.
    - C(prune) and C(rollback) count the snapshots (M(homeflare.proxmox.snapshot)) whose run only removes older ones
      of their series (C(keep)) or only rolls the guest back; C(backup) the backups (M(homeflare.proxmox.backup))
      that run.
  returned: always
  type: dict
  sample: {"judged": 12, "matched": 10, "create": 1, "update": 1, "delete": 0, "apply": 0, "revert": 0, "power": 0,
           "prune": 0, "rollback": 0, "backup": 0, "failed": 0}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.declare import DECLARE
from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module


def main():
    run_module(DECLARE)


if __name__ == '__main__':
    main()
