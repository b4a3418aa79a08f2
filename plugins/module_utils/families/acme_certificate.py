# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's ACME certificate: ordered, renewed or revoked through /nodes/{node}/certificates/acme/certificate
(pve-manager PVE/API2/ACME.pm), for the domains the node's config names (PVE/NodeConfig.pm get_acme_conf: the
``acme`` property's ``domains`` and ``acmedomain0``..``acmedomain5``).

Nothing here is a field: the node's config says which domains, the certificate info
(``GET /nodes/{node}/certificates/info``, the ``pveproxy-ssl.pem`` row) what the node serves. A time-valid
certificate covering every configured domain and not expiring within ``renew_days`` is a no-op; a node without a
custom certificate, or with one that misses a domain, gets an order (POST, ``force`` over a certificate that is
there); a covering one that is due is renewed (PUT). Each is a worker task, waited for. ``state: absent`` revokes
the node's covering certificate (DELETE) and the node serves its self-signed one again; a custom certificate that
does not cover the domains is not this node's ACME certificate and is left alone. The plan says why."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import item_path
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, NotConverged, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.node_config import (
    ACME_FIELD, SLOTS, AcmeDomain)
from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
    Absent, Family, ItemStore, Lifecycle, Plan, Where, absent)
from ansible_collections.homeflare.proxmox.plugins.module_utils.tasks import wait_if_task

CUSTOM = 'pveproxy-ssl.pem'
CONFIG = '/nodes/{node}/config'
INFO = '/nodes/{node}/certificates/info'
ORDER = '/nodes/{node}/certificates/acme/certificate'
# One acmedomainN value, read as node_config reads it.
ACME_DOMAIN = AcmeDomain('acmedomain')
DAY = 24 * 60 * 60


def configured_domains(config):
    """The node config's ACME domains, lower-cased (get_acme_conf), sorted: the ``acme`` property's ``domains``
    (``;``-separated) and each ``acmedomainN``'s ``domain``, read with node_config's own fields."""
    domains = set()
    acme = dict(ACME_FIELD.pairs(config.get('acme')))
    domains.update(item.strip().lower() for item in (acme.get('domains') or '').split(';') if item.strip())
    for slot in SLOTS:
        if config.get(slot):
            domain = dict(ACME_DOMAIN.pairs(config[slot])).get('domain')
            if domain:
                domains.add(domain.lower())
    return sorted(domains)


def covers(names, domain):
    """Whether a certificate's SAN ``names`` cover ``domain``: the name itself, or a wildcard one label above."""
    names = set(str(name).lower() for name in names)
    if domain in names:
        return True
    _label, dot, parent = domain.partition('.')
    return bool(dot) and '*.' + parent in names


def iso(epoch):
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(int(epoch)))


class NoCertificate(Absent):
    """No custom certificate: the node serves its self-signed pve-ssl.pem. Keeps the configured domains."""

    def __init__(self, domains):
        self.domains = domains


class Certificate(dict):
    """The node's custom certificate (its info row) and the configured domains."""

    @property
    def domains(self):
        return self['domains']

    @property
    def names(self):
        return sorted(set(str(name).lower() for name in self['certificate'].get('san') or []))

    def missing(self):
        return [domain for domain in self.domains if not covers(self.names, domain)]

    def covering(self):
        return bool(self.domains) and not self.missing()


class AcmeStatus(ItemStore):
    """The node's configured domains and the custom certificate it serves (or NoCertificate)."""

    def read(self, client, family, ident):
        config = client.get(item_path(CONFIG, ident), role=family.read_role) or {}
        domains = configured_domains(config)
        rows = client.get(item_path(INFO, ident), role=family.read_role) or []
        row = next((row for row in rows if row.get('filename') == CUSTOM), None)
        if row is None:
            return NoCertificate(domains)
        return Certificate(domains=domains, certificate=row)


class CertificatePlan(Plan):
    """A plan with the call it makes (``order``, ``renew``, ``revoke`` or None) and the reason, in words."""

    def __init__(self, read, action, changed, call, reason):
        super(CertificatePlan, self).__init__(read, action, changed)
        self.call = call
        self.reason = reason

    def as_dict(self):
        result = super(CertificatePlan, self).as_dict()
        result.update(call=self.call, reason=self.reason)
        return result


