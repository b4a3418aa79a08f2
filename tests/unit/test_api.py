"""The HTTP client: forms, members, headers, error parsing and failover classification."""

import pytest
import requests
from ports import free_port

from ansible_collections.homeflare.proxmox.plugins.module_utils import api
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import StaticToken
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    AuthenticationFailed, Forbidden, InvalidParameters, MaybeApplied, NotImplementedPath, ServerError, Unreachable)

FORMS = [
    ('pve', {'content': ['iso', 'backup'], 'enable': True, 'x': None}, [('content', 'iso,backup'), ('enable', '1')]),
    ('pbs', {'delete': ['comment', 'notify'], 'keep-last': 3}, [('delete', 'comment'), ('delete', 'notify'),
                                                                ('keep-last', '3')]),
    ('pve', {'delete': 'nodes,comment', 'propagate': False}, [('delete', 'nodes,comment'), ('propagate', '0')]),
]


@pytest.mark.parametrize('scheme, form, pairs', FORMS)
def test_encode_form(scheme, form, pairs):
    assert api.encode_form(form, api.SCHEMES[scheme]) == pairs


MEMBERS = [
    ('pve1.example.org', 8006, 'pve1.example.org:8006'),
    ('127.0.0.1:9001', 8006, '127.0.0.1:9001'),
    ('[::1]:9001', 8006, '[::1]:9001'),
    ('[::1]', 8007, '[::1]:8007'),
]


@pytest.mark.parametrize('text, port, name', MEMBERS)
def test_member_parse(text, port, name):
    assert api.Member.parse(text, port).name == name


def test_token_headers_differ_by_scheme():
    # PVE separates with '=', PBS with ':' (field-notes §6.20); the wrong one is a 401 for everything.
    assert api.SCHEMES['pve'].token_header('a@pve!tk', 's') == 'PVEAPIToken=a@pve!tk=s'
    assert api.SCHEMES['pbs'].token_header('a@pbs!t', 's') == 'PBSAPIToken=a@pbs!t:s'


def test_item_path_quotes_but_keeps_pve_characters():
    assert api.item_path('/access/users/{userid}', {'userid': 'a b@pve'}) == '/access/users/a%20b@pve'
    assert api.item_path('/cluster/ha/resources/{sid}', {'sid': 'vm:100'}) == '/cluster/ha/resources/vm:100'


class FakeResponse:
    def __init__(self, status, body=None, text='', reason=''):
        self.status_code = status
        self._body = body
        self.text = text
        self.reason = reason

    def json(self):
        if self._body is None:
            raise ValueError('no json')
        return self._body


class FakeSession:
    def __init__(self, outcomes):
        self.outcomes = outcomes
        self.sent = []
        self.trust_env = True

    def request(self, method, url, **kwargs):
        self.sent.append((method, url, kwargs))
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


def client(outcomes, hosts=('m1:1', 'm2:2'), scheme='pve'):
    api._LAST_GOOD.clear()
    return api.Client(scheme, list(hosts), StaticToken('root@pam!tk', 'sec'), session=FakeSession(outcomes),
                      ca_path='/ca.pem')


ERRORS = [
    ('pve', FakeResponse(400, {'data': None, 'message': 'Parameter verification failed.\n',
                               'errors': {'content': "invalid format"}}), InvalidParameters,
     "400 Parameter verification failed. (content: invalid format)"),
    ('pve', FakeResponse(403, {'data': None, 'message': 'Permission check failed (/pool/x, Pool.Audit)\n'}), Forbidden,
     '403 Permission check failed (/pool/x, Pool.Audit)'),
    ('pve', FakeResponse(401, None, reason='authentication failure'), AuthenticationFailed,
     '401 authentication failure'),
    ('pve', FakeResponse(500, {'data': None, 'message': "pool 'x' does not exist\n"}), ServerError,
     "500 pool 'x' does not exist"),
    ('pve', FakeResponse(501, {'data': None, 'message': "Method 'GET /x' not implemented\n"}), NotImplementedPath,
     "501 Method 'GET /x' not implemented"),
    ('pbs', FakeResponse(400, None, text="no such datastore 'x'"), InvalidParameters, "400 no such datastore 'x'"),
]


