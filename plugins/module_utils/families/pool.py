# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pool family: /pools?poolid= (PVE 8.1+; /pools/{poolid} cannot name a nested pool such as lab/web).

``members`` declares the pool's guests (``vms``) and storages (``storage``), compared as sets against the members
``GET /pools?poolid=`` lists: the declared ones must be members; with ``exclusive: true`` nothing else may be.
PVE's ``update_pool`` (pve-manager PVE/API2/Pool.pm) adds the listed ids, or removes them with ``delete=1``, so a
repair is at most two writes: the additions (with ``allow-move``: a guest in another pool moves here) and, when
exclusive, the removals. A guest's membership is declared either here or on the guest (``lxc``/``vm`` option
``pool``); ``declare`` refuses both for the same guest.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import MISSING, Field, Text, perl_true_text
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, MissingReference
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import why_not
from ansible_collections.homeflare.proxmox.plugins.module_utils.guest import GUEST_MODULES, cluster_guests
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absence, Family, Listing, QueryStore, Where, absent)


class Members(Field):
    """A pool's members: ``{vms: [vmid, ...], storage: [storage id, ...], exclusive: bool}``, canonical as sorted
    lists. Live, the rows of the pool's member list (type qemu/lxc with ``vmid``, type storage with ``storage``).
    The declared members must all be there; ``exclusive`` also forbids any other. Written by PoolStore, never as a
    key of its own (PVE has no ``members`` parameter)."""

    ansible_type = 'dict'
    unset = None

    def argument_spec(self):
        spec = super(Members, self).argument_spec()
        spec['options'] = dict(vms=dict(type='list', elements='int', default=[]),
                               storage=dict(type='list', elements='str', default=[]),
                               exclusive=dict(type='bool', default=False))
        return spec

    def canonical(self, value):
        value = value or {}
        return dict(vms=sorted(set(str(vmid) for vmid in value.get('vms') or []), key=int),
                    storage=sorted(set(str(sid) for sid in value.get('storage') or [])),
                    exclusive=bool(value.get('exclusive')))

    def declared(self, value):
        value = self.canonical(value)
        for vmid in value['vms']:
            if not 100 <= int(vmid) <= 999999999:
                self.refuse(int(vmid), 'is no vmid (100 to 999999999)')
        for sid in value['storage']:
            why = why_not('pve-storage-id', sid)
            if why:
                self.refuse(sid, 'is not a valid pve-storage-id (%s)' % why)
        return value

    def live(self, raw):
        rows = [] if raw is MISSING or raw is None else raw
        return dict(vms=sorted(set(str(row['vmid']) for row in rows if row.get('type') in ('qemu', 'lxc', 'openvz')
                                   and row.get('vmid') is not None), key=int),
                    storage=sorted(set(str(row['storage']) for row in rows if row.get('type') == 'storage'
                                       and row.get('storage'))),
                    exclusive=False)

    def is_unset(self, value):
        return not value or not (value['vms'] or value['storage'] or value['exclusive'])

    def differs(self, desired, current):
        return any(missing_and_extra(desired, current, kind) != ([], []) for kind in ('vms', 'storage'))

    def exported(self, value):
        return dict(vms=[int(vmid) for vmid in value['vms']], storage=list(value['storage']))


def missing_and_extra(desired, current, kind):
    """(the declared ``kind`` ids the pool lacks, the members an exclusive declaration removes)."""
    live = current[kind] if current else []
    missing = [item for item in desired[kind] if item not in live]
    extra = [item for item in live if item not in desired[kind]] if desired['exclusive'] else []
    return missing, extra


class PoolStore(QueryStore):
    """QueryStore, plus the members: POST /pools takes only the id and comment, so a new pool's members are added
    by a PUT after it; an update's additions go with the comment in one PUT (``allow-move``), removals in a PUT of
    their own (``delete=1``)."""

    def create(self, client, family, ident, form):
        members = form.pop('members', None)
        answer = super(PoolStore, self).create(client, family, ident, form)
        self.write_members(client, family, ident, {}, members, None)
        return answer

    def update(self, client, family, ident, form, live):
        members = form.pop('members', None)
        return self.write_members(client, family, ident, form, members, MEMBERS.live(live.get('members', MISSING)))

    def write_members(self, client, family, ident, form, members, current):
        form, removals = dict(form), {}
        for kind in ('vms', 'storage') if members else ():
            missing, extra = missing_and_extra(members, current, kind)
            if missing:
                form[kind] = ','.join(missing)
            if extra:
                removals[kind] = ','.join(extra)
        if form.get('vms'):
            form['allow-move'] = '1'
        answer = None
        if form:
            answer = super(PoolStore, self).update(client, family, ident, form, None)
        if removals:
            answer = super(PoolStore, self).update(client, family, ident, dict(removals, delete='1'), None)
        return answer


