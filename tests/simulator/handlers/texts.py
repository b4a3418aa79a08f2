"""How PVE's section config files give a text back: what the next read parses, for the handlers that keep one.

* pve-common ``SectionConfig.pm`` parse_config reads a property line as ``^\\s+(\\S+)(\\s+(.*\\S))?\\s*$``, so a value
  comes back without its surrounding ASCII white space (``section_value``). A comment the plugin passes through
  ``PVE::Tools::encode_text`` first (pve-ha-manager ``HA/Rules.pm`` encode_value, pve-guest-common
  ``ReplicationConfig.pm`` write_config, pve-common ``Job/Registry.pm`` write_config, pve-access-control
  ``Auth/Plugin.pm`` write_config) keeps every character but its surrounding spaces (``section_comment``).
* write_config writes a comment only when Perl-true (``if ($scfg->{comment} ...)``): ``0`` is never written.
"""


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
