# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The whole ordered firewall rule list of one scope, as one object.

Scopes: the cluster (/cluster/firewall/rules), a security group (/cluster/firewall/groups/{group},
the group itself with its comment) and a node (/nodes/{node}/firewall/rules). PVE addresses a rule
by its position only, and every write renumbers the rules after it, so a rule is never declared
by position: the declared list is compared, in order, with the live one, and the store works out
the writes (pve-firewall src/PVE/API2/Firewall/Rules.pm):

* POST puts a new rule on top (position 0) and disables it unless ``enable`` is sent;
* PUT {pos} with ``moveto`` moves one rule (before the rule that was at ``moveto``);
* PUT {pos} with the rule's keys rewrites it in place (``delete=`` for keys it loses);
* DELETE {pos} removes it.

Each PUT and DELETE carries the digest of the list read just before it, and the list is read
again after every write, so positions are never guessed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, NotConverged
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.firewall_alias import (
    ALIAS_REFERENCE, NAME, NAME_PATTERN, network_problem, pve_comment)
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.firewall_options import LOG_LEVELS, ByScope
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Field, Flag, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import ABSENT, Family

DIRECTIONS = ['in', 'out', 'forward']
# A rule's options, their wire names and the Ansible types of the suboptions.
RULE_OPTIONS = dict(
    type=dict(type='str', required=True, choices=DIRECTIONS + ['group']),
    action=dict(type='str', required=True),
    macro=dict(type='str'),
    source=dict(type='str'),
    dest=dict(type='str'),
    proto=dict(type='str'),
    dport=dict(type='str'),
    sport=dict(type='str'),
    icmp_type=dict(type='str'),
    iface=dict(type='str'),
    log=dict(type='str', choices=LOG_LEVELS),
    enable=dict(type='bool', default=True),
    comment=dict(type='str', default=''),
)
WIRE = dict((option, option.replace('_', '-')) for option in RULE_OPTIONS)
# What the file keeps of a rule of type group ($format_rules): the rest is dropped without a word.
GROUP_RULE_KEYS = ('type', 'action', 'iface', 'enable', 'comment')
ENABLE = Flag('enable')

# pve-fw-protocol-spec looks the name up in /etc/protocols; pve-fw-*port-spec in /etc/services.
PROTOCOL = re.compile(r'[a-z][a-z0-9.+-]*|[0-9]{1,3}')
PORT_NAME = re.compile(r'[a-z][a-z0-9-]*')
PROTOCOLS_WITH_PORTS = ('tcp', '6', 'udp', '17', 'udplite', '136', 'dccp', '33', 'sctp', '132')
ICMP_PROTOCOLS = {'icmp': 4, 'icmpv6': 6, 'ipv6-icmp': 6}
# Firewall.pm $icmp_type_names and $icmpv6_type_names (iptables -p icmp -h, ip6tables -p icmpv6 -h).
ICMP_TYPES = set('''any echo-reply destination-unreachable network-unreachable host-unreachable protocol-unreachable
port-unreachable fragmentation-needed source-route-failed network-unknown host-unknown network-prohibited
host-prohibited TOS-network-unreachable TOS-host-unreachable communication-prohibited host-precedence-violation
precedence-cutoff source-quench redirect network-redirect host-redirect TOS-network-redirect TOS-host-redirect
echo-request router-advertisement router-solicitation time-exceeded ttl-zero-during-transit
ttl-zero-during-reassembly parameter-problem ip-header-bad required-option-missing timestamp-request timestamp-reply
address-mask-request address-mask-reply'''.split())
ICMPV6_TYPES = set('''any destination-unreachable no-route communication-prohibited address-unreachable port-unreachable
packet-too-big time-exceeded ttl-zero-during-transit ttl-zero-during-reassembly parameter-problem bad-header
unknown-header-type unknown-option echo-request echo-reply router-solicitation router-advertisement
neighbor-solicitation neighbour-solicitation neighbor-advertisement neighbour-advertisement redirect'''.split())
IPSET_REFERENCE = re.compile(r'\+((dc|guest|sdn)/)?' + NAME_PATTERN)


# -- pve-firewall's formats, as small checks (they are not in formats.py) ---------------------------

def perl_split(text):
    """Perl's split(/,/): trailing empty fields dropped, the others kept (so 'a,' is an extraneous comma)."""
    parts = text.split(',')
    while parts and not parts[-1]:
        parts.pop()
    return parts


