"""Storage content (issue 24): ISOs, container templates and disk images to import, downloaded, pulled or uploaded,
through real ansible-playbook runs on both execution paths.

The matrix object is an ISO uploaded from the controller (``src``): created once, adopted with zero writes, its
drift (another file of another size uploaded under its name by hand) named by ``--check --diff`` as ``size`` and,
with ``replace``, repaired by one upload (PVE's upload overwrites; a download or a pull does not, so their
replacement is a removal and a fetch). The other tests prove each source and rule: a download from a file server
on 127.0.0.1 that the test starts (checked, planned in check mode, never fetched again; a checksum mismatch fails
naming the volume and leaves none behind), an appliance by its catalogue name, an OCI image from the registry
stand-in, the size judgement and ``replace``, the per-node identity on a local storage, the refusal to remove a
volume a guest uses, ``storage_content_info``, and an upload whose member hangs (never uploaded twice).

``MATRIX``, ``SETUP`` and ``BAD_INPUT`` have the shapes of test_matrix.FAMILIES / SETUP and test_bad_input.CORPUS.
"""

import hashlib
import os
import tempfile
import time

import pytest
import requests

from conftest import EXECUTION_PATHS, reconfirms
from test_matrix import api, assert_drift_named

from simulator.fileserver import FileServer
from simulator.pve.handlers.content_sources import APPLIANCES
from simulator.pve.handlers.guests import add_guest
from simulator.pve.handlers.lxc import make_oci_archive


ISO_DIR = os.path.join(tempfile.gettempdir(), 'homeflare-content-iso-%d' % os.getuid())
os.makedirs(ISO_DIR, exist_ok=True)
ISO_SRC = os.path.join(ISO_DIR, 'matrix-installer.iso')
ISO_DATA = (b'homeflare matrix installer\n' * 2000)
if not os.path.exists(ISO_SRC) or os.path.getsize(ISO_SRC) != len(ISO_DATA):
    with open(ISO_SRC + '.%d' % os.getpid(), 'wb') as _handle:
        _handle.write(ISO_DATA)
    os.replace(ISO_SRC + '.%d' % os.getpid(), ISO_SRC)
ISO_VOLID = 'local:iso/matrix-installer.iso'
DEBIAN13 = 'debian-13-standard_13.1-2_amd64.tar.zst'

SETUP = []
ISO = {'node': 'node1', 'storage': 'local', 'content': 'iso', 'src': ISO_SRC, 'replace': True}

MATRIX = {
    'storage_content': dict(
        prefix='/nodes/node1/storage/local',
        args=ISO,
        # another file of another size uploaded under the same name (the UI's upload overwrites)
        drift=[('UPLOAD', '/nodes/node1/storage/local/upload',
                {'content': 'iso', 'filename': 'matrix-installer.iso', 'data': b'a different installer\n' * 100})],
        drifted={'size': 'size'},
        absent={'node': 'node1', 'storage': 'local', 'content': 'iso', 'filename': 'matrix-installer.iso',
                'state': 'absent', 'confirm_removal': True},
    ),
}
MODULES = sorted(MATRIX)

BAD_INPUT = [
    ('storage_content', {'node': 'node1', 'storage': 'local', 'content': 'iso', 'filename': 'a.iso',
                         'url': 'ftp://mirror.example.org/a.iso'}, 'url'),
    ('storage_content', {'node': 'node1', 'storage': 'local', 'content': 'iso', 'filename': 'a.iso',
                         'url': 'https://mirror.example.org/a.iso', 'checksum': 'abc123',
                         'checksum_algorithm': 'sha256'}, 'checksum'),
    ('storage_content', {'node': 'node1', 'storage': 'local', 'content': 'iso', 'filename': 'a.iso',
                         'url': 'https://mirror.example.org/a.iso', 'checksum': 'z' * 64,
                         'checksum_algorithm': 'sha256'}, 'checksum'),
    ('storage_content', {'node': 'node1', 'storage': 'local', 'content': 'iso', 'filename': 'isos/a.iso',
                         'url': 'https://mirror.example.org/a.iso'}, 'filename'),
    ('storage_content', {'node': 'node1', 'storage': 'local', 'content': 'iso', 'filename': 'a.qcow2',
                         'url': 'https://mirror.example.org/a.qcow2'}, 'filename'),
    ('storage_content', {'node': 'node1', 'storage': 'local', 'content': 'iso', 'filename': 'my image.iso',
                         'url': 'https://mirror.example.org/a.iso'}, 'filename'),
    ('storage_content', {'node': 'node1', 'storage': 'local', 'content': 'images', 'filename': 'a.raw',
                         'url': 'https://mirror.example.org/a.raw'}, 'content'),
    ('storage_content', {'node': 'node1', 'storage': 'local', 'content': 'import', 'filename': 'a.qcow2',
                         'url': 'https://mirror.example.org/a.qcow2', 'compression': 'gz'}, 'compression'),
    ('storage_content', {'node': 'node1', 'storage': 'local', 'content': 'iso', 'filename': 'a.iso',
                         'url': 'https://mirror.example.org/a.iso', 'src': ISO_SRC}, 'src'),
    ('storage_content', {'node': 'node1', 'storage': 'local', 'content': 'iso', 'template': DEBIAN13}, 'template'),
    ('storage_content', {'node': 'node1', 'storage': 'local', 'content': 'vztmpl', 'oci': 'Docker.io/Library/x'},
     'oci'),
    ('storage_content', {'node': 'node1', 'storage': 'local', 'content': 'iso',
                         'src': os.path.join(ISO_DIR, 'missing.iso')}, 'src'),
    ('storage_content', {'node': 'node1', 'storage': 'local', 'content': 'iso', 'filename': 'a.iso',
                         'state': 'absent'}, 'confirm_removal'),
    ('storage_content_info', {'node': 'node1'}, 'storage'),
]


