#!/usr/bin/env bash
# `make demo`: run the example playbook against the local simulator.
#
#  1. create/refresh .venv (scripts/venv.sh)
#  2. start `python tests/simulator/serve.py` in the background and wait for the
#     JSON line it prints once it listens (see scripts/sim_env.py for its keys)
#  3. export PROXMOX_HOST / PROXMOX_TOKEN_ID / PROXMOX_TOKEN_SECRET /
#     PROXMOX_CA_PATH, the env fallbacks the modules read
#  4. ansible-playbook examples/demo.yml: verify (--check --diff), apply, apply
#     again (nothing changes), drift made through the API (scripts/demo_drift.py),
#     verify (--check --diff shows it), repair
#  5. stop the simulator, however the script ends (trap)
#
# Env: DEMO_PLAYBOOK (default examples/demo.yml), SIM_START_TIMEOUT (default 60 s)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
venv=${VENV:-$repo/.venv}
playbook=${DEMO_PLAYBOOK:-examples/demo.yml}
timeout=${SIM_START_TIMEOUT:-60}

if [[ ! -f $playbook ]]; then
    echo "TODO: $playbook does not exist yet; the demo playbook has not been written." >&2
    echo "      Once it exists, \`make demo\` runs it against tests/simulator/serve.py." >&2
    exit 1
fi
if [[ ! -f tests/simulator/serve.py ]]; then
    echo "TODO: tests/simulator/serve.py does not exist yet; the demo needs the simulator." >&2
    exit 1
fi

bash scripts/venv.sh

work=$(mktemp -d "${TMPDIR:-/tmp}/homeflare-demo.XXXXXX")
sim_pid=""
play_pid=""
cleanup() {
    local rc=$?
    if [[ -n $play_pid ]]; then kill "$play_pid" 2>/dev/null || true; fi
    if [[ -n $sim_pid ]] && kill -0 "$sim_pid" 2>/dev/null; then
        kill "$sim_pid" 2>/dev/null || true
        # Give it a moment to exit cleanly, then make sure.
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$sim_pid" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$sim_pid" 2>/dev/null || true
        wait "$sim_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- simulator ------------------------------------------------------------------
# Unbuffered, so its JSON line reaches the file as soon as it is printed.
PYTHONUNBUFFERED=1 "$venv/bin/python" tests/simulator/serve.py >"$work/sim.out" 2>"$work/sim.err" &
sim_pid=$!

deadline=$((SECONDS + timeout))
until env_lines=$("$venv/bin/python" scripts/sim_env.py "$work/sim.out" 2>"$work/sim_env.err"); do
    if ! kill -0 "$sim_pid" 2>/dev/null; then
        echo "demo: the simulator exited before it was ready. Its output:" >&2
        cat "$work/sim.out" "$work/sim.err" >&2
        exit 1
    fi
    if ((SECONDS >= deadline)); then
        echo "demo: no usable JSON line from the simulator after ${timeout}s:" >&2
        cat "$work/sim_env.err" "$work/sim.out" "$work/sim.err" >&2
        exit 1
    fi
    sleep 0.2
done
eval "$env_lines"
export PROXMOX_HOST PROXMOX_TOKEN_ID PROXMOX_TOKEN_SECRET PROXMOX_CA_PATH
echo "demo: simulator (pid $sim_pid) serving $PROXMOX_HOST as $PROXMOX_TOKEN_ID"

# --- ansible --------------------------------------------------------------------
# Make this checkout importable as homeflare.proxmox without installing it
# (the symlink lives in the temporary directory, never inside the repo).
mkdir -p "$work/collections/ansible_collections/homeflare"
ln -s "$repo" "$work/collections/ansible_collections/homeflare/proxmox"
export ANSIBLE_COLLECTIONS_PATH=$work/collections
export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false
export ANSIBLE_PYTHON_INTERPRETER=$venv/bin/python
export PATH=$venv/bin:$PATH

step() {
    echo
    echo "######## $1"
    shift
    echo "\$ ansible-playbook $playbook $*"
    # In the background + wait, so a TERM to this script is handled at once
    # (bash runs traps only between foreground commands) and cleanup stops both.
    ansible-playbook "$playbook" "$@" &
    play_pid=$!
    local rc=0
    wait "$play_pid" || rc=$?
    play_pid=""
    return "$rc"
}
step "1/7 verify: what would change? (--check --diff writes nothing)" --check --diff
step "2/7 apply" --diff
step "3/7 apply again: everything is adopted, changed=0" --diff
echo
echo "######## 4/7 drift made behind Ansible's back, through the API"
"$venv/bin/python" scripts/demo_drift.py
step "5/7 verify: --check --diff names the drifted fields and writes nothing" --check --diff
# The CI gate: the same check with cluster_fail_on_drift must exit non-zero, and the drift report
# callback writes what it judged as JSON, JUnit XML and a Markdown summary.
gate_rc=0
ANSIBLE_CALLBACKS_ENABLED=homeflare.proxmox.drift_report HOMEFLARE_DRIFT_REPORT=$work/drift-report.json \
    HOMEFLARE_DRIFT_REPORT_JUNIT=$work/drift-report.xml HOMEFLARE_DRIFT_REPORT_MARKDOWN=$work/drift-report.md \
    step "6/7 gate: --check with cluster_fail_on_drift=true fails on drift (the CI gate)" \
    --check -e cluster_fail_on_drift=true || gate_rc=$?
if ((gate_rc == 0)); then
    echo "demo: the gate passed although the cluster drifted" >&2
    exit 1
fi
echo "demo: the gate failed as it should (exit $gate_rc); $work/drift-report.json summary:"
"$venv/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"])' "$work/drift-report.json"
echo "demo: the same as a CI job summary ($work/drift-report.md; JUnit XML for the CI's test view in $work/drift-report.xml):"
cat "$work/drift-report.md"
step "7/7 repair: one write per drifted object" --diff
echo
echo "demo: done"
