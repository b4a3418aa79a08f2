"""Hardware and behaviour options of ``vm`` (passthrough by mapping, serial sockets, vga, machine, hotplug, NUMA
nodes, affinity, hook scripts), what only root@pam may write, and ``template: true`` on both guest types, through
real ansible-playbook runs on both execution paths.

The matrix lifecycle: check-mode create writes nothing, create, a re-run of zero writes, drift made through the
API named field by field by ``--check --diff``, repaired in one write. An API token is refused, before any write and
in check mode too, a value PVE lets only root@pam write (a device by host id, affinity, a hook script), and so is
a change to such a value the guest already has; root@pam with a password writes them, and a token then adopts the
guest as it is. A mapping the VM names must exist (or be declared beside it in ``declare``). A guest converts to a
template once, never back, and a template is never started.
``BAD_INPUT`` (module, args, the option the message names) runs in test_bad_input's corpus, on both paths.
"""

import pytest

from conftest import EXECUTION_PATHS, connection, reconfirms
from test_matrix import api, assert_drift_named

from simulator.pve.handlers.guests import add_guest

VM = {'node': 'node1', 'vmid': 260, 'name': 'hw1', 'memory': '2048', 'cores': 2, 'numa': True,
      'scsi0': 'local-lvm:4', 'net0': 'virtio,bridge=vmbr0',
      'vga': 'qxl,memory=32', 'machine': 'q35,viommu=virtio', 'hotplug': 'network,disk',
      'numa0': 'cpus=0-1,memory=2048,policy=bind', 'serial0': 'socket', 'usb0': 'spice',
      'usb1': 'mapping=keyboard,usb3=1', 'hostpci0': 'mapping=gpu,pcie=1', 'cpulimit': 1.5, 'cpuunits': 200,
      'startup': 'order=2,up=30'}
GPU = {'id': 'gpu', 'map': ['node=node1,path=0000:01:00.0,id=10de:1eb8']}
KEYBOARD = {'id': 'keyboard', 'map': ['node=node1,id=046d:c31c']}

MATRIX = {
    'vm': dict(
        prefix='/nodes/node1/qemu',
        args=VM,
        drift=[('PUT', '/nodes/node1/qemu/260/config', {
            'vga': 'std', 'machine': 'pc', 'hotplug': '1', 'numa0': 'cpus=0-1,memory=1024', 'usb0': 'spice,usb3=1',
            'hostpci0': 'mapping=gpu'})],
        drifted=['vga', 'machine', 'hotplug', 'numa0', 'usb0', 'hostpci0'],
    ),
}

BAD_INPUT = [
    ('vm', dict(VM, hostpci0='pcie=1'), 'hostpci0'),
    ('vm', dict(VM, hostpci0='host=0000:01:00.0,mapping=gpu'), 'hostpci0'),
    ('vm', dict(VM, hostpci0='mapping=bad id'), 'hostpci0'),
    ('vm', dict(VM, usb0='host=keyboard'), 'usb0'),
    ('vm', dict(VM, serial0='ttyS0'), 'serial0'),
    ('vm', dict(VM, vga='type=fancy'), 'vga'),
    ('vm', dict(VM, machine='q36'), 'machine'),
    ('vm', dict(VM, affinity='3-1'), 'affinity'),
    ('vm', dict(VM, hotplug='disk,floppy'), 'hotplug'),
    ('vm', dict(VM, hookscript='local:iso/hook.sh'), 'hookscript'),
    ('vm', dict(VM, numa0='memory=1024'), 'numa0'),
    ('vm', dict(VM, template=True, state='started'), 'state'),
]


def task(sim, module, args, name=None, login=None, **extra):
    options = dict(connection(sim), **(login or {}))
    return dict({'name': name or module, 'homeflare.proxmox.%s' % module: dict(args, **options)}, **extra)


def as_root(sim):
    """root@pam with its password instead of the token: what PVE's ``$authuser eq 'root@pam'`` lets through."""
    return {'api_token_id': None, 'api_token_secret': None, 'api_user': 'root@pam', 'api_password': sim.root_password}


