# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A grant (an ACL entry) on PVE and PBS alike: no URL of its own, one list to read, one PUT to bind and (with
delete=1) unbind. Each server's store says whom a grant binds (``subject``) and when a row missing from the list
proves absence (``read_unlisted``: both filter the list by the caller's privileges)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

ACL_PATH = '/access/acl'


class GrantStore:
    def read(self, client, family, ident):
        row = family.listing.read(client, family).get(family.key(ident))
        return row if row is not None else self.read_unlisted(client, family, ident)

    def read_unlisted(self, client, family, ident):
        raise NotImplementedError

    def subject(self, ident):
        """The PUT's parameters that name the grant: path, role and who."""
        raise NotImplementedError

    def create(self, client, family, ident, form):
        return client.put(ACL_PATH, dict(form, **self.subject(ident)), role=family.write_role)

    def update(self, client, family, ident, form, live):
        # A PUT of the same grant replaces its propagate flag (PVE and PBS keep one per path, subject and role).
        return self.create(client, family, ident, form)

    def delete(self, client, family, ident):
        return client.put(ACL_PATH, dict(self.subject(ident), delete='1'), role=family.write_role)
