# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the firewall families share about names, addresses, comments and log levels, as pve-firewall
(src/PVE/Firewall.pm) reads and writes them, the names a reference resolves (``Names``), and how a scope that lives
under another object is found first (``GuestScope``, ``VnetScope``)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import ipaddress
import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, MissingReference
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import why_not
from ansible_collections.homeflare.proxmox.plugins.module_utils.guest import cluster_guests, guest_declared, guest_row
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absent, Family, absent, field_plan

# pve-firewall's log levels (a rule's log, the options' log_level_in/out/forward).
LOG_LEVELS = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug', 'nolog']

# pve-firewall's name rule for aliases, ipsets and security groups (the schema's pattern).
NAME_PATTERN = r'[A-Za-z][A-Za-z0-9\-\_]+'
NAME = re.compile(NAME_PATTERN)
# An alias may be named with its scope (PVE 8+): dc/name, guest/name.
ALIAS_REFERENCE = re.compile(r'((dc|guest)/)?' + NAME_PATTERN)


def address(text):
    """The form PVE keeps: parse_ip_or_cidr drops /32 from an IPv4 and /128 from an IPv6 address."""
    host, _slash, bits = text.partition('/')
    try:
        widest = ipaddress.ip_address(host).max_prefixlen
    except ValueError:
        return text
    return host if bits == str(widest) else text


def pve_comment(text):
    """The comment PVE keeps: trimmed, and one Perl reads as false ('0') is never written."""
    text = text.strip()
    return '' if text == '0' else text


def clean_cidr(text):
    """An ipset entry as PVE stores it: create_ip (API2/Firewall/IPSet.pm) runs clean_cidr (Firewall.pm: host bits
    cleared, IPv6 compressed) and then parse_ip_or_cidr (/32, /128 dropped), so 10.0.2.5/24 is kept as 10.0.2.0/24."""
    if '/' in text:
        try:
            text = ipaddress.ip_network(text, strict=False).with_prefixlen
        except ValueError:
            return text
    return address(text)


def network_problem(text):
    """Why Net::IP->new refuses a network with host bits set, or None: parse_address_list (a rule's source and dest)
    hands its elements to Net::IP as given, unlike pve_verify_ip_or_cidr (an alias, an ipset entry)."""
    if '/' in text:
        try:
            ipaddress.ip_network(text, strict=True)
        except ValueError:
            return 'has host bits set; PVE wants the network address (for example %s)' % (
                ipaddress.ip_network(text, strict=False))
    return None


def address_or_alias_problem(text):
    """PVE's IPorCIDRorAlias: an alias name, or an address or network (pve_verify_ip_or_cidr: host bits are cleared
    before Net::IP judges it, so 10.0.2.5/24 is accepted)."""
    if ALIAS_REFERENCE.fullmatch(text):
        return None
    allowed = why_not('IPorCIDR', text)
    if allowed:
        return 'is neither an alias name nor %s' % allowed
    return None


def refuse_comment_lines(option, text):
    if '\n' in text or '\r' in text:
        raise DeclarationError('option %s: %r has a line break; PVE writes a comment on one line of its '
                               'firewall file' % (option, text))


def alias_version(row):
    """An alias's IP version: PVE's row carries it, a declared alias has its address."""
    if row.get('ipversion'):
        return int(row['ipversion'])
    try:
        return ipaddress.ip_network(str(row.get('cidr') or ''), strict=False).version
    except ValueError:
        return None


