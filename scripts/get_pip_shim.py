"""Offline stand-in for ansible-test's get-pip bootstrap script.

ansible-test bootstraps pip into every sanity-test virtualenv by running
``~/.ansible/test/cache/get_pip_<X_Y>.py`` and, when that file is missing,
downloads it from a host this machine cannot reach. scripts/sanity.sh copies
this file there under that name, next to pip's own wheel (from PyPI), so the
bootstrap runs pip from the wheel instead.

ansible-test runs it as ``python quiet_pip.py [pip options] pip==X.Y
[--no-setuptools] [--no-wheel]`` with GET_PIP pointing here; like the real
get-pip.py we turn that into ``pip install --upgrade --force-reinstall ...``.
"""

import glob
import os
import sys


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    wheels = sorted(glob.glob(os.path.join(here, 'pip-*.whl')))
    if not wheels:
        sys.exit('get_pip shim: no pip wheel in %s (run scripts/sanity.sh to fetch it)' % here)
    # pip runs from its wheel: that is how the real get-pip.py works too.
    sys.path.insert(0, wheels[-1])

    from pip._internal.cli.main import main as pip_main  # pylint: disable=import-outside-toplevel

    # get-pip.py's own flags: they stop it adding setuptools/wheel, which we never add.
    args = [arg for arg in sys.argv[1:] if arg not in ('--no-setuptools', '--no-wheel')]
    sys.exit(pip_main(['install', '--upgrade', '--force-reinstall', '--find-links', here] + args))


if __name__ == '__main__':
    main()
