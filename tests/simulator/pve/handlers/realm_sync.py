"""POST /access/domains/{realm}/sync: an LDAP/AD realm's users and groups into user.cfg (pve-access-control
``API2/Domains.pm`` sync, ``$update_users``, ``$update_groups``, ``$parse_sync_opts``; ``Auth/LDAP.pm``
get_users and get_groups).

The directory is what a test seeds per realm (``state.directories[realm]``, see ``seed_directory``): users as
LDAP entries (their attributes, the realm's ``user_attr`` naming the user) and groups with their members' user
names. get_users maps attributes as LDAP.pm does: PVE's own attribute names (email, firstname, lastname, comment,
keys, enable, expire) and the realm's ``sync_attributes`` (``email=mail``). The worker prints what Domains.pm
prints, line by line; with ``dry-run=1`` (worker ``auth-realm-sync-test``) nothing is written.
"""

import re

from ...errors import ApiError, die, locked, param_exc
from ...formats import USERID_RE
from ..state import register_slice
from .acme import exit_status, printed
from .base import route

# realm -> {"users": [{ldap attribute: value}], "groups": {name: [user name, ...]}}
register_slice("directories", dict)

# PVE::Auth::Plugin $groupname_regex (verify_groupname)
GROUPID_RE = re.compile(r"^[A-Za-z0-9\.\-_]+$")
_ATTRIBUTE_MAP = ("enable", "expire", "firstname", "lastname", "email", "comment", "keys")
_OPTION_DEFAULTS = {"remove-vanished": "none", "enable-new": 1}


def seed_directory(state, realm, users=(), groups=None):
    """A test's directory for ``realm``: ``users`` are LDAP entries ({attribute: value}), ``groups`` {cn: [members'
    user names]}."""
    with state.lock:
        state.directories[realm] = {"users": [dict(user) for user in users],
                                    "groups": dict((name, list(members)) for name, members in (groups or {}).items())}


def _get_users(config, realm, directory, log):
    """LDAP.pm get_users: {userid: {our attribute: value}}, and the directory's user names -> userid."""
    name_attr = config.get("user_attr") or ("sAMAccountName" if config.get("type") == "ad" else "uid")
    mapping = dict((attr, attr) for attr in _ATTRIBUTE_MAP)
    for pair in [part.strip() for part in (config.get("sync_attributes") or "").split(",") if part.strip()]:
        ours, ldap = pair.split("=", 1)
        if ours.strip() not in _ATTRIBUTE_MAP:
            log.append(f"skipping bad 'sync_attributes' entry – '{ours.strip()}' is not a valid target attribute")
            continue
        mapping[ldap.strip()] = ours.strip()
    users, names = {}, {}
    for entry in directory.get("users", ()):
        name = entry.get(name_attr)
        if name is None:
            continue
        userid = f"{name}@{realm}"
        if not USERID_RE.match(userid) or len(userid) > 64:
            log.append(f"value '{userid}' does not look like a valid user name")
            continue
        synced = {}
        for attr, value in entry.items():
            ours = mapping.get(attr)
            if ours and attr != name_attr:
                synced[ours] = int(value) if ours in ("enable", "expire") else value
        users[userid] = synced
        names[name] = userid
    return users, names


def _get_groups(realm, directory, names, log):
    """LDAP.pm get_groups: {"<cn>-<realm>": members that are synced users}."""
    groups = {}
    for name, members in directory.get("groups", {}).items():
        groupid = f"{name}-{realm}"
        if not GROUPID_RE.match(groupid):
            log.append(f"group name '{groupid}' contains invalid characters")
            continue
        groups[groupid] = set(names[member] for member in members if member in names)
    return groups


def _parse_sync_opts(p, config):
    """Domains.pm $parse_sync_opts: the parameter, else the realm's sync-defaults-options, else the default."""
    defaults = dict(part.split("=", 1) for part in (config.get("sync-defaults-options") or "").split(",")
                    if "=" in part)
    opts = {}
    for key in ("scope", "remove-vanished", "enable-new", "full", "purge"):
        value = p.get(key)
        opts[key] = value if value is not None else defaults.get(key, _OPTION_DEFAULTS.get(key))
    for key in ("enable-new", "full", "purge"):
        if opts[key] is not None:
            opts[key] = 1 if str(opts[key]) in ("1", "true", "yes", "on") else 0
    if opts["remove-vanished"] is None and (opts["full"] or opts["purge"]):
        opts["remove-vanished"] = ";".join((["entry", "properties"] if opts["full"] else [])
                                           + (["acl"] if opts["purge"] else []))
    if opts["scope"] is None:
        raise param_exc({"scope": "Not passed as parameter and not defined in realm default sync options."})
    return opts


def _vanished(log, kind, opts):
    vanished = opts.get("remove-vanished")
    printed(log, f"syncing {kind} (remove-vanished opts: {vanished})" if vanished is not None else f"syncing {kind}")
    return set((vanished or "").split(";"))


