"""Turn a decoded Hive expression (``hive_expressions``) into the pruning's filter: the same sqlglot tree a
filter string parses into, so both end in the same SQL (``to_sql``).

What translates: comparisons of a partition key with a constant of its kind (text for string keys; numbers,
dates, timestamps for typed keys): ``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=``, and ``<=>`` and ``IS DISTINCT
FROM``, which hold or fail for NULL but are never NULL themselves; ``IN`` lists, ``BETWEEN`` and ``NOT
BETWEEN``; ``IS [NOT] NULL`` (the default partition, as Apache Hive Metastore rewrites it); ``LIKE`` (Hive's
SQL wildcards, ``\\`` escaping, turned into the Java regular expression the pruning matches); and ``AND``,
``OR``, ``NOT`` over those. Anything else (a cast of a key, a function, a comparison with NULL) does not
translate. A comparison with NULL is NULL, and Apache Hive Metastore answers a partition whose expression is
NULL as one it cannot decide (``hasUnknownPartitions``) unless a key of it has the default value: Hive's
client, falling back, decides it the same way.

The result says whether it is ``exact``. A part that does not translate is dropped from an ``AND`` (the
filter then selects more partitions than the expression: a superset), and makes an ``OR`` or a ``NOT`` that
holds it untranslatable as a whole. A caller that needs the exact partitions (a drop, a list of names)
refuses an inexact filter; a read can let the client prune.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from decimal import Decimal

from sqlglot import exp

from ..java_regex import sql_like_to_regex
from ..partition_names import DEFAULT_PARTITION_NAME
from ..typed_keys import type_family
from .hive_expressions import Call, Column, Constant, Node

_COMPARISONS: dict[str, type[exp.Binary]] = {
    "=": exp.EQ,
    "<=>": exp.EQ,
    "is distinct from": exp.EQ,
    "<>": exp.NEQ,
    "<": exp.LT,
    "<=": exp.LTE,
    ">": exp.GT,
    ">=": exp.GTE,
}
_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass(frozen=True, repr=False)
class ExpressionFilter:
    """A Hive expression as a partition filter."""

    tree: exp.Expr | None
    """The filter, or None for every partition."""
    exact: bool
    """Whether ``tree`` selects exactly the partitions the expression holds for (else a superset)."""
    text: str
    """The expression as Hive writes it (``getExprString``): for logs and the read cache's keys."""
    default_partition_name: str = DEFAULT_PARTITION_NAME
    """The value that stands for NULL in partition names (the request's, or Hive's default)."""
    null_default: bool = False
    """Whether the default partition's value is NULL for string keys too: Apache Hive Metastore's filter
    language has no ``NOT`` and no ``<=>``, so it evaluates an expression that holds one in memory, where it is
    (an expression it can write as a filter runs in SQL, where a string key's default value is its text)."""

    @property
    def cache_key(self) -> tuple[str, str, str, bool]:
        """What the read cache keys an answer of this filter on."""
        return ("hive expression", self.text, self.default_partition_name, self.null_default)

    def __repr__(self) -> str:
        return f"expression {self.text!r}"


def expression_filter(node: Node, default_partition_name: str | None = None) -> ExpressionFilter:
    """The filter of a decoded expression; see the module's docstring."""
    tree, exact = _translate(node)
    default = default_partition_name or DEFAULT_PARTITION_NAME
    return ExpressionFilter(tree, exact, render(node), default, _evaluated_in_memory(node))


def _evaluated_in_memory(node: Node) -> bool:
    """Whether Apache Hive Metastore evaluates ``node`` in memory (``ExpressionFilter.null_default``): it holds
    a ``NOT`` (but ``NOT x IS NULL``, which it rewrites) or a ``<=>``."""
    if not isinstance(node, Call):
        return False
    if node.function == "<=>" or (node.function == "not" and not _is_null_test(node.children[0])):
        return True
    return any(_evaluated_in_memory(child) for child in node.children)


def _is_null_test(node: Node) -> bool:
    return isinstance(node, Call) and node.function in ("isnull", "isnotnull")


def _translate(node: Node) -> tuple[exp.Expr | None, bool]:
    """``(tree, exact)``; ``(None, False)`` when nothing of ``node`` translates."""
    if not isinstance(node, Call):
        return None, False
    name, args = node.function, node.children
    if name == "and":
        parts = [_translate(child) for child in args]
        kept = [tree for tree, _ in parts if tree is not None]
        exact = all(part_exact for _, part_exact in parts)
        return (exp.and_(*kept) if kept else None), exact
    if name in ("or", "not"):
        trees = []
        for child in args:
            tree, exact = _translate(child)
            if tree is None or not exact:
                return None, False
            trees.append(tree)
        if not trees:
            return None, False
        return (exp.or_(*trees) if name == "or" else exp.not_(trees[0])), True
    tree = _leaf(name, args)
    return tree, tree is not None


