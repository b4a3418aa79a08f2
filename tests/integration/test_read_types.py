"""Every family's reads answer each value with the JSON type PVE's or PBS's parser gives its schema type.

One play (the fault matrix's objects: every family, ``test_faults.FAMILIES``) creates every family's object; then
every config read the families made (the request log's GETs) is made again and each value's JSON type is compared
with what the file's parser makes of the property's schema type (``simulator.value_types``: SectionConfig numbers,
guest configs' numbers as text, datacenter.cfg's integers as text, PBS's JSON booleans). A family none of whose
reads is a config read says why in ``NOT_A_FILE``; every other family must have had a read checked.
"""

import pytest

from test_faults import GUESTS, MODULES, PBS_SETUP, SETUP, Faults, owner, seed_hardware, server_of
from test_matrix import api
from test_pbs_families import pbs_api
from simulator import Simulator
from simulator.value_types import PBS_FILES, PVE_FILES, PVE_PENDING, Typing

# Families whose reads are live state, not a config file a parser types (their values are the daemon's JSON).
NOT_A_FILE = {
    'ceph_flag': "Ceph's OSD map flags (ceph-mon's JSON through PVE::RADOS)",
    'ceph_fs': "ceph fs ls (ceph-mon's JSON)",
    'ceph_mds': 'ceph mds metadata / services (ceph-mon JSON)',
    'ceph_mgr': 'ceph mgr metadata (ceph-mon JSON)',
    'ceph_mon': 'ceph mon dump (ceph-mon JSON)',
    'ceph_osd': 'ceph osd tree / metadata (ceph-mon JSON)',
    'ceph_pool': 'ceph osd pool ls detail (ceph-mon JSON)',
    'zfs_pool': "zpool list / status output, parsed by pve-storage's API2/Disks/ZFS.pm",
    'node_network': "/etc/network/interfaces, parsed by pve-common INotify.pm's own reader",
    'network_apply': 'the pending interfaces file compared with the live one',
    'apt_repository': "proxmox-apt's own parse of the sources files, answered through perlmod (Rust serde JSON)",
    'subscription': "/etc/subscription, read by Subscription.pm's own reader (the shop's verdict)",
    'certificate': "the certificate info: openssl's reading of the PEM files (Certificates.pm info)",
    'acme_certificate': "the certificate info: openssl's reading of the PEM files (its node config read is "
                        "node_config's file)",
    'acme_account': "the account file: the CA's JSON account object (ACMEAccount.pm get_account)",
    'cluster': "pmxcfs's live cluster status and corosync.conf's nodelist (Corosync.pm's own parser)",
    'node_dns': "/etc/resolv.conf, read by INotify.pm's own reader (read_etc_resolv_conf)",
    'node_time': "the node's time zone and clocks (Time.pm: /etc/timezone and the system time)",
    'node_hosts': '/etc/hosts as text with its digest (Nodes.pm get_etc_hosts)',
    'storage_content': "a storage's directory listing (the plugins' list_volumes: file names, sizes, times) and the "
                       "node's storage status (storage_info), no config file",
    'snapshot': "the snapshot list qemu-server's snapshot_list (API2/Qemu.pm) and pve-container's build from the "
                "config's snapshot sections: the parser's text (snaptime) beside values the handler computes "
                "(vmstate ? 1 : 0, the 'current' row), typed by no one file parser",
}


@pytest.fixture
def sim():
    with Simulator(members=3, pbs_members=2) as simulator:
        yield simulator


def json_type(value):
    if isinstance(value, bool):
        return 'boolean'
    if isinstance(value, (int, float)):
        return 'number'
    if isinstance(value, str):
        return 'string'
    return None  # a list or an object: the handler's, not retyped


def mistyped(typing, template, data):
    """(key, value, wanted) for every scalar whose JSON type is not what the parser gives its schema type."""
    parser, types = typing.rule(template)
    wrong = []
    for row, field, prop in typing.cells(template, data):
        got = json_type(row[field])
        if prop in types and got is not None and got != parser.json_type(types[prop]):
            wrong.append((prop, row[field], parser.json_type(types[prop])))
    return wrong


def test_every_family_reads_values_typed_as_its_parser_does(sim, playbook, tmp_path):
    api(sim, SETUP)
    pbs_api(sim, PBS_SETUP)
    with sim.state.lock:
        sim.state.guests.update(GUESTS)
    seed_hardware(sim)
    sim.clear_log()
    results = Faults(sim, playbook, 'controller', tmp_path, None).run()
    assert [module for module in MODULES if results[module]['status'] != 'ok'] == [], results

    products = {'pve': (sim.api.schema, Typing(sim.api.schema, PVE_FILES, PVE_PENDING), sim.request),
                'pbs': (sim.pbs.schema, Typing(sim.pbs.schema, PBS_FILES), sim.pbs_request)}
    checked, problems = {}, {}
    for entry in list(sim.log):
        module = owner(sim, entry)
        if entry['method'] != 'GET' or entry['status'] != 200 or module is None:
            continue
        index, typing, request = products[server_of(module)]
        template = index.find('GET', entry['path'])[0]
        if typing.rule(template) is None:
            continue
        status, body = request('GET', entry['path'], entry['form'])[:2]
        assert status == 200, (entry, body)
        checked.setdefault(module, set()).add(template)
        wrong = mistyped(typing, template, body['data'])
        if wrong:
            problems[(module, template)] = wrong
    assert problems == {}
    unchecked = sorted(set(MODULES) - set(checked) - set(NOT_A_FILE))
    assert unchecked == [], 'families with no config read checked (add their file to value_types): %s' % unchecked
    # a family said to read no file really reads none the parsers type
    assert sorted(set(checked) & set(NOT_A_FILE)) == []
