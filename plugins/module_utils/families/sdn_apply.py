# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SDN apply: PUT /cluster/sdn when, and only when, something is staged (staging.SdnApply)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.homeflare.proxmox.plugins.module_utils.staging import SdnApply

FAMILY = SdnApply('sdn_apply', 'sdn_apply', identity=[])
