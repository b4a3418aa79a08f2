# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The notification endpoint family: /cluster/notifications/endpoints/{type}/{name}.

One family serves the four endpoint types (notifications.py: what each takes and needs, the list kind, the
check that a new name is free, the built-in reset, shared with PBS's family); PVE's schema adds the rules of
the name and the recipients.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import EMAIL, USER, format_problem
from ansible_collections.homeflare.proxmox.plugins.module_utils.notifications import endpoint_family


def email_or_username(text):
    # PVE's email-or-username format: an address, or a user name without whitespace, ':' or '/'.
    if EMAIL.fullmatch(text) is None and re.fullmatch(USER, text) is None:
        return 'is neither an e-mail address nor a user name'
    return None


# proxmox-notify answers a missing endpoint with 404 "endpoint 'x' not found".
FAMILY = endpoint_family('notification_endpoint', 'notification endpoint', 'pve', r'not found', {
    'mailto': dict(valid=email_or_username),
    'mailto-user': dict(valid=format_problem('pve-userid', 'is not a valid pve-userid (%s)'))})
