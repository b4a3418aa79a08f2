"""Write the simulator's source map and coverage figure into docs/simulator.md (section "Source map").

For every route the simulator serves (``simulator.pve.handlers.ROUTES``, ``simulator.pbs.handlers.ROUTES``) it
finds the Proxmox source that defines the method, by walking the real routers in the bare git mirrors
(``<repo>/../.mirror/proxmox+<name>/repo``, or ``--mirrors DIR``), and writes one table row per route between
``<!-- source-map:begin -->`` and ``<!-- source-map:end -->``, replacing only what is between them. Run it by hand
where the mirrors exist, after adding a route: ``.venv/bin/python scripts/source_map.py``. CI never runs it;
``tests/unit/test_source_map.py`` checks the rows against the routes and recomputes the coverage figure.

PVE: from pve-manager's ``PVE/API2.pm`` the walk follows ``register_method({subclass => ..., path => ...})``
into the package serving each path (``package PVE::API2::X;`` found in any mirror), and records the
``register_method({name => ..., path => ..., method => ...})`` block of each method: file and the line of its
``name =>``. Blocks written in a base class's generator sub (firewall ``register_get_rules`` and friends, called
as ``__PACKAGE__->register_handlers()``) are recorded at the base file and named with the generator. Methods
whose path comes from a variable (qemu-server's ``register_command`` loop) are matched through the generator and
the table entry that names the path's last segment.

PBS: from proxmox-backup's ``src/api2/mod.rs`` the walk follows ``Router::new().get(&API_METHOD_X)``,
``.subdirs(MAP)`` (``("name", &ROUTER)``) and ``.match_all("param", &ROUTER)`` through ``mod``/``use`` paths, and
records ``fn x`` of ``API_METHOD_X`` (or the handler of a hand-written ``ApiMethod``). The stored mirror is
PBS 3.2.4; methods it lacks are looked up in ``NEWER_PBS`` (read by hand from newer proxmox-backup code in the
public code index), else the row says why not.

A route never gets an invented source: when nothing is found the row says ``not found in <repos>``.
"""

import argparse
import os
import re
import subprocess
import sys
from collections import namedtuple

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests"))

from simulator import coverage as coverage_mod  # noqa: E402  pylint: disable=wrong-import-position
from simulator.schema import walk as schema_walk  # noqa: E402  pylint: disable=wrong-import-position

DOC = os.path.join(REPO, "docs", "simulator.md")
BEGIN, END = coverage_mod.BEGIN, coverage_mod.END

PVE_REPOS = ("pve-manager", "qemu-server", "pve-container", "pve-storage", "pve-network", "pve-access-control",
             "pve-firewall", "pve-ha-manager", "pve-cluster", "pve-guest-common", "pve-common")
PBS_REPO = "proxmox-backup"

# PBS methods newer than the 3.2.4 mirror, read with the code index's read_file (no mirror holds them; lines counted
# in the stored text, 4,787 characters):
# (method, path) -> (repository@commit, file, handler fn, line of the fn, note).
_WEBHOOK = ("virbula/proxmox-backup@aed27324b8343ff2947361288aa8db57b5462628",
            "src/api2/config/notifications/webhook.rs")
_WEBHOOK_NOTE = ("not in the 3.2.4 mirror; read in a GitHub copy of proxmox-backup, the index has no upstream "
                 "webhook.rs nor the mod.rs line mounting it")
NEWER_PBS = {
    ("GET", "/config/notifications/endpoints/webhook"): _WEBHOOK + ("list_endpoints", 28, _WEBHOOK_NOTE),
    ("POST", "/config/notifications/endpoints/webhook"): _WEBHOOK + ("add_endpoint", 78, _WEBHOOK_NOTE),
    ("GET", "/config/notifications/endpoints/webhook/{name}"): _WEBHOOK + ("get_endpoint", 54, _WEBHOOK_NOTE),
    ("PUT", "/config/notifications/endpoints/webhook/{name}"): _WEBHOOK + ("update_endpoint", 121, _WEBHOOK_NOTE),
    ("DELETE", "/config/notifications/endpoints/webhook/{name}"):
        _WEBHOOK + ("delete_endpoint", 158, _WEBHOOK_NOTE),
}

