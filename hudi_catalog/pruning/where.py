"""Prune partitions with a WHERE clause as engines write it.

``where date = '20220101' and hour = '00' and ts = '0'`` constrains partition keys and data columns alike.
Only what constrains partition keys is kept, and the result is never smaller than the set of partitions
that may hold matching rows:

- a term over data columns (or anything that cannot be decided from partition values) becomes TRUE;
- ``a AND b`` keeps whatever each side keeps;
- ``a OR b`` is TRUE when either side is undecidable;
- ``NOT a`` keeps ``a`` only when ``a`` was kept exactly, and is TRUE otherwise.

Example:
    >>> from hudi_catalog.model import Column
    >>> keys = [Column("date", "string"), Column("hour", "int")]
    >>> where_to_filter("where date = '20220101' and hour = '00' and ts = '0'", keys).sql()
    "date = '20220101' AND hour = '00'"
    >>> where_to_filter("date = '20220101' or ts = '0'", keys) is None
    True
"""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from ..errors import InvalidFilterError
from ..java_regex import sql_like_to_regex
from ..model import Column
from .comparisons import COMPARISONS
from .to_sql import filter_to_clause

_LEADING_WHERE = re.compile(r"^\s*where\b", re.IGNORECASE)


class _Pruner:
    def __init__(self, keys: list[Column]) -> None:
        self.keys = keys
        self.names = {k.name.lower() for k in keys}

    def prune(self, node: exp.Expr) -> tuple[exp.Expr | None, bool]:
        """``(kept expression or None for TRUE, whether it is exact)``."""
        if isinstance(node, exp.Paren):
            return self.prune(node.this)
        if isinstance(node, exp.And):
            (left, left_exact), (right, right_exact) = self.prune(node.left), self.prune(node.right)
            kept = [e for e in (left, right) if e is not None]
            combined = kept[0] if len(kept) == 1 else exp.and_(*kept) if kept else None
            return combined, left_exact and right_exact
        if isinstance(node, exp.Or):
            (left, left_exact), (right, right_exact) = self.prune(node.left), self.prune(node.right)
            if left is None or right is None:
                return None, False
            return exp.or_(left, right), left_exact and right_exact
        if isinstance(node, exp.Not):
            inner, exact = self.prune(node.this)
            return (exp.not_(inner), True) if exact and inner is not None else (None, False)
        return self._leaf(node)

    def _leaf(self, node: exp.Expr) -> tuple[exp.Expr | None, bool]:
        columns = list(node.find_all(exp.Column))
        if not columns or any(c.name.lower() not in self.names for c in columns):
            return None, False
        if isinstance(node, exp.Like) and isinstance(node.expression, exp.Literal):
            node = exp.Like(this=node.this, expression=exp.Literal.string(sql_like_to_regex(node.expression.this)))
        elif not isinstance(node, (exp.In, exp.Between, exp.Like, *COMPARISONS)):
            return None, False
        node = node.transform(lambda n: exp.column(n.name) if isinstance(n, exp.Column) else n)
        try:
            filter_to_clause(node, self.keys)  # only leaves the filter language can evaluate are kept
        except InvalidFilterError:
            return None, False
        return node, True


def where_to_filter(where: str, keys: list[Column]) -> exp.Expr | None:
    """The part of an engine's WHERE clause that constrains partition keys; ``None`` when nothing does.

    Raises:
        InvalidFilterError: the clause is not SQL.
    """
    tree = parse_where(where)
    return None if tree is None else _Pruner(keys).prune(tree)[0]


def parse_where(where: str | None) -> exp.Expr | None:
    """An engine's WHERE clause (with or without the keyword) as a sqlglot tree; ``None`` when empty.

    Raises:
        InvalidFilterError: the clause is not SQL.
    """
    text = _LEADING_WHERE.sub("", where or "").strip()
    if not text:
        return None
    try:
        return sqlglot.parse_one(text)
    except SqlglotError as e:
        raise InvalidFilterError(f"Error parsing WHERE clause : {e}") from e
