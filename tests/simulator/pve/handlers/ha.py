"""/cluster/ha: HA resources and rules (ha/resources.cfg, ha/rules.cfg), PVE 9.1 shape.

Ports pve-ha-manager 5's ``PVE::API2::HA::Resources``, ``PVE::API2::HA::Rules`` and the
SectionConfig plugins behind them (``PVE::HA::Resources``, ``PVE::HA::Rules::NodeAffinity``,
``::ResourceAffinity``), with ``PVE::HA::Config`` (``parse_sid``, ``lock_ha_domain``,
``service_is_configured``).

* Writes run under the HA domain lock; what dies inside it is prefixed the way
  ``lock_ha_domain`` does (``create ha rule failed: ...``) and answers 500, even the feasibility
  check's 400 exception, which ``"$errmsg: $err"`` stringifies.
* A resource needs an existing guest of its type (``resource 'vm:100' does not exist in cluster``,
  ``resource 'vm:101' - guest with ID 101 is not a VM``: ``PVEVM``/``PVECT`` ``exists``). ``state`` moves the guest's
  power (``started`` runs it, ``stopped``/``disabled`` stop it) at once rather than through
  the CRM. ``enabled`` reads back as ``started`` (measured on PVE 9.2). ``group`` is refused:
  PVE 9 has migrated HA groups to rules.
* Deleting a resource purges its sid from every rule (``purge`` defaults to 1) and deletes
  the rules left without resources; the guest keeps running.
* Rules: ``type`` picks the plugin on create; an update takes the stored rule's plugin, so a
  ``type`` naming the other plugin is an ``unexpected property 'type'``. A parameter of the
  other rule type is refused like an unknown one (the schema's ``oneOf``). ``disable=0`` is
  dropped before the plugin sees it (measured on PVE 9.2), so only ``delete=disable`` enables a
  disabled rule. Comments are stored ``PVE::Tools::decode_text``-decoded (``%XX`` does not
  survive). Reads add ``order``, the file's ``digest`` and PVE's feasibility ``errors``.
"""

import hashlib
import re
import urllib.parse
from collections import OrderedDict

from ...errors import ApiError, die, locked, param_exc
from ...formats import split_list
from ..state import register_slice
from .base import route
from .texts import read_back, section_comment, section_value

register_slice("ha_resources", OrderedDict)  # ha/resources.cfg
register_slice("ha_rules", OrderedDict)      # ha/rules.cfg

NOT_IN_SCHEMA = "property is not defined in schema and the schema does not allow additional properties"
GROUPS_MIGRATED = "ha groups have been migrated to rules"

# The resource plugins (PVE::HA::Resources::PVEVM, ::PVECT) and the options they take.
RESOURCE_TYPES = ("vm", "ct")
# What each plugin's ``exists`` wants the guest to be, and how it says it is not.
GUEST_TYPES = {"vm": "qemu", "ct": "lxc"}
GUEST_KINDS = {"vm": "not a VM", "ct": "not a container"}
RESOURCE_OPTIONS = ("state", "group", "comment", "max_restart", "max_relocate", "failback")

# The rule plugins' options(): option -> required.
RULE_OPTIONS = {
    "node-affinity": {"resources": True, "nodes": True, "strict": False, "disable": False, "comment": False},
    "resource-affinity": {"resources": True, "affinity": True, "disable": False, "comment": False},
}
# PVE::HA::Tools::parse_node_priority
NODE_PRIORITY = re.compile(r"^([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?)(:(\d+))?$")
# PVE::Tools::encode_text: control and high-bit characters and ':' are escaped in the file.
_TEXT_SAFE = "".join(chr(code) for code in range(0x20, 0x7F) if chr(code) != ":")


# -- ha/resources.cfg ---------------------------------------------------------------------

