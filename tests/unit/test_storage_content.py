"""storage_content and storage_content_info (issue 24): the declaration's rules (each refused naming its option
before any request), the file name a source gives, the size judgement and ``replace``, the plans, diffs and calls a
fetch makes, the guest-config scan both families share, the read-only listing, and the export.

The client is a stub that answers PVE's reads from tables, applies the writes a fetch or a removal would, and
records every call; ``NoRequests`` fails on any call at all."""

import hashlib
import os
from urllib.parse import unquote

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    DeclarationError, Refused, TaskFailed)
from ansible_collections.homeflare.proxmox.plugins.module_utils.families import storage_content as sc
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.storage_content import (
    FAMILY, INFO, normalize_content_filename, referenced)
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import ApiError, ServerError
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import reconcile

URL = 'https://mirror.example.org/debian-13.iso'


def upid(node, kind):
    return 'UPID:%s:00001234:00005678:6A000000:%s:x:root@pam:' % (node, kind)


class NoRequests:
    def __getattr__(self, name):
        raise AssertionError('a request was made (%s) where none may be' % name)


class Cluster:
    """PVE's answers for three nodes, the storages ``local`` (dir), ``nfs1`` (nfs, shared) and ``lvm`` (lvmthin),
    volumes per (storage, node) (a shared storage's under node None), guests and their configs."""

    def __init__(self, volumes=None, guests=None, configs=None, metadata=None, catalogue=None, exitstatus='OK',
                 offline=(), errors=None, local_content='iso,vztmpl,backup,import'):
        self.storages = [
            {'storage': 'local', 'type': 'dir', 'path': '/var/lib/vz', 'content': local_content},
            {'storage': 'nfs1', 'type': 'nfs', 'path': '/mnt/pve/nfs1', 'content': 'iso,vztmpl', 'shared': 1,
             'nodes': 'node2,node3'},
            {'storage': 'lvm', 'type': 'lvmthin', 'content': 'images,rootdir'},
        ]
        self.nodes = ['node1', 'node2', 'node3']
        self.offline = set(offline)
        self.volumes = volumes if volumes is not None else {}
        self.guests = guests or []
        self.configs = configs or {}
        self.metadata = metadata or {}
        self.catalogue = catalogue or ['debian-13-standard_13.1-2_amd64.tar.zst',
                                       'debian-12-standard_12.12-1_amd64.tar.zst', 'alpine-3.22-default_amd64.tar.xz']
        self.exitstatus = exitstatus
        self.errors = errors or {}
        self.calls = []
        self.roles = []

    # -- helpers ---------------------------------------------------------------------------------------------
    def shared(self, storage):
        return storage == 'nfs1'

    def key(self, storage, node):
        return (storage, None if self.shared(storage) else node)

    def add(self, storage, node, volname, size, content=None):
        content = content or volname.split('/', 1)[0]
        self.volumes.setdefault(self.key(storage, node), {})['%s:%s' % (storage, volname)] = dict(
            size=size, content=content)

    def node_storages(self, node, storage=None):
        """Status.pm index on ``node``: each storage's type, content, shared flag and whether it is enabled there."""
        if storage and storage not in [row['storage'] for row in self.storages]:
            raise ApiError(400, 'Parameter verification failed.', errors={'storage': 'No such storage.'})
        rows = []
        for row in self.storages:
            if storage and row['storage'] != storage:
                continue
            enabled = not row.get('nodes') or node in row['nodes'].split(',')
            rows.append(dict(storage=row['storage'], type=row['type'], content=row['content'],
                             shared=row.get('shared', 0), enabled=1 if enabled else 0, active=1 if enabled else 0))
        return rows

    def writes(self):
        return [call for call in self.calls if call[0] != 'GET']

    def fail(self, method, path):
        error = self.errors.get((method, path))
        if error:
            raise error

    # -- the client's verbs ----------------------------------------------------------------------------------
    def shared_get(self, path, params=None, role='read'):
        return self.get(path, params, role)  # the real client sends it once per declare's reads (sharing_reads)

    def get(self, path, params=None, role='read'):
        self.calls.append(('GET', path, params))
        self.roles.append((path, role))
        self.fail('GET', path)
        parts = path.strip('/').split('/')
        if len(parts) == 3 and parts[0] == 'nodes' and parts[2] == 'storage':
            return self.node_storages(parts[1], (params or {}).get('storage'))
        if path == '/nodes':
            return [{'node': node, 'status': 'offline' if node in self.offline else 'online'} for node in self.nodes]
        if path == '/cluster/resources':
            return [dict(row) for row in self.guests]
        if parts[-1] == 'status' and parts[2] == 'tasks':
            return {'status': 'stopped', 'exitstatus': self.exitstatus}
        if parts[-1] == 'log':
            return [{'n': 1, 't': self.exitstatus}]
        if parts[-1] == 'aplinfo':
            return [{'template': name, 'type': 'lxc'} for name in self.catalogue]
        if parts[-1] == 'query-url-metadata':
            return self.metadata.get(params['url'], {})
        if parts[-1] == 'content':
            storage, node = parts[3], parts[1]
            rows = []
            for volid, info in sorted(self.volumes.get(self.key(storage, node), {}).items()):
                if params and params.get('content') and info['content'] != params['content']:
                    continue
                row = {'volid': volid, 'content': info['content'], 'size': info['size'], 'ctime': 1760000000,
                       'format': info.get('format') or volid.rsplit('.', 1)[-1]}
                if 'vmid' in info:
                    row['vmid'] = info['vmid']
                rows.append(row)
            return rows
        if parts[-1] == 'config':
            return dict(self.configs[int(parts[3])])
        raise AssertionError('unexpected GET %s' % path)

    def post(self, path, form=None, role='provision'):
        self.calls.append(('POST', path, dict(form or {})))
        self.fail('POST', path)
        parts = path.strip('/').split('/')
        node = parts[1]
        if parts[-1] == 'download-url':
            self.fetched(parts[3], node, form['content'], form['filename'], self.metadata.get(form['url'], {}).get(
                'size', 1000))
            return upid(node, 'download')
        if parts[-1] == 'aplinfo':
            self.fetched(form['storage'], node, 'vztmpl', form['template'], 5000)
            return upid(node, 'download')
        if parts[-1] == 'oci-registry-pull':
            name = normalize_content_filename(form.get('filename') or form['reference']) + '.tar'
            self.fetched(parts[3], node, 'vztmpl', name, 7000)
            return upid(node, 'ociregistrypull')
        raise AssertionError('unexpected POST %s' % path)

    def upload(self, path, fields, file_path, file_name, role='provision', member=None):
        self.calls.append(('UPLOAD', path, dict(fields, file=file_path, name=file_name, member=member)))
        parts = path.strip('/').split('/')
        self.fetched(parts[3], parts[1], fields['content'], file_name, os.path.getsize(file_path))
        return upid(parts[1], 'imgcopy')

    def delete(self, path, params=None, role='provision'):
        self.calls.append(('DELETE', path, params))
        parts = path.strip('/').split('/')
        volid = unquote(parts[-1])
        if self.exitstatus == 'OK':
            self.volumes.get(self.key(parts[3], parts[1]), {}).pop(volid, None)
        return upid(parts[1], 'imgdel')

    def put(self, path, form=None, role='provision'):
        raise AssertionError('unexpected PUT %s' % path)

    def fetched(self, storage, node, content, filename, size):
        if self.exitstatus == 'OK':
            self.add(storage, node, '%s/%s' % (content, filename), size)


