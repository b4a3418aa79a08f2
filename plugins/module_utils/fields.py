# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Field kinds: how one option is validated, read, normalised, compared, encoded and cleared.

A family is a table of fields; the reconcile core only ever asks a field, never
branches on which family it serves. Every value a field hands the core is in its
canonical form, so comparing two values is plain ``==``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import binascii
import difflib
import re
import struct

try:
    from urllib.parse import quote, unquote
except ImportError:  # pragma: no cover - Python 2 is not supported, kept for sanity's compile test
    from urllib import quote, unquote

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import Repeated
from ansible_collections.homeflare.proxmox.plugins.module_utils.calendar_event import parse_calendar_event
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import FORMATS, why_not

# Undeclared fields are neither sent nor compared unless the field has a default.
UNMANAGED = object()
# The read did not carry the key at all.
MISSING = object()

TRUE_WORDS = ('1', 'yes', 'true', 'on')
FALSE_WORDS = ('0', 'no', 'false', 'off', '')
LIST_SPLIT = re.compile(r'[,;\s]+')


class Field:
    """A text option; the other kinds override the parts that differ.

    ``default``    what an undeclared option means: UNMANAGED, or the value compared and written.
    ``create_only`` sent on create, compared when declared, never sent on update (a change is refused).
    ``secret``     sent on create only; never read, compared, returned or shown.
    ``clear``      how a value equal to "unset" is written on update: 'empty' sends it, 'delete' lists it in delete=.
    ``always_send`` sent with every update too, drifted or not, unless unset (PVE wants it on every PUT: a
                   metric server's ``server`` and ``port``, an HA rule's ``type``, an interface's address, which a
                   PUT without it drops); a create-only field so marked is re-sent as is.
    ``absent_means`` the canonical value of a key the server left out (the kind's empty value otherwise).
    ``delete_param`` a parameter of the removal only (PBS's ``destroy-data``): sent with the DELETE when declared and
                   true, never read, compared or sent otherwise.
    ``send_with``  wire names whose update also sends this field when declared (Ceph resets a pool's min_size when
                   its size changes, so a declared min_size goes with every size write).
    ``create_param`` a parameter of the create call that PVE keeps nowhere readable (a container's template, the
                   pool a guest joins): sent on create when declared, never read or compared.
    ``root_only``  a value only root@pam may write (qemu-server's check_vm_modify_config_perm): a function of the
                   canonical value that says why (``a host PCI device by id``), or None for a value anyone with the
                   privilege may write. The family refuses such a write for any other credential (Guest.check_plan).

    PVE's rules for a value, copied from the official schema (``formats.py`` says how they are kept
    in step with it): ``format`` (a schema format name), ``pattern`` (the schema's pattern, matched
    whole, as PVE anchors it), ``min_length``/``max_length``, ``minimum``/``maximum``, ``choices``
    (the schema's enum). ``schema_key`` is the parameter of the family's create call that the rules
    come from: the wire name unless it differs; None for an option PVE does not take as such.
    """

    ansible_type = 'str'
    elements = None

    def __init__(self, wire, option=None, default=UNMANAGED, create_only=False, secret=False, clear='empty',
                 choices=None, pattern=None, required=False, minimum=None, maximum=None, normalise=None,
                 absent_means=MISSING, format=None, min_length=None, max_length=None, schema_key=MISSING,
                 always_send=False, create_param=False, send_with=(), delete_param=False, root_only=None):
        if absent_means is not MISSING:
            self.unset = absent_means
        self.wire = wire
        self.option = option or wire.replace('-', '_')
        self.default = default
        self.create_only = create_only
        self.secret = secret
        self.clear = clear
        self.choices = choices
        self.pattern = re.compile(pattern) if pattern else None
        if format is not None and format not in FORMATS:
            raise ValueError('no such format %r' % format)
        self.format = format
        self.min_length = min_length
        self.max_length = max_length
        self.schema_key = wire if schema_key is MISSING else schema_key
        self.always_send = always_send
        self.send_with = tuple(send_with)
        self.delete_param = delete_param
        self.create_param = create_param
        self.root_only = root_only
        self.required = required
        self.minimum = minimum
        self.maximum = maximum
        self.normalise = normalise

    @property
    def managed_when_undeclared(self):
        return self.default is not UNMANAGED

    @property
    def compared(self):
        """Whether the live object carries this field at all (a secret or a create parameter it does not)."""
        return not self.secret and not self.create_param and not self.delete_param

    def argument_spec(self):
        spec = dict(type=self.ansible_type)
        if self.elements:
            spec['elements'] = self.elements
        if self.choices:
            spec['choices'] = list(self.choices)
        if self.secret:
            spec['no_log'] = True
        if self.required:
            spec['required'] = True
        return spec

    # -- values in ---------------------------------------------------------------------
    def declared(self, value):
        """Canonical form of the task's value; raises DeclarationError naming the option."""
        value = self.canonical(value)
        if value and isinstance(value, str):
            self.check_text(value)
        return value

    def check_text(self, text):
        """PVE's rules for one non-empty string value: lengths, format, pattern."""
        if self.max_length is not None and len(text) > self.max_length:
            self.refuse(text, 'is %d characters long; at most %d are allowed' % (len(text), self.max_length))
        if self.min_length is not None and len(text) < self.min_length:
            self.refuse(text, 'is %d characters long; at least %d are needed' % (len(text), self.min_length))
        if self.format is not None:
            fmt = FORMATS[self.format]
            if fmt.choices and text not in fmt.choices:
                self.refuse(text, unknown_choice(text, fmt.choices))
            allowed = why_not(self.format, text)
            if allowed:
                self.refuse(text, 'is not a valid %s (%s)' % (self.format, allowed))
        if self.pattern is not None and not self.pattern.fullmatch(text):
            self.refuse(text, 'does not match the pattern %s' % self.pattern.pattern)
        if self.choices and text not in self.choices:
            self.refuse(text, unknown_choice(text, self.choices))

    def live(self, raw):
        """Canonical form of what the server answered (MISSING when the key was absent)."""
        return self.unset if raw is MISSING or raw is None else self.canonical(raw)

    def canonical(self, value):
        value = '' if value is None else str(value)
        return self.normalise(value) if self.normalise else value

    def refuse(self, value, why):
        raise DeclarationError('option %s: %r %s' % (self.option, value, why))

    # -- values out --------------------------------------------------------------------
    unset = ''

    def is_unset(self, value):
        return value == self.unset

    def differs(self, desired, current):
        """Whether the live value needs a write; a kind that ignores what PVE generates says so here."""
        return desired != current

    def encode(self, value):
        return value

    def encode_update(self, value, live):
        """The value an update sends; ``live`` is the raw live value (a kind that must carry part of it back,
        such as a generated MAC address, uses it)."""
        return self.encode(value)

    def exported(self, value):
        """A canonical live value as the module's option takes it back (an export): canonical values are valid
        declarations of themselves, so most kinds hand them over unchanged."""
        return value


