"""The snapshot family's judgement without a server: the declaration's rules, keep's choice of what to remove, and
the names each guest type reserves (plugins/module_utils/families/snapshot.py)."""

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.snapshot import (
    FAMILY, Found, NoSnapshot, Place)

BASE = {'node': 'node1', 'vmid': 150, 'name': 'nightly-4', 'description': None, 'vmstate': None, 'state': 'present',
        'confirm_removal': False, 'task_timeout': 600, 'keep': None, 'prefix': None, 'rollback': False,
        'confirm_rollback': False}
SERIES = [{'name': 'nightly-1', 'snaptime': 1000}, {'name': 'nightly-2', 'snaptime': 2000},
          {'name': 'other', 'snaptime': 2500}, {'name': 'nightly-3', 'snaptime': 3000}]


def declared(**changes):
    return FAMILY.declaration(dict(BASE, **changes))


def found(name, kind='qemu', rows=tuple(SERIES)):
    place = Place(kind, 'node1', list(rows))
    for row in rows:
        if row['name'] == name:
            return Found(row, place)
    return NoSnapshot(place)


@pytest.mark.parametrize('changes, option', [
    (dict(name='current'), 'name'),
    (dict(keep=0, prefix='nightly-'), 'keep'),
    (dict(keep=2), 'keep and prefix'),
    (dict(prefix='nightly-'), 'keep and prefix'),
    (dict(keep=2, prefix='weekly-'), 'prefix'),
    (dict(keep=2, prefix='nightly-', state='absent', confirm_removal=True), 'state=absent'),
    (dict(rollback=True), 'confirm_rollback'),
])
def test_bad_declarations_are_refused_naming_the_option(changes, option):
    with pytest.raises(DeclarationError) as caught:
        declared(**changes)
    assert option in str(caught.value)


def test_keep_counts_a_new_snapshot_as_the_newest_and_removes_the_oldest_first():
    declaration = declared(keep=2, prefix='nightly-')
    the_plan = FAMILY.plan(declaration, found('nightly-4'))
    assert the_plan.action == 'create' and the_plan.remove == ['nightly-1', 'nightly-2']
    assert the_plan.kept == ['nightly-3', 'nightly-4']


def test_keep_refuses_to_remove_the_declared_snapshot():
    with pytest.raises(Refused) as caught:
        FAMILY.plan(declared(name='nightly-1', keep=2, prefix='nightly-'), found('nightly-1'))
    assert 'would remove it' in str(caught.value)


def test_a_found_snapshot_with_nothing_to_prune_needs_nothing():
    the_plan = FAMILY.plan(declared(name='nightly-3', keep=3, prefix='nightly-'), found('nightly-3'))
    assert the_plan.action == 'none' and the_plan.remove == []


@pytest.mark.parametrize('kind, name', [('qemu', 'Pending'), ('lxc', 'vzdump')])
def test_each_type_refuses_its_reserved_name_on_create(kind, name):
    with pytest.raises(Refused) as caught:
        FAMILY.plan(declared(name=name), found(name, kind))
    assert 'reserved name' in str(caught.value)


def test_a_rollback_needs_a_present_snapshot_and_is_its_own_action():
    with pytest.raises(Refused):
        FAMILY.plan(declared(name='gone', rollback=True, confirm_rollback=True), found('gone'))
    the_plan = FAMILY.plan(declared(name='nightly-3', rollback=True, confirm_rollback=True), found('nightly-3'))
    assert the_plan.action == 'rollback' and the_plan.as_dict()['rollback'] is True
