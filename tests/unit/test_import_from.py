"""Disks imported from an image (``<storage>:0,import-from=<source>``, issue 24): the Disk kind's comparison and
refusals (plugins/module_utils/fields.py), what the vm family plans and sends (guest.py), and the simulator's
import (tests/simulator/pve/handlers/qemu.py: $check_drive_param, $check_storage_access, create_disks with
$import_from_volid and clone_disk of qemu-server src/PVE/API2/Qemu.pm) over real HTTPS; then a container created
from an OCI image (tests/simulator/pve/handlers/lxc.py: pve-container Create.pm archive_is_oci_format and
restore_oci_archive, Setup.pm's OS detection).

Run: python -m pytest tests/unit/test_import_from.py -q
"""

import re
import sys
from pathlib import Path

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.families import vm
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import MISSING

from test_guest import VM, Pve, paths, qm, run_vm

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import
from simulator.pve.handlers.guests import add_guest, ensure_volumes  # noqa: E402
from simulator.pve.handlers.lxc import make_oci_archive  # noqa: E402

GIB = 1024 ** 3
IMAGE = 'local:import/debian-13.qcow2'
IMPORTED = 'local-lvm:0,import-from=%s' % IMAGE
LIVE = 'local-lvm:vm-100-disk-0,size=3G'


def field(wire):
    return next(each for each in vm.FIELDS if each.wire == wire)


SCSI0, IDE2, EFIDISK0, TPMSTATE0 = (field(wire) for wire in ('scsi0', 'ide2', 'efidisk0', 'tpmstate0'))


# -- the Disk kind: an import source is a create's, never compared ----------------------------------------------

@pytest.mark.parametrize('declared, live, refusal, grow_to, options', [
    (IMPORTED, LIVE, None, None, False),                                                # :0 is no size
    ('local-lvm:0,import-from=local:import/debian-14.qcow2', LIVE, None, None, False),  # another source: not compared
    (IMPORTED + ',iothread=1', LIVE + ',iothread=1', None, None, False),
    (IMPORTED + ',iothread=1', LIVE, None, None, True),                                 # the other keys still are
    (IMPORTED + ',size=10G', LIVE, None, '10G', False),                                 # grow-only, as any disk
    (IMPORTED + ',size=2G', LIVE, 'scsi0 is 3G but the task declares 2G: disks only grow', None, False),
    ('ceph:0,import-from=%s' % IMAGE, LIVE, 'scsi0 is on storage local-lvm but the task declares ceph', None, False),
    (IMPORTED, '', None, None, True),                                                    # a new disk: imported
    (IMPORTED + ',size=10G', '', None, '10G', True),                                     # ... then grown
])
def test_an_existing_disk_is_compared_without_its_import_source(declared, live, refusal, grow_to, options):
    desired, current = SCSI0.declared(declared), SCSI0.live(live)
    change = SCSI0.compare(desired, current)
    assert (change.grow_to, change.options) == (grow_to, options)
    if refusal:
        assert change.refusal.startswith(refusal)
    else:
        assert change.refusal is None


@pytest.mark.parametrize('declared, live, sent', [
    (IMPORTED + ',iothread=1', MISSING, IMPORTED + ',iothread=1'),
    (IMPORTED + ',size=10G', MISSING, IMPORTED),                 # PVE sizes an import by its image: a resize grows it
    (IMPORTED + ',iothread=1', LIVE, 'local-lvm:vm-100-disk-0,iothread=1,size=3G'),  # never an import source again
])
def test_an_import_is_sent_without_its_size_and_an_existing_disk_without_its_source(declared, live, sent):
    assert SCSI0.encode_update(SCSI0.declared(declared), live) == sent


def test_a_create_sends_the_import_without_its_size():
    assert SCSI0.encode(SCSI0.declared(IMPORTED + ',size=10G,iothread=1')) == IMPORTED + ',iothread=1'


