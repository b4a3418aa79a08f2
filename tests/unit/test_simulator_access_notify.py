"""The simulator's realms, API tokens and notifications, and the collection's families over them.

Each endpoint answers as PVE 9 does (status, PVE's wording, what a read returns and leaves out,
secrets kept apart, built-ins that come back), and the families judge those answers right: lists
compared as sets, a token read without metadata as absent, built-in realms never removed, names
shared by endpoints and matchers.

Run: python -m pytest tests/unit/test_simulator_access_notify.py -q
"""

import copy
import re
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from collection_root import COLLECTIONS  # noqa: E402

if COLLECTIONS not in sys.path:
    sys.path.insert(0, COLLECTIONS)

from ansible_collections.homeflare.proxmox.plugins.module_utils import api  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import StaticToken  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (  # noqa: E402
    DeclarationError, Forbidden, Refused)
from ansible_collections.homeflare.proxmox.plugins.module_utils import notifications  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.families import (  # noqa: E402
    api_token, notification_endpoint, notification_matcher, realm)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (  # noqa: E402
    ABSENT, field_plan, reconcile)
from simulator.pve.handlers.domains import REALM_TYPES  # noqa: E402
from simulator.pve.handlers.notifications import DELETABLE  # noqa: E402
# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import
# the official schema's calls, and the rule check every family field passes
from test_schema_rules import calls, schema_text  # noqa: E402,F401  pylint: disable=unused-import
from test_schema_rules import test_each_field_carries_the_schemas_rules as check_field_rules  # noqa: E402

LDAP = {'type': 'ldap', 'server1': 'ldap.example.org', 'base_dn': 'dc=example,dc=org', 'user_attr': 'uid'}
OPENID = {'type': 'openid', 'issuer-url': 'https://id.example.org', 'client-id': 'pve'}


def ok(sim, method, path, form=None):
    status, body = sim.request(method, path, form)
    assert status == 200, (method, path, status, body)
    return body['data']


def refused(sim, method, path, form=None):
    """(status, message, errors) of a request PVE refuses."""
    status, body = sim.request(method, path, form)
    assert status != 200, (method, path, body)
    return status, body.get('message'), body.get('errors')


def client(sim):
    return api.Client('pve', sim.members, StaticToken(sim.token_id, sim.token_secret), ca_path=sim.ca_path, timeout=5)


def params(module, **values):
    """A task's parameters: the argument spec's defaults, then ``values``."""
    spec = module.FAMILY.object_spec()
    declared = dict((option, spec[option].get('default')) for option in spec)
    declared.update(values)
    return declared


# -- realms: /access/domains ------------------------------------------------------------------------

def test_the_built_in_realms_are_always_there(sim):
    rows = dict((row['realm'], row) for row in ok(sim, 'GET', '/access/domains'))
    assert rows['pam'] == {'realm': 'pam', 'type': 'pam', 'comment': 'Linux PAM standard authentication'}
    assert rows['pve']['type'] == 'pve'
    pam = ok(sim, 'GET', '/access/domains/pam')
    assert pam['plugin'] == 'PVE::Auth::PAM' and re.fullmatch(r'[0-9a-f]{40}', pam['digest'])
    # PVE answers the delete and reads the realm back, reset
    ok(sim, 'PUT', '/access/domains/pam', {'comment': 'Local logins', 'tfa': 'type=oath'})
    ok(sim, 'DELETE', '/access/domains/pam')
    pam = ok(sim, 'GET', '/access/domains/pam')
    assert pam['comment'] == 'Linux PAM standard authentication' and 'tfa' not in pam
    assert refused(sim, 'POST', '/access/domains', {'realm': 'pve', 'type': 'openid', 'issuer-url': 'x',
                                                    'client-id': 'y'})[1] == \
        "add auth server failed: domain 'pve' already exists\n"
    assert refused(sim, 'POST', '/access/domains', {'realm': 'local', 'type': 'pam'})[1] == \
        "add auth server failed: unable to create builtin type 'pam'\n"


def test_an_ldap_realm_keeps_its_bind_password_apart(sim):
    ok(sim, 'POST', '/access/domains', dict(LDAP, realm='dir1', password='BindPw-1', port='636', verify='1',
                                            **{'sync-defaults-options': 'full=1,purge=1,scope=users'}))
    read = ok(sim, 'GET', '/access/domains/dir1')
    assert 'password' not in read and sim.state.realm_secrets['dir1'] == 'BindPw-1'
    assert read['port'] == 636 and read['verify'] == 1
    # the deprecated full/purge are stored as remove-vanished
    assert read['sync-defaults-options'] == 'remove-vanished=entry;properties;acl,scope=users'
    ok(sim, 'PUT', '/access/domains/dir1', {'password': 'BindPw-2'})
    assert sim.state.realm_secrets['dir1'] == 'BindPw-2'
    ok(sim, 'PUT', '/access/domains/dir1', {'delete': 'password,port'})
    assert 'dir1' not in sim.state.realm_secrets and 'port' not in ok(sim, 'GET', '/access/domains/dir1')
    ok(sim, 'DELETE', '/access/domains/dir1')
    assert refused(sim, 'GET', '/access/domains/dir1')[:2] == (500, "domain 'dir1' does not exist\n")
    assert refused(sim, 'DELETE', '/access/domains/dir1')[1] == \
        "delete auth server failed: authentication domain 'dir1' does not exist\n"


