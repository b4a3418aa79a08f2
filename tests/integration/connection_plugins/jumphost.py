# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Test-only connection: the local connection under another transport name.

A task on such a host is, for the collection, "not on the controller": it must ship the module
(the module path), as it would to a jump host reached over SSH. The payload still runs here.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.plugins.connection.local import Connection as LocalConnection

DOCUMENTATION = r'''
name: jumphost
short_description: The local connection under another transport name (tests only)
description:
  - Runs commands on the controller like ansible.builtin.local, but reports the transport C(jumphost).
author: homeflare.proxmox contributors (@homeflare)
options:
  become_success_timeout:
    type: int
    default: 10
    description: As ansible.builtin.local.
    vars:
      - name: ansible_local_become_success_timeout
  become_strip_preamble:
    type: bool
    default: true
    description: As ansible.builtin.local.
    vars:
      - name: ansible_local_become_strip_preamble
extends_documentation_fragment:
  - connection_pipelining
'''


class Connection(LocalConnection):
    transport = 'jumphost'
