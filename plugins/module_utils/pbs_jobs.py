# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the Proxmox Backup Server job families (prune, sync, verify) and remotes share: PBS's schema patterns,
the common fields of a job, and the store that confirms a missing section by the list (proxmox-backup
src/api2/config/{prune,sync,verify,remote}.rs, pbs-api-types jobs.rs)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import CalendarEvent, Integer, Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import SAFE_ID, SINGLE_LINE
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, ConfirmedAbsenceStore, Family, Where)

# PBS's schema patterns (proxmox-schema, pbs-api-types), with the POSIX classes spelled out for Python; SAFE_ID and
# SINGLE_LINE are formats.py's.
# A PBS user id (pbs-api-types Userid: name@realm).
USERID = r'^(?:[^\s:/\x00-\x1f\x7f]+)@(?:[A-Za-z0-9_][A-Za-z0-9._\-]*)$'
_SAFE = r'(?:[A-Za-z0-9_][A-Za-z0-9._\-]*)'
_USER = r'(?:[^\s:/\x00-\x1f\x7f]+)@' + _SAFE
AUTH_ID = r'^(?:%s|%s!%s)$' % (_USER, _USER, _SAFE)
NAMESPACE = r'^(?:(?:%s/){0,7}%s)?$' % (_SAFE, _SAFE)
FINGERPRINT = r'^(?:[0-9a-fA-F][0-9a-fA-F])(?::[0-9a-fA-F][0-9a-fA-F]){31}$'

# proxmox-schema's DNS_NAME / IPV4RE / IPV6RE, composed as its macros compose them.
_LABEL = r'(?:[a-zA-Z0-9](?:[a-zA-Z0-9\-]*[a-zA-Z0-9])?)'
_DNS_NAME = r'(?:(?:%s\.)*%s)' % (_LABEL, _LABEL)
_OCTET = r'(?:25[0-5]|(?:2[0-4]|1[0-9]|[1-9])?[0-9])'
_IPV4 = r'(?:(?:%s\.){3}%s)' % (_OCTET, _OCTET)
_H16 = r'(?:[0-9a-fA-F]{1,4})'
_LS32 = r'(?:(?:%s|%s:%s))' % (_IPV4, _H16, _H16)
_IPV6 = r'(?:%s)' % '|'.join([
    r'(?:(?:(?:%s:){6})%s)' % (_H16, _LS32),
    r'(?:(?:::(?:%s:){5})%s)' % (_H16, _LS32),
    r'(?:(?:(?:%s)?::(?:%s:){4})%s)' % (_H16, _H16, _LS32),
    r'(?:(?:(?:(?:%s:){0,1}%s)?::(?:%s:){3})%s)' % (_H16, _H16, _H16, _LS32),
    r'(?:(?:(?:(?:%s:){0,2}%s)?::(?:%s:){2})%s)' % (_H16, _H16, _H16, _LS32),
    r'(?:(?:(?:(?:%s:){0,3}%s)?::(?:%s:){1})%s)' % (_H16, _H16, _H16, _LS32),
    r'(?:(?:(?:(?:%s:){0,4}%s)?::)%s)' % (_H16, _H16, _LS32),
    r'(?:(?:(?:(?:%s:){0,5}%s)?::)%s)' % (_H16, _H16, _H16),
    r'(?:(?:(?:(?:%s:){0,6}%s)?::))' % (_H16, _H16)])
HOST = r'^(?:%s|(?:%s|%s))$' % (_DNS_NAME, _IPV4, _IPV6)

MAX_NAMESPACE_DEPTH = 7


def job_id():
    """A job's id: 3 to 32 characters of PBS's safe id (checked before any request)."""
    return Text('id', required=True, min_length=3, max_length=32, pattern=SAFE_ID)


def comment():
    """At most 128 characters on one line; declared empty it is removed."""
    return Text('comment', clear='delete', max_length=128, pattern=SINGLE_LINE)


def datastore(wire='store', **kwargs):
    return Text(wire, min_length=3, max_length=32, pattern=SAFE_ID, **kwargs)


def namespace(wire='ns'):
    """A namespace path (``a/b``, at most 8 levels); declared empty, the root (removed)."""
    return Text(wire, clear='delete', max_length=256, pattern=NAMESPACE)


def max_depth():
    """Namespace levels below ``ns`` the job recurses into; undeclared is unmanaged, and PBS's unset is full
    recursion."""
    return Integer('max-depth', clear='delete', minimum=0, maximum=7)


def schedule(**kwargs):
    return CalendarEvent('schedule', **kwargs)


def depth_of(ns):
    return len(ns.split('/')) if ns else 0


def check_depth(declared, keys=('ns',)):
    """BackupNamespace::check_max_depth: a namespace's depth plus the recursion depth stay within 7."""
    depth = declared.get('max_depth')
    if depth is None:
        return
    for key in keys:
        if declared.get(key):
            if depth_of(declared[key]) + depth > MAX_NAMESPACE_DEPTH:
                raise DeclarationError('option max_depth: namespace %r is %d levels deep, and %d + %d exceeds '
                                       'PBS\'s limit of %d levels' % (declared[key], depth_of(declared[key]),
                                                                      depth_of(declared[key]), depth,
                                                                      MAX_NAMESPACE_DEPTH))


def require_on_create(declaration, kind, *options):
    """For a family's check_create: the options PBS requires to create the section (a ``kind``)."""
    for option in options:
        if declaration.values.get(option) in (None, ''):
            raise DeclarationError('option %s is required to create a %s' % (option, kind))


class SectionFamily(Family):
    """A remote or a job: a declaration that is present must not empty the options in ``never_empty`` (PBS requires
    them), its create needs ``create_needs`` (a section is created whole), and ``check_present`` adds the family's
    own rules; all before any request. ``noun`` names the section in messages."""

    noun = None
    never_empty = ()
    create_needs = ()

    def check_declaration(self, declaration):
        if declaration.state != 'present':
            return
        for option in self.never_empty:
            if declaration.values.get(option) == '':
                raise DeclarationError('option %s must not be empty' % option)
        self.check_present(declaration.values)

    def check_present(self, declared):
        """The family's own rules for a present declaration (``declared``: its values)."""

    def check_create(self, declaration):
        require_on_create(declaration, self.noun, *self.create_needs)


class SecretText(Text):
    """A write-only text (a remote's password): a refusal names the option and the rule, never the value."""

    def refuse(self, value, why):
        raise DeclarationError('option %s: the value %s' % (self.option, why))


def section(collection, key, noun, list_params=None):
    """Where a PBS section-config object lives (a user, a datastore, a remote, a job): ``collection`` and its item
    ``{key}`` below it. A missing one is PBS's generic lookup error, 400 "no such <noun> '<id>'", which the
    section's list (read with ``list_params``) confirms."""
    return Where(collection=collection, item='%s/{%s}' % (collection, key),
                 absence=Absence((400,), r"no such %s '" % noun),
                 store=ConfirmedAbsenceStore(key, list_params=list_params))


def strip(value):
    """PBS strips a comment it updates (update_user, update_token)."""
    return value.strip()
