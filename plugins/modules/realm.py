#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: realm
short_description: Declare a Proxmox VE authentication realm
version_added: 0.1.0
description:
  - Creates, repairs or removes one authentication realm, a section of C(/etc/pve/domains.cfg)
    (C(/access/domains/{realm})) - an LDAP directory, an Active Directory, an OpenID Connect provider - and repairs the
    built-in V(pam) and V(pve) realms.
  - Options left undeclared are not managed (neither sent nor compared). A declared empty value clears the option.
  - O(type) and O(username_claim) are fixed once created; a declaration that differs fails naming the field, and
    nothing is written.
  - The type's own table is checked before any request - an option the type does not take, a missing option it needs
    (V(ldap) needs O(server1), O(base_dn) and O(user_attr); V(ad) O(server1) and O(domain); V(openid) O(issuer_url)
    and O(client_id)) - and every value against PVE's own rule for it (realm id, addresses, ranges, patterns, the
    two-factor property string).
  - O(password) (the LDAP/AD bind password, which PVE keeps in C(/etc/pve/priv/realm/<realm>.pw)) and O(client_key)
    (the OpenID client key) are sent when the realm is created and never read, compared, returned or shown. To change
    one later, use C(pveum realm modify).
  - The built-in realms V(pam) and V(pve) always exist; PVE re-creates them whatever is deleted, so O(state=absent) is
    refused for them before any request.
  - Not managed here yet - C(user_classes), C(group_classes), C(group_name_attr) and C(sync-defaults-options) - are left
    as they are.
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.connection.state
  - homeflare.proxmox.attributes
