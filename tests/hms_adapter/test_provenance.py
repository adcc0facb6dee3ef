"""Deletion and moves by provenance, through a real Thrift server as a hostile client would call it.

The server deletes or moves a directory only if it made that directory for that very object, or the directory
lies inside the warehouse root (or a ``--data-root``) and belongs to no other live object; it never deletes
or moves a directory that is, or holds, another live object's location, and refuses locations at the file
system's root and in system directories. Sentinel directories (a file each) must survive every attack.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hive_metastore.ttypes import Database as HiveDatabase
from sqlalchemy import text

from hudi_catalog.model import Column, Partition, StorageDescriptor, Table
from hudi_catalog.store import locations
from hudi_catalog.store.locations import NOTHING_SPARED
from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_database, make_partition, make_table
from tests.support.authorization import _table

PRECIOUS = "keep me"


def _sentinel(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "precious.txt").write_text(PRECIOUS)
    return path


def _intact(path: Path) -> bool:
    return (path / "precious.txt").is_file() and (path / "precious.txt").read_text() == PRECIOUS


def _victim(client, warehouse: Path) -> Path:
    """A managed table ``victim.t`` with data in a directory the server made, and a partition."""
    client.create_database(make_database("victim"))
    client.create_table(make_table("victim", "t", partition_keys=cols("ds:string")))
    client.add_partition(make_partition("victim", "t", ["1"]))
    table_dir = warehouse / "victim.db" / "t"
    _sentinel(table_dir / "ds=1")
    return table_dir


def test_a_table_at_another_objects_directory_cannot_delete_it(client, warehouse, tmp_path):
    table_dir = _victim(client, warehouse)
    client.create_database(make_database("evil"))
    # at the victim table's directory, at its partition's, and at the directory holding it (its database's)
    client.create_table(make_table("evil", "same", location=f"file:{table_dir}"))
    client.create_table(make_table("evil", "part", location=f"file:{table_dir}/ds=1"))
    client.create_table(make_table("evil", "parent", location=f"file:{warehouse}/victim.db"))
    client.create_table(make_table("evil", "dotted", location=f"file:{warehouse}/evil.db/../victim.db/t"))
    for name in ("same", "part", "parent", "dotted"):
        with pytest.raises(hive.MetaException, match="not the metastore's to delete"):
            client.truncate_table("evil", name, None)
        client.drop_table("evil", name, True)
    # a database at the victim's database directory, dropped with its data
    client.create_database(make_database("evil2", location=f"file:{warehouse}/victim.db"))
    client.drop_database("evil2", True, True)
    # a partition of another table at the victim's partition directory
    client.create_table(make_table("evil", "parts", partition_keys=cols("ds:string")))
    client.add_partition(make_partition("evil", "parts", ["x"], location=f"file:{table_dir}/ds=1"))
    client.drop_partition("evil", "parts", ["x"], True)
    client.drop_database("evil", True, True)

    assert _intact(table_dir / "ds=1")
    assert client.get_table("victim", "t").sd.location == f"file:{table_dir}"


def test_renaming_keeps_directories_the_server_may_not_move(client, warehouse, tmp_path):
    outside = _sentinel(tmp_path / "outside" / "t")
    part_dir = _sentinel(tmp_path / "outside" / "p")
    default_dir = _sentinel(tmp_path / "olddb" / "t")
    client.create_database(make_database("w"))
    # a managed table with an explicit location that existed: Hive leaves it on rename, so do we
    client.create_table(make_table("w", "explicit", location=f"file:{outside}"))
    client.alter_table("w", "explicit", make_table("w", "moved_explicit", location=f"file:{outside}"))
    assert client.get_table("w", "moved_explicit").sd.location == f"file:{outside}"
    # a table at its database's default location, both made by someone else outside the roots: stays too
    client.create_database(make_database("old", location=f"file:{tmp_path / 'olddb'}"))
    client.create_table(make_table("old", "t"))
    client.alter_table("old", "t", make_table("w", "from_old", location=f"file:{default_dir}"))
    assert client.get_table("w", "from_old").sd.location == f"file:{default_dir}"
    # a partition of a managed table at an outside directory that existed
    client.create_table(make_table("w", "parted", partition_keys=cols("ds:string")))
    client.add_partition(make_partition("w", "parted", ["1"], location=f"file:{part_dir}"))
    client.rename_partition("w", "parted", ["1"], make_partition("w", "parted", ["2"]))
    assert client.get_partition("w", "parted", ["2"]).sd.location == f"file:{part_dir}"

    # a later drop of everything with deleteData deletes none of them
    client.drop_partition("w", "parted", ["2"], True)
    client.drop_database("w", True, True)
    client.drop_database("old", True, True)
    for folder in (outside, part_dir, default_dir):
        assert _intact(folder), folder
    assert not (warehouse / "w.db" / "moved_explicit").exists()
    assert not (warehouse / "w.db" / "from_old").exists()


def test_system_locations_are_refused(client, warehouse, tmp_path):
    up_to_root = "../" * len(tmp_path.parts)
    for location in ("/", "file:/", "/etc", "file:///etc/cron.d", "/usr/share/x", f"file:{tmp_path}/{up_to_root}etc"):
        with pytest.raises(hive.InvalidObjectException, match="Invalid location"):
            client.create_database(make_database("sys", location=location))
        with pytest.raises(hive.InvalidObjectException, match="Invalid location"):
            client.create_table(make_table("default", "sys", location=location))
    client.create_table(make_table("default", "t", partition_keys=cols("ds:string")))
    with pytest.raises(hive.InvalidObjectException, match="Invalid location"):
        client.add_partition(make_partition("default", "t", ["1"], location="/boot/x"))
    with pytest.raises(hive.InvalidOperationException, match="Invalid location"):
        client.alter_table("default", "t", make_table("default", "t", partition_keys=cols("ds:string"), location="/"))
    assert not Path("/usr/share/x").exists()
    assert client.get_all_databases() == ["default"]
    assert client.get_all_tables("default") == ["t"]


def test_directories_the_server_made_outside_the_roots_go_with_their_objects(client, warehouse, tmp_path):
    """Spark's default set-up at the Thrift level: databases and tables under a warehouse that is not the
    server's. What the server made is dropped with the object, renames move it, and the same table can be
    made again; a directory that was there before stays."""
    spark = tmp_path / "spark-warehouse"
    client.create_database(make_database("sales", location=f"file:{spark}/sales.db"))
    client.create_table(make_table("sales", "flat", location=f"file:{spark}/sales.db/flat"))
    (spark / "sales.db" / "flat" / "part-0.parquet").write_text("rows")
    client.drop_table("sales", "flat", True)
    assert not (spark / "sales.db" / "flat").exists()
    client.create_table(make_table("sales", "flat", location=f"file:{spark}/sales.db/flat"))
    assert (spark / "sales.db" / "flat").is_dir()

    client.create_table(make_table("sales", "hive_t", partition_keys=cols("ds:string")))
    _sentinel(spark / "sales.db" / "hive_t" / "ds=1")  # written by the engine before add_partition
    client.add_partition(make_partition("sales", "hive_t", ["1"]))
    client.add_partition(make_partition("sales", "hive_t", ["2"]))
    client.rename_partition("sales", "hive_t", ["2"], make_partition("sales", "hive_t", ["3"]))
    assert (spark / "sales.db" / "hive_t" / "ds=3").is_dir() and not (spark / "sales.db" / "hive_t" / "ds=2").exists()
    client.drop_partition("sales", "hive_t", ["1"], True)  # inside its table's directory the server made
    assert not (spark / "sales.db" / "hive_t" / "ds=1").exists()

    client.alter_table("sales", "hive_t", make_table("sales", "renamed", partition_keys=cols("ds:string")))
    renamed = client.get_table("sales", "renamed").sd.location
    assert renamed == f"file:{spark}/sales.db/renamed" and (spark / "sales.db" / "renamed" / "ds=3").is_dir()
    assert client.get_partition("sales", "renamed", ["3"]).sd.location == f"{renamed}/ds=3"

    existing = _sentinel(tmp_path / "lake" / "events")
    client.create_table(make_table("sales", "events", location=f"file:{existing}"))
    client.drop_database("sales", True, True)
    assert not (spark / "sales.db").exists()
    assert _intact(existing)


def test_made_provenance_does_not_follow_a_changed_location(client, warehouse, tmp_path):
    """A table whose location a client changes to a directory that exists loses the server's provenance."""
    made = tmp_path / "made"
    client.create_table(make_table("default", "t", location=f"file:{made}"))
    other = _sentinel(tmp_path / "other")
    client.alter_table("default", "t", make_table("default", "t", location=f"file:{other}"))
    client.drop_table("default", "t", True)
    assert _intact(other)


