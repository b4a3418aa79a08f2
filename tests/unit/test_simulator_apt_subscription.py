"""The simulator's APT repositories and subscription of a node (tests/simulator/pve/handlers/apt.py and
subscription.py) over real HTTPS: the files of a fresh PVE 9 node, proxmox-apt's parsers, writers, standard
repositories, infos and digests, perlmod's argument errors, and Subscription.pm with a seeded shop.

Run: python -m pytest tests/unit/test_simulator_apt_subscription.py -q
"""

import hashlib
import sys
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from simulator.errors import ApiError  # noqa: E402
from simulator.pve.handlers import apt, subscription  # noqa: E402
# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import ok  # noqa: E402
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import

REPOS = "/nodes/node1/apt/repositories"
SUB = "/nodes/node1/subscription"
D = "/etc/apt/sources.list.d/"
KEYRING = "Signed-By: /usr/share/keyrings/proxmox-archive-keyring.gpg\n"
PVE_ENTERPRISE = ("Types: deb\nURIs: https://enterprise.proxmox.com/debian/pve\nSuites: trixie\n"
                  "Components: pve-enterprise\n" + KEYRING)
CEPH_ENTERPRISE = ("Types: deb\nURIs: https://enterprise.proxmox.com/debian/ceph-squid\nSuites: trixie\n"
                   "Components: enterprise\n" + KEYRING)
NO_SUBSCRIPTION = ("Types: deb\nURIs: http://download.proxmox.com/debian/pve\nSuites: trixie\n"
                   "Components: pve-no-subscription\n" + KEYRING)
PRICING = "https://www.proxmox.com/en/proxmox-virtual-environment/pricing"
KEY = "pve2c-0123456789"


@pytest.fixture(autouse=True)
def _fresh(sim):
    """Every test starts from fresh nodes: the install's APT files, no subscription, an empty shop."""
    state = sim.state
    with state.lock:
        state.apt_files.clear()
        state.subscriptions.clear()
        state.subscription_keys.clear()
    yield
    with state.lock:
        for userid in [userid for userid in state.users if userid != "root@pam"]:
            for name in list(state.users[userid]["tokens"]):
                state.remove_token(userid, name)
            state.drop_acl_subject("users", userid)
            del state.users[userid]


def err(sim, method, path, form=None, token=None):
    status, body = sim.request(method, path, form, token=token)
    assert status != 200, (method, path, form, body)
    return status, body["message"]


def token_with(sim, userid, role=None):
    """A privilege-separated token of a new user, with ``role`` on /nodes/node1 (user and token)."""
    sim.state.add_user(userid)
    secret = sim.state.add_token(userid, "tk", privsep=1)
    if role:
        sim.state.set_acl("/nodes/node1", role, users=userid, tokens=f"{userid}!tk", propagate=1)
    return f"{userid}!tk", secret


def files_of(sim, node="node1"):
    return dict(apt.node_files(sim.state, node))


def std_status(data):
    return {row["handle"]: row.get("status") for row in data["standard-repos"]}


# -- APT: the read -----------------------------------------------------------------------------------

def test_a_fresh_node_reads_its_three_deb822_files_as_the_crate_serializes_them(sim):
    data = ok(sim, "GET", REPOS)
    assert list(data) == ["errors", "standard-repos", "infos", "files", "digest"]
    assert data["errors"] == []
    paths = [entry["path"] for entry in data["files"]]
    assert paths == [D + "ceph.sources", D + "debian.sources", D + "pve-enterprise.sources"]
    enterprise = data["files"][2]
    assert enterprise["file-type"] == "sources"
    assert enterprise["repositories"] == [{
        "Types": ["deb"], "URIs": ["https://enterprise.proxmox.com/debian/pve"], "Suites": ["trixie"],
        "Components": ["pve-enterprise"],
        "Options": [{"Key": "Signed-By", "Values": ["/usr/share/keyrings/proxmox-archive-keyring.gpg"]}],
        "FileType": "sources", "Enabled": 1}]  # perlmod: a bool is 1/0, no empty Comment
    debian = data["files"][1]["repositories"]
    assert [repo["Suites"] for repo in debian] == [["trixie", "trixie-updates"], ["trixie-security"]]
    assert debian[0]["Types"] == ["deb", "deb-src"]
    # each file's SHA-256 as 32 numbers; the common digest over them in path order
    texts = files_of(sim)
    for entry in data["files"]:
        assert entry["digest"] == list(hashlib.sha256(texts[entry["path"]].encode()).digest())
    common = b"".join(bytes(entry["digest"]) for entry in data["files"])
    assert data["digest"] == hashlib.sha256(common).hexdigest()


