"""simulator.value_types: the JSON type of a read value is the parser's rule over the schema type, whatever was stored.

Run: python -m pytest tests/unit/test_value_types.py -q
"""

import base64
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from simulator import schema as pve_schema  # noqa: E402
from simulator.pbs import schema as pbs_schema  # noqa: E402
from simulator.value_types import PARSERS, PBS_FILES, PVE_FILES, PVE_PENDING, Typing, parser_for, properties  # noqa: E402
# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import

# (parser, schema type, stored value, answered value)
RULES = [
    ('section-config', 'integer', '8086', 8086),
    ('section-config', 'number', '0.5', 0.5),
    ('section-config', 'boolean', '1', 1),
    ('section-config', 'boolean', True, 1),
    ('section-config', 'boolean', '', 1),       # a bare flag line
    ('section-config', 'string', 1, '1'),       # master-pubkey 1
    ('section-config', 'string', 2.0, '2'),
    ('guest-config', 'integer', '512', 512),
    ('guest-config', 'boolean', 'on', 1),
    ('guest-config', 'number', 0.5, '0.5'),     # check_type returns the matched text
    ('guest-config', 'string', 2048, '2048'),   # qemu memory is a property string in PVE 9
    ('key-value', 'integer', 4, '4'),           # datacenter.cfg: only booleans are parsed
    ('key-value', 'boolean', 'yes', 1),
    ('user-config', 'integer', '0', 0),
    ('user-config', 'string', 5, '5'),
    ('firewall', 'integer', '3', 3),
    ('serde', 'boolean', 1, True),
    ('serde', 'boolean', '0', False),
    ('serde', 'integer', '7', 7),
    ('serde', 'string', 7, '7'),
]


@pytest.mark.parametrize('parser, schema_type, stored, answered', RULES)
def test_each_parser_types_a_stored_value_by_its_schema_type(parser, schema_type, stored, answered):
    value = PARSERS[parser].value(stored, schema_type)
    assert value == answered and type(value) is type(answered)


def test_lists_objects_and_unknown_types_are_left_as_the_handler_built_them():
    parser = PARSERS['section-config']
    assert parser.value({'enabled': '1'}, 'object') == {'enabled': '1'}
    assert parser.value(['a'], 'array') == ['a']
    assert parser.value(None, 'integer') is None


def test_every_file_prefix_is_a_schema_path_with_a_read():
    for files, index in ((PVE_FILES, pve_schema.load()), (PBS_FILES, pbs_schema.load())):
        for prefix in files:
            assert index.find('GET', prefix) is not None, prefix


def test_the_property_schema_of_a_read_joins_its_returns_and_its_file_writes():
    index = pve_schema.load()
    storage = properties(index, '/storage/{storage}')  # returns: a bare object; the writes name the properties
    assert storage['master-pubkey']['type'] == 'string' and storage['shared']['type'] == 'boolean'
    assert properties(index, '/storage')['port']['type'] == 'integer'  # a list: the collection's POST
    assert properties(index, '/nodes/{node}/qemu/{vmid}/config')['memory']['type'] == 'string'
    assert parser_for(PVE_FILES, '/cluster/sdn/vnets/{vnet}').name == 'section-config'
    assert parser_for(PVE_FILES, '/cluster/resources') is None
    typing = Typing(index, PVE_FILES, PVE_PENDING)
    # a pending row's value and pending are typed as the property its key names (config_with_pending_array)
    rows = [{'key': 'memory', 'value': 512, 'pending': 1024}, {'key': 'cores', 'value': '2'}, {'key': 'x', 'delete': 1}]
    assert typing.answer('/nodes/{node}/lxc/{vmid}/pending', rows) == [
        {'key': 'memory', 'value': 512, 'pending': 1024}, {'key': 'cores', 'value': 2}, {'key': 'x', 'delete': 1}]
    assert typing.answer('/nodes/{node}/qemu/{vmid}/pending', [{'key': 'memory', 'value': 2048}]) == [
        {'key': 'memory', 'value': '2048'}]
    assert typing.answer('/storage', [{'storage': 'b', 'port': '8007', 'master-pubkey': 1}]) == [
        {'storage': 'b', 'port': 8007, 'master-pubkey': '1'}]


def test_a_pbs_storage_master_pubkey_flag_reads_as_the_string_1(sim):
    pem = '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----\n'
    status, body = sim.request('POST', '/storage', {
        'storage': 'pbs-mk', 'type': 'pbs', 'server': 'pbs.example.org', 'datastore': 'd', 'username': 'u@pbs',
        'password': 'x', 'fingerprint': ':'.join(['ab'] * 32), 'encryption-key': 'autogen',
        'master-pubkey': base64.b64encode(pem.encode()).decode()})
    assert status == 200, body
    status, body = sim.request('GET', '/storage/pbs-mk')
    assert status == 200 and body['data']['master-pubkey'] == '1'
    listed = [row for row in sim.request('GET', '/storage')[1]['data'] if row['storage'] == 'pbs-mk']
    assert listed[0]['master-pubkey'] == '1' and listed[0]['shared'] == 1
