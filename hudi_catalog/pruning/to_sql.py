"""Turn a parsed partition filter into one SQLAlchemy condition over a table's partitions.

Each comparison of a partition key with a literal becomes ``part_id IN (...)`` over that key's
``partition_key_val`` rows of the table, an index range scan. Tests of one key joined by AND or OR share one
such lookup (a partition has exactly one row per key, so ``dt >= a AND dt < b`` is one range scan of the rows
between ``a`` and ``b``, not the intersection of two half-table scans). Keys of numeric, date and timestamp
types compare by value through the row's
``typed_val`` (an order-preserving text key written with the partition, see ``hudi_catalog.typed_keys``), so
``hr > 9`` matches ``hr=10`` and the comparison is a range over an index. Other keys compare as strings. The
default partition (``__HIVE_DEFAULT_PARTITION__``) has no typed key and never satisfies a typed comparison.
``LIKE`` takes its pattern as a Java regular expression over the whole value, as Hive Metastore does for
Hive 2/3 clients and Spark, matched by RE2 in linear time (``hudi_catalog.pruning.like``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import ColumnElement, Connection, and_, false, literal, not_, or_, select
from sqlalchemy.sql import FromClause
from sqlglot import exp

from ..errors import InvalidFilterError
from ..java_regex import PatternError, compile_java
from ..model import Column
from ..partition_names import DEFAULT_PARTITION_NAME
from ..store import schema
from ..typed_keys import type_family, typed_key
from .comparisons import COMPARISONS, NEGATED, REVERSED
from .like import LikeTest, like_test
from .literal_lists import LiteralList
from .value_lists import ValueList


@dataclass(frozen=True)
class _KeyTest:
    """A test of one partition key's value, kept open so that tests of the same key can merge."""

    position: int
    test: Callable[[FromClause], ColumnElement[bool]]
    """The condition on a ``partition_key_val`` row of this key."""


_Clause = _KeyTest | ColumnElement[bool]

STRING_KEYS_ONLY = "Filtering is supported only on partition keys of type string"
"""Hive Metastore's refusal of a number compared with a string key (its JDO filter's words)."""


