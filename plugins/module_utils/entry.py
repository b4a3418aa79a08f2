# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The module entry point every module shares: the one place that calls fail_json."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.homeflare.proxmox.plugins.module_utils import api
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import credentials_from_params
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import ProxmoxError
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import reconcile


def client_from_params(params, scheme):
    return api.Client(scheme, params['api_host'], credentials_from_params(params, scheme), port=params.get('api_port'),
                      validate_certs=params['validate_certs'], ca_path=params.get('ca_path'),
                      timeout=params['api_timeout'])


def run_module(family):
    module = AnsibleModule(argument_spec=family.argument_spec(), supports_check_mode=True)
    if not api.HAS_REQUESTS:
        module.fail_json(msg=missing_required_lib('requests'), exception=str(api.REQUESTS_IMPORT_ERROR))
    try:
        # Building the client sends nothing (credentials are fetched on first use), so reconcile's
        # own validation still fails bad input before any request.
        client = client_from_params(module.params, family.scheme)
        result = reconcile(client, family, module.params, check_mode=module.check_mode)
    except ProxmoxError as exc:
        module.fail_json(msg=str(exc), error=type(exc).__name__)
    warnings = result.pop('warnings', [])
    for warning in warnings:
        module.warn(warning)
    if not module._diff:
        result.pop('diff', None)
    module.exit_json(**result)
