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


# -- guests: numbers, bare property strings, disks and NICs ----------------------------------------

import re  # noqa: E402

from ansible_collections.homeflare.proxmox.plugins.module_utils.families import lxc, vm  # noqa: E402
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (  # noqa: E402
    BarePropertyString, Number, format_size, parse_size)


def guest_field(family, wire):
    return next(field for field in family.FIELDS if field.wire == wire)


SCSI0, IDE2, EFIDISK0 = (guest_field(vm, wire) for wire in ('scsi0', 'ide2', 'efidisk0'))
ROOTFS, MP0 = guest_field(lxc, 'rootfs'), guest_field(lxc, 'mp0')
VM_NET, CT_NET = guest_field(vm, 'net0'), guest_field(lxc, 'net0')
LIVE_SCSI0 = 'local-lvm:vm-100-disk-0,size=32G'


@pytest.mark.parametrize('text, size, canonical', [
    ('528K', 540672, '528K'),
    ('4M', 4194304, '4M'),
    ('32G', 34359738368, '32G'),
    ('1.5G', 1610612736, '1536M'),       # the largest unit that divides it exactly
    ('1000', 1000, '1000'),              # bytes
    ('2048', 2048, '2K'),
    ('8GiB', 8589934592, '8G'),
])
def test_disk_sizes_round_trip_as_pve_formats_them(text, size, canonical):
    assert parse_size(text) == size
    assert format_size(size) == canonical


def test_a_size_pve_would_not_parse_is_none():
    assert parse_size('8 G') is None and parse_size('big') is None


@pytest.mark.parametrize('field, declared, canonical', [
    (ROOTFS, 'local-lvm:8', 'local-lvm:8'),                                          # an allocation
    (ROOTFS, 'volume=local-lvm:8,acl=true', 'local-lvm:8,acl=1'),
    (SCSI0, 'local-lvm:vm-100-disk-0,size=32768M', LIVE_SCSI0),                      # as pvesh shows it
    (SCSI0, 'file=local-lvm:vm-100-disk-0,ssd=yes,size=32G,backup=off',
     'local-lvm:vm-100-disk-0,backup=0,size=32G,ssd=1'),                              # booleans as PVE takes them
    (IDE2, 'none,media=cdrom', 'none,media=cdrom'),
])
def test_a_disk_has_one_canonical_form(field, declared, canonical):
    assert field.declared(declared) == canonical


def test_a_disk_keeps_an_enum_that_reads_like_a_boolean():
    assert SCSI0.encode(SCSI0.declared('local-lvm:32,discard=on')) == 'local-lvm:32,discard=on'


@pytest.mark.parametrize('field, declared, live, refusal, grow_to, options', [
    (SCSI0, 'local-lvm:32', LIVE_SCSI0, None, None, False),
    (SCSI0, LIVE_SCSI0, LIVE_SCSI0, None, None, False),
    (SCSI0, 'local-lvm:40', LIVE_SCSI0, None, '40G', False),
    (SCSI0, 'local-lvm:vm-100-disk-0,size=40G', LIVE_SCSI0, None, '40G', False),
    (SCSI0, 'local-lvm:40,ssd=1', LIVE_SCSI0, None, '40G', True),
    (SCSI0, 'local-lvm:8', '', None, None, True),                                     # a new disk
    (SCSI0, 'local-lvm:16', LIVE_SCSI0,
     'scsi0 is 32G but the task declares 16G: disks only grow (PVE cannot shrink one), so declare 32G or more',
     None, False),
    (SCSI0, 'ceph:32', LIVE_SCSI0, 'scsi0 is on storage local-lvm but the task declares ceph: a storage move is not '
                                   'an update', None, False),
    (SCSI0, 'local-lvm:vm-100-disk-1,size=32G', LIVE_SCSI0,
     'scsi0 holds the volume local-lvm:vm-100-disk-0 but the task declares local-lvm:vm-100-disk-1', None, False),
    (IDE2, 'local:iso/b.iso,media=cdrom', 'local:iso/a.iso,media=cdrom,size=600M', None, None, True),  # ISO swap
    (IDE2, 'local:iso/a.iso,media=cdrom', 'local:iso/a.iso,media=cdrom,size=600M', None, None, False),
    (EFIDISK0, 'local-lvm:1,efitype=4m', 'local-lvm:vm-100-disk-1,efitype=4m,size=4M', None, None, False),
])
def test_disk_compare_says_what_the_live_disk_needs(field, declared, live, refusal, grow_to, options):
    desired, current = field.declared(declared), field.live(live)
    change = field.compare(desired, current)
    assert (change.grow_to, change.options) == (grow_to, options)
    if refusal:
        assert change.refusal.startswith(refusal)
    else:
        assert change.refusal is None
    assert bool(change) == bool(refusal or grow_to or options) == field.differs(desired, current)


