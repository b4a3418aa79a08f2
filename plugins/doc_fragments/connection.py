# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # Connection and credential options, shared by every module (module_utils/credentials.py holds the spec).
    DOCUMENTATION = r'''
options:
  api_host:
    description:
      - The cluster members to talk to, each C(host) or C(host:port); any member serves the whole cluster.
      - The member that answered last is tried first, then the others in this order. Reads fail over on any
        transport failure; writes only when the request provably never left (connection refused, name
        resolution, certificate refused).
      - Falls back to the E(PROXMOX_HOST) environment variable (comma-separated).
    type: list
    elements: str
    required: true
  api_port:
    description:
      - Port for members given without one. Defaults to V(8006) for Proxmox VE and V(8007) for Proxmox Backup Server.
      - Falls back to E(PROXMOX_PORT).
    type: int
  api_token_id:
    description:
      - "API token id, C(user@realm!name). Sent as C(Authorization: PVEAPIToken=<id>=<secret>)."
      - Falls back to E(PROXMOX_TOKEN_ID). Mutually exclusive with O(api_user).
    type: str
  api_token_secret:
    description:
      - The API token's secret. Never logged, returned or shown in a diff.
      - Falls back to E(PROXMOX_TOKEN_SECRET).
    type: str
  api_user:
    description:
      - User (C(user@realm)) to log in with a password; the ticket is sent as a cookie and writes carry the CSRF token.
      - Falls back to E(PROXMOX_USER).
    type: str
  api_password:
    description:
      - Password of O(api_user). Never logged or returned.
      - Falls back to E(PROXMOX_PASSWORD).
    type: str
  validate_certs:
    description:
      - Verify the members' TLS certificates. Falls back to E(PROXMOX_VALIDATE_CERTS).
    type: bool
    default: true
  ca_path:
    description:
      - PEM file of the CA that signed the members' certificates; used instead of the system store when set.
      - Falls back to E(PROXMOX_CA_PATH).
    type: path
  api_timeout:
    description:
      - Seconds one attempt on one member may take to connect, and again to answer, before the next member is
        tried (reads) or the task fails (writes). Falls back to E(PROXMOX_TIMEOUT).
    type: int
    default: 20
'''

    STATE = r'''
options:
  state:
    description:
      - V(present) creates the object or repairs the declared fields; V(absent) removes it.
      - In check mode nothing is written; the result's RV(plan) says what a real run would do.
    type: str
    choices: [present, absent]
    default: present
'''
