"""A node's subscription: /nodes/{node}/subscription (pve-manager ``PVE/API2/Subscription.pm`` get, update, set,
delete, as of pve-manager ee7bad0a, 9.1.9: the release the API schema describes, before the machine-id server
IDs and the arm64 keys), over proxmox-perl-rs ``common/src/bindings/subscription.rs`` and proxmox-rs d66e66cd
``proxmox-subscription`` (``files.rs`` read/write_subscription, ``subscription_info.rs`` check_age and
check_server_id, ``check.rs`` check_subscription and parse_register_response).

``state.subscriptions``: node -> /etc/subscription as proxmox-subscription writes it: the SubscriptionInfo
fields (``status`` lowercase, ``checktime`` epoch seconds), or ``status: "new"`` while only the key line is
written (a check under way or failed). A node without an entry has no file: a fresh node reads ``notfound``.

The shop (``check.rs``: a POST to shop.proxmox.com's WHMCS ``verify.php``) cannot be asked here. Its answers
come from ``state.subscription_keys`` (a knob, not a file): key -> the fields the shop would answer, as
``parse_register_response`` reads them: ``status`` (``Active`` unless given; ``Expired``, ``Suspended``,
``Invalid`` ...), ``productname``, ``regdate``, ``nextduedate``, ``message`` (``Directory Invalid`` is read as
``Invalid Server ID``) and ``validdirectory`` (comma-separated server IDs; when it lacks the node's, the check
dies ``Server ID does not match``). A seeded key defaults to an active subscription for the asking server. Any
other key is answered ``<status>Invalid</status>`` and nothing else, which the crate reads as status
``invalid`` without a message: that is the simulator's assumption (the shop's own answer for an unknown key is
not in the sources). ``set`` (PUT) answers ``null`` for an invalid key too: the GET tells.

The server ID is ``PVE::API2Tools::get_hwaddress``: the MD5 of the node's SSH host key, upper-case hex; the
simulator hashes a per-node stand-in (``server_id(node)``). The host has the sockets node status reports
(``host_sockets``). A GET with ``Sys.Audit`` on the node answers the whole file, the key included, as the
source does; without it only ``status``, ``message`` (``null`` when the file has none) and ``url``.
Not simulated: /etc/apt/auth.conf.d (pve.conf, ceph.conf), offline keys (a signed file never verifies: no
offline signing key here), ``http_proxy``.
"""

import hashlib
import re
import time

from ...errors import ApiError, die
from ..state import register_slice
from .base import route
from .nodes import _cpuinfo  # the node status' read_cpuinfo: the sockets the key must cover

register_slice("subscriptions", dict, node_local=True)                    # node -> /etc/subscription
register_slice("subscription_keys", dict, snapshot=False)   # the shop's answers by key (test knob)

URL = "https://www.proxmox.com/en/proxmox-virtual-environment/pricing"
KEY_RE = re.compile(r"^pve([1248])([cbsp])-[0-9a-f]{10}$")  # Subscription.pm $subscription_pattern
# SubscriptionInfo's fields in serde order (each skipped when None)
FIELDS = ("status", "serverid", "checktime", "key", "message", "productname", "regdate", "nextduedate", "url",
          "signature")
STATUSES = ("active", "new", "notfound", "invalid", "expired", "suspended")  # check.rs parse_status
LEVEL_NAMES = {"c": "Community", "b": "Basic", "s": "Standard", "p": "Premium"}
# subscription_info.rs: local key validity between remote checks
MAX_LOCAL_KEY_AGE = 15 * 24 * 3600
MAX_LOCAL_SIGNED_KEY_AGE = 365 * 24 * 3600
MAX_KEY_CHECK_FAILURE_AGE = 5 * 24 * 3600


def server_id(node):
    """API2Tools.pm get_hwaddress: uc(md5_hex(/etc/ssh/ssh_host_rsa_key.pub)), of a stand-in key per node."""
    return hashlib.md5(f"ssh-rsa AAAAB3NzaSIM{node} root@{node}\n".encode()).hexdigest().upper()


