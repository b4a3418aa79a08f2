"""/nodes/{node}/qemu/{vmid}/cloudinit: a VM's cloud-init state and the data its drive would carry (qemu-server 9).

Ports ``API2/Qemu.pm`` cloudinit_pending, cloudinit_update and cloudinit_generated_config_dump,
``QemuServer.pm`` vmconfig_hotplug_pending's ``$cloudinit_record_changed`` and vmconfig_update_cloudinit_drive,
and ``QemuServer/Cloudinit.pm`` (cloudinit_userdata, nocloud_network, configdrive2_network, the metadata,
get_dns_conf, get_hostname_fqdn, get_cloudinit_format, get_custom_cloudinit_files, apply_cloudinit_config,
dump_cloudinit_config).

* The ``[special:cloudinit]`` section is ``guest["cloudinit"]`` (key -> text, ``added`` a sorted list): when a
  running VM takes a cloud-init relevant option live (the ``ci*`` options, ``nameserver``, ``searchdomain``,
  ``sshkeys``, ``ipconfigN``, ``name``, ``netN``), ``record_change`` keeps the value the drive was generated
  with (or lists the key as ``added``) as ``$cloudinit_record_changed`` does; regenerating the drive
  (``PUT .../cloudinit``, a start, a reboot, a stopped VM taking a new cloud-init drive) drops a non-empty
  section (``apply_cloudinit_config``). ``guests.file_text`` writes it while the VM has a cloud-init drive.
  ``cipassword`` never goes through [PENDING] in update_vm_api (it is set in the config at once), so it is
  never recorded.
* ``GET .../cloudinit`` lists the added keys (``pending``), then each set ``ci*``/``nameserver``/
  ``searchdomain``/``sshkeys`` option (``value``, plus ``pending`` when the section holds its old value), then
  every recorded key the config no longer has (``delete: 1``). PVE walks a Perl hash here (no fixed order);
  the simulator sorts. ``cipassword`` reads ``**********``.
* ``GET .../cloudinit/dump?type=user|network|meta`` is the generated text for ``nocloud`` (the default) or
  ``configdrive2`` (``citype``, or a Windows ``ostype``; ``opennebula`` dumps as configdrive2 too, as PVE
  does). The password shows only to a caller with VM.Config.Cloudinit. Without ``nameserver``/``searchdomain``
  the node's resolv.conf is used (``node_settings.resolv_conf``, the file ``GET /nodes/{node}/dns`` reads).
"""

import base64
import binascii
import hashlib
import ipaddress
import json
import re
import struct
import urllib.parse

from ...errors import die, locked
from ...formats import split_list
from . import guests as g
from .base import route
from .node_settings import resolv_conf
from .texts import perl_true

TYP = "qemu"
BASE = "/nodes/{node}/qemu"
MASK = "**********"

# API2/Qemu.pm $cloudinitoptions: what cloudinit_pending reports as value/pending.
CLOUDINIT_OPTIONS = ("cicustom", "cipassword", "citype", "ciupgrade", "ciuser", "nameserver", "searchdomain",
                     "sshkeys")
# QemuServer.pm cloudinit_pending_properties: $confdesc_cloudinit (the options above and ipconfigN), name, netN.
_PENDING_PROPERTY = re.compile(r"^(ci(custom|password|type|user|upgrade)|nameserver|searchdomain|sshkeys|name"
                               r"|ipconfig([0-9]|[12][0-9]|3[01])|net([0-9]|[12][0-9]|3[01]))$")


# -- sshkeys ------------------------------------------------------------------------------------------

# OpenSSH 10's sshkey.c key types (PVE 9 runs Debian 13's ssh-keygen, which has no DSA), plain and certificates.
_SSH_TYPES = ("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
              "sk-ecdsa-sha2-nistp256@openssh.com", "sk-ssh-ed25519@openssh.com")
