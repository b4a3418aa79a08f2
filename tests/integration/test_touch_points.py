"""Every place a family must appear, checked for every registered family (registry.FAMILIES), and proven complete
by a throw-away family: with only its family (registered), its module file and its shim, plus its docs and tests,
every touch point is met; each one it misses is named.

What derives from the registry needs no check here: ``declare`` and the export take every registered family (the
throw-away one included, shown below), and the action group, the roles' module lists, the bad-input corpus and
the fault matrix are compared with it. docs/development.md ("Add a family") walks through the same list.
"""

import os
import re
import shutil

import pytest
import yaml

from ansible_collections.homeflare.proxmox.plugins.module_utils.declare import Declare
from ansible_collections.homeflare.proxmox.plugins.module_utils.export import Export
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family, Listing, Where
from ansible_collections.homeflare.proxmox.plugins.module_utils.registry import APPLIERS, FAMILIES, ORDER
from conftest import REPO
from test_bad_input import CORPUS
from test_faults import FAMILIES as FAULT_MATRIX

# The role that declares a server's objects, per scheme: (role, its variables' prefix).
ROLES = {'pve': ('cluster', 'cluster'), 'pbs': ('backup_server', 'backup_server')}


def read(root, *parts):
    path = os.path.join(root, *parts)
    if not os.path.exists(path):
        return None
    with open(path) as handle:
        return handle.read()


def role_modules(root, scheme):
    role, prefix = ROLES[scheme]
    defaults = yaml.safe_load(read(root, 'roles', role, 'defaults', 'main.yml') or '{}') or {}
    return defaults.get('%s_object_modules' % prefix) or []


def touch_points(root, module, family, corpus, fault_matrix):
    """(touch point, met) for one family, in the order docs/development.md lists them."""
    applier = bool(getattr(family, 'applies', ()))
    role, _prefix = ROLES[family.scheme]
    shim = read(root, 'plugins', 'modules', '%s.py' % module) or ''
    runtime = yaml.safe_load(read(root, 'meta', 'runtime.yml') or '{}') or {}
    apply_tasks = read(root, 'roles', role, 'tasks', 'apply.yml') or ''
    points = [
        ('module file plugins/modules/%s.py naming its family' % module,
         'families.%s import FAMILY' % module in shim and 'DOCUMENTATION' in shim),
        ('action shim plugins/action/%s.py' % module,
         re.search(r'^from \S+ import .*\bActionModule\b', read(root, 'plugins', 'action', '%s.py' % module) or '',
                   re.M) is not None),
        ('meta/runtime.yml action group proxmox', module in (runtime.get('action_groups') or {}).get('proxmox', [])),
        ('README.md names `%s`' % module, '`%s`' % module in (read(root, 'README.md') or '')),
        ('docs/families.md names `%s`' % module, '`%s`' % module in (read(root, 'docs', 'families.md') or '')),
        ('roles/%s/tasks/apply.yml passes objects.%s' % (role, module),
         re.search(r'^\s+%s:' % re.escape(module), apply_tasks, re.M) is not None),
        ('the bad-input corpus (tests/integration/test_bad_input.py) has a case',
         any(case[0] == module for case in corpus)),
    ]
    if not applier:
        points += [
            ('roles/%s/defaults/main.yml %s_object_modules' % (role, role),
             module in role_modules(root, family.scheme)),
            ('the fault matrix (tests/integration/test_faults.py FAMILIES) has an object', module in fault_matrix),
        ]
    return points


def missed(root, module, family, corpus=None, fault_matrix=None):
    corpus = CORPUS if corpus is None else corpus
    fault_matrix = FAULT_MATRIX if fault_matrix is None else fault_matrix
    return [point for point, met in touch_points(root, module, family, corpus, fault_matrix) if not met]


@pytest.mark.parametrize('module', ORDER)
def test_every_registered_family_meets_every_touch_point(module):
    assert missed(REPO, module, dict(FAMILIES)[module]) == []


def test_every_family_file_is_registered_under_its_own_name():
    files = sorted(name[:-3] for name in os.listdir(os.path.join(REPO, 'plugins', 'module_utils', 'families'))
                   if name.endswith('.py') and name != '__init__.py')
    assert sorted(ORDER) == files
    assert all(family.module == module for module, family in FAMILIES)
    assert APPLIERS == ('realm_sync', 'backup', 'network_apply', 'sdn_apply')