def test_standard_repos_and_infos_of_a_fresh_node(sim):
    data = ok(sim, "GET", REPOS)
    assert std_status(data) == {"enterprise": 1, "no-subscription": None, "test": None,
                                "ceph-squid-enterprise": 1, "ceph-squid-no-subscription": None,
                                "ceph-squid-test": None}
    enterprise = data["standard-repos"][0]
    assert list(enterprise) == ["handle", "status", "name", "description"]
    assert enterprise["name"] == "Enterprise"
    assert enterprise["description"].startswith("This is the default, stable, and recommended repository")
    assert "status" not in data["standard-repos"][1]  # not configured: no status at all
    assert data["standard-repos"][4]["name"] == "Ceph Squid No-Subscription"
    # no suite warnings on trixie; the origin guessed from the URIs' hosts
    assert [(info["path"][len(D):], info["index"], info["kind"], info["message"]) for info in data["infos"]] == [
        ("ceph.sources", 0, "origin", "Proxmox"), ("debian.sources", 0, "origin", "Debian"),
        ("debian.sources", 1, "origin", "Debian"), ("pve-enterprise.sources", 0, "origin", "Proxmox")]
    assert "property" not in data["infos"][0]


def test_suite_warnings_follow_check_suites(sim):
    sim.state.apt_files["node1"] = {D + "old.list": (
        "deb http://deb.debian.org/debian bookworm main\n"
        "deb http://deb.debian.org/debian forky main\n"
        "deb http://security.debian.org/debian-security trixie main\n"
        "deb http://deb.debian.org/debian stable main\n")}
    infos = [(info["index"], info["kind"], info["message"]) for info in ok(sim, "GET", REPOS)["infos"]
             if info["kind"] != "origin"]
    assert infos == [(0, "warning", "old suite 'bookworm' configured!"),
                     (1, "ignore-pre-upgrade-warning", "suite 'forky' should not be used in production!"),
                     (2, "warning", "expected suite 'trixie-security'"),
                     (3, "warning", "use the name of the stable distribution instead of 'stable'!")]
    assert ok(sim, "GET", REPOS)["infos"][0]["property"] == "Suites"


def test_files_the_parser_refuses_are_errors_and_count_in_no_digest(sim):
    good = apt.FRESH_INSTALL[D + "pve-enterprise.sources"]
    sim.state.apt_files["node1"] = {
        D + "pve-enterprise.sources": good,
        D + "bad.sources": "Types: deb\nfoo\n",
        D + "type.list": "# a comment\nrpm http://example.com/x trixie main\n",
        D + "open.list": "deb [signed-by=/x http://example.com trixie main\n",
        D + "quote.list": 'deb "http://example.com trixie main\n',
        D + "README": "text",
        D + "bad name.list": "deb http://example.com trixie main\n",
        D + "nocomp.sources": "Types: deb\nURIs: http://example.com\nSuites: trixie\n",
        D + "old.list.bak": "garbage", D + ".hidden.list": "garbage", D + "edit.list~": "garbage",
    }
    data = ok(sim, "GET", REPOS)
    assert [entry["path"] for entry in data["files"]] == [D + "pve-enterprise.sources"]
    assert data["errors"] == [
        {"path": D + "README", "error": "invalid extension"},
        {"path": D + "bad name.list", "error": "invalid characters in file name"},
        {"path": D + "bad.sources", "error": "malformed entry in stanza 1 - got invalid line - '\"foo\"'"},
        {"path": D + "nocomp.sources", "error": "check for repository 1 - missing component(s)"},
        {"path": D + "open.list", "error": "malformed entry on line 1 - got invalid option - 'http://example.com'"},
        {"path": D + "quote.list", "error": "malformed entry on line 1 - missing terminating '\"'"},
        {"path": D + "type.list",
         "error": "malformed entry on line 2 - unknown variant `rpm`, expected `deb` or `deb-src`"},
    ]
    assert data["digest"] == hashlib.sha256(hashlib.sha256(good.encode()).digest()).hexdigest()


