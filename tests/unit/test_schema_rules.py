"""Rules the collection copies from PVE, checked against the official schema so they cannot drift apart.

The collection cannot read ../shared/pve-api at run time, so it keeps the few rules it needs in code
(``formats.py`` and each family's field table, pointing at the schema parameter they come from);
this test reads the schema (``$PVE_API_SCHEMA``, else ``<repo>/../shared/pve-api/pve-api-schema.json``)
and is skipped, saying so, where that file is not beside the checkout.

For every field of every family: the parameter exists on the family's create call, and the field
carries the schema's type, enum, lengths, range, pattern, named format and property-string keys.
The named formats' rules themselves are not in the schema (they are Perl and Rust code); they are
compared, value by value, with the simulator's port of PVE's checks (``tests/simulator/formats.py``).
"""

import importlib
import json
import os
import pkgutil
import re

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils import families as families_package
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import TOKEN_IDS
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    Flag, Integer, PropertyString, TokenSet)
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import FORMATS, PRIVILEGES
from simulator.formats import FORMATS as SIMULATED, FormatError
from simulator.schema import check_format

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = os.environ.get('PVE_API_SCHEMA') or os.path.join(REPO, '..', 'shared', 'pve-api', 'pve-api-schema.json')
# PBS families are checked against PBS's own schema, beside PVE's.
PBS_SCHEMA = os.path.join(os.path.dirname(SCHEMA), 'pbs-api-schema.json')


@pytest.fixture(scope='module')
def schema_text():
    if not os.path.isfile(SCHEMA):
        pytest.skip('the official PVE schema is not at %s' % SCHEMA)
    with open(SCHEMA) as handle:
        return handle.read()


def schema_calls(text):
    """(method, path) -> the method's parameter properties."""
    found = {}

    def walk(node):
        for method, info in (node.get('info') or {}).items():
            found[(method, node['path'])] = (info.get('parameters') or {}).get('properties') or {}
        for child in node.get('children') or []:
            walk(child)

    for node in json.loads(text):
        walk(node)
    return found


@pytest.fixture(scope='module')
def calls(schema_text):
    """Per scheme, (method, path) -> the method's parameter properties."""
    if not os.path.isfile(PBS_SCHEMA):
        pytest.skip('the official PBS schema is not at %s' % PBS_SCHEMA)
    with open(PBS_SCHEMA) as handle:
        return {'pve': schema_calls(schema_text), 'pbs': schema_calls(handle.read())}


def all_families():
    found = []
    for info in pkgutil.iter_modules(families_package.__path__):
        module = importlib.import_module('%s.%s' % (families_package.__name__, info.name))
        # A module over several scopes (firewall options and rules) is one Family per scope.
        scopes = getattr(module.FAMILY, 'scopes', None)
        found.extend(scopes.values() if scopes else [module.FAMILY])
    return found


FIELDS = [(family, field) for family in all_families() for field in family.identity + family.fields
          if field.schema_key is not None]
KINDS = {'boolean': (Flag,), 'integer': (Integer,)}


def perl_pattern(text):
    """A schema pattern in Python syntax: Perl's (?^:...) and (?^i:...) groups; PBS's /.../ with POSIX classes."""
    if text.startswith('/') and text.endswith('/'):
        text = text[1:-1].replace('[[:^cntrl:]]', r'[^\x00-\x1f\x7f]').replace('[:cntrl:]', r'\x00-\x1f\x7f')
    return text.replace('(?^:', '(?:').replace('(?^i:', '(?i:')


def typetext_keys(typetext):
    """Keys and value shapes of a property string from its typetext: ``[keep-all=<1|0>] [,keep-last=<N>]``
    (a default key reads ``[enabled=]<1|0>``)."""
    keys = dict(re.findall(r'([\w-]+)=\]?<([^>]*)>', typetext or ''))
    # a key whose value is spelled out instead (``remove-vanished=([acl];[properties];[entry])|none``)
    keys.update((key, '') for key in re.findall(r'([\w-]+)=\(', typetext or '') if key not in keys)
    return keys