def parse_sid(state, sid):
    """PVE::HA::Config::parse_sid: (sid, type, name); a bare VMID resolves through the guest list.

    Texts: ``HA/Config.pm parse_sid`` (``unable to detect``: pve-ha-manager fixed its ``unable do detect``
    typo in 5.1.2, commit 70c47b9)."""
    if re.match(r"^\d+$", sid):
        guest = state.guests.get(int(sid))
        if guest is None:
            raise die(f"unable to detect SID from VMID - VM/CT {sid} does not exist")  # Config.pm parse_sid
        typ = "ct" if guest["type"] == "lxc" else "vm"
        return f"{typ}:{sid}", typ, sid
    match = re.match(r"^(\S+):(\S+)$", sid)
    if not match:
        raise die(f"unable to parse service id '{sid}'")  # Config.pm parse_sid
    return sid, match.group(1), match.group(2)


def _resources_text(state):
    out = []
    for sid, scfg in state.ha_resources.items():
        out.append(f"{scfg['type']}: {sid.split(':', 1)[1]}\n")
        for key in sorted(k for k in scfg if k != "type"):
            out.append(f"\t{key} {scfg[key]}\n")
        out.append("\n")
    return "".join(out)


def _resources_digest(state):
    return hashlib.sha1(_resources_text(state).encode()).hexdigest()


def _resource_view(state, sid):
    """``$api_copy_config``: the section as stored, plus ``sid`` and the file's digest."""
    res = dict(state.ha_resources[sid], sid=sid, digest=_resources_digest(state))
    if res.get("state") == "enabled":
        res["state"] = "started"
    return res


def _no_line_feed(params):
    """SectionConfig::check_value refuses a value with a line break (pve-common SectionConfig.pm check_value)."""
    for value in params.values():
        if isinstance(value, str) and re.search(r"[\n\r]", value):
            raise die("property contains a line feed")


def resource_comment(text):
    return section_comment(section_value(text))


def _store(section, settings):
    """Set options the way the file keeps them: an empty text is not written, so it reads as unset."""
    for key, value in settings.items():
        if value == "":
            section.pop(key, None)
        else:
            section[key] = value
    # a rule's comment goes through encode_text (HA/Rules.pm encode_value), a resource's is kept as is
    read_back(section, "comment", resource_comment if section.get("type") in ("vm", "ct") else section_comment)


def _refuse_group(params):
    """API2/HA/Resources.pm create and update: ``group`` once the groups are migrated."""
    if "group" in params:
        raise die(f"invalid parameter 'group': {GROUPS_MIGRATED}")


def _move_power(state, sid):
    """What the CRM does for the requested state, done at once: the guest runs or stops."""
    guest = state.guests.get(int(sid.split(":", 1)[1]))
    requested = state.ha_resources[sid].get("state", "started")
    if guest is None or requested == "ignored":
        return
    guest["status"] = "running" if requested in ("started", "enabled") else "stopped"


def purge_from_rules(state, sid):
    """DELETE ... purge=1: drop the sid from every rule; a rule left without resources goes too."""
    for ruleid in list(state.ha_rules):
        resources = state.ha_rules[ruleid]["resources"]
        resources.discard(sid)
        if not resources:
            del state.ha_rules[ruleid]


@route("GET", "/cluster/ha/resources")
def resource_index(ctx, p):
    state = ctx.state
    return [_resource_view(state, sid) for sid in sorted(state.ha_resources)
            if not p.get("type") or state.ha_resources[sid]["type"] == p["type"]]


@route("GET", "/cluster/ha/resources/{sid}")
def resource_read(ctx, p):
    state = ctx.state
    sid = parse_sid(state, p["sid"])[0]
    if sid not in state.ha_resources:
        raise die(f"no such resource '{sid}'")
    return _resource_view(state, sid)


