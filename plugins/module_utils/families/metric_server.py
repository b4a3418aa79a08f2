# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The metric server family: sections of status.cfg, /cluster/metrics/server/{id}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text, clearable
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Absence, Exporting, Family, Where

# What each plugin of pve-manager 9 takes besides server, port and disable (PVE/Status/<Type>.pm options()).
PLUGINS = {
    'graphite': ['path', 'proto', 'timeout'],
    'influxdb': ['api-path-prefix', 'bucket', 'influxdbproto', 'max-body-size', 'mtu', 'organization', 'timeout',
                 'token', 'verify-certificate'],
    'opentelemetry': ['otel-compression', 'otel-headers', 'otel-max-body-size', 'otel-path', 'otel-protocol',
                      'otel-resource-attributes', 'otel-timeout', 'otel-verify-ssl'],
}
TYPES = sorted(PLUGINS)
COMMON = ['type', 'server', 'port', 'disable']


class MetricServerFamily(Family):
    def check_declaration(self, declaration):
        """The type's own options, before any request; server and port go with every write PVE takes."""
        if declaration.state != 'present':
            return
        declared = declaration.values
        missing = [option for option in ('type', 'server', 'port') if declared.get(option) in (None, '')]
        if missing:
            raise DeclarationError('option %s is required with state=present (PVE wants type on create, server and '
                                   'port on every write)' % missing[0])
        kind = declared['type']
        foreign = sorted(field.option for field in self.fields
                         if field.option in declared and field.wire not in COMMON + PLUGINS[kind])
        if foreign:
            raise DeclarationError('option %s: a %s metric server does not take %s (it takes %s)' % (
                foreign[0], kind, ', '.join(foreign), ', '.join(wire.replace('-', '_') for wire in PLUGINS[kind])))


FAMILY = MetricServerFamily(
    'metric_server', 'metric server',
    identity=[Text('id', required=True, format='pve-configid')],
    fields=[
        Text('type', create_only=True, choices=TYPES, format='pve-configid'),
        Text('server', always_send=True, format='address'),
        Integer('port', always_send=True, minimum=1, maximum=65536),
        clearable('disable', Flag),
        # graphite
        clearable('path', format='graphite-path'),
        clearable('proto', choices=['udp', 'tcp']),
        clearable('timeout', Integer, minimum=0),
        # influxdb
        clearable('influxdbproto', choices=['udp', 'http', 'https']),
        clearable('organization'),
        clearable('bucket'),
        clearable('api-path-prefix'),
        clearable('mtu', Integer, minimum=512, maximum=65536),
        clearable('max-body-size', Integer, minimum=1),
        clearable('verify-certificate', Flag, absent_means=True),
        # opentelemetry
        clearable('otel-protocol', choices=['http', 'https']),
        clearable('otel-path'),
        clearable('otel-timeout', Integer, minimum=1, maximum=10),
        clearable('otel-verify-ssl', Flag, absent_means=True),
        clearable('otel-max-body-size', Integer, minimum=1024),
        clearable('otel-resource-attributes', max_length=1024),
        clearable('otel-compression', choices=['none', 'gzip']),
        # Kept apart from status.cfg (/etc/pve/priv/metricserver/<id>.pw): sent on create, never read back.
        Text('token', secret=True),
        # Custom HTTP headers (base64 JSON) usually carry a bearer token: sent on create, never shown.
        Text('otel-headers', secret=True, max_length=1024),
    ],
    # The collection has only GET: a server is created by POST on its own path.
    where=Where(collection='/cluster/metrics/server', item='/cluster/metrics/server/{id}', create_on='item',
                absence=Absence((500,), r'does not exist')),
    exporting=Exporting(placeholders={'token': ('influxdb',), 'otel-headers': ('opentelemetry',)}),
)