def test_an_openid_realm_keeps_its_client_key_in_domains_cfg(sim):
    # Auth/OpenId.pm: client-key is an ordinary option, so PVE's item read answers it
    ok(sim, 'POST', '/access/domains', dict(OPENID, realm='sso1', **{'client-key': 'k3y', 'username-claim': 'email'}))
    read = ok(sim, 'GET', '/access/domains/sso1')
    assert read['client-key'] == 'k3y' and read['username-claim'] == 'email'
    # username-claim is fixed: not a parameter of the update at all
    status, _message, errors = refused(sim, 'PUT', '/access/domains/sso1', {'username-claim': 'sub'})
    assert status == 400 and 'username-claim' in errors


@pytest.mark.parametrize('form, message', [
    (dict(LDAP, realm='bad1', **{'issuer-url': 'x'}), "add auth server failed: unexpected property 'issuer-url'\n"),
    ({'realm': 'bad2', 'type': 'ldap', 'server1': 'ldap.example.org', 'base_dn': 'dc=x'},
     "add auth server failed: missing value for required option 'user_attr'\n"),
    (dict(OPENID, realm='bad3', **{'check-connection': '1'}),
     "add auth server failed: 'check-connection' parameter can only be set for realms of type 'ldap' or 'ad'\n"),
])
def test_a_realm_the_type_does_not_allow_is_refused(sim, form, message):
    assert refused(sim, 'POST', '/access/domains', form)[:2] == (500, message)


def test_realm_values_are_checked_as_pve_formats_them(sim):
    status, _message, errors = refused(sim, 'POST', '/access/domains', dict(LDAP, realm='bad4', tfa='type=sms'))
    assert status == 400 and 'tfa' in errors
    status, _message, errors = refused(sim, 'POST', '/access/domains', dict(LDAP, realm='bad5',
                                                                            group_name_attr='cn=x'))
    assert status == 400 and 'simple ldap attribute' in errors['group_name_attr']


def test_a_realm_update_checks_the_digest_and_moves_the_default(sim):
    ok(sim, 'POST', '/access/domains', dict(OPENID, realm='sso2'))
    digest = ok(sim, 'GET', '/access/domains/sso2')['digest']
    ok(sim, 'PUT', '/access/domains/pam', {'comment': 'changes the file'})
    assert refused(sim, 'PUT', '/access/domains/sso2', {'comment': 'x', 'digest': digest})[1] == \
        'update auth server failed: detected modified configuration - file changed by other user? Try again.\n'
    assert refused(sim, 'PUT', '/access/domains/sso2', {})[1] == 'update auth server failed: no options specified\n'
    ok(sim, 'PUT', '/access/domains/sso2', {'default': '1'})
    assert [row['realm'] for row in ok(sim, 'GET', '/access/domains') if row.get('default')] == ['sso2']


def test_the_realm_type_table_is_the_simulators(sim):
    assert sorted(realm.TYPES) == sorted(REALM_TYPES)
    for kind, (options, required, _fixed) in REALM_TYPES.items():
        assert sorted(realm.TYPES[kind]['options']) == sorted(options), kind
        assert sorted(realm.TYPES[kind]['required']) == sorted(required), kind


# -- realm: the family --------------------------------------------------------------------------

@pytest.mark.parametrize('values, message', [
    (dict(realm='pam', state='absent'), "realm 'pam' is built in"),
    (dict(realm='pve', type='pam'), "option type: the built-in realm 'pve' has the type pve"),
    (dict(realm='local', type='pve'), 'option type: pve is the type of the built-in realm'),
    (dict(realm='corp'), 'option type is required'),
    (dict(realm='corp', type='openid', issuer_url='https://id', client_id='pve', password='x'),
     'option password: a openid realm does not take password'),
    (dict(realm='corp', type='ad', server1='dc1.example.org'), 'option domain is required for a ad realm'),
    (dict(realm='corp', type='pve', comment='x'), 'option type: pve is the type'),
    (dict(realm='corp', type='ldap', server1='ldap', base_dn='x', user_attr='uid', tfa='digits=6'), 'option tfa'),
])
def test_a_realm_declaration_is_judged_before_any_request(values, message):
    with pytest.raises((DeclarationError, Refused)) as caught:
        realm.FAMILY.declaration(params(realm, **values))
    assert message in str(caught.value)