@pytest.mark.parametrize('scheme, response, kind, text', ERRORS)
def test_error_answers_are_typed_with_the_servers_reason(scheme, response, kind, text):
    with pytest.raises(kind) as caught:
        client([response], scheme=scheme).get('/x')
    assert str(caught.value) == text


def test_success_unwraps_data_and_keeps_siblings():
    reply = client([FakeResponse(200, {'data': [1], 'changes': '--- a\n+++ b'})]).request('GET', '/nodes/n/network')
    assert reply.data == [1] and reply.extras == {'changes': '--- a\n+++ b'}


def test_every_request_names_verify_explicitly_and_writes_are_form_encoded():
    fake = client([FakeResponse(200, {'data': None})])
    fake.put('/pools/x', {'comment': 'c'})
    method, url, kwargs = fake.session.sent[0]
    assert kwargs['verify'] == '/ca.pem'
    assert kwargs['headers']['Content-Type'] == 'application/x-www-form-urlencoded'
    assert kwargs['headers']['Authorization'] == 'PVEAPIToken=root@pam!tk=sec'
    assert kwargs['data'] == [('comment', 'c')] and kwargs['params'] is None
    assert fake.session.trust_env is False


def real_failure(method='GET'):
    try:
        requests.request(method, 'https://127.0.0.1:%d/' % free_port(), timeout=2)
    except requests.exceptions.RequestException as exc:
        return exc
    raise AssertionError('expected a refused connection')


def test_connection_refused_provably_never_left():
    assert api.never_left(real_failure()) is True
    assert api.describe_transport_failure(real_failure()) == 'connection refused'


def test_read_timeout_may_have_left():
    assert api.never_left(requests.exceptions.ReadTimeout('read timed out')) is False


def test_reads_fail_over_and_remember_the_member_that_answered():
    fake = client([real_failure(), FakeResponse(200, {'data': {'ok': 1}})])
    assert fake.get('/version') == {'ok': 1}
    urls = [sent[1] for sent in fake.session.sent]
    assert urls == ['https://m1:1/api2/json/version', 'https://m2:2/api2/json/version']
    assert fake.ordered_members()[0].name == 'm2:2'


def test_writes_fail_over_only_when_the_request_never_left():
    fake = client([real_failure('PUT'), FakeResponse(200, {'data': None})])
    fake.put('/pools/x', {'comment': 'c'})
    assert len(fake.session.sent) == 2
    fake = client([requests.exceptions.ReadTimeout('read timed out'), FakeResponse(200, {'data': None})])
    with pytest.raises(MaybeApplied, match='may have been applied'):
        fake.put('/pools/x', {'comment': 'c'})
    assert len(fake.session.sent) == 1


def test_a_login_that_got_no_answer_fails_over_like_a_read():
    # A ticket request changes nothing on the cluster: a silent member is not "may have been applied".
    fake = client([requests.exceptions.ReadTimeout('read timed out'),
                   FakeResponse(200, {'data': {'ticket': 't', 'CSRFPreventionToken': 'c'}})])
    answer = fake.send('POST', '/access/ticket', {'username': 'root@pam', 'password': 'p'}, None,
                       changes_nothing=True)
    assert answer.data['ticket'] == 't' and len(fake.session.sent) == 2


def test_all_members_failing_names_each_member_and_why():
    fake = client([real_failure(), requests.exceptions.ReadTimeout('read timed out')])
    with pytest.raises(Unreachable) as caught:
        fake.get('/version')
    assert str(caught.value) == 'all members failed: m1:1 (connection refused); m2:2 (no answer within the timeout)'
