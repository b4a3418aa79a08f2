# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A QEMU VM: POST /nodes/{node}/qemu, or a clone of a template; judged and written through guest.Guest.

The option table follows ``POST /nodes/{node}/qemu`` of qemu-server 9 (PVE 9). Config keys are
compared when declared (undeclared is unmanaged); ``clone``, ``full``, ``storage`` and ``pool`` go
with the create only; ``cipassword`` is sent when declared and never compared (PVE masks it). Cloud-init's
``sshkeys`` are a set of keys, sent URL-encoded as PVE keeps them (fields.SshKeys); ``nameserver`` and
``searchdomain`` are word lists as cloud-init splits them (at white space); ``ciupgrade`` unset is PVE's default, 1.
``machine`` is the configured machine type (what ``qm set --machine`` keeps); the version a running VM was started
with (``runningmachine``) is PVE's and never compared. Passthrough (``hostpci``, ``usb``) is declared by mapping name
(hardware_mapping), which an API token may use given Mapping.Use; a device by host id, a host serial device, a PCI
ROM file, ``affinity`` and ``hookscript`` are root@pam's alone (qemu-server's check_vm_modify_config_perm and its
device checks), so the family refuses to write them with any other credential (Guest.check_plan). A mapping
the VM names must exist or be declared in the same ``declare`` (checked before any write). ``template: true``
converts the VM into a template once (guest.Guest).
A disk's ``import-from`` goes with the disk's creation only (fields.Disk; guest.Guest says so when the
VM exists).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import (
    BarePropertyString, CommentText, Disk, Flag, Integer, Nic, Number, PropertyString, SshKeys, Text, TokenSet,
    WordList, qm_comment)
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, MissingReference
from ansible_collections.homeflare.proxmox.plugins.module_utils.guest import Guest, GuestInfo, check_template_clone
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import absent

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


# qemu-server's device limits (PCI.pm $MAX_HOSTPCI_DEVICES, USB.pm $MAX_USB_DEVICES, $MAX_SERIAL_PORTS, Memory.pm
# $MAX_NUMA).
HOSTPCIS = 16
USBS = 14
SERIALS = 4
NUMAS = 8
HOSTPCI_KEYS = dict([(key, Text(key)) for key in ('host', 'device-id', 'mdev', 'romfile', 'sub-device-id',
                                                  'sub-vendor-id', 'vendor-id')] +
                    [(key, Flag(key)) for key in ('legacy-igd', 'pcie', 'rombar', 'x-vga')] +
                    [('mapping', Text('mapping', format='pve-configid')),
                     ('driver', Text('driver', choices=['vfio', 'keep']))])
# USB.pm $usb_fmt host: vendor:product (hex), bus-port(.port)*, or spice
USB_HOST = re.compile(r'((0x)?[0-9A-Fa-f]{4}:(0x)?[0-9A-Fa-f]{4})|(\d+-\d+(\.\d+)*)|[Ss][Pp][Ii][Cc][Ee]')
USB_KEYS = {'host': Text('host'), 'mapping': Text('mapping', format='pve-configid'), 'usb3': Flag('usb3')}
VGA_KEYS = {'type': Text('type', choices=['cirrus', 'qxl', 'qxl2', 'qxl3', 'qxl4', 'none', 'serial0', 'serial1',
                                          'serial2', 'serial3', 'std', 'virtio', 'virtio-gl', 'vmware']),
            'clipboard': Text('clipboard', choices=['vnc']), 'memory': Integer('memory', minimum=4, maximum=512)}
MACHINE_TYPE = (r'(pc|pc(-i440fx)?-\d+(\.\d+)+(\+pve\d+)?(\.pxe)?|q35|pc-q35-\d+(\.\d+)+(\+pve\d+)?(\.pxe)?'
                r'|virt(?:-\d+(\.\d+)+)?(\+pve\d+)?)')
MACHINE_KEYS = {'type': Text('type', pattern=MACHINE_TYPE, max_length=40),
                'viommu': Text('viommu', choices=['intel', 'virtio']),
                'aw-bits': Number('aw-bits', minimum=32, maximum=64),
                'enable-s3': Flag('enable-s3'), 'enable-s4': Flag('enable-s4')}
NUMA_IDS = r'\d+(?:-\d+)?(?:;\d+(?:-\d+)?)*'
NUMA_KEYS = {'cpus': Text('cpus', pattern=NUMA_IDS), 'hostnodes': Text('hostnodes', pattern=NUMA_IDS),
             'memory': Number('memory'), 'policy': Text('policy', choices=['preferred', 'bind', 'interleave'])}


