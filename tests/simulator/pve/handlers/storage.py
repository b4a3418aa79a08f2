"""/storage and /storage/{storage} (pve-storage ``API2/Storage/Config.pm``).

storage.cfg is a SectionConfig (``SectionConfig::check_config`` with the plugins' overrides):
per-type options (``storage_types``), fixed options refused on update, ``delete=`` with PVE's
checks, a SHA-1 digest of the rendered file on every read and an optional ``digest`` guard on
update.

Secrets are each type's ``sensitive-properties`` (CIFS and ESXi ``password``, RBD and CephFS
``keyring``, PBS ``password``, ``encryption-key`` and ``master-pubkey``): the API takes them out
of the request (``PVE::Tools::extract_sensitive_params``), so they are neither checked against
the type's options nor written to storage.cfg, and hands them to the plugin's ``on_add_hook`` /
``on_update_hook``, which keep them under /etc/pve/priv (here ``state.storage_secrets``);
``on_delete_hook`` removes them. A read never returns them. PBS records what the key is in
storage.cfg (``encryption-key <fingerprint>``, ``master-pubkey 1``) and answers the key itself
in the write's ``config``. Activating the new storage (mounting, logging in to the target) is
not simulated: every create that passes the checks succeeds.
"""

import base64
import hashlib
import json
import re
import secrets
from datetime import datetime, timezone

from ...errors import die, die_at, locked
from ...formats import split_list
from .base import route

_DROP = object()  # decode_value's `next`: the option is silently left out


def _decode(info, key, value, schema_props):
    """SectionConfig check_value + Storage::Plugin decode_value for one option."""
    if key == "content":
        # a type it does not support: PVE warns "storage does not support content type" and
        # ignores it; an empty result is written as 'none'
        res = {ct for ct in split_list(value) if ct in info["content"]}
        if "none" in res and len(res) > 1:
            raise die("unable to combine 'none' with other content types")
        if not res and "none" not in info["content"]:
            raise die("storage does not support content type 'none'")
        return res
    if key == "nodes":
        return set(split_list(value))
    if key == "content-dirs":
        res = {}
        for item in split_list(value):
            ctype, _sep, path = item.partition("=")
            if ctype in info["content"]:  # else: warned about and ignored
                res[ctype] = path
        return res
    if key == "format" and value not in info["formats"]:
        return _DROP  # "storage does not support format", then `next` skips the option
    if (schema_props.get(key) or {}).get("type") in ("boolean", "integer"):
        return int(value)
    return value


def _canonpath(path):
    """File::Spec::Unix->canonpath for an absolute path."""
    path = re.sub(r"/{2,}", "/", path)
    path = re.sub(r"(?:/\.)+(?:/|\Z)", "/", path)
    path = re.sub(r"^/(?:\.\./)+", "/", path)
    path = re.sub(r"^/\.\.$", "/", path)
    return path if path == "/" else path.rstrip("/")


def _check_config(ctx, typ, info, sid, params, create):
    """SectionConfig::check_config, with the plugins' check_config overrides: NFS/CIFS/CephFS
    default the mount point, Dir/BTRFS vet and canonicalise the path."""
    options = info["options"]
    if create and info.get("default_path") and not params.get("path"):
        params["path"] = f"/mnt/pve/{sid}"
    settings = {}
    for key, value in params.items():
        if not create and options.get(key, {}).get("fixed"):
            raise die(f"can't change value of fixed parameter '{key}'")
        if key not in options:
            raise die(f"unexpected property '{key}'")
        value = str(value)
        if "\n" in value or "\r" in value:
            raise die("property contains a line feed")
        decoded = _decode(info, key, value, ctx.schema_props)
        if decoded is not _DROP:
            settings[key] = decoded
    if create:
        for key, opt in options.items():
            if not opt.get("optional") and params.get(key) is None:
                raise die(f"missing value for required option '{key}'")
        if typ in ("dir", "btrfs"):
            if not re.match(r"^/[-/a-zA-Z0-9_.@]+$", settings["path"]):
                raise die(f"illegal path for directory storage: {settings['path']}")
            settings["path"] = _canonpath(settings["path"])
    return settings


def _extract_sensitive(info, params, delete=()):
    """PVE::Tools::extract_sensitive_params: the type's secrets leave the request; one listed in
    ``delete`` becomes None (remove it) unless a new value is sent as well."""
    sensitive = {}
    for key in info.get("sensitive", ()):
        if key in delete:
            sensitive[key] = None
        value = params.pop(key, None)
        if value is not None:
            sensitive[key] = str(value)
    return sensitive


# -- the plugins' hooks -----------------------------------------------------------------------

