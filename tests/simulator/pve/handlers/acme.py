"""ACME: /cluster/acme (accounts, plugins, directories, meta, challenge schema) and a node's ACME certificate.

Ports pve-manager ``PVE/API2/ACMEAccount.pm`` (index, account_index, register_account, update_account,
get_account, deactivate_account, get_tos, get_meta, get_directories, challengeschema), ``PVE/API2/ACMEPlugin.pm``
(index, get_plugin_config, add_plugin, update_plugin, delete_plugin, load_config), ``PVE/API2/ACME.pm`` (index,
$order_certificate, new_certificate, renew_certificate, revoke_certificate), ``PVE/NodeConfig.pm`` get_acme_conf
and ``PVE/CertHelpers.pm`` list_acme_accounts, over proxmox-acme's ``PVE/ACME.pm`` (the client: ``do``, fatal,
new_account, update_account, new_order, get_certificate, revoke_certificate) and ``PVE/ACME/Challenge.pm``,
``StandAlone.pm``, ``DNSChallenge.pm`` (the plugins.cfg SectionConfig, setup/teardown) - read in the pimox copy
of proxmox-acme 1.0.8, the only one stored.

There is no network: every ACME directory URL is answered by a simulated CA inside the simulator
(``state.acme_ca``). It registers accounts, places orders for the node's configured domains (``acme``'s
``domains`` and ``acmedomain0..5`` of /etc/pve/nodes/<node>/config, read through ``node_settings.load_config``),
validates every domain (but those in ``state.acme_ca["invalid_domains"]``), remembers an account's valid
authorizations (the next order says "already validated"), issues real X.509 certificates (90 days, signed by the
CA's own EC key) and revokes what it issued. The forked workers run at once and end as PVE's do (``acmeregister``,
``acmeupdate``, ``acmerefresh``, ``acmedeactivate``, ``acmenewcert``, ``acmerenew``, ``acmerevoke``).

State: ``state.acme_accounts`` (/etc/pve/priv/acme/<name>: ``directory``, ``location``, ``account``, ``tos``),
``state.acme_plugins`` (priv/acme/plugins.cfg: ``exists`` and ``ids``, each section as the next read parses it),
``state.acme_ca`` (the CAs; not a file, never rolled back).
"""

import base64
import hashlib
import itertools
import json
import re
import threading
import time
from collections import OrderedDict
from datetime import datetime, timedelta, timezone
from urllib.parse import urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from ...errors import ApiError, die, die_at, param_exc
from ...formats import FormatError, split_list
from ...schema import load as load_schema, parse_property_string
from ..state import register_slice
from . import certificates
from .base import route
from .node_settings import MAXDOMAINS, load_config as load_node_config, perl_split
from .texts import section_value

LE_PRODUCTION = "https://acme-v02.api.letsencrypt.org/directory"
LE_STAGING = "https://acme-staging-v02.api.letsencrypt.org/directory"
# ACMEAccount.pm $acme_directories
DIRECTORIES = [{"name": "Let's Encrypt V2", "url": LE_PRODUCTION},
               {"name": "Let's Encrypt V2 Staging", "url": LE_STAGING}]
LE_TOS = "https://letsencrypt.org/documents/LE-SA-v1.5-February-24-2025.pdf"
ACCOUNT_DIR = "/etc/pve/priv/acme"  # CertHelpers.pm $account_prefix
CONFIGID_RE = r"^[a-z][a-z0-9_-]+$"  # JSONSchema.pm pve_verify_configid
MISSING_DOMAINS = "ACME domain list in node configuration is missing!"
NODE_CONFIG_PATH = "/nodes/{node}/config"


def _ca_factory():
    """The simulated CAs: the directory meta they answer (Let's Encrypt's two, modelled on their directory
    objects; a test adds others, e.g. ``{"externalAccountRequired": True}``; a directory without an entry has
    no meta), the CAs made on first use, and the domains whose validation fails."""
    return {
        "meta": {
            LE_PRODUCTION: {"caaIdentities": ["letsencrypt.org"], "termsOfService": LE_TOS,
                            "website": "https://letsencrypt.org"},
            LE_STAGING: {"caaIdentities": ["letsencrypt.org"], "termsOfService": LE_TOS,
                         "website": "https://letsencrypt.org/docs/staging-environment/"},
        },
        "cas": {},
        "invalid_domains": set(),
    }


register_slice("acme_accounts", dict)
register_slice("acme_plugins", lambda: {"exists": False, "ids": OrderedDict()})
register_slice("acme_ca", _ca_factory, snapshot=False)


# -- the simulated CA ---------------------------------------------------------------------------------------------

class AcmeProblem(Exception):
    """An ACME error document (RFC 8555 section 6.7) a CA answers with."""

    def __init__(self, status, kind, detail):
        super().__init__(detail)
        self.document = {"type": f"urn:ietf:params:acme:error:{kind}", "detail": detail, "status": status}


def request_failed(url, problem, method="POST"):
    """proxmox-acme ACME.pm ``do``: a request that fails dies with ``fatal("Error: $method to $url\\n" .
    $res->decoded_content)`` (the CA's body is pretty-printed JSON, as Let's Encrypt's Boulder sends it)."""
    return die(f"Error: {method} to {url}\n{json.dumps(problem.document, indent=2)}")


