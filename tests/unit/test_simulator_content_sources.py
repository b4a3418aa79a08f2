"""The simulator's storage content sources (tests/simulator/pve/handlers/content_sources.py, the upload path of
tests/simulator/http.py and pve/api.py, the node's own files of guests.py and storage_content.py) over real HTTPS:
download-url from a file server on 127.0.0.1 with the checksum checks of download_file_from_url, the appliance
catalogue, query-url-metadata, OCI pulls from the registry stand-in, multipart uploads, and where the files land.

Run: python -m pytest tests/unit/test_simulator_content_sources.py -q
"""

import bz2
import gzip
import hashlib
import http.client
import io
import json
import struct
import sys
import tarfile
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import
from simulator.fileserver import FileServer  # noqa: E402
from simulator.pve.handlers import content_sources  # noqa: E402
from simulator.pve.handlers.content_sources import APPLIANCES, CATALOGUE, appliance_sha512, virtual_size  # noqa: E402

ISO = b"ISO9660 image " * 300
SHA256 = hashlib.sha256(ISO).hexdigest()
DOWNLOAD = "/nodes/node1/storage/local/download-url"
NFS = {"type": "nfs", "path": "/mnt/pve/shared", "server": "10.0.0.9", "export": "/export",
       "content": {"iso", "vztmpl", "import"}}


@pytest.fixture(autouse=True)
def clean(sim):
    """Every test starts with local's seeded files only (local takes ISO images, templates and import images), a
    shared NFS storage ``shared``, no ACLs of its own, an empty registry."""
    state = sim.state
    with state.lock:
        for table in (state.volumes, state.node_volumes, state.volume_ctimes, state.oci_registry, state.acl,
                      state.task_outcomes):
            table.clear()
        state.storage["local"]["content"] = {"iso", "vztmpl", "backup", "import"}
        state.storage["shared"] = dict(NFS, content=set(NFS["content"]))
    yield


@pytest.fixture
def files():
    with FileServer() as server:
        yield server


def ok(sim, method, path, form=None, **kwargs):
    status, body = sim.request(method, path, form, **kwargs)
    assert status == 200, (method, path, form, body)
    return body["data"]


def err(message, status=500, errors=None):
    body = {"data": None, "message": message}
    if errors:
        body["errors"] = errors
    return status, body


def task(sim, upid):
    """The finished task: (exitstatus, its log lines without the final one)."""
    node = upid.split(":")[1]
    status = ok(sim, "GET", f"/nodes/{node}/tasks/{upid}/status")
    assert status["status"] == "stopped", status
    lines = [row["t"] for row in ok(sim, "GET", f"/nodes/{node}/tasks/{upid}/log", {"limit": 0})]
    return status["exitstatus"], lines[:-1]


def download(sim, url, filename="debian.iso", content="iso", node="node1", storage="local", **extra):
    """POST download-url: (exitstatus, log lines) of its task."""
    form = {"url": url, "content": content, "filename": filename, **extra}
    return task(sim, ok(sim, "POST", f"/nodes/{node}/storage/{storage}/download-url", form))


def volumes(sim, node="node1", storage="local", content=None):
    """volid -> entry of a storage's content list on a node."""
    items = ok(sim, "GET", f"/nodes/{node}/storage/{storage}/content", {"content": content} if content else None)
    return {item["volid"]: item for item in items}


def token_with(sim, name, *grants):
    """A privilege-separated token of ``dl@pve`` with ``grants`` ((path, role) pairs)."""
    state = sim.state
    if "dl@pve" not in state.users:
        state.add_user("dl@pve")
    secret = state.add_token("dl@pve", name, privsep=1)
    for path, role in grants:
        state.set_acl(path, role, users="dl@pve", tokens=f"dl@pve!{name}")
    return f"dl@pve!{name}", secret


def qcow2(virtual, backing=False):
    """A qcow2 header: magic, version 3, the backing file offset, the virtual size (u64 at 24)."""
    return b"QFI\xfb" + struct.pack(">IQIIQ", 3, 512 if backing else 0, 0, 16, virtual) + b"\0" * 480


# -- download-url ----------------------------------------------------------------------------------------

