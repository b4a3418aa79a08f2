#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: pbs_notification_endpoint
short_description: Declare a Proxmox Backup Server notification endpoint (sendmail, SMTP, Gotify, webhook)
version_added: 0.5.0
description:
  - Creates, repairs or removes one notification endpoint of a Proxmox Backup Server, a section of
    C(/etc/proxmox-backup/notifications.cfg) (C(/config/notifications/endpoints/{type}/{name}) on port 8007, with a
    C(PBSAPIToken) or a PBS login).
  - O(type) and O(name) identify the endpoint. Names are unique across all four types and the matchers; creating a
    name another endpoint or a matcher holds fails, naming it, and writes nothing. PBS cannot change a type in place.
  - Options left undeclared are not managed (neither sent nor compared), except O(disable), which is always compared
    (undeclared means V(false)). A declared empty value clears the option (C(delete), one repeated key per option).
  - O(mailto), O(mailto_user), O(header) are compared as sets (their order means nothing to PBS) and sent as repeated
    keys, one per item.
  - Each option is checked before any request against the type's own table (an option the type does not take is
    refused) and against PBS's schema rule for its value (name, comment, recipients, port, the header form).
  - The secrets - O(password) (smtp), O(token) (gotify), O(secret) (webhook) - are sent when the endpoint is created
    and never read, compared, returned or shown; PBS keeps them in C(priv/notifications.cfg) and never returns them
    (a webhook read lists its secrets' names only). Creating a gotify endpoint needs O(token).
  - Updates carry the digest of C(notifications.cfg), so an edit made by someone else since the read is not overwritten
    (the task reads again and judges once more).
  - A missing endpoint is PBS's own answer (404 C(endpoint 'x' not found)); any other failed read fails the task.
  - PBS's own C(mail-to-root) (sendmail) can be repaired like any endpoint, and RV(object) reports its C(origin)
    (V(builtin), or V(modified-builtin) once changed). PBS never removes it - O(state=absent) resets it to its shipped
    defaults, with a warning, and is then a no-op. PBS refuses to remove an endpoint a matcher still targets.
  - Needs C(Sys.Audit) on C(/system/notifications) to read and C(Sys.Modify) there to write.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  type:
    description: The endpoint type; part of its identity (its API path).
    type: str
    required: true
    choices: [gotify, sendmail, smtp, webhook]
  name:
    description: The endpoint's name, 2 to 32 letters, digits, C(_), C(.) and C(-) (not first).
    type: str
    required: true
  comment:
    description: The endpoint's comment, at most 128 characters on one line.
    type: str
  disable:
    description: Whether the endpoint is disabled. Always compared; undeclared means V(false).
    type: bool
    default: false
  mailto:
    description: V(sendmail) and V(smtp) - e-mail addresses to send to (2 to 64 characters each), compared as a set.
    type: list
    elements: str
  mailto_user:
    description:
      - V(sendmail) and V(smtp) - PBS users (C(name@realm)) whose e-mail address in C(user.cfg) receives the mail
        (wire name C(mailto-user)), compared as a set.
      - Creating a V(sendmail) or V(smtp) endpoint needs O(mailto) or O(mailto_user).
    type: list
    elements: str
  from_address:
    description:
      - V(sendmail) and V(smtp) - the mail's C(From) address (wire name C(from-address)). Creating an V(smtp) endpoint
        needs it; a V(sendmail) endpoint without one uses the node's C(email-from), else C(root@<hostname>).
    type: str
  author:
    description:
      - V(sendmail) and V(smtp) - the mail's author (PBS writes C(Proxmox Backup Server) and its host name when none is
        stored).
    type: str
  server:
    description:
      - V(smtp) - the SMTP relay's host name or address; V(gotify) - the server URL. Creating either needs it.
    type: str
  port:
    description:
      - V(smtp) - the server port, 0 to 65535 (PBS uses 465 for V(tls), 587 for V(starttls), 25 for V(insecure) when
        none is stored).
    type: int
  mode:
    description: V(smtp) - the connection security. Unset means V(tls); PBS cannot remove it once set, only change it.
    type: str
    choices: [insecure, starttls, tls]
  username:
    description: V(smtp) - the user name to authenticate with (none means no authentication).
    type: str
  password:
    description: V(smtp) - the password to authenticate with. Sent on create only; never read, compared or shown.
    type: str
  token:
    description:
      - V(gotify) - the application token. Needed to create the endpoint; sent on create only, never read, compared or
        shown.
    type: str
  url:
    description: V(webhook) - the http(s) URL to call. Creating the endpoint needs it.
    type: str
  method:
    description: V(webhook) - the HTTP method. Creating the endpoint needs it.
    type: str
    choices: [get, post, put]
  header:
    description:
      - V(webhook) - HTTP headers, each C(name=<header name>,value=<base64 of the value>), as PBS takes and answers
        them; compared as a set.
    type: list
    elements: str
  body:
    description: V(webhook) - the request body, base64-encoded, as PBS keeps it.
    type: str
  secret:
    description:
      - V(webhook) - secrets usable in the URL, headers and body, each C(name=<name>,value=<base64 of the value>).
      - Sent on create only; never read, compared or shown (PBS answers their names only).
    type: list
    elements: str
seealso:
  - module: homeflare.proxmox.pbs_notification_matcher
  - module: homeflare.proxmox.notification_endpoint
'''

EXAMPLES = r'''
- name: Mail the backup operators through the company relay
  homeflare.proxmox.pbs_notification_endpoint:
    api_host: pbs.example.org
    api_token_id: "{{ pbs_token_id }}"
    api_token_secret: "{{ pbs_token_secret }}"
    type: smtp
    name: ops-mail
    server: smtp.example.org
    mode: starttls
    from_address: pbs@example.org
    mailto: [backup-ops@example.org]
    username: pbs
    password: "{{ vault_smtp_password }}"

- name: Push to Gotify
  homeflare.proxmox.pbs_notification_endpoint:
    api_host: pbs.example.org
    type: gotify
    name: phone
    server: https://gotify.example.org
    token: "{{ vault_gotify_token }}"

- name: Post to a chat webhook
  homeflare.proxmox.pbs_notification_endpoint:
    api_host: pbs.example.org
    type: webhook
    name: chat
    method: post
    url: https://chat.example.org/hooks/pbs
    header: ["name=Content-Type,value={{ 'application/json' | b64encode }}"]

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Remove an endpoint (remove the matchers that target it first)
  homeflare.proxmox.pbs_notification_endpoint:
    api_host: pbs.example.org
    type: gotify
    name: old-phone
    state: absent
'''

RETURN = r'''
object:
  description:
    - The endpoint's managed fields as read after the run (empty when absent), and its C(origin) (V(user-created),
      V(builtin) or V(modified-builtin)).
    - Secrets are never returned.
  returned: always
  type: dict
  sample: {"type": "smtp", "name": "ops-mail", "disable": false, "mailto": ["backup-ops@example.org"],
           "origin": "user-created"}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["mailto"]}
served_by:
  description:
    - The server (C(host:port)) that answered last.
    - Absent when no server answered (refused before any request, or unreachable).
  returned: when a member answered
  type: str
  sample: "pbs.example.org:8007"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_notification_endpoint import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