_LEAF_KEY = []
_LEAF_KEY_LOCK = threading.Lock()


def leaf_key():
    """Certificate.pm generate_csr's key (RSA, 4096 bits). Generating one takes about a second, so every order
    of a simulator process gets the same key (PVE makes a new one per order)."""
    with _LEAF_KEY_LOCK:
        if not _LEAF_KEY:
            _LEAF_KEY.append(rsa.generate_private_key(public_exponent=65537, key_size=4096))
        return _LEAF_KEY[0]


def _rfc3339(when):
    return datetime.fromtimestamp(when, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class SimulatedCA:
    """One ACME server (the one a directory URL names): accounts, authorizations, orders, certificates."""

    def __init__(self, directory, meta):
        parts = urlsplit(directory)
        self.base = f"{parts.scheme}://{parts.netloc}/acme"
        self.meta = meta
        self.accounts = {}      # location -> account object
        self.validated = {}     # location -> domains with a valid authorization
        self.authorizations = {}
        self.orders = {}
        self.chains = {}        # certificate URL -> PEM chain
        self.issued = {}        # serial -> {"account", "not_after", "revoked"}
        self._ids = itertools.count(1)
        self._key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "homeflare simulator"),
                          x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, parts.netloc),
                          x509.NameAttribute(NameOID.COMMON_NAME, "Simulated ACME CA")])
        now = datetime.now(timezone.utc)
        self.name = name
        self.cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                     .public_key(self._key.public_key()).serial_number(x509.random_serial_number())
                     .not_valid_before(now - timedelta(days=1)).not_valid_after(now + timedelta(days=3650))
                     .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                     .sign(self._key, hashes.SHA256()))

    def url(self, what):
        return f"{self.base}/{what}"

    def _account(self, location):
        account = self.accounts.get(location)
        if account is None:
            raise AcmeProblem(400, "accountDoesNotExist", "No account exists with the provided key")
        if account["status"] != "valid":
            raise AcmeProblem(403, "unauthorized", f'Account is not valid, has status "{account["status"]}"')
        return account

    def new_account(self, contact, tos_agreed, eab):
        meta = self.meta or {}
        if meta.get("termsOfService") and not tos_agreed:
            raise AcmeProblem(400, "malformed", "must agree to terms of service")
        if meta.get("externalAccountRequired") and not eab:
            raise AcmeProblem(400, "externalAccountRequired", "external account binding is required")
        location = self.url(f"acct/{next(self._ids)}")
        self.accounts[location] = {"contact": list(contact), "createdAt": _rfc3339(time.time()),
                                   "status": "valid"}
        return location, dict(self.accounts[location])

    def update_account(self, location, **info):
        account = self._account(location)
        account.update(info)
        return dict(account)

    def new_order(self, location, domains):
        self._account(location)
        order_url = self.url(f"order/{next(self._ids)}")
        auth_urls = []
        for domain in domains:
            auth_url = self.url(f"authz/{next(self._ids)}")
            valid = domain in self.validated.get(location, set())
            self.authorizations[auth_url] = {
                "identifier": {"type": "dns", "value": domain}, "status": "valid" if valid else "pending",
                "challenges": [{"type": kind, "url": f"{auth_url}/{kind}", "token": auth_url.rsplit("/", 1)[1],
                                "status": "valid" if valid else "pending"} for kind in ("http-01", "dns-01")],
                "_account": location}
            auth_urls.append(auth_url)
        self.orders[order_url] = {"status": "pending", "identifiers": [{"type": "dns", "value": d} for d in domains],
                                  "authorizations": auth_urls, "finalize": f"{order_url}/finalize",
                                  "_account": location}
        return order_url, self._public(self.orders[order_url])

    @staticmethod
    def _public(obj):
        return {key: value for key, value in obj.items() if not key.startswith("_")}

    def get_authorization(self, auth_url):
        return self._public(self.authorizations[auth_url])

    def validate(self, challenge_url, invalid_domains):
        auth_url = challenge_url.rsplit("/", 1)[0]
        auth = self.authorizations[auth_url]
        domain = auth["identifier"]["value"]
        if domain in invalid_domains:
            auth["status"] = "invalid"
        else:
            auth["status"] = "valid"
            self.validated.setdefault(auth["_account"], set()).add(domain)

    def get_order(self, order_url):
        order = self.orders[order_url]
        if order["status"] == "pending":
            states = {self.authorizations[url]["status"] for url in order["authorizations"]}
            order["status"] = "ready" if states == {"valid"} else ("invalid" if "invalid" in states else "pending")
        return self._public(order)

    def finalize(self, order_url, public_key):
        """Issue the order's certificate: CN the first identifier, every identifier a DNS SAN."""
        order = self.orders[order_url]
        domains = [ident["value"] for ident in order["identifiers"]]
        now = datetime.now(timezone.utc).replace(microsecond=0)
        not_after = now + timedelta(days=90) - timedelta(hours=1)
        cert = (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, domains[0])]))
                .issuer_name(self.name).public_key(public_key).serial_number(x509.random_serial_number())
                .not_valid_before(now - timedelta(hours=1)).not_valid_after(not_after)
                .add_extension(x509.SubjectAlternativeName([x509.DNSName(d) for d in domains]), critical=False)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                .sign(self._key, hashes.SHA256()))
        url = self.url(f"cert/{cert.serial_number:x}")
        self.chains[url] = (cert.public_bytes(serialization.Encoding.PEM)
                            + self.cert.public_bytes(serialization.Encoding.PEM)).decode("ascii")
        self.issued[cert.serial_number] = {"account": order["_account"], "not_after": not_after.timestamp(),
                                           "revoked": False}
        order["status"] = "valid"
        order["certificate"] = url

    def revoke(self, location, pem):
        self._account(location)
        blocks = certificates._pem_blocks(pem, ("CERTIFICATE",))
        cert = certificates._load_certificate(blocks[0][1]) if blocks else None
        record = self.issued.get(cert.serial_number) if cert is not None else None
        if record is None or cert.issuer != self.name:
            raise AcmeProblem(404, "malformed", "Certificate not found")
        if record["revoked"]:
            raise AcmeProblem(400, "alreadyRevoked", "Certificate already revoked")
        if record["not_after"] < time.time():
            raise AcmeProblem(403, "unauthorized", "Certificate is expired")
        if record["account"] != location:
            raise AcmeProblem(403, "unauthorized", "The requester does not hold the certificate's account key")
        record["revoked"] = True


