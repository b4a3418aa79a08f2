"""Storage content from outside the cluster: download-url, the appliance catalogue, OCI pulls and uploads.

Ports pve-storage ``API2/Storage/Status.pm`` (upload, download_url, oci_registry_pull, assert_ova_contents),
``Storage.pm`` (normalize_content_filename, ISO_EXT_RE_0, VZTMPL_EXT_RE_1, UPLOAD_IMPORT_EXT_RE_1,
SAFE_CHAR_CLASS_RE, decompressor_info, assert_iso_content) with ``Plugin.pm`` file_size_info's untrusted checks,
pve-common ``Tools.pm`` (download_file_from_url, get_file_hash) with ``Cmd.pm`` run (``errmsg``: the last line
the command wrote to stderr is the error, ``exit code N`` when it was empty), pve-manager ``API2/Nodes.pm``
(aplinfo, apl_download, query_url_metadata) over ``APLInfo.pm`` read_aplinfo_from_fh's records.

* The network: ``download-url`` really fetches its URL (as wget, certificates checked against the simulator's
  CA unless ``verify-certificates=0``) and ``query-url-metadata`` really sends a HEAD (as LWP), but only to
  loopback (127.0.0.0/8, ::1, ``localhost``): any other host fails as a host the node cannot resolve (an IP
  address: as a network it cannot reach). Tests serve files with ``simulator.fileserver.FileServer``.
* ``download-url`` runs its worker in a thread: the state lock is not held while it fetches, and the request
  answers once the task ended or after ``SETTLE`` seconds with the task still running (a server that hangs).
  The volume is written only when the task ends OK: a checksum mismatch leaves no file.
* ``aplinfo`` lists ``CATALOGUE``, a fixed catalogue whose files (``APPLIANCES``: template -> bytes) the
  simulator makes itself and serves as its own mirror: ``location`` is the real download URL, never contacted.
* ``oci-registry-pull`` pulls from ``state.oci_registry`` (``Simulator.seed_oci_image``), skopeo's stand-in.
* ``upload`` gets its file from pveproxy's stand-in (api.py ``_receive_upload``: ``state.upload_tmpfiles``);
  the task ``imgcopy`` runs on the member that received the file and copies it to the node named.
* A file keeps its bytes (``info["data"]``): a file downloaded again is checksummed as download_file_from_url
  does; a file without bytes (a seeded template) reads as ``synthetic_bytes(<its name>)``, so a seeded template
  of the catalogue has the catalogue's checksum. ``virtual_size(state, volid, node=None)`` (storage_content.py)
  is a qcow2 image's size as qemu-img reads it from the header.
"""

import bz2
import gzip
import hashlib
import http.client
import ipaddress
import io
import random
import re
import socket
import ssl
import struct
import tarfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from types import SimpleNamespace

from ...errors import ApiError, die, param_exc
from ..state import register_slice
from . import guests as g
from . import storage_content as sc
from .base import route
# virtual_size is the import-from helper's, importable from here too
from .storage_content import QCOW2_MAGIC, virtual_size  # noqa: F401  pylint: disable=unused-import
from .texts import encode_text

# pveproxy's temporary upload files (/var/tmp/pveupload-<md5>): name -> bytes, for the request's lifetime.
register_slice("upload_tmpfiles", dict, snapshot=False)
# The OCI registry stand-in: "<repository>:<tag>" (docker.io/library/alpine:3.22) -> the image's OCI archive.
register_slice("oci_registry", dict, snapshot=False)

RUNNING = 1e9     # a task's duration while its worker thread runs (the worker ends it)
SETTLE = 2.0      # how long a download's request waits for the task to end before it answers
WGET_TIMEOUT = 900.0  # wget's default read timeout
LWP_TIMEOUT = 180.0   # LWP::UserAgent's default timeout


