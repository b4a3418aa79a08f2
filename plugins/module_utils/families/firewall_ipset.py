# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The firewall IP set family, its comment and the set of its entries: the cluster's (/cluster/firewall/ipset/{name})
and a guest's (/nodes/{node}/{qemu|lxc}/{vmid}/firewall/ipset/{name}, found where the guest lives: GuestScope).

PVE has no call that writes a set's entries at once: each entry is added (POST), changed (PUT)
or removed (DELETE) on its own. So a create is one write for the set and one per entry, and a
repair is one write per entry that differs, never a rewrite of the whole set.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Field, Flag, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.firewall import (
    ALIAS_REFERENCE, GUEST_FIREWALL, NAME_PATTERN, GuestScope, Names, address_or_alias_problem, clean_cidr,
    pve_comment, refuse_comment_lines)
from ansible_collections.homeflare.proxmox.plugins.module_utils.guest import identity as guest_identity
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import ABSENT, Family, Where, absent
from ansible_collections.homeflare.proxmox.plugins.module_utils.scopes import ByScope

ENTRY_OPTIONS = dict(cidr=dict(type='str', required=True), nomatch=dict(type='bool', default=False),
                     comment=dict(type='str', default=''))
NOMATCH = Flag('nomatch')


class EntrySet(Field):
    """The entries of a set, compared as a set keyed by address: ``{cidr, nomatch, comment}`` each.

    Addresses are compared as PVE stores them (clean_cidr: host bits cleared, ``/32`` and ``/128`` dropped), so
    10.0.2.5/24 declared matches the 10.0.2.0/24 PVE keeps; comments trimmed.
    """

    ansible_type = 'list'
    elements = 'dict'
    unset = []

    def argument_spec(self):
        spec = super(EntrySet, self).argument_spec()
        spec['options'] = ENTRY_OPTIONS
        return spec

    def canonical(self, value):
        entries = {}
        for entry in value or []:
            cidr = clean_cidr(str(entry.get('cidr') or '').strip())
            entries[cidr] = dict(cidr=cidr, nomatch=bool(NOMATCH.canonical(entry.get('nomatch') or 0)),
                                 comment=pve_comment(str(entry.get('comment') or '')))
        return [entries[cidr] for cidr in sorted(entries)]

    def declared(self, value):
        seen = set()
        for index, entry in enumerate(value):
            cidr = clean_cidr(str(entry.get('cidr') or '').strip())
            where = '%s[%d]' % (self.option, index)
            problem = address_or_alias_problem(cidr)
            if problem:
                raise DeclarationError('option %s.cidr: %r %s' % (where, cidr, problem))
            if cidr.endswith('/0'):
                raise DeclarationError('option %s.cidr: %r: PVE allows no zero prefix in an IP set' % (where, cidr))
            if cidr in seen:
                raise DeclarationError('option %s.cidr: %r is declared twice' % (where, cidr))
            seen.add(cidr)
            refuse_comment_lines(where + '.comment', str(entry.get('comment') or ''))
        return self.canonical(value)


def entry_form(entry):
    """update_ip sets ``nomatch`` and ``comment`` from the parameters, so both always go."""
    return dict(nomatch='1' if entry['nomatch'] else '0', comment=entry['comment'])


def entry_path(family, ident, cidr):
    values = dict((field.wire, ident[field.option]) for field in family.identity)
    return item_path(family.item + '/{cidr}', dict(values, cidr=cidr))


