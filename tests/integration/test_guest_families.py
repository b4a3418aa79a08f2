"""Guests (lxc, vm) through real ansible-playbook runs, on both execution paths.

One play per step holds both families. The lifecycle is the integration matrix's (check-mode create writes
nothing, create, a re-run of one GET per guest and no write, drift named field by field and repaired in one
write, absent twice with confirmation); the other tests prove each refusal, power state, pending change and
clone, batched into as few runs as the behaviour allows.

``MATRIX``, ``SETUP`` and ``BAD_INPUT`` have the shapes of test_matrix.FAMILIES / SETUP and
test_bad_input.CORPUS; ``seed_guests`` puts the template every clone and the fault matrix need in place.
"""

import pytest

from conftest import EXECUTION_PATHS
from test_ha_families import task
from test_matrix import api

from simulator.pve.handlers.guests import add_guest

DEBIAN = 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst'
UBUNTU = 'local:vztmpl/ubuntu-24.04-standard_24.04-2_amd64.tar.zst'
TEMPLATE = 9000  # a VM template on node2, linked-cloned across nodes
OTHER_TEMPLATE = 9001

SETUP = []


def seed_guests(sim):
    for vmid, name in ((TEMPLATE, 'tmpl-debian'), (OTHER_TEMPLATE, 'tmpl-alma')):
        add_guest(sim.state, 'qemu', vmid, 'node2', template=True, config={
            'name': name, 'memory': '1024', 'scsihw': 'virtio-scsi-single', 'scsi0': 'local-lvm:8,iothread=1',
            'net0': 'virtio,bridge=vmbr0'})


LXC = {'node': 'node1', 'vmid': 201, 'hostname': 'web1', 'ostemplate': DEBIAN, 'unprivileged': True, 'cores': 1,
       'memory': 512, 'rootfs': 'local-lvm:4', 'net0': 'name=eth0,bridge=vmbr0,ip=dhcp', 'tags': ['web'],
       'password': 'ct-root-secret-1'}
VM = {'node': 'node1', 'vmid': 202, 'name': 'db1', 'cores': 2, 'memory': '1024', 'scsihw': 'virtio-scsi-single',
      'scsi0': 'local-lvm:8,iothread=1', 'net0': 'virtio,bridge=vmbr0', 'onboot': True, 'tags': ['db']}

MATRIX = {
    'lxc': dict(
        prefix='/nodes/node1/lxc',
        args=LXC,
        # Two cores and an extra tag set by hand; the description is undeclared, so unmanaged: not named, not repaired.
        drift=[('PUT', '/nodes/node1/lxc/201/config', {'cores': '2', 'tags': 'extra;web', 'description': 'hand'})],
        drifted={'cores': 'cores', 'tags': 'tags'},
        absent={'node': 'node1', 'vmid': 201, 'state': 'absent', 'confirm_removal': True},
    ),
    'vm': dict(
        prefix='/nodes/node1/qemu',
        args=VM,
        drift=[('PUT', '/nodes/node1/qemu/202/config', {'cores': '4', 'onboot': '0'})],
        drifted={'cores': 'cores', 'onboot': 'onboot'},
        absent={'node': 'node1', 'vmid': 202, 'state': 'absent', 'confirm_removal': True},
    ),
}
MODULES = ['lxc', 'vm']
SECRETS = ['ct-root-secret-1', 'vm-cloudinit-secret-2']


def lxc(**changes):
    return dict(LXC, **changes)


def vm(**changes):
    return dict(VM, **changes)


BAD_INPUT = [
    ('vm', vm(vmid=99), 'vmid'),
    ('lxc', lxc(vmid=42), 'vmid'),
    ('lxc', lxc(net0='name=eth0,bridge=vmbr0,colour=red'), 'net0'),
    ('lxc', lxc(net0='bridge=vmbr0,ip=dhcp'), 'net0'),
    ('vm', vm(net0='virtio,bridge=vmbr0,tag=5000'), 'net0'),
    ('vm', vm(nvme0='local-lvm:8'), 'nvme0'),
    ('vm', vm(scsi31='local-lvm:8'), 'scsi31'),
    ('vm', vm(scsi0='local-lvm:vm-202-disk-0,size=32'), 'scsi0'),
    ('vm', vm(scsi0='local-lvm:8,cache=fastest'), 'scsi0'),
    ('lxc', lxc(mp0='/srv/data,mp=/data'), 'mp0'),
    ('lxc', lxc(mp0='local-lvm:4'), 'mp0'),
    ('lxc', lxc(hostname='web_1'), 'hostname'),
    ('lxc', lxc(tags=['bad tag']), 'tags'),
    ('vm', vm(memory='8'), 'memory'),
    ('vm', vm(state='absent'), 'confirm_removal'),
    ('lxc', lxc(state='absent'), 'confirm_removal'),
    ('vm', vm(state='paused'), 'state'),
]


