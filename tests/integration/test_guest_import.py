"""A VM whose disk is imported from a disk image, with cloud-init, and a container from an OCI image (issue 24),
through real ansible-playbook runs on both execution paths.

The image is an ``import`` volume seeded on ``local`` (downloading it is test_content_*'s concern). One play per
step holds both guests: --check plans the create (and the resize to the declared size) and writes nothing; the run
creates the VM by one POST whose disk is imported (without its size) and one resize, and the container from the
OCI template; the next run re-reads both with zero writes and says the import source was not compared, also when
the task names another image (nothing is imported again).
"""

import pytest

from conftest import EXECUTION_PATHS
from test_ha_families import task

from simulator.pve.handlers.guests import ensure_volumes
from simulator.pve.handlers.lxc import make_oci_archive

GIB = 1024 ** 3
IMAGE = 'local:import/debian-13-genericcloud-amd64.qcow2'
OTHER_IMAGE = 'local:import/debian-14-genericcloud-amd64.qcow2'

VM = {'node': 'node1', 'vmid': 310, 'name': 'cloud1', 'cores': 2, 'memory': '2048', 'scsihw': 'virtio-scsi-single',
      'scsi0': 'local-lvm:0,import-from=%s,iothread=1,size=8G' % IMAGE, 'ide2': 'local-lvm:cloudinit',
      'boot': 'order=scsi0', 'ciuser': 'debian', 'ipconfig0': 'ip=dhcp', 'net0': 'virtio,bridge=vmbr0'}
# What oci-registry-pull makes of docker.io/library/nginx:latest (normalize_content_filename: the last path part).
OCI_TEMPLATE = 'local:vztmpl/nginx_latest.tar'
NGINX = {'Entrypoint': ['/docker-entrypoint.sh'], 'Cmd': ['nginx', '-g', 'daemon off;']}
# An application image (its entrypoint is not /sbin/init): PVE makes its NICs host-managed and its console mode console.
CT = {'node': 'node1', 'vmid': 311, 'hostname': 'web1', 'ostemplate': OCI_TEMPLATE, 'rootfs': 'local-lvm:2',
      'net0': 'name=eth0,bridge=vmbr0,ip=dhcp,host-managed=1', 'cmode': 'console'}
WARNING = ('VM 310 on node1 exists, so the import source of scsi0 (import-from=%s) was not compared and nothing was '
           'imported: import-from is used only when a disk is created')


def seed_images(sim):
    with sim.state.lock:
        local = ensure_volumes(sim.state)['local']
        for volid in (IMAGE, OTHER_IMAGE):
            local[volid.split(':', 1)[1]] = {'size': 3 * GIB, 'vmid': None, 'format': 'qcow2', 'content': 'import'}
        oci = make_oci_archive(NGINX, 'ID=debian\n')
        local[OCI_TEMPLATE.split(':', 1)[1]] = dict(size=len(oci), vmid=None, format=None, content='vztmpl', data=oci)


def play(sim, playbook, path, tasks, check=False):
    """(name, module, args) tasks in one play; results by name."""
    sim.clear_log()
    run = playbook([task(sim, module, args, name=name) for name, module, args in tasks], check=check,
                   env=EXECUTION_PATHS[path])
    assert run.rc == 0, [line['result'].get('msg') for line in run.failed]
    return run, dict((line['task'], line['result']) for line in run.results)


def config(sim, vmid):
    with sim.state.lock:
        return dict(sim.state.guests[vmid]['config'])


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_vm_imported_from_an_image_and_a_container_from_an_oci_image(sim, playbook, path):
    seed_images(sim)
    guests = [('vm', 'vm', VM), ('ct', 'lxc', CT)]

    # 1. check mode plans the create and the resize after the import, writes nothing
    run, results = play(sim, playbook, path, guests, check=True)
    assert results['vm']['plan']['action'] == 'create' and results['vm']['plan']['resize'] == ['scsi0 to 8G']
    assert results['ct']['plan']['action'] == 'create'
    assert sim.writes() == []

    # 2. the VM: one create importing the disk (its size left to the image), then one resize; the container: one
    # create from the OCI template
    run, results = play(sim, playbook, path, guests)
    writes = [(entry['method'], entry['path']) for entry in sim.writes()]
    assert writes == [('POST', '/nodes/node1/qemu'), ('PUT', '/nodes/node1/qemu/310/resize'),
                      ('POST', '/nodes/node1/lxc')], writes
    create = sim.writes()[0]['form']
    assert create['scsi0'] == 'local-lvm:0,import-from=%s,iothread=1' % IMAGE, create
    assert sim.writes()[1]['form'] == {'disk': 'scsi0', 'size': '8G'}
    assert results['vm']['object']['scsi0'] == 'local-lvm:vm-310-disk-0,iothread=1,size=8G'
    conf = config(sim, 310)
    assert conf['ide2'] == 'local-lvm:vm-310-cloudinit,media=cdrom' and conf['ciuser'] == 'debian'
    assert conf['ipconfig0'] == 'ip=dhcp' and 'import-from' not in conf['scsi0']
    assert not results['vm'].get('warnings')
    container = config(sim, 311)
    assert container['entrypoint'] == '/docker-entrypoint.sh nginx -g \'daemon off;\''
    assert 'host-managed=1' in container['net0'] and container['cmode'] == 'console'

    # 3. again, and with another image named: zero writes, nothing imported, the import source not compared (said)
    other = dict(VM, scsi0=VM['scsi0'].replace(IMAGE, OTHER_IMAGE))
    run, results = play(sim, playbook, path, guests + [('vm, another image', 'vm', other)])
    assert sim.writes() == []
    for name in ('vm', 'ct', 'vm, another image'):
        assert results[name]['changed'] is False, (name, results[name])
    assert WARNING % IMAGE in results['vm']['warnings']
    assert WARNING % OTHER_IMAGE in results['vm, another image']['warnings']
    assert 'import source of scsi0' in run.output
    assert config(sim, 310)['scsi0'] == 'local-lvm:vm-310-disk-0,iothread=1,size=8G'