def test_the_read_needs_sys_audit_on_the_node(sim):
    assert err(sim, "GET", REPOS, token=token_with(sim, "nobody@pve")) == (
        403, "Permission check failed (/nodes/node1, Sys.Audit)\n")
    assert ok(sim, "GET", REPOS, token=token_with(sim, "auditor@pve", "PVEAuditor"))["errors"] == []


# -- APT: change_repository --------------------------------------------------------------------------

def test_disabling_rewrites_only_that_file_with_an_enabled_option(sim):
    before = ok(sim, "GET", REPOS)
    assert ok(sim, "POST", REPOS, {"path": D + "pve-enterprise.sources", "index": 0, "enabled": 0,
                                   "digest": before["digest"]}) is None
    texts = files_of(sim)
    assert texts[D + "pve-enterprise.sources"] == PVE_ENTERPRISE + "Enabled: false\n"
    for name in ("ceph.sources", "debian.sources"):
        assert texts[D + name] == apt.FRESH_INSTALL[D + name]
    after = ok(sim, "GET", REPOS)
    repo = after["files"][2]["repositories"][0]
    assert repo["Enabled"] == 0 and repo["Options"][-1] == {"Key": "Enabled", "Values": ["false"]}
    assert std_status(after)["enterprise"] == 0
    assert after["digest"] != before["digest"]
    # the old digest no longer matches; the option is updated in place when enabling again
    assert err(sim, "POST", REPOS, {"path": D + "pve-enterprise.sources", "index": 0, "enabled": 1,
                                    "digest": before["digest"]}) == (
        500, "detected modified configuration - file changed by other user? Try again.\n")
    ok(sim, "POST", REPOS, {"path": D + "pve-enterprise.sources", "index": 0, "enabled": 1})
    assert files_of(sim)[D + "pve-enterprise.sources"] == PVE_ENTERPRISE + "Enabled: true\n"
    # the other nodes keep their own files
    assert std_status(ok(sim, "GET", "/nodes/node2/apt/repositories"))["enterprise"] == 1
    assert files_of(sim, "node2")[D + "pve-enterprise.sources"] == PVE_ENTERPRISE


def test_a_change_re_renders_the_file_as_the_writer_writes_it(sim):
    sim.state.apt_files["node1"] = {D + "ceph.sources": (
        "# Ceph\nTypes: deb\nURIs: https://enterprise.proxmox.com/debian/ceph-squid\nSuites: trixie\n"
        "Components: enterprise\nEnabled: no\n" + KEYRING + "\n\n\n# a comment after the last stanza\n")}
    data = ok(sim, "GET", REPOS)
    repo = data["files"][0]["repositories"][0]
    assert repo["Comment"] == " Ceph\n" and repo["Enabled"] == 0
    assert repo["Options"][0] == {"Key": "Enabled", "Values": ["false"]}
    ok(sim, "POST", REPOS, {"path": D + "ceph.sources", "index": 0})  # no change asked: written anyway
    assert files_of(sim)[D + "ceph.sources"] == (
        "# Ceph\nTypes: deb\nURIs: https://enterprise.proxmox.com/debian/ceph-squid\nSuites: trixie\n"
        "Components: enterprise\nEnabled: false\n" + KEYRING)


