"""Per-type options of ``storage.cfg`` (pve-storage plugins' ``options()``).

For each storage type: which options it accepts, which are required on
create (not optional) and which are ``fixed`` (set at create, refused on
update). Plus the content types it supports and its default content. A close
approximation of pve-storage 9.x; types not listed accept any option.
"""

O = {"optional": 1}          # optional, updatable
F = {"fixed": 1}             # required and fixed
FO = {"fixed": 1, "optional": 1}  # optional but fixed once set
R = {}                       # required, updatable

_COMMON_FILE = {
    "nodes": O, "disable": O, "content": O, "prune-backups": O, "max-protected-backups": O,
    "format": O, "mkdir": O, "create-base-path": O, "create-subdirs": O, "bwlimit": O,
    "preallocation": O, "snapshot-as-volume-chain": O, "content-dirs": O,
}

_FILE_CONTENT = ["images", "rootdir", "vztmpl", "iso", "backup", "snippets", "import", "none"]

TYPES = {
    "dir": {
        "options": {"path": F, "shared": O, "is_mountpoint": O, **_COMMON_FILE},
        "content": _FILE_CONTENT, "default_content": ["images", "rootdir"],
    },
    "nfs": {
        "options": {"path": F, "server": F, "export": F, "options": O, **_COMMON_FILE},
        "content": _FILE_CONTENT, "default_content": ["images"],
        "default_path": True, "shared": True,
    },
    "cifs": {
        "options": {"path": F, "server": F, "share": F, "subdir": O, "username": O,
                    "password": O, "domain": O, "smbversion": O, "options": O, **_COMMON_FILE},
        "content": _FILE_CONTENT, "default_content": ["images"],
        "default_path": True, "shared": True,
    },
    "btrfs": {
        "options": {"path": F, "shared": O, "is_mountpoint": O, "nocow": O, **_COMMON_FILE},
        "content": _FILE_CONTENT, "default_content": ["images", "rootdir"],
    },
    "cephfs": {
        "options": {"path": O, "monhost": O, "subdir": O, "nodes": O, "content": O,
                    "username": O, "keyring": O, "fuse": O, "bwlimit": O, "fs-name": O,
                    "disable": O, "prune-backups": O, "max-protected-backups": O, "mkdir": O,
                    "create-base-path": O, "create-subdirs": O},
        "content": ["vztmpl", "iso", "backup", "snippets", "import"],
        "default_content": ["backup"], "default_path": True, "shared": True,
    },
    "pbs": {
        "options": {"server": R, "datastore": F, "namespace": O, "port": O, "username": O,
                    "password": O, "encryption-key": O, "master-pubkey": O, "fingerprint": O,
                    "nodes": O, "disable": O, "content": O, "prune-backups": O,
                    "max-protected-backups": O, "bwlimit": O},
        "content": ["backup", "none"], "default_content": ["backup"], "shared": True,
    },
    "lvm": {
        "options": {"vgname": F, "base": FO, "saferemove": O, "saferemove-stepsize": O,
                    "saferemove_throughput": O, "content": O, "shared": O, "disable": O,
                    "nodes": O, "tagged_only": O, "bwlimit": O, "snapshot-as-volume-chain": O},
        "content": ["images", "rootdir", "none"], "default_content": ["images"],
    },
    "lvmthin": {
        "options": {"thinpool": F, "vgname": F, "content": O, "nodes": O, "disable": O,
                    "bwlimit": O},
        "content": ["images", "rootdir"], "default_content": ["images", "rootdir"],
    },
    "zfspool": {
        "options": {"pool": F, "blocksize": O, "sparse": O, "nodes": O, "disable": O,
                    "content": O, "bwlimit": O, "mountpoint": O},
        "content": ["images", "rootdir"], "default_content": ["images", "rootdir"],
    },
    "rbd": {
        "options": {"pool": O, "data-pool": O, "namespace": O, "monhost": O, "username": O,
                    "krbd": O, "keyring": O, "content": O, "nodes": O, "disable": O,
                    "bwlimit": O},
        "content": ["images", "rootdir"], "default_content": ["images"], "shared": True,
    },
    "iscsi": {
        "options": {"portal": F, "target": F, "nodes": O, "disable": O, "content": O,
                    "bwlimit": O},
        "content": ["images", "none"], "default_content": ["images"], "shared": True,
    },
    "iscsidirect": {
        "options": {"portal": F, "target": F, "nodes": O, "disable": O},
        "content": ["images", "none"], "default_content": ["images"], "shared": True,
    },
    "zfs": {
        "options": {"portal": F, "target": F, "pool": F, "blocksize": F, "iscsiprovider": F,
                    "nowritecache": O, "sparse": O, "comstar_hg": O, "comstar_tg": O,
                    "lio_tpg": O, "content": O, "disable": O, "nodes": O, "bwlimit": O,
                    "zfs-base-path": O},
        "content": ["images", "none"], "default_content": ["images"], "shared": True,
    },
    "esxi": {
        "options": {"server": F, "username": R, "password": R, "skip-cert-verification": O,
                    "port": O, "content": O, "nodes": O, "disable": O},
        "content": ["import"], "default_content": ["import"],
    },
}

# Stored outside storage.cfg (/etc/pve/priv/...): accepted, never returned.
SENSITIVE = ("password", "encryption-key", "keyring", "master-pubkey")
