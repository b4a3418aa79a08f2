"""/nodes/{node}/certificates: the node's certificate files, their info, and the custom certificate.

Ports pve-manager ``PVE/API2/Certificates.pm`` (index, info, upload_custom_cert, remove_custom_cert) and
``PVE/CertHelpers.pm`` (cert_path_prefix, set_cert_files, cert_lock), over pve-common ``src/PVE/Certificate.pm``
(the ``pem-certificate``, ``pem-certificate-chain`` and ``pem-string`` formats: check_pem, strip_leading_text;
get_certificate_info, check_expiry) and what Net::SSLeay / OpenSSL 3 do under them. Certificates are real X.509,
parsed with ``cryptography``.

``state.cert_files`` holds the files by their PVE path, path -> PEM text (``None``: a file removed). Without an
entry, ``/etc/pve/pve-root-ca.pem`` is the simulator's CA and every node's ``/etc/pve/nodes/<node>/pve-ssl.pem``
is the certificate the members serve (``tests/simulator/tls.py``): the installer's pair, so a node's
``pve-ssl.pem`` fingerprint is the ``ssl_fingerprint`` of ``GET /nodes``. The custom (or ACME) certificate is
``pveproxy-ssl.pem`` with its key ``pveproxy-ssl.key``; no method answers a key.
"""

import base64
import ipaddress
import random
import re

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519, rsa
from cryptography.x509.oid import NameOID

from ...errors import ApiError, die, param_exc
from ...formats import FORMATS, FormatError
from ..state import register_slice
from .base import route

register_slice("cert_files", dict)  # PVE path -> PEM text, None for a removed file

ROOT_CA = "/etc/pve/pve-root-ca.pem"

# Certificate.pm: $header_re, $footer_re, $pem_re (RFC 7468 base64 characters)
_B64 = r"[0-9A-Za-z\+/]"
_ANY_LABEL = r"(?-s:.*?)"  # qr/.*?/: no /s, its dot stops at a newline


def _header(label):
    return rf"-----BEGIN {label}-----(?:\s|\n)*"


def _footer(label):
    return rf"-----END {label}-----(?:\s|\n)*"


def _pem(label):
    return (_header(label) + rf"(?:{_B64}+\s*\n)*" + rf"{_B64}*(?:=\s*\n=|={{0,2}})?\s*\n" + _footer(label))


def strip_leading_text(content):
    """Certificate.pm strip_leading_text: everything before the first PEM header goes."""
    return re.sub(rf"^.*?(?={_header(_ANY_LABEL)})", "", content, count=1, flags=re.S)


def check_pem(content, label="CERTIFICATE", multiple=False):
    """Certificate.pm check_pem: one PEM block (``multiple``: blocks separated by newlines) and nothing after."""
    content = strip_leading_text(content)
    one = _pem(label)
    regex = rf"(?:{one}\n+)*{one}" if multiple else one
    if re.match(rf"^(?:{regex})\n?\Z", content):
        return content
    raise FormatError("not a valid PEM-formatted string.")


# pve-common Certificate.pm registers these formats itself
FORMATS["pem-certificate"] = check_pem
FORMATS["pem-certificate-chain"] = lambda value: check_pem(value, multiple=True)
FORMATS["pem-string"] = lambda value: check_pem(value, label=_ANY_LABEL)


# -- the files ----------------------------------------------------------------------------------------------------

def node_path(node):
    return f"/etc/pve/nodes/{node}"


def cert_path_prefix(node):
    """CertHelpers.pm cert_path_prefix: the custom certificate's files."""
    return f"{node_path(node)}/pveproxy-ssl"


def _pem_blocks(text, labels=None):
    """The PEM blocks of ``text`` in order: ``(label, DER bytes or None)``, as OpenSSL's PEM reader finds them."""
    blocks = []
    for m in re.finditer(r"-----BEGIN ([^\n]*?)-----(.*?)-----END \1-----", text or "", re.S):
        if labels and m.group(1) not in labels:
            continue
        try:
            der = base64.b64decode(re.sub(r"\s", "", m.group(2)), validate=True)
        except ValueError:
            der = None
        blocks.append((m.group(1), der))
    return blocks


def _load_certificate(der):
    if der is None:
        return None
    try:
        return x509.load_der_x509_certificate(der)
    except ValueError:
        return None


