"""``column [NOT] IN (values)`` for lists of any length, on every store.

SQLAlchemy expands a list bound to ``IN`` into one parameter per value. PostgreSQL's protocol allows at most
65,535 parameters in a statement, so there the list is bound as one array parameter instead:
``column = ANY(:values)`` (``column <> ALL(:values)`` when negated, which is what ``NOT IN`` means, NULLs
included). On SQLite a long list is bound as one JSON text read by ``json_each``: Python's ``sqlite3`` keeps
each connection's last 128 prepared statements, and a statement with a parameter per value holds megabytes,
so lists of distinct lengths would each leave one behind (40 filters of 180,000 values grew a server by
600 MB); with one parameter the statement's text is the same whatever the list.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import Boolean, all_, any_, bindparam, func, select
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.elements import ColumnElement


class ValueList(ColumnElement[bool]):
    """``column IN (values)``, or ``NOT IN`` when ``negated``."""

    type = Boolean()
    inherit_cache = False  # the values are part of the statement's parameters, not its cache key

    def __init__(self, column: ColumnElement, values: Sequence[object], negated: bool = False) -> None:
        self.column = column
        self.values = list(values)
        self.negated = negated


@compiles(ValueList)
def _expanding_in(element: ValueList, compiler, **kw) -> str:
    column = element.column
    clause = column.not_in(element.values) if element.negated else column.in_(element.values)
    return compiler.process(clause, **kw)


@compiles(ValueList, "postgresql")
def _array_comparison(element: ValueList, compiler, **kw) -> str:
    column = element.column
    array = bindparam(None, element.values, type_=ARRAY(column.type))
    clause = column != all_(array) if element.negated else column == any_(array)
    return compiler.process(clause, **kw)


SQLITE_JSON_LIST_MIN = 64
"""Lists at least this long are bound on SQLite as one JSON parameter (shorter ones as a parameter each)."""


def _json_bindable(values: Sequence[object]) -> bool:
    """Whether the values go through JSON unchanged: text, and numbers that are not booleans."""
    return all(v.__class__ in (str, int, float) for v in values)


@compiles(ValueList, "sqlite")
def _json_list(element: ValueList, compiler, **kw) -> str:
    if len(element.values) < SQLITE_JSON_LIST_MIN or not _json_bindable(element.values):
        return _expanding_in(element, compiler, **kw)
    listed = select(func.json_each(bindparam(None, json.dumps(element.values))).table_valued("value").c.value)
    column = element.column
    clause = column.not_in(listed) if element.negated else column.in_(listed)
    return compiler.process(clause, **kw)
