"""The PBS simulator's notification endpoints, matchers and targets (tests/simulator/pbs/handlers/notifications.py).

Run: python -m pytest tests/unit/test_simulator_pbs_notify.py -q
"""

import base64
import http.client
import json
import ssl
import sys
import urllib.parse
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import

BASE = "/config/notifications"
STALE = "detected modified configuration - file changed by other user? Try again."


@pytest.fixture(autouse=True)
def _fresh_notifications(sim):
    """One module-wide simulator: every test starts from a PBS with only the built-ins."""
    yield
    with sim.pbs_state.lock:
        sim.pbs_state.notification_endpoints.clear()
        sim.pbs_state.notification_matchers.clear()


def pbs(sim, method, path, form=None, json_body=None):
    """One request to the PBS member: (status, decoded JSON or the plain-text error, content type).

    A form's lists go out as repeated keys (PBS arrays); GET/DELETE carry the form in the query."""
    headers = {"Authorization": f"PBSAPIToken={sim.pbs_token_id}:{sim.pbs_token_secret}"}
    path = "/api2/json" + path
    body = None
    if json_body is not None:
        headers["Content-Type"] = "application/json"
        body = json.dumps(json_body)
    elif form is not None:
        encoded = urllib.parse.urlencode(form, doseq=True)
        if method in ("GET", "DELETE"):
            path += "?" + encoded
        else:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = encoded
    host, port = sim.pbs_members[0].split(":")
    conn = http.client.HTTPSConnection(host, int(port), timeout=5,
                                       context=ssl.create_default_context(cafile=sim.ca_path))
    try:
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        text = resp.read().decode()
        ctype = resp.getheader("Content-Type")
    finally:
        conn.close()
    return resp.status, (json.loads(text) if resp.status == 200 else text), ctype


def ok(sim, method, path, form=None, json_body=None):
    status, body, _ctype = pbs(sim, method, path, form, json_body)
    assert status == 200, body
    return body


def b64(text):
    return base64.b64encode(text.encode()).decode()


# -- built-ins and targets -----------------------------------------------------------------

def test_builtins_as_pbs_ships_them(sim):
    endpoints = ok(sim, "GET", f"{BASE}/endpoints/sendmail")
    assert endpoints == {"data": [{"name": "mail-to-root", "comment": "Send mails to root@pam's email address",
                                   "mailto-user": ["root@pam"], "origin": "builtin"}]}
    matchers = ok(sim, "GET", f"{BASE}/matchers")["data"]
    assert matchers == [{"name": "default-matcher", "mode": "all", "target": ["mail-to-root"],
                         "comment": "Route all notifications to mail-to-root", "origin": "builtin"}]
    assert "digest" not in endpoints  # lists answer no digest
    assert set(sim.pbs_state.notification_endpoints) == {"mail-to-root"}  # seeded on first use


def test_targets_list_every_endpoint_in_type_order(sim):
    ok(sim, "POST", f"{BASE}/endpoints/webhook", {"name": "hook", "url": "https://h.example/x", "method": "post"})
    ok(sim, "POST", f"{BASE}/endpoints/smtp", {"name": "mail", "server": "smtp.example", "from-address": "a@b.c",
                                               "mailto": "x@y.z", "disable": "1", "comment": "relay"})
    ok(sim, "POST", f"{BASE}/endpoints/gotify", {"name": "phone", "server": "https://g.example", "token": "t"})
    assert ok(sim, "GET", f"{BASE}/targets")["data"] == [
        {"name": "phone", "origin": "user-created", "type": "gotify"},
        {"name": "mail-to-root", "origin": "builtin", "type": "sendmail",
         "comment": "Send mails to root@pam's email address"},
        {"name": "mail", "origin": "user-created", "type": "smtp", "disable": True, "comment": "relay"},
        {"name": "hook", "origin": "user-created", "type": "webhook"},
    ]


def test_modified_builtin_and_delete_resets_it(sim):
    ok(sim, "PUT", f"{BASE}/endpoints/sendmail/mail-to-root", {"mailto": "ops@example.com", "disable": "true"})
    item = ok(sim, "GET", f"{BASE}/endpoints/sendmail/mail-to-root")["data"]
    assert item["origin"] == "modified-builtin" and item["mailto"] == ["ops@example.com"] and item["disable"] is True
    # referenced by default-matcher, still a built-in: DELETE resets it instead of refusing
    ok(sim, "DELETE", f"{BASE}/endpoints/sendmail/mail-to-root")
    item = ok(sim, "GET", f"{BASE}/endpoints/sendmail/mail-to-root")["data"]
    assert item == {"name": "mail-to-root", "comment": "Send mails to root@pam's email address",
                    "mailto-user": ["root@pam"], "origin": "builtin"}