def installer_file(ctx, path):
    """The file the installer (pve-cluster's gen_pve_ssl_cert) left: the cluster CA, a node's leaf only."""
    tls = ctx.member.sim.tls
    if path == ROOT_CA:
        with open(tls.ca_path, encoding="ascii") as fh:
            return fh.read()
    m = re.fullmatch(r"/etc/pve/nodes/([^/]+)/pve-ssl\.pem", path)
    if m and m.group(1) in ctx.state.nodes:
        with open(tls.cert_path, encoding="ascii") as fh:
            served = fh.read()
        return served[:served.index("-----END CERTIFICATE-----\n") + len("-----END CERTIFICATE-----\n")]
    return None


def read_file(ctx, path):
    """The text of ``path``, or None when there is no such file."""
    files = ctx.state.cert_files
    if path in files:
        return files[path]
    return installer_file(ctx, path)


def file_exists(ctx, path):
    return read_file(ctx, path) is not None


def write_file(state, path, text):
    state.cert_files[path] = text


def unlink(state, path):
    state.cert_files[path] = None


def file_get_contents(ctx, path):
    """PVE::File file_get_contents (PVE::Tools'): the text, or ``can't open '<path>' - <errno>``."""
    text = read_file(ctx, path)
    if text is None:
        raise die(f"can't open '{path}' - No such file or directory")
    return text


def read_certificate(ctx, path, text=None):
    """Certificate.pm $read_certificate: the file's first certificate (PEM_read_bio_X509)."""
    text = read_file(ctx, path) if text is None else text
    if text is None:
        raise die(f"'{path}' does not exist!")
    blocks = _pem_blocks(text, ("CERTIFICATE",))
    cert = _load_certificate(blocks[0][1]) if blocks else None
    if cert is None:
        raise die(f"unable to read certificate from '{path}'")
    return cert


# -- get_certificate_info -----------------------------------------------------------------------------------------

# OpenSSL's short names (OBJ_nid2sn) of the attributes certificate names carry
_SHORT_NAMES = {
    NameOID.COMMON_NAME: "CN", NameOID.COUNTRY_NAME: "C", NameOID.LOCALITY_NAME: "L",
    NameOID.STATE_OR_PROVINCE_NAME: "ST", NameOID.ORGANIZATION_NAME: "O", NameOID.ORGANIZATIONAL_UNIT_NAME: "OU",
    NameOID.EMAIL_ADDRESS: "emailAddress", NameOID.SERIAL_NUMBER: "serialNumber", NameOID.DOMAIN_COMPONENT: "DC",
    NameOID.USER_ID: "UID", NameOID.SURNAME: "SN", NameOID.GIVEN_NAME: "GN", NameOID.TITLE: "title",
    NameOID.STREET_ADDRESS: "street", NameOID.POSTAL_CODE: "postalCode", NameOID.PSEUDONYM: "pseudonym",
    NameOID.INITIALS: "initials", NameOID.DN_QUALIFIER: "dnQualifier",
    NameOID.GENERATION_QUALIFIER: "generationQualifier", NameOID.BUSINESS_CATEGORY: "businessCategory",
    NameOID.JURISDICTION_COUNTRY_NAME: "jurisdictionC", NameOID.JURISDICTION_STATE_OR_PROVINCE_NAME: "jurisdictionST",
    NameOID.JURISDICTION_LOCALITY_NAME: "jurisdictionL", NameOID.ORGANIZATION_IDENTIFIER: "organizationIdentifier",
}


def _value_bytes(attribute):
    """The ASN.1 string's bytes, which X509_NAME_oneline prints."""
    value = attribute.value
    if isinstance(value, bytes):
        return value
    kind = getattr(getattr(attribute, "_type", None), "name", "")
    encoding = {"UTF8String": "utf-8", "BMPString": "utf-16-be", "UniversalString": "utf-32-be"}.get(kind, "latin-1")
    return value.encode(encoding, "replace")


def name_oneline(name):
    """OpenSSL 3 X509_NAME_oneline: ``/SN=value`` per entry (``+`` inside a multi-valued RDN), bytes outside
    ' '..'~' as ``\\xHH``, ``/`` and ``+`` escaped with a backslash."""
    out = []
    for rdn in name.rdns:
        for i, attribute in enumerate(rdn):
            label = _SHORT_NAMES.get(attribute.oid, attribute.oid.dotted_string)
            text = ""
            for byte in _value_bytes(attribute):
                if byte < 0x20 or byte > 0x7E:
                    text += f"\\x{byte:02X}"
                else:
                    text += ("\\" if chr(byte) in "/+" else "") + chr(byte)
            out.append(("+" if i else "/") + f"{label}={text}")
    return "".join(out)