class _Translator:
    def __init__(
        self, keys: list[Column], tbl_id: int | None, like: LikeTest, default_partition_name: str, null_default: bool
    ) -> None:
        self.tbl_id = tbl_id
        self.like = like
        self.default_partition_name = default_partition_name
        self.null_default = null_default
        self.index = {c.name.lower(): (i, c.type.lower()) for i, c in enumerate(keys)}

    def condition(self, node: exp.Expr) -> ColumnElement[bool]:
        return self._lookup(self.clause(node))

    def clause(self, node: exp.Expr, negated: bool = False) -> _Clause:
        """The condition for ``node`` (or for ``NOT node``), with negations pushed down to the leaves.

        A typed key of the default partition has no value (SQL's NULL): it satisfies neither ``hr > 9`` nor
        ``NOT hr > 9``. With negations at the leaves and such leaves false, the result is exactly SQL's
        three-valued logic, as Hive Metastore evaluates filters.
        """
        if isinstance(node, exp.Paren):
            return self.clause(node.this, negated)
        if isinstance(node, exp.Not):
            return self.clause(node.this, not negated)
        if isinstance(node, (exp.And, exp.Or)):
            combine = and_ if isinstance(node, exp.And) != negated else or_
            return self._combine(combine, [self.clause(n, negated) for n in _operands(node)])
        if isinstance(node, exp.Binary) and type(node) in COMPARISONS:
            return self._comparison(node, negated)
        if isinstance(node, exp.Like):
            key, pattern = self._key_and_literal(node.this, node.expression)
            try:
                regex = compile_java(pattern.this)
            except PatternError as error:
                raise InvalidFilterError(
                    f"Error parsing partition filter : invalid LIKE pattern {pattern.this!r}: {error}"
                ) from None
            position = self.index[key][0]
            return self._on_key(key, lambda value: self.like(position, value, regex, negated), typed=False)
        if isinstance(node, exp.In):
            target = node.this
            while isinstance(target, exp.Paren):
                target = target.this
            if isinstance(target, exp.Column):
                return self._in_list(target, node.expressions, negated)
            equalities = self._equalities(node)
            if not equalities:
                return not_(false()) if negated else false()
            return self._combine(and_ if negated else or_, [self.clause(e, negated) for e in equalities])
        if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
            # a key is NULL in the default partition, whose value in the name stands for it
            key, default = self._key(node.this), self.default_partition_name
            position = self.index[key][0]
            return _KeyTest(position, lambda kv: kv.c.key_val != default if negated else kv.c.key_val == default)
        if isinstance(node, exp.Between):
            low = exp.GTE(this=node.this, expression=node.args["low"])
            high = exp.LTE(this=node.this, expression=node.args["high"])
            return self.clause(exp.And(this=low, expression=high), negated)
        raise InvalidFilterError(f"Error parsing partition filter : unsupported expression {node.sql()}")

    def _in_list(self, column: exp.Column, items: list[exp.Expr], negated: bool) -> _KeyTest:
        """``k [NOT] IN (a, b, ...)`` as one index lookup of the listed values."""
        if len(items) == 1 and isinstance(items[0], LiteralList):
            return self._long_list(column, items[0], negated)
        bounds = []
        for item in items:
            key, value = self._key_and_literal(column, item)
            bounds.append(self._literal(value, key))
        return self._on_key(key, lambda col: col.not_in(bounds) if negated else col.in_(bounds), typed=True)

    def _long_list(self, column: exp.Column, items: LiteralList, negated: bool) -> _KeyTest:
        """A ``LiteralList``'s values bound as one expanding parameter (typed keys: their typed keys)."""
        key, _ = self._key_and_literal(column, exp.Literal.string(""))
        key_type, values = self.index[key][1], items.args["values"]
        if type_family(key_type) is None and items.args["numbers"]:
            raise InvalidFilterError(STRING_KEYS_ONLY)
        if type_family(key_type) is not None:
            encoded = []
            for value in values:
                typed = typed_key(key_type, value)
                if typed is None:
                    raise InvalidFilterError(
                        f"Error parsing partition filter : {value!r} is not a valid {key_type} value for {key}"
                    )
                encoded.append(typed)
            values = encoded
        return self._on_key(key, lambda col: ValueList(col, values, negated), typed=True)

    @staticmethod
    def _equalities(node: exp.In) -> list[exp.Expr]:
        """``k IN (a, b)`` as ``[k = a, k = b]``; ``(struct(k1, k2)) IN (struct(a1, a2), ...)`` as
        ``[k1 = a1 AND k2 = a2, ...]``."""
        target = node.this
        while isinstance(target, exp.Paren):
            target = target.this
        if not isinstance(target, exp.Struct):
            return [exp.EQ(this=node.this, expression=e) for e in node.expressions]

        def fields(struct: exp.Expr) -> list[exp.Expr]:
            if not isinstance(struct, exp.Struct):
                raise InvalidFilterError(f"Error parsing partition filter : expected a struct, got {struct.sql()}")
            return [f.expression if isinstance(f, exp.PropertyEQ) else f for f in struct.expressions]

        keys = fields(target)
        equalities: list[exp.Expr] = []
        for row in node.expressions:
            values = fields(row)
            if len(values) != len(keys):
                raise InvalidFilterError(
                    f"Error parsing partition filter : {row.sql()} does not match {len(keys)} keys"
                )
            terms = [exp.EQ(this=k, expression=v) for k, v in zip(keys, values)]
            equalities.append(terms[0] if len(terms) == 1 else exp.and_(*terms))
        return equalities

    def _comparison(self, node: exp.Binary, negated: bool) -> _KeyTest:
        op = type(node)
        if isinstance(node.this, exp.Literal) and not isinstance(node.expression, exp.Literal):
            node = REVERSED[op](this=node.expression, expression=node.this)
            op = type(node)
        if negated:
            op = NEGATED[op]
        key, value = self._key_and_literal(node.this, node.expression)
        compare, bound = COMPARISONS[op], self._literal(value, key)
        return self._on_key(key, lambda column: compare(column, bound), typed=True)

    def _key(self, left: exp.Expr) -> str:
        """The partition key ``left`` names, in lower case."""
        while isinstance(left, exp.Paren):
            left = left.this
        if not isinstance(left, exp.Column):
            raise InvalidFilterError(f"Error parsing partition filter : expected a partition key, got {left.sql()}")
        key = left.name.lower()
        if key not in self.index:
            raise InvalidFilterError(f"{left.name} is not a partitioning key")
        return key

    def _key_and_literal(self, left: exp.Expr, right: exp.Expr) -> tuple[str, exp.Literal]:
        key = self._key(left)
        negative = isinstance(right, exp.Neg)
        if negative:
            right = right.this
        if isinstance(right, exp.Cast) and isinstance(right.this, exp.Literal):
            right = right.this  # date '2024-01-01', timestamp '...': the key's type decides how it compares
        if not isinstance(right, exp.Literal):
            raise InvalidFilterError(f"Error parsing partition filter : expected a literal, got {right.sql()}")
        if negative:
            right = exp.Literal(this="-" + right.this, is_string=right.is_string)
        return key, right

    def _literal(self, value: exp.Literal, key: str):
        """The bound parameter to compare with: the typed key of the literal for typed partition keys.

        A string key compared with a number is refused, as Hive Metastore refuses it: whether ``s = 5`` should
        match ``s=05`` (Hive's SQL compares such operands as doubles) is the engine's to decide, and an engine
        evaluates the filter itself when the metastore refuses it."""
        key_type = self.index[key][1]
        if type_family(key_type) is None:
            if not value.is_string:
                raise InvalidFilterError(STRING_KEYS_ONLY)
            return literal(str(value.this))
        encoded = typed_key(key_type, str(value.this))
        if encoded is None:
            raise InvalidFilterError(
                f"Error parsing partition filter : {value.this!r} is not a valid {key_type} value for {key}"
            )
        return literal(encoded)

    def _on_key(self, key: str, predicate, typed: bool) -> _KeyTest:
        """A test of ``key``'s value: its ``typed_val`` for typed keys when ``typed``, else its text."""
        position, key_type = self.index[key]
        use_typed = typed and type_family(key_type) is not None
        if self.null_default and not use_typed:  # the default partition's value is NULL: no test holds for it
            default = self.default_partition_name
            return _KeyTest(position, lambda kv: and_(predicate(kv.c.key_val), kv.c.key_val != default))
        return _KeyTest(position, lambda kv: predicate(kv.c.typed_val if use_typed else kv.c.key_val))

    def _combine(self, combine, parts: list[_Clause]) -> _Clause:
        """``combine`` (``and_`` or ``or_``) of ``parts``, merging the tests of each key into one."""
        merged: dict[int, _KeyTest] = {}
        others: list[ColumnElement[bool]] = []
        for part in parts:
            if not isinstance(part, _KeyTest):
                others.append(part)
            elif part.position in merged:
                first = merged[part.position]
                merged[part.position] = _KeyTest(part.position, _both(combine, first.test, part.test))
            else:
                merged[part.position] = part
        if not others and len(merged) == 1:
            return next(iter(merged.values()))
        return combine(*others, *(self._lookup(test) for test in merged.values()))

    def _lookup(self, clause: _Clause) -> ColumnElement[bool]:
        """``part_id IN (ids whose row of the key passes the test)``: an index range scan."""
        if not isinstance(clause, _KeyTest):
            return clause
        kv = schema.partition_key_val.alias()
        return schema.partitions.c.part_id.in_(
            select(kv.c.part_id).where(kv.c.tbl_id == self.tbl_id, kv.c.key_index == clause.position, clause.test(kv))
        )


