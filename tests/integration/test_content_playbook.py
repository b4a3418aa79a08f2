"""examples/content.yml against the simulator (issue 24's "done when"): a cloud image downloaded to an ``import``
volume from a file server on 127.0.0.1 the test starts, a Debian template by its appliance name, an ISO uploaded from
the controller; then a VM whose disk is imported from the image, with cloud-init, and a container from the template.

--check before the first run plans every download and upload and writes nothing → the run fetches each once and
creates both guests (the VM's disk has the image's virtual size) → the second run makes zero writes and downloads
nothing (the file server sees no GET).
"""

import hashlib
import os

import yaml

from conftest import REPO
from simulator.fileserver import FileServer
from simulator.pve.handlers.content_sources import APPLIANCES

# A qcow2 header (magic, version 3) whose virtual size is 2 GiB, padded to 4 KiB: what PVE's import reads the size of.
IMAGE = b'QFI\xfb' + b'\x00\x00\x00\x03' + b'\x00' * 16 + (2 * 1024 ** 3).to_bytes(8, 'big') + b'\x00' * 4064
IMAGE_NAME = 'debian-13-genericcloud-amd64.qcow2'
FETCHES = ['The cloud image, downloaded by the node and checked against its SHA-512',
           'The container template, by its name in PVE\'s appliance catalogue (pveam available)',
           'The installer ISO, uploaded from the controller']
GUESTS = ['A VM whose disk is imported from the cloud image (at create time only), with cloud-init',
          'A container from the template']


def example():
    with open(os.path.join(REPO, 'examples', 'content.yml')) as handle:
        return yaml.safe_load(handle)[0]


def content(sim, playbook, files, iso, check=False, diff=False):
    play = example()
    variables = dict(play['vars'], content_image_url=files.url('/cloud/%s' % IMAGE_NAME),
                     content_image_sha512=hashlib.sha512(IMAGE).hexdigest(), content_iso_src=str(iso))
    sim.clear_log()
    run = playbook(play['tasks'], check=check, diff=diff, play_extra={'vars': variables})
    assert run.rc == 0 and not run.failed, run
    return run, dict((line['task'], line['result']) for line in run.results)


def test_content_then_guests_from_it(sim, playbook, tmp_path):
    iso = tmp_path / 'installer.iso'
    iso.write_bytes(b'an installer image\n' * 4096)
    with FileServer() as files:
        files.add('/cloud/%s' % IMAGE_NAME, IMAGE)

        # 1. --check: every fetch planned, nothing written, nothing downloaded
        run, results = content(sim, playbook, files, iso, check=True, diff=True)
        for name in FETCHES:
            assert results[name]['changed'] is True and results[name]['plan']['action'] == 'create', results[name]
        assert sim.writes() == [] and not [request for request in files.requests if request[0] == 'GET']

        # 2. the run: each fetched once, both guests created from them
        run, results = content(sim, playbook, files, iso)
        for name in FETCHES + GUESTS:
            assert results[name]['changed'] is True, (name, results[name])
        posts = [entry['path'].rsplit('/', 1)[-1] for entry in sim.writes() if entry['method'] == 'POST']
        for endpoint in ('download-url', 'aplinfo', 'upload'):
            assert posts.count(endpoint) == 1, posts
        assert [request for request in files.requests if request[0] == 'GET'] == [('GET', '/cloud/%s' % IMAGE_NAME)]
        status, body = sim.request('GET', '/nodes/node1/storage/local/content')
        listed = dict((row['volid'], row) for row in body['data'])
        assert listed['local:import/%s' % IMAGE_NAME]['size'] == len(IMAGE)
        assert listed['local:iso/installer.iso']['size'] == 4096 * len(b'an installer image\n')
        template = 'local:vztmpl/%s' % example()['vars']['content_template']
        assert listed[template]['size'] == len(APPLIANCES[example()['vars']['content_template']])
        status, body = sim.request('GET', '/nodes/node1/qemu/300/config')
        assert 'size=2G' in body['data']['scsi0'] and 'import-from' not in body['data']['scsi0'], body
        assert 'cloudinit' in body['data']['ide2'] and body['data']['ciuser'] == 'debian'
        status, body = sim.request('GET', '/nodes/node1/lxc/301/config')
        assert body['data']['hostname'] == 'web1'

        # 3. again: zero writes, nothing downloaded
        before = len(files.requests)
        run, results = content(sim, playbook, files, iso)
        assert not [name for name, result in results.items() if result.get('changed')], results
        assert sim.writes() == []
        assert [request for request in files.requests[before:] if request[0] == 'GET'] == []
