"""/cluster/backup and /cluster/backup/{id}: the vzdump sections of jobs.cfg (pve-manager
``API2/Backup.pm``, ``PVE/VZDump.pm`` verify_vzdump_parameters, ``PVE/VZDump/JobBase.pm``).

``state.backup_jobs`` maps a job id to its section: ``type: vzdump`` plus the options as the
file holds them (text, e.g. ``"enabled": "1"``, ``"vmid": "100,101"``). Reads add ``id`` and
answer the three property strings jobs.cfg keeps parsed (``prune-backups``, ``fleecing``,
``performance``) as objects, the way ``JobBase::decode_value`` leaves them. jobs.cfg has no
digest in the API. A missing job: a read answers 400 ``{"id": "No such job 'x'"}``, an update
500 ``no such vzdump job``, a delete 500 with the stringified 400 (``400 Parameter verification
failed.`` and ``id: No such job 'x'``), because PVE re-dies ``"$@"`` outside its lock; so is every
other check made under it (``verify_vzdump_parameters``' 400s on a create or an update). What is
checked before the lock keeps its status: the root-only options, a missing pool (403,
``check_pool_exist``), ``schedule`` against ``starttime``. The legacy ``vzdump.cron`` jobs and
``next-run`` are not simulated.
"""

import uuid
from collections import OrderedDict

from ...errors import ApiError, die, locked, param_exc, perm_exc
from ...formats import FormatError, split_list
from ...schema import load, parse_property_string
from ..state import register_slice
from .base import route
from .texts import read_back, section_comment, section_value
from .cluster_options import read_property_string

register_slice("backup_jobs", OrderedDict)  # jobs.cfg vzdump sections

ALL_DAYS = "mon,tue,wed,thu,fri,sat,sun"
# the options JobBase keeps as parsed property strings
PROPERTY_STRINGS = ("prune-backups", "fleecing", "performance")
ROOT_ONLY = ("tmpdir", "dumpdir", "script")


def _formats():
    """The property strings' formats, from what the schema says a read returns."""
    props = load().lookup("GET", "/cluster/backup/{id}")["returns"]["properties"]
    return {key: props[key]["properties"] for key in PROPERTY_STRINGS}


def _options():
    """What delete= may name: the vzdump options (``VZDump::option_exists``) and Backup.pm's $deletable
    (``comment``, ``repeat-missed``); the update call's own ``schedule`` and ``enabled`` are neither."""
    props = load().lookup("PUT", "/cluster/backup/{id}")["parameters"]["properties"]
    return set(props) - {"id", "delete", "starttime", "dow", "schedule", "enabled"}


def _set(value):
    """Perl truth of a stored flag or text ('0' and '' are false)."""
    return value not in (None, "", "0")


def _check_property_strings(params):
    """The parameter check of the backup-fleecing, backup-performance and prune-backups formats (the
    simulator's schema layer does not hold them): a 400 before the handler runs."""
    formats = _formats()
    for key in PROPERTY_STRINGS:
        if params.get(key):
            try:
                parse_property_string(formats[key], params[key], key)
            except FormatError as err:
                raise param_exc({key: "invalid format - " + err.text()}) from err


def _verify(job, check_missing):
    """PVE::VZDump::verify_vzdump_parameters (no maxfiles check since pve-manager 9b193c4a, PVE 9)."""
    for other in ("all", "exclude", "pool"):
        if _set(job.get(other)) and job.get("vmid"):
            raise param_exc({other: "option conflicts with option 'vmid'"})
    if job.get("exclude") and not job.get("pool"):
        job["all"] = "1"
    if check_missing and not (_set(job.get("all")) or _set(job.get("stop")) or job.get("pool")) \
            and not job.get("vmid"):
        raise param_exc({"vmid": "property is missing"})


def _view(jid, job):
    formats = _formats()
    res = dict(job, id=jid)
    for key in PROPERTY_STRINGS:
        if res.get(key):
            res[key] = read_property_string(formats[key], res[key], key)
    return res


def _job(state, jid):
    job = state.backup_jobs.get(jid)
    return job if job is not None and job.get("type") == "vzdump" else None


def _reraised(err):
    """``die "$@"`` after the lock: a PVE::Exception turns into its text, answered as a 500."""
    return ApiError(500, err.stringify(), exception=False)


