"""The rehearsal twin: a simulator seeded from what ``homeflare.proxmox.export`` returned (docs/rehearsal.md).

``serve.py --seed FILE`` reads FILE (YAML or JSON: the export's result, its ``objects``, or a file whose top level
is ``cluster_objects``/``backup_server_objects`` as examples/export.yml writes it), starts a minimal simulator
(``Simulator(node_names=..., minimal=True)``: exactly the nodes the objects name, what every PVE holds, no demo objects)
and puts every object in it the way a real server would hold it:

* through the simulator's own HTTP API, by the collection's own ``declare`` run in this process (as root@pam, as the
  export was read): every family not listed below;
* the API tokens (``api_token``, ``pbs_api_token``) by their module's own run with ``create_missing`` (declare
  refuses to create a token: its secret would be lost);
* straight into the state, where no API call can create the object as exported (``SEEDED_IN_STATE``): a guest is
  exported as its config, not as a template to create it from; a file on a storage without a source; a ZFS pool
  is exported without its disks (it gets a made-up disk of its own, then is created through the API).

The hardware the objects stand on is made up too: the physical NICs ``node_network`` lists (PVE lists NICs, it never
creates one), a free disk for every Ceph OSD the export names, and Ceph installed when a ``ceph_*`` object is there.

Secrets are placeholders (``{{ realm_corp_password }}``, docs/export.md): each is given a dummy value. Any other Jinja
in a value is kept as text (``templated`` in the report). Once seeded, a check-mode ``declare`` of every object judges
it: what does not match is reported in ``unseeded`` with the reason, never silently left out. Seeding's own requests
are not in the request log: it starts empty.
"""

import json
import os
import re
import sys
import time

# The families whose objects go into the state directly, each with why the API cannot create them as exported.
SEEDED_IN_STATE = {
    "zfs_pool": "exported without its disks: the twin gives each pool a disk of its own and creates it through the API",
    "storage_content": "PVE keeps no source of a file: the file is put on the storage (on its node) as it is",
    "lxc": "exported as its config, not the template it was created from: written as its config file and volumes",
    "vm": "exported as its config, not how it was created: written as its config file and volumes",
    "certificate": "its private key is never read back: the certificate is written with a dummy key beside it",
    "subscription": "its key is never read back: the twin's shop is given a dummy key, installed through the API",
}
# The families created by their own module's run with create_missing (declare refuses it: the secret would be lost).
CREATED_BY_MODULE = ("api_token", "pbs_api_token")

PLACEHOLDER = re.compile(r"^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$")
JINJA = re.compile(r"\{\{|\{%|\{#")
DUMMY = "twin-dummy-%s"
WRAPPERS = ("objects", "cluster_objects", "backup_server_objects")


def seeding_ways(families):
    """module -> 'state' | 'module' | 'declare': how the twin seeds each family the export writes."""
    return dict((module, "state" if module in SEEDED_IN_STATE else "module" if module in CREATED_BY_MODULE
                 else "declare") for module, _family in families)


# -- the file ------------------------------------------------------------------------------------

