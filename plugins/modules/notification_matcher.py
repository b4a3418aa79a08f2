#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: notification_matcher
short_description: Declare a Proxmox VE notification matcher
version_added: 0.1.0
description:
  - Creates, repairs or removes one notification matcher, a section of C(/etc/pve/notifications.cfg)
    (C(/cluster/notifications/matchers/{name})) - which notifications go to which endpoints.
  - Options left undeclared are not managed (neither sent nor compared), except O(disable), which is always compared
    (undeclared means V(false)). A declared empty value clears the option.
  - The lists are compared as sets - PVE combines their entries with O(mode), so their order means nothing - and so is
    the list of severities in one O(match_severity) entry and of values in one C(exact:) O(match_field) statement.
  - Every value is checked before any request - the match-field statement's form, the severities, the endpoint
    names. O(match_calendar) is left to PVE's own parser.
  - The endpoints of O(target) must exist (declare them first); the name must not be an endpoint's.
  - PVE's own C(default-matcher) can be repaired like any matcher, and RV(object) reports its C(origin) (V(builtin), or
    V(modified-builtin) once changed). PVE never removes it - a delete resets it to its shipped defaults, after which
    this version fails the task saying it is still present.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  name:
    description: The matcher's name (wire name C(name)), a letter then letters, digits, C(-) and C(_).
    type: str
    required: true
  match_field:
    description:
      - Metadata fields to match (wire name C(match-field)), each C(exact:<field>=<value>[,<value>...]) or
        C(regex:<field>=<regex>), for example C(exact:type=vzdump) or C(regex:hostname=^pve1).
    type: list
    elements: str
  match_severity:
    description:
      - Severities to match (wire name C(match-severity)); an entry matches any of its comma-separated severities,
        for example C(warning,error). Severities are V(info), V(notice), V(warning), V(error), V(unknown).
    type: list
    elements: str
  match_calendar:
    description: Times to match (wire name C(match-calendar)), PVE's daily spans such as C(mon..fri 8-17).
    type: list
    elements: str
  target:
    description: The endpoints to notify when the matcher matches.
    type: list
    elements: str
  mode:
    description: Whether V(all) the match entries must match, or V(any) one. Unset means V(all).
    type: str
    choices: [all, any]
  invert_match:
    description: Whether the result of the whole matcher is inverted (wire name C(invert-match)).
    type: bool
  comment:
    description: The matcher's comment.
    type: str
  disable:
    description: Whether the matcher is disabled. Always compared; undeclared means V(false).
    type: bool
    default: false
notes:
  - In this version a list option takes one item - more are refused before any request - and clearing two options in
    one run is refused by PVE, writing nothing. PVE takes each item of a list as a repeated form key, which the
    collection's HTTP client does not send yet.
seealso:
  - module: homeflare.proxmox.notification_endpoint
'''

EXAMPLES = r'''
- name: Send failed backups to the operations team
  homeflare.proxmox.notification_matcher:
    name: backup-failures
    match_field: [exact:type=vzdump]
    match_severity: [error]
    target: [ops-mail]
    comment: Failed backups

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Silence PVE's default route to root@pam's mailbox
  homeflare.proxmox.notification_matcher:
    name: default-matcher
    disable: true

- name: Remove a matcher
  homeflare.proxmox.notification_matcher:
    name: old-route
    state: absent
'''

RETURN = r'''
object:
  description: The matcher's managed fields as read after the run (empty when absent), and for PVE's own matcher its C(origin).
  returned: always
  type: dict
  sample: {"name": "backup-failures", "match_severity": ["error"], "target": ["ops-mail"], "disable": false}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["target"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.notification_matcher import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