def params(base=None, **values):
    """A task's options as the argument spec leaves them (defaults filled in): ``base`` with ``values`` over it."""
    spec = FAMILY.object_spec()
    result = dict((name, option.get('default')) for name, option in spec.items())
    result.update(base or {})
    result.update(values)
    return result


ISO = dict(storage='local', node='node1', content='iso', filename='debian-13.iso', url=URL)


@pytest.fixture
def iso_file(tmp_path):
    path = tmp_path / 'installer.iso'
    path.write_bytes(b'an installer image\n' * 512)
    return str(path)


# -- the declaration: refused before any request ------------------------------------------------------------------

BAD = [
    (dict(ISO, url='ftp://mirror.example.org/a.iso'), 'option url'),
    (dict(ISO, url='mirror.example.org/a.iso'), 'option url'),
    (dict(ISO, checksum='ab' * 20, checksum_algorithm='sha256'), 'a sha256 checksum is 64 hex digits, this one has 40'),
    (dict(ISO, checksum='z' * 64), 'option checksum'),
    (dict(ISO, checksum='a' * 33), 'option checksum: 33 hex digits is no checksum PVE takes'),
    (dict(ISO, checksum_algorithm='sha256'), 'option checksum_algorithm'),
    (dict(ISO, filename='isos/a.iso'), 'option filename'),
    (dict(ISO, filename='isos\\a.iso'), 'option filename'),
    (dict(ISO, filename='my image.iso'), "PVE would store 'my image.iso' as 'my_image.iso'"),
    (dict(ISO, filename='a.qcow2'), 'option filename'),
    (dict(ISO, content='import', filename='disk.QCOW2'), 'option filename'),
    (dict(ISO, content='vztmpl', filename='ct.tar.lz4'), 'option filename'),
    (dict(ISO, content='images', filename='a.raw'), "option content: 'images' is not a content this module fetches"),
    (dict(ISO, content='backup', filename='a.vma'), 'option content'),
    (dict(ISO, content='import', filename='a.qcow2', compression='gz'), 'decompression not supported for import'),
    (dict(ISO, url=None, template='debian-13-standard_13.1-2_amd64.tar.zst'), 'option template'),
    (dict(ISO, url=None, content='vztmpl', filename='alpine.tar', oci='Docker.io/Library/x'), 'option oci'),
    (dict(ISO, url=None, content='vztmpl', filename='alpine', oci='docker.io/library/alpine:3.22'),
     'option filename'),
    (dict(ISO, url=None, content='vztmpl', filename='other.tar.zst',
          template='debian-13-standard_13.1-2_amd64.tar.zst'),
     'option filename: PVE stores an appliance template under its own name'),
    (dict(ISO, url=None, content='vztmpl', filename=None, template='debian-13-standard_13.1-2_amd64.tar.zst',
          checksum='a' * 64), 'option checksum'),
    (dict(ISO, filename=None), 'option filename is required with url'),
    (dict(ISO, url=None, src='/nonexistent/dir/a.iso'), 'option src'),
    (dict(ISO, storage='1bad'), 'option storage'),
    (dict(ISO, node='bad node'), 'option node'),
    (dict(ISO, state='absent'), 'confirm_removal=true'),
]