Row = namedtuple("Row", "method path source handler")


# -- git ------------------------------------------------------------------------------------------------------

class Mirror:
    """One bare mirror, read at HEAD."""

    def __init__(self, name, git_dir):
        self.name = name
        self.git_dir = git_dir
        self._cache = {}

    def git(self, *args):
        return subprocess.run(["git", "-C", self.git_dir] + list(args), check=True, capture_output=True,
                              text=True).stdout

    def head(self):
        """(commit, date) of HEAD."""
        commit, date = self.git("log", "-1", "--format=%H %cs").split()
        return commit, date

    def grep_files(self, pattern, pathspec):
        try:
            out = self.git("grep", "-l", "-E", pattern, "HEAD", "--", pathspec)
        except subprocess.CalledProcessError:  # no match
            return []
        return [line.split(":", 1)[1] for line in out.splitlines()]

    def show(self, path):
        if path not in self._cache:
            self._cache[path] = self.git("show", "HEAD:" + path)
        return self._cache[path]


def open_mirrors(root, names):
    found = {}
    for name in names:
        git_dir = os.path.join(root, "proxmox+" + name, "repo")
        if os.path.isdir(git_dir):
            found[name] = Mirror(name, git_dir)
    return found


def join_path(prefix, path):
    """Schema-style path: ``/a`` + ``{b:\\d+}/c`` -> ``/a/{b}/c`` (RESTHandler's ``{name:regex}`` loses the regex)."""
    parts = [part for part in prefix.split("/") if part] + [part for part in path.split("/") if part]
    parts = [re.sub(r"^\{([\w-]+):.*\}$", r"{\1}", part) for part in parts]
    return "/" + "/".join(parts)


# -- PVE: Perl packages and their register_method blocks -------------------------------------------------------

Block = namedtuple("Block", "line keys key_lines in_sub")  # keys: top-level key -> literal string or None
Call = namedtuple("Call", "line generator args in_sub")     # __PACKAGE__->register_x(args) / $class->register_x()
Method = namedtuple("Method", "mirror file line name package via")


class Package:
    def __init__(self, name, mirror, file, lines, first_line):
        self.name = name
        self.mirror = mirror
        self.file = file
        self.lines = lines            # the package's own lines
        self.first_line = first_line  # file line number of lines[0]
        self.bases = []
        self.subs = {}                # name -> (start index, end index) into lines
        self.blocks = []
        self.calls = []
        self._parse()

    def lineno(self, index):
        return self.first_line + index

    def _sub_at(self, index):
        for name, (start, end) in self.subs.items():
            if start <= index <= end:
                return name
        return None

    def _parse(self):
        lines = self.lines
        start = None
        for index, line in enumerate(lines):
            found = re.match(r"^sub (\w+)\s*\{", line)
            if found:
                start = (found.group(1), index)
            elif start and line.startswith("}"):
                self.subs[start[0]] = (start[1], index)
                start = None
            base = re.match(r"^\s*use (?:base|parent)\s+(.*);", line)
            if base:
                self.bases += [word for word in re.findall(r"[\w:]+", base.group(1))
                               if word not in ("qw", "norequire")]
        for index, line in enumerate(lines):
            opening = re.match(r"^(\s*)(?:__PACKAGE__|\$class)->register_method\(\{\s*$", line)
            if opening:
                self.blocks.append(self._block(index, opening.group(1)))
                continue
            call = re.match(r"^\s*(?:__PACKAGE__|\$class)->(register_\w+)\((.*)", line)
            if call and call.group(1) != "register_method":
                self.calls.append(Call(index, call.group(1), call.group(2), self._sub_at(index)))

    def _block(self, index, indent):
        keys, key_lines = {}, {}
        inner = indent + "    "
        for offset in range(index + 1, len(self.lines)):
            line = self.lines[offset]
            if re.match("^" + indent + r"\}\);", line):
                break
            key = re.match("^" + inner + r"(\w+)\s*=>\s*(.*?),?\s*$", line)
            if key and key.group(1) not in keys:
                keys[key.group(1)] = literal(key.group(2))
                key_lines[key.group(1)] = offset
        return Block(index, keys, key_lines, self._sub_at(index))


