"""/nodes/{node}/dns, /time, /hosts and /config: the node settings a Day-0 playbook declares.

Ports pve-manager ``PVE/API2/Nodes.pm`` (dns, update_dns, time, set_timezone, get_etc_hosts, write_etc_hosts),
``PVE/API2/NodeConfig.pm`` (get_config, set_options) and ``PVE/NodeConfig.pm`` (load_config, parse_node_config,
write_node_config, get_acme_conf, verify_conf), over pve-common ``src/PVE/INotify.pm`` (read_etc_resolv_conf,
update_etc_resolv_conf, read_etc_hosts, write_etc_hosts) and ``src/PVE/Systemd.pm`` (get_timezone, set_timezone,
list_timezones: timedatectl, which replaced /etc/timezone in pve-common 10ccbe8 and pve-manager edb3db0a).

``state.node_settings`` holds each node's files as text, node -> ``{"resolv.conf", "hosts", "timezone",
"config"}`` (``config`` is /etc/pve/nodes/<node>/config, ``None`` while the file does not exist). A node's entry is
made on first use (``settings``) as the PVE installer leaves the node (pve-installer ``Proxmox/Install.pm``
extract_data): resolv.conf ``search sim.lan`` + ``nameserver <node ip>``, /etc/hosts with the localhost line, the
node's ``<ip> <node>.sim.lan <node>`` line and the IPv6 lines, the time zone ``UTC``; the installer writes no node
config. Tests may edit the texts directly (``settings(state, node)["hosts"] = ...``).
"""

import functools
import hashlib
import re
import time
import zoneinfo
from datetime import datetime

from ...errors import die, param_exc
from ...formats import FORMATS, FormatError, split_list
from ...schema import load as load_schema, parse_property_string
from ..state import register_slice
from .base import route
from .texts import PERL_SPACE, decode_text, encode_text, perl_lines, perl_true

register_slice("node_settings", dict, node_local=True)  # node -> its resolv.conf, /etc/hosts, time zone and node config

DOMAIN = "sim.lan"  # the domain the simulated installer was given
DEFAULT_IP = "127.0.0.1"
CONFIG_PATH = "/nodes/{node}/config"
MAXDOMAINS = 5  # NodeConfig.pm $MAXDOMAINS: acmedomain0 .. acmedomain5
MODIFIED = "detected modified configuration - file changed by other user? Try again."  # Tools.pm assert_if_modified

# pve-common ParseUtils.pm $IPV4RE / $IPV6RE / $IPRE
_OCTET = r"(?:25[0-5]|(?:2[0-4]|1[0-9]|[1-9])?[0-9])"
_IPV4 = rf"(?:(?:{_OCTET}\.){{3}}{_OCTET})"
_H16 = r"(?:[0-9a-fA-F]{1,4})"
_LS32 = rf"(?:(?:{_IPV4}|{_H16}:{_H16}))"
_IPV6 = ("(?:"
         rf"(?:(?:(?:{_H16}:){{6}}){_LS32})|"
         rf"(?:(?:::(?:{_H16}:){{5}}){_LS32})|"
         rf"(?:(?:(?:{_H16})?::(?:{_H16}:){{4}}){_LS32})|"
         rf"(?:(?:(?:(?:{_H16}:){{0,1}}{_H16})?::(?:{_H16}:){{3}}){_LS32})|"
         rf"(?:(?:(?:(?:{_H16}:){{0,2}}{_H16})?::(?:{_H16}:){{2}}){_LS32})|"
         rf"(?:(?:(?:(?:{_H16}:){{0,3}}{_H16})?::(?:{_H16}:){{1}}){_LS32})|"
         rf"(?:(?:(?:(?:{_H16}:){{0,4}}{_H16})?::){_LS32})|"
         rf"(?:(?:(?:(?:{_H16}:){{0,5}}{_H16})?::){_H16})|"
         rf"(?:(?:(?:(?:{_H16}:){{0,6}}{_H16})?::)))")
IPRE = rf"(?:{_IPV4}|{_IPV6})"

_SPACE = f"[{re.escape(PERL_SPACE)}]"  # Perl's \s on the decoded request text
ASCII_SPACE = " \t\n\r\f\v"            # Perl's \s on the bytes read from a file (re.ASCII's \s)


def _file_lines(text):
    """The lines Perl's ``<$fh>`` reads: split after each newline only."""
    return [line for line in re.findall(r"[^\n]*\n?", text) if line]


