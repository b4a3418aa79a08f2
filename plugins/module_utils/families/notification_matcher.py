# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The notification matcher family: /cluster/notifications/matchers/{name} (its statements, the name check and
the built-in reset are proxmox-notify's, shared with PBS's family: notifications.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import why_not
from ansible_collections.homeflare.proxmox.plugins.module_utils.notifications import matcher_family


def bad_target(text):
    allowed = why_not('pve-configid', text)
    return 'is not an endpoint name (%s)' % allowed if allowed else None


FAMILY = matcher_family(
    'notification_matcher', 'notification matcher', 'pve', '/cluster/notifications',
    Text('name', required=True, format='pve-configid'),
    # proxmox-notify answers a missing matcher with 404 "matcher 'x' not found".
    r'not found',
    {'target': dict(valid=bad_target)},
)