def test_one_line_files_toggle_with_the_comment_prefix(sim):
    sim.state.apt_files["node1"] = {"/etc/apt/sources.list": (
        "deb http://deb.debian.org/debian trixie main contrib\n\n"
        "# PVE pve-no-subscription repository provided by proxmox.com,\n"
        "#deb [signed-by=/usr/share/keyrings/proxmox-archive-keyring.gpg] http://download.proxmox.com/debian/pve"
        " trixie pve-no-subscription\n")}
    data = ok(sim, "GET", REPOS)
    assert data["files"][0]["file-type"] == "list"
    repo = data["files"][0]["repositories"][1]
    assert repo["Enabled"] == 0 and repo["FileType"] == "list"
    assert repo["Comment"] == " PVE pve-no-subscription repository provided by proxmox.com,\n"
    assert repo["Options"] == [{"Key": "signed-by", "Values": ["/usr/share/keyrings/proxmox-archive-keyring.gpg"]}]
    assert std_status(data)["no-subscription"] == 0
    ok(sim, "POST", REPOS, {"path": "/etc/apt/sources.list", "index": 1, "enabled": 1})
    assert files_of(sim)["/etc/apt/sources.list"] == (
        "deb http://deb.debian.org/debian trixie main contrib\n\n"
        "# PVE pve-no-subscription repository provided by proxmox.com,\n"
        "deb [ signed-by=/usr/share/keyrings/proxmox-archive-keyring.gpg ] http://download.proxmox.com/debian/pve"
        " trixie pve-no-subscription\n")
    ok(sim, "POST", REPOS, {"path": "/etc/apt/sources.list", "index": 0, "enabled": 0})
    assert files_of(sim)["/etc/apt/sources.list"].startswith("# deb http://deb.debian.org/debian trixie main")


def test_change_errors_in_the_crates_and_perlmods_words(sim):
    sim.state.apt_files["node1"] = dict(apt.FRESH_INSTALL, **{D + "bad.sources": "Types: deb\nfoo\n"})
    assert err(sim, "POST", REPOS, {"path": D + "nope.sources", "index": 0}) == (
        500, f"invalid path - {D}nope.sources\n")
    assert err(sim, "POST", REPOS, {"path": D + "ceph.sources", "index": 1, "enabled": 0}) == (
        500, "invalid index - 1\n")
    assert err(sim, "POST", REPOS, {"path": D + "bad.sources", "index": 0}) == (
        500, f"unable to parse file {D}bad.sources - malformed entry in stanza 1 - got invalid line - '\"foo\"'\n")
    # perlmod deserializes the arguments before the crate runs: index, then digest
    assert err(sim, "POST", REPOS, {"path": D + "nope.sources", "index": -1, "digest": "x"}) == (
        500, "error: invalid value: integer `-1`, expected usize\n")
    assert err(sim, "POST", REPOS, {"path": D + "nope.sources", "index": 0, "digest": "abc"}) == (
        500, 'error: invalid value: string "abc", expected valid configuration digest\n')
    assert err(sim, "POST", REPOS, {"path": D + "nope.sources", "index": 0, "digest": "0" * 64}) == (
        500, "detected modified configuration - file changed by other user? Try again.\n")
    upper = ok(sim, "GET", REPOS)["digest"].upper()  # hex in either case
    ok(sim, "POST", REPOS, {"path": D + "ceph.sources", "index": 0, "enabled": 1, "digest": upper})


def test_writes_need_sys_modify_on_the_node(sim):
    auditor = token_with(sim, "auditor@pve", "PVEAuditor")
    assert err(sim, "POST", REPOS, {"path": D + "ceph.sources", "index": 0, "enabled": 0}, token=auditor) == (
        403, "Permission check failed (/nodes/node1, Sys.Modify)\n")
    assert err(sim, "PUT", REPOS, {"handle": "test"}, token=auditor)[0] == 403
    assert files_of(sim) == apt.FRESH_INSTALL


# -- APT: add_repository -----------------------------------------------------------------------------

def test_adding_no_subscription_creates_proxmox_sources(sim):
    digest = ok(sim, "GET", REPOS)["digest"]
    assert ok(sim, "PUT", REPOS, {"handle": "no-subscription", "digest": digest}) is None
    texts = files_of(sim)
    assert texts[D + "proxmox.sources"] == NO_SUBSCRIPTION
    assert {path: text for path, text in texts.items() if path != D + "proxmox.sources"} == apt.FRESH_INSTALL
    data = ok(sim, "GET", REPOS)
    assert std_status(data)["no-subscription"] == 1
    assert [entry["path"] for entry in data["files"]][2] == D + "proxmox.sources"  # by name
    ok(sim, "PUT", REPOS, {"handle": "test"})
    assert files_of(sim)[D + "proxmox.sources"] == NO_SUBSCRIPTION + "\n" + NO_SUBSCRIPTION.replace(
        "pve-no-subscription", "pve-test")


