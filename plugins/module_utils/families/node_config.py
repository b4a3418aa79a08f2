# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's config: /nodes/{node}/config, /etc/pve/nodes/<node>/config (pve-manager PVE/API2/NodeConfig.pm
get_config, set_options over PVE/NodeConfig.pm).

The object always exists (no file reads as no options). PVE keeps each value as it was sent, the description as
the file's ``#`` comment lines, and up to six ACME domains as ``acmedomain0`` .. ``acmedomain5``
(NodeConfig.pm $MAXDOMAINS). The module declares those as one option, ``acme_domains``, compared as a set of
domains as PVE reads them (get_acme_conf: the domain lower-cased, no plugin meaning ``standalone``); a repair
keeps the slots of the domains that stay, puts new ones in the free slots and clears the rest with ``delete=``.
Every write carries the file's digest.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    CommentText, Field, Integer, PropertyString, Text, clearable, comment_lines)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family, ItemStore, Lifecycle, Where

CONFIG = '/nodes/{node}/config'
SLOTS = ['acmedomain%d' % index for index in range(6)]  # NodeConfig.pm $MAXDOMAINS = 5: acmedomain0 .. 5
STANDALONE = 'standalone'
# NodeConfig.pm registers pve-acme-domain and pve-acme-alias: at least two labels.
ACME_DOMAIN = re.compile(r'(?i)[a-z0-9][a-z0-9_-]*(?:\.[a-z0-9][a-z0-9_-]*)+')
ACME_ALIAS = re.compile(r'(?i)[a-z0-9_][a-z0-9_-]*(?:\.[a-z0-9_][a-z0-9_-]*)+')


def node_comment(text):
    """A node's description as NodeConfig.pm reads it back: write_node_config writes each line of a Perl-true text
    as a ``#`` line (encode_text leaves spaces), parse_config trims each line and adds a newline."""
    return u''.join(line.rstrip(u' ') + u'\n' for line in comment_lines(text))


class Matching(Text):
    """A property-string key checked by one of NodeConfig.pm's own formats (``rule``: the pattern, ``kind``: the
    phrase); ``listed`` for a ``;``-separated list of them (pve-acme-domain-list)."""

    def __init__(self, wire, rule, kind, listed=False, **kwargs):
        super(Matching, self).__init__(wire, **kwargs)
        self.rule = rule
        self.kind = kind
        self.listed = listed

    def check_text(self, text):
        super(Matching, self).check_text(text)
        for item in (re.split(r'[;\s]+', text) if self.listed else [text]):
            if item and not self.rule.fullmatch(item):
                self.refuse(item, 'is not a valid %s (at least two labels of letters, digits, - and _)' % self.kind)


def needs_mac(pairs):
    return None if not pairs or pairs.get('mac') else 'names no MAC address (mac=<MAC address>, or the address alone)'


WAKEONLAN = {
    'mac': Text('mac', format='mac-addr'),
    'bind-interface': Text('bind-interface', format='pve-iface'),
    'broadcast-address': Text('broadcast-address', format='ipv4'),
}
ACME = {
    'account': Text('account', format='pve-configid'),
    'domains': Matching('domains', ACME_DOMAIN, 'domain name', listed=True),
}


class AcmeDomain(PropertyString):
    """One ``acmedomainN`` value, ``[domain=]<domain>[,alias=<domain>][,plugin=<plugin id>]``, as PVE reads it:
    the domain lower-cased, and no plugin the same as ``plugin=standalone``."""

    def __init__(self, wire):
        super(AcmeDomain, self).__init__(wire, default_key='domain', rule=self.needs_domain, keys={
            'domain': Matching('domain', ACME_DOMAIN, 'domain name'),
            'alias': Matching('alias', ACME_ALIAS, 'alias name'),
            'plugin': Text('plugin', format='pve-configid')})

    @staticmethod
    def needs_domain(pairs):
        return None if not pairs or pairs.get('domain') else 'names no domain (domain=<domain>, or the domain alone)'

    def canonical(self, value):
        pairs = dict(self.pairs(value))
        if 'domain' in pairs:
            pairs['domain'] = pairs['domain'].lower()
        if pairs.get('plugin') == STANDALONE:
            del pairs['plugin']
        return ','.join('%s=%s' % pair for pair in sorted(pairs.items()))

    def domain_of(self, canonical):
        return dict(self.pairs(canonical)).get('domain')


