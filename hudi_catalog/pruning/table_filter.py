"""Hive's table filter (``get_table_names_by_filter``) as a predicate over tables.

Example:
    >>> from hudi_catalog.model import Table
    >>> matches = table_filter_matcher('hive_filter_field_params__EXTERNAL = "TRUE"')
    >>> matches(Table("db", "t", parameters={"EXTERNAL": "TRUE"}))
    True
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from ..errors import InvalidFilterError
from ..java_regex import PatternError, compile_java
from ..model import Table
from .comparisons import COMPARISONS
from .parse import parse_filter

OWNER = "hive_filter_field_owner__"
LAST_ACCESS = "hive_filter_field_last_access__"
PARAMS = "hive_filter_field_params__"


def _field_value(column: exp.Expr, table: Table):
    name = ".".join(part.name for part in column.parts) if isinstance(column, exp.Column) else None
    if name is None:
        raise InvalidFilterError(f"Error parsing table filter : expected a filter field, got {column.sql()}")
    if name == OWNER:
        return table.owner
    if name == LAST_ACCESS:
        return table.last_access_time
    if name.startswith(PARAMS):
        return table.parameters.get(name[len(PARAMS) :])
    raise InvalidFilterError(
        f"Invalid key name in filter. Use constants from org.apache.hadoop.hive.metastore.api: {name}"
    )


def _predicate(node: exp.Expr) -> Callable[[Table], bool]:
    if isinstance(node, exp.Paren):
        return _predicate(node.this)
    if isinstance(node, exp.And):
        left, right = _predicate(node.left), _predicate(node.right)
        return lambda t: left(t) and right(t)
    if isinstance(node, exp.Or):
        left, right = _predicate(node.left), _predicate(node.right)
        return lambda t: left(t) or right(t)
    if isinstance(node, exp.Not):
        inner = _predicate(node.this)
        return lambda t: not inner(t)
    if isinstance(node, exp.Like) and isinstance(node.expression, exp.Literal):
        try:
            regex = compile_java(node.expression.this)  # RE2: linear in the value
        except PatternError as error:
            raise InvalidFilterError(
                f"Error parsing table filter : invalid LIKE pattern {node.expression.this!r}: {error}"
            ) from None
        return lambda t: (v := _field_value(node.this, t)) is not None and regex.matches(str(v))
    if isinstance(node, exp.Binary) and type(node) in COMPARISONS and isinstance(node.expression, exp.Literal):
        compare, literal = COMPARISONS[type(node)], node.expression

        def check(t: Table) -> bool:
            value = _field_value(node.this, t)
            if value is None:
                return False
            if isinstance(value, int):
                return compare(value, int(literal.this))
            return compare(str(value), str(literal.this))

        return check
    raise InvalidFilterError(f"Error parsing table filter : unsupported expression {node.sql()}")


def table_filter_matcher(filter_text: str) -> Callable[[Table], bool]:
    """A predicate telling whether a table matches the filter; ``InvalidFilterError`` when it is malformed."""
    return _predicate(parse_filter(filter_text))