@pytest.mark.parametrize('declared, live, options', [
    ('local-lvm:cloudinit', 'local-lvm:vm-100-cloudinit,media=cdrom', False),
    ('local-lvm:cloudinit,media=cdrom', 'local-lvm:vm-100-cloudinit,media=cdrom', False),
    ('local:cloudinit', 'local:100/vm-100-cloudinit.qcow2,media=cdrom', False),
    ('local:cloudinit', 'local-lvm:vm-100-cloudinit,media=cdrom', True),        # another storage: a new drive
    ('local-lvm:cloudinit', 'local:iso/debian-12.7.0-amd64-netinst.iso,media=cdrom', True),
])
def test_a_cloudinit_drive_matches_the_cdrom_pve_made_of_it(declared, live, options):
    change = IDE2.compare(IDE2.declared(declared), IDE2.live(live))
    assert (change.refusal, change.grow_to, change.options) == (None, None, options)


@pytest.mark.parametrize('disk, declared', [
    (SCSI0, 'local-lvm:0,import-from=local:import/appliance.ova/disk-1.vmdk'),
    (SCSI0, 'local-lvm:0,import-from=local:import/win 11.raw'),
    (SCSI0, 'local-lvm:0,import-from=local-lvm:vm-101-disk-0'),
    (SCSI0, 'local-lvm:0,import-from=local:101/vm-101-disk-0.qcow2'),
    (SCSI0, 'local-lvm:0,import-from=local-lvm:base-9000-disk-0'),
    (EFIDISK0, 'local-lvm:0,import-from=local:import/vars.raw,efitype=4m,pre-enrolled-keys=1'),
    (TPMSTATE0, 'local-lvm:0,import-from=local:import/tpm.raw,version=v2.0'),
])
def test_an_import_source_pve_takes_is_declared(disk, declared):
    assert disk.declared(declared)


@pytest.mark.parametrize('disk, declared, message', [
    (SCSI0, 'local-lvm:8,import-from=%s' % IMAGE, 'takes only on a new volume written <storage>:0'),
    (SCSI0, 'local-lvm:vm-100-disk-0,import-from=%s' % IMAGE, 'takes only on a new volume written <storage>:0'),
    (SCSI0, 'local-lvm:0,import-from=/var/lib/vz/import/debian-13.qcow2', 'a host path, which only root@pam may'),
    (SCSI0, 'local-lvm:0,import-from=local:import/appliance.ova', 'an appliance (OVA/OVF), not a disk image'),
    (SCSI0, 'local-lvm:0,import-from=local:import/appliance.ovf', 'an appliance (OVA/OVF), not a disk image'),
    (SCSI0, 'local-lvm:0,import-from=local:iso/debian-12.7.0-amd64-netinst.iso', 'neither an import volume'),
    (SCSI0, 'local-lvm:0,import-from=local-lvm:vm-101-cloudinit', 'neither an import volume'),
    (SCSI0, 'local-lvm:0,import-from=debian-13.qcow2', 'neither an import volume'),
    (EFIDISK0, 'local-lvm:0,import-from=local:import/vars.raw,efitype=4m', 'without pre-enrolled-keys'),
    (EFIDISK0, 'local-lvm:0,import-from=local:import/vars.raw', 'without efitype and pre-enrolled-keys'),
    (TPMSTATE0, 'local-lvm:0,import-from=local:import/tpm.raw', 'without version'),
])
def test_an_import_pve_would_refuse_is_refused_naming_the_option(disk, declared, message):
    with pytest.raises(DeclarationError, match='option %s: .*%s' % (disk.option, re.escape(message))):
        disk.declared(declared)


def test_a_refused_import_makes_no_request():
    client = Pve()
    with pytest.raises(DeclarationError, match='option scsi0'):
        run_vm(client, scsi0='local-lvm:0,import-from=/root/debian-13.qcow2')
    assert client.calls == []


# -- the vm family: imported at create time only ----------------------------------------------------------------

class Importing(Pve):
    """PVE importing: ``<storage>:0,import-from=<image>`` becomes a new volume as large as the image (``images``:
    source -> size), written without the source; a size= beside it is ignored, as create_disks does."""

    def __init__(self, *guests, images=None):
        super(Importing, self).__init__(*guests)
        self.images = dict(images or {IMAGE: '3G'})

    def imported(self, vmid, value, number=0):
        parts = [part for part in value.split(',')[1:] if not part.startswith(('import-from=', 'size='))]
        size = self.images[re.search(r'import-from=([^,]+)', value).group(1)]
        return ','.join(['local-lvm:vm-%d-disk-%d' % (vmid, number)] + sorted(parts + ['size=' + size]))

    def create(self, kind, vmid, node, form):
        form = dict(form)
        imports = dict((key, self.imported(vmid, value)) for key, value in form.items() if 'import-from=' in value)
        for key in imports:
            form.pop(key)
        super(Importing, self).create(kind, vmid, node, form)
        self.guests[(kind, vmid)]['config'].update(imports)

    def set_key(self, guest, key, value):
        if value is not None and 'import-from=' in value:
            value = self.imported(guest['vmid'], value, number=1)
        super(Importing, self).set_key(guest, key, value)