def address_version(text):
    """One element of an address list (Net::IP->new): an address, a network or an a-b range; its IP version."""
    if '-' in text:
        first, _dash, last = text.partition('-')
        low, high = ipaddress.ip_address(first.strip()), ipaddress.ip_address(last.strip())
        if low.version != high.version or int(low) > int(high):
            raise ValueError('is not a range from a lower to a higher address of one IP version')
        return low.version
    if network_problem(text):
        raise ValueError(network_problem(text))
    return ipaddress.ip_network(text, strict=False).version


def addr_spec_version(text):
    """pve-fw-addr-spec (parse_address_list): +ipset, an alias, or a comma list of addresses; the IP version."""
    if text.startswith('+'):
        if len(text) > 65 or not IPSET_REFERENCE.fullmatch(text):
            raise ValueError('is not an IP set reference: +name, 2 to 64 letters, digits, - and _')
        return None
    if ALIAS_REFERENCE.fullmatch(text):
        if len(text) > 64:
            raise ValueError('names an alias longer than 64 characters')
        return None
    elements = perl_split(text)
    if text != ','.join(elements):
        raise ValueError('has an extraneous comma')
    versions = set()
    for element in elements:
        try:
            versions.add(address_version(element))
        except ValueError as exc:
            raise ValueError('has %r, which is not an IP address, a network or a range (%s)' % (element, exc))
    if len(versions) > 1:
        raise ValueError('mixes IPv4 and IPv6 addresses')
    if len(elements) > 1 and any('-' in element for element in elements):
        raise ValueError('has a range in a list; PVE allows a range alone')
    return versions.pop()


def check_ports(text, is_dport):
    """pve-fw-dport-spec / pve-fw-sport-spec (parse_port_name_number_or_range)."""
    elements = perl_split(text)
    if text != ','.join(elements):
        raise ValueError('has an extraneous comma')
    numbers, icmp = 0, False
    for item in elements:
        span = re.match(r'^(\d+):(\d+)$', item)
        if span:
            numbers += 2
            first, last = int(span.group(1)), int(span.group(2))
            if max(first, last) > 65535 or first > last:
                raise ValueError('has the range %s; a range is low:high, ports 0 to 65535' % item)
        elif item.isdigit():
            numbers += 1
            if int(item) > 65535:
                raise ValueError('has the port %s; ports go up to 65535' % item)
        elif is_dport and (item in ICMP_TYPES or item in ICMPV6_TYPES):
            icmp = True
        elif not PORT_NAME.fullmatch(item):
            raise ValueError('has %r, which is neither a port number, a range nor a service name' % item)
    if icmp and numbers:
        raise ValueError('mixes ICMP types with ports')
    if numbers > 15:
        raise ValueError('has more than 15 ports (a range counts as two)')


def iface_problem(text):
    """pve-iface, 2 to 20 characters."""
    if not (2 <= len(text) <= 20 and re.fullmatch(r'[a-z][a-z0-9_]{1,20}([:.]\d+)?', text, re.I)):
        return "is not an interface name: a letter, then letters, digits and '_', 2 to 20 characters"
    return None


# -- one rule ------------------------------------------------------------------------------------

def canonical_rule(rule):
    """A rule as compared: option names, no empty keys, ``enable`` a boolean, the macro's case folded
    (PVE looks macros up case-insensitively and stores its own spelling), the comment as PVE keeps it."""
    result = {}
    for option in RULE_OPTIONS:
        value = rule.get(option, rule.get(WIRE[option]))
        if option == 'enable':
            result['enable'] = bool(ENABLE.canonical(1 if value is None else value))
            continue
        value = '' if value is None else str(value).strip()
        if option == 'comment':
            value = pve_comment(value)
        elif option in ('macro', 'type'):
            value = value.lower()
        if value:
            result[option] = value
    return result