def _leaf(name: str, args: tuple[Node, ...]) -> exp.Expr | None:  # noqa: PLR0911 - one return per form
    if name in _COMPARISONS and len(args) == 2:
        left, right = args
        if isinstance(left, Constant) and isinstance(right, Column):
            left, right, name = right, left, _MIRRORED.get(name, name)
        if isinstance(left, Column) and isinstance(right, Constant):
            if right.value is None:  # <=> NULL tests for NULL; other comparisons are NULL (see the docstring)
                return exp.Is(this=_column(left), expression=exp.Null()) if name == "<=>" else None
            literal = _literal(left, right)
            if literal is None:
                return None
            comparison = _COMPARISONS[name](this=_column(left), expression=literal)
            if name in ("<=>", "is distinct from"):  # null-safe: never NULL, so its negation holds for NULL
                known = exp.not_(exp.Is(this=_column(left), expression=exp.Null()))
                same = exp.and_(known, comparison)
                return same if name == "<=>" else exp.not_(same)
            return comparison
        return None
    if name == "in" and len(args) > 1 and isinstance(args[0], Column):
        literals = [_literal(args[0], value) if isinstance(value, Constant) else None for value in args[1:]]
        if any(literal is None for literal in literals):
            return None
        return exp.In(this=_column(args[0]), expressions=literals)
    if name == "between" and len(args) == 4:
        invert, key, low, high = args
        if not (isinstance(invert, Constant) and isinstance(invert.value, bool) and isinstance(key, Column)):
            return None
        bounds = [_literal(key, bound) if isinstance(bound, Constant) else None for bound in (low, high)]
        if bounds[0] is None or bounds[1] is None:
            return None
        between = exp.Between(this=_column(key), low=bounds[0], high=bounds[1])
        return exp.not_(between) if invert.value else between
    if name in ("isnull", "isnotnull") and len(args) == 1 and isinstance(args[0], Column):
        is_null = exp.Is(this=_column(args[0]), expression=exp.Null())
        return is_null if name == "isnull" else exp.not_(is_null)
    if name == "like" and len(args) == 2 and isinstance(args[0], Column) and isinstance(args[1], Constant):
        pattern = args[1].value
        if not isinstance(pattern, str) or type_family(args[0].type_name) is not None:
            return None
        return exp.Like(this=_column(args[0]), expression=exp.Literal.string(sql_like_to_regex(pattern)))
    return None


def _column(column: Column) -> exp.Column:
    return exp.column(column.name, quoted=True)


def _literal(key: Column, constant: Constant) -> exp.Expr | None:
    """The literal to compare ``key`` with, when ``constant`` is of the key's kind: text for a string key, a
    number, date or timestamp for a typed one (the kind the pruning compares by); else None."""
    value, family = constant.value, type_family(key.type_name)
    if value is None or isinstance(value, bool):
        return None
    if family is None:
        return exp.Literal.string(value) if isinstance(value, str) else None
    if isinstance(value, datetime.datetime):
        return exp.Literal.string(value.isoformat(sep=" "))
    if isinstance(value, datetime.date):
        return exp.Literal.string(value.isoformat())
    if isinstance(value, (int, float, Decimal)):
        return exp.Literal.number(str(value))
    return None


def render(node: Node) -> str:
    """``node`` as Hive's ``getExprString`` writes it, near enough to read in a log."""
    if isinstance(node, Column):
        return node.name
    if isinstance(node, Constant):
        value = node.value
        if value is None:
            return "null"
        if isinstance(value, str):
            return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
        if isinstance(value, datetime.datetime):
            return f"TIMESTAMP'{value.isoformat(sep=' ')}'"
        if isinstance(value, datetime.date):
            return f"DATE'{value.isoformat()}'"
        return str(value).lower() if isinstance(value, bool) else str(value)
    args = [render(child) for child in node.children]
    name = node.function
    if name in _COMPARISONS or name in ("and", "or", "like", "is distinct from"):
        return "(" + f" {name} ".join(args) + ")"
    if name == "not":
        return f"(not {args[0]})"
    if name == "in":
        return f"({args[0]}) IN ({', '.join(args[1:])})"
    if name == "between" and len(args) == 4:
        return f"{args[1]} {'NOT ' if args[0] == 'true' else ''}BETWEEN {args[2]} AND {args[3]}"
    if name in ("isnull", "isnotnull") and args:
        return f"{args[0]} is {'not ' if name == 'isnotnull' else ''}null"
    return f"{name}({', '.join(args)})"