def test_pve_handles_are_appended_again_as_proxmox_apt_0_99_probes_for_pbs(sim):
    # already there and enabled: appended once more, nothing enabled in place
    ok(sim, "PUT", REPOS, {"handle": "no-subscription"})
    ok(sim, "PUT", REPOS, {"handle": "no-subscription"})
    assert files_of(sim)[D + "proxmox.sources"] == NO_SUBSCRIPTION + "\n" + NO_SUBSCRIPTION
    # disabled: the disabled one stays, an enabled copy follows it, and the status reads enabled
    ok(sim, "POST", REPOS, {"path": D + "pve-enterprise.sources", "index": 0, "enabled": 0})
    ok(sim, "PUT", REPOS, {"handle": "enterprise"})
    assert files_of(sim)[D + "pve-enterprise.sources"] == PVE_ENTERPRISE + "Enabled: false\n\n" + PVE_ENTERPRISE
    assert std_status(ok(sim, "GET", REPOS))["enterprise"] == 1


def test_ceph_handles_are_found_and_enabled_in_place(sim):
    odd = CEPH_ENTERPRISE + "\n\n# trailing\n"  # left alone while nothing needs writing
    sim.state.apt_files["node1"] = dict(apt.FRESH_INSTALL, **{D + "ceph.sources": odd})
    ok(sim, "PUT", REPOS, {"handle": "ceph-squid-enterprise"})
    assert files_of(sim)[D + "ceph.sources"] == odd
    ok(sim, "POST", REPOS, {"path": D + "ceph.sources", "index": 0, "enabled": 0})
    ok(sim, "PUT", REPOS, {"handle": "ceph-squid-enterprise"})
    assert files_of(sim)[D + "ceph.sources"] == CEPH_ENTERPRISE + "Enabled: true\n"
    # another Ceph handle is appended to ceph.sources
    ok(sim, "PUT", REPOS, {"handle": "ceph-squid-no-subscription"})
    assert files_of(sim)[D + "ceph.sources"] == CEPH_ENTERPRISE + "Enabled: true\n\n" + (
        "Types: deb\nURIs: http://download.proxmox.com/debian/ceph-squid\nSuites: trixie\n"
        "Components: no-subscription\n" + KEYRING)
    assert std_status(ok(sim, "GET", REPOS))["ceph-squid-no-subscription"] == 1


def test_add_errors(sim):
    assert err(sim, "PUT", REPOS, {"handle": "pbs-enterprise"}) == (
        500, "error: unknown variant `pbs-enterprise`, expected one of `enterprise`, `no-subscription`, `test`, "
             "`ceph-squid-enterprise`, `ceph-squid-no-subscription`, `ceph-squid-test`\n")
    assert err(sim, "PUT", REPOS, {"handle": "test", "digest": "f" * 63}) == (
        500, f'error: invalid value: string "{"f" * 63}", expected valid configuration digest\n')
    assert err(sim, "PUT", REPOS, {"handle": "test", "digest": "f" * 64}) == (
        500, "detected modified configuration - file changed by other user? Try again.\n")
    sim.state.apt_files["node1"] = dict(apt.FRESH_INSTALL, **{D + "proxmox.sources": "Types: deb\nfoo\n"})
    assert err(sim, "PUT", REPOS, {"handle": "test"}) == (
        500, f"unable to parse existing file {D}proxmox.sources - malformed entry in stanza 1 - got invalid line "
             "- '\"foo\"'\n")
    assert files_of(sim)[D + "proxmox.sources"] == "Types: deb\nfoo\n"


# -- subscription ------------------------------------------------------------------------------------

def test_a_fresh_node_has_no_subscription(sim):
    sid = subscription.server_id("node1")
    assert len(sid) == 32 and sid == sid.upper()
    assert ok(sim, "GET", SUB) == {"status": "notfound", "message": "There is no subscription key",
                                   "url": PRICING, "serverid": sid}
    # any user may ask; the server ID needs Sys.Audit on the node
    assert ok(sim, "GET", SUB, token=token_with(sim, "nobody@pve")) == {
        "status": "notfound", "message": "There is no subscription key", "url": PRICING}
    assert ok(sim, "GET", "/nodes/node2/subscription")["serverid"] == subscription.server_id("node2") != sid