class IpsetStore:
    """A set is a row of its scope's list of sets (its comment) plus the list of its entries."""

    def read(self, client, family, ident):
        row = [row for row in client.get(family.collection_path(ident), role=family.read_role) or []
               if row.get('name') == ident['name']]
        if not row:
            return ABSENT
        entries = client.get(family.path(ident), role=family.read_role) or []
        return dict(row[0], entries=entries, digest=entries[0]['digest'] if entries else None,
                    set_digest=row[0].get('digest'))

    def create(self, client, family, ident, form):
        entries = form.pop('entries', [])
        client.post(family.collection_path(ident), dict(form, name=ident['name']), role=family.write_role)
        for entry in entries:
            self.add(client, family, ident, entry)

    def add(self, client, family, ident, entry):
        client.post(family.path(ident), dict(entry_form(entry), cidr=entry['cidr']), role=family.write_role)

    def update(self, client, family, ident, form, live):
        if 'comment' in form:
            # ``rename`` to the set's own name changes its comment (create_ipset), checked against the list's digest.
            client.post(family.collection_path(ident), dict(name=ident['name'], rename=ident['name'],
                                                            comment=form['comment'], digest=live['set_digest']),
                        role=family.write_role)
        if 'entries' in form:
            self.sync(client, family, ident, live, form['entries'])

    def sync(self, client, family, ident, live, desired):
        """One write per entry that differs: removed, changed, then added (a POST takes no digest)."""
        current = dict((entry['cidr'], entry) for entry in family.current(live)['entries'])
        wanted = dict((entry['cidr'], entry) for entry in desired)
        digest = live['digest']
        guarded = [('DELETE', cidr, None) for cidr in sorted(set(current) - set(wanted))]
        guarded += [('PUT', cidr, wanted[cidr]) for cidr in sorted(set(current) & set(wanted))
                    if current[cidr] != wanted[cidr]]
        for index, (method, cidr, entry) in enumerate(guarded):
            if index:
                # The previous write changed the list: send the digest of a fresh read.
                digest = self.entries_digest(client, family, ident)
            path = entry_path(family, ident, cidr)
            if method == 'DELETE':
                client.delete(path, dict(digest=digest), role=family.write_role)
            else:
                client.put(path, dict(entry_form(entry), digest=digest), role=family.write_role)
        for cidr in sorted(set(wanted) - set(current)):
            self.add(client, family, ident, wanted[cidr])

    def entries_digest(self, client, family, ident):
        entries = client.get(family.path(ident), role=family.read_role) or []
        return entries[0]['digest'] if entries else None

    def delete(self, client, family, ident):
        return client.delete(family.path(ident), dict(force='1'), role=family.write_role)


class IpsetFamily(Family):
    def check_declaration(self, declaration):
        refuse_comment_lines('comment', declaration.values.get('comment', ''))

    def check_references(self, declaration, raw, batch, client):
        """An entry naming an alias is added only if the alias resolves (create_ip, API2/Firewall/IPSet.pm, calls
        Firewall.pm resolve_alias), case-insensitively: in a cluster set ``dc/name`` and ``name`` name a cluster
        alias and ``guest/name`` never resolves; in a guest's set ``name`` is the guest's own alias, else the
        cluster's, ``guest/name`` only the guest's, ``dc/name`` only the cluster's. Only entries still to be added
        (POST) are judged: an update never re-resolves."""
        live = set() if absent(raw) else set(entry['cidr'] for entry in self.current(raw)['entries'])
        names = self.names(client, declaration, batch)
        for entry in declaration.values.get('entries') or []:
            reference = ALIAS_REFERENCE.fullmatch(entry['cidr'])
            if not reference or entry['cidr'] in live:
                continue
            name = entry['cidr'].split('/')[-1]
            if not names.alias(name, reference.group(2)):
                raise DeclarationError("option entries: the entry %r: no such alias '%s'; PVE would create the set "
                                       "and refuse the entry, so nothing was written (declare the alias, or use an "
                                       "address)" % (entry['cidr'], name))

    def names(self, client, declaration, batch):
        """The aliases an entry resolves: the cluster's."""
        return Names.of(client, self, batch)


class GuestIpset(GuestScope, IpsetFamily):
    """A guest's own IP set (IPSet.pm's VM and CT subclasses): the guest found first, its entries' aliases resolved
    to the guest's own first (GuestScope.names)."""


def set_fields():
    return [
        Text('comment', default='', normalise=pve_comment),
        EntrySet('entries', default=[], schema_key=None),
    ]


# PVE lower-cases set names when it reads a firewall file (generic_fw_config_parser: lc of [IPSET name]).
def set_name():
    return Text('name', required=True, pattern=NAME_PATTERN, min_length=2, max_length=64,
                normalise=lambda text: text.lower())


CLUSTER = IpsetFamily(
    'firewall_ipset', 'firewall ipset',
    identity=[set_name()],
    fields=set_fields(),
    where=Where(collection='/cluster/firewall/ipset', item='/cluster/firewall/ipset/{name}', store=IpsetStore()),
)

GUEST = GuestIpset(
    'firewall_ipset', 'firewall ipset',
    identity=guest_identity() + [set_name()],
    fields=set_fields(),
    where=Where(collection=GUEST_FIREWALL + '/ipset', item=GUEST_FIREWALL + '/ipset/{name}', store=IpsetStore(),
                schema=('POST', '/nodes/{node}/qemu/{vmid}/firewall/ipset')),
)

FAMILY = ByScope('firewall_ipset', 'firewall ipset', dict(cluster=CLUSTER, vm=GUEST), default='cluster')
