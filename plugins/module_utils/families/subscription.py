# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's subscription: /nodes/{node}/subscription (pve-manager PVE/API2/Subscription.pm).

``PUT key=`` sets the key and has the shop check it there and then; ``GET`` answers the status PVE keeps in
/etc/subscription and, to a reader with Sys.Audit on the node, the key itself (Subscription.pm ``get``). So the
key is compared with the live one, as a secret: no_log, and only ever shown as a placeholder. The status is
judged beside it: a declared subscription is an active one, and a key PVE set but the shop did not take fails
the task with what PVE reads. ``status: notfound`` (no file, or only the key line of a check that failed) is
absence; ``DELETE`` removes the file.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    ApiError, DeclarationError, NotConverged, Unreadable)
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    ABSENT, Exporting, Family, ItemStore, Where, absent)

SUBSCRIPTION = '/nodes/{node}/subscription'
# What a diff and the returned object show for a key: never the key.
SHOWN = '(secret)'
ANOTHER = '(another key)'
# Reported beside the managed fields (never the key, the server ID's signature or the shop's raw answer).
REPORTED = ('productname', 'level', 'regdate', 'nextduedate', 'message')


class SubscriptionKey(Text):
    """The key: compared with the live one (PVE answers it to a Sys.Audit reader) but never shown: no_log in the
    argument spec, a placeholder in the diff and the object, and a refusal names the rule, never the value."""

    def argument_spec(self):
        return dict(super(SubscriptionKey, self).argument_spec(), no_log=True)

    def refuse(self, value, why):
        raise DeclarationError('option %s: the value %s' % (self.option, why))


class KeyRefused(ApiError):
    """PVE's refusal of a key (the shop bound it to another server, too few sockets), naming the node."""

    def __init__(self, node, exc):
        self.node = node
        super(KeyRefused, self).__init__(exc.status, exc.reason, method=exc.method, path=exc.path, errors=exc.errors,
                                         member=exc.member)

    def describe(self):
        return "node '%s' did not take the subscription key: %s" % (self.node, super(KeyRefused, self).describe())


class SubscriptionStore(ItemStore):
    def read(self, client, family, ident):
        raw = self.read_at(client, family, family.path(ident))
        if absent(raw) or raw.get('status') in (None, 'notfound'):
            return ABSENT
        return raw

    def create(self, client, family, ident, form):
        return self.update(client, family, ident, form, None)

    def update(self, client, family, ident, form, live):
        """The key is set (PUT, and the shop checks it); a status drift with no key declared is checked again."""
        try:
            if 'key' in form:
                return client.put(family.path(ident), dict(key=form['key']), role=family.write_role)
            return client.post(family.path(ident), dict(force='1'), role=family.write_role)
        except ApiError as exc:
            raise KeyRefused(ident['node'], exc)


def shown(view, declared):
    """A view (diff side or object) with its key replaced by a placeholder."""
    if 'key' in view:
        view = dict(view, key=SHOWN if view['key'] == declared else ANOTHER)
    return view


class SubscriptionFamily(Family):
    def object_spec(self):
        """``status`` is judged (an active subscription), never an option."""
        spec = super(SubscriptionFamily, self).object_spec()
        del spec['status']
        return spec

    def check_declaration(self, declaration):
        if declaration.values.get('key') == '':
            raise DeclarationError('option key must not be empty (state=absent removes the subscription)')

    def check_create(self, declaration):
        if not declaration.values.get('key'):
            raise DeclarationError("option key is required: node '%s' has no subscription to adopt"
                                   % declaration.ident['node'])

    def check_found(self, declaration, raw, changed):
        if 'key' in declaration.values and 'key' not in raw:
            raise Unreadable("subscription of node '%s': PVE answers the key only to a reader with Sys.Audit on "
                             "/nodes/%s, so the declared key cannot be compared; give the read credential that "
                             "privilege, or leave key undeclared" % ((declaration.ident['node'],) * 2))

    def act(self, client, declaration, raw, the_plan, result):
        """A key PVE set but the shop did not take reads back as not active: the task fails with PVE's status."""
        try:
            return super(SubscriptionFamily, self).act(client, declaration, raw, the_plan, result)
        except NotConverged:
            after = self.read(client, declaration)
            if absent(after) or after.get('status') == 'active':
                raise
            raise NotConverged("node '%s' took the subscription key, but its status is %s%s (PVE checked it with the "
                               "shop); the key stays set until state=absent removes it"
                               % (declaration.ident['node'], after.get('status'),
                                  ': %s' % after['message'] if after.get('message') else ''))

    def object_view(self, declaration, raw):
        return shown(super(SubscriptionFamily, self).object_view(declaration, raw), declaration.values.get('key'))

    def diff(self, declaration, raw, the_plan):
        diff = super(SubscriptionFamily, self).diff(declaration, raw, the_plan)
        declared = declaration.values.get('key')
        return dict((side, shown(view, declared)) for side, view in diff.items())

    def report(self, raw):
        return dict((key, raw[key]) for key in REPORTED if raw.get(key) is not None)

    def export_options(self, ident, raw):
        """The node alone: an active subscription is declared back without its key (undeclared: not compared)."""
        return dict(ident)


FAMILY = SubscriptionFamily(
    'subscription', 'subscription',
    identity=[Text('node', required=True, format='pve-node')],
    fields=[
        # PVE trims the key it is given (Subscription.pm set); an undeclared key is not compared.
        SubscriptionKey('key', always_send=True, pattern=r'\s*pve([1248])([cbsp])-[0-9a-f]{10}\s*', max_length=32,
                        normalise=lambda text: text.strip()),
        # What a declared subscription is: active (PVE reads new, notfound, invalid, expired, suspended otherwise).
        Text('status', default='active', schema_key=None),
    ],
    where=Where(item=SUBSCRIPTION, store=SubscriptionStore(), schema=('PUT', SUBSCRIPTION)),
    # No secret field (the key is compared), and an export leaves the key out (export_options).
    exporting=Exporting(placeholders={}),
)