# Storage.pm's file name rules, as Status.pm matches them (the end of the name only).
ISO_EXT = re.compile(r"[^/]+\.(?:iso|img)$", re.I)                              # ISO_EXT_RE_0
VZTMPL_EXT = re.compile(r"[^/]+\.(?:(tar)(?!\.)|tar\.(gz|xz|zst|bz2))$", re.I)   # VZTMPL_EXT_RE_1
UPLOAD_IMPORT_EXT = re.compile(r"[a-zA-Z0-9\-.+=_]+\.(ova|qcow2|raw|vmdk)$")     # SAFE_CHAR_CLASS_RE, ..._RE_1
# download_file_from_url takes the first checksum it is given in this order.
CHECKSUM_ORDER = ("sha512", "sha384", "sha256", "sha224", "sha1", "md5")
# decompressor_info('iso', ...): what the simulator can run of zcat, lzop, zstd and bzcat (Python 3.11 has no
# zstd and no lzo: "no decompression method found", as for a compression PVE does not know).
DECOMPRESSORS = {"gz": ("zcat", gzip.decompress, "gzip: {path}: not in gzip format"),
                 "bz2": ("bzcat -q", bz2.decompress, "bzcat: {path}: bad magic number (file not created by bzip2)")}


def normalize_content_filename(filename):
    """Storage.pm normalize_content_filename: no directory part, every character but [a-zA-Z0-9_.-] is ``_``."""
    if filename.endswith("\n"):
        filename = filename[:-1]  # chomp
    filename = re.sub(r"^.*[/\\]", "", filename)
    return re.sub(r"[^a-zA-Z0-9_.-]", "_", filename)


def _volname(content, filename, other):
    """Status.pm's checks of a normalized file name by content type: (volname, image format, is an OVA)."""
    if content == "iso":
        if not ISO_EXT.search(filename):
            raise param_exc({"filename": "wrong file extension"})
        return f"iso/{filename}", None, False
    if content == "vztmpl":
        if not VZTMPL_EXT.search(filename):
            raise param_exc({"filename": "wrong file extension"})
        return f"vztmpl/{filename}", None, False
    if content == "import":
        m = UPLOAD_IMPORT_EXT.search(filename)
        if not m:
            raise param_exc({"filename": "invalid filename or wrong extension"})
        return f"import/{filename}", None if m.group(1) == "ova" else m.group(1), m.group(1) == "ova"
    raise param_exc({"content": other})


def file_hash(algorithm, data):
    """Tools.pm get_file_hash: the lower-case hex digest."""
    return hashlib.new(algorithm, data).hexdigest()