class Text(Field):
    pass


# Perl's \s on a character string (perlrecharclass); Python's str.isspace() also takes \x1c-\x1f.
PERL_SPACE = (u'\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a'
              u'\u2028\u2029\u202f\u205f\u3000')


def comment_lines(text):
    r"""The lines a config writer keeps as ``#`` comment lines: Perl's split(/\n/) of a true text (trailing empty
    lines dropped; ``''`` and ``'0'`` are false, so nothing is written)."""
    if text in ('', '0'):
        return []
    lines = text.split('\n')
    while lines and not lines[-1]:
        lines.pop()
    return lines


def pct_comment(text):
    """A container's description as pve-container reads it back: write_pct_config writes each line as a ``#`` line,
    parse_pct_config appends a newline to every one (src/PVE/LXC/Config.pm)."""
    return u''.join(line + u'\n' for line in comment_lines(text))


def qm_comment(text):
    r"""A VM's description as qemu-server reads it back: write_vm_config writes each line as a ``#`` line,
    parse_vm_config joins them and strips trailing white space (``$descr =~ s/\s+$//``, src/PVE/QemuServer.pm).
    update_vm_api writes it to [PENDING] and reloads before applying it, so it is read back twice."""
    for _cycle in range(2):
        lines = comment_lines(text)
        text = u''.join(line + u'\n' for line in lines).rstrip(PERL_SPACE) if lines else u''
    return text


def perl_true_text(text):
    """A text whose writer skips a Perl-false value (user.cfg's ``$d->{comment} ? encode_text(...) : ''``,
    SectionConfig's ``if ($scfg->{comment})``): ``'0'`` reads back absent."""
    return u'' if text == u'0' else text


def section_value(text):
    """A text a section config file keeps as is (an HA resource's comment, a backup job's notes-template):
    SectionConfig::parse_config reads ``^\\s+(\\S+)(\\s+(.*\\S))?\\s*$``, so its surrounding ASCII white space is gone."""
    return text.strip(u' \t\n\x0b\x0c\r')


def section_comment(text):
    """A comment a section config file keeps through encode_text (HA rules, replication jobs, jobs.cfg, domains.cfg):
    only its spaces escape encoding, so only they are trimmed; a Perl-false ``'0'`` is never written."""
    return perl_true_text(text.strip(u' '))


class CommentText(Text):
    """A text PVE keeps as its config file's ``#`` comment lines (a guest's description), compared as the file's
    parser reads it back (``read_back``: pct_comment, qm_comment), so live and declared values meet in PVE's form.
    Sent in the shortest form that reads back the same: PVE's maxLength counts what is sent."""

    def __init__(self, wire, read_back, **kwargs):
        super(CommentText, self).__init__(wire, **kwargs)
        self.read_back = read_back

    def canonical(self, value):
        return self.read_back(super(CommentText, self).canonical(value))

    def declared(self, value):
        value = self.canonical(value)
        if value:
            self.check_text(self.encode(value))
        return value

    def encode(self, value):
        for candidate in (value[:-1] if value.endswith('\n') else value, value, value + '\n'):
            if self.read_back(candidate) == value:
                return candidate
        return value

    def exported(self, value):
        return self.encode(value)


