"""The read caches stay correct when another server process (another ``Catalog`` on the same database)
changes, drops or re-creates a database, changes, renames, drops or re-creates a table, or adds, alters,
renames or drops its partitions."""

from __future__ import annotations

import pytest

from hms_adapter.handler import MetastoreHandler
from hudi_catalog import Catalog
from hudi_catalog.errors import NoSuchDatabaseError, NoSuchTableError
from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table
from hudi_catalog.read_cache import CacheMemory, RevisionCache
from tests.support.catalog_probes import counting


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
    catalog.tables.create(
        Table(
            "rc",
            name,
            sd=StorageDescriptor(columns=[Column(c, "string") for c in columns]),
            partition_keys=[Column("ds", "string")],
            parameters={"v": "1"},
        )
    )


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


# -- databases ------------------------------------------------------------------------------------------


def test_a_cached_database_costs_one_statement_and_is_a_private_copy(two_processes):
    reader, _ = two_processes
    reader.databases.create(Database("d", parameters={"v": "1"}))
    reader.databases.get("d")
    with counting(reader) as statements:
        database = reader.databases.get("d")
    assert len(statements) == 1, statements  # the revision, on an autocommit connection (SQLite's too)
    database.parameters["v"] = "changed by the caller"
    assert reader.databases.get("d").parameters == {"v": "1"}


def test_database_changes_by_another_process_are_seen(two_processes):
    reader, writer = two_processes
    reader.databases.create(Database("d", description="first", parameters={"v": "1"}))
    assert reader.databases.get("d").parameters == {"v": "1"}
    changed = writer.databases.get("d")
    changed.parameters = {"v": "2", "w": "3"}
    changed.description = "second"
    changed.owner_name = "someone"
    writer.databases.alter("d", changed)
    seen = reader.databases.get("d")
    assert (seen.parameters, seen.description, seen.owner_name) == ({"v": "2", "w": "3"}, "second", "someone")

    writer.databases.drop("d", delete_data=False, cascade=False)
    with pytest.raises(NoSuchDatabaseError, match="There is no database named d"):
        reader.databases.get("d")
    writer.databases.create(Database("d", description="again"))
    again = reader.databases.get("d")
    assert (again.description, again.parameters) == ("again", {})


# -- partition lists ------------------------------------------------------------------------------------


def listed(
    handler: MetastoreHandler, filter_text: str | None = None, table: str = "p"
) -> list[tuple[list[str], str, dict]]:
    """What a client gets: values, location and parameters of each partition, through the handler's
    cached-encoding path."""
    answer = (
        handler.get_partitions("rc", table, -1)
        if filter_text is None
        else handler.get_partitions_by_filter("rc", table, filter_text, -1)
    )
    return [(p.values, p.sd.location, p.parameters) for p in answer.to_thrift()]


@pytest.fixture
def partitioned(two_processes):
    reader, writer = two_processes
    make(reader, "p", ["a"])
    reader.partitions.add(
        "rc", "p", [Partition("rc", "p", [day], parameters={"n": "0"}) for day in ("2024-01-01", "2024-01-02")]
    )
    handler = MetastoreHandler(reader)
    for _ in range(3):  # encode and save, then read the encodings, then from the cache
        first = listed(handler)
        assert reader.partitions.names("rc", "p") == ["ds=2024-01-01", "ds=2024-01-02"]
    assert reader.partitions._cache.hits >= 1
    return reader, writer, handler, first


def test_a_cached_partition_list_costs_one_query(partitioned):
    reader, _, handler, _ = partitioned
    with counting(reader) as statements:
        listed(handler)
        listed(handler, 'ds = "2024-01-02"')
        listed(handler, 'ds = "2024-01-02"')
        reader.partitions.names("rc", "p")
    # one query each (the table's keys and partitions revision, without a transaction), but the first read of
    # the filter, which misses the cache: the keys, then again the keys and the (already encoded) partitions in
    # one transaction
    assert len([s for s in statements if not s.startswith("BEGIN")]) == 6


def warm(reader: Catalog, handler: MetastoreHandler) -> None:
    """Reads every list twice, so that the next read of each comes from the cache if nothing changed (a
    change clears the partitions' encodings, and only fully encoded lists are kept)."""
    for _ in range(2):
        listed(handler)
        listed(handler, 'ds = "2024-01-02"')
        reader.partitions.names("rc", "p")


