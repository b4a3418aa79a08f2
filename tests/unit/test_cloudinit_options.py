"""Cloud-init options on ``vm`` (sshkeys, nameserver, searchdomain, cicustom, citype, ciupgrade) and the DNS options
of ``lxc`` (nameserver, searchdomain): their field kinds, and the simulator's port of what PVE does with them.

``sshkeys`` travel URL-encoded (qemu-server API2/Qemu.pm create_vm / update_vm_api ``uri_unescape`` them only to
validate them; the config keeps the encoded text), so a key with a comment, ``+``, ``/`` and ``=`` must survive
encode -> store -> read. Each key is checked as PVE::Tools::validate_ssh_public_keys (``ssh-keygen -l``) would; where
an ``ssh-keygen`` is installed the port is compared with it line by line.
"""

import base64
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.families import lxc, vm
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import MISSING, ssh_key_problem

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, ok, refused, sim  # noqa: E402,F401  pylint: disable=unused-import
from simulator.pve.handlers import cloudinit  # noqa: E402
from simulator.pve.handlers.guests import add_guest  # noqa: E402

# Real keys (ssh-keygen -t ed25519 / ecdsa -b 256 / ecdsa -b 521 / rsa -b 1024), their comments varied.
ED25519 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBAuQfmxqzF8WLVHli6orB39yIaEQB6QjJjMYsJB8Z8w ops@laptop'
ECDSA256 = ('ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBMRTDl1uTbkDiMixilWXFz2K'
            'G50dgnPDJ3ZY6+kB2Osxw/Ei6Bx5VIugNESY2OlmfJnB5iUB5DmzRj0ILz0ao+8= deploy key, 2026 (CI+CD) 100%')
ECDSA521 = ('ecdsa-sha2-nistp521 AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1MjEAAACFBAErLRrCkgCbpCCvWF26xrCg'
            'ZQAhtLvkHn5MvcrDdsZ89s13QvGU3InWfSXBM0FafScDxJJzX3WByOnm1MH14OmAIgEtj3mweTQVI7RBqz1AZU+4zeG5vBRc'
            'gIO15tO1oB+LTku+EYLQo+sDYAjEnEW6opDhEdvBz8blzZRu36vNj3YWsA==')
RSA = ('ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDWzzC4ZxP/jPtknSYY5AhUYf+k7RxWJtnoFaLK3Y9J18GTvTHpMBR5Yf0n'
       'BOv9XzB/0LWEAF3kEV5FbhTnPggJfgu7ml6AYxjEkzjuEnczSQshwVYpxIKx/4EvLF6pTjahX+RRUYy5Yqfx5e/dGEdzr9Pd'
       'G0YcCxR3RT7gYetKAw== root@host=a/b+c café')
DSA_BODY = ('AAAAB3NzaC1kc3MAAACBAJK7GPsxqFWcYLKNf9Y2mecZG0MPLrXzlQoo/sb7vISxnnmfcPjxTzqKpxO6tw/DL0w1pfqzpz4l'
            '3Sa0A/jUxJQEHq4u6iOOjAlhQeGaCRJ1oL6MoJ3XzUXA9hq1C8TFwwxFR25MDu5tJ9XGe1bOo8yR4T+0DKd1kzNntTVH9fG3'
            'AAAAFQDxW+RuRf4JNrWXu6EGIbEFMLTOtQAAAIAXKcnjNFzaYzGKXl+jupOKMHQ+XXzUR5mGZ2dEZu/tk6v240esF5+F6ONc'
            'jZk3Lxo53YciotkQWyCnajgxW2lUrUjXU8tbV2cmE3EPc6GeyHK2h0b+0aAmXIec1la/mz58Pi1QBjKPHldlwmjF/VZM/DOa'
            'WgMEVXA4FVFur742twAAAIBqlFbBYCGSBGtNRKdeE/+ATOmZz016UxCGFiAA5hlVEuvsqlUMxOxoR2F8RCvHtEQy7G4d+WnH'
            'U7BBRq35lfY4L0BQhNP0vz8ILKGDcl502+B5JjPoQmj3bMj0z9sjyP83uA1s0s0mXWEXtrKscU4fWKE1lzcXJFMNq1B6sc6R'
            'eg==')
KEYS = [ED25519, ECDSA256, ECDSA521, RSA]
ED25519_BODY = ED25519.split()[1]


def field(family, wire):
    return [item for item in family.FIELDS if item.wire == wire][0]


SSHKEYS = field(vm, 'sshkeys')


def uri_escape(text):
    """URI::Escape's uri_escape (RFC 3986: every byte outside A-Za-z0-9 - . _ ~ as %XX), written out by hand."""
    unreserved = set(b'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~')
    return ''.join(chr(byte) if byte in unreserved else '%%%02X' % byte for byte in text.encode('utf-8'))


