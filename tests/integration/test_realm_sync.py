"""A realm sync (issue 27) in real ansible-playbook runs, on both paths, against a directory the test seeds.

--check runs PVE's own dry run and reports the directory's differences (users and groups to add and remove)
and writes nothing; the real run makes them and reports the same lists; the re-run reports none and
changed=false. An attribute changed in the directory is re-applied (``resync``) and reported by the real run as
a change. A realm PVE cannot sync is refused before the sync is asked.
"""

import pytest

from conftest import EXECUTION_PATHS, connection
from simulator.pve.handlers.realm_sync import seed_directory
from test_matrix import api

LDAP = {'realm': 'corp', 'type': 'ldap', 'server1': 'ldap.example.org', 'base_dn': 'dc=example,dc=org',
        'user_attr': 'uid', 'sync_attributes': 'email=mail,firstname=givenName'}
DIRECTORY_USERS = [{'uid': 'alice', 'mail': 'alice@example.org', 'givenName': 'Alice'},
                   {'uid': 'bob', 'mail': 'bob@example.org'}]
DIRECTORY_GROUPS = {'ops': ['alice', 'bob'], 'dev': ['bob']}
# user.cfg before the first sync: a user and a group of the realm the directory no longer has, and one it has
SETUP = [('POST', '/access/domains', LDAP),
         ('POST', '/access/users', {'userid': 'dave@corp'}),
         ('POST', '/access/users', {'userid': 'bob@corp', 'comment': 'kept'}),
         ('POST', '/access/groups', {'groupid': 'old-corp'})]
SYNC = {'realm': 'corp', 'scope': 'both', 'remove_vanished': ['entry', 'acl'], 'enable_new': True}


