"""A filter's ``key LIKE 'pattern'`` as SQL on each store, matched by RE2 in time linear in the value.

``LIKE`` takes a Java regular expression over the whole value (``hudi_catalog.java_regex``). No store's
own regular expressions may run it: SQLite's ``REGEXP`` is a Python function (SQLAlchemy's, on ``re``, which
backtracks: ``(a+)+b`` against 28 characters took 24 s holding every client), MariaDB's is PCRE2, which
backtracks up to its match limit (0.3 s a value on 128 characters, times the values of the table), and
PostgreSQL's reads Java syntax otherwise than Java. So:

- On SQLite, ``REGEXP`` is RE2 (``hudi_catalog.store.engine`` registers ``java_regex.regexp`` on each
  connection), given the pattern anchored to the whole value: the test stays in the one statement.
- On MariaDB and PostgreSQL, the key's distinct values are read (an index-only scan of ``idx_pkv_lookup``),
  matched here, and the test is an index lookup of the values that pass it (``ValueList``). For
  ``NOT LIKE`` these are the values that do not match, so a partition added with a new value while the call
  runs is left out either way, never answered wrongly.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from sqlalchemy import ColumnElement, Connection, not_, select

from ..java_regex import JavaRegex
from ..store import schema
from .value_lists import ValueList

LikeTest = Callable[[int, ColumnElement, JavaRegex, bool], ColumnElement[bool]]
"""``(key position, key_val column, pattern, negated)`` to the condition on a ``partition_key_val`` row."""


def like_test(conn: Connection | None, tbl_id: int | None) -> LikeTest:
    """How ``LIKE`` is tested on the store of ``conn`` for table ``tbl_id``; without a connection (a filter
    only checked, never run) the SQLite form."""
    if conn is None or conn.dialect.name == "sqlite":
        return _in_database
    return functools.partial(_over_values, conn, tbl_id)


def _in_database(_position: int, column: ColumnElement, regex: JavaRegex, negated: bool) -> ColumnElement[bool]:
    test = column.regexp_match(regex.anchored)
    return not_(test) if negated else test


def _over_values(
    conn: Connection, tbl_id: int | None, position: int, column: ColumnElement, regex: JavaRegex, negated: bool
) -> ColumnElement[bool]:
    kv = schema.partition_key_val
    values = conn.execute(
        select(kv.c.key_val).distinct().where(kv.c.tbl_id == tbl_id, kv.c.key_index == position)
    ).scalars()
    return ValueList(column, [v for v in values if regex.matches(v) != negated])