def seed_mappings(sim):
    api(sim, [('POST', '/cluster/mapping/pci', GPU), ('POST', '/cluster/mapping/usb', KEYBOARD)])


def config(sim, vmid):
    with sim.state.lock:
        return dict(sim.state.guests[vmid]['config'])


def run_one(sim, playbook, path, args, check=False, diff=False, login=None, ignore=False):
    sim.clear_log()
    extra = {'ignore_errors': True} if ignore else {}
    run = playbook([task(sim, 'vm', args, login=login, **extra)], check=check, diff=diff, env=EXECUTION_PATHS[path])
    assert ignore or run.rc == 0, [line['result'].get('msg') for line in run.failed]
    result = dict(run.results[0]['result'])
    result['failed'] = run.results[0]['status'] == 'failed'
    return result


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_hardware_options_lifecycle(sim, playbook, path):
    seed_mappings(sim)
    outcome = run_one(sim, playbook, path, VM, check=True, diff=True)
    assert outcome['plan']['action'] == 'create' and sim.writes() == []

    outcome = run_one(sim, playbook, path, VM)
    written = sim.writes()
    assert [(entry['method'], entry['path']) for entry in written] == [('POST', '/nodes/node1/qemu')], written
    form = written[0]['form']
    assert (form['vga'], form['machine'], form['hotplug'], form['hostpci0'], form['usb1']) == (
        'memory=32,type=qxl', 'type=q35,viommu=virtio', 'disk,network', 'mapping=gpu,pcie=1', 'mapping=keyboard,usb3=1')
    live = config(sim, 260)
    assert live['serial0'] == 'socket' and live['numa0'] == 'cpus=0-1,memory=2048,policy=bind'

    outcome = run_one(sim, playbook, path, VM)
    assert outcome['changed'] is False and sim.writes() == [], outcome['plan']

    api(sim, MATRIX['vm']['drift'])
    outcome = run_one(sim, playbook, path, VM, check=True, diff=True)
    assert_drift_named(outcome, MATRIX['vm']['drifted'])
    assert outcome['diff']['before']['hotplug'] == 'disk,network,usb'  # 1 is the default set
    assert sim.writes() == []

    outcome = run_one(sim, playbook, path, VM)
    written = sim.writes()
    assert len(written) == 1 and written[0]['method'] == 'PUT', written
    assert set(MATRIX['vm']['drifted']) <= set(written[0]['form']), written[0]['form']
    if reconfirms(path):
        run_one(sim, playbook, path, VM)
        assert sim.writes() == []


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_root_only_values_are_refused_for_a_token_and_written_by_root(sim, playbook, path):
    add_guest(sim.state, 'qemu', 261, 'node1', config={'name': 'hw2', 'cores': '4'})
    declared = {'node': 'node1', 'vmid': 261, 'name': 'hw2', 'affinity': '0,1,2,3',
                'hostpci0': '0000:01:00.0,pcie=1', 'serial1': '/dev/ttyS0', 'hookscript': 'local:snippets/hook.pl'}
    for check in (True, False):
        refused = run_one(sim, playbook, path, declared, check=check, ignore=True)
        assert refused.get('failed'), refused
        for option in ('affinity', 'hostpci0', 'serial1', 'hookscript'):
            assert option in refused['msg'], refused['msg']
        assert 'root@pam' in refused['msg'] and sim.writes() == []

    written = run_one(sim, playbook, path, declared, login=as_root(sim))
    assert written['changed'] is True
    live = config(sim, 261)
    assert (live['affinity'], live['hostpci0'], live['serial1']) == ('0-3', 'host=0000:01:00.0,pcie=1', '/dev/ttyS0')
    # the token adopts what root wrote (0-1,2-3 is the cpuset 0-3), and refuses to replace a host device
    adopted = run_one(sim, playbook, path, dict(declared, affinity='0-1,2-3'))
    assert adopted['changed'] is False and sim.writes() == [], adopted['plan']
    replaced = run_one(sim, playbook, path, dict(declared, hostpci0='mapping=gpu'), check=True, ignore=True)
    assert replaced.get('failed') and 'hostpci0' in replaced['msg'] and 'host=0000:01:00.0' in replaced['msg']


