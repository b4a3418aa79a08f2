# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
name: drift_report
type: aggregate
short_description: Write a JSON drift report of every homeflare.proxmox object a run judged
version_added: 0.2.0
description:
  - Collects the result of every task of this collection's modules (C(homeflare.proxmox.*)), including loop items
    and each object of a C(homeflare.proxmox.declare) batch, and at the end of the run writes one JSON report
    with a summary (judged, matched, drifted, missing, failed) and one row per object.
  - Meant for CI after C(ansible-playbook --check --diff), beside any stdout callback. A short summary table is
    printed on standard error, so a machine-readable stdout callback's output stays intact.
  - A row holds only the object's module, its task, host and loop item label (or, for a batch, the object's name),
    C(plan.read), C(plan.action), the drifted field names, whether it failed and the failure message. Object
    values, diffs and module arguments are never written. A result hidden by C(no_log) is only counted, as a
    row whose message says so.
  - A loop item's label is written only when it is a scalar (set C(loop_control.label) to name the object); an
    item that is a dictionary is written as C(item N), its position, since it may hold a secret.
author:
  - homeflare.proxmox contributors (@homeflare)
requirements:
  - enable in configuration, for example C(callbacks_enabled = homeflare.proxmox.drift_report) in the
    C([defaults]) section of C(ansible.cfg), or C(ANSIBLE_CALLBACKS_ENABLED=homeflare.proxmox.drift_report)
options:
  path:
    description:
      - Where the JSON report is written (replaced atomically at the end of the run). Missing parent directories
        are created.
      - A relative path is relative to the current directory, or, when set in C(ansible.cfg), to that file's directory.
    type: path
    default: drift-report.json
    env:
      - name: HOMEFLARE_DRIFT_REPORT
    ini:
      - section: callback_drift_report
        key: path
  junit_path:
    description:
      - Where to also write the report as JUnit XML, for a CI system's test report view (GitLab
        C(artifacts:reports:junit), Jenkins, GitHub test reporters). Not written when unset.
      - One C(testsuite) per module and one C(testcase) per object. In a check run a drifted or missing object is a
        C(failure) naming its planned action and drifted fields; in any run a failed object is a C(failure) with its
        message. An object hidden by C(no_log), or a skipped task, is C(skipped). Like the JSON report, it never holds
        a value or a secret.
      - Relative paths and parent directories as for O(path).
    type: path
    version_added: 0.6.0
    env:
      - name: HOMEFLARE_DRIFT_REPORT_JUNIT
    ini:
      - section: callback_drift_report
        key: junit_path
  markdown_path:
    description:
      - Where to also write a Markdown summary, ready for a CI job summary or a merge request comment. Not written
        when unset.
      - A table of the counts per module, then, per module with drift, a table of each drifted, missing or failed
        object with its drifted fields (or its failure message). Every cell is escaped to literal text.
      - Relative paths and parent directories as for O(path).
    type: path
    version_added: 0.6.0
    env:
      - name: HOMEFLARE_DRIFT_REPORT_MARKDOWN
    ini:
      - section: callback_drift_report
        key: markdown_path
