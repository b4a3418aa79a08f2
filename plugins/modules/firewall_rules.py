#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: firewall_rules
short_description: Declare the whole ordered firewall rule list of one scope (cluster, group, node, guest, vnet)
version_added: 0.1.0
description:
  - Declares every rule of one scope, in order, as one object. The scopes are the cluster
    (C(/cluster/firewall/rules)), a security group (C(/cluster/firewall/groups/{group}), the group created with
    its O(comment) when missing), a node (C(/nodes/{node}/firewall/rules)), a guest and a vnet (O(scope)).
  - A guest's rules (O(scope=vm)) are of the types V(in), V(out) and V(group), an interface only V(netN); their
    references resolve to the guest's own aliases and IP sets first, then the cluster's (as pve-firewall's
    C(resolve_alias) does; V(guest/name) only the guest's, V(dc/name) only the cluster's). A vnet's
    (O(scope=vnet)) are only V(forward) and V(group) rules, with no interface.
  - PVE knows a rule only by its position, and every write renumbers the rules after it, so rules are never
    declared by position. O(rules) is compared, in order, with the live list as PVE normalises it; any difference
    is drift. A rule added by hand is deleted, rules out of order are moved, a rule edited by hand is rewritten in
    place, a rule removed by hand is created again and moved to its place.
  - The writes are a short sequence of PVE's own rule calls by live position, POST (a new rule, which PVE puts on
    top), PUT with C(moveto) (a move), PUT with the rule's keys (a rewrite) and DELETE, the shortest of a few ways
    to pair the live rules with the declared ones. One rule added, removed, moved or changed by hand costs one
    write (a removed rule two, unless it belongs on top). Each PUT and DELETE carries the digest of the rule list
    read just before it, and the list is read again after every write, so a position is never guessed and another
    writer's change is never overwritten.
  - RV(plan) names V(rules) (and V(comment) for a group) as changed; the diff shows the rule lists before and
    after.
  - Each declared rule is checked the way pve-firewall's C(verify_rule) checks it, with its reasons, before any
    request (types, actions, V(REJECT) on the forward chain, ports, ICMP types, addresses, protocols, interfaces,
    macros and what a macro already defines).
  - Before the first write, a rule still to be written has its references resolved against the live lists and the
    objects of the same M(homeflare.proxmox.declare) task (an alias in any scope, an IP set by its exact
    stored, lower-case name, a security group); one that resolves nowhere is refused and nothing is written.
    Sets SDN generates (V(+sdn/...)) are left to PVE.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
  - homeflare.proxmox.firewall_scope
  - homeflare.proxmox.firewall_scope.vnet
notes:
  - O(state=absent) deletes every rule of the scope, one DELETE each, and for a security group then the group.
  - For the cluster and node scopes PVE shows "no rules" as an empty list, so O(state=present) needs at least one
    rule; a security group may be declared empty.
options:
  scope:
    choices: [cluster, group, node, vm, vnet]
  group:
    description:
      - The security group, with O(scope=group); 2 to 18 letters, digits, C(-) and C(_), starting with a letter.
      - PVE lower-cases group names when it reads its configuration back, so the name is lower-cased here.
    type: str
  comment:
    description: The security group's comment, with O(scope=group). Undeclared means empty.
    type: str
  rules:
    description:
      - Every rule of the scope, first to last. Undeclared means none (which only a security group may have).
    type: list
    elements: dict
    suboptions:
      type:
        description: V(in), V(out), V(forward), or V(group) to apply a security group (not inside a security group).
        type: str
        required: true
        choices: [in, out, forward, group]
      action:
        description: V(ACCEPT), V(DROP) or V(REJECT); for O(rules[].type=group) the security group's name.
        type: str
        required: true
      macro:
        description:
          - A PVE macro (V(SSH), V(HTTPS), ...). PVE spells it its own way, so it is compared case-insensitively.
        type: str
      source:
        description:
          - Source addresses, an IP set (V(+name)) or an alias; a list of addresses and networks (comma-separated, one
            IP version) or one range V(a-b).
        type: str
      dest:
        description: Destination addresses, in the form of O(rules[].source).
        type: str
      proto:
        description: The protocol, a name or number from C(/etc/protocols) (V(tcp), V(udp), V(icmp), V(47) ...).
        type: str
      dport:
        description: Destination ports (V(22), V(80,443), V(5900:5999), service names); needs O(rules[].proto).
        type: str
      sport:
        description: Source ports, in the form of O(rules[].dport).
        type: str
      icmp_type:
        description: The ICMP type (wire name C(icmp-type)), with O(rules[].proto) V(icmp), V(icmpv6) or V(ipv6-icmp).
        type: str
      iface:
        description: The interface (not for a rule inside a security group).
        type: str
      log:
        description: The log level of the rule.
        type: str
        choices: [emerg, alert, crit, err, warning, notice, info, debug, nolog]
      enable:
        description: Whether the rule is active. Always sent, since PVE disables a new rule that does not say.
        type: bool
        default: true
      comment:
        description: The rule's comment, compared trimmed; one line.
        type: str
        default: ''
seealso:
  - module: homeflare.proxmox.firewall_options
  - module: homeflare.proxmox.firewall_alias
  - module: homeflare.proxmox.firewall_ipset
'''

EXAMPLES = r'''
- name: The web servers' security group
  homeflare.proxmox.firewall_rules:
    scope: group
    group: webservers
    comment: Public web
    rules:
      - {type: in, action: ACCEPT, macro: HTTPS}
      - {type: in, action: ACCEPT, macro: HTTP, comment: redirects to HTTPS}

- name: The cluster's rules, first match wins
  homeflare.proxmox.firewall_rules:
    rules:
      - {type: in, action: ACCEPT, source: +admins, proto: tcp, dport: '8006', comment: web UI}
      - {type: in, action: ACCEPT, source: +admins, macro: SSH}
      - {type: group, action: webservers}
      - {type: in, action: DROP, log: info}

- name: A guest's own rules, naming its own alias and IP set (a VM or a container alike)
  homeflare.proxmox.firewall_rules:
    scope: vm
    node: pve1
    vmid: 100
    rules:
      - {type: group, action: webservers}
      - {type: in, action: ACCEPT, source: +guest/backup-hosts, proto: tcp, dport: '22', iface: net0}
      - {type: out, action: ACCEPT, dest: guest/db, proto: tcp, dport: '5432'}

- name: A vnet's forward rules
  homeflare.proxmox.firewall_rules:
    scope: vnet
    vnet: app
    rules:
      - {type: forward, action: ACCEPT, source: +admins, macro: SSH}

# `ansible-playbook site.yml --check --diff` shows the rule list before and after and writes nothing.
- name: Remove every rule of a node
  homeflare.proxmox.firewall_rules:
    scope: node
    node: pve1
    state: absent
'''

RETURN = r'''
object:
  description:
    - The scope's identity and rules (and a group's comment) as read after the run (empty when absent), each rule
      as compared (empty keys left out, the macro lower-cased).
  returned: always
  type: dict
  sample: {"rules": [{"type": "in", "action": "ACCEPT", "macro": "ssh", "source": "+admins", "enable": true}]}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["rules"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.firewall_rules import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