def test_data_of_another_principal_survives_under_privileges(serve, tmp_path):
    """Ownership is checked on the table dropped, not on its directory: bob's own table and database at
    alice's table's directory cannot take her data with them."""
    clients = serve("privileges")
    alice, bob = clients["alice"], clients["bob"]
    alice.create_database(HiveDatabase(name="sales", parameters={}))
    alice.create_table(_table("sales", "orders", owner="alice"))
    orders = _sentinel(tmp_path / "wh" / "sales.db" / "orders")
    bob.create_database(HiveDatabase(name="bobs", parameters={}))
    mine = _table("bobs", "mine", owner="bob")
    mine.sd.location = f"file:{orders}"
    bob.create_table(mine)
    bob.drop_table("bobs", "mine", True)
    bob.create_database(HiveDatabase(name="bobs2", locationUri=f"file:{orders.parent}", parameters={}))
    bob.drop_database("bobs2", True, True)
    assert _intact(orders)
    assert alice.get_table("sales", "orders").sd.location == f"file:{orders}"


@contextmanager
def _work_done(conn) -> Iterator[Callable[[], int]]:
    """A count of the work the database does for ``conn`` from here on: rows its handlers read on MariaDB
    (``Handler_read%``), rows its scans read or fetched on PostgreSQL (``pg_stat_xact_user_tables``, this
    transaction's), instructions of its virtual machine on SQLite (a progress handler). A full scan of a
    table costs at least one of each per row; an index range scan, a few."""
    dialect = conn.dialect.name
    if dialect == "sqlite":
        steps = [0]

        def step() -> int:
            steps[0] += 1
            return 0

        raw = conn.connection.dbapi_connection
        raw.set_progress_handler(step, 1)
        try:
            yield lambda: steps[0]
        finally:
            raw.set_progress_handler(None, 1)
        return
    if dialect == "postgresql":
        statement = (
            "SELECT coalesce(sum(seq_tup_read), 0) + coalesce(sum(idx_tup_fetch), 0) FROM pg_stat_xact_user_tables"
        )

        def so_far() -> int:
            return int(conn.execute(text(statement)).scalar())
    else:

        def so_far() -> int:
            return sum(int(row[1]) for row in conn.execute(text("SHOW SESSION STATUS LIKE 'Handler_read%'")))

    before = so_far()
    yield lambda: so_far() - before