def ca_for(state, directory):
    cas = state.acme_ca["cas"]
    if directory not in cas:
        cas[directory] = SimulatedCA(directory, state.acme_ca["meta"].get(directory))
    return cas[directory]


def get_meta(state, directory):
    """ACME.pm get_meta: the directory object's ``meta`` (undef when it has none)."""
    meta = ca_for(state, directory).meta
    return dict(meta) if meta is not None else None


# -- workers ------------------------------------------------------------------------------------------------------

def exit_status(err):
    """RESTEnvironment.pm fork_worker: ``chomp $err; $err =~ s/\\n/ /mg``."""
    text = err.stringify()
    if text.endswith("\n"):
        text = text[:-1]
    return text.replace("\n", " ")


def fork_worker(ctx, node, typ, work):
    """RESTEnvironment.pm fork_worker, finished at once: ``work(log)`` prints into the log; what it changed before
    dying stays changed (nothing in these workers is undone by PVE either)."""
    log = []
    try:
        work(log)
        exitstatus = "OK"
    except ApiError as err:
        exitstatus = exit_status(err)
    return ctx.state.start_task(node, typ, "", ctx.authid, exitstatus=exitstatus, log=log)


def printed(log, text):
    """A worker's ``print``: one log line per line of the text."""
    log.extend(text.rstrip("\n").split("\n"))


# -- accounts -----------------------------------------------------------------------------------------------------

def _contact_from_param(params):
    """ACMEAccount.pm $account_contact_from_param: ``mailto:`` + each address of the list."""
    return [f"mailto:{address}" for address in split_list(params.get("contact"))]


def _account_file(name):
    return f"{ACCOUNT_DIR}/{name}"


@route("GET", "/cluster/acme")
def acme_index(ctx, p):
    """ACMEAccount.pm index."""
    return [{"name": name} for name in ("account", "tos", "meta", "directories", "plugins", "challenge-schema")]


@route("GET", "/cluster/acme/account")
def account_index(ctx, p):
    """ACMEAccount.pm account_index over CertHelpers.pm list_acme_accounts: the account files whose name is a
    config ID (a deactivated account's ``_deactivated_<name>_<n>`` is not)."""
    return [{"name": name} for name in sorted(ctx.state.acme_accounts) if re.match(CONFIGID_RE, name, re.I)]


@route("POST", "/cluster/acme/account")
def register_account(ctx, p):
    """ACMEAccount.pm register_account: the name must be new (400), then the ``acmeregister`` worker registers with
    the CA (``tos_url`` agrees to its terms, ``eab-kid``/``eab-hmac-key`` bind an external account; the HMAC key is
    only sent, never kept; the account key PVE generates first is not made). A refused registration leaves no
    file."""
    state = ctx.state
    name = p.get("name") or "default"
    eab = (p["eab-kid"], p["eab-hmac-key"]) if p.get("eab-kid") is not None else None
    if name in state.acme_accounts:
        raise param_exc({"name": f"ACME account config file '{name}' already exists."})
    directory = p.get("directory") or LE_PRODUCTION
    contact = _contact_from_param(p)
    tos_url = p.get("tos_url")

    def work(log):
        log.append("Generating ACME account key..")
        log.append("Registering ACME account..")
        ca = ca_for(state, directory)
        try:
            location, account = ca.new_account(contact, bool(tos_url), eab)
        except AcmeProblem as problem:
            err = request_failed(ca.url("new-acct"), problem)
            # die "Registration failed: $err\n" with an $err that ends in a newline already
            raise ApiError(500, f"Registration failed: {err.message}\n", exception=False) from problem
        entry = {"directory": directory, "location": location, "account": account}
        if tos_url:
            entry["tos"] = tos_url
        state.acme_accounts[name] = entry
        log.append(f"Registration successful, account URL: '{location}'")

    return fork_worker(ctx, ctx.node, "acmeregister", work)


