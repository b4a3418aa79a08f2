# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PBS remote family: sections of remote.cfg, /config/remote/{name} (proxmox-backup src/api2/config/remote.rs),
the other server a sync job pulls from or pushes to. Its password is write-only: sent on create, never read."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import check_port
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import SAFE_ID, SINGLE_LINE
from ansible_collections.homeflare.proxmox.plugins.module_utils.pbs_jobs import (
    AUTH_ID, FINGERPRINT, HOST, SecretText, SectionFamily, comment, section)
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Lifecycle


class RemoteFamily(SectionFamily):
    noun = 'remote'
    never_empty = ('host', 'auth_id')
    create_needs = ('host', 'auth_id', 'password')

    def check_present(self, declared):
        if declared.get('port') is not None:
            check_port('port', declared['port'])


FAMILY = RemoteFamily(
    'pbs_remote', 'pbs remote',
    identity=[Text('name', required=True, min_length=3, max_length=32, pattern=SAFE_ID)],
    fields=[
        Text('host', pattern=HOST),
        Integer('port', clear='delete'),
        Text('auth-id', min_length=3, max_length=64, pattern=AUTH_ID),
        SecretText('password', secret=True, min_length=1, max_length=1024, pattern=SINGLE_LINE),
        # The remote's certificate, compared (case aside); declared empty, the system's CAs decide.
        Text('fingerprint', clear='delete', pattern=FINGERPRINT, normalise=lambda text: text.lower()),
        Flag('use-node-proxy', clear='delete'),
        comment(),
    ],
    where=section('/config/remote', 'name', 'remote'),
    scheme='pbs',
    lifecycle=Lifecycle(send_digest=True),
)
