# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The notification matcher family: /cluster/notifications/matchers/{name} (its statements, the name check and
the built-in reset are proxmox-notify's, shared with PBS's family: notifications.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import format_problem
from ansible_collections.homeflare.proxmox.plugins.module_utils.notifications import matcher_family

# proxmox-notify answers a missing matcher with 404 "matcher 'x' not found".
FAMILY = matcher_family('notification_matcher', 'notification matcher', 'pve', r'not found',
                        {'target': dict(valid=format_problem('pve-configid', 'is not an endpoint name (%s)'))})
