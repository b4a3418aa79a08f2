#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: cluster_options
short_description: Declare the Proxmox VE datacenter options
version_added: 0.1.0
description:
  - Repairs the declared options of C(/etc/pve/datacenter.cfg) (C(/cluster/options)), the cluster-wide defaults of the
    Datacenter view. The file always exists, so there is nothing to create or remove and no C(state) option.
  - Options left undeclared are not managed (neither sent nor compared). An option declared empty (V('')) is removed
    from the file (C(delete=)), so PVE's default applies again.
  - Property-string options (O(migration), O(replication), O(ha), O(crs), O(next_id), O(bwlimit), O(tag_style),
    O(user_tag_access), O(webauthn)) take PVE's own C(key=value,...) text and are compared as sets of pairs, so the
    order of the keys does not matter and V(yes)/V(true)/V(on) equal V(1). Each key is checked against PVE's format
    (its keys, enums, ranges and patterns) before any request.
  - The file has no digest in the API (PVE 9's C(PUT /cluster/options) takes none), so a write is one C(PUT) of the
    drifted options and the last writer wins, as in the web interface.
  - Reading needs C(Sys.Audit) on C(/); writing C(Sys.Modify) on C(/).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  keyboard:
    description: Default keyboard layout of the VNC console.
    type: str
    choices: [de, de-ch, da, en-gb, en-us, es, fi, fr, fr-be, fr-ca, fr-ch, hu, is, it, ja, lt, mk, nl, 'no', pl, pt,
              pt-br, sv, sl, tr]
  language:
    description: Default language of the web interface.
    type: str
    choices: [ar, ca, da, de, en, es, eu, fa, fr, hr, he, it, ja, ka, kr, nb, nl, nn, pl, pt_BR, ru, sl, sv, tr, ukr,
              zh_CN, zh_TW]
  console:
    description:
      - Default console viewer. PVE stores V(applet) as V(html5), so declare V(html5).
    type: str
    choices: [applet, vv, html5, xtermjs]
  email_from:
    description: Sender address of notifications (an e-mail address; PVE's default is C(root@<hostname>)).
    type: str
  http_proxy:
    description: Proxy for downloads, C(http://[user:password@]host:port/).
    type: str
  mac_prefix:
    description:
      - Prefix of the MAC addresses PVE generates for guests, one to three octets of a unicast address such as
        C(BC:24:11) (PVE's default).
      - PVE's format takes whole octets only, although its own help suggests C(BC:24:11:0).
    type: str
  max_workers:
    description: How many workers per node start at most for bulk actions and HA tasks, 1 or more.
    type: int
  fencing:
    description: Fencing mode of the HA cluster.
    type: str
    choices: [watchdog, hardware, both]
  description:
    description:
      - The datacenter notes, kept as comment lines at the top of C(datacenter.cfg).
      - PVE reads every line back with a newline; trailing newlines are ignored when comparing.
    type: str
  migration:
    description:
      - Migration settings as C([type=]secure|insecure[,network=<CIDR>]).
    type: str
  replication:
    description:
      - Storage replication traffic settings as C([type=]secure|insecure[,network=<CIDR>]).
    type: str
  ha:
    description: HA settings as C(shutdown_policy=freeze|failover|conditional|migrate).
    type: str
  crs:
    description:
      - Cluster resource scheduling as C(key=value,...) with the keys C(ha) (V(basic), V(static), V(dynamic)),
        C(ha-rebalance-on-start), C(ha-auto-rebalance) (1/0), C(ha-auto-rebalance-method) (V(bruteforce),
        V(topsis)), C(ha-auto-rebalance-hold-duration), C(ha-auto-rebalance-margin) and
        C(ha-auto-rebalance-threshold) (numbers; PVE checks them).
    type: str
  next_id:
    description:
      - The range free VM ids are picked from, C(lower=<N>,upper=<N>) (wire name C(next-id)); C(lower) from 100
        (default 100), C(upper) up to 1000000000 (default 1000000), lower not above upper.
    type: str
  bwlimit:
    description:
      - Bandwidth limits in KiB/s as C(key=value,...) with the keys C(clone), C(default), C(migration), C(move) and
        C(restore), each a whole number of 0 or more.
    type: str
  tag_style:
    description:
      - How tags are shown (wire name C(tag-style)), C(key=value,...) with the keys C(case-sensitive) (1/0),
        C(color-map) (C(<tag>:<hex-color>[:<hex-color>][;...])), C(ordering) (V(config), V(alphabetical)) and
        C(shape) (V(full), V(circle), V(dense), V(none)).
    type: str
  user_tag_access:
    description:
      - Which tags users without C(Sys.Modify) may set (wire name C(user-tag-access)), C(key=value,...) with the keys
        C(user-allow) (V(none), V(list), V(existing), V(free)) and C(user-allow-list) (tags separated by C(;)).
      - PVE sorts C(user-allow-list); declare it sorted, as PVE stores it.
    type: str
  registered_tags:
    description:
      - Tags only users with C(Sys.Modify) on C(/) may set or remove (wire name C(registered-tags)), compared
        order-free. An empty list removes the option.
    type: list
    elements: str
  webauthn:
    description:
      - WebAuthn settings as C(key=value,...) with the keys C(rp), C(origin), C(id) and C(allow-subdomains) (1/0).
        Changing them may break the credentials users registered.
    type: str
seealso:
  - module: homeflare.proxmox.metric_server
  - module: homeflare.proxmox.backup_job
'''

EXAMPLES = r'''
- name: Declare the datacenter defaults
  homeflare.proxmox.cluster_options:
    keyboard: de
    language: en
    console: xtermjs
    email_from: pve@example.org
    migration: type=insecure,network=10.10.0.0/24
    ha: shutdown_policy=migrate
    crs: ha=static,ha-rebalance-on-start=1
    next_id: lower=1000,upper=9999
    tag_style: shape=dense,ordering=config
    registered_tags: [prod, backup]
    description: |
      Lab cluster, managed by Ansible.

# Verify without writing: `ansible-playbook site.yml --check --diff`
# names in plan.changed every option that differs from the declaration.
- name: Remove the bandwidth limits again (PVE's defaults apply)
  homeflare.proxmox.cluster_options:
    bwlimit: ''
'''

RETURN = r'''
object:
  description: The managed options as read after the run.
  returned: always
  type: dict
  sample: {"keyboard": "de", "migration": "network=10.10.0.0/24,type=insecure", "registered_tags": ["backup", "prod"]}
plan:
  description:
    - What the run decided. C(read) is V(found); C(action) is V(update) or V(none).
    - C(changed) lists the drifted option names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["keyboard"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.cluster_options import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
