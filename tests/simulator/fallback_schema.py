"""The simulator's own minimal API rules, used only when the official schema
file (shared/pve-api/pve-api-schema.json) cannot be found.

Hand-written for the methods the simulator implements: parameter names, types,
formats and the ``permissions`` of each method, in the schema dump's shape
(a list of ``{"path", "info": {METHOD: {...}}}``). It is deliberately small: with
the real file every other PVE path is known too (and answers 501 when not
simulated); with this one, unknown paths answer 501 as well.
"""

OPT = {"optional": 1}
ALL = {"user": "all"}
WORLD = {"user": "world"}


def s(**kw):
    return {"type": "string", **kw}


def b(**kw):
    return {"type": "boolean", **kw}


def i(**kw):
    return {"type": "integer", **kw}


def params(**props):
    return {"additionalProperties": 0, "properties": props}


def perm(path, privs, any_=False):
    check = ["perm", path, privs]
    if any_:
        check += ["any", 1]
    return {"check": check}


def method(permissions, parameters=None, allowtoken=1, proxyto=None):
    info = {"permissions": permissions, "parameters": parameters or params(),
            "allowtoken": allowtoken}
    if proxyto:
        info["proxyto"] = proxyto
    return info


USERID = s(format="pve-userid", maxLength=64)
TOKENID = s(pattern="(?^:[A-Za-z][A-Za-z0-9\\.\\-_]+)")
POOLID = s(format="pve-poolid")
GROUPID = s(format="pve-groupid")
ROLEID = s(format="pve-roleid")
STORAGE = s(format="pve-storage-id")
NODE = s(format="pve-node")
USER_FIELDS = dict(
    enable=b(**OPT), expire=i(minimum=0, **OPT), firstname=s(maxLength=1024, **OPT),
    lastname=s(maxLength=1024, **OPT), email=s(format="email-opt", maxLength=254, **OPT),
    comment=s(maxLength=2048, **OPT), keys=s(pattern="[0-9a-zA-Z!=]{0,4096}", **OPT),
    groups=s(format="pve-groupid-list", **OPT))
TOKEN_FIELDS = dict(expire=i(minimum=0, **OPT), privsep=b(**OPT), comment=s(**OPT))
USER_GROUP_OR_SELF = {"check": ["or", ["userid-param", "self"], ["userid-group", ["User.Modify"]]]}

POOL_UPDATE = params(poolid=POOLID, comment=s(**OPT), vms=s(format="pve-vmid-list", **OPT),
                     storage=s(format="pve-storage-id-list", **OPT), delete=b(**OPT),
                     **{"allow-move": b(**OPT)})

STORAGE_TYPES = ["btrfs", "cephfs", "cifs", "dir", "esxi", "iscsi", "iscsidirect", "lvm",
                 "lvmthin", "nfs", "pbs", "rbd", "zfs", "zfspool"]
STORAGE_COMMON = {
    "content": s(format="pve-storage-content-list", **OPT),
    "nodes": s(format="pve-node-list", **OPT),
    "disable": b(**OPT), "shared": b(**OPT),
    "prune-backups": s(format="prune-backups", **OPT),
    "max-protected-backups": i(minimum=-1, **OPT),
    "preallocation": s(enum=["off", "metadata", "falloc", "full"], **OPT),
    "format": s(enum=["raw", "qcow2", "subvol", "vmdk"], **OPT),
    "mkdir": b(**OPT), "create-base-path": b(**OPT), "create-subdirs": b(**OPT),
    "is_mountpoint": s(**OPT), "options": s(**OPT), "username": s(**OPT),
    "password": s(maxLength=256, **OPT), "encryption-key": s(**OPT), "keyring": s(**OPT),
    "fingerprint": s(pattern="([A-Fa-f0-9]{2}:){31}[A-Fa-f0-9]{2}", **OPT),
    "namespace": s(**OPT), "port": i(minimum=1, maximum=65535, **OPT),
    "subdir": s(format="pve-storage-path", **OPT), "domain": s(maxLength=256, **OPT),
    "monhost": s(**OPT), "pool": s(**OPT), "krbd": b(**OPT), "sparse": b(**OPT),
    "blocksize": s(**OPT), "bwlimit": s(**OPT), "server": s(format="pve-storage-server", **OPT),
    "snapshot-as-volume-chain": b(**OPT),
}
STORAGE_CREATE_ONLY = {
    "path": s(format="pve-storage-path", **OPT), "export": s(format="pve-storage-path", **OPT),
    "share": s(**OPT), "datastore": s(**OPT), "vgname": s(**OPT), "thinpool": s(**OPT),
    "portal": s(**OPT), "target": s(**OPT), "base": s(**OPT),
}