# -- sshkeys: encoding -----------------------------------------------------------------------------

def test_keys_are_sent_as_uri_escape_encodes_them_and_read_back_unchanged():
    keys = SSHKEYS.declared(KEYS)
    sent = SSHKEYS.encode(keys)
    assert sent == uri_escape('\n'.join(sorted(KEYS)))
    assert re.fullmatch(r"[-%a-zA-Z0-9_.!~*'()]*", sent)  # PVE's urlencoded format (pve_verify_urlencoded)
    assert not set(' +/=,@()\n') & set(sent)
    assert SSHKEYS.live(sent) == keys  # what GET config answers: the stored, still encoded text
    assert sorted(unquote(sent).split('\n')) == sorted(KEYS)  # comments, +, /, = and non-ASCII intact


def test_keys_encoded_another_way_compare_equal():
    # The GUI's encodeURIComponent keeps ' ( ) * ! unescaped; a trailing newline and CRLF lines change nothing.
    gui = "ssh-ed25519%20" + ED25519_BODY + "%20it's%20(me)!%0D%0A%0A"
    assert SSHKEYS.live(gui) == ["ssh-ed25519 %s it's (me)!" % ED25519_BODY]
    assert SSHKEYS.live(MISSING) == [] and SSHKEYS.live('') == []


# -- sshkeys: a set ---------------------------------------------------------------------------------

def test_keys_are_a_set_order_free_trimmed_without_blank_lines():
    one = SSHKEYS.declared([ED25519, RSA])
    assert SSHKEYS.declared([RSA, '  %s \t' % ED25519, '', RSA]) == one
    assert SSHKEYS.declared(['%s\n\n  %s\r\n' % (RSA, ED25519)]) == one  # an authorized_keys file as one item
    assert not SSHKEYS.differs(one, SSHKEYS.live(uri_escape('\n%s\n\n%s\n' % (ED25519, RSA))))
    assert SSHKEYS.differs(one, SSHKEYS.live(uri_escape(ED25519)))
    # the encoded text pvesh get shows is taken as it is meant
    assert SSHKEYS.declared([uri_escape('%s\n%s' % (ED25519, RSA))]) == one


def test_no_keys_clears_them_and_the_option_is_no_secret():
    assert SSHKEYS.declared([]) == [] and SSHKEYS.is_unset([])
    assert SSHKEYS.clear == 'delete'
    spec = SSHKEYS.argument_spec()
    assert spec == {'type': 'list', 'elements': 'str', 'no_log': False}  # sanity's no-log-needed: a public key


def test_an_exported_key_set_declares_itself():
    live = SSHKEYS.live(uri_escape('%s\n%s' % (RSA, ECDSA256)))
    assert SSHKEYS.declared(SSHKEYS.exported(live)) == live


# -- sshkeys: each key checked before any request ------------------------------------------------------

def blob_key(name, *parts):
    """``<name> <base64 of SSH strings>``: a key line whose body is made by hand."""
    blob = b''.join(struct.pack('>I', len(part)) + part for part in (name.encode(),) + parts)
    return '%s %s' % (name, base64.b64encode(blob).decode())


SK_ED25519 = blob_key('sk-ssh-ed25519@openssh.com', b'\x11' * 32, b'ssh:')
MALFORMED = [
    ('ssh-ed25519', 'has no key body'),
    ('ssh-ed25519 AAAA!!!notbase64 me', 'not base64'),
    ('ssh-ed25519 %s me' % ED25519_BODY[:-3], 'not base64'),
    ('ssh-rsa %s me' % ED25519_BODY, 'written as ssh-rsa but its body holds a ssh-ed25519 key'),
    ('ssh-dss %s old' % DSA_BODY, 'DSA key'),
    ('ssh-ed448 %s' % ED25519_BODY, 'not an OpenSSH public key line'),
    ('# ssh-ed25519 %s' % ED25519_BODY, 'a comment'),
    ('-----BEGIN OPENSSH PRIVATE KEY-----', 'not an OpenSSH public key line'),
    ('AAAAC3NzaC1lZDI1NTE5 ops', 'not an OpenSSH public key line'),
]


@pytest.mark.parametrize('bad, why', MALFORMED)
def test_a_malformed_key_is_refused_naming_the_option_and_its_index(bad, why):
    with pytest.raises(DeclarationError) as refusal:
        SSHKEYS.declared([ED25519, bad])
    message = str(refusal.value)
    assert message.startswith('option sshkeys[1]: ') and why in message, message
    assert len(message) < 400  # a long key is shown shortened


