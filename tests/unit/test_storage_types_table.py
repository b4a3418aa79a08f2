"""The storage family's per-type table agrees with the simulator's port of pve-storage 9's plugins.

Both are copies of PVE/Storage/<Type>Plugin.pm (options(), plugindata()); the collection's is what it
refuses before any request, the simulator's is what it answers. They must not drift apart.
"""

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.storage import FAMILY, PLUGINS
from simulator.pve.storage_types import TYPES as SIMULATED

KNOWN = set(field.wire for field in FAMILY.fields) - {'type'}


def test_the_same_types():
    assert sorted(PLUGINS) == sorted(SIMULATED)


@pytest.mark.parametrize('kind', sorted(PLUGINS))
def test_the_same_options_requirements_and_content(kind):
    plugin, simulated = PLUGINS[kind], SIMULATED[kind]
    # Options the family declares at all (bwlimit, mkdir and friends are not declarable yet).
    assert sorted(plugin['options']) == sorted(set(simulated['options']) & KNOWN)
    required = set(key for key, rule in simulated['options'].items() if not rule.get('optional'))
    if simulated.get('default_path'):
        required.discard('path')  # PVE defaults it to /mnt/pve/<storage>
    assert sorted(plugin['required']) == sorted(required)
    assert sorted(plugin['content']) == sorted(set(simulated['content']) - {'none'})


def declare(**params):
    params.setdefault('state', 'present')
    for field in FAMILY.identity + FAMILY.fields:
        params.setdefault(field.option, None)
    return FAMILY.declaration(params)


@pytest.mark.parametrize('params, message', [
    (dict(storage='s1', type='dir', path='/srv', export='/x'), 'option export: a dir storage does not take export'),
    (dict(storage='s1', type='nfs', shared=True, server='nas', export='/x'), 'option shared: a nfs storage'),
    (dict(storage='s1', type='nfs', server='nas'), 'option export is required for a nfs storage'),
    (dict(storage='s1', type='lvmthin', vgname='pve'), 'option thinpool is required for a lvmthin storage'),
    (dict(storage='s1', type='lvm', vgname='pve', content=['iso']), 'a lvm storage cannot hold iso'),
    (dict(storage='s1', type='pbs', server='pbs', datastore='d', content=['images']), 'cannot hold images'),
])
def test_what_a_type_cannot_take_is_refused_before_any_request(params, message):
    with pytest.raises(DeclarationError, match=message):
        declare(**params)


def test_a_declaration_a_type_can_take_passes():
    declared = declare(storage='s1', type='zfs', portal='san', target='iqn.x', pool='tank', blocksize='4k',
                       iscsiprovider='LIO', sparse=True)
    assert declared.values['pool'] == 'tank'
