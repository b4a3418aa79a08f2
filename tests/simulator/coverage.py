"""How much of the official API the simulator serves: one definition for scripts/source_map.py (which writes
the figure into docs/simulator.md) and tests/unit/test_source_map.py (which recomputes it and holds the doc to it).

* The **served routes** of a product are the keys ``(method, schema path template)`` of its handler registry:
  ``pve.handlers.ROUTES`` and ``pbs.handlers.ROUTES`` (importing each package registers every family).
* The **simulated paths** (``simulated_paths``) are the schema paths P for which one of these holds, S being a
  path that has at least one served method:
  1. P is S (a served path);
  2. P is a sibling of S: P's parent is S's parent (the parent of ``/version`` is ``/``, so every top-level
     path is a sibling of it).
  A path below a served one is not simulated for that alone: ``GET /nodes`` is served, but the hundreds of
  methods under ``/nodes/{node}`` count only where the simulator serves a path in their directory.
* The **coverage** (``coverage``) counts the schema methods (one per HTTP method of each schema path) under the
  simulated paths, and how many of them are served.

The schema files are read where ``simulator.schema`` reads them (``$PVE_API_SCHEMA`` / ``$PBS_API_SCHEMA``,
else ``<repo>/../shared/pve-api/``); they are never copied into the project.
"""

import json
from collections import namedtuple

from .pbs import schema as pbs_schema
from . import schema as pve_schema

PRODUCTS = ("pve", "pbs")
# What scripts/source_map.py writes in docs/simulator.md lies between these two lines.
BEGIN = "<!-- source-map:begin -->"
END = "<!-- source-map:end -->"

Coverage = namedtuple("Coverage", "served total unserved")


def served_routes(product):
    """The set of ``(method, path template)`` the simulator serves for ``product`` ("pve" or "pbs")."""
    if product == "pve":
        from .pve.handlers import ROUTES
    else:
        from .pbs.handlers import ROUTES
    return set(ROUTES)


def schema_file(product):
    """Where the official schema of ``product`` is (it may be missing: CI has no shared/ beside the checkout)."""
    return pve_schema.schema_path() if product == "pve" else pbs_schema.schema_path()


def schema_methods(tree):
    """Every ``(method, path)`` of a schema tree (``[{path, info: {METHOD: {...}}, children}]``)."""
    return set((method, node["path"]) for node in pve_schema.walk(tree) for method in node.get("info") or {})


def load_tree(product):
    """The official schema of ``product`` as its file has it (an api_dump tree)."""
    with open(schema_file(product), encoding="utf-8") as handle:
        return json.load(handle)


def load_schema_methods(product):
    return schema_methods(load_tree(product))


def parent(path):
    """``/a/b`` -> ``/a``; ``/a`` -> ``/``."""
    head = path.rstrip("/").rsplit("/", 1)[0]
    return head or "/"


def simulated_paths(schema_paths, served_paths):
    """The schema paths that are served or are siblings of a served path (see the module text)."""
    served_paths = set(served_paths)
    served_parents = set(parent(path) for path in served_paths)
    return set(path for path in schema_paths if path in served_paths or parent(path) in served_parents)


def coverage(schema, served):
    """``Coverage(served, total, unserved)`` of the schema methods ``schema`` (a set of (method, path)) under the
    paths simulated by ``served`` (a set of (method, path)); ``unserved`` is sorted by path, then method.
    Served routes that are not schema methods count for neither number."""
    paths = simulated_paths(set(key[1] for key in schema), set(key[1] for key in served))
    under = set(key for key in schema if key[1] in paths)
    unserved = sorted(under - set(served), key=lambda key: (key[1], key[0]))
    return Coverage(len(under & set(served)), len(under), unserved)


def product_coverage(product):
    """The coverage of ``product`` from its schema file and its handler registry."""
    return coverage(load_schema_methods(product), served_routes(product))


def coverage_sentence(figure):
    """The sentence the doc carries, and the test reads back."""
    percent = 100.0 * figure.served / figure.total if figure.total else 0.0
    return ("Coverage: %d of %d schema methods under the simulated paths are served (%.1f%%)."
            % (figure.served, figure.total, percent))