def test_download_with_the_right_checksum_writes_the_file(sim, files):
    url = files.add("/isos/debian.iso", ISO)
    upid = ok(sim, "POST", DOWNLOAD, {"url": url, "content": "iso", "filename": "debian.iso",
                                      "checksum": SHA256.upper(), "checksum-algorithm": "sha256"})
    assert ":download:debian.iso:root@pam!sim:" in upid and upid.startswith("UPID:node1:")
    status, lines = task(sim, upid)
    assert status == "OK"
    assert lines[0] == f"downloading {url} to /var/lib/vz/template/iso/debian.iso"
    assert lines[1].endswith(f"--  {url}") and "HTTP request sent, awaiting response... 200 OK" in lines
    assert f"Length: {len(ISO)} (4.1K) [application/octet-stream]" in lines
    assert lines[-2:] == ["calculating checksum...OK, checksum verified",
                          f"download of '{url}' to '/var/lib/vz/template/iso/debian.iso' finished"]
    entry = volumes(sim)["local:iso/debian.iso"]
    assert entry == {"volid": "local:iso/debian.iso", "format": "iso", "size": len(ISO), "content": "iso",
                     "ctime": entry["ctime"]} and abs(entry["ctime"] - time.time()) < 60
    assert ok(sim, "GET", "/nodes/node1/storage/local/content/local:iso/debian.iso") == \
        {"path": "/var/lib/vz/template/iso/debian.iso", "size": len(ISO), "used": len(ISO), "format": "raw"}
    assert files.requests == [("GET", "/isos/debian.iso")]


def test_a_wrong_checksum_fails_the_task_and_leaves_nothing(sim, files):
    url = files.add("/debian.iso", ISO)
    status, lines = download(sim, url, checksum="0" * 64, **{"checksum-algorithm": "sha256"})
    assert status == f"checksum mismatch: got '{SHA256}' != expect '{'0' * 64}'"
    assert lines[-1] == "calculating checksum..."
    assert "local:iso/debian.iso" not in volumes(sim)
    sim.state.task_outcomes["download"] = "unexpected failure"  # a task that dies at its end keeps nothing either
    assert download(sim, url)[0] == "unexpected failure" and "local:iso/debian.iso" not in volumes(sim)


def test_an_existing_file_is_kept_checked_or_refused(sim, files):
    url = files.add("/debian.iso", ISO)
    assert download(sim, url)[0] == "OK"
    files.requests.clear()
    status, lines = download(sim, url, checksum=hashlib.md5(ISO).hexdigest(), **{"checksum-algorithm": "md5"})
    assert status == "OK" and lines[-1] == \
        "calculating checksum of existing file...OK, got correct file already, no need to download"
    status, lines = download(sim, url, checksum="ab" * 16, **{"checksum-algorithm": "md5"})
    assert status == f"checksum mismatch: got '{hashlib.md5(ISO).hexdigest()}' != expect '{'ab' * 16}', aborting"
    assert lines[-1] == "calculating checksum of existing file..."
    assert download(sim, url)[0] == "refusing to override existing file '/var/lib/vz/template/iso/debian.iso'"
    assert files.requests == []  # an existing file downloads nothing


def test_gzip_and_bzip2_decompress_an_iso_only(sim, files):
    url = files.add("/debian.iso.gz", gzip.compress(ISO))
    status, lines = download(sim, url, compression="gz")
    assert status == "OK" and any(line.startswith("decompressing /var/lib/vz/template/iso/debian.iso.tmp_dwnl.")
                                  for line in lines)
    assert volumes(sim)["local:iso/debian.iso"]["size"] == len(ISO)
    assert download(sim, files.add("/b.iso.bz2", bz2.compress(ISO)), "b.iso", compression="bz2")[0] == "OK"
    assert volumes(sim)["local:iso/b.iso"]["size"] == len(ISO)
    status, lines = download(sim, files.add("/c.iso", ISO), "c.iso", compression="gz")
    assert status.startswith("command 'zcat /var/lib/vz/template/iso/c.iso.tmp_dwnl.") and \
        status.endswith("' failed: exit code 1") and lines[-1].endswith(": not in gzip format")
    assert download(sim, url, "d.iso", compression="zst")[0] == "no decompression method found"
    assert download(sim, url, "t.tar.gz", "vztmpl", compression="gz")[0] == "decompression not supported for vztmpl"
    assert "local:iso/c.iso" not in volumes(sim)


