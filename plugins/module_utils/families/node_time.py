# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's time zone: /nodes/{node}/time (pve-manager PVE/API2/Nodes.pm time, set_timezone).

The object always exists. PVE sets the zone with ``timedatectl set-timezone`` (pve-common Systemd.pm), which
takes a name ``timedatectl list-timezones`` lists: the tz database on the node, not on the controller. So the
name's shape is checked before any request, and whether the node knows it is PVE's answer
(``timezone: No such timezone``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family, Lifecycle, Where

TIME = '/nodes/{node}/time'
# A tz database name (tz-link.html "Theory"): components of ASCII letters, digits, '_', '-' and '+' (systemd's
# timezone_is_valid takes those and '/'), each starting with an upper-case letter as every zone and link does
# (UTC, Europe/Vienna, America/Argentina/Buenos_Aires, Etc/GMT+5, EST5EDT), at most 14 characters each.
ZONE_COMPONENT = r'[A-Z][A-Za-z0-9_+\-]{0,13}'
ZONE = re.compile(r'%s(?:/%s)*' % (ZONE_COMPONENT, ZONE_COMPONENT))


class TimeZone(Text):
    """A time zone name (the schema names no format for it: its rule is the node's tz database)."""

    def check_text(self, text):
        super(TimeZone, self).check_text(text)
        if not ZONE.fullmatch(text):
            self.refuse(text, 'is not a time zone name (Area/Location of the tz database, such as Europe/Vienna or '
                              'America/New_York, or UTC)')


class TimeFamily(Family):
    def check_declaration(self, declaration):
        if declaration.values.get('timezone') == '':
            raise DeclarationError('option timezone must name a time zone (a node always has one, such as UTC)')


FAMILY = TimeFamily(
    'node_time', 'time zone of node',
    identity=[Text('node', required=True, format='pve-node')],
    fields=[TimeZone('timezone', required=True)],
    where=Where(item=TIME, schema=('PUT', TIME)),
    lifecycle=Lifecycle(singleton=True),
)
