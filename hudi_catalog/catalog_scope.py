"""The Hive catalog (namespace of databases) a call works in.

Hive 3 put databases into catalogs; a catalog holds databases of any name, and the same database name may
exist in two catalogs. Every service resolves database names within the catalog in scope: ``hive`` unless a
front end opened another for the call (``with catalog_scope("spark"): ...``). The scope is a context
variable, so each thread (one per connection) and each call has its own.

Example:
    >>> current_catalog()
    'hive'
    >>> with catalog_scope("spark"):
    ...     current_catalog()
    'spark'
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

DEFAULT_CATALOG = "hive"
DEFAULT_CATALOG_COMMENT = "Default catalog, for Hive"

_current: ContextVar[str] = ContextVar("hudi_metastore_catalog", default=DEFAULT_CATALOG)


def current_catalog() -> str:
    return _current.get()


@contextmanager
def catalog_scope(name: str | None) -> Iterator[str]:
    """Work in catalog ``name`` (lower-cased; None or empty: ``hive``) inside the block."""
    token = _current.set((name or DEFAULT_CATALOG).lower())
    try:
        yield _current.get()
    finally:
        _current.reset(token)
