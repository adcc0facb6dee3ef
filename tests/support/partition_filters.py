"""Random partition filters for the pruning tests, and a table to run them on.

A filter is a tree of comparisons, ``LIKE``, ``IN`` and ``BETWEEN`` on partition keys of the types in
``TYPES`` (string, int, bigint, date, decimal), under ``NOT``, ``AND`` and ``OR``. ``render`` writes it as
Hive filter text for the catalog; ``evaluate`` evaluates it directly on a partition's values with SQL's
three-valued logic, where a typed key of the default partition is NULL.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from dataclasses import dataclass
from decimal import Decimal

from hypothesis import strategies as st

from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table
from hudi_catalog.partition_names import DEFAULT_PARTITION_NAME

TYPES = ["string", "int", "bigint", "date", "decimal(10,2)"]
_table_numbers = itertools.count()


def value_strategy(key_type: str):
    if key_type == "string":
        return st.sampled_from(["a", "b", "B", "ab", "a b", "z", "10", "9", ""]).filter(bool)
    # small domains, so that literals often equal partition values and boundaries are exercised
    if key_type in ("int", "bigint"):
        return st.integers(-3, 10).map(str)
    if key_type == "date":
        return st.dates(dt.date(2023, 12, 30), dt.date(2024, 1, 3)).map(lambda d: d.isoformat())
    return st.sampled_from(["-1.50", "-1.5", "0.00", "0.10", "2.25", "10.00", "9"])


def typed(key_type: str, text: str):
    """The value a typed comparison sees; ``None`` (SQL NULL) for the default partition."""
    if text == DEFAULT_PARTITION_NAME and key_type != "string":
        return None
    if key_type in ("int", "bigint"):
        return int(text)
    if key_type == "date":
        return dt.date.fromisoformat(text)
    if key_type.startswith("decimal"):
        return Decimal(text)
    return text


@dataclass(frozen=True)
class Compare:
    key: int
    op: str
    literal: str


@dataclass(frozen=True)
class Like:
    key: int
    pattern: str


@dataclass(frozen=True)
class In:
    key: int
    literals: tuple[str, ...]
    negated: bool


@dataclass(frozen=True)
class Between:
    key: int
    low: str
    high: str
    negated: bool


@dataclass(frozen=True)
class Not:
    inner: object


@dataclass(frozen=True)
class BoolOp:
    op: str
    left: object
    right: object


OPS = {
    "=": lambda a, b: a == b,
    "<>": lambda a, b: a != b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def leaf_strategy(types):
    def for_key(index):
        key_type = types[index]
        values = value_strategy(key_type)
        leaves = [
            st.builds(Compare, st.just(index), st.sampled_from(sorted(OPS)), values),
            st.builds(In, st.just(index), st.lists(values, min_size=1, max_size=3).map(tuple), st.booleans()),
            st.builds(Between, st.just(index), values, values, st.booleans()),
        ]
        if key_type == "string":
            leaves.append(st.builds(Like, st.just(index), st.sampled_from(["a.*", ".*b", "a|z", "[0-9]+", ".*"])))
        return st.one_of(leaves)

    return st.integers(0, len(types) - 1).flatmap(for_key)


def filter_strategy(types):
    return st.recursive(
        leaf_strategy(types),
        lambda inner: st.one_of(
            st.builds(Not, inner),
            st.builds(BoolOp, st.sampled_from(["and", "or"]), inner, inner),
        ),
        max_leaves=6,
    )


def quote(key_type, text):
    if key_type in ("int", "bigint") or key_type.startswith("decimal"):
        return text
    if key_type == "date":
        return f"date '{text}'"
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(node, names, types) -> str:
    if isinstance(node, Compare):
        return f"{names[node.key]} {node.op} {quote(types[node.key], node.literal)}"
    if isinstance(node, Like):
        return f'{names[node.key]} like "{node.pattern}"'
    if isinstance(node, In):
        items = ", ".join(quote(types[node.key], v) for v in node.literals)
        return f"{names[node.key]} {'not ' if node.negated else ''}in ({items})"
    if isinstance(node, Between):
        low, high = quote(types[node.key], node.low), quote(types[node.key], node.high)
        return f"{names[node.key]} {'not ' if node.negated else ''}between {low} and {high}"
    if isinstance(node, Not):
        return f"not ({render(node.inner, names, types)})"
    return f"({render(node.left, names, types)}) {node.op} ({render(node.right, names, types)})"


def evaluate(node, values, types):
    """SQL three-valued logic: True, False or None (unknown)."""
    if isinstance(node, Compare):
        left = typed(types[node.key], values[node.key])
        return None if left is None else OPS[node.op](left, typed(types[node.key], node.literal))
    if isinstance(node, Like):
        return re.fullmatch(node.pattern, values[node.key]) is not None
    if isinstance(node, In):
        results = [evaluate(Compare(node.key, "=", v), values, types) for v in node.literals]
        found = True if True in results else (None if None in results else False)
        return _not(found) if node.negated else found
    if isinstance(node, Between):
        inside = _and(
            evaluate(Compare(node.key, ">=", node.low), values, types),
            evaluate(Compare(node.key, "<=", node.high), values, types),
        )
        return _not(inside) if node.negated else inside
    if isinstance(node, Not):
        return _not(evaluate(node.inner, values, types))
    left, right = evaluate(node.left, values, types), evaluate(node.right, values, types)
    return _and(left, right) if node.op == "and" else _or(left, right)


def _not(a):
    return None if a is None else not a


def _and(a, b):
    return False if False in (a, b) else (None if None in (a, b) else True)


def _or(a, b):
    return True if True in (a, b) else (None if None in (a, b) else False)


def create_random_table(catalog, database: str, types: list[str], rows) -> tuple[str, list[str]]:
    """A fresh table with keys ``k0, k1, ...`` of ``types`` and one partition per row; ``(name, keys)``."""
    names = [f"k{i}" for i in range(len(types))]
    table = f"t{next(_table_numbers)}"
    if database not in catalog.databases.names():
        catalog.databases.create(Database(database))
    catalog.tables.create(
        Table(
            database,
            table,
            sd=StorageDescriptor(columns=[Column("payload", "int")]),
            partition_keys=[Column(n, t) for n, t in zip(names, types)],
        )
    )
    catalog.partitions.add(database, table, [Partition(database, table, list(r)) for r in rows])
    return table, names