def task(module, args, name=None, **extra):
    return dict({'name': name or module, 'homeflare.proxmox.%s' % module: args, 'ignore_errors': True}, **extra)


def upload_by_hand(sim, path, fields, data, member=0):
    """What the UI's upload sends: a multipart body, the file part last (pve-http-server's order)."""
    fields = dict(fields)
    name = fields.pop('filename')
    response = requests.post(
        sim.url(member) + '/api2/json' + path, data=fields, files={'filename': (name, data)},
        headers={'Authorization': 'PVEAPIToken=%s=%s' % (sim.token_id, sim.token_secret)}, verify=sim.ca_path,
        timeout=30)
    assert response.status_code == 200, response.text
    return response.json()['data']


def drift(sim, calls):
    """The matrix's drift calls; an UPLOAD is made as the UI makes it, then waited for."""
    for method, path, form in calls:
        if method == 'UPLOAD':
            form = dict(form)
            upid = upload_by_hand(sim, path, form, form.pop('data'))
            wait(sim, upid)
        else:
            api(sim, [(method, path, form)])


def wait(sim, upid):
    node = upid.split(':')[1]
    for _attempt in range(100):
        status, body = sim.request('GET', '/nodes/%s/tasks/%s/status' % (node, upid))
        if body['data']['status'] == 'stopped':
            return body['data']['exitstatus']
    raise AssertionError('task %s did not stop' % upid)


def volumes(sim, node='node1', storage='local', content=None):
    status, body = sim.request('GET', '/nodes/%s/storage/%s/content' % (node, storage),
                               {'content': content} if content else None)
    assert status == 200, body
    return dict((row['volid'], row) for row in body['data'])


def of(entries, node='node1', storage='local'):
    prefix = '/nodes/%s/storage/%s' % (node, storage)
    return [entry for entry in entries if entry['path'].startswith(prefix)]


def step(sim, playbook, path, args, check=False, diff=False):
    sim.clear_log()
    run = playbook([task('storage_content', args)], check=check, diff=diff, env=EXECUTION_PATHS[path])
    assert run.rc == 0 and not run.failed, run
    return run.result()


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_storage_content_matrix(sim, playbook, path):
    matrix = MATRIX['storage_content']

    # 1. check mode plans the upload and sends nothing
    result = step(sim, playbook, path, matrix['args'], check=True, diff=True)
    assert result['changed'] is True and result['plan']['action'] == 'create', result
    assert sim.writes() == [] and ISO_VOLID not in volumes(sim)

    # 2. one upload, waited for: the volume is there with the file's size
    result = step(sim, playbook, path, matrix['args'])
    assert result['changed'] is True
    written = sim.writes()
    assert [(entry['method'], entry['path']) for entry in written] == [
        ('POST', '/nodes/node1/storage/local/upload')], written
    assert volumes(sim)[ISO_VOLID]['size'] == len(ISO_DATA)

    # 3. re-run: adopted, zero writes
    result = step(sim, playbook, path, matrix['args'])
    assert result['changed'] is False and result['plan']['action'] == 'none' and sim.writes() == [], result

    # 4. drift: another file of another size uploaded under its name
    drift(sim, matrix['drift'])

    # 5. --check --diff names the size, writes nothing
    result = step(sim, playbook, path, matrix['args'], check=True, diff=True)
    assert_drift_named(result, matrix['drifted'])
    assert result['diff']['after']['size'] == len(ISO_DATA) and sim.writes() == []

    # 6. the repair: one upload (PVE's upload overwrites)
    result = step(sim, playbook, path, matrix['args'])
    assert result['changed'] is True and len(sim.writes()) == 1, sim.writes()
    assert volumes(sim)[ISO_VOLID]['size'] == len(ISO_DATA)

    # 7. removed with confirmation, then nothing to do
    result = step(sim, playbook, path, matrix['absent'])
    assert result['changed'] is True and ISO_VOLID not in volumes(sim)
    assert [entry['method'] for entry in sim.writes()] == ['DELETE']
    if reconfirms(path):
        result = step(sim, playbook, path, matrix['absent'])
        assert result['changed'] is False and sim.writes() == []