def _update_account(ctx, p, msg, **info):
    """ACMEAccount.pm $update_account: the file must exist (400); the ``acme<msg>`` worker posts ``info`` to the
    account URL and saves the answer; a deactivated account's file is renamed to the first free
    ``_deactivated_<name>_<n>``."""
    state = ctx.state
    name = p.get("name") or "default"
    if name not in state.acme_accounts:
        raise param_exc({"name": f"ACME account config file '{name}' does not exist."})

    def work(log):
        entry = state.acme_accounts[name]
        ca = ca_for(state, entry["directory"])
        try:
            entry["account"] = ca.update_account(entry["location"], **info)
        except AcmeProblem as problem:
            raise request_failed(entry["location"], problem) from problem
        if info.get("status") == "deactivated":
            free = next((i for i in range(101) if f"_deactivated_{name}_{i}" not in state.acme_accounts), None)
            if free is None:
                log.append(f"No free slot to rename deactivated account file '{_account_file(name)}', "
                           "leaving in place")
                return
            target = f"_deactivated_{name}_{free}"
            log.append(f"Renaming account file from '{_account_file(name)}' to '{_account_file(target)}'")
            state.acme_accounts[target] = state.acme_accounts.pop(name)

    return fork_worker(ctx, ctx.node, f"acme{msg}", work)


@route("PUT", "/cluster/acme/account/{name}")
def update_account(ctx, p):
    """ACMEAccount.pm update_account: new contacts (``acmeupdate``), else a refresh (``acmerefresh``)."""
    contact = _contact_from_param(p)
    if contact:
        return _update_account(ctx, p, "update", contact=contact)
    return _update_account(ctx, p, "refresh")


@route("GET", "/cluster/acme/account/{name}")
def get_account(ctx, p):
    """ACMEAccount.pm get_account: the account file's ``account``, ``directory``, ``location`` and ``tos`` (null
    when no terms were agreed); the account key is never answered."""
    name = p.get("name") or "default"
    entry = ctx.state.acme_accounts.get(name)
    if entry is None:
        raise param_exc({"name": f"ACME account config file '{name}' does not exist."})
    return {"account": dict(entry["account"]), "directory": entry["directory"], "location": entry["location"],
            "tos": entry.get("tos")}


@route("DELETE", "/cluster/acme/account/{name}")
def deactivate_account(ctx, p):
    """ACMEAccount.pm deactivate_account: ``acmedeactivate``."""
    return _update_account(ctx, p, "deactivate", status="deactivated")


@route("GET", "/cluster/acme/tos")
def get_tos(ctx, p):
    """ACMEAccount.pm get_tos: the directory meta's ``termsOfService`` (deprecated by /cluster/acme/meta)."""
    meta = get_meta(ctx.state, p.get("directory") or LE_PRODUCTION)
    return meta.get("termsOfService") if meta else None


@route("GET", "/cluster/acme/meta")
def get_meta_route(ctx, p):
    """ACMEAccount.pm get_meta: the directory's meta object (null when it has none)."""
    return get_meta(ctx.state, p.get("directory") or LE_PRODUCTION)


@route("GET", "/cluster/acme/directories")
def get_directories(ctx, p):
    """ACMEAccount.pm get_directories."""
    return [dict(entry) for entry in DIRECTORIES]


# -- plugins.cfg --------------------------------------------------------------------------------------------------

# Challenge.pm / StandAlone.pm / DNSChallenge.pm options(): name -> optional
PLUGIN_OPTIONS = {
    "standalone": {"nodes": True, "disable": True},
    "dns": {"api": False, "data": True, "nodes": True, "disable": True, "validation-delay": True},
}
NUMERIC_OPTIONS = ("disable", "validation-delay")  # check_value's $value + 0 (boolean, integer)

