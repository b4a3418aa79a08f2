"""Per-type options of ``storage.cfg``: the plugins of pve-storage 9.x.

For each storage type, ported from ``PVE/Storage/<Type>Plugin.pm``:

* ``options``: ``options()`` - which options the type accepts, which are required on create (not
  ``optional``) and which are ``fixed`` (set at create, refused on update);
* ``content`` / ``default_content``: ``plugindata()->{content}`` - the content types it supports
  and what ``parse_config`` fills in when the section has none;
* ``formats``: the valid values of ``format`` (``plugindata()->{format}``), for the types that
  accept the option; an unsupported one is dropped (``decode_value``);
* ``sensitive``: ``plugindata()->{'sensitive-properties'}`` - the secrets the API takes out of
  the request and the plugin's hooks store under /etc/pve/priv instead of storage.cfg;
* ``shared``: the type is in ``@SHARED_STORAGE`` (Plugin.pm), so ``parse_config`` forces
  ``shared 1`` and the type has no ``shared`` option;
* ``default_path``: ``check_config`` defaults ``path`` to ``/mnt/pve/<id>`` on create
  (NFS, CIFS, CephFS).
"""

O = {"optional": 1}                # optional, updatable
F = {"fixed": 1}                   # required and fixed
FO = {"fixed": 1, "optional": 1}   # optional, fixed once set
R = {}                             # required, updatable

_FILE_CONTENT = ["images", "rootdir", "vztmpl", "iso", "backup", "snippets", "import"]

# options shared by the directory-like plugins (pbs, esxi and the block types list theirs)
_DIRLIKE = {
    "nodes": O, "disable": O, "content": O, "format": O, "prune-backups": O,
    "max-protected-backups": O, "mkdir": O, "create-base-path": O, "create-subdirs": O,
}

TYPES = {
    "dir": {
        "options": {"path": F, "content-dirs": O, "shared": O, "is_mountpoint": O, "bwlimit": O,
                    "preallocation": O, "snapshot-as-volume-chain": FO, **_DIRLIKE},
        "content": _FILE_CONTENT + ["none"], "default_content": ["images", "rootdir"],
        "formats": ["raw", "qcow2", "vmdk", "subvol"],
    },
    "nfs": {
        "options": {"path": F, "content-dirs": O, "server": F, "export": F, "options": O,
                    "bwlimit": O, "preallocation": O, "snapshot-as-volume-chain": FO, **_DIRLIKE},
        "content": _FILE_CONTENT, "default_content": ["images"],
        "formats": ["raw", "qcow2", "vmdk"], "default_path": True, "shared": True,
    },
    "cifs": {
        "options": {"path": F, "content-dirs": O, "server": F, "share": F, "subdir": O,
                    "username": O, "password": O, "domain": O, "smbversion": O, "options": O,
                    "bwlimit": O, "preallocation": O, "snapshot-as-volume-chain": FO, **_DIRLIKE},
        "content": _FILE_CONTENT, "default_content": ["images"],
        "formats": ["raw", "qcow2", "vmdk"], "sensitive": ("password",),
        "default_path": True, "shared": True,
    },
    "btrfs": {
        "options": {"path": F, "shared": O, "is_mountpoint": O, "nocow": O, "preallocation": O,
                    **_DIRLIKE},
        "content": _FILE_CONTENT + ["none"], "default_content": ["images", "rootdir"],
        "formats": ["raw", "subvol"],
    },
    "cephfs": {
        # 'format' is an option, but the plugin declares no formats: every value is dropped
        "options": {"path": F, "content-dirs": O, "monhost": O, "subdir": O, "options": O,
                    "username": O, "fuse": O, "bwlimit": O, "keyring": O, "fs-name": O,
                    **_DIRLIKE},
        "content": ["vztmpl", "iso", "backup", "snippets", "import"], "default_content": ["backup"],
        "formats": [], "sensitive": ("keyring",), "default_path": True, "shared": True,
    },
    "pbs": {
        "options": {"server": F, "datastore": F, "namespace": O, "port": O, "nodes": O,
                    "disable": O, "content": O, "username": O, "password": O,
                    "encryption-key": O, "master-pubkey": O, "prune-backups": O,
                    "max-protected-backups": O, "fingerprint": O},
        "content": ["backup", "none"], "default_content": ["backup"],
        "sensitive": ("encryption-key", "master-pubkey", "password"), "shared": True,
    },
    "lvm": {
        "options": {"vgname": F, "nodes": O, "shared": O, "disable": O, "saferemove": O,
                    "saferemove-stepsize": O, "saferemove_throughput": O, "content": O,
                    "base": FO, "tagged_only": O, "bwlimit": O, "snapshot-as-volume-chain": O},
        "content": ["images", "rootdir"], "default_content": ["images"],
    },
    "lvmthin": {
        "options": {"thinpool": F, "vgname": F, "nodes": O, "disable": O, "content": O,
                    "bwlimit": O},
        "content": ["images", "rootdir"], "default_content": ["images", "rootdir"],
    },
    "zfspool": {
        "options": {"pool": F, "blocksize": O, "sparse": O, "nodes": O, "disable": O,
                    "content": O, "bwlimit": O, "mountpoint": O},
        "content": ["images", "rootdir"], "default_content": ["images", "rootdir"],
    },
    "rbd": {
        "options": {"nodes": O, "disable": O, "monhost": O, "pool": O, "data-pool": O,
                    "namespace": O, "username": O, "content": O, "krbd": O, "keyring": O,
                    "bwlimit": O},
        "content": ["images", "rootdir"], "default_content": ["images"],
        "sensitive": ("keyring",), "shared": True,
    },
    "iscsi": {
        "options": {"portal": F, "target": F, "nodes": O, "disable": O, "content": O,
                    "bwlimit": O},
        "content": ["images", "none"], "default_content": ["images"], "shared": True,
    },
    "iscsidirect": {
        "options": {"portal": F, "target": F, "nodes": O, "disable": O, "content": O,
                    "bwlimit": O},
        "content": ["images", "none"], "default_content": ["images"], "shared": True,
    },
    "zfs": {
        "options": {"nodes": O, "disable": O, "portal": F, "target": F, "pool": F,
                    "blocksize": F, "iscsiprovider": F, "nowritecache": O, "sparse": O,
                    "comstar_hg": O, "comstar_tg": O, "lio_tpg": O, "content": O, "bwlimit": O,
                    "zfs-base-path": O},
        "content": ["images"], "default_content": ["images"], "shared": True,
    },
    "esxi": {
        # the password is optional here; ESXiPlugin's on_add_hook is what insists on it
        "options": {"nodes": O, "shared": O, "disable": O, "content": O, "server": R,
                    "username": R, "password": O, "skip-cert-verification": O, "port": O},
        "content": ["import"], "default_content": ["import"], "sensitive": ("password",),
    },
}
