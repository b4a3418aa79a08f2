# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A file volume of a storage - an ISO image, a container template or a disk image to import, the volume
``<storage>:<content>/<filename>`` - and the read-only listing of a storage's volumes.

A missing volume is fetched by PVE from its one declared source (pve-storage src/PVE/API2/Storage/Status.pm
``download_url``, ``oci_registry_pull`` and ``upload``; pve-manager PVE/API2/Nodes.pm ``apl_download``), each a
worker task waited for; ``state: absent`` removes it (pve-storage API2/Storage/Content.pm ``delete``, task
``imgdel``). The storage's row of the node's ``GET /nodes/{node}/storage?storage=<id>`` (Status.pm ``index``, for
Datastore.Audit where ``GET /storage/{storage}`` wants Datastore.Allocate) says its type (whether it has a path),
whether it holds the content, is shared, and is enabled on that node; the volume is its row of
``GET /nodes/{node}/storage/{storage}/content?content=<content>`` (Content.pm ``index``): a list that answered
without it is the absence, any failed read fails with PVE's answer.

PVE keeps no checksum of a stored volume and no API reads one, so a present volume is judged by its size against
its source's where that is known without downloading (a ``src`` file's own size; a ``url``'s Content-Length from
PVE's ``GET /nodes/{node}/query-url-metadata``, a HEAD request made by the node), else by its existence (a
template's or an OCI image's name carries its version). A differing size is refused unless ``replace``: then the
volume is deleted and fetched again in the same run, planned as an ``update`` of ``size`` in two ``steps``.

On a storage that is not shared every node holds its own volume, so ``node`` is required; a shared storage's volume
is one object, read and fetched through the declared node or an online node the storage is enabled on.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import difflib
import hashlib
import os
import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    ApiError, DeclarationError, NotConverged, Refused, TaskError, TaskFailed, TaskUnknown, Unreadable)
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Flag, Text, TokenSet
from ansible_collections.homeflare.proxmox.plugins.module_utils.guest import cluster_guests
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absent, Declaration, Family, Lifecycle, Plan, Where, absent)
from ansible_collections.homeflare.proxmox.plugins.module_utils.tasks import wait_if_task

CONTENTS = ('iso', 'vztmpl', 'import')
# Every content type a storage lists (pve-storage Storage.pm volume_list's order), for storage_content_info.
ALL_CONTENTS = ('rootdir', 'images', 'vztmpl', 'iso', 'backup', 'snippets', 'import')
SOURCES = ('url', 'template', 'oci', 'src')
# What each source's fetch is called in a plan's steps, and the call it makes.
FETCH_CALLS = {'url': 'download-url', 'template': 'aplinfo', 'oci': 'oci-registry-pull', 'src': 'upload'}
DOWNLOAD = '/nodes/{node}/storage/{storage}/download-url'
OCI_PULL = '/nodes/{node}/storage/{storage}/oci-registry-pull'
UPLOAD = '/nodes/{node}/storage/{storage}/upload'
APLINFO = '/nodes/{node}/aplinfo'
CONTENT = '/nodes/{node}/storage/{storage}/content'
VOLUME = '/nodes/{node}/storage/{storage}/content/{volume}'
URL_METADATA = '/nodes/{node}/query-url-metadata'
NODE_STORAGE = '/nodes/{node}/storage'

# The names PVE's upload and download_url keep for each content (Storage.pm ISO_EXT_RE_0, VZTMPL_EXT_RE_1,
# SAFE_CHAR_CLASS_RE + UPLOAD_IMPORT_EXT_RE_1), matched whole; and the same rule in words.
NAME_RULES = {
    'iso': re.compile(r'[^/]+\.(?:iso|img)', re.I),
    'vztmpl': re.compile(r'[^/]+\.(?:tar|tar\.(?:gz|xz|zst|bz2))', re.I),
    'import': re.compile(r'[a-zA-Z0-9\-.+=_]+\.(?:ova|qcow2|raw|vmdk)'),
}
NAME_RULE_TEXT = {
    'iso': 'an ISO image must end in .iso or .img',
    'vztmpl': 'a container template must end in .tar, .tar.gz, .tar.xz, .tar.zst or .tar.bz2',
    'import': 'an import file must end in .ova, .qcow2, .raw or .vmdk (lower case)',
}
# PVE's checksum algorithms and the hex digits each one's checksum has: no two share a length, so a checksum's
# length names its algorithm.
CHECKSUM_LENGTHS = {'md5': 32, 'sha1': 40, 'sha224': 56, 'sha256': 64, 'sha384': 96, 'sha512': 128}
ALGORITHMS = dict((length, name) for name, length in CHECKSUM_LENGTHS.items())
HEX = re.compile(r'[0-9a-fA-F]+')
# pve-storage Plugin.pm KNOWN_COMPRESSION_FORMATS (the official schema dump lost this enum: it reads null).
COMPRESSIONS = ['gz', 'lzo', 'zst', 'bz2']
# Status.pm oci_registry_pull's reference pattern, with its separator ``[-]*`` written ``-+``: an empty separator
# only joins two runs of [a-z\d]+ into one, and the ambiguity makes a backtracking matcher exponential.
OCI_REFERENCE = re.compile(
    r'(?:(?:[a-zA-Z\d]|[a-zA-Z\d][a-zA-Z\d-]*[a-zA-Z\d])(?:\.(?:[a-zA-Z\d]|[a-zA-Z\d][a-zA-Z\d-]*[a-zA-Z\d]))*'
    r'(?::\d+)?/)?[a-z\d]+(?:(?:[._]|__|-+)[a-z\d]+)*(?:/[a-z\d]+(?:(?:[._]|__|-+)[a-z\d]+)*)*:\w[\w.-]{0,127}')
