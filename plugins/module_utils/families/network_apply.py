# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's network apply: PUT /nodes/{node}/network when, and only when, interfaces.new is staged
(staging.NetworkApply); or, with ``revert``, DELETE of the staged file."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.staging import NetworkApply

FAMILY = NetworkApply('network_apply', 'network_apply', identity=[Text('node', required=True, format='pve-node')],
                      schema=('PUT', '/nodes/{node}/network'))