IMAGE = b'QFI\xfb' + b'\x00\x00\x00\x03' + b'\x00' * 16 + (2 * 1024 ** 3).to_bytes(8, 'big') + b'\x00' * 4060
IMAGE_SHA512 = hashlib.sha512(IMAGE).hexdigest()


def test_a_download_is_planned_in_check_mode_fetched_once_and_never_again(sim, playbook):
    with FileServer() as files:
        files.add('/images/cloud.qcow2', IMAGE)
        args = {'node': 'node1', 'storage': 'local', 'content': 'import', 'filename': 'cloud.qcow2',
                'url': files.url('/images/cloud.qcow2'), 'checksum': IMAGE_SHA512, 'checksum_algorithm': 'sha512'}
        api(sim, [('PUT', '/storage/local', {'content': 'iso,vztmpl,backup,import'})])
        tasks = [task('storage_content', args, name='check', check_mode=True, diff=True),
                 task('storage_content', args, name='fetch'),
                 task('storage_content', args, name='again')]
        sim.clear_log()
        run = playbook(tasks)
        lines = dict((line['task'], line['result']) for line in run.results)
        assert lines['check']['changed'] is True and lines['check']['plan']['action'] == 'create', lines['check']
        assert lines['fetch']['changed'] is True, lines['fetch']
        assert lines['again']['changed'] is False, lines['again']
        posts = sim.writes()
        assert [(entry['method'], entry['path']) for entry in posts] == [
            ('POST', '/nodes/node1/storage/local/download-url')], posts
        assert posts[0]['form']['checksum'] == IMAGE_SHA512
        assert [request for request in files.requests if request[0] == 'GET'] == [('GET', '/images/cloud.qcow2')]
        assert volumes(sim)['local:import/cloud.qcow2']['size'] == len(IMAGE)


def test_a_checksum_mismatch_fails_naming_the_volume_and_leaves_none_behind(sim, playbook):
    with FileServer() as files:
        files.add('/isos/tampered.iso', b'not what was published\n' * 50)
        args = {'node': 'node1', 'storage': 'local', 'content': 'iso', 'filename': 'tampered.iso',
                'url': files.url('/isos/tampered.iso'), 'checksum': 'a' * 64, 'checksum_algorithm': 'sha256'}
        run = playbook([task('storage_content', args)])
        line = run.results[0]
        assert line['status'] == 'failed', line
        assert 'local:iso/tampered.iso' in line['result']['msg'] and 'checksum mismatch' in line['result']['msg']
        assert 'local:iso/tampered.iso' not in volumes(sim)


def test_an_appliance_by_its_catalogue_name_then_a_container_from_it(sim, playbook):
    args = {'node': 'node1', 'storage': 'local', 'content': 'vztmpl', 'template': DEBIAN13}
    container = {'node': 'node1', 'vmid': 310, 'hostname': 'web1', 'ostemplate': 'local:vztmpl/%s' % DEBIAN13,
                 'rootfs': 'local-lvm:4'}
    run = playbook([task('storage_content', args), task('lxc', container), task('storage_content', args, name='again'),
                    task('storage_content', dict(args, template='debian-99-standard_99.0-1_amd64.tar.zst'),
                         name='unknown')])
    lines = dict((line['task'], line) for line in run.results)
    assert lines['storage_content']['result']['changed'] is True, lines['storage_content']
    assert lines['lxc']['result']['changed'] is True, lines['lxc']
    assert lines['again']['result']['changed'] is False
    assert volumes(sim)['local:vztmpl/%s' % DEBIAN13]['size'] == len(APPLIANCES[DEBIAN13])
    assert lines['unknown']['status'] == 'failed' and 'template' in lines['unknown']['result']['msg']
    posts = [(entry['method'], entry['path']) for entry in sim.writes()]
    assert posts.count(('POST', '/nodes/node1/aplinfo')) == 1, posts