def test_a_create_imports_the_disk_then_grows_it_to_the_declared_size():
    client = Importing()
    declared = dict(scsi0=IMPORTED + ',iothread=1,size=10G', ide2='local-lvm:cloudinit', ciuser='ops',
                    ipconfig0='ip=dhcp')
    check = run_vm(client, check_mode=True, **declared)
    assert check['plan']['action'] == 'create' and check['plan']['resize'] == ['scsi0 to 10G']
    assert client.writes() == []
    result = run_vm(client, **declared)
    post, resize = client.writes()
    assert post[:2] == ('POST', '/nodes/n1/qemu') and post[2]['scsi0'] == IMPORTED + ',iothread=1'
    assert resize[:3] == ('PUT', VM + '/resize', dict(disk='scsi0', size='10G'))
    assert result['changed'] is True and result['warnings'] == []
    assert result['object']['scsi0'] == 'local-lvm:vm-100-disk-0,iothread=1,size=10G'


def test_a_create_without_a_size_keeps_the_image_s_size_and_resizes_nothing():
    client = Importing()
    result = run_vm(client, scsi0=IMPORTED)
    assert [call[:2] for call in client.writes()] == [('POST', '/nodes/n1/qemu')]
    assert result['plan']['resize'] == [] and result['object']['scsi0'] == LIVE


def test_an_existing_vm_never_compares_or_reimports_its_import_source_and_says_so():
    client = Importing(qm(scsi0=LIVE))
    result = run_vm(client, scsi0='local-lvm:0,import-from=local:import/debian-14.qcow2')
    assert result['changed'] is False and client.writes() == []
    assert paths(client) == [('GET', VM + '/pending')]
    assert result['warnings'] == [
        'VM 100 on n1 exists, so the import source of scsi0 (import-from=local:import/debian-14.qcow2) was not '
        'compared and nothing was imported: import-from is used only when a disk is created']


def test_an_existing_imported_disk_is_still_on_its_storage_and_only_grows():
    with pytest.raises(Refused, match='scsi0 is on storage local-lvm but the task declares ceph'):
        run_vm(Importing(qm(scsi0=LIVE)), scsi0='ceph:0,import-from=%s' % IMAGE)
    client = Importing(qm(scsi0=LIVE))
    result = run_vm(client, scsi0=IMPORTED + ',size=16G')
    assert client.writes() == [('PUT', VM + '/resize', dict(disk='scsi0', size='16G'), 'provision')]
    assert result['plan']['resize'] == ['scsi0 to 16G'] and len(result['warnings']) == 1


def test_a_new_disk_on_an_existing_vm_is_imported_by_the_update_then_grown():
    client = Importing(qm(scsi0='local-lvm:vm-100-disk-0,size=32G'))
    result = run_vm(client, scsi1=IMPORTED + ',size=8G')
    put, resize = client.writes()
    assert put[:2] == ('PUT', VM + '/config') and put[2]['scsi1'] == IMPORTED
    assert resize[2] == dict(disk='scsi1', size='8G')
    assert result['object']['scsi1'] == 'local-lvm:vm-100-disk-1,size=8G' and result['warnings'] == []


# -- the simulator: create_disks' import ---------------------------------------------------------------------

DIRSTORE = {"type": "dir", "path": "/mnt/dirstore", "content": {"images", "rootdir", "import"}}