def of(module, entries):
    prefix = MATRIX[module]['prefix']
    return [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]


def guest_writes(sim, vmid):
    return [entry for entry in sim.writes() if '/%d' % vmid in entry['path'] or
            str(entry['form'].get('vmid', entry['form'].get('newid', ''))) == str(vmid)]


def step(sim, playbook, path, key, check=False, diff=False, verbosity=0):
    sim.clear_log()
    run = playbook([task(sim, module, MATRIX[module][key]) for module in MODULES], check=check, diff=diff,
                   env=EXECUTION_PATHS[path], verbosity=verbosity)
    assert run.rc == 0, [line['result'].get('msg') for line in run.failed]
    return run, dict((line['task'], line['result']) for line in run.results)


def play(sim, playbook, path, tasks, **kwargs):
    """Named tasks (name, module, args[, task keywords]), each allowed to fail; results by name."""
    sim.clear_log()
    run = playbook([task(sim, entry[1], entry[2], name=entry[0], ignore_errors=True, **(entry[3:] or [{}])[0])
                    for entry in tasks], env=EXECUTION_PATHS[path], **kwargs)
    return run, dict((line['task'], line) for line in run.results)


def config(sim, vmid):
    with sim.state.lock:
        return dict(sim.state.guests[vmid]['config'])


# On the oldest and newest ansible-core too: the controller path is the one that touches Ansible's internals.
@pytest.mark.parametrize('path', [pytest.param(path, marks=pytest.mark.compat) if path == 'controller' else path
                                  for path in sorted(EXECUTION_PATHS)])
def test_the_guest_families_lifecycle(sim, playbook, path):
    seed_guests(sim)

    # 1. check mode writes nothing and says create
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        assert outcome[module]['changed'] is True and outcome[module]['plan']['action'] == 'create', module
        assert outcome[module]['diff']['before'] == {}, module
    assert sim.writes() == []

    # 2. create: one POST each, its task waited for; the password went with the create only
    run, outcome = step(sim, playbook, path, 'args', verbosity=3)
    for module in MODULES:
        written = of(module, sim.writes())
        assert [(entry['method'], entry['path']) for entry in written] == [('POST', MATRIX[module]['prefix'])], written
        assert outcome[module]['tasks'] and outcome[module]['tasks'][0].startswith('UPID:node1:'), module
    assert of('lxc', sim.writes())[0]['form']['password'] == 'ct-root-secret-1'
    assert 'ct-root-secret-1' not in run.output
    assert outcome['lxc']['object']['rootfs'].startswith('local-lvm:vm-201-disk-0,size=4G')
    assert outcome['vm']['object']['net0'].startswith('bridge=vmbr0,macaddr=BC:24:11:')
    assert sim.state.guests[201]['status'] == 'stopped'  # state=present never starts a guest

    # 3. re-run: adopted, zero writes, ONE read per guest (its pending view)
    run, outcome = step(sim, playbook, path, 'args')
    assert sim.writes() == []
    for module in MODULES:
        assert outcome[module]['changed'] is False and outcome[module]['plan']['action'] == 'none', module
        reads = [entry['path'] for entry in of(module, sim.log) if entry['method'] == 'GET']
        assert reads == ['%s/%d/pending' % (MATRIX[module]['prefix'], MATRIX[module]['args']['vmid'])], reads

    # 4. drift behind the modules' back; 5. --check --diff names exactly the drifted fields, writes nothing
    for module in MODULES:
        api(sim, MATRIX[module]['drift'])
    run, outcome = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        drifted = sorted(MATRIX[module]['drifted'])
        result = outcome[module]
        assert result['plan']['action'] == 'update' and sorted(result['plan']['changed']) == drifted, module
        before, after = result['diff']['before'], result['diff']['after']
        assert sorted(key for key in after if before.get(key) != after[key]) == drifted, module
    assert sim.writes() == []

    # 6. a real run repairs each guest with one PUT of the drifted keys and the digest; the MAC stays
    mac = config(sim, 202)['net0']
    run, outcome = step(sim, playbook, path, 'args')
    for module in MODULES:
        written = of(module, sim.writes())
        assert len(written) == 1 and written[0]['method'] == 'PUT', (module, written)
        form = written[0]['form']
        assert set(MATRIX[module]['drifted'].values()) <= set(form) | set(form.get('delete', '').split(','))
        assert len(form['digest']) == 40, form
    assert config(sim, 201)['description'] == 'hand\n'  # unmanaged: left alone (as pve-container reads it back)
    assert config(sim, 202)['net0'] == mac

    # 7. absent with confirmation destroys (a task each); 8. again a no-op
    run, outcome = step(sim, playbook, path, 'absent')
    for module in MODULES:
        written = of(module, sim.writes())
        assert [entry['method'] for entry in written] == ['DELETE'], (module, written)
        assert 'purge' not in written[0]['form'], written  # never purged from jobs and HA unless asked
    assert 201 not in sim.state.guests and 202 not in sim.state.guests
    run, outcome = step(sim, playbook, path, 'absent')
    assert sim.writes() == []
    for module in MODULES:
        assert outcome[module]['changed'] is False and outcome[module]['object'] == {}, module