SSH_KEY_TYPES = _SSH_TYPES + tuple(t.replace("@openssh.com", "") + "-cert-v01@openssh.com" for t in _SSH_TYPES)


def _sshkey_read(text):
    """sshkey_read: ``<type> <base64>``, the blob's own type name the written one; whether it read a key."""
    fields = re.split(r"[ \t]+", text, maxsplit=2)
    if len(fields) < 2 or fields[0] not in SSH_KEY_TYPES:
        return False
    try:
        blob = base64.b64decode(fields[1], validate=True)
    except (binascii.Error, ValueError):
        return False
    if len(blob) < 4:
        return False
    (length,) = struct.unpack(">I", blob[:4])
    return blob[4:4 + length] == fields[0].encode() and len(blob) >= 4 + length


def _fingerprints(line):
    """ssh-keygen -l on a one-line file (do_fingerprint): a comment or blank line is no key; a line that does not
    read as a key is read again past its first field (authorized_keys options, quoted strings whole)."""
    line = line.lstrip(" \t")
    if not line or line.startswith("#"):
        return False
    if _sshkey_read(line):
        return True
    index, quoted = 0, False
    while index < len(line) and (quoted or line[index] not in " \t"):
        if line[index] == "\\" and line[index + 1:index + 2] == '"':
            index += 1
        elif line[index] == '"':
            quoted = not quoted
        index += 1
    return _sshkey_read(line[index:].lstrip(" \t"))


def validate_ssh_public_keys(encoded):
    """API2/Qemu.pm create_vm / update_vm_api: ``URI::Escape::uri_unescape($ssh_keys)``, then
    PVE::Tools::validate_ssh_public_keys: ``ssh-keygen -l`` on every line that is not blank."""
    for line in urllib.parse.unquote(encoded).split("\n"):
        if re.match(r"^\s*$", line):
            continue
        if not _fingerprints(line):
            raise die("SSH public key validation error")


# -- the [special:cloudinit] section ---------------------------------------------------------------

def record_change(guest, key, old, new):
    """vmconfig_hotplug_pending's $cloudinit_record_changed: a live change of ``key`` from ``old`` to ``new``
    (None: absent) noted against the values the cloud-init drive was generated with."""
    if not _PENDING_PROPERTY.match(key):
        return
    section = guest.setdefault("cloudinit", {})  # ($conf->{'special-sections'}->{cloudinit} //= {})
    recorded = section.get(key)
    added = set(split_list(section.pop("added", None) or ""))
    if new is not None:
        if recorded is not None:
            if new == recorded:  # reverted to the cloud-init state
                section.pop(key, None)
                added.discard(key)
        elif key not in added:
            if old is not None:
                section[key] = old
            else:
                added.add(key)
    elif old is not None:
        if recorded is None:
            if key in added:
                added.discard(key)
            else:
                section[key] = old
    if added:
        section["added"] = ",".join(sorted(added))


def record_live_change(guest, key, old, new):
    """record_change for what the simulator's update puts through [PENDING]: update_vm_api writes ``cipassword``
    straight into the config, so PVE never records it."""
    if key != "cipassword":
        record_change(guest, key, old, new)


def has_changes(guest):
    """Cloudinit.pm has_changes: the section holds something."""
    return bool(guest.get("cloudinit"))


def apply_config(state, guest):
    """Cloudinit.pm apply_cloudinit_config: generate the drive (the custom snippets must be readable), then drop
    a section that held changes. Returns whether it did."""
    if g.has_cloudinit_drive(guest.get("config") or {}):
        custom_files(state, guest.get("config") or {})
    if not has_changes(guest):
        return False
    del guest["cloudinit"]
    return True


def update_drive(state, guest):
    """QemuServer.pm vmconfig_update_cloudinit_drive: nothing without a cloud-init drive."""
    if g.has_cloudinit_drive(guest.get("config") or {}):
        apply_config(state, guest)


