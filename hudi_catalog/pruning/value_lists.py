"""``column [NOT] IN (values)`` for lists of any length, on every store.

SQLAlchemy expands a list bound to ``IN`` into one parameter per value. PostgreSQL's protocol allows at most
65,535 parameters in a statement, so there the list is bound as one array parameter instead:
``column = ANY(:values)`` (``column <> ALL(:values)`` when negated, which is what ``NOT IN`` means, NULLs
included).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Boolean, all_, any_, bindparam
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