class AcmeDomains(Field):
    """The node's ``acmedomain0`` .. ``acmedomain5`` as one order-free list (the family's view gathers them);
    at most six, each domain once."""

    ansible_type = 'list'
    elements = 'str'
    unset = []

    def __init__(self, wire, **kwargs):
        super(AcmeDomains, self).__init__(wire, **kwargs)
        self.item = AcmeDomain(self.option)

    def canonical(self, value):
        values = value if isinstance(value, (list, tuple)) else [value]
        return sorted(set(self.item.canonical(item) for item in values if item not in (None, '')))

    def declared(self, value):
        values = [item for item in (value if isinstance(value, (list, tuple)) else [value]) if item not in (None, '')]
        for item in values:
            self.item.declared(str(item))
        canonical = self.canonical(values)
        domains = [self.item.domain_of(item) for item in canonical]
        twice = sorted(set(domain for domain in domains if domains.count(domain) > 1))
        if twice:
            self.refuse(twice[0], 'is declared twice; PVE takes each ACME domain once')
        if len(canonical) > len(SLOTS):
            self.refuse(values, 'names %d domains; a node takes at most %d (acmedomain0 to acmedomain%d)'
                        % (len(canonical), len(SLOTS), len(SLOTS) - 1))
        return canonical

    def slots(self, wanted, live):
        """({slot: value} to set, [slot] to delete): the slots of the domains that stay are kept, the new ones
        fill the free slots from acmedomain0 on, every other used slot is cleared."""
        used = dict((slot, self.item.canonical(live[slot])) for slot in SLOTS if live.get(slot))
        kept = set(slot for slot, value in used.items() if value in wanted)
        new = [value for value in wanted if value not in used.values()]
        free = [slot for slot in SLOTS if slot not in kept]
        sets = dict(zip(free, new))
        return sets, [slot for slot in SLOTS if slot in used and slot not in kept and slot not in sets]


class ConfigStore(ItemStore):
    def update(self, client, family, ident, form, live):
        """The drifted options, with acme_domains spread over the slots (delete= for the freed ones)."""
        form = dict(form)
        if ACME_DOMAINS.option in form:
            sets, cleared = ACME_DOMAINS.slots(form.pop(ACME_DOMAINS.option), live)
            form.update(sets)
            delete = [key for key in str(form.pop('delete', '') or '').split(',') if key] + cleared
            if delete:
                form['delete'] = ','.join(delete)
        return client.put(family.path(ident), form, role=family.write_role)


class ConfigFamily(Family):
    def view(self, raw):
        return dict(raw, acme_domains=[raw[slot] for slot in SLOTS if raw.get(slot)])

    def check_declaration(self, declaration):
        """A domain both in acme's domains and in acme_domains: PVE's verify_conf refuses the config."""
        acme = dict(ACME_FIELD.pairs(declaration.values.get('acme') or ''))
        listed = set(domain.lower() for domain in re.split(r'[;\s]+', acme.get('domains') or '') if domain)
        for item in declaration.values.get(ACME_DOMAINS.option) or []:
            if ACME_DOMAINS.item.domain_of(item) in listed:
                raise DeclarationError("option acme_domains: %r is also in acme's domains; PVE takes each ACME domain "
                                       "once" % ACME_DOMAINS.item.domain_of(item))


ACME_FIELD = clearable('acme', PropertyString, keys=ACME)
ACME_DOMAINS = AcmeDomains('acme_domains', schema_key='acmedomain[n]')

FAMILY = ConfigFamily(
    'node_config', 'config of node',
    identity=[Text('node', required=True, format='pve-node')],
    fields=[
        clearable('description', CommentText, read_back=node_comment, max_length=65536),
        clearable('wakeonlan', PropertyString, default_key='mac', keys=WAKEONLAN, rule=needs_mac),
        clearable('startall-onboot-delay', Integer, minimum=0, maximum=300),
        clearable('ballooning-target', Integer, minimum=0, maximum=100),
        ACME_FIELD,
        ACME_DOMAINS,
    ],
    where=Where(item=CONFIG, store=ConfigStore(), schema=('PUT', CONFIG)),
    lifecycle=Lifecycle(singleton=True, send_digest=True),
)