def test_the_realm_family_repairs_what_drifted(sim):
    declared = params(realm, realm='dir2', type='ldap', server1='ldap.example.org', base_dn='dc=example,dc=org',
                      user_attr='uid', password='BindPw-3', comment='Directory')
    assert reconcile(client(sim), realm.FAMILY, declared)['plan']['action'] == 'create'
    assert sim.state.realm_secrets['dir2'] == 'BindPw-3'
    ok(sim, 'PUT', '/access/domains/dir2', {'comment': 'edited', 'password': 'changed-by-hand'})
    sim.clear_log()
    result = reconcile(client(sim), realm.FAMILY, declared)
    assert result['plan'] == {'read': 'found', 'action': 'update', 'changed': ['comment']}
    put = sim.writes()[0]
    # the secret is never sent again (nor compared), the digest guards the write
    assert 'password' not in put['form'] and put['form']['comment'] == 'Directory' and put['form']['digest']


# -- API tokens: the family over /access/users/{userid}/token/{tokenid} ---------------------------------

def test_a_token_is_created_only_when_asked_and_its_secret_is_returned_once(sim):
    sim.state.add_user('ci1@pve')
    declared = params(api_token, userid='ci1@pve', tokenid='deploy', expire=0, privsep=True, comment='CI')
    sim.clear_log()
    with pytest.raises(Refused) as caught:
        reconcile(client(sim), api_token.FAMILY, declared)
    assert 'pveum user token add ci1@pve deploy --privsep 1' in str(caught.value)
    assert 'create_missing=true' in str(caught.value) and sim.writes() == []
    result = reconcile(client(sim), api_token.FAMILY, dict(declared, create_missing=True))
    assert result['secret'] == sim.state.token_secrets['ci1@pve!deploy']
    assert result['full_tokenid'] == 'ci1@pve!deploy'
    again = reconcile(client(sim), api_token.FAMILY, dict(declared, create_missing=True))
    assert again['changed'] is False and 'secret' not in again and 'full_tokenid' not in again


def test_a_token_read_without_expire_and_privsep_is_absent():
    class Answers:
        def __init__(self, data):
            self.data = data

        def get(self, path, params=None, role='read'):
            return self.data

    ident = {'userid': 'ci@pve', 'tokenid': 'deploy'}
    assert api_token.FAMILY.store.read(Answers({}), api_token.FAMILY, ident) is ABSENT
    assert api_token.FAMILY.store.read(Answers({'comment': 'x'}), api_token.FAMILY, ident) is ABSENT
    assert api_token.FAMILY.store.read(Answers({'privsep': 1}), api_token.FAMILY, ident) == {'privsep': 1}


def test_a_missing_token_is_pves_typed_absence_a_missing_user_a_refusal(sim):
    sim.state.add_user('ci2@pve')
    assert refused(sim, 'GET', '/access/users/ci2@pve/token/gone')[:2] == (
        500, "no such token 'gone' for user 'ci2@pve'\n")
    declared = params(api_token, userid='ci2@pve', tokenid='gone', expire=0, privsep=True, state='absent',
                      confirm_removal=True)
    result = reconcile(client(sim), api_token.FAMILY, declared)
    assert result['plan'] == {'read': 'absent', 'action': 'none', 'changed': []}
    # the permission check (self, or User.Modify over the user's groups) cannot place a missing user: 403,
    # even for root@pam's token (only root@pam itself skips the check); never read as absent
    assert refused(sim, 'GET', '/access/users/nobody@pve/token/gone')[:2] == (403, 'Permission check failed\n')
    with pytest.raises(Forbidden):
        reconcile(client(sim), api_token.FAMILY, dict(declared, userid='nobody@pve'))


def test_a_token_update_may_delete_only_its_comment(sim):
    sim.state.add_user('ci4@pve')
    sim.state.add_token('ci4@pve', 'deploy', privsep=1, expire=4102444800, comment='CI')
    # User.pm update_token_info: $deletable holds comment alone; raise_param_exc under the user.cfg lock
    assert refused(sim, 'PUT', '/access/users/ci4@pve/token/deploy', {'delete': 'expire'}) == (
        500, "updating token info failed: 400 Parameter verification failed.\ndelete: unknown option 'expire'\n",
        None)
    assert ok(sim, 'PUT', '/access/users/ci4@pve/token/deploy', {'delete': 'comment'}) == {
        'privsep': 1, 'expire': 4102444800}


@pytest.mark.parametrize('userid, message', [
    ('ab', "user name 'ab' is too short\n"),
    ('u' * 61 + '@pve', "user name '%s@pve' is too long (65 > 64)\n" % ('u' * 61)),
    ('norealm', "value 'norealm' does not look like a valid user name\n"),
])
def test_the_userid_param_check_dies_with_verify_username_s_text(sim, userid, message):
    # RPCEnvironment.pm exec_api2_perm_check runs before the parameters are verified
    assert refused(sim, 'DELETE', '/access/users/' + userid)[:2] == (500, message)


