# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which ACL paths PVE and PBS take, so an ``acl`` or ``pbs_acl`` grant on a path the server would refuse stops
before any request. Each rule answers None (taken) or a phrase saying why not."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# pve-access-control PVE/AccessControl.pm normalize_path: after the slashes are folded, only these characters.
# Perl's [[:alnum:]] is spelled ASCII here (a non-ASCII path is refused, never sent).
PVE_PATH_CHARACTERS = re.compile(r'[A-Za-z0-9.\-_/]+')
_ALNUM = r'[A-Za-z0-9]'
_ID = r'[A-Za-z0-9.\-_]+'
# pve-access-control PVE/AccessControl.pm check_path, alternative by alternative (PUT /access/acl refuses any
# other path with "invalid ACL path" unless delete=1). Perl's trailing ``$`` also matched before a final newline;
# fullmatch does not, so such a path is refused here instead of being sent.
PVE_ACL_PATH = re.compile(r'''(?:
    /
    |/access
    |/access/groups
    |/access/groups/{id}
    |/access/realm
    |/access/realm/{id}
    |/nodes
    |/nodes/{id}
    |/pool
    |/pool/[A-Za-z0-9.\-_]+(?:/[A-Za-z0-9.\-_]+){{0,2}}
    |/sdn
    |/sdn/controllers
    |/sdn/controllers/[A-Za-z0-9_\-]+
    |/sdn/dns
    |/sdn/dns/{alnum}+
    |/sdn/fabrics
    |/sdn/fabrics/{alnum}+
    |/sdn/ipams
    |/sdn/ipams/{alnum}+
    |/sdn/prefix-lists
    |/sdn/prefix-lists/{alnum}+
    |/sdn/route-maps
    |/sdn/route-maps/{alnum}+
    |/sdn/zones
    |/sdn/zones/{id}
    |/sdn/zones/{id}/{id}
    |/sdn/zones/{id}/{id}/[1-9][0-9]{{0,3}}
    |/storage
    |/storage/{id}
    |/vms
    |/vms/[1-9][0-9]{{2,}}
    |/mapping
    |/mapping/{id}
    |/mapping/{id}/{id}
)'''.format(id=_ID, alnum=_ALNUM), re.X)

PVE_ACL_PATH_FORMS = (
    '/, /access, /access/groups/{group}, /access/realm/{realm}, /nodes/{node}, /pool/{pool} (up to 3 levels), '
    '/sdn/{controllers,dns,fabrics,ipams,prefix-lists,route-maps,zones}/{id}, /sdn/zones/{zone}/{vnet}/{vlan}, '
    '/storage/{storage}, /vms/{vmid} (100 or more), /mapping/{type}/{id}, or a listed prefix of these')


def pve_acl_path_problem(path, removal=False):
    """Why PUT /access/acl would refuse ``path`` (already folded like normalize_path), or None. A removal
    (delete=1) is checked for its characters only, as PVE does."""
    if not PVE_PATH_CHARACTERS.fullmatch(path):
        return 'has characters PVE refuses in an ACL path (letters, digits, ".", "-", "_" and "/" only)'
    if removal or PVE_ACL_PATH.fullmatch(path):
        return None
    return 'is not an ACL path PVE takes: it is one of %s' % PVE_ACL_PATH_FORMS


# proxmox-backup pbs-config/src/acl.rs check_acl_path: components per sub-tree. pbs-api-types MAX_NAMESPACE_DEPTH
# is 7. PBS 4 added /system/s3-endpoint/{id} and /system/encryption-keys/{id} and grants on a remote's namespaces
# (push sync jobs): those are taken as PBS 4 takes them.
MAX_NAMESPACE_DEPTH = 7
_PBS_ACCESS = {'acl': 2, 'users': 2, 'domains': 2, 'openid': 3}
_PBS_SYSTEM = {'certificates': 2, 'disks': 2, 'log': 2, 'notifications': 2, 'status': 2, 'tasks': 2, 'time': 2,
               'services': 3, 's3-endpoint': 3, 'encryption-keys': 3}
_PBS_TAPE = {'device': 3, 'pool': 3, 'job': 3}


def _pbs_allowed(parts):
    size = len(parts)
    if size == 0:
        return True
    root = parts[0]
    if root == 'datastore':
        return size <= 2 + MAX_NAMESPACE_DEPTH
    if root == 'remote':
        return size <= 3 + MAX_NAMESPACE_DEPTH
    if root not in ('access', 'system', 'tape'):
        return False
    if size == 1:
        return True
    if root == 'access':
        return size <= _PBS_ACCESS.get(parts[1], 0)
    if root == 'tape':
        return size <= _PBS_TAPE.get(parts[1], 0)
    if parts[1] == 'network':
        return size == 2 or (size == 3 and parts[2] == 'dns') or (size <= 4 and parts[2] == 'interfaces')
    return size <= _PBS_SYSTEM.get(parts[1], 0)


def pbs_acl_path_problem(path):
    """Why PBS's PUT /access/acl would refuse ``path`` ("invalid acl path"), or None. PBS checks no removal."""
    if _pbs_allowed([part for part in path.split('/') if part]):
        return None
    return ('is not an ACL path PBS takes: it is /, /access/{acl,users,domains}, /access/openid/{endpoint}, '
            '/datastore/{store}[/{namespace}...] (7 namespace levels), /remote/{remote}/{store}[/{namespace}...], '
            '/system/{certificates,disks,log,notifications,status,tasks,time}, /system/services/{service}, '
            '/system/network/dns, /system/network/interfaces/{iface}, /tape/{device,pool,job}/{name}, '
            'or a listed prefix of these')
