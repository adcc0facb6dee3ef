"""Filters compare partition values by the partition column's type, in SQL, on both backends."""

from __future__ import annotations

import pytest

from hudi_catalog.errors import InvalidFilterError
from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table
from hudi_catalog.partition_names import DEFAULT_PARTITION_NAME


@pytest.fixture
def typed_table(catalog):
    catalog.databases.create(Database("p"))
    keys = [Column("n", "bigint"), Column("d", "date"), Column("amount", "decimal(10,2)"), Column("s", "string")]
    catalog.tables.create(Table("p", "t", sd=StorageDescriptor(columns=[Column("x", "int")]), partition_keys=keys))
    rows = [
        ["-5", "2024-01-05", "-1.50", "b"],
        ["9", "2024-01-10", "2.25", "a"],
        ["10", "2023-12-31", "10.00", "c"],
        ["100", "2024-02-01", "0.10", "B"],
        [DEFAULT_PARTITION_NAME, DEFAULT_PARTITION_NAME, DEFAULT_PARTITION_NAME, DEFAULT_PARTITION_NAME],
    ]
    catalog.partitions.add("p", "t", [Partition("p", "t", r) for r in rows])
    return catalog


def matching(catalog, text):
    return sorted(p.values[0] for p in catalog.partitions.by_filter("p", "t", text))


@pytest.mark.parametrize(
    "text,expected",
    [
        ("n > 9", ["10", "100"]),
        ("n >= -5 and n < 10", ["-5", "9"]),
        ("9 < n", ["10", "100"]),
        ("n = 010", ["10"]),
        ("n <> 9", ["-5", "10", "100"]),
        ("d >= '2024-01-06'", ["100", "9"]),
        ("d < date '2024-01-01'", ["10"]),
        ("amount > 0", ["10", "100", "9"]),
        ("amount = 10", ["10"]),
        ("amount between -2 and 0.1", ["-5", "100"]),
        ("s > 'a'", ["-5", "10"]),
        ("s = 'B' or s = 'a'", ["100", "9"]),
        ("s like 'b.*|c'", ["-5", "10"]),
        (f"s = '{DEFAULT_PARTITION_NAME}'", [DEFAULT_PARTITION_NAME]),
        ("not (n > 9)", ["-5", "9"]),
        ("not (n > 9 and s = 'c')", ["-5", "100", "9", DEFAULT_PARTITION_NAME]),
        ("not (n > 9) or s = 'a'", ["-5", "9"]),
        (f"n > 9 or s = '{DEFAULT_PARTITION_NAME}'", ["10", "100", DEFAULT_PARTITION_NAME]),
        ("n not in (9, 100)", ["-5", "10"]),
        ("not s like 'b.*|c'", ["100", "9", DEFAULT_PARTITION_NAME]),
        ("amount not between -2 and 0.1", ["10", "9"]),
        ("n in (9, 100)", ["100", "9"]),
        ("(n) in (9, 100)", ["100", "9"]),
        ("d >= 2024-01-06", ["100", "9"]),
        ('d = 2024-01-05 or s = "2024-01-05"', ["-5"]),
        ("(struct(n, s)) IN (const struct(9, 'a'), const struct(10, 'x'), CONST struct(-5, 'b'))", ["-5", "9"]),
        ("(struct(n, s)) NOT IN (const struct(9, 'a'))", ["-5", "10", "100", DEFAULT_PARTITION_NAME]),
        ("N > 9 AnD s LIKE 'c'", ["10"]),
        ("`n` > 9", ["10", "100"]),
    ],
)
def test_typed_comparisons(typed_table, text, expected):
    assert matching(typed_table, text) == sorted(expected)


@pytest.mark.parametrize("text", ["n > 'x'", "d = '2024-13-01'", "n = 99999999999999999999"])
def test_literal_that_does_not_fit_the_key_type_is_refused(typed_table, text):
    with pytest.raises(InvalidFilterError, match="is not a valid"):
        typed_table.partitions.by_filter("p", "t", text)


def test_unknown_column_is_not_a_partitioning_key(typed_table):
    with pytest.raises(InvalidFilterError, match="x is not a partitioning key"):
        typed_table.partitions.by_filter("p", "t", "x = 1")


def test_struct_in_with_the_wrong_number_of_values_is_refused(typed_table):
    with pytest.raises(InvalidFilterError, match="does not match 2 keys"):
        typed_table.partitions.by_filter("p", "t", "(struct(n, s)) IN (const struct(9))")
