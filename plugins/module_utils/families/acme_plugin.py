# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An ACME challenge plugin: a section of priv/acme/plugins.cfg, /cluster/acme/plugins/{id}
(pve-manager PVE/API2/ACMEPlugin.pm over proxmox-acme's Challenge.pm, DNSChallenge.pm, StandAlone.pm).

A ``dns`` plugin names its acme.sh DNS API (``api``) and the credentials that API reads (``data``); a
``standalone`` one answers HTTP-01 challenges on port 80 and takes only ``nodes`` and ``disable``. PVE always
has a ``standalone`` plugin of that name (parse_config adds it). ``data`` is a secret: PVE takes it as base64 of
``KEY=VALUE`` lines and answers it back, but it is sent on create only and never compared or shown."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    Field, Flag, Integer, Text, TokenSet, clearable)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, Exporting, Family, Lifecycle, Where)

TYPES = ['dns', 'standalone']
# The plugin PVE always has (Challenge.pm parse_config adds it when plugins.cfg lacks a standalone section).
BUILTIN = 'standalone'
# What each type takes besides the common nodes and disable (StandAlone.pm / DNSChallenge.pm options()).
DNS_ONLY = ('api', 'data', 'validation-delay')
# An export's placeholder for the data (export.PLACEHOLDER): Ansible renders it before a module sees the value, but
# the export's own check of the options it writes sees it as it is.
EXPORT_PLACEHOLDER = re.compile(r'\{\{ *[A-Za-z_][A-Za-z0-9_]* *\}\}')
# acme.sh reads each credential as a shell variable.
VARIABLE = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')
# The API's ``api`` enum (DNSChallenge.pm get_supported_plugins: the dns_*.sh scripts of acme.sh, PVE 9.1).
DNS_APIS = [
    '1984hosting', 'acmedns', 'acmeproxy', 'active24', 'ad', 'ali', 'alviy', 'anx', 'artfiles', 'arvan',
    'aurora', 'autodns', 'aws', 'azion', 'azure', 'beget', 'bookmyname', 'bunny', 'cf', 'clouddns', 'cloudns',
    'cn', 'conoha', 'constellix', 'cpanel', 'curanet', 'cyon', 'da', 'ddnss', 'desec', 'df', 'dgon', 'dnsexit',
    'dnshome', 'dnsimple', 'dnsservices', 'doapi', 'domeneshop', 'dp', 'dpi', 'dreamhost', 'duckdns',
    'durabledns', 'dyn', 'dynu', 'dynv6', 'easydns', 'edgecenter', 'edgedns', 'euserv', 'exoscale', 'fornex',
    'freedns', 'freemyip', 'gandi_livedns', 'gcloud', 'gcore', 'gd', 'geoscaling', 'googledomains', 'he',
    'he_ddns', 'hetzner', 'hetznercloud', 'hexonet', 'hostingde', 'huaweicloud', 'infoblox', 'infomaniak',
    'internetbs', 'inwx', 'ionos', 'ionos_cloud', 'ipv64', 'ispconfig', 'jd', 'joker', 'kappernet', 'kas',
    'kinghost', 'knot', 'la', 'leaseweb', 'lexicon', 'limacity', 'linode', 'linode_v4', 'loopia', 'lua',
    'maradns', 'me', 'miab', 'mijnhost', 'misaka', 'myapi', 'mydevil', 'mydnsjp', 'mythic_beasts', 'namecheap',
    'namecom', 'namesilo', 'nanelo', 'nederhost', 'neodigit', 'netcup', 'netlify', 'nic', 'njalla', 'nm', 'nsd',
    'nsone', 'nsupdate', 'nw', 'oci', 'omglol', 'one', 'online', 'openprovider', 'openprovider_rest',
    'openstack', 'opnsense', 'ovh', 'pdns', 'pleskxml', 'pointhq', 'porkbun', 'rackcorp', 'rackspace', 'rage4',
    'rcode0', 'regru', 'scaleway', 'schlundtech', 'selectel', 'selfhost', 'servercow', 'simply', 'spaceship',
    'technitium', 'tele3', 'tencent', 'timeweb', 'transip', 'udr', 'ultra', 'unoeuro', 'variomedia', 'veesp',
    'vercel', 'vscale', 'vultr', 'websupport', 'west_cn', 'world4you', 'yandex360', 'yc', 'zilore', 'zone',
    'zoneedit', 'zonomi']


def plugin_data(credentials):
    """What PVE's ``data`` takes: base64 of one ``KEY=VALUE`` line per credential (as the GUI and ``pvenode acme
    plugin add --data <file>`` send it), in the declared order."""
    text = ''.join('%s=%s\n' % (key, value) for key, value in credentials)
    return base64.b64encode(text.encode('utf-8')).decode('ascii')


def data_problem(credentials):
    """Why a declared ``data`` cannot be written as KEY=VALUE lines, or None. Names keys, never values."""
    if not credentials:
        return 'names no credential; leave it out instead'
    for key, value in credentials:
        if not VARIABLE.fullmatch(key):
            return ('has the key %r, which is not a variable name (letters, digits and _, not starting with a '
                    'digit: acme.sh reads each credential as a shell variable)' % key)
        if isinstance(value, (dict, list, tuple, bool)) or value is None:
            return 'has a %s value for %s; give each credential as text' % (type(value).__name__, key)
        if '\n' in str(value) or '\r' in str(value):
            return 'has a line break in the value of %s; PVE keeps one KEY=VALUE per line' % key
    return None


class PluginData(Field):
    """A DNS plugin's credentials as a dict (``CF_Token: ...``), sent as PVE takes them (``plugin_data``)."""

    ansible_type = 'dict'

    def declared(self, value):
        if EXPORT_PLACEHOLDER.fullmatch(str(value)):
            return value
        if not isinstance(value, dict):
            raise DeclarationError('option %s must be a dict of KEY: VALUE credentials' % self.option)
        credentials = [(str(key), item) for key, item in value.items()]
        why = data_problem(credentials)
        if why:
            raise DeclarationError('option %s %s' % (self.option, why))
        return plugin_data((key, str(item)) for key, item in credentials)


class AcmePluginFamily(Family):
    def check_declaration(self, declaration):
        if declaration.state != 'present':
            return
        declared = declaration.values
        kind = declared.get('type')
        if not kind:
            raise DeclarationError('option type is required with state=present (dns or standalone)')
        if kind == 'dns' and not declared.get('api'):
            raise DeclarationError('option api is required for a dns plugin (the acme.sh DNS API it uses)')
        foreign = [field.option for field in self.fields if field.wire in DNS_ONLY and field.option in declared]
        if kind == 'standalone' and foreign:
            raise DeclarationError('option %s: a standalone plugin takes only nodes and disable (it answers HTTP-01 '
                                   'challenges on port 80)' % foreign[0])

    def is_builtin(self, ident, raw):
        return ident['id'] == BUILTIN

    def is_reset(self, raw):
        # DELETE of the standalone plugin leaves PVE's own, with nothing set.
        return raw.get('plugin') == BUILTIN and not any(raw.get(key) for key in ('nodes', 'disable'))

    def find_all(self, client):
        """The list carries every field, with each plugin's id as ``plugin``."""
        rows = client.get(self.collection, role=self.read_role) or []
        return [({'id': row.get('plugin')}, row) for row in rows]


FAMILY = AcmePluginFamily(
    'acme_plugin', 'ACME plugin',
    identity=[Text('id', required=True, format='pve-configid')],
    fields=[
        Text('type', create_only=True, choices=TYPES),
        Text('api', choices=DNS_APIS),
        # PVE answers it back, but it is a credential: sent on create only, never compared or shown.
        PluginData('data', secret=True),
        Integer('validation-delay', minimum=0, maximum=172800),
        clearable('nodes', TokenSet, format='pve-node'),
        clearable('disable', Flag),
    ],
    where=Where(collection='/cluster/acme/plugins', item='/cluster/acme/plugins/{id}',
                # ACMEPlugin.pm $modify_cfg_for_api: 500 "ACME plugin 'x' not defined"
                absence=Absence((500,), r"ACME plugin '.*' not defined")),
    # plugins.cfg's digest: a plugin edited by another writer between read and write is not overwritten.
    lifecycle=Lifecycle(send_digest=True),
    exporting=Exporting(placeholders={'data': ('dns',)}),
)
