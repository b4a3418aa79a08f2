# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What an SDN object names (a zone its controller, IPAM, DNS servers and fabric; an EVPN controller its fabric),
checked before any write: the named object is live or declared present in the same ``declare`` task.

PVE checks a zone's DNS servers and IPAM itself (400 ``... don't exist``), and an evpn zone's controller
only after taking the lock (500 ``controller ... don't exist``); a fabric it takes unchecked and fails on at
the apply. Judged here first, a missing name is one sentence before anything is written.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import MissingReference
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import absent

# What a reference names: kind -> (the module declaring it, the list read, the list's id key). The lists are
# the staged (or, for IPAMs and DNS servers, only) configuration PVE's own checks read.
KINDS = {
    'controller': ('sdn_controller', '/cluster/sdn/controllers', 'controller'),
    'ipam': ('sdn_ipam', '/cluster/sdn/ipams', 'ipam'),
    'dns': ('sdn_dns', '/cluster/sdn/dns', 'dns'),
    # The fabric family's own list answers only with the fabrics; /all is the one view of both kinds.
    'fabric': ('sdn_fabric', '/cluster/sdn/fabrics/all', 'id'),
}


def live_ids(client, family, batch, kind):
    """The ids the server lists for ``kind`` (read once per ``declare`` batch)."""
    _module, path, key = KINDS[kind]
    memo = getattr(batch, 'memo', None)
    if memo is not None and ('sdn ids', kind) in memo:
        return memo[('sdn ids', kind)]
    answer = client.get(path, role=family.read_role) or []
    rows = (answer.get('fabrics') or []) if isinstance(answer, dict) else answer
    ids = set(str(row.get(key)) for row in rows)
    if memo is not None:
        memo[('sdn ids', kind)] = ids
    return ids


def declared_ids(batch, kind):
    """(ids declared present, ids declared absent) by the module of ``kind`` in the same ``declare``."""
    module = KINDS[kind][0]
    present, gone = set(), set()
    for entry in batch:
        if entry.module != module:
            continue
        ident = entry.declaration.ident
        name = str(ident[entry.family.identity[0].option])
        (gone if entry.declaration.state == 'absent' else present).add(name)
    return present, gone


def check_named(client, family, declaration, raw, batch, names):
    """Refuse a name that is neither live nor declared present, or that the same task declares absent. ``names``:
    [(option, kind, value)]; a value equal to the live one was accepted before and is not looked up again."""
    current = {} if absent(raw) else family.current(raw)
    for option, kind, value in names:
        if value in (None, '', []):
            continue
        present, gone = declared_ids(batch, kind)
        module, what = KINDS[kind][0], family.describe(declaration.ident)
        if value in gone:  # even unchanged: its removal would fail, or leave this object naming nothing
            raise MissingReference("%s: option %s names the %s '%s', which this task also declares absent (%s with "
                                   "state=absent); keep one of them. Nothing was written." % (
                                       what, option, kind, value, module))
        if value in present or value == current.get(option):
            continue
        if value not in live_ids(client, family, batch, kind):
            raise MissingReference(
                "%s: option %s: the %s '%s' does not exist (GET %s lists none, for this credential) and is not "
                "declared in this task. Declare it with homeflare.proxmox.%s first. Nothing was written."
                % (what, option, kind, value, KINDS[kind][1], module))