class PoolFamily(Family):
    def check_create(self, declaration):
        """pve-manager PVE/API2/Pool.pm ``create_pool``: every level's name starts with a letter (a nested pool's
        parents met the same rule when they were made)."""
        poolid = declaration.ident['poolid']
        if not all(name[:1].isalpha() for name in poolid.split('/')):
            raise DeclarationError("option poolid: pool '%s': pool name must start with a letter" % poolid)

    def check_together(self, declaration, entries):
        """One source of truth per guest: a guest these members name must not declare its own ``pool``."""
        members = declaration.values.get('members')
        if not members:
            return
        for entry in entries:
            if entry.module in GUEST_MODULES and entry.declaration.values.get('pool') is not None \
                    and str(entry.declaration.ident['vmid']) in members['vms']:
                raise DeclarationError(
                    "option members: guest %s is in pool '%s''s members and declares pool itself (%s); a guest's "
                    "membership is declared in one place: drop its pool option, or drop it from these members"
                    % (entry.declaration.ident['vmid'], declaration.ident['poolid'], entry.label))

    def check_references(self, declaration, raw, batch, client):
        """PVE adds any vmid or storage id to a pool, but lists only existing ones as members: a declared member
        that does not exist yet would never read back. It must exist when the pool is written (pools come before
        guests and storages in declare's order, so a guest made in the same task joins through its own pool)."""
        members = declaration.values.get('members')
        if not members:
            return
        current = MEMBERS.live(MISSING if absent(raw) else raw.get('members', MISSING))
        wanted = missing_and_extra(members, current, 'vms')[0]
        if wanted:
            guests = set(str(row.get('vmid')) for row in cluster_guests(client, self.read_role))
            unknown = [vmid for vmid in wanted if vmid not in guests]
            if unknown:
                raise MissingReference(
                    "%s: option members: guest %s is not in the cluster (GET /cluster/resources): PVE would "
                    "add the id but list no such member. Create the guest first, or declare pool: %s on it. "
                    "Nothing was written."
                    % (self.describe(declaration.ident), ', '.join(unknown), declaration.ident['poolid']))
        storages = missing_and_extra(members, current, 'storage')[0]
        if storages:
            live = set(row.get('storage') for row in client.get('/storage', role=self.read_role) or [])
            unknown = [sid for sid in storages if sid not in live]
            if unknown:
                raise MissingReference(
                    "%s: option members: storage %s does not exist (GET /storage): PVE would add the id "
                    "but list no such member. Declare the storage first. Nothing was written."
                    % (self.describe(declaration.ident), ', '.join(unknown)))

    def report(self, raw):
        return {'members': len(raw.get('members') or [])}

    def finish(self, client, declaration, raw, the_plan, result):
        """The object's ``members``: the member count, or the members themselves when they are declared."""
        result = super(PoolFamily, self).finish(client, declaration, raw, the_plan, result)
        if result['object'] and declaration.values.get('members') is not None:
            result['object']['members'] = MEMBERS.exported(MEMBERS.live(raw.get('members', MISSING)))
        return result


MEMBERS = Members('members', schema_key=None)

FAMILY = PoolFamily(
    'pool', 'pool',
    identity=[Text('poolid', required=True, format='pve-poolid')],
    fields=[Text('comment', default='', normalise=perl_true_text),  # user.cfg: '0' is never written
            MEMBERS],
    where=Where(collection='/pools', store=PoolStore(), listing=Listing('/pools', lacks=('members',)),
                # PVE answers a missing pool with 500 "pool 'x' does not exist" (some versions 404).
                absence=Absence((404, 500), r'does not exist')),
)