# The types PVE marks shared whatever their config says (pve-storage Plugin.pm @SHARED_STORAGE; glusterfs until
# PVE 9 dropped it).
# The types whose storages have a path, so files (pve-storage: the plugins that set a path; esxi is read-only).
FILE_TYPES = ('dir', 'nfs', 'cifs', 'glusterfs', 'btrfs', 'cephfs')
SHARED_TYPES = ('iscsi', 'nfs', 'cifs', 'rbd', 'cephfs', 'iscsidirect', 'zfs', 'drbd', 'pbs', 'glusterfs')
# Guest config keys that name no volume.
NOT_VOLUMES = ('digest', 'description')
HASH_CHUNK = 1024 * 1024
# Local checksums already computed: (path, size, mtime, algorithm) -> hex digest (declare validates, then runs).
_DIGESTS = {}
CONTENT_LIST = TokenSet('content', empty_token='none')


def normalize_content_filename(name):
    """pve-storage Storage.pm normalize_content_filename: chomp, the part after the last '/' or '\\', and every
    character but [a-zA-Z0-9_.-] replaced by '_'."""
    if name.endswith('\n'):
        name = name[:-1]
    name = re.sub(r'^.*[/\\]', '', name, flags=re.S)
    return re.sub(r'[^a-zA-Z0-9_.-]', '_', name)


def file_digest(path, algorithm):
    """The hex checksum of a local file, read in chunks (an ISO is never read whole)."""
    stat = os.stat(path)
    key = (path, stat.st_size, stat.st_mtime, algorithm)
    if key not in _DIGESTS:
        digest = hashlib.new(algorithm)
        with open(path, 'rb') as handle:
            for chunk in iter(lambda: handle.read(HASH_CHUNK), b''):
                digest.update(chunk)
        _DIGESTS[key] = digest.hexdigest()
    return _DIGESTS[key]


class ContentType(Text):
    """The content a volume is (``iso``, ``vztmpl``, ``import``): any other storage content is refused with a
    sentence saying whose objects those are, before Ansible's choices would refuse it without one."""

    def argument_spec(self):
        spec = super(ContentType, self).argument_spec()
        spec.pop('choices', None)
        return spec

    def declared(self, value):
        text = self.canonical(value)
        if text not in CONTENTS:
            raise DeclarationError(
                'option %s: %r is not a content this module fetches (it fetches iso, vztmpl and import files): '
                "guests' disks and root file systems are created by homeflare.proxmox.vm and lxc, backups by "
                'backup_job' % (self.option, text))
        return super(ContentType, self).declared(text)


class LocalPath(Text):
    """A path on the machine running the task (Ansible expands ``~`` and variables in it)."""

    ansible_type = 'path'


# -- where a volume lives -----------------------------------------------------------------------------------------

class Place:
    """A storage's row of the node's ``GET /nodes/{node}/storage`` (its type, content types, shared flag and whether
    it is enabled and active there), whether it is shared, and the node its volume is read and written on."""

    def __init__(self, row, node, shared):
        self.row = row
        self.node = node
        self.shared = shared

    @property
    def storage(self):
        return self.row['storage']

    @property
    def file_based(self):
        return self.row.get('type') in FILE_TYPES

    def holds(self, content):
        return content in CONTENT_LIST.canonical(self.row.get('content') or '')

    def path(self, template, **values):
        return item_path(template, dict(values, node=self.node, storage=self.storage))