class CalendarEvent(Text):
    """A calendar event (proxmox-time: ``daily``, ``mon..fri 02:00``), checked where the schema names no format for it
    (PBS's schedules: its rule is code, not schema)."""

    def check_text(self, text):
        super(CalendarEvent, self).check_text(text)
        reason = parse_calendar_event(text)
        if reason:
            self.refuse(text, 'is not a calendar event (%s)' % reason)


class Flag(Field):
    """A boolean; PVE answers 1/0, ``''`` or nothing (then ``absent_means`` applies)."""

    ansible_type = 'bool'

    def __init__(self, wire, absent_means=False, **kwargs):
        super(Flag, self).__init__(wire, absent_means=absent_means, **kwargs)

    def canonical(self, value):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in TRUE_WORDS:
            return True
        if text in FALSE_WORDS:
            return self.unset if text == '' else False
        self.refuse(value, 'is not a boolean')

    def encode(self, value):
        return '1' if value else '0'


class Numeric(Field):
    """What Integer and Number share: PVE may answer ``8086`` or ``"8086"``; unset is None; ``parse`` reads the
    text, ``shown`` gives the canonical form, and the declared value is checked against minimum and maximum."""

    unset = None
    parse = int
    not_a = 'is not a whole number'

    def canonical(self, value):
        if value is None or value == '':
            return self.unset
        try:
            number = self.parse(str(value).strip())
        except ValueError:
            self.refuse(value, self.not_a)
        return self.shown(number)

    @staticmethod
    def shown(number):
        return number

    def declared(self, value):
        number = self.canonical(value)
        if number is not None and self.minimum is not None and self.parse(number) < self.minimum:
            self.refuse(value, 'is below the minimum %s' % self.minimum)
        if number is not None and self.maximum is not None and self.parse(number) > self.maximum:
            self.refuse(value, 'is above the maximum %s' % self.maximum)
        return number


class Integer(Numeric):
    """A whole number; PVE may answer ``8086`` or ``"8086"``; unset is None."""

    ansible_type = 'int'

    def encode(self, value):
        return str(value)


def _token_order(token):
    return (0, int(token), '') if token.isdigit() else (1, 0, token)


class TokenSet(Field):
    """An order-free set of tokens (``content``, ``nodes``, ``privs``, ``groups``).

    Read as a list, a ``,;`` or space separated string, or a map of token to 1;
    compared as a sorted, de-duplicated list; written joined by ``separator`` (a comma, or a space
    where PVE's file keeps the list that way: a bridge's ports, a bond's slaves).
    ``empty_token`` is how the server spells the empty set (storage ``content``: ``none``).
    """

    ansible_type = 'list'
    elements = 'str'
    unset = []

    def __init__(self, wire, empty_token=None, separator=',', **kwargs):
        super(TokenSet, self).__init__(wire, **kwargs)
        self.empty_token = empty_token
        self.separator = separator

    def canonical(self, value):
        if isinstance(value, dict):
            tokens = [key for key, flag in value.items() if flag]
        elif isinstance(value, (list, tuple)):
            tokens = [str(item) for item in value]
        else:
            tokens = LIST_SPLIT.split(str(value))
        tokens = set(token.strip() for token in tokens) - set(['', self.empty_token])
        return sorted(tokens, key=_token_order)

    def declared(self, value):
        tokens = self.canonical(value)
        for token in tokens:
            if self.choices and token not in self.choices:
                self.refuse(token, unknown_choice(token, self.choices))
            self.check_text(token)
        return tokens

    def argument_spec(self):
        # Choices are checked per token in declared(), so that the empty token is allowed too.
        spec = super(TokenSet, self).argument_spec()
        spec.pop('choices', None)
        return spec

    def encode(self, value):
        if not value and self.empty_token:
            return self.empty_token
        return self.separator.join(value)


class ArrayParameter(TokenSet):
    """A PVE array parameter (a notification target's mailto, a matcher's match-field, a webhook's headers, a PBS
    sync job's group-filter).

    Compared as a set of items, each in the canonical form ``each`` gives it (PVE keeps the order
    sent; none of these lists means anything by it); an item is never split at commas; ``valid``
    says why a declared item is refused (or None). Written as a list: one key per item.
    """

    def __init__(self, wire, each=None, valid=None, **kwargs):
        kwargs.setdefault('clear', 'delete')
        super(ArrayParameter, self).__init__(wire, **kwargs)
        self.each = each or (lambda text: text)
        self.valid = valid

    def canonical(self, value):
        values = value if isinstance(value, (list, tuple)) else [value]
        items = set(str(item).strip() for item in values if item is not None) - set([''])
        return sorted(set(self.each(item) for item in items))

    def declared(self, value):
        values = value if isinstance(value, (list, tuple)) else [value]
        for item in values:
            why = self.valid(str(item).strip()) if self.valid else None
            if why:
                self.refuse('<secret>' if self.secret else item, why)
        return self.canonical(value)

    def encode(self, value):
        return Repeated(value)