@pytest.mark.parametrize("content, filename, errors", [
    ("iso", "debian.qcow2", {"filename": "wrong file extension"}),
    ("vztmpl", "debian.tar.lz4", {"filename": "wrong file extension"}),
    ("import", "debian.iso", {"filename": "invalid filename or wrong extension"}),
    ("import", "debian.QCOW2", {"filename": "invalid filename or wrong extension"}),  # no /i there
])
def test_file_names_are_checked_before_the_task(sim, content, filename, errors):
    assert sim.request("POST", DOWNLOAD, {"url": "http://127.0.0.1:9/x", "content": content,
                                          "filename": filename}) == err("Parameter verification failed.\n", 400,
                                                                        errors)


def test_file_names_are_normalized(sim, files):
    assert download(sim, files.add("/x", ISO), "../isos/my disk (1).ISO")[0] == "OK"
    assert "local:iso/my_disk__1_.ISO" in volumes(sim)


def test_the_storage_must_hold_files_of_that_content(sim):
    form = {"url": "http://127.0.0.1:9/x.img", "content": "import", "filename": "x.raw"}
    sim.state.storage["local"]["content"] = {"iso"}
    assert sim.request("POST", DOWNLOAD, form) == \
        err("storage 'local' is not configured for content-type 'import'\n")
    assert sim.request("POST", "/nodes/node1/storage/local-lvm/download-url", form) == \
        err("can't upload to storage type 'lvmthin', not a file based storage!\n")


def test_only_loopback_is_reachable(sim):
    status, lines = download(sim, "https://cloud.debian.org/images/debian-13.qcow2", "d.qcow2", "import")
    assert status == "download failed: wget: unable to resolve host address 'cloud.debian.org'"
    assert lines[-1] == "Resolving cloud.debian.org (cloud.debian.org)... failed: Temporary failure in name " \
                        "resolution."
    assert download(sim, "http://10.1.2.3/d.raw", "d.raw", "import")[0] == \
        "download failed: Connecting to 10.1.2.3:80... failed: Network is unreachable."
    assert download(sim, "http://127.0.0.1:9/d.raw", "d.raw", "import")[0] == \
        "download failed: Connecting to 127.0.0.1:9... failed: Connection refused."


def test_an_http_error_fails_as_wget_exits(sim, files):
    url = files.add("/debian.iso", ISO)
    files.fail("/debian.iso", 404)
    status, lines = download(sim, url)
    assert status == "download failed: exit code 8" and lines[-1].endswith(" ERROR 404: Not Found.")


def test_certificates_are_verified_unless_told_not_to(sim):
    with FileServer(tls=True) as foreign, FileServer(tls=sim.tls) as trusted:
        url = foreign.add("/debian.iso", ISO)
        assert download(sim, url)[0] == "download failed: ERROR: The certificate of '127.0.0.1' doesn't have a " \
                                        "known issuer."
        assert download(sim, url, **{"verify-certificates": 0})[0] == "OK"
        assert download(sim, trusted.add("/t.iso", ISO), "t.iso")[0] == "OK"  # the nodes trust the simulator's CA


def test_a_hanging_server_leaves_the_task_running(sim, files, monkeypatch):
    monkeypatch.setattr(content_sources, "SETTLE", 0.2)
    url = files.add("/slow.iso", ISO)
    files.hang("/slow.iso")
    upid = ok(sim, "POST", DOWNLOAD, {"url": url, "content": "iso", "filename": "slow.iso"})
    assert ok(sim, "GET", f"/nodes/node1/tasks/{upid}/status")["status"] == "running"
    assert ok(sim, "GET", "/nodes/node2/version")  # the simulator still answers while the worker waits
    files.release()
    deadline = time.time() + 5
    while ok(sim, "GET", f"/nodes/node1/tasks/{upid}/status")["status"] == "running" and time.time() < deadline:
        time.sleep(0.05)
    assert task(sim, upid)[0].startswith("download failed: ") and "local:iso/slow.iso" not in volumes(sim)


