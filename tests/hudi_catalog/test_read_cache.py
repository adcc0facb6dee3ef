"""The table read cache stays correct when another server process (another ``Catalog`` on the same database)
changes, renames, drops or re-creates the table."""

from __future__ import annotations

import pytest

from hudi_catalog import Catalog
from hudi_catalog.errors import NoSuchTableError
from hudi_catalog.model import Column, Database, StorageDescriptor, Table
from tests.hudi_catalog.test_query_counts import counting


@pytest.fixture
def two_processes(db_url, warehouse):
    """Two catalogs on one database, as two ``serve`` processes would have."""
    first = Catalog.open(db_url, str(warehouse))
    second = Catalog.open(db_url, str(warehouse), init=False)
    first.databases.create(Database("rc"))
    yield first, second
    first.close()
    second.close()


def make(catalog: Catalog, name: str, columns: list[str]) -> None:
    catalog.tables.create(Table("rc", name, sd=StorageDescriptor(columns=[Column(c, "string") for c in columns]),
                                partition_keys=[Column("ds", "string")], parameters={"v": "1"}))


def test_a_cached_table_costs_one_statement_and_is_a_private_copy(two_processes):
    reader, _ = two_processes
    make(reader, "t", ["a", "b"])
    reader.tables.get("rc", "t")
    with counting(reader) as statements:
        table = reader.tables.get("rc", "t")
    assert [s for s in statements if s != "BEGIN"] == statements[-1:]  # SQLite's BEGIN aside, one
    table.parameters["v"] = "changed by the caller"
    table.sd.columns.append(Column("c", "int"))
    again = reader.tables.get("rc", "t")
    assert again.parameters["v"] == "1" and [c.name for c in again.sd.columns] == ["a", "b"]


def test_changes_by_another_process_are_seen(two_processes):
    reader, writer = two_processes
    make(reader, "t", ["a", "b"])
    assert reader.tables.get("rc", "t").parameters["v"] == "1"

    changed = writer.tables.get("rc", "t")
    changed.parameters["v"] = "2"
    changed.sd.columns.append(Column("c", "int"))
    writer.tables.alter("rc", "t", changed)
    seen = reader.tables.get("rc", "t")
    assert seen.parameters["v"] == "2"
    assert [c.name for c in seen.sd.columns] == ["a", "b", "c"]

    changed.name = "renamed"
    writer.tables.alter("rc", "t", changed)
    with pytest.raises(NoSuchTableError):
        reader.tables.get("rc", "t")
    assert reader.tables.get("rc", "renamed").name == "renamed"


def test_a_table_dropped_and_created_again_is_read_afresh(two_processes):
    reader, writer = two_processes
    make(reader, "t", ["a", "b"])
    first_id = reader.tables.get("rc", "t").id
    writer.tables.drop("rc", "t", delete_data=False)
    make(writer, "t", ["x"])
    table = reader.tables.get("rc", "t")
    assert [c.name for c in table.sd.columns] == ["x"]
    # SQLite hands the dropped table's id to the new one: the cache must not be keyed on the id alone
    assert table.id == first_id or reader.store.dialect != "sqlite"