class Names:
    """The aliases, IP sets and security groups a reference resolves, as pve-firewall's verify_rule and resolve_alias
    see them: the cluster's lists and, for a guest's scope, the guest's own (``local``: kind -> its list's path);
    each live list read once, only when a reference needs it, then what the same ``declare`` task declares (present,
    or absent) laid over it.

    Keys are as PVE keeps them: an alias lower-cased (its lookups are lc), an IP set and a security group by the
    lower-cased name the parser stores (generic_fw_config_parser), which a reference must spell exactly."""

    LISTS = dict(alias=('/cluster/firewall/aliases', 'name'), ipset=('/cluster/firewall/ipset', 'name'),
                 group=('/cluster/firewall/groups', 'group'))
    # The modules whose declarations add to (or remove from) a list: module -> (list, identity option). A
    # firewall_rules object names a security group only with scope=group (no other scope's identity has a group).
    DECLARED = {'firewall_alias': ('alias', 'name'), 'firewall_ipset': ('ipset', 'name'),
                'firewall_rules': ('group', 'group')}

    def __init__(self, client, family, batch, local=None, vmid=None):
        self.client, self.role, self.batch, self.lists = client, family.read_role, batch, {}
        # a guest's own lists: kind -> path (None when the guest is not there yet), and its vmid
        self.local, self.vmid = local or {}, vmid

    @classmethod
    def of(cls, client, family, batch, local=None, vmid=None):
        """The Names a reference check reads: one for all the objects of a ``declare`` batch (each list read once
        per batch, kept in the batch's memo), afresh for a module's own run (no batch)."""
        memo = getattr(batch, 'memo', None)
        if memo is None:
            return cls(client, family, batch, local, vmid)
        key = ('firewall names', family.read_role, vmid)
        if key not in memo:
            memo[key] = cls(client, family, batch, local, vmid)
        return memo[key]

    def declared_here(self, ident, guest):
        """Whether a declared object's identity is of this list's scope: the guest's own, or the cluster's."""
        if guest:
            return str(ident.get('vmid')) == str(self.vmid)
        return 'vmid' not in ident

    def table(self, kind, guest=False):
        if (kind, guest) not in self.lists:
            path, key = self.LISTS[kind]
            if guest:
                path = self.local.get(kind)
            live = self.client.get(path, role=self.role) or [] if path else []
            rows = dict((str(row.get(key)).lower() if kind == 'alias' else str(row.get(key)), row) for row in live)
            for entry in self.batch:
                declared = self.DECLARED.get(entry.family.module)
                ident = entry.declaration.ident
                if not declared or declared[0] != kind or declared[1] not in ident:
                    continue
                if not self.declared_here(ident, guest):
                    continue
                name = ident[declared[1]]
                if entry.declaration.state == 'absent':
                    rows.pop(name, None)
                else:
                    rows[name] = dict(entry.declaration.values, **{key: name})
            self.lists[(kind, guest)] = rows
        return self.lists[(kind, guest)]

    def alias(self, name, scope=None):
        """The alias a reference resolves to (resolve_alias: the guest's own first unless dc/, then the cluster's
        unless guest/), or None."""
        name = name.lower()
        found = None
        if scope != 'dc' and self.vmid is not None:
            found = self.table('alias', guest=True).get(name)
        if found is None and scope != 'guest':
            found = self.table('alias').get(name)
        return found

    def alias_exists(self, name):
        """verify_rule's existence check: an alias of the cluster or of the guest, whatever scope the rule names."""
        return self.alias(name, 'dc') is not None or self.alias(name, 'guest') is not None

    def ipset(self, name):
        """An IP set of the guest's own or of the cluster's (verify_rule looks in both, whatever the scope)."""
        if self.vmid is not None and self.table('ipset', guest=True).get(name):
            return self.table('ipset', guest=True)[name]
        return self.table('ipset').get(name)

    def group(self, name):
        return self.table('group').get(name)


# -- scopes that live under another object -----------------------------------------------------------

GUEST_FIREWALL = '/nodes/{node}/{type}/{vmid}/firewall'
VNET_FIREWALL = '/cluster/sdn/vnets/{vnet}/firewall'
GUEST_LABELS = {'qemu': 'VM', 'lxc': 'container'}


class Nowhere(Absent):
    """The guest or vnet a firewall scope belongs to is not there (yet): there is nothing to read."""


NOWHERE = Nowhere()


class PlacedScope(Family):
    """A firewall scope under another object (a guest, a vnet), found by ``locate`` before it is read: the family's
    paths name placeholders (``{type}``, the guest's ``{node}``) that ``locate`` fills with where it lives now. When it
    is not there, the read is ``NOWHERE`` and the scope is planned as the object would start (empty), so check mode
    still plans it; a write then needs it to exist, or to be declared in the same ``declare`` (check_references)."""

    def locate(self, client, ident):
        """The placeholders' values where the owner lives, or None when it is not there."""
        raise NotImplementedError

    def owner_declared(self, ident, batch):
        """Whether the same ``declare`` creates the owner."""
        return False

    def missing(self, ident):
        """The MissingReference when the owner is not there."""
        raise NotImplementedError

    def at(self, place):
        """This family with its paths filled in for ``place``."""
        placed = copy.copy(self)

        def fill(template):
            if template is None:
                return None
            for key, value in place.items():
                template = template.replace('{%s}' % key, str(value))
            return template

        placed.item, placed.collection = fill(self.item), fill(self.collection)
        return placed

    def read(self, client, declaration):
        declaration.located = self.locate(client, declaration.ident)
        if declaration.located is None:
            return NOWHERE
        placed = self.at(declaration.located)
        return placed.store.read(client, placed, declaration.ident)

    def plan(self, declaration, raw, batch=()):
        if isinstance(raw, Nowhere) and self.singleton:
            # the options of a guest or vnet not there yet: what they would be once it is (none set)
            return field_plan(self, declaration, {})
        return super(PlacedScope, self).plan(declaration, raw, batch)

    def check_references(self, declaration, raw, batch, client):
        """The owner first; then the family's own references (a rule list's aliases, IP sets and groups)."""
        if declaration.located is None and not self.owner_declared(declaration.ident, batch):
            raise self.missing(declaration.ident)
        super(PlacedScope, self).check_references(declaration, raw, batch, client)

    def act(self, client, declaration, raw, the_plan, result):
        # the writes go where the read found the owner (check_references refused a run without one)
        return Family.act(self.at(declaration.located), client, declaration, raw, the_plan, result)