# -- the files ---------------------------------------------------------------------------------------------------

def installer_hosts(ip, node, domain=DOMAIN):
    """The /etc/hosts pve-installer writes (``Proxmox/Install.pm`` extract_data, "configure hosts")."""
    return ("127.0.0.1 localhost.localdomain localhost\n"
            f"{ip} {node}.{domain} {node}\n\n"
            "# The following lines are desirable for IPv6 capable hosts\n\n"
            "::1     ip6-localhost ip6-loopback\n"
            "fe00::0 ip6-localnet\n"
            "ff00::0 ip6-mcastprefix\n"
            "ff02::1 ip6-allnodes\n"
            "ff02::2 ip6-allrouters\n"
            "ff02::3 ip6-allhosts\n")


def settings(state, node):
    """The node's files, made on first use as the installer leaves them ("configure dns": ``search <domain>`` and
    ``nameserver <dns>``; the simulated installer was answered with the node's own address as DNS server)."""
    files = state.node_settings.get(node)
    if files is None:
        ip = (state.nodes.get(node) or {}).get("ip") or DEFAULT_IP
        files = state.node_settings[node] = {
            "resolv.conf": f"search {DOMAIN}\nnameserver {ip}\n",
            "hosts": installer_hosts(ip, node),
            "timezone": "UTC",
            "config": None,
        }
    return files


def read_resolv_conf(text):
    """INotify.pm read_etc_resolv_conf: the last ``search``/``domain`` line's first word, the first three
    ``nameserver`` addresses (the address is matched at the start, nothing after it is checked)."""
    res = {}
    count = 0
    for line in _file_lines(text):
        line = line.removesuffix("\n")
        m = re.match(r"^(search|domain)\s+(\S+)", line, re.ASCII)
        if m:
            res["search"] = m.group(2)
            continue
        m = re.match(rf"^\s*nameserver\s+({IPRE})", line, re.ASCII)
        if m:
            count += 1
            if count <= 3:
                res[f"dns{count}"] = m.group(1)
    return res


def perl_split(separator, text):
    """``split($separator, $text)``: empty fields kept but the trailing ones."""
    fields = text.split(separator) if text else []
    while fields and not fields[-1]:
        fields.pop()
    return fields


def resolv_conf(state, node):
    """``PVE::INotify::read_file('resolvconf')`` on ``node`` (cloud-init's get_dns_conf reads it too)."""
    return read_resolv_conf(settings(state, node)["resolv.conf"])


def update_resolv_conf(text, param):
    """INotify.pm update_etc_resolv_conf: a Perl-true ``search``, then each Perl-true nameserver but 0.0.0.0 once,
    then every other line of the old file (its search, domain and nameserver lines are dropped)."""
    data = f"search {param['search']}\n" if perl_true(param.get("search")) else ""
    written = set()
    for key in ("dns1", "dns2", "dns3"):
        server = param.get(key)
        if perl_true(server) and server != "0.0.0.0" and server not in written:
            written.add(server)
            data += f"nameserver {server}\n"
    return data + "".join(line for line in _file_lines(text)
                          if not re.match(r"^(search|domain|nameserver)\s+", line, re.ASCII))


def read_hosts(text):
    """INotify.pm read_etc_hosts: the SHA-1 of the file's bytes; comment lines decoded as UTF-8, the others left
    as bytes (JSON gives those byte by byte)."""
    raw = text.encode("utf-8")
    data = ""
    for line in re.findall(rb"[^\n]*\n?", raw):
        comment = re.match(rb"^\s*#", line)  # a bytes pattern: ASCII white space
        data += line.decode("utf-8", "replace") if comment else line.decode("latin-1")
    return {"digest": hashlib.sha1(raw).hexdigest(), "data": data}


def check_hosts(hosts):
    """INotify.pm write_etc_hosts: every line but comments and blank ones is ``<ip> <name>...``
    (``split(/\\s+/)``: a line starting with white space has an empty address)."""
    for line in perl_lines(hosts):
        if re.match(rf"^{_SPACE}*#", line) or re.match(rf"^{_SPACE}*$", line):
            continue
        fields = re.split(rf"{_SPACE}+", line)
        while fields and fields[-1] == "":
            fields.pop()
        address, names = fields[0], fields[1:]
        if not re.match(rf"^{IPRE}$", address):
            raise param_exc({"data": f"Invalid IP '{address}'"})
        for name in names:
            if not re.match(r"^[.\-a-zA-Z0-9]+$", name):
                raise param_exc({"data": f"Invalid Hostname '{name}'"})


