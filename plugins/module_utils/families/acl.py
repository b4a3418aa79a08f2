# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ACL grant family: rows of GET /access/acl, written with PUT /access/acl."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.acl_paths import pve_acl_path_problem
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Unreadable
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Text, acl_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import why_not
from ansible_collections.homeflare.proxmox.plugins.module_utils.grants import GrantStore
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import ABSENT, Family, Listing, Where


# PVE lists a grant only to callers that may modify permissions on its path: Permissions.Modify,
# or the allocate privilege of the path's kind (AccessControl check_perm_modify).
MODIFY_ALTERNATIVES = (('/storage/', 'Datastore.Allocate'), ('/vms/', 'VM.Allocate'), ('/pool/', 'Pool.Allocate'))


class AclStore(GrantStore):
    def read_unlisted(self, client, family, ident):
        """A missing row proves absence only if this credential would have been shown it."""
        path = ident['path']
        privileges = (client.get('/access/permissions', params={'path': path}, role=family.read_role) or {}).get(path)
        needed = ['Permissions.Modify'] + [priv for prefix, priv in MODIFY_ALTERNATIVES if path.startswith(prefix)]
        if not any(priv in (privileges or {}) for priv in needed):
            raise Unreadable('%s cannot be judged: the credential lacks %s on %s, and PVE leaves the grants it may '
                             'not modify out of GET /access/acl, so a missing row proves nothing. Use a credential '
                             'that may modify permissions there.' % (family.describe(ident), ' or '.join(needed), path))
        return ABSENT

    def subject(self, ident):
        return {'path': ident['path'], 'roles': ident['roleid'], ident['type'] + 's': ident['ugid']}


# What each subject type's ugid must look like (PVE's pve-userid, pve-groupid and pve-tokenid formats).
# The subject's format by type: PUT /access/acl takes users=, groups= and tokens= lists of these.
SUBJECTS = {'user': 'pve-userid', 'group': 'pve-groupid', 'token': 'pve-tokenid'}


class AclFamily(Family):
    def check_declaration(self, declaration):
        ident = declaration.ident
        # PVE's check_path, before any request (else the refusal comes after the reads and a write attempt)
        problem = pve_acl_path_problem(ident['path'], removal=declaration.state == 'absent')
        if problem:
            raise DeclarationError('option path: %r %s' % (ident['path'], problem))
        allowed = why_not(SUBJECTS[ident['type']], ident['ugid'])
        if allowed:
            raise DeclarationError('option ugid: %r is not a valid %s (%s), as type=%s needs'
                                   % (ident['ugid'], SUBJECTS[ident['type']], allowed, ident['type']))


FAMILY = AclFamily(
    'acl', 'acl grant',
    identity=[
        Text('path', required=True, normalise=acl_path),
        Text('type', required=True, choices=['user', 'group', 'token'], schema_key=None),
        Text('ugid', required=True, schema_key=None),
        Text('roleid', required=True, format='pve-roleid', schema_key='roles'),
    ],
    fields=[Flag('propagate', default=True, absent_means=True)],
    where=Where(store=AclStore(), listing=Listing('/access/acl'), read_role='provision', schema=('PUT', '/access/acl')),
)
