# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The inventory plugin's decisions, apart from Ansible: which rows of ``/cluster/resources`` become hosts, their
names, groups and variables, and which address becomes ``ansible_host``. plugins/inventory/pve.py reads and adds.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import PropertyString

GUEST_TYPES = ('qemu', 'lxc')
# What a group_by entry groups by: the row's key and how one row names its groups.
GROUPINGS = ('node', 'pool', 'tag', 'type', 'status')
NAMINGS = ('name', 'vmid', 'name-vmid')


def tags_of(row):
    """PVE's tags: ';'-separated in /cluster/resources (a config may use ',' or ' ')."""
    text = row.get('tags') or ''
    for separator in (',', ' '):
        text = text.replace(separator, ';')
    return sorted(set(tag for tag in text.split(';') if tag))


def guest_vars(row, prefix):
    """The variables every guest host gets, without a further request."""
    variables = {'vmid': int(row['vmid']), 'node': row['node'], 'type': row['type'], 'status': row.get('status'),
                 'name': row.get('name'), 'tags': tags_of(row), 'pool': row.get('pool'),
                 'template': bool(int(row.get('template') or 0))}
    if row.get('hastate'):
        variables['hastate'] = row['hastate']
    return dict((prefix + key, value) for key, value in variables.items())


class Selection:
    """include_* / exclude_* per node, tag, pool, status and type, and templates left out unless asked."""

    def __init__(self, options):
        self.options = options

    def _values(self, row, what):
        if what == 'tag':
            return set(tags_of(row))
        key = {'node': 'node', 'pool': 'pool', 'status': 'status', 'type': 'type'}[what]
        return set([row[key]]) if row.get(key) else set()

    def keeps(self, row):
        if int(row.get('template') or 0) and not self.options.get('include_templates'):
            return False
        for what, option in (('node', 'nodes'), ('tag', 'tags'), ('pool', 'pools'), ('status', 'statuses'),
                             ('type', 'types')):
            values = self._values(row, what)
            include = self.options.get('include_' + option)
            if include and not values & set(include):
                return False
            if values & set(self.options.get('exclude_' + option) or ()):
                return False
        return True


def host_names(rows, naming):
    """A host name per row (in vmid order): ``name``, ``vmid`` or ``name-vmid``. Names PVE lets two guests share
    (or a guest without one) fall back to ``name-vmid`` / ``vmid`` for all but the lowest vmid, so no guest is
    lost. Returns ({vmid: host name}, [(vmid, message) for each guest renamed])."""
    names, taken, renamed = {}, set(), []
    for row in sorted(rows, key=lambda row: int(row['vmid'])):
        vmid, name = int(row['vmid']), row.get('name') or ''
        wanted = {'name': name or str(vmid), 'vmid': str(vmid), 'name-vmid': '%s-%d' % (name, vmid) if name
                  else str(vmid)}[naming]
        chosen = wanted
        if chosen in taken:
            chosen = '%s-%d' % (wanted, vmid)
            message = "guest %d is named '%s' like another guest: its host is '%s'" % (vmid, wanted, chosen)
            renamed.append((vmid, message))
        names[vmid] = chosen
        taken.add(chosen)
    return names, renamed


def group_names(row, group_by, prefix):
    """The groups one guest row belongs to, by each grouping asked (before Ansible's name sanitising)."""
    groups = []
    for grouping in group_by:
        if grouping == 'tag':
            groups += ['%stag_%s' % (prefix, tag) for tag in tags_of(row)]
        elif grouping == 'pool':
            if row.get('pool'):
                groups.append('%spool_%s' % (prefix, row['pool']))
        elif row.get(grouping):
            groups.append('%s%s_%s' % (prefix, grouping, row[grouping]))
    return groups


def agent_addresses(answer):
    """(interface, address) pairs from the QEMU guest agent's network-get-interfaces answer."""
    pairs = []
    for interface in (answer or {}).get('result') or []:
        for entry in interface.get('ip-addresses') or []:
            if entry.get('ip-address'):
                pairs.append((interface.get('name'), entry['ip-address']))
    return pairs


def lxc_addresses(answer):
    """(interface, address) pairs from a container's /interfaces answer (``inet``/``inet6`` as address/prefix)."""
    pairs = []
    for interface in answer or []:
        for key in ('inet', 'inet6'):
            for text in str(interface.get(key) or '').split():
                pairs.append((interface.get('name'), text.split('/')[0]))
    return pairs


def usable(address):
    """Addresses a play could reach the guest on: not loopback, not link-local, not unspecified."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (parsed.is_loopback or parsed.is_link_local or parsed.is_unspecified)


def first_in(addresses, networks):
    """The first address inside one of ``networks`` (CIDR strings, tried in order), or None."""
    parsed = [ipaddress.ip_network(network, strict=False) for network in networks]
    for network in parsed:
        for address in addresses:
            candidate = ipaddress.ip_address(address)
            if candidate.version == network.version and candidate in network:
                return address
    return None


# The connection options a host may carry to reach its VM through the agent: never a secret (a token's secret, a
# password, an OpenBao token or AppRole id) - those come from the environment, OpenBao or the user's own vars.
AGENT_CONNECTION_OPTIONS = ('api_host', 'api_port', 'api_token_id', 'api_user', 'validate_certs', 'ca_path',
                            'api_timeout', 'bao_addr', 'bao_namespace', 'bao_ca_path', 'bao_approle_mount',
                            'bao_kv_mount', 'bao_kv_path', 'bao_creds_mount', 'bao_read_role', 'bao_provision_role',
                            'bao_lease_cache', 'bao_timeout')
AGENT_CONNECTION = 'homeflare.proxmox.qemu_agent'
AGENT_OPTION = PropertyString('agent', default_key='enabled')


def agent_enabled(config):
    """Whether a VM config's ``agent`` property string enables the agent (its default key ``enabled``), read as the
    vm family reads it (fields.PropertyString)."""
    enabled = dict(AGENT_OPTION.pairs((config or {}).get('agent'))).get('enabled', '0')
    return AGENT_OPTION.normal_item('enabled', enabled) == '1'


def agent_connection_vars(row, params):
    """The host variables of the qemu_agent connection for one VM: the connection, its vmid and the
    inventory's own non-secret connection options."""
    variables = {'ansible_connection': AGENT_CONNECTION, 'ansible_proxmox_vmid': int(row['vmid'])}
    for name in AGENT_CONNECTION_OPTIONS:
        if params.get(name) is not None:
            variables['ansible_proxmox_' + name] = params[name]
    return variables