@pytest.mark.parametrize('values, words', BAD, ids=[words for _values, words in BAD])
def test_bad_input_is_refused_naming_the_option_before_any_request(values, words):
    with pytest.raises((DeclarationError, Refused)) as refused:
        reconcile(NoRequests(), FAMILY, params(**values), check_mode=True)
    assert words in str(refused.value)


def test_two_sources_are_refused_naming_both(iso_file):
    with pytest.raises(DeclarationError, match='options url, src are mutually exclusive'):
        reconcile(NoRequests(), FAMILY, params(ISO, src=iso_file), check_mode=True)


def test_compression_only_with_a_url(iso_file):
    with pytest.raises(DeclarationError, match='option compression decompresses a url download'):
        reconcile(NoRequests(), FAMILY, params(ISO, url=None, src=iso_file, compression='gz'), check_mode=True)


def test_a_src_whose_checksum_differs_is_refused_before_any_request(iso_file):
    wrong = hashlib.sha256(b'another file').hexdigest()
    with pytest.raises(DeclarationError, match='option checksum: .* has the sha256 .*nothing was uploaded'):
        reconcile(NoRequests(), FAMILY, params(ISO, url=None, src=iso_file, checksum=wrong), check_mode=True)


def test_the_content_option_takes_any_text_so_its_refusal_is_a_sentence():
    assert 'choices' not in FAMILY.object_spec()['content']


# -- the file name ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('name, kept', [
    ('debian-13.iso', 'debian-13.iso'), ('my image.iso', 'my_image.iso'), ('isos/a.iso', 'a.iso'),
    ('C:\\isos\\a.iso', 'a.iso'), ('docker.io/library/alpine:3.22', 'alpine_3.22'), ('a.iso\n', 'a.iso'),
    ('ünï.iso', '_n_.iso'),
])
def test_file_names_are_normalised_as_pve_does(name, kept):
    assert normalize_content_filename(name) == kept


def test_the_source_names_the_file_when_filename_is_left_out(iso_file):
    template = FAMILY.declaration(params(storage='local', node='node1', content='vztmpl',
                                         template='debian-13-standard_13.1-2_amd64.tar.zst'))
    assert template.ident['filename'] == 'debian-13-standard_13.1-2_amd64.tar.zst'
    # PVE's oci_registry_pull: normalize_content_filename(reference) . '.tar' (the path before the name dropped)
    oci = FAMILY.declaration(params(storage='local', node='node1', content='vztmpl',
                                    oci='docker.io/library/nginx:1.27'))
    assert oci.ident['filename'] == 'nginx_1.27.tar' and not oci.filename_declared
    uploaded = FAMILY.declaration(params(storage='local', node='node1', content='iso', src=iso_file))
    assert uploaded.ident['filename'] == 'installer.iso' and uploaded.source == 'src'


def test_a_src_file_pve_would_rename_is_refused_naming_filename(tmp_path):
    path = tmp_path / 'My Installer.iso'
    path.write_bytes(b'x')
    with pytest.raises(DeclarationError, match=r"option filename: PVE would store 'My Installer.iso' \(from option "
                                               r"src\) as 'My_Installer.iso'"):
        FAMILY.declaration(params(storage='local', node='node1', content='iso', src=str(path)))


def test_the_checksum_algorithm_follows_from_the_checksums_length():
    for algorithm, length in sc.CHECKSUM_LENGTHS.items():
        declaration = FAMILY.declaration(params(ISO, checksum='A' * length))
        assert declaration.values['checksum_algorithm'] == algorithm and declaration.values['checksum'] == 'a' * length


def test_the_oci_reference_rule_is_pves_and_stays_fast():
    for good in ('docker.io/library/alpine:3.22', 'alpine:latest', 'ghcr.io/a/b-c:1.0', 'localhost:5000/x:y',
                 'registry.example.org/team__x/app:v1'):
        assert sc.OCI_REFERENCE.fullmatch(good), good
    for bad in ('alpine', 'Alpine:1', 'docker.io/Library/alpine:1', 'a:', 'a' * 40 + '!'):
        assert not sc.OCI_REFERENCE.fullmatch(bad), bad
    # PVE's own pattern backtracks exponentially on this; the rewrite answers at once
    assert not sc.OCI_REFERENCE.fullmatch('a-' * 5000 + '!')


# -- where: the node, the storage ---------------------------------------------------------------------------------

def test_a_local_storage_needs_the_node_after_reading_a_nodes_storage_list():
    cluster = Cluster()
    with pytest.raises(DeclarationError, match="option node is required: storage 'local' \\(dir\\) is not shared"):
        reconcile(cluster, FAMILY, params(ISO, node=None), check_mode=True)
    assert [call[1] for call in cluster.calls] == ['/nodes', '/nodes/node1/storage']


def test_a_shared_storage_is_read_through_an_online_node_it_is_enabled_on():
    cluster = Cluster(offline={'node2'})
    result = reconcile(cluster, FAMILY, params(ISO, storage='nfs1', node=None), check_mode=True)
    assert result['plan']['node'] == 'node3' and result['plan']['action'] == 'create'
    assert ('GET', '/nodes/node3/storage/nfs1/content', {'content': 'iso'}) in cluster.calls
    # the node is no part of a shared volume's identity: the diff leaves it out
    assert result['diff']['after'] == dict(storage='nfs1', content='iso', filename='debian-13.iso', url=URL)


