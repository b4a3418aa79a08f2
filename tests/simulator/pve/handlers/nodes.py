"""/nodes/{node}: the node index, its version and status, and the RRD reads of nodes, guests and storages.

Ports pve-manager ``PVE/API2/Nodes.pm`` (index, version, status, rrddata), qemu-server and pve-container
``API2/Qemu.pm`` / ``API2/LXC.pm`` rrddata, pve-storage ``API2/Storage/Status.pm`` rrddata and pve-cluster
``PVE/RRD.pm`` create_rrd_data.

A node's status is built as Nodes.pm status builds it from pve-common ``ProcFSTools.pm`` (read_proc_uptime,
read_loadavg, read_cpuinfo, read_proc_stat, read_meminfo) and ``df('/')``, with static figures that agree with
``/nodes`` and ``/cluster/resources``: 8 threads, 32 GiB of memory (3 GiB used), a 100 GiB root file system
(5 GiB used), uptime 123456 s. The types are Perl's: regex captures are strings (``loadavg``, ``mhz``,
``family``, ``hvm``), computed figures numbers.

The RRD reads answer an empty list for an RRD file pvestatd writes (a node of the cluster, any guest, a storage
enabled on the node); for any other name the RRD library fails as create_rrd_data reports it (500
``RRD error: ...``). No handler checks that the guest or storage exists.
"""

from ...errors import die
from .base import route
from .guests import storage_enabled_on

GIB = 1024 ** 3
KERNEL_RELEASE = "6.14.8-2-pve"
KERNEL_VERSION = "#1 SMP PREEMPT_DYNAMIC PMX 6.14.8-2 (2025-07-22T10:04Z)"
RRD_DIR = "/var/lib/rrdcached/db"
RRDCACHED = "unix:/var/run/rrdcached.sock"

# Nodes.pm index: every child of /nodes/{node}, as the source lists them
CHILDREN = (
    "aplinfo", "apt", "capabilities", "ceph", "certificates", "config", "disks", "dns", "firewall",
    "hardware", "hosts", "journal", "lxc", "migrateall", "netstat", "network", "qemu",
    "query-oci-repo-tags", "query-url-metadata", "replication", "report", "rrd", "rrddata", "scan", "sdn",
    "services", "spiceshell", "startall", "status", "stopall", "storage", "subscription", "suspendall",
    "syslog", "tasks", "termproxy", "time", "version", "vncshell", "vzdump", "wakeonlan")


@route("GET", "/nodes/{node}")
def index(ctx, p):
    """Nodes.pm index: the children, whatever the node (no proxyto, no check)."""
    return [{"name": name} for name in CHILDREN]


@route("GET", "/nodes/{node}/version")
def node_version(ctx, p):
    """Nodes.pm version: pvecfg version_info."""
    return {key: ctx.state.version[key] for key in ("version", "release", "repoid")}


def _cpuinfo():
    """ProcFSTools.pm read_cpuinfo: ``family`` and ``mhz`` are regex captures, ``hvm`` the match result "1"."""
    return {"user_hz": 100, "vendor": "GenuineIntel", "family": "6",
            "model": "Intel(R) Xeon(R) CPU E5-2630 v3 @ 2.40GHz", "mhz": "2399.998",
            "cpus": 8, "sockets": 1, "cores": 4, "hvm": "1",
            "flags": "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr "
                     "sse sse2 ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology cpuid pni "
                     "pclmulqdq vmx ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c "
                     "rdrand hypervisor lahf_lm abm cpuid_fault pti tpr_shadow flexpriority ept vpid fsgsbase "
                     "bmi1 avx2 smep bmi2 erms invpcid xsaveopt arat"}


@route("GET", "/nodes/{node}/status")
def node_status(ctx, p):
    """Nodes.pm status: every key the code sets (``idle`` stays 0: the code never stores read_proc_uptime's
    idle figure; ``kversion`` is the legacy "sysname release version" string)."""
    version = ctx.state.version
    memory_total, memory_available, memory_free = 32 * GIB, 29 * GIB, 27 * GIB
    rootfs_total, rootfs_used, rootfs_avail = 100 * GIB, 5 * GIB, 90 * GIB
    return {
        "uptime": 123456,
        "idle": 0,
        "loadavg": ["0.12", "0.08", "0.05"],
        "kversion": f"Linux {KERNEL_RELEASE} {KERNEL_VERSION}",
        "current-kernel": {"sysname": "Linux", "release": KERNEL_RELEASE, "version": KERNEL_VERSION,
                           "machine": "x86_64"},
        "boot-info": {"mode": "efi", "secureboot": 0},
        "cpuinfo": _cpuinfo(),
        "cpu": 0.0123,
        "wait": 0.0004,
        "memory": {"free": memory_free, "total": memory_total, "available": memory_available,
                   "used": memory_total - memory_available},
        "ksm": {"shared": 0},
        "swap": {"free": 8 * GIB, "total": 8 * GIB, "used": 0},
        "pveversion": f"pve-manager/{version['version']}/{version['repoid']}",
        "rootfs": {"total": rootfs_total, "avail": rootfs_avail, "used": rootfs_used,
                   "free": rootfs_total - rootfs_used},
    }


def _rrd_data(name, exists):
    """RRD.pm create_rrd_data: RRDs::fetch through rrdcached; a missing file fails in the daemon's fetch
    (rrd_open's "opening '...'" text, prefixed by the client), which create_rrd_data dies with."""
    if not exists:
        raise die(f"RRD error: rrdcached@{RRDCACHED}: rrd_fetch_r failed: opening '{RRD_DIR}/{name}': "
                  "No such file or directory")
    return []


@route("GET", "/nodes/{node}/rrddata")
def node_rrddata(ctx, p):
    """Nodes.pm rrddata (``pve-node-9.0/<node>``; no proxyto, so any well-formed node name reaches it)."""
    return _rrd_data(f"pve-node-9.0/{p['node']}", p["node"] in ctx.state.nodes)


@route("GET", "/nodes/{node}/qemu/{vmid}/rrddata")
def qemu_rrddata(ctx, p):
    """Qemu.pm rrddata: ``pve-vm-9.0/<vmid>``, the one file of the guest, whatever its type or node."""
    return _rrd_data(f"pve-vm-9.0/{p['vmid']}", p["vmid"] in ctx.state.guests)


@route("GET", "/nodes/{node}/lxc/{vmid}/rrddata")
def lxc_rrddata(ctx, p):
    """LXC.pm rrddata: the same file as Qemu.pm's."""
    return _rrd_data(f"pve-vm-9.0/{p['vmid']}", p["vmid"] in ctx.state.guests)


@route("GET", "/nodes/{node}/storage/{storage}/rrddata")
def storage_rrddata(ctx, p):
    """Storage/Status.pm rrddata: ``pve-storage-9.0/<node>/<storage>``, written by the node's pvestatd for
    each storage enabled there."""
    node, sid = p["node"], p["storage"]
    exists = sid in ctx.state.storage and storage_enabled_on(ctx.state, sid, node)
    return _rrd_data(f"pve-storage-9.0/{node}/{sid}", exists)
