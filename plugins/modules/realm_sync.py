#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: realm_sync
short_description: Sync the users and groups of a Proxmox VE LDAP or Active Directory realm into user.cfg
version_added: 0.4.0
description:
  - Runs C(POST /access/domains/{realm}/sync) and waits for its task. It is an action, not a declaration, and there
    is no C(state) option. The realm itself (its servers, bind password and stored sync defaults,
    O(homeflare.proxmox.realm#module:sync_defaults_options)) is declared with M(homeflare.proxmox.realm).
  - Every run first asks PVE for its own dry run (C(dry-run=1), a task that writes nothing) and reads the task's
    log. Its C(adding) and C(remove) lines are the users and groups the directory and user.cfg differ in; they are
    the plan (RV(plan)) and decide C(changed) in check mode, which writes nothing.
  - PVE's dry run says C(updating) for every user and group it would sync, whether or not an attribute differs,
    and never which; those are listed in C(resync). Whether an update changes anything (an e-mail changed in the
    directory, a group's members) shows only in a real run, which reads the realm's users and groups before and
    after the sync and reports what came out different in C(change). So a real run syncs whenever the dry run
    names anything, and reports C(changed=false) when user.cfg came out the same; a re-run of a synced realm
    reports no difference but still makes the one sync request (PVE's only way to read the directory).
  - PVE syncs LDAP and AD realms only; an OpenID realm (its users are created at login, with C(autocreate)), a
    C(pam) or C(pve) realm is refused before the sync is asked, as is a realm PVE does not have.
  - Options left out are the realm's stored sync defaults (C(sync-defaults-options)), else PVE's defaults; PVE
    refuses a sync with no O(scope) in either.
  - In M(homeflare.proxmox.declare) a realm sync runs like an apply, after the realms are written, so a realm
    created in the same task is synced after it. There it syncs only when the dry run names a user or group to add
    or remove (or the realm is new), so a re-run of the declare stays a no-op; re-applying changed attributes alone
    needs this module's own task.
  - The sync needs C(Realm.AllocateUser) on C(/access/realm/<realm>) and C(User.Modify) on C(/access/groups) (the
    provision credential, which also reads the dry run's task log and the users and groups).
author:
  - homeflare.proxmox contributors (@homeflare)
extends_documentation_fragment:
  - homeflare.proxmox.connection
  - homeflare.proxmox.connection.openbao
  - homeflare.proxmox.attributes
options:
  realm:
    description: The LDAP or AD realm to sync.
    type: str
    required: true
  scope:
    description: What to sync; the realm's stored default when left out.
    type: str
    choices: [users, groups, both]
  remove_vanished:
    description:
      - What to remove when a user or group is gone from the directory (wire C(remove-vanished), sent as C(a;b)).
        V(entry) removes the user or group, V(properties) drops properties the directory does not set (and PVE
        says C(overwriting) for such a user), V(acl) removes its ACL entries; V(none) alone is PVE's default.
    type: list
    elements: str
  enable_new:
    description: Whether newly synced users are enabled (wire C(enable-new), PVE's default V(true)).
    type: bool
  task_timeout:
    description: Seconds to wait for each of the two sync tasks (the dry run and the sync).
    type: int
    default: 300
seealso:
  - module: homeflare.proxmox.realm
'''

EXAMPLES = r'''
- name: Sync the directory's users and groups, removing what vanished from it
  homeflare.proxmox.realm_sync:
    realm: corp
    scope: both
    remove_vanished: [entry, acl]
    enable_new: true
'''

RETURN = r'''
users:
  description:
    - What the sync does to the realm's users, each a sorted list of user ids. C(add) and C(remove) are PVE's dry
      run's (and, in a real run, what user.cfg gained and lost); C(resync) the users PVE re-applies from the
      directory; C(change) (a real run only) the users whose stored attributes or groups came out different.
  returned: always
  type: dict
  sample: {"add": ["carol@corp"], "change": ["alice@corp"], "remove": ["dave@corp"], "resync": ["alice@corp"]}
groups:
  description: The same for the realm's groups (C(<name>-<realm>)), C(change) also when the members differ.
  returned: always
  type: dict
  sample: {"add": ["ops-corp"], "change": [], "remove": [], "resync": []}
plan:
  description:
    - C(action) is V(sync) when the dry run names a user or group to add or remove, V(resync) when it only re-applies
      existing ones, V(none) when the directory has nothing for this scope; after a real run, V(sync) when user.cfg
      changed and V(none) otherwise. C(changed) names each entry, such as V(user carol@corp (add)).
  returned: always
  type: dict
  sample: {"read": "found", "action": "sync", "changed": ["user carol@corp (add)"]}
dry_run_task:
  description: The UPID of PVE's dry run.
  returned: always
  type: str
task:
  description: The UPID of the sync (a real run that synced).
  returned: when a sync ran
  type: str
served_by:
  description: The cluster member (C(host:port)) that answered last.
  returned: when a member answered
  type: str
'''

from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import run_module
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.realm_sync import FAMILY


def main():
    run_module(FAMILY)


if __name__ == '__main__':
    main()
