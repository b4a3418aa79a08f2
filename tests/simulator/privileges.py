"""PVE's privileges and built-in roles (pve-access-control ``AccessControl.pm``).

Its own module because both ``auth`` (the permission checks) and ``formats`` (the
``pve-priv`` format) need the privilege list, and ``auth`` imports ``formats``.
"""

# PVE 9 privilege groups (pve-access-control AccessControl.pm $privgroups):
# root = only Administrator, admin/user/audit build the PVE*Admin/User/Auditor roles.
PRIVGROUPS = {
    "VM": {
        "root": [],
        "admin": ["VM.Config.Disk", "VM.Config.CPU", "VM.Config.Memory", "VM.Config.Network",
                  "VM.Config.HWType", "VM.Config.Options", "VM.Allocate", "VM.Clone",
                  "VM.Migrate", "VM.Snapshot", "VM.Snapshot.Rollback", "VM.Replicate",
                  "VM.GuestAgent.FileRead", "VM.GuestAgent.FileWrite",
                  "VM.GuestAgent.FileSystemMgmt", "VM.GuestAgent.Unrestricted"],
        "user": ["VM.Config.CDROM", "VM.Config.Cloudinit", "VM.Console", "VM.Backup",
                 "VM.PowerMgmt"],
        "audit": ["VM.Audit", "VM.GuestAgent.Audit"],
    },
    "Sys": {
        "root": ["Sys.PowerMgmt", "Sys.Modify", "Permissions.Modify", "Sys.Incoming",
                 "Sys.AccessNetwork"],
        "admin": ["Sys.Console", "Sys.Syslog"],
        "user": [],
        "audit": ["Sys.Audit"],
    },
    "Datastore": {
        "root": [],
        "admin": ["Datastore.Allocate", "Datastore.AllocateTemplate"],
        "user": ["Datastore.AllocateSpace"],
        "audit": ["Datastore.Audit"],
    },
    "SDN": {
        "root": [],
        "admin": ["SDN.Allocate", "SDN.Audit"],
        "user": ["SDN.Use"],
        "audit": ["SDN.Audit"],
    },
    "User": {
        "root": ["Realm.Allocate"],
        "admin": ["User.Modify", "Group.Allocate", "Realm.AllocateUser"],
        "user": [],
        "audit": [],
    },
    "Pool": {
        "root": [],
        "admin": ["Pool.Allocate"],
        "user": ["Pool.Audit"],
        "audit": ["Pool.Audit"],
    },
    "Mapping": {
        "root": [],
        "admin": ["Mapping.Modify"],
        "user": ["Mapping.Use"],
        "audit": ["Mapping.Audit"],
    },
}


def _build_roles():
    valid = set()
    roles = {"NoAccess": set()}
    for cat, groups in PRIVGROUPS.items():
        for level in ("root", "admin", "user", "audit"):
            valid.update(groups[level])
        privs = set(groups["admin"] + groups["user"] + groups["audit"])
        roles[f"PVE{cat}Admin"] = set(privs)
        roles.setdefault("PVEAdmin", set()).update(privs)
        if groups["user"]:
            roles[f"PVE{cat}User"] = set(groups["user"] + groups["audit"])
        roles.setdefault("PVEAuditor", set()).update(groups["audit"])
    roles["PVETemplateUser"] = {"VM.Clone", "VM.Audit"}
    roles["Administrator"] = set(valid)
    return frozenset(valid), {k: frozenset(v) for k, v in roles.items()}


VALID_PRIVS, BUILTIN_ROLES = _build_roles()
