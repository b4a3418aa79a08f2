"""/cluster/config: create a cluster, the join information, and a node joining one.

Ports pve-cluster ``src/PVE/API2/ClusterConfig.pm`` (index, join_api_version, create, nodes, join_info, join,
totem) and the work its workers do: ``PVE/Corosync.pm`` create_conf (the first node's nodelist entry and links),
``PVE/Cluster/Setup.pm`` join (assert_joinable, the API login to the member named by ``hostname`` with its
fingerprint pinned, then ``POST /cluster/config/nodes/{node}`` there: addnode, then finish_join).

A simulator member answers from one ``ClusterState``; with ``serve.py --fresh`` each member starts with a state of
its own (a standalone node: ``corosync`` is None). After a join the joining member is served by the cluster's
``PveApi``: its old /etc/pve is gone, as finish_join replaces it, and it keeps only the node-local slices and its task
log (``ClusterState.adopt_node``). The login to the member is checked against the member's own state (root@pam's
password, the fingerprint of its ``pve-ssl.pem``), never over the network.
"""

import hashlib
import json
import types
from collections import OrderedDict

from ...errors import ApiError, die
from ...schema import load as load_schema, parse_property_string
from .base import route
from .certificates import fingerprint, node_path, read_certificate

JOIN_API_VERSION = 1  # Cluster/Setup.pm JOIN_API_VERSION
MAX_LINK_INDEX = 7    # Corosync.pm MAX_LINK_INDEX
CLUSTER_CONF = "/etc/pve/corosync.conf"
AUTH_FILE = "/etc/corosync/authkey"
CREATE = ("POST", "/cluster/config")


def _expand_links(index):
    """The API dump folds link0 .. link7 into ``link[n]`` (Corosync.pm add_corosync_link_properties, folded by
    RESTHandler api_clone_schema); give create, join and addnode their eight properties back."""
    for method, path in (CREATE, ("POST", "/cluster/config/join"), ("POST", "/cluster/config/nodes/{node}")):
        props = ((index.lookup(method, path) or {}).get("parameters") or {}).get("properties") or {}
        folded = props.pop("link[n]", None)
        if folded is not None:
            for number in range(MAX_LINK_INDEX + 1):
                props[f"link{number}"] = folded


_expand_links(load_schema())


@route("GET", "/cluster/config")
def index(ctx, p):
    return [{"name": name} for name in ("nodes", "totem", "join", "qdevice", "apiversion")]


@route("GET", "/cluster/config/apiversion")
def join_api_version(ctx, p):
    return JOIN_API_VERSION


def links_of(p):
    """Corosync.pm extract_corosync_link_args: link number -> {address, priority?} of the link<N> parameters."""
    fmt = load_schema().lookup(*CREATE)["parameters"]["properties"]["link0"]["format"]
    links = {}
    for number in range(MAX_LINK_INDEX + 1):
        text = p.get(f"link{number}")
        if text:
            links[number] = parse_property_string(fmt, str(text), f"link{number}")
    return links


def _digest(conf):
    return hashlib.sha1(json.dumps(conf, sort_keys=True).encode()).hexdigest()


@route("POST", "/cluster/config")
def create(ctx, p):
    """ClusterConfig.pm create: dies when corosync.conf exists, then a ``clustercreate`` worker writes the conf
    (create_conf: nodeid default 1, votes default 1, link0 the node's own address when no link is given)."""
    state = ctx.state
    if state.corosync is not None:
        raise die(f"cluster config '{CLUSTER_CONF}' already exists")
    node = ctx.node
    links = links_of(p) or {0: {"address": state.nodes[node]["ip"]}}
    entry = {"name": node, "nodeid": p.get("nodeid") or 1, "quorum_votes": p.get("votes") or 1}
    interface = {}
    for number, link in sorted(links.items()):
        entry[f"ring{number}_addr"] = link["address"]
        interface[str(number)] = {"linknumber": number}
        if link.get("priority"):
            interface[str(number)]["knet_link_priority"] = int(link["priority"])
    totem = {"cluster_name": p["clustername"], "config_version": 1, "ip_version": "ipv4-6", "link_mode": "passive",
             "secauth": "on", "version": 2, "interface": interface,
             "token_coefficient": p.get("token-coefficient", 125)}
    state.corosync = {"nodelist": OrderedDict([(node, entry)]), "totem": totem}
    state.cluster_name = p["clustername"]
    state.nodes[node]["nodeid"] = entry["nodeid"]
    log = ["Writing corosync config to /etc/pve/corosync.conf", "Restart corosync and cluster filesystem"]
    return state.start_task(node, "clustercreate", p["clustername"], ctx.authid, log=log)


