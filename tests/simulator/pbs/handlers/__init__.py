"""One module per PBS API family; importing this package registers their routes."""

from .base import ROUTES, Ctx, Result, route  # noqa: F401
from . import access, datastores, jobs, notifications, tasks, version  # noqa: F401,E402