@route("POST", "/cluster/ha/resources")
def resource_create(ctx, p):
    """API2/HA/Resources.pm create: ``types does not match``, the group, SectionConfig ``lookup`` (``unknown
    section type``), ``verify_name`` (``invalid VMID``), ``exists``, ``check_config``, then under the lock
    ``resource ID 'x' already defined``."""
    state = ctx.state
    params = dict(p)
    sid, typ, name = parse_sid(state, params.pop("sid"))
    param_type = params.pop("type", None)
    if param_type and param_type != typ:
        raise die("types does not match")
    _refuse_group(params)
    if typ not in RESOURCE_TYPES:
        raise die(f"unknown section type '{typ}'")
    if not re.match(r"^[1-9][0-9]+$", name):
        raise die("invalid VMID")
    guest = state.guests.get(int(name))
    if guest is None:  # Resources/PVEVM.pm, PVECT.pm exists
        raise die(f"resource '{typ}:{name}' does not exist in cluster")
    if guest["type"] != GUEST_TYPES[typ]:
        raise die(f"resource '{typ}:{name}' - guest with ID {name} is {GUEST_KINDS[typ]}")
    _no_line_feed(params)
    with locked(state, "create resource failed"):
        if sid in state.ha_resources:
            raise die(f"resource ID '{sid}' already defined")
        state.ha_resources[sid] = {"type": typ}
        _store(state.ha_resources[sid], params)
        _move_power(state, sid)
    return None


@route("PUT", "/cluster/ha/resources/{sid}")
def resource_update(ctx, p):
    state = ctx.state
    params = dict(p)
    digest = params.pop("digest", None)
    delete = split_list(params.pop("delete", None))
    sid = parse_sid(state, params.pop("sid"))[0]
    _refuse_group(params)
    # HA/Config.pm update_resources_config and update_single_resource_config_inplace: digest, the resource,
    # then check_config, all under the lock
    with locked(state, "update resources config failed"):
        if digest and digest != _resources_digest(state):
            raise die("detected modified configuration - file changed by other user? Try again.")
        scfg = state.ha_resources.get(sid)
        if scfg is None:
            raise die(f"no such resource '{sid}'")
        _no_line_feed(params)
        _store(scfg, params)
        # PVE sets first and deletes after, without the "cannot set and delete" check.
        for key in delete:
            if key not in RESOURCE_OPTIONS:
                raise die(f"no such option '{key}'")
            scfg.pop(key, None)
        _move_power(state, sid)
    return None


@route("DELETE", "/cluster/ha/resources/{sid}")
def resource_delete(ctx, p):
    state = ctx.state
    sid = parse_sid(state, p["sid"])[0]
    if sid not in state.ha_resources:
        raise die(f"cannot delete service '{sid}', not HA managed!")
    with locked(state, "delete resource failed"):
        if p.get("purge", 1):
            purge_from_rules(state, sid)
        del state.ha_resources[sid]
    return None


# -- /cluster/ha/groups: gone in PVE 9 ---------------------------------------------------------
# API2/HA/Groups.pm index, read, create, update, delete: each dies so once have_groups_been_migrated.

@route("GET", "/cluster/ha/groups")
def group_index(ctx, p):
    raise die(f"cannot index groups: {GROUPS_MIGRATED}")


@route("POST", "/cluster/ha/groups")
def group_create(ctx, p):
    raise die(f"cannot create group: {GROUPS_MIGRATED}")


@route("GET", "/cluster/ha/groups/{group}")
def group_read(ctx, p):
    raise die(f"cannot read group: {GROUPS_MIGRATED}")


@route("PUT", "/cluster/ha/groups/{group}")
def group_update(ctx, p):
    raise die(f"cannot update group: {GROUPS_MIGRATED}")


@route("DELETE", "/cluster/ha/groups/{group}")
def group_delete(ctx, p):
    raise die(f"cannot delete group: {GROUPS_MIGRATED}")


# -- ha/rules.cfg ---------------------------------------------------------------------------------

def _encode_nodes(nodes):
    """NodeAffinity::encode_plugin_value: sorted by node name, a priority of 0 as the bare name."""
    return ",".join(f"{node}:{prio}" if prio else node for node, prio in sorted(nodes.items()))


def _rules_text(state):
    out = []
    for ruleid, rule in state.ha_rules.items():
        out.append(f"{rule['type']}: {ruleid}\n")
        if rule.get("comment"):
            out.append(f"\tcomment {urllib.parse.quote(rule['comment'], safe=_TEXT_SAFE)}\n")
        if rule.get("disable"):
            out.append("\tdisable\n")
        for key in sorted(k for k in rule if k not in ("type", "comment", "disable")):
            value = rule[key]
            if key == "resources":
                value = ",".join(sorted(value))
            elif key == "nodes":
                value = _encode_nodes(value)
            out.append(f"\t{key} {value}\n")
        out.append("\n")
    return "".join(out)