class WordList(Field):
    """An ordered list of words PVE keeps in one space-separated text (a guest's ``nameserver``, ``searchdomain``).

    Declared as a list, or as the text ``pvesh get`` shows (items split at commas, semicolons and white space);
    compared in order (a resolver asks its name servers in turn); written joined by spaces. ``live_split`` is how
    the reader that uses the live value splits it: qemu-server's cloud-init splits at white space only, so a live
    ``1.1.1.1,8.8.8.8`` is one word there, and drift. Each word is checked against ``format``.
    """

    ansible_type = 'list'
    elements = 'str'
    unset = []

    def __init__(self, wire, live_split=LIST_SPLIT, **kwargs):
        super(WordList, self).__init__(wire, **kwargs)
        self.live_split = live_split

    def canonical(self, value):
        items = value if isinstance(value, (list, tuple)) else [value]
        return [word for item in items if item is not None for word in LIST_SPLIT.split(str(item)) if word]

    def live(self, raw):
        if raw is MISSING or raw is None:
            return self.unset
        return [word for word in self.live_split.split(str(raw)) if word]

    def declared(self, value):
        words = self.canonical(value)
        for word in words:
            self.check_text(word)
        return words

    def encode(self, value):
        return ' '.join(value)


# OpenSSH's public key types (sshkey.c) that PVE 9's ssh-keygen (OpenSSH 10, which dropped DSA) reads, and their
# certificates.
SSH_KEY_TYPES = ('ssh-ed25519', 'ssh-rsa', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521',
                 'sk-ecdsa-sha2-nistp256@openssh.com', 'sk-ssh-ed25519@openssh.com')
SSH_CERT_TYPES = tuple(name.replace('@openssh.com', '') + '-cert-v01@openssh.com' for name in SSH_KEY_TYPES)
SSH_BASE64 = re.compile(r'(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?')
WHITE = re.compile(r'[ \t]+')


def skip_ssh_options(line):
    """What follows the first field of an authorized_keys line (its options, quoted strings kept whole), as
    ssh-keygen's do_fingerprint skips it when the line does not start with a key; None when nothing does."""
    quoted, index = False, 0
    while index < len(line) and (quoted or line[index] not in ' \t'):
        if line[index] == '\\' and line[index + 1:index + 2] == '"':
            index += 1
        elif line[index] == '"':
            quoted = not quoted
        index += 1
    rest = line[index:].lstrip(' \t')
    return rest or None


def ssh_key_blob_type(body):
    """The key type a base64 key body names inside itself (its first SSH string), or None if it holds none."""
    if not body or not SSH_BASE64.fullmatch(body):
        return None
    try:
        blob = binascii.a2b_base64(body)
    except (binascii.Error, ValueError):
        return None
    if len(blob) < 4:
        return None
    length = struct.unpack('>I', blob[:4])[0]
    if len(blob) < 4 + length:
        return None
    try:
        return blob[4:4 + length].decode('ascii')
    except UnicodeDecodeError:
        return None


def ssh_key_problem(line):
    """Why one line is not a public key PVE accepts, or None.

    PVE::Tools::validate_ssh_public_keys runs ``ssh-keygen -l`` on each non-blank line: a key is
    ``<type> <base64 body> [comment]``, perhaps after an authorized_keys options field; the body must decode and
    hold a key of the type it is written with (sshkey_read)."""
    line = line.lstrip(' \t')
    if line.startswith('#'):
        return 'is a comment, not a key'
    for candidate in (line, skip_ssh_options(line)):
        if candidate is None:
            continue
        fields = WHITE.split(candidate, 2)
        if fields[0] == 'ssh-dss':
            return 'is a DSA key (ssh-dss), which the OpenSSH of PVE 9 no longer reads: use an ed25519 or RSA key'
        if fields[0] not in SSH_KEY_TYPES + SSH_CERT_TYPES:
            continue
        if len(fields) < 2:
            return 'has no key body after its type %s' % fields[0]
        held = ssh_key_blob_type(fields[1])
        if held is None:
            return 'has a key body that is not base64 of an SSH key'
        if held != fields[0]:
            return 'is written as %s but its body holds a %s key' % (fields[0], held)
        return None
    return 'is not an OpenSSH public key line (<type> <base64> [comment]); known types: %s' % ', '.join(
        SSH_KEY_TYPES)


def ssh_key_lines(text):
    """The keys of a text: one a line, white space around them trimmed, blank lines dropped."""
    return [line.strip() for line in text.split('\n') if line.strip()]


class SshKeys(Field):
    """Public SSH keys a VM's cloud-init installs (``sshkeys``): compared as a set of key lines (order-free, white
    space around each trimmed, blank lines dropped).

    PVE takes and stores the text URL-encoded (qemu-server's create_vm and update_vm ``uri_unescape`` it only
    to validate it; GET config answers it as stored), so it is sent encoded the way URI::Escape's uri_escape
    does it (every byte outside the unreserved ``A-Za-z0-9-._~``) and decoded when read. A declared item may hold
    several lines (an authorized_keys file), or be the encoded text ``pvesh get`` shows. Each key is checked as
    ``ssh-keygen -l`` would before any request (ssh_key_problem); public keys are no secret.
    """

    ansible_type = 'list'
    elements = 'str'
    unset = []

    def argument_spec(self):
        spec = super(SshKeys, self).argument_spec()
        spec['no_log'] = False
        return spec

    @staticmethod
    def keys_of(item):
        text = '' if item is None else str(item)
        if '%' in text and not re.search(r'\s', text):
            text = unquote(text)  # the encoded form PVE stores: a key line always holds a space, encoded as %20
        return ssh_key_lines(text)

    def canonical(self, value):
        items = value if isinstance(value, (list, tuple)) else [value]
        return sorted(set(key for item in items for key in self.keys_of(item)))

    def live(self, raw):
        if raw is MISSING or raw is None:
            return self.unset
        return sorted(set(ssh_key_lines(unquote(str(raw)))))

    def declared(self, value):
        items = value if isinstance(value, (list, tuple)) else [value]
        for index, item in enumerate(items):
            for key in self.keys_of(item):
                problem = ssh_key_problem(key)
                if problem:
                    shown = key if len(key) <= 40 else key[:37] + '...'
                    raise DeclarationError('option %s[%d]: %r %s' % (self.option, index, shown, problem))
        return self.canonical(value)

    def encode(self, value):
        return quote('\n'.join(value).encode('utf-8'), safe='')