def test_declarations_differing_only_in_node_judge_one_shared_volume():
    cluster = Cluster()
    cluster.add('nfs1', None, 'iso/debian-13.iso', 1000)
    cluster.metadata[URL] = {'size': 1000}
    for node in ('node2', 'node3', None):
        result = reconcile(cluster, FAMILY, params(ISO, storage='nfs1', node=node))
        assert result['changed'] is False and result['object']['volid'] == 'nfs1:iso/debian-13.iso'
        assert 'node' not in result['object']
    assert cluster.writes() == []


def test_a_storage_without_a_path_is_refused_in_pves_words():
    with pytest.raises(Refused, match="can't upload to storage type 'lvmthin', not a file based storage!"):
        reconcile(Cluster(), FAMILY, params(ISO, storage='lvm'), check_mode=True)


def test_a_storage_not_configured_for_the_content_warns_in_check_mode_and_is_refused_before_a_write():
    cluster = Cluster(local_content='iso,vztmpl,backup')
    declared = params(storage='local', node='node1', content='import', filename='cloud.qcow2',
                      url='https://mirror.example.org/cloud.qcow2')
    result = reconcile(cluster, FAMILY, declared, check_mode=True)
    assert result['plan']['action'] == 'create'
    assert any("not configured for content-type 'import'" in warning for warning in result['warnings'])
    with pytest.raises(Refused, match="storage 'local' is not configured for content-type 'import'"):
        reconcile(cluster, FAMILY, declared)
    assert cluster.writes() == []


def test_a_storage_the_list_lacks_is_refused():
    with pytest.raises(Refused, match="storage 'gone' is not in node node1's storage list"):
        reconcile(Cluster(), FAMILY, params(ISO, storage='gone'), check_mode=True)


def test_a_failed_content_read_fails_with_pves_answer_never_absent():
    error = ServerError(500, "storage 'local' is not available on node 'node1'")
    cluster = Cluster(errors={('GET', '/nodes/node1/storage/local/content'): error})
    with pytest.raises(ServerError, match="not available on node 'node1'"):
        reconcile(cluster, FAMILY, params(**ISO))
    assert cluster.writes() == []


# -- creating: check mode plans, a run fetches once ---------------------------------------------------------------

def test_check_mode_plans_the_download_and_sends_nothing():
    cluster = Cluster()
    result = reconcile(cluster, FAMILY, params(**ISO), check_mode=True)
    assert result['changed'] is True and cluster.writes() == []
    assert result['plan'] == dict(read='absent', action='create', changed=['url'], node='node1', source='url',
                                  judged=None, steps=[dict(call='download-url', node='node1',
                                                           volid='local:iso/debian-13.iso')])
    assert result['diff'] == dict(before={}, after=dict(storage='local', content='iso', filename='debian-13.iso',
                                                        node='node1', url=URL))


def test_a_download_is_one_post_with_pves_parameters_then_read_back():
    cluster = Cluster(metadata={URL: {'size': 1234}})
    result = reconcile(cluster, FAMILY, params(ISO, checksum='b' * 128, compression='zst',
                                               verify_certificates=False))
    assert cluster.writes() == [('POST', '/nodes/node1/storage/local/download-url', {
        'url': URL, 'content': 'iso', 'filename': 'debian-13.iso', 'checksum': 'b' * 128,
        'checksum-algorithm': 'sha512', 'compression': 'zst', 'verify-certificates': '0'})]
    assert ('GET', '/nodes/node1/tasks/%s/status' % upid('node1', 'download'), None) in cluster.calls
    assert result['changed'] is True and result['object']['volid'] == 'local:iso/debian-13.iso'
    assert result['object']['size'] == 1234


def test_an_appliance_is_fetched_by_its_catalogue_name():
    cluster = Cluster()
    result = reconcile(cluster, FAMILY, params(storage='local', node='node1', content='vztmpl',
                                               template='debian-13-standard_13.1-2_amd64.tar.zst'))
    assert cluster.writes() == [('POST', '/nodes/node1/aplinfo', {
        'storage': 'local', 'template': 'debian-13-standard_13.1-2_amd64.tar.zst'})]
    assert result['plan']['steps'][0]['call'] == 'aplinfo'


def test_an_appliance_the_catalogue_lacks_is_refused_in_check_mode_naming_close_names():
    cluster = Cluster()
    with pytest.raises(Refused) as refused:
        reconcile(cluster, FAMILY, params(storage='local', node='node1', content='vztmpl',
                                          template='debian-13-standard_13.1-1_amd64.tar.zst'), check_mode=True)
    assert "option template: 'debian-13-standard_13.1-1_amd64.tar.zst' is not in node node1's" in str(refused.value)
    assert 'debian-13-standard_13.1-2_amd64.tar.zst' in str(refused.value)
    assert cluster.writes() == []


@pytest.mark.parametrize('filename, sent', [(None, {}), ('nginx.tar', {'filename': 'nginx'})])
def test_an_oci_pull_sends_the_file_name_without_tar_only_when_declared(filename, sent):
    cluster = Cluster()
    result = reconcile(cluster, FAMILY, params(storage='local', node='node1', content='vztmpl', filename=filename,
                                               oci='docker.io/library/nginx:1.27'))
    assert cluster.writes() == [('POST', '/nodes/node1/storage/local/oci-registry-pull',
                                 dict(reference='docker.io/library/nginx:1.27', **sent))]
    assert result['object']['filename'] == filename or result['object']['filename'] == 'nginx_1.27.tar'