def assert_if_modified(digest1, digest2):
    """pve-common Tools.pm assert_if_modified."""
    if digest1 and digest2 and digest1 != digest2:
        raise die(MODIFIED)


# -- time zones --------------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def list_timezones():
    """Systemd.pm list_timezones (``timedatectl list-timezones``: systemd's get_timezones, the Zone and Link names
    of tzdata.zi plus UTC). Python's zoneinfo finds the same names in the host's tzdata, and Debian's
    ``localtime`` link to /etc/localtime, which is no zone."""
    return frozenset(zoneinfo.available_timezones() - {"localtime"} | {"UTC"})


def _utc_offset(zone, when):
    try:
        offset = datetime.fromtimestamp(when, zoneinfo.ZoneInfo(zone)).utcoffset()
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return 0
    return int(offset.total_seconds()) if offset else 0


# -- /etc/pve/nodes/<node>/config --------------------------------------------------------------------------------

def _acme_domain(kind, label):
    pattern = re.compile(rf"^{label}(?:\.{label})+$", re.I)

    def check(value):
        if not pattern.search(value):
            raise FormatError(f"value '{value}' does not look like a valid {kind} name!")
    return check


# NodeConfig.pm registers these two formats itself
FORMATS["pve-acme-domain"] = _acme_domain("domain", r"[a-z0-9][a-z0-9_-]*")
FORMATS["pve-acme-alias"] = _acme_domain("alias", r"[a-z0-9_][a-z0-9_-]*")


def _expand_acme_domains(index):
    """The API dump folds acmedomain0 .. acmedomain5 into ``acmedomain[n]`` (RESTHandler api_clone_schema); give
    the node config methods their six properties back."""
    for method, part in (("GET", "returns"), ("PUT", "parameters")):
        info = index.lookup(method, CONFIG_PATH)
        props = ((info or {}).get(part) or {}).get("properties") or {}
        folded = props.pop("acmedomain[n]", None)
        if folded is not None:
            for i in range(MAXDOMAINS + 1):
                props[f"acmedomain{i}"] = folded


_expand_acme_domains(load_schema())


def _config_format(key):
    props = load_schema().lookup("PUT", CONFIG_PATH)["parameters"]["properties"]
    return props[key]["format"]


def parse_node_config(raw):
    """NodeConfig.pm parse_node_config over JSONSchema.pm parse_config with ``description`` as comment key: each
    line trimmed, blank ones skipped; ``#`` lines (and ``description:`` lines) make the description, always
    present; ``key: value`` lines the values, as text; then the file's SHA-1."""
    conf = {}
    description = ""
    for line in raw.split("\n"):
        line = line.strip(ASCII_SPACE)
        if not line:
            continue
        m = re.match(r"^#(.*)$", line) or re.match(r"^description:\s*(.*\S)\s*$", line, re.ASCII)
        if m:
            description += decode_text(m.group(1)) + "\n"
            continue
        m = re.match(r"^(\S+?):\s*(.*)$", line, re.ASCII)
        if m:
            conf[m.group(1)] = m.group(2)
    conf["description"] = description
    conf["digest"] = hashlib.sha1(raw.encode("utf-8")).hexdigest()
    return conf


def load_config(state, node):
    """NodeConfig.pm load_config: no file, or an empty one, is ``{}`` (no description, no digest)."""
    raw = settings(state, node)["config"]
    return parse_node_config(raw) if raw else {}


def write_node_config(conf):
    """NodeConfig.pm write_node_config: a Perl-true description as ``#`` lines (encode_text), then the other
    keys sorted, ``key: value``."""
    description = conf.get("description")
    out = "".join(f"#{encode_text(line)}\n" for line in perl_lines(description if perl_true(description) else ""))
    for key in sorted(conf):
        if key in ("description", "digest"):
            continue
        if "\n" in conf[key]:
            raise die(f"detected invalid newline inside property '{key}'")
        out += f"{key}: {conf[key]}\n"
    return out


def acme_plugin_exists(state, plugin_id):
    """``PVE::API2::ACMEPlugin::load_config()->{ids}``: the plugins.cfg of acme.py (``standalone`` always)."""
    from . import acme  # acme.py reads this module's node config: imported here, not at the top
    return acme.plugin_exists(state, plugin_id)


