"""The docs lint (`make test`'s docs step, scripts/docs_lint.sh) fails, naming the reference, on a copy whose module
doc points at an option that does not exist. That it passes on the real tree is the docs step itself, which runs
the same script on the checkout (a second run here would only repeat its 14 s).

antsibull-docs comes from requirements-dev.txt: a venv without it fails these tests rather than skipping them.
"""

import importlib
import os
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINT = os.path.join(REPO, 'scripts', 'docs_lint.sh')
# What ansible-doc reads of the collection; the rest of the checkout is no part of its docs.
DOCUMENTED = ('galaxy.yml', 'meta', 'plugins', 'roles')


def lint(collection):
    importlib.import_module('antsibull_docs')  # ImportError: requirements-dev.txt is not installed
    return subprocess.run(['bash', LINT, collection], capture_output=True, text=True, timeout=300, check=False,
                          env=dict(os.environ, VENV=sys.prefix))


def test_a_reference_to_a_nonexistent_option_fails_the_lint_naming_it(tmp_path):
    copy = tmp_path / 'proxmox'
    for name in DOCUMENTED:
        source = os.path.join(REPO, name)
        if os.path.isdir(source):
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns('__pycache__'))
        else:
            copy.mkdir(exist_ok=True)
            shutil.copy(source, copy / name)
    module = copy / 'plugins' / 'modules' / 'pool.py'
    text = module.read_text()
    assert "The pool's comment." in text
    module.write_text(text.replace("The pool's comment.", "The pool's comment, see O(nonexistent).", 1))

    proc = lint(str(copy))
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output
    assert 'plugins/modules/pool.py' in output and 'O(nonexistent)' in output, output
    assert 'no errors' not in output