def test_keys_with_options_and_security_keys_are_accepted():
    for line in (ED25519, SK_ED25519, 'from="10.0.0.0/8",command="echo \\"hi there\\"" ' + ED25519,
                 'no-pty ' + RSA, ED25519.replace(' ', '\t')):
        assert ssh_key_problem(line) is None, line


@pytest.mark.skipif(not shutil.which('ssh-keygen'), reason='no ssh-keygen here to compare the port with')
@pytest.mark.parametrize('line', KEYS + [SK_ED25519, 'no-pty ' + RSA] + [bad for bad, why in MALFORMED
                                                                         if 'DSA' not in why])
def test_the_check_and_the_simulators_agree_with_ssh_keygen(tmp_path, line):
    """PVE's own check is ``ssh-keygen -l -f <the line>`` (DSA aside: the OpenSSH of PVE 9 has none)."""
    path = tmp_path / 'key.pub'
    path.write_text(line + '\n')
    accepted = subprocess.run(['ssh-keygen', '-l', '-f', str(path)], capture_output=True, check=False).returncode == 0
    assert (ssh_key_problem(line) is None) == accepted
    assert cloudinit._fingerprints(line) == accepted  # pylint: disable=protected-access


# -- nameserver / searchdomain ------------------------------------------------------------------------

def test_vm_dns_options_are_ordered_word_lists_as_cloud_init_splits_them():
    nameserver = field(vm, 'nameserver')
    assert nameserver.declared(['10.0.0.53', '2001:db8::53']) == ['10.0.0.53', '2001:db8::53']
    assert nameserver.declared(['10.0.0.53 10.0.1.53']) == nameserver.declared('10.0.0.53, 10.0.1.53')
    assert nameserver.encode(['10.0.0.53', '10.0.1.53']) == '10.0.0.53 10.0.1.53'
    assert nameserver.live('10.0.0.53  10.0.1.53') == ['10.0.0.53', '10.0.1.53']
    # order matters; a comma PVE accepted but cloud-init does not split at is drift
    assert nameserver.differs(['10.0.1.53', '10.0.0.53'], nameserver.live('10.0.0.53 10.0.1.53'))
    assert nameserver.live('10.0.0.53,10.0.1.53') == ['10.0.0.53,10.0.1.53']
    assert field(vm, 'searchdomain').declared(['lab.example.org corp.example']) == ['lab.example.org',
                                                                                    'corp.example']
    assert nameserver.argument_spec() == {'type': 'list', 'elements': 'str'}


def test_lxc_dns_options_read_as_pve_keeps_them():
    nameserver, searchdomain = field(lxc, 'nameserver'), field(lxc, 'searchdomain')
    assert nameserver.live('10.0.0.53,10.0.1.53') == ['10.0.0.53', '10.0.1.53']  # split_list, as PVE's Setup
    assert nameserver.declared(['fe80::1%eth0', '10.0.0.53']) == ['fe80::1%eth0', '10.0.0.53']
    assert searchdomain.declared(['lab.example.org']) == ['lab.example.org']


@pytest.mark.parametrize('family, wire, value, words', [
    (vm, 'nameserver', ['10.0.0.53', 'not an ip!'], "'ip!' is not a valid address"),
    (lxc, 'nameserver', ['dns.example.org'], "'dns.example.org' is not a valid lxc-ip-with-ll-iface"),
    (lxc, 'nameserver', ['2001:db8::1%eth0'], 'is not a valid lxc-ip-with-ll-iface'),
    (lxc, 'nameserver', ['fe80::1%'], 'is not a valid lxc-ip-with-ll-iface'),
    (lxc, 'searchdomain', ['lab_1.example'], 'is not a valid dns-name'),
])
def test_a_bad_dns_word_is_refused_naming_the_option(family, wire, value, words):
    with pytest.raises(DeclarationError) as refusal:
        field(family, wire).declared(value)
    assert str(refusal.value).startswith('option %s: ' % wire) and words in str(refusal.value), str(refusal.value)


# -- cicustom, citype, ciupgrade --------------------------------------------------------------------------

def test_cicustom_takes_snippets_and_compares_as_pairs():
    cicustom = field(vm, 'cicustom')
    declared = cicustom.declared('user=local:snippets/user.yml,network=local:snippets/net.yml')
    assert declared == 'network=local:snippets/net.yml,user=local:snippets/user.yml'
    assert not cicustom.differs(declared, cicustom.live('user=local:snippets/user.yml,network=local:snippets/net.yml'))