def test_download_needs_network_access_besides_the_storage(sim, files):
    url = files.add("/debian.iso", ISO)
    storage_only = token_with(sim, "store", ("/storage/local", "PVEDatastoreAdmin"))
    form = {"url": url, "content": "iso", "filename": "debian.iso"}
    assert sim.request("POST", DOWNLOAD, form, token=storage_only)[0] == 403
    network = token_with(sim, "net", ("/storage/local", "PVEDatastoreAdmin"), ("/nodes/node1", "Administrator"))
    assert task(sim, ok(sim, "POST", DOWNLOAD, form, token=network))[0] == "OK"


# -- import images: format and virtual size ----------------------------------------------------------------

def test_a_qcow2_import_image_knows_its_virtual_size(sim, files):
    image = qcow2(10 * 1024 ** 3)
    assert download(sim, files.add("/cloud.qcow2", image), "cloud.qcow2", "import")[0] == "OK"
    assert download(sim, files.add("/disk.raw", ISO), "disk.raw", "import")[0] == "OK"
    listed = volumes(sim, content="import")
    assert {volid: (item["format"], item["size"]) for volid, item in listed.items()} == \
        {"local:import/cloud.qcow2": ("qcow2", len(image)), "local:import/disk.raw": ("raw", len(ISO))}
    assert ok(sim, "GET", "/nodes/node1/storage/local/content/local:import/cloud.qcow2") == \
        {"path": "/var/lib/vz/import/cloud.qcow2", "size": 10 * 1024 ** 3, "used": len(image), "format": "qcow2"}
    assert virtual_size(sim.state, "local:import/cloud.qcow2") == 10 * 1024 ** 3
    assert virtual_size(sim.state, "local:import/disk.raw", "node1") == len(ISO)
    assert virtual_size(sim.state, "local:import/disk.raw", "node2") is None
    status, lines = download(sim, files.add("/fake.qcow2", ISO), "fake.qcow2", "import")
    assert status.startswith("failed to verify file: qemu-img: Could not open '/var/lib/vz/import/fake.qcow2.tmp")
    status = download(sim, files.add("/backed.qcow2", qcow2(1024, backing=True)), "backed.qcow2", "import")[0]
    assert status.startswith("failed to verify file: backing file not allowed for untrusted image")
    assert set(volumes(sim, content="import")) == set(listed)


# -- the appliance catalogue ----------------------------------------------------------------------------

def test_aplinfo_lists_the_catalogue(sim):
    listed = {entry["template"]: entry for entry in ok(sim, "GET", "/nodes/node2/aplinfo")}
    assert set(listed) == set(APPLIANCES) == set(CATALOGUE) and len(listed) == 5
    debian = listed["debian-12-standard_12.12-1_amd64.tar.zst"]
    assert debian["location"] == "http://download.proxmox.com/images/system/debian-12-standard_12.12-1_amd64.tar.zst"
    assert {key: debian[key] for key in ("os", "section", "package", "version", "type", "architecture")} == \
        {"os": "debian-12", "section": "system", "package": "debian-12-standard", "version": "12.12-1",
         "type": "lxc", "architecture": "amd64"}
    assert debian["sha512sum"] == hashlib.sha512(APPLIANCES[debian["template"]]).hexdigest() == \
        appliance_sha512(debian["template"])
    assert debian["md5sum"] == hashlib.md5(APPLIANCES[debian["template"]]).hexdigest()
    assert {"headline", "description", "infopage", "maintainer", "source"} <= set(debian)
    turnkey = [entry for entry in listed.values() if entry["section"] == "turnkeylinux"]
    assert len(turnkey) == 1 and "md5sum" not in turnkey[0] and turnkey[0]["source"].startswith("https://")