@pytest.mark.parametrize('family, field', FIELDS, ids=['%s.%s' % (f.name, fd.option) for f, fd in FIELDS])
def test_each_field_carries_the_schemas_rules(calls, family, field):
    method, path = family.schema
    scheme_calls = calls[family.scheme]
    assert (method, path) in scheme_calls, 'the schema has no %s %s' % (method, path)
    prop = scheme_calls[(method, path)].get(field.schema_key)
    assert prop is not None, '%s %s takes no parameter %r' % (method, path, field.schema_key)

    kinds = KINDS.get(prop.get('type'))
    if kinds and not isinstance(field, TokenSet):
        assert isinstance(field, kinds), 'the schema says %s' % prop['type']
    if 'enum' in prop:
        assert sorted(field.choices or []) == sorted(str(item) for item in prop['enum'])
    else:
        assert not field.choices or (field.format and FORMATS[field.format].choices), 'choices the schema lacks'
    assert field.max_length == prop.get('maxLength')
    assert field.min_length == prop.get('minLength')
    if isinstance(field, Integer):
        assert field.minimum == (int(prop['minimum']) if 'minimum' in prop else None)
        assert field.maximum == (int(prop['maximum']) if 'maximum' in prop else None)
    if 'pattern' in prop:
        assert field.pattern is not None and field.pattern.pattern == perl_pattern(prop['pattern'])
    else:
        assert field.pattern is None, 'a pattern the schema does not give'

    schema_format = prop.get('format')
    if isinstance(field, PropertyString) and field.keys is not None:
        if isinstance(schema_format, dict):
            # PVE's format is the keys' schemas; PBS's an object schema holding them under ``properties``.
            keys = set(schema_format['properties'] if schema_format.get('type') == 'object' else schema_format)
        else:
            keys = set(typetext_keys(prop.get('typetext')))
        assert keys == set(field.keys)
        for key, shape in typetext_keys(prop.get('typetext')).items():
            kind = Flag if shape == '1|0' else Integer if shape == 'N' else None
            if kind:
                assert isinstance(field.keys[key], kind), key
    elif isinstance(schema_format, str) and schema_format not in ('string', 'urlencoded'):
        ours = field.format or ''
        assert schema_format in (ours, ours + '-list'), 'the schema says format %s, the field %s' % (
            schema_format, field.format)
    else:
        assert field.format is None, 'a format the schema does not give'


# Values that tell the formats apart: identities, addresses, networks, lists, paths, near misses.
SAMPLES = [
    '', 'a', 'ab', 'lab', 'Lab-1.x_y', 'a/b', 'a/b/c', 'a/b/c/d', '/a', 'bad pool!', '1abc', 'abc-', 'a.b', 'a_b',
    'root@pam', 'a@b', 'ab@pve', 'alice', 'al ice@pve', 'a:b@pve', 'ci@pve!ro', 'ci@pve!1x', 'ci@pve!r', 'x' * 70 + '@pve',
    'VM.Audit', 'VM.Adit', 'Sys.Modify', 'images', 'movies', 'none', 'iso,backup',
    '10.0.0.1', '10.0.0.0/24', '10.0.0.1/8', '10.0.0.0/7', '10.0.0.0/33', '300.1.1.1', 'fe80::1', 'fe80::/64',
    'fe80::/130', '[fe80::1]:3260', '10.0.0.1:3260', 'host:3260', 'host:x', 'pve1', 'pve1.example.com', '-bad',
    'bad-', 'a..b', 'aa:bb:cc:dd:ee:f0', '02:00:00:00:00:01', '01:00:5e:00:00:01', 'AA:BB:CC:DD:EE:FF', 'aa-bb-cc',
    'user@example.com', 'first.last+tag@mail.example.org', 'not an email', 'x@', '@x',
    '/mnt/x', '/mnt/x y', 'relative', '/a;b', '/a(b)', 'vg_1+x', 'vg/1', 'vers=4.2,soft', 'opt;x',
    'local:iso/x.iso', 'local', '1local:x', '100', '99', '999999999', '1000000000', '0100',
    'tag_1', 'Tag+x.y', '-tag', 'a,b', 'a b;c', 'a,,b', 'net0', 'a-b_c', 'a1', '1a',
    'BC:24:11', 'BC:24:11:', 'BC:24:11:0', 'bd:24', '100-0', '99-0', '100-', 'pve.lab', 'ops team',
    'vmbr0', 'eno1.10', 'bond0:1', 'e' + 'x' * 21, 'vlan_1', '1', '2', '4094', '4095', '10-20', '2-4095', '10-',
    'abcdefgh', 'abcdefghi', 'zone1-', 'fd00::/8', '10.0.0.0/24,10.1.0.0/16', '10.0.0.1 fe80::1',
    # SDN controllers, IPAMs, DNS servers, fabrics: ids, IS-IS network entity titles, route targets
    'evpn_1', 'evpn-', 'e' * 65, 'fab-1', '1fab', 'fabric123', '49.0001.1921.6800.1001.00',
    '49.0001.1921.6800.1001', '49.0001.1921.6800.100g.00', '65000:100', '65000:', '4294967296:1', '1:4294967295',
    '65000:100,65001:7',
]
COMPARED = sorted(name for name in FORMATS if re.sub(r'-(list|opt)$', '', name) in SIMULATED
                  and name != 'pve-calendar-event')  # the simulator accepts any printable calendar event


