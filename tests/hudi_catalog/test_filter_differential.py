"""A differential run of generated partition filters: one table of four typed keys (string, int, date,
decimal) and partitions with the default partition among their values; filters generated with a fixed seed
(comparisons, LIKE, IN lists short and long, BETWEEN, NOT, AND, OR) answered by the catalog's SQL and by the
independent Python evaluator of ``test_pruning_properties`` (SQL's three-valued logic), which must agree.

``HMS_DIFFERENTIAL_FILTERS`` sets how many filters (default 600 per store); ``HMS_FUZZ_SEED`` the seed.
``HMS_DIFFERENTIAL_FILTERS=100000 pytest tests/hudi_catalog/test_filter_differential.py -k sqlite`` is the
longer run (docs/pruning.md).
"""

from __future__ import annotations

import os
import random

from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table
from hudi_catalog.partition_names import DEFAULT_PARTITION_NAME
from tests.support.partition_filters import (
    OPS,
    Between,
    BoolOp,
    Compare,
    In,
    Like,
    Not,
    evaluate,
    render,
)

COUNT = int(os.environ.get("HMS_DIFFERENTIAL_FILTERS", "600"))
SEED = int(os.environ.get("HMS_FUZZ_SEED", "20261125"))
TYPES = ["string", "int", "date", "decimal(10,2)"]
VALUES = {
    "string": ["a", "b", "B", "ab", "a b", "z", "10", "9"],
    "int": [str(i) for i in range(-3, 11)],
    "date": ["2023-12-30", "2023-12-31", "2024-01-01", "2024-01-02", "2024-01-03"],
    "decimal(10,2)": ["-1.50", "-1.5", "0.00", "0.10", "2.25", "10.00", "9"],
}
PATTERNS = ["a.*", ".*b", "a|z", "[0-9]+", ".*", "(?i)b"]


def _leaf(rng: random.Random):
    key = rng.randrange(len(TYPES))
    values = VALUES[TYPES[key]]
    shape = rng.randrange(5 if TYPES[key] == "string" else 4)
    if shape == 0:
        return Compare(key, rng.choice(sorted(OPS)), rng.choice(values))
    if shape == 1:
        return In(key, tuple(rng.choice(values) for _ in range(rng.randint(1, 4))), rng.random() < 0.3)
    if shape == 2:  # long enough for the literal-list reader
        return In(key, tuple(rng.choice(values) for _ in range(rng.randint(64, 200))), rng.random() < 0.3)
    if shape == 3:
        return Between(key, rng.choice(values), rng.choice(values), rng.random() < 0.3)
    return Like(key, rng.choice(PATTERNS))


def _tree(rng: random.Random, depth: int = 0):
    if depth >= 3 or rng.random() < 0.4:
        return _leaf(rng)
    if rng.random() < 0.2:
        return Not(_tree(rng, depth + 1))
    return BoolOp(rng.choice(["and", "or"]), _tree(rng, depth + 1), _tree(rng, depth + 1))


def test_generated_filters_answer_as_the_independent_evaluator(catalog):
    rng = random.Random(SEED)
    rows = set()
    while len(rows) < 80:
        rows.add(tuple(rng.choice(VALUES[t] + [DEFAULT_PARTITION_NAME] * (rng.random() < 0.1)) for t in TYPES))
    names = [f"k{i}" for i in range(len(TYPES))]
    catalog.databases.create(Database("diff"))
    catalog.tables.create(
        Table(
            "diff",
            "t",
            sd=StorageDescriptor(columns=[Column("x", "int")]),
            partition_keys=[Column(n, t) for n, t in zip(names, TYPES)],
        )
    )
    catalog.partitions.add("diff", "t", [Partition("diff", "t", list(r)) for r in rows])
    mismatches = []
    for _ in range(COUNT):
        tree = _tree(rng)
        text = render(tree, names, TYPES)
        got = sorted(tuple(p.values) for p in catalog.partitions.by_filter("diff", "t", text))
        expected = sorted(r for r in rows if evaluate(tree, r, TYPES) is True)
        if got != expected:
            mismatches.append(text)
    assert not mismatches, f"{len(mismatches)} of {COUNT} filters differ, e.g. {mismatches[:3]}"