def test_internal_permission_tests_die_with_perl_s_location():
    from simulator.auth import Access
    from simulator.errors import ApiError
    from simulator.pve.state import ClusterState
    access = Access(ClusterState())
    for check, message in ((['bogus'], 'unknown permission test at /usr/share/perl5/PVE/RPCEnvironment.pm line 545.\n'),
                           (['userid-param', 'other'],
                            'unknown userid-param test at /usr/share/perl5/PVE/RPCEnvironment.pm line 536.\n')):
        with pytest.raises(ApiError) as caught:
            access.exec_perm_check(check, 'someone@pve', {'userid': 'someone@pve'})
        assert (caught.value.status, caught.value.message) == (500, message)


def test_root_pam_can_be_deleted_and_reads_back_enabled():
    from simulator import Simulator
    with Simulator(members=1) as own:
        own.state.users['root@pam']['firstname'] = 'Super'
        own.state.passwords['root@pam'] = 'RootPw-1'
        assert own.request('DELETE', '/access/users/root@pam')[0] == 200
        # userconfig_force_defaults: an enabled root@pam, nothing else; PAM keeps the password
        assert own.state.users['root@pam'] == {'enable': 1, 'expire': 0, 'groups': set(), 'tokens': {}}
        assert own.state.passwords['root@pam'] == 'RootPw-1'
        # root's tokens lived in its user.cfg entry: the simulator's own token went with it
        assert own.request('GET', '/version')[0] == 401


@pytest.mark.parametrize('values, message', [
    (dict(userid='ci@pve', tokenid='deploy', privsep=True), 'option expire is required'),
    (dict(userid='ci@pve', tokenid='deploy', expire=0), 'option privsep is required'),
    (dict(userid='ci@pve', tokenid='ci@pve!deploy', expire=0, privsep=True), 'option tokenid'),
    (dict(userid='ci@pve', tokenid='deploy', state='absent'), 'confirm_removal=true'),
])
def test_a_token_declaration_is_judged_before_any_request(values, message):
    with pytest.raises((DeclarationError, Refused)) as caught:
        api_token.FAMILY.declaration(params(api_token, **values))
    assert message in str(caught.value)


def test_a_token_drift_is_repaired_with_one_put(sim):
    sim.state.add_user('ci3@pve')
    sim.state.add_token('ci3@pve', 'deploy', privsep=1, expire=0, comment='CI')
    ok(sim, 'PUT', '/access/users/ci3@pve/token/deploy', {'privsep': '0', 'expire': '4102444800'})
    sim.clear_log()
    declared = params(api_token, userid='ci3@pve', tokenid='deploy', expire=0, privsep=True, comment='CI')
    result = reconcile(client(sim), api_token.FAMILY, declared)
    assert result['plan']['changed'] == ['expire', 'privsep']
    assert [(entry['method'], entry['form']) for entry in sim.writes()] == [
        ('PUT', {'expire': '0', 'privsep': '1'})]


# -- notification endpoints -------------------------------------------------------------------------

def test_the_built_in_endpoint_reads_with_its_origin(sim):
    rows = ok(sim, 'GET', '/cluster/notifications/endpoints/sendmail')
    assert {'name': 'mail-to-root', 'mailto-user': ['root@pam'], 'origin': 'builtin',
            'comment': "Send mails to root@pam's email address"} in rows
    item = ok(sim, 'GET', '/cluster/notifications/endpoints/sendmail/mail-to-root')
    assert item['origin'] == 'builtin' and re.fullmatch(r'[0-9a-f]{64}', item['digest'])
    ok(sim, 'PUT', '/cluster/notifications/endpoints/sendmail/mail-to-root', {'mailto': 'admin@example.org'})
    assert ok(sim, 'GET', '/cluster/notifications/endpoints/sendmail/mail-to-root')['origin'] == 'modified-builtin'
    # a built-in is never removed, only reset, even while a matcher refers to it
    ok(sim, 'DELETE', '/cluster/notifications/endpoints/sendmail/mail-to-root')
    item = ok(sim, 'GET', '/cluster/notifications/endpoints/sendmail/mail-to-root')
    assert item['origin'] == 'builtin' and 'mailto' not in item


