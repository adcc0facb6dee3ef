"""Engine WHERE clauses: keep what constrains partition keys, never drop a partition that may match."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table
from hudi_catalog.partition_names import DEFAULT_PARTITION_NAME
from tests.support.partition_filters import (
    TYPES,
    BoolOp,
    Compare,
    Not,
    _and,
    _not,
    _or,
    create_random_table,
    typed,
    value_strategy,
)


@pytest.fixture
def events(catalog):
    catalog.databases.create(Database("w"))
    keys = [Column("date", "string"), Column("hour", "int")]
    catalog.tables.create(
        Table("w", "events", sd=StorageDescriptor(columns=[Column("ts", "string")]), partition_keys=keys)
    )
    rows = [["20220101", "0"], ["20220101", "1"], ["20220102", "0"], ["20220103", "23"]]
    catalog.partitions.add("w", "events", [Partition("w", "events", r) for r in rows])
    return catalog


def pruned(catalog, where):
    return sorted("/".join(p.values) for p in catalog.partitions.by_where("w", "events", where))


@pytest.mark.parametrize(
    "where,expected",
    [
        ("where date='20220101' and hour = '00' and ts = '0'", ["20220101/0"]),
        ("date = '20220101' or ts = '0'", ["20220101/0", "20220101/1", "20220102/0", "20220103/23"]),
        ("not (date = '20220101' and ts = '0')", ["20220101/0", "20220101/1", "20220102/0", "20220103/23"]),
        ("not (date = '20220101') and upper(ts) = 'X'", ["20220102/0", "20220103/23"]),
        ("e.date LIKE '2022010_' AND e.hour >= 1", ["20220101/1", "20220103/23"]),
        ("date like '%3'", ["20220103/23"]),
        ("hour in (0, 23) and (date = '20220102' or hour > 20)", ["20220102/0", "20220103/23"]),
        ("substr(date, 1, 4) = '2021'", ["20220101/0", "20220101/1", "20220102/0", "20220103/23"]),
        ("hour = 'not a number'", ["20220101/0", "20220101/1", "20220102/0", "20220103/23"]),
        ("", ["20220101/0", "20220101/1", "20220102/0", "20220103/23"]),
    ],
)
def test_where_clauses(events, where, expected):
    assert pruned(events, where) == expected


def test_cli_prints_pruned_partitions_as_json(events, db_url, warehouse):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "hms_adapter.cli",
            "partitions",
            "w.events",
            "--where",
            "date = '20220101' and ts > 'x'",
            "--json",
            "--db-url",
            db_url,
            "--warehouse",
            str(warehouse),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["table"] == "w.events"
    assert [p["name"] for p in answer["partitions"]] == ["date=20220101/hour=0", "date=20220101/hour=1"]
    assert answer["partitions"][0]["values"] == ["20220101", "0"]


@dataclass(frozen=True)
class DataTerm:
    """A term over a data column: the pruner cannot decide it."""

    number: int


def engine_literal(key_type, text):
    return text if key_type in ("int", "bigint") or key_type.startswith("decimal") else f"'{text}'"


def render(node, names, types):
    if isinstance(node, Compare):
        return f"{names[node.key]} {node.op} {engine_literal(types[node.key], node.literal)}"
    if isinstance(node, DataTerm):
        return f"payload > {node.number}"
    if isinstance(node, Not):
        return f"NOT ({render(node.inner, names, types)})"
    return f"({render(node.left, names, types)}) {node.op.upper()} ({render(node.right, names, types)})"


def evaluate(node, values, types, data):
    if isinstance(node, Compare):
        left = typed(types[node.key], values[node.key])
        return (
            None
            if left is None
            else {
                "=": left == typed(types[node.key], node.literal),
                "<>": left != typed(types[node.key], node.literal),
                "!=": left != typed(types[node.key], node.literal),
                "<": left < typed(types[node.key], node.literal),
                "<=": left <= typed(types[node.key], node.literal),
                ">": left > typed(types[node.key], node.literal),
                ">=": left >= typed(types[node.key], node.literal),
            }[node.op]
        )
    if isinstance(node, DataTerm):
        return data[node.number]
    if isinstance(node, Not):
        return _not(evaluate(node.inner, values, types, data))
    left, right = evaluate(node.left, values, types, data), evaluate(node.right, values, types, data)
    return _and(left, right) if node.op == "and" else _or(left, right)


def data_terms(node):
    if isinstance(node, DataTerm):
        return {node.number}
    if isinstance(node, Not):
        return data_terms(node.inner)
    if isinstance(node, BoolOp):
        return data_terms(node.left) | data_terms(node.right)
    return set()


@st.composite
def where_cases(draw):
    types = draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=3))

    def leaf_for(index):
        return st.builds(
            Compare, st.just(index), st.sampled_from(["=", "<>", "<", "<=", ">", ">="]), value_strategy(types[index])
        )

    leaves = st.one_of(st.integers(0, len(types) - 1).flatmap(leaf_for), st.builds(DataTerm, st.integers(0, 2)))
    tree = draw(
        st.recursive(
            leaves,
            lambda inner: st.one_of(
                st.builds(Not, inner), st.builds(BoolOp, st.sampled_from(["and", "or"]), inner, inner)
            ),
            max_leaves=6,
        )
    )
    rows = draw(
        st.lists(
            st.tuples(*[st.one_of(value_strategy(t), st.just(DEFAULT_PARTITION_NAME)) for t in types]),
            min_size=1,
            max_size=10,
            unique=True,
        )
    )
    return types, rows, tree


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(case=where_cases())
def test_where_pruning_never_drops_a_partition_that_may_match(catalog, case):
    types, rows, tree = case
    table, names = create_random_table(catalog, "wp", types, rows)

    where = render(tree, names, types)
    got = {tuple(p.values) for p in catalog.partitions.by_where("wp", table, where)}
    terms = sorted(data_terms(tree))
    for row in rows:
        may_match = any(
            evaluate(tree, row, types, dict(zip(terms, truth))) is True
            for truth in itertools.product([True, False, None], repeat=len(terms))
        )
        if may_match:
            assert row in got, where
        if not terms:
            assert (row in got) == may_match, where
    catalog.tables.drop("wp", table, delete_data=True)