def test_builtin_matcher_reset(sim):
    ok(sim, "PUT", f"{BASE}/matchers/default-matcher", {"delete": ["comment", "target"], "mode": "any"})
    item = ok(sim, "GET", f"{BASE}/matchers/default-matcher")["data"]
    assert item == {"name": "default-matcher", "mode": "any", "origin": "modified-builtin"}
    ok(sim, "DELETE", f"{BASE}/matchers/default-matcher")
    assert ok(sim, "GET", f"{BASE}/matchers/default-matcher")["data"]["origin"] == "builtin"


def test_putting_the_shipped_values_back_reads_builtin(sim):
    ok(sim, "PUT", f"{BASE}/endpoints/sendmail/mail-to-root", {"comment": "x"})
    ok(sim, "PUT", f"{BASE}/endpoints/sendmail/mail-to-root", {"comment": "Send mails to root@pam's email address"})
    assert ok(sim, "GET", f"{BASE}/endpoints/sendmail/mail-to-root")["data"]["origin"] == "builtin"


# -- each endpoint type ----------------------------------------------------------------------

def test_sendmail_crud_with_repeated_keys(sim):
    ok(sim, "POST", f"{BASE}/endpoints/sendmail",
       {"name": "team", "mailto": ["a@example.com", "b@example.com"], "mailto-user": ["root@pam", "ops@pbs"],
        "author": "PBS", "comment": "team mail"})
    got = ok(sim, "GET", f"{BASE}/endpoints/sendmail/team")
    assert got["data"] == {"name": "team", "mailto": ["a@example.com", "b@example.com"],
                           "mailto-user": ["root@pam", "ops@pbs"], "author": "PBS", "comment": "team mail",
                           "origin": "user-created"}
    assert len(got["digest"]) == 64
    ok(sim, "PUT", f"{BASE}/endpoints/sendmail/team",
       {"mailto": ["c@example.com"], "delete": ["author", "comment"], "from-address": "pbs@example.com"})
    data = ok(sim, "GET", f"{BASE}/endpoints/sendmail/team")["data"]
    assert data["mailto"] == ["c@example.com"] and "author" not in data and "comment" not in data
    assert data["from-address"] == "pbs@example.com"
    ok(sim, "DELETE", f"{BASE}/endpoints/sendmail/team")
    assert pbs(sim, "GET", f"{BASE}/endpoints/sendmail/team")[:2] == (404, "endpoint 'team' not found")


def test_sendmail_needs_a_recipient(sim):
    status, text, _headers = pbs(sim, "POST", f"{BASE}/endpoints/sendmail", {"name": "nobody", "comment": "x"})
    assert (status, text) == (400, "must at least provide one recipient, either in mailto or in mailto-user")
    status, text, _headers = pbs(sim, "PUT", f"{BASE}/endpoints/sendmail/mail-to-root", {"delete": "mailto-user"})
    assert status == 400 and text.startswith("must at least provide one recipient")


def test_smtp_password_is_write_only(sim):
    ok(sim, "POST", f"{BASE}/endpoints/smtp",
       {"name": "relay", "server": "smtp.example", "from-address": "pbs@example.com", "mailto": "ops@example.com",
        "port": "587", "mode": "starttls", "username": "pbs", "password": "hunter2"})
    data = ok(sim, "GET", f"{BASE}/endpoints/smtp/relay")["data"]
    assert data == {"name": "relay", "server": "smtp.example", "from-address": "pbs@example.com",
                    "mailto": ["ops@example.com"], "port": 587, "mode": "starttls", "username": "pbs",
                    "origin": "user-created"}
    assert "password" not in ok(sim, "GET", f"{BASE}/endpoints/smtp")["data"][0]
    assert sim.pbs_state.notification_endpoints["relay"]["password"] == "hunter2"
    ok(sim, "PUT", f"{BASE}/endpoints/smtp/relay", {"delete": ["password", "port", "username"]})
    section = sim.pbs_state.notification_endpoints["relay"]
    assert "password" not in section and "port" not in section and "username" not in section