def test_the_simulator_refuses_a_token_what_only_root_may_set(sim):
    add_guest(sim.state, 'qemu', 262, 'node1', config={'name': 'hw3'})
    status, body = sim.request('PUT', '/nodes/node1/qemu/262/config', {'affinity': '0-1'})
    assert status == 500 and "only root can set 'affinity' config" in str(body), body
    status, body = sim.request('PUT', '/nodes/node1/qemu/262/config', {'hostpci0': '0000:01:00.0'})
    assert status == 500 and "only root can set 'hostpci0' config for non-mapped devices" in str(body), body
    status, body = sim.request('PUT', '/nodes/node1/qemu/262/config', {'serial0': 'socket', 'usb0': 'spice'})
    assert status == 200, body
    status, body = sim.request('PUT', '/nodes/node1/qemu/262/config', {'affinity': '0-1'}, as_root=True)
    assert status == 200, body


@pytest.mark.parametrize('path', ['controller'])
def test_a_mapping_that_does_not_exist_is_refused_before_the_write(sim, playbook, path):
    declared = dict(VM, vmid=263, name='hw4', hostpci0='mapping=nosuchgpu', usb1='spice')
    refused = run_one(sim, playbook, path, declared, ignore=True)
    assert refused.get('failed') and "'nosuchgpu' does not exist" in refused['msg'] and 'hostpci0' in refused['msg']
    assert sim.writes() == []


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_template_true_converts_once_never_back_and_is_never_started(sim, playbook, path):
    vm = {'node': 'node1', 'vmid': 264, 'name': 'tpl1', 'scsi0': 'local-lvm:4', 'template': True}
    add_guest(sim.state, 'lxc', 265, 'node1', config={'hostname': 'tpl2', 'ostype': 'debian',
                                                      'rootfs': 'local-lvm:4'})
    ct = {'node': 'node1', 'vmid': 265, 'hostname': 'tpl2', 'template': True}
    sim.clear_log()
    run = playbook([task(sim, 'vm', vm), task(sim, 'lxc', ct)], check=True, env=EXECUTION_PATHS[path])
    assert run.rc == 0 and sim.writes() == []
    assert [line['result']['plan']['changed'] for line in run.results][1] == ['template']

    sim.clear_log()
    run = playbook([task(sim, 'vm', vm), task(sim, 'lxc', ct)], env=EXECUTION_PATHS[path])
    assert run.rc == 0, [line['result'].get('msg') for line in run.failed]
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [
        ('POST', '/nodes/node1/qemu'), ('POST', '/nodes/node1/qemu/264/template'),
        ('POST', '/nodes/node1/lxc/265/template')], sim.writes()
    assert config(sim, 264)['template'] == '1' and config(sim, 265)['template'] == '1'
    assert 'base-264-disk-0' in config(sim, 264)['scsi0']

    sim.clear_log()
    run = playbook([task(sim, 'vm', vm), task(sim, 'lxc', ct)], env=EXECUTION_PATHS[path])
    assert run.rc == 0 and sim.writes() == [] and not any(line['result']['changed'] for line in run.results)

    for args in (dict(vm, template=False), dict(vm, template=None, state='started')):
        refused = run_one(sim, playbook, path, args, check=True, ignore=True)
        assert refused.get('failed') and 'is a template' in refused['msg'], refused
    assert sim.writes() == []


@pytest.mark.parametrize('path', ['controller'])
def test_a_running_guest_is_not_converted(sim, playbook, path):
    add_guest(sim.state, 'qemu', 266, 'node1', config={'name': 'tpl3'}, status='running')
    refused = run_one(sim, playbook, path, {'node': 'node1', 'vmid': 266, 'name': 'tpl3', 'template': True},
                      ignore=True)
    assert refused.get('failed') and 'is running' in refused['msg'] and sim.writes() == []