def load(path):
    """The objects (module -> list of options) of an export file: YAML or JSON, bare or wrapped."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    try:
        data = json.loads(text)
    except ValueError:
        import yaml  # ansible-core's dependency; only a seed needs it
        data = yaml.safe_load(text)
    for _round in range(2):  # the export's whole result ({objects: ...}), or a role's variable file
        if isinstance(data, dict):
            wrapper = next((key for key in WRAPPERS if isinstance(data.get(key), dict)), None)
            if wrapper is not None:
                data = data[wrapper]
    if not isinstance(data, dict) or not all(isinstance(value, list) for value in data.values()):
        raise ValueError("%s: not an export's objects (a mapping of module names to lists of options)" % path)
    return data


def fill(value, templated, where):
    """The value with each secret placeholder given a dummy; other Jinja is kept as text and noted."""
    if isinstance(value, dict):
        return dict((key, fill(item, templated, "%s.%s" % (where, key))) for key, item in value.items())
    if isinstance(value, list):
        return [fill(item, templated, "%s[%d]" % (where, index)) for index, item in enumerate(value)]
    if isinstance(value, str):
        placeholder = PLACEHOLDER.match(value)
        if placeholder:
            return DUMMY % placeholder.group(1)
        if JINJA.search(value):
            templated.append(where)
    return value


def node_names(objects):
    """The nodes the objects name, in natural order (at least one): a node-scoped object's ``node``, a cluster's
    members, a replication target, a hardware mapping's nodes."""
    names = set()
    for module, entries in objects.items():
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            if isinstance(entry.get("node"), str) and not module.startswith("pbs_"):
                names.add(entry["node"])
            if module == "replication_job" and isinstance(entry.get("target"), str):
                names.add(entry["target"])
            for member in entry.get("members") or [] if module == "cluster" else []:
                if isinstance(member, dict) and isinstance(member.get("node"), str):
                    names.add(member["node"])
            for line in entry.get("map") or [] if module == "hardware_mapping" else []:
                found = re.search(r"(?:^|,)node=([^,]+)", str(line))
                if found:
                    names.add(found.group(1))
    return sorted(names, key=lambda name: [int(part) if part.isdigit() else part
                                           for part in re.split(r"(\d+)", name)]) or ["node1"]


def dummy_key():
    """A private key in PEM, for a certificate's key placeholder (the module checks it is one)."""
    from cryptography.hazmat.primitives import serialization  # pylint: disable=import-outside-toplevel
    from cryptography.hazmat.primitives.asymmetric import ec  # pylint: disable=import-outside-toplevel
    return ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()


# -- the collection, in this process -----------------------------------------------------------------

def collection():
    """The collection's declare/export machinery (imported on first use: serve.py without --seed needs none of it)."""
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from collection_root import COLLECTIONS  # noqa: E402  pylint: disable=import-outside-toplevel
    if COLLECTIONS not in sys.path:
        sys.path.insert(0, COLLECTIONS)
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator  # pylint: disable=import-outside-toplevel
    from ansible_collections.homeflare.proxmox.plugins.module_utils import (  # noqa: E402
        declare, entry, reconcile, registry)  # pylint: disable=import-outside-toplevel
    return ArgumentSpecValidator, declare, entry, reconcile, registry


