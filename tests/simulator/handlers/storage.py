"""/storage and /storage/{storage} (pve-storage API2/Storage/Config.pm).

storage.cfg is a SectionConfig: per-type options (``storage_types``), fixed
options refused on update, ``delete=`` with PVE's checks, a SHA-1 digest of
the rendered file on every read and an optional ``digest`` guard on update.
Sensitive options (password, keyring, encryption-key, master-pubkey) live
outside storage.cfg and are never returned.
"""

from ..errors import die, locked
from ..formats import split_list
from ..storage_types import SENSITIVE
from .base import route


def _view(state, sid):
    view = state.storage_view(sid)
    info = state.storage_type_info(view["type"]) or {}
    if info.get("shared"):
        view["shared"] = 1  # parse_config forces shared on network storages
    return view


def _decode(typ, info, key, value, schema_props):
    """SectionConfig check_value + Plugin decode_value for one option."""
    if key == "content":
        valid = info["content"] if info else None
        res = set()
        for ct in split_list(value):
            if valid is not None and ct not in valid:
                continue  # PVE: warn "storage does not support content type", then ignore
            res.add(ct)
        if "none" in res and len(res) > 1:
            raise die("unable to combine 'none' with other content types")
        if not res:
            if valid is not None and "none" not in valid:
                raise die("storage does not support content type 'none'")
            res = {"none"}
        return res
    if key == "nodes":
        return set(split_list(value))
    typ_of = (schema_props.get(key) or {}).get("type")
    if typ_of in ("boolean", "integer"):
        return int(value)
    return value


def _check_config(ctx, typ, sid, params, create, sensitive=()):
    """SectionConfig::check_config: per-type options, fixed/required checks.

    ``sensitive`` names the secrets already taken out of ``params`` (they are stored apart from
    storage.cfg): PVE checks the whole request, so a required secret that was sent counts as given.
    """
    info = ctx.state.storage_type_info(typ)
    options = info["options"] if info else None
    schema_props = ctx.schema_props
    settings = {}
    for key, value in params.items():
        if value is None:
            continue
        if options is not None:
            if key not in options:
                raise die(f"unexpected property '{key}'")
            if not create and options[key].get("fixed"):
                raise die(f"can't change value of fixed parameter '{key}'")
        if "\n" in str(value) or "\r" in str(value):
            raise die("property contains a line feed")
        settings[key] = _decode(typ, info, key, str(value), schema_props)
    if create:
        if info and info.get("default_path") and "path" not in settings:
            settings["path"] = f"/mnt/pve/{sid}"
        for key, opt in (options or {}).items():
            if not opt.get("optional") and key not in settings and key not in sensitive:
                raise die(f"missing value for required option '{key}'")
    return settings


def _split_sensitive(params):
    sensitive = {k: params.pop(k) for k in list(params) if k in SENSITIVE}
    return sensitive


@route("GET", "/storage")
def index(ctx, p):
    state = ctx.state
    res = []
    for sid in state.storage:
        if not ctx.access.check_any(ctx.authid, f"/storage/{sid}",
                                    ["Datastore.Audit", "Datastore.AllocateSpace"], True):
            continue
        view = _view(state, sid)
        if p.get("type") and p["type"] != view["type"]:
            continue
        res.append(view)
    return res


@route("GET", "/storage/{storage}")
def read(ctx, p):
    ctx.state.storage_config(p["storage"])
    return _view(ctx.state, p["storage"])


@route("POST", "/storage")
def create(ctx, p):
    state = ctx.state
    params = dict(ctx.raw)
    typ = params.pop("type")
    sid = params.pop("storage")
    if not params.get("nodes"):
        params.pop("nodes", None)
    sensitive = _split_sensitive(params)
    settings = _check_config(ctx, typ, sid, params, create=True, sensitive=sensitive)
    info = state.storage_type_info(typ)
    if info and "content" not in settings:
        settings["content"] = set(info["default_content"])
    with locked(state, "create storage failed"):
        if sid in state.storage:
            raise die(f"storage ID '{sid}' already defined")
        state.storage[sid] = {"type": typ, **settings}
        if sensitive:
            state.storage_secrets[sid] = sensitive
    return {"storage": sid, "type": typ}


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
        sensitive = _split_sensitive(params)
        for key in [k for k in delete if k in SENSITIVE]:
            state.storage_secrets.get(sid, {}).pop(key, None)
            delete.remove(key)
        if "nodes" in params and not params["nodes"]:
            params.pop("nodes")
            delete.append("nodes")
        settings = _check_config(ctx, typ, sid, params, create=False)
        info = state.storage_type_info(typ)
        options = info["options"] if info else {}
        for key in delete:
            opt = options.get(key) if info else {"optional": 1}
            if opt is None:
                raise die(f"no such option '{key}'")
            if not opt.get("optional"):
                raise die(f"unable to delete required option '{key}'")
            if opt.get("fixed"):
                raise die(f"unable to delete fixed option '{key}'")
            if key in settings:
                raise die(f"cannot set and delete property '{key}' at the same time!")
            scfg.pop(key, None)
        scfg.update(settings)
        if info and "content" not in scfg:
            scfg["content"] = set(info["default_content"])
        if sensitive:
            state.storage_secrets.setdefault(sid, {}).update(sensitive)
    return {"storage": sid, "type": typ}


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
        state.storage_secrets.pop(sid, None)
    # PVE::AccessControl::remove_storage_access (outside the storage lock)
    with state.lock:
        state.drop_acl_path(f"/storage/{sid}")
        for pool in state.pools.values():
            pool["storage"].discard(sid)
    return None