def test_an_upload_goes_to_the_node_with_its_checksum_and_is_judged_by_its_size(iso_file):
    cluster = Cluster()
    checksum = hashlib.sha256(open(iso_file, 'rb').read()).hexdigest()
    declared = params(storage='local', node='node2', content='iso', src=iso_file, checksum=checksum)
    result = reconcile(cluster, FAMILY, declared)
    assert cluster.writes() == [('UPLOAD', '/nodes/node2/storage/local/upload', {
        'content': 'iso', 'checksum-algorithm': 'sha256', 'checksum': checksum, 'file': iso_file,
        'name': 'installer.iso', 'member': 'node2'})]
    assert result['object']['size'] == os.path.getsize(iso_file)
    cluster.calls = []
    again = reconcile(cluster, FAMILY, declared)
    assert again['changed'] is False and again['plan']['judged'] == 'size' and cluster.writes() == []


def test_a_volume_missing_with_no_source_is_refused_and_a_present_one_adopted():
    cluster = Cluster()
    with pytest.raises(Refused, match='does not exist, and fetching it needs a source'):
        reconcile(cluster, FAMILY, params(ISO, url=None), check_mode=True)
    cluster.add('local', 'node1', 'iso/debian-13.iso', 10)
    result = reconcile(cluster, FAMILY, params(ISO, url=None))
    assert result['changed'] is False and result['plan']['judged'] == 'existence' and cluster.writes() == []


def test_a_failed_download_names_the_volume():
    cluster = Cluster(exitstatus="checksum mismatch: got 'x' != expect 'y'")
    with pytest.raises(TaskFailed) as failed:
        reconcile(cluster, FAMILY, params(**ISO))
    assert "download-url of volume 'local:iso/debian-13.iso' on node 'node1'" in str(failed.value)
    assert 'checksum mismatch' in str(failed.value)


# -- a present volume: its size against its source's --------------------------------------------------------------

def test_a_volume_of_its_sources_size_is_a_no_op_with_zero_writes():
    cluster = Cluster(metadata={URL: {'size': 1000}})
    cluster.add('local', 'node1', 'iso/debian-13.iso', 1000)
    result = reconcile(cluster, FAMILY, params(**ISO))
    assert result['changed'] is False and result['plan']['judged'] == 'size' and cluster.writes() == []
    assert ('GET', '/nodes/node1/query-url-metadata', {'url': URL}) in cluster.calls
    assert result['diff']['before'] == result['diff']['after'] == dict(
        storage='local', content='iso', filename='debian-13.iso', node='node1', size=1000)


def test_the_sources_size_is_asked_with_the_credential_that_may_download():
    cluster = Cluster(metadata={URL: {'size': 1000}})
    cluster.add('local', 'node1', 'iso/debian-13.iso', 1000)
    reconcile(cluster, FAMILY, params(ISO, verify_certificates=False), check_mode=True)
    assert ('GET', '/nodes/node1/query-url-metadata', {'url': URL, 'verify-certificates': 0}) in cluster.calls
    roles = dict(cluster.roles)
    assert roles['/nodes/node1/query-url-metadata'] == 'provision'
    assert roles['/nodes/node1/storage'] == roles['/nodes/node1/storage/local/content'] == 'read'


def test_an_unknown_source_size_is_judged_by_existence_with_a_warning():
    cluster = Cluster(metadata={URL: {'filename': 'debian-13.iso'}})
    cluster.add('local', 'node1', 'iso/debian-13.iso', 1000)
    result = reconcile(cluster, FAMILY, params(**ISO))
    assert result['changed'] is False and result['plan']['judged'] == 'existence'
    assert 'sends no Content-Length' in result['warnings'][0]


def test_a_decompressed_download_is_judged_by_existence_without_asking_its_size():
    cluster = Cluster()
    cluster.add('local', 'node1', 'iso/debian-13.iso', 1000)
    result = reconcile(cluster, FAMILY, params(ISO, compression='gz'))
    assert result['changed'] is False and result['warnings'] == []
    assert not [call for call in cluster.calls if call[1].endswith('query-url-metadata')]


def test_a_size_that_differs_is_refused_naming_the_volume_and_both_sizes():
    cluster = Cluster(metadata={URL: {'size': 2000}})
    cluster.add('local', 'node1', 'iso/debian-13.iso', 1000)
    with pytest.raises(Refused) as refused:
        reconcile(cluster, FAMILY, params(**ISO), check_mode=True)
    assert str(refused.value).startswith('local:iso/debian-13.iso holds 1000 bytes but its url has 2000')
    assert 'replace: true' in str(refused.value)


def test_replace_plans_a_removal_and_a_download_and_makes_both_in_one_run():
    cluster = Cluster(metadata={URL: {'size': 2000}})
    cluster.add('local', 'node1', 'iso/debian-13.iso', 1000)
    declared = params(ISO, replace=True)
    check = reconcile(cluster, FAMILY, declared, check_mode=True)
    assert check['plan']['action'] == 'update' and check['plan']['changed'] == ['size']
    assert [step['call'] for step in check['plan']['steps']] == ['delete', 'download-url']
    assert check['diff']['before']['size'] == 1000 and check['diff']['after']['size'] == 2000
    assert cluster.writes() == []
    result = reconcile(cluster, FAMILY, declared)
    assert [(call[0], call[1]) for call in cluster.writes()] == [
        ('DELETE', '/nodes/node1/storage/local/content/local:iso%2Fdebian-13.iso'),
        ('POST', '/nodes/node1/storage/local/download-url')]
    assert result['changed'] is True and result['object']['size'] == 2000


