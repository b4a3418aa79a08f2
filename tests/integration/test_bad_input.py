"""The bad-input corpus: every case in one playbook per execution path, refused before any request.

Each case is (module, options, the option the message must name). Every task runs with
``ignore_errors`` so one play judges them all; the simulator's log proves that not one request left.
Each family adds its own cases here.
"""

import pytest

from conftest import EXECUTION_PATHS
from test_access_notify_families import BAD_INPUT as ACCESS_NOTIFY
from test_backup_family import BAD_INPUT as BACKUP
from test_cluster_families import BAD_INPUT as CLUSTER
from test_content_families import BAD_INPUT as CONTENT
from test_day0_apt_families import BAD_INPUT as DAY0_APT
from test_day0_certificate_families import BAD_INPUT as DAY0_CERTIFICATES
from test_day0_cluster import BAD_INPUT as DAY0_CLUSTER
from test_day0_node_families import BAD_INPUT as DAY0_NODE
from test_fabric_families import BAD_INPUT as FABRICS
from test_firewall_families import BAD_INPUT as FIREWALL
from test_firewall_guest_sets import BAD_INPUT as FIREWALL_GUEST
from test_guest_cloudinit import BAD_INPUT as GUEST_CLOUDINIT
from test_guest_families import BAD_INPUT as GUESTS
from test_guest_hardware import BAD_INPUT as GUEST_HARDWARE
from test_guest_pools import BAD_INPUT as GUEST_POOLS
from test_guest_restore import BAD_INPUT as GUEST_RESTORE
from test_ha_families import BAD_INPUT as HA
from test_hardware_mapping import BAD_INPUT as HARDWARE_MAPPING
from test_network_families import BAD_INPUT as NETWORK
from test_pbs_access_families import BAD_INPUT as PBS_ACCESS
from test_pbs_families import BAD_INPUT as PBS
from test_pbs_job_families import BAD_INPUT as PBS_JOBS
from test_pbs_notify_families import BAD_INPUT as PBS_NOTIFY
from test_snapshot_family import BAD_INPUT as SNAPSHOT
from test_storage_hw_families import BAD_INPUT as STORAGE_HW

GRANT = {'path': '/', 'type': 'group', 'ugid': 'ops', 'roleid': 'PVEAuditor'}
DIR = {'storage': 's1', 'type': 'dir', 'path': '/srv/s1'}


def grant(**changes):
    return dict(GRANT, **changes)


def directory(**changes):
    return dict(DIR, **changes)


