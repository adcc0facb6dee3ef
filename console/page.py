"""What a page handler reads from its request: its viewer, the names in its path; and what it records for
the audit line (the object it showed)."""

from __future__ import annotations

from starlette.requests import Request

from hudi_catalog.catalog_scope import DEFAULT_CATALOG

from .security import ANONYMOUS, Viewer


def viewer_of(request: Request) -> Viewer:
    return getattr(request.state, "viewer", None) or Viewer(ANONYMOUS)


def name_object(request: Request, name: str) -> None:
    """Record the object a request shows, for its audit line."""
    request.state.object_name = name


def path_names(request: Request, *parameters: str) -> tuple[str, ...]:
    """The path's named parts, lower-cased as the catalog keeps names (a catalog: ``hive`` when empty)."""
    names = tuple(str(request.path_params.get(p, "")).lower() for p in parameters)
    if parameters and parameters[0] == "catalog" and not names[0]:
        return (DEFAULT_CATALOG, *names[1:])
    return names
