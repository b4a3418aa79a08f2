# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PEM text as PVE checks it, and a certificate's SHA-256 fingerprint as PVE shows it, without an X.509 library.

pve-common ``src/PVE/Certificate.pm`` registers the formats ``pem-certificate-chain`` and ``pem-string`` itself
(check_pem over strip_leading_text); they are registered here the same way, beside the formats of formats.py.
A fingerprint is the SHA-256 of the certificate's DER bytes (Net::SSLeay X509_get_fingerprint), upper-case hex
pairs joined by colons: the ``fingerprint`` of ``GET /nodes/{node}/certificates/info``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii
import hashlib
import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import FORMATS, Format

# Certificate.pm: $b64_char_re, $header_re, $footer_re, $pem_re ((?:\s|\n)* is \s*: the same, without backtracking)
_B64 = r'[0-9A-Za-z+/]'
_ANY_LABEL = r'[^\n]*?'
_BLOCK = re.compile(r'-----BEGIN ([^\n]*?)-----(.*?)-----END \1-----', re.S)


def _header(label):
    return r'-----BEGIN %s-----\s*' % label


def _pem(label):
    return (_header(label) + r'(?:%s+\s*\n)*%s*(?:=\s*\n=|={0,2})?\s*\n' % (_B64, _B64)
            + r'-----END %s-----\s*' % label)


def strip_leading_text(text):
    """Certificate.pm strip_leading_text: whatever comes before the first PEM header goes (PVE does this too)."""
    return re.sub(r'^.*?(?=%s)' % _header(_ANY_LABEL), '', text, count=1, flags=re.S)


def is_pem(text, label='CERTIFICATE', multiple=False):
    """Certificate.pm check_pem: one PEM block of ``label`` (``multiple``: blocks separated by newlines), and
    nothing after it."""
    one = _pem(label)
    whole = r'(?:%s\n+)*%s' % (one, one) if multiple else one
    return re.match(r'(?:%s)\n?\Z' % whole, strip_leading_text(text)) is not None


def blocks(text):
    """The PEM blocks of ``text`` in order: (label, DER bytes, or None when the body is not base64)."""
    found = []
    for match in _BLOCK.finditer(text or ''):
        try:
            der = base64.b64decode(re.sub(r'\s', '', match.group(2)).encode('ascii'), validate=True)
        except (binascii.Error, ValueError, UnicodeEncodeError):
            der = None
        found.append((match.group(1), der))
    return found


def fingerprint(der):
    """PVE's fingerprint of a certificate's DER bytes: SHA-256, upper-case hex pairs joined by colons."""
    digest = hashlib.sha256(der).hexdigest().upper()
    return ':'.join(digest[index:index + 2] for index in range(0, len(digest), 2))


def _is_der_sequence(der):
    # An X.509 certificate and every private key format are DER SEQUENCEs (tag 0x30).
    return bool(der) and bytearray(der[:1])[0] == 0x30


def chain_problem(text):
    """Why PVE would refuse ``text`` as a certificate chain (``pem-certificate-chain``), or None."""
    found = blocks(text)
    if not found:
        return 'is not PEM: it has no -----BEGIN CERTIFICATE----- block (give the PEM text itself, not a path)'
    labels = [label for label, _der in found]
    if 'CERTIFICATE' not in labels:
        return 'holds no certificate (its PEM blocks: %s)' % ', '.join(labels)
    others = sorted(set(label for label in labels if label != 'CERTIFICATE'))
    if others:
        return ('holds %s besides its certificates; PVE takes certificates only here (a key goes in key)'
                % ', '.join(others))
    for index, (_label, der) in enumerate(found):
        if not _is_der_sequence(der):
            return 'has a certificate (block %d) whose body is not base64 of a DER certificate' % (index + 1)
    if not is_pem(text, multiple=True):
        return ("is not the PEM PVE takes: CERTIFICATE blocks of base64 lines, separated by newlines, and nothing "
                "after the last one")
    return None


def key_problem(text):
    """Why PVE would refuse ``text`` as a private key (``pem-string``, then OpenSSL's PEM_read_bio_PrivateKey
    without a pass phrase), or None. Never quotes the key."""
    found = blocks(text)
    if not found:
        return 'is not PEM: it has no -----BEGIN PRIVATE KEY----- block'
    labels = [label for label, _der in found]
    if len(found) > 1:
        return 'holds %d PEM blocks (%s); PVE takes the private key alone' % (len(found), ', '.join(labels))
    label, der = found[0]
    if not label.endswith('PRIVATE KEY'):
        return 'is a %s block, not a private key' % label
    if label == 'ENCRYPTED PRIVATE KEY' or 'Proc-Type: 4,ENCRYPTED' in text:
        return 'is encrypted; PVE reads the key without a pass phrase'
    if not _is_der_sequence(der):
        return 'has a body that is not base64 of a DER key'
    if not is_pem(text, label=_ANY_LABEL):
        return 'is not the PEM PVE takes: one block of base64 lines and nothing after it'
    return None


def leaf_fingerprint(text):
    """The fingerprint of the first certificate of a chain (the one PVE reads as the node's), or None."""
    for label, der in blocks(text):
        if label == 'CERTIFICATE' and der:
            return fingerprint(der)
    return None


# pve-common Certificate.pm registers these two formats itself.
FORMATS['pem-certificate-chain'] = Format(
    'pem-certificate-chain', lambda text: chain_problem(text) is None,
    'PEM CERTIFICATE blocks, the certificate first, then its chain')
FORMATS['pem-string'] = Format('pem-string', lambda text: is_pem(text, label=_ANY_LABEL), 'one PEM block')