@route("GET", "/cluster/config/nodes")
def nodes(ctx, p):
    """ClusterConfig.pm nodes: corosync.conf's nodelist as rows (hash_to_array by ``node``); none when standalone."""
    if ctx.state.corosync is None:
        return []
    return [dict(entry, node=name) for name, entry in ctx.state.corosync["nodelist"].items()]


@route("GET", "/cluster/config/totem")
def totem(ctx, p):
    conf = ctx.state.corosync
    return dict(conf["totem"]) if conf else None


def node_fingerprint(member, state, node):
    """Cluster.pm get_node_fingerprint: the SHA-256 fingerprint of the node's pve-ssl.pem."""
    view = types.SimpleNamespace(state=state, member=member)
    return fingerprint(read_certificate(view, f"{node_path(node)}/pve-ssl.pem"))


@route("GET", "/cluster/config/join")
def join_info(ctx, p):
    conf = ctx.state.corosync
    if conf is None:  # raised with HTTP_FAILED_DEPENDENCY, FIXME'd for removal in 8.0 and still there
        raise ApiError(424, "node is not in a cluster, no join info available!\n")
    name = p.get("node") or ctx.node
    if name not in conf["nodelist"]:
        raise die(f"unknown node '{name}'")
    rows = []
    for node, entry in conf["nodelist"].items():
        row = dict(entry)
        row["pve_fp"] = node_fingerprint(ctx.member, ctx.state, node)
        row["pve_addr"] = ctx.state.nodes.get(node, {}).get("ip")
        rows.append(row)
    return {"nodelist": rows, "preferred_node": name, "totem": dict(conf["totem"]), "config_digest": _digest(conf)}


class JoinFailed(Exception):
    """The join worker died: the task ends with this text as its status."""


def assert_joinable(state, node, links, force, log):
    """Setup.pm assert_joinable: what makes this node unfit to join, collected, then one die (unless forced)."""
    errors = []
    if state.corosync is not None:
        errors.append(f"authentication key '{AUTH_FILE}' already exists")
        errors.append(f"cluster config '{CLUSTER_CONF}' already exists")
    if state.guests:
        errors.append("this host already contains virtual guests")
    if state.corosync is not None:
        errors.append("corosync is already running, is this node already in a cluster?!")
    local = {state.nodes[node]["ip"]}
    for number, link in sorted(links.items()):
        if link["address"] not in local:
            errors.append(f"link{number}: cannot use IP '{link['address']}', not found on local node!\n")
    if not errors:
        return
    log.append("detected the following error(s):")
    log.extend(f"* {error.rstrip()}" for error in errors)
    if not force:
        raise JoinFailed("Check if node may join a cluster failed!")
    log.append("WARNING : detected error but forced to continue!")


