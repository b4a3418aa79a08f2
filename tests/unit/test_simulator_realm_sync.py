"""The simulator's realm sync (issue 27): PVE's dry-run answer (the task log lines Domains.pm prints, nothing
written) and the sync's effects on user.cfg per remove-vanished, against a directory the test seeds.

Run: python -m pytest tests/unit/test_simulator_realm_sync.py -q
"""

import copy
import sys
import urllib.parse
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import
from simulator.pve.handlers.realm_sync import seed_directory  # noqa: E402

LDAP = {'type': 'ldap', 'server1': 'ldap.example.org', 'base_dn': 'dc=example,dc=org',
        'user_attr': 'uid', 'sync_attributes': 'email=mail'}


def ok(sim, method, path, form=None):
    status, body = sim.request(method, path, form)
    assert status == 200, (method, path, status, body)
    return body['data']


def log_of(sim, upid):
    return [row['t'] for row in ok(sim, 'GET', '/nodes/node1/tasks/%s/log' % urllib.parse.quote(upid, safe=''),
                                   {'limit': 0})]


def seeded(sim, realm):
    """A realm of its own per test (the simulator is shared), its user.cfg and its directory."""
    ok(sim, 'POST', '/access/domains', dict(LDAP, realm=realm))
    ok(sim, 'POST', '/access/users', {'userid': 'gone@' + realm})
    ok(sim, 'PUT', '/access/acl', {'path': '/', 'roles': 'PVEAuditor', 'users': 'gone@' + realm})
    ok(sim, 'POST', '/access/users', {'userid': 'bob@' + realm, 'comment': 'local'})
    seed_directory(sim.state, realm, users=[{'uid': 'alice', 'mail': 'a@example.org'}, {'uid': 'bob'}],
                   groups={'ops': ['alice', 'bob', 'nobody']})


def test_the_dry_run_prints_what_the_sync_would_do_and_writes_nothing(sim):
    seeded(sim, 'corp1')
    before = copy.deepcopy((sim.state.users, sim.state.groups, sim.state.acl))
    upid = ok(sim, 'POST', '/access/domains/corp1/sync', {'scope': 'both', 'remove-vanished': 'entry;acl',
                                                          'dry-run': 1})
    assert ':auth-realm-sync-test:corp1:' in upid
    assert log_of(sim, upid)[:-1] == [
        '(dry test run) starting sync for realm corp1', 'got data from server, updating users and groups',
        'syncing users (remove-vanished opts: entry;acl)', 'deleting outdated existing users first',
        "remove user 'gone@corp1'", "purge users 'gone@corp1' ACL entries", "adding user 'alice@corp1'",
        "updating user 'bob@corp1'", 'syncing groups (remove-vanished opts: entry;acl)',
        'deleting outdated existing groups first', "adding group 'ops-corp1'", '',
        'NOTE: Dry test run, changes were NOT written to the configuration.']
    assert (sim.state.users, sim.state.groups, sim.state.acl) == before


def test_the_sync_writes_what_the_dry_run_said(sim):
    seeded(sim, 'corp2')
    upid = ok(sim, 'POST', '/access/domains/corp2/sync', {'scope': 'both', 'remove-vanished': 'entry;acl',
                                                          'enable-new': 0})
    assert ':auth-realm-sync:corp2:' in upid and log_of(sim, upid)[-2] == \
        'successfully updated users and groups configuration'
    users = sim.state.users
    assert 'gone@corp2' not in users and users['alice@corp2']['email'] == 'a@example.org'
    assert users['alice@corp2']['enable'] == 0 and users['bob@corp2']['comment'] == 'local'
    assert sim.state.groups['ops-corp2']['users'] == {'alice@corp2', 'bob@corp2'}
    assert 'ops-corp2' in users['alice@corp2']['groups']
    assert all('gone@corp2' not in node['users'] for node in sim.state.acl.values())
    # properties: bob's local comment goes (the directory sets none), his enable is kept
    ok(sim, 'POST', '/access/domains/corp2/sync', {'scope': 'users', 'remove-vanished': 'properties'})
    assert 'comment' not in users['bob@corp2'] and users['bob@corp2']['enable'] == 1


def test_the_sync_refuses_what_pve_refuses(sim):
    seeded(sim, 'corp3')
    status, body = sim.request('POST', '/access/domains/corp3/sync', {})
    assert status == 400 and 'scope' in body['errors']
    status, body = sim.request('POST', '/access/domains/pve/sync', {'scope': 'users'})
    assert status == 500 and "Cannot sync realm type 'pve'! Only LDAP/AD realms can be synced." in body['message']
    status, body = sim.request('POST', '/access/domains/nope/sync', {'scope': 'users'})
    assert status == 400 and body['errors'] == {'realm': 'Realm does not exist.'}
    # the realm's stored defaults stand in for what is left out
    ok(sim, 'PUT', '/access/domains/corp3', {'sync-defaults-options': 'scope=users,remove-vanished=entry'})
    upid = ok(sim, 'POST', '/access/domains/corp3/sync', {'dry-run': 1})
    assert "remove user 'gone@corp3'" in log_of(sim, upid)