@pytest.fixture(autouse=True)
def clean(request):
    """Simulator tests start without guests, volumes (local's templates come back), ACLs or extra storages; local
    holds three images to import (a qcow2 of 3 GiB virtual size, a raw one, an OVA) and ``dirstore`` is a
    directory storage for images."""
    if 'sim' not in request.fixturenames:
        yield
        return
    state = request.getfixturevalue('sim').state
    with state.lock:
        for table in (state.guests, state.volumes, state.acl):
            table.clear()
        for sid in [s for s in state.storage if s not in ("local", "local-lvm")]:
            del state.storage[sid]
        state.storage["dirstore"] = dict(DIRSTORE, content=set(DIRSTORE["content"]))
        local = ensure_volumes(state)["local"]
        local["import/debian-13.qcow2"] = {"size": 3 * GIB, "vmid": None, "format": "qcow2", "content": "import"}
        local["import/alpine.raw"] = {"size": 300 * 1024 ** 2, "vmid": None, "format": "raw", "content": "import"}
        local["import/appliance.ova"] = {"size": 900 * 1024 ** 2, "vmid": None, "format": "ova", "content": "import"}
    yield


def ok(sim, method, path, form=None, token=None):
    status, body = sim.request(method, path, form, token=token)
    assert status == 200, (method, path, form, body)
    return body["data"]


def task(sim, upid):
    """(exitstatus, the log lines before the last)."""
    status = ok(sim, "GET", f"/nodes/node1/tasks/{upid}/status")
    lines = [row["t"] for row in ok(sim, "GET", f"/nodes/node1/tasks/{upid}/log", {"limit": 0})]
    return status["exitstatus"], lines[:-1]


def create(sim, token=None, **config):
    return task(sim, ok(sim, "POST", "/nodes/node1/qemu", dict(config, vmid="100"), token=token))


def config(sim, vmid=100):
    conf = ok(sim, "GET", f"/nodes/node1/qemu/{vmid}/config")
    conf.pop("digest")
    return conf


def volume(sim, volid):
    sid, volname = volid.split(":", 1)
    return sim.state.volumes[sid][volname]


def test_an_imported_disk_is_a_copy_as_large_as_the_image_without_its_source(sim):
    exitstatus, lines = create(sim, scsi0="local-lvm:0,import-from=local:import/debian-13.qcow2,iothread=1,size=9G",
                               ide2="local-lvm:cloudinit", ciuser="ops")
    assert exitstatus == "OK"
    assert lines[:5] == [
        "create full clone of drive (local:import/debian-13.qcow2)",
        "allocated target volume 'local-lvm:vm-100-disk-0'",
        "transferred 0.0 B of 3.0 GiB (0.00%)",
        "transferred 3.0 GiB of 3.0 GiB (100.00%)",
        "scsi0: successfully created disk 'local-lvm:vm-100-disk-0,iothread=1,size=3G'"]
    conf = config(sim)
    assert conf["scsi0"] == "local-lvm:vm-100-disk-0,iothread=1,size=3G"  # size= of an import is ignored
    assert conf["ide2"] == "local-lvm:vm-100-cloudinit,media=cdrom" and conf["boot"] == "order=scsi0;ide2"
    assert volume(sim, "local-lvm:vm-100-disk-0") == {"size": 3 * GIB, "vmid": 100, "format": "raw",
                                                      "content": "images"}
    assert "import/debian-13.qcow2" in sim.state.volumes["local"]  # the image stays


def test_a_downloaded_qcow2_is_imported_at_its_virtual_size(sim):
    # a qcow2 header (magic, version 3) whose virtual size is 2 GiB: the file itself is 4 KiB
    header = b"QFI\xfb" + b"\x00\x00\x00\x03" + b"\x00" * 16 + (2 * GIB).to_bytes(8, "big") + b"\x00" * 4064
    with sim.state.lock:
        ensure_volumes(sim.state)["local"]["import/cloud.qcow2"] = {
            "size": len(header), "vmid": None, "format": "qcow2", "content": "import", "data": header}
    assert create(sim, scsi0="local-lvm:0,import-from=local:import/cloud.qcow2")[0] == "OK"
    assert config(sim)["scsi0"] == "local-lvm:vm-100-disk-0,size=2G"


@pytest.mark.parametrize("source, volid, fmt, size", [
    ("local:import/debian-13.qcow2", "dirstore:100/vm-100-disk-0.qcow2", "qcow2", "3G"),
    ("local:import/alpine.raw", "dirstore:100/vm-100-disk-0.raw", "raw", "300M"),
])
def test_a_directory_storage_keeps_the_image_s_format(sim, source, volid, fmt, size):
    assert create(sim, virtio0=f"dirstore:0,import-from={source}")[0] == "OK"
    assert config(sim)["virtio0"] == f"{volid},size={size}"
    assert volume(sim, volid)["format"] == fmt