@pytest.mark.parametrize('field, declared, live, sent', [
    (SCSI0, 'local-lvm:40,ssd=1', LIVE_SCSI0, 'local-lvm:vm-100-disk-0,size=32G,ssd=1'),   # the resize grows it
    (SCSI0, 'local-lvm:8,ssd=1', MISSING, 'local-lvm:8,ssd=1'),                            # a new disk allocates
    (ROOTFS, 'local-lvm:8,acl=1', 'local-lvm:vm-101-disk-0,size=8G', 'local-lvm:vm-101-disk-0,acl=1,size=8G'),
])
def test_a_disk_update_keeps_the_live_volume_and_size(field, declared, live, sent):
    assert field.encode_update(field.declared(declared), live) == sent


def test_a_cdrom_update_sends_the_declared_iso():
    declared = IDE2.declared('local:iso/b.iso,media=cdrom')
    assert IDE2.encode_update(declared, 'local:iso/a.iso,media=cdrom,size=600M') == 'local:iso/b.iso,media=cdrom'


@pytest.mark.parametrize('field, declared, message', [
    (SCSI0, 'local-lvm:vm-100-disk-0,size=32', 'has size=32 without a unit'),
    (MP0, '/srv/data,mp=/data', 'is a host path (a bind mount), which only root@pam may configure: run '
                                '`pct set <vmid> -mp0 /srv/data,mp=/data` on the node instead'),
    (MP0, 'local-lvm:8', 'needs mp=<path inside the container>'),
    (ROOTFS, 'size=8G', 'names no volume'),
])
def test_a_disk_pve_would_misread_or_refuse_is_refused(field, declared, message):
    with pytest.raises(DeclarationError, match='option %s: .*%s' % (field.option, re.escape(message))):
        field.declared(declared)


def test_a_size_without_unit_is_refused_even_when_it_is_whole_kibibytes():
    with pytest.raises(DeclarationError, match='without a unit'):
        SCSI0.declared('local-lvm:vm-100-disk-0,size=1024')


def test_an_unreadable_size_is_a_declaration_error():
    with pytest.raises(DeclarationError, match='size=big'):
        SCSI0.declared('local-lvm:vm-100-disk-0,size=big')


def test_a_vm_disk_on_a_host_path_names_qm_set():
    with pytest.raises(DeclarationError, match='`qm set <vmid> -scsi1 /dev/disk/by-id/ata-X`'):
        guest_field(vm, 'scsi1').declared('/dev/disk/by-id/ata-X')


@pytest.mark.parametrize('field, declared, live, differs', [
    (CT_NET, 'name=eth0,bridge=vmbr0', 'name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:00:01,type=veth', False),
    (CT_NET, 'name=eth0,bridge=vmbr0,hwaddr=bc:24:11:00:00:01', 'name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:00:01',
     False),
    (CT_NET, 'name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:00:09', 'name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:00:01',
     True),
    (CT_NET, 'name=eth0,bridge=vmbr1', 'name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:00:01', True),
    (VM_NET, 'virtio,bridge=vmbr0', 'virtio=BC:24:11:00:00:02,bridge=vmbr0', False),
    (VM_NET, 'model=virtio,bridge=vmbr0', 'virtio=BC:24:11:00:00:02,bridge=vmbr0', False),
    (VM_NET, 'virtio=bc:24:11:00:00:02,bridge=vmbr0', 'model=virtio,macaddr=BC:24:11:00:00:02,bridge=vmbr0', False),
    (VM_NET, 'e1000,bridge=vmbr0', 'virtio=BC:24:11:00:00:02,bridge=vmbr0', True),
])
def test_a_nic_compares_its_mac_only_when_declared(field, declared, live, differs):
    assert field.differs(field.declared(declared), field.live(live)) is differs


def test_a_container_nic_s_implied_type_is_ignored():
    assert CT_NET.declared('name=eth0,bridge=vmbr0,type=veth') == CT_NET.declared('name=eth0,bridge=vmbr0')


@pytest.mark.parametrize('field, declared, live, sent', [
    (VM_NET, 'virtio,bridge=vmbr1', 'virtio=BC:24:11:00:00:02,bridge=vmbr0',
     'bridge=vmbr1,macaddr=BC:24:11:00:00:02,model=virtio'),
    (CT_NET, 'name=eth0,bridge=vmbr1', 'name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:00:01,type=veth',
     'bridge=vmbr1,hwaddr=BC:24:11:00:00:01,name=eth0'),
    (CT_NET, 'name=eth0,hwaddr=BC:24:11:00:00:09', 'name=eth0,hwaddr=BC:24:11:00:00:01',
     'hwaddr=BC:24:11:00:00:09,name=eth0'),                                          # a declared MAC wins
    (CT_NET, 'name=eth1', MISSING, 'name=eth1'),                                      # a new NIC gets PVE's MAC
])
def test_a_nic_update_carries_the_live_mac_back(field, declared, live, sent):
    assert field.encode_update(field.declared(declared), live) == sent


