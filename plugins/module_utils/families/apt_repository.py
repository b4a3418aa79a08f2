# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's APT repositories: /nodes/{node}/apt/repositories (pve-manager PVE/API2/APT.pm over proxmox-apt).

Two kinds of object, each a family, picked by the identity a task gives (``ByRepository``):

* a standard repository by ``handle`` (``standard-repos`` of the read): enabled, or not. One not in the files
  is added with ``PUT handle=`` (the only call that adds one); one in the files is switched with ``POST
  path= index= enabled=`` on its stanza, because PVE 9.1's PUT appends a second copy even when the repository
  is there, disabled (proxmox-apt 0.99 probes for product "pbs"; fixed in proxmox-apt 1.0, proxmox-rs 8f199882);
* any stanza of any file by ``path`` and ``index`` (as PVE parses the files): enabled, or not.

Every write carries the digest of the read (all files' digest), so another writer's edit is never overwritten.
PVE re-renders only the file it writes; the other files keep their text. Nothing is ever removed: the API
can only add standard repositories and switch stanzas, so both families always exist (no ``state``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Refused, Unreadable
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Integer, Text, unknown_choice
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family, ItemStore, Lifecycle, Where
from ansible_collections.homeflare.proxmox.plugins.module_utils.scopes import ByScope

REPOSITORIES = '/nodes/{node}/apt/repositories'
# proxmox-apt-api-types APTRepositoryHandle, as PVE 9 lists them (standard.rs)
HANDLES = ['enterprise', 'no-subscription', 'test', 'ceph-squid-enterprise', 'ceph-squid-no-subscription',
           'ceph-squid-test']
# PVE 9 is Debian 13: proxmox-apt counts a stanza for a handle only with the running release's suite
# (release.rs get_current_release_codename, VERSION_CODENAME of /etc/os-release).
SUITE = 'trixie'
ENTERPRISE = 'https://enterprise.proxmox.com/debian'
DOWNLOAD = 'http://download.proxmox.com/debian'
# standard.rs info("pve"): the URIs a stanza may name (the first is what PVE writes) and its component
HANDLE_INFO = {
    'enterprise': ([ENTERPRISE + '/pve', ENTERPRISE], 'pve-enterprise'),
    'no-subscription': ([DOWNLOAD + '/pve', DOWNLOAD], 'pve-no-subscription'),
    'test': ([DOWNLOAD + '/pve', DOWNLOAD], 'pve-test'),
    'ceph-squid-enterprise': ([ENTERPRISE + '/ceph-squid'], 'enterprise'),
    'ceph-squid-no-subscription': ([DOWNLOAD + '/ceph-squid'], 'no-subscription'),
    'ceph-squid-test': ([DOWNLOAD + '/ceph-squid'], 'test'),
}
# perlmod answers a stanza's Enabled as 1/0
ENABLED = Flag('Enabled')
# The files proxmox-apt reads (repositories/mod.rs): sources.list and sources.list.d/*.list|.sources
APT_FILE = re.compile(r'/etc/apt/sources\.list|/etc/apt/sources\.list\.d/[A-Za-z0-9_.-]+\.(list|sources)')


def references(repo, handle, suite=SUITE):
    """repository.rs is_referenced_repository: whether a stanza (as the read shows it) is ``handle``'s."""
    uris, component = HANDLE_INFO[handle]
    return ('deb' in (repo.get('Types') or [])
            and any(uri.rstrip('/') in uris for uri in repo.get('URIs') or [])
            and suite in (repo.get('Suites') or [])
            and component in (repo.get('Components') or []))


def stanzas_of(answer, handle):
    """Every stanza of the read that is ``handle``'s: [{path, index, enabled}], in the files' order."""
    found = []
    for entry in answer.get('files') or []:
        for index, repo in enumerate(entry.get('repositories') or []):
            if references(repo, handle):
                found.append(dict(path=entry['path'], index=index, enabled=ENABLED.canonical(repo.get('Enabled', 1))))
    return found


def read_repositories(client, family, ident):
    """The node's read (one for every repository of it: the item path names the node only)."""
    return client.get(item_path(REPOSITORIES, dict(node=ident['node'])), role=family.read_role) or {}


def every_node(client, family):
    """(node, its repositories' read) for each node of the cluster."""
    return [(row.get('node'), read_repositories(client, family, dict(node=row.get('node'))))
            for row in client.get('/nodes', role=family.read_role) or []]


class Handle(Text):
    """A standard repository's handle: the argument spec offers PVE 9's, the schema names no enum (the list is
    proxmox-apt's, not the API schema's)."""

    def argument_spec(self):
        return dict(super(Handle, self).argument_spec(), choices=list(HANDLES))

    def declared(self, value):
        value = super(Handle, self).declared(value)
        if value not in HANDLES:
            self.refuse(value, unknown_choice(value, HANDLES))
        return value


class StandardStore(ItemStore):
    """A handle's status from ``standard-repos``, and the stanzas of the files that are that handle's."""

    def read(self, client, family, ident):
        return self.of(read_repositories(client, family, ident), ident)

    @staticmethod
    def of(answer, ident):
        rows = dict((row.get('handle'), row) for row in answer.get('standard-repos') or [])
        if ident['handle'] not in rows:
            raise Unreadable("node '%s' does not offer the standard repository %s (it offers %s)"
                             % (ident['node'], ident['handle'], ', '.join(sorted(rows)) or 'none'))
        # No status: the handle is in no file, so it is disabled.
        return dict(enabled=rows[ident['handle']].get('status'), digest=answer.get('digest'),
                    stanzas=stanzas_of(answer, ident['handle']))

    def update(self, client, family, ident, form, live):
        wanted = form['enabled'] == '1'
        targets = [stanza for stanza in live['stanzas'] if stanza['enabled'] != wanted]
        if wanted and not targets:
            return client.put(family.path(ident), dict(handle=ident['handle'], digest=form.get('digest')),
                              role=family.write_role)
        # Enabling switches one stanza on; disabling switches every enabled one off (a copy PVE 9.1's PUT
        # appended counts too), each with the digest of the files as they are then.
        digest = form.get('digest')
        for number, stanza in enumerate(targets[:1] if wanted else targets):
            if number:
                digest = read_repositories(client, family, ident).get('digest')
            client.post(family.path(ident), dict(path=stanza['path'], index=str(stanza['index']),
                                                 enabled=form['enabled'], digest=digest), role=family.write_role)
        return None


class EntryStore(ItemStore):
    """One stanza of one file, by its index as PVE parses the file."""

    def read(self, client, family, ident):
        answer = read_repositories(client, family, ident)
        path, index = ident['path'], ident['index']
        for error in answer.get('errors') or []:
            if error.get('path') == path:
                raise Unreadable('%s: PVE cannot parse %s: %s' % (family.describe(ident), path, error.get('error')))
        entry = [entry for entry in answer.get('files') or [] if entry.get('path') == path]
        if not entry:
            raise Refused("%s: node '%s' has no such APT file (it has %s); the API cannot add one"
                          % (family.describe(ident), ident['node'],
                             ', '.join(entry['path'] for entry in answer.get('files') or []) or 'none'))
        repos = entry[0].get('repositories') or []
        if index >= len(repos):
            raise Refused('%s: %s holds %d repositories (index 0 to %d); the API cannot add one'
                          % (family.describe(ident), path, len(repos), len(repos) - 1))
        return self.of(answer, repos[index])

    @staticmethod
    def of(answer, repo):
        return dict(enabled=repo.get('Enabled'), digest=answer.get('digest'),
                    repository=dict((key.lower(), repo.get(key) or [])
                                    for key in ('Types', 'URIs', 'Suites', 'Components')))

    def update(self, client, family, ident, form, live):
        return client.post(family.path(ident), dict(form, path=ident['path'], index=str(ident['index'])),
                           role=family.write_role)


class StandardFamily(Family):
    def check_found(self, declaration, raw, changed):
        """Disabling needs the stanzas PVE counts for the handle; a status no stanza explains is refused."""
        if changed and not declaration.desired(self.fields[0]) and not any(
                stanza['enabled'] for stanza in raw['stanzas']):
            uris, component = HANDLE_INFO[declaration.ident['handle']]
            raise Refused('%s: PVE reads it as enabled, but no enabled stanza of the files is that repository\'s '
                          '(deb, %s, suite %s, component %s); disable it by path and index instead. Nothing was '
                          'written.' % (self.describe(declaration.ident), ' or '.join(uris), SUITE, component))

    def report(self, raw):
        """Where the repository is: its stanzas as path and index (none until it is added)."""
        return dict(stanzas=raw['stanzas'])

    def find_all(self, client):
        """For an export: each node's standard repositories that are in its files (the others are disabled)."""
        found = []
        for node, answer in every_node(client, self):
            for row in answer.get('standard-repos') or []:
                if row.get('status') is not None and row.get('handle') in HANDLES:
                    ident = dict(node=node, handle=row['handle'])
                    found.append((ident, StandardStore.of(answer, ident)))
        return found


class EntryFamily(Family):
    def check_declaration(self, declaration):
        path, index = declaration.ident['path'], declaration.ident['index']
        if not APT_FILE.fullmatch(path):
            raise DeclarationError('option path: %r is not a file PVE reads repositories from (/etc/apt/sources.list '
                                   'or /etc/apt/sources.list.d/<name>.list or .sources)' % path)
        if index < 0:
            raise DeclarationError('option index: %r is below the minimum 0 (the first stanza of the file)' % index)

    def report(self, raw):
        """What the stanza at that index is (an index moves when stanzas are added before it)."""
        return raw['repository']

    def find_all(self, client):
        """For an export: each node's stanzas that are no standard repository's (those go by handle)."""
        found = []
        for node, answer in every_node(client, self):
            for entry in answer.get('files') or []:
                for index, repo in enumerate(entry.get('repositories') or []):
                    if not any(references(repo, handle) for handle in HANDLES):
                        found.append((dict(node=node, path=entry['path'], index=index), EntryStore.of(answer, repo)))
        return found


NODE = Text('node', required=True, format='pve-node')

STANDARD = StandardFamily(
    'apt_repository', 'standard APT repository',
    identity=[NODE, Handle('handle', required=True)],
    # The POST's ``enabled`` (a boolean: no rules to copy); the PUT adds the repository enabled.
    fields=[Flag('enabled', default=True, schema_key=None)],
    where=Where(item=REPOSITORIES, store=StandardStore(), schema=('PUT', REPOSITORIES)),
    lifecycle=Lifecycle(singleton=True, send_digest=True),
)

ENTRY = EntryFamily(
    'apt_repository', 'APT repository entry',
    identity=[NODE, Text('path', required=True), Integer('index', required=True)],
    fields=[Flag('enabled', default=True)],
    where=Where(item=REPOSITORIES, store=EntryStore(), schema=('POST', REPOSITORIES)),
    lifecycle=Lifecycle(singleton=True, send_digest=True),
)


class ByRepository(ByScope):
    """The module's task: a ``handle`` names a standard repository, ``path`` and ``index`` a stanza; one of the
    two, never both. There is no ``scope`` option: the identity given says which it is."""

    def __init__(self):
        super(ByRepository, self).__init__('apt_repository', 'APT repository', dict(handle=STANDARD, entry=ENTRY),
                                           default='handle')

    def object_spec(self):
        spec = super(ByRepository, self).object_spec()
        del spec['scope']
        spec['node']['required'] = True
        spec['enabled']['default'] = True
        return spec

    def family(self, params):
        by_handle = params.get('handle') is not None
        by_entry = [option for option in ('path', 'index') if params.get(option) is not None]
        if by_handle and by_entry:
            raise DeclarationError('option handle: a task names a standard repository by handle, or a repository '
                                   'entry by path and index, not both (it gives %s)' % ', '.join(['handle'] + by_entry))
        if not by_handle and not by_entry:
            raise DeclarationError('option handle is required (a standard repository: %s), or path and index (a '
                                   'repository entry of a file)' % ', '.join(HANDLES))
        if by_entry and len(by_entry) < 2:
            missing = 'index' if by_entry == ['path'] else 'path'
            raise DeclarationError('option %s is required with %s: a repository entry is named by its file and its '
                                   'index in it' % (missing, by_entry[0]))
        return STANDARD if by_handle else ENTRY


FAMILY = ByRepository()
