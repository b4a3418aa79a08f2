"""Put the collection (as ansible_collections.homeflare.proxmox) and tests/ (for ``simulator``) on sys.path."""

import os
import sys

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TESTS)

from collection_root import COLLECTIONS  # noqa: E402  pylint: disable=wrong-import-position

if COLLECTIONS not in sys.path:
    sys.path.insert(0, COLLECTIONS)


def pytest_configure(config):
    # scripts/compat.sh runs `pytest -m compat tests/integration` on the oldest and newest ansible-core.
    config.addinivalue_line('markers', 'compat: also run on every supported ansible-core (scripts/compat.sh)')
    # never compat-marked: it brings its own ansible-core; `-m "not install"` leaves it out where PyPI is unreachable
    config.addinivalue_line('markers', 'install: builds the artifact and runs it installed in a fresh virtualenv '
                                       '(tests/integration/test_install.py)')
