# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Test-only callback: writes every task result as one JSON line to $RECORD_RESULTS_FILE."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = r'''
name: record_results
type: aggregate
short_description: Record task results for the integration tests
description: Writes one JSON line per task result to the file named by E(RECORD_RESULTS_FILE).
options: {}
'''


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'record_results'
    CALLBACK_NEEDS_ENABLED = True

    def _record(self, result, status):
        path = os.environ.get('RECORD_RESULTS_FILE')
        if not path:
            return
        line = dict(task=result._task.get_name(), status=status, result=result._result, host=result._host.get_name())
        with open(path, 'a') as handle:
            handle.write(json.dumps(line, default=str) + '\n')

    def v2_runner_on_ok(self, result):
        self._record(result, 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, 'failed')

    def v2_runner_on_unreachable(self, result):
        self._record(result, 'unreachable')

    def v2_runner_item_on_ok(self, result):
        self._record(result, 'item_ok')

    def v2_runner_item_on_failed(self, result):
        self._record(result, 'item_failed')