def one_device(pairs):
    """PCI.pm parse_hostpci and USB.pm parse_usb_device: a device is named by host id or by mapping, not both."""
    if 'host' in pairs and 'mapping' in pairs:
        return "sets both host and mapping: PVE refuses it (Cannot set both 'host' and 'mapping')"
    if 'host' not in pairs and 'mapping' not in pairs:
        return 'names no device: set mapping=<hardware mapping> (or host=<id>, which only root@pam may set)'
    return None


def usb_device(pairs):
    if pairs.get('host') and not USB_HOST.fullmatch(pairs['host']):
        return ("has host=%s, which is neither vendor:product (hex), bus-port(.port) nor spice" % pairs['host'])
    return one_device(pairs)


def needs_cpus(pairs):
    return None if 'cpus' in pairs else 'needs cpus=<id[-id];...>, the guest CPUs of this NUMA node'


def pairs_of(value):
    return dict(part.split('=', 1) for part in str(value or '').split(',') if '=' in part)


def pci_by_host(value):
    """What of a hostpci value only root@pam may write (API2/Qemu.pm check_hostpci_perm)."""
    pairs = pairs_of(value)
    if pairs.get('host'):
        return 'a host PCI device by id (host=%s)' % pairs['host']
    if 'romfile' in pairs:
        return 'a ROM file (romfile=)'
    return None


def usb_by_host(value):
    """API2/Qemu.pm check_usb_perm: a host device (not spice) is root@pam's."""
    host = pairs_of(value).get('host')
    return 'a host USB device (host=%s)' % host if host and host.lower() != 'spice' else None


def serial_device(value):
    """API2/Qemu.pm $check_vm_create_serial_perm: a socket is anyone's, a host device root@pam's."""
    return 'a host serial device (%s)' % value if value and value != 'socket' else None


def always_root(option):
    return lambda value: ('the option itself (qemu-server lets only root set %s)' % option) if value else None


def cpuset_text(text):
    """pve-common CpuSet short_string: the set of host CPUs, as ranges (0,1,2,3 is 0-3)."""
    cpus = set()
    for part in str(text).split(','):
        found = re.fullmatch(r'\s*(\d+)(?:-(\d+))?\s*', part)
        if not found or int(found.group(2) or found.group(1)) < int(found.group(1)):
            return text  # not a cpuset: the format check refuses it as written
        cpus.update(range(int(found.group(1)), int(found.group(2) or found.group(1)) + 1))
    ranges, ordered = [], sorted(cpus)
    for cpu in ordered:
        if ranges and cpu == ranges[-1][1] + 1:
            ranges[-1][1] = cpu
        else:
            ranges.append([cpu, cpu])
    return ','.join('%d' % low if low == high else '%d-%d' % (low, high) for low, high in ranges)


DEFAULT_HOTPLUG = 'disk,network,usb'


def hotplug_text(text):
    """parse_hotplug_features: 1 is the default set, 0 none; a set of features otherwise (order is not kept)."""
    text = str(text)
    if text == '1':
        return DEFAULT_HOTPLUG
    if text == '0':
        return '0'
    return ','.join(sorted(set(feature for feature in re.split(r'[,;\s]+', text) if feature)))


