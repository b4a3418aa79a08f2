"""Cluster-wide resource mappings (issue 25): /cluster/mapping/{pci,usb,dir} through real ansible-playbook runs on
both execution paths. A mapping is created once, adopted with zero writes (its entries compared as a set, key by
key: order and hex case mean nothing), an entry added through the API is named as ``map`` drift and repaired with
one PUT carrying the digest read, and state=absent deletes it. Entries are checked against their type's format
before any request.

``MATRIX``, ``SETUP`` and ``BAD_INPUT`` have the shapes of test_matrix.FAMILIES / SETUP and test_bad_input.CORPUS.
"""

import pytest

from conftest import EXECUTION_PATHS

from simulator.pve.handlers.mapping import mapping_exists

GPU = {'type': 'pci', 'id': 'gpu', 'description': 'Passthrough GPU', 'mdev': False,
       'map': ['node=node1,path=0000:01:00.0,id=10DE:2204,iommugroup=14', 'node=node2,id=10de:2204,path=0000:02:00.0']}
DONGLE = {'type': 'usb', 'id': 'dongle', 'map': ['node=node1,id=0403:6001', 'node=node2,id=0403:6001,path=1-2']}
MEDIA = {'type': 'dir', 'id': 'media', 'map': ['node=node1,path=/srv/media']}

SETUP = []
MATRIX = {
    'hardware_mapping': dict(
        prefix='/cluster/mapping/dir',
        args=MEDIA,
        drift=[('PUT', '/cluster/mapping/dir/media', {'map': ['node=node1,path=/srv/media', 'node=node2,path=/x']})],
        drifted={'map': 'map'},
        absent={'type': 'dir', 'id': 'media', 'state': 'absent'},
    ),
}
MODULES = sorted(MATRIX)

BAD_INPUT = [
    ('hardware_mapping', {'type': 'pci', 'id': 'gpu', 'map': ['node=node1,id=10de:2204']}, 'map'),
    ('hardware_mapping', {'type': 'pci', 'id': 'gpu', 'map': ['path=0000:01:00.0,id=10de:2204']}, 'map'),
    ('hardware_mapping', {'type': 'pci', 'id': 'gpu', 'map': ['node=node1,path=0000:01:00.0,id=nvidia']}, 'map'),
    ('hardware_mapping', {'type': 'usb', 'id': 'dongle', 'map': ['node=node1,path=1-2']}, 'map'),
    ('hardware_mapping', {'type': 'usb', 'id': 'dongle', 'map': ['node=node1,id=0403:6001'], 'mdev': True}, 'mdev'),
    ('hardware_mapping', {'type': 'dir', 'id': 'media', 'map': ['node=node1,path=/srv,iommugroup=2']}, 'map'),
    ('hardware_mapping', {'type': 'dir', 'id': 'media'}, 'map'),
    ('hardware_mapping', {'type': 'dir', 'id': 'bad id!', 'map': ['node=node1,path=/srv']}, 'id'),
]


def mapping_task(args, **extra):
    return dict({'name': '%s/%s' % (args['type'], args['id']), 'homeflare.proxmox.hardware_mapping': args}, **extra)


def writes(sim):
    return [(entry['method'], entry['path'], entry['form']) for entry in sim.writes()]


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_mapping_of_each_type_is_created_adopted_repaired_and_removed(sim, playbook, path):
    env = EXECUTION_PATHS[path]
    tasks = [mapping_task(GPU), mapping_task(DONGLE), mapping_task(MEDIA)]

    run = playbook(tasks, check=True, diff=True, env=env)
    assert run.rc == 0, [line['result'].get('msg') for line in run.results]
    assert [line['result']['plan']['action'] for line in run.results] == ['create'] * 3
    assert sim.writes() == []

    run = playbook(tasks, env=env)
    assert run.rc == 0, run
    assert [entry[:2] for entry in writes(sim)] == [
        ('POST', '/cluster/mapping/pci'), ('POST', '/cluster/mapping/usb'), ('POST', '/cluster/mapping/dir')]
    assert writes(sim)[0][2]['id'] == 'gpu' and 'type' not in writes(sim)[0][2]
    assert mapping_exists(sim.state, 'pci', 'gpu') and mapping_exists(sim.state, 'usb', 'dongle')
    assert mapping_exists(sim.state, 'dir', 'media') and not mapping_exists(sim.state, 'dir', 'gpu')

    # entries in another order, keys in another order, hex in upper case: still a match, zero writes
    sim.clear_log()
    reordered = dict(GPU, map=list(reversed(GPU['map'])))
    run = playbook([mapping_task(reordered), mapping_task(DONGLE), mapping_task(MEDIA)], env=env)
    assert run.rc == 0, run
    assert [line['result']['changed'] for line in run.results] == [False] * 3, run
    assert sim.writes() == []

    # an entry added through the API is named as map drift and repaired with one PUT carrying the digest
    assert sim.request('PUT', '/cluster/mapping/usb/dongle',
                       {'map': DONGLE['map'] + ['node=node3,id=0403:6001']})[0] == 200
    sim.clear_log()
    run = playbook([mapping_task(DONGLE)], diff=True, env=env)
    assert run.rc == 0, run
    assert run.result()['plan']['changed'] == ['map']
    assert [entry[:2] for entry in writes(sim)] == [('PUT', '/cluster/mapping/usb/dongle')]
    assert writes(sim)[0][2].get('digest')
    assert len(sim.state.mappings['usb']['dongle']['map']) == 2

    # state absent deletes; again is a no-op
    gone = [dict(type=item['type'], id=item['id'], state='absent') for item in (GPU, DONGLE, MEDIA)]
    run = playbook([mapping_task(item) for item in gone] + [mapping_task(gone[0], name='again')], env=env)
    assert run.rc == 0, run
    assert [line['result']['changed'] for line in run.results] == [True, True, True, False]
    assert all(not table for table in sim.state.mappings.values())


def test_the_simulator_answers_pve_errors_for_a_duplicate_and_a_missing_id(sim):
    assert sim.request('POST', '/cluster/mapping/dir', {'id': 'media', 'map': ['node=node1,path=/srv']})[0] == 200
    status, body = sim.request('POST', '/cluster/mapping/dir', {'id': 'media', 'map': ['node=node1,path=/srv']})[:2]
    assert status == 500 and "dir ID 'media' already defined" in str(body)
    status, body = sim.request('GET', '/cluster/mapping/pci/nothing')[:2]
    assert status == 500 and "mapping 'nothing' not found" in str(body)
    status, body = sim.request('PUT', '/cluster/mapping/pci/nothing', {'map': [GPU['map'][0]]})[:2]
    assert status == 500 and "pci ID 'nothing' does not exist" in str(body)
    status, body = sim.request('GET', '/cluster/mapping/dir', {'check-node': 'node2'})[:2]
    assert status == 200
    assert body['data'][0]['checks'] == [{'severity': 'warning', 'message': 'No mapping for node node2.'}]
