# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Ceph manager family: a row of /nodes/{node}/ceph/mgr, POST/DELETE /nodes/{node}/ceph/mgr/{id}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.ceph import daemon_family

FAMILY = daemon_family('ceph_mgr', 'mgr', 'id',
                       id_rule=dict(pattern=r'[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?', max_length=200))