# One line, several lines (an empty one among them), a YAML block (ending in a newline), percent signs, colons and
# non-ASCII (PVE's encode_text): pve-container reads each back with a newline after every line, qemu-server without
# its trailing white space.
DESCRIPTIONS = ['hello', 'first line\n\nthird: 100% done, café', 'a YAML block\nwith two lines\n']


# The comparison is module_utils' (the same on both paths): the controller path alone samples it.
@pytest.mark.parametrize('path', ['controller'])
def test_descriptions_read_back_as_pve_parses_them_are_adopted(sim, playbook, path):
    guests = [('ct %d' % index, 'lxc', dict(node='node1', vmid=210 + index, hostname='ct%d' % index,
                                            ostemplate=DEBIAN, rootfs='local-lvm:4', description=text))
              for index, text in enumerate(DESCRIPTIONS)]
    guests += [('vm %d' % index, 'vm', dict(node='node1', vmid=220 + index, name='vm%d' % index, description=text))
               for index, text in enumerate(DESCRIPTIONS)]
    run, results = play(sim, playbook, path, guests)
    for name, _module, _args in guests:
        assert results[name]['status'] == 'ok' and results[name]['result']['changed'] is True, results[name]
    for index, text in enumerate(DESCRIPTIONS):
        assert config(sim, 210 + index)['description'] == text.rstrip('\n') + '\n'
        assert config(sim, 220 + index)['description'] == text.rstrip('\n')
    assert results['ct 0']['result']['object']['description'] == 'hello\n'  # what PVE shows, in the diff too
    assert [entry['form']['description'] for entry in sim.writes() if 'description' in entry['form']] == \
        [text.rstrip('\n') for text in DESCRIPTIONS] * 2  # the shortest form that reads back the same

    run, again = play(sim, playbook, path, guests)
    assert sim.writes() == []
    for name, _module, _args in guests:
        assert again[name]['status'] == 'ok' and again[name]['result']['changed'] is False, again[name]


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_what_pve_cannot_do_in_place_is_refused_before_any_write(sim, playbook, path):
    seed_guests(sim)
    add_guest(sim.state, 'lxc', 201, 'node1', config={
        'hostname': 'web1', 'ostype': 'debian', 'arch': 'amd64', 'unprivileged': '1', 'rootfs': 'local-lvm:4',
        'net0': 'name=eth0,bridge=vmbr0,ip=dhcp', 'tags': 'web'})
    add_guest(sim.state, 'qemu', 203, 'node2', config={
        'name': 'app1', 'scsi0': 'local-lvm:base-%d-disk-0/vm-203-disk-0,size=8G' % TEMPLATE})
    web1 = dict(node='node1', vmid=201, hostname='web1')
    refusals = [
        ('smaller disk', 'lxc', dict(web1, rootfs='local-lvm:2'), 'disks only grow'),
        ('storage move', 'lxc', dict(web1, rootfs='local:4'), 'a storage move is not an update'),
        ('template change', 'lxc', dict(web1, ostemplate=UBUNTU), 'never rebuilt from another template'),
        ('unprivileged flip', 'lxc', dict(web1, unprivileged=False), 'cannot be changed in place'),
        ('the other guest type', 'vm', dict(node='node1', vmid=201, name='web1'), 'VMs and containers share vmids'),
        ('another guest under the vmid', 'lxc', dict(web1, hostname='db1'), "vmid 201 holds another guest, 'web1'"),
        ('a new vmid for a guest that exists', 'lxc', dict(web1, vmid=205), "already exists as vmid 201"),
        ('another clone template', 'vm', dict(node='node2', vmid=203, name='app1', clone=OTHER_TEMPLATE),
         'linked clone of template %d' % TEMPLATE),
    ]
    for check in (True, False):
        run, results = play(sim, playbook, path, [(name, module, args) for name, module, args, _why in refusals],
                            check=check)
        for name, _module, _args, why in refusals:
            line = results[name]
            assert line['status'] == 'failed' and line['result']['error'] == 'Refused', (name, line)
            assert why in line['result']['msg'], (name, line['result']['msg'])
            assert 'plan' not in line['result'], name
        assert sim.writes() == [], check
    assert config(sim, 201)['rootfs'].endswith('size=4G')


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_tag_pve_stores_lower_cased_fails_naming_tags_and_a_disk_grows_through_resize(sim, playbook, path):
    add_guest(sim.state, 'lxc', 201, 'node1', config={
        'hostname': 'web1', 'ostype': 'debian', 'rootfs': 'local-lvm:4', 'tags': 'web'})
    web1 = dict(node='node1', vmid=201, hostname='web1')
    run, results = play(sim, playbook, path, [
        ('upper-case tag', 'lxc', dict(web1, tags=['Web', 'prod'])),
        ('grown disk', 'lxc', dict(web1, rootfs='local-lvm:6')),
    ])
    line = results['upper-case tag']
    assert line['status'] == 'failed' and line['result']['error'] == 'NotConverged', line
    assert 'tags' in line['result']['msg'] and 'declare what it stores' in line['result']['msg']
    assert config(sim, 201)['tags'] == 'prod;web'  # PVE lower-cased and sorted what was sent
    grown = results['grown disk']['result']
    assert results['grown disk']['status'] == 'ok' and grown['plan']['resize'] == ['rootfs to 6G'], grown
    resize = [entry for entry in sim.writes() if entry['path'].endswith('/resize')]
    assert [(entry['form']['disk'], entry['form']['size']) for entry in resize] == [('rootfs', '6G')]
    assert not [entry for entry in sim.writes() if entry['path'].endswith('/201/config')
                and 'rootfs' in entry['form']], 'a growing disk is resized, never rewritten'
    assert config(sim, 201)['rootfs'].endswith('size=6G')


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_power_states_act_once_and_a_removal_refuses_a_running_or_protected_guest(sim, playbook, path):
    add_guest(sim.state, 'lxc', 201, 'node1', config={'hostname': 'web1', 'ostype': 'debian', 'rootfs': 'local-lvm:4'})
    add_guest(sim.state, 'qemu', 202, 'node1', config={'name': 'db1', 'protection': '1', 'scsi0': 'local-lvm:8'})
    web1 = dict(node='node1', vmid=201, hostname='web1')
    db1 = dict(node='node1', vmid=202, name='db1')
    run, results = play(sim, playbook, path, [
        ('start', 'lxc', dict(web1, state='started')),
        ('start again', 'lxc', dict(web1, state='started')),
        ('remove running', 'lxc', dict(web1, state='absent', confirm_removal=True)),
        ('remove protected', 'vm', dict(db1, state='absent', confirm_removal=True)),
    ])
    assert results['start']['result']['changed'] is True and results['start']['result']['plan']['power'] == 'start'
    assert results['start']['result']['object']['status'] == 'running'
    assert results['start again']['result']['changed'] is False
    assert 'unable to destroy CT 201 - container is running' in results['remove running']['result']['msg']
    assert "can't remove VM 202 - protection mode enabled" in results['remove protected']['result']['msg']
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [('POST', '/nodes/node1/lxc/201/status/start')]

    # a guest that ignores the clean shutdown: refused to stop hard unless asked
    sim.state.shutdown_ignored.add(201)
    run, results = play(sim, playbook, path, [
        ('stop', 'lxc', dict(web1, state='stopped', shutdown_timeout=1)),
        ('stop hard', 'lxc', dict(web1, state='stopped', shutdown_timeout=1, force_stop=True)),
        ('restart', 'lxc', dict(web1, state='restarted')),
    ])
    assert results['stop']['status'] == 'failed' and 'force_stop: true' in results['stop']['result']['msg']
    assert results['stop hard']['status'] == 'ok' and results['stop hard']['result']['object']['status'] == 'stopped'
    shutdowns = [entry['form'] for entry in sim.writes() if entry['path'].endswith('/status/shutdown')]
    assert shutdowns == [{'timeout': '1'}, {'timeout': '1', 'forceStop': '1'}]
    assert results['restart']['result']['plan']['power'] == 'start'  # a stopped guest is started
    assert sim.state.guests[201]['status'] == 'running'


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_change_parked_on_a_running_guest_is_pending_until_one_reboot(sim, playbook, path):
    add_guest(sim.state, 'qemu', 202, 'node1', status='running', config={
        'name': 'db1', 'cores': '2', 'scsi0': 'local-lvm:8'})
    db1 = dict(node='node1', vmid=202, name='db1', cores=4)
    run, results = play(sim, playbook, path, [
        ('write', 'vm', db1), ('again', 'vm', db1),
        ('check reboot', 'vm', dict(db1, reboot_if_pending=True), {'check_mode': True, 'diff': True}),
    ])
    written = results['write']['result']
    assert written['changed'] is True and written['object']['pending'] == ['cores'], written
    assert 'pending until its next restart: cores' in run.output
    again = results['again']['result']
    assert again['changed'] is False and again['plan']['pending'] == ['cores'], again
    assert again['object']['cores'] == 4  # judged as the config will be once the pending change applies
    assert [(entry['method'], entry['path']) for entry in sim.writes()] == [('PUT', '/nodes/node1/qemu/202/config')]
    check = results['check reboot']['result']
    assert check['plan']['power'] == 'reboot' and check['diff']['after']['pending'] == [], check
    assert check['diff']['before']['pending'] == ['cores']
    assert sim.state.guests[202]['pending'].get('cores') == '4'

    run, results = play(sim, playbook, path, [('reboot', 'vm', dict(db1, reboot_if_pending=True)),
                                              ('after', 'vm', dict(db1, reboot_if_pending=True))])
    assert results['reboot']['result']['object']['pending'] == [] and results['reboot']['result']['changed']
    assert [entry['path'] for entry in sim.writes()] == ['/nodes/node1/qemu/202/status/reboot']
    assert config(sim, 202)['cores'] == '4'
    assert results['after']['result']['changed'] is False


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_a_vm_cloned_from_a_template_gets_its_declared_config_and_grows_its_disk(sim, playbook, path):
    seed_guests(sim)
    # PVE clones onto another node only from shared storage; the template's disk is on node2's local-lvm
    app = dict(node='node2', vmid=204, name='app2', clone=TEMPLATE, cores=2, scsi0='local-lvm:16,iothread=1',
               net0='virtio,bridge=vmbr1', cipassword='vm-cloudinit-secret-2', ciuser='ops')
    run, results = play(sim, playbook, path, [('clone', 'vm', app), ('again', 'vm', app)], verbosity=3)
    assert results['clone']['status'] == 'ok', results['clone']
    writes = [(entry['method'], entry['path']) for entry in guest_writes(sim, 204)]
    assert writes[0] == ('POST', '/nodes/node2/qemu/%d/clone' % TEMPLATE), writes
    clone = sim.writes()[0]['form']
    assert clone == {'newid': '204', 'name': 'app2'}, clone
    assert writes[1:] == [('PUT', '/nodes/node2/qemu/204/config'), ('PUT', '/nodes/node2/qemu/204/resize')], writes
    assert results['again']['result']['changed'] is False
    assert config(sim, 204)['scsi0'].startswith('local-lvm:base-%d-disk-0/vm-204-disk-0' % TEMPLATE)
    assert 'vm-cloudinit-secret-2' not in run.output


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_the_info_modules_list_guests_from_one_resource_read(sim, playbook, path):
    seed_guests(sim)
    add_guest(sim.state, 'lxc', 201, 'node1', status='running', config={'hostname': 'web1', 'tags': 'prod;web'})
    run, results = play(sim, playbook, path, [('vms', 'vm_info', {}), ('one ct', 'lxc_info', {'vmid': [201]}),
                                              ('node3', 'lxc_info', {'node': 'node3'})], check=True)
    vms = results['vms']['result']['guests']
    assert [(guest['vmid'], guest['node'], guest['template']) for guest in vms] == [
        (TEMPLATE, 'node2', True), (OTHER_TEMPLATE, 'node2', True)]
    assert 'config' not in vms[0]
    ct = results['one ct']['result']['guests']
    assert [(guest['vmid'], guest['status'], guest['tags']) for guest in ct] == [(201, 'running', ['prod', 'web'])]
    assert ct[0]['config']['hostname'] == 'web1' and len(ct[0]['config']['digest']) == 40
    assert results['node3']['result']['guests'] == []
    reads = [entry['path'] for entry in sim.log]
    assert reads.count('/cluster/resources') == 3 and reads.count('/nodes/node1/lxc/201/config') == 1, reads