def _store_secrets(state, sid, scfg, sensitive):
    """What the CIFS, ESXi, RBD and CephFS hooks do with their secret: a value sent is written to
    its file (<id>.pw, ceph/<id>.keyring, ceph/<id>.secret), a deleted one is removed. Without a
    keyring RBD/CephFS would copy the local cluster's admin key, which this cluster has not."""
    for key, value in sensitive.items():
        state.set_storage_secret(sid, key, value)


def _esxi_add(state, sid, scfg, sensitive):
    """ESXiPlugin::on_add_hook: ``password`` is optional in options(), required here."""
    if sensitive.get("password") is None:
        raise die("missing password")
    _store_secrets(state, sid, scfg, sensitive)


_ZFS_BASE = {"comstar": "/dev/zvol/rdsk", "istgt": "/dev/zvol", "iet": "/dev/zvol",
             "LIO": "/dev/zvol"}


def _zfs_add(state, sid, scfg, sensitive):
    """ZFSPlugin::on_add_hook: without ``zfs-base-path``, derive it from the provider (LunCmd
    get_base; for iet and LIO, PVE asks the target over ssh whether /dev/zvol exists and takes
    /dev/zvol, with a warning, when it cannot tell). Only this path checks the provider."""
    if scfg.get("zfs-base-path"):
        return
    provider = scfg["iscsiprovider"]
    if provider not in _ZFS_BASE:
        # a die without "\n": Perl appends where it died (line 35 at pve-storage 0c56bad)
        raise die_at(f"{provider}: unknown iscsi provider. Available [comstar, istgt, iet, LIO]",
                     "PVE/Storage/ZFSPlugin.pm", 35)
    scfg["zfs-base-path"] = _ZFS_BASE[provider]


def _lvm_add(state, sid, scfg, sensitive):
    """LVMPlugin::on_add_hook: a ``base`` volume must be a LUN of an existing iSCSI storage (PVE
    then creates the volume group on it, which the simulator takes as done)."""
    base = scfg.get("base")
    if not base:
        return
    baseid, _sep, volname = base.partition(":")
    basecfg = state.storage_config(baseid, noerr=True)
    if basecfg is None:
        raise die(f"base storage ID '{baseid}' does not exist")
    if basecfg["type"] != "iscsi":
        # a die without "\n" (line 489 at pve-storage 0c56bad)
        raise die_at(f"unsupported base type '{basecfg['type']}'", "PVE/Storage/LVMPlugin.pm", 489)
    if not re.match(r"^\d+\.\d+\.\d+\.([^/\s]+)$", volname):  # ISCSIPlugin::parse_volname
        raise die(f"unable to parse iscsi volume name '{volname}'")


def _pbs_autogen_key():
    """What ``proxmox-backup-client key create --kdf none`` writes: an unprotected key file with
    a fresh 32-byte key (the fingerprint is a stand-in for PBS's)."""
    key = secrets.token_bytes(32)
    now = datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")
    fingerprint = ":".join(f"{b:02x}" for b in hashlib.sha256(key).digest())
    return json.dumps({"kdf": None, "created": now, "modified": now,
                       "data": base64.b64encode(key).decode(), "fingerprint": fingerprint},
                      indent=2)


def _pbs_set_encryption_key(state, sid, scfg, value, res):
    if value == "autogen":
        value = _pbs_autogen_key()
        decoded = json.loads(value)
    else:
        try:
            decoded = json.loads(value)
        except ValueError:
            decoded = None
        if not isinstance(decoded, dict) or "data" not in decoded:
            raise die("Value does not seems like a valid, JSON formatted encryption key!")
    state.set_storage_secret(sid, "encryption-key", value)  # <id>.enc
    res["encryption-key"] = value
    fingerprint = decoded.get("fingerprint")
    scfg["encryption-key"] = fingerprint if fingerprint and fingerprint != "0" else 1


def _decode_base64(text):
    """MIME::Base64::decode_base64: characters outside the alphabet are skipped, '=' ends."""
    data = re.sub(r"[^A-Za-z0-9+/]", "", text.split("=", 1)[0])
    data = data[:-1] if len(data) % 4 == 1 else data + "=" * (-len(data) % 4)
    return base64.b64decode(data).decode("utf-8", "replace")


def _pbs_add(state, sid, scfg, sensitive):
    """PBSPlugin::on_add_hook. Answers ``{}`` or the (generated) key as the write's config."""
    res = {}
    state.set_storage_secret(sid, "password", sensitive.get("password"))  # <id>.pw
    if sensitive.get("encryption-key") is not None:
        _pbs_set_encryption_key(state, sid, scfg, sensitive["encryption-key"], res)
    if sensitive.get("master-pubkey") is not None:
        if "encryption-key" not in scfg:
            raise die("'master-pubkey' can only be used together with 'encryption-key'")
        state.set_storage_secret(sid, "master-pubkey", _decode_base64(sensitive["master-pubkey"]))
        scfg["master-pubkey"] = 1
    return res


