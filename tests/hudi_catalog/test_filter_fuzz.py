"""Partition filters fuzzed with a fixed seed: a random grammar of Hive's filter language (comparisons, LIKE,
IN lists short and long, BETWEEN, NOT, AND/OR, parentheses), then mutated (characters dropped, doubled or
swapped, quotes cut), plus deep nesting and huge lists. Every filter either answers or is refused with
``InvalidFilterError`` (a ``MetaException`` on the wire): nothing else escapes.

``HMS_FILTER_FUZZ`` sets how many filters (default 1,500); ``HMS_FUZZ_SEED`` the seed.
"""

from __future__ import annotations

import os
import random

import pytest

from hudi_catalog.errors import InvalidFilterError
from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table

COUNT = int(os.environ.get("HMS_FILTER_FUZZ", "1500"))
SEED = int(os.environ.get("HMS_FUZZ_SEED", "20261125"))
KEYS = {"ds": "string", "hr": "int", "day": "date", "amount": "decimal(10,2)"}
OPERATORS = ["=", "!=", "<>", "<", "<=", ">", ">=", "<=>"]


def _literal(rng: random.Random, key: str) -> str:
    kind = KEYS.get(key, "string")
    choices = {
        "string": [f"'{rng.choice(['a', 'b', '2024', 'x y', ''])}'", f'"{rng.choice(["a", "z"])}"'],
        "int": [str(rng.randint(-5, 30)), f"'{rng.randint(0, 9)}'", "-0", "99999999999999999999"],
        "date": ["2024-01-02", "'2024-01-03'", "date '2024-01-01'", "'not a date'"],
        "decimal(10,2)": ["1.5", "-2.25", "'3'", "1e3"],
    }[kind]
    return rng.choice(choices + ["null", "true", "'\\''"])


def _key(rng: random.Random) -> str:
    return rng.choice(list(KEYS) + ["nokey", "`ds`", "DS"])


def _expression(rng: random.Random, depth: int = 0) -> str:
    if depth > 4 or rng.random() < 0.35:
        key = _key(rng)
        shape = rng.randrange(6)
        if shape == 0:
            return f"{key} {rng.choice(OPERATORS)} {_literal(rng, key)}"
        if shape == 1:
            return f"{_literal(rng, key)} {rng.choice(OPERATORS)} {key}"
        if shape == 2:
            return f"{key} {rng.choice(['like', 'LIKE', 'not like'])} '{rng.choice(['a.*', '[', '2024-.*', '(?i)A'])}'"
        if shape == 3:
            size = rng.choice([1, 3, 64, 300])
            return f"{key} {rng.choice(['in', 'not in', 'IN'])} ({', '.join(_literal(rng, key) for _ in range(size))})"
        if shape == 4:
            return f"{key} between {_literal(rng, key)} and {_literal(rng, key)}"
        return f"({key}, {_key(rng)}) in (struct({_literal(rng, key)}, 1))"
    connective = rng.choice(["and", "or", "AND", "OR"])
    inner = f"{_expression(rng, depth + 1)} {connective} {_expression(rng, depth + 1)}"
    return rng.choice([inner, f"({inner})", f"not ({inner})"])


def _mutate(rng: random.Random, text: str) -> str:
    if not text or rng.random() < 0.5:
        return text
    i = rng.randrange(len(text))
    return rng.choice(
        [
            text[:i] + text[i + 1 :],
            text[:i] + text[i] * 2 + text[i:],
            text[:i],
            text[i:],
            text[:i] + rng.choice("()'\"=<>,` \\") + text[i:],
        ]
    )


@pytest.fixture
def fuzz_table(catalog):
    catalog.databases.create(Database("fuzz"))
    keys = [Column(name, kind) for name, kind in KEYS.items()]
    catalog.tables.create(Table("fuzz", "t", sd=StorageDescriptor(columns=[Column("x", "int")]), partition_keys=keys))
    rng = random.Random(SEED)
    catalog.partitions.add(
        "fuzz",
        "t",
        [
            Partition("fuzz", "t", [rng.choice(["a", "b", "2024"]), str(h), f"2024-01-0{1 + h % 3}", f"{h / 2:.2f}"])
            for h in range(12)
        ],
    )
    return catalog


def test_fuzzed_filters_answer_or_are_refused_with_a_typed_error(fuzz_table):
    rng = random.Random(SEED)
    answered = refused = 0
    count = COUNT // 2 if "mysql" in str(fuzz_table.store.engine.url) else COUNT
    for _ in range(count):
        text = _mutate(rng, _expression(rng))
        try:
            fuzz_table.partitions.by_filter("fuzz", "t", text)
            answered += 1
        except InvalidFilterError:
            refused += 1
    assert answered > count // 50 and refused > count // 50  # the grammar reaches both outcomes


@pytest.mark.parametrize(
    "text",
    [
        "(" * 3000 + "hr = 1" + ")" * 3000,
        "not " * 3000 + "hr = 1",
        " or ".join(f"hr = {i}" for i in range(20_000)),
        " and ".join(f"(hr = {i} or ds = 'a')" for i in range(5_000)),
        "hr in (" + ", ".join(str(i) for i in range(150_000)) + ")",
        "ds = '" + "x" * 1_000_000 + "'",
        "hr = 1 " + "and" * 10_000,
    ],
    ids=["parentheses", "nots", "ors", "ands-of-ors", "huge-in", "long-string", "dangling-ands"],
)
def test_pathological_filters_are_answered_or_refused(fuzz_table, text):
    try:
        fuzz_table.partitions.by_filter("fuzz", "t", text)
    except InvalidFilterError:
        pass
