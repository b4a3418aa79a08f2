# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the API token families of PVE and PBS share: a token's secret exists only in the answer of its creation,
so creating one is asked for explicitly (``create_missing``), and the result that carries it is hidden
(``SECRET_KEY``, plugins/action/api_token.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError, Refused
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family

# The result key that carries a new token's secret; the action plugin hides a result holding it.
SECRET_KEY = 'secret'
# The metadata a token's declaration must state, never left to a default (of those its server has), and what
# each value means.
ALWAYS_DECLARED = (('expire', '0 means it never expires'), ('privsep', 'true restricts the token to its own ACLs'))
# The module option that asks for a create (its value: declaration.controls['create_missing']).
CREATE_MISSING = {'create_missing': dict(type='bool', default=False)}


class TokenFamily(Family):
    """A token's secret exists only in the answer of its creation, so creating one is asked for explicitly.
    A server's family says how its operators mint a token by hand (``mint_command``)."""

    def mint_command(self, declaration):
        raise NotImplementedError

    def always_declared(self):
        wires = set(field.wire for field in self.fields)
        return [(option, meaning) for option, meaning in ALWAYS_DECLARED if option in wires]

    def check_declaration(self, declaration):
        """The token's metadata is always declared: left to the server's defaults it would change a live token on
        adoption."""
        if declaration.state == 'present':
            for option, meaning in self.always_declared():
                if declaration.values.get(option) is None:
                    raise DeclarationError('option %s is required with state=present (%s)' % (option, meaning))

    def check_create(self, declaration):
        if not declaration.controls.get('create_missing'):
            user, token = (declaration.ident[field.option] for field in self.identity)
            raise Refused(
                "%s '%s!%s' does not exist, and its secret exists only in the answer that creates it, so it is not "
                "created here unless asked: create it where the secret can be kept (`%s` or the OpenBao/Vault %s "
                "secrets mount) and declare it afterwards, or set create_missing=true and register this task's "
                "result, which carries the secret once. Nothing was written."
                % (self.name, user, token, self.mint_command(declaration), self.scheme.upper()))

    def object_spec(self):
        spec = super(TokenFamily, self).object_spec()
        spec[self.identity[-1].option]['no_log'] = False  # the token's name, not its secret
        return spec

    def export_options(self, ident, raw):
        """expire (and PVE's privsep) are always declared (check_declaration), so an export always writes them."""
        options = super(TokenFamily, self).export_options(ident, raw)
        current = self.current(raw)
        always = [option for option, _meaning in self.always_declared()]
        for field in self.fields:
            if field.option in always:
                options.setdefault(field.option, field.exported(current[field.option]))
        return options