options:
  realm:
    description: The realm id (wire name C(realm)), at most 32 characters; users of it are C(name@<realm>).
    type: str
    required: true
  type:
    description:
      - The realm type. Required with O(state=present); fixed once created.
      - V(pam) and V(pve) are the types of the built-in realms of those names only.
    type: str
    choices: [ad, ldap, openid, pam, pve]
  comment:
    description: Description, shown on the login window. At most 4096 characters.
    type: str
  default:
    description: Whether this is the default realm of the login window; setting it on one realm clears it on the others.
    type: bool
  tfa:
    description:
      - Two-factor authentication the realm enforces, as PVE's property string, for example C(type=oath,digits=6); compared as pairs.
      - Keys are C(type) (V(oath) or V(yubico), required), C(digits) (6 to 8), C(step) (10 or more), C(id), C(key), C(url).
    type: str
  server1:
    description: V(ldap) and V(ad) - the directory server, an IP address or a DNS name.
    type: str
  server2:
    description: V(ldap) and V(ad) - the fallback server.
    type: str
  port:
    description: V(ldap) and V(ad) - the server port, 1 to 65535.
    type: int
  mode:
    description: V(ldap) and V(ad) - the LDAP protocol mode.
    type: str
    choices: [ldap, ldaps, ldap+starttls]
  secure:
    description: V(ldap) and V(ad) - use LDAPS (deprecated by PVE in favour of O(mode)).
    type: bool
  sslversion:
    description: V(ldap) and V(ad) - the TLS version of LDAPS.
    type: str
    choices: [tlsv1, tlsv1_1, tlsv1_2, tlsv1_3]
  verify:
    description: V(ldap) and V(ad) - whether the server's certificate is verified.
    type: bool
  capath:
    description: V(ldap) and V(ad) - the CA certificate store (a directory or a file).
    type: str
  cert:
    description: V(ldap) and V(ad) - the client certificate's path.
    type: str
  certkey:
    description: V(ldap) and V(ad) - the client certificate key's path.
    type: str
  base_dn:
    description: V(ldap) and V(ad) - the base DN users are looked up under.
    type: str
  bind_dn:
    description: V(ldap) and V(ad) - the DN to bind as (with O(password)).
    type: str
  user_attr:
    description: V(ldap) and V(ad) - the attribute holding the user name (for example C(uid)).
    type: str
  domain:
    description: V(ad) - the Active Directory domain.
    type: str
  filter:
    description: V(ldap) and V(ad) - LDAP filter for the user sync.
    type: str
  sync_attributes:
    description: V(ldap) and V(ad) - which LDAP attribute fills which user field, for example C(email=mail).
    type: str
  sync_defaults_options:
    description:
      - V(ldap) and V(ad) - the realm's stored sync defaults (wire C(sync-defaults-options)), what
        M(homeflare.proxmox.realm_sync) uses for an option it leaves out, as PVE's property string
        (C(scope=both,remove-vanished=entry;acl,enable-new=1)) of the keys C(scope) (V(users), V(groups), V(both)),
        C(remove-vanished) (C(acl), C(properties), C(entry) joined with C(;), or V(none)) and C(enable-new) (a boolean);
        compared as pairs. The deprecated C(full) and C(purge) are refused (PVE rewrites them into C(remove-vanished)). V('') removes it.
    type: str
  group_dn:
    description: V(ldap) and V(ad) - the base DN of the group sync.
    type: str
  group_filter:
    description: V(ldap) and V(ad) - LDAP filter for the group sync.
    type: str
  case_sensitive:
    description: V(ldap) and V(ad) - whether user names are case-sensitive (wire name C(case-sensitive)); unset means V(true).
    type: bool
  issuer_url:
    description: V(openid) - the issuer URL (wire name C(issuer-url)).
    type: str
  client_id:
    description: V(openid) - the client id (wire name C(client-id)).
    type: str
  client_key:
    description: V(openid) - the client key (wire name C(client-key)). Sent on create only; never read, compared or shown.
    type: str
  username_claim:
    description: V(openid) - the claim the user name is made of (wire name C(username-claim)). Fixed once created.
    type: str
  groups_claim:
    description: V(openid) - the claim holding the user's groups (wire name C(groups-claim)).
    type: str
  autocreate:
    description: V(openid) - whether unknown users are created on login.
    type: bool
  groups_autocreate:
    description: V(openid) - whether unknown groups are created on login (wire name C(groups-autocreate)).
    type: bool
  groups_overwrite:
    description: V(openid) - whether a login replaces the user's groups (wire name C(groups-overwrite)).
    type: bool
  prompt:
    description: V(openid) - the C(prompt) sent to the provider (for example V(login)).
    type: str
  scopes:
    description: V(openid) - the scopes asked for, space-separated (PVE's default C(email profile)).
    type: str
  acr_values:
    description: V(openid) - the Authentication Context Class Reference values (wire name C(acr-values)).
    type: str
  query_userinfo:
    description: V(openid) - whether the userinfo endpoint is queried (wire name C(query-userinfo)); unset means V(true).
    type: bool
  password:
    description: V(ldap) and V(ad) - the bind password. Sent on create only; never read, compared or shown.
    type: str
seealso:
  - module: homeflare.proxmox.user
  - module: homeflare.proxmox.group
'''

EXAMPLES = r'''
- name: Declare the company directory
  homeflare.proxmox.realm:
    realm: corp
    type: ldap
    server1: ldap.example.org
    mode: ldaps
    port: 636
    base_dn: ou=people,dc=example,dc=org
    user_attr: uid
    bind_dn: cn=pve,ou=services,dc=example,dc=org
    password: "{{ vault_ldap_bind_password }}"
    comment: Company directory

- name: Offer OpenID Connect on the login window, by default
  homeflare.proxmox.realm:
    realm: sso
    type: openid
    issuer_url: https://id.example.org/realms/main
    client_id: pve
    client_key: "{{ vault_oidc_client_key }}"
    username_claim: email
    default: true

- name: Require TOTP on the PVE realm
  homeflare.proxmox.realm:
    realm: pve
    type: pve
    tfa: type=oath

# Verify without writing: `ansible-playbook site.yml --check --diff`
- name: Remove an old directory realm
  homeflare.proxmox.realm:
    realm: oldcorp
    state: absent
'''

RETURN = r'''
object:
  description: The realm's managed fields as read after the run (empty when absent). Secrets are never returned.
  returned: always
  type: dict
  sample: {"realm": "corp", "type": "ldap", "server1": "ldap.example.org", "port": 636}
plan:
  description:
    - What the run decided. C(read) is V(found) or V(absent); C(action) one of V(create), V(update), V(delete), V(none).
    - C(changed) lists the drifted field names.
  returned: always
  type: dict
  sample: {"read": "found", "action": "update", "changed": ["port"]}
served_by:
  description:
    - The cluster member (C(host:port)) that answered last, so a failover is visible in the result.
    - Absent when no member answered (every member down, or refused before any request).
  returned: when a member answered
  type: str
  sample: "pve2.example.org:8006"
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.realm import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
