# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Ceph metadata server family: a row of /nodes/{node}/ceph/mds, POST/DELETE /nodes/{node}/ceph/mds/{name}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.ceph import DaemonFamily, daemon_family
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag


class MetadataServerFamily(DaemonFamily):
    def view(self, raw):
        """The index calls the create option hotstandby standby_replay."""
        return dict(raw, hotstandby=raw.get('standby_replay'))


FAMILY = daemon_family(
    'ceph_mds', 'mds', 'name', id_rule=dict(pattern=r'[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?', max_length=200),
    # Set when the daemon is made; changing it means a new daemon, so a difference is refused.
    fields=[Flag('hotstandby', create_only=True)],
    family_class=MetadataServerFamily,
)
