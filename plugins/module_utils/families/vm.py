# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A QEMU VM: POST /nodes/{node}/qemu, or a clone of a template; judged and written through guest.Guest.

The option table follows ``POST /nodes/{node}/qemu`` of qemu-server 9 (PVE 9). Config keys are
compared when declared (undeclared is unmanaged); ``clone``, ``full``, ``storage`` and ``pool`` go
with the create only; ``cipassword`` is sent when declared and never compared (PVE masks it). Cloud-init's
``sshkeys`` are a set of keys, sent URL-encoded as PVE keeps them (fields.SshKeys); ``nameserver`` and
``searchdomain`` are word lists as cloud-init splits them (at white space); ``ciupgrade`` unset is PVE's default, 1.
``machine`` is not offered: PVE pins the running machine version, so it is not a declarable property.
A disk's ``import-from`` goes with the disk's creation only (fields.Disk; guest.Guest says so when the
VM exists).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    BarePropertyString, CommentText, Disk, Flag, Integer, Nic, Number, PropertyString, SshKeys, Text, TokenSet,
    WordList, qm_comment)
from ansible_collections.homeflare.proxmox.plugins.module_utils.guest import Guest, GuestInfo, check_template_clone

NICS = 8
IP_CONFIGS = 4
BUSES = (('scsi', 8), ('virtio', 8), ('sata', 6), ('ide', 4))
MODELS = ('e1000', 'e1000-82540em', 'e1000-82544gc', 'e1000-82545em', 'e1000e', 'i82551', 'i82557b', 'i82559er',
          'ne2k_isa', 'ne2k_pci', 'pcnet', 'rtl8139', 'virtio', 'vmxnet3')

NET_KEYS = dict([(key, Text(key)) for key in ('bridge', 'macaddr', 'trunks') + MODELS] +
                [('model', Text('model', choices=list(MODELS)))] +
                [(key, Flag(key)) for key in ('firewall', 'link_down')] +
                [('mtu', Integer('mtu', minimum=1, maximum=65520)), ('queues', Integer('queues', minimum=0, maximum=64)),
                 ('tag', Integer('tag', minimum=1, maximum=4094)), ('rate', Number('rate', minimum=0))])
_THROTTLE = ['bps', 'bps_rd', 'bps_wr', 'iops', 'iops_max', 'iops_rd', 'iops_rd_max', 'iops_wr', 'iops_wr_max']
_THROTTLE_LENGTHS = ['bps_max_length', 'bps_rd_max_length', 'bps_wr_max_length', 'iops_max_length',
                     'iops_rd_max_length', 'iops_wr_max_length']
_DRIVE = dict(
    [(key, Integer(key)) for key in _THROTTLE] + [(key, Integer(key, minimum=1)) for key in _THROTTLE_LENGTHS] +
    [(key, Number(key)) for key in ('mbps', 'mbps_max', 'mbps_rd', 'mbps_rd_max', 'mbps_wr', 'mbps_wr_max')] +
    [(key, Text(key)) for key in ('file', 'volume', 'import-from', 'serial', 'size', 'bps_rd_length', 'bps_wr_length',
                                  'iops_rd_length', 'iops_wr_length')] +
    [(key, Flag(key)) for key in ('backup', 'detect_zeroes', 'replicate', 'shared', 'snapshot')] +
    [('aio', Text('aio', choices=['native', 'threads', 'io_uring'])),
     ('cache', Text('cache', choices=['none', 'writethrough', 'writeback', 'unsafe', 'directsync'])),
     ('discard', Text('discard', choices=['ignore', 'on'])),
     ('format', Text('format', choices=['raw', 'qcow', 'qed', 'qcow2', 'vmdk', 'cloop'])),
     ('media', Text('media', choices=['cdrom', 'disk'])),
     ('rerror', Text('rerror', choices=['ignore', 'report', 'stop'])),
     ('werror', Text('werror', choices=['enospc', 'ignore', 'report', 'stop']))])
# What each bus adds to the common drive keys (qemu-server's scsi/virtio/sata/ide drive formats).
DRIVE_KEYS = {
    'scsi': dict(_DRIVE, iothread=Flag('iothread'), ro=Flag('ro'), scsiblock=Flag('scsiblock'), ssd=Flag('ssd'),
                 product=Text('product'), vendor=Text('vendor'), wwn=Text('wwn'),
                 queues=Integer('queues', minimum=2)),
    'virtio': dict(_DRIVE, iothread=Flag('iothread'), ro=Flag('ro')),
    'sata': dict(_DRIVE, ssd=Flag('ssd'), wwn=Text('wwn')),
    'ide': dict(_DRIVE, ssd=Flag('ssd'), wwn=Text('wwn'), model=Text('model')),
}
EFIDISK_KEYS = {'file': Text('file'), 'volume': Text('volume'), 'import-from': Text('import-from'),
                'size': Text('size'), 'pre-enrolled-keys': Flag('pre-enrolled-keys'),
                'efitype': Text('efitype', choices=['2m', '4m']),
                'format': Text('format', choices=['raw', 'qcow', 'qed', 'qcow2', 'vmdk', 'cloop']),
                'ms-cert': Text('ms-cert', choices=['2011', '2023', '2023w', '2023k'])}