FIELDS = [
    Text('name', format='dns-name', clear='delete'),
    Integer('clone', minimum=100, maximum=999999999, create_param=True, schema_key=None),
    Flag('full', create_param=True, schema_key=None),
    # a backup volume the absent guest is created from instead (restore); never read or compared
    Text('restore_from', format='pve-volume-id', create_param=True, schema_key=None),
    Text('storage', format='pve-storage-id', create_param=True),
    # membership, compared when declared ('' = in no pool) and written by PUT /pools, not by the config write
    Text('pool', format='pve-poolid', clear='empty'),
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
    PropertyString('vga', default_key='type', keys=VGA_KEYS, clear='delete'),
    PropertyString('machine', default_key='type', keys=MACHINE_KEYS, clear='delete'),
    Text('affinity', format='pve-cpuset', normalise=cpuset_text, clear='delete', root_only=always_root('affinity')),
    Text('hotplug', format='pve-hotplug-features', normalise=hotplug_text, absent_means=DEFAULT_HOTPLUG,
         clear='delete'),
    Text('hookscript', format='pve-volume-id', clear='delete', root_only=always_root('hookscript')),
    Flag('template', absent_means=False),
] + [Text('ipconfig%d' % index, format='pve-qm-ipconfig', schema_key='ipconfig[n]', clear='delete')
     for index in range(IP_CONFIGS)] + [
    Disk('%s%d' % (bus, index), 'file', keys=DRIVE_KEYS[bus], schema_key='%s[n]' % bus)
    for bus, count in BUSES for index in range(count)] + [
    # qemu-server's $check_drive_param: an imported EFI disk names its type and keys, a TPM state its version
    Disk('efidisk0', 'file', sized=False, keys=EFIDISK_KEYS, import_needs=('efitype', 'pre-enrolled-keys')),
    Disk('tpmstate0', 'file', sized=False, keys=TPMSTATE_KEYS, import_needs=('version',)),
] + [Nic('net%d' % index, 'macaddr', models=MODELS, default_key='model', keys=NET_KEYS, schema_key='net[n]',
         clear='delete') for index in range(NICS)] + [
    PropertyString('hostpci%d' % index, default_key='host', keys=HOSTPCI_KEYS, rule=one_device,
                   schema_key='hostpci[n]', clear='delete', root_only=pci_by_host) for index in range(HOSTPCIS)] + [
    PropertyString('usb%d' % index, default_key='host', keys=USB_KEYS, rule=usb_device, schema_key='usb[n]',
                   clear='delete', root_only=usb_by_host) for index in range(USBS)] + [
    Text('serial%d' % index, pattern='(/dev/.+|socket)', schema_key='serial[n]', clear='delete',
         root_only=serial_device) for index in range(SERIALS)] + [
    PropertyString('numa%d' % index, keys=NUMA_KEYS, rule=needs_cpus, schema_key='numa[n]', clear='delete')
    for index in range(NUMAS)]


class VmFamily(Guest):
    def check_template(self, declaration, raw):
        check_template_clone(self, declaration, raw)

    def check_declaration(self, declaration):
        super(VmFamily, self).check_declaration(declaration)
        hookscript = declaration.values.get('hookscript')
        if hookscript and not SNIPPET.fullmatch(hookscript):
            # QemuServer.pm check_hookscript (PVE::GuestHelpers): the volume must be a snippet
            raise DeclarationError("option hookscript: %r is not a snippet: a hook script is a file in a storage's "
                                   "snippets directory, <storage>:snippets/<file>" % hookscript)

    def mappings(self, declaration, raw):
        """(type, id, option) of each hardware mapping the passthrough this run writes names (a device the VM
        already has as declared is not checked again)."""
        current = {} if absent(raw) else self.current(raw)
        found = []
        for field in self.fields:
            kind = 'pci' if field.option.startswith('hostpci') else 'usb' if field.option.startswith('usb') else None
            value = declaration.values.get(field.option)
            mapping = kind and value != current.get(field.option) and pairs_of(value).get('mapping')
            if mapping:
                found.append((kind, mapping, field.option))
        return found

    def check_references(self, declaration, raw, batch, client):
        """A mapping PVE would only miss when the VM starts (PCI.pm parse_hostpci: PCI device mapping not found)
        is refused before the write: it must be live (GET /cluster/mapping/{pci,usb}) or declared in the same
        ``declare``."""
        wanted = self.mappings(declaration, raw)
        if not wanted:
            return
        declared = set((entry.declaration.ident.get('type'), entry.declaration.ident.get('id')) for entry in batch
                       if entry.module == 'hardware_mapping' and entry.declaration.state != 'absent')
        live = getattr(batch, 'memo', {})  # each mapping list read once per declare batch
        for kind, mapping, option in wanted:
            if (kind, mapping) in declared:
                continue
            if ('mappings', kind) not in live:
                live[('mappings', kind)] = set(row.get('id') for row in client.get(
                    '/cluster/mapping/%s' % kind, role=self.read_role) or [])
            if mapping not in live[('mappings', kind)]:
                raise MissingReference(
                    "%s: option %s: the %s mapping '%s' does not exist (GET /cluster/mapping/%s) and is not "
                    "declared in this task: PVE would accept it and fail at the next start (%s device "
                    "mapping not found). Declare it with hardware_mapping first. Nothing was written."
                    % (self.describe(declaration.ident), option, kind.upper(), mapping, kind, kind.upper()))


FAMILY = VmFamily('vm', 'vm', 'qemu', 'VM', 'name', FIELDS)

INFO = GuestInfo(FAMILY)