def literal(text):
    """The string a Perl literal denotes, or None (a variable, an expression)."""
    text = re.sub(r",?\s*(#.*)?$", "", text.strip())  # trailing comma, then a comment: '{storage}', # ...
    single = re.fullmatch(r"'((?:[^'\\]|\\.)*)'", text)
    if single:  # in single quotes only \\ and \' are escapes
        return re.sub(r"\\([\\'])", r"\1", single.group(1))
    double = re.fullmatch(r'"([^"\\$@#]*)"', text)
    return double.group(1) if double else None


def perl_packages(mirrors):
    """name -> Package, for every package of every file that holds a ``package PVE::API2...;``."""
    packages = {}
    for mirror in mirrors.values():
        for file in mirror.grep_files(r"^package PVE::API2", "*.pm"):
            if "/test/" in "/" + file:
                continue
            lines = mirror.show(file).split("\n")
            starts = [(index, found.group(1)) for index, line in enumerate(lines)
                      for found in [re.match(r"^package ([\w:]+);", line)] if found]
            for number, (start, name) in enumerate(starts):
                end = starts[number + 1][0] if number + 1 < len(starts) else len(lines)
                packages.setdefault(name, Package(name, mirror, file, lines[start:end], start + 1))
    return packages


class PveWalk:
    """Walks the RESTHandler tree from PVE::API2 and indexes its methods by (method, path)."""

    def __init__(self, packages):
        self.packages = packages
        self.methods = {}   # (method, path) -> Method
        self.dynamic = []   # (prefix, package, Package holding the block, Block, via) for variable paths
        self.mounts = {}    # path -> package name
        self._walk("PVE::API2", "/", set())

    def mro(self, name, seen=None):
        seen = seen or set()
        if name in seen or name not in self.packages:
            return []
        seen.add(name)
        order = [self.packages[name]]
        for base in self.packages[name].bases:
            order += self.mro(base, seen)
        return order

    def find_sub(self, package, sub):
        for candidate in self.mro(package):
            if sub in candidate.subs:
                return candidate
        return None

    def effective(self, name):
        """(holder Package, Block, via) of every method ``name`` registers: its own top-level blocks, and the
        blocks of the generator subs it calls (resolved along its bases, as ``$class->`` would be)."""
        package = self.packages[name]
        found = [(package, block, None) for block in package.blocks if block.in_sub is None]
        for call in package.calls:
            if call.in_sub is None:
                found += self._expand(name, call.generator, "`%s(%s` of %s"
                                      % (call.generator, call.args.rstrip(";"), name), set())
        return found

    def _expand(self, name, generator, how, seen):
        holder = self.find_sub(name, generator)
        if holder is None or generator in seen:
            return []
        seen = seen | {generator}
        via = "generated by `%s::%s`, called by %s" % (holder.name, generator, how)
        found = [(holder, block, via) for block in holder.blocks if block.in_sub == generator]
        for call in holder.calls:
            if call.in_sub == generator:
                found += self._expand(name, call.generator, how, seen)
        return found

    def _walk(self, name, prefix, seen):
        if name not in self.packages or name in seen:
            return
        seen = seen | {name}
        self.mounts[prefix] = name
        for holder, block, via in self.effective(name):
            keys = block.keys
            if "subclass" in keys:
                if keys["subclass"] and keys.get("path") is not None:
                    self._walk(keys["subclass"], join_path(prefix, keys["path"]), seen)
                continue
            path = keys.get("path")
            method = keys["method"] if "method" in keys else "GET"  # RESTHandler's default
            if path is None or method is None or keys.get("name") is None:
                self.dynamic.append((prefix, name, holder, block, via))
                continue
            line = holder.lineno(block.key_lines["name"])
            self.methods.setdefault((method, join_path(prefix, path)),
                                    Method(holder.mirror.name, holder.file, line, keys["name"], name, via))

    def dynamic_match(self, method, path, schema_name):
        """A method whose path is built from a variable: the generator block whose package is mounted at the
        path's parent, and the table key naming the last segment (qemu-server Agent.pm ``register_command``)."""
        head, _slash, last = path.rpartition("/")
        for prefix, name, holder, block, via in self.dynamic:
            if prefix != (head or "/") or schema_name != last:
                continue
            if block.keys.get("method") not in (None, method):
                continue
            package = self.packages[name]
            entry = [index for index, line in enumerate(package.lines)
                     if re.match(r"^\s*'?%s'?\s*=>\s*\{" % re.escape(last), line)]
            if not entry:
                continue
            sub = "%s::%s" % (holder.name, block.in_sub) if block.in_sub else holder.name
            line = holder.lineno(block.key_lines.get("name", block.line))
            note = ("generated by `%s`, its name and path from the `'%s'` entry at line %d"
                    % (sub, last, package.lineno(entry[0])))
            return Method(holder.mirror.name, holder.file, line, last, name, note)
        return None


