"""The HTTP client: forms, members, headers, error parsing and failover classification."""

import email
import email.policy
import http.server
import json
import threading

import pytest
import requests
from ports import free_port
from simulator import tls

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
                       repeatable=True)
    assert answer.data['ticket'] == 't' and len(fake.session.sent) == 2


def test_all_members_failing_names_each_member_and_why():
    fake = client([real_failure(), requests.exceptions.ReadTimeout('read timed out')])
    with pytest.raises(Unreachable) as caught:
        fake.get('/version')
    assert str(caught.value) == 'all members failed: m1:1 (connection refused); m2:2 (no answer within the timeout)'


# -- Client.upload: PVE's multipart upload, streamed -----------------------------------------------------------------

UPID = 'UPID:node1:00001234:00005678:6A000000:imgcopy::root@pam:'


def multipart_parts(content_type, body):
    """The body parsed back as a MIME message: [(name, filename, payload)] in order."""
    message = email.message_from_bytes(b'Content-Type: ' + content_type.encode() + b'\r\n\r\n' + body,
                                       policy=email.policy.HTTP)
    assert message.is_multipart()
    return [(part.get_param('name', header='content-disposition'), part.get_filename(), part.get_payload(decode=True))
            for part in message.iter_parts()]


@pytest.fixture
def image(tmp_path):
    path = tmp_path / 'installer.iso'
    path.write_bytes(bytes(range(256)) * 1201)  # 75 chunks of 4 KiB and 256 bytes, every byte value
    return str(path)


def test_an_upload_is_pves_multipart_form_with_the_file_part_last(image):
    fake = client([FakeResponse(200, {'data': UPID})])
    answer = fake.upload('/nodes/node1/storage/local/upload',
                         {'checksum': 'ab' * 32, 'content': 'iso', 'checksum-algorithm': 'sha256'},
                         image, 'installer.iso')
    assert answer == UPID
    method, url, kwargs = fake.session.sent[0]
    assert (method, url) == ('POST', 'https://m1:1/api2/json/nodes/node1/storage/local/upload')
    assert kwargs['headers']['Authorization'] == 'PVEAPIToken=root@pam!tk=sec' and kwargs['verify'] == '/ca.pem'
    body = b''.join(kwargs['data'])
    assert len(body) == len(kwargs['data'])
    # pve-http-server reads content, checksum-algorithm and checksum in that order, then the part named filename
    with open(image, 'rb') as handle:
        assert multipart_parts(kwargs['headers']['Content-Type'], body) == [
            ('content', None, b'iso'), ('checksum-algorithm', None, b'sha256'), ('checksum', None, b'ab' * 32),
            ('filename', 'installer.iso', handle.read())]
    assert b'Content-Disposition: form-data; name="filename"; filename="installer.iso"\r\n' in body


def test_an_upload_body_has_a_length_so_requests_never_sends_it_chunked(image):
    body = api.MultipartFile({'content': 'iso'}, image, 'installer.iso')
    prepared = requests.Request('POST', 'https://m1:1/x', data=body,
                                headers={'Content-Type': body.content_type}).prepare()
    assert prepared.headers['Content-Length'] == str(len(body)) == str(len(b''.join(body)))
    assert 'Transfer-Encoding' not in prepared.headers


def test_an_upload_body_reads_the_file_in_chunks_never_whole(image, monkeypatch):
    monkeypatch.setattr(api.MultipartFile, 'CHUNK', 4096)
    reads = []
    real_open = open

    class Recorded:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def read(self, size=-1):
            reads.append(size)
            return self.handle.read(size)

    body = api.MultipartFile({'content': 'iso'}, image, 'installer.iso')
    monkeypatch.setattr('builtins.open', lambda path, mode='r', *args: Recorded(real_open(path, mode, *args)))
    chunks = list(body)
    assert reads and max(reads) == 4096 and -1 not in reads
    assert max(len(chunk) for chunk in chunks[1:-1]) == 4096 and len(chunks) == 2 + 256 * 1201 // 4096 + 1
    # each iteration reads the file afresh (a request that never left is sent again)
    assert b''.join(body) == b''.join(chunks)


def test_an_upload_fails_over_only_when_it_never_left(image):
    fake = client([real_failure('POST'), FakeResponse(200, {'data': UPID})])
    assert fake.upload('/nodes/node1/storage/local/upload', {'content': 'iso'}, image, 'installer.iso') == UPID
    assert [sent[1].split('/')[2] for sent in fake.session.sent] == ['m1:1', 'm2:2']
    fake = client([requests.exceptions.ReadTimeout('read timed out'), FakeResponse(200, {'data': UPID})])
    with pytest.raises(MaybeApplied, match='POST /nodes/node1/storage/local/upload on m1:1 got no answer'):
        fake.upload('/nodes/node1/storage/local/upload', {'content': 'iso'}, image, 'installer.iso')
    assert len(fake.session.sent) == 1  # never uploaded twice


# an address's first octet names no node ('10' is not 10.0.0.1); a node the connection lacks goes to any member
@pytest.mark.parametrize('node, first', [('node2', 'node2.example.org:8006'), ('node9', 'node1.example.org:8006'),
                                         (None, 'node1.example.org:8006'), ('10', 'node1.example.org:8006'),
                                         ('10.0.0.1', '10.0.0.1:8006')])
def test_an_upload_goes_to_the_member_that_is_the_node(image, node, first):
    hosts = ('node1.example.org', 'node2.example.org:8006', '10.0.0.1')
    fake = client([FakeResponse(200, {'data': UPID})], hosts=hosts)
    fake.upload('/nodes/x/storage/local/upload', {'content': 'iso'}, image, 'installer.iso', member=node)
    assert fake.session.sent[0][1].split('/')[2] == first


def test_an_upload_takes_only_the_fields_pve_reads(image):
    with pytest.raises(ValueError, match='PVE reads no upload field node'):
        api.MultipartFile({'content': 'iso', 'node': 'x'}, image, 'installer.iso')


class UploadReceiver(http.server.BaseHTTPRequestHandler):
    received = []

    def do_POST(self):
        headers = dict(self.headers.items())
        body = self.rfile.read(int(headers['Content-Length']))
        self.received.append((self.path, headers, body))
        answer = json.dumps({'data': UPID}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def test_an_upload_reaches_a_tls_server_with_a_content_length_and_the_file_intact(image, tmp_path):
    material = tls.generate(str(tmp_path))
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), UploadReceiver)
    server.socket = material.server_context().wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        api._LAST_GOOD.clear()
        real = api.Client('pve', ['127.0.0.1:%d' % server.server_address[1]], StaticToken('root@pam!tk', 'sec'),
                          ca_path=material.ca_path)
        assert real.upload('/nodes/node1/storage/local/upload', {'content': 'iso'}, image, 'installer.iso') == UPID
    finally:
        server.shutdown()
        server.server_close()
    path, headers, body = UploadReceiver.received[-1]
    assert path == '/api2/json/nodes/node1/storage/local/upload'
    assert 'Transfer-Encoding' not in headers and int(headers['Content-Length']) == len(body)
    with open(image, 'rb') as handle:
        assert multipart_parts(headers['Content-Type'], body)[-1] == ('filename', 'installer.iso', handle.read())


def test_an_upload_file_name_cannot_break_pves_content_disposition(image):
    with pytest.raises(ValueError, match='cannot hold a quote or a line break'):
        api.MultipartFile({'content': 'iso'}, image, 'a".iso')
