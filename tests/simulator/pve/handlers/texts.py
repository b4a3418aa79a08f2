"""How PVE's section config files give a text back: what the next read parses, for the handlers that keep one.

* pve-common ``SectionConfig.pm`` parse_config reads a property line as ``^\\s+(\\S+)(\\s+(.*\\S))?\\s*$``, so a value
  comes back without its surrounding ASCII white space (``section_value``). A comment the plugin passes through
  ``PVE::Tools::encode_text`` first (pve-ha-manager ``HA/Rules.pm`` encode_value, pve-guest-common
  ``ReplicationConfig.pm`` write_config, pve-common ``Job/Registry.pm`` write_config, pve-access-control
  ``Auth/Plugin.pm`` write_config) keeps every character but its surrounding spaces (``section_comment``).
* write_config writes a comment only when Perl-true (``if ($scfg->{comment} ...)``): ``0`` is never written.
* pve-common ``ParseUtils`` encode_text / decode_text (a guest description's ``#`` lines), Perl's truth of a text
  (``perl_true``), ``split(/\\n/, $text)`` (``perl_lines``) and Perl's ``\\s`` (``PERL_SPACE``).
"""

import re


def section_value(text):
    return str(text).strip(" \t\n\x0b\x0c\r")


def section_comment(text):
    text = str(text).strip(" ")
    return "" if text == "0" else text


def read_back(section, key, how):
    """Store ``section[key]`` as the next parse of the file reads it (``how``: section_value or section_comment);
    a value that reads back empty is not there at all."""
    if key in section:
        value = how(section[key])
        if value:
            section[key] = value
        else:
            section.pop(key)
    return section


# pve-common ParseUtils::encode_text: every byte of the UTF-8 text outside 0x20-0x7e, and '%' and ':', as %XX.
_TEXT_SAFE = frozenset(range(0x20, 0x7F)) - {0x25, 0x3A}
# Perl's \s on a character string (perlrecharclass); Python's isspace() also takes \x1c-\x1f.
PERL_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"


def encode_text(text):
    """ParseUtils::encode_text: uri_escape of the UTF-8 bytes with the unsafe class above."""
    return "".join(chr(b) if b in _TEXT_SAFE else f"%{b:02X}" for b in text.encode("utf-8", "surrogatepass"))


def decode_text(data):
    """ParseUtils::decode_text: uri_unescape, then the bytes as UTF-8 (Encode's lax decode replaces what is not)."""
    raw = re.sub(rb"%([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), data.encode("utf-8", "surrogatepass"))
    return raw.decode("utf-8", "replace")


def perl_true(value):
    return value is not None and value not in ("", "0")


def perl_lines(text):
    r"""split(/\n/, $text): trailing empty fields dropped, leading and inner ones kept."""
    lines = text.split("\n")
    while lines and not lines[-1]:
        lines.pop()
    return lines
