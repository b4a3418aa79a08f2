# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every family ``declare`` and the export take, in dependency order: the one hand-kept list.

Each family file names its module (``Family.module``); ``declare``, the export, the roles' variables, the action
group and the tests' bad-input corpus and fault matrix all derive from ``FAMILIES``. The names are imported
explicitly because the module path (AnsiballZ) ships only the module_utils a module imports by name.

The order is the order objects are created: what an object refers to exists before it (the cluster role's order).
Day 0 comes first: a node's repositories, subscription, DNS, time zone and hosts (local files a join keeps), the
cluster (a join replaces the joining node's /etc/pve), then what lives in /etc/pve - the ACME account and plugins
before the node config naming them, the certificates last. Then a realm before its users, users before their tokens
and grants, ZFS pools and Ceph (monitors and managers before OSDs, OSDs before pools, pools and metadata servers
before CephFS) before the storages on them, storages before the files on them (ISOs, templates, images to import),
both before guests (their disks, templates and pools exist first), hardware mappings before the guests passing their
devices through, guests before their snapshots and the backup and replication jobs and HA resources that name them,
endpoints before matchers, HA resources before rules, aliases and ipsets before the rules that name them, the rules
before the options that enable the firewall, node interfaces (the bridges SDN zones sit on) before SDN fabrics, fabrics
before their nodes, then SDN controllers (an evpn controller may run over a fabric), IPAMs and DNS servers (what
zones name), all before SDN zones (a vxlan zone runs over a fabric), zones before their vnets before their subnets.
Deletes run in the reverse order. A Proxmox Backup Server's own objects come last, declared in a task of their own
(one task, one server): users before their tokens, remotes and datastores before the grants and jobs on them,
endpoints before the matchers naming them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# The list itself: the family files in dependency order. It is an import (not a list of strings) because the
# module path (AnsiballZ) ships only the module_utils a module imports by name; a module's globals keep the order
# names were bound in, so FAMILY_FILES is read back from this one statement.
_BOUND_BEFORE = frozenset(globals())
from ansible_collections.homeflare.proxmox.plugins.module_utils.families import (  # noqa: E402,F401  pylint: disable=unused-import
    apt_repository, subscription, node_dns, node_time, node_hosts, cluster, acme_account, acme_plugin, node_config,
    certificate, acme_certificate, realm, realm_sync, role, group, pool, user, api_token, zfs_pool, ceph_mon, ceph_mgr,
    ceph_osd, ceph_pool, ceph_mds, ceph_fs, ceph_flag, storage, storage_content, hardware_mapping, acl,
    cluster_options, metric_server, notification_endpoint, notification_matcher, lxc, vm, snapshot, backup, backup_job,
    replication_job, ha_resource, ha_rule, firewall_alias, firewall_ipset, firewall_rules, firewall_options,
    node_network, network_apply, sdn_fabric, sdn_fabric_node, sdn_controller, sdn_ipam, sdn_dns, sdn_zone, sdn_vnet,
    sdn_subnet, sdn_apply, pbs_user, pbs_api_token, pbs_remote, pbs_datastore, pbs_acl, pbs_sync_job, pbs_verify_job,
    pbs_prune_job,
    pbs_notification_endpoint, pbs_notification_matcher)

FAMILY_FILES = tuple(value for name, value in list(globals().items())
                     if name not in _BOUND_BEFORE and name != '_BOUND_BEFORE')

# (module name, family), in dependency order.
FAMILIES = tuple((family_file.FAMILY.module, family_file.FAMILY) for family_file in FAMILY_FILES)
ORDER = tuple(module for module, _family in FAMILIES)
# The applies (staging.Applier): planned once every object has its plan, run after every write and delete, each
# at most once per run and only when something is staged then.
APPLIERS = tuple(module for module, family in FAMILIES if getattr(family, 'applies', ()))
