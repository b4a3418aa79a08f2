# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""homeflare.proxmox.sdn_dns runs in the controller's worker when its connection is local (plugin_utils/controller.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.plugin_utils.controller import ActionModule

__all__ = ['ActionModule']