def _rules_digest(state):
    return hashlib.sha1(_rules_text(state).encode()).hexdigest()


def _feasibility(state):
    """PVE::HA::Rules->check_feasibility over the enabled rules: {rule: {option: [messages]}}.

    The checks of NodeAffinity (a resource in one node-affinity rule only) and ResourceAffinity
    (at least two resources; a positive and a negative rule sharing two or more resources).
    """
    errors = {}

    def blame(ruleid, message):
        errors.setdefault(ruleid, {}).setdefault("resources", []).append(message)

    enabled = {ruleid: rule for ruleid, rule in state.ha_rules.items() if not rule.get("disable")}
    placed = {}
    for ruleid, rule in enabled.items():
        if rule["type"] == "node-affinity":
            for sid in rule["resources"]:
                placed.setdefault(sid, []).append(ruleid)
    for sid, ruleids in sorted(placed.items()):
        if len(ruleids) > 1:
            for ruleid in sorted(ruleids):
                blame(ruleid, f"resource '{sid}' is already used in another node affinity rule")
    affinity = dict((ruleid, rule) for ruleid, rule in sorted(enabled.items())
                    if rule["type"] == "resource-affinity")
    for ruleid, rule in affinity.items():
        if len(rule["resources"]) < 2:
            blame(ruleid, "rule is ineffective as there are less than two resources")
    for positive, rule in affinity.items():
        for negative, other in affinity.items():
            if (rule["affinity"], other["affinity"]) == ("positive", "negative") and \
                    len(rule["resources"] & other["resources"]) >= 2:
                blame(positive, "rule shares two or more resources with a negative resource affinity rule")
                blame(negative, "rule shares two or more resources with a positive resource affinity rule")
    return errors


def _assert_feasible(state, ruleid):
    found = _feasibility(state).get(ruleid)
    if found:
        raise ApiError(400, f"Rule '{ruleid}' is invalid.\n",
                       errors=dict((option, ", ".join(messages)) for option, messages in found.items()))


def _rule_view(state, ruleid, errors):
    """``$get_api_ha_rule``: the rule, its id, order and the file's digest; lists re-encoded."""
    rule = state.ha_rules[ruleid]
    res = dict((key, value) for key, value in rule.items() if key not in ("resources", "nodes"))
    res.update(rule=ruleid, digest=_rules_digest(state), order=list(state.ha_rules).index(ruleid) + 1,
               resources=",".join(sorted(rule["resources"])))
    if rule.get("nodes"):
        res["nodes"] = _encode_nodes(rule["nodes"])
    if errors.get(ruleid):
        res["errors"] = errors[ruleid]
    return res


def _refuse_other_instance(ctx, params):
    """The schema's oneOf: a parameter of the other rule type is one the schema does not define."""
    typ = params.get("type")
    foreign = [key for key in params if typ not in (ctx.schema_props.get(key) or {}).get("instance-types", [typ])]
    if foreign:
        raise param_exc(dict((key, NOT_IN_SCHEMA) for key in foreign))


def _check_rule_config(typ, params, create):
    """SectionConfig::check_config with the rule plugins' decode_value."""
    options = RULE_OPTIONS[typ]
    settings = {}
    for key, value in params.items():
        if key == "type":
            if value != typ:
                raise die("unexpected property 'type'")
            continue
        if key not in options:
            raise die(f"unexpected property '{key}'")
        if isinstance(value, str) and re.search(r"[\n\r]", value):
            raise die("property contains a line feed")
        if key == "resources":
            value = set(sid for sid in split_list(value) if re.match(r"^[a-z]+:\S+$", sid))
        elif key == "nodes":
            value = dict((m.group(1), int(m.group(4) or 0))
                         for m in (NODE_PRIORITY.match(entry) for entry in split_list(value)) if m)
        elif key == "comment":
            value = urllib.parse.unquote(value)
        settings[key] = value
    if create:
        for key, required in sorted(options.items()):
            if required and key not in params:
                raise die(f"missing value for required option '{key}'")
    return settings