def test_apl_download_fetches_from_the_simulators_own_mirror(sim):
    template = "debian-13-standard_13.1-2_amd64.tar.zst"
    upid = ok(sim, "POST", "/nodes/node2/aplinfo", {"storage": "local", "template": template})
    assert f":download:{template}:" in upid and upid.startswith("UPID:node2:")
    status, lines = task(sim, upid)
    assert status == "OK" and lines[0] == f"downloading {CATALOGUE[template]['location']} to " \
                                          f"/var/lib/vz/template/cache/{template}"
    assert "calculating checksum...OK, checksum verified" in lines
    entry = volumes(sim, "node2")[f"local:vztmpl/{template}"]
    assert (entry["format"], entry["size"]) == ("tzst", len(APPLIANCES[template]))
    assert f"local:vztmpl/{template}" not in volumes(sim, "node1")
    # a seeded template that is in the catalogue is the catalogue's file
    status, lines = task(sim, ok(sim, "POST", "/nodes/node1/aplinfo", {
        "storage": "local", "template": "ubuntu-24.04-standard_24.04-2_amd64.tar.zst"}))
    assert status == "OK" and lines[-1].endswith("OK, got correct file already, no need to download")
    assert sim.request("POST", "/nodes/node1/aplinfo", {"storage": "local", "template": "nope.tar.zst"}) == \
        err("Parameter verification failed.\n", 400, {"template": "no such template"})
    assert sim.request("POST", "/nodes/node1/aplinfo", {"storage": "local-lvm", "template": template}) == \
        err("storage 'local-lvm' does not support templates\n")


# -- query-url-metadata ---------------------------------------------------------------------------------

def test_query_url_metadata_heads_the_url(sim, files):
    url = files.add("/dl/image.qcow2", ISO, {"Content-Type": "application/x-qemu-disk; charset=binary"})
    assert ok(sim, "GET", "/nodes/node1/query-url-metadata", {"url": url + "?token=1"}) == \
        {"filename": "image.qcow2", "size": len(ISO), "mimetype": "application/x-qemu-disk"}
    named = files.add("/dl/get", ISO, {"Content-Disposition": 'attachment; filename="debian-13.iso"'})
    assert ok(sim, "GET", "/nodes/node1/query-url-metadata", {"url": named})["filename"] == "debian-13.iso"
    assert files.requests == [("HEAD", "/dl/image.qcow2"), ("HEAD", "/dl/get")]
    files.fail("/dl/get", 403)
    assert sim.request("GET", "/nodes/node1/query-url-metadata", {"url": named}) == \
        err("invalid server response: '403 Forbidden'\n")
    assert sim.request("GET", "/nodes/node1/query-url-metadata", {"url": "http://mirror.example.org/x.iso"}) == \
        err("invalid server response: '500 Can't connect to mirror.example.org:80 (Temporary failure in name "
            "resolution)'\n")


# -- oci-registry-pull ----------------------------------------------------------------------------------

def test_oci_pull_from_the_seeded_registry(sim):
    image = b"oci archive bytes" * 50
    sim.seed_oci_image("alpine:3.22", image)
    pull = "/nodes/node3/storage/local/oci-registry-pull"
    upid = ok(sim, "POST", pull, {"reference": "docker.io/library/alpine:3.22"})
    assert ":ociregistrypull:alpine_3.22.tar:" in upid
    assert task(sim, upid)[0] == "OK"
    entry = volumes(sim, "node3")["local:vztmpl/alpine_3.22.tar"]
    assert (entry["format"], entry["size"], entry["content"]) == ("tar", len(image), "vztmpl")
    assert sim.request("POST", pull, {"reference": "alpine:3.22"}) == \
        err("refusing to override existing file 'alpine_3.22.tar'\n")
    assert task(sim, ok(sim, "POST", pull, {"reference": "alpine:3.22", "filename": "mine"}))[0] == "OK"
    status, lines = task(sim, ok(sim, "POST", pull, {"reference": "ghcr.io/org/app:9"}))
    assert status.startswith("command 'skopeo copy docker://ghcr.io/org/app:9 oci-archive:/var/lib/vz/template/"
                             "cache/app_9.tar.tmp.") and status.endswith("' failed: exit code 1")
    assert lines[-1].endswith('msg="Error initializing source docker://ghcr.io/org/app:9: reading manifest 9 in '
                              'ghcr.io/org/app: manifest unknown"')
    assert set(volumes(sim, "node3", content="vztmpl")) >= {"local:vztmpl/alpine_3.22.tar", "local:vztmpl/mine.tar"}
    assert "local:vztmpl/app_9.tar" not in volumes(sim, "node3")