def schema_names(product):
    """(method, path) -> handler name of the official schema (PBS has none)."""
    return dict(((method, node["path"]), info.get("name"))
                for node in schema_walk(coverage_mod.load_tree(product))
                for method, info in (node.get("info") or {}).items())


def pve_rows(mirrors):
    walk = PveWalk(perl_packages(mirrors))
    names = schema_names("pve")
    rows = []
    for method, path in sorted(coverage_mod.served_routes("pve"), key=lambda key: (key[1], key[0])):
        schema_name = names.get((method, path))
        found = walk.methods.get((method, path)) or walk.dynamic_match(method, path, schema_name)
        if found is None:
            rows.append(Row(method, path, "not found in %s" % ", ".join(sorted(mirrors)),
                            "schema name `%s`" % schema_name if schema_name else "not in the schema"))
            continue
        handler = "`%s`" % found.name
        notes = []
        if found.via:
            notes.append(found.via)
        if schema_name and schema_name != found.name:
            notes.append("the schema names it `%s`" % schema_name)
        if notes:
            handler += " (" + "; ".join(notes) + ")"
        rows.append(Row(method, path, "%s:%s:%d" % (found.mirror, found.file, found.line), handler))
    return rows


# -- PBS: Rust routers ------------------------------------------------------------------------------------------

class RustFile:
    """One module of proxmox-backup: its consts (Router, SubdirMap, ApiMethod), ``use`` names and ``fn`` lines."""

    def __init__(self, path, text):
        self.path = path
        self.text = text
        self.consts = {}   # name -> (type, expression text)
        self.uses = {}     # alias -> full path (a::b::c)
        self.mods = set()
        for found in re.finditer(r"(?:pub(?:\([^)]*\))?\s+)?(?:const|static)\s+(\w+)\s*:\s*(Router|SubdirMap|ApiMethod)"
                                 r"\s*=", text):
            expr = text[found.end():until_semicolon(text, found.end())]
            self.consts[found.group(1)] = (found.group(2), strip_comments(expr))
        for found in re.finditer(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+", text, re.M):
            end = until_semicolon(text, found.end())
            for alias, full in flatten_use(text[found.end():end]):
                self.uses[alias] = full
        self.mods = set(re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text, re.M))

    def fn_line(self, name):
        found = re.search(r"^[ \t]*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+%s\s*[(<]" % re.escape(name),
                          self.text, re.M)
        return self.text.count("\n", 0, found.start()) + 1 if found else None


def strip_comments(text):
    """Drop ``// ...`` line comments outside strings (commented-out subdirs such as ``//("lvm", ...)``)."""
    out, index = [], 0
    while index < len(text):
        if text[index] == '"':
            end = index + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[index:end + 1])
            index = end + 1
        elif text.startswith("//", index):
            newline = text.find("\n", index)
            index = len(text) if newline < 0 else newline
        else:
            out.append(text[index])
            index += 1
    return "".join(out)