def test_a_key_the_shop_does_not_know_is_set_and_reads_invalid(sim):
    assert ok(sim, "PUT", SUB, {"key": KEY}) is None
    data = ok(sim, "GET", SUB)
    assert data.pop("checktime") == pytest.approx(time.time(), abs=10)
    assert data == {"status": "invalid", "key": KEY, "serverid": subscription.server_id("node1"),
                    "sockets": 1, "url": PRICING}
    # without Sys.Audit: the status, the file's message (none: null) and the shop's URL, never the key
    assert ok(sim, "GET", SUB, token=token_with(sim, "nobody@pve")) == {
        "status": "invalid", "message": None, "url": PRICING}


def test_a_seeded_key_is_active_with_the_shops_fields(sim):
    subscription.seed_subscription_key(sim.state, KEY)
    ok(sim, "PUT", SUB, {"key": f"  {KEY} "})  # trimmed
    data = ok(sim, "GET", SUB)
    assert data["status"] == "active" and data["key"] == KEY and data["level"] == "c"
    assert data["productname"] == "Proxmox VE Community Subscription 2 CPU/year"
    assert data["regdate"] == time.strftime("%Y-%m-%d 00:00:00", time.gmtime())
    assert len(data["nextduedate"]) == 10 and data["serverid"] == subscription.server_id("node1")
    assert data["sockets"] == 1 and data["url"] == PRICING and "message" not in data
    # the file holds what the shop answered, with PVE's empty product URL
    assert sim.state.subscriptions["node1"]["url"] == ""
    assert ok(sim, "GET", SUB, token=token_with(sim, "nobody@pve")) == {
        "status": "active", "message": None, "url": PRICING}


def test_the_key_format_is_checked_first(sim):
    status, body = sim.request("PUT", SUB, {"key": "pve3c-0123456789"})
    assert (status, body["errors"]) == (400, {"key": "value does not match the regex pattern"})
    assert sim.request("PUT", SUB, {"key": "pve1x-0123456789"})[0] == 400
    assert sim.request("PUT", SUB, {"key": "pve1c-0123456789ab"})[0] == 400
    with pytest.raises(ApiError) as raised:
        subscription.parse_key("pbs1c-0123456789")
    assert raised.value.message == "Wrong subscription key format\n"
    assert "node1" not in sim.state.subscriptions


def test_the_shops_other_answers(sim):
    subscription.seed_subscription_key(sim.state, KEY, status="Suspended")
    ok(sim, "PUT", SUB, {"key": KEY})
    assert ok(sim, "GET", SUB)["status"] == "suspended"
    subscription.seed_subscription_key(sim.state, KEY, status="Invalid", message="Directory Invalid")
    ok(sim, "PUT", SUB, {"key": KEY})
    data = ok(sim, "GET", SUB)
    assert (data["status"], data["message"]) == ("invalid", "Invalid Server ID")
    subscription.seed_subscription_key(sim.state, KEY, status="Whatever")
    ok(sim, "PUT", SUB, {"key": KEY})
    assert ok(sim, "GET", SUB)["status"] == "invalid"


def test_a_key_bound_to_another_server_fails_the_check_and_leaves_the_new_file(sim):
    subscription.seed_subscription_key(sim.state, KEY, validdirectory=subscription.server_id("node2"))
    assert err(sim, "PUT", SUB, {"key": KEY}) == (
        500, "Error parsing subscription check response: Server ID does not match\n")
    assert sim.state.subscriptions["node1"]["status"] == "new"
    assert ok(sim, "GET", SUB)["status"] == "notfound"  # only the key line is written
    ok(sim, "PUT", "/nodes/node2/subscription", {"key": KEY})
    assert ok(sim, "GET", "/nodes/node2/subscription")["status"] == "active"


