# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PBS ACL entry family: rows of GET /access/acl, written with PUT /access/acl (proxmox-backup
src/api2/access/acl.rs), one role per PUT, ``delete=1`` to remove. PBS has no group members, so an
entry names a user or an API token (``auth-id``)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.acl_paths import pbs_acl_path_problem
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Unreadable
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Text, acl_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.grants import GrantStore
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import ABSENT, Family, Lifecycle, Where

# PBS's schema patterns (pbs-api-types), with the POSIX classes spelled out for Python.
SAFE = r'(?:[A-Za-z0-9_][A-Za-z0-9._\-]*)'
ACL_PATH = r'^(?:/|(?:/' + SAFE + r')+)$'
USER_NAME = r'(?:[^\s:/\x00-\x1f\x7f]+)'
AUTH_ID = r'^(?:' + USER_NAME + '@' + SAFE + '|' + USER_NAME + '@' + SAFE + '!' + SAFE + r')$'
# The Role enum of pbs-api-types acl.rs, in schema order.
ROLES = ['Admin', 'Audit', 'NoAccess', 'DatastoreAdmin', 'DatastoreReader', 'DatastoreBackup', 'DatastorePowerUser',
         'DatastoreAudit', 'RemoteAudit', 'RemoteAdmin', 'RemoteSyncOperator', 'RemoteSyncPushOperator',
         'RemoteDatastorePowerUser', 'RemoteDatastoreAdmin', 'TapeAudit', 'TapeAdmin', 'TapeOperator', 'TapeReader']


class AclListing:
    """GET /access/acl once: rows by (path, auth id, role), each with acl.cfg's digest. Group rows are left out
    (PBS has no group members, and this family declares users and tokens)."""

    path = '/access/acl'

    def read(self, client, family):
        reply = client.request('GET', self.path, None, role=family.read_role)
        digest = reply.extras.get('digest')
        rows = {}
        for row in reply.data or []:
            if row.get('ugid_type', 'user') != 'user':
                continue
            key = (acl_path(row.get('path', '')), str(row.get('ugid')), str(row.get('roleid')))
            rows[key] = dict(row, digest=digest) if digest else dict(row)
        return rows


class AclStore(GrantStore):
    def read_unlisted(self, client, family, ident):
        """A missing row proves absence only if this credential is shown every entry: PBS shows them all to a
        holder of Sys.Audit on /access/acl, and otherwise only the entries of the caller's own tokens (none to a
        token) - an empty list, never a refusal."""
        path = '/access/acl'
        privileges = (client.get('/access/permissions', params={'path': path}, role=family.read_role) or {}).get(path)
        if 'Sys.Audit' not in (privileges or {}):
            raise Unreadable('%s cannot be judged: the credential lacks Sys.Audit on %s, and PBS then leaves out of '
                             'GET /access/acl every entry but those of its own tokens, so a missing entry proves '
                             'nothing. Use a credential with Sys.Audit there (the Audit role on /).'
                             % (family.describe(ident), path))
        return ABSENT

    def subject(self, ident):
        return {'path': ident['path'], 'auth-id': ident['auth_id'], 'role': ident['role']}


class PbsAclFamily(Family):
    def check_declaration(self, declaration):
        """PBS's check_acl_path (pbs-config acl.rs): a path it would refuse (400 "invalid acl path") is refused
        before any request. Removal is not checked: PBS removes an entry of any path."""
        path = declaration.ident['path']
        problem = None if declaration.state != 'present' else pbs_acl_path_problem(path)
        if problem:
            raise DeclarationError('option path: %r %s' % (path, problem))


FAMILY = PbsAclFamily(
    'pbs_acl', 'pbs acl entry',
    identity=[
        Text('path', required=True, min_length=1, max_length=128, pattern=ACL_PATH, normalise=acl_path),
        Text('auth-id', required=True, min_length=3, max_length=64, pattern=AUTH_ID),
        Text('role', required=True, choices=ROLES),
    ],
    fields=[Flag('propagate', default=True, absent_means=True)],
    where=Where(store=AclStore(), listing=AclListing(), schema=('PUT', '/access/acl')),
    scheme='pbs',
    # An update carries acl.cfg's digest (PBS refuses it when another writer changed acl.cfg meanwhile).
    lifecycle=Lifecycle(send_digest=True),
)