def _assert_usable(ctx, settings):
    """API2/HA/Rules.pm $assert_valid_resources_param and $assert_valid_nodes_param (``non-existent`` since
    pve-ha-manager 5.1.2, which fixed the ``non-existant`` typo). An empty list decodes to an empty hash, which
    Perl counts as given, so it is refused rather than skipped."""
    state = ctx.state
    if "resources" in settings and not settings["resources"]:
        raise die("no resources were specified")
    unmanaged = sorted(sid for sid in settings.get("resources", ()) if sid not in state.ha_resources)
    if unmanaged:
        raise die(f"cannot use unmanaged resource(s) {', '.join(unmanaged)}.")
    if "nodes" in settings and not settings["nodes"]:
        raise die("no nodes were specified")
    unknown = sorted(node for node in settings.get("nodes", {}) if node != ctx.node and node not in state.nodes)
    if unknown:
        raise die(f"cannot use non-existent node(s) {', '.join(unknown)}.")


def _drop_false_disable(params):
    if "disable" in params and not params["disable"]:
        del params["disable"]


@route("GET", "/cluster/ha/rules")
def rule_index(ctx, p):
    state = ctx.state
    errors = _feasibility(state)
    return [_rule_view(state, ruleid, errors) for ruleid, rule in state.ha_rules.items()
            if (not p.get("type") or rule["type"] == p["type"])
            and (not p.get("resource") or p["resource"] in rule["resources"])]


@route("GET", "/cluster/ha/rules/{rule}")
def rule_read(ctx, p):
    state = ctx.state
    if p["rule"] not in state.ha_rules:
        raise die(f"no such ha rule '{p['rule']}'")
    return _rule_view(state, p["rule"], _feasibility(state))


@route("POST", "/cluster/ha/rules")
def rule_create(ctx, p):
    state = ctx.state
    params = dict(p)
    _refuse_other_instance(ctx, params)
    _drop_false_disable(params)
    typ = params.pop("type")
    ruleid = params.pop("rule")
    settings = _check_rule_config(typ, params, create=True)
    with locked(state, "create ha rule failed"):
        if ruleid in state.ha_rules:
            raise die(f"HA rule '{ruleid}' already defined")
        _assert_usable(ctx, settings)
        state.ha_rules[ruleid] = {"type": typ}
        _store(state.ha_rules[ruleid], settings)
        _assert_feasible(state, ruleid)
    return None


@route("PUT", "/cluster/ha/rules/{rule}")
def rule_update(ctx, p):
    state = ctx.state
    params = dict(p)
    _refuse_other_instance(ctx, params)
    _drop_false_disable(params)
    ruleid = params.pop("rule")
    digest = params.pop("digest", None)
    delete = split_list(params.pop("delete", None))
    with locked(state, "update HA rules failed"):
        if digest and digest != _rules_digest(state):
            raise die("detected modified configuration - file changed by other user? Try again.")
        rule = state.ha_rules.get(ruleid)
        if rule is None:
            raise die(f"HA rule '{ruleid}' does not exist")
        options = RULE_OPTIONS[rule["type"]]
        settings = _check_rule_config(rule["type"], params, create=False)
        _assert_usable(ctx, settings)
        for key in delete:  # SectionConfig::delete_from_config
            if key not in options:
                raise die(f"no such option '{key}'")
            if options[key]:
                raise die(f"unable to delete required option '{key}'")
            if key in settings:
                raise die(f"cannot set and delete property '{key}' at the same time!")
            rule.pop(key, None)
        _store(rule, settings)
        _assert_feasible(state, ruleid)
    return None


@route("DELETE", "/cluster/ha/rules/{rule}")
def rule_delete(ctx, p):
    # PVE deletes without asking whether the rule exists: a missing rule is a success too.
    with locked(ctx.state, "delete ha rule failed"):
        ctx.state.ha_rules.pop(p["rule"], None)
    return None