def _check_root_only(ctx, *given):
    """Backup.pm assert_param_permission_common: what only root@pam itself may set (or delete)."""
    for key in ROOT_ONLY:
        if ctx.authid != "root@pam" and any(key in names for names in given):
            raise param_exc({key: "Only root may set this option."})


def _check_pool(ctx, pool):
    """``RPCEnvironment::check_pool_exist`` (a 403 for a missing pool), then VM.Backup on it."""
    if pool not in ctx.state.pools:
        raise perm_exc(f"pool '{pool}' does not exist")
    ctx.access.check(ctx.authid, f"/pool/{pool}", ["VM.Backup"])


def _schedule_param_check(params, required):
    """Backup.pm $schedule_param_check: ``schedule`` or the legacy ``starttime`` (+ ``dow``), not both."""
    starttime, dow = params.pop("starttime", None), params.pop("dow", None)
    if params.get("schedule") is not None:
        if starttime is not None:
            raise param_exc({"starttime": "'starttime' and 'schedule' cannot both be set"})
    elif starttime is None:
        if required:
            raise param_exc({"schedule": "neither 'starttime' nor 'schedule' were set"})
    else:  # $convert_to_schedule: no dow means every day
        days = ",".join(split_list(dow))
        params["schedule"] = starttime if not dow or days == ALL_DAYS else f"{days} {starttime}"


@route("GET", "/cluster/backup")
def index(ctx, p):
    return [_view(jid, job) for jid, job in ctx.state.backup_jobs.items() if job.get("type") == "vzdump"]


def _read_back(job):
    """jobs.cfg as the next read parses it: Job/Registry.pm writes the comment through encode_text, the
    notes-template as is (SectionConfig parse_config trims both)."""
    read_back(job, "notes-template", section_value)
    return read_back(job, "comment", section_comment)


@route("GET", "/cluster/backup/{id}")
def read(ctx, p):
    job = _job(ctx.state, p["id"])
    if job is None:
        raise param_exc({"id": f"No such job '{p['id']}'"})
    return _view(p["id"], job)


@route("POST", "/cluster/backup")
def create(ctx, p):
    state = ctx.state
    params = dict(ctx.raw)
    _check_property_strings(params)
    _check_root_only(ctx, params)
    if params.get("pool"):
        _check_pool(ctx, params["pool"])
    _schedule_param_check(params, required=True)
    params.setdefault("enabled", "1")
    jid = params.pop("id", None) or "backup-" + str(uuid.uuid4())[:13]
    try:
        with locked(state):
            if jid in state.backup_jobs:
                raise die(f"Job '{jid}' already exists")
            _verify(params, check_missing=True)
            state.backup_jobs[jid] = _read_back({"type": "vzdump", **params})
    except ApiError as err:
        raise _reraised(err) from err
    return None


@route("PUT", "/cluster/backup/{id}")
def update(ctx, p):
    state = ctx.state
    params = dict(ctx.raw)
    jid = params.pop("id")
    delete = split_list(params.pop("delete", None))
    _check_property_strings(params)
    _check_root_only(ctx, params, delete)
    if params.get("pool"):
        _check_pool(ctx, params["pool"])
    _schedule_param_check(params, required=False)
    try:
        with locked(state):
            if not params and not delete:
                raise die("no options specified")
            _verify(params, check_missing=False)
            job = _job(state, jid)
            if job is None:
                raise die("no such vzdump job")
            options = _options()
            for key in delete:
                if key not in options:
                    raise param_exc({"delete": f"unknown option '{key}'"})
                job.pop(key, None)
            job.update(params)
            if job.get("exclude") and not job.get("pool"):
                job["all"] = "1"
            # a guest list, all guests and a pool exclude each other: the one sent wins
            if params.get("vmid") is not None:
                for key in ("all", "exclude", "pool"):
                    job.pop(key, None)
            elif _set(params.get("all")):
                job.pop("vmid", None)
                job.pop("pool", None)
            elif job.get("pool"):
                for key in ("vmid", "all", "exclude"):
                    job.pop(key, None)
            _verify(job, check_missing=True)
            _read_back(job)
    except ApiError as err:
        raise _reraised(err) from err
    return None


@route("DELETE", "/cluster/backup/{id}")
def delete(ctx, p):
    state = ctx.state
    try:
        with locked(state):
            if _job(state, p["id"]) is None:
                raise param_exc({"id": f"No such job '{p['id']}'"})
            del state.backup_jobs[p["id"]]
    except ApiError as err:
        raise _reraised(err) from err
    return None