def synthetic_bytes(name, size=4096):
    """The bytes of a file the simulator makes up (a catalogue appliance, a seeded template): the same for the
    same name, every time."""
    blocks = (hashlib.sha512(f"{name}:{index}".encode()).digest() for index in range(-(-size // 64)))
    return b"".join(blocks)[:size]


def file_bytes(info, volname):
    """What a file holds: its bytes, or (seeded without) the made-up bytes of its name."""
    data = info.get("data")
    return data if data is not None else synthetic_bytes(volname.rsplit("/", 1)[-1])


# -- the appliance catalogue ----------------------------------------------------------------------

_PROXMOX = "http://download.proxmox.com/images"
_TURNKEY = "https://releases.turnkeylinux.org/pve"
_PCT_INFO = "https://pve.proxmox.com/wiki/Linux_Container#pct_supported_distributions"


def _system(package, version, os_name, template, headline, description):
    """A record of aplinfo-pve-9.dat as read_aplinfo_from_fh makes it (keys lower-cased, location absolute)."""
    return {"package": package, "version": version, "type": "lxc", "os": os_name, "section": "system",
            "maintainer": "Proxmox Support Team <support@proxmox.com>", "architecture": "amd64",
            "location": f"{_PROXMOX}/system/{template}", "infopage": _PCT_INFO, "headline": headline,
            "description": description, "source": _PROXMOX, "template": template}


_RECORDS = (
    _system("debian-12-standard", "12.12-1", "debian-12", "debian-12-standard_12.12-1_amd64.tar.zst",
            "Debian 12 Bookworm (standard)", "A small Debian Bookworm system including all standard packages."),
    _system("debian-13-standard", "13.1-2", "debian-13", "debian-13-standard_13.1-2_amd64.tar.zst",
            "Debian 13 Trixie (standard)", "A small Debian Trixie system including all standard packages."),
    _system("ubuntu-24.04-standard", "24.04-2", "ubuntu-24.04", "ubuntu-24.04-standard_24.04-2_amd64.tar.zst",
            "Ubuntu 24.04 Noble (standard)",
            "A small Ubuntu 24.04 Noble Numbat system including all standard packages."),
    _system("alpine-3.22-default", "20250617", "alpine-3.22", "alpine-3.22-default_20250617_amd64.tar.xz",
            "Alpine Linux 3.22", "A small Alpine Linux 3.22 system."),
    {"package": "turnkey-wordpress", "version": "18.1-1", "type": "lxc", "os": "debian-12",
     "section": "turnkeylinux", "maintainer": "Turnkey Linux <support@turnkeylinux.org>", "architecture": "amd64",
     "location": "https://mirror.turnkeylinux.org/turnkeylinux/images/proxmox/"
                 "debian-12-turnkey-wordpress_18.1-1_amd64.tar.gz",
     "infopage": "https://www.turnkeylinux.org/wordpress", "headline": "TurnKey WordPress",
     "description": "Blog Publishing Platform", "source": _TURNKEY,
     "template": "debian-12-turnkey-wordpress_18.1-1_amd64.tar.gz"},
)
# template -> the file the simulator's mirror serves for it
APPLIANCES = {record["template"]: synthetic_bytes(record["template"]) for record in _RECORDS}


def _with_checksums(record):
    """A record with the checksums of its file: the Proxmox records carry md5sum and sha512sum, TurnKey's
    sha512sum only."""
    data = APPLIANCES[record["template"]]
    sums = {"sha512sum": file_hash("sha512", data)}
    if record["section"] == "system":
        sums["md5sum"] = file_hash("md5", data)
    return dict(record, **sums)


# template -> its record, as GET aplinfo lists it
CATALOGUE = {record["template"]: _with_checksums(record) for record in _RECORDS}


def appliance_sha512(template):
    """The catalogue's sha512sum of an appliance (its file's)."""
    return CATALOGUE[template]["sha512sum"]


# -- the node's network: loopback only ------------------------------------------------------------

class _Unreachable(Exception):
    """A host the simulated node cannot reach: every host but loopback."""

    def __init__(self, host, port):
        super().__init__(host)
        self.host, self.port = host, port
        try:
            ipaddress.ip_address(host)
            self.resolved, self.reason = True, "Network is unreachable"
        except ValueError:
            self.resolved, self.reason = False, "Temporary failure in name resolution"


def _host_port(url):
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    return parts.hostname or "", port or (443 if parts.scheme == "https" else 80)


def _assert_reachable(url):
    host, port = _host_port(url)
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise _Unreachable(host, port)


class _LoopbackRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to loopback, keeping the method (LWP redirects a HEAD as a HEAD)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        _assert_reachable(newurl)
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None:
            new.method = req.get_method()
        return new


def _open(url, method, verify, ca_path, timeout, agent):
    """One request from the node: no proxy, loopback only; the node trusts the simulator's CA."""
    _assert_reachable(url)
    if verify:
        context = ssl.create_default_context(cafile=ca_path)
    else:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), urllib.request.HTTPSHandler(context=context),
                                         _LoopbackRedirects())
    return opener.open(urllib.request.Request(url, method=method, headers={"User-Agent": agent}), timeout=timeout)


def _human(size):
    """wget's human_readable(size, 10, 1): 4.0K, 13K, 3.0M."""
    value = float(size)
    for unit in "KMGT":
        value /= 1024
        if value < 1024 or unit == "T":
            return f"{value:.1f}{unit}" if value < 10 else f"{round(value)}{unit}"
    return str(size)


def _stamp():
    return time.strftime("%Y-%m-%d %H:%M:%S")


def _run_failed(errmsg, lines, code, log):
    """Cmd.pm run with ``errmsg``: the stderr lines go to the log as they come, but the last, which is the error
    (``exit code N`` when it is empty); empty lines are never printed."""
    log.extend(line for line in lines[:-1] if line)
    raise die(f"{errmsg}: {lines[-1] if lines and lines[-1] else f'exit code {code}'}")


def wget(url, tmp, verify, ca_path, log):
    """``wget --progress=dot:giga -O <tmp> <url>`` under run_command(errmsg => 'download failed'): the bytes, or
    the die of its exit code 4 (network), 5 (certificate) or 8 (an HTTP error) with wget's own lines."""
    host, port = _host_port(url)
    lines = [f"--{_stamp()}--  {url}"]
    try:
        ipaddress.ip_address(host)
        connecting = f"Connecting to {host}:{port}..."
    except ValueError:
        lines.append(f"Resolving {host} ({host})... 127.0.0.1")
        connecting = f"Connecting to {host} ({host})|127.0.0.1|:{port}..."
    started = time.time()
    try:
        with _open(url, "GET", verify, ca_path, WGET_TIMEOUT, "Wget/1.25.0") as resp:
            lines += [f"{connecting} connected.",
                      f"HTTP request sent, awaiting response... {resp.status} {resp.reason}"]
            length = resp.headers.get("Content-Length")
            kind = resp.headers.get("Content-Type") or ""
            size_text = "unspecified" if length is None else length
            if length is not None and int(length) >= 1024:
                size_text += f" ({_human(int(length))})"
            lines += [f"Length: {size_text}" + (f" [{kind}]" if kind else ""), f"Saving to: '{tmp}'", ""]
            data = resp.read()
    except _Unreachable as err:
        if err.resolved:
            lines.append(f"Connecting to {err.host}:{err.port}... failed: {err.reason}.")
        else:
            lines[1:] = [f"Resolving {err.host} ({err.host})... failed: {err.reason}.",
                         f"wget: unable to resolve host address '{err.host}'"]
        _run_failed("download failed", lines, 4, log)
    except urllib.error.HTTPError as err:
        lines += [f"{connecting} connected.", f"HTTP request sent, awaiting response... {err.code} {err.reason}",
                  f"{_stamp()} ERROR {err.code}: {err.reason}.", ""]
        _run_failed("download failed", lines, 8, log)
    except urllib.error.URLError as err:
        if isinstance(err.reason, ssl.SSLCertVerificationError):  # Debian's wget is built with GnuTLS
            lines += [f"{connecting} connected.", f"ERROR: The certificate of '{host}' is not trusted.",
                      f"ERROR: The certificate of '{host}' doesn't have a known issuer."]
            _run_failed("download failed", lines, 5, log)
        if isinstance(err.reason, ConnectionRefusedError):
            lines.append(f"{connecting} failed: Connection refused.")
        else:
            lines += [f"{connecting} connected.", "HTTP request sent, awaiting response... No data received.",
                      "Giving up.", ""]
        _run_failed("download failed", lines, 4, log)
    except (OSError, http.client.HTTPException):  # a timeout or a connection lost while reading
        lines += ["Read error (Connection timed out) in headers.", "Giving up.", ""]
        _run_failed("download failed", lines, 4, log)
    rate = len(data) / max(time.time() - started, 1e-6) / 1024 ** 2
    lines += [f"{_stamp()} ({rate:.1f} MB/s) - '{tmp}' saved [{len(data)}/{len(data)}]", ""]
    log.extend(line for line in lines if line)
    return data


def lwp_head(url, verify, ca_path):
    """LWP::UserAgent->request(HEAD): (code, message, headers or None); a failure to connect is LWP's own 500."""
    host, port = _host_port(url)
    try:
        with _open(url, "HEAD", verify, ca_path, LWP_TIMEOUT, "Proxmox VE") as resp:
            return resp.status, resp.reason, resp.headers
    except _Unreachable as err:
        return 500, f"Can't connect to {err.host}:{err.port} ({err.reason})", None
    except urllib.error.HTTPError as err:
        return err.code, err.reason, err.headers
    except urllib.error.URLError as err:
        if isinstance(err.reason, ssl.SSLCertVerificationError):
            return 500, f"Can't connect to {host}:{port} (certificate verify failed)", None
        if isinstance(err.reason, ConnectionRefusedError):
            return 500, f"Can't connect to {host}:{port} (Connection refused)", None
        if isinstance(err.reason, (socket.timeout, TimeoutError)):
            return 500, "read timeout", None
        return 500, "Server closed connection without sending any data back", None
    except (OSError, http.client.HTTPException):
        return 500, "read timeout", None


# -- workers ----------------------------------------------------------------------------------------

def fork_worker(ctx, node, wtype, wid, work):
    """RPCEnvironment::fork_worker for a work that waits on the network. ``work(log)`` runs in a thread of its
    own and takes the state lock itself where it reads the state; it returns a ``commit()`` making its change,
    or None. The change is made (under the lock) only when the task ends OK or with warnings and was not stopped
    meanwhile; ``state.task_outcomes[wtype]`` forces the end as for every task. The request waits up to
    ``SETTLE`` seconds for the end, so a quick download answers with a finished task like every other task."""
    state = ctx.state
    forced = state.task_outcomes.pop(wtype, None)
    upid = state.start_task(node, wtype, wid, ctx.authid, duration=RUNNING)
    task = state.tasks[upid]
    ended = threading.Condition(state.lock)

    def run():
        commit = None
        try:
            commit = work(task.lines)
            status = "OK"
        except ApiError as err:
            status = err.stringify().rstrip("\n").split("\n", 1)[0]
        # a simulator bug ends the task, not the thread
        except Exception as err:  # pylint: disable=broad-except
            status = f"simulator internal error: {err}"
        with ended:
            if task.running():  # not stopped by DELETE .../tasks/{upid}
                status = forced if forced is not None else status
                if commit is not None and (status == "OK" or status.startswith("WARNINGS")):
                    commit()
                task.exitstatus = status
                task.duration = time.time() - task.started
            ended.notify_all()

    threading.Thread(target=run, name=f"pve-sim-{wtype}", daemon=True).start()
    with ended:  # waiting releases the state lock: the worker needs it, and so do the other requests
        ended.wait_for(lambda: not task.running(), SETTLE)
    return upid


def _target(state, sid, node, volname, content):
    """The file a worker writes: where (its path, for the log) and how it is stored."""
    return SimpleNamespace(state=state, sid=sid, node=node, volname=volname, content=content,
                           path=sc.volume_path(state, f"{sid}:{volname}"))


def _existing(target):
    """The bytes of the target file on its node, or None (``-f $dest``)."""
    with target.state.lock:
        info = g.volume(target.state, f"{target.sid}:{target.volname}", target.node)
        return None if info is None else file_bytes(info, target.volname)


def _store(target, data):
    """Write the target file: its bytes, size and the time it was made."""
    info = {"size": len(data), "vmid": None, "format": None, "content": target.content, "data": data,
            "ctime": int(time.time())}
    g.put_file(target.state, target.sid, target.node, target.volname, info)


def download_file_from_url(target, url, fetch, sums, pid, log, decompress=None, validate=None):
    """Tools.pm download_file_from_url: an existing file is kept when its checksum is right (or refused);
    ``fetch(tmp, log)`` gets the bytes, then the checksum, ``decompress(data, tmp_download, tmp_decomp, log)``,
    ``validate(data, tmp)``. Returns the commit that writes the file (None: nothing to write); a die leaves
    nothing behind."""
    algorithm = next((name for name in CHECKSUM_ORDER if sums.get(name) is not None), None)
    expected = sums.get(algorithm)
    log.append(f"downloading {url} to {target.path}")
    existing = _existing(target)
    if existing is not None:
        if algorithm is None:
            raise die(f"refusing to override existing file '{target.path}'")
        got = file_hash(algorithm, existing)
        if got.lower() == expected.lower():
            log.append("calculating checksum of existing file...OK, got correct file already, no need to download")
            return None
        log.append("calculating checksum of existing file...")
        raise die(f"checksum mismatch: got '{got}' != expect '{expected}', aborting")
    tmp_download, tmp_decomp = f"{target.path}.tmp_dwnl.{pid}", f"{target.path}.tmp_dcom.{pid}"
    data = fetch(tmp_download, log)
    if algorithm is not None:
        got = file_hash(algorithm, data)
        if got.lower() != expected.lower():
            log.append("calculating checksum...")
            raise die(f"checksum mismatch: got '{got}' != expect '{expected}'")
        log.append("calculating checksum...OK, checksum verified")
    if decompress is not None:
        log.append(f"decompressing {tmp_download} to {tmp_decomp}")
        data = decompress(data, tmp_download, log)
    if validate is not None:
        try:
            validate(data, tmp_decomp if decompress is not None else tmp_download, log)
        except ApiError as err:
            raise die(f"failed to verify file: {err.message}") from err
    log.append(f"download of '{url}' to '{target.path}' finished")
    return lambda: _store(target, data)


def _decompressor(compression, content):
    """The worker's first step: decompression is for ISO images only, by a method the simulator has."""
    if content != "iso":
        raise die(f"decompression not supported for {content}")
    if compression not in DECOMPRESSORS:
        raise die("no decompression method found")
    command, function, complaint = DECOMPRESSORS[compression]

    def decompress(data, tmp_download, log):
        try:
            return function(data)
        except (OSError, EOFError, ValueError) as err:  # run_command without errmsg: stderr goes to the log
            log.append(complaint.format(path=tmp_download))
            raise die(f"command '{command} {tmp_download}' failed: exit code 1") from err
    return decompress


def _qcow2_backing(data):
    """The backing file offset of a qcow2 header (big-endian u64 at 8), 0 when there is none."""
    return struct.unpack(">Q", data[8:16])[0] if data[:4] == QCOW2_MAGIC and len(data) >= 16 else 0


def _validator(content, image_format, is_ova):
    """Status.pm assert_file_validity: an ISO image must not be a disk image with a backing file
    (assert_iso_content), an OVA must hold an .ovf (assert_ova_contents), an image must be what its extension
    says, without a backing file (file_size_info, untrusted)."""
    def validate(data, path, log):
        if content == "iso" and _qcow2_backing(data):
            raise die(f"backing file not allowed for untrusted image '{path}'!")
        if is_ova:
            try:
                with tarfile.open(fileobj=io.BytesIO(data)) as archive:
                    names = archive.getnames()
            except (tarfile.TarError, EOFError) as err:
                log.append("tar: This does not look like a tar archive")
                raise die(f"command 'tar -t -f {path}' failed: exit code 2") from err
            if not any(name.endswith(".ovf") for name in names):
                raise die("ova archive has no .ovf file inside")
        elif image_format == "qcow2":
            if data[:4] != QCOW2_MAGIC:  # qemu-img info -f qcow2 fails; its stderr is the die
                log.append(f"command '/usr/bin/qemu-img info --output=json {path} -f qcow2' failed: exit code 1")
                raise die(f"qemu-img: Could not open '{path}': Image is not in qcow2 format")
            if _qcow2_backing(data):
                raise die(f"backing file not allowed for untrusted image '{path}'!")
    return validate


# -- POST /nodes/{node}/storage/{storage}/download-url ---------------------------------------------

def _worker_pid():
    """The ``$$`` of a worker, in its temporary file names (the task's own pid is drawn when it is recorded)."""
    return random.randint(0x1000, 0x3FFFFF)


def _path_storage(state, sid, node, text):
    """storage_check_enabled, then a storage with a path (the others cannot hold files)."""
    scfg = g.check_storage_enabled(state, sid, node)
    if scfg.get("path") is None:
        raise die(text.format(type=scfg["type"]))
    return scfg


@route("POST", "/nodes/{node}/storage/{storage}/download-url")
def download_url(ctx, p):
    """Status.pm download_url: the checks before the worker (storage, content, file name), then the task
    ``download`` (id: the file name) running download_file_from_url with the checksum given."""
    state, node, sid, content, url = ctx.state, p["node"], p["storage"], p["content"], p["url"]
    _path_storage(state, sid, node, "can't upload to storage type '{type}', not a file based storage!")
    if content not in g.storage_content(state, sid)[1]:
        raise die(f"storage '{sid}' is not configured for content-type '{content}'")
    filename = normalize_content_filename(p["filename"])
    volname, image_format, is_ova = _volname(content, filename, f"upload content-type '{content}' is not allowed")
    target = _target(state, sid, node, volname, content)
    verify, ca_path = p.get("verify-certificates", 1), ctx.member.sim.tls.ca_path
    sums = {p["checksum-algorithm"]: p["checksum"]} if p.get("checksum") else {}
    compression = p.get("compression")

    def work(log):
        decompress = _decompressor(compression, content) if compression else None
        return download_file_from_url(target, url, lambda tmp, out: wget(url, tmp, verify, ca_path, out), sums,
                                      pid, log, decompress, _validator(content, image_format, is_ova))

    pid = _worker_pid()
    return fork_worker(ctx, node, "download", encode_text(filename), work)


# -- GET/POST /nodes/{node}/aplinfo ------------------------------------------------------------------

@route("GET", "/nodes/{node}/aplinfo")
def aplinfo(ctx, p):
    """Nodes.pm aplinfo: every record of the catalogue (APLInfo.pm load_data's ``all``)."""
    return [dict(record) for record in CATALOGUE.values()]


def _mirror(template, location):
    """The simulator's own mirror of download.proxmox.com: wget's lines, the appliance's bytes."""
    def fetch(tmp, log):
        data = APPLIANCES[template]
        log.extend([f"--{_stamp()}--  {location}", "HTTP request sent, awaiting response... 200 OK",
                    f"Length: {len(data)} ({_human(len(data))}) [application/octet-stream]", f"Saving to: '{tmp}'",
                    f"{_stamp()} (100 MB/s) - '{tmp}' saved [{len(data)}/{len(data)}]"])
        return data
    return fetch


@route("POST", "/nodes/{node}/aplinfo")
def apl_download(ctx, p):
    """Nodes.pm apl_download: the template must be in the catalogue (a parameter error), the storage must
    take templates; the task ``download`` (id: the template) fetches it with the catalogue's checksums."""
    state, node, sid, template = ctx.state, p["node"], p["storage"], p["template"]
    appliance = CATALOGUE.get(template)
    if appliance is None:
        raise param_exc({"template": "no such template"})
    g.check_storage_enabled(state, sid, node)
    if appliance["type"] not in ("openvz", "lxc"):
        raise die(f"unknown template type '{appliance['type']}'")
    if "vztmpl" not in g.storage_content(state, sid)[1]:
        raise die(f"storage '{sid}' does not support templates")
    target = _target(state, sid, node, f"vztmpl/{template}", "vztmpl")
    sums = {"sha512": appliance.get("sha512sum"), "md5": appliance.get("md5sum")}

    def work(log):
        commit = download_file_from_url(target, appliance["location"], _mirror(template, appliance["location"]),
                                        sums, _worker_pid(), log)
        if commit is not None:
            commit()

    return g.run_task(ctx, node, "download", template, work)


# -- GET /nodes/{node}/query-url-metadata ---------------------------------------------------------

@route("GET", "/nodes/{node}/query-url-metadata")
def query_url_metadata(ctx, p):
    """Nodes.pm query_url_metadata: a HEAD to the URL (the state lock released while it waits), anything but a
    200 dies ``invalid server response``; the file name from Content-Disposition or the URL's last part, the
    size from Content-Length, the type without its parameters."""
    url, verify, ca_path = p["url"], p.get("verify-certificates", 1), ctx.member.sim.tls.ca_path
    answer = []
    done = threading.Condition(ctx.state.lock)

    def head():
        result = lwp_head(url, verify, ca_path)
        with done:
            answer.append(result)
            done.notify_all()

    threading.Thread(target=head, name="pve-sim-head", daemon=True).start()
    with done:
        done.wait_for(lambda: answer)
    code, message, headers = answer[0]
    if code != 200:
        raise die(f"invalid server response: '{code} {message}'")
    size, disposition, kind = (headers.get(name) for name in ("Content-Length", "Content-Disposition", "Content-Type"))
    filename = None
    m = disposition and (re.search(r'filename="([^"]*)"', disposition) or re.search(r"filename=([^;]*)", disposition))
    if m:
        filename = m.group(1)
    else:
        m = re.match(r"^[^?]+/([^?/]*)(?:\?.*)?$", url)
        filename = m.group(1) if m else None
    m = re.match(r"^([^;]+);", kind or "")
    if m:
        kind = m.group(1)
    res = {}
    if filename:
        res["filename"] = filename
    if size and size != "0":
        res["size"] = int(size)
    if kind:
        res["mimetype"] = kind
    return res


# -- POST /nodes/{node}/storage/{storage}/oci-registry-pull ----------------------------------------

def _oci_image(reference):
    """What skopeo makes of a reference: (repository with its registry, tag); docker.io and library/ are added
    as the containers' short-name rules do."""
    name, _sep, tag = reference.rpartition(":")
    first = name.split("/", 1)[0]
    if "/" not in name:
        name = f"docker.io/library/{name}"
    elif "." not in first and ":" not in first and first != "localhost":
        name = f"docker.io/{name}"
    return name, tag


def seed_oci_image(state, reference, data):
    """Put an image into the registry stand-in (``Simulator.seed_oci_image``): ``reference`` as a pull names it
    (``alpine:3.22``, ``ghcr.io/org/image:tag``), ``data`` the OCI archive a pull writes."""
    with state.lock:
        state.oci_registry["%s:%s" % _oci_image(reference)] = bytes(data)


@route("POST", "/nodes/{node}/storage/{storage}/oci-registry-pull")
def oci_registry_pull(ctx, p):
    """Status.pm oci_registry_pull: a storage with a path that takes templates, the file
    ``normalize_content_filename(filename // reference).tar`` must not exist; the task ``ociregistrypull`` (id:
    the file name) runs ``skopeo copy docker://<reference> oci-archive:<tmp>`` against the registry stand-in."""
    state, node, sid, reference = ctx.state, p["node"], p["storage"], p["reference"]
    _path_storage(state, sid, node, "can't upload to storage type '{type}', not a file based storage!")
    if "vztmpl" not in g.storage_content(state, sid)[1]:
        raise die(f"storage '{sid}' is not configured for content-type 'vztmpl'")
    filename = normalize_content_filename(p.get("filename") or reference) + ".tar"
    target = _target(state, sid, node, f"vztmpl/{filename}", "vztmpl")
    directory = target.path.rsplit("/", 1)[0]
    if _existing(target) is not None:
        raise die(f"refusing to override existing file '{filename}'")
    tmp = f"{directory}/{filename}.tmp.{_worker_pid()}"
    repository, tag = _oci_image(reference)

    def work(log):
        data = state.oci_registry.get(f"{repository}:{tag}")
        if data is None:  # skopeo's fatal log line on stderr, then run_command's die
            log.append(f'time="{time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}" level=fatal '
                       f'msg="Error initializing source docker://{reference}: reading manifest {tag} in '
                       f'{repository}: manifest unknown"')
            raise die(f"command 'skopeo copy docker://{reference} oci-archive:{tmp}' failed: exit code 1")
        digest = hashlib.sha256(data).hexdigest()
        log.extend(["Getting image source signatures", f"Copying blob sha256:{digest}",
                    f"Copying config sha256:{hashlib.sha256(digest.encode()).hexdigest()}",
                    "Writing manifest to image destination"])
        _store(target, data)

    return g.run_task(ctx, node, "ociregistrypull", encode_text(filename), work)


# -- POST /nodes/{node}/storage/{storage}/upload --------------------------------------------------

@route("POST", "/nodes/{node}/storage/{storage}/upload")
def upload(ctx, p):
    """Status.pm upload: the file pveproxy received (``tmpfilename``), its name's checks, the storage must take
    the content; the task ``imgcopy`` (no id) runs on the member that received it: the checksum, the file's
    checks, then ``cp`` to the storage (``scp`` to another node)."""
    state, node, sid, content = ctx.state, p["node"], p["storage"], p["content"]
    _path_storage(state, sid, node, "can't upload to storage type '{type}'")
    tmpfilename = p.get("tmpfilename")
    if not tmpfilename:
        raise die("missing temporary file name")
    data = state.upload_tmpfiles.get(tmpfilename)
    if data is None:
        raise die(f"temporary file '{tmpfilename}' does not exist")
    filename = normalize_content_filename(p["filename"])
    volname, image_format, is_ova = _volname(content, filename, f"upload content type '{content}' not allowed")
    if content not in g.storage_content(state, sid)[1]:
        raise die(f"storage '{sid}' does not support '{content}' content")
    target = _target(state, sid, node, volname, content)
    if node == ctx.node:
        command = f"cp -- {tmpfilename} {target.path}"
    else:
        if node not in state.nodes:  # Cluster.pm remote_node_ip, then its hostname fallback
            raise die(f"hostname lookup '{node}' failed - failed to get address info for: {node}: "
                      "Name or service not known")
        command = (f"/usr/bin/scp -o BatchMode=yes -o HostKeyAlias={node} -o "
                   f"UserKnownHostsFile=/etc/pve/nodes/{node}/ssh_known_hosts -o GlobalKnownHostsFile=none -p -- "
                   f"{tmpfilename} [{state.nodes[node]['ip']}]:{target.path}")
    algorithm, checksum = p.get("checksum-algorithm"), p.get("checksum")

    def work(log):
        log.append(f"starting file import from: {tmpfilename}")
        if algorithm:
            got = file_hash(algorithm, data)
            if got.lower() != checksum.lower():
                log.append("calculating checksum...")
                raise die(f"checksum mismatch: got '{got}' != expect '{checksum}'")
            log.append("calculating checksum...OK, checksum verified")
        _validator(content, image_format, is_ova)(data, tmpfilename, log)
        log.extend([f"target node: {node}", f"target file: {target.path}", f"file size is: {len(data)}",
                    f"command: {command}"])
        _store(target, data)
        log.append("finished file import successfully")

    return g.run_task(ctx, ctx.node, "imgcopy", "", work)