'''

import json
import os
import tempfile
from datetime import datetime, timezone

from ansible import context
from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.callback import CallbackBase

from ansible_collections.homeflare.proxmox.plugins.plugin_utils.drift_formats import (
    junit_xml, markdown_summary, object_label, plan_text, summarize, verdict)

COLLECTION_PREFIX = 'homeflare.proxmox.'
BATCH_MODULE = 'declare'
HIDDEN = 'output hidden by no_log'
REPORT_VERSION = 1
# How many not-matching objects the printed table lists before pointing at the report.
TABLE_LIMIT = 20
MSG_LIMIT = 160


def _short_text(value, limit=MSG_LIMIT):
    """One line of at most ``limit`` characters (messages can span lines)."""
    text = ' '.join(to_text(value, errors='surrogate_or_replace').split())
    if len(text) > limit:
        text = text[:limit - 3] + '...'
    return text


def _field_names(value):
    if not isinstance(value, (list, tuple)):
        return []
    return [to_text(name) for name in value]


class CallbackModule(CallbackBase):
    """Collects this collection's task results and writes them as a drift report at the end of the run."""

    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'homeflare.proxmox.drift_report'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, display=None):
        super(CallbackModule, self).__init__(display=display)
        self.rows = []
        self._item_positions = {}
        self._play_check_modes = []

    # -- what belongs to the report ----------------------------------------------------------
    @staticmethod
    def _module_of(result):
        task = result._task
        action = getattr(task, 'resolved_action', None) or getattr(task, 'action', None) or ''
        action = to_text(action)
        if not action.startswith(COLLECTION_PREFIX):
            return None
        return action[len(COLLECTION_PREFIX):]

    @staticmethod
    def _item_key(result):
        return (getattr(result._task, '_uuid', None) or id(result._task), result._host.get_name())

    def _is_loop_summary(self, result):
        """The result a looped task sends after its items, which were recorded one by one.

        ansible-core 2.17 drops its ``results`` when the task is ``no_log``: the items seen decide then.
        """
        task = result._task
        looped = bool(getattr(task, 'loop_with', None)) or getattr(task, 'loop', None) is not None
        seen = self._item_positions.get(self._item_key(result), 0) > 0
        return looped and (seen or isinstance(result._result.get('results'), list))

    @staticmethod
    def _hidden(result):
        data = result._result
        no_log = getattr(result._task, 'no_log', None)
        return bool(data.get('_ansible_no_log')) or 'censored' in data or (isinstance(no_log, bool) and no_log)

    def _item_label(self, result, hidden):
        """A scalar loop label as is; anything else (a dict may hold a secret) by its position."""
        key = self._item_key(result)
        position = self._item_positions.get(key, 0) + 1
        self._item_positions[key] = position
        label = result._result.get('_ansible_item_label')
        if not hidden and isinstance(label, (str, int, float)) and not isinstance(label, bool):
            return to_text(label)
        return 'item %d' % position

    # -- rows ------------------------------------------------------------------------------
    def _base(self, result, module, item):
        row = dict(module=module, task=to_text(result._task.get_name()), host=to_text(result._host.get_name()))
        if item is not None:
            row['item'] = item
        return row

    @staticmethod
    def _judgement(row, data, failed):
        plan = data.get('plan')
        plan = plan if isinstance(plan, dict) else {}
        row.update(read=plan.get('read'), action=plan.get('action'), changed=_field_names(plan.get('changed')),
                   failed=bool(failed))
        if failed and data.get('msg'):
            row['msg'] = _short_text(data['msg'])
        return row

    def _record(self, result, status, item=False):
        module = self._module_of(result)
        if module is None:
            return
        if not item and self._is_loop_summary(result):
            return
        hidden = self._hidden(result)
        label = self._item_label(result, hidden) if item else None
        failed = status in ('failed', 'unreachable') or bool(result._result.get('failed'))
        row = self._base(result, module, label)
        if hidden:
            row.update(read=None, action=None, changed=[], failed=failed, hidden=True, msg=HIDDEN)
            self.rows.append(row)
            return
        if status == 'skipped':
            row.update(read=None, action=None, changed=[], failed=False, skipped=True)
            self.rows.append(row)
            return
        data = result._result
        if module == BATCH_MODULE and isinstance(data.get('results'), list):
            self._record_batch(row, data, failed)
            return
        self.rows.append(self._judgement(row, data, failed))

    def _record_batch(self, base, data, failed):
        """One row per object of a ``declare`` result.

        A failed batch that still carries its objects (one could not be judged or written, or
        ``fail_on_drift`` found drift) is told by those rows; one without objects (an invalid
        declaration) is one failed row of its own.
        """
        objects = [entry for entry in data['results'] if isinstance(entry, dict)]
        for entry in objects:
            row = dict(base, module=to_text(entry.get('module') or BATCH_MODULE))
            if entry.get('name') is not None:
                row['name'] = _short_text(entry['name'])
            self.rows.append(self._judgement(row, entry, bool(entry.get('failed'))))
        if not objects:
            self.rows.append(self._judgement(base, data, failed))

    # -- task events -----------------------------------------------------------------------
    def v2_runner_on_ok(self, result):
        self._record(result, 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, 'failed')

    def v2_runner_on_skipped(self, result):
        self._record(result, 'skipped')

    def v2_runner_on_unreachable(self, result):
        self._record(result, 'unreachable')

    def v2_runner_item_on_ok(self, result):
        self._record(result, 'ok', item=True)

    def v2_runner_item_on_failed(self, result):
        self._record(result, 'failed', item=True)

    def v2_runner_item_on_skipped(self, result):
        self._record(result, 'skipped', item=True)

    def v2_playbook_on_play_start(self, play):
        self._play_check_modes.append(getattr(play, 'check_mode', None) is True)

    # -- the end of the run ----------------------------------------------------------------
    def _check_mode(self):
        if context.CLIARGS.get('check', False):
            return True
        return bool(self._play_check_modes) and all(self._play_check_modes)

    def report(self):
        return dict(
            version=REPORT_VERSION,
            generated=datetime.now(timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'),
            check_mode=self._check_mode(),
            summary=summarize(self.rows),
            objects=[dict(row, verdict=verdict(row)) for row in self.rows],
        )

    @staticmethod
    def _write(path, text):
        directory = os.path.dirname(path) or '.'
        if not os.path.isdir(directory):
            os.makedirs(directory, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), suffix='.tmp', dir=directory)
        try:
            with os.fdopen(handle, 'w', encoding='utf-8') as stream:
                stream.write(text)
                stream.flush()
                os.fsync(stream.fileno())
            umask = os.umask(0o022)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
            os.replace(temporary, path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise

    @staticmethod
    def _describe(row):
        if row.get('item') is not None:
            row = dict(row, item=_short_text(row['item'], 60))
        return '%s [%s]' % (object_label(row), row['host'])

    def _table(self, document, path):
        summary = document['summary']
        lines = ['DRIFT REPORT%s: %s' % (' (check mode)' if document['check_mode'] else '', path),
                 '  judged %(judged)d  matched %(matched)d  drifted %(drifted)d  missing %(missing)d  failed %(failed)d'
                 % summary]
        extra = ['%s %d' % (key, summary[key]) for key in ('hidden', 'skipped') if summary[key]]
        if extra:
            lines[-1] += '  (not judged: %s)' % ', '.join(extra)
        listed = [row for row in document['objects'] if row['verdict'] in ('drifted', 'missing', 'failed')]
        for row in listed[:TABLE_LIMIT]:
            lines.append('  %-8s %s: %s' % (row['verdict'], self._describe(row), _short_text(plan_text(row))))
        if len(listed) > TABLE_LIMIT:
            lines.append('  ... and %d more in the report' % (len(listed) - TABLE_LIMIT))
        return lines

    def _path(self, option):
        path = self.get_option(option)
        return os.path.abspath(os.path.expanduser(to_text(path))) if path else None

    def v2_playbook_on_stats(self, stats):
        document = self.report()
        path = self._path('path') or os.path.abspath('drift-report.json')
        renderings = [(path, json.dumps(document, indent=2) + '\n'),
                      (self._path('junit_path'), junit_xml(document)),
                      (self._path('markdown_path'), markdown_summary(document))]
        written = []
        for target, text in renderings:
            if target is None:
                continue
            try:
                self._write(target, text)
                written.append(target)
            except (IOError, OSError) as exc:
                self._display.warning('homeflare.proxmox.drift_report: could not write %s: %s'
                                      % (target, to_text(exc)))
        if path not in written:  # the table points at the JSON report
            return
        for line in self._table(document, path):
            self._display.display(line, stderr=True)
