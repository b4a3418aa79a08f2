"""Prune, sync and verify jobs and remotes of a Proxmox Backup Server (issue 12).

Ported from proxmox-backup ``src/api2/config/{prune,sync,verify,remote}.rs``,
``pbs-api-types/src/jobs.rs`` (``*JobConfig::acl_path``, ``SyncJobConfig::remote_acl_path``,
``GroupFilter``) and proxmox-section-config ``SectionConfigData::lookup_json``. The sync job
routes follow PBS 4's ``src/api2/config/sync.rs`` with push jobs (read in
pve-loong64-port/proxmox-backup 1bab5905d496, a port tracking proxmox-backup 4.x; the proxmox-backup
mirror here is 3.2.4, from before push sync):

* prune.cfg, sync.cfg, verification.cfg and remote.cfg are separate files, each
  with its own SHA-256 ``digest`` sibling on list **and** item reads.
* A missing section read through ``lookup`` is 400 ``no such <type> '<id>'``
  (types ``prune``, ``sync``, ``verification``, ``remote``). Only sync-job and
  remote DELETE check presence first and answer 404 (``job 'x' does not
  exist.``, ``remote 'x' does not exist.``); prune/verify DELETE look up first.
* Duplicates: ``parameter verification failed - 'id': job 'x' already exists.``
  (remote: ``'name': remote 'x' already exists.``).
* The handlers' own privilege checks go through ``ctx.check_privs``, the list
  filters through ``ctx.has_privs``; the sync-job checks
  (``check_sync_job_read_access`` / ``check_sync_job_modify_access``, per
  ``sync-direction``) test single privileges of ``lookup_privs``; a sync job the
  caller may not touch is 400 ``permission check failed``.
* Push jobs refuse ``resync-corrupt`` (400 ``push jobs do not support
  resync-corrupt option``).
* Remote passwords are write-only: never in a list or read answer.
* PBS checks neither that a job's datastore nor that a sync job's remote exists.

State (``PbsState``): ``prune_jobs[id]``, ``sync_jobs[id]``, ``verify_jobs[id]``
are dicts of wire keys including ``id``; ``remotes[name]`` includes ``name`` and
the plain ``password``. ``disable`` of a prune job is stored only when true.
"""

import hashlib
import re

from ..auth import PRIV, lookup_privs
from ..errors import PbsError
from ..schema import ParameterError, rust_debug_str
from .base import Result, route

MAX_NAMESPACE_DEPTH = 7
_MODIFIED = "detected modified configuration - file changed by other user? Try again."
_SYNC_DENIED = "permission check failed"
_PUSH_RESYNC = "push jobs do not support resync-corrupt option"
_ROOT = "root@pam"


# -- section-config files --------------------------------------------------------------

