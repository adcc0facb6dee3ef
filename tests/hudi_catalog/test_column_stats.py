"""Column statistics in the catalog, on SQLite and MariaDB: kept per table, partition, column and engine,
merged and aggregated as Hive does, marked in ``COLUMN_STATS_ACCURATE``, following renames and going with
drops and with dropped or retyped columns; bad input is refused with nothing written."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from hudi_catalog.errors import InvalidInputError, NoSuchObjectError, NoSuchTableError, UnknownColumnError
from hudi_catalog.model import (
    Column,
    ColumnStats,
    ColumnStatsSet,
    Database,
    Partition,
    StatsKind,
    StorageDescriptor,
    Table,
)

COLUMNS = [
    Column("flag", "boolean"),
    Column("qty", "int"),
    Column("price", "double"),
    Column("amount", "decimal(12,2)"),
    Column("name", "string"),
    Column("blob", "binary"),
    Column("day", "date"),
    Column("at", "timestamp"),
]


def _every_kind() -> list[ColumnStats]:
    return [
        ColumnStats("flag", "boolean", StatsKind.BOOLEAN, num_nulls=1, num_trues=7, num_falses=2),
        ColumnStats(
            "qty",
            "int",
            StatsKind.LONG,
            num_nulls=0,
            num_distinct=5,
            low=-3,
            high=2**40,
            bit_vectors=b"HLL\x00\xff\x10",
        ),
        ColumnStats("price", "double", StatsKind.DOUBLE, num_nulls=2, num_distinct=9, low=-0.5, high=1e300),
        ColumnStats(
            "amount",
            "decimal(12,2)",
            StatsKind.DECIMAL,
            num_nulls=0,
            num_distinct=4,
            low=Decimal("-12345678901.25"),
            high=Decimal("0.10"),
        ),
        ColumnStats("name", "string", StatsKind.STRING, num_nulls=3, num_distinct=11, max_length=40, avg_length=7.25),
        ColumnStats("blob", "binary", StatsKind.BINARY, num_nulls=0, max_length=1024, avg_length=100.5),
        ColumnStats("day", "date", StatsKind.DATE, num_nulls=0, num_distinct=30, low=19000, high=19030),
        ColumnStats(
            "at",
            "timestamp",
            StatsKind.TIMESTAMP,
            num_nulls=0,
            num_distinct=3,
            low=1_600_000_000,
            high=1_700_000_000,
            histogram=b"\x01\x02",
        ),
    ]


@pytest.fixture
def shop(catalog):
    catalog.databases.create(Database("shop"))
    catalog.tables.create(
        Table("shop", "sales", sd=StorageDescriptor(columns=list(COLUMNS)), partition_keys=[Column("region", "string")])
    )
    catalog.partitions.add("shop", "sales", [Partition("shop", "sales", [r]) for r in ("eu", "us", "asia")])
    return catalog


def _by_column(stats: ColumnStatsSet) -> dict[str, ColumnStats]:
    return {s.column: s for s in stats.columns}


def _accurate(params: dict) -> dict:
    return json.loads(params["COLUMN_STATS_ACCURATE"])


def test_every_kind_round_trips_exactly_at_table_level(shop):
    shop.column_stats.update(ColumnStatsSet("Shop", "SALES", None, _every_kind(), last_analyzed=1234))
    found = shop.column_stats.of_table("shop", "sales", [c.name for c in COLUMNS] + ["region", "nope"])
    assert found.last_analyzed == 1234
    assert _by_column(found) == {s.column: s for s in _every_kind()}
    assert _accurate(shop.tables.get("shop", "sales").parameters)["COLUMN_STATS"] == {c.name: "true" for c in COLUMNS}


def test_partition_statistics_are_per_partition_and_aggregate(shop):
    def qty(low, high, nulls, ndv):
        return ColumnStats("qty", "int", StatsKind.LONG, num_nulls=nulls, num_distinct=ndv, low=low, high=high)

    shop.column_stats.update(
        ColumnStatsSet(
            "shop",
            "sales",
            "region=eu",
            [qty(1, 10, 1, 5), ColumnStats("name", "string", StatsKind.STRING, 2, 8, max_length=10, avg_length=4.0)],
        )
    )
    shop.column_stats.update(ColumnStatsSet("shop", "sales", "region=us", [qty(-5, 3, 2, 9)]))
    by_partition = shop.column_stats.of_partitions(
        "shop", "sales", ["region=eu", "region=us", "region=asia"], ["qty", "name"]
    )
    assert sorted(by_partition) == ["region=eu", "region=us"]
    assert [c.column for c in by_partition["region=eu"].columns] == ["name", "qty"]
    result = shop.column_stats.aggregate("shop", "sales", ["region=eu", "region=us", "region=asia"], ["qty", "name"])
    assert result.partitions_found == 1  # only eu has both columns
    merged = {c.column: c for c in result.columns}
    assert (merged["qty"].low, merged["qty"].high, merged["qty"].num_nulls, merged["qty"].num_distinct) == (
        -5,
        10,
        3,
        9,
    )
    assert (merged["name"].max_length, merged["name"].avg_length) == (10, 4.0)
    assert (
        shop.partitions.get("shop", "sales", ["eu"]).parameters["COLUMN_STATS_ACCURATE"]
        == '{"COLUMN_STATS":{"name":"true","qty":"true"}}'
    )


def test_merging_widens_and_adds_as_hive_does(shop):
    first = ColumnStats("flag", "boolean", StatsKind.BOOLEAN, num_nulls=1, num_trues=3, num_falses=4)
    shop.column_stats.update(ColumnStatsSet("shop", "sales", None, [first, _every_kind()[3]]))
    second = ColumnStats("flag", "boolean", StatsKind.BOOLEAN, num_nulls=2, num_trues=10, num_falses=0)
    amount = ColumnStats(
        "amount",
        "decimal(12,2)",
        StatsKind.DECIMAL,
        num_nulls=5,
        num_distinct=2,
        low=Decimal("-99999999999.99"),
        high=Decimal("0.05"),
    )
    shop.column_stats.update_many([ColumnStatsSet("shop", "sales", None, [second, amount])], merge_existing=True)
    found = _by_column(shop.column_stats.of_table("shop", "sales", ["flag", "amount"]))
    assert (found["flag"].num_nulls, found["flag"].num_trues, found["flag"].num_falses) == (3, 13, 4)
    assert (found["amount"].low, found["amount"].high, found["amount"].num_nulls, found["amount"].num_distinct) == (
        Decimal("-99999999999.99"),
        Decimal("0.10"),
        5,
        4,
    )


def test_engines_keep_their_own_statistics(shop):
    hive_stats = ColumnStats("qty", "int", StatsKind.LONG, num_nulls=0, num_distinct=1, low=1, high=1)
    impala_stats = ColumnStats("qty", "int", StatsKind.LONG, num_nulls=0, num_distinct=2, low=1, high=2)
    shop.column_stats.update(ColumnStatsSet("shop", "sales", None, [hive_stats]))
    shop.column_stats.update(ColumnStatsSet("shop", "sales", None, [impala_stats], engine="impala"))
    assert shop.column_stats.of_table("shop", "sales", ["qty"]).columns == [hive_stats]
    assert shop.column_stats.of_table("shop", "sales", ["qty"], engine="impala").columns == [impala_stats]


def test_statistics_follow_renames_and_go_with_drops(shop):
    shop.column_stats.update(ColumnStatsSet("shop", "sales", None, _every_kind()[:3]))
    shop.column_stats.update(ColumnStatsSet("shop", "sales", "region=eu", _every_kind()[:3]))
    shop.column_stats.update(ColumnStatsSet("shop", "sales", "region=us", _every_kind()[:3]))
    renamed = shop.tables.get("shop", "sales")
    renamed.name = "orders"
    shop.tables.alter("shop", "sales", renamed)
    assert len(shop.column_stats.of_table("shop", "orders", ["flag", "qty", "price"]).columns) == 3
    shop.partitions.rename("shop", "orders", ["eu"], Partition("shop", "orders", ["europe"]))
    assert list(shop.column_stats.of_partitions("shop", "orders", ["region=europe"], ["qty"])) == ["region=europe"]
    shop.partitions.drop("shop", "orders", values=["us"], delete_data=False)
    shop.partitions.add("shop", "orders", [Partition("shop", "orders", ["us"])])
    assert shop.column_stats.of_partitions("shop", "orders", ["region=us"], ["qty"]) == {}
    shop.tables.drop("shop", "orders", delete_data=True)
    shop.tables.create(
        Table(
            "shop", "orders", sd=StorageDescriptor(columns=list(COLUMNS)), partition_keys=[Column("region", "string")]
        )
    )
    shop.partitions.add("shop", "orders", [Partition("shop", "orders", ["europe"])])
    assert shop.column_stats.of_table("shop", "orders", ["qty"]).columns == []
    assert shop.column_stats.of_partitions("shop", "orders", ["region=europe"], ["qty"]) == {}


def test_a_dropped_or_retyped_column_loses_its_statistics(shop):
    shop.column_stats.update(ColumnStatsSet("shop", "sales", None, _every_kind()))
    shop.column_stats.update(ColumnStatsSet("shop", "sales", "region=eu", _every_kind()))
    table = shop.tables.get("shop", "sales")
    table.sd.columns = [c if c.name != "qty" else Column("qty", "bigint") for c in COLUMNS if c.name != "at"]
    shop.tables.alter("shop", "sales", table)
    kept = {c.name for c in COLUMNS} - {"qty", "at"}
    assert set(_by_column(shop.column_stats.of_table("shop", "sales", [c.name for c in COLUMNS]))) == kept
    assert {
        c.column
        for c in shop.column_stats.of_partitions("shop", "sales", ["region=eu"], [c.name for c in COLUMNS])[
            "region=eu"
        ].columns
    } == kept
    assert set(_accurate(shop.tables.get("shop", "sales").parameters)["COLUMN_STATS"]) == kept


def test_deleting_statistics_unmarks_them(shop):
    shop.column_stats.update(ColumnStatsSet("shop", "sales", None, _every_kind()))
    shop.column_stats.delete("shop", "sales", None, "QTY")
    assert "qty" not in _accurate(shop.tables.get("shop", "sales").parameters)["COLUMN_STATS"]
    with pytest.raises(NoSuchObjectError):
        shop.column_stats.delete("shop", "sales", None, "qty")
    shop.column_stats.delete("shop", "sales", None, None)
    assert "COLUMN_STATS_ACCURATE" not in shop.tables.get("shop", "sales").parameters
    assert shop.column_stats.of_table("shop", "sales", [c.name for c in COLUMNS]).columns == []


@pytest.mark.parametrize(
    "bad, error",
    [
        (ColumnStats("missing", "int", StatsKind.LONG), UnknownColumnError),
        (ColumnStats("region", "string", StatsKind.STRING), UnknownColumnError),  # a partition key
        (ColumnStats("name", "string", StatsKind.LONG), InvalidInputError),
        (ColumnStats("qty", "int", StatsKind.DOUBLE), InvalidInputError),
    ],
)
def test_bad_statistics_are_refused_and_nothing_is_written(shop, bad, error):
    good = _every_kind()[0]
    with pytest.raises(error):
        shop.column_stats.update(ColumnStatsSet("shop", "sales", None, [good, bad]))
    assert shop.column_stats.of_table("shop", "sales", ["flag"]).columns == []
    assert "COLUMN_STATS_ACCURATE" not in shop.tables.get("shop", "sales").parameters


def test_missing_tables_and_partitions_are_typed_errors(shop):
    with pytest.raises(NoSuchTableError):
        shop.column_stats.update(ColumnStatsSet("shop", "nope", None, _every_kind()[:1]))
    with pytest.raises(NoSuchObjectError):
        shop.column_stats.update(ColumnStatsSet("shop", "sales", "region=mars", _every_kind()[:1]))
    with pytest.raises(NoSuchObjectError):
        shop.column_stats.update_many(
            [
                ColumnStatsSet("shop", "sales", "region=eu", _every_kind()[:1]),
                ColumnStatsSet("shop", "sales", "region=mars", _every_kind()[:1]),
            ],
            merge_existing=True,
        )
    assert shop.column_stats.of_partitions("shop", "sales", ["region=eu"], ["flag"]) == {}