# dns-challenge-schema.json's fields, for the plugins it describes (proxmox-acme 1.0.8, pimox copy 4195bf0);
# every other plugin of the API's ``api`` enum has an empty schema there
_S = {"type": "string"}
DNS_PLUGIN_SCHEMAS = {
    "acmedns": {"name": "acme-dns", "fields": {
        "ACMEDNS_PASSWORD": {**_S, "description": "The acme-dns password"},
        "ACMEDNS_SUBDOMAIN": {**_S, "description": "The subdomain you got from acme-dns registration"},
        "ACMEDNS_UPDATE_URL": {**_S, "description": "The API update endpoint"},
        "ACMEDNS_USERNAME": {**_S, "description": "The acme-dns user"}}},
    "active24": {"name": "Active24", "fields": {"ACTIVE24_Token": {**_S, "description": "The API key"}}},
    "ad": {"name": "Alwaysdata", "fields": {"AD_API_KEY": {**_S, "description": "The API key"}}},
    "ali": {"name": "Alibaba Cloud DNS", "fields": {
        "Ali_API": {**_S, "default": "https://alidns.aliyuncs.com/", "description": "The API endpoint",
                    "optional": 1},
        "Ali_Key": {**_S, "description": "The API Key"}, "Ali_Secret": {**_S, "description": "The API Secret"}}},
    "aurora": {"name": "AuroraDNS", "fields": {
        "AURORA_Key": {**_S, "description": "The API Key"}, "AURORA_Secret": {**_S, "description": "The API Secret"}}},
    "aws": {"name": "Amazon Route53 (AWS)", "fields": {
        "AWS_ACCESS_KEY_ID": {**_S, "description": "The AWS access-key ID", "name": "ACCESS_KEY_ID"},
        "AWS_SECRET_ACCESS_KEY": {**_S, "description": "The AWS access-key secret", "name": "SECRET_ACCESS_KEY"}}},
    "cf": {"name": "Cloudflare Managed DNS",
           "description": "Either provide global account key and email, or CF API token and Account ID.",
           "fields": {"CF_Account_ID": {**_S, "description": "The new Cloudflare API Account ID"},
                      "CF_Email": {**_S, "description": "The Cloudflare Account EMail-Address"},
                      "CF_Key": {**_S, "description": "The Cloudflare Global API Key"},
                      "CF_Token": {**_S, "description": "The new Cloudflare API Token"},
                      "CF_Zone_ID": {**_S, "description": "For Zone restricted API Token"}}},
    "dgon": {"name": "DigitalOcean DNS", "fields": {"DO_API_KEY": {**_S, "description": "The DigitalOcean API Key"}}},
    "gd": {"name": "GoDaddy", "fields": {"GD_Key": {**_S, "description": "The GoDaddy API Key"},
                                         "GD_Secret": {**_S, "description": "The GoDaddy API Secret"}}},
    "inwx": {"name": "INWX", "fields": {"INWX_Password": {**_S, "description": "The INWX password"},
                                        "INWX_User": {**_S, "description": "The INWX username"}}},
    "kappernet": {"name": "kapper.net", "fields": {
        "KAPPERNETDNS_Key": {**_S, "description": "Your kapper.net API key"},
        "KAPPERNETDNS_Secret": {**_S, "description": "Your kapper.net API secret"}}},
    "ovh": {"name": "OVH", "fields": {
        "OVH_AK": {**_S, "description": "The application key."},
        "OVH_AS": {**_S, "description": "The application secret."},
        "OVH_CK": {**_S, "description": "The consumer key.", "optional": 1},
        "OVH_END_POINT": {**_S, "default": "ovh-eu", "description": "The OVH endpoint", "optional": 1}}},
    "pdns": {"name": "PowerDNS server", "fields": {
        "PDNS_ServerId": dict(_S), "PDNS_Token": dict(_S), "PDNS_Ttl": {"type": "integer"},
        "PDNS_Url": {**_S, "description": "The PowerDNS API endpoint."}}},
    "porkbun": {"name": "Porkbun", "fields": {
        "PORKBUN_API_KEY": {**_S, "description": "The API Key"},
        "PORKBUN_SECRET_API_KEY": {**_S, "description": "The API Secret"}}},
    "world4you": {"name": "World4You", "fields": {
        "WORLD4YOU_PASSWORD": {**_S, "description": "The World4You password"},
        "WORLD4YOU_USERNAME": {**_S, "description": "The World4You customer id or package id"}}},
}


def dns_plugin_ids():
    """DNSChallenge.pm's plugins: the API's ``api`` enum (``sort keys %$plugins``)."""
    info = load_schema().lookup("POST", "/cluster/acme/plugins") or {}
    return list(((info.get("parameters") or {}).get("properties") or {}).get("api", {}).get("enum") or [])


def _render_plugins(ids):
    """SectionConfig.pm write_config: the header, a bare ``disable`` when set, the required options, then the
    optional ones (sorted; empty ones are not written), ``data`` base64url-encoded (Challenge.pm encode_value)."""
    out = ""
    for plugin_id, section in ids.items():
        options = PLUGIN_OPTIONS.get(section["type"], {})
        out += f"{section['type']}: {plugin_id}\n"
        if section.get("disable"):
            out += "\tdisable\n"
        for required in (False, True):
            for key in sorted(k for k, optional in options.items() if optional == required and k != "disable"):
                value = section.get(key)
                if value is None or str(value) == "":
                    continue
                if key == "data":
                    value = base64.urlsafe_b64encode(str(value).encode("utf-8")).decode("ascii").rstrip("=")
                out += f"\t{key} {value}\n"
        out += "\n"
    return out


def load_plugins(state):
    """ACMEPlugin.pm load_config -> Challenge.pm parse_config: the sections (copies), a ``standalone`` one added
    when the file has none of that type, and the SHA-1 of the file (of nothing when there is no file)."""
    cfg = state.acme_plugins
    raw = _render_plugins(cfg["ids"]) if cfg["exists"] else ""
    ids = OrderedDict((plugin_id, dict(section)) for plugin_id, section in cfg["ids"].items())
    if (ids.get("standalone") or {}).get("type") != "standalone":
        ids["standalone"] = {"type": "standalone"}
    return ids, hashlib.sha1(raw.encode("utf-8")).hexdigest()


