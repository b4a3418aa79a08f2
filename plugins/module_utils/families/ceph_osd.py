# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Ceph OSD family: the OSD on one disk of a node (pve-manager PVE/API2/Ceph/OSD.pm).

An OSD is named by Ceph (``osd.7``), so it is declared by the disk it lives on: the node's disk list
(``GET /nodes/{node}/disks/list``) says which OSD a disk holds, the CRUSH tree (``GET …/ceph/osd``) its
state. Removal takes the OSD out, stops it, waits until Ceph reports it down, and only then destroys it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.ceph import CEPH_NOT_INSTALLED
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import NotConverged, Refused, Unreadable
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    ABSENT, Exporting, Family, ItemStore, Lifecycle, Where, absent)
from ansible_collections.homeflare.proxmox.plugins.module_utils.tasks import poll_until, wait_for_task

# How long Ceph may take to report a stopped OSD down.
DOWN_TIMEOUT = 60


def osd_leaf(tree, osdid):
    """The OSD's leaf of the CRUSH tree (root → hosts → OSDs), or None."""
    pending = [tree.get('root') or {}]
    while pending:
        node = pending.pop()
        if node.get('type') == 'osd' and str(node.get('id')) == str(osdid):
            return node
        pending.extend(node.get('children') or [])
    return None


class Osds(ItemStore):

    def read(self, client, family, ident):
        node, dev = ident['node'], ident['dev']
        disks = client.get(item_path('/nodes/{node}/disks/list', dict(node=node)), role=family.read_role) or []
        disk = next((row for row in disks if dev in (row.get('devpath'), row.get('by_id_link'))), None)
        if disk is None:
            raise Refused('%s has no disk %s (GET /nodes/%s/disks/list); an OSD is declared by the disk it is on'
                          % (node, dev, node))
        osdid = disk.get('osdid')
        osdid = -1 if osdid is None else int(osdid)  # -1: the disk holds no OSD
        if osdid < 0:
            return ABSENT
        tree = client.get(family.collection_path(ident), role=family.read_role) or {}
        leaf = osd_leaf(tree, osdid)
        if leaf is None:
            raise Unreadable('disk %s of %s holds osd.%d, but the CRUSH tree has no such OSD' % (dev, node, osdid))
        return dict(osdid=osdid, up=leaf.get('status') == 'up', **{
            'in': bool(int(leaf.get('in') or 0)), 'crush-device-class': leaf.get('device_class')})

    def delete(self, client, family, ident):
        """out, stop, a settled down, then destroy: Ceph refuses to destroy an OSD that is in or up."""
        raw = self.read(client, family, ident)
        if absent(raw):
            return None
        node, osdid = ident['node'], raw['osdid']
        path = item_path('/nodes/{node}/ceph/osd/{osdid}', dict(node=node, osdid=osdid))
        if raw['in']:
            client.post(path + '/out', {}, role=family.write_role)
        if raw['up']:
            upid = client.post(item_path('/nodes/{node}/ceph/stop', dict(node=node)),
                               {'service': 'osd.%d' % osdid}, role=family.write_role)
            wait_for_task(client, upid, family.write_role, DOWN_TIMEOUT)
            if not poll_until(lambda: not self.read(client, family, ident)['up'], DOWN_TIMEOUT):
                raise NotConverged('osd.%d on %s was taken out and stopped but Ceph still reports it up after %d s; '
                                   'it was not destroyed' % (osdid, node, DOWN_TIMEOUT))
        return client.delete(path, role=family.write_role)


class OsdFamily(Family):
    def find_all(self, client):
        """Each node's disks that hold an OSD, by their by-id link (stable across reboots) or device path."""
        found = []
        for row in client.get('/nodes', role=self.read_role) or []:
            node = row.get('node')
            disks = client.get(item_path('/nodes/{node}/disks/list', dict(node=node)), role=self.read_role) or []
            for disk in disks:
                if disk.get('osdid') is not None and int(disk['osdid']) >= 0:
                    ident = {'node': node, 'dev': disk.get('by_id_link') or disk.get('devpath')}
                    found.append((ident, self.store.read(client, self, ident)))
        return found

    def report(self, raw):
        return {'osdid': raw['osdid'], 'in': raw['in'], 'up': raw['up']}


FAMILY = OsdFamily(
    'ceph_osd', 'ceph osd',
    identity=[Text('node', required=True, format='pve-node'), Text('dev', required=True)],
    fields=[
        # Set when the OSD is made; Ceph keeps it in the CRUSH map, and a difference is refused.
        Text('crush-device-class', create_only=True),
        Flag('encrypted', create_param=True),
    ],
    where=Where(collection='/nodes/{node}/ceph/osd', item='/nodes/{node}/ceph/osd', store=Osds()),
    lifecycle=Lifecycle(retain=True, task_timeout=600),
    exporting=Exporting(unavailable=CEPH_NOT_INSTALLED),
)
