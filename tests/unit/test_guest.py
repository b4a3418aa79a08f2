"""Guests (LXC and QEMU): read, judge and write against an in-memory PVE (no HTTP).

The cases are field-notes §1a (Lxc and Vm cards) and §6.34–39; the wire answers follow pve-wire.md
§2.7 (digest refusals) and §2.9 (a missing config is a 500 naming the config file).
"""

import hashlib
import re

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    ApiError, Conflict, Forbidden, NotConverged, Refused, Unreadable)
from ansible_collections.homeflare.proxmox.plugins.module_utils.families import lxc, vm

from test_reconcile import FakeClient, params

# PVE's refusal of a config write whose digest is stale (pve-wire.md §2.7).
STALE_DIGEST = {'lxc': 'detected modified configuration - file changed by other user? Try again.',
                'qemu': 'checksum mismatch (file change by other user?)'}
CONF_DIR = {'lxc': 'lxc', 'qemu': 'qemu-server'}
DISK_KEY = re.compile(r'(rootfs|mp\d+|scsi\d+|virtio\d+|sata\d+|ide\d+|efidisk0|tpmstate0)$')
NEW_VOLUME = re.compile(r'([a-z][\w\-.]*):(\d+)((?:,.*)?)$')
# What a create takes and PVE keeps nowhere in the config.
CREATE_ONLY = ('vmid', 'ostemplate', 'storage', 'pool', 'password', 'ssh-public-keys')


def ct(vmid=101, node='n1', status='stopped', pending=None, **config):
    """A container as PVE answers it (integers as numbers, a generated MAC, the implied type=veth)."""
    base = dict(hostname='web1', ostype='debian', cores=1, memory=512, rootfs='local-lvm:vm-%d-disk-0,size=8G' % vmid,
                net0='name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:00:01,type=veth')
    base.update(config)
    return dict(kind='lxc', vmid=vmid, node=node, status=status, config=base, pending=dict(pending or {}))


def qm(vmid=100, node='n1', status='stopped', pending=None, **config):
    """A VM as PVE answers it (the NIC's model key carries the MAC)."""
    base = dict(name='app1', ostype='l26', cores=2, memory='2048', scsi0='local-lvm:vm-%d-disk-0,size=32G' % vmid,
                net0='virtio=BC:24:11:00:00:02,bridge=vmbr0')
    base.update(config)
    return dict(kind='qemu', vmid=vmid, node=node, status=status, config=base, pending=dict(pending or {}))