def node_storages(client, node, role, storage=None):
    """The node's storages as ``GET /nodes/{node}/storage`` lists them (pve-storage Status.pm ``index``: every
    storage the credential holds Datastore.Audit or Datastore.AllocateSpace on, with its state on that node)."""
    params = dict(storage=storage) if storage else None
    return client.get(item_path(NODE_STORAGE, dict(node=node)), params=params, role=role) or []


def storage_row(client, storage, node, role):
    """The storage's row on ``node``, or a sentence saying why it is not there."""
    try:
        rows = node_storages(client, node, role, storage)
    except ApiError as exc:
        if exc.status != 400 or 'No such storage' not in '%s %s' % (exc, exc.errors):
            raise
        rows = []
    for row in rows:
        if row.get('storage') == storage:
            return row
    raise Refused("storage '%s' is not in node %s's storage list as this credential reads it: it does not exist "
                  "(declare it first, homeflare.proxmox.storage), or the read credential lacks Datastore.Audit on "
                  "/storage/%s" % (storage, node, storage))


def is_shared(row):
    return bool(int(row.get('shared') or 0)) or row.get('type') in SHARED_TYPES


def online_nodes(client, role):
    """The cluster's nodes, online ones first, each as (node, online)."""
    nodes = [(str(entry.get('node')), entry.get('status') == 'online')
             for entry in client.get('/nodes', role=role) or []]
    return sorted(nodes, key=lambda pair: (not pair[1], pair[0]))


def locate(client, storage, node, role, what):
    """The Place of ``what`` (a volume, a listing) on ``storage``: the declared node, or for a shared storage an
    online node it is enabled on; a storage that is not shared needs the node declared."""
    if node:
        row = storage_row(client, storage, node, role)
        return Place(row, node, is_shared(row))
    for candidate, online in online_nodes(client, role):
        if not online:
            continue
        row = storage_row(client, storage, candidate, role)
        if not is_shared(row):
            raise DeclarationError("option node is required: storage '%s' (%s) is not shared, so each node holds "
                                   "its own %s; declare the node" % (storage, row.get('type'), what))
        if int(row.get('enabled') or 0):
            return Place(row, candidate, True)
    raise Refused("storage '%s' is enabled on no online node of the cluster, so %s cannot be read" % (storage, what))


def list_volumes(client, place, role, content=None):
    """The storage's volumes on the place's node (of one content type, or all). A failed read fails with PVE's
    answer (a storage not enabled or not active on the node is a 500), as every family's read does: never empty."""
    return client.get(place.path(CONTENT), params=dict(content=content) if content else None, role=role) or []


# -- which guests use a volume --------------------------------------------------------------------------------------

def referenced(value):
    """The volume ids a config value may name: each comma-separated part, and what follows its first '='
    (``local:iso/x.iso,media=cdrom``, ``file=...``, ``import-from=local:import/disk.qcow2``)."""
    names = set()
    for part in str(value).split(','):
        names.add(part.strip())
        if '=' in part:
            names.add(part.split('=', 1)[1].strip())
    return names


def volume_users(client, role, place, volids):
    """{volid: [{vmid, type, node, key}]} of the guests whose config names one of ``volids`` in any value: every
    guest ``GET /cluster/resources?type=vm`` shows the credential (VM.Audit), on the place's node only when the
    storage is not shared (another node's guests use their own node's volumes), one config read each."""
    wanted = set(volids)
    users = {}
    if not wanted:
        return users
    for row in sorted(cluster_guests(client, role), key=lambda guest: int(guest.get('vmid') or 0)):
        if not place.shared and row.get('node') != place.node:
            continue
        path = item_path('/nodes/{node}/%s/{vmid}/config' % row['type'], dict(node=row['node'], vmid=row['vmid']))
        try:
            config = client.get(path, role=role) or {}
        except ApiError as exc:
            raise Unreadable('the config of guest %s on %s could not be read to see which volumes it uses (%s)'
                             % (row['vmid'], row['node'], exc))
        for key in sorted(config):
            if key in NOT_VOLUMES:
                continue
            for volid in sorted(referenced(config[key]) & wanted):
                users.setdefault(volid, []).append(dict(vmid=int(row['vmid']), type=row['type'], node=row['node'],
                                                        key=key))
    return users


def describe_users(users):
    return ', '.join('%s %s on %s (%s)' % ('VM' if user['type'] == 'qemu' else 'CT', user['vmid'], user['node'],
                                           user['key']) for user in users)


# -- what a read finds ----------------------------------------------------------------------------------------------

class Volume(dict):
    """A found volume: its content list row, where it was read, and its source's size when known (``source_size``;
    ``source_note`` says why it is not)."""

    def __init__(self, row, place, source_size=None, source_note=None, template=None):
        super(Volume, self).__init__(row)
        self.place = place
        self.source_size = source_size
        self.source_note = source_note
        # the export's: the appliance catalogue's name for this template, when it has this exact one
        self.template = template


