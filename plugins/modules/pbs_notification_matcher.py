#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pbs_notification_matcher
short_description: Declare a Proxmox Backup Server notification matcher
version_added: 0.5.0
description:
  - Creates, repairs or removes one notification matcher of a Proxmox Backup Server, a section of
    C(/etc/proxmox-backup/notifications.cfg) (C(/config/notifications/matchers/{name}) on port 8007, with a
    C(PBSAPIToken) or a PBS login) - which notifications go to which endpoints.
  - Options left undeclared are not managed (neither sent nor compared), except O(disable), which is always compared
    (undeclared means V(false)). A declared empty value clears the option (C(delete), one repeated key per option).
  - The lists are compared as sets - PBS combines their entries with O(mode), so their order means nothing - and so is
    the list of severities in one O(match_severity) entry and of values in one C(exact:) O(match_field) statement. They
    are sent as repeated keys, one per item.
  - Every value is checked before any request - the match-field statement's form, the severities, the endpoint
    names, the comment. O(match_calendar) is left to PBS's own parser.
  - The endpoints of O(target) must exist on the server (declare them first, with
    M(homeflare.proxmox.pbs_notification_endpoint)). Before a create or an update that writes O(target), the endpoint
    list is read; a target it lacks fails the task, naming it, with nothing written (PBS would refuse it too, 404
    C(endpoint 'x' does not exist)). Check mode does not judge the targets, since the same run may create them first.
  - The matcher's name must not be an endpoint's (PBS keeps both in one file); creating it fails, naming the endpoint,
    with nothing written.
  - Updates carry the digest of C(notifications.cfg), so an edit made by someone else since the read is not overwritten.
  - A missing matcher is PBS's own answer (404 C(matcher 'x' not found)); any other failed read fails the task.
  - PBS's own C(default-matcher) can be repaired like any matcher, and RV(object) reports its C(origin) (V(builtin), or
    V(modified-builtin) once changed). PBS never removes it - O(state=absent) resets it to its shipped defaults, with a
    warning, and is then a no-op.
  - Needs C(Sys.Audit) on C(/system/notifications) to read and C(Sys.Modify) there to write.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  name:
    description: The matcher's name, 2 to 32 letters, digits, C(_), C(.) and C(-) (not first).
    type: str
    required: true
  match_field:
    description:
      - Metadata fields to match (wire name C(match-field)), each C(exact:<field>=<value>[,<value>...]) or
        C(regex:<field>=<regex>), for example C(exact:type=gc) or C(regex:datastore=^backup).
    type: list
    elements: str
  match_severity:
    description:
      - Severities to match (wire name C(match-severity)); an entry matches any of its comma-separated severities,
        for example C(warning,error). Severities are V(info), V(notice), V(warning), V(error), V(unknown).
    type: list
    elements: str
  match_calendar:
    description: Times to match (wire name C(match-calendar)), daily spans such as C(mon..fri 8-17).
    type: list
    elements: str
  target:
    description: The endpoints to notify when the matcher matches (each an existing endpoint's name).
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
    description: The matcher's comment, at most 128 characters on one line.
    type: str
  disable:
    description: Whether the matcher is disabled. Always compared; undeclared means V(false).
    type: bool
    default: false
seealso:
  - module: homeflare.proxmox.pbs_notification_endpoint
  - module: homeflare.proxmox.notification_matcher
'''

EXAMPLES = r'''
- name: Send failed garbage collections and verifications to the operators
  homeflare.proxmox.pbs_notification_matcher:
    api_host: pbs.example.org
    api_token_id: "{{ pbs_token_id }}"
    api_token_secret: "{{ pbs_token_secret }}"
    name: backup-failures
    match_field: ["exact:type=gc,verify"]
    match_severity: [error]
    target: [ops-mail]
    comment: Failed maintenance jobs

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Silence PBS's default route to root@pam's mailbox
  homeflare.proxmox.pbs_notification_matcher:
    api_host: pbs.example.org
    name: default-matcher
    disable: true

- name: Remove a matcher
  homeflare.proxmox.pbs_notification_matcher:
    api_host: pbs.example.org
    name: old-route
    state: absent
'''

RETURN = r'''
object:
  description:
    - The matcher's managed fields as read after the run (empty when absent), and its C(origin) (V(user-created),
      V(builtin) or V(modified-builtin)).
  returned: always
  type: dict
  sample: {"name": "backup-failures", "match_severity": ["error"], "target": ["ops-mail"], "disable": false,
           "origin": "user-created"}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["target"]}
served_by:
  description:
    - The server (C(host:port)) that answered last.
    - Absent when no server answered (refused before any request, or unreachable).
  returned: when a member answered
  type: str
  sample: "pbs.example.org:8007"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_notification_matcher import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
