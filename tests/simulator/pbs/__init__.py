"""The simulated Proxmox Backup Server.

* ``api``: the wire rules and the pipeline (``PbsApi``), auth by ``PBSAPIToken``;
* ``state``: ``PbsState``, the files and tasks of one PBS host;
* ``auth``: auth ids, privileges, roles and the ACL walk; ``errors``: ``PbsError``, ``PbsAuthError``;
* ``schema``: the PBS schema (lazy) and proxmox-schema's parameter parsing;
* ``handlers``: one module per family (``@route``).
"""