class Pve(FakeClient):
    """The guests of a small cluster, answering the calls guest.py makes; every call is recorded.

    ``parks``: the keys a running guest takes only as pending (applied by its next start or reboot).
    ``interlopers``: how many of the next config writes another writer beats (the digest moves on first).
    ``answers_digest``: False for a pending view without its digest row.
    """

    def __init__(self, *guests, parks=(), errors=None):
        super(Pve, self).__init__(errors=errors)
        self.guests = dict(((guest['kind'], guest['vmid']), guest) for guest in guests)
        self.parks = set(parks)
        self.interlopers = 0
        self.answers_digest = True

    # -- the store --------------------------------------------------------------------------
    def at(self, path):
        """(guest, the rest of the path) for /nodes/<node>/<kind>/<vmid>/...; PVE's typed absence otherwise."""
        node, kind, vmid = path.split('/')[2:5]
        rest = '/'.join(path.split('/')[5:])
        guest = self.guests.get((kind, int(vmid)))
        if guest is None or guest['node'] != node:
            raise ApiError.for_status(500, "Configuration file 'nodes/%s/%s/%s.conf' does not exist"
                                      % (node, CONF_DIR[kind], vmid))
        return guest, rest

    def digest(self, guest):
        text = repr((sorted(guest['config'].items()), sorted(guest['pending'].items(), key=str)))
        return hashlib.sha1(text.encode()).hexdigest()

    def set_key(self, guest, key, value):
        """One key of a config write: PVE lower-cases tags; a running guest parks what it cannot hot-plug."""
        if key == 'tags' and value is not None:
            value = value.lower()
        if guest['status'] == 'running' and key in self.parks:
            guest['pending'][key] = value
        elif value is None:
            guest['config'].pop(key, None)
        else:
            guest['config'][key] = value

    @staticmethod
    def apply_pending(guest):
        for key, value in guest.pop('pending').items():
            if value is None:
                guest['config'].pop(key, None)
            else:
                guest['config'][key] = value
        guest['pending'] = {}

    # -- reads ------------------------------------------------------------------------------
    def get(self, path, params=None, role='read'):
        self.calls.append(('GET', path, params, role))
        self._fail('GET', path)
        if path == '/cluster/resources':
            return [dict(id='%s/%s' % (guest['kind'], guest['vmid']), type=guest['kind'], vmid=guest['vmid'],
                         node=guest['node'], status=guest['status'], template=guest['config'].get('template', 0),
                         name=guest['config'].get('hostname') or guest['config'].get('name'),
                         tags=guest['config'].get('tags', '')) for guest in self.guests.values()]
        guest, rest = self.at(path)
        if rest == 'pending':
            rows = []
            for key in sorted(set(guest['config']) | set(guest['pending'])):
                row = dict(key=key)
                if key in guest['config']:
                    row['value'] = guest['config'][key]
                if key in guest['pending']:
                    row.update(dict(delete=1) if guest['pending'][key] is None else dict(pending=guest['pending'][key]))
                rows.append(row)
            if self.answers_digest:
                rows.append(dict(key='digest', value=self.digest(guest)))
            return rows
        if rest == 'status/current':
            return dict(status=guest['status'], vmid=guest['vmid'])
        if rest == 'config':
            config = dict(guest['config'], digest=self.digest(guest))
            config.update((key, value) for key, value in guest['pending'].items() if value is not None)
            return config
        raise AssertionError('the fake does not answer GET %s' % path)

    # -- writes (all synchronous here: None, never a UPID) -------------------------------------
    def put(self, path, form=None, role='provision'):
        self._write('PUT', path, form, role)
        guest, rest = self.at(path)
        if rest == 'resize':
            guest['config'][form['disk']] = re.sub(r'size=[^,]+', 'size=%s' % form['size'],
                                                   guest['config'][form['disk']])
            return None
        assert rest == 'config', path
        if self.interlopers:
            self.interlopers -= 1
            guest['config']['description'] = guest['config'].get('description', '') + 'another writer\n'
        if form.get('digest') != self.digest(guest):
            raise ApiError.for_status(500, STALE_DIGEST[guest['kind']])
        for key in (form.get('delete') or '').split(','):
            if key:
                self.set_key(guest, key, None)
        for key, value in form.items():
            if key not in ('delete', 'digest'):
                self.set_key(guest, key, value)
        return None

    def post(self, path, form=None, role='provision'):
        self._write('POST', path, form, role)
        parts = path.split('/')
        if len(parts) == 4:  # /nodes/<node>/<kind>: a create
            self.create(parts[3], int(form['vmid']), parts[2], form)
            return None
        guest, rest = self.at(path)
        if rest == 'clone':
            self.clone(guest, int(form['newid']), form.get('target', guest['node']), form)
        elif rest in ('status/start', 'status/reboot'):
            guest['status'] = 'running'
            self.apply_pending(guest)
        elif rest in ('status/shutdown', 'status/stop'):
            guest['status'] = 'stopped'
        else:
            raise AssertionError('the fake does not answer POST %s' % path)
        return None

    def delete(self, path, params=None, role='provision'):
        self._write('DELETE', path, params, role)
        guest, _rest = self.at(path)
        del self.guests[(guest['kind'], guest['vmid'])]
        return None

    def create(self, kind, vmid, node, form):
        """What PVE makes of a create: new volumes for <storage>:<GiB>, a MAC (and type=veth) for a NIC."""
        config, disks = {}, 0
        for key, value in sorted(form.items()):
            if key in CREATE_ONLY:
                continue
            allocation = NEW_VOLUME.match(value) if DISK_KEY.match(key) else None
            if allocation:
                value = '%s:vm-%d-disk-%d%s,size=%sG' % (allocation.group(1), vmid, disks, allocation.group(3),
                                                         allocation.group(2))
                disks += 1
            elif key.startswith('net') and kind == 'lxc':
                value += ',hwaddr=BC:24:11:00:00:99,type=veth'
            config[key] = value
        self.guests[(kind, vmid)] = dict(kind=kind, vmid=vmid, node=node, status='stopped', config=config, pending={})

    def clone(self, template, vmid, node, form):
        """A linked clone: the template's config, its base- volumes under the new vmid's name."""
        config = dict((key, re.sub(r'(base-\d+-disk-(\d+))', r'\1/vm-%d-disk-\2' % vmid, str(value)))
                      for key, value in template['config'].items() if key != 'template')
        if 'name' in form:
            config['name'] = form['name']
        self.guests[(template['kind'], vmid)] = dict(kind=template['kind'], vmid=vmid, node=node, status='stopped',
                                                     config=config, pending={})


