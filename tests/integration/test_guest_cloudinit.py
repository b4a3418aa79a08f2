"""Cloud-init on ``vm`` (sshkeys, nameserver, searchdomain, cicustom, citype, ciupgrade; cipassword a secret) and the
DNS options of ``lxc`` (nameserver, searchdomain) through real ansible-playbook runs, on both execution paths.

The lifecycle is the integration matrix's: check-mode create writes nothing, create, a re-run of zero writes, drift
made through the API named field by field by ``--check --diff``, repaired in one write. Keys with comments, ``+``,
``/`` and ``=`` travel URL-encoded as PVE keeps them. The export of such guests declares back as a no-op.
``BAD_INPUT`` has the shape of test_bad_input.CORPUS: (module, args, the option the message names).
"""

import pytest

from conftest import EXECUTION_PATHS, reconfirms
from test_export import export_then_declare
from test_ha_families import task
from test_matrix import api, assert_drift_named

from simulator.pve.handlers.guests import add_guest, ensure_volumes

DEBIAN = 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst'
SECRET = 'vm-cloudinit-secret-25'
ED25519 = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBAuQfmxqzF8WLVHli6orB39yIaEQB6QjJjMYsJB8Z8w ops@laptop (202'
           '6)')
RSA = ('ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDWzzC4ZxP/jPtknSYY5AhUYf+k7RxWJtnoFaLK3Y9J18GTvTHpMBR5Yf0n'
       'BOv9XzB/0LWEAF3kEV5FbhTnPggJfgu7ml6AYxjEkzjuEnczSQshwVYpxIKx/4EvLF6pTjahX+RRUYy5Yqfx5e/dGEdzr9Pd'
       'G0YcCxR3RT7gYetKAw== deploy+ci=a/b')
ECDSA = ('ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBMRTDl1uTbkDiMixilWXFz2K'
         'G50dgnPDJ3ZY6+kB2Osxw/Ei6Bx5VIugNESY2OlmfJnB5iUB5DmzRj0ILz0ao+8= hand-added')


def uri_escape(text):
    """URI::Escape's uri_escape: every byte outside A-Za-z0-9 - . _ ~ as %XX."""
    unreserved = set(b'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~')
    return ''.join(chr(byte) if byte in unreserved else '%%%02X' % byte for byte in text.encode('utf-8'))


VM = {'node': 'node1', 'vmid': 250, 'name': 'ci1', 'memory': '1024', 'scsi0': 'local-lvm:4',
      'ide2': 'local-lvm:cloudinit', 'net0': 'virtio,bridge=vmbr0', 'ipconfig0': 'ip=10.0.0.40/24,gw=10.0.0.1',
      'ciuser': 'ops', 'cipassword': SECRET, 'sshkeys': [ED25519, RSA],
      'nameserver': ['10.0.0.53', '10.0.1.53'], 'searchdomain': ['lab.example.org'],
      'cicustom': 'vendor=local:snippets/vendor.yml', 'citype': 'nocloud', 'ciupgrade': False}
LXC = {'node': 'node1', 'vmid': 251, 'hostname': 'ct1', 'ostemplate': DEBIAN, 'rootfs': 'local-lvm:4',
       'nameserver': ['10.0.0.53', 'fe80::1%eth0'], 'searchdomain': ['lab.example.org', 'corp.example']}

MATRIX = {
    'vm': dict(
        prefix='/nodes/node1/qemu',
        args=VM,
        # every new option by hand, and the password too: a secret is never compared, so never named
        drift=[('PUT', '/nodes/node1/qemu/250/config', {
            'sshkeys': uri_escape('%s\n%s' % (ED25519, ECDSA)), 'nameserver': '10.0.1.53 10.0.0.53',
            'searchdomain': 'other.example', 'cicustom': 'user=local:snippets/vendor.yml', 'citype': 'configdrive2',
            'ciupgrade': '1', 'cipassword': 'changed-by-hand'})],
        drifted=['sshkeys', 'nameserver', 'searchdomain', 'cicustom', 'citype', 'ciupgrade'],
    ),
    'lxc': dict(
        prefix='/nodes/node1/lxc',
        args=LXC,
        drift=[('PUT', '/nodes/node1/lxc/251/config',
                {'nameserver': '10.0.0.53', 'searchdomain': 'corp.example lab.example.org'})],
        drifted=['nameserver', 'searchdomain'],
    ),
}
MODULES = ['vm', 'lxc']