def run_sync(sim, playbook, path, args=None, check=False, ignore_errors=False):
    sim.clear_log()
    task = {'name': 'realm_sync', 'homeflare.proxmox.realm_sync': dict(args or SYNC, **connection(sim))}
    if ignore_errors:
        task['ignore_errors'] = True
    run = playbook([task], check=check, diff=True, env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    return run.results[0]


def users_of(sim, realm='corp'):
    return dict((userid, user) for userid, user in sim.state.users.items() if userid.endswith('@' + realm))


def groups_of(sim, realm='corp'):
    return dict((groupid, sorted(group['users'])) for groupid, group in sim.state.groups.items()
                if groupid.endswith('-' + realm))


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_check_reports_the_directory_the_run_syncs_it_and_the_rerun_reports_none(sim, playbook, path):
    api(sim, SETUP)
    seed_directory(sim.state, 'corp', users=DIRECTORY_USERS, groups=DIRECTORY_GROUPS)
    before = (sorted(users_of(sim)), groups_of(sim))

    # --check: PVE's dry run names the differences, nothing is written
    line = run_sync(sim, playbook, path, check=True)
    result = line['result']
    assert result['changed'] is True
    assert result['users'] == {'add': ['alice@corp'], 'change': [], 'remove': ['dave@corp'], 'resync': ['bob@corp']}
    assert result['groups'] == {'add': ['dev-corp', 'ops-corp'], 'change': [], 'remove': ['old-corp'], 'resync': []}
    assert result['plan'] == {'read': 'found', 'action': 'sync', 'changed': [
        'user alice@corp (add)', 'user dave@corp (remove)', 'group dev-corp (add)', 'group ops-corp (add)',
        'group old-corp (remove)']}
    assert sim.writes() == []
    assert (sorted(users_of(sim)), groups_of(sim)) == before

    # the real run makes them, and reports the same lists (bob's groups changed: a change)
    line = run_sync(sim, playbook, path)
    result = line['result']
    assert result['changed'] is True
    assert result['users']['add'] == ['alice@corp'] and result['users']['remove'] == ['dave@corp']
    assert result['users']['change'] == ['bob@corp']
    assert result['groups']['add'] == ['dev-corp', 'ops-corp'] and result['groups']['remove'] == ['old-corp']
    assert result['task'].startswith('UPID:') and ':auth-realm-sync:corp:' in result['task']
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [('POST', '/access/domains/corp/sync')]
    users = users_of(sim)
    assert sorted(users) == ['alice@corp', 'bob@corp']
    assert users['alice@corp']['email'] == 'alice@example.org' and users['alice@corp']['firstname'] == 'Alice'
    assert users['alice@corp']['enable'] == 1
    assert users['bob@corp']['comment'] == 'kept'  # no 'properties' in remove_vanished: PVE keeps it
    assert groups_of(sim) == {'dev-corp': ['bob@corp'], 'ops-corp': ['alice@corp', 'bob@corp']}

    # the re-run: nothing to report, changed=false, in check mode and in a real run
    for check in (True, False):
        result = run_sync(sim, playbook, path, check=check)['result']
        assert result['changed'] is False, result
        for kind in ('users', 'groups'):
            assert result[kind]['add'] == result[kind]['remove'] == result[kind]['change'] == []
        assert result['users']['resync'] == ['alice@corp', 'bob@corp']
        assert result['plan']['changed'] == []

    # an attribute changed in the directory: re-applied, and the real run says what it changed
    seed_directory(sim.state, 'corp', users=[dict(DIRECTORY_USERS[0], mail='alice@corp.example.org'),
                                             DIRECTORY_USERS[1]], groups=DIRECTORY_GROUPS)
    result = run_sync(sim, playbook, path)['result']
    assert result['changed'] is True and result['users']['change'] == ['alice@corp'], result
    assert result['plan']['changed'] == ['user alice@corp (change)']
    assert result['diff']['before']['users']['alice@corp']['email'] == 'alice@example.org'
    assert result['diff']['after']['users']['alice@corp']['email'] == 'alice@corp.example.org'
    assert users_of(sim)['alice@corp']['email'] == 'alice@corp.example.org'


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_realm_pve_cannot_sync_is_refused_before_the_sync(sim, playbook, path):
    api(sim, [('POST', '/access/domains', {'realm': 'sso', 'type': 'openid', 'issuer-url': 'https://id.example.org',
                                           'client-id': 'pve'})])
    for realm, says in (('sso', 'PVE syncs LDAP and AD realms only'), ('pve', 'PVE syncs LDAP and AD realms only'),
                        ('nowhere', "PVE has no realm 'nowhere'")):
        line = run_sync(sim, playbook, path, {'realm': realm, 'scope': 'users'}, ignore_errors=True)
        assert line['status'] == 'failed' and says in line['result']['msg'], line
        assert [entry for entry in sim.log if entry['path'].endswith('/sync')] == []


def test_the_realm_stores_the_sync_defaults_the_sync_takes(sim, playbook):
    api(sim, SETUP)
    seed_directory(sim.state, 'corp', users=DIRECTORY_USERS, groups=DIRECTORY_GROUPS)
    realm = dict(LDAP, sync_defaults_options='scope=users,remove-vanished=entry,enable-new=0')
    run = playbook([{'name': 'realm', 'homeflare.proxmox.realm': dict(realm, **connection(sim))}], diff=True)
    assert run.rc == 0 and run.results[0]['result']['plan']['changed'] == ['sync_defaults_options'], run
    again = playbook([{'name': 'realm', 'homeflare.proxmox.realm': dict(realm, **connection(sim))}])
    assert again.results[0]['result']['changed'] is False
    # the sync leaves everything to the realm's defaults: users only, vanished entries removed, new ones disabled
    result = run_sync(sim, playbook, 'controller', {'realm': 'corp'})['result']
    assert result['users']['add'] == ['alice@corp'] and result['users']['remove'] == ['dave@corp']
    assert result['groups'] == {'add': [], 'change': [], 'remove': [], 'resync': []}
    assert users_of(sim)['alice@corp']['enable'] == 0


def test_declare_syncs_a_realm_it_creates_in_the_same_task(sim, playbook):
    seed_directory(sim.state, 'corp', users=DIRECTORY_USERS, groups=DIRECTORY_GROUPS)
    realm = dict(LDAP, sync_defaults_options='scope=both')
    objects = {'realm': [realm], 'realm_sync': [{'realm': 'corp'}]}
    task = {'name': 'declare', 'homeflare.proxmox.declare': {'objects': objects}}
    check = playbook([task], check=True)
    assert check.rc == 0, check
    assert check.result()['summary']['create'] == 1 and check.result()['summary']['sync'] == 1, check.result()
    assert sim.writes() == []
    run = playbook([task])
    assert run.rc == 0, run
    assert sorted(users_of(sim)) == ['alice@corp', 'bob@corp']
    assert groups_of(sim) == {'dev-corp': ['bob@corp'], 'ops-corp': ['alice@corp', 'bob@corp']}
    sim.clear_log()
    again = playbook([task], check=True)
    assert again.rc == 0 and again.result()['changed'] is False, again.result()
