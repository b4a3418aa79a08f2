"""GET /version of a Proxmox Backup Server (proxmox-backup ``src/api2/version.rs``)."""

from .base import route


@route("GET", "/version")
def version(ctx):
    return dict(ctx.state.version)