_Test = Callable[[FromClause], ColumnElement[bool]]


def _both(combine, first: _Test, second: _Test) -> _Test:
    """The test that ``combine`` (``and_`` or ``or_``) makes of two tests of one key."""
    return lambda kv: combine(first(kv), second(kv))


def _operands(node: exp.Connector) -> list[exp.Expr]:
    """The operands of a chain of one connective: ``a AND (b AND c)`` gives ``[a, b, c]``."""
    kind = type(node)
    result: list[exp.Expr] = []
    for child in (node.left, node.right):
        while isinstance(child, exp.Paren):
            child = child.this
        if type(child) is kind and isinstance(child, exp.Connector):
            result.extend(_operands(child))
        else:
            result.append(child)
    return result


def filter_to_clause(
    expression: exp.Expr,
    keys: list[Column],
    tbl_id: int | None = None,
    conn: Connection | None = None,
    default_partition_name: str = DEFAULT_PARTITION_NAME,
    null_default: bool = False,
) -> ColumnElement[bool]:
    """The condition on the ``partitions`` rows of table ``tbl_id`` that selects those the filter matches.

    ``conn`` is the transaction the condition will run in: on MariaDB and PostgreSQL, ``LIKE`` reads the
    key's values through it (``hudi_catalog.pruning.like``). Without it the filter is only checked.
    ``k IS [NOT] NULL`` tests whether ``k``'s value is ``default_partition_name``. With ``null_default``, that
    value is NULL for every test of a string key too (as it always is for typed keys): a default partition
    satisfies neither ``k = 'x'`` nor ``NOT k = 'x'``, as Hive evaluates an expression in memory.
    """
    try:
        translator = _Translator(keys, tbl_id, like_test(conn, tbl_id), default_partition_name, null_default)
        return translator.condition(expression)
    except RecursionError:
        raise InvalidFilterError("Error parsing partition filter : the filter is nested too deeply") from None