def simulator_accepts(name, value):
    try:
        check_format(name, value, 'x')
    except FormatError:
        return False
    return True


@pytest.mark.parametrize('name', COMPARED)
def test_each_format_agrees_with_the_simulators_port_of_pve(name):
    disagree = [value for value in SAMPLES if FORMATS[name].accepts(value) != simulator_accepts(name, value)]
    assert disagree == []


def test_the_formats_compared_cover_what_the_families_use():
    used = set(field.format for _family, field in FIELDS if field.format)
    assert len(COMPARED) >= 20
    # the simulator accepts any calendar event; the collection's parser is proven in test_calendar_event.py
    assert used - set(COMPARED) - {'pve-calendar-event'} == set()


def parameters(schema_text, name):
    """Every definition of the parameter ``name`` in the schema."""
    found = []

    def walk(node):
        for info in (node.get('info') or {}).values():
            prop = ((info.get('parameters') or {}).get('properties') or {}).get(name)
            if prop:
                found.append(prop)
        for child in node.get('children') or []:
            walk(child)

    for node in json.loads(schema_text):
        walk(node)
    return found


def test_every_privilege_the_schema_names_is_known(schema_text):
    named = set(re.findall(r'"((?:Datastore|Group|Mapping|Permissions|Pool|Realm|SDN|Sys|User|VM)\.[A-Za-z.]+)"',
                           schema_text))
    assert len(named) > 30  # the pattern really found the schema's permission checks
    assert sorted(named - set(PRIVILEGES)) == []


def test_the_token_id_rule_is_the_schemas(schema_text):
    # /access/permissions takes a userid or a token id with PVE's own (Perl) pattern.
    patterns = [prop['pattern'] for prop in parameters(schema_text, 'userid') if prop.get('pattern')]
    assert patterns, 'the schema no longer gives a userid pattern'
    perl = patterns[0]
    # Perl's (?^:...) groups are plain groups in Python.
    schema_rule = re.compile(perl.replace('(?^:', '(?:'))
    for token_id in ('root@pam!ci', 'ci@pve!ro', 'a.b@my-realm!tok_1', 'root@pam!c', 'root@pam!1x', 'root@pam',
                     'root!ci', 'ro ot@pam!ci', 'root@pam!ci!x', 'root@1pam!ci'):
        is_token = '!' in token_id
        assert bool(TOKEN_IDS['pve'].match(token_id)) == (is_token and bool(schema_rule.match(token_id))), token_id


@pytest.mark.parametrize('name, value, text', [
    # pve-common JSONSchema.pm pve_verify_email_or_username
    ('email-or-username', 'not an email', 'value does not look like a valid email address or user name\n'),
    # pve-common JSONSchema.pm parse_id: the length is judged before the characters
    ('pve-storage-id', 'a', "storage ID 'a' cannot be shorter than 2 characters\n"),
    ('pve-storage-id', '1local', "storage ID '1local' contains illegal characters\n"),
    # pve-access-control AccessControl.pm verify_poolname
    ('pve-poolid', 'a/b/c/d', "pool name 'a/b/c/d' nested too deeply (max levels = 3)\n"),
    ('pve-poolid', 'bad pool!', "pool name 'bad pool!' contains invalid characters\n"),
    # pve-common JSONSchema.pm pve_verify_vlan_id_or_range
    ('pve-vlan-id-or-range', '20-10', "VLAN range must go from lower to higher tag '20-10'\n"),
    ('pve-vlan-id-or-range', '2-4095', "invalid VLAN tag '4095'\n"),
])
def test_a_format_refuses_with_pves_text(name, value, text):
    with pytest.raises(FormatError) as refused:
        check_format(name, value, 'x')
    assert refused.value.text() == text