def test_an_oci_image_is_pulled_once_and_a_container_made_from_it(sim, playbook):
    sim.seed_oci_image('docker.io/library/nginx:1.27', make_oci_archive(
        config={'Entrypoint': ['/docker-entrypoint.sh'], 'Cmd': ['nginx', '-g', 'daemon off;']},
        os_release='ID=alpine\nVERSION_ID=3.21.0\n'))
    args = {'node': 'node1', 'storage': 'local', 'content': 'vztmpl', 'oci': 'docker.io/library/nginx:1.27'}
    container = {'node': 'node1', 'vmid': 311, 'hostname': 'nginx1',
                 'ostemplate': 'local:vztmpl/nginx_1.27.tar', 'rootfs': 'local-lvm:2'}
    run = playbook([task('storage_content', args), task('lxc', container), task('storage_content', args, name='again'),
                    task('storage_content', dict(args, oci='docker.io/library/nginx:9.99'), name='unknown')])
    lines = dict((line['task'], line) for line in run.results)
    assert lines['storage_content']['result']['changed'] is True, lines['storage_content']
    assert lines['lxc']['result']['changed'] is True, lines['lxc']
    assert lines['again']['result']['changed'] is False
    assert lines['unknown']['status'] == 'failed' and 'manifest unknown' in lines['unknown']['result']['msg']
    assert 'local:vztmpl/nginx_1.27.tar' in volumes(sim)
    status, body = sim.request('GET', '/nodes/node1/lxc/311/config')
    assert body['data']['ostype'] == 'alpine' and 'entrypoint' in body['data'], body  # PVE read the image's config


def test_a_download_whose_source_changed_size_is_refused_unless_replace(sim, playbook):
    with FileServer() as files:
        files.add('/isos/rolling.iso', b'release one\n' * 100)
        args = {'node': 'node1', 'storage': 'local', 'content': 'iso', 'filename': 'rolling.iso',
                'url': files.url('/isos/rolling.iso')}
        run = playbook([task('storage_content', args)])
        assert run.results[0]['result']['changed'] is True, run
        files.add('/isos/rolling.iso', b'release two, larger\n' * 100)
        sim.clear_log()
        run = playbook([task('storage_content', args, name='refused'),
                        task('storage_content', dict(args, replace=True), name='check', check_mode=True, diff=True),
                        task('storage_content', dict(args, replace=True), name='replaced')])
        lines = dict((line['task'], line) for line in run.results)
        assert lines['refused']['status'] == 'failed', lines['refused']
        refusal = lines['refused']['result']['msg']
        assert 'replace' in refusal and 'local:iso/rolling.iso' in refusal, refusal
        assert_drift_named(lines['check']['result'], ['size'])
        assert lines['replaced']['result']['changed'] is True
        assert [(entry['method'], entry['path']) for entry in sim.writes()] == [
            ('DELETE', '/nodes/node1/storage/local/content/local:iso/rolling.iso'),
            ('POST', '/nodes/node1/storage/local/download-url')], sim.writes()
        assert volumes(sim)['local:iso/rolling.iso']['size'] == len(b'release two, larger\n' * 100)


def test_a_local_storage_holds_one_volume_per_node_and_needs_the_node(sim, playbook):
    on = {'storage': 'local', 'content': 'iso', 'src': ISO_SRC}
    run = playbook([task('storage_content', dict(on, node='node1'), name='node1'),
                    task('storage_content', dict(on, node='node2'), name='node2'),
                    task('storage_content', on, name='no node')])
    lines = dict((line['task'], line) for line in run.results)
    assert lines['node1']['result']['changed'] is True and lines['node2']['result']['changed'] is True
    assert lines['no node']['status'] == 'failed' and 'node' in lines['no node']['result']['msg']
    assert ISO_VOLID in volumes(sim, 'node1') and ISO_VOLID in volumes(sim, 'node2')
    assert ISO_VOLID not in volumes(sim, 'node3')


