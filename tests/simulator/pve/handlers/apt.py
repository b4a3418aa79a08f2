"""APT repositories of a node: /nodes/{node}/apt/repositories (pve-manager ``PVE/API2/APT.pm`` repositories,
add_repository, change_repository).

APT.pm hands all three to proxmox-perl-rs ``common/src/bindings/apt_repositories.rs``
(``Proxmox::RS::APT::Repositories``), which calls the ``proxmox-apt`` crate. PVE 9.1 builds it against
proxmox-apt 0.99.x (pve-rs ``Cargo.toml``: ``proxmox-apt = "0.99.4"``, ``proxmox-apt-api-types = "2"``; the
binding passes the product as ``&str``, which the 1.0 crate no longer takes), so this follows proxmox-rs
1ed1c424 (proxmox-apt 0.99.7, apt-api-types 2.0.5): ``src/api.rs``, ``src/repositories/{mod,file,repository,
standard,release}.rs``, ``file/{list,sources}_parser.rs``.

``state.apt_files``: node -> {path -> file text}, the files under /etc/apt as the node has them. A node not in
it has the files of a fresh PVE 9 install (``FRESH_INSTALL``, seeded on first use). Tests arrange other files
by assigning ``sim.state.apt_files["node1"] = {path: text}``.

* Reads parse every file the crate reads (``/etc/apt/sources.list``, then ``/etc/apt/sources.list.d/*`` by
  name; the crate takes the directory's order, which the simulator sorts): one-line ``.list`` and deb822
  ``.sources`` files with the crate's parsers, so a file they refuse lands in ``errors`` with their words and
  counts in no digest. ``digest`` is SHA-256 over the files' SHA-256s in path order.
* A write re-renders the one file it touches from what the parser made of it, as ``APTRepositoryFile::write``
  does: comments stay with the repository after them, a comment after the last one and blank lines go, a
  deb822 ``Enabled: no`` becomes ``Enabled: false``. The other files keep their text.
* ``add_repository`` first looks for the handle among the configured repositories, but proxmox-apt 0.99.x asks
  ``is_referenced_repository`` about product ``"pbs"`` there (fixed only in proxmox-apt 1.0, proxmox-rs
  8f199882): for PVE's own enterprise, no-subscription and test handles nothing matches, so the repository is
  appended to its standard file again even when it is already there (enabled or not); the Ceph handles,
  whose URIs do not name the product, are found, enabled, or left alone.
* Arguments perlmod cannot deserialize die before the crate runs, with perlmod's ``error: `` and serde's text
  (an unknown ``handle``, a ``digest`` that is no 64-digit hex, a negative ``index``); the crate's own errors
  are croaked as ``"{err:#}\\n"`` (perlmod-macro ``function.rs``): plain 500s without Perl's location.
* Not simulated: the ``origin`` read from cached InRelease files under /var/lib/apt/lists (the crate falls back
  to the URI's host, which is what the simulator answers), /etc/os-release other than ``trixie``.
"""

import hashlib
import re

from ...errors import die
from ..state import register_slice
from .base import route
from .notifications import _one_of, _rust_debug  # serde's wording, shared with the other perlmod binding

register_slice("apt_files", dict, node_local=True)  # node -> {path -> text}: /etc/apt/sources.list and sources.list.d

SOURCES_LIST = "/etc/apt/sources.list"
SOURCES_DIR = "/etc/apt/sources.list.d/"
PRODUCT = "pve"  # APT.pm: Proxmox::RS::APT::Repositories::repositories("pve")
SUITE = "trixie"  # release.rs get_current_release_codename: VERSION_CODENAME of /etc/os-release on PVE 9
# release.rs DebianCodename, in release order (`sid` is none)
CODENAMES = ("lenny", "squeeze", "wheezy", "jessie", "stretch", "buster", "bullseye", "bookworm", "trixie",
             "forky", "duke")
PROXMOX_KEYRING = "/usr/share/keyrings/proxmox-archive-keyring.gpg"
DEBIAN_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"

