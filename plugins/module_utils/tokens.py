# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the API token families of PVE and PBS share: a token's secret exists only in the answer of its creation,
so creating one is asked for explicitly (``create_missing``), and the result that carries it is hidden
(``SECRET_KEY``, plugins/action/api_token.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family

# The result key that carries a new token's secret; the action plugin hides a result holding it.
SECRET_KEY = 'secret'
# The metadata a token's declaration must state, never left to a default (of those its server has).
ALWAYS_DECLARED = ('expire', 'privsep')
# The module option that asks for a create (its value: declaration.controls['create_missing']).
CREATE_MISSING = {'create_missing': dict(type='bool', default=False)}


class TokenFamily(Family):
    """A token's secret exists only in the answer of its creation, so creating one is asked for explicitly."""

    def object_spec(self):
        spec = super(TokenFamily, self).object_spec()
        spec[self.identity[-1].option]['no_log'] = False  # the token's name, not its secret
        return spec

    def export_options(self, ident, raw):
        """expire (and PVE's privsep) are always declared (check_declaration), so an export always writes them."""
        options = super(TokenFamily, self).export_options(ident, raw)
        current = self.current(raw)
        for field in self.fields:
            if field.option in ALWAYS_DECLARED:
                options.setdefault(field.option, field.exported(current[field.option]))
        return options