def test_partition_changes_by_another_process_are_seen(partitioned):
    reader, writer, handler, first = partitioned
    assert [values for values, _, _ in first] == [["2024-01-01"], ["2024-01-02"]]

    writer.partitions.add("rc", "p", [Partition("rc", "p", ["2024-01-03"])])
    assert [v for v, _, _ in listed(handler)] == [["2024-01-01"], ["2024-01-02"], ["2024-01-03"]]
    assert reader.partitions.names("rc", "p")[-1] == "ds=2024-01-03"

    warm(reader, handler)
    changed = writer.partitions.get("rc", "p", ["2024-01-02"])
    changed.parameters["n"] = "1"
    writer.partitions.alter("rc", "p", [changed])
    assert [params["n"] for v, _, params in listed(handler, 'ds = "2024-01-02"')] == ["1"]

    warm(reader, handler)
    writer.partitions.drop("rc", "p", values=["2024-01-01"], delete_data=False)
    assert reader.partitions.names("rc", "p") == ["ds=2024-01-02", "ds=2024-01-03"]
    assert [v for v, _, _ in listed(handler)] == [["2024-01-02"], ["2024-01-03"]]

    warm(reader, handler)
    renamed = writer.partitions.get("rc", "p", ["2024-01-03"])
    renamed.values = ["2024-02-01"]
    writer.partitions.rename("rc", "p", ["2024-01-03"], renamed)
    assert [v for v, _, _ in listed(handler)] == [["2024-01-02"], ["2024-02-01"]]
    assert reader.partitions.names("rc", "p") == ["ds=2024-01-02", "ds=2024-02-01"]


def test_table_changes_that_rewrite_partitions_are_seen(partitioned):
    reader, writer, handler, _ = partitioned
    warm(reader, handler)
    table = writer.tables.get("rc", "p")
    table.name = "moved"  # a managed table: its partitions' directories move with it
    writer.tables.alter("rc", "p", table)
    assert all("/moved/" in location for _, location, _ in listed(handler, table="moved"))
    table = writer.tables.get("rc", "moved")
    table.name = "p"
    writer.tables.alter("rc", "moved", table)

    warm(reader, handler)
    table = writer.tables.get("rc", "p")
    table.sd.columns.append(Column("b", "int"))
    writer.tables.alter("rc", "p", table, cascade=True)
    answer = handler.get_partitions("rc", "p", -1).to_thrift()
    assert [[c.name for c in p.sd.cols] for p in answer] == [["a", "b"], ["a", "b"]]


# -- bytes ----------------------------------------------------------------------------------------------


def test_caches_share_one_bound_in_bytes_least_recently_used_leaving_first():
    memory = CacheMemory(40_000)
    names: RevisionCache[tuple] = RevisionCache(memory, copies=False)
    models: RevisionCache[dict] = RevisionCache(memory)
    names.put("a", 1, tuple(f"ds={i:05d}" for i in range(100)))  # about 6 KB
    models.put("b", 1, {"x": "y" * 5000})
    assert names.get("a", 1) is not None  # "a" is now the more recently used
    for i in range(8):  # each about 5 KB: "b" leaves first, then "a", then the oldest of these
        names.put(("big", i), 1, ("z" * 5000,))
    assert memory.bytes <= 40_000
    assert models.get("b", 1) is None and names.get("a", 1) is None
    assert names.get(("big", 7), 1) == ("z" * 5000,)
    assert len(memory.entries) < 8


def test_keys_are_weighed_and_an_entry_over_a_quarter_of_the_bound_is_not_kept():
    memory = CacheMemory(100_000)
    cache: RevisionCache[tuple] = RevisionCache(memory, copies=False)
    cache.put("k" * 30_000, 1, ())  # a large key, an empty answer
    assert cache.get("k" * 30_000, 1) is None and memory.bytes == 0
    cache.put("small", 1, ())
    assert cache.get("small", 1) == () and 0 < memory.bytes < 1_000


def test_the_partition_cache_keeps_a_digest_of_a_long_filter_and_still_answers_from_it(partitioned):
    reader, _, handler, _ = partitioned
    text = "ds = '2024-01-02' or ds = '" + "x" * 2_000_000 + "'"
    held = reader.cache_memory.bytes
    assert [v for v, _, _ in listed(handler, text)] == [["2024-01-02"]]
    listed(handler, text)  # now every partition of the answer has its encoding: the list is kept
    assert reader.cache_memory.bytes - held < 10_000  # not the 2 MB filter
    hits = reader.partitions._cache.hits
    assert [v for v, _, _ in listed(handler, text)] == [["2024-01-02"]]
    assert reader.partitions._cache.hits == hits + 1