def test_gotify_token_is_write_only_and_required(sim):
    status, text, _headers = pbs(sim, "POST", f"{BASE}/endpoints/gotify", {"name": "phone", "server": "https://g"})
    assert (status, text) == (400, "parameter verification failed - 'token': parameter is missing and it is "
                                   "not optional.")
    ok(sim, "POST", f"{BASE}/endpoints/gotify", {"name": "phone", "server": "https://g", "token": "s3cret"})
    digest = ok(sim, "GET", f"{BASE}/endpoints/gotify/phone")["digest"]
    ok(sim, "PUT", f"{BASE}/endpoints/gotify/phone", {"token": "rotated", "digest": digest})
    got = ok(sim, "GET", f"{BASE}/endpoints/gotify/phone")
    assert got["data"] == {"name": "phone", "server": "https://g", "origin": "user-created"}
    assert got["digest"] == digest  # the token lives in priv/notifications.cfg, outside the digest
    assert sim.pbs_state.notification_endpoints["phone"]["token"] == "rotated"
    ok(sim, "DELETE", f"{BASE}/endpoints/gotify/phone")
    assert "phone" not in sim.pbs_state.notification_endpoints


def test_webhook_secrets_answer_names_only(sim):
    ok(sim, "POST", f"{BASE}/endpoints/webhook",
       {"name": "hook", "url": "https://h.example/in", "method": "post", "body": b64("{{ title }}"),
        "header": [f"name=Content-Type,value={b64('application/json')}", f"value={b64('x')},name=X-Extra"],
        "secret": [f"name=token,value={b64('t0k3n')}", f"name=user,value={b64('u')}"]})
    data = ok(sim, "GET", f"{BASE}/endpoints/webhook/hook")["data"]
    assert data["secret"] == ["name=token", "name=user"]
    assert data["header"] == [f"name=Content-Type,value={b64('application/json')}",
                              f"name=X-Extra,value={b64('x')}"]  # PropertyString prints name first
    assert ok(sim, "GET", f"{BASE}/endpoints/webhook")["data"][0]["secret"] == ["name=token", "name=user"]
    # a bare name keeps the stored value, a value replaces it, a dropped name is gone
    ok(sim, "PUT", f"{BASE}/endpoints/webhook/hook", {"secret": ["name=token", f"name=new,value={b64('n')}"]})
    assert sim.pbs_state.notification_endpoints["hook"]["secret"] == [
        f"name=token,value={b64('t0k3n')}", f"name=new,value={b64('n')}"]
    ok(sim, "PUT", f"{BASE}/endpoints/webhook/hook", {"delete": "secret"})
    assert "secret" not in ok(sim, "GET", f"{BASE}/endpoints/webhook/hook")["data"]


@pytest.mark.parametrize("form, message", [
    ({"secret": "name=ghost"}, "secret 'ghost' not known"),
    ({"secret": [f"name=a,value={b64('1')}", f"name=a,value={b64('2')}"]}, "secret 'a' defined multiple times"),
    ({"secret": "name=a,value=***"}, "secret 'a' does not have valid base64 encoded data"),
    ({"header": "name=X-Empty"}, "header 'X-Empty' has empty value"),
    ({"header": "name=X-Bad,value=***"}, "header 'X-Bad' does not have valid base64 encoded data"),
])
def test_webhook_update_refusals(sim, form, message):
    ok(sim, "POST", f"{BASE}/endpoints/webhook", {"name": "hook", "url": "https://h.example/in", "method": "get"})
    assert pbs(sim, "PUT", f"{BASE}/endpoints/webhook/hook", form)[:2] == (400, message)


def test_json_body_and_json_booleans(sim):
    ok(sim, "POST", f"{BASE}/endpoints/sendmail",
       json_body={"name": "js", "mailto": ["a@example.com", "b@example.com"], "disable": False})
    data = ok(sim, "GET", f"{BASE}/endpoints/sendmail/js")["data"]
    assert data["disable"] is False and data["mailto"] == ["a@example.com", "b@example.com"]
    ok(sim, "PUT", f"{BASE}/endpoints/sendmail/js", {"disable": "yes"})
    assert ok(sim, "GET", f"{BASE}/endpoints/sendmail/js")["data"]["disable"] is True


def test_posted_origin_and_filter_are_not_stored(sim):
    ok(sim, "POST", f"{BASE}/endpoints/sendmail",
       {"name": "fake", "mailto": "a@example.com", "origin": "builtin", "filter": "old"})
    data = ok(sim, "GET", f"{BASE}/endpoints/sendmail/fake")["data"]
    assert data["origin"] == "user-created" and "filter" not in data


# -- shared rules ------------------------------------------------------------------------------

@pytest.mark.parametrize("path, form", [
    (f"{BASE}/endpoints/gotify", {"name": "mail-to-root", "server": "https://g", "token": "t"}),
    (f"{BASE}/matchers", {"name": "mail-to-root"}),
    (f"{BASE}/endpoints/sendmail", {"name": "default-matcher", "mailto": "a@example.com"}),
])
def test_one_namespace_for_every_entity(sim, path, form):
    status, text, ctype = pbs(sim, "POST", path, form)
    assert (status, text) == (400, f"Cannot create '{form['name']}', an entity with the same name already exists")
    assert ctype == "application/json;charset=UTF-8"  # PBS: plain text under the JSON content type


