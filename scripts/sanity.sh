#!/usr/bin/env bash
# Run `ansible-test sanity` on the collection, with no ignore entries, on a
# machine that reaches PyPI but not ansible-test's own download host.
#
# Usage: scripts/sanity.sh [extra ansible-test sanity args, e.g. --test pylint]
#
# Two things ansible-test needs that a plain checkout does not give it:
#
# 1. A path ending in ansible_collections/<namespace>/<name>. We build
#    $tmp/ansible_collections/homeflare/proxmox as a *copy* of the files git
#    would commit (tracked + untracked-but-not-ignored). A symlink to the repo
#    does not work: ansible-test resolves the working directory to the real
#    path and then refuses to run ("must be run from ... ansible_collections").
#
# 2. pip inside each sanity virtualenv. ansible-test bootstraps it with
#    ~/.ansible/test/cache/get_pip_<X_Y>.py and, when that file is missing,
#    downloads it from ci-files.testing.ansible.com, which is unreachable here.
#    We put pip's own wheel (from PyPI) there plus scripts/get_pip_shim.py under
#    the expected name. The pinned test requirements (pylint, voluptuous, ...)
#    then come from PyPI as usual. The sanity venvs are cached by ansible-test
#    in ~/.ansible/test/venv, so only the first run pays for them.
#
# Env: VENV (default <repo>/.venv, must already exist: scripts/venv.sh)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${VENV:-$repo/.venv}
py=$venv/bin/python
namespace=homeflare
name=proxmox

# --- 0. the project's rule: no ignore entries ---------------------------------
# Problems are fixed, never ignored: an ignore file may exist only empty.
for f in "$repo"/tests/sanity/ignore-*.txt; do
    [[ -e $f ]] || continue
    if grep -nvE '^[[:space:]]*(#|$)' "$f"; then
        echo "sanity: $f has ignore entries (above); fix the code instead" >&2
        exit 1
    fi
done

# --- 2. offline get-pip -------------------------------------------------------
# The pip version ansible-test bootstraps (24.2 for ansible-core 2.19), read from
# ansible-test itself so an ansible-core upgrade cannot silently break this.
pip_version=$("$py" - <<'EOF'
import types
from ansible_test._internal.python_requirements import get_venv_packages
print(get_venv_packages(types.SimpleNamespace(version='3.11'))['pip'])
EOF
)
cache=$HOME/.ansible/test/cache
shim=$cache/get_pip_${pip_version//./_}.py
mkdir -p "$cache"
if ! compgen -G "$cache/pip-$pip_version-*.whl" >/dev/null; then
    "$py" -m pip download --quiet --no-deps --only-binary=:all: -d "$cache" "pip==$pip_version"
fi
cp "$repo/scripts/get_pip_shim.py" "$shim"

# --- 1. collection tree -------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/homeflare-sanity.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/ansible_collections/$namespace/$name
mkdir -p "$root"
(
    cd "$repo"
    # The same file list git would commit; files deleted in the work tree are skipped.
    git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do [[ -e $f || -L $f ]] && printf '%s\0' "$f"; done |
        tar --null -T - -cf - | tar -xf - -C "$root"
)
# ansible-test lists a collection's files with git when it is a git repository;
# give the copy one so it sees exactly these files (and nothing under tests/output).
git -C "$root" init --quiet
git -C "$root" add --all

# --- run ----------------------------------------------------------------------
export PATH=$venv/bin:$PATH
cd "$root"
# --python 3.11: the controller Python, the only one this venv has ansible-core for.
# --color no: CI logs.  No --requirements: the sanity venvs install their own.
set +e
ansible-test sanity --python 3.11 --color no "$@"
rc=$?
set -e
# Keep the reports (tests/output/bot, junit) next to the repo for a look afterwards.
if [[ -d $root/tests/output ]]; then
    mkdir -p "$repo/tests/output"
    cp -r "$root/tests/output/." "$repo/tests/output/"
fi
exit $rc