def add_node(cluster, name, ip, links, p):
    """ClusterConfig.pm addnode on the member: quorum, no address used twice, the cluster's links exactly, a node
    id; returns the nodelist entry (the member's die becomes 'An error occurred on the cluster node')."""
    if not cluster.quorate():
        raise JoinFailed("cluster not ready - no quorum?")
    nodelist = cluster.corosync["nodelist"]
    for link in links.values():
        for other, entry in nodelist.items():
            for number in range(MAX_LINK_INDEX + 1):
                key = f"ring{number}_addr"
                if other != name and entry.get(key) == link["address"]:
                    raise JoinFailed(f"corosync: address '{link['address']}' already used on link {key} by node "
                                     f"'{other}'")
    cluster_links = {int(key[4:-5]) for entry in list(nodelist.values())[:1] for key in entry
                     if key.startswith("ring") and key.endswith("_addr")}
    if links:
        for number in range(MAX_LINK_INDEX + 1):
            if number in cluster_links and number not in links:
                raise JoinFailed(f"corosync: link {number} exists in cluster config but wasn't specified for new node")
            if number not in cluster_links and number in links:
                raise JoinFailed(f"corosync: link {number} specified for new node doesn't exist in cluster config")
    elif len(cluster_links) == 1:
        links = {min(cluster_links): {"address": ip}}  # the new_node_ip fallback
    else:
        raise JoinFailed("no links given but multiple links found on other nodes, fallback only supported on "
                         "single-link clusters")
    if name in nodelist:
        raise JoinFailed(f"can't add existing node '{name}'")
    nodeid = p.get("nodeid")
    if not nodeid:
        nodeid = 1
        while any(entry["nodeid"] == nodeid for entry in nodelist.values()):
            nodeid += 1
    entry = {"name": name, "nodeid": nodeid, "quorum_votes": 1 if p.get("votes") is None else p["votes"]}
    for number, link in sorted(links.items()):
        entry[f"ring{number}_addr"] = link["address"]
    return entry


def _login(member, p, log):
    """Setup.pm join's PVE::APIClient::LWP login as root@pam, the member's certificate pinned to ``fingerprint``."""
    host = p["hostname"]
    log.append(f"Establishing API connection with host '{host}'")
    if member is None:
        raise JoinFailed(f"500 Can't connect to {host}:8006 (Name or service not known)")
    if member.refused:
        raise JoinFailed(f"500 Can't connect to {host}:8006 (Connection refused)")
    cluster = member.app.state
    actual = node_fingerprint(member, cluster, member.node)
    if actual.upper() != p["fingerprint"].upper():
        raise JoinFailed(f"fingerprint '{actual}' not verified, abort!")
    if not member.app.authenticator.check_password("root@pam", p["password"]):
        raise JoinFailed("401 authentication failure")
    log.append("Login succeeded.")
    log.append("check cluster join API version")
    if cluster.corosync is None:  # addnode reads no corosync.conf: verify_conf fails on the empty config
        raise JoinFailed("An error occurred on the cluster node: invalid corosync.conf\n! no nodes found")
    return cluster


@route("POST", "/cluster/config/join")
def join(ctx, p):
    """ClusterConfig.pm join: a ``clusterjoin`` worker runs Setup.pm join. The task is recorded where the node's
    task log is read afterwards: the cluster's state after a join, its own after a failure."""
    state, node = ctx.state, ctx.node
    links = links_of(p)
    log = []
    try:
        assert_joinable(state, node, links, p.get("force"), log)
        member = ctx.member.sim.member_of_host(p["hostname"])
        cluster = _login(member, p, log)
        log.append("Request addition of this node")
        with cluster.lock:
            try:
                entry = add_node(cluster, node, state.nodes[node]["ip"], links, p)
            except JoinFailed as exc:
                log.append(f"An error occurred on the cluster node: {exc}")
                raise JoinFailed("Cluster join aborted!") from exc
            cluster.corosync["nodelist"][node] = entry
            cluster.corosync["totem"]["config_version"] += 1
            cluster.nodes[node] = {"nodeid": entry["nodeid"], "online": 1, "ip": state.nodes[node]["ip"]}
            cluster.adopt_node(state, node)
            # nodes/<node>/config lived in the old /etc/pve: the cluster has none for the new node
            if node in cluster.node_settings:
                cluster.node_settings[node]["config"] = None
            log.append("Join request OK, finishing setup locally")
            log.append("successfully added node '%s' to cluster." % node)
            upid = cluster.start_task(node, "clusterjoin", "", ctx.authid, log=log)
        ctx.member.app = member.app
        return upid
    except JoinFailed as exc:
        return state.start_task(node, "clusterjoin", "", ctx.authid, exitstatus=str(exc), log=log + [str(exc)])