# -- upload -----------------------------------------------------------------------------------------------

def multipart(fields, filename, data, field="filename", boundary="simboundary42"):
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
             for name, value in fields]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
                 f'Content-Type: application/octet-stream\r\n\r\n'.encode() + data + f"\r\n--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def post_upload(sim, body, content_type, node="node1", storage="local", member=0, query="", token=None):
    """A raw upload to member ``member``: (status, reason, body text); status None when no answer came."""
    host, port = sim.members[member].split(":")
    conn = http.client.HTTPSConnection(host, int(port), timeout=10, context=sim.tls.client_context())
    token_id, secret = token or (sim.token_id, sim.token_secret)
    try:
        conn.request("POST", f"/api2/json/nodes/{node}/storage/{storage}/upload{query}", body=body,
                     headers={"Authorization": f"PVEAPIToken={token_id}={secret}", "Content-Type": content_type})
        resp = conn.getresponse()
        return resp.status, resp.reason, resp.read().decode()
    except (http.client.RemoteDisconnected, ConnectionError):
        return None, None, None
    finally:
        conn.close()


def test_an_upload_is_copied_by_the_receiving_member(sim):
    body, ctype = multipart([("content", "iso"), ("checksum-algorithm", "sha256"), ("checksum", SHA256)],
                            "installer.iso", ISO)
    status, _reason, text = post_upload(sim, body, ctype, node="node2", member=0)
    assert status == 200
    upid = json.loads(text)["data"]
    assert upid.startswith("UPID:node1:") and ":imgcopy::root@pam!sim:" in upid
    exitstatus, lines = task(sim, upid)
    assert exitstatus == "OK" and lines[0].startswith("starting file import from: /var/tmp/pveupload-")
    assert lines[1:4] == ["calculating checksum...OK, checksum verified", "target node: node2",
                          "target file: /var/lib/vz/template/iso/installer.iso"]
    assert lines[4] == f"file size is: {len(ISO)}" and lines[5].startswith("command: /usr/bin/scp -o BatchMode=yes")
    assert volumes(sim, "node2")["local:iso/installer.iso"]["size"] == len(ISO)
    assert "local:iso/installer.iso" not in volumes(sim, "node1")
    assert sim.state.upload_tmpfiles == {}  # the temporary file is gone with the request
    logged = [e for e in sim.log if e["path"] == "/nodes/node2/storage/local/upload"][-1]
    assert logged["form"] == {"content": "iso", "checksum-algorithm": "sha256", "checksum": SHA256,
                              "filename": "installer.iso"} and logged["status"] == 200


def test_a_large_upload_beyond_the_form_limit(sim):
    data = bytes(range(256)) * (3 * 4096)  # 3 MiB
    body, ctype = multipart([("content", "import")], "big.raw", data)
    status, _reason, text = post_upload(sim, body, ctype)
    assert status == 200
    assert task(sim, json.loads(text)["data"])[0] == "OK"
    entry = volumes(sim, content="import")["local:import/big.raw"]
    assert entry["size"] == len(data) and entry["format"] == "raw"
    assert sim.state.node_volumes["node1"]["local"]["import/big.raw"]["data"] == data