def write_plugins(state, ids):
    """cfs_write_file: what the next read parses (values trimmed, empty ones and a false ``disable`` gone)."""
    written = OrderedDict()
    for plugin_id, section in ids.items():
        kept = {"type": section["type"]}
        for key, value in section.items():
            if key == "type" or value is None:
                continue
            if key == "disable":
                if value:
                    kept[key] = 1
                continue
            text = section_value(value) if isinstance(value, str) and key != "data" else value
            if str(text) != "":
                kept[key] = text
        written[plugin_id] = kept
    state.acme_plugins = {"exists": True, "ids": written}


def plugin_exists(state, plugin_id):
    """``PVE::API2::ACMEPlugin::load_config()->{ids}->{$plugin_id}`` (the standalone plugin always exists): for
    NodeConfig.pm get_acme_conf / verify_conf."""
    return plugin_id in load_plugins(state)[0]


def check_plugin_config(typ, params, create):
    """SectionConfig.pm check_config($id, $param, $create, 1) of the type's plugin: each option (sorted) must be
    one the type has, without a line feed; numbers as numbers; on create every required option present."""
    options = PLUGIN_OPTIONS[typ]
    settings = {}
    for key in sorted(params):
        if key not in options:
            raise die(f"unexpected property '{key}'")
        value = params[key]
        if "\n" in str(value) or "\r" in str(value):
            raise die("property contains a line feed")
        settings[key] = int(value) if key in NUMERIC_OPTIONS else value
    if create:
        for key in sorted(options):
            if not options[key] and key not in params:
                raise die(f"missing value for required option '{key}'")
    return settings


def _plugin_for_api(ids, digest, plugin_id):
    """ACMEPlugin.pm $modify_cfg_for_api: the section, its id as ``plugin``, the file's digest."""
    if plugin_id not in ids:
        raise die(f"ACME plugin '{plugin_id}' not defined")
    res = dict(ids[plugin_id])
    res["plugin"] = plugin_id
    res["digest"] = digest
    return res


@route("GET", "/cluster/acme/plugins")
def plugin_index(ctx, p):
    """ACMEPlugin.pm index: every section (``type`` filters), ``data`` as the API was given it."""
    ids, digest = load_plugins(ctx.state)
    return [_plugin_for_api(ids, digest, plugin_id) for plugin_id in ids
            if not p.get("type") or ids[plugin_id]["type"] == p["type"]]


@route("GET", "/cluster/acme/plugins/{id}")
def get_plugin_config(ctx, p):
    """ACMEPlugin.pm get_plugin_config."""
    ids, digest = load_plugins(ctx.state)
    return _plugin_for_api(ids, digest, p["id"])


@route("POST", "/cluster/acme/plugins")
def add_plugin(ctx, p):
    """ACMEPlugin.pm add_plugin: under the file lock (its errors pass as they are) a new id, check_config of the
    type's plugin, the file written (with the standalone section parse_config added)."""
    params = dict(ctx.raw)
    plugin_id, typ = params.pop("id"), params.pop("type")
    ids, _digest = load_plugins(ctx.state)
    if plugin_id in ids:
        raise die(f"ACME plugin ID '{plugin_id}' already exists")
    ids[plugin_id] = check_plugin_config(typ, params, True)
    ids[plugin_id]["type"] = typ
    write_plugins(ctx.state, ids)
    return None


@route("PUT", "/cluster/acme/plugins/{id}")
def update_plugin(ctx, p):
    """ACMEPlugin.pm update_plugin: the digest, the id, ``delete`` (``no such option``, ``unable to delete
    required option``), then the options sent (check_config without create)."""
    params = dict(ctx.raw)
    plugin_id = params.pop("id")
    delete = params.pop("delete", None)
    digest = params.pop("digest", None)
    ids, current = load_plugins(ctx.state)
    if digest and current != digest:  # Tools.pm assert_if_modified
        raise die("detected modified configuration - file changed by other user? Try again.")
    section = ids.get(plugin_id)
    if section is None:
        raise die(f"ACME plugin ID '{plugin_id}' does not exist")
    options = PLUGIN_OPTIONS[section["type"]]
    if delete is not None:
        for key in split_list(delete):
            if key not in options:
                raise die(f"no such option '{key}'")
            if not options[key]:
                raise die(f"unable to delete required option '{key}'")
            section.pop(key, None)
    section.update(check_plugin_config(section["type"], params, False))
    write_plugins(ctx.state, ids)
    return None


@route("DELETE", "/cluster/acme/plugins/{id}")
def delete_plugin(ctx, p):
    """ACMEPlugin.pm delete_plugin: no check that it exists, nor that a node uses it."""
    ids, _digest = load_plugins(ctx.state)
    ids.pop(p["id"], None)
    write_plugins(ctx.state, ids)
    return None


@route("GET", "/cluster/acme/challenge-schema")
def challenge_schema(ctx, p):
    """ACMEAccount.pm challengeschema: the plugin types with get_supported_plugins (the DNS one), each plugin
    sorted by id with its schema and ``name`` (the schema's, else the id)."""
    res = []
    for plugin_id in sorted(dns_plugin_ids()):
        schema = DNS_PLUGIN_SCHEMAS.get(plugin_id, {})
        res.append({"id": plugin_id, "name": schema.get("name", plugin_id), "type": "dns",
                    "schema": json.loads(json.dumps(schema))})
    return res


