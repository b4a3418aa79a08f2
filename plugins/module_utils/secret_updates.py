# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A family whose secret (an IPAM's API token, a DNS server's API key) is never compared: PVE would answer it in
every read, but the collection neither reads nor shows it, so it cannot tell a changed secret from an unchanged
one. ``update_secret`` says what a run does with a declared secret on an object that exists:

* ``on_create`` (the default): nothing; the secret is written only when the object is created.
* ``always``: it is written on every real run, reported as a change (``changed`` names the option; check mode
  says it would be written). The way to rotate a secret: run once with ``always``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Plan

UPDATE_SECRET = {'update_secret': dict(type='str', default='on_create', choices=['on_create', 'always'])}


class SecretUpdates:
    """A Family mixin: with update_secret=always, a found object's declared secrets join the plan's changes."""

    def plan(self, declaration, raw, batch=()):
        the_plan = super(SecretUpdates, self).plan(declaration, raw, batch)
        if declaration.state != 'present' or the_plan.action not in ('none', 'update') or \
                declaration.controls.get('update_secret') != 'always':
            return the_plan
        secrets = [field.option for field in self.fields if field.secret and declaration.values.get(field.option)
                   and field.option not in the_plan.changed]
        if not secrets:
            return the_plan
        return Plan(the_plan.read, 'update', list(the_plan.changed) + secrets)
