"""Database names as Hive 3+ clients send them: ``@<catalog>#<database>``."""

from __future__ import annotations

CATALOG_MARK = "@"
DATABASE_MARK = "#"


def strip_catalog(name: str | None) -> str | None:
    """``@hive#sales`` -> ``sales``; a name without catalog prefix is returned unchanged.

    ``@hive#`` alone (all databases of a catalog, used in patterns) gives ``None``.
    """
    if name is None or not name.startswith(CATALOG_MARK):
        return name
    _, mark, database = name[1:].partition(DATABASE_MARK)
    if not mark:
        return None
    return database or None


def catalog_of_name(name: str | None) -> str | None:
    """``hive`` of ``@hive#sales`` (or of ``@hive#``); ``None`` for a name without catalog prefix."""
    if name is None or not name.startswith(CATALOG_MARK):
        return None
    catalog, mark, _ = name[1:].partition(DATABASE_MARK)
    return catalog if mark and catalog else None
