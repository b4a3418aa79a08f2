# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Ceph monitor family: a row of /nodes/{node}/ceph/mon, POST/DELETE /nodes/{node}/ceph/mon/{monid}."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.ceph import DaemonFamily, daemon_family
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import TokenSet


def addresses(addr):
    """The IPs of a monitor's address vector: ``10.0.0.1:6789/0`` or ``[v2:10.0.0.1:3300/0,v1:10.0.0.1:6789/0]``."""
    found = []
    text = str(addr or '').strip()
    if text.startswith('[') and text.endswith(']') and text[1:3] in ('v1', 'v2'):
        text = text[1:-1]
    for part in text.split(','):
        part = part.strip().split('/', 1)[0]
        if part[:3] in ('v1:', 'v2:'):
            part = part[3:]
        host = part.rsplit(':', 1)[0] if part.count(':') == 1 or part.startswith('[') else part
        host = host.strip('[]')
        if host and host not in found:
            found.append(host)
    return found


class MonitorFamily(DaemonFamily):
    def view(self, raw):
        return dict(raw, **{'mon-address': addresses(raw.get('addr'))})


FAMILY = daemon_family(
    'ceph_mon', 'mon', 'monid', id_rule=dict(pattern=r'[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?', max_length=200),
    # A monitor keeps its address for life (the monmap): a different one is refused, never re-created.
    fields=[TokenSet('mon-address', format='ip', create_only=True)],
    family_class=MonitorFamily,
)
