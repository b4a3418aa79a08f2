"""What an SDN object names (sdn_references.check_named), without HTTP: live or declared beside it in the same
declare; a removal in the same task refused even for an unchanged name; each list read once per batch; and
update_secret (secret_updates.SecretUpdates) adding the secret to a found object's plan; peers cleared for a fabric."""

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.declare import Batch
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import MissingReference
from ansible_collections.homeflare.proxmox.plugins.module_utils.families import sdn_controller, sdn_ipam, sdn_zone
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    ABSENT, Declaration, Family, Where, update_form)
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text


class Lists:
    """A client answering the SDN lists; counts the reads."""

    def __init__(self, fabrics=(), controllers=()):
        self.answers = {'/cluster/sdn/fabrics/all': {'fabrics': [{'id': name} for name in fabrics], 'nodes': []},
                        '/cluster/sdn/controllers': [{'controller': name} for name in controllers],
                        '/cluster/sdn/ipams': [{'ipam': 'pve'}], '/cluster/sdn/dns': []}
        self.reads = []

    def get(self, path, params=None, role='read'):
        self.reads.append(path)
        return self.answers[path]


# A stand-in for the fabric family another module brings: its identity is what a zone's fabric names.
FABRIC = Family('sdn_fabric', 'sdn_fabric', identity=[Text('id', required=True)], fields=[],
                where=Where(collection='/cluster/sdn/fabrics/fabric', item='/cluster/sdn/fabrics/fabric/{id}'))


class Entry:
    def __init__(self, module, family, ident, state='present'):
        self.module, self.family = module, family
        self.declaration = Declaration(ident, {}, state, None)


def declared(family, **params):
    return family.declaration(dict(params))


def vxlan(fabric='fab1'):
    return declared(sdn_zone.FAMILY, zone='under', type='vxlan', fabric=fabric)


def test_a_fabric_is_found_live_or_declared_beside_the_zone_and_each_list_is_read_once():
    client = Lists(fabrics=['fab1'])
    batch = Batch([])
    sdn_zone.FAMILY.check_references(vxlan(), ABSENT, batch, client)
    sdn_zone.FAMILY.check_references(vxlan(), ABSENT, batch, client)
    assert client.reads == ['/cluster/sdn/fabrics/all']
    declared_beside = Batch([Entry('sdn_fabric', FABRIC, {'id': 'fab2'})])
    sdn_zone.FAMILY.check_references(vxlan('fab2'), ABSENT, declared_beside, Lists())
    with pytest.raises(MissingReference, match=r"option fabric: the fabric 'fab3' does not exist"):
        sdn_zone.FAMILY.check_references(vxlan('fab3'), ABSENT, Batch([]), client)


def test_an_unchanged_name_is_not_looked_up_but_one_the_same_task_removes_is_refused():
    live = {'zone': 'under', 'type': 'vxlan', 'fabric': 'fab1', 'digest': 'x'}
    client = Lists()
    sdn_zone.FAMILY.check_references(vxlan(), live, Batch([]), client)
    assert client.reads == []
    removing = Batch([Entry('sdn_fabric', FABRIC, {'id': 'fab1'}, state='absent')])
    with pytest.raises(MissingReference, match="which this task also declares absent"):
        sdn_zone.FAMILY.check_references(vxlan(), live, removing, client)


def test_an_evpn_controller_s_fabric_and_a_zone_s_builtin_ipam():
    controller = declared(sdn_controller.FAMILY, controller='evpn1', type='evpn', asn=65000, fabric='fab9')
    with pytest.raises(MissingReference, match="the fabric 'fab9'"):
        sdn_controller.FAMILY.check_references(controller, ABSENT, Batch([]), Lists())
    client = Lists(controllers=['evpn1'])
    zone = declared(sdn_zone.FAMILY, zone='ev', type='evpn', controller='evpn1', vrf_vxlan=100, ipam='pve')
    sdn_zone.FAMILY.check_references(zone, ABSENT, Batch([]), client)
    assert client.reads == ['/cluster/sdn/controllers']  # the built-in pve IPAM is never looked up


def test_update_secret_always_adds_the_declared_secret_to_a_found_object_s_plan():
    live = {'ipam': 'netbox', 'type': 'netbox', 'url': 'https://netbox.lab/api', 'token': 'old', 'digest': 'x'}
    params = dict(ipam='netbox', type='netbox', url='https://netbox.lab/api', token='new')
    on_create = sdn_ipam.FAMILY.declaration(dict(params, update_secret='on_create'))
    assert sdn_ipam.FAMILY.plan(on_create, live).action == 'none'  # never compared: the old token is not seen
    always = sdn_ipam.FAMILY.declaration(dict(params, update_secret='always'))
    the_plan = sdn_ipam.FAMILY.plan(always, live)
    assert (the_plan.action, the_plan.changed) == ('update', ['token'])
    assert sdn_ipam.FAMILY.plan(always, ABSENT).action == 'create'
    without = sdn_ipam.FAMILY.declaration(dict(params, token=None, update_secret='always'))
    assert sdn_ipam.FAMILY.plan(without, live).action == 'none'  # nothing declared to write


def test_a_vxlan_zone_or_evpn_controller_moved_onto_a_fabric_has_its_peers_cleared_in_the_same_write():
    live = {'zone': 'under', 'type': 'vxlan', 'peers': '10.0.0.1,10.0.0.2', 'digest': 'd'}
    the_plan = sdn_zone.FAMILY.plan(vxlan(), live)
    assert sorted(the_plan.changed) == ['fabric', 'peers']
    assert update_form(sdn_zone.FAMILY, vxlan(), the_plan.changed, live) == {
        'fabric': 'fab1', 'delete': 'peers', 'digest': 'd'}
    controller = declared(sdn_controller.FAMILY, controller='evpn1', type='evpn', asn=65000, fabric='fab1')
    live = {'controller': 'evpn1', 'type': 'evpn', 'asn': 65000, 'peers': '10.0.0.1', 'digest': 'd'}
    the_plan = sdn_controller.FAMILY.plan(controller, live)
    assert update_form(sdn_controller.FAMILY, controller, the_plan.changed, live) == {
        'fabric': 'fab1', 'delete': 'peers', 'digest': 'd'}
