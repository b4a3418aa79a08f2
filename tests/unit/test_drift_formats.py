"""The drift report's JUnit XML and Markdown renderings (plugins/plugin_utils/drift_formats.py).

The JUnit output is validated against tests/unit/data/junit.xsd (the format CI systems read), the Markdown is
parsed as GitHub-flavoured Markdown and read back cell by cell.
"""

import os
from xml.etree import ElementTree

import pytest
import xmlschema
from markdown_it import MarkdownIt

from ansible_collections.homeflare.proxmox.plugins.plugin_utils.drift_formats import junit_xml, markdown_summary

SCHEMA = xmlschema.XMLSchema(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'junit.xsd'))
HOSTILE = "pool 'a|b' <script>*x*</script> `c` [l](u) &amp;"


def row(module, task, verdict, **extra):
    base = dict(module=module, task=task, host='localhost', read='found', action='none', changed=[], failed=False,
                verdict=verdict)
    base.update(extra)
    return base


def document(check_mode=True):
    objects = [
        row('pool', 'Matching pool', 'matched'),
        row('pool', 'Drifted pool', 'drifted', action='update', changed=['comment', 'members']),
        row('pool', 'Declare', 'missing', name=HOSTILE, read='absent', action='create', changed=['comment']),
        row('storage', 'Bad storage', 'failed', read=None, action=None, failed=True, msg="option 'storage' is bad"),
        row('storage', 'Hidden storage', 'hidden', read=None, action=None, hidden=True,
            msg='output hidden by no_log'),
        row('storage', 'Loop', 'skipped', read=None, action=None, skipped=True, item='local'),
        row('backup', 'Backup now', 'unjudged', action=None),
    ]
    return dict(version=1, generated='2026-12-04T21:00:00Z', check_mode=check_mode,
                summary=dict(judged=4, matched=1, drifted=1, missing=1, failed=1, hidden=1, skipped=1),
                objects=objects)


def cases(text):
    root = ElementTree.fromstring(text.encode('utf-8'))
    return root, {case.get('name'): case for case in root.iter('testcase')}


def test_junit_is_valid_and_fails_each_drifted_missing_and_failed_object_of_a_check_run():
    text = junit_xml(document())
    SCHEMA.validate(text)  # raises on any departure from the schema
    root, by_name = cases(text)
    assert [suite.get('name') for suite in root] == [
        'homeflare.proxmox.pool', 'homeflare.proxmox.storage', 'homeflare.proxmox.backup']
    assert (root.get('tests'), root.get('failures'), root.get('skipped'), root.get('errors')) == ('7', '3', '2', '0')
    assert [(suite.get('tests'), suite.get('failures'), suite.get('skipped')) for suite in root] == [
        ('3', '2', '0'), ('3', '1', '2'), ('1', '0', '0')]
    assert list(by_name['pool: Matching pool [localhost]']) == []
    drifted = by_name['pool: Drifted pool [localhost]'].find('failure')
    assert (drifted.get('type'), drifted.get('message')) == ('drifted', 'update comment, members')
    missing = by_name['%s (Declare) [localhost]' % HOSTILE]  # names survive XML escaping intact
    assert missing.get('classname') == 'homeflare.proxmox.pool'
    assert missing.find('failure').get('message') == 'create comment'
    failed = by_name['storage: Bad storage [localhost]'].find('failure')
    assert (failed.get('type'), failed.get('message')) == ('failed', "option 'storage' is bad")
    assert by_name['storage: Hidden storage [localhost]'].find('skipped').get('message') == 'output hidden by no_log'
    assert by_name['storage: Loop (item=local) [localhost]'].find('skipped') is not None
    assert list(by_name['backup: Backup now [localhost]']) == []


def test_junit_of_an_applied_run_fails_only_failed_objects():
    text = junit_xml(document(check_mode=False))
    SCHEMA.validate(text)
    root, by_name = cases(text)
    assert root.get('failures') == '1'
    drifted = by_name['pool: Drifted pool [localhost]']
    assert drifted.find('failure') is None
    assert drifted.find('system-out').text == 'changed: update comment, members'
    assert by_name['storage: Bad storage [localhost]'].find('failure') is not None


def test_the_schema_rejects_what_ci_readers_reject():
    # The schema check can fail: a testcase without its classname, or a count that is not a number.
    for bad in ('<testsuites><testsuite name="s" tests="1"><testcase name="c"/></testsuite></testsuites>',
                '<testsuites><testsuite name="s" tests="one"/></testsuites>'):
        with pytest.raises(xmlschema.XMLSchemaValidationError):
            SCHEMA.validate(bad)


def tables(text):
    """Each GFM table of ``text`` as a list of rows of cell texts (header first)."""
    tokens = MarkdownIt('commonmark').enable('table').parse(text)
    found, current, line = [], None, None
    for token in tokens:
        if token.type == 'table_open':
            current = []
        elif token.type == 'tr_open':
            line = []
        elif token.type == 'inline' and current is not None and line is not None:
            # an inline token's children are the cell as rendered text: escapes resolved, no markup
            children = token.children or []
            assert all(child.type == 'text' for child in children), (token.content, children)
            line.append(''.join(child.content for child in children))
        elif token.type == 'tr_close':
            current.append(line)
            line = None
        elif token.type == 'table_close':
            found.append(current)
            current = None
    return found


def test_markdown_is_a_summary_table_and_a_table_per_family_with_drift():
    text = markdown_summary(document())
    assert text.startswith('## homeflare.proxmox drift report (check mode)\n')
    assert 'Judged 4: 1 matched, 1 drifted, 1 missing, 1 failed.' in text
    summary, pool, storage = tables(text)
    assert summary == [
        ['Family', 'judged', 'matched', 'drifted', 'missing', 'failed', 'not judged'],
        ['pool', '3', '1', '1', '1', '0', '0'],
        ['storage', '1', '0', '0', '0', '1', '2'],
        ['backup', '0', '0', '0', '0', '0', '0'],
    ]
    assert pool == [
        ['Object', 'Host', 'Verdict', 'Plan', 'Fields or message'],
        ['pool: Drifted pool', 'localhost', 'drifted', 'update', 'comment, members'],
        # every special character stays literal text: no cell split, no HTML, no emphasis, no link
        ['%s (Declare)' % HOSTILE, 'localhost', 'missing', 'create', 'comment'],
    ]
    assert storage[1] == ['storage: Bad storage', 'localhost', 'failed', '-', "option 'storage' is bad"]
    assert '### pool' in text and '### storage' in text and '### backup' not in text


def test_markdown_of_a_run_that_judged_nothing():
    empty = dict(document(), objects=[], summary=dict(judged=0, matched=0, drifted=0, missing=0, failed=0,
                                                      hidden=0, skipped=0))
    text = markdown_summary(empty)
    assert 'No object of this collection was judged.' in text
    assert tables(text) == []
