"""Field kinds: declared and live values meet in one canonical form (field-notes §6 cases)."""

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    MISSING, Flag, Integer, PropertyString, Text, TokenSet, acl_path)

SAME = [
    # (field, declared, live) that must compare equal
    (TokenSet('content', empty_token='none'), ['iso', 'backup'], 'backup,iso'),            # §6.12
    (TokenSet('content', empty_token='none'), [], 'none'),                                 # §6.12 empty reads none
    (TokenSet('content', empty_token='none'), ['none'], MISSING),
    (TokenSet('groups'), ['a', 'b'], ['b', 'a']),                                          # §6.16
    (TokenSet('groups'), 'a,b', 'b;a a'),
    (TokenSet('privs'), ['VM.Audit', 'Sys.Audit'], {'Sys.Audit': 1, 'VM.Audit': 1}),       # §6.15 map form
    (TokenSet('vmid'), ['99', '101'], '101,99'),                                           # numeric, not lexical
    (Flag('enable', absent_means=True), True, MISSING),                                    # §6.16 absent = enabled
    (Flag('enable', absent_means=True), True, ''),                                         # §6.49 '' = absent
    (Flag('propagate', absent_means=True), False, 0),
    (Flag('disable'), False, MISSING),
    (Flag('disable'), True, '1'),
    (Integer('expire', absent_means=0), 0, '0'),                                           # §6.16 "0" == 0
    (Integer('expire', absent_means=0), 0, MISSING),
    (Integer('port'), 8086, '8086'),                                                       # §6.48
    (Text('comment'), '', MISSING),
    (PropertyString('prune-backups'), 'keep-daily=7,keep-last=3', 'keep-last=3,keep-daily=7'),
    (PropertyString('fleecing'), 'enabled=1', {'enabled': 1}),
    (PropertyString('fleecing', default_key='enabled'), 'yes', 'enabled=1'),
    (Text('path', normalise=acl_path), '/pool/house/', '/pool/house'),                     # §6.5
    (Text('path', normalise=acl_path), 'pool//house', '/pool/house'),
]

DIFFERENT = [
    (TokenSet('content', empty_token='none'), ['iso'], 'backup,iso'),
    (Flag('enable', absent_means=True), False, MISSING),
    (Integer('expire', absent_means=0), 5, '0'),
    (Text('comment'), 'x', MISSING),
    (PropertyString('prune-backups'), 'keep-last=3', 'keep-last=4'),
]


@pytest.mark.parametrize('field, declared, live', SAME)
def test_equal_forms_compare_equal(field, declared, live):
    assert field.declared(declared) == field.live(live)


@pytest.mark.parametrize('field, declared, live', DIFFERENT)
def test_different_values_compare_different(field, declared, live):
    assert field.declared(declared) != field.live(live)


BAD = [
    (Text('poolid', pattern=r'^[A-Za-z0-9.\-_]+$'), 'bad pool!', 'option poolid'),
    (Integer('expire', minimum=0), -1, 'option expire'),
    (Integer('port'), 'eighty', 'option port'),
    (Flag('enable'), 'maybe', 'option enable'),
    (TokenSet('content', choices=['iso', 'backup']), ['iso', 'movies'], 'option content'),
    (TokenSet('privs', pattern=r'^[A-Za-z]+(\.[A-Za-z]+)+$'), ['VM.Audit', 'root'], 'option privs'),
    (PropertyString('prune-backups'), 'keep-last', 'option prune_backups'),
]


@pytest.mark.parametrize('field, value, named', BAD)
def test_bad_input_names_the_option(field, value, named):
    with pytest.raises(DeclarationError, match=named):
        field.declared(value)


ENCODED = [
    (Flag('enable'), True, '1'),
    (Flag('enable'), False, '0'),
    (TokenSet('content', empty_token='none'), [], 'none'),
    (TokenSet('groups'), [], ''),
    (TokenSet('groups'), ['a', 'b'], 'a,b'),
    (Integer('expire'), 0, '0'),
]


@pytest.mark.parametrize('field, value, wire', ENCODED)
def test_encoding(field, value, wire):
    assert field.encode(value) == wire


def test_option_name_from_wire_name():
    assert PropertyString('prune-backups').option == 'prune_backups'
    assert Text('encryption-key', secret=True).argument_spec() == {'type': 'str', 'no_log': True}


def test_an_unknown_privilege_is_refused_with_the_nearest_names():
    from ansible_collections.homeflare.proxmox.plugins.module_utils.families.role import FAMILY
    privs = [field for field in FAMILY.fields if field.option == 'privs'][0]
    assert privs.declared(['VM.Audit', 'Sys.Audit']) == ['Sys.Audit', 'VM.Audit']
    with pytest.raises(DeclarationError) as caught:
        privs.declared(['VM.Audit', 'VM.Adit'])
    assert str(caught.value) == ("option privs: 'VM.Adit' is not one of the 48 known values; "
                                 "nearest: VM.Audit, Sys.Audit, SDN.Audit")
    with pytest.raises(DeclarationError, match=r"'everything' is not one of the 48 known values$"):
        privs.declared(['everything'])
    # A short list is given whole.
    with pytest.raises(DeclarationError, match=r"is not one of images, rootdir"):
        TokenSet('content', choices=['images', 'rootdir']).declared(['movies'])