def test_wrong_type_path_is_not_found(sim):
    assert pbs(sim, "GET", f"{BASE}/endpoints/smtp/mail-to-root")[:2] == (404, "endpoint 'mail-to-root' not found")
    assert pbs(sim, "PUT", f"{BASE}/endpoints/gotify/mail-to-root", {"comment": "x"})[:2] == \
        (404, "endpoint 'mail-to-root' not found")
    assert pbs(sim, "DELETE", f"{BASE}/endpoints/webhook/nope")[:2] == (404, "endpoint 'nope' not found")


def test_digest_checked_on_put(sim):
    ok(sim, "POST", f"{BASE}/endpoints/sendmail", {"name": "team", "mailto": "a@example.com"})
    digest = ok(sim, "GET", f"{BASE}/endpoints/sendmail/team")["digest"]
    assert ok(sim, "GET", f"{BASE}/matchers/default-matcher")["digest"] == digest  # one file
    assert pbs(sim, "PUT", f"{BASE}/endpoints/sendmail/team", {"comment": "x", "digest": "0" * 64})[:2] == \
        (400, STALE)
    assert pbs(sim, "PUT", f"{BASE}/matchers/default-matcher", {"mode": "any", "digest": "f" * 64})[:2] == \
        (400, STALE)
    ok(sim, "PUT", f"{BASE}/endpoints/sendmail/team", {"comment": "x", "digest": digest})
    assert ok(sim, "GET", f"{BASE}/endpoints/sendmail/team")["digest"] != digest
    # the digest is checked before the name is looked up
    assert pbs(sim, "PUT", f"{BASE}/endpoints/sendmail/ghost", {"digest": "0" * 64})[:2] == (400, STALE)


def test_delete_takes_no_digest(sim):
    status, text, _headers = pbs(sim, "DELETE", f"{BASE}/endpoints/sendmail/mail-to-root", {"digest": "0" * 64})
    assert (status, text) == (400, "parameter verification failed - 'digest': schema does not allow additional "
                                   "properties.")


@pytest.mark.parametrize("path, key", [
    (f"{BASE}/endpoints/gotify/phone", "server"),
    (f"{BASE}/endpoints/sendmail/mail-to-root", "password"),
    (f"{BASE}/matchers/default-matcher", "name"),
])
def test_delete_of_unknown_key(sim, path, key):
    ok(sim, "POST", f"{BASE}/endpoints/gotify", {"name": "phone", "server": "https://g", "token": "t"})
    status, text, _headers = pbs(sim, "PUT", path, {"delete": key})
    assert (status, text) == (400, f"parameter verification failed - 'delete': value '{key}' is not defined in "
                                   "the enumeration.")


def test_referenced_endpoint_cannot_be_deleted(sim):
    ok(sim, "POST", f"{BASE}/endpoints/sendmail", {"name": "team", "mailto": "a@example.com"})
    ok(sim, "POST", f"{BASE}/matchers", {"name": "m2", "target": "team"})
    ok(sim, "POST", f"{BASE}/matchers", {"name": "m1", "target": ["mail-to-root", "team"]})
    assert pbs(sim, "DELETE", f"{BASE}/endpoints/sendmail/team")[:2] == \
        (400, "cannot delete 'team', referenced by: m1, m2")
    ok(sim, "DELETE", f"{BASE}/matchers/m1")
    ok(sim, "DELETE", f"{BASE}/matchers/m2")
    ok(sim, "DELETE", f"{BASE}/endpoints/sendmail/team")


# -- matchers ------------------------------------------------------------------------------