def until_semicolon(text, start):
    """Index of the ``;`` that ends the item starting at ``start`` (outside brackets, strings, comments)."""
    depth, index = 0, start
    while index < len(text):
        char = text[index]
        if char == '"':
            index += 1
            while index < len(text) and text[index] != '"':
                index += 2 if text[index] == "\\" else 1
        elif text.startswith("//", index):
            index = text.find("\n", index)
            if index < 0:
                return len(text)
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == ";" and depth == 0:
            return index
        index += 1
    return len(text)


def split_top(text, separator=","):
    """Split at ``separator`` outside brackets and strings."""
    parts, depth, current, index = [], 0, [], 0
    while index < len(text):
        char = text[index]
        if char == '"':
            end = index + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            current.append(text[index:end + 1])
            index = end + 1
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == separator and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


def flatten_use(tree, prefix=""):
    """``a::{self, b, c::{d as e}}`` -> [("a", "a"), ("b", "a::b"), ("e", "a::c::d")]."""
    tree = re.sub(r"\s+", " ", tree).strip()
    brace = tree.find("{")
    if brace < 0:
        found = re.fullmatch(r"([\w:]+?)(?: as (\w+))?", tree)
        if not found:
            return []
        full = prefix + found.group(1)
        if full.endswith("::self"):
            full = full[:-len("::self")]
        alias = found.group(2) or full.rsplit("::", 1)[-1]
        return [] if alias in ("*", "_") else [(alias, full)]
    head = prefix + tree[:brace].strip()
    found = []
    for part in split_top(tree[brace + 1:tree.rfind("}")]):
        found += flatten_use(part, head)
    return found