def test_the_roles_module_lists_are_the_registry_s_families():
    for scheme in ROLES:
        expected = [module for module, family in FAMILIES if family.scheme == scheme and module not in APPLIERS]
        listed = role_modules(REPO, scheme)
        assert sorted(listed) == sorted(expected)


THROWAWAY = Family('throwaway', 'throw-away object', identity=[Text('name', required=True)],
                   fields=[Text('comment', default='')],
                   where=Where(collection='/cluster/throwaway', item='/cluster/throwaway/{name}',
                               listing=Listing('/cluster/throwaway')))
SHIM = '''"""A throw-away module."""
DOCUMENTATION = "module: throwaway"
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.throwaway import FAMILY
'''
ACTION = 'from ansible_collections.homeflare.proxmox.plugins.plugin_utils.controller import ActionModule\n'


def test_a_throw_away_family_misses_each_touch_point_until_its_files_exist(tmp_path):
    root = str(tmp_path)
    # registered, and nothing else yet: every touch point is named
    assert len(missed(root, 'throwaway', THROWAWAY, [], {})) == len(touch_points(root, 'throwaway', THROWAWAY, [], {}))
    # its module file and shim
    os.makedirs(os.path.join(root, 'plugins', 'modules'))
    os.makedirs(os.path.join(root, 'plugins', 'action'))
    (tmp_path / 'plugins' / 'modules' / 'throwaway.py').write_text(SHIM)
    (tmp_path / 'plugins' / 'action' / 'throwaway.py').write_text(ACTION)
    # the surfaces that are written by hand (docs, the action group, the role)
    shutil.copytree(os.path.join(REPO, 'meta'), os.path.join(root, 'meta'))
    shutil.copytree(os.path.join(REPO, 'roles'), os.path.join(root, 'roles'))
    os.makedirs(os.path.join(root, 'docs'))
    (tmp_path / 'README.md').write_text('`throwaway`: a throw-away object.\n')
    (tmp_path / 'docs' / 'families.md').write_text('`throwaway`\n')
    left = missed(root, 'throwaway', THROWAWAY, [], {})
    assert left == ['meta/runtime.yml action group proxmox', 'roles/cluster/tasks/apply.yml passes objects.throwaway',
                    'the bad-input corpus (tests/integration/test_bad_input.py) has a case',
                    'roles/cluster/defaults/main.yml cluster_object_modules',
                    'the fault matrix (tests/integration/test_faults.py FAMILIES) has an object']
    runtime = yaml.safe_load((tmp_path / 'meta' / 'runtime.yml').read_text())
    runtime['action_groups']['proxmox'].append('throwaway')
    (tmp_path / 'meta' / 'runtime.yml').write_text(yaml.safe_dump(runtime))
    apply_tasks = tmp_path / 'roles' / 'cluster' / 'tasks' / 'apply.yml'
    apply_tasks.write_text(apply_tasks.read_text().replace(
        '      realm:', '      throwaway: "{{ cluster_throwaways }}"\n      realm:'))
    defaults = tmp_path / 'roles' / 'cluster' / 'defaults' / 'main.yml'
    defaults.write_text(defaults.read_text().replace('cluster_object_modules: [',
                                                     'cluster_object_modules: [throwaway, '))
    assert missed(root, 'throwaway', THROWAWAY, [('throwaway', {}, 'name')], {'throwaway': {}}) == []


def test_declare_and_the_export_take_a_registered_family_with_no_other_change():
    families = FAMILIES + (('throwaway', THROWAWAY),)
    entries, problems, _secrets = Declare(families).validate({'throwaway': [{'name': 'x', 'comment': 'c'}],
                                                              'pool': [{'poolid': 'lab'}]})
    assert problems == []
    assert [(entry.module, entry.name) for entry in entries] == [
        ('pool', "pool 'lab'"), ('throwaway', "throw-away object 'x'")]
    _entries, problems, _secrets = Declare(families).validate({'throwaway': [{'comment': 'c'}]})
    assert problems == ['objects.throwaway[0]: missing required arguments: name']
    assert 'throwaway' in Export(families).modules