TREE = [
    {"path": "/version", "info": {"GET": method(ALL)}},
    {"path": "/nodes", "info": {"GET": method(ALL)}},
    {"path": "/cluster/status", "info": {"GET": method(perm("/", ["Sys.Audit"]))}},
    {"path": "/access/ticket", "info": {
        "GET": method(WORLD),
        "POST": method(WORLD, params(username=s(maxLength=64), password=s(),
                                     realm=s(format="pve-realm", maxLength=32, **OPT),
                                     otp=s(**OPT), path=s(maxLength=64, **OPT),
                                     privs=s(format="pve-priv-list", maxLength=64, **OPT),
                                     **{"new-format": b(**OPT), "tfa-challenge": s(**OPT)}),
                       allowtoken=0)}},
    {"path": "/access/users", "info": {
        "GET": method(ALL, params(enabled=b(**OPT), full=b(**OPT))),
        "POST": method({"check": ["and", ["userid-param", "Realm.AllocateUser"],
                                  ["userid-group", ["User.Modify"], "groups_param", "create"]]},
                       params(userid=USERID, password=s(minLength=8, maxLength=64, **OPT),
                              **USER_FIELDS))}},
    {"path": "/access/users/{userid}", "info": {
        "GET": method({"check": ["userid-group", ["User.Modify", "Sys.Audit"]]},
                      params(userid=USERID)),
        "PUT": method({"check": ["userid-group", ["User.Modify"], "groups_param", "update"]},
                      params(userid=USERID, append=b(requires="groups", **OPT), **USER_FIELDS)),
        "DELETE": method({"check": ["and", ["userid-param", "Realm.AllocateUser"],
                                    ["userid-group", ["User.Modify"]]]}, params(userid=USERID))}},
    {"path": "/access/users/{userid}/token", "info": {
        "GET": method(USER_GROUP_OR_SELF, params(userid=USERID))}},
    {"path": "/access/users/{userid}/token/{tokenid}", "info": {
        "GET": method(USER_GROUP_OR_SELF, params(userid=USERID, tokenid=TOKENID)),
        "POST": method(USER_GROUP_OR_SELF, params(userid=USERID, tokenid=TOKENID,
                                                  **TOKEN_FIELDS)),
        "PUT": method(USER_GROUP_OR_SELF, params(userid=USERID, tokenid=TOKENID,
                                                 delete=s(format="pve-configid-list", **OPT),
                                                 **TOKEN_FIELDS)),
        "DELETE": method(USER_GROUP_OR_SELF, params(userid=USERID, tokenid=TOKENID))}},
    {"path": "/access/password", "info": {
        "PUT": method({"check": ["or", ["userid-param", "self"],
                                 ["and", ["userid-param", "Realm.AllocateUser"],
                                  ["userid-group", ["User.Modify"]]]]},
                      params(userid=USERID, password=s(minLength=8, maxLength=64)),
                      allowtoken=0)}},
    {"path": "/access/groups", "info": {
        "GET": method(ALL),
        "POST": method(perm("/access/groups", ["Group.Allocate"]),
                       params(groupid=GROUPID, comment=s(**OPT)))}},
    {"path": "/access/groups/{groupid}", "info": {
        "GET": method(perm("/access/groups", ["Sys.Audit", "Group.Allocate"], any_=True),
                      params(groupid=GROUPID)),
        "PUT": method(perm("/access/groups", ["Group.Allocate"]),
                      params(groupid=GROUPID, comment=s(**OPT))),
        "DELETE": method(perm("/access/groups", ["Group.Allocate"]), params(groupid=GROUPID))}},
    {"path": "/access/roles", "info": {
        "GET": method(ALL),
        "POST": method(perm("/access", ["Sys.Modify"]),
                       params(roleid=ROLEID, privs=s(format="pve-priv-list", **OPT)))}},
    {"path": "/access/roles/{roleid}", "info": {
        "GET": method(ALL, params(roleid=ROLEID)),
        "PUT": method(perm("/access", ["Sys.Modify"]),
                      params(roleid=ROLEID, privs=s(format="pve-priv-list", **OPT),
                             append=b(requires="privs", **OPT))),
        "DELETE": method(perm("/access", ["Sys.Modify"]), params(roleid=ROLEID))}},
    {"path": "/access/acl", "info": {
        "GET": method(ALL),
        "PUT": method({"check": ["perm-modify", "{path}"]},
                      params(path=s(), roles=s(format="pve-roleid-list"),
                             users=s(format="pve-userid-list", **OPT),
                             groups=s(format="pve-groupid-list", **OPT),
                             tokens=s(format="pve-tokenid-list", **OPT),
                             propagate=b(**OPT), delete=b(**OPT)))}},
    {"path": "/access/permissions", "info": {
        "GET": method(ALL, params(path=s(**OPT), userid=s(format="pve-userid", **OPT)))}},
    {"path": "/pools", "info": {
        "GET": method(ALL, params(poolid=s(format="pve-poolid", **OPT),
                                  type=s(enum=["qemu", "lxc", "storage"], requires="poolid",
                                         **OPT))),
        "POST": method(perm("/pool/{poolid}", ["Pool.Allocate"]),
                       params(poolid=POOLID, comment=s(**OPT))),
        "PUT": method(perm("/pool/{poolid}", ["Pool.Allocate"]), POOL_UPDATE),
        "DELETE": method(perm("/pool/{poolid}", ["Pool.Allocate"]), params(poolid=POOLID))}},
    {"path": "/pools/{poolid}", "info": {
        "GET": method(perm("/pool/{poolid}", ["Pool.Audit"]),
                      params(poolid=POOLID, type=s(enum=["qemu", "lxc", "storage"], **OPT))),
        "PUT": method(perm("/pool/{poolid}", ["Pool.Allocate"]), POOL_UPDATE),
        "DELETE": method(perm("/pool/{poolid}", ["Pool.Allocate"]), params(poolid=POOLID))}},
    {"path": "/storage", "info": {
        "GET": method(ALL, params(type=s(enum=STORAGE_TYPES, **OPT))),
        "POST": method(perm("/storage", ["Datastore.Allocate"]),
                       params(storage=STORAGE, type=s(enum=STORAGE_TYPES),
                              **STORAGE_COMMON, **STORAGE_CREATE_ONLY))}},
    {"path": "/storage/{storage}", "info": {
        "GET": method(perm("/storage/{storage}", ["Datastore.Allocate"]), params(storage=STORAGE)),
        "PUT": method(perm("/storage", ["Datastore.Allocate"]),
                      params(storage=STORAGE, delete=s(format="pve-configid-list",
                                                       maxLength=4096, **OPT),
                             digest=s(maxLength=64, **OPT), **STORAGE_COMMON)),
        "DELETE": method(perm("/storage", ["Datastore.Allocate"]), params(storage=STORAGE))}},
    {"path": "/nodes/{node}/tasks/{upid}/status", "info": {
        "GET": method(ALL, params(node=NODE, upid=s()), proxyto="node")}},
    {"path": "/nodes/{node}/tasks/{upid}/log", "info": {
        "GET": method(ALL, params(node=NODE, upid=s(), start=i(minimum=0, **OPT),
                                  limit=i(minimum=0, **OPT), download=b(**OPT)),
                      proxyto="node")}},
]