class PropertyString(Field):
    """A PVE property string (``keep-last=3,keep-daily=7``), compared as sorted ``key=value`` pairs.

    The server may answer it as a string or as an object; ``yes/true/on`` read as 1.
    ``keys`` (key: field kind) are the format's keys as the schema gives them: a declared key
    outside them, or a value its kind refuses, stops the task; ``rule`` checks the pairs together.
    """

    unset = ''

    def __init__(self, wire, default_key=None, keys=None, rule=None, **kwargs):
        super(PropertyString, self).__init__(wire, **kwargs)
        self.default_key = default_key
        self.keys = keys
        self.rule = rule

    def pairs(self, value):
        if isinstance(value, dict):
            return list(value.items())
        pairs = []
        for part in str(value or '').split(','):
            part = part.strip()
            if not part:
                continue
            if '=' not in part:
                if not self.default_key:
                    self.refuse(value, "is not a property string of key=value pairs")
                part = '%s=%s' % (self.default_key, part)
            key, item = part.split('=', 1)
            pairs.append((key.strip(), item.strip()))
        return pairs

    def canonical(self, value):
        return ','.join(sorted('%s=%s' % (key, self.normal_item(key, item)) for key, item in self.pairs(value)))

    def normal_item(self, key, item):
        """A boolean key's value as PVE stores it (1/0); any other key's as written (a drive's ``discard=on`` is
        an enum, not a boolean). Without a key table every yes/no word is taken for a boolean."""
        if self.keys is not None and not isinstance(self.keys.get(key), Flag):
            return item
        if item is True or str(item).lower() in ('yes', 'true', 'on'):
            return '1'
        if item is False or str(item).lower() in ('no', 'false', 'off'):
            return '0'
        return item

    def declared(self, value):
        if self.keys is not None:
            pairs = self.pairs(value)
            for key, item in pairs:
                if key not in self.keys:
                    self.refuse(value, 'has the key %r, which %s' % (key, unknown_choice(key, sorted(self.keys))))
                try:
                    self.keys[key].declared(item)
                except DeclarationError as exc:
                    self.refuse(value, 'has %s=%s: %s' % (key, item, str(exc).split(': ', 1)[-1]))
            if len(set(key for key, _item in pairs)) != len(pairs):
                self.refuse(value, 'names a key twice')
            if self.rule:
                why = self.rule(dict(pairs))
                if why:
                    self.refuse(value, why)
        return super(PropertyString, self).declared(value)


def prune_backups_rule(pairs):
    """PVE::JSONSchema validate_prune_backups: keep-all excludes the other keep-* options."""
    if str(pairs.get('keep-all', '0')).lower() in TRUE_WORDS and len(pairs) > 1:
        return 'sets keep-all together with other keep-* options; PVE allows keep-all alone'
    return None


# Up to this many choices a refusal lists them all; past it, the nearest names.
LISTED_CHOICES = 12


def unknown_choice(value, choices):
    """Why ``value`` is refused: the choices, or for a long list the known names nearest to it."""
    if len(choices) <= LISTED_CHOICES:
        return 'is not one of %s' % ', '.join(choices)
    nearest = difflib.get_close_matches(value, choices, n=3, cutoff=0.6)
    return 'is not one of the %d known values%s' % (
        len(choices), '; nearest: %s' % ', '.join(nearest) if nearest else '')


def acl_path(value):
    """PVE's ACL path form: one leading slash, no repeated or trailing slashes."""
    return '/' + '/'.join(part for part in str(value).split('/') if part)


# The prune-backups format (PVE::JSONSchema $prune_backups_format): keep-all or keep-* counts of 1 or more.
PRUNE_BACKUPS = dict([('keep-all', Flag('keep-all'))] + [
    (key, Integer(key, minimum=1)) for key in
    ('keep-last', 'keep-hourly', 'keep-daily', 'keep-weekly', 'keep-monthly', 'keep-yearly')])


class Number(Numeric):
    """A decimal PVE keeps as text (``cpulimit: 1.5``): compared by value, so ``1.50`` equals ``1.5``."""

    ansible_type = 'float'
    parse = float
    not_a = 'is not a number'

    @staticmethod
    def shown(number):
        return ('%f' % number).rstrip('0').rstrip('.')


