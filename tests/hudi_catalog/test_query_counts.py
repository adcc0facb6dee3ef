"""Each catalog call costs a fixed number of SQL statements, whatever the number of partitions or columns.

Statements are counted with SQLAlchemy's ``before_cursor_execute`` event on the store's engine (an
``executemany`` counts once, as it is one round of the driver).
"""

from __future__ import annotations

import pytest

from hudi_catalog.model import Column, Database, Partition, SerDe, StorageDescriptor, Table
from hudi_catalog.store.locations import CLAIM_BATCH
from tests.support.catalog_probes import counting

SMALL, LARGE = 10, 500


def sd(columns: list[Column]) -> StorageDescriptor:
    return StorageDescriptor(
        columns=columns,
        input_format="org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
        output_format="org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
        serde=SerDe(
            serialization_lib="org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
            parameters={"serialization.format": "1"},
        ),
    )


DATA_COLUMNS = [Column("id", "bigint"), Column("v", "string")]
KEYS = [Column("ds", "string"), Column("hr", "int")]


def make_table(catalog, name: str, columns: list[Column] | None = None) -> Table:
    return catalog.tables.create(
        Table("qc", name, sd=sd(columns or DATA_COLUMNS), partition_keys=KEYS, parameters={"a": "1", "b": "2"})
    )


def partitions(name: str, count: int, other_columns_every: int = 0) -> list[Partition]:
    """``count`` partitions; every ``other_columns_every``-th one has its own columns and parameters."""
    parts = []
    for i in range(count):
        columns = DATA_COLUMNS
        if other_columns_every and i % other_columns_every == 0:
            columns = DATA_COLUMNS + [Column("extra", "int")]
        parts.append(
            Partition(
                "qc",
                name,
                [f"2024-01-{i // 24 + 1:02d}", str(i % 24)],
                sd=sd(columns),
                parameters={"p": str(i), "q": "x"},
            )
        )
    return parts


@pytest.fixture
def qc(catalog):
    catalog.databases.create(Database("qc"))
    return catalog


def _table_with(catalog, name: str, count: int, other_columns_every: int = 0) -> None:
    make_table(catalog, name)
    added = catalog.partitions.add("qc", name, partitions(name, count, other_columns_every))
    assert len(added) == count


@pytest.mark.parametrize("other_columns_every", [0, 7])
def test_get_partitions_costs_the_same_for_10_and_500(qc, other_columns_every):
    _table_with(qc, "small", SMALL, other_columns_every)
    _table_with(qc, "large", LARGE, other_columns_every)

    with counting(qc) as small:
        got_small = qc.partitions.list("qc", "small")
    with counting(qc) as large:
        got_large = qc.partitions.list("qc", "large")

    assert (len(got_small), len(got_large)) == (SMALL, LARGE)
    assert all(p.parameters["q"] == "x" and p.sd.columns for p in got_large)
    assert len(small) == len(large), (small, large)
    assert len(large) <= 12


def test_get_partition_names_and_filter_cost_the_same(qc):
    _table_with(qc, "small", SMALL)
    _table_with(qc, "large", LARGE)

    with counting(qc) as small:
        assert len(qc.partitions.names("qc", "small")) == SMALL
        assert qc.partitions.by_filter("qc", "small", "hr >= 0")
    with counting(qc) as large:
        assert len(qc.partitions.names("qc", "large")) == LARGE
        assert len(qc.partitions.by_filter("qc", "large", "hr >= 0")) == LARGE
    assert len(small) == len(large), (small, large)


def test_add_partitions_costs_the_same_for_10_and_500(qc):
    make_table(qc, "small")
    make_table(qc, "large")

    with counting(qc) as small:
        qc.partitions.add("qc", "small", partitions("small", SMALL))
    with counting(qc) as large:
        qc.partitions.add("qc", "large", partitions("large", LARGE))

    assert len(qc.partitions.names("qc", "large")) == LARGE
    assert len(small) == len(large), (small, large)
    assert len(large) <= 20


def test_add_partitions_with_their_own_columns_costs_the_same(qc):
    make_table(qc, "small")
    make_table(qc, "large")

    with counting(qc) as small:
        qc.partitions.add("qc", "small", partitions("small", SMALL, other_columns_every=5))
    with counting(qc) as large:
        qc.partitions.add("qc", "large", partitions("large", LARGE, other_columns_every=5))

    assert len(small) == len(large), (small, large)
    by_values = {tuple(p.values): p for p in qc.partitions.list("qc", "large")}
    for expected in partitions("large", LARGE, other_columns_every=5):
        assert by_values[tuple(expected.values)].sd.columns == expected.sd.columns
    assert [c.name for c in qc.tables.get("qc", "large").sd.columns] == ["id", "v"]


