#!/usr/bin/env bash
# Lint the collection's docs with antsibull-docs: every plugin's and role's documentation is parsed,
# validated against Ansible's schema, rendered to RST and checked with rstcheck, and every
# C()/O()/RV()/M() reference into this collection must name something that exists.
# `make test` runs it as its `docs` step; tests/unit/test_docs_lint.py runs it on a broken copy.
#
# Usage: scripts/docs_lint.sh [COLLECTION_DIR]   (default: this checkout)
# Env: VENV (default <repo>/.venv): where antsibull-docs and ansible-core are installed
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${VENV:-$repo/.venv}
collection=$(cd "${1:-$repo}" && pwd)

# antsibull-docs finds the collection through ansible-doc, so it must sit under
# ansible_collections/homeflare/proxmox on ANSIBLE_COLLECTIONS_PATH: a symlink outside the tree.
cpath=$(mktemp -d "${TMPDIR:-/tmp}/homeflare-docs-lint.XXXXXX")
trap 'rm -rf "$cpath"' EXIT
mkdir -p "$cpath/ansible_collections/homeflare"
ln -s "$collection" "$cpath/ansible_collections/homeflare/proxmox"

cd "$cpath/ansible_collections/homeflare/proxmox"
ANSIBLE_COLLECTIONS_PATH=$cpath PATH=$venv/bin:$PATH \
    "$venv/bin/antsibull-docs" lint-collection-docs --plugin-docs --validate-collection-refs=self \
    --disallow-unknown-collection-refs .
echo "docs lint: no errors in $collection"
