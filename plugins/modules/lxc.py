#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: lxc
short_description: Declare a Proxmox VE LXC container, adopted and never replaced
version_added: 0.3.0
description:
  - Creates a container from a template (C(POST /nodes/{node}/lxc)), or adopts and repairs the one living under
    (O(node), O(vmid)), and acts on its power state when asked. The container's data is never destroyed to make it
    match; every change PVE cannot make in place is refused with a sentence saying why and what to do instead.
  - One read judges a container, its pending view (C(GET .../{vmid}/pending)), compared as the config will be once
    pending changes apply. Only PVE's typed absence (C(Configuration file ... does not exist)) means absent, and only
    when the cluster's resource list holds the vmid nowhere else (read with the same credential); a VM under the
    vmid is refused.
  - A container declared on O(node) that lives on another node (moved by HA or by hand) is found through the
    cluster's resource list and judged where it lives - every read and write goes to that node, a warning names
    both nodes, and it is not moved back. With O(migrate=true) it is moved to O(node) first, then the rest is
    judged there.
  - Config options take PVE's names; an undeclared option is unmanaged. An update sends only the drifted keys, with
    the live C(digest) (a change by another writer meanwhile is read and judged again once, then a clear failure),
    and is read back and judged again; a key PVE stored differently fails the task naming it.
  - Disks only grow, through C(resize). A smaller disk, another storage or volume, another template, an
    C(unprivileged) or C(arch) flip, a new vmid for a name that exists, a container under the vmid
    with another O(hostname) - refused at plan time (check mode too). Bind mounts and device passthrough are
    root-only and not offered.
  - A change PVE cannot apply to a running container is parked as pending; it is reported (C(object.pending),
    C(plan.pending), the diff and a warning), never as applied, and O(reboot_if_pending) applies it with one reboot.
  - Privileges, on C(/vms/{vmid}) - C(VM.Audit) to read (plus C(Sys.Audit) for the resource list), C(VM.Allocate)
    to create and destroy, C(VM.Config.*) to update, C(VM.PowerMgmt) for power, C(Datastore.AllocateSpace) on the
    storages, C(SDN.Use) on the bridges.
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
      - Move a container that lives on another node than O(node) to O(node) (C(POST .../{vmid}/migrate), waited
        for) - a running container in restart mode (shut down within O(shutdown_timeout), moved, started on O(node);
        PVE has no live migration of containers), a stopped one offline. A container HA manages is handed to HA
        (C(POST /cluster/ha/resources/ct:<vmid>/migrate)) and the cluster's resource list is read until it shows the
        container on O(node), for up to O(task_timeout) seconds.
      - The move comes before any other write of the run; the rest is then judged and written on O(node). Check
        mode plans it (C(plan.migrate) - C(from), C(to) and C(mode) V(restart), V(offline) or V(ha)) and writes
        nothing. What PVE refuses (a bind mount, a linked clone's or a snapshotted volume on a local storage) fails
        the task with PVE's reason. A migration whose answer is lost is never sent again; the next run finds the
        container where it went.
      - With V(false), a container found on another node is judged and written there and a warning says so.
      - Needs C(VM.Migrate) on C(/vms/{vmid}), C(Sys.Audit) on C(/) to read the HA resources, and C(Sys.Console)
        on C(/) to migrate through HA.
    type: bool
    default: false
  hostname:
    description:
      - The container's host name. A live container with another host name is refused (C(vmid 101 holds another
        guest)), never renamed into a different machine.
    type: str
  ostemplate:
    description:
      - The template volume a new container is created from, such as
        C(local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst); required to create.
      - PVE keeps no record of it; it is compared through the distribution PVE recorded (C(ostype)), and another
        distribution is refused - a container is never rebuilt from another template.
      - An OCI image pulled with M(homeflare.proxmox.storage_content) (O(ostemplate=local:vztmpl/<name>.tar), as
        C(oci-registry-pull) names it) is a template like any other (PVE 9.1 and later). PVE reads the image's
        config - an application image (its entrypoint is not C(/sbin/init)) gets that entrypoint, O(cmode=console)
        and C(host-managed=1) on each NIC that does not say otherwise, so declare O(net0) with C(host-managed=1)
        to match (or C(host-managed=0) for a container that manages its own network).
    type: str
  storage:
    description:
      - The storage of a new container's root disk when O(rootfs) names none (create only).
    type: str
  password:
    description:
      - The root password of a new container (create only; never read, compared or shown).
    type: str
  ssh_public_keys:
    description:
      - Public keys for root of a new container (wire name C(ssh-public-keys); create only).
    type: str
  nameserver:
    description:
      - DNS servers the container's C(/etc/resolv.conf) gets, IP addresses in order (a link-local IPv6 one may name
        its interface, C(fe80::1%eth0)), such as V([10.0.0.53, 10.0.1.53]) or the text C(pvesh get) shows. PVE keeps
        them joined by spaces. Without it and O(searchdomain), a new container takes the node's DNS settings.
    type: list
    elements: str
  searchdomain:
    description:
      - DNS search domains of the container, in order, as O(nameserver).
    type: list
    elements: str
  unprivileged:
    description:
      - Whether the container is unprivileged. It cannot change in place - another value is refused.
    type: bool
  arch:
    description:
      - The architecture; cannot change in place.
    type: str
    choices: [amd64, i386, arm64, armhf, riscv32, riscv64]
  ostype:
    description:
      - The distribution PVE sets the container up for (PVE derives it from the template).
    type: str
    choices: [debian, devuan, ubuntu, centos, fedora, opensuse, archlinux, alpine, gentoo, nixos, unmanaged]
  memory:
    description:
      - Memory in MiB (at least 16).
    type: int
  swap:
    description:
      - Swap in MiB.
    type: int
  console:
    description:
      - Whether a console device is attached (PVE's default V(true)).
    type: bool
  tty:
    description:
      - Number of ttys (0 to 6).
    type: int
  cmode:
    description:
      - The console mode.
    type: str
    choices: [shell, console, tty]
  features:
    description:
      - Features, C(nesting=1,keyctl=1,...), compared as pairs. Features beyond nesting may need root@pam.
    type: str
  rootfs:
    description:
      - The root disk, C(<storage>:<GiB>[,key=value...]) as a create takes it, or the live value as C(pvesh get) shows
        it.
      - Compared by storage, size and keys (the volume name is PVE's). A larger size grows the disk (C(resize)); a
        smaller one, another storage or another volume is refused, never replaced. A C(size=) needs a unit (K, M, G,
        T).
    type: str
  mp0:
    description:
      - Mount point 0, C(<storage>:<GiB>,mp=<path>[,key=value...]), judged like O(rootfs). A host path (bind mount) is
        refused; only root@pam may configure one.
    type: str
  mp1:
    description:
      - Mount point 1, as O(mp0).
    type: str
  mp2:
    description:
      - Mount point 2, as O(mp0).
    type: str
  mp3:
    description:
      - Mount point 3, as O(mp0).
    type: str
  mp4:
    description:
      - Mount point 4, as O(mp0).
    type: str
  mp5:
    description:
      - Mount point 5, as O(mp0).
    type: str
  mp6:
    description:
      - Mount point 6, as O(mp0).
    type: str
  mp7:
    description:
      - Mount point 7, as O(mp0).
    type: str
  net0:
    description:
      - Network device 0, C(name=eth0,bridge=vmbr0,ip=dhcp[,...]) (C(name) required), compared as pairs. The MAC
        address (C(hwaddr)) PVE generated is compared only when declared, and kept on every update; PVE's implied
        C(type=veth) is ignored.
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
  template:
    description:
      - V(true) converts the stopped container into a template once (C(POST .../template), a task, after any config
        write); a template is never started, and V(false) on a template is refused (PVE has no way back). A running
        container is not converted. Unset is unmanaged.
    type: bool
seealso:
  - module: homeflare.proxmox.vm
  - module: homeflare.proxmox.lxc_info
'''

EXAMPLES = r'''
- name: A container, created once from its template, then kept as declared
  module_defaults:
    group/homeflare.proxmox.proxmox:
      api_host: [pve1.example.org, pve2.example.org]
  homeflare.proxmox.lxc:
    node: pve1
    vmid: 101
    hostname: web1
    ostemplate: local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst
    unprivileged: true
    cores: 2
    memory: 1024
    rootfs: local-lvm:8
    net0: name=eth0,bridge=vmbr0,ip=dhcp
    tags: [web, prod]
    nameserver: [10.0.0.53, 10.0.1.53]
    searchdomain: [lab.example.org]
    onboot: true
    state: started

- name: An application container from an OCI image pulled with storage_content (docker.io/library/nginx:latest)
  homeflare.proxmox.lxc:
    node: pve1
    vmid: 102
    hostname: proxy1
    ostemplate: local:vztmpl/nginx_latest.tar
    rootfs: local-lvm:4
    net0: name=eth0,bridge=vmbr0,ip=dhcp,host-managed=1
    state: started

- name: Verify every container without writing (CI drift gate)
  homeflare.proxmox.lxc:
    node: pve1
    vmid: 101
    hostname: web1
    cores: 2
  check_mode: true
  diff: true

- name: Destroy a stopped container and drop it from jobs and HA
  homeflare.proxmox.lxc:
    node: pve1
    vmid: 101
    hostname: web1
    state: absent
    confirm_removal: true
    purge: true
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
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.lxc import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
