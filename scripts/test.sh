#!/usr/bin/env bash
# The project's test command (`make test`, and CI through .ci/run).
#
# Steps, in order, stopping at the first failure; a summary with each step's
# wall time is printed however the run ends:
#   venv     create/refresh .venv from requirements-dev.txt (skipped when unchanged)
#   pytest   tests/integration + tests/unit, 2 workers (work stealing)
#   compat   the `compat`-marked integration tests on ansible-core 2.17 and 2.21 (scripts/compat.sh)
#   sanity   ansible-test sanity, every test, no ignore entries (scripts/sanity.sh)
#   docs     antsibull-docs lint-collection-docs --plugin-docs: schema, markup, references (scripts/docs_lint.sh),
#            then the site `make docs` builds (scripts/docs.sh: any Sphinx warning, such as a broken guide, fails)
#   lint     ansible-lint --profile production on roles/ and examples/
#   build    ansible-galaxy collection build into a temporary directory
#
# Usage: scripts/test.sh [step ...]   (default: all steps; e.g. `scripts/test.sh sanity`)
# shellcheck disable=SC2329  # summary and the step_* functions are called by name
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo" || exit 2
export VENV=${VENV:-$repo/.venv}
venv=$VENV

all_steps=(venv pytest compat sanity docs lint build)
if (($#)); then steps=("venv" "$@"); else steps=("${all_steps[@]}"); fi

declare -A status=() took=()
pytest_line=""
failed=""
run_start=$SECONDS

summary() {
    echo
    echo "==================== test summary ===================="
    local s
    for s in "${steps[@]}"; do
        printf '  %-7s %-8s %s\n' "$s" "${status[$s]:-NOT RUN}" "${took[$s]:+${took[$s]}s}"
    done
    printf '  total   %ss\n' "$((SECONDS - run_start))"
    if [[ -n $failed ]]; then echo "  FAILED at step: $failed"; fi
    # pytest's own closing line last, so whoever reads the end sees the test count.
    if [[ -n $pytest_line ]]; then echo "$pytest_line"; fi
}
trap summary EXIT

# run_step NAME FUNCTION: time FUNCTION; it returns 0 (PASS), 3 (SKIP) or fails.
run_step() {
    local name=$1 fn=$2 start=$SECONDS rc
    echo
    echo "==================== $name ===================="
    "$fn"
    rc=$?
    took[$name]=$((SECONDS - start))
    case $rc in
        0) status[$name]=PASS ;;
        3) status[$name]=SKIP ;;
        *) status[$name]="FAIL($rc)"; failed=$name ;;
    esac
    echo "---- $name: ${status[$name]} in ${took[$name]}s"
    [[ -z $failed ]]
}

step_venv() {
    bash "$repo/scripts/venv.sh"
}

step_pytest() {
    local dirs=() d
    # the long integration tests first, the many short unit tests last, and idle workers steal queued tests:
    # the run ends with two workers busy on short tests rather than one on a long one
    for d in tests/integration tests/unit; do [[ -d $d ]] && dirs+=("$d"); done
    local have_tests
    have_tests=$(find tests -path tests/output -prune -o \( -name 'test_*.py' -o -name '*_test.py' \) -print 2>/dev/null | head -1)
    if ((${#dirs[@]} == 0)) && [[ -z $have_tests ]]; then
        echo "no tests/unit or tests/integration yet: nothing to run"
        return 3
    fi
    local log rc
    log=$(mktemp)
    "$venv/bin/python" -m pytest -n 2 --dist worksteal -p no:cacheprovider --durations=15 "${dirs[@]}" 2>&1 |
        tee "$log"
    rc=${PIPESTATUS[0]}
    pytest_line=$(grep -E '^=+ .*(passed|failed|error|no tests ran).* in [0-9.]+s' "$log" | tail -1)
    rm -f "$log"
    if ((rc == 5)); then
        # Exit 5: pytest collected nothing. Fine while nobody has written tests,
        # a failure once test files exist (they must have been skipped or broken).
        if [[ -n $have_tests ]]; then
            echo "pytest collected no tests although test files exist ($have_tests)"
            return 5
        fi
        echo "no test files under tests/: nothing to run"
        return 3
    fi
    return "$rc"
}

step_compat() {
    bash "$repo/scripts/compat.sh"
}

step_sanity() {
    bash "$repo/scripts/sanity.sh"
}

step_docs() {
    bash "$repo/scripts/docs_lint.sh" && bash "$repo/scripts/docs.sh"
}

step_lint() {
    local targets=() d
    for d in roles examples; do
        if [[ -d $d ]] && [[ -n $(find "$d" -type f -print -quit) ]]; then targets+=("$d"); fi
    done
    if ((${#targets[@]} == 0)); then
        echo "no roles/ or examples/ yet: nothing for ansible-lint"
        return 3
    fi
    # ansible-lint resolves homeflare.proxmox.* through the collections path: point
    # one at this checkout (a symlink outside the repo, so nothing walks into a loop).
    local cpath rc
    cpath=$(mktemp -d)
    mkdir -p "$cpath/ansible_collections/homeflare"
    ln -s "$repo" "$cpath/ansible_collections/homeflare/proxmox"
    ANSIBLE_COLLECTIONS_PATH=$cpath PATH=$venv/bin:$PATH \
        "$venv/bin/ansible-lint" --nocolor --profile production "${targets[@]}"
    rc=$?
    rm -rf "$cpath"
    return "$rc"
}

step_build() {
    local out src=$repo rc
    # galaxy.yml names README.md; ansible-galaxy builds without it but Galaxy rejects such an artifact.
    [[ -f README.md ]] || echo "WARNING: README.md is missing (galaxy.yml's readme); the artifact cannot be published"
    out=$(mktemp -d)
    # Build from the files git would commit (tracked + untracked-not-ignored), as scripts/sanity.sh
    # does: ansible-galaxy reads only galaxy.yml's build_ignore, not .gitignore, so git-ignored local
    # trees (.venv-compat-*, ...) would otherwise end up in the artifact.
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        src=$out/src
        mkdir -p "$src"
        git ls-files -z --cached --others --exclude-standard |
            while IFS= read -r -d '' f; do [[ -e $f || -L $f ]] && printf '%s\0' "$f"; done |
            tar --null -T - -cf - | tar -xf - -C "$src"
    fi
    "$venv/bin/ansible-galaxy" collection build --force --output-path "$out" "$src"
    rc=$?
    if ((rc == 0)); then
        ls -l "$out"/*.tar.gz
        # What went into the artifact: the build must not ship tests/ (the suite, the simulator), .venv*, scripts, ...
        tar -tzf "$out"/homeflare-proxmox-*.tar.gz | grep -E '^(\.venv[^/]*|\.ci|scripts|tests|\.git)/' && rc=1
    fi
    rm -rf "$out"
    return "$rc"
}

for s in "${steps[@]}"; do
    if ! declare -F "step_$s" >/dev/null; then
        echo "unknown step '$s' (known: ${all_steps[*]})" >&2
        failed=$s
        exit 2
    fi
    run_step "$s" "step_$s" || exit 1
done
exit 0
