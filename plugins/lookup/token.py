# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
name: token
short_description: Mint or read a Proxmox API token from OpenBao or Vault on the controller
version_added: 0.1.0
author:
  - homeflare.proxmox contributors (@homeflare)
description:
  - Returns a dictionary with C(token_id) and C(secret), taken from a dynamic secrets mount (O(bao_creds_mount))
    or a KV version 2 secret (O(bao_kv_path)), for playbooks that prefer to pass the token through
    C(module_defaults) instead of giving every task the OpenBao options.
  - Minted tokens go through the same lease cache as the modules, so templating the lookup in every task still
    mints once per role per lease.
  - The result holds a secret. Pass it only to options that are C(no_log) (the modules' O(homeflare.proxmox.pool#module:api_token_secret) is); never print it.
options:
  role:
    description: The credential role to mint for; V(read) uses O(bao_read_role), V(provision) O(bao_provision_role).
    type: str
    default: provision
    choices: [read, provision]
  scheme:
    description: Whether the token is for Proxmox VE (V(pve)) or Proxmox Backup Server (V(pbs)); part of the cache key.
    type: str
    default: pve
    choices: [pve, pbs]
extends_documentation_fragment:
  - homeflare.proxmox.connection.openbao
seealso:
  - module: homeflare.proxmox.pool
'''

EXAMPLES = r'''
- name: Declare pools with one minted token
  hosts: localhost
  gather_facts: false
  vars:
    pve_token: "{{ lookup('homeflare.proxmox.token', bao_creds_mount='proxmox-c1', role='provision') }}"
  module_defaults:
    group/homeflare.proxmox.proxmox:
      api_host: [pve1.example.org, pve2.example.org]
      api_token_id: "{{ pve_token.token_id }}"
      api_token_secret: "{{ pve_token.secret }}"
  tasks:
    - name: Pool
      homeflare.proxmox.pool:
        poolid: lab
'''

RETURN = r'''
_raw:
  description: One dictionary.
  type: list
  elements: dict
  contains:
    token_id:
      description: The token id, C(user@realm!name).
      type: str
    secret:
      description: The token's secret.
      type: str
'''

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import (
    OPENBAO_ARGUMENT_SPEC, credentials_from_params)
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import ProxmoxError


class LookupModule(LookupBase):

    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        params = dict((name, self.get_option(name)) for name in OPENBAO_ARGUMENT_SPEC)
        if not (params.get('bao_creds_mount') or params.get('bao_kv_path')):
            raise AnsibleLookupError('homeflare.proxmox.token needs bao_creds_mount or bao_kv_path')
        try:
            source = credentials_from_params(params, scheme=self.get_option('scheme'))
            token_id, secret = source.credential(self.get_option('role'))
        except ProxmoxError as exc:
            raise AnsibleLookupError(str(exc))
        return [dict(token_id=token_id, secret=secret)]