def host_sockets(node):  # pylint: disable=unused-argument
    """Subscription.pm get_sockets: ProcFSTools read_cpuinfo's ``sockets`` (every simulated node has the same CPU)."""
    return _cpuinfo()["sockets"]


def parse_key(key):
    """Subscription.pm parse_key: (sockets, level)."""
    match = KEY_RE.match(key or "")
    if not match:
        raise die("Wrong subscription key format")
    return int(match.group(1)), match.group(2)


def check_key(key, req_sockets):
    """Subscription.pm check_key."""
    sockets, level = parse_key(key)
    if sockets < req_sockets:
        raise die(f"wrong number of sockets ({sockets} < {req_sockets})")
    return sockets, level


def _ordered(info):
    return {field: info[field] for field in FIELDS if info.get(field) is not None}


def _check_age(info, recheck, now):
    """subscription_info.rs check_age (a signed file is never active here, so its due-date check is not)."""
    age = now - (info.get("checktime") or 0)
    if info.get("signature"):
        cutoff = MAX_LOCAL_SIGNED_KEY_AGE
    elif recheck:
        cutoff = MAX_KEY_CHECK_FAILURE_AGE
    else:
        cutoff = MAX_LOCAL_KEY_AGE + MAX_KEY_CHECK_FAILURE_AGE
    if age < -5400:  # allow 1.5h for DST changes or time syncs
        info.update(status="invalid", message="last check date too far in the future")
        info.pop("signature", None)
    elif age > cutoff and info["status"] == "active":
        info.update(status="invalid", message="subscription information too old")
        info.pop("signature", None)


def _check_server_id(info, node):
    """subscription_info.rs check_server_id."""
    if info.get("serverid") is None:
        info.update(status="invalid", message="Missing server ID.")
        info.pop("signature", None)
    elif info["serverid"] != server_id(node):
        info.update(status="invalid", message="Server ID mismatch.")
        info.pop("signature", None)


def _read_subscription(state, node, now):
    """files.rs read_subscription: None without a file, or while it holds only the key line (status new) or
    nothing (no key or no checktime: write_subscription writes an empty file)."""
    stored = state.subscriptions.get(node)
    if stored is None or stored.get("status") == "new" or not stored.get("key") or stored.get("checktime") is None:
        return None
    info = dict(stored)
    if info.get("signature"):  # check_signature: no offline signing key verifies it here
        info.update(status="invalid", message="Signature validation failed")
    if info["status"] == "active":
        _check_server_id(info, node)
        _check_age(info, False, now)
    return _ordered(info)


def read_etc_subscription(state, node, now=None):
    """Subscription.pm read_etc_subscription: an active key must still fit the host; adds ``level``."""
    info = _read_subscription(state, node, int(time.time()) if now is None else now)
    if info is None or info["status"] != "active":
        return info
    try:
        _sockets, level = check_key(info["key"], host_sockets(node))
    except ApiError as err:
        info.update(status="invalid", message=err.message[:-1] if err.message.endswith("\n") else err.message)
    else:
        info["level"] = level
    return info


def _write_subscription(state, node, info):
    """Subscription.pm write_etc_subscription -> files.rs write_subscription (the apt auth files are not kept)."""
    state.subscriptions[node] = _ordered(info)


def _shop_answer(state, key, node, now):
    """What verify.php answers for ``key``: the seeded fields over an active subscription, else ``Invalid``."""
    seeded = state.subscription_keys.get(key)
    if seeded is None:
        return {"status": "Invalid"}  # assumed, see the module docstring
    sockets, level = parse_key(key)
    due = time.gmtime(now + 365 * 24 * 3600)
    answer = {"status": "Active",
              "productname": f"Proxmox VE {LEVEL_NAMES[level]} Subscription {sockets} CPU/year",
              "regdate": time.strftime("%Y-%m-%d 00:00:00", time.gmtime(now)),
              "nextduedate": time.strftime("%Y-%m-%d", due),
              "validdirectory": server_id(node)}
    answer.update(seeded)
    return answer