class NoVolume(Absent):
    """The content list answered without the volume; keeps where it was read."""

    def __init__(self, place):
        self.place = place


class VolumePlan(Plan):
    """A plan plus the ``node`` it reads and writes through, the ``source`` fetched from, what the judgement of a
    present volume rests on (``judged``: ``size`` or ``existence``) and the ``steps`` a write takes, each a call
    (``delete``, ``download-url``, ``aplinfo``, ``oci-registry-pull``, ``upload``) on a node for a volid."""

    def __init__(self, read, action, changed, node=None, source=None, judged=None, steps=()):
        super(VolumePlan, self).__init__(read, action, changed)
        self.node = node
        self.source = source
        self.judged = judged
        self.steps = list(steps)

    def as_dict(self):
        result = super(VolumePlan, self).as_dict()
        result.update(node=self.node, source=self.source, judged=self.judged, steps=[dict(step) for step in self.steps])
        return result


def volid_of(ident):
    return '%s:%s/%s' % (ident['storage'], ident['content'], ident['filename'])


def filename_of(volid, content):
    """The part of a volid after ``<content>/``, or its volume name (an image's)."""
    volname = volid.split(':', 1)[-1]
    prefix = '%s/' % content
    return volname[len(prefix):] if volname.startswith(prefix) else volname