def test_a_volume_a_guest_uses_is_not_removed_and_info_says_who_uses_it(sim, playbook):
    used = 'local:iso/debian-12.7.0-amd64-netinst.iso'
    add_guest(sim.state, 'qemu', 120, 'node1', config={'name': 'installer', 'ide2': '%s,media=cdrom' % used})
    absent = {'node': 'node1', 'storage': 'local', 'content': 'iso', 'filename': 'debian-12.7.0-amd64-netinst.iso',
              'state': 'absent', 'confirm_removal': True}
    run = playbook([task('storage_content', absent, name='check', check_mode=True),
                    task('storage_content', absent, name='remove'),
                    task('storage_content_info', {'node': 'node1', 'storage': 'local', 'content': 'iso'},
                         name='info')])
    lines = dict((line['task'], line) for line in run.results)
    for name in ('check', 'remove'):
        assert lines[name]['status'] == 'failed' and '120' in lines[name]['result']['msg'], lines[name]
    assert used in volumes(sim) and sim.writes() == []
    info = dict((volume['volid'], volume) for volume in lines['info']['result']['volumes'])
    assert info[used]['used_by'] == [{'vmid': 120, 'type': 'qemu', 'node': 'node1', 'key': 'ide2'}], info[used]
    assert info[used]['size'] > 0 and info[used]['format'] == 'iso'
    assert lines['info']['result']['changed'] is False


def test_an_upload_whose_member_goes_silent_is_never_sent_twice(sim, playbook):
    """The member takes the upload and answers later than api_timeout: MaybeApplied, not resent to another member;
    the next run finds the volume and writes nothing."""
    sim.before('POST', r'/upload$', lambda params: time.sleep(4), times=1)
    run = playbook([task('storage_content', ISO)], defaults=dict(sim.module_options(), api_timeout=2))
    line = run.results[0]
    assert line['status'] == 'failed' and 'may have been applied' in line['result']['msg'], line
    time.sleep(4)  # the silent upload lands
    assert len([entry for entry in sim.log if entry['path'].endswith('/upload')]) == 1, sim.log
    sim.clear_log()
    run = playbook([task('storage_content', ISO)])
    assert run.results[0]['result']['changed'] is False and sim.writes() == [], run


def test_declare_fetches_each_missing_volume_once_and_then_adopts_them(sim, playbook):
    """One declare task: an appliance on node1, the ISO on node1 and node2 (a local storage: one object per node) and
    a seeded ISO adopted as it is; check mode plans the three fetches and writes nothing, the real run makes them in
    one pass, the re-run is zero writes."""
    objects = {'storage_content': [
        {'node': 'node1', 'storage': 'local', 'content': 'vztmpl', 'template': DEBIAN13},
        dict(ISO, node='node1'), dict(ISO, node='node2'),
        {'node': 'node3', 'storage': 'local', 'content': 'iso', 'filename': 'debian-12.7.0-amd64-netinst.iso'},
    ]}
    declare = {'name': 'declare', 'homeflare.proxmox.declare': {'objects': objects}}
    sim.clear_log()
    run = playbook([dict(declare, check_mode=True, diff=True), declare, dict(declare, name='again')])
    lines = dict((line['task'], line['result']) for line in run.results)
    assert run.rc == 0, run
    results = run.results[0]['result']['results']
    assert [entry['plan']['action'] for entry in results] == ['create', 'create', 'create', 'none'], results
    assert lines['declare']['changed'] is True
    fetched = sorted((entry['method'], entry['path']) for entry in sim.writes())
    assert fetched == [('POST', '/nodes/node1/aplinfo'), ('POST', '/nodes/node1/storage/local/upload'),
                       ('POST', '/nodes/node2/storage/local/upload')], fetched
    assert lines['again']['changed'] is False
    assert ISO_VOLID in volumes(sim, 'node2') and 'local:vztmpl/%s' % DEBIAN13 in volumes(sim, 'node1')


def test_a_content_type_the_storage_does_not_hold_is_refused_before_any_write(sim, playbook):
    """local holds iso, vztmpl and backup: an import volume there is refused in PVE's words with nothing written; in
    check mode it is a warning (a task before it in the same play may add the content type)."""
    args = {'node': 'node1', 'storage': 'local', 'content': 'import', 'src': ISO_SRC.replace('.iso', '.raw')}
    with open(args['src'], 'wb') as handle:
        handle.write(b'\0' * 4096)
    run = playbook([task('storage_content', args, name='check', check_mode=True),
                    task('storage_content', args, name='real')])
    lines = dict((line['task'], line) for line in run.results)
    assert lines['check']['status'] == 'ok' and lines['check']['result']['changed'] is True, lines['check']
    assert any("not configured for content-type 'import'" in warning
               for warning in lines['check']['result']['warnings']), lines['check']
    assert lines['real']['status'] == 'failed', lines['real']
    assert "storage 'local' is not configured for content-type 'import'" in lines['real']['result']['msg']
    assert sim.writes() == []