CORPUS = [
    # pool
    ('pool', {'poolid': 'bad pool!'}, 'poolid'),
    ('pool', {'poolid': 'lab$'}, 'poolid'),
    ('pool', {'poolid': ''}, 'poolid'),
    ('pool', {}, 'poolid'),
    ('pool', {'poolid': 'lab', 'bogus': 1}, 'bogus'),
    ('pool', {'poolid': 'lab', 'state': 'gone'}, 'state'),
    ('pool', {'poolid': 'lab', 'confirm_removal': True}, 'confirm_removal'),
    # role
    ('role', {'roleid': 'Mon', 'privs': ['VM.Audit', 'everything']}, 'privs'),
    ('role', {'roleid': 'Mon', 'privs': ['VM.Adit']}, 'privs'),
    ('role', {'roleid': 'Mon', 'privs': ['vm.audit']}, 'privs'),
    ('role', {'roleid': 'Mon'}, 'privs'),
    ('role', {'roleid': 'Mon', 'privs': []}, 'privs'),
    ('role', {'roleid': 'Mon itor', 'privs': ['VM.Audit']}, 'roleid'),
    ('role', {'roleid': 'Mon/x', 'privs': ['VM.Audit']}, 'roleid'),
    ('role', {'privs': ['VM.Audit']}, 'roleid'),
    ('role', {'roleid': 'Mon', 'privs': ['VM.Audit'], 'comment': 'x'}, 'comment'),
    # group
    ('group', {'groupid': 'night shift'}, 'groupid'),
    ('group', {'groupid': 'ops/'}, 'groupid'),
    ('group', {'groupid': ''}, 'groupid'),
    ('group', {'groupid': 'ops', 'members': ['a@pve']}, 'members'),
    ('group', {'groupid': 'ops', 'state': 'deleted'}, 'state'),
    # user
    ('user', {'userid': 'alice'}, 'userid'),
    ('user', {'userid': 'alice@'}, 'userid'),
    ('user', {'userid': 'alice@1realm'}, 'userid'),
    ('user', {'userid': 'al ice@pve'}, 'userid'),
    ('user', {'userid': 'alice@pve!tok'}, 'userid'),
    ('user', {'userid': 'alice@pve', 'expire': 'soon'}, 'expire'),
    ('user', {'userid': 'alice@pve', 'expire': -1}, 'expire'),
    ('user', {'userid': 'alice@pve', 'enable': 'maybe'}, 'enable'),
    ('user', {'userid': 'alice@pve', 'groups': ['night shift']}, 'groups'),
    ('user', {'userid': 'alice@pve', 'groups': ['ops', 'a/b']}, 'groups'),
    ('user', {'userid': 'alice@pve', 'password': 'x'}, 'password'),
    ('user', {'userid': 'alice@pam', 'password': 'LongEnough-1'}, 'password'),
    ('user', {'userid': 'alice@corp', 'password': 'LongEnough-1'}, 'password'),
    ('user', {'userid': 'alice@pve', 'update_password': 'always'}, 'update_password'),
    ('user', {'userid': 'alice@pve', 'password': 'LongEnough-1', 'update_password': 'sometimes'}, 'update_password'),
    ('user', {'userid': 'alice@pve', 'state': 'disabled'}, 'state'),
    ('user', {'userid': 'alice@pve', 'email': 'alice at example.org'}, 'email'),
    ('user', {'userid': 'alice@pve', 'email': 'alice@'}, 'email'),
    ('user', {'userid': 'alice@pve', 'comment': 'x' * 2049}, 'comment'),
    ('user', {'userid': 'alice@pve', 'firstname': 'A' * 1025}, 'firstname'),
    ('user', {'userid': 'a' * 61 + '@pve'}, 'userid'),
    ('user', {'userid': 'alice@p'}, 'userid'),
    # acl
    ('acl', grant(type='robot'), 'type'),
    ('acl', grant(type='user', ugid='alice'), 'ugid'),
    ('acl', grant(type='user', ugid='alice@pve!tok'), 'ugid'),
    ('acl', grant(type='token', ugid='ci@pve'), 'ugid'),
    ('acl', grant(type='token', ugid='ci!ro'), 'ugid'),
    ('acl', grant(type='group', ugid='night shift'), 'ugid'),
    ('acl', grant(propagate='sometimes'), 'propagate'),
    ('acl', {'path': '/', 'type': 'group', 'ugid': 'ops'}, 'roleid'),
    ('acl', {'type': 'group', 'ugid': 'ops', 'roleid': 'PVEAuditor'}, 'path'),
    ('acl', grant(ugid=''), 'ugid'),
    ('acl', grant(roles=['PVEAuditor']), 'roles'),
    ('acl', grant(roleid='PVE Auditor'), 'roleid'),
    # PVE's check_path (AccessControl.pm), before any request
    ('acl', grant(path='/vms/notanumber'), 'path'),
    ('acl', grant(path='/vms/99'), 'path'),
    ('acl', grant(path='/vms/100/a/b'), 'path'),
    ('acl', grant(path='/users'), 'path'),
    ('acl', grant(path='/pool/a/b/c/d'), 'path'),
    ('acl', grant(path='/storage/local/images'), 'path'),
    ('acl', grant(path='/sdn/vnets/v1'), 'path'),
    ('acl', grant(path='/sdn/zones/z1/v1/0'), 'path'),
    ('acl', grant(path='/nodes/pve1/qemu'), 'path'),
    ('acl', grant(path='/vms/1 00', state='absent'), 'path'),
    # storage
    ('storage', {'storage': 's1', 'path': '/srv'}, 'type'),
    ('storage', directory(type='floppy'), 'type'),
    ('storage', directory(storage='1abc'), 'storage'),
    ('storage', directory(storage='s 1'), 'storage'),
    ('storage', directory(storage='s1-'), 'storage'),
    ('storage', directory(content=['movies']), 'content'),
    ('storage', directory(content=['iso', 'music']), 'content'),
    ('storage', directory(preallocation='lots'), 'preallocation'),
    ('storage', directory(prune_backups='keep-last'), 'prune_backups'),
    ('storage', directory(max_protected_backups='many'), 'max_protected_backups'),
    ('storage', directory(max_protected_backups=-2), 'max_protected_backups'),
    ('storage', directory(disable='perhaps'), 'disable'),
    ('storage', directory(shared='often'), 'shared'),
    ('storage', {'storage': 's1', 'state': 'absent'}, 'confirm_removal'),
    ('storage', directory(comment='x'), 'comment'),
    ('storage', directory(task_timeout=5), 'task_timeout'),
    ('storage', directory(path='srv/relative'), 'path'),
    ('storage', directory(prune_backups='keep-lots=3'), 'prune_backups'),
    ('storage', directory(prune_backups='keep-last=0'), 'prune_backups'),
    ('storage', directory(prune_backups='keep-last=three'), 'prune_backups'),
    ('storage', directory(prune_backups='keep-all=1,keep-last=3'), 'prune_backups'),
    ('storage', directory(nodes=['node_1']), 'nodes'),
    ('storage', directory(format='qcow3'), 'format'),
    ('storage', {'storage': 'n1', 'type': 'nfs', 'server': 'nas 1', 'export': '/srv'}, 'server'),
    ('storage', {'storage': 'n1', 'type': 'nfs', 'server': 'nas1', 'export': 'srv'}, 'export'),
    ('storage', {'storage': 'n1', 'type': 'nfs', 'server': 'nas1', 'export': '/srv', 'options': 'vers=4;rm'}, 'options'),
    ('storage', {'storage': 'c1', 'type': 'cifs', 'server': 'nas1', 'share': 'x', 'smbversion': '4'}, 'smbversion'),
    ('storage', {'storage': 'c1', 'type': 'cifs', 'server': 'nas1', 'share': 'x', 'domain': 'd' * 257}, 'domain'),
    ('storage', {'storage': 'b1', 'type': 'pbs', 'server': 'pbs1', 'datastore': 'x', 'port': 70000}, 'port'),
    ('storage', {'storage': 'b1', 'type': 'pbs', 'server': 'pbs1', 'datastore': 'x', 'fingerprint': 'ab:cd'},
     'fingerprint'),
    ('storage', {'storage': 'i1', 'type': 'iscsi', 'portal': 'san:port', 'target': 'iqn.x'}, 'portal'),
    ('storage', {'storage': 'r1', 'type': 'rbd', 'monhost': '10.0.0.1 mon_2'}, 'monhost'),
    ('storage', {'storage': 'f1', 'type': 'cephfs', 'fs_name': '1fs'}, 'fs_name'),
    ('storage', {'storage': 'l1', 'type': 'lvm', 'vgname': 'vg/1'}, 'vgname'),
    ('storage', {'storage': 'l1', 'type': 'lvm', 'vgname': 'vg1', 'base': 'no-volume'}, 'base'),
    ('storage', directory(export='/srv/x'), 'export'),
    ('storage', {'storage': 'n1', 'type': 'nfs', 'server': 'nas1', 'export': '/srv', 'shared': True}, 'shared'),
    ('storage', {'storage': 'n1', 'type': 'nfs', 'server': 'nas1'}, 'export'),
    ('storage', {'storage': 't1', 'type': 'lvmthin', 'vgname': 'pve'}, 'thinpool'),
    ('storage', {'storage': 'l1', 'type': 'lvm', 'vgname': 'vg1', 'content': ['iso']}, 'content'),
    # the connection, on any module
    ('pool', {'poolid': 'lab', 'api_port': 70000}, 'api_port'),
    ('pool', {'poolid': 'lab', 'api_port': 0}, 'api_port'),
    ('pool', {'poolid': 'lab', 'api_port': 'https'}, 'api_port'),
    ('pool', {'poolid': 'lab', 'api_timeout': 0}, 'api_timeout'),
    ('pool', {'poolid': 'lab', 'api_timeout': -1}, 'api_timeout'),
    ('pool', {'poolid': 'lab', 'api_timeout': 'never'}, 'api_timeout'),
    ('pool', {'poolid': 'lab', 'api_host': ['https://pve1.invalid:8006/']}, 'api_host'),
    ('pool', {'poolid': 'lab', 'api_host': ['pve1 pve2']}, 'api_host'),
    ('pool', {'poolid': 'lab', 'api_host': ['pve1:99999']}, 'api_host'),
    ('pool', {'poolid': 'lab', 'api_host': ['pve1:web']}, 'api_host'),
    ('pool', {'poolid': 'lab', 'api_host': []}, 'api_host'),
    ('pool', {'poolid': 'lab', 'ca_path': '/nonexistent/ca.pem'}, 'ca_path'),
    ('pool', {'poolid': 'lab', 'validate_certs': 'sometimes'}, 'validate_certs'),
    ('pool', {'poolid': 'lab', 'api_token_id': 'root@pam'}, 'api_token_id'),
    ('pool', {'poolid': 'lab', 'api_token_id': 'root!ci'}, 'api_token_id'),
    ('pool', {'poolid': 'lab', 'api_token_id': 'root@pam!c'}, 'api_token_id'),
    ('pool', {'poolid': 'lab', 'api_token_secret': None}, 'api_token_secret'),
    ('pool', {'poolid': 'lab', 'api_user': 'root@pam'}, 'api_user'),
    ('pool', {'poolid': 'lab', 'bao_creds_mount': 'proxmox'}, 'bao_creds_mount'),
    ('pool', {'poolid': 'lab', 'api_token_id': None, 'api_token_secret': None, 'bao_creds_mount': 'proxmox',
              'bao_timeout': 0}, 'bao_timeout'),
    ('pool', {'poolid': 'lab', 'api_token_id': None, 'api_token_secret': None, 'bao_creds_mount': 'proxmox',
              'bao_ca_path': '/nonexistent/bao.pem'}, 'bao_ca_path'),
    ('pool', {'poolid': 'lab', 'api_token_id': None, 'api_token_secret': None, 'bao_kv_path': 'pve',
              'bao_approle_role_id': 'r'}, 'bao_approle_secret_id'),
    ('pool', {'poolid': 'lab', 'bao_lease_cache': 'perhaps'}, 'bao_lease_cache'),
    # declare: every bad object is named, nothing is read
    ('declare', {'objects': {'pool': [{'poolid': 'ok'}, {'poolid': 'x y'}]}}, 'objects.pool[1]'),
    ('declare', {'objects': {'pools': [{'poolid': 'x'}]}}, 'objects: pools'),
    ('declare', {'objects': {'pool': [{'poolid': 'a'}, {'poolid': 'a'}]}}, 'objects.pool[1]'),
    ('declare', {'objects': {'user': [{'userid': 'u@pve', 'expire': 'soon'}]}}, 'objects.user[0]'),
    ('declare', {'objects': {'acl': 'not a list'}}, 'objects.acl'),
    ('declare', {'objects': {'pool': [{'poolid': 'a'}]}, 'fail_on_drift': 'perhaps'}, 'fail_on_drift'),
    ('declare', {}, 'objects'),
    # export: every bad option is named before any request
    ('export', {'include': ['pools']}, 'option include: pools'),
    ('export', {'include': ['pbs_user']}, 'option include: pbs_user'),
    ('export', {'server': 'pbs', 'exclude': ['pool']}, 'option exclude: pool'),
    ('export', {'workers': 0}, 'option workers'),
    ('export', {'identity_pattern': '(['}, 'option identity_pattern'),
    ('export', {'server': 'esx'}, 'server'),
    # a new token's secret would be lost in declare's report: the token modules create tokens
    ('declare', {'objects': {'api_token': [{'userid': 'ci@pve', 'tokenid': 'deploy', 'expire': 0, 'privsep': True,
                                            'create_missing': True}]}}, 'objects.api_token[0]: create_missing'),
    ('declare', {'objects': {'pbs_api_token': [{'userid': 'ci@pbs', 'token_name': 'deploy', 'expire': 0,
                                                'create_missing': True}]}}, 'objects.pbs_api_token[0]: create_missing'),
]
# Each family's own cases live beside its matrix; all of them run here, in the one playbook per path.
CORPUS += FABRICS
CORPUS += ACCESS_NOTIFY + CLUSTER + CONTENT + FIREWALL + HA + NETWORK + GUESTS + STORAGE_HW + PBS + PBS_ACCESS + PBS_NOTIFY + PBS_JOBS
CORPUS += DAY0_APT + DAY0_NODE + DAY0_CERTIFICATES + DAY0_CLUSTER
CORPUS += GUEST_CLOUDINIT + GUEST_HARDWARE + GUEST_POOLS + GUEST_RESTORE + HARDWARE_MAPPING + SNAPSHOT
CORPUS += BACKUP + FIREWALL_GUEST
# The module path refuses with the same family code; what differs there (AnsibleModule's own validation,
# the shape of a failed result) is proven by every sixteenth case, spread over the families, at a sixteenth
# of the cost of a module start per case (the firewall's reference and rule refusals run in
# test_firewall_families.py).
MODULE_PATH_CORPUS = CORPUS[::16]