CT = '/nodes/n1/lxc/101'
VM = '/nodes/n1/qemu/100'


def ct_task(**values):
    return params(lxc, **dict(dict(node='n1', vmid=101, hostname='web1'), **values))


def vm_task(**values):
    return params(vm, **dict(dict(node='n1', vmid=100, name='app1'), **values))


def run_ct(client, check_mode=False, **values):
    return lxc.FAMILY.run(client, ct_task(**values), check_mode)


def run_vm(client, check_mode=False, **values):
    return vm.FAMILY.run(client, vm_task(**values), check_mode)


def paths(client):
    return [(call[0], call[1]) for call in client.calls]


# -- reading: only PVE's typed absence, confirmed cluster-wide, is absent --------------------------

NEW_CT = dict(ostemplate='local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst', rootfs='local-lvm:8',
              net0='name=eth0,bridge=vmbr0', memory=1024)


def test_a_free_vmid_plans_a_create_and_check_mode_sends_nothing():
    client = Pve(qm())
    result = run_ct(client, check_mode=True, **NEW_CT)
    assert result['changed'] is True
    assert result['plan'] == dict(read='absent', action='create', changed=['hostname', 'memory', 'rootfs', 'net0'],
                                  power=None, pending=[], resize=[])
    assert paths(client) == [('GET', CT + '/pending'), ('GET', '/cluster/resources')]


def test_a_create_posts_once_and_reads_back_what_pve_made_of_it():
    client = Pve()
    result = run_ct(client, **NEW_CT)
    assert client.writes() == [('POST', '/nodes/n1/lxc', dict(
        vmid='101', hostname='web1', ostemplate=NEW_CT['ostemplate'], rootfs='local-lvm:8',
        net0='bridge=vmbr0,name=eth0', memory='1024'), 'provision')]
    # PVE answers a new volume and a generated MAC: both meet the declaration, so a second run adopts it.
    assert result['object']['rootfs'] == 'local-lvm:vm-101-disk-0,size=8G'
    client.calls = []
    assert run_ct(client, **NEW_CT)['changed'] is False
    assert client.writes() == []


def test_a_vmid_taken_by_the_other_guest_type_is_refused_never_absent():
    client = Pve(qm(vmid=101, name='db1'))
    with pytest.raises(Refused, match=r'vmid 101 is taken by a VM on n1 \(db1\)'):
        run_ct(client, **NEW_CT)
    assert client.writes() == []


def test_a_guest_living_on_another_node_is_judged_and_written_there_with_a_warning():
    client = Pve(ct(node='n2'))
    result = run_ct(client, memory=1024)
    assert result['plan']['action'] == 'update' and 'migrate' not in result['plan'], result['plan']
    assert [(write[0], write[1]) for write in client.writes()] == [('PUT', '/nodes/n2/lxc/101/config')]
    assert result['object']['node'] == 'n2' and result['object']['memory'] == 1024
    assert 'CT 101 is declared on n1 but lives on n2' in result['warnings'][0], result['warnings']
    client.calls = []
    assert run_ct(client, memory=1024)['changed'] is False and client.writes() == []


class CreatedMeanwhile(Pve):
    """The guest's config is missing for the first ``misses`` pending reads (another run's create lands
    between the pending read and the resource list), but the resource list already shows it."""

    def __init__(self, *guests, misses=1):
        super(CreatedMeanwhile, self).__init__(*guests)
        self.misses = misses

    def get(self, path, params=None, role='read'):
        if path.endswith('/pending') and self.misses:
            self.misses -= 1
            self.calls.append(('GET', path, params, role))
            node, kind, vmid = path.split('/')[2:5]
            raise ApiError.for_status(500, "Configuration file 'nodes/%s/%s/%s.conf' does not exist"
                                      % (node, CONF_DIR[kind], vmid))
        return super(CreatedMeanwhile, self).get(path, params, role)


