"""The ACL path rules acl and pbs_acl check before any request: PVE's check_path and PBS's check_acl_path.

The examples are the sources' own: every alternative of pve-access-control AccessControl.pm check_path, the paths
of its src/test/*.cfg files that check_path refuses on a write (/users, /vms/100/a/b), and the sub-trees of
proxmox-backup pbs-config acl.rs check_acl_path. The simulator's ports (tests/simulator/auth.py check_path and
tests/simulator/pbs/auth.py check_acl_path) must agree on every one.
"""

import sys
from pathlib import Path

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.acl_paths import (
    pbs_acl_path_problem, pve_acl_path_problem)
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.acl import FAMILY as ACL
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.pbs_acl import FAMILY as PBS_ACL

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from simulator.auth import check_path  # noqa: E402
from simulator.pbs.auth import check_acl_path  # noqa: E402
from simulator.pbs.errors import PbsError  # noqa: E402

PVE_VALID = [
    '/', '/access', '/access/groups', '/access/groups/admins', '/access/realm', '/access/realm/corp.ldap',
    '/nodes', '/nodes/pve-1', '/pool', '/pool/devel', '/pool/marketing/interns', '/pool/a/b/c',
    '/sdn', '/sdn/controllers', '/sdn/controllers/evpn_1-a', '/sdn/dns', '/sdn/dns/pdns1', '/sdn/fabrics',
    '/sdn/fabrics/fab1', '/sdn/ipams', '/sdn/ipams/netbox', '/sdn/prefix-lists', '/sdn/prefix-lists/pl1',
    '/sdn/route-maps', '/sdn/route-maps/rm1', '/sdn/zones', '/sdn/zones/zone1', '/sdn/zones/zone1/vnet1',
    '/sdn/zones/zone1/vnet1/1', '/sdn/zones/zone1/vnet1/4094', '/storage', '/storage/nfs1', '/storage/local-lvm',
    '/vms', '/vms/100', '/vms/999999999', '/mapping', '/mapping/pci', '/mapping/pci/gpu.0',
]
PVE_INVALID = [
    '/vms/notanumber', '/vms/99', '/vms/0100', '/vms/100/a/b', '/users', '/pool/a/b/c/d', '/nodes/pve1/qemu',
    '/storage/nfs1/images', '/access/users', '/access/groups/a/b', '/sdn/controllers/evpn.1', '/sdn/dns/pdns-1',
    '/sdn/ipams/net_box', '/sdn/zones/z/v/0', '/sdn/zones/z/v/12345', '/sdn/zones/z/v/x', '/sdn/vnets',
    '/mapping/pci/gpu/0', '/cluster', '/vm/100', '/VMS/100',
]


@pytest.mark.parametrize('path', PVE_VALID)
def test_pve_takes_the_paths_check_path_takes(path):
    assert pve_acl_path_problem(path) is None
    assert check_path(path)


@pytest.mark.parametrize('path', PVE_INVALID)
def test_pve_refuses_the_paths_check_path_refuses(path):
    assert 'is not an ACL path PVE takes' in pve_acl_path_problem(path)
    assert not check_path(path)


@pytest.mark.parametrize('path', ['/vms/1 00', '/storage/nfs:1', '/pool/\u00e9t\u00e9', '/vms/100\n'])
def test_pve_refuses_characters_normalize_path_refuses_even_on_removal(path):
    assert 'characters PVE refuses' in pve_acl_path_problem(path, removal=True)


def test_pve_removal_takes_any_well_formed_path():
    # ACL.pm update_acl: check_path only when not delete (a grant left on a stale path can still go)
    assert pve_acl_path_problem('/vms/notanumber', removal=True) is None


PBS_VALID = [
    '/', '/access', '/access/acl', '/access/users', '/access/domains', '/access/openid', '/access/openid/ep1',
    '/datastore', '/datastore/store1', '/datastore/store1/a/b/c/d/e/f/g', '/remote', '/remote/r1',
    '/remote/r1/store1', '/system', '/system/certificates', '/system/disks', '/system/log', '/system/notifications',
    '/system/status', '/system/tasks', '/system/time', '/system/services', '/system/services/proxmox-backup',
    '/system/network', '/system/network/dns', '/system/network/interfaces', '/system/network/interfaces/eth0',
    '/tape', '/tape/device', '/tape/device/lto1', '/tape/pool/p1', '/tape/job/j1',
]
PBS_INVALID = [
    '/vms/100', '/nodes', '/access/acl/x', '/access/users/u@pbs', '/access/openid/ep1/x',
    '/datastore/store1/a/b/c/d/e/f/g/h', '/system/certificates/x', '/system/services/a/b', '/system/network/x',
    '/system/network/dns/x', '/system/network/interfaces/eth0/x', '/system/bogus', '/tape/device/lto1/x',
    '/tape/changer', '/access/bogus',
]


@pytest.mark.parametrize('path', PBS_VALID)
def test_pbs_takes_the_paths_check_acl_path_takes(path):
    assert pbs_acl_path_problem(path) is None
    check_acl_path(path)


@pytest.mark.parametrize('path', PBS_INVALID)
def test_pbs_refuses_the_paths_check_acl_path_refuses(path):
    assert 'is not an ACL path PBS takes' in pbs_acl_path_problem(path)
    with pytest.raises(PbsError):
        check_acl_path(path)


def test_the_families_refuse_an_invalid_path_naming_the_option():
    params = {'path': '/vms/notanumber', 'type': 'user', 'ugid': 'a@pve', 'roleid': 'PVEAuditor', 'state': 'present'}
    with pytest.raises(DeclarationError, match=r"option path: '/vms/notanumber' is not an ACL path PVE takes"):
        ACL.declaration(params)
    ACL.declaration(dict(params, state='absent'))  # a removal of a grant on a stale path is taken
    params = {'path': '/vms/100', 'auth_id': 'a@pbs', 'role': 'Audit', 'state': 'present'}
    with pytest.raises(DeclarationError, match=r"option path: '/vms/100' is not an ACL path PBS takes"):
        PBS_ACL.declaration(params)
    PBS_ACL.declaration(dict(params, state='absent'))