def test_an_smtp_endpoint_keeps_its_password_apart_and_its_lists_in_order(sim):
    ok(sim, 'POST', '/cluster/notifications/endpoints/smtp', {
        'name': 'mail1', 'server': 'smtp.example.org', 'from-address': 'pve@example.org',
        'mailto': ['b@example.org', 'a@example.org'], 'password': 'SmtpPw-1', 'port': '587'})
    item = ok(sim, 'GET', '/cluster/notifications/endpoints/smtp/mail1')
    assert item['mailto'] == ['b@example.org', 'a@example.org'] and item['port'] == 587
    assert 'password' not in item and sim.state.notification_secrets['mail1'] == {'password': 'SmtpPw-1'}
    # delete is an array: several keys are repeated form keys
    ok(sim, 'PUT', '/cluster/notifications/endpoints/smtp/mail1', {'delete': ['password', 'port']})
    assert 'mail1' not in sim.state.notification_secrets and 'port' not in ok(
        sim, 'GET', '/cluster/notifications/endpoints/smtp/mail1')
    status, message, _errors = refused(sim, 'PUT', '/cluster/notifications/endpoints/smtp/mail1',
                                       {'delete': 'server'})
    # perlmod cannot deserialize the delete argument: it croaks serde's message (the enum's variants in order)
    assert (status, message) == (500, 'error: unknown variant `server`, expected one of `author`, `comment`, '
                                      '`disable`, `mailto`, `mailto-user`, `password`, `port`, `username`\n')
    assert refused(sim, 'PUT', '/cluster/notifications/endpoints/smtp/mail1', {'delete': 'mailto'})[:2] == (
        400, 'must at least provide one recipient, either in mailto or in mailto-user\n')
    # a comma-joined list is one item (a user-name-shaped one): PVE needs repeated keys
    ok(sim, 'PUT', '/cluster/notifications/endpoints/smtp/mail1', {'mailto': 'a@example.org,b@example.org'})
    assert ok(sim, 'GET', '/cluster/notifications/endpoints/smtp/mail1')['mailto'] == ['a@example.org,b@example.org']


def test_endpoint_and_matcher_names_are_one_namespace(sim):
    ok(sim, 'POST', '/cluster/notifications/endpoints/gotify', {'name': 'push1', 'server': 'https://g',
                                                                'token': 'GotifyTk-1'})
    message = "Cannot create 'push1', an entity with the same name already exists\n"
    assert refused(sim, 'POST', '/cluster/notifications/endpoints/sendmail', {'name': 'push1',
                                                                              'mailto': 'a@x.org'})[:2] == (400, message)
    assert refused(sim, 'POST', '/cluster/notifications/matchers', {'name': 'push1'})[:2] == (400, message)
    assert refused(sim, 'GET', '/cluster/notifications/endpoints/sendmail/push1')[:2] == (
        404, "endpoint 'push1' not found\n")
    assert 'token' not in ok(sim, 'GET', '/cluster/notifications/endpoints/gotify/push1')
    status, _message, errors = refused(sim, 'POST', '/cluster/notifications/endpoints/gotify',
                                       {'name': 'push2', 'server': 'https://g'})
    assert status == 400 and errors == {'token': 'property is missing and it is not optional'}
    targets = dict((row['name'], row) for row in ok(sim, 'GET', '/cluster/notifications/targets'))
    assert targets['push1'] == {'name': 'push1', 'origin': 'user-created', 'type': 'gotify'}


def test_a_webhook_answers_its_secrets_names_only(sim):
    ok(sim, 'POST', '/cluster/notifications/endpoints/webhook', {
        'name': 'hook1', 'url': 'https://h', 'method': 'post', 'header': 'name=Content-Type,value=dGV4dA==',
        'secret': 'name=token,value=U2VjcmV0LTE='})
    item = ok(sim, 'GET', '/cluster/notifications/endpoints/webhook/hook1')
    assert item['secret'] == ['name=token'] and item['header'] == ['name=Content-Type,value=dGV4dA==']
    assert 'U2VjcmV0LTE=' not in str(ok(sim, 'GET', '/cluster/notifications/endpoints/webhook'))
    # a secret named without a value keeps its old one; an unknown one is refused
    ok(sim, 'PUT', '/cluster/notifications/endpoints/webhook/hook1', {'secret': ['name=token', 'name=b,value=Yg==']})
    assert sim.state.notification_secrets['hook1']['secret'] == ['name=token,value=U2VjcmV0LTE=', 'name=b,value=Yg==']
    assert refused(sim, 'PUT', '/cluster/notifications/endpoints/webhook/hook1', {'secret': 'name=c'})[:2] == (
        400, "secret 'c' not known\n")
    assert refused(sim, 'PUT', '/cluster/notifications/endpoints/webhook/hook1',
                   {'header': 'name=X,value=not base64!'})[:2] == (
        400, "header 'X' does not have valid base64 encoded data\n")


@pytest.mark.parametrize('header, message', [
    ('Content-Type', 'error: value without key, but schema does not define a default key\n'),
    ('name=X,foo=YQ==', 'error: unknown key "foo"\n'),
    ('value=YQ==', 'error: missing field `name`\n'),
    ('name=X,name=Y', 'error: duplicate field `name`\n'),
])
def test_a_webhook_property_string_perlmod_cannot_deserialize_dies_with_its_text(sim, header, message):
    form = {'name': 'hook9', 'url': 'https://h', 'method': 'post', 'header': header}
    assert refused(sim, 'POST', '/cluster/notifications/endpoints/webhook', form)[:2] == (500, message)