def _update_users(state, realm, synced, opts, log):
    """Domains.pm $update_users, on a copy of user.cfg's users."""
    to_remove = _vanished(log, "users", opts)
    users = state.users
    if "entry" in to_remove:
        printed(log, "deleting outdated existing users first")
    for userid in sorted(users):
        if not userid.endswith(f"@{realm}") or userid in synced:
            continue
        if "entry" in to_remove:
            printed(log, f"remove user '{userid}'")
            user = users.pop(userid)
            for group in user.get("groups", ()):
                state.groups.get(group, {}).get("users", set()).discard(userid)
        if "acl" in to_remove:
            printed(log, f"purge users '{userid}' ACL entries")
            state.drop_acl_subject("users", userid)
    for userid in sorted(synced):
        attrs = synced[userid]
        old = users.get(userid)
        if "properties" in to_remove or old is None:
            printed(log, f"overwriting user '{userid}'" if old is not None else f"adding user '{userid}'")
            old = old or {}
            user = dict(attrs)
            enabled = old.get("enable", opts.get("enable-new"))
            if enabled is not None:
                user["enable"] = enabled
            user.setdefault("expire", 0)
            user["tokens"] = old.get("tokens", {})
            user["groups"] = old.get("groups", set())  # membership is the groups' (user.cfg's group lines)
            users[userid] = user
        else:
            old.update(attrs)
            printed(log, f"updating user '{userid}'")


def _update_groups(state, realm, synced, opts, log):
    """Domains.pm $update_groups: a synced group's members are the directory's."""
    to_remove = _vanished(log, "groups", opts)
    groups = state.groups
    if "entry" in to_remove:
        printed(log, "deleting outdated existing groups first")
    for groupid in sorted(groups):
        if not groupid.endswith(f"-{realm}") or groupid in synced:
            continue
        if "entry" in to_remove:
            printed(log, f"remove group '{groupid}'")
            for userid in groups.pop(groupid)["users"]:
                state.users.get(userid, {}).get("groups", set()).discard(groupid)
        if "acl" in to_remove:
            printed(log, f"purge groups '{groupid}' ACL entries")
            state.drop_acl_subject("groups", groupid)
    for groupid in sorted(synced):
        old = groups.get(groupid)
        if "properties" in to_remove or old is None:
            printed(log, f"overwriting group '{groupid}'" if old is not None else f"adding group '{groupid}'")
            group = {"users": set()}
        else:
            printed(log, f"updating group '{groupid}'")
            group = old
        for userid in group["users"]:
            state.users.get(userid, {}).get("groups", set()).discard(groupid)
        # user.cfg keeps members that are users only (parse_user_config drops the rest on the next read)
        group["users"] = set(userid for userid in synced[groupid] if userid in state.users)
        for userid in group["users"]:
            state.users[userid].setdefault("groups", set()).add(groupid)
        groups[groupid] = group


def _snapshot(state):
    """user.cfg's users, groups and ACL, to put back after a dry run (PVE never writes it then)."""
    return ({userid: dict(user, groups=set(user.get("groups", ())), tokens=dict(user.get("tokens", {})))
             for userid, user in state.users.items()},
            {groupid: dict(group, users=set(group["users"])) for groupid, group in state.groups.items()},
            {path: {kind: dict(subjects) for kind, subjects in node.items()} for path, node in state.acl.items()})


@route("POST", "/access/domains/{realm}/sync")
def sync(ctx, p):
    state = ctx.state
    realm = p["realm"]
    dry_run = bool(p.get("dry-run"))
    config = state.realms.get(realm)
    if config is None:
        raise param_exc({"realm": "Realm does not exist."})
    if config.get("type") not in ("ldap", "ad"):
        raise die(f"Cannot sync realm type '{config.get('type')}'! Only LDAP/AD realms can be synced.")
    opts = _parse_sync_opts(p, config)
    scope = opts["scope"]
    what = "users and groups" if scope == "both" else scope

    def work(log):
        log.append(("(dry test run) " if dry_run else "") + f"starting sync for realm {realm}")
        directory = state.directories.get(realm)
        if directory is None:  # connect_and_bind: the simulator's directory was never seeded
            raise die(f"{config.get('server1')}: connection failed")
        users, names = _get_users(config, realm, directory, log)
        groups = _get_groups(realm, directory, names, log) if scope in ("groups", "both") else {}
        with locked(state, f"syncing {what} failed"):
            saved = _snapshot(state) if dry_run else None
            printed(log, f"got data from server, updating {what}")
            if scope in ("users", "both"):
                _update_users(state, realm, users, opts, log)
            if scope in ("groups", "both"):
                _update_groups(state, realm, groups, opts, log)
            if dry_run:
                for live, copy in zip((state.users, state.groups, state.acl), saved):
                    live.clear()
                    live.update(copy)
                printed(log, "\nNOTE: Dry test run, changes were NOT written to the configuration.")
                return
            printed(log, f"successfully updated {what} configuration")

    log = []
    try:
        work(log)
        exitstatus = "OK"
    except ApiError as err:  # RESTEnvironment.pm fork_worker: the error is the exit status
        exitstatus = exit_status(err)
    return state.start_task(ctx.node, "auth-realm-sync-test" if dry_run else "auth-realm-sync", realm, ctx.authid,
                            exitstatus=exitstatus, log=log)
