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

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import SAFE_ID, SINGLE_LINE
from ansible_collections.homeflare.proxmox.plugins.module_utils.notifications import matcher_family

TARGET_NAME = re.compile(SAFE_ID)


def bad_target(text):
    """PBS's name schema for targets and matchers: 2 to 32 characters, SAFE_ID."""
    if not 2 <= len(text) <= 32:
        return 'is %d characters long; an endpoint name has 2 to 32' % len(text)
    if TARGET_NAME.fullmatch(text) is None:
        return 'is not an endpoint name (letters, digits, _, . and -, not - or . first)'
    return None


FAMILY = matcher_family(
    'pbs_notification_matcher', 'pbs notification matcher', 'pbs', '/config/notifications',
    Text('name', required=True, min_length=2, max_length=32, pattern=SAFE_ID),
    # proxmox-notify answers a missing matcher with 404 "matcher 'x' not found".
    r"matcher '[^']*' not found",
    {
        # Each target must be an endpoint on the server: PBS refuses others (404 "endpoint 'x' does not exist").
        'target': dict(valid=bad_target),
        'comment': dict(max_length=128, pattern=SINGLE_LINE),
    },
    known_targets=True,
)