def test_claims_are_index_range_scans_whatever_the_number_of_partitions(catalog, warehouse):
    """The check that a directory holds no live location reads the location_key indexes: with many
    partitions it reads a few of them, not every one (counted in the database's own work, not in seconds),
    and a directory holding one is found."""
    catalog.tables.create(
        Table(
            "default",
            "many",
            sd=StorageDescriptor(columns=[Column("x", "int")]),
            partition_keys=[Column("ds", "string")],
        )
    )
    count = 3000
    catalog.partitions.add("default", "many", [Partition("default", "many", [str(i)]) for i in range(count)])
    table_dir = f"file:{warehouse}/many"
    spellings = [f"file:{warehouse}/many/ds=17", f"file:{warehouse}/many/ds=1", f"file:{warehouse}/man", table_dir]
    with catalog.store.read() as conn:
        with _work_done(conn) as work:
            found = locations.claimed(conn, [([s], NOTHING_SPARED) for s in spellings])
            done = work()
        if conn.dialect.name == "sqlite":
            statement = (
                "EXPLAIN QUERY PLAN SELECT 1 FROM partitions WHERE location_key >= :low AND location_key < :high"
            )
            plan = " ".join(str(r[-1]) for r in conn.execute(text(statement), {"low": "a", "high": "b"}))
            assert "idx_partition_location_key" in plan, plan
    assert found == [True, True, False, True]
    # without the index: 3,000 and more (every partition read); with it: tens, or some hundreds of SQLite steps
    assert done < count / 3, f"{done} units of work for {len(spellings)} directories among {count} partitions"