def custom_files(state, conf):
    """get_custom_cloudinit_files + read_cloudinit_snippets_file: each ``cicustom`` volume must be a snippet that
    exists (its text is not simulated)."""
    if not conf.get("cicustom"):
        return
    files = _key_values(conf["cicustom"])
    for kind in ("network", "user", "meta", "vendor"):
        volid = files.get(kind)
        if not volid:
            continue
        if g.parse_volname(state, volid)[0] != "snippets":
            raise die(f"{volid} is not in the snippets directory")
        if g.volume(state, volid) is None:
            raise die(f"can't find file '{volid}'")


# -- GET/PUT .../cloudinit ------------------------------------------------------------------------

def _typed(key, value):
    return None if value is None else g.typed(TYP, key, value)


@route("GET", BASE + "/{vmid}/cloudinit")
def cloudinit_pending(ctx, p):
    """API2/Qemu.pm cloudinit_pending over load_config (the current values, not [PENDING])."""
    guest = g.load_guest(ctx.state, TYP, p["node"], p["vmid"])
    conf = g.file_conf(guest)
    section = dict(guest.get("cloudinit") or {})
    if "cipassword" in conf:
        conf["cipassword"] = MASK
    if "cipassword" in section:
        section["cipassword"] = MASK
    res = []
    added = section.pop("added", None) or ""
    for key in split_list(added):
        res.append({"key": key, "pending": _typed(key, conf.get(key))})
    for key in CLOUDINIT_OPTIONS:
        # `next if $added =~ m/$opt/`: a substring match, as the source has it
        if not perl_true(conf.get(key)) or re.search(key, added):
            continue
        item = {"key": key}
        if perl_true(section.get(key)):
            item["value"] = section[key]
            item["pending"] = _typed(key, conf[key])
        else:
            item["value"] = _typed(key, conf[key])
        res.append(item)
    for key in sorted(section):
        if not perl_true(conf.get(key)):
            res.append({"key": key, "delete": 1})
    return res


@route("PUT", BASE + "/{vmid}/cloudinit")
def cloudinit_update(ctx, p):
    """API2/Qemu.pm cloudinit_update: check_lock, then vmconfig_update_cloudinit_drive (synchronous)."""
    state = ctx.state
    with locked(state):
        guest = g.load_guest(state, TYP, p["node"], p["vmid"])
        g.check_lock(guest)
        update_drive(state, guest)
    return None


# -- the generated files ---------------------------------------------------------------------------

def _perl_split_space(text):
    r"""split(/\s+/, $text): a leading empty field kept, trailing ones dropped, nothing for ''."""
    fields = re.split(r"\s+", text) if text else []
    while fields and fields[-1] == "":
        fields.pop()
    return fields


def hostname_fqdn(conf, vmid):
    """Cloudinit.pm get_hostname_fqdn."""
    hostname = conf.get("name") if conf.get("name") is not None else f"VM{vmid}"
    if "." in hostname:
        return hostname.split(".", 1)[0], hostname
    if perl_true(conf.get("searchdomain")):
        return hostname, f"{hostname}.{conf['searchdomain']}"
    return hostname, hostname


def dns_conf(state, node, conf):
    """Cloudinit.pm get_dns_conf: the config's searchdomain/nameserver, else the host's resolv.conf."""
    host = resolv_conf(state, node)
    search = conf.get("searchdomain")
    if search is None:
        search = host.get("search")
    searchdomains = _perl_split_space(search or "")
    if conf.get("nameserver") is None:
        nameservers = [host[k] for k in ("dns1", "dns2", "dns3") if perl_true(host.get(k))]
    else:
        nameservers = _perl_split_space(conf["nameserver"])
    return searchdomains, nameservers


def _ssh_keys(text):
    """uri_unescape, split(/\\n/), chomp, the lines with a non-space."""
    keys = urllib.parse.unquote(text).split("\n")
    return [key for key in keys if re.search(r"\S", key)]


