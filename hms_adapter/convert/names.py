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


_CATALOG_FIELDS = ("catName", "catalogName", "catalog", "hive3CatName")
"""Fields of Hive 3/4 structs that name the catalog of a call."""
DATABASE_FIELDS = ("dbName", "db_name", "dbname", "databaseName", "table_db", "database", "db")
"""Fields that may hold an ``@<catalog>#<database>`` name."""
_SEARCH_DEPTH = 3


def _marked_catalog(name: str) -> str | None:
    if not name.startswith(CATALOG_MARK):
        return None
    catalog, mark, _ = name[1:].partition(DATABASE_MARK)
    return catalog if mark and catalog else None


def catalog_of_call(args) -> str | None:
    """The catalog a call names: an ``@<catalog>#`` database name among its arguments, or the catalog field
    of a request struct (or of a struct inside one, such as a statistics descriptor); None when it names
    none (the default catalog)."""
    for value in args:
        found = _catalog_in(value, _SEARCH_DEPTH)
        if found:
            return found
    return None


def _catalog_in(value, depth: int) -> str | None:
    if isinstance(value, str):
        return _marked_catalog(value)
    if isinstance(value, list):
        return _catalog_in(value[0], depth) if value else None
    spec = getattr(value, "thrift_spec", None)
    if spec is None or depth == 0:
        return None
    for field in _CATALOG_FIELDS:
        named = getattr(value, field, None)
        if isinstance(named, str) and named:
            return named
    for field in DATABASE_FIELDS:
        named = getattr(value, field, None)
        if isinstance(named, str) and _marked_catalog(named):
            return _marked_catalog(named)
    for item in spec.values():
        nested = getattr(value, item[1], None)
        if nested is not None and not isinstance(nested, (str, bytes, int, float, dict)):
            found = _catalog_in(nested, depth - 1)
            if found:
                return found
    return None