def test_an_efi_disk_and_a_tpm_state_are_imported_at_their_own_sizes(sim):
    exitstatus, lines = create(
        sim, efidisk0="local-lvm:0,import-from=local:import/alpine.raw,efitype=4m,pre-enrolled-keys=1",
        tpmstate0="local-lvm:0,import-from=local:import/alpine.raw,version=v2.0", bios="ovmf")
    assert exitstatus == "OK", lines
    conf = config(sim)
    assert conf["efidisk0"] == "local-lvm:vm-100-disk-0,efitype=4m,pre-enrolled-keys=1,size=4M"  # 528K, an LV
    assert conf["tpmstate0"] == "local-lvm:vm-100-disk-1,size=4M,version=v2.0"
    # the EFI vars are copied by qemu-img dd (no progress lines), the TPM state by qemu-img convert
    assert [line for line in lines if line.startswith("transferred")] == [
        "transferred 0.0 B of 4.0 MiB (0.00%)", "transferred 4.0 MiB of 4.0 MiB (100.00%)"]


def test_a_guest_s_disk_is_imported_from_its_owner_on_the_node(sim):
    add_guest(sim.state, "qemu", 300, "node1", {"scsi0": "local-lvm:8"})
    exitstatus, lines = create(sim, scsi0="local-lvm:0,import-from=local-lvm:vm-300-disk-0")
    assert exitstatus == "OK" and lines[0] == "create full clone of drive scsi0 (local-lvm:vm-300-disk-0)"
    assert config(sim)["scsi0"] == "local-lvm:vm-100-disk-0,size=8G"
    add_guest(sim.state, "qemu", 301, "node2", {"scsi0": "local-lvm:8"})
    exitstatus, _lines = task(sim, ok(sim, "POST", "/nodes/node1/qemu", {
        "vmid": "101", "scsi0": "local-lvm:0,import-from=local-lvm:vm-301-disk-0"}))
    assert exitstatus == ("unable to create VM 101 - cannot import from 'local-lvm:vm-301-disk-0' - owner VM 301 not "
                          "on local node")


@pytest.mark.parametrize("key, value, errors", [
    ("scsi0", "local-lvm:8,import-from=local:import/debian-13.qcow2",
     "'import-from' requires special syntax - use <storage ID>:0,import-from=<source>"),
    ("scsi0", "local-lvm:vm-100-disk-0,import-from=local:import/debian-13.qcow2",
     "'import-from' requires special syntax - use <storage ID>:0,import-from=<source>"),
    ("efidisk0", "local-lvm:0,import-from=local:import/alpine.raw,efitype=4m",
     "need to specify 'pre-enrolled-keys' when using 'import-from'"),
    ("tpmstate0", "local-lvm:0,import-from=local:import/alpine.raw",
     "need to specify 'version' when using 'import-from'"),
    ("scsi0", "local-lvm:0,import-from=local:iso/debian-12.7.0-amd64-netinst.iso",
     "local:iso/debian-12.7.0-amd64-netinst.iso has wrong type 'iso' - needs to be 'images' or 'import'"),
    ("scsi0", "local-lvm:0,import-from=local:import/appliance.ova/disk1.vmdk",
     "import working storage 'local' does not support 'images' content type or is not file based."),
])
def test_an_import_pve_refuses_is_a_parameter_error_before_the_task(sim, key, value, errors):
    status, body = sim.request("POST", "/nodes/node1/qemu", {"vmid": "100", key: value})
    assert (status, body["errors"]) == (400, {key: errors}), body
    assert 100 not in sim.state.guests


@pytest.mark.parametrize("source, message", [
    ("local:import/appliance.ova", "volume 'local:import/appliance.ova' - not a QEMU image format 'ova'"),
    ("local:import/notes.txt", "unable to parse directory volume name 'import/notes.txt'"),
    ("nowhere:import/debian-13.qcow2", "storage 'nowhere' does not exist"),
])
def test_a_source_pve_cannot_read_is_refused_before_the_task(sim, source, message):
    status, body = sim.request("POST", "/nodes/node1/qemu",
                               {"vmid": "100", "scsi0": f"local-lvm:0,import-from={source}"})
    assert (status, body["message"]) == (500, message + "\n"), body