def test_a_guest_created_on_its_node_between_the_two_reads_is_read_as_found():
    client = CreatedMeanwhile(ct(memory=1024))
    result = run_ct(client, **NEW_CT)
    assert result['changed'] is False and result['plan']['read'] == 'found'
    assert paths(client) == [('GET', CT + '/pending'), ('GET', '/cluster/resources'), ('GET', CT + '/pending')]
    assert client.writes() == []


def test_a_listed_guest_whose_config_stays_missing_is_unreadable_never_absent():
    client = CreatedMeanwhile(ct(memory=1024), misses=2)
    with pytest.raises(Unreadable, match='not taken for absent'):
        run_ct(client, **NEW_CT)
    assert client.writes() == []


def test_a_pending_view_without_digest_is_refused_not_absent():
    client = Pve(ct())
    client.answers_digest = False
    with pytest.raises(Refused, match='without a digest'):
        run_ct(client, cores=2)
    assert paths(client) == [('GET', CT + '/pending')]


@pytest.mark.parametrize('error', [
    Forbidden(403, 'Permission check failed (/vms/101, VM.Audit)'),
    ApiError.for_status(500, 'got timeout'),
    # A QEMU config's absence is not a container's.
    ApiError.for_status(500, "Configuration file 'nodes/n1/qemu-server/101.conf' does not exist"),
])
def test_a_failed_read_is_raised_never_absent(error):
    client = Pve(errors={('GET', CT + '/pending'): error})
    with pytest.raises(type(error)):
        run_ct(client, **NEW_CT)
    assert paths(client) == [('GET', CT + '/pending')]


# -- judging: the guest under the vmid must be the one declared -------------------------------------

@pytest.mark.parametrize('run, guest, message', [
    (run_ct, ct(hostname='db1'), "vmid 101 holds another guest, 'db1' \\(the task declares hostname 'web1'\\)"),
    (run_vm, qm(name='db1'), "vmid 100 holds another guest, 'db1' \\(the task declares name 'app1'\\)"),
])
def test_another_guest_under_the_vmid_is_refused(run, guest, message):
    client = Pve(guest)
    with pytest.raises(Refused, match=message):
        run(client, cores=4)
    assert client.writes() == []


def test_a_name_that_exists_under_another_vmid_is_refused():
    client = Pve(ct(vmid=105))
    with pytest.raises(Refused, match="CT 'web1' already exists as vmid 105 on n1"):
        run_ct(client, **NEW_CT)
    assert client.writes() == []


@pytest.mark.parametrize('declared, message', [
    ('local-lvm:4', 'rootfs is 8G but the task declares 4G: disks only grow'),
    ('ceph:8', 'rootfs is on storage local-lvm but the task declares ceph: a storage move is not an update'),
    ('local-lvm:vm-101-disk-7,size=8G', 'rootfs holds the volume local-lvm:vm-101-disk-0 but the task declares'),
])
def test_a_disk_that_cannot_be_reached_in_place_is_refused_before_any_write(declared, message):
    client = Pve(ct())
    with pytest.raises(Refused, match=message):
        run_ct(client, rootfs=declared, cores=4)
    assert client.writes() == []


@pytest.mark.parametrize('template, refused', [
    ('local:vztmpl/alpine-3.20-default_20240908_amd64.tar.xz', True),
    ('local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst', False),
])
def test_a_container_is_never_rebuilt_from_another_distribution(template, refused):
    client = Pve(ct())
    if refused:
        with pytest.raises(Refused, match='CT 101 on n1 runs debian \\(ostype\\) but the task declares the template'):
            run_ct(client, ostemplate=template)
    else:
        assert run_ct(client, ostemplate=template)['changed'] is False
    assert client.writes() == []


def test_another_linked_clone_base_is_refused():
    client = Pve(qm(vmid=120, name='web', scsi0='local-lvm:base-9001-disk-0/vm-120-disk-0,size=8G'))
    with pytest.raises(Refused, match='VM 120 on n1 is a linked clone of template 9001 but the task declares '
                                      'clone: 9000'):
        run_vm(client, vmid=120, name='web', clone=9000)
    assert client.writes() == []


# -- updating: only the drift, with the digest; disks grow by resize --------------------------------