BAD_INPUT = [
    ('vm', dict(VM, sshkeys=[ED25519, 'ssh-rsa AAAA-not-base64 me']), 'sshkeys[1]'),
    ('vm', dict(VM, sshkeys=['ssh-rsa ' + ED25519.split()[1]]), 'sshkeys[0]'),
    ('vm', dict(VM, sshkeys=['# a comment']), 'sshkeys[0]'),
    ('vm', dict(VM, cicustom='user=local:iso/user.yml'), 'cicustom'),
    ('vm', dict(VM, cicustom='colour=local:snippets/x.yml'), 'cicustom'),
    ('vm', dict(VM, citype='cloudbase'), 'citype'),
    ('vm', dict(VM, nameserver=['10.0.0.53', 'ns_1!']), 'nameserver'),
    ('lxc', dict(LXC, nameserver=['dns.example.org']), 'nameserver'),
    ('lxc', dict(LXC, searchdomain=['bad_domain.example']), 'searchdomain'),
]


def seed_snippet(sim):
    """local holds snippets, and the vendor file cicustom names (PVE reads it when it generates the drive)."""
    with sim.state.lock:
        sim.state.storage['local']['content'].add('snippets')
        ensure_volumes(sim.state)['local']['snippets/vendor.yml'] = {
            'size': 40, 'vmid': None, 'format': None, 'content': 'snippets'}


def of(module, entries):
    prefix = MATRIX[module]['prefix']
    return [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]


def step(sim, playbook, path, check=False, diff=False, verbosity=0):
    sim.clear_log()
    run = playbook([task(sim, module, MATRIX[module]['args']) for module in MODULES], check=check, diff=diff,
                   env=EXECUTION_PATHS[path], verbosity=verbosity)
    assert run.rc == 0, [line['result'].get('msg') for line in run.failed]
    assert SECRET not in run.output and 'changed-by-hand' not in run.output
    return run, dict((line['task'], line['result']) for line in run.results)


def config(sim, vmid):
    with sim.state.lock:
        return dict(sim.state.guests[vmid]['config'])


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_cloud_init_and_dns_options_lifecycle(sim, playbook, path):
    seed_snippet(sim)

    # 1. check mode writes nothing and says create
    run, outcome = step(sim, playbook, path, check=True, diff=True)
    for module in MODULES:
        assert outcome[module]['plan']['action'] == 'create', outcome[module]
    assert sim.writes() == []

    # 2. create: one POST each, the keys URL-encoded as PVE takes them, the lists joined by spaces
    run, outcome = step(sim, playbook, path, verbosity=3)
    for module in MODULES:
        written = of(module, sim.writes())
        assert [(entry['method'], entry['path']) for entry in written] == [('POST', MATRIX[module]['prefix'])], written
    form = of('vm', sim.writes())[0]['form']
    assert form['sshkeys'] == uri_escape('\n'.join(sorted([ED25519, RSA])))
    assert '%2B' in form['sshkeys'] and '%2F' in form['sshkeys'] and '%3D' in form['sshkeys']
    assert (form['nameserver'], form['searchdomain'], form['ciupgrade'], form['citype']) == (
        '10.0.0.53 10.0.1.53', 'lab.example.org', '0', 'nocloud')
    assert form['cipassword'] == SECRET
    assert config(sim, 250)['sshkeys'] == form['sshkeys']  # PVE keeps it encoded
    assert config(sim, 251)['nameserver'] == '10.0.0.53 fe80::1%eth0'
    assert sorted(outcome['vm']['object']['sshkeys']) == sorted([ED25519, RSA])  # shown decoded
    assert 'cipassword' not in outcome['vm']['object']

    # 3. re-run: adopted, zero writes
    run, outcome = step(sim, playbook, path)
    assert sim.writes() == []
    for module in MODULES:
        assert outcome[module]['changed'] is False and outcome[module]['plan']['action'] == 'none', outcome[module]

    # 4. drift through the API; 5. --check --diff names exactly the drifted fields (never the password)
    for module in MODULES:
        api(sim, MATRIX[module]['drift'])
    run, outcome = step(sim, playbook, path, check=True, diff=True)
    for module in MODULES:
        assert_drift_named(outcome[module], MATRIX[module]['drifted'])
    diff = outcome['vm']['diff']
    assert sorted(diff['before']['sshkeys']) == sorted([ED25519, ECDSA])
    assert diff['before']['nameserver'] == ['10.0.1.53', '10.0.0.53']  # order is drift
    assert 'cipassword' not in diff['before'] and 'cipassword' not in diff['after']
    assert sim.writes() == []

    # 6. a real run repairs each guest with one PUT of the drifted keys
    run, outcome = step(sim, playbook, path)
    for module in MODULES:
        written = of(module, sim.writes())
        assert len(written) == 1 and written[0]['method'] == 'PUT', (module, written)
        form = written[0]['form']
        sent = set(form) | set(form.get('delete', '').split(','))
        assert set(MATRIX[module]['drifted']) <= sent and 'cipassword' not in sent, form
    vm_form = of('vm', sim.writes())[0]['form']
    assert vm_form['ciupgrade'] == '0' and vm_form['sshkeys'] == uri_escape('\n'.join(sorted([ED25519, RSA])))
    assert config(sim, 250)['cipassword'] == 'changed-by-hand'  # never compared, so never re-sent
    assert config(sim, 251)['searchdomain'] == 'lab.example.org corp.example'
    if reconfirms(path):
        step(sim, playbook, path)
        assert sim.writes() == []


