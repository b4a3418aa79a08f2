"""One small module per API family; importing this package registers them (their routes and their state
slices, see ``pve.state.register_slice``)."""

from .base import ROUTES, Context, Result, route  # noqa: F401
from . import access_ticket, acl, cluster, groups, pools, roles, storage, tasks, users  # noqa: F401,E402
from . import (  # noqa: F401,E402
    backup, ceph, ceph_daemons, cluster_options, domains, firewall, guests, ha, lxc, metrics, network,
    notifications, qemu, replication, sdn, zfs)
from . import sdn_plugins  # noqa: F401,E402
from . import ceph_mon, ceph_osd  # noqa: F401,E402
from . import cloudinit, guest_disks, storage_content  # noqa: F401,E402
from . import content_sources  # noqa: F401,E402
from . import nodes  # noqa: F401,E402
from . import apt, subscription  # noqa: F401,E402
from . import node_settings  # noqa: F401,E402
from . import certificates  # noqa: F401,E402
from . import acme  # noqa: F401,E402
from . import cluster_config  # noqa: F401,E402
from . import storage_status  # noqa: F401,E402
from . import migrate  # noqa: F401,E402
from . import guest_rights  # noqa: F401,E402
from . import mapping  # noqa: F401,E402
from . import snapshots  # noqa: F401,E402
from . import vzdump  # noqa: F401,E402
from . import agent  # noqa: F401,E402
from . import sdn_fabrics  # noqa: F401,E402
from . import realm_sync  # noqa: F401,E402