def test_replacing_an_upload_is_one_upload_since_pves_upload_overwrites(iso_file):
    cluster = Cluster()
    cluster.add('local', 'node1', 'iso/installer.iso', 3)
    result = reconcile(cluster, FAMILY, params(storage='local', node='node1', content='iso', src=iso_file,
                                               replace=True))
    assert [call[0] for call in cluster.writes()] == ['UPLOAD']
    assert result['plan']['steps'] == [dict(call='upload', node='node1', volid='local:iso/installer.iso')]


# -- removal, and the guests that use a volume --------------------------------------------------------------------

ABSENT = dict(storage='local', node='node1', content='iso', filename='debian-13.iso', state='absent',
              confirm_removal=True)
GUESTS = [{'type': 'qemu', 'vmid': 120, 'node': 'node1'}, {'type': 'lxc', 'vmid': 121, 'node': 'node1'},
          {'type': 'qemu', 'vmid': 130, 'node': 'node2'}]
CONFIGS = {120: {'ide2': 'local:iso/debian-13.iso,media=cdrom', 'scsi0': 'local-lvm:vm-120-disk-0,size=8G',
                 'description': 'local:iso/debian-13.iso'},
           121: {'rootfs': 'local-lvm:subvol-121-disk-0,size=8G'},
           130: {'ide2': 'local:iso/debian-13.iso,media=cdrom'}}


def test_the_values_a_config_names_volumes_in():
    assert referenced('local:iso/x.iso,media=cdrom') >= {'local:iso/x.iso'}
    assert 'local:import/d.qcow2' in referenced('local-lvm:0,import-from=local:import/d.qcow2')
    assert 'local:import/a=b.qcow2' in referenced('local:import/a=b.qcow2,size=1G')


def test_removing_a_volume_a_guest_uses_is_refused_in_check_mode_naming_guests_and_keys():
    cluster = Cluster(guests=GUESTS, configs=CONFIGS)
    cluster.add('local', 'node1', 'iso/debian-13.iso', 1000)
    for check_mode in (True, False):
        with pytest.raises(Refused) as refused:
            reconcile(cluster, FAMILY, params(**ABSENT), check_mode=check_mode)
        # node2's guest names its own node's local:iso/debian-13.iso, not this one
        assert str(refused.value) == ("volume 'local:iso/debian-13.iso' on node 'node1' is used by VM 120 on node1 "
                                      "(ide2): remove it from their configs first. Nothing was deleted.")
    assert cluster.writes() == []
    assert not [call for call in cluster.calls if call[1] == '/nodes/node2/qemu/130/config']


def test_removing_an_unused_volume_is_one_delete_waited_for_then_a_no_op():
    cluster = Cluster(guests=GUESTS[1:2], configs=CONFIGS)
    cluster.add('local', 'node1', 'iso/debian-13.iso', 1000)
    check = reconcile(cluster, FAMILY, params(**ABSENT), check_mode=True)
    assert check['plan']['action'] == 'delete' and check['diff']['after'] == {} and cluster.writes() == []
    result = reconcile(cluster, FAMILY, params(**ABSENT))
    assert result['changed'] is True and result['object'] == {}
    assert cluster.writes() == [('DELETE', '/nodes/node1/storage/local/content/local:iso%2Fdebian-13.iso', None)]
    assert ('GET', '/nodes/node1/tasks/%s/status' % upid('node1', 'imgdel'), None) in cluster.calls
    cluster.calls = []
    again = reconcile(cluster, FAMILY, params(**ABSENT))
    assert again['changed'] is False and cluster.writes() == []
    # nothing to remove: no guest config is read
    assert not [call for call in cluster.calls if call[1].endswith('/config')]


def test_the_task_timeout_option_defaults_to_half_an_hour():
    spec = FAMILY.object_spec()
    assert spec['task_timeout']['default'] == 1800 and spec['confirm_removal']['default'] is False
    assert spec['verify_certificates']['default'] is True and spec['replace']['default'] is False


# -- storage_content_info ------------------------------------------------------------------------------------------

def test_info_lists_volumes_with_their_users_and_changes_nothing():
    cluster = Cluster(guests=GUESTS, configs=CONFIGS)
    cluster.add('local', 'node1', 'iso/debian-13.iso', 1000)
    cluster.add('local', 'node1', 'backup/vzdump-qemu-120-2026_01_01-00_00_00.vma.zst', 5000, content='backup')
    cluster.add('local', 'node2', 'iso/other.iso', 1)
    result = INFO.run(cluster, dict(storage='local', node='node1', content=None, used_by=True), check_mode=True)
    assert result['changed'] is False and result['node'] == 'node1' and result['shared'] is False
    volumes = dict((volume['volid'], volume) for volume in result['volumes'])
    assert sorted(volumes) == ['local:backup/vzdump-qemu-120-2026_01_01-00_00_00.vma.zst', 'local:iso/debian-13.iso']
    assert volumes['local:iso/debian-13.iso'] == dict(
        volid='local:iso/debian-13.iso', content='iso', filename='debian-13.iso', size=1000, format='iso',
        ctime=1760000000, used_by=[dict(vmid=120, type='qemu', node='node1', key='ide2')])
    assert cluster.writes() == []


