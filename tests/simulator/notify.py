"""proxmox-notify's value rules, the same crate in PVE and PBS (``api/matcher.rs``, ``matcher.rs``,
``endpoints/webhook.rs``): what the notification handlers of both products check and write back
(pve/handlers/notifications.py, pbs/handlers/notifications.py)."""

import base64
import binascii
import re

SEVERITIES = ("info", "notice", "warning", "error", "unknown")
_SAFE_ID = r"[A-Za-z0-9_][A-Za-z0-9._\-]*"
MATCH_FIELD = re.compile(rf"^(?:(exact|regex):)?({_SAFE_ID})=(.*)$", re.S)


_WEEKDAYS = {"monday": 1, "mon": 1, "tuesday": 2, "tue": 2, "wednesday": 3, "wed": 3, "thursday": 4, "thu": 4,
             "friday": 5, "fri": 5, "saturday": 6, "sat": 6, "sunday": 7, "sun": 7}


class _NomError(Exception):
    """The first entry of nom's VerboseError: the input where it failed and the kind (its Debug text)."""

    def __init__(self, rest, kind):
        super().__init__(rest, kind)
        self.rest, self.kind = rest, kind


def _weekday(text):
    word = re.match(r"[A-Za-z]*", text).group()
    if not word:
        raise _NomError(text, "Nom(Alpha)")
    if word.lower() not in _WEEKDAYS:
        raise _NomError(word, 'Context("weekday")')  # week_days.rs parse_weekday: the word itself
    return text[len(word):]


def _weekday_range(text):
    rest = _weekday(text)
    if rest.startswith(".."):
        try:
            return _weekday(rest[2:])
        except _NomError:
            pass  # opt(pair(tag(".."), parse_weekday)): no range end
    return rest


def _time(text):
    """parse_helpers.rs parse_hm_time: H or H:MM; a bad minute part is left unread (opt)."""
    def component(rest, limit):
        digits = re.match(r"[0-9]*", rest).group()
        if not digits:
            raise _NomError(rest, "Nom(Digit)")
        if int(digits) > 0xFFFFFFFF:
            raise _NomError(rest, "Nom(MapRes)")
        if int(digits) >= limit:
            raise _NomError(rest[len(digits):], 'Context("time value too large")')
        return rest[len(digits):], int(digits)

    rest, hour = component(text, 24)
    minute = 0
    if rest.startswith(":"):
        try:
            rest, minute = component(rest[1:], 60)
        except _NomError:
            pass
    return rest, (hour, minute)


def _duration(text):
    """daily_duration.rs parse_daily_duration_incomplete: [weekday ranges] start-end."""
    rest = text
    if rest[:1].isascii() and rest[:1].isalpha():
        rest = _weekday_range(rest)
        while rest.startswith(","):  # separated_list1: a failing item ends the list before its comma
            try:
                rest = _weekday_range(rest[1:])
            except _NomError:
                break
        rest = rest.lstrip(" \t")
    rest, start = _time(rest)
    rest = rest.lstrip(" \t")
    if not rest.startswith("-"):
        raise _NomError(rest, "Nom(Tag)")
    end_start = rest[1:].lstrip(" \t")
    rest, end = _time(end_start)
    if start > end:
        raise _NomError(end_start, 'Context("end time before start time")')
    if rest:
        raise _NomError(rest, "Nom(Eof)")  # all_consuming


def daily_duration_error(text):
    """proxmox-time ``parse_daily_duration``'s error for ``text`` (None when it parses): parse_helpers.rs
    parse_complete_line reports nom's first error, ``unable to parse daily duration at '<rest>' - <kind>``."""
    try:
        _duration(text)
    except _NomError as err:
        return f"unable to parse daily duration at '{err.rest}' - {err.kind}"
    return None


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