def test_check_mode_shows_the_drift_and_writes_nothing():
    client = Pve(ct())
    result = run_ct(client, check_mode=True, cores=2)
    assert result['plan']['changed'] == ['cores']
    assert result['diff']['before']['cores'] == 1 and result['diff']['after']['cores'] == 2
    assert client.writes() == []


def test_a_drifted_key_is_one_put_of_that_key_with_the_digest():
    guest = ct()
    client = Pve(guest)
    digest = client.digest(guest)
    result = run_ct(client, cores=2, memory=512)
    assert client.writes() == [('PUT', CT + '/config', dict(cores='2', digest=digest), 'provision')]
    assert result['changed'] is True and result['object']['cores'] == 2


def test_a_vm_nic_update_keeps_its_generated_mac():
    client = Pve(qm())
    run_vm(client, net0='virtio,bridge=vmbr1')
    (_method, _path, form, _role), = client.writes()
    assert form['net0'] == 'bridge=vmbr1,macaddr=BC:24:11:00:00:02,model=virtio'


def test_a_change_pve_parks_as_pending_is_reported_not_written_again():
    client = Pve(ct(status='running'), parks=['memory'])
    result = run_ct(client, memory=1024)
    assert [call[:2] for call in client.writes()] == [('PUT', CT + '/config')]
    assert result['object']['pending'] == ['memory']
    assert any('changes pending until its next restart: memory' in warning for warning in result['warnings'])


def test_a_pending_delete_is_judged_as_the_config_will_be():
    client = Pve(ct(status='running', swap=512, pending={'swap': None}))
    result = run_ct(client, check_mode=True, swap=512)
    assert result['plan']['changed'] == ['swap'] and result['plan']['pending'] == ['swap']
    assert result['diff']['before']['swap'] is None


@pytest.mark.parametrize('pending, memory, writes', [
    ({'memory': '1024'}, 1024, [('POST', CT + '/status/reboot')]),             # parked by an earlier run
    ({}, 1024, [('PUT', CT + '/config'), ('POST', CT + '/status/reboot')]),    # parked by this run's write
])
def test_reboot_if_pending_reboots_a_running_guest_once(pending, memory, writes):
    client = Pve(ct(status='running', pending=pending), parks=['memory'])
    result = run_ct(client, memory=memory, reboot_if_pending=True)
    assert [call[:2] for call in client.writes()] == writes
    assert result['plan']['power'] == 'reboot'
    assert result['object']['pending'] == [] and result['warnings'] == []


def test_a_larger_disk_is_one_resize_and_no_config_write():
    client = Pve(ct())
    result = run_ct(client, rootfs='local-lvm:16')
    assert client.writes() == [('PUT', CT + '/resize', dict(disk='rootfs', size='16G'), 'provision')]
    assert result['plan']['resize'] == ['rootfs to 16G']
    assert result['object']['rootfs'] == 'local-lvm:vm-101-disk-0,size=16G'


def test_a_disk_that_grows_and_gains_an_option_keeps_its_volume_in_the_put():
    client = Pve(qm())
    run_vm(client, scsi0='local-lvm:40,ssd=1')
    put, resize = client.writes()
    assert put[2]['scsi0'] == 'local-lvm:vm-100-disk-0,size=32G,ssd=1'
    assert resize[:3] == ('PUT', VM + '/resize', dict(disk='scsi0', size='40G'))


def test_tags_pve_lower_cases_are_not_converged_and_named():
    client = Pve(ct(tags='web'))
    with pytest.raises(NotConverged, match='still differs in: tags. PVE may have normalised the value'):
        run_ct(client, tags=['Web', 'Prod'])


@pytest.mark.parametrize('run, guest', [(run_ct, ct()), (run_vm, qm())])
def test_a_stale_digest_is_read_and_judged_again_once(run, guest):
    client = Pve(guest)
    client.interlopers = 1
    digest_left = client.digest(dict(guest, config=dict(guest['config'], description='another writer\n')))
    result = run(client, cores=8)
    first, second = [call[2] for call in client.writes()]
    assert first['digest'] != second['digest'] == digest_left
    assert second == dict(cores='8', digest=second['digest'])
    assert any('changed by another writer' in warning for warning in result['warnings'])


