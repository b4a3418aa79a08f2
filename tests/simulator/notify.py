"""proxmox-notify's value rules, the same crate in PVE and PBS (``api/matcher.rs``, ``matcher.rs``,
``endpoints/webhook.rs``): what the notification handlers of both products check and write back
(pve/handlers/notifications.py, pbs/handlers/notifications.py)."""

import base64
import binascii
import re

SEVERITIES = ("info", "notice", "warning", "error", "unknown")
_SAFE_ID = r"[A-Za-z0-9_][A-Za-z0-9._\-]*"
MATCH_FIELD = re.compile(rf"^(?:(exact|regex):)?({_SAFE_ID})=(.*)$", re.S)
_WEEKDAY = r"(?:mon|tue|wed|thu|fri|sat|sun)"
_DAYS = rf"{_WEEKDAY}(?:\.\.{_WEEKDAY})?(?:,{_WEEKDAY}(?:\.\.{_WEEKDAY})?)*"
_TIME = r"\d{1,2}(?::\d{2})?"
DAILY_DURATION = re.compile(rf"^(?:{_DAYS}\s+)?{_TIME}-{_TIME}$")


def valid_base64(value):
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def normalise(params):
    """What the Rust types write back: match-field exact values and severities trimmed."""
    if params.get("match-field"):
        fields = []
        for statement in params["match-field"]:
            kind, field, value = MATCH_FIELD.match(statement).groups()
            if kind == "exact":
                value = ",".join(item.strip() for item in value.split(","))
            fields.append(f"{kind}:{field}={value}")
        params["match-field"] = fields
    if params.get("match-severity"):
        params["match-severity"] = [",".join(item.strip() for item in entry.split(","))
                                    for entry in params["match-severity"]]
