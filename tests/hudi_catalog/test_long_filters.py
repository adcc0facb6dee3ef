"""Long ``IN`` lists are read by ``pruning.literal_lists`` and answer exactly what the general parser's
path answers; filters over ``FilterLimits`` are refused with a clear error, on SQLite and MariaDB."""

from __future__ import annotations

import pytest

from hudi_catalog import Catalog
from hudi_catalog.errors import InvalidFilterError, InvalidInputError
from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table
from hudi_catalog.pruning import literal_lists
from hudi_catalog.pruning.parse import FilterLimits

PARTITIONS = [(f"v{i}", i) for i in range(0, 600, 3)]


@pytest.fixture
def events(catalog: Catalog) -> Catalog:
    catalog.databases.create(Database("lists"))
    catalog.tables.create(
        Table(
            "lists",
            "events",
            sd=StorageDescriptor(columns=[Column("x", "int")]),
            partition_keys=[Column("name", "string"), Column("hr", "int")],
        )
    )
    catalog.partitions.add("lists", "events", [Partition("lists", "events", [n, str(h)]) for n, h in PARTITIONS])
    return catalog


def _names(catalog, text):
    return sorted(f"name={p.values[0]}/hr={p.values[1]}" for p in catalog.partitions.by_filter("lists", "events", text))


def _expected(match):
    return sorted(f"name={n}/hr={h}" for n, h in PARTITIONS if match(n, h))


def test_a_list_of_100000_values_answers_as_the_parser_would(events):
    names = [f"v{i}" for i in range(100_000)]
    hours = list(range(-50_000, 50_000))
    quoted = ", ".join(f"'{n}'" for n in names)
    assert _names(events, f"name in ({quoted})") == _expected(lambda n, h: True)
    assert _names(events, f"name not in ({quoted}) or hr = 3") == _expected(lambda n, h: h == 3)
    assert _names(events, f"hr in ({', '.join(map(str, hours))}) and name = 'v9'") == _expected(lambda n, h: n == "v9")
    odd = ", ".join(f'"{h}"' for h in range(1, 1000, 2))  # quoted numbers on an int key, double quotes
    assert _names(events, f"hr in ({odd})") == _expected(lambda n, h: h % 2 == 1)


@pytest.mark.parametrize("count", [literal_lists.MIN_VALUES - 1, literal_lists.MIN_VALUES])
def test_lists_either_side_of_the_threshold_agree(events, count):
    wanted = [f"v{i}" for i in range(0, count * 3, 3)]
    text = f"name in ({', '.join(repr(w) for w in wanted)}) and hr >= 30"
    assert _names(events, text) == _expected(lambda n, h: n in wanted and h >= 30)


def test_lists_the_fast_path_does_not_take_still_work(events):
    quoted_in = "name in (" + ", ".join(f"'v{i}'" for i in range(100)) + ") and name != 'in (x)'"
    assert _names(events, quoted_in) == _expected(lambda n, h: int(n[1:]) < 100)
    escaped = "name in (" + ", ".join([r"'a\'b'"] + [f"'v{i}'" for i in range(100)]) + ")"
    assert _names(events, escaped) == _expected(lambda n, h: int(n[1:]) < 100)


def test_bad_values_of_a_long_list_are_refused_like_short_ones(events):
    with pytest.raises(InvalidFilterError, match="not a valid int value for hr"):
        _names(events, "hr in (" + ", ".join(["'x'"] + [str(i) for i in range(100)]) + ")")


def test_filters_over_the_limits_are_refused(events):
    events.ctx.filter_limits = FilterLimits(max_length=5000, max_terms=100)
    with pytest.raises(InvalidFilterError, match="over the limit of 5000 .serve --max-filter-length."):
        _names(events, "name = '" + "x" * 6000 + "'")
    with pytest.raises(InvalidFilterError, match="101 terms, over the limit of 100 .serve --max-filter-terms."):
        _names(events, "hr in (" + ", ".join(str(i) for i in range(101)) + ")")
    with pytest.raises(InvalidFilterError, match="over the limit of 100"):
        _names(events, " or ".join(f"hr = {i}" for i in range(101)))
    assert _names(events, "hr in (" + ", ".join(str(i) for i in range(99)) + ")") == _expected(lambda n, h: h < 99)


def test_a_literal_that_looks_like_a_placeholder_stays_a_literal(events):
    listed = ", ".join(f"'v{i}'" for i in range(0, 300, 3))
    text = f"name in ('\x00list:0', '\x00list:x:0') or name in ({listed})"
    if events.store.dialect == "postgresql":  # PostgreSQL text holds no NUL: the value is refused
        with pytest.raises(InvalidInputError, match="NUL"):
            _names(events, text)
        return
    assert _names(events, text) == _expected(lambda n, h: int(n[1:]) < 300)