class BarePropertyString(PropertyString):
    """A property string whose default key is usually given alone (a VM's ``memory: 2048`` is
    ``current=2048``): shown bare when it is the only key, so ``2048`` compares equal to either form."""

    def canonical(self, value):
        canonical = super(BarePropertyString, self).canonical(value)
        prefix = '%s=' % self.default_key
        if canonical.startswith(prefix) and ',' not in canonical:
            return canonical[len(prefix):]
        return canonical


# PVE::JSONSchema parse_size / format_size: a disk size is bytes, or a number with K, M, G or T (powers of 1024).
DISK_SIZE = re.compile(r'(\d+(?:\.\d+)?)([KMGT])?(?:iB)?')
SIZE_UNITS = ('', 'K', 'M', 'G', 'T')
# A new volume in a create or update: <storage>:<size in GiB> (qemu-server / pve-container parse_volume).
ALLOCATION = re.compile(r'([a-z][a-z0-9\-_.]*[a-z0-9]):(\d+(?:\.\d+)?)', re.I)
# What a disk may be imported from (qemu-server $check_storage_access and Drive.pm checked_parse_volname over
# pve-storage Plugin.pm parse_volname): a disk image of content import (qcow2, raw or vmdk, or one disk inside an
# OVA), or a guest's images volume (not its cloud-init drive). An OVA or OVF file itself is an appliance.
_STORAGE_ID = r'[a-zA-Z][a-zA-Z0-9\-_.]*[a-zA-Z0-9]'
_SAFE_NAME = r'[ a-zA-Z0-9\-.+=_]+'
IMPORT_IMAGE = re.compile(r'%s:import/%s(?:\.ova/%s)?\.(?:qcow2|raw|vmdk)' % (_STORAGE_ID, _SAFE_NAME, _SAFE_NAME))
IMPORT_APPLIANCE = re.compile(r'%s:import/%s\.(?:ova|ovf)' % (_STORAGE_ID, _SAFE_NAME))
IMAGES_VOLUME = re.compile(r'%s:(?:\d+/)?(?:base-\d+-[^/\s,]+/)?(?:\d+/)?(?:vm|base)-\d+-(?!cloudinit)[^/\s,]+'
                           % _STORAGE_ID)
# A cloud-init drive as declared (<storage>:cloudinit) and as PVE names the volume it makes (vm-<vmid>-cloudinit).
CLOUDINIT_VOLUME = re.compile(r'(?:\d+/)?vm-\d+-cloudinit(?:\.\w+)?')


def parse_size(text):
    found = DISK_SIZE.fullmatch(str(text))
    if not found:
        return None
    return int(float(found.group(1)) * 1024 ** SIZE_UNITS.index(found.group(2) or ''))


def format_size(size):
    """PVE's format_size: the largest unit that divides the size exactly."""
    unit = 0
    while unit < len(SIZE_UNITS) - 1 and size and size % 1024 == 0:
        size //= 1024
        unit += 1
    return '%d%s' % (size, SIZE_UNITS[unit])


class ByteSize(Field):
    """A size in bytes PVE takes as text with an optional K/M/G/T (``target_size``) and answers in bytes:
    compared by value, so ``100G`` equals ``107374182400``. Zero means "no size" and is sent as ``0``."""

    def canonical(self, value):
        if value is None or str(value).strip() in ('', '0'):
            return self.unset
        size = parse_size(str(value).strip())
        if size is None:
            self.refuse(value, 'is not a size (bytes, or a number with K, M, G or T)')
        return format_size(size) if size else self.unset

    def encode(self, value):
        return value or '0'


class DiskChange:
    """What a declared disk asks of the live one: a refusal (a sentence), a size to grow to, other keys to set."""

    def __init__(self, refusal=None, grow_to=None, options=False):
        self.refusal = refusal
        self.grow_to = grow_to
        self.options = options

    def __bool__(self):
        return bool(self.refusal or self.grow_to or self.options)

    __nonzero__ = __bool__


