# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the Ceph daemon families share: a monitor, manager or metadata server is a row of its node's index
(pve-manager PVE/API2/Ceph/MON.pm, MGR.pm, MDS.pm), created and destroyed by a task at its id's path."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Exporting, Family, IndexStore, Lifecycle, Where, absent)

# PVE::Ceph::Tools check_ceph_installed: a node without Ceph's packages answers 500 "binary not installed: <path>".
CEPH_NOT_INSTALLED = r'binary not installed'


def first_node(client, family):
    """The node a cluster-wide Ceph object is read through (every node's API answers for the whole cluster): the
    first online one by name."""
    nodes = sorted(row.get('node') for row in client.get('/nodes', role=family.read_role) or []
                   if row.get('status') == 'online')
    return nodes[0] if nodes else None


def find_cluster_wide(client, family, key, host=None):
    """Every object of a Ceph family PVE lists the same on every node (a pool, a CephFS, a daemon), for an export:
    the first node's list, read once; a daemon's node is its ``host``, the others' the node they are read through."""
    node = first_node(client, family)
    if node is None:
        return []
    found = []
    for row in client.get(item_path(family.collection, dict(node=node)), role=family.read_role) or []:
        ident = {'node': row.get(host) if host and row.get(host) else node,
                 family.identity[-1].option: family.identity[-1].canonical(row.get(key))}
        raw = family.store.read(client, family, ident)
        if not absent(raw):
            found.append((ident, raw))
    return found


class ClusterWideFamily(Family):
    """A pool or a CephFS: the cluster's, declared through any node (its identity: the node PVE is asked through,
    then the name) and listed alike by every node, so an export reads the list once (``list_key``: the rows' name)."""

    list_key = 'name'

    def find_all(self, client):
        return find_cluster_wide(client, self, self.list_key)


def cluster_wide_identity():
    return [Text('node', required=True, format='pve-node'), Text('name', required=True, pattern=r'(?:^[^:/\s]+$)')]


class DaemonFamily(Family):
    """A monitor, manager or metadata server: found as a row of its node's index, never moved to another node."""

    def check_found(self, declaration, raw, changed):
        host = raw.get('host')
        node = declaration.ident['node']
        if isinstance(host, str) and host and host != node:
            raise Refused("%s '%s' runs on %s, not on %s; a daemon is never moved (create one on %s and "
                          "remove the other). Nothing was written."
                          % (self.name, declaration.ident['id'], host, node, node))

    def find_all(self, client):
        return find_cluster_wide(client, self, 'name', host='host')


def daemon_family(module, kind, id_wire, fields=(), id_rule=None, family_class=DaemonFamily):
    """The family of one daemon kind, registered as ``module``; ``id_wire`` is the id's name in the path (``monid``,
    ``id``, ``name``); ``family_class`` a DaemonFamily whose index rows need a view."""
    return family_class(
        module, 'ceph %s' % kind,
        identity=[Text('node', required=True, format='pve-node'),
                  Text(id_wire, option='id', required=True, **(id_rule or {}))],
        fields=list(fields),
        where=Where(collection='/nodes/{node}/ceph/%s' % kind, item='/nodes/{node}/ceph/%s/{%s}' % (kind, id_wire),
                    create_on='item', store=IndexStore('name')),
        lifecycle=Lifecycle(retain=True, task_timeout=120),
        exporting=Exporting(unavailable=CEPH_NOT_INSTALLED),
    )