class PbsWalk:
    """Walks proxmox-backup's routers from ``crate::api2::ROUTER`` and indexes methods by (method, path)."""

    HTTP = {"get": "GET", "put": "PUT", "post": "POST", "delete": "DELETE"}

    def __init__(self, mirror):
        self.mirror = mirror
        self.files = {}
        self.methods = {}   # (method, path) -> (file, line, handler, note)
        self._walk_ref("crate::api2::ROUTER", None, "", set())

    # modules
    def module_file(self, module):
        """``crate::api2::access`` -> RustFile of src/api2/access.rs or src/api2/access/mod.rs (or None)."""
        if module.split("::")[0] != "crate":  # another crate (proxmox_auth_api, ...): not in this repository
            return module, None
        parts = module.split("::")[1:]
        base = "src/" + "/".join(parts)
        for path in ([base + ".rs", base + "/mod.rs"] if parts else ["src/lib.rs"]):
            if path not in self.files:
                try:
                    self.files[path] = RustFile(path, self.mirror.show(path))
                except subprocess.CalledProcessError:
                    self.files[path] = None
            if self.files[path] is not None:
                return module, self.files[path]
        return module, None

    def resolve(self, reference, module):
        """A path (``ITEM_ROUTER``, ``user::ROUTER``, ``crate::api2::x::ROUTER``) used in ``module`` ->
        (module, name) of its definition."""
        parts = reference.split("::")
        _repo, here = self.module_file(module)
        if parts[0] == "crate":
            return "::".join(parts[:-1]), parts[-1]
        if parts[0] == "self":
            return self.resolve("::".join(parts[1:]), module)
        if parts[0] == "super":
            return self.resolve("::".join(parts[1:]), module.rsplit("::", 1)[0])
        if here is not None and len(parts) == 1 and parts[0] in here.consts:
            return module, parts[0]
        if here is not None and parts[0] in here.mods:
            return "::".join([module] + parts[:-1]), parts[-1]
        if here is not None and parts[0] in here.uses:
            full = here.uses[parts[0]].split("::") + parts[1:]
            if full[0] in ("crate", "self", "super"):
                return self.resolve("::".join(full), module)
            return "::".join(full[:-1]), full[-1]
        if len(parts) > 1:  # a path into another crate
            return "::".join(parts[:-1]), parts[-1]
        return module, parts[0]

    # routers
    def _walk_ref(self, reference, module, path, seen):
        module, name = self.resolve(reference, module or "crate::api2")
        _repo, file = self.module_file(module)
        if file is None or name not in file.consts or (module, name) in seen:
            return
        self._walk_expr(file.consts[name][1], module, path, seen | {(module, name)})

    def _walk_expr(self, expr, module, path, seen):
        expr = expr.strip().lstrip("&").strip()
        if not expr.startswith("Router::new()"):
            self._walk_ref(expr, module, path, seen)
            return
        for call, args in chained_calls(expr[len("Router::new()"):]):
            if call in self.HTTP:
                self._method(self.HTTP[call], args[0], module, path or "/")
            elif call == "subdirs":
                for name, router, where in self._subdirs(args[0], module):
                    self._walk_expr(router, where, path + "/" + name, seen)
            elif call == "match_all":
                self._walk_expr(args[1], module, "%s/{%s}" % (path, args[0].strip('"')), seen)

    def _subdirs(self, expr, module):
        """[(name, router expression, module the expression is written in)] of a SubdirMap (inline or named)."""
        expr = expr.strip().lstrip("&").strip()
        if re.fullmatch(r"[\w:]+", expr):
            module, name = self.resolve(expr, module)
            _repo, file = self.module_file(module)
            if file is None or name not in file.consts:
                return []
            expr = file.consts[name][1]
        found = []
        for entry in split_top(expr[expr.find("[") + 1:expr.rfind("]")]):
            pair = split_top(entry.strip()[1:-1])
            found.append((pair[0].strip('"'), pair[1], module))
        return found

    def _method(self, http, expr, module, path):
        expr = expr.strip().lstrip("&").strip()
        macro = re.match(r"(\w+)!", expr)
        if macro:  # list_subdirs_api_method!(SUBDIRS): the directory index, at the line that writes it
            file = self.module_file(module)[1]
            at = file.text.find(expr)
            line = file.text.count("\n", 0, at) + 1 if at >= 0 else None
            self.methods.setdefault((http, path), (file.path, line, expr, "a directory index"))
            return
        if expr.startswith("ApiMethod::new("):  # written inline: Router::new().get(&ApiMethod::new(&ApiHandler::..
            file = self.module_file(module)[1]
            handler = re.search(r"ApiHandler::\w+\(\s*&(\w+)", expr)
            line = file.fn_line(handler.group(1)) if handler else None
            self.methods.setdefault((http, path), (file.path, line, handler.group(1) if handler else "?",
                                                   "an inline `ApiMethod::new`"))
            return
        target, name = self.resolve(expr, module)
        _repo, file = self.module_file(target)
        if file is None:
            self.methods.setdefault((http, path), (None, None, name, "in `%s`, outside this repository" % target))
            return
        if name in file.consts and file.consts[name][0] == "ApiMethod":
            handler = re.search(r"ApiHandler::\w+\(\s*&(\w+)", file.consts[name][1])
            if handler and file.fn_line(handler.group(1)):
                self.methods.setdefault((http, path), (file.path, file.fn_line(handler.group(1)), handler.group(1),
                                                       "hand-written `%s`" % name))
                return
        fn = name[len("API_METHOD_"):].lower() if name.startswith("API_METHOD_") else name
        line = file.fn_line(fn)
        self.methods.setdefault((http, path), (file.path, line, fn, None if line else "no `fn %s` there" % fn))


def chained_calls(text):
    """``.get(&A).match_all("x", &B)`` -> [("get", ["&A"]), ("match_all", ['"x"', "&B"])]."""
    calls, index = [], 0
    while True:
        found = re.compile(r"\s*\.(\w+)\(").match(text, index)
        if not found:
            return calls
        start = found.end()
        depth, end = 1, start
        while depth and end < len(text):
            if text[end] == '"':
                end = text.index('"', end + 1)
            elif text[end] in "([{":
                depth += 1
            elif text[end] in ")]}":
                depth -= 1
            end += 1
        calls.append((found.group(1), split_top(text[start:end - 1])))
        index = end