def test_get_table_costs_the_same_for_3_and_60_columns(qc):
    make_table(qc, "narrow", [Column(f"c{i}", "string") for i in range(3)])
    make_table(qc, "wide", [Column(f"c{i}", "string", f"comment {i}") for i in range(60)])

    with counting(qc) as narrow:
        assert len(qc.tables.get("qc", "narrow").sd.columns) == 3
    with counting(qc) as wide:
        table = qc.tables.get("qc", "wide")
    assert len(table.sd.columns) == 60
    assert [c.name for c in table.partition_keys] == ["ds", "hr"]
    assert len(narrow) == len(wide), (narrow, wide)
    assert len(wide) <= 6


def test_get_many_tables_costs_the_same_for_2_and_40_tables(qc):
    for i in range(40):
        make_table(qc, f"t{i:02d}", [Column(f"c{j}", "int") for j in range(i % 5 + 1)])

    with counting(qc) as few:
        assert len(qc.tables.get_many("qc", ["t00", "t01"])) == 2
    with counting(qc) as many:
        assert len(qc.tables.get_many("qc", [f"t{i:02d}" for i in range(40)])) == 40
    assert len(few) == len(many), (few, many)


def test_get_partitions_by_names_costs_the_same_for_10_and_500(qc):
    _table_with(qc, "t", LARGE)
    names = qc.partitions.names("qc", "t")

    with counting(qc) as small:
        got_small = qc.partitions.by_names("qc", "t", names[:SMALL])
    with counting(qc) as large:
        got_large = qc.partitions.by_names("qc", "t", names)

    assert (len(got_small), len(got_large)) == (SMALL, LARGE)
    assert len(small) == len(large), (small, large)


def test_drop_partitions_costs_the_same_for_10_and_500(qc):
    _table_with(qc, "t", LARGE + SMALL)
    names = qc.partitions.names("qc", "t")

    with counting(qc) as small:
        qc.partitions.drop_by_names("qc", "t", names[:SMALL], delete_data=True, if_exists=False)
    with counting(qc) as large:
        qc.partitions.drop_by_names("qc", "t", names[SMALL:], delete_data=True, if_exists=False)

    assert qc.partitions.names("qc", "t") == []
    # the same statements, but for the check that no other object lives in the deleted directories, which
    # asks about CLAIM_BATCH spellings of them per statement
    claim_checks = [[s for s in statements if "EXISTS" in s] for statements in (small, large)]
    assert len(small) - len(claim_checks[0]) == len(large) - len(claim_checks[1]), (small, large)
    assert 0 < len(claim_checks[0]) <= len(claim_checks[1])
    assert len(claim_checks[1]) - len(claim_checks[0]) <= -(-LARGE * 2 // CLAIM_BATCH)  # two spellings a directory


def test_get_partitions_through_thrift_costs_the_same(qc, server, client):
    _table_with(qc, "small", SMALL)
    _table_with(qc, "large", LARGE)

    with counting(qc) as small:
        assert len(client.get_partitions("qc", "small", -1)) == SMALL
    with counting(qc) as large:
        assert len(client.get_partitions("qc", "large", -1)) == LARGE
    assert len(small) == len(large), (small, large)


def _sql(statements: list[str]) -> list[str]:
    return [s for s in statements if not s.startswith("BEGIN")]  # SQLite begins explicitly


def test_get_database_is_its_revision_then_one_query_with_its_parameters_once(qc):
    qc.databases.alter("qc", Database("qc", parameters={"a": "1", "b": "2"}))
    with counting(qc) as statements:
        database = qc.databases.get("qc")
    assert database.parameters == {"a": "1", "b": "2"}
    assert len(_sql(statements)) == 2  # the changed database's revision, then the database with its parameters
    with counting(qc) as statements:
        assert qc.databases.get("qc") == database
    assert len(_sql(statements)) == 1  # the revision: the rest from the read cache


def test_drop_partition_reads_only_what_it_deletes(qc):
    _table_with(qc, "t", SMALL)
    qc.tables.get("qc", "t")  # the table is cached from here on
    with counting(qc) as statements:
        qc.partitions.drop("qc", "t", values=["2024-01-01", "3"], delete_data=False)
    assert len(qc.partitions.names("qc", "t")) == SMALL - 1
    # the table row, the partition's id and location (its values are those it was named by: all the drop
    # event needs), the table's partitions revision raised, the DELETEs of its replaced file groups and of its
    # row (the rows hanging off it go by their foreign keys' cascades), then the event's id and row
    assert len(_sql(statements)) == 7
