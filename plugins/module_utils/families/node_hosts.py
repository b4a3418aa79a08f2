# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's /etc/hosts: the declared entries present, through /nodes/{node}/hosts (pve-manager PVE/API2/Nodes.pm
get_etc_hosts, write_etc_hosts over pve-common INotify.pm read_etc_hosts, write_etc_hosts).

PVE answers the whole file (``data``) and its ``digest``, and takes the whole file back (``POST data= digest=``).
An entry is present when a line for its address holds exactly its names, in that order; otherwise the line for
that address that shares a name with it (else the first for that address) is replaced, or a line is appended when
none has the address. Lines the declaration does not name
are kept, unless ``exclusive``: then every other address line goes, but for the ones no host has (loopback,
127.0.0.0/8 and ::1, and Debian's IPv6 lines, fe00::0 and the multicast ff00::/8) and for comments and blank
lines. The repair is one POST of the file with the digest read, so another writer's edit is never overwritten.

The file's text is judged against the declaration, so the read is the declaration's (``HostsFamily.read``): it
gives the live lines that stand for the declared entries (and, exclusive, the lines that would go) as
``entries``, and the file the repair writes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Field, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import DNS_NAME
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family, ItemStore, Lifecycle, Where

HOSTS = '/nodes/{node}/hosts'
ENTRY_OPTIONS = dict(ip=dict(type='str', required=True), names=dict(type='list', elements='str', required=True))
# Addresses no host holds: kept by an exclusive declaration (the installer's file has them all).
NO_HOST = [ipaddress.ip_network(net) for net in ('127.0.0.0/8', '::1/128', 'fe00::/128', 'ff00::/8')]


def address_of(text):
    """An address as compared: the canonical form of an IP (``FE80::0001`` is ``fe80::1``), else the text."""
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return text


def is_address(text):
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return '%' not in text  # PVE's IPRE takes no IPv6 zone


def no_host(address):
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip.version == net.version and ip in net for net in NO_HOST)


class Line:
    """One line of the file: its text and, for an address line, its address and names (up to a ``#``)."""

    def __init__(self, text):
        self.text = text
        words = text.split()
        self.address = None
        self.names = []
        if words and not words[0].startswith('#'):
            self.address = address_of(words[0])
            for word in words[1:]:
                if word.startswith('#'):
                    break
                self.names.append(word)


def lines_of(data):
    return [Line(text) for text in re.findall(r'[^\n]*\n|[^\n]+$', data or '')]


def chosen_lines(lines, entries):
    """For each declared entry, the index of the line that stands for it: one for its address with exactly its
    names, else one for its address sharing a name with it (the installer's ``127.0.0.1`` localhost line is not
    the line of a host name on 127.0.0.1), else the first for its address; None when no line has it."""
    chosen = []
    for entry in entries:
        same = [index for index, line in enumerate(lines) if line.address == entry['ip']]
        exact = [index for index in same if lines[index].names == entry['names']]
        sharing = [index for index in same if set(lines[index].names) & set(entry['names'])]
        chosen.append((exact or sharing or same or [None])[0])
    return chosen


def goes(line, index, chosen, exclusive):
    """Whether an exclusive declaration removes this line."""
    return exclusive and line.address is not None and index not in chosen and not no_host(line.address)


def live_entries(data, entries, exclusive):
    """What the file holds for the declaration: the line standing for each declared entry (in declared order,
    left out when no line has its address), then, exclusive, each line that would go."""
    lines = lines_of(data)
    chosen = chosen_lines(lines, entries)
    found = [dict(ip=lines[index].address, names=lines[index].names) for index in chosen if index is not None]
    found.extend(dict(ip=line.address, names=line.names) for index, line in enumerate(lines)
                 if goes(line, index, chosen, exclusive))
    return found


def every_entry(data):
    """The file as an export declares it back (not exclusive, so a no-op): the first line of each address, but for
    the addresses no host holds (the installer's lines)."""
    found = {}
    for line in lines_of(data):
        if line.address is not None and line.names and not no_host(line.address) and line.address not in found:
            found[line.address] = dict(ip=line.address, names=line.names)
    return list(found.values())


def render(entry):
    return '%s %s\n' % (entry['ip'], ' '.join(entry['names']))


