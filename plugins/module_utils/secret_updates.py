# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A family whose secret (an IPAM's API token, a DNS server's API key, a user's password) is never compared: PVE
answers it in every read or in none, but the collection neither reads nor shows it, so it cannot tell a changed
secret from an unchanged one. ``update_secret`` (a user's ``update_password``) says what a run does with a declared
secret on an object that exists:

* ``on_create`` (the default): nothing; the secret is written only when the object is created.
* ``always``: it is written on every real run, reported as a change (``changed`` names the option; check mode
  says it would be written). The way to rotate a secret: run once with ``always``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Plan

# The control's argument spec (update_secret, update_password).
SECRET_UPDATE = dict(type='str', default='on_create', choices=['on_create', 'always'])
UPDATE_SECRET = {'update_secret': SECRET_UPDATE}


class SecretUpdates:
    """A Family mixin: with ``secret_control`` (update_secret) always, a found object's declared secrets join the
    plan's changes."""

    secret_control = 'update_secret'

    def plan(self, declaration, raw, batch=()):
        the_plan = super(SecretUpdates, self).plan(declaration, raw, batch)
        if declaration.state != 'present' or the_plan.action not in ('none', 'update') or \
                declaration.controls.get(self.secret_control) != 'always':
            return the_plan
        secrets = [field.option for field in self.fields if field.secret and declaration.values.get(field.option)
                   and field.option not in the_plan.changed]
        if not secrets:
            return the_plan
        return Plan(the_plan.read, 'update', list(the_plan.changed) + secrets)