def test_update_rechecks_only_when_the_last_check_is_old_or_forced(sim):
    assert ok(sim, "POST", SUB) is None and "node1" not in sim.state.subscriptions  # no file: nothing to do
    ok(sim, "PUT", SUB, {"key": KEY})
    subscription.seed_subscription_key(sim.state, KEY)
    ok(sim, "POST", SUB)  # an invalid status is always re-checked
    assert ok(sim, "GET", SUB)["status"] == "active"
    subscription.seed_subscription_key(sim.state, KEY, status="Suspended")
    ok(sim, "POST", SUB)  # checked just now: the cache is valid
    assert ok(sim, "GET", SUB)["status"] == "active"
    ok(sim, "POST", SUB, {"force": 1})
    assert ok(sim, "GET", SUB)["status"] == "suspended"
    subscription.seed_subscription_key(sim.state, KEY)
    ok(sim, "POST", SUB)
    sim.state.subscriptions["node1"]["checktime"] -= 6 * 24 * 3600  # older than 5 days: re-checked
    subscription.seed_subscription_key(sim.state, KEY, status="Expired")
    ok(sim, "POST", SUB)
    assert ok(sim, "GET", SUB)["status"] == "expired"


def test_the_local_file_ages_and_must_match_the_server(sim):
    subscription.seed_subscription_key(sim.state, KEY)
    ok(sim, "PUT", SUB, {"key": KEY})
    stored = sim.state.subscriptions["node1"]
    stored["checktime"] -= 36 * 24 * 3600  # 15 + 5 days of local validity, plus the margin
    data = ok(sim, "GET", SUB)
    assert (data["status"], data["message"]) == ("invalid", "subscription information too old")
    assert "level" not in data
    stored["checktime"] += 36 * 24 * 3600 + 7200
    assert ok(sim, "GET", SUB)["message"] == "last check date too far in the future"
    stored["checktime"] -= 7200
    stored["serverid"] = subscription.server_id("node2")
    assert ok(sim, "GET", SUB)["message"] == "Server ID mismatch."
    del stored["serverid"]
    assert ok(sim, "GET", SUB)["message"] == "Missing server ID."


def test_the_key_must_cover_the_hosts_sockets(sim, monkeypatch):
    subscription.seed_subscription_key(sim.state, "pve1c-0123456789")
    ok(sim, "PUT", SUB, {"key": "pve1c-0123456789"})
    monkeypatch.setattr(subscription, "host_sockets", lambda node: 2)
    data = ok(sim, "GET", SUB)
    assert (data["status"], data["message"], data["sockets"]) == ("invalid", "wrong number of sockets (1 < 2)", 2)
    assert err(sim, "PUT", SUB, {"key": "pve1b-0123456789"}) == (500, "wrong number of sockets (1 < 2)\n")
    assert sim.state.subscriptions["node1"]["key"] == "pve1c-0123456789"  # refused before anything is written
    assert err(sim, "POST", SUB, {"force": 1}) == (500, "wrong number of sockets (1 < 2)\n")


def test_an_offline_key_cannot_be_updated(sim):
    sim.state.subscriptions["node1"] = {"status": "active", "serverid": subscription.server_id("node1"),
                                        "checktime": int(time.time()), "key": KEY, "signature": "c2ln"}
    data = ok(sim, "GET", SUB)
    assert (data["status"], data["message"]) == ("invalid", "Signature validation failed")
    assert err(sim, "POST", SUB) == (
        500, "Updating offline key not possible - please remove and re-add subscription key to switch to online "
             "key.\n")


def test_delete_removes_the_file_and_writes_need_sys_modify(sim):
    auditor = token_with(sim, "auditor@pve", "PVEAuditor")
    assert err(sim, "PUT", SUB, {"key": KEY}, token=auditor) == (
        403, "Permission check failed (/nodes/node1, Sys.Modify)\n")
    assert err(sim, "POST", SUB, token=auditor)[0] == 403
    assert err(sim, "DELETE", SUB, token=auditor)[0] == 403
    ok(sim, "PUT", SUB, {"key": KEY})
    assert ok(sim, "GET", SUB, token=auditor)["key"] == KEY  # Sys.Audit reads the whole file
    assert ok(sim, "DELETE", SUB) is None
    assert ok(sim, "GET", SUB)["status"] == "notfound"
    assert ok(sim, "DELETE", SUB) is None  # no file: nothing to do
