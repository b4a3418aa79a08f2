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

    # OpenBao/Vault options: every module and the homeflare.proxmox.token lookup.
    OPENBAO = r'''
options:
  bao_addr:
    description:
      - Address of OpenBao or Vault, for example C(https://bao.example.org:8200).
      - When unset, the first present of E(BAO_AGENT_ADDR), E(BAO_ADDR), E(VAULT_AGENT_ADDR), E(VAULT_ADDR), else
        C(https://127.0.0.1:8200). An address from an C(*_AGENT_ADDR) variable is an agent or proxy that adds its
        own token, so none is sent.
    type: str
  bao_token:
    description:
      - OpenBao token. When unset, E(BAO_TOKEN), else E(VAULT_TOKEN). Never logged or returned.
    type: str
  bao_namespace:
    description: Namespace (C(X-Vault-Namespace)). When unset, E(BAO_NAMESPACE), else E(VAULT_NAMESPACE).
    type: str
  bao_ca_path:
    description: PEM file of the CA that signed OpenBao's certificate. When unset, E(BAO_CACERT), else E(VAULT_CACERT).
    type: path
  bao_approle_role_id:
    description: Log in with AppRole instead of a token; needs O(bao_approle_secret_id).
    type: str
  bao_approle_secret_id:
    description: AppRole secret id. Never logged or returned.
    type: str
  bao_approle_mount:
    description: Mount of the AppRole auth method.
    type: str
    default: approle
  bao_kv_path:
    description:
      - Take the Proxmox token from this KV version 2 secret, which must hold C(token_id) and C(secret).
    type: str
  bao_kv_mount:
    description: Mount of the KV version 2 engine for O(bao_kv_path).
    type: str
    default: secret
  bao_creds_mount:
    description:
      - Mint Proxmox tokens from this dynamic secrets mount, read at C(<mount>/creds/<role>), which answers
        C(token_id), C(secret) and a C(lease_duration). Reads use O(bao_read_role), writes O(bao_provision_role).
    type: str
  bao_read_role:
    description: Role of O(bao_creds_mount) minted for reads.
    type: str
    default: read
  bao_provision_role:
    description: Role of O(bao_creds_mount) minted for writes. May name the same role as O(bao_read_role).
    type: str
    default: provision
  bao_lease_cache:
    description:
      - Reuse a minted token across the tasks and forks of a run until 60 s before its lease ends, so a run mints
        once per role. The cache is a private directory (0700, files 0600) in E(XDG_RUNTIME_DIR) when it exists,
        else in the temporary directory; file names carry no secret.
      - V(false) mints for every task.
    type: bool
    default: true
  bao_timeout:
    description: Seconds one request to OpenBao may take.
    type: int
    default: 60
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
