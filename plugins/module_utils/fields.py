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

import difflib
import re

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
                 always_send=False):
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
        self.required = required
        self.minimum = minimum
        self.maximum = maximum
        self.normalise = normalise

    @property
    def managed_when_undeclared(self):
        return self.default is not UNMANAGED

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

    def encode(self, value):
        return value


class Text(Field):
    pass


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


class Integer(Field):
    """A whole number; PVE may answer ``8086`` or ``"8086"``; unset is None."""

    ansible_type = 'int'
    unset = None

    def canonical(self, value):
        if value is None or value == '':
            return self.unset
        try:
            number = int(str(value).strip())
        except ValueError:
            self.refuse(value, 'is not a whole number')
        return number

    def declared(self, value):
        number = self.canonical(value)
        if number is not None and self.minimum is not None and number < self.minimum:
            self.refuse(value, 'is below the minimum %s' % self.minimum)
        if number is not None and self.maximum is not None and number > self.maximum:
            self.refuse(value, 'is above the maximum %s' % self.maximum)
        return number

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
        canonical = []
        for key, item in self.pairs(value):
            if item is True or str(item).lower() in ('yes', 'true', 'on'):
                item = '1'
            elif item is False or str(item).lower() in ('no', 'false', 'off'):
                item = '0'
            canonical.append('%s=%s' % (key, item))
        return ','.join(sorted(canonical))

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