def rule_problems(rule, in_group):
    """Why PVE (verify_rule and the formats) would refuse or silently change this rule: (option, why) pairs."""
    kind, action = rule['type'], rule['action']
    if kind == 'group':
        if in_group:
            yield 'type', 'a security group cannot hold a rule of type group'
        if not (NAME.fullmatch(action) and len(action) <= 18):
            yield 'action', 'names a security group: a letter, then letters, digits, - and _, 2 to 18 characters'
        dropped = sorted(option for option in rule if option not in GROUP_RULE_KEYS)
        if dropped:
            yield dropped[0], 'a rule of type group takes only action, iface, enable and comment'
    elif action not in ('ACCEPT', 'DROP', 'REJECT'):
        yield 'action', 'must be ACCEPT, DROP or REJECT (in capitals) for a rule of type %s' % kind
    if 'iface' in rule:
        if in_group:
            yield 'iface', 'a rule in a security group takes no interface'
        elif iface_problem(rule['iface']):
            yield 'iface', iface_problem(rule['iface'])
    if len(rule.get('macro', '')) > 128 or not re.fullmatch(r'[a-z0-9]*', rule.get('macro', '')):
        yield 'macro', 'is not a macro name'
    proto = rule.get('proto')
    versions = set()
    if proto:
        if not PROTOCOL.fullmatch(proto):
            yield 'proto', 'is not a protocol name or number (as in /etc/protocols)'
        if proto in ICMP_PROTOCOLS:
            versions.add(ICMP_PROTOCOLS[proto])
    for option in ('dport', 'sport'):
        if option not in rule:
            continue
        try:
            check_ports(rule[option], option == 'dport')
        except ValueError as exc:
            yield option, str(exc)
        if not proto:
            yield 'proto', 'is required with %s' % option
        elif proto not in PROTOCOLS_WITH_PORTS and not (option == 'dport' and proto in ('icmp', 'icmpv6')):
            yield option, 'protocol %s has no ports' % proto
    icmp_type = rule.get('icmp_type')
    if icmp_type:
        known = ICMP_TYPES if proto == 'icmp' else ICMPV6_TYPES
        if proto not in ICMP_PROTOCOLS:
            yield 'proto', 'must be icmp, icmpv6 or ipv6-icmp with icmp_type'
        elif 'dport' in rule:
            yield 'icmp_type', 'cannot go together with dport'
        elif icmp_type not in known and not (icmp_type.isdigit() and int(icmp_type) <= 255):
            yield 'icmp_type', 'is not an ICMP type of %s' % proto
    for option in ('source', 'dest'):
        if option not in rule:
            continue
        if len(rule[option]) > 512:
            yield option, 'is longer than 512 characters'
        try:
            versions.add(addr_spec_version(rule[option]))
        except ValueError as exc:
            yield option, str(exc)
    if len(versions - set([None])) > 1:
        yield 'source', 'the rule mixes IPv4 and IPv6 (source, dest, proto)'
    if '\n' in rule.get('comment', ''):
        yield 'comment', 'has a line break; PVE writes a rule on one line'


class RuleList(Field):
    """The ordered rule list, compared as a list of canonical rules (never by position numbers)."""

    ansible_type = 'list'
    elements = 'dict'
    unset = []

    def __init__(self, wire, in_group=False, **kwargs):
        super(RuleList, self).__init__(wire, **kwargs)
        self.in_group = in_group

    def argument_spec(self):
        spec = super(RuleList, self).argument_spec()
        spec['options'] = RULE_OPTIONS
        return spec

    def canonical(self, value):
        return canonical_rules(value)

    def declared(self, value):
        rules = self.canonical(value)
        for index, rule in enumerate(rules):
            for option, why in rule_problems(rule, self.in_group):
                raise DeclarationError('option %s[%d].%s: %r %s' % (self.option, index, option, rule.get(option), why))
        return rules


# -- the writes ----------------------------------------------------------------------------------

def rule_form(rule, before=None):
    """What a POST sends (``before`` None: every key, ``enable`` too, since PVE disables a rule sent
    without it) or an in-place PUT (the keys that differ; the ones the rule loses go to delete=)."""
    form, delete = {}, []
    for option in RULE_OPTIONS:
        value = rule.get(option)
        if before is not None and value == before.get(option):
            continue
        if value is None:
            if before is not None:
                delete.append(WIRE[option])
        elif option == 'enable':
            form['enable'] = '1' if value else '0'
        else:
            form[WIRE[option]] = value
    if delete:
        form['delete'] = ','.join(delete)
    return form


def canonical_rules(rules):
    return [canonical_rule(rule) for rule in rules or []]