# -- the node's ACME configuration --------------------------------------------------------------------------------

def _node_config_format(key):
    return load_schema().lookup("PUT", NODE_CONFIG_PATH)["parameters"]["properties"][key]["format"]


def _parse(key, text):
    try:
        return parse_property_string(_node_config_format(key), text, key)
    except FormatError as err:
        raise die(err.text()) from err


def get_acme_conf(state, node):
    """NodeConfig.pm get_acme_conf: ``account`` (default ``default``) and ``domains``, domain (lower case) ->
    ``{plugin, alias, _configkey}``: the ``acme`` property's domains with the standalone plugin, then
    acmedomain0..5. ``domains`` is None when neither is set (Perl never makes the hash then)."""
    conf = load_node_config(state, node)
    res = {}
    domains = None
    if conf.get("acme") is not None:
        res = dict(_parse("acme", conf["acme"]))
        domains = {}
        for domain in perl_split(";", res.pop("domains", None) or ""):
            domain = domain.lower()
            if domain in domains:
                raise die(f"duplicate domain '{domain}' in ACME config properties")
            domains[domain] = {"plugin": "standalone", "_configkey": "acme"}
    res.setdefault("account", "default")
    for index in range(MAXDOMAINS + 1):
        key = f"acmedomain{index}"
        if conf.get(key) is None:
            continue
        parsed = dict(_parse(key, conf[key]))
        domain = parsed.pop("domain").lower()
        domains = {} if domains is None else domains
        if domain in domains:
            raise die(f"duplicate domain '{domain}' in ACME config properties '{key}' and "
                      f"'{domains[domain]['_configkey']}'")
        parsed.setdefault("plugin", "standalone")
        if parsed["plugin"] != "standalone" and not plugin_exists(state, parsed["plugin"]):
            raise die(f"plugin '{parsed['plugin']}' for domain '{domain}' not found!")
        parsed["_configkey"] = key
        domains[domain] = parsed
    res["domains"] = domains
    return res


def require_domains(acme_conf, line):
    """``raise("ACME domain list in node configuration is missing!", 400) if !$acme_node_config ||
    !%{ $acme_node_config->{domains} }``: ``400`` lands as a hash key, not as the code, so it is a 500 with the
    bare text; with no domains hash at all the dereference itself dies under ``use strict`` first (ACME.pm
    ``line``)."""
    if acme_conf["domains"] is None:
        raise die_at("Can't use an undefined value as a HASH reference", "PVE/API2/ACME.pm", line)
    if not acme_conf["domains"]:
        raise ApiError(500, MISSING_DOMAINS)


def load_account(state, acme_conf, log):
    account = acme_conf["account"]
    entry = state.acme_accounts.get(account)
    if entry is None:
        raise die(f"ACME account config file '{account}' does not exist.")
    log.append("Loading ACME account details")
    return entry


# -- ordering -----------------------------------------------------------------------------------------------------

def _setup(plugin_cfg, domain, log):
    """StandAlone.pm / DNSChallenge.pm setup: what each prints; the challenge URL of its type."""
    if plugin_cfg["type"] == "standalone":
        log.append("Setting up webserver")
        return "http-01"
    log.append(f"Add TXT record: _acme-challenge.{domain}")
    delay = plugin_cfg.get("validation-delay", 30)
    if delay > 0:
        log.append(f"Sleeping {delay} seconds to wait for TXT record propagation")
    return "dns-01"


def order_certificate(state, ca, account, acme_conf, log):
    """ACME.pm $order_certificate: the order for the node's domains, each pending authorization validated
    through its plugin, the order finalized and the certificate chain downloaded. Returns (chain, key)."""
    plugins, _digest = load_plugins(state)
    domains = sorted(acme_conf["domains"])
    log.append("Placing ACME order")
    try:
        order_url, order = ca.new_order(account["location"], domains)
    except AcmeProblem as problem:
        raise request_failed(ca.url("new-order"), problem) from problem
    log.append(f"Order URL: {order_url}")
    for auth_url in order["authorizations"]:
        printed(log, f"\nGetting authorization details from '{auth_url}'")
        auth = ca.get_authorization(auth_url)
        domain = auth["identifier"]["value"].lower()
        if auth["status"] == "valid":
            log.append(f"{domain} is already validated!")
            continue
        log.append(f"The validation for {domain} is pending!")
        domain_config = acme_conf["domains"].get(domain)
        if not domain_config:
            raise die(f"no config for domain '{domain}'")
        plugin_id = domain_config["plugin"]
        plugin_cfg = plugins.get(plugin_id)
        if not plugin_cfg:
            raise die(f"plugin '{plugin_id}' for domain '{domain}' not found!")
        kind = _setup(plugin_cfg, domain, log)
        log.append("Triggering validation")
        ca.validate(f"{auth_url}/{kind}", state.acme_ca["invalid_domains"])
        log.append("Sleeping for 5 seconds")
        status = ca.get_authorization(auth_url)["status"]
        if status == "valid":
            log.append(f"Status is 'valid', domain '{domain}' OK!")
        if plugin_cfg["type"] == "dns":  # the teardown runs before the validation's error is raised
            log.append(f"Remove TXT record: _acme-challenge.{domain}")
        if status != "valid":
            raise die(f"validating challenge '{auth_url}' failed - status: {status}")
    printed(log, "\nAll domains validated!")
    printed(log, "\nCreating CSR")
    key = leaf_key()
    log.append("Checking order status")
    while True:
        order = ca.get_order(order_url)
        if order["status"] == "ready":
            log.append("Order is ready, finalizing order")
            ca.finalize(order_url, key.public_key())
            continue
        if order["status"] == "valid":
            log.append("valid!")
            break
        raise die(f"order status: {order['status']}")
    printed(log, "\nDownloading certificate")
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode("ascii")
    return ca.chains[order["certificate"]], key_pem