@pytest.mark.parametrize('path', ['controller'])
def test_ciupgrade_true_on_a_vm_without_it_is_no_change_and_keys_pasted_from_pvesh_match(sim, playbook, path):
    add_guest(sim.state, 'qemu', 252, 'node1', config={
        'name': 'ci2', 'sshkeys': uri_escape('%s\n\n%s\n' % (RSA, ED25519)), 'nameserver': '10.0.0.53'})
    declared = {'node': 'node1', 'vmid': 252, 'name': 'ci2', 'ciupgrade': True, 'nameserver': '10.0.0.53',
                # the encoded text `pvesh get` shows, and the same keys in another order with white space
                'sshkeys': [uri_escape('%s\n%s' % (ED25519, RSA))]}
    reordered = dict(declared, sshkeys=['  %s  ' % RSA, ED25519, ''], ciupgrade=False)
    sim.clear_log()
    run = playbook([task(sim, 'vm', declared, name='pasted'), task(sim, 'vm', reordered, name='reordered')],
                   check=True, diff=True, env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    pasted, again = (line['result'] for line in run.results)
    assert pasted['changed'] is False, pasted['plan']
    assert again['plan']['changed'] == ['ciupgrade'], again['plan']  # the keys match; false is a change
    assert sim.writes() == []


def test_the_export_of_cloud_init_and_dns_options_declares_back_as_a_no_op(sim, playbook):
    seed_snippet(sim)
    api(sim, [('POST', '/nodes/node1/qemu', {
        'vmid': '253', 'name': 'ci3', 'ide2': 'local-lvm:cloudinit', 'ciuser': 'ops', 'cipassword': SECRET,
        'sshkeys': uri_escape('%s\n%s\n' % (ED25519, RSA)), 'nameserver': '10.0.0.53 10.0.1.53',
        'searchdomain': 'lab.example.org', 'cicustom': 'vendor=local:snippets/vendor.yml', 'citype': 'nocloud',
        'ciupgrade': '0'})])
    add_guest(sim.state, 'lxc', 254, 'node1', config={
        'hostname': 'ct4', 'ostype': 'debian', 'rootfs': 'local-lvm:4', 'nameserver': '10.0.0.53 fe80::1%eth0',
        'searchdomain': 'lab.example.org'})
    sim.clear_log()
    exported, judged = export_then_declare(sim, playbook, include=['vm', 'lxc'])
    vm = [entry for entry in exported['objects']['vm'] if entry['vmid'] == 253][0]
    assert sorted(vm['sshkeys']) == sorted([ED25519, RSA]) and vm['nameserver'] == ['10.0.0.53', '10.0.1.53']
    assert (vm['searchdomain'], vm['cicustom'], vm['citype'], vm['ciupgrade']) == (
        ['lab.example.org'], 'vendor=local:snippets/vendor.yml', 'nocloud', False)
    assert 'cipassword' not in vm
    ct = [entry for entry in exported['objects']['lxc'] if entry['vmid'] == 254][0]
    assert (ct['nameserver'], ct['searchdomain']) == (['10.0.0.53', 'fe80::1%eth0'], ['lab.example.org'])
    assert judged['summary']['matched'] == judged['summary']['judged'] >= 2, judged['summary']
    assert sim.writes() == []


def test_each_bad_input_is_refused_before_any_request(sim, playbook):
    tasks = [{'name': 'case %d' % index, 'homeflare.proxmox.%s' % module: args, 'ignore_errors': True}
             for index, (module, args, _option) in enumerate(BAD_INPUT)]
    sim.clear_log()
    run = playbook(tasks)
    wrong = [(module, option, line['status'], line['result'].get('msg'))
             for (module, args, option), line in zip(BAD_INPUT, run.results)
             if line['status'] != 'failed' or option not in line['result'].get('msg', '')]
    assert len(run.results) == len(BAD_INPUT) and wrong == []
    assert sim.log == []
    assert SECRET not in run.output