def _render(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def file_digest(section_type, sections, id_key="id"):
    """SHA-256 of the section-config text (arrays are repeated ``key value`` lines)."""
    out = []
    for section_id, config in sections.items():
        out.append(f"{section_type}: {section_id}\n")
        for key, value in config.items():
            if key == id_key:
                continue
            for item in value if isinstance(value, list) else [value]:
                out.append(f"\t{key} {_render(item)}\n")
        out.append("\n")
    return hashlib.sha256("".join(out).encode()).hexdigest()


def _check_digest(params, current):
    """crate::tools::detect_modified_configuration_file."""
    if params.get("digest") is not None and params["digest"] != current:
        raise PbsError(400, _MODIFIED)


def _lookup(sections, section_type, section_id):
    """SectionConfigData::lookup: a generic 400 for a missing section."""
    if section_id not in sections:
        raise PbsError(400, f"no such {section_type} '{section_id}'")
    return sections[section_id]


def _already_exists(key, text):
    raise PbsError(400, str(ParameterError([(key, text)])))


def _apply(data, params, skip):
    """Copy the remaining update parameters into the section."""
    for key, value in params.items():
        if key not in skip:
            data[key] = value


def _delete(data, params):
    for key in params.get("delete") or []:
        data.pop(key, None)


def _trimmed_comment(data, params):
    """Comment handling of the sync/verify/remote updaters: trimmed, empty deletes."""
    if "comment" in params:
        comment = params["comment"].strip()
        if comment:
            data["comment"] = comment
        else:
            data.pop("comment", None)


# -- privileges and namespaces ---------------------------------------------------------

def acl_path(store, ns=None):
    """BackupNamespace::acl_path / *JobConfig::acl_path."""
    return ["datastore", store] + (ns.split("/") if ns else [])


def _check_max_depth(ns, max_depth):
    """BackupNamespace::check_max_depth."""
    depth = len(ns.split("/")) if ns else 0
    if depth + max_depth > MAX_NAMESPACE_DEPTH:
        raise PbsError(400, f"namespace '{ns}'s depth and recursion depth exceed limit: "
                            f"{depth} + {max_depth} > {MAX_NAMESPACE_DEPTH}")


# -- prune jobs (src/api2/config/prune.rs) ------------------------------------------------

def _prune_digest(state):
    return file_digest("prune", state.prune_jobs)


def _prune_path(job):
    return acl_path(job["store"], job.get("ns"))


@route("GET", "/config/prune")
def prune_list(ctx):
    """list_prune_jobs: jobs where the caller has Datastore.Audit or .Modify."""
    jobs = [dict(job) for job in ctx.state.prune_jobs.values()
            if ctx.has_privs(_prune_path(job), ["Datastore.Audit", "Datastore.Modify"], True)]
    return Result(jobs, {"digest": _prune_digest(ctx.state)})


@route("POST", "/config/prune")
def prune_create(ctx):
    """create_prune_job."""
    config = {k: v for k, v in ctx.params.items() if not (k == "disable" and not v)}
    ctx.check_privs(_prune_path(config), ["Datastore.Modify"], True)
    if config["id"] in ctx.state.prune_jobs:
        _already_exists("id", f"job '{config['id']}' already exists.")
    ctx.state.prune_jobs[config["id"]] = config


@route("GET", "/config/prune/{id}")
def prune_read(ctx):
    """read_prune_job: the item carries the file digest too."""
    job = _lookup(ctx.state.prune_jobs, "prune", ctx.params["id"])
    ctx.check_privs(_prune_path(job), ["Datastore.Audit"], True)
    return Result(dict(job), {"digest": _prune_digest(ctx.state)})


@route("PUT", "/config/prune/{id}")
def prune_update(ctx):
    """update_prune_job: the comment is stored untrimmed; ``ns`` root unsets it."""
    state, params = ctx.state, ctx.params
    _check_digest(params, _prune_digest(state))
    data = dict(_lookup(state.prune_jobs, "prune", params["id"]))
    ctx.check_privs(_prune_path(data), ["Datastore.Modify"], True)
    _delete(data, params)
    if "store" in params:
        data["store"] = params["store"]
    if "ns" in params:
        if params["ns"]:
            data["ns"] = params["ns"]
        else:
            data.pop("ns", None)
    if "store" in params or "ns" in params:
        ctx.check_privs(_prune_path(data), ["Datastore.Modify"], True)
    if params.get("disable") is not None:
        if params["disable"]:
            data["disable"] = True
        else:
            data.pop("disable", None)  # serialized only when true
    _apply(data, params, {"id", "delete", "digest", "store", "ns", "disable"})
    state.prune_jobs[params["id"]] = data


@route("DELETE", "/config/prune/{id}")
def prune_delete(ctx):
    """delete_prune_job: lookup (400) and Datastore.Modify before the digest."""
    state, params = ctx.state, ctx.params
    job = _lookup(state.prune_jobs, "prune", params["id"])
    ctx.check_privs(_prune_path(job), ["Datastore.Modify"], True)
    _check_digest(params, _prune_digest(state))
    del state.prune_jobs[params["id"]]


# -- verification jobs (src/api2/config/verify.rs) ----------------------------------------

_VERIFY_READ = ["Datastore.Audit", "Datastore.Verify"]


def _verify_digest(state):
    return file_digest("verification", state.verify_jobs)


@route("GET", "/config/verify")
def verify_list(ctx):
    """list_verification_jobs: jobs where the caller has Datastore.Audit or .Verify."""
    jobs = [dict(job) for job in ctx.state.verify_jobs.values()
            if ctx.has_privs(acl_path(job["store"], job.get("ns")), _VERIFY_READ, True)]
    return Result(jobs, {"digest": _verify_digest(ctx.state)})


@route("POST", "/config/verify")
def verify_create(ctx):
    """create_verification_job: Datastore.Verify (not partial)."""
    config = dict(ctx.params)
    ctx.check_privs(acl_path(config["store"], config.get("ns")), ["Datastore.Verify"], False)
    if config["id"] in ctx.state.verify_jobs:
        _already_exists("id", f"job '{config['id']}' already exists.")
    ctx.state.verify_jobs[config["id"]] = config


@route("GET", "/config/verify/{id}")
def verify_read(ctx):
    """read_verification_job."""
    job = _lookup(ctx.state.verify_jobs, "verification", ctx.params["id"])
    ctx.check_privs(acl_path(job["store"], job.get("ns")), _VERIFY_READ, True)
    return Result(dict(job), {"digest": _verify_digest(ctx.state)})


@route("PUT", "/config/verify/{id}")
def verify_update(ctx):
    """update_verification_job: a root ``ns`` is ignored (only ``delete=ns`` unsets it)."""
    state, params = ctx.state, ctx.params
    _check_digest(params, _verify_digest(state))
    data = dict(_lookup(state.verify_jobs, "verification", params["id"]))
    ctx.check_privs(acl_path(data["store"], data.get("ns")), ["Datastore.Verify"], True)
    _delete(data, params)
    _trimmed_comment(data, params)
    _apply(data, params, {"id", "delete", "digest", "comment", "ns"})
    if params.get("ns"):
        data["ns"] = params["ns"]
    ctx.check_privs(acl_path(data["store"], data.get("ns")), ["Datastore.Verify"], True)
    state.verify_jobs[params["id"]] = data


@route("DELETE", "/config/verify/{id}")
def verify_delete(ctx):
    """delete_verification_job: lookup (400) before the digest."""
    state, params = ctx.state, ctx.params
    job = _lookup(state.verify_jobs, "verification", params["id"])
    ctx.check_privs(acl_path(job["store"], job.get("ns")), ["Datastore.Verify"], True)
    _check_digest(params, _verify_digest(state))
    del state.verify_jobs[params["id"]]


# -- sync jobs (src/api2/config/sync.rs) --------------------------------------------------

def _sync_digest(state):
    return file_digest("sync", state.sync_jobs)


def _direction(job):
    return job.get("sync-direction", "pull")


def _remote_acl_path(job):
    """SyncJobConfig::remote_acl_path: ``/remote/{remote}/{remote-store}[/{remote-ns}]``, None without a
    remote."""
    if not job.get("remote"):
        return None
    namespace = job["remote-ns"].split("/") if job.get("remote-ns") else []
    return ["remote", job["remote"], job["remote-store"]] + namespace


def _holds(ctx, path, priv):
    """``lookup_privs(auth_id, path) & PRIV != 0``."""
    return bool(lookup_privs(ctx.state, ctx.authid, path) & PRIV[priv])


def sync_job_read_access(ctx, job):
    """check_sync_job_read_access: Datastore.Audit on the local store (and namespace) in both directions;
    pull: Remote.Audit on /remote/{remote} (a local pull: Datastore.Audit on the source store); push:
    Remote.Audit on the remote store and namespace, never without a remote."""
    if not _holds(ctx, acl_path(job["store"], job.get("ns")), "Datastore.Audit"):
        return False
    if _direction(job) == "push":
        target = _remote_acl_path(job)
        return target is not None and _holds(ctx, target, "Remote.Audit")
    if job.get("remote"):
        return _holds(ctx, ["remote", job["remote"]], "Remote.Audit")
    return _holds(ctx, ["datastore", job["remote-store"]], "Datastore.Audit")


def _owns(authid, owner):
    """is_correct_owner (pbs-datastore check_backup_owner): the job's owner is the caller, or a token of
    the calling user; no owner means root@pam."""
    if owner is None:
        return authid == _ROOT
    return owner == authid or ("!" in owner and "!" not in authid and owner.split("!")[0] == authid)


def sync_job_modify_access(ctx, job):
    """check_sync_job_modify_access, per direction.

    pull: Datastore.Audit and .Backup on the local store (and namespace), .Prune for remove-vanished,
    .Modify unless the caller owns the job, Remote.Read on /remote/{remote}/{remote-store} (none for a
    local pull). push: Remote.DatastoreBackup on the remote store (and namespace), .DatastorePrune for
    remove-vanished, Datastore.Audit on the local store; then Datastore.Read suffices, else
    Datastore.Backup, with .Modify unless the caller owns the job."""
    local = acl_path(job["store"], job.get("ns"))
    remove_vanished = job.get("remove-vanished") is True
    owner_ok = _owns(ctx.authid, job.get("owner"))
    if _direction(job) == "push":
        target = _remote_acl_path(job)
        if target is None or not _holds(ctx, target, "Remote.DatastoreBackup"):
            return False
        if remove_vanished and not _holds(ctx, target, "Remote.DatastorePrune"):
            return False
        if not _holds(ctx, local, "Datastore.Audit"):
            return False
        if _holds(ctx, local, "Datastore.Read"):
            return True
        if not owner_ok and not _holds(ctx, local, "Datastore.Modify"):
            return False
        return _holds(ctx, local, "Datastore.Backup")
    if not (_holds(ctx, local, "Datastore.Audit") and _holds(ctx, local, "Datastore.Backup")):
        return False
    if remove_vanished and not _holds(ctx, local, "Datastore.Prune"):
        return False
    if not owner_ok and not _holds(ctx, local, "Datastore.Modify"):
        return False
    if job.get("remote"):
        return _holds(ctx, ["remote", job["remote"], job["remote-store"]], "Remote.Read")
    return True


def _check_sync_depth(job):
    if job.get("max-depth") is not None:
        for key in ("ns", "remote-ns"):
            if job.get(key) is not None:
                _check_max_depth(job[key], job["max-depth"])


_GROUP_TYPES = ("vm", "ct", "host")
# pbs-api-types GROUP_PATH_REGEX (BACKUP_GROUP_SCHEMA's pattern): ``<type>/<id>``
_GROUP_PATH = re.compile(r"^(?:host|vm|ct)/[A-Za-z0-9_][A-Za-z0-9._\-]*\Z")


def _check_group_filters(filters):
    """GroupFilter::from_str / FilterType::from_str (pbs-api-types jobs.rs, the schema's VerifyFn, which
    the schema file cannot carry). A ``regex:`` value is not compiled: the Rust regex crate's texts
    cannot be reproduced."""
    errors = ParameterError()
    for text in filters or []:
        prefix, sep, rest = text.partition(":")
        if sep and prefix in ("include", "exclude"):
            text = rest
        kind, sep, value = text.partition(":")
        if not sep:
            errors.push("group-filter", "input doesn't match expected format "
                                        "'<group:GROUP||type:<vm|ct|host>|regex:REGEX>'")
        elif kind not in ("group", "type", "regex"):
            errors.push("group-filter", f"expected 'group', 'type' or 'regex' prefix, got '{kind}'")
        elif kind == "type" and value not in _GROUP_TYPES:
            errors.push("group-filter", f"invalid backup type {rust_debug_str(value)}")
        elif kind == "group" and not _GROUP_PATH.match(value):
            errors.push("group-filter", "value does not match the regex pattern")
    if errors.errors:
        raise PbsError(400, str(errors))


@route("GET", "/config/sync")
def sync_list(ctx):
    """list_sync_jobs: one direction (default pull) or ``all``; read access filters."""
    wanted = ctx.params.get("sync-direction", "pull")
    jobs = [dict(job) for job in ctx.state.sync_jobs.values()
            if wanted in ("all", _direction(job)) and sync_job_read_access(ctx, job)]
    return Result(jobs, {"digest": _sync_digest(ctx.state)})


@route("POST", "/config/sync")
def sync_create(ctx):
    """create_sync_job."""
    config = dict(ctx.params)
    _check_group_filters(config.get("group-filter"))
    if not sync_job_modify_access(ctx, config):
        raise PbsError(400, _SYNC_DENIED)
    if not config.get("remote") and config["store"] == config["remote-store"]:
        raise PbsError(400, "source and target datastore can't be the same")
    if _direction(config) == "push" and "resync-corrupt" in config:
        raise PbsError(400, _PUSH_RESYNC)
    _check_sync_depth(config)
    if config["id"] in ctx.state.sync_jobs:
        _already_exists("id", f"job '{config['id']}' already exists.")
    ctx.state.sync_jobs[config["id"]] = config


@route("GET", "/config/sync/{id}")
def sync_read(ctx):
    """read_sync_job."""
    job = _lookup(ctx.state.sync_jobs, "sync", ctx.params["id"])
    if not sync_job_read_access(ctx, job):
        raise PbsError(400, _SYNC_DENIED)
    return Result(dict(job), {"digest": _sync_digest(ctx.state)})


@route("PUT", "/config/sync/{id}")
def sync_update(ctx):
    """update_sync_job: the resync-corrupt refusal looks at the update's own ``sync-direction`` (not the
    job's), ``unmount-on-done`` needs ``run-on-mount`` on the updated job."""
    state, params = ctx.state, ctx.params
    _check_group_filters(params.get("group-filter"))
    _check_digest(params, _sync_digest(state))
    data = dict(_lookup(state.sync_jobs, "sync", params["id"]))
    if params.get("sync-direction") == "push" and "resync-corrupt" in params:
        raise PbsError(400, _PUSH_RESYNC)
    _delete(data, params)
    _trimmed_comment(data, params)
    _apply(data, params, {"id", "delete", "digest", "comment"})
    if params.get("unmount-on-done") and data.get("run-on-mount") is not True:
        raise PbsError(400, "'unmount-on-done' can only be set when 'run-on-mount' is enabled")
    _check_sync_depth(data)
    if not sync_job_modify_access(ctx, data):
        raise PbsError(400, _SYNC_DENIED)
    state.sync_jobs[params["id"]] = data


@route("DELETE", "/config/sync/{id}")
def sync_delete(ctx):
    """delete_sync_job: digest first, then a 404 for a missing job."""
    state, params = ctx.state, ctx.params
    _check_digest(params, _sync_digest(state))
    job = state.sync_jobs.get(params["id"])
    if job is None:
        raise PbsError(404, f"job '{params['id']}' does not exist.")
    if not sync_job_modify_access(ctx, job):
        raise PbsError(400, _SYNC_DENIED)
    del state.sync_jobs[params["id"]]


# -- remotes (src/api2/config/remote.rs) --------------------------------------------------

def _remote_digest(state):
    return file_digest("remote", state.remotes, id_key="name")


def _without_password(remote):
    """RemoteWithoutPassword."""
    return {k: v for k, v in remote.items() if k != "password"}


@route("GET", "/config/remote")
def remote_list(ctx):
    """list_remotes: filtered by Remote.Audit on /remote/{name}."""
    remotes = [_without_password(r) for name, r in ctx.state.remotes.items()
               if ctx.has_privs(["remote", name], ["Remote.Audit"])]
    return Result(remotes, {"digest": _remote_digest(ctx.state)})


@route("POST", "/config/remote")
def remote_create(ctx):
    """create_remote (Remote.Modify on /remote is the schema's check)."""
    name = ctx.params["name"]
    if name in ctx.state.remotes:
        _already_exists("name", f"remote '{name}' already exists.")
    ctx.state.remotes[name] = dict(ctx.params)


@route("GET", "/config/remote/{name}")
def remote_read(ctx):
    """read_remote: the password never leaves the server."""
    remote = _lookup(ctx.state.remotes, "remote", ctx.params["name"])
    return Result(_without_password(remote), {"digest": _remote_digest(ctx.state)})


@route("PUT", "/config/remote/{name}")
def remote_update(ctx):
    """update_remote: ``password`` replaces the stored one."""
    state, params = ctx.state, ctx.params
    _check_digest(params, _remote_digest(state))
    data = dict(_lookup(state.remotes, "remote", params["name"]))
    _delete(data, params)
    _trimmed_comment(data, params)
    _apply(data, params, {"name", "delete", "digest", "comment"})
    state.remotes[params["name"]] = data


@route("DELETE", "/config/remote/{name}")
def remote_delete(ctx):
    """delete_remote: refused while a sync job uses it; then digest; then a 404."""
    state, params = ctx.state, ctx.params
    name = params["name"]
    for job in state.sync_jobs.values():
        if job.get("remote") == name:
            raise PbsError(400, str(ParameterError([(
                "name", f"remote '{name}' is used by sync job '{job['id']}' (datastore '{job['store']}')")])))
    _check_digest(params, _remote_digest(state))
    if name not in state.remotes:
        raise PbsError(404, f"remote '{name}' does not exist.")
    del state.remotes[name]


# -- datastore removal (src/api2/config/datastore.rs delete_datastore) ---------------------

def drop_datastore_jobs(state, store):
    """The jobs ``delete_datastore`` removes unless ``keep-job-configs``: verify and prune jobs of the
    store and its sync jobs of both directions (``list_config_sync_jobs(.., Some(ListSyncDirection::All))``
    since PBS 4.1.1, "api: config: fix push sync jobs cleanup on datastore destroy"; read in
    pve-loong64-port/proxmox-backup 1bab5905d496 src/api2/config/datastore.rs). PBS deletes them
    through the list and delete handlers, i.e. as the caller; here every one goes."""
    for jobs in (state.verify_jobs, state.prune_jobs, state.sync_jobs):
        for job_id in [j for j, job in jobs.items() if job["store"] == store]:
            del jobs[job_id]