@pytest.mark.parametrize('subject, ugid, valid', [
    ('user', 'alice@pve', True), ('user', 'alice', False), ('user', 'alice@pve!tok', False),
    ('group', 'ops', True), ('group', 'ops team', False),
    ('token', 'ci@pve!ro', True), ('token', 'ci@pve', False), ('token', 'ci!ro', False),
])
def test_an_acl_subject_must_have_its_type_s_shape(subject, ugid, valid):
    from ansible_collections.homeflare.proxmox.plugins.module_utils.families.acl import FAMILY
    params = dict(path='/', type=subject, ugid=ugid, roleid='PVEAuditor', propagate=True, state='present')
    if valid:
        assert FAMILY.declaration(params).ident['ugid'] == ugid
    else:
        with pytest.raises(DeclarationError, match="option ugid: %r is not .*as type=%s needs" % (ugid, subject)):
            FAMILY.declaration(params)


def test_a_user_s_group_must_be_a_group_id():
    from ansible_collections.homeflare.proxmox.plugins.module_utils.families.user import FAMILY
    params = dict(userid='alice@pve', groups=['ops', 'night shift'], state='present')
    with pytest.raises(DeclarationError, match="option groups: 'night shift' is not a valid pve-groupid"):
        FAMILY.declaration(params)


# -- PVE's rules, copied from the schema (formats.py) -------------------------------------------

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (  # noqa: E402
    PRUNE_BACKUPS, prune_backups_rule)
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import FORMATS, why_not  # noqa: E402

PRUNE = PropertyString('prune-backups', keys=PRUNE_BACKUPS, rule=prune_backups_rule)


@pytest.mark.parametrize('field, value, message', [
    (Text('comment', max_length=5), 'toolong', "option comment: 'toolong' is 7 characters long; at most 5"),
    (Text('email', format='email-opt'), 'alice@', "is not a valid email-opt"),
    (TokenSet('privs', format='pve-priv'), ['VM.Adit'], 'nearest: VM.Audit'),
    (TokenSet('nodes', format='pve-node'), ['node_1'], "'node_1' is not a valid pve-node"),
    (Text('fingerprint', pattern=r'([A-Fa-f0-9]{2}:){31}[A-Fa-f0-9]{2}'), 'ab:cd', 'does not match the pattern'),
    (PRUNE, 'keep-lots=3', "has the key 'keep-lots'"),
    (PRUNE, 'keep-last=0', 'below the minimum 1'),
    (PRUNE, 'keep-last=x', 'not a whole number'),
    (PRUNE, 'keep-all=1,keep-last=3', 'keep-all alone'),
    (PRUNE, 'keep-last=1,keep-last=2', 'names a key twice'),
])
def test_pve_rules_refuse_with_a_sentence(field, value, message):
    with pytest.raises(DeclarationError, match=message):
        field.declared(value)


@pytest.mark.parametrize('field, value', [
    (Text('email', format='email-opt'), ''),
    (PRUNE, 'keep-all=1'),
    (PRUNE, 'keep-last=3,keep-daily=7'),
    (Text('schedule', format='pve-calendar-event'), 'mon..fri 02:30'),
    (TokenSet('monhost', format='pve-storage-portal-dns'), ['10.0.0.1:6789', '[fe80::1]:6789', 'mon1']),
])
def test_pve_rules_accept_what_pve_accepts(field, value):
    field.declared(value)


@pytest.mark.parametrize('name, good, bad', [
    ('CIDR', ['10.0.0.0/24', '10.0.0.1/8', 'fd00::/64'], ['10.0.0.0', '10.0.0.0/7', '10.0.0.0/33', 'x/24']),
    ('CIDRv4', ['192.168.1.0/24'], ['fd00::/64']),
    ('mac-addr', ['02:00:00:00:00:01', 'AA:BB:CC:DD:EE:F0'], ['01:00:5e:00:00:01', 'aa-bb-cc-dd-ee-f0']),
    ('email', ['first.last+tag@mail.example.org'], ['not an email', '@x']),
    ('pve-calendar-event', ['daily', 'sat 03:00', '*:0/15'], ['', '12:60', 'blah']),
    ('pve-tokenid-list', ['ci@pve!ro,root@pam!ci'], ['ci@pve']),
])
def test_named_formats(name, good, bad):
    assert all(FORMATS[name].accepts(value) for value in good)
    assert not any(FORMATS[name].accepts(value) for value in bad)
    assert why_not(name, bad[0])