SECRET_OPTIONS = ('key', 'password', 'eab_hmac_key', 'data', 'join_password', 'token', 'secret')


def secret_texts(value):
    """The parts of a secret a message must not quote: its lines (a PEM's, less its markers) or its values."""
    values = value.values() if isinstance(value, dict) else [value]
    return [line for item in values for line in str(item).splitlines() if len(line) >= 8 and '-----' not in line]


# On the oldest and newest ansible-core, the controller path: it is the one that validates with Ansible's
# internals (the module path is AnsibleModule's own validation, covered there by the matrix).
@pytest.mark.parametrize('path', [pytest.param(path, marks=pytest.mark.compat) if path == 'controller' else path
                                  for path in sorted(EXECUTION_PATHS)])
def test_every_bad_input_is_refused_before_any_request(sim, playbook, path):
    assert len(CORPUS) >= 80 + 4 * 14  # at least four cases per family added by issue 8
    corpus = CORPUS if path == 'controller' else MODULE_PATH_CORPUS
    tasks = [{'name': 'case %d' % index, 'homeflare.proxmox.%s' % module: args, 'ignore_errors': True}
             for index, (module, args, _option) in enumerate(corpus)]
    sim.clear_log()
    run = playbook(tasks, env=EXECUTION_PATHS[path])
    assert len(run.results) == len(corpus), run
    wrong = []
    for (module, args, option), line in zip(corpus, run.results):
        message = line['result'].get('msg', '')
        if line['status'] != 'failed' or option not in message:
            wrong.append((module, args, option, line['status'], message))
    assert wrong == []
    assert sim.log == []
    # a refusal never quotes a secret it was given (a subscription key, a private key, plugin data)
    quoted = [(module, option) for (module, args, _option), line in zip(corpus, run.results)
              for option in SECRET_OPTIONS if option in args
              for secret in secret_texts(args[option]) if secret in line['result'].get('msg', '')]
    assert quoted == []