class StorageContentFamily(Family):
    # -- the declaration --------------------------------------------------------------------------------------
    def declaration(self, params):
        """The identity (the file name derived from the source when not declared) and the one source, every rule
        PVE's fetch calls apply to them checked before any request."""
        state = params.get('state') or 'present'
        fields = dict((field.option, field) for field in self.identity + self.fields)
        ident = dict(storage=self.option(fields, params, 'storage'), content=self.option(fields, params, 'content'))
        if ident['storage'] in ('', None) or ident['content'] in ('', None):
            raise DeclarationError('option %s must not be empty' % ('storage' if not ident['storage'] else 'content'))
        values = dict((name, self.option(fields, params, name)) for name in
                      ('url', 'checksum', 'checksum_algorithm', 'compression', 'template', 'oci', 'src'))
        values = dict((name, value) for name, value in values.items() if value not in (None, ''))
        values['verify_certificates'] = params.get('verify_certificates') is not False
        sources = [name for name in SOURCES if name in values]
        if len(sources) > 1:
            raise DeclarationError('options %s are mutually exclusive: a volume is fetched from one source'
                                   % ', '.join(sources))
        source = sources[0] if sources else None
        self.check_source(ident['content'], source, values, state)
        declared_name = self.option(fields, params, 'filename') or None
        ident['filename'] = self.check_filename(ident['content'], source, values, declared_name)
        ident['node'] = self.option(fields, params, 'node') or None
        self.check_removal_confirmed(ident, state, params)
        declaration = Declaration(ident, values, state, params.get('task_timeout') or self.task_timeout,
                                  controls=dict(replace=bool(params.get('replace'))))
        declaration.source = source
        declaration.filename_declared = declared_name is not None
        return declaration

    @staticmethod
    def option(fields, params, name):
        value = params.get(name)
        return None if value is None else fields[name].declared(value)

    @staticmethod
    def check_source(content, source, values, state):
        if source in ('template', 'oci') and content != 'vztmpl':
            raise DeclarationError('option %s makes a container template: declare content: vztmpl (not %s)'
                                   % (source, content))
        if 'checksum_algorithm' in values and 'checksum' not in values:
            raise DeclarationError('option checksum_algorithm names the algorithm of a checksum: declare checksum too')
        if 'checksum' in values:
            if source not in ('url', 'src'):
                raise DeclarationError('option checksum is checked by a url download or a src upload; %s' % (
                    'an appliance template is checked against its catalogue by PVE' if source == 'template' else
                    'an OCI image has none' if source == 'oci' else
                    'PVE keeps no checksum of a stored volume, so without a source there is nothing to check'))
            values['checksum'] = checksum = values['checksum'].lower()
            if not HEX.fullmatch(checksum):
                raise DeclarationError('option checksum: %r is not hexadecimal' % checksum)
            algorithm = values.get('checksum_algorithm') or ALGORITHMS.get(len(checksum))
            if algorithm is None:
                lengths = ', '.join('%s %d' % (name, CHECKSUM_LENGTHS[name])
                                    for name in sorted(CHECKSUM_LENGTHS, key=CHECKSUM_LENGTHS.get))
                raise DeclarationError('option checksum: %d hex digits is no checksum PVE takes (%s)'
                                       % (len(checksum), lengths))
            if len(checksum) != CHECKSUM_LENGTHS[algorithm]:
                raise DeclarationError('option checksum: a %s checksum is %d hex digits, this one has %d'
                                       % (algorithm, CHECKSUM_LENGTHS[algorithm], len(checksum)))
            values['checksum_algorithm'] = algorithm
        if 'compression' in values:
            if source != 'url':
                raise DeclarationError('option compression decompresses a url download; it takes no %s'
                                       % (source or 'volume without a source'))
            if content != 'iso':
                # Status.pm download_url's worker: PVE decompresses ISO images only
                raise DeclarationError('option compression: decompression not supported for %s' % content)
        if source == 'oci' and not OCI_REFERENCE.fullmatch(values['oci']):
            raise DeclarationError(
                'option oci: %r is not an OCI image reference PVE pulls: [registry[:port]/]name[/name...]:tag, the '
                'name in lower case (such as docker.io/library/alpine:3.22)' % values['oci'])
        if source == 'src' and state == 'present':
            path = values['src']
            if not os.path.isfile(path) or not os.access(path, os.R_OK):
                raise DeclarationError('option src: %s is not a readable file on the machine running the task' % path)
            if 'checksum' in values:
                local = file_digest(path, values['checksum_algorithm'])
                if local != values['checksum']:
                    raise DeclarationError('option checksum: %s has the %s %s, not the declared %s; nothing was '
                                           'uploaded' % (path, values['checksum_algorithm'], local, values['checksum']))

    @staticmethod
    def check_filename(content, source, values, declared):
        """The volume's file name: declared, else what the source names (PVE's own name for a template or an OCI
        image, a src file's base name); it must be a name PVE keeps as it is, or the volume would never be found
        under it."""
        derived = None
        if source == 'template':
            derived = values['template']
        elif source == 'oci':
            derived = normalize_content_filename(values['oci']) + '.tar'
        elif source == 'src':
            derived = os.path.basename(values['src'])
        name = declared or derived
        if not name:
            raise DeclarationError('option filename is required%s' % (
                ' with url (PVE takes the name from the task, not the URL)' if source == 'url' else ''))
        where = '' if declared else ' (from option %s)' % source
        if '/' in name or '\\' in name:
            raise DeclarationError('option filename: %r%s is a path; give the name of the file alone' % (name, where))
        kept = normalize_content_filename(name)
        if kept != name:
            raise DeclarationError("option filename: PVE would store %r%s as %r (it keeps letters, digits, '_', '.' "
                                   "and '-'); declare filename: %s" % (name, where, kept, kept))
        if not NAME_RULES[content].fullmatch(name):
            raise DeclarationError('option filename: %r%s is no %s name: %s'
                                   % (name, where, content, NAME_RULE_TEXT[content]))
        if source == 'template' and declared and declared != derived:
            raise DeclarationError('option filename: PVE stores an appliance template under its own name, %r, not %r'
                                   % (derived, declared))
        if source == 'oci' and not name.endswith('.tar'):
            raise DeclarationError("option filename: PVE stores a pulled OCI image as <name>.tar, so %r cannot be its "
                                   "name" % name)
        return name

    def describe(self, ident):
        return "volume '%s'%s" % (volid_of(ident), " on node '%s'" % ident['node'] if ident.get('node') else '')

    # -- reading --------------------------------------------------------------------------------------------
    def read(self, client, declaration):
        ident = declaration.ident
        place = locate(client, ident['storage'], ident['node'], self.read_role, 'file volumes')
        if declaration.state == 'present' and not place.file_based:
            raise Refused("%s: can't upload to storage type '%s', not a file based storage!"
                          % (self.describe(ident), place.row.get('type')))
        raw = self.read_volume(client, place, ident)
        if not absent(raw) and declaration.state == 'present':
            raw.source_size, raw.source_note = self.source_size(client, declaration, place)
        return raw

    def read_volume(self, client, place, ident):
        volid = volid_of(ident)
        for row in list_volumes(client, place, self.read_role, ident['content']):
            if row.get('volid') == volid:
                return Volume(row, place)
        return NoVolume(place)

    def source_size(self, client, declaration, place):
        """(the size the source has, or None; why it is unknown, or None) - never by downloading it."""
        values = declaration.values
        if declaration.source == 'src':
            return os.path.getsize(values['src']), None
        if declaration.source != 'url' or values.get('compression'):
            return None, None  # a name (template, OCI) or a decompressed download: judged by existence
        params = dict(url=values['url'])
        if not values['verify_certificates']:
            params['verify-certificates'] = 0
        what = '%s: the size of %s' % (self.describe(declaration.ident), values['url'])
        try:
            # PVE answers it only to a credential that may download (Sys.AccessNetwork on the node, or Sys.Audit
            # and Sys.Modify on /): the write credential, as for the download itself
            metadata = client.get(place.path(URL_METADATA), params=params, role=self.write_role) or {}
        except ApiError as exc:
            return None, ('%s could not be read through node %s (%s), so only its existence was judged'
                          % (what, place.node, exc))
        if metadata.get('size') in (None, ''):
            return None, '%s is not known (its server sends no Content-Length), so only its existence was judged' % what
        return int(metadata['size']), None

    # -- judging --------------------------------------------------------------------------------------------
    def plan(self, declaration, raw, batch=()):
        place = raw.place
        volid = volid_of(declaration.ident)
        source = declaration.source
        read = 'absent' if absent(raw) else 'found'
        delete = dict(call='delete', node=place.node, volid=volid)
        fetch = dict(call=FETCH_CALLS.get(source), node=place.node, volid=volid)
        if declaration.state == 'absent':
            if absent(raw):
                return VolumePlan(read, 'none', [], node=place.node)
            return VolumePlan(read, 'delete', [], node=place.node, steps=[delete])
        if absent(raw):
            if source is None:
                raise Refused('%s does not exist, and fetching it needs a source: declare url, template, oci or src '
                              '(without one the module only adopts a volume that is there)'
                              % self.describe(declaration.ident))
            return VolumePlan(read, 'create', [source], node=place.node, source=source, steps=[fetch])
        live = int(raw.get('size') or 0)
        if raw.source_size is None or raw.source_size == live:
            return VolumePlan(read, 'none', [], node=place.node, source=source,
                              judged='existence' if raw.source_size is None else 'size')
        if not declaration.controls.get('replace'):
            raise Refused('%s holds %d bytes but its %s has %d: its content differs from its source. PVE keeps no '
                          'checksum to tell more; set replace: true to delete it and fetch it again. Nothing was '
                          'written.' % (volid, live, source, raw.source_size))
        # PVE's upload overwrites a file; a download or a pull refuses to, so the volume goes first
        return VolumePlan(read, 'update', ['size'], node=place.node, source=source, judged='size',
                          steps=[fetch] if source == 'src' else [delete, fetch])

    def shown_ident(self, declaration, raw):
        """The identity as the diff shows it: the node only where each node holds its own volume."""
        ident = dict(declaration.ident)
        if raw.place.shared or not ident.get('node'):
            ident.pop('node')
        return ident

    def diff(self, declaration, raw, the_plan):
        ident = self.shown_ident(declaration, raw)
        if absent(raw):
            before = {}
        else:
            before = dict(ident, size=int(raw.get('size') or 0))
        if the_plan.action == 'delete':
            return dict(before=before, after={})
        if the_plan.action == 'create':
            source = declaration.source
            return dict(before=before, after=dict(ident, **{source: declaration.values[source]}))
        if the_plan.action == 'update':
            return dict(before=before, after=dict(ident, size=raw.source_size))
        return dict(before=before, after=dict(before))

    def object_view(self, declaration, raw):
        if absent(raw):
            return {}
        view = dict(self.shown_ident(declaration, raw), volid=raw.get('volid'))
        view.update((key, raw.get(key)) for key in ('size', 'format', 'ctime') if raw.get(key) is not None)
        return view

    def advise(self, declaration, raw):
        return [raw.source_note] if raw.source_note else []

    def preflight(self, client, declaration, raw, the_plan, result, check_mode):
        """A fetch onto a storage not configured for the content is refused before any write; in check mode it is
        a warning, since an earlier task of the same run (homeflare.proxmox.storage) may add the content."""
        super(StorageContentFamily, self).preflight(client, declaration, raw, the_plan, result, check_mode)
        content = declaration.ident['content']
        if not any(step['call'] != 'delete' for step in the_plan.steps) or raw.place.holds(content):
            return
        problem = "storage '%s' is not configured for content-type '%s'" % (raw.place.storage, content)
        if not check_mode:
            raise Refused('%s: %s (its content: %s). Nothing was written.'
                          % (self.describe(declaration.ident), problem, raw.place.row.get('content')))
        result['warnings'].append('%s: %s yet; the %s will be refused unless an earlier task adds %s to its content'
                                  % (self.describe(declaration.ident), problem, FETCH_CALLS[declaration.source],
                                     content))

    def check_plan(self, client, declaration, raw, the_plan):
        """Refused in check mode too: removing a volume a guest names; an appliance the node's catalogue lacks."""
        if the_plan.action == 'delete':
            volid = volid_of(declaration.ident)
            users = volume_users(client, self.read_role, raw.place, [volid]).get(volid)
            if users:
                raise Refused('%s is used by %s: remove it from their configs first. Nothing was deleted.'
                              % (self.describe(declaration.ident), describe_users(users)))
        if declaration.source == 'template' and any(step['call'] == 'aplinfo' for step in the_plan.steps):
            template = declaration.values['template']
            names = catalogue(client, raw.place.node, self.read_role)
            if template not in names:
                close = difflib.get_close_matches(template, sorted(names), n=3, cutoff=0.5)
                raise Refused("option template: %r is not in node %s's appliance catalogue (GET /nodes/%s/aplinfo)%s"
                              % (template, raw.place.node, raw.place.node,
                                 '; close names: %s' % ', '.join(close) if close else ''))

    # -- writing --------------------------------------------------------------------------------------------
    def act(self, client, declaration, raw, the_plan, result):
        """Each step of the plan (a delete, a fetch), its task waited for; then the volume read back."""
        place = raw.place
        for step in the_plan.steps:
            if step['call'] == 'delete':
                answer = client.delete(place.path(VOLUME, volume=step['volid']), role=self.write_role)
            else:
                answer = self.fetch(client, declaration, place)
            self.wait(client, declaration, answer, step, result['warnings'])
        after = self.read_volume(client, place, declaration.ident)
        what = self.describe(declaration.ident)
        if the_plan.action == 'delete':
            if not absent(after):
                raise NotConverged('the delete of %s ended without error but it is still listed' % what)
            return after, the_plan
        if absent(after):
            raise NotConverged('the %s of %s ended without error but the storage does not list it'
                               % (FETCH_CALLS[declaration.source], what))
        after.source_size = raw.source_size if not absent(raw) else self.source_size_after(declaration)
        if after.source_size is not None and int(after.get('size') or 0) != after.source_size:
            raise NotConverged('%s was fetched but holds %s bytes where its %s has %d'
                               % (what, after.get('size'), declaration.source, after.source_size))
        return after, the_plan

    @staticmethod
    def source_size_after(declaration):
        return os.path.getsize(declaration.values['src']) if declaration.source == 'src' else None

    def fetch(self, client, declaration, place):
        """The one call that makes PVE fetch the volume; answers its task."""
        ident, values = declaration.ident, declaration.values
        source = declaration.source
        if source == 'url':
            form = dict(url=values['url'], content=ident['content'], filename=ident['filename'])
            for name in ('checksum', 'checksum_algorithm', 'compression'):
                if values.get(name):
                    form[name.replace('_', '-')] = values[name]
            if not values['verify_certificates']:
                form['verify-certificates'] = '0'
            return client.post(place.path(DOWNLOAD), form, role=self.write_role)
        if source == 'template':
            return client.post(place.path(APLINFO), dict(storage=place.storage, template=values['template']),
                               role=self.write_role)
        if source == 'oci':
            form = dict(reference=values['oci'])
            if declaration.filename_declared:
                form['filename'] = ident['filename'][:-len('.tar')]  # PVE appends .tar
            return client.post(place.path(OCI_PULL), form, role=self.write_role)
        fields = dict(content=ident['content'])
        if values.get('checksum'):
            fields.update({'checksum-algorithm': values['checksum_algorithm'], 'checksum': values['checksum']})
        return client.upload(place.path(UPLOAD), fields, values['src'], ident['filename'], role=self.write_role,
                             member=place.node)

    def wait(self, client, declaration, answer, step, warnings):
        """The step's task, failing with the volume named (a checksum mismatch leaves no volume: PVE removes it)."""
        try:
            wait_if_task(client, answer, self.write_role, declaration.task_timeout or self.task_timeout, warnings)
        except TaskError as exc:
            kind = TaskFailed if isinstance(exc, TaskFailed) else TaskUnknown
            raise kind(exc.upid, '%s of %s: %s' % (step['call'], self.describe(declaration.ident), exc))

    # -- the export ---------------------------------------------------------------------------------------------
    def find_all(self, client):
        """Every iso, vztmpl and import volume of every file storage holding them: a shared storage's once, through
        the first online node it is enabled on; a local storage's on each online node it is enabled on (an offline
        node cannot be read). Each node's storages come from its ``GET /nodes/{node}/storage``."""
        found = []
        seen_shared = set()
        for node, online in online_nodes(client, self.read_role):
            if not online:
                continue
            catalogue_names = None
            for row in sorted(node_storages(client, node, self.read_role), key=lambda item: item.get('storage')):
                contents = [content for content in CONTENTS
                            if content in CONTENT_LIST.canonical(row.get('content') or '')]
                shared = is_shared(row)
                if (row.get('type') not in FILE_TYPES or not contents or not int(row.get('enabled') or 0)
                        or (shared and row['storage'] in seen_shared)):
                    continue
                if shared:
                    seen_shared.add(row['storage'])
                place = Place(row, node, shared)
                for volume in list_volumes(client, place, self.read_role):
                    content = volume.get('content')
                    if content not in contents:
                        continue
                    ident = dict(storage=row['storage'], content=content,
                                 filename=filename_of(str(volume.get('volid')), content),
                                 node=None if shared else node)
                    template = None
                    if content == 'vztmpl':
                        if catalogue_names is None:
                            catalogue_names = catalogue(client, node, self.read_role)
                        template = ident['filename'] if ident['filename'] in catalogue_names else None
                    found.append((ident, Volume(volume, place, template=template)))
        return found

    def export_options(self, ident, raw):
        options = dict((key, value) for key, value in ident.items() if value is not None)
        if raw.template:
            options['template'] = raw.template
        return options

    def export_notes(self, ident, raw):
        if raw.template:
            return []
        return ['PVE keeps no source for %s%s: it is exported to be adopted as it is; declare url, oci or src to '
                'recreate it' % (volid_of(ident), " on node '%s'" % ident['node'] if ident.get('node') else '')]