@pytest.mark.parametrize('run, guest, kind', [(run_ct, ct(), 'lxc'), (run_vm, qm(), 'qemu')])
def test_a_digest_refused_twice_is_a_conflict(run, guest, kind):
    client = Pve(guest)
    client.interlopers = 2
    with pytest.raises(Conflict, match='refused twice \\(%s\\)' % re.escape(STALE_DIGEST[kind])):
        run(client, cores=8)
    assert [call[0] for call in client.writes()] == ['PUT', 'PUT']


# -- removing: confirmed, refused in PVE's words, purge only when asked ------------------------------

def test_removal_needs_confirmation_before_any_request():
    client = Pve(ct())
    with pytest.raises(Refused, match='confirm_removal'):
        run_ct(client, state='absent')
    assert client.calls == []


@pytest.mark.parametrize('run, guest, words', [
    (run_ct, ct(status='running'), 'unable to destroy CT 101 - container is running'),
    (run_vm, qm(status='running'), 'VM 100 is running - destroy failed'),
    (run_vm, qm(protection=1), "can't remove VM 100 - protection mode enabled"),
])
def test_pve_s_delete_refusals_are_said_before_any_write(run, guest, words):
    client = Pve(guest)
    with pytest.raises(Refused, match=re.escape(words)):
        run(client, state='absent', confirm_removal=True)
    assert client.writes() == []


@pytest.mark.parametrize('purge, sent', [(True, dict(purge=1)), (False, None)])
def test_delete_purges_only_when_asked(purge, sent):
    client = Pve(qm())
    result = run_vm(client, state='absent', confirm_removal=True, purge=purge)
    assert client.writes() == [('DELETE', VM, sent, 'provision')]
    assert result['changed'] is True and result['object'] == {}


# -- power: acted on once ------------------------------------------------------------------------

@pytest.mark.parametrize('force_stop, form', [
    (False, dict(timeout='30')),
    (True, dict(timeout='30', forceStop='1')),
])
def test_stopped_shuts_down_with_the_timeout_and_forces_only_when_asked(force_stop, form):
    client = Pve(ct(status='running'))
    result = run_ct(client, state='stopped', shutdown_timeout=30, force_stop=force_stop)
    assert client.writes() == [('POST', CT + '/status/shutdown', form, 'provision')]
    assert result['object']['status'] == 'stopped'


def test_started_on_a_running_guest_does_nothing():
    client = Pve(ct(status='running'))
    result = run_ct(client, state='started')
    assert result['changed'] is False and client.writes() == []


# -- cloning: from the template's node, then the declared config ----------------------------------

TEMPLATE_9000 = dict(name='tmpl', template=1, cores=1, scsi0='local-lvm:base-9000-disk-0,size=8G')


@pytest.mark.parametrize('template_node, target', [('n2', dict(target='n1')), ('n1', {})])
def test_a_clone_posts_to_the_template_s_node_then_puts_the_declared_config(template_node, target):
    client = Pve(qm(vmid=9000, node=template_node, **TEMPLATE_9000))
    result = run_vm(client, vmid=120, name='web', clone=9000, cores=4)
    clone, config = client.writes()
    assert clone == ('POST', '/nodes/%s/qemu/9000/clone' % template_node, dict(newid='120', name='web', **target),
                     'provision')
    assert config[:2] == ('PUT', '/nodes/n1/qemu/120/config') and sorted(config[2]) == ['cores', 'digest']
    assert result['object']['cores'] == 4


# -- lxc_info / vm_info ---------------------------------------------------------------------------

@pytest.mark.parametrize('info, asked, vmids, configs', [
    (lxc.INFO, dict(), [101, 102], []),
    (lxc.INFO, dict(node='n2'), [102], []),
    (vm.INFO, dict(config=True), [100], [VM + '/config']),
    (lxc.INFO, dict(vmid=[102]), [102], ['/nodes/n2/lxc/102/config']),
])
def test_guest_info_lists_its_type_and_reads_configs_only_when_asked(info, asked, vmids, configs):
    client = Pve(ct(), ct(vmid=102, node='n2', hostname='web2'), qm())
    query = dict(dict(node=None, vmid=None, config=False), **asked)
    result = info.run(client, query, check_mode=False)
    assert [guest['vmid'] for guest in result['guests']] == vmids
    assert [call[1] for call in client.calls] == ['/cluster/resources'] + configs
    assert all(('config' in guest) == bool(configs) for guest in result['guests'])