def _revoke(ca, account, pem):
    try:
        ca.revoke(account["location"], pem)
    except AcmeProblem as problem:
        raise request_failed(ca.url("revoke-cert"), problem) from problem


def _install(ctx, cert, key, prefix, force, log):
    """The workers' locked block: set_cert_files, then the pveproxy restart (not simulated)."""
    def code():
        log.append("Setting pveproxy certificate and key")
        certificates.set_cert_files(ctx, cert, key, prefix, force, log)
        log.append("Restarting pveproxy")
    certificates.under_cert_lock(code)


@route("GET", "/nodes/{node}/certificates/acme")
def node_acme_index(ctx, p):
    """ACME.pm index."""
    return [{"name": "certificate"}]


@route("POST", "/nodes/{node}/certificates/acme/certificate")
def new_certificate(ctx, p):
    """ACME.pm new_certificate: a custom certificate needs ``force`` (400), the node config needs domains, then
    the ``acmenewcert`` worker orders and installs the certificate."""
    state, node = ctx.state, p["node"]
    prefix = certificates.cert_path_prefix(node)
    if not p.get("force") and certificates.file_exists(ctx, f"{prefix}.pem"):
        raise param_exc({"force": "Custom certificate exists but 'force' is not set."})
    acme_conf = get_acme_conf(state, node)
    require_domains(acme_conf, 195)

    def work(log):
        account = load_account(state, acme_conf, log)
        ca = ca_for(state, account["directory"])
        cert, key = order_certificate(state, ca, account, acme_conf, log)
        _install(ctx, cert, key, prefix, p.get("force"), log)

    return fork_worker(ctx, node, "acmenewcert", work)


@route("PUT", "/nodes/{node}/certificates/acme/certificate")
def renew_certificate(ctx, p):
    """ACME.pm renew_certificate: a custom certificate must be there (a 500: raise without code), one expiring
    within 30 days unless ``force`` (400), domains configured; the ``acmerenew`` worker orders, installs (always
    forced) and revokes the old certificate, a refused revocation being only a warning."""
    state, node = ctx.state, p["node"]
    prefix = certificates.cert_path_prefix(node)
    cert_path = f"{prefix}.pem"
    if not certificates.file_exists(ctx, cert_path):
        raise ApiError(500, "No current (custom) certificate found, please order a new certificate!\n")
    expires_soon = certificates.check_expiry(ctx, cert_path, time.time() + 30 * 24 * 60 * 60)
    if not expires_soon and not p.get("force"):
        raise param_exc({"force": "Certificate does not expire within the next 30 days, and 'force' is not set."})
    acme_conf = get_acme_conf(state, node)
    require_domains(acme_conf, 276)
    old_cert = certificates.file_get_contents(ctx, cert_path)

    def work(log):
        account = load_account(state, acme_conf, log)
        ca = ca_for(state, account["directory"])
        cert, key = order_certificate(state, ca, account, acme_conf, log)
        _install(ctx, cert, key, prefix, 1, log)
        log.append("Revoking old certificate")
        try:
            _revoke(ca, account, old_cert)
        except ApiError as err:
            printed(log, f"Revoke request to CA failed: {err.message}")

    return fork_worker(ctx, node, "acmerenew", work)


@route("DELETE", "/nodes/{node}/certificates/acme/certificate")
def revoke_certificate(ctx, p):
    """ACME.pm revoke_certificate: domains configured, the custom certificate read (``can't open``), then the
    ``acmerevoke`` worker revokes it (an expired one is no error) and removes both files."""
    state, node = ctx.state, p["node"]
    prefix = certificates.cert_path_prefix(node)
    acme_conf = get_acme_conf(state, node)
    require_domains(acme_conf, 345)
    cert = certificates.file_get_contents(ctx, f"{prefix}.pem")

    def work(log):
        account = load_account(state, acme_conf, log)
        ca = ca_for(state, account["directory"])
        log.append("Revoking old certificate")
        try:
            _revoke(ca, account, cert)
        except ApiError as err:
            if '"Certificate is expired"' not in err.message:
                raise die(f"Revoke request to CA failed: {err.message}") from err

        def code():
            log.append("Deleting certificate files")
            certificates.unlink(state, f"{prefix}.pem")
            certificates.unlink(state, f"{prefix}.key")
            log.append("Restarting pveproxy to revert to self-signed certificates")
        certificates.under_cert_lock(code)

    return fork_worker(ctx, node, "acmerevoke", work)