def longest_common(current, desired):
    """Index pairs (i, j) of a longest common subsequence: the rules that can stay where they are."""
    rows, cols = len(current), len(desired)
    length = [[0] * (cols + 1) for _row in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            length[i][j] = (length[i + 1][j + 1] + 1 if current[i] == desired[j]
                            else max(length[i + 1][j], length[i][j + 1]))
    pairs, i, j = [], 0, 0
    while i < rows and j < cols:
        if current[i] == desired[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif length[i + 1][j] >= length[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def longest_increasing(numbers):
    """A longest strictly increasing subsequence of distinct numbers (as a set): the rules left unmoved."""
    best = []
    for index, number in enumerate(numbers):
        chain = max((best[earlier] for earlier in range(index) if numbers[earlier] < number), key=len, default=[])
        best.append(chain + [number])
    return set(max(best, key=len, default=[]))


def edit_script(current, desired):
    """The writes that turn ``current`` into ``desired`` (lists of canonical rules), by position.

    Rules already in order stay; a rule only out of place is moved; one that changed is rewritten in
    place; what is left over is deleted, what is missing is created (on top, then moved). Which
    rewrites and moves pay off depends on the lists, so the shortest of a few pairings is taken.
    Steps: ('delete', pos), ('update', pos, before, after), ('create', rule), ('move', pos, moveto).
    """
    anchored = dict(longest_common(current, desired))
    in_place = dict((i, i) for i in range(min(len(current), len(desired))) if current[i] == desired[i])
    return min((script(current, desired, kept, reuse, backward) for kept in (anchored, in_place)
                for reuse in (True, False) for backward in (False, True)), key=len)


def script(current, desired, kept, reuse, backward):
    """One pairing. ``kept`` rules stay (a longest common run, or the ones already at their position);
    ``reuse`` moves a rule that is only out of place (else it is rewritten or replaced); ``backward``
    rewrites leftover rules into the last missing ones, leaving the first to creates on top."""
    target = dict(kept)
    extra = [i for i in range(len(current)) if i not in target]
    missing = [j for j in range(len(desired)) if j not in set(target.values())]
    for j in list(missing if reuse else []):
        same = [i for i in extra if current[i] == desired[j]]
        if same:
            target[same[0]] = j
            extra.remove(same[0])
            missing.remove(j)
    rewritten = list(zip(extra, missing[len(missing) - len(extra):] if backward else missing))
    for i, j in rewritten:
        target[i] = j
        extra.remove(i)
        missing.remove(j)

    steps, work, slots = [], list(current), [target.get(i) for i in range(len(current))]
    for pos in reversed(range(len(work))):
        if slots[pos] is None:
            steps.append(('delete', pos))
            del work[pos], slots[pos]
    for pos, j in enumerate(slots):
        if work[pos] != desired[j]:
            steps.append(('update', pos, work[pos], desired[j]))
            work[pos] = desired[j]
    for j in reversed(missing):
        steps.append(('create', desired[j]))
        work.insert(0, desired[j])
        slots.insert(0, j)
    unmoved = longest_increasing(slots)
    for j in range(len(desired)):
        if j in unmoved:
            continue
        pos, moveto = slots.index(j), slots.index(j - 1) + 1 if j else 0
        if pos != moveto:
            steps.append(('move', pos, moveto))
            slots = moved(slots, pos, moveto)
    return steps


def moved(items, pos, moveto):
    """PVE's moveto: the item leaves ``pos`` and goes before the item that was at ``moveto`` (or last)."""
    if moveto == pos:
        return list(items)
    item, result = items[pos], []
    for index, other in enumerate(items):
        if index == pos:
            continue
        if index == moveto:
            result.append(item)
        result.append(other)
    if moveto >= len(items):
        result.append(item)
    return result


def applied(rules, step):
    """The list PVE holds after one step (the expected state before the next write)."""
    rules = list(rules)
    if step[0] == 'delete':
        del rules[step[1]]
    elif step[0] == 'update':
        rules[step[1]] = step[3]
    elif step[0] == 'create':
        rules.insert(0, step[1])
    else:
        rules = moved(rules, step[1], step[2])
    return rules


class RuleStore:
    """A scope's rule list (cluster, node): an empty list is how PVE shows "no rules", so it reads as absent."""

    # Re-plans allowed when the list read between writes is not the one expected (another writer).
    REPLANS = 3

    def rules(self, client, family, ident):
        return client.get(family.path(ident), role=family.read_role) or []

    def read(self, client, family, ident):
        rules = self.rules(client, family, ident)
        return dict(rules=rules, digest=rules[0].get('digest')) if rules else ABSENT

    def create(self, client, family, ident, form):
        # Each POST lands on top: the last rule first leaves the list in order with no move.
        for rule in reversed(form.get('rules', [])):
            client.post(family.path(ident), rule_form(rule), role=family.write_role)

    def update(self, client, family, ident, form, live):
        if 'rules' in form:
            self.sync(client, family, ident, live['rules'], form['rules'])

    def sync(self, client, family, ident, live_rules, desired):
        """The edit script, one write at a time, each with the digest of the list read just before it."""
        current, digest = canonical_rules(live_rules), live_rules[0]['digest'] if live_rules else None
        steps, replans = edit_script(current, desired), 0
        while steps:
            step = steps.pop(0)
            self.send(client, family, ident, step, digest)
            expected = applied(current, step)
            live_rules = self.rules(client, family, ident)
            current, digest = canonical_rules(live_rules), live_rules[0]['digest'] if live_rules else None
            if current != expected:
                replans += 1
                if replans > self.REPLANS:
                    raise NotConverged('%s keeps changing while it is written; nothing more was sent'
                                       % family.describe(ident))
                steps = edit_script(current, desired)

    def send(self, client, family, ident, step, digest):
        path, role = family.path(ident), family.write_role
        guard = dict(digest=digest) if digest else {}
        if step[0] == 'create':
            client.post(path, dict(rule_form(step[1]), **guard), role=role)
        elif step[0] == 'delete':
            client.delete('%s/%d' % (path, step[1]), guard, role=role)
        elif step[0] == 'update':
            client.put('%s/%d' % (path, step[1]), dict(rule_form(step[3], step[2]), **guard), role=role)
        else:
            client.put('%s/%d' % (path, step[1]), dict(moveto=str(step[2]), **guard), role=role)

    def delete(self, client, family, ident):
        rules = self.rules(client, family, ident)
        while rules:
            self.send(client, family, ident, ('delete', 0), rules[0].get('digest'))
            rules = self.rules(client, family, ident)


class GroupStore(RuleStore):
    """A security group: a row of /cluster/firewall/groups (its comment) and its rule list."""

    def read(self, client, family, ident):
        row = [row for row in client.get(family.collection, role=family.read_role) or []
               if row.get('group') == ident['group']]
        if not row:
            return ABSENT
        rules = self.rules(client, family, ident)
        return dict(row[0], rules=rules, group_digest=row[0].get('digest'))

    def create(self, client, family, ident, form):
        group = dict(group=ident['group'])
        if 'comment' in form:
            group['comment'] = form['comment']
        client.post(family.collection, group, role=family.write_role)
        super(GroupStore, self).create(client, family, ident, form)

    def update(self, client, family, ident, form, live):
        if 'comment' in form:
            # ``rename`` to the group's own name changes its comment (create_security_group).
            client.post(family.collection, dict(group=ident['group'], rename=ident['group'], comment=form['comment'],
                                                digest=live['group_digest']), role=family.write_role)
        super(GroupStore, self).update(client, family, ident, form, live)

    def delete(self, client, family, ident):
        super(GroupStore, self).delete(client, family, ident)
        client.delete(family.path(ident), role=family.write_role)


def needs_rules(ident, declared, state):
    if state == 'present' and not declared.get('rules'):
        raise DeclarationError('option rules: declare at least one rule; PVE shows a scope without rules as empty, '
                               'so use state=absent to remove them all')


def check_group(ident, declared, state):
    if '\n' in declared.get('comment', ''):
        raise DeclarationError('option comment: %r has a line break' % declared['comment'])


CLUSTER = Family(
    name='cluster firewall rules',
    identity=[],
    fields=[RuleList('rules', default=[], schema_key=None)],
    item='/cluster/firewall/rules',
    store=RuleStore(),
    check_declaration=needs_rules,
    schema=('POST', '/cluster/firewall/rules'),
)

NODE = Family(
    name='node firewall rules',
    identity=[Text('node', required=True, format='pve-node')],
    fields=[RuleList('rules', default=[], schema_key=None)],
    item='/nodes/{node}/firewall/rules',
    store=RuleStore(),
    check_declaration=needs_rules,
    schema=('POST', '/nodes/{node}/firewall/rules'),
)

GROUP = Family(
    name='security group',
    # PVE lower-cases group names when it reads cluster.fw ([group name] headers).
    identity=[Text('group', required=True, pattern=NAME_PATTERN, min_length=2, max_length=18,
                   normalise=lambda name: name.lower())],
    fields=[Text('comment', default='', normalise=pve_comment),
            RuleList('rules', default=[], in_group=True, schema_key=None)],
    collection='/cluster/firewall/groups',
    item='/cluster/firewall/groups/{group}',
    store=GroupStore(),
    check_declaration=check_group,
    schema=('POST', '/cluster/firewall/groups'),
)

FAMILY = ByScope('firewall rules', dict(cluster=CLUSTER, group=GROUP, node=NODE), default='cluster')