def verify_conf(state, conf):
    """NodeConfig.pm verify_conf -> get_acme_conf: every ACME domain (lower-cased) once, each plugin defined."""
    domains = {}
    if conf.get("acme") is not None:
        acme = parse_property_string(_config_format("acme"), conf["acme"], "acme")
        for domain in perl_split(";", acme.get("domains") or ""):
            domain = domain.lower()
            if domain in domains:
                raise die(f"duplicate domain '{domain}' in ACME config properties")
            domains[domain] = "acme"
    for index in range(MAXDOMAINS + 1):
        key = f"acmedomain{index}"
        if conf.get(key) is None:
            continue
        parsed = parse_property_string(_config_format(key), conf[key], key)
        domain = parsed["domain"].lower()
        if domain in domains:
            raise die(f"duplicate domain '{domain}' in ACME config properties '{key}' and '{domains[domain]}'")
        plugin = parsed.get("plugin") or "standalone"
        if plugin != "standalone" and not acme_plugin_exists(state, plugin):
            raise die(f"plugin '{plugin}' for domain '{domain}' not found!")
        domains[domain] = key


# -- the API -----------------------------------------------------------------------------------------------------

@route("GET", "/nodes/{node}/dns")
def get_dns(ctx, p):
    """Nodes.pm dns: ``read_file('resolvconf')``, only the keys the file has."""
    return resolv_conf(ctx.state, p["node"])


@route("PUT", "/nodes/{node}/dns")
def update_dns(ctx, p):
    """Nodes.pm update_dns: ``update_file('resolvconf', $param)`` (a nameserver not sent is dropped)."""
    files = settings(ctx.state, p["node"])
    files["resolv.conf"] = update_resolv_conf(files["resolv.conf"], ctx.raw)
    return None


@route("GET", "/nodes/{node}/time")
def get_time(ctx, p):
    """Nodes.pm time: the time zone timedatectl reports, ``time()`` and ``timegm(localtime(time()))``."""
    zone = settings(ctx.state, p["node"])["timezone"]
    now = int(time.time())
    return {"timezone": zone, "time": now, "localtime": now + _utc_offset(zone, now)}


@route("PUT", "/nodes/{node}/time")
def set_timezone(ctx, p):
    """Nodes.pm set_timezone -> Systemd.pm set_timezone: a name ``timedatectl list-timezones`` lists."""
    if p["timezone"] not in list_timezones():
        raise param_exc({"timezone": "No such timezone"})
    settings(ctx.state, p["node"])["timezone"] = p["timezone"]
    return None


@route("GET", "/nodes/{node}/hosts")
def get_etc_hosts(ctx, p):
    """Nodes.pm get_etc_hosts: ``read_file('etchosts')``, ``{digest, data}``."""
    return read_hosts(settings(ctx.state, p["node"])["hosts"])


@route("POST", "/nodes/{node}/hosts")
def write_etc_hosts(ctx, p):
    """Nodes.pm write_etc_hosts: under the lock, a Perl-true ``digest`` is compared first, then write_etc_hosts
    checks every line (its raise_param_exc leaves the lock as the 400 it is)."""
    files = settings(ctx.state, p["node"])
    if perl_true(p.get("digest")):
        assert_if_modified(read_hosts(files["hosts"])["digest"], p["digest"])
    check_hosts(p["data"])
    files["hosts"] = p["data"]
    return None


@route("GET", CONFIG_PATH)
def get_config(ctx, p):
    """NodeConfig.pm get_config: the parsed file; ``property`` answers ``{}`` when the file lacks it."""
    conf = load_config(ctx.state, p["node"])
    prop = p.get("property")
    if prop is not None:
        return {prop: conf[prop]} if prop in conf else {}
    return conf


@route("PUT", CONFIG_PATH)
def set_options(ctx, p):
    """NodeConfig.pm set_options: the digest, then each option as sent (sorted), then ``delete`` (so an option
    both set and deleted is deleted; an unknown one is ignored), verify_conf, the file. Its errors leave the
    lock as they are, without a prefix."""
    state = ctx.state
    params = dict(ctx.raw)
    delete = split_list(params.pop("delete", None))
    node = params.pop("node")
    digest = params.pop("digest", None)
    conf = load_config(state, node)
    assert_if_modified(digest, conf.get("digest"))
    for key in sorted(params):
        conf[key] = params[key]
    for key in delete:
        conf.pop(key, None)
    verify_conf(state, conf)
    settings(state, node)["config"] = write_node_config(conf)
    return None
