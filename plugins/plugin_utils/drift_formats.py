# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The drift report's verdicts and its renderings, apart from Ansible: each row's bucket and the summary's counts,
and JUnit XML and a Markdown summary of the report document the ``drift_report`` callback builds (``summary`` and
``objects``, one row per judged object).

Both are made from the rows alone, which hold names, verdicts and field names, never a value, a diff or a module
argument; what the JSON report may not hold, they cannot hold either.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from xml.etree import ElementTree

COLLECTION = 'homeflare.proxmox'
# Verdicts that fail a check run's test case; a failed object fails any run.
DRIFT = ('drifted', 'missing')
NOT_JUDGED = ('hidden', 'skipped')
SUMMARY_COLUMNS = ('judged', 'matched', 'drifted', 'missing', 'failed')
# Characters a Markdown table cell must escape to stay literal text: the cell separator, emphasis, code, links,
# raw HTML and entities. CommonMark takes a backslash before any ASCII punctuation as that character.
MARKDOWN_SPECIAL = frozenset('\\`*_[]<>|~&#!')
# A judged row's bucket by its plan's action: a guest to power on or off, and staged changes an apply would make
# live (or revert), are drift too.
VERDICTS = {'none': 'matched', 'update': 'drifted', 'delete': 'drifted', 'create': 'missing', 'power': 'drifted',
            'apply': 'drifted', 'revert': 'drifted'}


def verdict(row):
    """The summary bucket of one row: failed, hidden, skipped, matched, drifted, missing or unjudged."""
    if row.get('failed'):
        return 'failed'
    if row.get('hidden'):
        return 'hidden'
    if row.get('skipped'):
        return 'skipped'
    return VERDICTS.get(row.get('action'), 'unjudged')


def summarize(rows):
    counts = dict(judged=0, matched=0, drifted=0, missing=0, failed=0, hidden=0, skipped=0)
    for row in rows:
        bucket = verdict(row)
        if bucket in counts:
            counts[bucket] += 1
        if bucket in ('matched', 'drifted', 'missing', 'failed'):
            counts['judged'] += 1
    return counts


def object_label(row):
    """An object as a person names it: a batch object by its name and task, a task's object by module and task,
    a loop item by its label."""
    if row.get('name'):
        subject = '%s (%s)' % (row['name'], row['task'])
    else:
        subject = '%s: %s' % (row['module'], row['task'])
    if row.get('item') is not None:
        subject = '%s (item=%s)' % (subject, row['item'])
    return subject


def fields_text(row):
    """``comment, nodes``: the drifted fields, or a failed object's message."""
    if row['verdict'] == 'failed':
        return row.get('msg') or 'failed'
    return ', '.join(row.get('changed') or []) or '-'


def plan_text(row):
    """``update comment, nodes``: the planned action and the drifted fields, or the failure message."""
    if row['verdict'] == 'failed':
        return fields_text(row)
    return '%s %s' % (row.get('action'), fields_text(row))


def families(rows):
    """The rows grouped by module, in the order the run first judged each module."""
    grouped = {}
    for row in rows:
        grouped.setdefault(row['module'], []).append(row)
    return list(grouped.items())


def family_counts(rows):
    """The summary's counts of ``rows``, with the ones counted but not judged (hidden, skipped) in one column."""
    counts = summarize(rows)
    counts['not judged'] = sum(counts.pop(bucket) for bucket in NOT_JUDGED)
    return counts


# -- JUnit XML ------------------------------------------------------------------------------------------------------

def _fails(row, check_mode):
    """A failed object fails any run; drift fails a check run, where it is what the run is for. An applied run
    that repaired drift has succeeded, and its test case says what it changed instead."""
    return row['verdict'] == 'failed' or (check_mode and row['verdict'] in DRIFT)


def _testcase(suite, row, check_mode):
    case = ElementTree.SubElement(suite, 'testcase', name='%s [%s]' % (object_label(row), row['host']),
                                  classname='%s.%s' % (COLLECTION, row['module']), time='0')
    if _fails(row, check_mode):
        failure = ElementTree.SubElement(case, 'failure', type=row['verdict'], message=plan_text(row))
        failure.text = '%s: %s\nread: %s' % (row['verdict'], plan_text(row), row.get('read'))
    elif row['verdict'] in NOT_JUDGED:
        ElementTree.SubElement(case, 'skipped', message=row.get('msg') or row['verdict'])
    elif row['verdict'] in DRIFT:
        ElementTree.SubElement(case, 'system-out').text = 'changed: %s' % plan_text(row)
    return case


def junit_xml(document):
    """The report as JUnit XML: a ``testsuite`` per module, a ``testcase`` per object."""
    check_mode = bool(document.get('check_mode'))
    rows = document['objects']
    root = ElementTree.Element('testsuites', name='%s drift report' % COLLECTION, time='0')
    totals = dict(tests=0, failures=0, errors=0, skipped=0)
    for module, members in families(rows):
        suite = ElementTree.SubElement(root, 'testsuite', name='%s.%s' % (COLLECTION, module),
                                       timestamp=document['generated'].rstrip('Z'), hostname='localhost', time='0')
        counts = dict(tests=len(members), failures=sum(1 for row in members if _fails(row, check_mode)), errors=0,
                      skipped=sum(1 for row in members if row['verdict'] in NOT_JUDGED))
        for row in members:
            _testcase(suite, row, check_mode)
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    return '<?xml version="1.0" encoding="UTF-8"?>\n%s\n' % ElementTree.tostring(root, encoding='unicode')


# -- Markdown -------------------------------------------------------------------------------------------------------

def markdown_cell(text):
    """``text`` as one literal table cell: on one line, every Markdown-special character escaped."""
    text = ' '.join(str(text).split())
    return ''.join('\\' + char if char in MARKDOWN_SPECIAL else char for char in text)


def _table(header, lines):
    out = ['| %s |' % ' | '.join(header), '|%s|' % '|'.join(' --- ' for _column in header)]
    out.extend('| %s |' % ' | '.join(markdown_cell(cell) for cell in line) for line in lines)
    return out


def markdown_summary(document):
    """The report as Markdown: the totals per family in one table, then a table per family of every object that
    did not match (drifted, missing, failed), naming its fields."""
    rows = document['objects']
    title = '## %s drift report%s' % (COLLECTION, ' (check mode)' if document.get('check_mode') else '')
    summary = document['summary']
    lines = [title, '',
             'Judged %(judged)d: %(matched)d matched, %(drifted)d drifted, %(missing)d missing, %(failed)d failed.'
             % summary, '']
    grouped = families(rows)
    if not grouped:
        return '\n'.join(lines + ['No object of this collection was judged.', ''])
    header = ('Family',) + SUMMARY_COLUMNS + ('not judged',)
    lines.extend(_table(header, [(module,) + tuple(family_counts(members)[column] for column in header[1:])
                                 for module, members in grouped]))
    for module, members in grouped:
        listed = [row for row in members if row['verdict'] in DRIFT + ('failed',)]
        if not listed:
            continue
        lines.extend(['', '### %s' % markdown_cell(module), ''])
        lines.extend(_table(('Object', 'Host', 'Verdict', 'Plan', 'Fields or message'), [
            (object_label(row), row['host'], row['verdict'], row.get('action') or '-', fields_text(row))
            for row in listed]))
    return '\n'.join(lines) + '\n'