def userdata(conf, vmid, mask_password=False):
    """Cloudinit.pm cloudinit_userdata."""
    hostname, fqdn = hostname_fqdn(conf, vmid)
    out = f"#cloud-config\nhostname: {hostname}\nmanage_etc_hosts: true\nfqdn: {fqdn}\n"
    username, password = conf.get("ciuser"), conf.get("cipassword")
    if username is not None:
        out += f"user: {username}\n"
        if username == "root":
            out += "disable_root: False\n"
    if password is not None:
        out += f"password: {MASK if mask_password else password}\n"
    if conf.get("sshkeys") is not None:
        out += "ssh_authorized_keys:\n" + "".join(f"  - {key}\n" for key in _ssh_keys(conf["sshkeys"]))
    out += "chpasswd:\n  expire: False\n"
    if username != "root":
        out += "users:\n  - default\n"
    if conf.get("ciupgrade") is None or perl_true(conf["ciupgrade"]):
        out += "package_upgrade: true\n"
    return out


def _key_values(text):
    """A ``key=value,...`` property string of a named format (pve-qm-ipconfig, pve-qm-cicustom): the schema
    validated it when it was set."""
    return dict(part.split("=", 1) for part in (text or "").split(",") if "=" in part)


def _ipconfig(text):
    """QemuServer/Network.pm parse_ipconfig: None for an inconsistent one, dhcp/dhcp when neither is set."""
    res = _key_values(text)
    ip6_static = res.get("ip6") not in (None, "auto", "dhcp")
    if (res.get("gw") and not res.get("ip")) or (res.get("gw6") and not res.get("ip6")) \
            or (res.get("gw") and res.get("ip") == "dhcp") or (res.get("gw6") and not ip6_static):
        return None
    if not res.get("ip") and not res.get("ip6"):
        return {"ip": "dhcp", "ip6": "dhcp"}
    return res


def _nics(conf):
    """The netN keys that have an ipconfigN, in Perl's string sort (net10 before net2)."""
    for key in sorted(k for k in conf if re.match(r"^net\d+$", k)):
        index = key[3:]
        if perl_true(conf.get(f"ipconfig{index}")):
            yield key, index, _ipconfig(conf[f"ipconfig{index}"]) or {}


def _split_ip4(cidr):
    """Cloudinit.pm split_ip4: the address and the dotted netmask of its prefix."""
    if "/" not in cidr:
        raise die(f"not a CIDR: {cidr}")
    addr, prefix = cidr.split("/", 1)
    return addr, str(ipaddress.IPv4Network(f"0.0.0.0/{prefix}").netmask)


def nocloud_network(state, node, conf):
    """Cloudinit.pm nocloud_network (network config version 1)."""
    out = "version: 1\nconfig:\n"
    for key, index, ipconfig in _nics(conf):
        i = "    "
        mac = (g.parse_ps(g.option_format(TYP, key), conf[key]).get("macaddr") or "").lower()
        if not mac:
            raise die(f"network interface '{key}' has no mac address")
        out += f"{i}- type: physical\n{i}  name: eth{index}\n{i}  mac_address: '{mac}'\n{i}  subnets:\n"
        i += "  "
        ip = ipconfig.get("ip")
        if ip is not None:
            if ip == "dhcp":
                out += f"{i}- type: dhcp4\n"
            else:
                addr, mask = _split_ip4(ip)
                out += f"{i}- type: static\n{i}  address: '{addr}'\n{i}  netmask: '{mask}'\n"
                if ipconfig.get("gw") is not None:
                    out += f"{i}  gateway: '{ipconfig['gw']}'\n"
        ip6 = ipconfig.get("ip6")
        if ip6 is not None:
            if ip6 == "dhcp":
                out += f"{i}- type: dhcp6\n"
            elif ip6 == "auto":
                out += f"{i}- type: ipv6_slaac\n"
            else:
                out += f"{i}- type: static6\n{i}  address: '{ip6}'\n"
                if ipconfig.get("gw6") is not None:
                    out += f"{i}  gateway: '{ipconfig['gw6']}'\n"
    i = "    "
    searchdomains, nameservers = dns_conf(state, node, conf)
    # `if ($searchdomains || $nameservers)`: two array references, always true
    out += f"{i}- type: nameserver\n"
    if nameservers:
        out += f"{i}  address:\n" + "".join(f"{i}  - '{ns}'\n" for ns in nameservers)
    if searchdomains:
        out += f"{i}  search:\n" + "".join(f"{i}  - '{sd}'\n" for sd in searchdomains)
    return out