def fingerprint(cert):
    """Net::SSLeay X509_get_fingerprint($cert, 'sha256'): upper-case hex pairs joined by colons."""
    digest = cert.fingerprint(hashes.SHA256()).hex().upper()
    return ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))


def _san(cert):
    """get_certificate_info's $parse_san: DNS names and IP addresses (an IPv6 one as eight groups of four hex
    digits, unpack "H4" x 8), in the certificate's order; other types are skipped with a warning."""
    try:
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return []
    res = []
    for general in names:
        if isinstance(general, x509.DNSName):
            res.append(general.value)
        elif isinstance(general, x509.IPAddress) and isinstance(general.value, ipaddress.IPv4Address):
            res.append(str(general.value))
        elif isinstance(general, x509.IPAddress) and isinstance(general.value, ipaddress.IPv6Address):
            hexed = general.value.packed.hex()
            res.append(":".join(hexed[i:i + 4] for i in range(0, 32, 4)))
    return res


def public_key_description(key):
    """OBJ_nid2sn(EVP_PKEY_id) and EVP_PKEY_bits of a public key."""
    if isinstance(key, rsa.RSAPublicKey):
        return "rsaEncryption", key.key_size
    if isinstance(key, ec.EllipticCurvePublicKey):
        return "id-ecPublicKey", key.curve.key_size
    if isinstance(key, ed25519.Ed25519PublicKey):
        return "ED25519", 253
    if isinstance(key, ed448.Ed448PublicKey):
        return "ED448", 456
    if isinstance(key, dsa.DSAPublicKey):
        return "DSA", key.key_size
    return None, None


def certificate_info(cert, path):
    """Certificate.pm get_certificate_info of an X.509 certificate read from ``path``."""
    info = {
        "fingerprint": fingerprint(cert),
        "subject": name_oneline(cert.subject),
        "issuer": name_oneline(cert.issuer),
        "notbefore": int(cert.not_valid_before_utc.timestamp()),
        "notafter": int(cert.not_valid_after_utc.timestamp()),
        "san": _san(cert),
        "pem": cert.public_bytes(serialization.Encoding.PEM).decode("ascii"),
    }
    key_type, bits = public_key_description(cert.public_key())
    if key_type:
        info["public-key-type"] = key_type
        info["public-key-bits"] = bits
    info["filename"] = path.rsplit("/", 1)[-1]
    return info


def get_certificate_info(ctx, path):
    return certificate_info(read_certificate(ctx, path), path)


def check_expiry(ctx, path, timestamp):
    """Certificate.pm check_expiry: whether the certificate's notAfter is before ``timestamp``."""
    return read_certificate(ctx, path).not_valid_after_utc.timestamp() < timestamp


# -- set_cert_files -----------------------------------------------------------------------------------------------

def _die_now(msg):
    """Net::SSLeay die_now: ``die "$$: $msg\\n"`` - the pid of the pvedaemon worker that ran the method. ``$!`` in
    the message is the errno PerlIO's isatty check left when file_set_contents opened the file."""
    return die(f"{random.randint(1000, 4194303)}: {msg} (Inappropriate ioctl for device)")


def _private_key(text):
    """PEM_read_bio_PrivateKey: the first private-key block that decodes (no pass phrase: none is given)."""
    for label, der in _pem_blocks(text):
        if der is None or not label.endswith("PRIVATE KEY"):
            continue
        try:
            return serialization.load_der_private_key(der, password=None)
        except (ValueError, TypeError):
            return None
    return None


def _slot(key):
    """The SSL_CTX key slot of a key (ssl_cert_lookup_by_pkey): OpenSSL compares a key with the certificate of
    its own slot only."""
    for kinds, slot in (((rsa.RSAPrivateKey, rsa.RSAPublicKey), "rsa"),
                        ((ec.EllipticCurvePrivateKey, ec.EllipticCurvePublicKey), "ecc"),
                        ((ed25519.Ed25519PrivateKey, ed25519.Ed25519PublicKey), "ed25519"),
                        ((ed448.Ed448PrivateKey, ed448.Ed448PublicKey), "ed448"),
                        ((dsa.DSAPrivateKey, dsa.DSAPublicKey), "dsa")):
        if isinstance(key, kinds):
            return slot
    return None