@pytest.mark.parametrize("source, exitstatus", [
    ("local:import/missing.qcow2", "unable to create VM 100 - failed to stat '/var/lib/vz/import/missing.qcow2'"),
    ("local-lvm:vm-300-disk-0", "unable to create VM 100 - cannot import from 'local-lvm:vm-300-disk-0' - could not "
                                "get size of local-lvm:vm-300-disk-0"),
])
def test_a_missing_source_fails_the_task_and_leaves_no_vm(sim, source, exitstatus):
    assert create(sim, scsi0=f"local-lvm:0,import-from={source}")[0] == exitstatus
    assert 100 not in sim.state.guests and not sim.state.volumes.get("local-lvm")


def test_a_disk_inside_an_ova_is_not_simulated(sim):
    sim.state.storage["local"]["content"] = {"iso", "vztmpl", "backup", "import", "images"}
    add_guest(sim.state, "qemu", 300, "node1", {"scsi0": "local-lvm:8"})
    status, body = sim.request("PUT", "/nodes/node1/qemu/300/config",
                               {"scsi1": "local-lvm:0,import-from=local:import/appliance.ova/disk1.vmdk"})
    assert status == 501 and "(a disk inside an OVA) is not simulated" in body["message"], body


def token_with(sim, name, *grants):
    state = sim.state
    if "ro@pve" not in state.users:
        state.add_user("ro@pve")
    secret = state.add_token("ro@pve", name, privsep=1)
    for path, role in grants:
        state.set_acl(path, role, users="ro@pve", tokens=f"ro@pve!{name}")
    return f"ro@pve!{name}", secret


def test_an_import_needs_access_to_the_source(sim):
    token = token_with(sim, "builder", ("/vms/100", "PVEVMAdmin"), ("/vms/101", "PVEVMAdmin"),
                       ("/storage/local-lvm", "PVEDatastoreUser"))
    form = {"vmid": "100", "scsi0": "local-lvm:0,import-from=local:import/debian-13.qcow2"}
    status, body = sim.request("POST", "/nodes/node1/qemu", form, token=token)
    assert (status, body["message"]) == (403, "Permission check failed (/storage/local, Datastore.AllocateSpace|"
                                              "Datastore.Audit)\n")
    sim.state.set_acl("/storage/local", "PVEDatastoreUser", tokens="ro@pve!builder", users="ro@pve")
    assert task(sim, ok(sim, "POST", "/nodes/node1/qemu", form, token=token))[0] == "OK"

    add_guest(sim.state, "qemu", 300, "node1", {"scsi0": "local-lvm:8"})
    status, body = sim.request("POST", "/nodes/node1/qemu", {
        "vmid": "101", "scsi0": "local-lvm:0,import-from=local-lvm:vm-300-disk-0"}, token=token)
    assert (status, body["message"]) == (403, "Permission check failed (/vms/300, VM.Clone)\n")


def test_only_root_imports_from_a_host_path(sim):
    token = token_with(sim, "pathless", ("/", "Administrator"))
    status, body = sim.request("POST", "/nodes/node1/qemu", {
        "vmid": "100", "scsi0": "local-lvm:0,import-from=/root/debian-13.qcow2"}, token=token)
    assert status == 500 and body["message"].startswith("Only root can pass arbitrary filesystem paths."), body


@pytest.mark.parametrize("method", ["PUT", "POST"])
def test_an_update_imports_a_new_disk(sim, method):
    add_guest(sim.state, "qemu", 100, "node1", {"scsi0": "local-lvm:8"})
    answer = ok(sim, method, "/nodes/node1/qemu/100/config", {"scsi1": "local-lvm:0,import-from=" + IMAGE})
    if method == "POST":
        assert task(sim, answer)[0] == "OK"
    assert config(sim)["scsi1"] == "local-lvm:vm-100-disk-1,size=3G"
    status, body = sim.request(method, "/nodes/node1/qemu/100/config", {"scsi2": "local-lvm:4,import-from=" + IMAGE})
    assert (status, body.get("errors")) == (400, {"scsi2": "'import-from' requires special syntax - use <storage "
                                                           "ID>:0,import-from=<source>"})