def configdrive2_network(state, node, conf):
    """Cloudinit.pm configdrive2_network (an ENI file)."""
    out = "auto lo\niface lo inet loopback\n\n"
    searchdomains, nameservers = dns_conf(state, node, conf)
    if nameservers:
        out += f"        dns_nameservers {' '.join(nameservers)}\n"
    if searchdomains:
        out += f"        dns_search {' '.join(searchdomains)}\n"
    for _key, index, net in _nics(conf):
        name = f"eth{index}"
        out += f"auto {name}\n"
        if net.get("ip"):
            if net["ip"] == "dhcp":
                out += f"iface {name} inet dhcp\n"
            else:
                addr, mask = _split_ip4(net["ip"])
                out += f"iface {name} inet static\n        address {addr}\n        netmask {mask}\n"
                if net.get("gw"):
                    out += f"        gateway {net['gw']}\n"
        if net.get("ip6"):
            if net["ip6"] in ("auto", "dhcp"):
                out += f"iface {name} inet6 {net['ip6']}\n"
            else:
                addr, _sep, mask = net["ip6"].partition("/")
                out += f"iface {name} inet6 static\n        address {addr}\n        netmask {mask}\n"
                if net.get("gw6"):
                    out += f"        gateway {net['gw6']}\n"
    return out


def _instance_id(user, network):
    return hashlib.sha1((user + network).encode()).hexdigest()


def cloudinit_format(conf):
    """Cloudinit.pm get_cloudinit_format: citype, else configdrive2 for a Windows ostype, else nocloud."""
    if conf.get("citype") is not None:
        return conf["citype"]
    ostype = conf.get("ostype") or ""
    if re.match(r"^(wxp|w2k|w2k3|w2k8|wvista|win\d+)$", ostype) and ostype != "win0":
        return "configdrive2"
    return "nocloud"


def dump(state, node, conf, vmid, kind, mask_password):
    """Cloudinit.pm dump_cloudinit_config (cicustom snippets are not consulted, as in the source)."""
    nocloud = cloudinit_format(conf) == "nocloud"
    network = nocloud_network if nocloud else configdrive2_network
    if kind == "user":
        return userdata(conf, vmid, mask_password)
    if kind == "network":
        return network(state, node, conf)
    uuid = _instance_id(userdata(conf, vmid), network(state, node, conf))  # the password unmasked: the true id
    if nocloud:
        return f"instance-id: {uuid}\n"
    return ('{\n     "uuid": ' + json.dumps(uuid) + ',\n     "network_config": { "content_path": "/content/0000" }\n'
            '}\n')


@route("GET", BASE + "/{vmid}/cloudinit/dump")
def cloudinit_dump(ctx, p):
    """API2/Qemu.pm cloudinit_generated_config_dump: the password masked without VM.Config.Cloudinit."""
    vmid = p["vmid"]
    guest = g.load_guest(ctx.state, TYP, p["node"], vmid)
    mask = not ctx.access.check(ctx.authid, f"/vms/{vmid}", ["VM.Config.Cloudinit"], True)
    return dump(ctx.state, p["node"], g.file_conf(guest), vmid, p["type"], mask)
