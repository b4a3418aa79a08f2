"""Safety and connection behaviours, each through a real ansible-playbook run."""

import glob
import os
import subprocess
import sys

import pytest
import yaml

from collection_root import COLLECTIONS

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULES = sorted(os.path.basename(path)[:-3] for path in glob.glob(os.path.join(REPO, 'plugins', 'modules', '*.py'))
                 if not path.endswith('__init__.py'))


def restricted_token(sim, role=None, path='/'):
    """A privilege-separated token of a new user, granted ``role`` on ``path`` (nothing when None)."""
    assert sim.request('POST', '/access/users', {'userid': 'ci@pve'})[0] == 200
    status, body = sim.request('POST', '/access/users/ci@pve/token/ro', {'privsep': '1'})
    assert status == 200, body
    if role:
        for subject in ({'users': 'ci@pve'}, {'tokens': 'ci@pve!ro'}):
            assert sim.request('PUT', '/access/acl', dict(subject, path=path, roles=role))[0] == 200
    return body['data']['full-tokenid'], body['data']['value']


def with_token(sim, token):
    return {'api_host': sim.members, 'api_token_id': token[0], 'api_token_secret': token[1], 'ca_path': sim.ca_path}


def test_a_403_on_the_read_fails_and_never_creates(sim, playbook):
    # field-notes §6.1: an auditor may not read a storage item (Datastore.Allocate) — never "absent".
    token = restricted_token(sim, 'PVEAuditor')
    sim.clear_log()
    run = playbook([{'homeflare.proxmox.storage': {'storage': 'local', 'type': 'dir', 'path': '/var/lib/vz'}}],
                   defaults=with_token(sim, token))
    assert run.rc != 0
    assert 'Permission check failed (/storage/local, Datastore.Allocate)' in run.failed[0]['result']['msg']
    assert sim.writes() == []
    assert [entry['status'] for entry in sim.log] == [403]


def test_no_privilege_on_a_pool_read_is_not_absent(sim, playbook):
    # PVE answers GET /pools?poolid= to any user (Pool.pm index ignores its noerr Pool.Audit check): a token with no
    # privilege finds the pool, and only a pool that really is missing plans a create (which PVE then refuses).
    assert sim.request('POST', '/pools', {'poolid': 'lab', 'comment': 'Lab'})[0] == 200
    token = restricted_token(sim)
    sim.clear_log()
    run = playbook([{'homeflare.proxmox.pool': {'poolid': 'lab', 'comment': 'Lab'}},
                    {'homeflare.proxmox.pool': {'poolid': 'other'}, 'ignore_errors': True}], defaults=with_token(sim, token))
    assert run.results[0]['result']['plan'] == {'read': 'found', 'action': 'none', 'changed': []}, run
    assert '403 Permission check failed (/pool/other, Pool.Allocate)' in run.results[1]['result']['msg'], run
    assert [(entry['method'], entry['status']) for entry in sim.writes()] == [('POST', 403)]


def test_first_member_refusing_fails_over_to_the_second(sim, playbook):
    sim.refuse(0)
    sim.clear_log()
    run = playbook([{'homeflare.proxmox.pool': {'poolid': 'lab'}}])
    assert run.rc == 0, run
    assert run.result()['changed'] is True
    assert {entry['member'] for entry in sim.log} == {sim.members[1]}


def test_all_members_failing_names_each_member(sim, playbook):
    for index in range(3):
        sim.refuse(index)
    run = playbook([{'homeflare.proxmox.pool': {'poolid': 'lab'}}])
    assert run.rc != 0
    message = run.failed[0]['result']['msg']
    for member in sim.members:
        assert '%s (connection refused)' % member in message


def test_wrong_ca_fails_clearly_and_is_not_absent(sim, playbook, tmp_path):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    import datetime
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, u'other CA')])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True).sign(key, hashes.SHA256()))
    other = tmp_path / 'other-ca.pem'
    other.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    defaults = dict(api_host=sim.members, api_token_id=sim.token_id, api_token_secret=sim.token_secret,
                    ca_path=str(other))
    run = playbook([{'homeflare.proxmox.pool': {'poolid': 'lab'}}], defaults=defaults)
    assert run.rc != 0
    assert 'TLS certificate not trusted' in run.failed[0]['result']['msg']
    assert sim.log == []


