# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PBS notification endpoint family: /config/notifications/endpoints/{type}/{name} (proxmox-backup
src/api2/config/notifications/{sendmail,smtp,gotify,webhook}.rs over proxmox-notify).

The crate is PVE's (proxmox-notify), so what each type takes, what its create needs, the list kind, the
name check and the built-in reset are PVE's (notifications.py); what differs is PBS's schema (names of 2 to 32
characters, a comment of at most 128 on one line, a port range, recipients of 2 to 64 characters, an http(s)
url), the paths, and the wire (repeated keys for lists and ``delete``, the digest beside ``data``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import SINGLE_LINE, bounded_problem
from ansible_collections.homeflare.proxmox.plugins.module_utils.notifications import endpoint_family

# PBS's rule for one mailto / mailto-user item (its schema: 2 to 64 characters on one line).
RECIPIENT = bounded_problem(2, 64, SINGLE_LINE, 'is %d characters long; PBS takes 2 to 64', 'holds a control character')

# proxmox-notify's HttpError keeps its status: 404 "endpoint 'x' not found" (a wrong type reads so too).
FAMILY = endpoint_family('pbs_notification_endpoint', 'pbs notification endpoint', 'pbs', r"endpoint '[^']*' not found",
                         dict(comment=dict(max_length=128, pattern=SINGLE_LINE), mailto=dict(valid=RECIPIENT),
                              port=dict(minimum=0, maximum=65535),
                              # PBS's http(s) URL pattern, shortened.
                              url=dict(pattern=r'^https?://[^\s/?#]+(?:[/?#]\S*)?$'),
                              **{'mailto-user': dict(valid=RECIPIENT)}))