class Twin:
    """Seeds one started ``Simulator`` from export objects; ``report`` says what went where."""

    def __init__(self, sim):
        self.sim = sim
        self.validator, self.declare, self.entry, self.reconcile, self.registry = collection()
        self.families = dict(self.registry.FAMILIES)
        self.ways = seeding_ways(self.registry.FAMILIES)
        self.unseeded = []
        self.seeded = {}

    # -- connections ------------------------------------------------------------------------------
    def connection(self, scheme):
        if scheme == "pbs":
            return {"api_host": self.sim.pbs_members, "api_token_id": self.sim.pbs_token_id,
                    "api_token_secret": self.sim.pbs_token_secret, "ca_path": self.sim.ca_path, "api_timeout": 30}
        # root@pam's login, as an export of a whole cluster needs (Ceph, the cluster itself)
        return {"api_host": self.sim.members, "api_user": "root@pam", "api_password": self.sim.root_password,
                "ca_path": self.sim.ca_path, "api_timeout": 30}

    def execute(self, task, options, check_mode, scheme):
        validation = self.validator(self.entry.argument_spec(task)).validate(
            dict(self.connection(scheme), **options))
        if validation.errors.errors:
            return {"failed": True, "msg": validation.errors.msg}
        return self.entry.execute(task, validation.validated_parameters, check_mode, False)[0]

    def refuse(self, module, name, reason):
        self.unseeded.append({"module": module, "object": name, "reason": str(reason).strip()})

    # -- the whole seed ---------------------------------------------------------------------------
    def seed(self, objects):
        """Every object, in declare's order, each family its way; then a check-mode declare judges them all."""
        order = [module for module in self.registry.ORDER if objects.get(module)]
        for module in sorted(set(objects) - set(self.registry.ORDER)):
            self.refuse(module, module, "not a module the export writes")
        valid = self.validated(objects, order)
        self.hardware(valid)
        phase, kind = [], None
        for module in order + [None]:
            way = self.ways.get(module)
            if phase and (way != kind or way != "declare"):
                self.run_phase(kind, phase, valid)
                phase = []
            if module is not None and valid.get(module):
                phase.append(module)
                kind = way
        self.judge(valid)
        return self.report(valid)

    def validated(self, objects, order):
        """The objects declare accepts (each refusal reported): module -> options list."""
        valid = {}
        for module in order:
            kept = []
            for index, options in enumerate(objects[module]):
                label = "objects.%s[%d]" % (module, index)
                options = self.typed_dummies(module, self.unaddressed(module, options))
                problems = self.declare.DECLARE.validate({module: [options]})[1]
                if problems:
                    self.refuse(module, label, problems[0].split(": ", 1)[-1])
                    continue
                kept.append(options)
            valid[module] = kept
        return valid

    @staticmethod
    def unaddressed(module, options):
        """A cluster's members without their ``api_host``: those are production's addresses, which the cluster
        module would contact (with the twin's root password) to judge each member. The twin's members answer
        for the whole cluster, so its own connection reaches every node."""
        if module != "cluster" or not isinstance(options, dict) or not isinstance(options.get("members"), list):
            return options
        members = [dict((key, value) for key, value in member.items() if key != "api_host")
                   if isinstance(member, dict) else member for member in options["members"]]
        return dict(options, members=members)

    def typed_dummies(self, module, options):
        """A secret's dummy in its option's type (an ACME plugin's ``data`` is a mapping)."""
        if not isinstance(options, dict):
            return options
        spec = self.families[module].object_spec()
        typed = dict(options)
        for option, value in options.items():
            if isinstance(value, str) and value.startswith(DUMMY % ""):
                kind = (spec.get(option) or {}).get("type")
                typed[option] = {"TWIN_DUMMY": value} if kind == "dict" else [value] if kind == "list" else value
                if (module, option) == ("certificate", "key"):
                    typed[option] = dummy_key()
        return typed

    def prepared(self, module, options):
        """What a create needs that the export cannot hold: an ACME account agrees to the twin's CA's terms."""
        if module == "acme_account" and not options.get("tos_url"):
            status, body = self.sim.request("GET", "/cluster/acme/tos", {"directory": options["directory"]}
                                            if options.get("directory") else None)
            if status == 200 and body.get("data"):
                return dict(options, tos_url=body["data"])
        return options

    def run_phase(self, way, modules, valid):
        if way == "state":
            for module in modules:
                for options in valid[module]:
                    try:
                        getattr(self, "seed_" + module)(options)
                    except Exception as exc:  # pylint: disable=broad-except  # reported, never fatal
                        self.refuse(module, self.name(module, options), exc)
        elif way == "module":
            for module in modules:
                family = self.families[module]
                for options in valid[module]:
                    result = self.execute(family, dict(options, create_missing=True), False, family.scheme)
                    if result.get("failed"):
                        self.refuse(module, self.name(module, options), result.get("msg"))
        else:
            self.declared(modules, valid)

    def declared(self, modules, valid):
        """One declare run over the modules' objects (their applies added); an object whose write fails is
        reported and left out, and the rest declared again."""
        objects = dict((module, [self.prepared(module, options) for options in valid[module]]) for module in modules)
        scheme = self.families[modules[0]].scheme
        for _attempt in range(50):
            run = dict(objects)
            nodes = sorted(set(entry["node"] for entry in run.get("node_network", [])))
            if nodes:
                run["network_apply"] = [{"node": node} for node in nodes]
            if any(module.startswith("sdn_") for module in run):
                run["sdn_apply"] = [{}]
            result = self.execute(self.declare.DECLARE, {"objects": run}, False, scheme)
            if not result.get("failed"):
                return
            failed = [entry for entry in result.get("results") or [] if entry.get("failed")]
            if not failed:  # not one object to blame: every object of the phase is unseeded
                for module in modules:
                    for options in objects[module]:
                        self.refuse(module, self.name(module, options), result.get("msg"))
                return
            for entry in failed:
                self.refuse(entry["module"], entry["name"], entry.get("msg"))
                if entry["module"] in objects:
                    objects[entry["module"]] = [options for options in objects[entry["module"]]
                                                if self.name(entry["module"], options) != entry["name"]]

    def judge(self, valid):
        """A check-mode declare of every object seeded: what would still be written is reported."""
        refused = set((item["module"], item["object"]) for item in self.unseeded)
        for scheme in ("pve", "pbs"):
            objects = {}
            for module, entries in valid.items():
                if self.families[module].scheme != scheme:
                    continue
                kept = [options for options in entries if (module, self.name(module, options)) not in refused]
                if kept:
                    objects[module] = kept
            if not objects:
                continue
            result = self.execute(self.declare.DECLARE, {"objects": objects}, True, scheme)
            for entry in result.get("results") or []:
                if entry.get("failed"):
                    self.refuse(entry["module"], entry["name"], entry.get("msg"))
                elif entry["plan"]["action"] != "none":
                    self.refuse(entry["module"], entry["name"], "the twin would still %s it (%s)" % (
                        entry["plan"]["action"], ", ".join(entry["plan"]["changed"]) or "no field"))
                else:
                    self.seeded[entry["module"]] = self.seeded.get(entry["module"], 0) + 1
            if result.get("failed") and not result.get("results"):
                self.refuse(scheme, "declare", result.get("msg"))

    def report(self, valid):
        return {"seeded": self.seeded, "unseeded": self.unseeded,
                "ways": dict((module, self.ways[module]) for module in valid)}

    def name(self, module, options):
        """The object's name as declare's results give it (``storage 'nfs1'``)."""
        family = self.families[module]
        try:
            params = self.validator(family.object_spec()).validate(dict(options)).validated_parameters
            target = family.resolve(params)
            return target.describe(target.declaration(params).ident)
        except Exception:  # pylint: disable=broad-except  # a name for the report only
            return "%s %s" % (module, json.dumps(options, sort_keys=True, default=str)[:80])

    # -- the hardware ------------------------------------------------------------------------------
    def hardware(self, valid):
        """What the objects stand on and no API makes: physical NICs, the OSDs' disks, Ceph installed."""
        from .pve.handlers.ceph import ceph_init  # pylint: disable=import-outside-toplevel
        state = self.sim.state
        with state.lock:
            for entry in valid.get("cluster", [])[:1]:  # the cluster's name and its members' first links
                state.cluster_name = state.corosync["totem"]["cluster_name"] = entry["name"]
                for member in entry.get("members") or []:
                    if member.get("links") and member["node"] in state.nodes:
                        state.nodes[member["node"]]["ip"] = member["links"][0]
                        state.corosync["nodelist"][member["node"]]["ring0_addr"] = member["links"][0]
            for entry in valid.get("node_network", []):
                if entry.get("type") == "eth":
                    state.physical_nics.setdefault(entry["node"], []).append(entry["iface"])
            for entry in valid.get("ceph_osd", []):
                self.disk(entry["node"], entry["dev"])
        if any(module.startswith("ceph_") for module in valid if valid[module]):
            ceph_init(state, nodes=(), osds_per_node=0)

    def disk(self, node, path=None):
        """A free 512 GiB disk on ``node`` (at ``path``: a /dev/disk/by-id link or a /dev name); its /dev name."""
        from .pve.handlers.zfs import DISK_SIZE  # pylint: disable=import-outside-toplevel
        disks = self.sim.state.disks.setdefault(node, {})
        for dev, info in disks.items():
            if path in (dev, info["by_id"]):
                return dev
        by_id = path if path and path.startswith("/dev/disk/by-id/") else None
        free = ("/dev/sd%s" % letter for letter in "bcdefghijklmnopqrstuvwxyz" if "/dev/sd%s" % letter not in disks)
        dev = path if path and not by_id else next(free)
        disks[dev] = {"by_id": by_id or "/dev/disk/by-id/ata-TWIN_%s_%s" % (node, dev.rsplit("/", 1)[-1]),
                      "size": DISK_SIZE, "used": None}
        return dev

    # -- the families put into the state (SEEDED_IN_STATE) ------------------------------------------
    def seed_zfs_pool(self, options):
        with self.sim.state.lock:
            dev = self.disk(options["node"])
        status, body = self.sim.request("POST", "/nodes/%s/disks/zfs" % options["node"],
                                        {"name": options["name"], "raidlevel": "single", "devices": dev})
        if status != 200:
            raise RuntimeError("creating the pool failed: %s" % (body.get("message") if isinstance(body, dict)
                                                                 else body))

    def seed_storage_content(self, options):
        from .pve.handlers.guests import put_file  # pylint: disable=import-outside-toplevel
        volname = "%s/%s" % (options["content"], options["filename"])
        with self.sim.state.lock:
            if options["storage"] not in self.sim.state.storage:
                raise RuntimeError("storage '%s' does not exist" % options["storage"])
            node = options.get("node") or next(iter(self.sim.state.nodes))
            put_file(self.sim.state, options["storage"], node, volname,
                     {"size": 1024 ** 2, "vmid": None, "format": None, "content": options["content"]})

    def seed_certificate(self, options):
        from .pve.handlers.certificates import node_path, write_file  # pylint: disable=import-outside-toplevel
        prefix = "%s/pveproxy-ssl" % node_path(options["node"])
        with self.sim.state.lock:
            write_file(self.sim.state, prefix + ".pem", options["certificates"])
            write_file(self.sim.state, prefix + ".key", options["key"])

    def seed_subscription(self, options):
        from .pve.handlers.subscription import seed_subscription_key  # pylint: disable=import-outside-toplevel
        key = options.get("key") or "pve8c-%010x" % (sum(map(ord, options["node"])) + 0x7717000000)
        seed_subscription_key(self.sim.state, key)
        status, body = self.sim.request("PUT", "/nodes/%s/subscription" % options["node"], {"key": key})
        if status != 200:
            raise RuntimeError("installing the key failed: %s" % body)

    def seed_lxc(self, options):
        self.guest("lxc", "lxc", options)

    def seed_vm(self, options):
        self.guest("vm", "qemu", options)

    def guest(self, module, typ, options):
        """A guest's config as its module writes it (the family's own form), written as PVE keeps it."""
        from .pve.handlers.guests import add_guest  # pylint: disable=import-outside-toplevel
        family = self.families[module]
        params = self.validator(family.object_spec()).validate(options).validated_parameters
        form = self.reconcile.create_form(family, family.declaration(params))
        template = str(form.pop("template", "0")) in ("1", "true")
        config = dict((key, value) for key, value in form.items() if key not in ("node", "vmid"))
        with self.sim.state.lock:
            if int(options["vmid"]) in self.sim.state.guests:
                raise RuntimeError("vmid %s is already a guest" % options["vmid"])
            add_guest(self.sim.state, typ, int(options["vmid"]), options["node"], config=config, template=template)


def seeded_simulator(paths, log_path=None, unauthorized_delay=0.0, members=None):
    """A started minimal Simulator holding the objects of the export files ``paths``, and the seed's report."""
    from . import Simulator  # pylint: disable=import-outside-toplevel
    started = time.monotonic()
    objects, templated = {}, []
    for path in paths:
        for module, entries in load(path).items():
            where = "%s: %s" % (os.path.basename(path), module)
            objects.setdefault(module, []).extend(fill(entries, templated, where))
    nodes = node_names(objects)
    sim = Simulator(members=members or len(nodes), node_names=nodes, minimal=True, log_path=log_path,
                    unauthorized_delay=unauthorized_delay)
    sim.start()
    try:
        report = Twin(sim).seed(objects)
    except BaseException:
        sim.stop()
        raise
    sim.clear_log(file=True)
    report.update(nodes=nodes, templated=templated, seconds=round(time.monotonic() - started, 2))
    return sim, report