TPMSTATE_KEYS = {'file': Text('file'), 'volume': Text('volume'), 'import-from': Text('import-from'),
                 'size': Text('size'), 'format': Text('format', choices=['raw', 'qcow2', 'vmdk']),
                 'version': Text('version', choices=['v1.2', 'v2.0'])}
AGENT_KEYS = dict([(key, Flag(key)) for key in ('enabled', 'freeze-fs', 'fstrim_cloned_disks', 'freeze-fs-on-backup',
                                                'guest-fsfreeze')] + [('type', Text('type', choices=['virtio', 'isa']))])

# QemuServer.pm $cicustom_fmt: each kind a volume. Cloudinit.pm read_cloudinit_snippets_file wants it in the
# snippets directory (``<storage>:snippets/<file>``, pve-storage parse_volname), which PVE checks only when it
# generates the drive (at start): said here before any request.
CICUSTOM_KEYS = dict((kind, Text(kind, format='pve-volume-id')) for kind in ('meta', 'network', 'user', 'vendor'))
SNIPPET = re.compile(r'[a-z][a-z0-9\-_.]*[a-z0-9]:snippets/[^/]+', re.I)
# Cloudinit.pm get_dns_conf: split(/\s+/, ...)
WHITE_SPACE = re.compile(r'\s+')


def snippets_only(pairs):
    for kind, volume in sorted(pairs.items()):
        if not SNIPPET.fullmatch(volume):
            return ('has %s=%s, which is not a snippet: cloud-init reads custom files from a storage\'s snippets '
                    'directory, <storage>:snippets/<file>' % (kind, volume))
    return None


FIELDS = [
    Text('name', format='dns-name', clear='delete'),
    Integer('clone', minimum=100, maximum=999999999, create_param=True, schema_key=None),
    Flag('full', create_param=True, schema_key=None),
    Text('storage', format='pve-storage-id', create_param=True),
    Text('pool', format='pve-poolid', create_param=True),
    Integer('cores', minimum=1, clear='delete'),
    Integer('sockets', minimum=1, clear='delete'),
    Text('cpu', format='pve-vm-cpu-conf', clear='delete'),
    Number('cpulimit', minimum=0, maximum=128, clear='delete'),
    Integer('cpuunits', minimum=1, maximum=262144, clear='delete'),
    BarePropertyString('memory', default_key='current', keys={'current': Integer('current', minimum=16)},
                       clear='delete'),
    Integer('balloon', minimum=0, clear='delete'),
    Flag('numa', clear='delete'),
    PropertyString('agent', default_key='enabled', keys=AGENT_KEYS, clear='delete'),
    Text('ostype', choices=['other', 'wxp', 'w2k', 'w2k3', 'w2k8', 'wvista', 'win7', 'win8', 'win10', 'win11', 'l24',
                            'l26', 'solaris'], clear='delete'),
    Text('bios', choices=['seabios', 'ovmf'], clear='delete'),
    Text('scsihw', choices=['lsi', 'lsi53c810', 'virtio-scsi-pci', 'virtio-scsi-single', 'megasas', 'pvscsi'],
         clear='delete'),
    Text('boot', format='pve-qm-boot', clear='delete'),
    Flag('onboot', clear='delete'),
    Flag('protection', clear='delete'),
    Flag('kvm', absent_means=True, clear='delete'),
    Flag('acpi', absent_means=True, clear='delete'),
    Flag('tablet', absent_means=True, clear='delete'),
    Text('startup', format='pve-startup-order', clear='delete'),
    TokenSet('tags', separator=';', format='pve-tag', clear='delete'),
    CommentText('description', read_back=qm_comment, max_length=8192, clear='delete'),
    Text('ciuser', clear='delete'),
    Text('cipassword', secret=True),
    SshKeys('sshkeys', clear='delete'),
    WordList('nameserver', format='address', live_split=WHITE_SPACE, clear='delete'),
    WordList('searchdomain', live_split=WHITE_SPACE, clear='delete'),
    PropertyString('cicustom', keys=CICUSTOM_KEYS, rule=snippets_only, clear='delete'),
    Text('citype', choices=['configdrive2', 'nocloud', 'opennebula'], clear='delete'),
    Flag('ciupgrade', absent_means=True, clear='delete'),
] + [Text('ipconfig%d' % index, format='pve-qm-ipconfig', schema_key='ipconfig[n]', clear='delete')
     for index in range(IP_CONFIGS)] + [
    Disk('%s%d' % (bus, index), 'file', keys=DRIVE_KEYS[bus], schema_key='%s[n]' % bus)
    for bus, count in BUSES for index in range(count)] + [
    # qemu-server's $check_drive_param: an imported EFI disk names its type and keys, a TPM state its version
    Disk('efidisk0', 'file', sized=False, keys=EFIDISK_KEYS, import_needs=('efitype', 'pre-enrolled-keys')),
    Disk('tpmstate0', 'file', sized=False, keys=TPMSTATE_KEYS, import_needs=('version',)),
] + [Nic('net%d' % index, 'macaddr', models=MODELS, default_key='model', keys=NET_KEYS, schema_key='net[n]',
         clear='delete') for index in range(NICS)]


class VmFamily(Guest):
    def check_template(self, declaration, raw):
        check_template_clone(self, declaration, raw)


FAMILY = VmFamily('vm', 'vm', 'qemu', 'VM', 'name', FIELDS)

INFO = GuestInfo(FAMILY)