# A fresh PVE 9 node: pve-manager ``configs/pve-sources.sources`` (installed as pve-enterprise.sources by
# configs/Makefile); debian.sources and ceph.sources as pve-docs e5010dc ``pve-package-repos.adoc`` shows them
# (the ISO writes those two; its build is not among the sources), Ceph Squid's enterprise repository.
FRESH_INSTALL = {
    SOURCES_DIR + "debian.sources": (
        "Types: deb deb-src\n"
        "URIs: http://deb.debian.org/debian/\n"
        "Suites: trixie trixie-updates\n"
        "Components: main non-free-firmware\n"
        f"Signed-By: {DEBIAN_KEYRING}\n"
        "\n"
        "Types: deb deb-src\n"
        "URIs: http://security.debian.org/debian-security/\n"
        "Suites: trixie-security\n"
        "Components: main non-free-firmware\n"
        f"Signed-By: {DEBIAN_KEYRING}\n"),
    SOURCES_DIR + "pve-enterprise.sources": (
        "Types: deb\n"
        "URIs: https://enterprise.proxmox.com/debian/pve\n"
        "Suites: trixie\n"
        "Components: pve-enterprise\n"
        f"Signed-By: {PROXMOX_KEYRING}\n"),
    SOURCES_DIR + "ceph.sources": (
        "Types: deb\n"
        "URIs: https://enterprise.proxmox.com/debian/ceph-squid\n"
        "Suites: trixie\n"
        "Components: enterprise\n"
        f"Signed-By: {PROXMOX_KEYRING}\n"),
}

# apt-api-types APTRepositoryHandle, in the enum's order (serde lists the variants in it)
HANDLES = ("enterprise", "no-subscription", "test", "ceph-squid-enterprise", "ceph-squid-no-subscription",
           "ceph-squid-test")
# standard.rs name() and description()
HANDLE_NAMES = {
    "enterprise": "Enterprise",
    "no-subscription": "No-Subscription",
    "test": "Test",
    "ceph-squid-enterprise": "Ceph Squid Enterprise",
    "ceph-squid-no-subscription": "Ceph Squid No-Subscription",
    "ceph-squid-test": "Ceph Squid Test",
}
HANDLE_DESCRIPTIONS = {
    "enterprise": "This is the default, stable, and recommended repository, available for all Proxmox "
                  "subscription users.",
    "no-subscription": "This is the recommended repository for testing and non-production use. Its packages "
                       "are not as heavily tested and validated as the production ready enterprise repository. "
                       "You don't need a subscription key to access this repository.",
    "test": "This repository contains the latest packages and is primarily used for test labs and by developers "
            "to test new features.",
    "ceph-squid-enterprise": "This repository holds the production-ready Proxmox Ceph Squid packages.",
    "ceph-squid-no-subscription": "This repository holds the Proxmox Ceph Squid packages intended for "
                                  "non-production use.",
    "ceph-squid-test": "This repository contains the Ceph Squid packages before they are moved to the main "
                       "repository.",
}

# Rust's char::is_ascii_whitespace (no \v, unlike Python's str.strip)
ASCII_WS = " \t\n\x0c\r"
_ASCII_WS_RE = re.compile("[ \t\n\x0c\r]")
SHA256_HEX_RE = re.compile(r"^[0-9a-fA-F]{64}$")


class AptError(Exception):
    """An ``anyhow`` error inside proxmox-apt (its Display text)."""


def _trim(text):
    return text.strip(ASCII_WS)


def _split_ascii_whitespace(text):
    return [word for word in _ASCII_WS_RE.split(text) if word]


def _rust_lines(text):
    """``str::lines``: split at \\n, no empty last line, a trailing \\r dropped."""
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [part[:-1] if part.endswith("\r") else part for part in parts]