def test_info_names_an_images_volume_by_its_volume_name_and_skips_the_scan_when_asked():
    cluster = Cluster(guests=GUESTS, configs=CONFIGS)
    cluster.volumes[('lvm', 'node1')] = {'lvm:vm-120-disk-0': dict(size=8, content='images', vmid=120, format='raw')}
    result = INFO.run(cluster, dict(storage='lvm', node='node1', content='images', used_by=False), check_mode=False)
    assert result['volumes'] == [dict(volid='lvm:vm-120-disk-0', content='images', filename='vm-120-disk-0', size=8,
                                      format='raw', ctime=1760000000, vmid=120)]
    assert not [call for call in cluster.calls if call[1].endswith('/config') or call[1] == '/cluster/resources']


def test_info_on_a_local_storage_needs_the_node():
    with pytest.raises(DeclarationError, match='option node is required'):
        INFO.run(Cluster(), dict(storage='local', node=None, content=None, used_by=True), check_mode=True)


# -- the export ---------------------------------------------------------------------------------------------------

def exported(cluster):
    found = FAMILY.find_all(cluster)
    return [(FAMILY.export_options(ident, raw), FAMILY.export_notes(ident, raw)) for ident, raw in found]


def test_the_export_gives_each_volume_once_with_a_template_where_the_catalogue_names_it():
    cluster = Cluster(offline={'node3'})
    cluster.add('local', 'node1', 'iso/debian-13.iso', 1000)
    cluster.add('local', 'node2', 'iso/debian-13.iso', 1000)
    cluster.add('local', 'node1', 'vztmpl/debian-13-standard_13.1-2_amd64.tar.zst', 500)
    cluster.add('local', 'node1', 'backup/vzdump-lxc-1-2026_01_01-00_00_00.tar.zst', 5, content='backup')
    cluster.add('nfs1', None, 'iso/shared.iso', 7)
    result = exported(cluster)
    options = [entry[0] for entry in result]
    assert options == [
        dict(storage='local', content='iso', filename='debian-13.iso', node='node1'),
        dict(storage='local', content='vztmpl', filename='debian-13-standard_13.1-2_amd64.tar.zst', node='node1',
             template='debian-13-standard_13.1-2_amd64.tar.zst'),
        dict(storage='local', content='iso', filename='debian-13.iso', node='node2'),
        dict(storage='nfs1', content='iso', filename='shared.iso'),
    ]
    notes = dict((sc.volid_of(dict(option, node=None)) + '@' + str(option.get('node')), note)
                 for option, note in result)
    assert notes['local:vztmpl/debian-13-standard_13.1-2_amd64.tar.zst@node1'] == []
    assert notes['nfs1:iso/shared.iso@None'] == [
        'PVE keeps no source for nfs1:iso/shared.iso: it is exported to be adopted as it is; declare url, oci or src '
        'to recreate it']
    # the shared storage is listed once, through one node; the offline node is not read
    listed = [call[1] for call in cluster.calls if call[1].endswith('/content')]
    assert listed.count('/nodes/node2/storage/nfs1/content') == 1 and '/nodes/node3/storage/nfs1/content' not in listed
    assert not [path for path in listed if path.startswith('/nodes/node3/')]


def test_declaring_the_export_back_is_a_no_op():
    cluster = Cluster()
    cluster.add('local', 'node1', 'iso/debian-13.iso', 1000)
    cluster.add('local', 'node1', 'vztmpl/debian-13-standard_13.1-2_amd64.tar.zst', 500)
    cluster.add('nfs1', None, 'iso/shared.iso', 7)
    for options, _notes in exported(cluster):
        cluster.calls = []
        result = reconcile(cluster, FAMILY, params(**options))
        assert result['changed'] is False and cluster.writes() == [], options


# -- against the simulator: each source fetched once, then adopted with zero writes --------------------------------

@pytest.fixture(scope='module')
def simulated():
    from simulator.server import Simulator
    with Simulator(members=1) as sim:
        yield sim


def simulator_client(sim):
    from ansible_collections.homeflare.proxmox.plugins.module_utils import api
    from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import StaticToken
    return api.Client('pve', sim.members, StaticToken(sim.token_id, sim.token_secret), ca_path=sim.ca_path)


def fetched_once(sim, declared):
    """Check mode writes nothing, a run one fetch, a re-run nothing; the run's result."""
    client = simulator_client(sim)
    sim.clear_log()
    check = reconcile(client, FAMILY, params(**declared), check_mode=True)
    assert check['plan']['action'] == 'create' and sim.writes() == [], check
    result = reconcile(client, FAMILY, params(**declared))
    assert result['changed'] is True and len(sim.writes()) == 1, sim.writes()
    sim.clear_log()
    again = reconcile(client, FAMILY, params(**declared))
    assert again['changed'] is False and sim.writes() == [], again
    return result


