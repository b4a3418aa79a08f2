"""The cluster family from three freshly installed nodes (``Simulator(fresh=True)``), through real ansible-playbook
runs on both execution paths.

check mode plans the create and each join and writes nothing → the first two nodes become a cluster (a create and
a join) → the re-run is adopted with zero writes → a third member declared: --check --diff names ``members`` and
plans one join → the real run joins it with one write → again zero writes. Refusals (a node of another cluster, an
undeclared member, a token asked to write) and a join whose answer is lost (never sent twice) have their own tests.

``BAD_INPUT`` has the shape of test_bad_input.CORPUS.
"""

import time

import pytest

from conftest import EXECUTION_PATHS, reconfirms
from simulator import Simulator

MEMBERS = [{'node': 'node%d' % n, 'links': ['192.0.2.1%d' % n]} for n in (1, 2, 3)]
CLUSTER = 'lab'

BAD_INPUT = [
    ('cluster', {'name': 'lab', 'members': [{'node': 'node1', 'api_host': '127.0.0.1', 'links': ['node-one']}]},
     'members[0].links'),
    ('cluster', {'name': 'lab', 'members': [{'node': 'node_1', 'api_host': '127.0.0.1'}]}, 'members[0].node'),
    ('cluster', {'name': 'lab', 'members': [{'node': 'node1', 'api_host': 'https://127.0.0.1/'}]},
     'members[0].api_host'),
    ('cluster', {'name': 'a-cluster-name-too-long', 'members': [{'node': 'node1', 'api_host': '127.0.0.1'}]}, 'name'),
    ('cluster', {'name': 'lab', 'members': [{'node': 'node1', 'api_host': 'h1'}, {'node': 'node1', 'api_host': 'h2'}]},
     'members'),
    ('cluster', {'name': 'lab', 'members': [{'node': 'node1', 'api_host': 'h1', 'links': ['10.0.0.1']},
                                            {'node': 'node2', 'api_host': 'h2'}]}, 'members'),
    ('cluster', {'name': 'lab', 'members': [{'node': 'node1', 'api_host': 'h1', 'votes': -1}]}, 'members[0].votes'),
    ('cluster', {'name': 'lab', 'members': []}, 'members'),
]


@pytest.fixture
def sim():
    """Three standalone nodes, each answering for itself (the ``playbook`` fixture runs against this one)."""
    with Simulator(members=3, fresh=True) as simulator:
        yield simulator


def as_root(sim):
    return {'api_host': sim.members, 'api_user': 'root@pam', 'api_password': sim.root_password,
            'ca_path': sim.ca_path, 'api_timeout': 5}


def declaration(sim, count, **extra):
    members = [dict(member, api_host=sim.members[index]) for index, member in enumerate(MEMBERS[:count])]
    return dict({'name': CLUSTER, 'members': members, 'join_password': sim.root_password, 'quorum_timeout': 10},
                **extra)


def run(sim, playbook, path, args, check=False, diff=False, defaults=None, verbosity=0):
    sim.clear_log()
    book = playbook([{'name': 'cluster', 'homeflare.proxmox.cluster': args, 'ignore_errors': True}], check=check,
                    diff=diff, defaults=defaults or as_root(sim), env=EXECUTION_PATHS[path], verbosity=verbosity)
    assert book.rc == 0, book
    return book, book.result()


