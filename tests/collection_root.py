"""Make the collection importable as ``ansible_collections.homeflare.proxmox``.

The repository root is the collection; a symlinked tree outside the checkout gives it the
path Ansible's loader expects, without copying anything.
"""

import os
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def collection_root():
    root = os.path.join(tempfile.gettempdir(), 'homeflare-collections-%d' % os.getuid())
    namespace = os.path.join(root, 'ansible_collections', 'homeflare')
    os.makedirs(namespace, exist_ok=True)
    link = os.path.join(namespace, 'proxmox')
    if not (os.path.islink(link) and os.readlink(link) == REPO):
        tmp_link = '%s.%d' % (link, os.getpid())
        os.symlink(REPO, tmp_link)
        os.replace(tmp_link, link)
    return root


COLLECTIONS = collection_root()
