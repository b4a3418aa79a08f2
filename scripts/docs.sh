#!/usr/bin/env bash
# `make docs`: the collection's documentation site, HTML in build/docs/ (open build/docs/index.html).
#
#  1. create/refresh .venv (scripts/venv.sh: ansible-core, antsibull-docs) and install
#     requirements-docs.txt into it (Sphinx, its theme, MyST), skipped while that file is unchanged
#  2. copy what ansible-doc reads (galaxy.yml, meta/, plugins/, roles/) into
#     build/docs-src/collections/ansible_collections/homeflare/proxmox and give the copy a
#     docs/docsite/extra-docs.yml naming every docs/*.md guide
#  3. antsibull-docs sphinx-init + antsibull-docs collection: one RST page per module and plugin
#     (options, examples, return values) and per role (its argument specs)
#  4. the guides, docs/*.md as they are, next to those pages; Sphinx reads them with MyST
#  5. sphinx-build into build/docs; any warning fails the build except references into
#     docs.ansible.com's own pages, which cannot resolve without its (online) inventory
#  6. every module page has its parameters, examples and return values; every plugin, role and
#     guide has its page
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export VENV=${VENV:-$repo/.venv}
venv=$VENV
out=$repo/build/docs
work=$repo/build/docs-src

# --- 1. tools -------------------------------------------------------------------
bash scripts/venv.sh
want=$(sha256sum <requirements-docs.txt | cut -d' ' -f1)
stamp=$venv/.requirements-docs.sha256
if [[ ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
    echo "docs: installing requirements-docs.txt into $venv"
    "$venv/bin/python" -m pip install --quiet --upgrade -r requirements-docs.txt
    echo "$want" >"$stamp"
fi
export PATH=$venv/bin:$PATH

# --- 2. the collection as ansible-doc finds it ----------------------------------
rm -rf "$out" "$work"
collections=$work/collections
root=$collections/ansible_collections/homeflare/proxmox
mkdir -p "$root"
# The files git would commit, as scripts/sanity.sh copies them: nothing local or generated.
git ls-files -z --cached --others --exclude-standard -- galaxy.yml meta plugins roles |
    while IFS= read -r -d '' f; do [[ -e $f || -L $f ]] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -xf - -C "$root"
# The guides' index, generated so that a new docs/*.md needs no second list: titled by its first heading.
mkdir -p "$root/docs/docsite"
"$venv/bin/python" - "$root/docs/docsite/extra-docs.yml" docs/*.md <<'EOF'
import os
import sys

import yaml

toctree = []
for path in sorted(sys.argv[2:]):
    with open(path, encoding='utf-8') as handle:
        title = next((line[2:].strip() for line in handle if line.startswith('# ')), None)
    toctree.append({'ref': os.path.splitext(os.path.basename(path))[0], 'title': title.replace('`', '')})
with open(sys.argv[1], 'w', encoding='utf-8') as handle:
    yaml.safe_dump({'sections': [{'title': 'Guides', 'toctree': toctree}]}, handle, sort_keys=False)
EOF
export ANSIBLE_COLLECTIONS_PATH=$collections
export ANSIBLE_HOME=$work/ansible-home

# --- 3. plugin and role pages ---------------------------------------------------
site=$work/site
mkdir -p "$site"
chmod og-w "$site"  # antsibull-docs writes only into a directory writable by its owner alone
antsibull-docs sphinx-init --use-current --squash-hierarchy --dest-dir "$site" \
    --project homeflare.proxmox --copyright 'homeflare.proxmox contributors' \
    --title 'homeflare.proxmox' --html-short-title 'homeflare.proxmox' homeflare.proxmox >/dev/null  # its hint names build.sh
cat >>"$site/conf.py" <<'EOF'

# Added by scripts/docs.sh.
# The guides are Markdown (docs/*.md); MyST renders them, and their '#section' links need heading anchors.
extensions.append('myst_parser')
myst_heading_anchors = 4
# No network here: the default inventories (docs.python.org, docs.ansible.com) cannot be fetched.
intersphinx_mapping = {}
EOF
mkdir -p "$site/rst"
chmod og-w "$site/rst"
antsibull-docs --config-file "$site/antsibull-docs.cfg" collection --use-current --squash-hierarchy \
    --cleanup everything --dest-dir "$site/rst" homeflare.proxmox

# --- 4. the guides ----------------------------------------------------------------
# Copied at build time where the collection index's toctree (docsite/<name>) points; never edited.
mkdir -p "$site/rst/docsite"
cp docs/*.md "$site/rst/docsite/"

# --- 5. HTML --------------------------------------------------------------------
warnings=$work/sphinx-warnings.txt
# Ansible's own labels (common_return_values, action_plugins, ANSIBLE_* variables, ...) are defined on
# docs.ansible.com; every other warning, the guides' and this collection's pages included, fails the build.
ansible_refs="undefined label: '[a-z_]+'|'envvar' reference target not found: ANSIBLE_"
if ! sphinx-build -b html -q -j 2 --keep-going -c "$site" -w "$warnings" "$site/rst" "$out" 2>"$work/sphinx-stderr.txt"; then
    cat "$work/sphinx-stderr.txt" >&2
    exit 1
fi
if grep -vE "$ansible_refs" "$warnings" | grep .; then
    echo "docs: Sphinx warnings above" >&2
    exit 1
fi
# --- 6. the pages are there ------------------------------------------------------
# Every module's page shows its options, examples and return values; every other plugin and every role has its
# page; every guide is a page. A build that silently lost one (a doc antsibull-docs skipped) fails here.
missing=()
for f in plugins/modules/*.py; do
    page=$out/$(basename "$f" .py)_module.html
    for section in parameters examples return-values; do
        grep -q "id=\"$section\"" "$page" 2>/dev/null || missing+=("$page: $section")
    done
done
for kind in inventory lookup connection callback; do
    for f in plugins/"$kind"/*.py; do
        [[ -f $f ]] || continue
        [[ -f $out/$(basename "$f" .py)_$kind.html ]] || missing+=("$out/$(basename "$f" .py)_$kind.html")
    done
done
for d in roles/*/; do
    [[ -f $out/$(basename "$d")_role.html ]] || missing+=("$out/$(basename "$d")_role.html")
done
for f in docs/*.md; do
    [[ -f $out/docsite/$(basename "$f" .md).html ]] || missing+=("$out/docsite/$(basename "$f" .md).html")
done
if ((${#missing[@]})); then
    printf 'docs: missing from the site: %s\n' "${missing[@]}" >&2
    exit 1
fi
echo "docs: $(grep -cE "$ansible_refs" "$warnings") references into docs.ansible.com left unresolved (no network)"
echo "docs: $(find "$out" -name '*.html' | wc -l) pages in $out (start at $out/index.html)"
