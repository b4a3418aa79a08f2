#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: notification_endpoint
short_description: Declare a Proxmox VE notification endpoint (sendmail, SMTP, Gotify, webhook)
version_added: 0.1.0
description:
  - Creates, repairs or removes one notification endpoint, a section of C(/etc/pve/notifications.cfg)
    (C(/cluster/notifications/endpoints/{type}/{name})).
  - O(type) and O(name) identify the endpoint. Names are unique across all four types and the matchers; creating a
    name another endpoint or a matcher holds fails, naming it, and writes nothing. PVE cannot change a type in place.
  - Options left undeclared are not managed (neither sent nor compared), except O(disable), which is always compared
    (undeclared means V(false)). A declared empty value clears the option.
  - O(mailto), O(mailto_user), O(header) are compared as sets (their order means nothing to PVE).
  - Each option is checked before any request against the type's own table (an option the type does not take is
    refused) and against PVE's rule for its value (names, addresses, user ids, the header form).
  - The secrets - O(password) (smtp), O(token) (gotify), O(secret) (webhook) - are sent when the endpoint is created
    and never read, compared, returned or shown; PVE keeps them in C(/etc/pve/priv/notifications.cfg) and never returns
    them. Creating a gotify endpoint needs O(token).
  - PVE's own C(mail-to-root) (sendmail) can be repaired like any endpoint, and RV(object) reports its C(origin)
    (V(builtin), or V(modified-builtin) once changed). PVE never removes it - a delete resets it to its shipped defaults,
    after which this version fails the task saying it is still present.
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
    description: The endpoint's name (wire name C(name)), a letter then letters, digits, C(-) and C(_).
    type: str
    required: true
  comment:
    description: The endpoint's comment.
    type: str
  disable:
    description: Whether the endpoint is disabled. Always compared; undeclared means V(false).
    type: bool
    default: false
  mailto:
    description: V(sendmail) and V(smtp) - e-mail recipients (addresses or user names), compared as a set.
    type: list
    elements: str
  mailto_user:
    description: V(sendmail) and V(smtp) - PVE users (C(name@realm)) whose e-mail address receives the mail (wire name C(mailto-user)), compared as a set.
    type: list
    elements: str
  from_address:
    description: V(sendmail) and V(smtp) - the mail's C(From) address (wire name C(from-address)). Creating an V(smtp) endpoint needs it.
    type: str
  author:
    description: V(sendmail) and V(smtp) - the mail's author (PVE writes C(Proxmox VE) when none is stored).
    type: str
  server:
    description: V(smtp) - the SMTP server's address; V(gotify) - the server URL. Creating either needs it.
    type: str
  port:
    description: V(smtp) - the server port (PVE uses 465 for V(tls), 587 for V(starttls), 25 for V(insecure) when none is stored).
    type: int
  mode:
    description: V(smtp) - the encryption. Unset means V(tls).
    type: str
    choices: [insecure, starttls, tls]
  username:
    description: V(smtp) - the user name to authenticate with.
    type: str
  password:
    description: V(smtp) - the password to authenticate with. Sent on create only; never read, compared or shown.
    type: str
  token:
    description: V(gotify) - the application token. Needed to create the endpoint; sent on create only, never read, compared or shown.
    type: str
  url:
    description: V(webhook) - the URL to call (PVE's templates may be used in it). Creating the endpoint needs it.
    type: str
  method:
    description: V(webhook) - the HTTP method. Creating the endpoint needs it.
    type: str
    choices: [get, post, put]
  header:
    description:
      - V(webhook) - HTTP headers, each C(name=<header name>,value=<base64 of the value>), as PVE takes and answers them;
        compared as a set.
    type: list
    elements: str
  body:
    description: V(webhook) - the request body, base64-encoded, as PVE keeps it.
    type: str
  secret:
    description:
      - V(webhook) - secrets usable in the URL, headers and body, each C(name=<name>,value=<base64 of the value>).
      - Sent on create only; never read, compared or shown (PVE answers their names only).
    type: list
    elements: str
notes:
  - In this version a list option (O(mailto), O(mailto_user), O(header), O(secret)) takes one item - more are refused
    before any request - and clearing two options in one run is refused by PVE, writing nothing. PVE takes each item of
    a list as a repeated form key, which the collection's HTTP client does not send yet.
seealso:
  - module: homeflare.proxmox.notification_matcher
'''

EXAMPLES = r'''
- name: Mail the operations team through the company relay
  homeflare.proxmox.notification_endpoint:
    type: smtp
    name: ops-mail
    server: smtp.example.org
    mode: starttls
    from_address: pve@example.org
    mailto: [ops@example.org]
    username: pve
    password: "{{ vault_smtp_password }}"

- name: Push to Gotify
  homeflare.proxmox.notification_endpoint:
    type: gotify
    name: phone
    server: https://gotify.example.org
    token: "{{ vault_gotify_token }}"

- name: Post to a chat webhook
  homeflare.proxmox.notification_endpoint:
    type: webhook
    name: chat
    method: post
    url: https://chat.example.org/hooks/pve
    header: ["name=Content-Type,value={{ 'application/json' | b64encode }}"]

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Remove an endpoint
  homeflare.proxmox.notification_endpoint:
    type: gotify
    name: old-phone
    state: absent
'''

RETURN = r'''
object:
  description:
    - The endpoint's managed fields as read after the run (empty when absent), and for PVE's own endpoint its C(origin).
    - Secrets are never returned.
  returned: always
  type: dict
  sample: {"type": "smtp", "name": "ops-mail", "disable": false, "mailto": ["ops@example.org"]}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["mailto"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.notification_endpoint import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
