#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: metric_server
short_description: Declare a Proxmox VE external metric server
version_added: 0.1.0
description:
  - Creates, repairs or removes one section of C(/etc/pve/status.cfg) (C(/cluster/metrics/server/{id})), where
    every node sends its metrics (Graphite, InfluxDB or OpenTelemetry).
  - Options left undeclared are not managed (neither sent nor compared). An option declared empty (V('')) is removed
    from the section (C(delete=)).
  - O(type) is fixed once created; a declaration that differs fails naming it, and nothing is written.
  - With O(state=present), O(type), O(server) and O(port) are required; O(server) and O(port) are sent with every
    write, because PVE takes no create or update without them.
  - Each type takes its own options (the table under O(type)); an option the type does not take is refused before
    any request, and so is every value outside PVE's own format or range.
  - Numbers PVE reads back as text (C("8086")) compare equal to the declared number; a flag read back empty is
    unset.
  - O(token) and O(otel_headers) are sent when the server is created and never read, compared, returned or shown.
    PVE keeps the InfluxDB token in C(/etc/pve/priv/metricserver/<id>.pw) and returns neither.
  - PVE tests the connection on every write (InfluxDB over HTTP(S), Graphite over TCP) unless the server is
    disabled; a server it cannot reach is refused with PVE's reason.
  - Reading needs C(Sys.Audit) on C(/); writing C(Sys.Modify) on C(/).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  id:
    description: The metric server's id (wire name C(id)), a letter followed by letters, digits, C(_) and C(-).
    type: str
    required: true
  type:
    description:
      - The plugin. Required with O(state=present); fixed once created.
      - V(graphite) takes O(path), O(proto) and O(timeout); V(influxdb) takes O(influxdbproto), O(organization),
        O(bucket), O(token), O(api_path_prefix), O(mtu), O(timeout), O(max_body_size) and O(verify_certificate);
        V(opentelemetry) takes the C(otel_*) options. All take O(server), O(port) and O(disable).
    type: str
    choices: [graphite, influxdb, opentelemetry]
  server:
    description: The server's DNS name or IP address. Required with O(state=present); sent with every write.
    type: str
  port:
    description: The server's port, 1 to 65536. Required with O(state=present); sent with every write.
    type: int
  disable:
    description: Whether sending metrics to this server is disabled.
    type: bool
  path:
    description: Root Graphite path, dot-separated DNS labels (for example C(proxmox.cluster1)); PVE's default C(proxmox).
    type: str
  proto:
    description: Protocol Graphite data is sent over (PVE's default V(udp)).
    type: str
    choices: [udp, tcp]
  timeout:
    description: Socket (Graphite TCP) or HTTP (InfluxDB) timeout in seconds, 0 or more (PVE's default 1).
    type: int
  influxdbproto:
    description: Protocol InfluxDB data is sent over (PVE's default V(udp)).
    type: str
    choices: [udp, http, https]
  organization:
    description: InfluxDB organization, for the HTTP v2 API.
    type: str
  bucket:
    description: InfluxDB bucket (or database), for the HTTP v2 API.
    type: str
  api_path_prefix:
    description: Path prefix inserted before C(/api/v2/) of InfluxDB, behind a reverse proxy (wire name C(api-path-prefix)).
    type: str
  mtu:
    description: MTU for InfluxDB metrics over UDP, 512 to 65536 (PVE's default 1500).
    type: int
  max_body_size:
    description: Largest InfluxDB HTTP request body in bytes, 1 or more (wire name C(max-body-size); PVE's default 25000000).
    type: int
  verify_certificate:
    description: Whether the InfluxDB HTTPS certificate is verified (wire name C(verify-certificate)); unset means V(true).
    type: bool
  token:
    description:
      - InfluxDB access token (C(user:password) for the v1 compatibility API). Sent on create only; never read,
        compared or shown.
    type: str
  otel_protocol:
    description: Protocol of the OpenTelemetry collector (wire name C(otel-protocol); PVE's default V(https)).
    type: str
    choices: [http, https]
  otel_path:
    description: OTLP endpoint path (wire name C(otel-path); PVE's default C(/v1/metrics)).
    type: str
  otel_timeout:
    description: OpenTelemetry HTTP timeout in seconds, 1 to 10 (wire name C(otel-timeout); PVE's default 5).
    type: int
  otel_verify_ssl:
    description: Whether the collector's certificate is verified (wire name C(otel-verify-ssl)); unset means V(true).
    type: bool
  otel_max_body_size:
    description: Largest OpenTelemetry request body in bytes, 1024 or more (wire name C(otel-max-body-size)).
    type: int
  otel_resource_attributes:
    description:
      - Extra resource attributes, JSON encoded in base64, at most 1024 characters (wire name
        C(otel-resource-attributes)).
    type: str
  otel_compression:
    description: Compression of OpenTelemetry requests (wire name C(otel-compression); PVE's default V(gzip)).
    type: str
    choices: [none, gzip]
  otel_headers:
    description:
      - Custom HTTP headers, JSON encoded in base64, at most 1024 characters (wire name C(otel-headers)). They usually
        carry a bearer token, so they are sent on create only and never read, compared or shown.
    type: str
seealso:
  - module: homeflare.proxmox.cluster_options
'''

EXAMPLES = r'''
- name: Send metrics to InfluxDB 2 over HTTPS
  homeflare.proxmox.metric_server:
    id: influx
    type: influxdb
    server: influx.example.org
    port: 8086
    influxdbproto: https
    organization: ops
    bucket: proxmox
    token: "{{ influx_token }}"

- name: Send metrics to Graphite over TCP
  homeflare.proxmox.metric_server:
    id: graphite
    type: graphite
    server: 10.0.0.20
    port: 2003
    proto: tcp
    path: proxmox.lab

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Remove a metric server
  homeflare.proxmox.metric_server:
    id: old-graphite
    state: absent
'''

RETURN = r'''
object:
  description: The metric server's managed fields as read after the run (empty when absent). Secrets are never returned.
  returned: always
  type: dict
  sample: {"id": "influx", "type": "influxdb", "server": "influx.example.org", "port": 8086}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["port"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.metric_server import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
