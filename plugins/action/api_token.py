# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""homeflare.proxmox.api_token runs in the controller's worker when its connection is local (plugin_utils/controller.py).

A result that carries a new token's secret is marked ``_ansible_no_log`` here, on both paths: Ansible then
shows none of it (output, diff, -vvv) while a registered variable still holds it. A module cannot mark
its own result (Ansible drops the ``_ansible_*`` keys a module returns), so the action plugin does.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.tokens import SECRET_KEY
from ansible_collections.homeflare.proxmox.plugins.plugin_utils.controller import ActionModule as ControllerAction


class ActionModule(ControllerAction):

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        if result.get(SECRET_KEY):
            result['_ansible_no_log'] = True
        return result