class Disk(PropertyString):
    """A guest's disk or mount point: ``<volume>[,key=value...]`` with PVE's keys.

    The volume is either a new one, ``<storage>:<GiB>`` (what a create takes), or an existing one
    (``<storage>:<volname>``, what ``pvesh get`` shows; a CD drive's ``none``/``cdrom``/ISO). A live disk
    matches when it sits on the declared storage (the volume's name is PVE's), is as large, and carries
    the same keys. It can only grow (``resize``); another storage, a smaller size or another volume is
    refused, never replaced. ``sized`` is False where PVE sizes the volume itself (EFI vars, TPM state).
    ``mount`` is the key a mount point must carry (a container's ``mp``); a host path there is a bind
    mount, which only root@pam may configure with ``tool`` (``pct``/``qm``) on the node.

    A new disk may be imported (``<storage>:0,import-from=<source>``, qemu-server's syntax): PVE copies the
    image when the disk is created and keeps no trace of the source, so ``import-from`` is never compared and
    ``:0`` asks for no size (the image's own). A declared ``size=`` is what the disk grows to after the import.
    ``import_needs`` are the keys PVE requires beside an import (an EFI disk's type, a TPM's version).
    A cloud-init drive (``<storage>:cloudinit``) matches the ``vm-<vmid>-cloudinit`` CD-ROM PVE makes of it.
    """

    def __init__(self, wire, volume_key, sized=True, mount=None, tool='qm', import_needs=(), **kwargs):
        super(Disk, self).__init__(wire, default_key=volume_key, **kwargs)
        self.sized = sized
        self.mount = mount
        self.tool = tool
        self.import_needs = tuple(import_needs)

    def parse(self, value):
        """(volume, {key: value}) with the aliases of the volume key folded in."""
        volume, options = '', {}
        for key, item in self.pairs(value):
            if key in (self.default_key, 'volume', 'file'):
                volume = item
            else:
                options[key] = item
        return volume, options

    @staticmethod
    def joined(volume, options):
        return ','.join([volume] + ['%s=%s' % pair for pair in sorted(options.items())])

    def canonical(self, value):
        volume, options = self.parse(value)
        if not volume and not options:
            return ''
        pairs = []
        for key, item in sorted(options.items()):
            if key == 'size' and parse_size(item) is not None:
                item = format_size(parse_size(item))
            pairs.append('%s=%s' % (key, self.normal_item(key, item)))
        return ','.join([volume] + pairs)

    def declared(self, value):
        size = dict(self.pairs(value)).get('size')
        if size is not None:
            found = DISK_SIZE.fullmatch(size)
            if not found:
                self.refuse(value, 'has size=%s, which is not a disk size (a number with K, M, G or T)' % size)
            if not found.group(2):
                self.refuse(value, 'has size=%s without a unit (K, M, G or T): PVE would read it as %s bytes'
                            % (size, size))
        canonical = super(Disk, self).declared(value)
        volume, options = self.parse(canonical)
        if not volume:
            self.refuse(value, 'names no volume: declare <storage>:<GiB> for a new one, or the volume it holds')
        if volume.startswith('/'):
            self.refuse(value, 'is a host path (%s), which only root@pam may configure: run `%s set <vmid> -%s %s` '
                               'on the node instead' % ('a bind mount' if self.mount else 'a passed-through device',
                                                        self.tool,
                                                        self.wire, canonical))
        if self.mount and self.mount not in options:
            self.refuse(value, 'needs %s=<path inside the container>' % self.mount)
        if 'import-from' in options:
            self.check_import(value, volume, options)
        return canonical

    def check_import(self, value, volume, options):
        """What qemu-server's $check_drive_param and $check_storage_access refuse of an import, said before any
        request (a host path is root@pam's alone, so it is never the collection's to declare)."""
        source = options['import-from']
        allocation = ALLOCATION.fullmatch(volume)
        if not allocation or float(allocation.group(2)) != 0:
            self.refuse(value, 'has import-from, which PVE takes only on a new volume written <storage>:0 (such as '
                               'local-lvm:0,import-from=%s): the image gives the size, and size= grows the disk '
                               'after the import' % source)
        missing = [key for key in self.import_needs if key not in options]
        if missing:
            self.refuse(value, 'has import-from without %s, which PVE requires with an import here'
                        % ' and '.join(missing))
        if source.startswith('/'):
            self.refuse(value, 'has import-from=%s, a host path, which only root@pam may import from: put the image '
                               'on a storage as content import (storage_content) and declare '
                               'import-from=<storage>:import/<file>' % source)
        if IMPORT_APPLIANCE.fullmatch(source):
            self.refuse(value, 'has import-from=%s, an appliance (OVA/OVF), not a disk image: name one disk inside '
                               'it (<storage>:import/<name>.ova/<disk>.vmdk), or a qcow2, raw or vmdk image'
                        % source)
        if not (IMPORT_IMAGE.fullmatch(source) or IMAGES_VOLUME.fullmatch(source)):
            self.refuse(value, 'has import-from=%s, which is neither an import volume (<storage>:import/<file> '
                               'ending in .qcow2, .raw or .vmdk) nor a guest disk (<storage>:vm-<vmid>-disk-<n>)'
                        % source)

    def import_source(self, value):
        """The source a declared disk is imported from, or None."""
        return self.parse(value)[1].get('import-from') if value and isinstance(value, str) else None

    def import_grows_to(self, value):
        """The size an imported disk is resized to once the import made it (a declared size=), or None."""
        options = self.parse(value)[1] if self.import_source(value) else {}
        return format_size(parse_size(options['size'])) if 'size' in options else None

    @staticmethod
    def storage_of(volume):
        return volume.split(':', 1)[0] if ':' in volume else ''

    @staticmethod
    def is_cloudinit(volume):
        return volume == 'cloudinit' or volume.endswith(':cloudinit')

    def same_cloudinit(self, volume, live_volume):
        """A declared ``[<storage>:]cloudinit`` and the drive PVE made of it (on that storage)."""
        storage = self.storage_of(volume)
        return bool(CLOUDINIT_VOLUME.fullmatch(live_volume.split(':', 1)[-1])) and (
            not storage or storage == self.storage_of(live_volume))

    def wanted_size(self, volume, options):
        """The size a declaration asks for, in bytes (None: not declared)."""
        if 'size' in options:
            return parse_size(options['size'])
        if 'import-from' in options:
            return None  # <storage>:0 takes the image's size
        allocation = ALLOCATION.fullmatch(volume)
        if allocation and self.sized:
            return int(float(allocation.group(2)) * 1024 ** 3)
        return None

    def compare(self, desired, current):
        """A DiskChange: what it takes to bring the live disk (canonical) to the declared one."""
        if desired == current:
            return DiskChange()
        if not current:
            # a new disk: the update allocates (or imports) it, and an import grows to its declared size after
            return DiskChange(options=True, grow_to=self.import_grows_to(desired))
        volume, options = self.parse(desired)
        live_volume, live_options = self.parse(current)
        cloudinit = self.is_cloudinit(volume)
        cdrom = options.get('media') == 'cdrom' or live_options.get('media') == 'cdrom'
        wanted = None if cdrom or cloudinit else self.wanted_size(volume, options)
        options.pop('import-from', None)  # used by a create only: the disk exists
        change = DiskChange()
        if cloudinit:
            options.setdefault('media', 'cdrom')  # PVE makes the drive a CD-ROM
            change.options = not self.same_cloudinit(volume, live_volume)
        elif cdrom:
            change.options = volume != live_volume
        elif ALLOCATION.fullmatch(volume):
            if self.storage_of(volume) != self.storage_of(live_volume):
                return DiskChange(refusal='%s is on storage %s but the task declares %s: a storage move is not an '
                                          'update. Move it (`qm disk move` / `pct move-volume`), then declare where '
                                          'it is' % (self.option, self.storage_of(live_volume),
                                                     self.storage_of(volume)))
        elif volume != live_volume:
            return DiskChange(refusal='%s holds the volume %s but the task declares %s: another volume is not an '
                                      'update' % (self.option, live_volume, volume))
        live_size = parse_size(live_options.get('size', '')) or 0
        if wanted is not None and wanted < live_size:
            return DiskChange(refusal='%s is %s but the task declares %s: disks only grow (PVE cannot shrink one), '
                                      'so declare %s or more' % (self.option, format_size(live_size),
                                                                 format_size(wanted), format_size(live_size)))
        if wanted is not None and wanted > live_size:
            change.grow_to = format_size(wanted)
        keys = set(options) | set(live_options)
        keys.discard('size')
        if any(options.get(key) != live_options.get(key) for key in keys):
            change.options = True
        return change

    def differs(self, desired, current):
        return bool(self.compare(desired, current))

    def encode(self, value):
        """As declared, but an import's size=: PVE sizes an imported disk by its image (and ignores size=), so the
        declared size is reached by a resize once the import is done."""
        volume, options = self.parse(value)
        if 'import-from' not in options or 'size' not in options:
            return value
        options.pop('size')
        return self.joined(volume, options)

    def encode_update(self, value, live):
        """A new disk goes as declared, and so does a CD drive (its medium is what changes); an existing disk keeps
        its live volume and size, with the declared keys (never an import source)."""
        if live is MISSING or not live:
            return self.encode(value)
        volume, options = self.parse(value)
        live_volume, live_options = self.parse(self.canonical(live))
        if self.is_cloudinit(volume) and self.same_cloudinit(volume, live_volume):
            return self.joined(live_volume, dict(options, media='cdrom'))
        if 'cdrom' in (options.get('media'), live_options.get('media')):
            return value
        options.pop('size', None)
        options.pop('import-from', None)
        if 'size' in live_options:
            options['size'] = live_options['size']
        return self.joined(live_volume, options)


