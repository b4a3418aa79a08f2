"""Every module documents full check and diff support, through the homeflare.proxmox.attributes fragment.

A read-only module (the ``*_info`` ones and ``export``) writes nothing, so its diff support is N/A
(homeflare.proxmox.attributes.info), and its check mode is trivially full."""

import ast
import glob
import json
import os
import subprocess
import sys

import pytest
import yaml

from collection_root import COLLECTIONS

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULES = sorted(os.path.basename(path)[:-3] for path in glob.glob(os.path.join(REPO, 'plugins', 'modules', '*.py'))
                 if not path.endswith('__init__.py'))


def ansible_doc(modules):
    """ansible-doc's JSON for ``modules`` in one call: ({module: doc}, stderr); ({}, stderr) when any fails to load."""
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=COLLECTIONS)
    names = ['homeflare.proxmox.' + module for module in modules]
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), 'ansible-doc'), '-t', 'module', '-j'] + names,
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    if proc.returncode != 0:
        return {}, proc.stderr
    return {name[len('homeflare.proxmox.'):]: entry['doc'] for name, entry in json.loads(proc.stdout).items()}, proc.stderr


@pytest.fixture(scope='module')
def docs():
    """{module: (doc or None, stderr)}. One ansible-doc call; only when it fails, one per module to tell which."""
    rendered, stderr = ansible_doc(MODULES)
    if rendered:
        # ansible-doc leaves out, with only a warning, a module whose documentation does not load.
        return {module: (rendered.get(module), stderr) for module in MODULES}
    result = {}
    for module in MODULES:
        alone, stderr = ansible_doc([module])
        result[module] = (alone.get(module), stderr)
    return result


def test_there_are_modules():
    assert len(MODULES) >= 6


def read_only(module):
    return module.endswith('_info') or module == 'export'


@pytest.mark.parametrize('module', MODULES)
def test_check_and_diff_mode_are_fully_supported(docs, module):
    doc, stderr = docs[module]
    assert doc is not None, stderr
    attributes = doc.get('attributes') or {}
    assert attributes.get('check_mode', {}).get('support') == 'full', attributes
    diff_support = 'N/A' if read_only(module) else 'full'
    assert attributes.get('diff_mode', {}).get('support') == diff_support, attributes
    assert attributes.get('action_group', {}).get('membership') == ['homeflare.proxmox.proxmox'], attributes


@pytest.mark.parametrize('module', MODULES)
def test_the_attributes_come_from_the_fragment(module):
    # One definition: a module that restated the block would drift from the fragment unnoticed.
    with open(os.path.join(REPO, 'plugins', 'modules', module + '.py'), encoding='utf-8') as handle:
        tree = ast.parse(handle.read())
    documentation = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
                     and [getattr(target, 'id', None) for target in node.targets] == ['DOCUMENTATION']]
    assert len(documentation) == 1
    doc = yaml.safe_load(documentation[0])
    fragment = 'homeflare.proxmox.attributes' + ('.info' if read_only(module) else '')
    assert fragment in doc.get('extends_documentation_fragment', [])
    assert 'attributes' not in doc