def pbs_rows(mirror):
    walk = PbsWalk(mirror) if mirror else None
    rows = []
    for method, path in sorted(coverage_mod.served_routes("pbs"), key=lambda key: (key[1], key[0])):
        found = walk.methods.get((method, path)) if walk else None
        if found and found[1]:
            file, line, handler, note = found
            text = "`%s`" % handler + (" (%s)" % note if note else "")
            rows.append(Row(method, path, "%s:%s:%d" % (PBS_REPO, file, line), text))
        elif (method, path) in NEWER_PBS:
            where, file, handler, line, note = NEWER_PBS[(method, path)]
            rows.append(Row(method, path, "%s:%s:%d" % (where, file, line), "`%s` (%s)" % (handler, note)))
        else:
            why = "no such route in the 3.2.4 mirror's routers"
            if found:
                why = "routed to `%s` in %s, %s" % (found[2], found[0], found[3])
            rows.append(Row(method, path, "not found in %s" % PBS_REPO, why))
    return rows


# -- the doc ---------------------------------------------------------------------------------------------------

def table(rows):
    lines = ["| method | path | source | handler |", "| --- | --- | --- | --- |"]
    for row in rows:
        lines.append("| %s | `%s` | %s | %s |" % (row.method, row.path, row.source, row.handler))
    return lines


def commits(mirrors):
    lines = ["| mirror | HEAD commit | date |", "| --- | --- | --- |"]
    for name in sorted(mirrors):
        commit, date = mirrors[name].head()
        lines.append("| %s | `%s` | %s |" % (name, commit, date))
    return lines


def coverage_lines(product):
    figure = coverage_mod.product_coverage(product)
    lines = [coverage_mod.coverage_sentence(figure), "",
             "<details><summary>Schema methods under the simulated paths not served yet (%d)</summary>"
             % len(figure.unserved), ""]
    lines += ["* `%s %s`" % key for key in figure.unserved]
    return lines + ["", "</details>"]


def section(pve_mirrors, pbs_mirrors, pve, pbs):
    lines = [BEGIN,
             "<!-- Written by scripts/source_map.py: edit the script, not these lines. -->", "",
             "### PVE", "", "Mirrors read (`git -C DIR log -1`):", ""]
    lines += commits(pve_mirrors) + [""] + coverage_lines("pve") + [""] + table(pve)
    lines += ["", "### PBS", "", "Mirror read (`git -C DIR log -1`):", ""]
    lines += commits(pbs_mirrors) + [""] + coverage_lines("pbs") + [""] + table(pbs)
    return "\n".join(lines + [END])


def write_section(doc, text):
    with open(doc, encoding="utf-8") as handle:
        content = handle.read()
    start, end = content.find(BEGIN), content.find(END)
    if start < 0 or end < start:
        raise SystemExit("%s has no %s ... %s markers" % (doc, BEGIN, END))
    with open(doc, "w", encoding="utf-8") as handle:
        handle.write(content[:start] + text + content[end + len(END):])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--mirrors", default=os.path.join(os.path.dirname(REPO), ".mirror"),
                        help="directory of the proxmox+<repo>/repo git mirrors (default: %(default)s)")
    parser.add_argument("--doc", default=DOC)
    parser.add_argument("--check", action="store_true", help="print the section instead of writing it")
    args = parser.parse_args(argv)
    pve_mirrors = open_mirrors(args.mirrors, PVE_REPOS)
    pbs_mirrors = open_mirrors(args.mirrors, (PBS_REPO,))
    if "pve-manager" not in pve_mirrors:
        raise SystemExit("no pve-manager mirror under %s" % args.mirrors)
    pve, pbs = pve_rows(pve_mirrors), pbs_rows(pbs_mirrors.get(PBS_REPO))
    text = section(pve_mirrors, pbs_mirrors, pve, pbs)
    if args.check:
        print(text)
    else:
        write_section(args.doc, text)
    missing = [row for row in pve + pbs if row.source.startswith("not found")]
    print("%d PVE rows, %d PBS rows, %d not found" % (len(pve), len(pbs), len(missing)), file=sys.stderr)


if __name__ == "__main__":
    main()