def test_an_endpoint_update_s_arguments_are_deserialized_before_anything_is_looked_at(sim):
    ok(sim, 'POST', '/cluster/notifications/endpoints/webhook', {'name': 'hook8', 'url': 'https://h', 'method': 'post'})
    stale = {'digest': '0' * 64}
    # a header without value: proxmox-notify's 400; an empty value is valid base64
    assert refused(sim, 'PUT', '/cluster/notifications/endpoints/webhook/hook8', {'header': 'name=X'})[:2] == (
        400, "header 'X' has empty value\n")
    ok(sim, 'PUT', '/cluster/notifications/endpoints/webhook/hook8', {'header': 'name=X,value='})
    # the updater and delete are deserialized first: their errors win over a stale digest and a missing endpoint
    assert refused(sim, 'PUT', '/cluster/notifications/endpoints/webhook/hook8', dict(stale, header='X'))[:2] == (
        500, 'error: value without key, but schema does not define a default key\n')
    assert refused(sim, 'PUT', '/cluster/notifications/endpoints/gotify/nothere', dict(stale, delete='url'))[:2] == (
        500, 'error: unknown variant `url`, expected `comment` or `disable`\n')
    assert refused(sim, 'PUT', '/cluster/notifications/endpoints/sendmail/mail-to-root', {'delete': 'bcc'})[:2] == (
        500, 'error: unknown variant `bcc`, expected one of `author`, `comment`, `disable`, `from-address`, '
             '`mailto`, `mailto-user`\n')
    assert refused(sim, 'PUT', '/cluster/notifications/matchers/default-matcher', dict(stale, delete='name'))[:2] == (
        500, 'error: unknown variant `name`, expected one of `comment`, `disable`, `invert-match`, '
             '`match-calendar`, `match-field`, `match-severity`, `mode`, `target`\n')
    ok(sim, 'DELETE', '/cluster/notifications/endpoints/webhook/hook8')


def test_an_endpoint_a_matcher_names_cannot_go_and_the_digest_guards_writes(sim):
    ok(sim, 'POST', '/cluster/notifications/endpoints/sendmail', {'name': 'mail2', 'mailto': 'a@x.org'})
    ok(sim, 'POST', '/cluster/notifications/matchers', {'name': 'route2', 'target': 'mail2'})
    assert refused(sim, 'DELETE', '/cluster/notifications/endpoints/sendmail/mail2')[:2] == (
        400, "cannot delete 'mail2', referenced by: route2\n")
    digest = ok(sim, 'GET', '/cluster/notifications/endpoints/sendmail/mail2')['digest']
    ok(sim, 'PUT', '/cluster/notifications/matchers/route2', {'comment': 'changes the file'})
    assert refused(sim, 'PUT', '/cluster/notifications/endpoints/sendmail/mail2',
                   {'comment': 'x', 'digest': digest})[:2] == (
        400, 'detected modified configuration - file changed by other user? Try again.\n')


# -- notification matchers --------------------------------------------------------------------------

def test_a_matcher_is_stored_as_proxmox_notify_writes_it(sim):
    ok(sim, 'POST', '/cluster/notifications/matchers', {
        'name': 'route3', 'target': 'mail-to-root', 'mode': 'any', 'invert-match': '1',
        'match-severity': ['error, warning', 'info'], 'match-field': 'exact:type=vzdump, replication',
        'match-calendar': 'mon..fri 8-17'})
    item = ok(sim, 'GET', '/cluster/notifications/matchers/route3')
    assert item['match-severity'] == ['error,warning', 'info']
    assert item['match-field'] == ['exact:type=vzdump,replication']
    assert item['match-calendar'] == ['mon..fri 8-17'] and item['invert-match'] == 1 and 'origin' not in item
    assert refused(sim, 'GET', '/cluster/notifications/matchers/nope')[:2] == (404, "matcher 'nope' not found\n")