def catalogue(client, node, role):
    """The template names of the node's appliance catalogue (pve-manager Nodes.pm ``aplinfo``)."""
    return set(str(row.get('template')) for row in client.get(item_path(APLINFO, dict(node=node)), role=role) or []
               if row.get('template'))


FAMILY = StorageContentFamily(
    'storage_content', 'volume',
    identity=[
        Text('storage', required=True, format='pve-storage-id'),
        ContentType('content', required=True, choices=list(CONTENTS), format='pve-storage-content'),
        # the file's name (required with url; else the source names it)
        Text('filename', max_length=255),
        Text('node', format='pve-node'),
    ],
    fields=[
        Text('url', pattern=r'https?://.*', create_param=True),
        Text('checksum', create_param=True),
        Text('checksum-algorithm', choices=sorted(CHECKSUM_LENGTHS), create_param=True),
        # the schema dump's enum for compression is null (a Perl list constant): its rule is COMPRESSIONS
        Text('compression', choices=COMPRESSIONS, create_param=True, schema_key=None),
        Flag('verify-certificates', default=True, create_param=True),
        # POST /nodes/{node}/aplinfo's template (maxLength 255)
        Text('template', max_length=255, create_param=True, schema_key=None),
        # POST .../oci-registry-pull's reference (OCI_REFERENCE)
        Text('oci', create_param=True, schema_key=None),
        # a path on the machine running the task
        LocalPath('src', create_param=True, schema_key=None),
    ],
    where=Where(schema=('POST', DOWNLOAD)),
    # Removal deletes a file nothing can bring back without its source; a download may take long.
    lifecycle=Lifecycle(retain=True, task_timeout=1800),
    controls={'replace': dict(type='bool', default=False)},
)