def _spki(key):
    return key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def _check_chain_and_key(cert_text, key_text):
    """The SSL_CTX check of set_cert_files: CTX_use_certificate_chain_file, then CTX_use_PrivateKey_file (which
    fails for a key it cannot read, or one of the leaf's key type that does not match it)."""
    certs = [_load_certificate(der) for _label, der in _pem_blocks(cert_text, ("CERTIFICATE",))]
    if not certs or None in certs:
        raise _die_now("could not load certificate (chain)")
    key = _private_key(key_text)
    if key is None:
        raise _die_now("key does not match the certificate (chain)")
    leaf_key = certs[0].public_key()
    if _slot(key) == _slot(leaf_key) and _spki(key.public_key()) != _spki(leaf_key):
        raise _die_now("key does not match the certificate (chain)")


def set_cert_files(ctx, cert, key, path_prefix, force, log=None):
    """CertHelpers.pm set_cert_files: refuse to overwrite without ``force``, keep the old pair, write the new one,
    read its info, check chain and key (a failed check removes the new files); on any failure put the old pair
    back when both old files were there and die ``Setting certificate files failed - <err>``. ``log`` collects
    the warnings (a task's log). Returns the info."""
    state = ctx.state
    cert_path, key_path = f"{path_prefix}.pem", f"{path_prefix}.key"
    if not force and file_exists(ctx, cert_path):
        raise die("Custom certificate file exists but force flag is not set.")
    if not force and file_exists(ctx, key_path):
        raise die("Custom certificate key file exists but force flag is not set.")
    old_cert, old_key = read_file(ctx, cert_path), read_file(ctx, key_path)
    try:
        write_file(state, cert_path, cert)
        if key:
            write_file(state, key_path, key)
        info = get_certificate_info(ctx, cert_path)
        try:
            _check_chain_and_key(cert, read_file(ctx, key_path))
        except ApiError:
            unlink(state, cert_path)
            unlink(state, key_path)
            raise
    except ApiError as err:
        if old_cert is not None and old_key is not None:
            if log is not None:
                log.append("Attempting to restore old certificate files..")
            write_file(state, cert_path, old_cert)
            write_file(state, key_path, old_key)
        raise ApiError(500, f"Setting certificate files failed - {err.stringify()}\n", exception=False) from err
    return info


def under_cert_lock(work):
    """``PVE::CertHelpers::cert_lock(10, $code); die "$@\\n" if $@;``: the error, one newline longer."""
    try:
        return work()
    except ApiError as err:
        raise ApiError(500, err.stringify() + "\n", exception=False) from err


# -- the API ------------------------------------------------------------------------------------------------------

@route("GET", "/nodes/{node}/certificates")
def index(ctx, p):
    """Certificates.pm index."""
    return [{"name": "acme"}, {"name": "custom"}, {"name": "info"}]


@route("GET", "/nodes/{node}/certificates/info")
def info(ctx, p):
    """Certificates.pm info: the cluster CA, the node's certificate and the custom one, each that reads."""
    node = p["node"]
    res = []
    for path in (ROOT_CA, f"{node_path(node)}/pve-ssl.pem", f"{node_path(node)}/pveproxy-ssl.pem"):
        try:
            res.append(get_certificate_info(ctx, path))
        except ApiError:
            continue
    return res


@route("POST", "/nodes/{node}/certificates/custom")
def upload_custom_cert(ctx, p):
    """Certificates.pm upload_custom_cert: without a key one must already be there (400), then set_cert_files
    under the certificate lock. ``restart`` reloads pveproxy, which the simulator does not (the members keep
    serving the installer's certificate)."""
    prefix = cert_path_prefix(p["node"])
    certs = strip_leading_text(p["certificates"])
    key = p.get("key")
    if key:
        key = strip_leading_text(key)
    elif not file_exists(ctx, f"{prefix}.key"):
        raise param_exc({"key": "Attempted to upload custom certificate without (existing) key."})
    return under_cert_lock(lambda: set_cert_files(ctx, certs, key, prefix, p.get("force")))


@route("DELETE", "/nodes/{node}/certificates/custom")
def remove_custom_cert(ctx, p):
    """Certificates.pm remove_custom_cert: both files go (missing ones too, unlink's failure is ignored)."""
    prefix = cert_path_prefix(p["node"])
    unlink(ctx.state, f"{prefix}.pem")
    unlink(ctx.state, f"{prefix}.key")
    return None