def _read_lines(text):
    """``BufRead::read_line`` one by one: each line with its \\n (the last one may have none)."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


def _package_type(text):
    """APTRepositoryPackageType from_str (serde_plain over the kebab-case enum)."""
    if text in ("deb", "deb-src"):
        return text
    raise AptError(f"unknown variant `{text}`, expected `deb` or `deb-src`")


def _new_repo(file_type):
    """repository.rs APTRepositoryImpl::new."""
    return {"types": [], "uris": [], "suites": [], "components": [], "options": [], "comment": "",
            "file_type": file_type, "enabled": True}


def set_enabled(repo, enabled):
    """repository.rs set_enabled: a deb822 repository also gets (or updates) its ``Enabled`` option."""
    repo["enabled"] = enabled
    if repo["file_type"] != "sources":
        return
    value = "true" if enabled else "false"
    for option in repo["options"]:
        if option["Key"] == "Enabled":
            option["Values"] = [value]
            return
    repo["options"].append({"Key": "Enabled", "Values": [value]})


def basic_check(repo):
    """repository.rs basic_check: the error text, or None."""
    if not repo["types"]:
        return "missing package type(s)"
    if not repo["uris"]:
        return "missing URI(s)"
    if not repo["suites"]:
        return "missing suite(s)"
    for uri in repo["uris"]:
        if ":" not in uri or len(uri) < 3:
            return f"invalid URI: '{uri}'"
    for suite in repo["suites"]:
        if not suite.endswith("/") and not repo["components"]:
            return "missing component(s)"
        if suite.endswith("/") and repo["components"]:
            return f"absolute suite '{suite}' does not allow component(s)"
    if repo["file_type"] == "list":
        for key, what in (("types", "package type"), ("uris", "URI"), ("suites", "suite")):
            if len(repo[key]) > 1:
                return f"more than one {what}"
    return None


# -- the one-line parser (file/list_parser.rs) -----------------------------------------------------

class _QuoteWords:
    """list_parser.rs SplitQuoteWord: words split at whitespace, not inside ``[]`` or ``""``; quotes dropped."""

    def __init__(self, text):
        self.rest = text
        self.position = 0

    def next(self):
        rest = self.rest[self.position:]
        start = None
        wait_for = None
        for index, char in enumerate(rest):
            self.position += 1
            if wait_for is not None:
                if char == wait_for:
                    wait_for = None
                continue
            if char in ASCII_WS:
                if start is not None:
                    return rest[start:index].replace('"', "")
                continue
            if start is None:
                start = index
            if char == '"':
                wait_for = '"'
            if char == "[":
                wait_for = "]"
        if wait_for is not None:
            raise AptError(f"missing terminating '{wait_for}'")
        if start is not None:
            return rest[start:].replace('"', "")
        return None


class _ListParser:
    """list_parser.rs APTListFileParser."""

    def __init__(self, text):
        self.text = text
        self.comment = ""

    def parse(self):
        repos = []
        for line_nr, line in enumerate(_read_lines(self.text), 1):
            try:
                repo = self._one_line(line)
            except AptError as err:
                raise AptError(f"malformed entry on line {line_nr} - {err}") from err
            if repo is not None:
                repos.append(repo)
        return repos

    @staticmethod
    def _options(options, tokens):
        finished = False
        while True:
            option = tokens.next()
            if option is None:
                raise AptError("options not closed by ']'")
            if option.endswith("]"):
                option = option[:-1]
                if not option:
                    break
                finished = True  # but still need to handle the last one
            mid = option.find("=")
            if mid >= 0:
                key, value = option[:mid], option[mid + 1:]
                if not key:
                    raise AptError(f"option has no key: '{option}'")
                if not value:
                    raise AptError(f"option has no value: '{option}'")
                options.append({"Key": key, "Values": value.split(",")})
            elif option:
                raise AptError(f"got invalid option - '{option}'")
            if finished:
                break

    def _one_line(self, line):
        line = _trim(line)
        if line.startswith("#"):  # a commented out repository first
            try:
                repo = self._one_line(line[1:])
            except AptError:
                repo = None
            if repo is not None:
                set_enabled(repo, False)
                return repo
        repo = _new_repo("list")
        comment_start = line.find("#")
        if comment_start >= 0:
            self.comment += line[comment_start + 1:] + "\n"
            line = line[:comment_start]
        space = _ASCII_WS_RE.search(line)
        if space is None:
            return None  # an empty line
        repo["types"].append(_package_type(line[:space.start()]))
        line = line[space.start() + 1:].lstrip(ASCII_WS)
        has_options = line.startswith("[")
        if has_options:
            line = line[1:]
        tokens = _QuoteWords(line)
        if has_options:
            self._options(repo["options"], tokens)
        for key, missing in (("uris", "missing URI"), ("suites", "missing suite")):
            token = tokens.next()
            if token is None:
                raise AptError(missing)
            repo[key].append(token)
        while (token := tokens.next()) is not None:
            repo["components"].append(token)
        repo["comment"], self.comment = self.comment, ""
        return repo


# -- the deb822 parser (file/sources_parser.rs) -----------------------------------------------------

def _string_to_bool(text, default):
    """sources_parser.rs string_to_bool (APT's StringToBool)."""
    text = _trim(text).lower()
    if text in ("1", "yes", "true", "with", "on", "enable"):
        return True
    if text in ("0", "no", "false", "without", "off", "disable"):
        return False
    return default


def _valid_key(key):
    return not key.startswith("-") and all("!" <= char <= "9" or ";" <= char <= "~" for char in key)


class _SourcesParser:
    """sources_parser.rs APTSourcesFileParser: stanzas end at a blank line."""

    def __init__(self, text):
        self.text = text
        self.stanza_nr = 1
        self.comment = ""

    def parse(self):
        repos = []
        lines = ""
        for line in _read_lines(self.text):
            lines += line
            if not _trim(line):  # detected end of stanza
                self._try_stanza(lines, repos)
                lines = ""
        self._try_stanza(lines, repos)
        return repos

    def _try_stanza(self, lines, repos):
        try:
            repo = self._stanza(lines)
        except AptError as err:
            raise AptError(f"malformed entry in stanza {self.stanza_nr} - {err}") from err
        if repo is not None:
            repos.append(repo)
            self.stanza_nr += 1

    def _stanza(self, lines):
        repo = _new_repo("sources")
        lines = lines.replace("\n ", " ").replace("\n\t", " ")  # folded values
        got_something = False
        for line in _rust_lines(lines):
            line = _trim(line)
            if not line:
                continue
            if line.startswith("#"):
                self.comment += line[1:] + "\n"
                continue
            mid = line.find(":")
            if mid < 0:
                raise AptError(f"got invalid line - '{_rust_debug(line)}'")
            key, value_text = _trim(line[:mid]), line[mid + 1:]
            if not key:
                raise AptError(f"option has no key: '{line}'")
            if not value_text or not _valid_key(key):
                continue  # ignored by APT
            values = _split_ascii_whitespace(value_text)
            lowered = key.lower()
            if lowered == "types":
                repo["types"] = [_package_type(value) for value in values]
            elif lowered in ("uris", "suites", "components"):
                repo[lowered] = values
            elif lowered == "enabled":
                set_enabled(repo, _string_to_bool(value_text, True))
            else:
                repo["options"].append({"Key": key, "Values": values})
            got_something = True
        if not got_something:
            return None  # fully commented out stanzas are comments of the next one
        repo["comment"], self.comment = self.comment, ""
        return repo


# -- the writers (repository.rs write_one_line, write_stanza) ----------------------------------------

def _quote_for_one_line(text):
    text = text.replace('"', "")
    wait_for_bracket = False
    for char in text:
        if wait_for_bracket:
            if char == "]":
                wait_for_bracket = False
            continue
        if char in ASCII_WS:
            return f'"{text}"'
        if char == "[":
            wait_for_bracket = True
    return text


def _write_repo(repo):
    out = [f"#{line}\n" for line in _rust_lines(repo["comment"])]
    if repo["file_type"] == "list":
        line = "" if repo["enabled"] else "# "
        line += repo["types"][0] + " "
        if repo["options"]:
            line += "[ " + "".join(_quote_for_one_line(f"{option['Key']}={','.join(option['Values'])}") + " "
                                   for option in repo["options"]) + "] "
        line += _quote_for_one_line(repo["uris"][0]) + " " + _quote_for_one_line(repo["suites"][0]) + " "
        line += " ".join(_quote_for_one_line(component) for component in repo["components"])
        out.append(line + "\n")
        return "".join(out)
    out.append("Types:" + "".join(f" {package_type}" for package_type in repo["types"]) + "\n")
    out.append(f"URIs: {' '.join(repo['uris'])}\n")
    out.append(f"Suites: {' '.join(repo['suites'])}\n")
    if repo["components"]:
        out.append(f"Components: {' '.join(repo['components'])}\n")
    for option in repo["options"]:
        out.append(f"{option['Key']}: {' '.join(option['Values'])}\n")
    return "".join(out)


def render(repos):
    """file.rs write: the repositories, one blank line between them."""
    return "\n".join(_write_repo(repo) for repo in repos)


# -- the files (file.rs, repositories/mod.rs) --------------------------------------------------------

def node_files(state, node):
    """The node's /etc/apt files: path -> text (a fresh install's until a test or a write says otherwise)."""
    files = state.apt_files.get(node)
    if files is None:
        files = state.apt_files[node] = dict(FRESH_INSTALL)
    return files


def _file_type(path):
    """file.rs APTRepositoryFile::new: the file type, None for a file APT ignores; AptError for a bad name."""
    name = path.rsplit("/", 1)[-1]
    if name.startswith(".") or name.endswith("~"):
        return None
    if "." not in name:
        raise AptError("invalid extension")
    extension = name.rsplit(".", 1)[1]
    # See APT's apt-pkg/init.cc
    if extension.startswith(("dpkg-", "ucf-")) or extension in ("disabled", "bak", "save", "orig", "distUpgrade"):
        return None
    if extension not in ("list", "sources"):
        raise AptError("invalid extension")
    if not all(char.isascii() and (char.isalnum() or char in "_-.") for char in name):
        raise AptError("invalid characters in file name")
    return extension


def _parse(path, text, file_type):
    """file.rs parse: the file's entry for ``files`` (repositories kept for writes), or raises AptError."""
    parser = _ListParser(text) if file_type == "list" else _SourcesParser(text)
    repos = parser.parse()
    for number, repo in enumerate(repos, 1):
        problem = basic_check(repo)
        if problem:
            raise AptError(f"check for repository {number} - {problem}")
    return {"path": path, "file-type": file_type, "repositories": repos,
            "digest": hashlib.sha256(text.encode()).digest()}


def repositories(state, node):
    """repositories/mod.rs repositories(): (files, errors, common digest as bytes)."""
    texts = node_files(state, node)
    paths = [SOURCES_LIST] if SOURCES_LIST in texts else []
    paths += sorted(path for path in texts
                    if path.startswith(SOURCES_DIR) and "/" not in path[len(SOURCES_DIR):])
    files, errors = [], []
    for path in paths:
        try:
            file_type = _file_type(path)
            if file_type is not None:
                files.append(_parse(path, texts[path], file_type))
        except AptError as err:
            errors.append({"path": path, "error": str(err)})
    common = b"".join(entry["digest"] for entry in sorted(files, key=lambda entry: entry["path"]))
    return files, errors, hashlib.sha256(common).digest()


def _write(state, node, entry):
    """file.rs write: the file re-rendered from its repositories; none left removes it."""
    texts = node_files(state, node)
    if entry["repositories"]:
        texts[entry["path"]] = render(entry["repositories"])
    else:
        texts.pop(entry["path"], None)


# -- infos and standard repositories ------------------------------------------------------------------

def _suite_variant(suite):
    for index, char in enumerate(suite):
        if char in "-/":
            return suite[:index], suite[index:]
    return suite, ""


def _check_suites(entry):
    """file.rs check_suites: old, unstable and `stable` suites, the security repository's suffix."""
    infos = []
    current = CODENAMES.index(SUITE)
    for index, repo in enumerate(entry["repositories"]):
        if "deb" not in repo["types"]:
            continue
        security = False
        for uri in repo["uris"]:
            uri = uri.rstrip("/")
            uri = uri[:-len("debian-security")] if uri.endswith("debian-security") else uri
            security = security or uri.rstrip("/") in ("http://security.debian.org", "https://security.debian.org")
        # bullseye and later call it <codename>-security
        require_suffix = ("-security" if current >= CODENAMES.index("bullseye") else "/updates") if security else None

        def add(kind, message, index=index):
            infos.append({"path": entry["path"], "index": index, "property": "Suites", "kind": kind,
                          "message": message})

        for suite in repo["suites"]:
            base, suffix = _suite_variant(suite)
            if base in ("oldoldstable", "oldstable"):
                add("warning", f"old suite '{base}' configured!")
            elif base in ("testing", "unstable", "experimental", "sid"):
                add("warning", f"suite '{base}' should not be used in production!")
            elif base == "stable":
                add("warning", "use the name of the stable distribution instead of 'stable'!")
            if base not in CODENAMES:
                continue
            codename = CODENAMES.index(base)
            if codename < current:
                add("warning", f"old suite '{base}' configured!")
            if codename == current + 1:
                add("ignore-pre-upgrade-warning", f"suite '{base}' should not be used in production!")
            elif codename > current:
                add("warning", f"suite '{base}' should not be used in production!")
            if require_suffix is not None and suffix != require_suffix:
                add("warning", f"expected suite '{SUITE}{require_suffix}'")
    return infos


def _host_from_uri(uri):
    """repository.rs host_from_uri."""
    if not uri.startswith("http"):
        return None
    rest = uri[4:]
    rest = rest[1:] if rest.startswith("s") else rest
    if not rest.startswith("://"):
        return None
    host = rest[3:].split("/", 1)[0]
    host = host.split("@", 1)[1] if "@" in host else host
    return host.split(":", 1)[0]


def _origin(repo):
    """repository.rs origin_from_uris (the fallback when no InRelease file is cached)."""
    for uri in repo["uris"]:
        host = _host_from_uri(uri)
        if host is None:
            continue
        if host == "proxmox.com" or host.endswith(".proxmox.com"):
            return "Proxmox"
        if host == "debian.org" or host.endswith(".debian.org"):
            return "Debian"
    return None


def _check_uris(entry):
    """file.rs check_uris: an ``origin`` info for each repository of a known origin."""
    return [{"path": entry["path"], "index": index, "kind": "origin", "message": origin}
            for index, repo in enumerate(entry["repositories"]) if (origin := _origin(repo)) is not None]


def _handle_info(handle, product):
    """standard.rs info: (package type, the URIs it matches, the first one preferred, component)."""
    if handle in ("enterprise", "no-subscription", "test"):
        host = "https://enterprise.proxmox.com" if handle == "enterprise" else "http://download.proxmox.com"
        uris = [f"{host}/debian/pve", f"{host}/debian"] if product == "pve" else [f"{host}/debian/{product}"]
        return "deb", uris, f"{product}-{handle}"
    kind = handle[len("ceph-squid-"):]
    host = "https://enterprise.proxmox.com" if kind == "enterprise" else "http://download.proxmox.com"
    return "deb", [f"{host}/debian/ceph-squid"], kind


def is_referenced(repo, handle, product, suite):
    """repository.rs is_referenced_repository."""
    package_type, uris, component = _handle_info(handle, product)
    return (package_type in repo["types"] and any(uri.rstrip("/") in uris for uri in repo["uris"])
            and suite in repo["suites"] and component in repo["components"])


def _standard_path(handle):
    """standard.rs path for trixie and later: deb822 files."""
    if handle == "enterprise":
        return f"{SOURCES_DIR}{PRODUCT}-enterprise.sources"
    if handle in ("no-subscription", "test"):
        return SOURCES_DIR + "proxmox.sources"
    return SOURCES_DIR + "ceph.sources"


def _standard_repository(handle):
    """standard.rs to_repository: the preferred URI, the suite, the component, Signed-By."""
    package_type, uris, component = _handle_info(handle, PRODUCT)
    return {"types": [package_type], "uris": [uris[0]], "suites": [SUITE], "components": [component],
            "options": [{"Key": "Signed-By", "Values": [PROXMOX_KEYRING]}], "comment": "",
            "file_type": "sources", "enabled": True}


def _standard_repos(files):
    """repositories/mod.rs standard_repositories: the Ceph Squid ones for PVE on trixie; a status once
    configured, the first enabled match wins."""
    result = [{"handle": handle, "status": None} for handle in HANDLES]
    for entry in files:
        for repo in entry["repositories"]:
            for row in result:
                if row["status"] is not True and is_referenced(repo, row["handle"], PRODUCT, SUITE):
                    row["status"] = repo["enabled"]
    out = []
    for row in result:
        item = {"handle": row["handle"]}
        if row["status"] is not None:
            item["status"] = 1 if row["status"] else 0
        item["name"] = HANDLE_NAMES[row["handle"]]
        item["description"] = HANDLE_DESCRIPTIONS[row["handle"]]
        out.append(item)
    return out


# -- serialization (apt-api-types 2.0.5 through perlmod: bools as 1/0) -------------------------------

def _repo_json(repo):
    out = {}
    for key, name in (("types", "Types"), ("uris", "URIs"), ("suites", "Suites"), ("components", "Components")):
        if repo[key]:
            out[name] = list(repo[key])
    if repo["options"]:
        out["Options"] = [{"Key": option["Key"], "Values": list(option["Values"])} for option in repo["options"]]
    if repo["comment"]:
        out["Comment"] = repo["comment"]
    out["FileType"] = repo["file_type"]
    out["Enabled"] = 1 if repo["enabled"] else 0
    return out


def _file_json(entry):
    return {"path": entry["path"], "file-type": entry["file-type"],
            "repositories": [_repo_json(repo) for repo in entry["repositories"]], "digest": list(entry["digest"])}


# -- perlmod's argument deserialization --------------------------------------------------------------

def _undeserializable(message):
    """perlmod croaks ``error: <serde's message>`` before the Rust function runs (perlmod ``Error`` Display)."""
    return die(f"error: {message}")


def _handle_arg(value):
    if value not in HANDLES:
        raise _undeserializable(f"unknown variant `{value}`, expected {_one_of(HANDLES)}")
    return value


def _digest_arg(value):
    """proxmox-config-digest ConfigDigest: serde_plain's FromStr visitor (hex::decode_to_slice, 32 bytes)."""
    if value is None:
        return None
    if not SHA256_HEX_RE.match(value):
        raise _undeserializable(f"invalid value: string {_rust_debug(value)}, expected valid configuration digest")
    return bytes.fromhex(value)


def _detect_modification(current, digest):
    """ConfigDigest::detect_modification."""
    if digest is not None and digest != current:
        raise die("detected modified configuration - file changed by other user? Try again.")


# -- the API ------------------------------------------------------------------------------------------

@route("GET", "/nodes/{node}/apt/repositories")
def repositories_get(ctx, p):
    """APT.pm repositories -> proxmox-apt api.rs list_repositories("pve")."""
    files, errors, digest = repositories(ctx.state, p["node"])
    infos = []
    for entry in files:
        infos += _check_suites(entry) + _check_uris(entry)
    return {"errors": errors, "standard-repos": _standard_repos(files), "infos": infos,
            "files": [_file_json(entry) for entry in files], "digest": digest.hex()}


@route("PUT", "/nodes/{node}/apt/repositories")
def repositories_add(ctx, p):
    """APT.pm add_repository -> proxmox-apt api.rs add_repository_handle("pve", handle, digest)."""
    handle = _handle_arg(p["handle"])
    digest = _digest_arg(p.get("digest"))
    node = p["node"]
    files, errors, current = repositories(ctx.state, node)
    _detect_modification(current, digest)
    for entry in files:
        for repo in entry["repositories"]:
            # proxmox-apt 0.99.x probes with product "pbs" here, whatever the caller's product
            if is_referenced(repo, handle, "pbs", SUITE):
                if not repo["enabled"]:
                    set_enabled(repo, True)
                    _write(ctx.state, node, entry)
                return None
    path = _standard_path(handle)
    for error in errors:
        if error["path"] == path:
            raise die(f"unable to parse existing file {error['path']} - {error['error']}")
    entry = next((entry for entry in files if entry["path"] == path), None)
    if entry is None:  # APTRepositoryFile::new of a standard path, a .sources file
        entry = {"path": path, "file-type": "sources", "repositories": []}
    entry["repositories"].append(_standard_repository(handle))
    _write(ctx.state, node, entry)
    return None


@route("POST", "/nodes/{node}/apt/repositories")
def repositories_change(ctx, p):
    """APT.pm change_repository -> proxmox-apt api.rs change_repository(path, index, {enabled}, digest)."""
    index = p["index"]
    if index < 0:  # usize
        raise _undeserializable(f"invalid value: integer `{index}`, expected usize")
    digest = _digest_arg(p.get("digest"))
    node, path = p["node"], p["path"]
    files, errors, current = repositories(ctx.state, node)
    _detect_modification(current, digest)
    for error in errors:
        if error["path"] == path:
            raise die(f"unable to parse file {error['path']} - {error['error']}")
    entry = next((entry for entry in files if entry["path"] == path), None)
    if entry is None:
        raise die(f"invalid path - {path}")
    if index >= len(entry["repositories"]):
        raise die(f"invalid index - {index}")
    if "enabled" in p:
        set_enabled(entry["repositories"][index], bool(p["enabled"]))
    _write(ctx.state, node, entry)  # written even without a change: the file comes back re-rendered
    return None