class Nic(PropertyString):
    """A guest's network device, compared as pairs. ``mac_key`` (PVE generates it when none is sent) is
    compared only when declared, and an update sends the live one back so the device keeps its address.
    ``models`` are the keys that name a model and carry the MAC (``virtio=BC:24:11:...``); ``implied``
    pairs are PVE's defaults, which it writes out (a container's ``type=veth``)."""

    def __init__(self, wire, mac_key, models=(), implied=None, **kwargs):
        super(Nic, self).__init__(wire, **kwargs)
        self.mac_key = mac_key
        self.models = models
        self.implied = implied or {}

    def canonical(self, value):
        pairs = {}
        for key, item in self.pairs(value):
            if key in self.models:
                pairs['model'] = key
                key = self.mac_key
            item = item.upper() if key == self.mac_key else self.normal_item(key, item)
            if self.implied.get(key) == item:
                continue
            pairs[key] = item
        return ','.join('%s=%s' % pair for pair in sorted(pairs.items()))

    def without_mac(self, canonical):
        return ','.join(pair for pair in canonical.split(',') if pair and not pair.startswith(self.mac_key + '='))

    def differs(self, desired, current):
        if self.mac_key + '=' not in desired:
            current = self.without_mac(current)
        return desired != current

    def encode_update(self, value, live):
        if self.mac_key + '=' in value or live is MISSING or not live:
            return value
        mac = [pair for pair in self.canonical(live).split(',') if pair.startswith(self.mac_key + '=')]
        return ','.join(sorted(value.split(',') + mac)) if mac else value


def clearable(wire, kind=Text, **kwargs):
    """An option compared only when declared, and removed with delete= when declared empty: how PVE's
    SectionConfig and config writers clear a key (storage.cfg, datacenter.cfg, domains.cfg, jobs.cfg, ...)."""
    return kind(wire, clear='delete', **kwargs)