@pytest.mark.parametrize('value, words', [
    ('user=local:iso/user.yml', 'has user=local:iso/user.yml, which is not a snippet'),
    ('user=local:snippets/a/b.yml', 'not a snippet'),
    ('vendor=snippets/v.yml', 'is not a valid pve-volume-id'),
    ('colour=local:snippets/x.yml', "has the key 'colour'"),
    ('local:snippets/user.yml', 'not a property string'),
])
def test_a_cicustom_pve_could_not_read_is_refused(value, words):
    with pytest.raises(DeclarationError) as refusal:
        field(vm, 'cicustom').declared(value)
    assert str(refusal.value).startswith('option cicustom: ') and words in str(refusal.value), str(refusal.value)


def test_citype_is_one_of_pves_formats():
    assert field(vm, 'citype').argument_spec()['choices'] == ['configdrive2', 'nocloud', 'opennebula']
    with pytest.raises(DeclarationError):
        field(vm, 'citype').declared('cloudbase')


def test_ciupgrade_unset_is_pves_default_of_one():
    ciupgrade = field(vm, 'ciupgrade')
    assert not ciupgrade.differs(ciupgrade.declared(True), ciupgrade.live(MISSING))
    assert ciupgrade.differs(ciupgrade.declared(False), ciupgrade.live(MISSING))
    assert ciupgrade.differs(ciupgrade.declared(True), ciupgrade.live(0))
    assert ciupgrade.is_unset(True) and ciupgrade.clear == 'delete'  # true is written as delete=ciupgrade


# -- the simulator: what PVE does with them ------------------------------------------------------------------

@pytest.fixture
def guests(sim):
    with sim.state.lock:
        sim.state.guests.clear()
    add_guest(sim.state, 'qemu', 300, 'node1', config={'name': 'ci1', 'ide2': 'local-lvm:vm-300-cloudinit,media=cdrom'})
    add_guest(sim.state, 'lxc', 301, 'node1', config={'hostname': 'ct1', 'ostype': 'debian', 'rootfs': 'local-lvm:4'})
    yield sim


def test_the_simulator_stores_sshkeys_encoded_and_cloud_init_gets_them_decoded(guests):
    sent = SSHKEYS.encode(SSHKEYS.declared([RSA, ED25519]))
    ok(guests, 'PUT', '/nodes/node1/qemu/300/config', {'sshkeys': sent})
    assert ok(guests, 'GET', '/nodes/node1/qemu/300/config')['sshkeys'] == sent
    user = ok(guests, 'GET', '/nodes/node1/qemu/300/cloudinit/dump', {'type': 'user'})
    assert '  - %s\n  - %s\n' % tuple(sorted([RSA, ED25519])) in user


@pytest.mark.parametrize('path, form', [('/nodes/node1/qemu/300/config', {}),
                                        ('/nodes/node1/qemu', {'vmid': '302'})])
def test_the_simulator_refuses_a_key_ssh_keygen_would_as_pve_does(guests, path, form):
    status, message, _errors = refused(guests, 'PUT' if form == {} else 'POST', path,
                                       dict(form, sshkeys=uri_escape('%s\nssh-rsa %s' % (ED25519, ED25519_BODY))))
    assert (status, message.strip()) == (500, 'SSH public key validation error')
    status, message, errors = refused(guests, 'PUT', '/nodes/node1/qemu/300/config', {'sshkeys': ED25519})
    assert status == 400 and 'invalid urlencoded string' in errors['sshkeys']
    assert 302 not in guests.state.guests


def test_the_simulator_keeps_container_dns_lists_joined_by_spaces_and_checks_them(guests):
    ok(guests, 'PUT', '/nodes/node1/lxc/301/config',
       {'nameserver': '10.0.0.53,fe80::1%eth0;10.0.1.53', 'searchdomain': 'lab.example.org, corp.example'})
    conf = ok(guests, 'GET', '/nodes/node1/lxc/301/config')
    assert (conf['nameserver'], conf['searchdomain']) == ('10.0.0.53 fe80::1%eth0 10.0.1.53',
                                                          'lab.example.org corp.example')
    for form, key in (({'nameserver': 'dns.example.org'}, 'nameserver'),
                      ({'searchdomain': 'bad_name'}, 'searchdomain')):
        status, _message, errors = refused(guests, 'PUT', '/nodes/node1/lxc/301/config', form)
        assert status == 400 and key in errors, errors


def test_the_simulator_checks_cicustom_as_pve_qm_cicustom(guests):
    status, _message, errors = refused(guests, 'PUT', '/nodes/node1/qemu/300/config',
                                       {'cicustom': 'colour=local:snippets/x.yml'})
    assert status == 400 and 'invalid key' in str(errors['cicustom']), errors
    ok(guests, 'PUT', '/nodes/node1/qemu/300/config', {'cicustom': 'user=local:snippets/u.yml'})
