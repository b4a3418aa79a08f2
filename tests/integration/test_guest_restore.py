"""``restore_from`` on ``vm`` and ``lxc`` (issue 25): a guest absent under its vmid is created from a backup volume
(qemu-server create_vm with ``archive``, pve-container create_vm with ``restore=1``) instead of a template, through
real ansible-playbook runs. Check mode plans the create and writes nothing; the run restores once and then writes
what the declaration sets beyond the archive's config; a re-run writes nothing; a guest that exists is never restored
over (adopt-first), and a backup that is not a backup volume, or beside a template or a clone, is refused before
any request. ``BAD_INPUT`` (module, args, the option the message names) runs in test_bad_input's corpus.
"""

import pytest

from conftest import EXECUTION_PATHS, connection

from simulator.pve.handlers.guests import add_guest
from simulator.pve.handlers.vzdump import add_backup

BAD_INPUT = [
    ('vm', {'node': 'node1', 'vmid': 170, 'restore_from': 'local:iso/debian.iso'}, 'restore_from'),
    ('vm', {'node': 'node1', 'vmid': 170, 'clone': 9000,
            'restore_from': 'local:backup/vzdump-qemu-100-2026_01_01-00_00_00.vma.zst'}, 'restore_from'),
    ('lxc', {'node': 'node1', 'vmid': 171, 'ostemplate': 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst',
             'restore_from': 'local:backup/vzdump-lxc-200-2026_01_01-00_00_00.tar.zst'}, 'restore_from'),
]


def seed(sim):
    add_guest(sim.state, 'qemu', 100, 'node1', {'name': 'web', 'memory': '2048', 'scsi0': 'local-lvm:8',
                                                'net0': 'virtio=BC:24:11:00:00:01,bridge=vmbr0'})
    add_guest(sim.state, 'lxc', 200, 'node1', {'hostname': 'db', 'rootfs': 'local-lvm:4', 'unprivileged': '1',
                                               'memory': '512'})
    return add_backup(sim.state, 'node1', 'local', 100), add_backup(sim.state, 'node1', 'local', 200)


def writes(sim):
    return [(entry['method'], entry['path'], entry['form']) for entry in sim.writes()]


def run_task(sim, playbook, path, module, args, check=False):
    sim.clear_log()
    run = playbook([{'name': module, 'homeflare.proxmox.%s' % module: dict(args, **connection(sim))}], check=check,
                   env=EXECUTION_PATHS[path])
    assert run.rc == 0, [line['result'].get('msg') for line in run.failed]
    return run.result()


def config(sim, vmid):
    with sim.state.lock:
        return dict(sim.state.guests[vmid]['config'])


# module_utils' code on both paths: the module path is sampled by this module's other matrix test
@pytest.mark.parametrize('path', ['controller'])
def test_a_vm_is_restored_once_then_adopted(sim, playbook, path):
    vm_archive, _ct_archive = seed(sim)
    declared = {'node': 'node1', 'vmid': 170, 'name': 'web-copy', 'cores': 2, 'restore_from': vm_archive}
    result = run_task(sim, playbook, path, 'vm', declared, check=True)
    assert result['plan']['action'] == 'create' and writes(sim) == []

    result = run_task(sim, playbook, path, 'vm', declared)
    assert writes(sim)[0] == ('POST', '/nodes/node1/qemu', {'vmid': '170', 'name': 'web-copy', 'archive': vm_archive})
    # the archive's config, then the declared cores beyond it (one config write)
    assert [(method, path) for method, path, _form in writes(sim)[1:]] == [('PUT', '/nodes/node1/qemu/170/config')]
    restored = config(sim, 170)
    assert restored['name'] == 'web-copy' and restored['cores'] == '2' and restored['memory'] == '2048'
    assert restored['scsi0'].startswith('local-lvm:vm-170-disk-0')

    result = run_task(sim, playbook, path, 'vm', declared)
    assert not result['changed'] and writes(sim) == []


def test_a_container_is_restored_to_the_declared_storage_and_an_existing_guest_is_never_restored_over(sim, playbook):
    _vm_archive, ct_archive = seed(sim)
    declared = {'node': 'node1', 'vmid': 171, 'hostname': 'db', 'storage': 'local-lvm', 'restore_from': ct_archive}
    run_task(sim, playbook, 'controller', 'lxc', declared)
    assert writes(sim) == [('POST', '/nodes/node1/lxc', {'vmid': '171', 'storage': 'local-lvm', 'hostname': 'db',
                                                         'ostemplate': ct_archive, 'restore': '1'})]
    assert config(sim, 171)['rootfs'].startswith('local-lvm:vm-171-disk-0')
    result = run_task(sim, playbook, 'controller', 'lxc', declared)
    assert not result['changed'] and writes(sim) == []

    # the guest the backup came from exists: adopted as it is, nothing restored
    result = run_task(sim, playbook, 'controller', 'lxc', dict(declared, vmid=200))
    assert not result['changed'] and writes(sim) == []