@pytest.mark.parametrize('form, answer', [
    ({'match-field': 'type=vzdump'}, (500, 'error: could not apply filter: invalid match-field statement: '
                                           'type=vzdump\n')),
    ({'match-severity': 'fatal'}, (500, 'error: invalid severity fatal\n')),
    # the binding's arguments in order: the severities are deserialized before the field statements
    ({'match-field': 'type=vzdump', 'match-severity': 'info, fatal'}, (500, 'error: invalid severity fatal\n')),
    ({'match-calendar': 'weekdays'}, (500, 'error: could not parse schedule: unable to parse daily duration at '
                                           '\'weekdays\' - Context("weekday")\n')),
    ({'match-calendar': 'mon..fri 8'}, (500, 'error: could not parse schedule: unable to parse daily duration at '
                                             "'' - Nom(Tag)\n")),
    ({'match-calendar': '8-25'}, (500, 'error: could not parse schedule: unable to parse daily duration at '
                                       "'' - Context(\"time value too large\")\n")),
    ({'match-calendar': '17-8:30'}, (500, 'error: could not parse schedule: unable to parse daily duration at '
                                          "'8:30' - Context(\"end time before start time\")\n")),
    ({'match-calendar': ' 8-17'}, (500, 'error: could not parse schedule: unable to parse daily duration at '
                                        "' 8-17' - Nom(Digit)\n")),
    ({'match-calendar': 'sat,sun 10-14 x'}, (500, 'error: could not parse schedule: unable to parse daily duration '
                                                  "at ' x' - Nom(Eof)\n")),
    ({'target': 'nowhere'}, (404, "endpoint 'nowhere' does not exist\n")),
])
def test_a_matcher_value_proxmox_notify_cannot_parse_is_refused(sim, form, answer):
    assert refused(sim, 'POST', '/cluster/notifications/matchers', dict(form, name='route4'))[:2] == answer


def test_the_built_in_matcher_is_reset_by_a_delete(sim):
    ok(sim, 'PUT', '/cluster/notifications/matchers/default-matcher', {'disable': '1'})
    assert ok(sim, 'GET', '/cluster/notifications/matchers/default-matcher')['origin'] == 'modified-builtin'
    ok(sim, 'DELETE', '/cluster/notifications/matchers/default-matcher')
    item = ok(sim, 'GET', '/cluster/notifications/matchers/default-matcher')
    assert item['origin'] == 'builtin' and 'disable' not in item and item['target'] == ['mail-to-root']


# -- the notification families ----------------------------------------------------------------------

def found(family, declared, raw):
    return field_plan(family, family.declaration(declared), raw)


def test_lists_are_compared_as_sets():
    endpoint = params(notification_endpoint, type='sendmail', name='m1', mailto=['a@x.org'])
    assert found(notification_endpoint.FAMILY, endpoint, {'mailto': ['a@x.org', 'a@x.org']}).action == 'none'
    live = {'match-severity': ['warning,error'], 'match-field': ['exact:type=replication,vzdump'],
            'target': ['mail-to-root']}
    matcher = params(notification_matcher, name='r1', match_severity=['error, warning'],
                     match_field=['exact:type=vzdump, replication'], target=['mail-to-root'])
    assert found(notification_matcher.FAMILY, matcher, live).action == 'none'
    items = notification_matcher.FAMILY.fields[0]
    assert items.canonical(['regex:host=^a,b', 'exact:t=b,a', 'exact:t=a,b']) == ['exact:t=a,b', 'regex:host=^a,b']


def test_disable_is_always_compared():
    declared = params(notification_endpoint, type='sendmail', name='m1')
    the_plan = found(notification_endpoint.FAMILY, declared, {'mailto': ['a@x.org'], 'disable': 1})
    assert the_plan.changed == ['disable']


@pytest.mark.parametrize('module, values, message', [
    (notification_endpoint, dict(type='gotify', name='g1', mailto=['a@x.org']),
     'option mailto: a gotify endpoint does not take mailto'),
    (notification_endpoint, dict(type='sendmail', name='m1', mailto=['a b']), 'option mailto'),
    (notification_endpoint, dict(type='sendmail', name='m1', mailto_user=['root']), 'option mailto_user'),
    (notification_endpoint, dict(type='webhook', name='w1', header=['Content-Type']), 'option header'),
    (notification_endpoint, dict(type='webhook', name='w1', header=['name=X,value=not base64']), 'not base64'),
    (notification_matcher, dict(name='r1', match_severity=['fatal']), 'option match_severity'),
    (notification_matcher, dict(name='r1', match_field=['type=vzdump']), 'option match_field'),
    (notification_matcher, dict(name='r1', target=['no such/target']), 'option target'),
])
def test_a_notification_declaration_is_judged_before_any_request(module, values, message):
    with pytest.raises(DeclarationError) as caught:
        module.FAMILY.declaration(params(module, **values))
    assert message in str(caught.value)


@pytest.mark.parametrize('values, message', [
    (dict(type='gotify', name='g1', server='https://g'), 'option token is required to create a gotify endpoint'),
    (dict(type='smtp', name='s1', server='smtp', mailto=['a@x.org']), 'option from_address is required'),
    (dict(type='sendmail', name='m1', comment='x'), 'option mailto or mailto_user is required'),
])
def test_what_a_create_needs_is_refused_once_the_endpoint_is_absent(sim, values, message):
    sim.clear_log()
    with pytest.raises(DeclarationError) as caught:
        reconcile(client(sim), notification_endpoint.FAMILY, params(notification_endpoint, **values))
    assert message in str(caught.value) and sim.writes() == []