# -- the simulator: a container from an OCI image (pve-container src/PVE/LXC/Create.pm restore_oci_archive) ---------

NGINX = {"Entrypoint": ["/docker-entrypoint.sh"], "Cmd": ["nginx", "-g", "daemon off;"],
         "Env": ["PATH=/usr/local/sbin:/usr/bin", "NGINX_VERSION=1.29.1"], "Volumes": {"/var/cache/nginx": {}}}
DEBIAN_RELEASE = 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nID=debian\nVERSION_ID="13"\n'


def seed_template(sim, name, data):
    with sim.state.lock:
        ensure_volumes(sim.state)["local"][f"vztmpl/{name}"] = {"size": len(data or b"x"), "vmid": None,
                                                                "format": None, "content": "vztmpl", "data": data}
    return f"local:vztmpl/{name}"


def create_ct(sim, ostemplate, **config):
    form = dict({"vmid": "200", "ostemplate": ostemplate, "rootfs": "local-lvm:2"}, **config)
    return task(sim, ok(sim, "POST", "/nodes/node1/lxc", form))


def ct_config(sim):
    conf = ok(sim, "GET", "/nodes/node1/lxc/200/config")
    conf.pop("digest")
    return conf


def test_an_application_image_runs_its_entrypoint_with_host_managed_network(sim):
    template = seed_template(sim, "nginx_latest.tar", make_oci_archive(NGINX, DEBIAN_RELEASE))
    exitstatus, lines = create_ct(sim, template, net0="name=eth0,bridge=vmbr0,ip=dhcp",
                                  net1="name=eth1,bridge=vmbr1,host-managed=0")
    assert exitstatus == "OK", lines
    assert lines[1:] == ["Detected OCI archive", "creating base directory for volume at /var/cache/nginx",
                         "Auto-Enabling host-managed network for network device net0."]
    conf = ct_config(sim)
    assert conf["entrypoint"] == "/docker-entrypoint.sh nginx -g 'daemon off;'" and conf["cmode"] == "console"
    assert conf["net0"].startswith("name=eth0,bridge=vmbr0,host-managed=1,hwaddr=BC:24:11:")
    assert "host-managed=0" in conf["net1"]  # set by the request: left as it is
    assert conf["env"] == "PATH=/usr/local/sbin:/usr/bin\0NGINX_VERSION=1.29.1"
    assert conf["ostype"] == "debian"  # from the image's os-release, not its file name


def test_a_system_image_keeps_init_and_its_network_as_declared(sim):
    template = seed_template(sim, "alpine_3.22.tar", make_oci_archive({"Cmd": ["/sbin/init"]}, "ID=alpine\n"))
    assert create_ct(sim, template, net0="name=eth0,bridge=vmbr0")[0] == "OK"
    conf = ct_config(sim)
    assert "entrypoint" not in conf and "cmode" not in conf and "host-managed" not in conf["net0"]
    assert conf["ostype"] == "alpine"


@pytest.mark.parametrize("os_release, exitstatus, ostype", [
    (None, "OK", "unmanaged"),
    ("ID=plan9\n", "unable to create CT 200 - unable to detect OS distribution", None),
    ("ID=rocky\n", "OK", "centos"),
])
def test_an_image_s_os_type_comes_from_its_os_release(sim, os_release, exitstatus, ostype):
    template = seed_template(sim, "busybox_latest.tar", make_oci_archive({"Cmd": ["sh"]}, os_release))
    status, lines = create_ct(sim, template)
    assert status == exitstatus, lines
    if ostype:
        assert ct_config(sim)["ostype"] == ostype
    if os_release is None:
        assert "/etc/os-release file not found and autodetection failed, falling back to 'unmanaged'" in lines


def test_a_tar_that_is_no_oci_archive_is_a_template_like_any(sim):
    template = seed_template(sim, "debian-13-custom_13.0-1_amd64.tar", None)
    exitstatus, lines = create_ct(sim, template)
    assert exitstatus == "OK" and f"extracting archive '{template}'" in lines
    assert ct_config(sim)["ostype"] == "debian" and "entrypoint" not in ct_config(sim)