class AcmeCertificateFamily(Family):
    def check_declaration(self, declaration):
        renew_days = declaration.controls.get('renew_days')
        if renew_days is None or renew_days < 0:
            raise DeclarationError('option renew_days: %r is below the minimum 0' % renew_days)

    # -- judging ----------------------------------------------------------------------------------
    def plan(self, declaration, raw, batch=()):
        node = declaration.ident['node']
        read = 'absent' if absent(raw) else 'found'
        domains = raw.domains
        if declaration.state == 'absent':
            if absent(raw):
                return CertificatePlan(read, 'none', [], None, '%s has no custom certificate' % node)
            if not raw.covering():
                return CertificatePlan(read, 'none', [], None, (
                    "%s's custom certificate (%s) does not cover its configured ACME domains (%s): it is not this "
                    "node's ACME certificate, so it is left alone" % (node, ', '.join(raw.names) or 'no names',
                                                                      ', '.join(domains) or 'none')))
            return CertificatePlan(read, 'delete', [], 'revoke', (
                "revoke %s's certificate for %s and remove it; the node serves its self-signed certificate again"
                % (node, ', '.join(domains))))
        if not domains:
            return CertificatePlan(read, 'update' if not absent(raw) else 'create', ['domains'], 'order', (
                '%s has no ACME domains configured yet (acme domains and acmedomain0..5 of /nodes/%s/config); '
                'an order needs them' % (node, node)))
        if absent(raw):
            return CertificatePlan(read, 'create', ['domains', 'expires'], 'order', (
                '%s has no custom certificate (it serves its self-signed pve-ssl.pem): order one for %s'
                % (node, ', '.join(domains))))
        missing = raw.missing()
        if missing:
            return CertificatePlan(read, 'update', ['domains'], 'order', (
                "%s's certificate covers %s but not %s: order a new one" % (
                    node, ', '.join(raw.names) or 'no names', ', '.join(missing))))
        notafter = int(raw['certificate'].get('notafter') or 0)
        renew_days = declaration.controls['renew_days']
        left = notafter - time.time()
        if left < renew_days * DAY:
            if left <= 0:
                when = 'expired at %s' % iso(notafter)
            else:
                when = 'expires at %s (in %d days), within renew_days (%d)' % (iso(notafter), left // DAY, renew_days)
            return CertificatePlan(read, 'update', ['expires'], 'renew', "%s's certificate for %s %s: renew it" % (
                node, ', '.join(domains), when))
        return CertificatePlan(read, 'none', [], None, (
            "%s's certificate covers %s and expires at %s (in %d days, after renew_days %d)"
            % (node, ', '.join(domains), iso(notafter), left // DAY, renew_days)))

    def object_view(self, declaration, raw):
        if absent(raw):
            return {}
        row = raw['certificate']
        notafter = int(row.get('notafter') or 0)
        return dict(declaration.ident, domains=raw.names, expires=iso(notafter), fingerprint=row.get('fingerprint'),
                    subject=row.get('subject'), issuer=row.get('issuer'),
                    days_left=int((notafter - time.time()) // DAY))

    def diff(self, declaration, raw, the_plan):
        """``domains`` the certificate covers and when it ``expires``; after: the configured domains and the date
        it must outlast."""
        before = {}
        if not absent(raw):
            before = dict(declaration.ident, domains=raw.names, expires=iso(raw['certificate'].get('notafter') or 0))
        if the_plan.action == 'delete':
            return dict(before=before, after={})
        after = dict(before or declaration.ident)
        if 'domains' in the_plan.changed:
            after['domains'] = list(raw.domains)
        if 'expires' in the_plan.changed:
            after['expires'] = 'after %s' % iso(time.time() + declaration.controls['renew_days'] * DAY)
        return dict(before=before, after=after)

    # -- writing ----------------------------------------------------------------------------------
    def check_write(self, declaration, raw, the_plan):
        if the_plan.call == 'order' and not raw.domains:
            node = declaration.ident['node']
            raise Refused('%s has no ACME domains configured (acme domains or acmedomain0..5 of /nodes/%s/config): '
                          'declare them first (homeflare.proxmox.node_config, acme_domains). Nothing was written.'
                          % (node, node))

    def act(self, client, declaration, raw, the_plan, result):
        """The one call (a worker task, waited for), then the certificate read back: a new one that covers every
        domain, or none after a revocation."""
        path = self.path(declaration.ident)
        if the_plan.call == 'order':
            answer = client.post(path, {} if absent(raw) else {'force': '1'}, role=self.write_role)
        elif the_plan.call == 'renew':
            # force: renew_days may ask for a renewal earlier than PVE's own 30 days
            answer = client.put(path, {'force': '1'}, role=self.write_role)
        else:
            answer = client.delete(path, role=self.write_role)
        wait_if_task(client, answer, self.write_role, declaration.task_timeout or self.task_timeout,
                     result['warnings'])
        after = self.read(client, declaration)
        self.judge_after(declaration, raw, after, the_plan, result['warnings'])
        return after, the_plan

    def judge_after(self, declaration, before, after, the_plan, warnings):
        """The read after the task: PVE can end a task well and leave the node as it was."""
        node = declaration.ident['node']
        if the_plan.call == 'revoke':
            if not absent(after):
                raise NotConverged('the revocation of %s\'s certificate returned no error but the node still has a '
                                   'custom certificate' % node)
            return
        if absent(after) or not after.covering():
            raise NotConverged('the %s for %s ended without error but the node does not serve a certificate '
                               'covering %s' % (the_plan.call, node, ', '.join(after.domains)))
        if not absent(before) and after['certificate'].get('fingerprint') == before['certificate'].get('fingerprint'):
            raise NotConverged('the %s for %s ended without error but the node still serves the same certificate'
                               % (the_plan.call, node))
        left = int(after['certificate'].get('notafter') or 0) - time.time()
        if left < declaration.controls['renew_days'] * DAY:
            warnings.append("%s's new certificate expires in %d days, within renew_days (%d): every run will renew "
                            "it; declare renew_days below the CA's lifetime" % (node, left // DAY,
                                                                                declaration.controls['renew_days']))

    def find_all(self, client):
        """The nodes that serve a certificate covering their configured ACME domains."""
        found = []
        for row in client.get('/nodes', role=self.read_role) or []:
            ident = {'node': row.get('node')}
            raw = self.store.read(client, self, ident)
            if not absent(raw) and raw.covering():
                found.append((ident, raw))
        return found


FAMILY = AcmeCertificateFamily(
    'acme_certificate', 'ACME certificate',
    identity=[Text('node', required=True, format='pve-node')],
    fields=[],
    where=Where(item=ORDER, store=AcmeStatus(), schema=('POST', ORDER)),
    # Revocation is final at the CA: state=absent needs confirm_removal. Orders wait for validation.
    lifecycle=Lifecycle(retain=True, task_timeout=600),
    controls={'renew_days': dict(type='int', default=30)},
)