def test_upload_refusals(sim):
    body, ctype = multipart([("content", "iso"), ("checksum-algorithm", "md5"), ("checksum", "0" * 32)], "a.iso", ISO)
    status, _reason, text = post_upload(sim, body, ctype)
    exitstatus, lines = task(sim, json.loads(text)["data"])
    assert exitstatus == f"checksum mismatch: got '{hashlib.md5(ISO).hexdigest()}' != expect '{'0' * 32}'"
    assert lines[-1] == "calculating checksum..." and "local:iso/a.iso" not in volumes(sim)
    body, ctype = multipart([("content", "iso")], "a.iso", ISO, field="file")
    message = "wrong field name 'file' for file upload, expected 'filename' at " \
              "/usr/share/perl5/PVE/APIServer/AnyEvent.pm line 1325."
    assert post_upload(sim, body, ctype) == (500, message, message + "\n")
    assert post_upload(sim, body, "application/octet-stream") == (None, None, None)  # pveproxy only warns
    body, ctype = multipart([("content", "iso")], "a.iso", ISO)
    assert post_upload(sim, body, ctype, query="?tmpfilename=/var/tmp/pveupload-00") == (None, None, None)
    assert [e["status"] for e in sim.log if e["path"] == "/nodes/node1/storage/local/upload"][-2:] == [None, None]
    # without a body it is no upload: the method itself finds no file
    assert post_upload(sim, b"", "text/plain", query="?content=iso&filename=a.iso")[:2] == \
        (500, "missing temporary file name")
    status, _reason, text = post_upload(sim, *multipart([("content", "iso")], "a.qcow2", ISO))
    assert (status, json.loads(text)["errors"]) == (400, {"filename": "wrong file extension"})
    sim.state.storage["local"]["content"] = {"vztmpl"}
    status, reason, _text = post_upload(sim, *multipart([("content", "iso")], "a.iso", ISO))
    assert (status, reason) == (500, "storage 'local' does not support 'iso' content")
    reader = token_with(sim, "reader", ("/storage/local", "PVEDatastoreUser"))
    assert post_upload(sim, body, ctype, token=reader)[:2] == \
        (403, "Permission check failed (/storage/local, Datastore.AllocateTemplate)")


def test_an_ova_upload_must_hold_an_ovf(sim):
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as tar:
        info = tarfile.TarInfo("disk.vmdk")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"abc"))
    status, _reason, text = post_upload(sim, *multipart([("content", "import")], "appliance.ova", archive.getvalue()))
    assert task(sim, json.loads(text)["data"])[0] == "ova archive has no .ovf file inside"


# -- where the files are: a node's own on a local storage, one on a shared storage ---------------------------

def test_files_on_a_local_storage_are_each_nodes_own(sim, files):
    url = files.add("/debian.iso", ISO)
    assert download(sim, url, node="node2")[0] == "OK"
    assert "local:iso/debian.iso" in volumes(sim, "node2")
    assert "local:iso/debian.iso" not in volumes(sim, "node1") and "local:iso/debian.iso" not in volumes(sim, "node3")
    assert sim.request("GET", "/nodes/node1/storage/local/content/local:iso/debian.iso") == \
        err("volume_size_info on 'local:iso/debian.iso' failed - no format\n")
    other = files.add("/other.iso", ISO[:100])
    assert download(sim, other, node="node3")[0] == "OK"  # the same name, another file, on another node
    assert volumes(sim, "node3")["local:iso/debian.iso"]["size"] == 100
    assert task(sim, ok(sim, "DELETE", "/nodes/node3/storage/local/content/local:iso/debian.iso"))[0] == "OK"
    assert "local:iso/debian.iso" in volumes(sim, "node2") and "local:iso/debian.iso" not in volumes(sim, "node3")
    seeded = "local:iso/debian-12.7.0-amd64-netinst.iso"
    assert all(seeded in volumes(sim, node) for node in ("node1", "node2", "node3"))
    assert task(sim, ok(sim, "DELETE", f"/nodes/node1/storage/local/content/{seeded}"))[0] == "OK"
    assert seeded not in volumes(sim, "node1") and seeded in volumes(sim, "node2")


def test_a_file_on_a_shared_storage_is_one_for_every_node(sim, files):
    url = files.add("/debian.iso", ISO)
    assert download(sim, url, node="node2", storage="shared")[0] == "OK"
    assert all("shared:iso/debian.iso" in volumes(sim, node, "shared") for node in ("node1", "node2", "node3"))
    assert download(sim, url, node="node3", storage="shared")[0] == \
        "refusing to override existing file '/mnt/pve/shared/template/iso/debian.iso'"
    assert task(sim, ok(sim, "DELETE", "/nodes/node1/storage/shared/content/shared:iso/debian.iso"))[0] == "OK"
    assert not any("shared:iso/debian.iso" in volumes(sim, node, "shared") for node in ("node1", "node2", "node3"))
