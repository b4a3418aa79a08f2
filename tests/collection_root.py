"""Make the collection importable as ``ansible_collections.homeflare.proxmox``.

The repository root is the collection; a symlinked tree outside the checkout gives it the
path Ansible's loader expects, without copying anything.
"""

import hashlib
import os
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def collection_root():
    # One tree per checkout: two checkouts testing at once must never re-point each other's link.
    checkout = hashlib.sha256(REPO.encode('utf-8')).hexdigest()[:12]
    root = os.path.join(tempfile.gettempdir(), 'homeflare-collections-%d-%s' % (os.getuid(), checkout))
    namespace = os.path.join(root, 'ansible_collections', 'homeflare')
    os.makedirs(namespace, exist_ok=True)
    link = os.path.join(namespace, 'proxmox')
    if not (os.path.islink(link) and os.readlink(link) == REPO):
        tmp_link = '%s.%d' % (link, os.getpid())
        os.symlink(REPO, tmp_link)
        os.replace(tmp_link, link)
    return root


COLLECTIONS = collection_root()
