# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The controller path: every module of the collection runs its task inside Ansible's worker process.

Each module has an action plugin of its own name (plugins/action/<module>.py) that is this class. When the
task's connection is local (the play targets localhost, or the task is delegated to it), the module's
own task (``FAMILY`` or ``DECLARE``) runs in this process: no payload, no new interpreter. Otherwise,
or when forced, the module is shipped as usual. Both paths validate with the same argument spec,
call the same ``entry.execute`` and mask the same ``no_log`` values, so their results are the same.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import os
from contextlib import contextmanager

from ansible import constants as C
from ansible.errors import AnsibleActionFail, AnsibleError
from ansible.module_utils.common.arg_spec import ModuleArgumentSpecValidator
from ansible.module_utils.common.parameters import remove_values
from ansible.module_utils.errors import UnsupportedError
from ansible.plugins.action import ActionBase
from ansible.utils.vars import merge_hash

from ansible_collections.homeflare.proxmox.plugins.module_utils import api, credentials
from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import argument_spec, execute, secret_values, task_of

# Where a task runs: ``auto`` (the controller when the connection is local), ``controller`` or ``module``.
EXECUTION_VARIABLE = 'homeflare_proxmox_execution'
EXECUTION_ENVIRONMENT = 'HOMEFLARE_PROXMOX_EXECUTION'
EXECUTION_CHOICES = ('auto', 'controller', 'module')
MODULES_PACKAGE = 'ansible_collections.homeflare.proxmox.plugins.modules'


class ActionModule(ActionBase):

    _supports_check_mode = True
    _supports_async = True

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        if not self._runs_on_controller(task_vars):
            return self._run_module(tmp, task_vars)
        result = super(ActionModule, self).run(tmp, task_vars)
        task = task_of(importlib.import_module('%s.%s' % (MODULES_PACKAGE, self._module_name())))
        with self._task_environment():
            validation = ModuleArgumentSpecValidator(argument_spec(task)).validate(plain(self._task.args))
            params = validation.validated_parameters
            result.update(self._outcome(task, validation))
        if inject_invocation(task_vars):
            result['invocation'] = dict(module_args=params)
        return remove_values(result, validation._no_log_values | secret_values(task, params))

    # -- choosing the path -------------------------------------------------------------------
    def _execution(self, task_vars):
        choice = task_vars.get(EXECUTION_VARIABLE)
        if choice is not None:
            choice = self._templar.template(choice)
        choice = str(choice or os.environ.get(EXECUTION_ENVIRONMENT) or 'auto').strip().lower()
        if choice not in EXECUTION_CHOICES:
            raise AnsibleActionFail('%s (or %s) must be one of %s, not %r'
                                    % (EXECUTION_VARIABLE, EXECUTION_ENVIRONMENT, ', '.join(EXECUTION_CHOICES), choice))
        return choice

    def _runs_on_controller(self, task_vars):
        args = self._task.args
        return runs_on_controller(self._execution(task_vars), self._connection.transport, bool(self._task.async_val),
                                  api.HAS_REQUESTS,
                                  bool(args.get('bao_kv_path') or args.get('bao_creds_mount')) and not credentials.has_hvac())

    def _module_name(self):
        """The module this task names, however it was spelled (FQCN, short name with collections:)."""
        action = self._task.resolved_action or self._task.action
        return action.rpartition('.')[2]

    def _run_module(self, tmp, task_vars):
        """The module path, exactly what ansible.builtin.normal does."""
        result = super(ActionModule, self).run(tmp, task_vars)
        wrap_async = self._task.async_val and not self._connection.has_native_async
        result = merge_hash(result, self._execute_module(task_vars=task_vars, wrap_async=wrap_async))
        if not wrap_async:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        return result

    # -- running in this process -------------------------------------------------------------
    @contextmanager
    def _task_environment(self):
        """The task's ``environment:`` as the module would see it, for the PROXMOX_*/BAO_* fallbacks."""
        wanted = {}
        self._compute_environment_string(wanted)
        saved = dict(os.environ)
        os.environ.update(dict((str(key), str(value)) for key, value in wanted.items()))
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)

    def _outcome(self, task, validation):
        """The module's result keys: what AnsibleModule's fail_json / warn / exit_json would give."""
        if validation.errors.errors:
            message = validation.errors.msg
            if isinstance(validation.errors[0], UnsupportedError):
                message = 'Unsupported parameters for (%s) module: %s' % (self._task.action, message)
            return dict(failed=True, msg=message)
        result, warnings = execute(task, validation.validated_parameters, self._task.check_mode, self._task.diff)
        if warnings:
            result['warnings'] = warnings
        return result


def plain(value):
    """Task arguments as a module receives them (JSON types): Ansible's own str subclasses (2.17's
    AnsibleUnicode, 2.19's tagged strings) would otherwise show up in the argument spec's messages."""
    if isinstance(value, dict):
        return dict((plain(key), plain(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, str):
        return str(value)
    return value


def inject_invocation(task_vars):
    """Whether module results carry ``invocation``: always before ansible-core 2.21, then INJECT_INVOCATION."""
    try:
        return bool(C.config.get_config_value('INJECT_INVOCATION', variables=task_vars))
    except AnsibleError:
        return True


def runs_on_controller(choice, transport, is_async, has_requests, lacks_hvac):
    """Whether a task runs in the worker: forced, or ``auto`` with a local connection.

    ``async`` needs the module (Ansible's async wrapper runs a module), and a controller without
    ``requests``, or without ``hvac`` for a task that mints from OpenBao, ships the module, which may
    find them where it runs.
    """
    if choice == 'module' or is_async or not has_requests or lacks_hvac:
        return False
    return choice == 'controller' or transport == 'local'
