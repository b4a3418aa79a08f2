"""Datastores of a Proxmox Backup Server: datastore.cfg (proxmox-backup ``src/api2/config/datastore.rs``).

Create and delete are worker tasks; the file changes when the task ends (``PbsState.settle``). A
``prune-schedule`` given at creation becomes a prune job (handlers/jobs.py); a DELETE drops the
store's jobs unless ``keep-job-configs``.
"""

import uuid

from ..errors import PbsError
from ..schema import ParameterError, load as load_schema
from .base import Result, route
from .jobs import drop_datastore_jobs

# DataStoreConfig members that moved into prune jobs (create_datastore clears them)
_PRUNE_KEYS = ("keep-last", "keep-hourly", "keep-daily", "keep-weekly", "keep-monthly",
               "keep-yearly")


@route("GET", "/config/datastore")
def datastore_list(ctx):
    state = ctx.state
    return Result([state.view(name) for name in state.datastores], {"digest": state.digest()})


@route("GET", "/config/datastore/{name}")
def datastore_read(ctx):
    state, name = ctx.state, ctx.params["name"]
    if name not in state.datastores:
        raise PbsError(400, f"no such datastore '{name}'")
    data = state.view(name)
    return Result(data, {"digest": state.digest()})


def _config_members():
    """The DataStoreConfig members (the read method's ``returns`` properties)."""
    found = load_schema().find("GET", "/config/datastore/{name}")
    returns = (found[1].get("returns") or {}) if found else {}
    return set(returns.get("properties") or {}) - {"name"}


@route("POST", "/config/datastore")
def datastore_create(ctx):
    state, params = ctx.state, ctx.params
    name = params["name"]
    if name in state.datastores:
        raise PbsError(400, str(ParameterError([("name", f"datastore '{name}' already exists.")])))
    members = _config_members() or set(params)
    config = {k: v for k, v in params.items() if k in members and k != "name"}
    prune_job = None
    if config.get("prune-schedule"):
        job_id = f"default-{name}-{uuid.uuid4()}"[:32]
        prune_job = {"id": job_id, "store": name, "schedule": config["prune-schedule"],
                     **{k: config[k] for k in _PRUNE_KEYS if k in config}}
    for key in (*_PRUNE_KEYS, "prune-schedule"):
        config.pop(key, None)  # "now handled by prune jobs"
    path = config.get("path", "")
    exitstatus = "OK"
    if not config.get("backing-device") and not path.startswith("/"):
        exitstatus = f'expected absolute path - got "{path}"'

    def done():
        state.datastores[name] = config
        if prune_job is not None:
            state.prune_jobs[prune_job["id"]] = prune_job

    return state.start_task("create-datastore", name, ctx.authid, exitstatus=exitstatus,
                            log=[f"create datastore '{name}' on disk {path}"], on_done=done)


def _check_digest(state, params):
    """A ``digest`` parameter must match the current datastore.cfg."""
    digest = params.get("digest")
    if digest is not None and digest != state.digest():
        raise PbsError(400, "detected modified configuration - file changed by other user? Try again.")


@route("PUT", "/config/datastore/{name}")
def datastore_update(ctx):
    state, params = ctx.state, ctx.params
    name = params["name"]
    _check_digest(state, params)
    if name not in state.datastores:
        raise PbsError(400, f"no such datastore '{name}'")
    data = dict(state.datastores[name])
    for key in params.get("delete") or []:
        data.pop(key, None)
    for key in (*_PRUNE_KEYS, "prune-schedule"):
        if key in params:
            raise PbsError(400, str(ParameterError(
                [(key, "datastore prune settings have been replaced by prune jobs")])))
    for key, value in params.items():
        if key in ("name", "delete", "digest"):
            continue
        if key == "comment":
            value = value.strip()
            if not value:
                data.pop("comment", None)
                continue
        data[key] = value
    state.datastores[name] = data
    return None


@route("DELETE", "/config/datastore/{name}")
def datastore_delete(ctx):
    state, params = ctx.state, ctx.params
    name = params["name"]
    _check_digest(state, params)
    if name not in state.datastores:
        raise PbsError(404, f"datastore '{name}' does not exist.")
    if not params.get("keep-job-configs"):
        drop_datastore_jobs(state, name)
        state.acl_delete_node(f"/datastore/{name}")  # AclTree::delete_node: the subtree goes too

    def done():
        state.datastores.pop(name, None)

    return state.start_task("delete-datastore", name, ctx.authid, on_done=done)
