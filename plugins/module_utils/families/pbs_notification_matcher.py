# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PBS notification matcher family: /config/notifications/matchers/{name} (proxmox-backup
src/api2/config/notifications/matchers.rs over proxmox-notify api/matcher.rs).

The matcher's statements are proxmox-notify's, so their checks and canonical forms are PVE's (notifications.py);
PBS's schema gives the name, target and comment rules, and PBS refuses a target that is no endpoint.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import SAFE_ID, SINGLE_LINE, bounded_problem
from ansible_collections.homeflare.proxmox.plugins.module_utils.notifications import matcher_family

# PBS's name schema for targets and matchers: 2 to 32 characters, SAFE_ID. Each target must also be an endpoint
# on the server: PBS refuses others (404 "endpoint 'x' does not exist"), so they are checked before a write.
TARGET = bounded_problem(2, 32, SAFE_ID, 'is %d characters long; an endpoint name has 2 to 32',
                         'is not an endpoint name (letters, digits, _, . and -, not - or . first)')

# proxmox-notify answers a missing matcher with 404 "matcher 'x' not found".
FAMILY = matcher_family('pbs_notification_matcher', 'pbs notification matcher', 'pbs', r"matcher '[^']*' not found",
                        {'target': dict(valid=TARGET), 'comment': dict(max_length=128, pattern=SINGLE_LINE)},
                        known_targets=True)
