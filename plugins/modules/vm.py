#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: vm
short_description: Declare a Proxmox VE QEMU virtual machine, adopted and never replaced
version_added: 0.3.0
description:
  - Creates a VM (C(POST /nodes/{node}/qemu)) or clones a template (O(clone)), or adopts and repairs the VM living
    under (O(node), O(vmid)), and acts on its power state when asked. The VM's data is never destroyed to make it
    match; every change PVE cannot make in place is refused with a sentence saying why and what to do instead.
  - One read judges a VM, its pending view (C(GET .../{vmid}/pending)), compared as the config will be once pending
    changes apply. Only PVE's typed absence (C(Configuration file ... does not exist)) means absent, and only when
    the cluster's resource list holds the vmid nowhere else (read with the same credential); a container under the
    vmid is refused.
  - A VM declared on O(node) that lives on another node (moved by HA or by hand) is found through the cluster's
    resource list and judged where it lives - every read and write goes to that node, a warning names both nodes,
    and it is not moved back. With O(migrate=true) it is moved to O(node) first, then the rest is judged there.
  - Config options take PVE's names; an undeclared option is unmanaged. An update sends only the drifted keys, with
    the live C(digest) (a change by another writer meanwhile is read and judged again once, then a clear failure),
    and is read back and judged again; a key PVE stored differently fails the task naming it.
  - Disks only grow, through C(resize). A smaller disk, another storage or volume, another template,
    a new vmid for a name that exists, a VM under the vmid with another O(name) - refused at plan time (check mode
    too). O(machine) is the configured machine type; the version a running VM was started with is PVE's.
  - Passthrough is declared by mapping name (M(homeflare.proxmox.hardware_mapping)) - O(hostpci0) C(mapping=gpu),
    O(usb0) C(mapping=keyboard) - which an API token may use given C(Mapping.Use) on C(/mapping/...). A mapping
    that neither exists nor is declared in the same M(homeflare.proxmox.declare) is refused before the write (PVE
    would only fail at the next start). A device by host id, a host serial device, a PCI C(romfile), O(affinity)
    and O(hookscript) are root@pam's alone (PVE says C(only root can set ... config)); their write, or a change to
    such a value the VM has, is refused (check mode too) for any credential but O(api_user=root@pam) with a
    password. A VM whose live values already match is adopted by a token as usual.
  - O(template=true) converts the stopped VM into a template once (a task, after any config write); a template is
    never started and never turned back (refused). A running VM is not converted (stop it first).
  - A disk may be created from a disk image, C(<storage>:0,import-from=<source>) (PVE's syntax) - a volume of
    content C(import) on a storage (a cloud image downloaded or uploaded with M(homeflare.proxmox.storage_content))
    or another guest's disk. The import happens when the disk is created (with the VM, or a disk added later) and
    PVE keeps no trace of the source, so on an existing disk C(import-from) is never compared and never imported
    again; the result then carries a warning saying so. A declared C(size=) grows the imported disk once it is
    made (one C(resize) in the same run; the image's own size when none is declared), then only grows.
  - A change PVE cannot apply to a running VM (CPU, memory without hotplug, ...) is parked as pending; it is
    reported (C(object.pending), C(plan.pending), the diff and a warning), never as applied, and
    O(reboot_if_pending) applies it with one reboot.
  - Privileges, on C(/vms/{vmid}) - C(VM.Audit) to read (plus C(Sys.Audit) for the resource list), C(VM.Allocate)
    to create and destroy, C(VM.Clone) on the template, C(VM.Config.*) to update, C(VM.PowerMgmt) for power,
    C(Datastore.AllocateSpace) on the storages, C(SDN.Use) on the bridges; to import, C(Datastore.AllocateSpace)
    or C(Datastore.Audit) on the image's storage, or C(VM.Clone) on the guest whose disk is copied.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.guest
  - homeflare.proxmox.attributes
options:
  migrate:
    description:
      - Move a VM that lives on another node than O(node) to O(node) (C(POST .../{vmid}/migrate), waited for) - a
        running VM live (C(online), its local disks along, C(with-local-disks)), a stopped one offline. A VM HA
        manages is handed to HA (C(POST /cluster/ha/resources/vm:<vmid>/migrate)) and the cluster's resource list
        is read until it shows the VM on O(node), for up to O(task_timeout) seconds.
      - The move comes before any other write of the run; the rest is then judged and written on O(node). Check
        mode plans it (C(plan.migrate) - C(from), C(to) and C(mode) V(online), V(offline) or V(ha)) and writes
        nothing. What PVE refuses (a linked clone's or a snapshotted disk on a local storage, a local device) fails
        the task with PVE's reason. A migration whose answer is lost is never sent again; the next run finds the VM
        where it went.
      - With V(false), a VM found on another node is judged and written there and a warning says so.
      - Needs C(VM.Migrate) on C(/vms/{vmid}), C(Sys.Audit) on C(/) to read the HA resources, and C(Sys.Console)
        on C(/) to migrate through HA.
    type: bool
    default: false
  name:
    description:
      - The VM's name. A live VM with another name is refused (C(vmid 100 holds another guest)), never renamed into a
        different machine.
    type: str
  clone:
    description:
      - Create the VM as a clone of this template (its vmid; on any node). Sent with the create only.
      - A linked clone's disks name their template (C(base-<vmid>-disk-<n>)); another template there is refused - a VM
        is never rebuilt from another template. The rest of the declared config is written after the clone, and its
        disks grow to the declared sizes.
    type: int
  full:
    description:
      - With O(clone), a full copy instead of a linked clone.
    type: bool
  storage:
    description:
      - With O(clone) and O(full=true), the storage the copy goes to (create only).
    type: str
  sockets:
    description:
      - CPU sockets.
    type: int
  cpu:
    description:
      - The CPU type and flags, C([cputype=]<model>[,flags=...]).
    type: str
  memory:
    description:
      - Memory in MiB, V(2048) or C(current=2048) (PVE's property string).
    type: str
  balloon:
    description:
      - The balloon target in MiB (V(0) disables the balloon device).
    type: int
  numa:
    description:
      - Whether NUMA is enabled.
    type: bool
  agent:
    description:
      - The QEMU guest agent, C([enabled=]<1|0>[,fstrim_cloned_disks=<1|0>][,type=...]), compared as pairs.
    type: str
  ostype:
    description:
      - The guest OS type.
    type: str
    choices: [other, wxp, w2k, w2k3, w2k8, wvista, win7, win8, win10, win11, l24, l26, solaris]
  bios:
    description:
      - The firmware.
    type: str
    choices: [seabios, ovmf]
  scsihw:
    description:
      - The SCSI controller.
    type: str
    choices: [lsi, lsi53c810, virtio-scsi-pci, virtio-scsi-single, megasas, pvscsi]
  boot:
    description:
      - The boot order, C(order=scsi0;net0). PVE sets one on create when none is declared.
    type: str
  kvm:
    description:
      - Whether hardware virtualisation is used (PVE's default V(true)).
    type: bool
  acpi:
    description:
      - Whether ACPI is enabled (PVE's default V(true)).
    type: bool
  tablet:
    description:
      - Whether a USB tablet device is attached (PVE's default V(true)).
    type: bool
  ciuser:
    description:
      - The cloud-init user.
    type: str
  cipassword:
    description:
      - The cloud-init password - sent when declared, never compared (PVE masks it) or shown.
    type: str
  sshkeys:
    description:
      - Public SSH keys cloud-init installs for O(ciuser), one OpenSSH key line per item (C(<type> <base64>
        [comment])); an item may hold several lines (an C(authorized_keys) file's text, blank lines skipped).
      - Compared as a set - order-free, white space around each key trimmed. Sent URL-encoded, as PVE takes and
        stores it (C(pvesh get) shows C(ssh-ed25519%20AAAA...)); that encoded text is also accepted as an item.
        V([]) removes them.
      - Each key is checked before any request as PVE's C(ssh-keygen -l) would (a known type such as C(ssh-ed25519),
        C(ssh-rsa), C(ecdsa-sha2-nistp256) or C(sk-ssh-ed25519@openssh.com); a body that decodes to a key of that
        type); a bad one is refused naming it, C(sshkeys[1]). DSA keys are refused (PVE 9's OpenSSH reads none).
      - Give a YAML list - Ansible splits a plain string at commas.
    type: list
    elements: str
  nameserver:
    description:
      - Cloud-init DNS servers, IP addresses in the order they are asked, such as V([10.0.0.53, 10.0.1.53]) or the
        text C(pvesh get) shows (V(10.0.0.53 10.0.1.53)). Sent joined by spaces, as cloud-init splits them. Without
        it and O(searchdomain), cloud-init takes the node's DNS settings.
    type: list
    elements: str
  searchdomain:
    description:
      - Cloud-init DNS search domains, in order, as O(nameserver).
    type: list
    elements: str
  cicustom:
    description:
      - Custom cloud-init files that replace the generated ones, C([user=<volume>][,network=<volume>][,meta=<volume>]
        [,vendor=<volume>]), each a snippet C(<storage>:snippets/<file>) (the storage needs content C(snippets));
        compared as pairs. PVE reads them when it generates the drive (at start).
    type: str
  citype:
    description:
      - The cloud-init format. PVE's default depends on O(ostype) - C(nocloud) for Linux, C(configdrive2) for Windows.
    type: str
    choices: [configdrive2, nocloud, opennebula]
  ciupgrade:
    description:
      - Whether cloud-init upgrades the packages at first boot. Unset is PVE's default, V(true), so declaring V(true)
        on a VM without it is no change.
    type: bool
  ipconfig0:
    description:
      - Cloud-init address of net0, C(ip=<cidr|dhcp>[,gw=...][,ip6=...][,gw6=...]).
    type: str
  ipconfig1:
    description:
      - Cloud-init address of net1, C(ip=<cidr|dhcp>[,gw=...][,ip6=...][,gw6=...]).
    type: str
  ipconfig2:
    description:
      - Cloud-init address of net2, C(ip=<cidr|dhcp>[,gw=...][,ip6=...][,gw6=...]).
    type: str
  ipconfig3:
    description:
      - Cloud-init address of net3, C(ip=<cidr|dhcp>[,gw=...][,ip6=...][,gw6=...]).
    type: str
  scsi0:
    description:
      - Disk scsi0, C(<storage>:<GiB>[,key=value...]) as a create takes it, or the live value as C(pvesh get) shows
        it. A CD drive is C(none,media=cdrom) or C(<storage>:iso/<file>,media=cdrom).
      - Compared by storage, size and keys (the volume name is PVE's). A larger size grows the disk (C(resize)); a
        smaller one, another storage or another volume is refused, never replaced. A C(size=) needs a unit (K, M, G,
        T).
      - C(<storage>:0,import-from=<storage>:import/<image>.qcow2[,size=<n>G][,key=value...]) creates the disk from a
        disk image (C(.qcow2), C(.raw), C(.vmdk), or one disk of an OVA, C(<name>.ova/<disk>.vmdk)) or from another
        guest's disk (C(<storage>:vm-<vmid>-disk-<n>)). Used at creation only, never compared afterwards; the volume
        must be C(<storage>:0), and a host path (root@pam's alone) or a whole OVA/OVF is refused before any request.
      - A cloud-init drive is C(<storage>:cloudinit) (on O(ide2) usually); it matches the CD-ROM PVE makes of it
        (C(<storage>:vm-<vmid>-cloudinit,media=cdrom)).
    type: str
  scsi1:
    description:
      - Disk scsi1, as O(scsi0).
    type: str
  scsi2:
    description:
      - Disk scsi2, as O(scsi0).
    type: str
  scsi3:
    description:
      - Disk scsi3, as O(scsi0).
    type: str
  scsi4:
    description:
      - Disk scsi4, as O(scsi0).
    type: str
  scsi5:
    description:
      - Disk scsi5, as O(scsi0).
    type: str
  scsi6:
    description:
      - Disk scsi6, as O(scsi0).
    type: str
  scsi7:
    description:
      - Disk scsi7, as O(scsi0).
    type: str
  virtio0:
    description:
      - Disk virtio0, as O(scsi0).
    type: str
  virtio1:
    description:
      - Disk virtio1, as O(scsi0).
    type: str
  virtio2:
    description:
      - Disk virtio2, as O(scsi0).
    type: str
  virtio3:
    description:
      - Disk virtio3, as O(scsi0).
    type: str
  virtio4:
    description:
      - Disk virtio4, as O(scsi0).
    type: str
  virtio5:
    description:
      - Disk virtio5, as O(scsi0).
    type: str
  virtio6:
    description:
      - Disk virtio6, as O(scsi0).
    type: str
  virtio7:
    description:
      - Disk virtio7, as O(scsi0).
    type: str
  sata0:
    description:
      - Disk sata0, as O(scsi0).
    type: str
  sata1:
    description:
      - Disk sata1, as O(scsi0).
    type: str
  sata2:
    description:
      - Disk sata2, as O(scsi0).
    type: str
  sata3:
    description:
      - Disk sata3, as O(scsi0).
    type: str
  sata4:
    description:
      - Disk sata4, as O(scsi0).
    type: str
  sata5:
    description:
      - Disk sata5, as O(scsi0).
    type: str
  ide0:
    description:
      - Disk ide0, as O(scsi0).
    type: str
  ide1:
    description:
      - Disk ide1, as O(scsi0).
    type: str
  ide2:
    description:
      - Disk ide2, as O(scsi0).
    type: str
  ide3:
    description:
      - Disk ide3, as O(scsi0).
    type: str
  efidisk0:
    description:
      - The EFI vars disk, C(<storage>:1,efitype=4m[,pre-enrolled-keys=1]); PVE sizes it itself, so only its storage
        and keys are compared.
      - Imported as O(scsi0) is (C(<storage>:0,import-from=...)), it must name C(efitype) and C(pre-enrolled-keys),
        as PVE requires.
    type: str
  tpmstate0:
    description:
      - The TPM state disk, C(<storage>:1,version=v2.0); PVE sizes it itself.
      - Imported as O(scsi0) is, it must name C(version), as PVE requires.
    type: str
  net0:
    description:
      - Network device 0, C(virtio,bridge=vmbr0[,tag=..][,firewall=1]), compared as pairs. The MAC address PVE
        generated is compared only when declared (C(virtio=BC:24:11:...) or C(macaddr=)), and kept on every update.
    type: str
  net1:
    description:
      - Network device 1, as O(net0).
    type: str
  net2:
    description:
      - Network device 2, as O(net0).
    type: str
  net3:
    description:
      - Network device 3, as O(net0).
    type: str
  net4:
    description:
      - Network device 4, as O(net0).
    type: str
  net5:
    description:
      - Network device 5, as O(net0).
    type: str
  net6:
    description:
      - Network device 6, as O(net0).
    type: str
  net7:
    description:
      - Network device 7, as O(net0).
    type: str
  vga:
    description:
      - The display, C([type=]<std|qxl|virtio|serial0|...>[,memory=<MiB>][,clipboard=vnc]), compared as pairs.
    type: str
  machine:
    description:
      - The QEMU machine, C([type=]<q35|pc|pc-q35-9.2+pve1|...>[,viommu=<intel|virtio>][,enable-s3=1]...),
      - compared as pairs.
    type: str
  affinity:
    description:
      - Host CPUs the VM runs on, C(0,5,8-11), compared as a set of CPUs (V(0,1,2,3) is V(0-3)).
      - Only root@pam may set it (see the description).
    type: str
  hotplug:
    description:
      - Hotplug features, a list of C(network), C(disk), C(cpu), C(memory), C(usb), C(cloudinit), or V(0) for
      - none; compared as a set. V(1) and unset mean PVE's default, V(network,disk,usb).
    type: str
  hookscript:
    description:
      - A hook script, a snippet volume C(<storage>:snippets/<file>). Only root@pam may set it.
    type: str
  template:
    description:
      - V(true) converts the VM into a template once (C(POST .../template)); V(false) on a template is
      - refused (PVE has no way back). Unset is unmanaged.
    type: bool
  hostpci0:
    description:
      - PCI passthrough 0, C(mapping=<name>[,pcie=1][,x-vga=1][,rombar=0]...) or, as root@pam only,
      - C([host=]<bus:dev.func>), compared as pairs. Exactly one of C(host) and C(mapping).
    type: str
  hostpci1:
    description:
      - PCI passthrough 1, as O(hostpci0).
    type: str
  hostpci2:
    description:
      - PCI passthrough 2, as O(hostpci0).
    type: str
  hostpci3:
    description:
      - PCI passthrough 3, as O(hostpci0).
    type: str
  hostpci4:
    description:
      - PCI passthrough 4, as O(hostpci0).
    type: str
  hostpci5:
    description:
      - PCI passthrough 5, as O(hostpci0).
    type: str
  hostpci6:
    description:
      - PCI passthrough 6, as O(hostpci0).
    type: str
  hostpci7:
    description:
      - PCI passthrough 7, as O(hostpci0).
    type: str
  hostpci8:
    description:
      - PCI passthrough 8, as O(hostpci0).
    type: str
  hostpci9:
    description:
      - PCI passthrough 9, as O(hostpci0).
    type: str
  hostpci10:
    description:
      - PCI passthrough 10, as O(hostpci0).
    type: str
  hostpci11:
    description:
      - PCI passthrough 11, as O(hostpci0).
    type: str
  hostpci12:
    description:
      - PCI passthrough 12, as O(hostpci0).
    type: str
  hostpci13:
    description:
      - PCI passthrough 13, as O(hostpci0).
    type: str
  hostpci14:
    description:
      - PCI passthrough 14, as O(hostpci0).
    type: str
  hostpci15:
    description:
      - PCI passthrough 15, as O(hostpci0).
    type: str
  usb0:
    description:
      - USB device 0, C(mapping=<name>[,usb3=1]), C(spice), or, as root@pam only, C(host=<vendor:product>)
      - or C(host=<bus-port>); compared as pairs.
    type: str
  usb1:
    description:
      - USB device 1, as O(usb0).
    type: str
  usb2:
    description:
      - USB device 2, as O(usb0).
    type: str
  usb3:
    description:
      - USB device 3, as O(usb0).
    type: str
  usb4:
    description:
      - USB device 4, as O(usb0).
    type: str
  usb5:
    description:
      - USB device 5, as O(usb0).
    type: str
  usb6:
    description:
      - USB device 6, as O(usb0).
    type: str
  usb7:
    description:
      - USB device 7, as O(usb0).
    type: str
  usb8:
    description:
      - USB device 8, as O(usb0).
    type: str
  usb9:
    description:
      - USB device 9, as O(usb0).
    type: str
  usb10:
    description:
      - USB device 10, as O(usb0).
    type: str
  usb11:
    description:
      - USB device 11, as O(usb0).
    type: str
  usb12:
    description:
      - USB device 12, as O(usb0).
    type: str
  usb13:
    description:
      - USB device 13, as O(usb0).
    type: str
  serial0:
    description:
      - Serial port 0, V(socket) (a unix socket, C(qm terminal)) or, as root@pam only, a host device
      - C(/dev/ttyS0).
    type: str
  serial1:
    description:
      - Serial port 1, as O(serial0).
    type: str
  serial2:
    description:
      - Serial port 2, as O(serial0).
    type: str
  serial3:
    description:
      - Serial port 3, as O(serial0).
    type: str
  numa0:
    description:
      - NUMA node 0 of the guest, C(cpus=<id[-id];...>[,hostnodes=...][,memory=<MiB>][,policy=bind]),
      - compared as pairs. Needs O(numa=true) to take effect.
    type: str
  numa1:
    description:
      - NUMA node 1, as O(numa0).
    type: str
  numa2:
    description:
      - NUMA node 2, as O(numa0).
    type: str
  numa3:
    description:
      - NUMA node 3, as O(numa0).
    type: str
  numa4:
    description:
      - NUMA node 4, as O(numa0).
    type: str
  numa5:
    description:
      - NUMA node 5, as O(numa0).
    type: str
  numa6:
    description:
      - NUMA node 6, as O(numa0).
    type: str
  numa7:
    description:
      - NUMA node 7, as O(numa0).
    type: str
seealso:
  - module: homeflare.proxmox.lxc
  - module: homeflare.proxmox.vm_info
'''

EXAMPLES = r'''
- name: A VM cloned from template 9000, grown to 32G, then kept as declared
  module_defaults:
    group/homeflare.proxmox.proxmox:
      api_host: [pve1.example.org, pve2.example.org]
  homeflare.proxmox.vm:
    node: pve1
    vmid: 120
    name: db1
    clone: 9000
    cores: 4
    memory: "8192"
    scsi0: local-lvm:32,iothread=1
    net0: virtio,bridge=vmbr0,tag=20
    agent: "1"
    tags: [db]
    state: started

- name: A VM from scratch with an installer ISO
  homeflare.proxmox.vm:
    node: pve1
    vmid: 130
    name: build1
    ostype: l26
    scsihw: virtio-scsi-single
    scsi0: local-lvm:20,iothread=1,discard=on
    ide2: local:iso/debian-12.7.0-amd64-netinst.iso,media=cdrom
    net0: virtio,bridge=vmbr0

- name: A cloud VM from an imported image (see storage_content), grown to 16G, with keys and a static address
  homeflare.proxmox.vm:
    node: pve1
    vmid: 140
    name: cloud1
    scsihw: virtio-scsi-single
    scsi0: local-lvm:0,import-from=local:import/debian-13-genericcloud-amd64.qcow2,iothread=1,size=16G
    ide2: local-lvm:cloudinit
    boot: order=scsi0
    ciuser: debian
    sshkeys:
      - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBAuQfmxqzF8WLVHli6orB39yIaEQB6QjJjMYsJB8Z8w ops@laptop
      - "{{ lookup('ansible.builtin.file', 'files/deploy.pub') }}"
    ipconfig0: ip=10.0.0.40/24,gw=10.0.0.1
    nameserver: [10.0.0.53, 10.0.1.53]
    searchdomain: [lab.example.org]
    ciupgrade: false
    net0: virtio,bridge=vmbr0

- name: Apply changes parked on the running VM with one reboot
  homeflare.proxmox.vm:
    node: pve1
    vmid: 120
    name: db1
    cores: 8
    reboot_if_pending: true
'''

RETURN = r'''
object:
  description:
    - The guest's identity and managed options as read after the run (in check mode, and when nothing was written,
      as read before it), with C(pending) (the keys PVE parks until the next restart) and C(status) when the power
      state was read. Empty when the guest is absent.
  returned: always
  type: dict
  sample: {"node": "pve1", "vmid": 101, "cores": 2, "pending": [], "status": "running"}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) V(create), V(update), V(delete), V(power)
      (only the power state changes) or V(none); C(changed) names the drifted options; C(power) is V(start),
      V(stop), V(reboot) or null; C(pending) the keys pending before the run; C(resize) the disks that grow.
    - With O(migrate=true) and the guest on another node, C(migrate) is the move (C(from), C(to), C(mode)), which
      comes first; C(changed) then starts with C(node) and C(action) is at least V(update).
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["cores"], "power": null, "pending": [], "resize": []}
tasks:
  description: The task ids (UPIDs) the run started and waited for, in order.
  returned: always
  type: list
  elements: str
  sample: ["UPID:pve1:0002C3D4:0D5E6F70:6650A1C3:vzcreate:101:automation@pve!ansible:"]
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.vm import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