def _pbs_update(state, sid, opts, sensitive):
    """PBSPlugin::on_update_hook: only what the request names (sent or deleted) changes."""
    res = {}
    if "password" in sensitive:
        state.set_storage_secret(sid, "password", sensitive["password"])
    if "encryption-key" in sensitive:
        if sensitive["encryption-key"] is None:
            state.set_storage_secret(sid, "encryption-key", None)
        else:
            _pbs_set_encryption_key(state, sid, opts, sensitive["encryption-key"], res)
    if "master-pubkey" in sensitive:
        if sensitive["master-pubkey"] is None:
            state.set_storage_secret(sid, "master-pubkey", None)
        else:
            state.set_storage_secret(sid, "master-pubkey",
                                     _decode_base64(sensitive["master-pubkey"]))
            opts["master-pubkey"] = 1
    return res


_ADD_HOOKS = {"esxi": _esxi_add, "zfs": _zfs_add, "lvm": _lvm_add, "pbs": _pbs_add}


def _answer(sid, typ, config):
    res = {"storage": sid, "type": typ}
    if config is not None:  # PBS answers {} even when it generated nothing
        res["config"] = config
    return res


@route("GET", "/storage")
def index(ctx, p):
    state = ctx.state
    res = []
    for sid in state.storage:
        if not ctx.access.check_any(ctx.authid, f"/storage/{sid}",
                                    ["Datastore.Audit", "Datastore.AllocateSpace"], True):
            continue
        view = state.storage_view(sid)
        if p.get("type") and p["type"] != view["type"]:
            continue
        res.append(view)
    return res


@route("GET", "/storage/{storage}")
def read(ctx, p):
    ctx.state.storage_config(p["storage"])
    return ctx.state.storage_view(p["storage"])


@route("POST", "/storage")
def create(ctx, p):
    state = ctx.state
    params = dict(ctx.raw)
    typ = params.pop("type")
    sid = params.pop("storage")
    if not params.get("nodes"):
        params.pop("nodes", None)  # never an empty node list
    info = state.storage_type_info(typ)
    sensitive = _extract_sensitive(info, params)
    settings = _check_config(ctx, typ, info, sid, params, create=True)
    with locked(state, "create storage failed"):
        if sid in state.storage:
            raise die(f"storage ID '{sid}' already defined")
        config = _ADD_HOOKS.get(typ, _store_secrets)(state, sid, settings, sensitive)
        settings.setdefault("content", set(info["default_content"]))
        state.storage[sid] = {"type": typ, **settings}
    return _answer(sid, typ, config)


@route("PUT", "/storage/{storage}")
def update(ctx, p):
    state = ctx.state
    params = dict(ctx.raw)
    sid = params.pop("storage")
    digest = params.pop("digest", None)
    delete = split_list(params.pop("delete", None))
    with locked(state, "update storage failed"):
        if digest and digest != state.storage_digest():
            raise die("detected modified configuration - file changed by other user? Try again.")
        scfg = state.storage_config(sid)
        typ = scfg["type"]
        info = state.storage_type_info(typ)
        sensitive = _extract_sensitive(info, params, delete)
        settings = _check_config(ctx, typ, info, sid, params, create=False)
        for key in delete:
            opt = info["options"].get(key)
            if opt is None:
                raise die(f"no such option '{key}'")
            if not opt.get("optional"):
                raise die(f"unable to delete required option '{key}'")
            if opt.get("fixed"):
                raise die(f"unable to delete fixed option '{key}'")
            if key in settings:
                raise die(f"cannot set and delete property '{key}' at the same time!")
        if typ == "pbs":
            config = _pbs_update(state, sid, settings, sensitive)
        else:
            config = _store_secrets(state, sid, settings, sensitive)
        for key in delete:  # after the hook, which sees the configuration unchanged
            scfg.pop(key, None)
        scfg.update(settings)
        scfg.setdefault("content", set(info["default_content"]))
        if scfg.get("nodes") == set():
            del scfg["nodes"]  # an empty list is not written to the file
    return _answer(sid, typ, config)


@route("DELETE", "/storage/{storage}")
def delete(ctx, p):
    state = ctx.state
    sid = p["storage"]
    with locked(state, "delete storage failed"):
        state.storage_config(sid)
        for other, scfg in state.storage.items():
            if other != sid and scfg.get("base", "").startswith(f"{sid}:"):
                raise die("can't remove storage - storage is used as base of another storage")
        del state.storage[sid]
        state.storage_secrets.pop(sid, None)  # the plugins' on_delete_hook
    # PVE::AccessControl::remove_storage_access (outside the storage lock)
    with state.lock:
        state.drop_acl_path(f"/storage/{sid}")
        for pool in state.pools.values():
            pool["storage"].discard(sid)
    return None