class GuestScope(PlacedScope):
    """A guest's firewall (a VM's or a container's: /nodes/{node}/{qemu|lxc}/{vmid}/firewall): the type and the node
    it lives on come from the cluster's resource list, so one declaration serves both types, and a guest that moved
    (HA) is judged where it lives, with a warning."""

    def locate(self, client, ident):
        row = guest_row(client, self.read_role, ident['vmid'])
        return dict(type=str(row['type']), node=str(row.get('node'))) if row else None

    def owner_declared(self, ident, batch):
        return guest_declared(batch, ident['vmid'])

    def missing(self, ident):
        return MissingReference('%s: vmid %s is no guest of the cluster (GET /cluster/resources?type=vm lists none for '
                                'this credential, which needs VM.Audit on it), so it has no firewall to write. Nothing '
                                'was written.' % (self.describe(ident), ident['vmid']))

    def identity_form(self, ident, path=''):
        form = super(GuestScope, self).identity_form(ident, path)
        form.pop('node', None)  # the path's: at() filled it with the node the guest lives on
        return form

    def describe(self, ident):
        what = self.name
        if 'name' in ident or 'group' in ident:
            what = "%s '%s'" % (what, ident.get('name', ident.get('group')))
        return '%s of guest %s on %s' % (what, ident['vmid'], ident['node'])

    def outcome(self, declaration, raw, the_plan):
        result = super(GuestScope, self).outcome(declaration, raw, the_plan)
        place = declaration.located
        if place and place['node'] != str(declaration.ident['node']):
            result['warnings'].append(
                '%s %s is declared on %s but lives on %s (moved by HA or by hand): its firewall was judged there; '
                'declare node: %s to silence this' % (GUEST_LABELS.get(place['type'], 'guest'),
                                                      declaration.ident['vmid'], declaration.ident['node'],
                                                      place['node'], place['node']))
        return result

    def names(self, client, declaration, batch):
        """The names a reference of this guest's scope resolves: its own aliases and IP sets, then the cluster's."""
        local = {}
        if declaration.located:
            path = item_path(GUEST_FIREWALL, dict(declaration.located, vmid=declaration.ident['vmid']))
            local = dict(alias=path + '/aliases', ipset=path + '/ipset')
        return Names.of(client, self, batch, local=local, vmid=declaration.ident['vmid'])

    def find_all(self, client):
        """Every guest's object of this scope, read where the guest lives (the export)."""
        found = []
        for row in cluster_guests(client, self.read_role):
            ident = dict(node=str(row.get('node')), vmid=int(row['vmid']))
            place = dict(type=str(row['type']), node=str(row.get('node')))
            found.extend(scope_objects(client, self.at(place), ident))
        return found


class VnetScope(PlacedScope):
    """A vnet's firewall (/cluster/sdn/vnets/{vnet}/firewall): pve-firewall finds the vnet in SDN's running config
    (Helpers.pm check_vnet_access: get_vnet($vnet, 1), else "invalid vnet specified"), so a vnet still pending an
    SDN apply has no firewall yet."""

    def running_vnets(self, client):
        """The vnets of SDN's running configuration this credential may audit."""
        return [str(row.get('vnet')) for row in
                client.get('/cluster/sdn/vnets', params=dict(running='1'), role=self.read_role) or []]

    def locate(self, client, ident):
        return {} if str(ident['vnet']) in self.running_vnets(client) else None

    def owner_declared(self, ident, batch):
        return False  # a vnet declared beside it is only pending until the apply, which a declare runs last

    def missing(self, ident):
        return MissingReference("%s: vnet '%s' is not in SDN's running configuration (GET /cluster/sdn/vnets?running=1 "
                                "lists no such vnet for this credential, which needs SDN.Audit on it; PVE answers "
                                "'invalid vnet specified' until the vnet is applied). Apply SDN first. Nothing was "
                                "written." % (self.describe(ident), ident['vnet']))

    def describe(self, ident):
        return "%s of vnet '%s'" % (self.name, ident['vnet'])

    def find_all(self, client):
        found = []
        for vnet in self.running_vnets(client):
            found.extend(scope_objects(client, self, dict(vnet=vnet)))
        return found


def scope_objects(client, placed, ident):
    """[(ident, raw)] of one owner's objects: its options or rule list, read once and left out when nothing is set
    (no option, no rule); or its aliases or IP sets, each named by its row of the owner's list, then read."""
    if placed.collection is None:
        raw = placed.store.read(client, placed, ident)
        if not raw or not any(key != 'digest' for key in raw):
            return []
        return [(dict(ident), raw)]
    found = []
    named = placed.identity[-1]
    for row in client.get(placed.collection_path(ident), role=placed.read_role) or []:
        each = dict(ident, **{named.option: named.canonical(row.get(named.wire))})
        raw = placed.store.read(client, placed, each)
        if not absent(raw):  # gone between the list and its read
            found.append((each, raw))
    return found
