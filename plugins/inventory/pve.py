# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
name: pve
short_description: A Proxmox VE cluster's guests as hosts, over the collection's own connection and credentials
version_added: 0.1.0
author:
  - homeflare.proxmox contributors (@homeflare)
description:
  - Lists every guest (QEMU and LXC) with one request, C(GET /cluster/resources?type=vm), which carries each guest's
    node, type, status, name, tags and pool. That is the whole inventory unless facts are asked for.
  - Facts (the guest's config, its IP addresses, its snapshots) are off by default; when asked, they are read per
    guest, concurrently, by at most O(facts_workers) requests at a time.
  - Connects like the collection's modules - the same members with failover, token, password, certificate checks,
    and OpenBao/Vault options - so a token minted for a play (the O(bao_read_role) role, through the same lease
    cache) serves its inventory too. Every option may be a Jinja template (a lookup, say), and the connection options
    fall back to the same environment variables as the modules'.
  - No secret is ever put into the inventory or its cache.
  - The configuration file's name must end in C(pve.yml), C(pve.yaml), C(proxmox.yml) or C(proxmox.yaml).
options:
  plugin:
    description: The name of this plugin; the file is for it only if this says so.
    type: str
    required: true
    choices: [homeflare.proxmox.pve]
  api_host:
    description:
      - The cluster members, each C(host) or C(host:port). The member that answered last is tried first, then the
        others in order; a member that refuses, hangs past O(api_timeout) or cannot be reached is skipped.
    type: list
    elements: str
    required: true
    env:
      - name: PROXMOX_HOST
  api_port:
    description: Port for members given without one (V(8006) by default).
    type: int
    env:
      - name: PROXMOX_PORT
  api_token_id:
    description: API token id, C(user@realm!name); give it with O(api_token_secret).
    type: str
    env:
      - name: PROXMOX_TOKEN_ID
  api_token_secret:
    description: The token's secret. Never shown, never cached.
    type: str
    env:
      - name: PROXMOX_TOKEN_SECRET
  api_user:
    description: A user for a password login (a ticket), C(user@realm); give it with O(api_password).
    type: str
    env:
      - name: PROXMOX_USER
  api_password:
    description: The user's password. Never shown, never cached.
    type: str
    env:
      - name: PROXMOX_PASSWORD
  validate_certs:
    description: Whether the members' certificates are verified (against O(ca_path) when given).
    type: bool
    default: true
    env:
      - name: PROXMOX_VALIDATE_CERTS
  ca_path:
    description: A PEM file of the CA that signed the members' certificates.
    type: path
    env:
      - name: PROXMOX_CA_PATH
  api_timeout:
    description: Seconds to wait for a member to connect and to answer before the next member is tried.
    type: int
    default: 20
    env:
      - name: PROXMOX_TIMEOUT
  bao_addr:
    description: OpenBao/Vault address (else E(BAO_ADDR), E(VAULT_ADDR), as for the modules).
    type: str
  bao_token:
    description: OpenBao/Vault token (else E(BAO_TOKEN), E(VAULT_TOKEN), or the CLI's token file).
    type: str
  bao_namespace:
    description: OpenBao/Vault namespace.
    type: str
  bao_ca_path:
    description: CA file for the OpenBao/Vault server.
    type: path
  bao_approle_role_id:
    description: AppRole role id, to log in to OpenBao/Vault with AppRole.
    type: str
  bao_approle_secret_id:
    description: AppRole secret id. Never shown, never cached.
    type: str
  bao_approle_mount:
    description: Mount of the AppRole auth method.
    type: str
    default: approle
  bao_kv_mount:
    description: Mount of the KV version 2 engine holding a token (with O(bao_kv_path)).
    type: str
    default: secret
  bao_kv_path:
    description: Path of a KV version 2 secret holding C(token_id) and C(secret).
    type: str
  bao_creds_mount:
    description: A dynamic secrets mount minting PVE tokens; the inventory mints with O(bao_read_role) only.
    type: str
  bao_read_role:
    description: The mount's role for reads. Its lease is shared with the modules through the lease cache.
    type: str
    default: read
  bao_provision_role:
    description: Not used by the inventory (it never writes); accepted so one set of options serves both.
    type: str
    default: provision
  bao_lease_cache:
    description: Whether minted tokens are kept in the lease cache shared with the modules.
    type: bool
    default: true
  bao_timeout:
    description: Seconds to wait for OpenBao/Vault.
    type: int
    default: 60
  host_name:
    description:
      - What a guest's host is named. Two guests may share a name in PVE; all but the lowest vmid are then named
        C(name-vmid), with a warning, so no guest is lost.
    type: str
    default: name
    choices: [name, vmid, name-vmid]
  group_prefix:
    description: The prefix of every group this plugin makes (C(proxmox_node_node1), C(proxmox_tag_web), ...).
    type: str
    default: proxmox_
  group_by:
    description:
      - Groups made per guest; C(<prefix>guests) holds every guest whatever this says.
      - V(node), V(pool), V(tag) (one group per tag), V(type) (C(lxc), C(qemu)), V(status) (C(running), ...).
    type: list
    elements: str
    default: [node, pool, tag, type, status]
    choices: [node, pool, tag, type, status]
  facts_prefix:
    description: The prefix of every host variable this plugin sets (C(proxmox_vmid), C(proxmox_node), ...).
    type: str
    default: proxmox_
  want_config:
    description: Read each guest's config into C(<facts_prefix>config) (one request per guest).
    type: bool
    default: false
  want_addresses:
    description:
      - Read each running guest's IP addresses into C(<facts_prefix>addresses) - a QEMU guest's from its guest agent,
        a container's from its interfaces (one request per running guest). Loopback and link-local addresses are
        left out.
      - A guest that is not running, or whose agent is off or not configured, is listed without addresses and with
        a note in C(<facts_prefix>notes); it is never dropped.
    type: bool
    default: false
  ansible_host_networks:
    description:
      - With O(want_addresses), C(ansible_host) is the guest's first address inside the first of these networks
        (CIDR, in order of preference) that holds one; else it is left unset.
    type: list
    elements: str
    default: [0.0.0.0/0]
  want_snapshots:
    description: Read each guest's snapshot names into C(<facts_prefix>snapshots) (one request per guest).
    type: bool
    default: false
  connection_for_vms:
    description:
      - V(qemu_agent) makes every running VM whose guest agent is enabled a host of the
        P(homeflare.proxmox.qemu_agent#connection) connection - C(ansible_connection), C(ansible_proxmox_vmid) and this
        inventory's connection options as C(ansible_proxmox_*) variables - so its tasks run through the agent, without
        SSH; they are also in C(<prefix>qemu_agent). Knowing the agent takes the VM's config (one request per running
        VM, as O(want_config) reads it).
      - No secret is among those variables (not the token's secret, a password, an OpenBao token or AppRole ids).
        The connection takes them from the environment (E(PROXMOX_TOKEN_SECRET), ...), OpenBao (a token it mints
        with O(bao_provision_role)) or variables of the user's own (C(ansible_proxmox_api_token_secret) from a vault).
      - Other guests keep their connection.
    type: str
    choices: [none, qemu_agent]
    default: none
  facts_workers:
    description: How many fact requests run at once.
    type: int
    default: 8
  include_templates:
    description: Whether templates are listed (they are left out by default).
    type: bool
    default: false
  want_nodes:
    description:
      - List the cluster members too, as hosts in C(<prefix>nodes), from the same one request (then read without
        its C(type) filter).
    type: bool
    default: false
  include_nodes:
    description: Only guests on these nodes.
    type: list
    elements: str
    default: []
  exclude_nodes:
    description: No guest on these nodes.
    type: list
    elements: str
    default: []
  include_tags:
    description: Only guests with at least one of these tags.
    type: list
    elements: str
    default: []
  exclude_tags:
    description: No guest with any of these tags.
    type: list
    elements: str
    default: []
  include_pools:
    description: Only guests in these pools.
    type: list
    elements: str
    default: []
  exclude_pools:
    description: No guest in these pools.
    type: list
    elements: str
    default: []
  include_statuses:
    description: Only guests in these states (V(running), V(stopped), ...).
    type: list
    elements: str
    default: []
  exclude_statuses:
    description: No guest in these states.
    type: list
    elements: str
    default: []
  include_types:
    description: Only these guest types.
    type: list
    elements: str
    choices: [qemu, lxc]
    default: []
  exclude_types:
    description: No guest of these types.
    type: list
    elements: str
    choices: [qemu, lxc]
    default: []
  filters:
    description:
      - Jinja expressions over a guest's variables (the C(<facts_prefix>*) ones, and facts when asked); a guest is
        listed only when every one is true.
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - constructed
  - inventory_cache
notes:
  - Reads need C(VM.Audit) on the guests (PVE leaves out of the list what the credential cannot see), and for
    addresses C(VM.GuestAgent.Audit) or C(VM.Monitor); PVEAuditor holds them.
seealso:
  - module: homeflare.proxmox.lxc
  - module: homeflare.proxmox.vm
'''

EXAMPLES = r'''
# cluster.pve.yml: every guest, grouped by node, pool, tag, type and status, with a token from OpenBao
plugin: homeflare.proxmox.pve
api_host: [pve1.example.org, pve2.example.org]
ca_path: /etc/ssl/certs/pve-ca.pem
bao_addr: https://bao.example.org:8200
bao_creds_mount: proxmox-c1
want_addresses: true
ansible_host_networks: [10.20.0.0/16]
exclude_statuses: [stopped]
keyed_groups:
  - key: proxmox_tags
    prefix: tagged

# static.pve.yml: a token from the environment (PROXMOX_TOKEN_ID, PROXMOX_TOKEN_SECRET), hosts named name-vmid
plugin: homeflare.proxmox.pve
api_host: pve1.example.org
host_name: name-vmid
include_tags: [web]
filters:
  - proxmox_node != 'pve3'
'''

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor

from ansible.errors import AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable

try:
    from ansible.template import trust_as_template
except ImportError:  # ansible-core < 2.19: every template string is trusted
    def trust_as_template(value):
        return value

from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import (
    CONNECTION_ARGUMENT_SPEC, check_connection, member_list)
from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import client_from_params
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import ApiError, ProxmoxError
from ansible_collections.homeflare.proxmox.plugins.plugin_utils.inventory import (
    AGENT_CONNECTION_OPTIONS, GUEST_TYPES, Selection, agent_addresses, agent_connection_vars, agent_enabled, first_in,
    group_names, guest_vars, host_names, lxc_addresses, usable)

# The options that shape what is read, and so the cache key besides the file (never a secret).
READ_SHAPING = ('api_host', 'connection_for_vms', 'want_config', 'want_addresses', 'want_snapshots', 'want_nodes',
                'include_templates', 'include_nodes', 'exclude_nodes', 'include_tags', 'exclude_tags', 'include_pools',
                'exclude_pools', 'include_statuses', 'exclude_statuses', 'include_types', 'exclude_types')


class InventoryModule(BaseInventoryPlugin, Constructable, Cacheable):

    NAME = 'homeflare.proxmox.pve'

    def verify_file(self, path):
        return super(InventoryModule, self).verify_file(path) and path.endswith(
            ('pve.yml', 'pve.yaml', 'proxmox.yml', 'proxmox.yaml'))

    def parse(self, inventory, loader, path, cache=True):
        super(InventoryModule, self).parse(inventory, loader, path, cache)
        self._read_config_data(path)
        params = self.connection_params()
        key = self.cache_key(path)
        use_cache = self.get_option('cache') and cache
        data = None
        if use_cache:
            data = self._cache.get(key)
        if data is None:
            try:
                data = self.fetch(params)
            except ProxmoxError as exc:
                raise AnsibleParserError('homeflare.proxmox.pve: %s' % exc)
            if self.get_option('cache'):
                self._cache[key] = data
        self.populate(data)

    # -- options --------------------------------------------------------------------------------
    def option(self, name):
        """An option's value; a string holding a template (a lookup) is rendered first."""
        value = self.get_option(name)
        if isinstance(value, str) and self.templar.is_template(trust_as_template(value)):
            value = self.templar.template(trust_as_template(value))
        elif isinstance(value, list):
            value = [self.templar.template(trust_as_template(item)) if isinstance(item, str) else item
                     for item in value]
        return value

    def connection_params(self):
        params = dict((name, self.option(name)) for name in CONNECTION_ARGUMENT_SPEC)
        params['api_host'] = member_list(params['api_host'])
        try:
            check_connection(params)
        except ProxmoxError as exc:
            raise AnsibleParserError('homeflare.proxmox.pve: %s' % exc)
        return params

    def cache_key(self, path):
        shaping = json.dumps(dict((name, self.get_option(name)) for name in READ_SHAPING), sort_keys=True,
                             default=str)
        return '%s_%s' % (self.get_cache_key(path), hashlib.sha256(shaping.encode('utf-8')).hexdigest()[:12])

    # -- reads ----------------------------------------------------------------------------------
    def fetch(self, params):
        """Guests (and nodes) from one /cluster/resources read; facts for the guests kept, when asked."""
        client = client_from_params(params, 'pve')
        want_nodes = self.get_option('want_nodes')
        rows = client.get('/cluster/resources', params=None if want_nodes else {'type': 'vm'}) or []
        selection = Selection(dict((name, self.get_option(name)) for name in READ_SHAPING))
        every_guest = [row for row in rows if row.get('type') in GUEST_TYPES]
        # named among every guest, so a guest's host name never depends on the filters
        names, renamed = host_names(every_guest, self.get_option('host_name'))
        guests = [row for row in every_guest if selection.keeps(row)]
        nodes = [row for row in rows if row.get('type') == 'node'] if want_nodes else []
        facts = {}
        if any(self.get_option(name) for name in ('want_config', 'want_addresses', 'want_snapshots')) \
                or self.by_agent():
            with ThreadPoolExecutor(max_workers=max(1, self.get_option('facts_workers'))) as pool:
                answers = pool.map(lambda row: self.guest_facts(client.for_this_thread(), row), guests)
                facts = dict((str(row['vmid']), answer) for row, answer in zip(guests, answers))
        kept = set(str(row['vmid']) for row in guests)
        connection = dict((name, params.get(name)) for name in AGENT_CONNECTION_OPTIONS) if self.by_agent() else {}
        return {'guests': guests, 'nodes': nodes, 'facts': facts, 'connection': connection,
                'names': dict((str(vmid), name) for vmid, name in names.items() if str(vmid) in kept),
                'renamed': [message for vmid, message in renamed if str(vmid) in kept]}

    def guest_facts(self, client, row):
        """One guest's facts and notes; a fact that cannot be read is a note (and a warning), never a lost host."""
        base = '/nodes/%s/%s/%s' % (row['node'], row['type'], row['vmid'])
        facts, notes = {}, []
        reads = []
        if self.get_option('want_config') or self.agent_candidate(row):
            reads.append(('config', lambda: client.get(base + '/config')))
        if self.get_option('want_snapshots'):
            reads.append(('snapshots', lambda: sorted(snapshot['name'] for snapshot in client.get(base + '/snapshot')
                                                      if snapshot.get('name') != 'current')))
        if self.get_option('want_addresses'):
            if row.get('status') != 'running':
                notes.append('no addresses: the guest is %s' % row.get('status'))
            else:
                reads.append(('interfaces', lambda: self.addresses(client, row, base)))
        for name, read in reads:
            try:
                facts[name] = read()
            except ApiError as exc:
                notes.append('no %s: %s' % (name, exc))
        facts['notes'] = notes
        return facts

    def by_agent(self):
        return self.get_option('connection_for_vms') == 'qemu_agent'

    def agent_candidate(self, row):
        """A guest connection_for_vms may give the agent connection, once its config shows the agent enabled."""
        return self.by_agent() and row['type'] == 'qemu' and row.get('status') == 'running'

    @staticmethod
    def addresses(client, row, base):
        if row['type'] == 'qemu':
            return agent_addresses(client.get(base + '/agent/network-get-interfaces'))
        return lxc_addresses(client.get(base + '/interfaces'))

    # -- the inventory ----------------------------------------------------------------------------
    def populate(self, data):
        prefix, facts_prefix = self.get_option('group_prefix'), self.get_option('facts_prefix')
        names = data['names']
        for message in data['renamed']:
            self.display.warning('homeflare.proxmox.pve: %s' % message)
        guests_group = self.inventory.add_group(self._sanitize_group_name(prefix + 'guests'))
        conditions = self.get_option('filters')
        for row in data['guests']:
            variables = guest_vars(row, facts_prefix)
            facts = data['facts'].get(str(row['vmid']))
            variables.update(self.fact_vars(facts, facts_prefix))
            via_agent = self.agent_candidate(row) and agent_enabled((facts or {}).get('config'))
            if via_agent:
                variables.update(agent_connection_vars(row, data.get('connection') or {}))
            if not all(self.holds(condition, variables) for condition in conditions):
                continue
            host = names[str(row['vmid'])]
            self.inventory.add_host(host, group=guests_group)
            if via_agent:
                self.inventory.add_host(host, group=self.inventory.add_group(
                    self._sanitize_group_name(prefix + 'qemu_agent')))
            for group in group_names(row, self.get_option('group_by'), prefix):
                self.inventory.add_host(host, group=self.inventory.add_group(self._sanitize_group_name(group)))
            self.add_variables(host, variables)
        if data['nodes']:
            nodes_group = self.inventory.add_group(self._sanitize_group_name(prefix + 'nodes'))
            for row in data['nodes']:
                self.inventory.add_host(row['node'], group=nodes_group)
                self.add_variables(row['node'], {facts_prefix + 'node': row['node'],
                                                 facts_prefix + 'status': row.get('status')})

    def fact_vars(self, facts, facts_prefix):
        if facts is None:
            return {}
        # the config is read for connection_for_vms too: a variable only when asked for
        shown = ('config', 'snapshots', 'notes') if self.get_option('want_config') else ('snapshots', 'notes')
        variables = dict((facts_prefix + name, facts[name]) for name in shown if name in facts)
        if self.get_option('want_addresses'):
            addresses = [address for _interface, address in facts.get('interfaces') or [] if usable(address)]
            variables[facts_prefix + 'addresses'] = addresses
            host = first_in(addresses, self.get_option('ansible_host_networks'))
            if host:
                variables['ansible_host'] = host
        return variables

    def holds(self, condition, variables):
        try:
            return bool(self._compose(condition, variables))
        except Exception as exc:  # a filter Jinja cannot evaluate fails the inventory, naming it
            raise AnsibleParserError('homeflare.proxmox.pve: filter %r: %s' % (condition, exc))

    def add_variables(self, host, variables):
        for name, value in variables.items():
            self.inventory.set_variable(host, name, value)
        strict = self.get_option('strict')
        self._set_composite_vars(self.get_option('compose'), variables, host, strict=strict)
        self._add_host_to_composed_groups(self.get_option('groups'), variables, host, strict=strict)
        self._add_host_to_keyed_groups(self.get_option('keyed_groups'), variables, host, strict=strict)
