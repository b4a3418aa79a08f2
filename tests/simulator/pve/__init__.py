"""The simulated Proxmox VE cluster.

* ``api``: the wire rules, one request in, one PVE-shaped answer out (``PveApi``);
* ``state``: ``ClusterState``, the cluster's files, and ``register_slice`` for the handler modules' own ones;
* ``handlers``: one module per API family, semantics only (``@route``);
* ``storage_types``: the per-type storage options.
"""