def test_matcher_crud_with_repeated_keys(sim):
    ok(sim, "POST", f"{BASE}/endpoints/gotify", {"name": "phone", "server": "https://g", "token": "t"})
    ok(sim, "POST", f"{BASE}/matchers",
       {"name": "errors", "target": ["phone", "mail-to-root"], "match-severity": ["error", "warning, notice"],
        "match-field": ["exact:type=gc, prune", "regex:datastore=^store-.*$"], "match-calendar": "mon..fri 8-17",
        "mode": "any", "invert-match": "0", "comment": "on call"})
    got = ok(sim, "GET", f"{BASE}/matchers/errors")
    assert got["data"] == {"name": "errors", "target": ["phone", "mail-to-root"],
                           "match-severity": ["error", "warning,notice"],
                           "match-field": ["exact:type=gc,prune", "regex:datastore=^store-.*$"],
                           "match-calendar": ["mon..fri 8-17"], "mode": "any", "invert-match": False,
                           "comment": "on call", "origin": "user-created"}
    ok(sim, "PUT", f"{BASE}/matchers/errors",
       {"delete": ["match-calendar", "invert-match"], "target": "phone", "disable": "1", "digest": got["digest"]})
    data = ok(sim, "GET", f"{BASE}/matchers/errors")["data"]
    assert data["target"] == ["phone"] and data["disable"] is True
    assert "match-calendar" not in data and "invert-match" not in data
    assert [m["name"] for m in ok(sim, "GET", f"{BASE}/matchers")["data"]] == ["default-matcher", "errors"]
    ok(sim, "DELETE", f"{BASE}/matchers/errors")
    assert pbs(sim, "GET", f"{BASE}/matchers/errors")[:2] == (404, "matcher 'errors' not found")


@pytest.mark.parametrize("method, path, form", [
    ("POST", f"{BASE}/matchers", {"name": "mx", "target": ["mail-to-root", "nope"]}),
    ("POST", f"{BASE}/matchers", {"name": "mx", "target": "default-matcher"}),  # a matcher is no target
    ("PUT", f"{BASE}/matchers/default-matcher", {"target": "nope"}),
])
def test_matcher_target_must_be_an_endpoint(sim, method, path, form):
    status, text, _headers = pbs(sim, method, path, form)
    assert status == 404 and text in ("endpoint 'nope' does not exist", "endpoint 'default-matcher' does not exist")
    assert "mx" not in sim.pbs_state.notification_matchers


@pytest.mark.parametrize("form, message", [
    ({"match-field": "type=gc"}, "could not apply filter: invalid match-field statement: type=gc"),
    ({"match-severity": "info,fatal"}, "invalid severity fatal"),
    # proxmox-time parse_complete_line: the innermost nom VerboseError entry, Debug-printed
    ({"match-calendar": "whenever"},
     "could not parse schedule: unable to parse daily duration at 'whenever' - Context(\"weekday\")"),
])
def test_matcher_values_rust_refuses(sim, form, message):
    assert pbs(sim, "POST", f"{BASE}/matchers", {"name": "mx", **form})[:2] == (400, message)
    assert pbs(sim, "PUT", f"{BASE}/matchers/default-matcher", form)[:2] == (400, message)


@pytest.mark.parametrize("span, problem", [
    ("8:00-17:00", None),
    ("sat,sun 10-14", None),
    ("mon..fri 8-17:30", None),
    ("8-", "at '' - Nom(Digit)"),
    ("25-3", "at '-3' - Context(\"time value too large\")"),
    ("10-9", "at '9' - Context(\"end time before start time\")"),
    ("8-9x", "at 'x' - Nom(Eof)"),
    ("8:75-9", "at ':75-9' - Nom(Tag)"),           # opt(): a bad minute is left unparsed
    ("mon,xyz 8-9", "at ',xyz 8-9' - Nom(Digit)"),  # separated_list1 stops before a bad item
    (" 8-9", "at ' 8-9' - Nom(Digit)"),             # no trimming
])
def test_daily_duration_errors_are_the_nom_parsers(span, problem):
    from simulator.pbs.handlers.notifications import daily_duration_error
    assert daily_duration_error(span) == (problem and f"unable to parse daily duration {problem}")


def test_missing_matcher(sim):
    assert pbs(sim, "PUT", f"{BASE}/matchers/ghost", {"mode": "any"})[:2] == (404, "matcher 'ghost' not found")
    assert pbs(sim, "DELETE", f"{BASE}/matchers/ghost")[:2] == (404, "matcher 'ghost' not found")


def test_privileges_are_the_schemas(sim):
    """Sys.Audit on /system/notifications reads, Sys.Modify writes (the generic schema check)."""
    state = sim.pbs_state
    secret = state.add_token("notify@pbs", "audit")
    # a token's privileges are its own ACL entries intersected with its user's
    grants = [{"path": "/system/notifications", "ugid": ugid, "ugid_type": "user", "roleid": "Audit",
               "propagate": True} for ugid in ("notify@pbs", "notify@pbs!audit")]
    state.acl.extend(grants)
    token = ("notify@pbs!audit", secret)
    try:
        assert sim.pbs_request("GET", f"{BASE}/targets", token=token)[0] == 200
        assert sim.pbs_request("POST", f"{BASE}/matchers", {"name": "mx"}, token=token) == \
            (403, "permission check failed")
    finally:
        for grant in grants:
            state.acl.remove(grant)
