# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # Attributes shared by every module: full check and diff support, and membership of the action group.
    DOCUMENTATION = r'''
attributes:
  check_mode:
    support: full
    description: Sends no write; the result names, per object, the action and the drifted fields.
  diff_mode:
    support: full
    description: Shows the managed fields before and after (one diff per object), the same in check mode and in a real run.
  action_group:
    support: full
    description: One of the C(homeflare.proxmox.proxmox) group, so O(api_host) and the credentials can be set once in C(module_defaults).
    membership:
      - homeflare.proxmox.proxmox
'''

    # The read-only *_info modules: check mode changes nothing because nothing is ever written.
    INFO = r'''
attributes:
  check_mode:
    support: full
    description: Read-only; a check run answers exactly as a real one.
  diff_mode:
    support: N/A
    description: Nothing is changed, so there is nothing to diff.
  action_group:
    support: full
    description: One of the C(homeflare.proxmox.proxmox) group, so O(api_host) and the credentials can be set once in C(module_defaults).
    membership:
      - homeflare.proxmox.proxmox
'''