class StorageContentInfo:
    """The task of ``storage_content_info``: a storage's volumes on one node (any node for a shared storage) from
    one content list read, with the guests naming each (one config read per guest, unless ``used_by`` is off).
    Read-only: check mode changes nothing."""

    scheme = 'pve'

    @staticmethod
    def object_spec():
        spec = {}
        spec['storage'] = dict(type='str', required=True)
        spec['node'] = dict(type='str')
        spec['content'] = dict(type='str', choices=list(ALL_CONTENTS))
        spec['used_by'] = dict(type='bool', default=True)
        return spec

    @staticmethod
    def run(client, params, check_mode):
        storage = FAMILY.identity[0].declared(params['storage'])
        node = FAMILY.identity[3].declared(params['node']) if params.get('node') else None
        place = locate(client, storage, node, 'read', 'volumes')
        content = params.get('content')
        rows = list_volumes(client, place, 'read', content)
        users = None
        if params.get('used_by'):
            users = volume_users(client, 'read', place, [row.get('volid') for row in rows])
        volumes = []
        for row in sorted(rows, key=lambda item: str(item.get('volid'))):
            volid = str(row.get('volid'))
            volume = dict(volid=volid, content=row.get('content'), filename=filename_of(volid, row.get('content')))
            volume.update((key, row.get(key)) for key in ('size', 'format', 'ctime', 'vmid')
                          if row.get(key) is not None)
            if users is not None:
                volume['used_by'] = users.get(volid, [])
            volumes.append(volume)
        return dict(changed=False, storage=storage, node=place.node, shared=place.shared, volumes=volumes)


INFO = StorageContentInfo()