def check_subscription(state, key, node, now):
    """check.rs check_subscription -> parse_register_response (the shop is ``state.subscription_keys``)."""
    sid = server_id(node)
    info = {"key": key, "status": "notfound", "checktime": now, "url": ""}  # Subscription.pm passes url ""
    for field, value in _shop_answer(state, key, node, now).items():
        if value is None or value == "":
            continue  # ATTR_RE needs a value between the tags
        value = str(value)
        if field == "status":
            info["status"] = value.lower() if value.lower() in STATUSES else "invalid"
        elif field in ("productname", "regdate", "nextduedate"):
            info[field] = value
        elif field == "message":
            info["message"] = "Invalid Server ID" if value == "Directory Invalid" else value
        elif field == "validdirectory":
            if sid not in value.split(","):
                raise die("Error parsing subscription check response: Server ID does not match")
            info["serverid"] = sid
    return _ordered(info)


def _cache_is_valid(info, now):
    """Subscription.pm cache_is_valid: active, and checked less than 5 days ago (check_age with re-check)."""
    if not info or info["status"] != "active":
        return False
    checked = dict(info)
    _check_age(checked, True, now)
    return checked["status"] == "active"


@route("GET", "/nodes/{node}/subscription")
def subscription_get(ctx, p):
    """Subscription.pm get: any user; the file's fields only with Sys.Audit on the node."""
    node = p["node"]
    has_permission = ctx.access.check(ctx.authid, f"/nodes/{node}", ["Sys.Audit"], noerr=True)
    info = read_etc_subscription(ctx.state, node)
    if info is None:
        answer = {"status": "notfound", "message": "There is no subscription key", "url": URL}
        if has_permission:
            answer["serverid"] = server_id(node)
        return answer
    if not has_permission:
        return {"status": info["status"], "message": info.get("message"), "url": URL}
    info["serverid"] = server_id(node)
    info["sockets"] = host_sockets(node)
    info["url"] = URL
    return info


@route("POST", "/nodes/{node}/subscription")
def subscription_update(ctx, p):
    """Subscription.pm update: re-check with the shop unless the last check is recent (``force`` does anyway)."""
    node = p["node"]
    now = int(time.time())
    info = read_etc_subscription(ctx.state, node, now)
    if info is None:
        return None
    if info.get("signature"):
        raise die("Updating offline key not possible - please remove and re-add subscription key to switch to "
                  "online key.")
    if not p.get("force") and _cache_is_valid(info, now):
        return None  # key has been recently checked
    check_key(info["key"], host_sockets(node))
    _write_subscription(ctx.state, node, check_subscription(ctx.state, info["key"], node, now))
    return None


@route("PUT", "/nodes/{node}/subscription")
def subscription_set(ctx, p):
    """Subscription.pm set: the key (trimmed) is written as new, checked with the shop, then written as checked;
    a failed check leaves the new file (which reads as no subscription)."""
    node = p["node"]
    key = p["key"].strip()
    now = int(time.time())
    check_key(key, host_sockets(node))
    _write_subscription(ctx.state, node, {"status": "new", "key": key, "checktime": now})
    _write_subscription(ctx.state, node, check_subscription(ctx.state, key, node, now))
    return None


@route("DELETE", "/nodes/{node}/subscription")
def subscription_delete(ctx, p):
    """Subscription.pm delete: unlink /etc/subscription if it exists (the apt auth files stay)."""
    ctx.state.subscriptions.pop(p["node"], None)
    return None


def seed_subscription_key(state, key, **answer):
    """Test helper: make the shop answer ``key`` (an active subscription unless ``answer`` says otherwise)."""
    with state.lock:
        state.subscription_keys[key] = dict(answer)