def test_a_taken_name_is_refused_before_the_create(sim):
    ok(sim, 'POST', '/cluster/notifications/matchers', {'name': 'taken1'})
    sim.clear_log()
    with pytest.raises(Refused) as caught:
        reconcile(client(sim), notification_endpoint.FAMILY,
                  params(notification_endpoint, type='sendmail', name='taken1', mailto=['a@x.org']))
    assert 'a matcher of that name exists' in str(caught.value) and sim.writes() == []
    with pytest.raises(Refused) as caught:
        reconcile(client(sim), notification_matcher.FAMILY, params(notification_matcher, name='mail-to-root'))
    assert 'a sendmail endpoint of that name exists' in str(caught.value) and sim.writes() == []


def test_deleting_a_built_in_resets_it_and_the_core_calls_that_removed(sim):
    """PVE answers success and the endpoint is back with its shipped defaults: removed as far as it can be."""
    ok(sim, 'PUT', '/cluster/notifications/endpoints/sendmail/mail-to-root', {'comment': 'changed'})
    declared = params(notification_endpoint, type='sendmail', name='mail-to-root', state='absent')
    result = reconcile(client(sim), notification_endpoint.FAMILY, declared)
    assert result['changed'] is True and 'reverted to its shipped defaults' in result['warnings'][0]
    item = ok(sim, 'GET', '/cluster/notifications/endpoints/sendmail/mail-to-root')
    assert item['origin'] == 'builtin' and item['comment'] != 'changed'
    again = reconcile(client(sim), notification_endpoint.FAMILY, declared)
    assert again['changed'] is False


def test_the_endpoint_type_table_is_the_schemas(calls):
    for kind, table in notifications.TYPES.items():
        call = calls['pve'][('POST', '/cluster/notifications/endpoints/%s' % kind)]
        taken = set(call) - {'name', 'comment', 'disable'}
        assert sorted(table['options']) == sorted(taken), kind


@pytest.mark.parametrize('module, kinds', [(notification_endpoint, sorted(notifications.TYPES)),
                                           (notification_matcher, ['matcher'])])
def test_what_a_family_clears_with_delete_pve_can_delete(module, kinds):
    for kind in kinds:
        table = notifications.TYPES.get(kind, dict(options=None, create_needs=[]))
        takes = table['options'] and table['options'] + ['comment']
        # what a create needs is never cleared (the family refuses an empty value for it)
        cleared = [field.wire for field in module.FAMILY.fields if field.clear == 'delete' and not field.secret
                   and (takes is None or field.wire in takes) and field.wire not in table['create_needs']]
        assert set(cleared) <= set(DELETABLE[kind]), kind


class OwnCall:
    """A family seen through one endpoint type's create call (the family's schema is smtp's)."""

    scheme = 'pve'

    def __init__(self, kind):
        self.schema = ('POST', '/cluster/notifications/endpoints/%s' % kind)


@pytest.mark.parametrize('option', ['url', 'method', 'header', 'body', 'token', 'secret'])
def test_the_gotify_and_webhook_fields_carry_their_own_calls_rules(calls, option):
    field = copy.copy(dict((field.option, field) for field in notification_endpoint.FAMILY.fields)[option])
    field.schema_key = field.wire
    kind = 'gotify' if option == 'token' else 'webhook'
    check_field_rules(calls, OwnCall(kind), field)


def test_an_endpoint_created_meanwhile_by_another_writer_is_judged_again(sim):
    declared = params(notification_endpoint, type='sendmail', name='mail3', mailto=['a@x.org'])

    def other_writer(_params):
        sim.state.notification_endpoints['mail3'] = {'type': 'sendmail', 'mailto': ['a@x.org']}

    sim.before('POST', r'^/cluster/notifications/endpoints/sendmail$', other_writer, times=1)
    result = reconcile(client(sim), notification_endpoint.FAMILY, declared)
    assert result['plan'] == {'read': 'found', 'action': 'none', 'changed': []}
    assert 'changed by another writer' in result['warnings'][0]


def test_a_comment_perl_holds_false_is_not_written_to_user_cfg(sim):
    # write_user_config: `$d->{comment} ? encode_text($d->{comment}) : ''`; other texts survive as sent
    ok(sim, 'POST', '/access/users', {'userid': 'zero@pve', 'comment': '0', 'firstname': ' Ann '})
    ok(sim, 'POST', '/access/groups', {'groupid': 'zeros', 'comment': '0'})
    user = ok(sim, 'GET', '/access/users/zero@pve')
    assert 'comment' not in user and user['firstname'] == ' Ann '
    assert 'comment' not in ok(sim, 'GET', '/access/groups/zeros')
    ok(sim, 'PUT', '/access/users/zero@pve', {'comment': ' kept: 100% '})
    assert ok(sim, 'GET', '/access/users/zero@pve')['comment'] == ' kept: 100% '
    ok(sim, 'DELETE', '/access/users/zero@pve')
    ok(sim, 'DELETE', '/access/groups/zeros')