def joins(sim):
    return [entry for entry in sim.writes() if entry['path'] in ('/cluster/config', '/cluster/config/join')]


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_cluster_from_fresh_nodes(sim, playbook, path):
    # 1. check mode plans the create on the first member and the join of the second, and writes nothing
    book, result = run(sim, playbook, path, declaration(sim, 2), check=True, diff=True)
    assert result['changed'] is True and result['plan'] == {
        'read': 'absent', 'action': 'create', 'changed': ['members'],
        'steps': [{'node': 'node1', 'action': 'create'}, {'node': 'node2', 'action': 'join'}]}, result
    assert sim.writes() == []

    # 2. create and join: one write each, on the node that runs it; quorate with both members
    book, result = run(sim, playbook, path, declaration(sim, 2))
    assert result['changed'] is True and result['object'] == {'name': CLUSTER, 'members': ['node1', 'node2'],
                                                              'quorate': True}, result
    assert [(entry['path'], entry['member']) for entry in joins(sim)] == [
        ('/cluster/config', sim.members[0]), ('/cluster/config/join', sim.members[1])]
    assert sim.member_state(1) is sim.member_state(0) and list(sim.member_state(0).nodes) == ['node1', 'node2']
    assert sim.root_password not in book.output + str(result)

    # 3. re-run: adopted, zero writes, and only the first member's view is read
    book, result = run(sim, playbook, path, declaration(sim, 2))
    assert result['changed'] is False and result['plan'] == {'read': 'found', 'action': 'none', 'changed': []}
    assert sim.writes() == []
    assert [entry['path'] for entry in sim.log if entry['path'] != '/access/ticket'] == [
        '/cluster/status', '/cluster/config/nodes']

    # 4. a third member declared: --check --diff names members and plans one join, writing nothing
    book, result = run(sim, playbook, path, declaration(sim, 3), check=True, diff=True)
    assert result['plan'] == {'read': 'found', 'action': 'update', 'changed': ['members'],
                              'steps': [{'node': 'node3', 'action': 'join'}]}, result
    assert result['diff']['before']['members'] == ['node1', 'node2']
    assert result['diff']['after']['members'] == ['node1', 'node2', 'node3']
    assert 'node3' in book.output and sim.writes() == []

    # 5. the repair is one write: node3's join
    book, result = run(sim, playbook, path, declaration(sim, 3))
    assert [(entry['path'], entry['member']) for entry in joins(sim)] == [('/cluster/config/join', sim.members[2])]
    assert result['object']['members'] == ['node1', 'node2', 'node3'] and result['object']['quorate'] is True
    if reconfirms(path):
        book, result = run(sim, playbook, path, declaration(sim, 3))
        assert result['changed'] is False and sim.writes() == []


def test_a_token_verifies_but_never_writes(sim, playbook):
    token = dict(sim.module_options(), api_timeout=5)
    book, result = run(sim, playbook, 'controller', declaration(sim, 3), defaults=token)
    assert book.failed and 'only root@pam create or join' in result['msg'], result
    assert sim.writes() == []
    run(sim, playbook, 'controller', declaration(sim, 3))
    book, result = run(sim, playbook, 'controller', declaration(sim, 3), check=True, defaults=token)
    assert result['changed'] is False and sim.writes() == []


def test_another_cluster_and_an_undeclared_member_are_refused(sim, playbook):
    # node3 makes a cluster of its own first
    status, body = sim.request('POST', '/cluster/config', {'clustername': 'other'}, member=2, as_root=True)
    assert status == 200, body
    book, result = run(sim, playbook, 'controller', declaration(sim, 3), check=True)
    assert book.failed and "node node3 is a member of cluster 'other'" in result['msg'], result
    assert 'pvecm delnode node3' in result['msg'] and sim.writes() == []
    # a cluster of node1 and node2, declared with node1 only
    run(sim, playbook, 'controller', declaration(sim, 2))
    book, result = run(sim, playbook, 'controller', declaration(sim, 1))
    assert book.failed and 'node2' in result['msg'] and "pvecm delnode node2" in result['msg'], result
    assert sim.writes() == []


def test_a_join_without_an_answer_is_never_sent_twice(sim, playbook):
    """The join reaches node2 and is applied, but its answer is lost (longer than api_timeout): the task fails
    saying it may have been applied, sends nothing more, and the next run finds node2 joined."""
    sim.before('POST', r'^/cluster/config/join$', lambda params: time.sleep(7), times=1)
    book, result = run(sim, playbook, 'controller', declaration(sim, 2))
    assert book.failed and 'may have been applied' in result['msg'], result
    assert len([entry for entry in sim.log if entry['path'] == '/cluster/config/join']) == 1
    time.sleep(2.5)  # the handler finishes after the client gave up
    book, result = run(sim, playbook, 'controller', declaration(sim, 2))
    assert result['changed'] is False and sim.writes() == [], result


def test_the_join_password_never_shows(sim, playbook):
    book, result = run(sim, playbook, 'controller', declaration(sim, 3), verbosity=4)
    assert result['changed'] is True
    assert sim.root_password not in book.output and sim.root_password not in str(book.results)


def test_declare_check_mode_names_a_cluster_write_a_token_cannot_make(sim, playbook):
    token = dict(sim.module_options(), api_timeout=5)
    sim.clear_log()
    book = playbook([{'name': 'Declare', 'homeflare.proxmox.declare': {'objects': {'cluster': [declaration(sim, 2)]}},
                      'ignore_errors': True}], check=True, defaults=token)
    assert book.failed, book
    result = book.result()
    assert 'only root@pam create or join' in result['msg'], result
    assert result['results'][0]['error'] == 'Refused' and sim.writes() == []