def repaired(data, entries, exclusive):
    """The file with the declared entries present: a stale line replaced in place, a missing one appended, and,
    exclusive, the other address lines gone; every other line kept as it is."""
    lines = lines_of(data)
    chosen = chosen_lines(lines, entries)
    replace = dict((index, entry) for index, entry in zip(chosen, entries)
                   if index is not None and lines[index].names != entry['names'])
    out = []
    for index, line in enumerate(lines):
        if index in replace:
            out.append(render(replace[index]))
        elif not goes(line, index, chosen, exclusive):
            out.append(line.text)
    if out and not out[-1].endswith('\n'):
        out[-1] += '\n'
    out.extend(render(entry) for index, entry in zip(chosen, entries) if index is None)
    return ''.join(out)


def names_node(data, node):
    """Whether an address line names the node (its short name, or a name under it such as node1.example.org)."""
    node = node.lower()
    return any(name.lower() == node or name.lower().startswith(node + '.')
               for line in lines_of(data) if line.address is not None for name in line.names)


class HostEntries(Field):
    """The declared host entries, ``{ip, names}`` each, compared with the lines that stand for them (the read
    gives those as ``entries``); in declared order, each name list in its order (the first is the canonical
    name)."""

    ansible_type = 'list'
    elements = 'dict'
    unset = []

    def argument_spec(self):
        spec = super(HostEntries, self).argument_spec()
        spec['options'] = ENTRY_OPTIONS
        return spec

    def canonical(self, value):
        return [dict(ip=address_of(str(entry.get('ip') or '').strip()),
                     names=[str(name).strip() for name in entry.get('names') or []])
                for entry in value or []]

    def declared(self, value):
        seen = set()
        for index, entry in enumerate(value or []):
            where = '%s[%d]' % (self.option, index)
            ip = str(entry.get('ip') or '').strip()
            if not is_address(ip):
                raise DeclarationError('option %s.ip: %r is not an IP address' % (where, ip))
            if address_of(ip) in seen:
                raise DeclarationError('option %s.ip: %r is declared twice; one line holds all names of an '
                                       'address' % (where, ip))
            seen.add(address_of(ip))
            names = [str(name).strip() for name in entry.get('names') or []]
            if not names:
                raise DeclarationError('option %s.names: the line for %s has no name; give at least one (the '
                                       'first is the canonical name)' % (where, ip))
            for name in names:
                if not DNS_NAME.fullmatch(name):
                    raise DeclarationError("option %s.names: %r is not a host name (labels of letters, digits and "
                                           "inner '-', separated by dots)" % (where, name))
        return self.canonical(value)


class HostsStore(ItemStore):
    def update(self, client, family, ident, form, live):
        """One POST of the whole file, as the read repaired it, with the read's digest."""
        return client.post(family.path(ident), dict(data=live['repaired'], digest=form.get('digest')),
                           role=family.write_role)


class HostsFamily(Family):
    def check_declaration(self, declaration):
        if declaration.controls.get('exclusive') and 'entries' not in declaration.values:
            raise DeclarationError('option exclusive needs entries: it makes the declared entries the only address '
                                   'lines (declare entries: [] to keep only the lines no host holds)')

    def read(self, client, declaration):
        raw = super(HostsFamily, self).read(client, declaration)
        data = raw.get('data') or ''
        if 'entries' not in declaration.values:
            return dict(raw, entries=every_entry(data))
        entries, exclusive = declaration.values['entries'], bool(declaration.controls.get('exclusive'))
        return dict(raw, entries=live_entries(data, entries, exclusive), repaired=repaired(data, entries, exclusive))

    def diff(self, declaration, raw, the_plan):
        """Entries as the lines of the file (``10.0.0.11 pve1.example.org pve1``): what an operator reads there."""
        diff = super(HostsFamily, self).diff(declaration, raw, the_plan)
        for side in diff.values():
            if 'entries' in side:
                side['entries'] = [render(entry).rstrip('\n') for entry in side['entries']]
        return diff

    def check_found(self, declaration, raw, changed):
        """A repair that leaves no line naming the node itself: PVE needs its own name to resolve (pve-cluster
        looks up the node's address by it)."""
        node = declaration.ident['node']
        if changed and names_node(raw.get('data'), node) and not names_node(raw['repaired'], node):
            raise Refused("%s: this repair would leave no line naming the node itself (%s), which PVE resolves to "
                          "find its own address; declare an entry for it. Nothing was written."
                          % (self.describe(declaration.ident), node))


FAMILY = HostsFamily(
    'node_hosts', 'hosts file of node',
    identity=[Text('node', required=True, format='pve-node')],
    # PVE takes the file as ``data``: the entries are this collection's reading of it.
    fields=[HostEntries('entries', schema_key=None)],
    where=Where(item=HOSTS, store=HostsStore(), schema=('POST', HOSTS)),
    lifecycle=Lifecycle(singleton=True, send_digest=True),
    controls={'exclusive': dict(type='bool', default=False)},
)