def test_the_simulator_downloads_once_and_a_changed_source_is_replaced(simulated):
    from simulator.fileserver import FileServer
    data = b'release one\n' * 100
    with FileServer() as files:
        files.add('/isos/rolling.iso', data)
        declared = dict(storage='local', node='node1', content='iso', filename='rolling.iso',
                        url=files.url('/isos/rolling.iso'), checksum=hashlib.sha256(data).hexdigest())
        result = fetched_once(simulated, declared)
        assert result['object']['size'] == len(data)
        assert [request for request in files.requests if request[0] == 'GET'] == [('GET', '/isos/rolling.iso')]
        files.add('/isos/rolling.iso', b'release two, larger\n' * 100)
        client = simulator_client(simulated)
        declared.pop('checksum')
        with pytest.raises(Refused, match='replace'):
            reconcile(client, FAMILY, params(**declared))
        simulated.clear_log()
        replaced = reconcile(client, FAMILY, params(declared, replace=True))
        assert replaced['object']['size'] == len(b'release two, larger\n' * 100)
        assert [entry['method'] for entry in simulated.writes()] == ['DELETE', 'POST']


def test_the_simulator_fails_a_checksum_mismatch_naming_the_volume_and_keeps_no_file(simulated):
    from simulator.fileserver import FileServer
    with FileServer() as files:
        files.add('/isos/tampered.iso', b'not what was published\n' * 50)
        declared = dict(storage='local', node='node1', content='iso', filename='tampered.iso',
                        url=files.url('/isos/tampered.iso'), checksum='a' * 64)
        with pytest.raises(TaskFailed) as failed:
            reconcile(simulator_client(simulated), FAMILY, params(**declared))
        assert 'local:iso/tampered.iso' in str(failed.value) and 'checksum mismatch' in str(failed.value)
        listing = dict(storage='local', node='node1', content='iso', used_by=False)
        listed = INFO.run(simulator_client(simulated), listing, check_mode=True)
        assert 'local:iso/tampered.iso' not in [volume['volid'] for volume in listed['volumes']]


def test_the_simulator_fetches_an_appliance_an_oci_image_and_an_upload(simulated, iso_file):
    from simulator.pve.handlers.content_sources import APPLIANCES
    template = sorted(APPLIANCES)[0]
    result = fetched_once(simulated, dict(storage='local', node='node1', content='vztmpl', template=template))
    assert result['object']['size'] == len(APPLIANCES[template])
    simulated.seed_oci_image('docker.io/library/nginx:1.27', b'oci-archive nginx 1.27\n' * 64)
    result = fetched_once(simulated, dict(storage='local', node='node1', content='vztmpl',
                                          oci='docker.io/library/nginx:1.27'))
    assert result['object']['volid'] == 'local:vztmpl/nginx_1.27.tar'
    result = fetched_once(simulated, dict(storage='local', node='node2', content='iso', src=iso_file))
    assert result['object']['size'] == os.path.getsize(iso_file)
    # the upload went to the member that received it, and is now on node2 only (local is not shared)
    listed = INFO.run(simulator_client(simulated), dict(storage='local', node='node1', content='iso', used_by=False),
                      check_mode=True)
    assert 'local:iso/installer.iso' not in [volume['volid'] for volume in listed['volumes']]


def test_the_simulator_refuses_removing_a_used_volume_and_info_names_the_user(simulated, iso_file):
    from simulator.pve.handlers.guests import add_guest
    client = simulator_client(simulated)
    reconcile(client, FAMILY, params(storage='local', node='node3', content='iso', src=iso_file))
    add_guest(simulated.state, 'qemu', 150, 'node3',
              config={'name': 'installer', 'ide2': 'local:iso/installer.iso,media=cdrom'})
    removal = params(storage='local', node='node3', content='iso', filename='installer.iso', state='absent',
                     confirm_removal=True)
    simulated.clear_log()
    with pytest.raises(Refused, match='VM 150 on node3 \\(ide2\\)'):
        reconcile(client, FAMILY, removal, check_mode=True)
    listed = INFO.run(client, dict(storage='local', node='node3', content='iso', used_by=True), check_mode=True)
    users = dict((volume['volid'], volume['used_by']) for volume in listed['volumes'])
    assert users['local:iso/installer.iso'] == [dict(vmid=150, type='qemu', node='node3', key='ide2')]
    assert simulated.writes() == []


def test_the_simulators_volumes_export_with_a_note_and_declare_back_as_a_no_op(simulated):
    from ansible_collections.homeflare.proxmox.plugins.module_utils.declare import Declare
    from ansible_collections.homeflare.proxmox.plugins.module_utils.export import Export
    from simulator.pve.handlers.content_sources import APPLIANCES
    client = simulator_client(simulated)
    template = sorted(APPLIANCES)[-1]
    reconcile(client, FAMILY, params(storage='local', node='node2', content='vztmpl', template=template))
    exported = Export([('storage_content', FAMILY)]).run(client, dict(server='pve', workers=2), check_mode=True)
    objects = exported['objects']['storage_content']
    assert dict(storage='local', content='vztmpl', filename=template, node='node2', template=template) in objects
    assert exported['refused'] == []
    sourceless = [entry for entry in objects if 'template' not in entry]
    assert sourceless and len(exported['warnings']) == len(sourceless)
    assert exported['warnings'][0].startswith('PVE keeps no source for local:')
    simulated.clear_log()
    declared = Declare([('storage_content', FAMILY)]).run(client, dict(objects=exported['objects']), check_mode=False)
    assert declared['changed'] is False and declared['summary']['matched'] == len(objects)
    assert simulated.writes() == []
