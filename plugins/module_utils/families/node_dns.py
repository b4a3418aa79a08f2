# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's DNS settings: /nodes/{node}/dns, its /etc/resolv.conf (pve-manager PVE/API2/Nodes.pm dns, update_dns).

The object always exists. PVE's PUT takes ``search`` as required and rewrites the file from what it is sent
(pve-common INotify.pm update_etc_resolv_conf): the search line, then each name server sent, in order, skipping
empty ones, ``0.0.0.0`` and repeats; a name server not sent is gone. So the one write carries the live
``search`` and every live name server the task does not change, and a name server declared ``''`` is left out.
The read gives the first three ``nameserver`` lines back as dns1..dns3 (read_etc_resolv_conf), so a gap moves the
next server up: a declaration PVE would renumber is refused before anything is written.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import DNS_NAME
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family, ItemStore, Lifecycle, Where

DNS = '/nodes/{node}/dns'
SERVERS = ('dns1', 'dns2', 'dns3')
# update_etc_resolv_conf writes no nameserver line for this address.
NO_SERVER = '0.0.0.0'


class SearchDomain(Text):
    """The search domain: read_etc_resolv_conf answers only the first word of the search line, so one DNS name
    (the schema names no format for it)."""

    def check_text(self, text):
        super(SearchDomain, self).check_text(text)
        if not DNS_NAME.fullmatch(text):
            self.refuse(text, 'is not one domain name (PVE reads back only the first word of the search line, so '
                              'declare one domain)')


class NameServer(Text):
    def check_text(self, text):
        super(NameServer, self).check_text(text)
        if text == NO_SERVER:
            self.refuse(text, "is no name server (PVE writes no line for it); declare '' to remove it")


def written(servers):
    """update_etc_resolv_conf then read_etc_resolv_conf: the dns1..dns3 PVE reads after it was sent ``servers``
    (dns1..dns3 -> address; '' or absent: not sent)."""
    kept = []
    for key in SERVERS:
        server = servers.get(key) or ''
        if server and server != NO_SERVER and server not in kept:
            kept.append(server)
    return dict((key, kept[index] if index < len(kept) else '') for index, key in enumerate(SERVERS))


def sent_servers(declared, live):
    """The name servers one write sends: each declared one, else the live one (the PUT drops what it lacks)."""
    return dict((key, declared[key] if key in declared else live.get(key) or '') for key in SERVERS)


class DnsStore(ItemStore):
    def update(self, client, family, ident, form, live):
        """One PUT of the whole setting: ``search`` (required) and every name server that stays."""
        servers = sent_servers(dict((key, form[key]) for key in SERVERS if key in form), live)
        sent = dict((key, server) for key, server in servers.items() if server)
        sent['search'] = form['search'] if 'search' in form else live.get('search') or ''
        return client.put(family.path(ident), sent, role=family.write_role)


class DnsFamily(Family):
    def check_declaration(self, declaration):
        """Name servers PVE could never read back as declared: one after a gap, or one declared twice."""
        declared = declaration.values
        if any(key in declared for key in SERVERS):
            for index, key in enumerate(SERVERS):
                later = [other for other in SERVERS[index + 1:] if declared.get(other)]
                if declared.get(key) == '' and later:
                    raise DeclarationError(
                        "option %s: declared '' while %s is set; PVE keeps name servers in order without gaps (%s "
                        "would become %s): declare them from dns1 on" % (key, later[0], later[0], key))
            values = [declared[key] for key in SERVERS if declared.get(key)]
            if len(set(values)) != len(values):
                twice = [value for value in values if values.count(value) > 1][0]
                key = [key for key in SERVERS if declared.get(key) == twice][-1]
                raise DeclarationError('option %s: %r is declared twice; PVE writes a name server once' % (key, twice))

    def check_found(self, declaration, raw, changed):
        """The write keeps the live name servers the task does not declare; refuse one PVE would renumber or
        drop (a declared gap before a live server, a declared server that is live in another slot)."""
        if not changed:
            return
        declared = dict((key, declaration.values[key]) for key in SERVERS if key in declaration.values)
        current = self.current(raw)
        after = written(sent_servers(declared, current))
        moved = [key for key in SERVERS if after[key] != (declared[key] if key in declared else current[key])]
        if moved:
            raise Refused(
                '%s: PVE would read %s back as %s after this write (it keeps name servers in order, once each, '
                'without gaps), not as declared; declare %s too. Nothing was written.'
                % (self.describe(declaration.ident), ', '.join(moved),
                   ', '.join(repr(after[key]) for key in moved),
                   ', '.join(key for key in moved if key not in declared) or 'them in order'))


FAMILY = DnsFamily(
    'node_dns', 'DNS settings of node',
    identity=[Text('node', required=True, format='pve-node')],
    fields=[
        # PVE wants it on every PUT: the declared one, else the live one (DnsStore).
        SearchDomain('search', always_send=True),
        NameServer('dns1', format='ip'),
        NameServer('dns2', format='ip'),
        NameServer('dns3', format='ip'),
    ],
    where=Where(item=DNS, store=DnsStore(), schema=('PUT', DNS)),
    lifecycle=Lifecycle(singleton=True),
)
