# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What both execution paths share, and the module path's entry point (the one place that calls fail_json).

A *task* is what a module file declares: a ``Family`` (one object) or the ``declare`` batch. It
answers ``object_spec()`` (its own options; the connection's are added here, the one place that knows
them), ``scheme`` and ``run(client, params, check_mode)`` (``declare`` also ``secret_values(params)``).
The module path (``run_module``) and the controller path (every module's action plugin,
plugins/plugin_utils/controller.py) both hand validated parameters to ``execute``, which also shapes failures,
so their results cannot drift apart.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils import api
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import (
    CONNECTION_ARGUMENT_SPEC, check_connection, credentials_from_params)
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import ProxmoxError


def client_from_params(params, scheme):
    check_connection(params)
    return api.Client(scheme, params['api_host'], credentials_from_params(params, scheme), port=params.get('api_port'),
                      validate_certs=params['validate_certs'], ca_path=params.get('ca_path'),
                      timeout=params['api_timeout'])


def argument_spec(task):
    """A module's whole argument spec: the connection's options and the task's own."""
    spec = dict(CONNECTION_ARGUMENT_SPEC)
    spec.update(task.object_spec())
    return spec


def task_of(python_module):
    """The task a module file declares: ``FAMILY`` for one object family, ``DECLARE`` for the batch, ``INFO``
    for a read-only listing, ``EXPORT`` for the export."""
    task = (getattr(python_module, 'FAMILY', None) or getattr(python_module, 'DECLARE', None) or
            getattr(python_module, 'INFO', None) or getattr(python_module, 'EXPORT', None))
    if task is None:
        raise ValueError('%s declares no FAMILY, DECLARE, INFO or EXPORT' % python_module.__name__)
    return task


def scheme_of(task, params):
    """The server a task talks to: a family's own scheme, or (declare) the one its objects' families share."""
    scheme_for = getattr(task, 'scheme_for', None)
    return scheme_for(params) if scheme_for else task.scheme


def execute(task, params, check_mode, diff_mode):
    """Run one validated task; returns (result, warnings). A ProxmoxError becomes a failed result.

    Building the client sends nothing (credentials are fetched on first use), so the task's own
    validation still fails bad input before any request.
    """
    client = None
    try:
        client = client_from_params(params, scheme_of(task, params))
        result = task.run(client, params, check_mode)
    except ProxmoxError as exc:
        # A batch that failed part-way still says what it judged and wrote.
        result = dict(getattr(exc, 'result', None) or {})
        result.update(failed=True, msg=str(exc), error=type(exc).__name__)
    if client is not None and client.served_by:
        result['served_by'] = client.served_by
    warnings = result.pop('warnings', None) or []
    if not diff_mode:
        result.pop('diff', None)
    return result, warnings


def secret_values(task, params):
    """Secrets the argument spec cannot see (declare's objects hold other modules' no_log options)."""
    finder = getattr(task, 'secret_values', None)
    return set(finder(params)) if finder else set()


def run_module(task):
    from ansible.module_utils.basic import AnsibleModule, missing_required_lib

    class TaskModule(AnsibleModule):
        def _log_invocation(self):
            # AnsibleModule logs its arguments while it is being built: mask nested secrets first.
            self.no_log_values.update(secret_values(task, self.params))
            super(TaskModule, self)._log_invocation()

    module = TaskModule(argument_spec=argument_spec(task), supports_check_mode=True)
    module.no_log_values.update(secret_values(task, module.params))
    if not api.HAS_REQUESTS:
        module.fail_json(msg=missing_required_lib('requests'), exception=str(api.REQUESTS_IMPORT_ERROR))
    result, warnings = execute(task, module.params, module.check_mode, module._diff)
    for warning in warnings:
        module.warn(warning)
    if result.pop('failed', False):
        module.fail_json(**result)
    module.exit_json(**result)