@pytest.mark.parametrize('field, declared, live, same', [
    (Number('cpulimit'), '1.50', '1.5', True),
    (Number('cpulimit'), 2, '2.0', True),
    (Number('cpulimit'), 0, '0', True),
    (Number('cpulimit'), '1.5', '1.25', False),
    (BarePropertyString('memory', default_key='current'), '2048', 2048, True),
    (BarePropertyString('memory', default_key='current'), '2048', 'current=2048', True),
    (BarePropertyString('memory', default_key='current'), 'current=2048', '2048', True),
    (BarePropertyString('memory', default_key='current'), '4096', 'current=2048', False),
])
def test_numbers_and_bare_property_strings_compare_by_value(field, declared, live, same):
    assert (field.declared(declared) == field.live(live)) is same


def test_a_memory_size_is_shown_bare_as_pve_writes_it():
    memory = guest_field(vm, 'memory')
    assert memory.declared('current=2048') == memory.live(2048) == '2048'


@pytest.mark.parametrize('value, message', [
    (200, 'is above the maximum 128'), (-1, 'is below the minimum 0'), ('fast', 'is not a number')])
def test_a_number_out_of_range_is_refused(value, message):
    with pytest.raises(DeclarationError, match='option cpulimit: .*%s' % message):
        guest_field(vm, 'cpulimit').declared(value)


def test_the_base_field_compares_and_encodes_plainly():
    field = Integer('cores')
    assert field.differs(2, 1) and not field.differs(2, 2)
    assert field.encode_update(2, '1') == field.encode(2) == '2'


@pytest.mark.parametrize('field, compared', [
    (Text('hostname'), True),
    (Text('ostemplate', create_param=True), False),   # sent on create, kept nowhere readable
    (Text('password', secret=True), False),
])
def test_only_what_the_live_object_carries_is_compared(field, compared):
    assert field.compared is compared


# -- a guest's description: compared as pve-container / qemu-server read their '#' lines back ---------------------

CT_DESCRIPTION, VM_DESCRIPTION = guest_field(lxc, 'description'), guest_field(vm, 'description')


@pytest.mark.parametrize('field, declared, live', [
    (CT_DESCRIPTION, 'hello', 'hello\n'),                        # parse_pct_config: a newline after every line
    (CT_DESCRIPTION, 'a\n\nb\n\n', 'a\n\nb\n'),                  # split(/\n/) drops trailing empty lines
    (CT_DESCRIPTION, 'block\n', 'block\n'),
    (VM_DESCRIPTION, 'block\n', 'block'),                         # parse_vm_config: s/\s+$//
    (VM_DESCRIPTION, 'a\n\nb \n\n', 'a\n\nb'),
    (VM_DESCRIPTION, '0 ', ''),                                   # '0' once, then Perl-false: nothing written
    (CT_DESCRIPTION, '\n', ''),
])
def test_a_description_compares_as_pve_reads_it_back(field, declared, live):
    assert not field.differs(field.declared(declared), field.live(live))
    assert field.live(live) == field.declared(declared)          # the diff shows what PVE will show


@pytest.mark.parametrize('field, declared, live', [
    (CT_DESCRIPTION, 'hello', 'hello \n'),
    (CT_DESCRIPTION, '\nhello', 'hello\n'),                       # a leading empty line is kept
    (VM_DESCRIPTION, 'a\nb', 'a\n\nb'),
])
def test_a_description_that_reads_back_otherwise_differs(field, declared, live):
    assert field.differs(field.declared(declared), field.live(live))


@pytest.mark.parametrize('field, declared, sent', [
    (CT_DESCRIPTION, 'hello', 'hello'),                           # the shortest text that reads back the same
    (CT_DESCRIPTION, 'block\n', 'block'),
    (CT_DESCRIPTION, '0\n', '0\n'),                                # '0' alone would be Perl-false
    (VM_DESCRIPTION, 'block\n', 'block'),
])
def test_a_description_is_sent_as_the_shortest_text_pve_reads_back_the_same(field, declared, sent):
    assert field.encode(field.declared(declared)) == sent
    assert field.exported(field.declared(declared)) == sent
    assert field.declared(field.exported(field.declared(declared))) == field.declared(declared)


def test_a_description_s_length_counts_what_is_sent():
    assert CT_DESCRIPTION.declared('x' * 8192 + '\n') == 'x' * 8192 + '\n'   # sent without its newline
    with pytest.raises(DeclarationError, match='option description: .* at most 8192'):
        VM_DESCRIPTION.declared('x' * 8193)


from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (  # noqa: E402
    perl_true_text, section_comment, section_value)


@pytest.mark.parametrize('normalise, text, read_back', [
    (section_value, ' \t{{guestname}} \r', '{{guestname}}'),    # SectionConfig parse_config trims a value
    (section_comment, ' \tweb ', '\tweb'),                       # through encode_text only spaces are bare
    (section_comment, ' 0 ', ''),                                # Perl-false: never written
    (perl_true_text, '0', ''),                                   # user.cfg's `$d->{comment} ? ... : ''`
    (perl_true_text, ' 0', ' 0'),
])
def test_texts_read_back_as_pve_s_config_files_keep_them(normalise, text, read_back):
    assert normalise(text) == read_back
    assert normalise(read_back) == read_back                     # settled
