"""Turn a parsed partition filter into one SQLAlchemy condition over a table's partitions.

Each comparison of a partition key with a literal becomes an ``EXISTS`` over that key's
``partition_key_val`` row. Keys of integral types compare numerically (``hr > 9`` does not match
``hr=10`` lexically); other keys compare as strings. The default partition
(``__HIVE_DEFAULT_PARTITION__``) never satisfies a typed comparison. ``LIKE`` takes its pattern as a Java
regular expression over the whole value, as Hive Metastore does for Hive 2/3 clients and Spark.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, ColumnElement, and_, cast, exists, false, literal, not_, or_, select
from sqlglot import exp

from ..errors import InvalidFilterError
from ..model import Column
from ..partition_names import DEFAULT_PARTITION_NAME
from ..store import schema
from .comparisons import COMPARISONS, REVERSED

INTEGRAL_TYPES = {"tinyint", "smallint", "int", "integer", "bigint"}

class _Translator:
    def __init__(self, keys: list[Column]) -> None:
        self.index = {c.name.lower(): (i, c.type.lower()) for i, c in enumerate(keys)}

    def clause(self, node: exp.Expression) -> ColumnElement[bool]:
        if isinstance(node, exp.Paren):
            return self.clause(node.this)
        if isinstance(node, exp.And):
            return and_(self.clause(node.left), self.clause(node.right))
        if isinstance(node, exp.Or):
            return or_(self.clause(node.left), self.clause(node.right))
        if isinstance(node, exp.Not):
            return not_(self.clause(node.this))
        if type(node) in COMPARISONS:
            return self._comparison(node)
        if isinstance(node, exp.Like):
            key, pattern = self._key_and_literal(node.this, node.expression)
            return self._on_key(key, lambda v, _typed: v.regexp_match(f"^(?:{pattern.this})$"), typed=False)
        if isinstance(node, exp.In):
            return or_(false(), *(self.clause(exp.EQ(this=node.this, expression=e)) for e in node.expressions))
        if isinstance(node, exp.Between):
            return and_(
                self.clause(exp.GTE(this=node.this, expression=node.args["low"])),
                self.clause(exp.LTE(this=node.this, expression=node.args["high"])),
            )
        raise InvalidFilterError(f"Error parsing partition filter : unsupported expression {node.sql()}")

    def _comparison(self, node: exp.Expression) -> ColumnElement[bool]:
        op = type(node)
        if isinstance(node.this, exp.Literal) and not isinstance(node.expression, exp.Literal):
            node = REVERSED[op](this=node.expression, expression=node.this)
            op = type(node)
        key, value = self._key_and_literal(node.this, node.expression)
        compare = COMPARISONS[op]
        return self._on_key(key, lambda v, typed: compare(v, self._literal(value, typed, key)), typed=True)

    def _key_and_literal(self, left: exp.Expression, right: exp.Expression) -> tuple[str, exp.Literal]:
        while isinstance(left, exp.Paren):
            left = left.this
        if not isinstance(left, exp.Column):
            raise InvalidFilterError(f"Error parsing partition filter : expected a partition key, got {left.sql()}")
        key = left.name.lower()
        if key not in self.index:
            raise InvalidFilterError(f"{left.name} is not a partitioning key")
        negative = isinstance(right, exp.Neg)
        if negative:
            right = right.this
        if not isinstance(right, exp.Literal):
            raise InvalidFilterError(f"Error parsing partition filter : expected a literal, got {right.sql()}")
        if negative:
            right = exp.Literal(this="-" + right.this, is_string=right.is_string)
        return key, right

    def _literal(self, value: exp.Literal, typed: bool, key: str):
        if typed and self.index[key][1] in INTEGRAL_TYPES:
            try:
                return literal(int(value.this))
            except ValueError as e:
                raise InvalidFilterError(
                    f"Error parsing partition filter : {value.this!r} is not a valid value of {key}"
                ) from e
        return literal(str(value.this))

    def _on_key(self, key: str, predicate, typed: bool) -> ColumnElement[bool]:
        position, key_type = self.index[key]
        kv = schema.partition_key_val.alias()
        value = kv.c.key_val
        conditions = [kv.c.part_id == schema.partitions.c.part_id, kv.c.key_index == position]
        if typed and key_type in INTEGRAL_TYPES:
            conditions.append(value != DEFAULT_PARTITION_NAME)
            value = cast(value, BigInteger)
        conditions.append(predicate(value, typed))
        return exists(select(kv.c.part_id).where(*conditions))


def filter_to_clause(expression: exp.Expression, keys: list[Column]) -> ColumnElement[bool]:
    """The condition on ``partitions`` rows that selects the partitions the filter matches."""
    return _Translator(keys).clause(expression)