def test_ticket_login_with_csrf_on_writes(sim, playbook):
    defaults = dict(api_host=sim.members, api_user='root@pam', api_password=sim.root_password, ca_path=sim.ca_path)
    sim.clear_log()
    run = playbook([{'homeflare.proxmox.pool': {'poolid': 'lab', 'comment': 'via ticket'}}], defaults=defaults,
                   verbosity=4)
    assert run.rc == 0, run
    assert sim.root_password not in run.output
    assert run.result()['changed'] is True
    assert [(entry['method'], entry['path'], entry['status']) for entry in sim.log] == [
        ('POST', '/access/ticket', 200), ('GET', '/pools', 500), ('POST', '/pools', 200), ('GET', '/pools', 200)]


@pytest.mark.compat
def test_secrets_never_appear_at_high_verbosity(sim, playbook):
    storage_password = 'StoragePassw0rd-x91'
    run = playbook([
        {'homeflare.proxmox.pool': {'poolid': 'lab'}},
        {'homeflare.proxmox.storage': {'storage': 'pbs1', 'type': 'pbs', 'server': 'backup.invalid',
                                       'datastore': 'main', 'username': 'sync@pbs', 'password': storage_password,
                                       'content': ['backup']}},
    ], verbosity=4, diff=True)
    assert run.rc == 0, run
    assert 'homeflare.proxmox.storage' in run.output  # the -vvvv output really was captured
    for secret in (sim.token_secret, storage_password):
        assert secret not in run.output
        assert secret not in repr(run.results)
    created = [entry for entry in sim.writes() if entry['path'] == '/storage']
    assert created[0]['form']['password'] == storage_password  # it was sent, only never shown


def test_action_group_equals_the_set_of_modules():
    with open(os.path.join(REPO, 'meta', 'runtime.yml')) as handle:
        runtime = yaml.safe_load(handle)
    assert sorted(runtime['action_groups']['proxmox']) == MODULES
    assert len(MODULES) >= 6


def test_the_readme_names_every_module_and_both_products():
    with open(os.path.join(REPO, 'README.md')) as handle:
        readme = handle.read()
    opening = readme.split('\n\n')[1]
    assert 'Proxmox Backup Servers' in opening and 'later' not in opening, opening
    missing = [module for module in MODULES if '`%s`' % module not in readme]
    assert missing == [], 'the README does not name these modules: %s' % missing


@pytest.mark.parametrize('module', MODULES)
def test_ansible_doc_renders(module):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=COLLECTIONS)
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), 'ansible-doc'), 'homeflare.proxmox.' + module],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert 'check_mode' in proc.stdout and 'api_token_secret' in proc.stdout


def test_a_wrong_password_fails_without_showing_it(sim, playbook):
    defaults = dict(api_host=sim.members, api_user='root@pam', api_password='Wrong-Passw0rd-61', ca_path=sim.ca_path)
    run = playbook([{'homeflare.proxmox.pool': {'poolid': 'lab'}}], defaults=defaults, verbosity=4)
    assert run.rc != 0
    assert 'Logging in as root@pam failed: 401' in run.failed[0]['result']['msg']
    assert 'Wrong-Passw0rd-61' not in run.output
    assert sim.writes() == []


def test_an_auditor_cannot_see_grants_so_a_missing_row_is_not_absent(sim, playbook):
    # field-notes §6.3: GET /access/acl answers an auditor 200 [] even though the grant exists.
    assert sim.request('POST', '/access/groups', {'groupid': 'ops'})[0] == 200
    assert sim.request('PUT', '/access/acl', {'path': '/', 'groups': 'ops', 'roles': 'PVEAuditor'})[0] == 200
    token = restricted_token(sim, 'PVEAuditor')
    sim.clear_log()
    run = playbook([{'homeflare.proxmox.acl': {'path': '/', 'type': 'group', 'ugid': 'ops', 'roleid': 'PVEAuditor'}}],
                   defaults=with_token(sim, token), check=True)
    assert run.rc != 0
    assert 'cannot be judged: the credential lacks Permissions.Modify on /' in run.failed[0]['result']['msg']
    assert [(entry['path'], entry['status']) for entry in sim.log] == [('/access/acl', 200), ('/access/permissions', 200)]
