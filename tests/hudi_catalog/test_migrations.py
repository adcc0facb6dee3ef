"""A store of an older layout version is upgraded in place by ``hudi-metastore schema upgrade``, data included;
opening it without the upgrade is refused."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sqlalchemy import select, text, update

from hudi_catalog import Catalog
from hudi_catalog.catalog_scope import catalog_scope
from hudi_catalog.errors import SchemaVersionError
from hudi_catalog.locks.model import LockComponent, LockRequest, LockState, LockTarget, LockType
from hudi_catalog.model import (
    EXPECTED_KEY,
    EXPECTED_VALUE,
    Column,
    ColumnStats,
    ColumnStatsSet,
    Database,
    DatabaseCatalog,
    Partition,
    StatsKind,
    StorageDescriptor,
    Table,
)
from hudi_catalog.services.schema import SchemaService
from hudi_catalog.store import schema
from tests.support.previous_layouts import make_previous_layout_store


def upgrade_with_cli(db_url: str) -> str:
    """``hudi-metastore schema upgrade`` in its own process; returns what it printed."""
    done = subprocess.run(
        [sys.executable, "-m", "hms_adapter.cli", "schema", "upgrade", "--db-url", db_url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _downgrade_to_version_1(catalog: Catalog) -> None:
    """Put the store back in layout version 1: no ``typed_val`` column, no index on it, no partition
    ``revision``, ``encoded`` or ``hudi_path`` columns, no ``replaced_file_group`` table, no table
    ``revision`` or ``partitions_revision``, no database ``revision``."""
    with catalog.store.engine.begin() as conn:
        conn.execute(text("ALTER TABLE db DROP COLUMN revision"))
        conn.execute(text("ALTER TABLE tbl DROP COLUMN revision"))
        conn.execute(text("ALTER TABLE tbl DROP COLUMN partitions_revision"))
        if conn.dialect.name in ("sqlite", "postgresql"):
            conn.execute(text("DROP INDEX idx_partition_hudi_path"))
            conn.execute(text("DROP INDEX idx_files_instant"))
        else:
            conn.execute(text("DROP INDEX idx_partition_hudi_path ON partitions"))
            conn.execute(text("DROP INDEX idx_files_instant ON files"))
        conn.execute(text("ALTER TABLE partitions DROP COLUMN hudi_path"))
        conn.execute(text("DROP TABLE replaced_file_group"))
        conn.execute(text("ALTER TABLE partitions DROP COLUMN encoded"))
        conn.execute(text("ALTER TABLE partitions DROP COLUMN revision"))
        if conn.dialect.name in ("sqlite", "postgresql"):
            conn.execute(text("DROP INDEX idx_pkv_typed"))
        else:
            conn.execute(text("DROP INDEX idx_pkv_typed ON partition_key_val"))
        conn.execute(text("ALTER TABLE partition_key_val DROP COLUMN typed_val"))
        conn.execute(update(schema.schema_version).values(version=1))


def test_version_1_store_is_migrated_and_typed_values_backfilled(db_url, warehouse):
    catalog = Catalog.open(db_url, str(warehouse))
    catalog.databases.create(Database("m"))
    catalog.tables.create(
        Table(
            "m",
            "t",
            sd=StorageDescriptor(columns=[Column("x", "int")]),
            partition_keys=[Column("ds", "string"), Column("hr", "int")],
        )
    )
    catalog.partitions.add("m", "t", [Partition("m", "t", ["a", str(h)]) for h in (2, 9, 10, 11)])
    _downgrade_to_version_1(catalog)
    catalog.close()

    with pytest.raises(SchemaVersionError, match="schema upgrade"):
        Catalog.open(db_url, str(warehouse))
    schema_of_store = SchemaService.connect(db_url)
    try:
        result = schema_of_store.upgrade()
    finally:
        schema_of_store.close()
    assert (result.from_version, result.applied[0], result.applied[-1]) == (
        1,
        "add_typed_partition_values",
        "add_database_revision",
    )
    migrated = Catalog.open(db_url, str(warehouse))
    try:
        with migrated.store.read() as conn:
            assert conn.execute(select(schema.schema_version.c.version)).scalar_one() == schema.SCHEMA_VERSION
        assert [p.values for p in migrated.partitions.by_filter("m", "t", "hr > 9")] == [["a", "10"], ["a", "11"]]
        _, encodings, found = migrated.partitions.read_encoded("m", "t", filter_text="hr = 2")
        assert list(encodings) == [None]
        assert [(e.revision, e.partition.values) for e in found] == [(0, ["a", "2"])]
        migrated.partitions.save_encodings([(found[0].part_id, 0, b"cached")])
        with migrated.store.read() as conn:
            assert conn.execute(select(schema.tbl.c.revision)).scalar_one() == 0
        table = migrated.tables.get("m", "t")
        table.parameters["after"] = "migration"
        migrated.tables.alter("m", "t", table)
        assert migrated.tables.get("m", "t").parameters["after"] == "migration"
        assert list(migrated.partitions.read_encoded("m", "t", filter_text="hr = 2")[1]) == [b"cached"]
    finally:
        migrated.close()


@pytest.mark.empty_database  # made by an older release's code
def test_a_store_made_by_the_previous_release_upgrades_in_place(db_url, warehouse, tmp_path):
    """The previous layout's code (from git) makes a store; this code upgrades it, keeps its data and serves
    locks, compare-and-set alters, statistics, events and a second catalog on it."""
    make_previous_layout_store(db_url, warehouse, tmp_path)
    with pytest.raises(SchemaVersionError, match="layout 7, older"):
        Catalog.open(db_url, str(warehouse))
    assert "from layout 7 to layout" in upgrade_with_cli(db_url)
    migrated = Catalog.open(db_url, str(warehouse))
    try:
        with migrated.store.read() as conn:
            assert conn.execute(select(schema.schema_version.c.version)).scalar_one() == schema.SCHEMA_VERSION
        assert migrated.partitions.names("old", "t") == ["ds=a", "ds=b"]
        lock = migrated.locks.lock(LockRequest([LockComponent(LockType.EXCLUSIVE, LockTarget("old", "t"))], "u", "h"))
        assert (lock.lock_id, lock.state) == (1, LockState.ACQUIRED)
        assert migrated.txns.open(2, "u", "h") == [1, 2]
        table = migrated.tables.get("old", "t")
        table.parameters["metadata_location"] = "v2"
        migrated.tables.alter("old", "t", table, environment={EXPECTED_KEY: "metadata_location", EXPECTED_VALUE: "v1"})
        assert migrated.tables.get("old", "t").parameters["metadata_location"] == "v2"
        assert [e.type for e in migrated.events.after(0)] == ["ALTER_TABLE"]
        migrated.column_stats.update(ColumnStatsSet("old", "t", "ds=a", [ColumnStats("x", "int", StatsKind.LONG)]))
        assert list(migrated.column_stats.of_partitions("old", "t", ["ds=a"], ["x"])) == ["ds=a"]
        migrated.catalogs.create(DatabaseCatalog("spark", location=f"{warehouse}/spark"))
        with catalog_scope("spark"):
            migrated.databases.create(Database("old"))
            assert migrated.tables.names("old") == []
        assert migrated.tables.names("old") == ["t"]
        assert migrated.authorization.role_names() == ["admin", "public"]
    finally:
        migrated.close()


PREVIOUS_MAIN_COMMIT = "cf596ee"
"""The last main commit with layout version 13 (before location provenance)."""


@pytest.mark.empty_database  # made by an older release's code
def test_the_previous_main_s_store_gets_location_keys_and_no_provenance(db_url, warehouse, tmp_path):
    """Layout 13 -> 14 in place: every location gets its indexed key, no object gets provenance (what made
    its directory is unknown), so the old objects' directories go only under the warehouse root, and a new
    table at an old table's directory cannot take it with a drop."""
    make_previous_layout_store(db_url, warehouse, tmp_path, PREVIOUS_MAIN_COMMIT, 13)
    assert "from layout 13 to layout" in upgrade_with_cli(db_url)
    migrated = Catalog.open(db_url, str(warehouse))
    try:
        with migrated.store.read() as conn:
            for table, column in (
                (schema.db, "location_uri"),
                (schema.tbl, "location"),
                (schema.partitions, "location"),
            ):
                rows = conn.execute(select(table.c[column], table.c.location_key, table.c.made_location)).all()
                assert rows and all(key == location and made is None for location, key, made in rows), rows
        old_table = migrated.tables.get("old", "t").sd.location
        assert old_table == f"file:{warehouse}/old.db/t"
        migrated.tables.create(
            Table("default", "squat", sd=StorageDescriptor(columns=[Column("x", "int")], location=old_table))
        )
        migrated.tables.drop("default", "squat", delete_data=True)
        assert (warehouse / "old.db" / "t" / "ds=a").is_dir()
        migrated.partitions.drop("old", "t", ["a"])
        assert not (warehouse / "old.db" / "t" / "ds=a").exists()  # inside the warehouse, no other owner
        migrated.tables.create(Table("old", "new", sd=StorageDescriptor(columns=[Column("x", "int")])))
        with migrated.store.read() as conn:
            made = conn.execute(select(schema.tbl.c.made_location).where(schema.tbl.c.name == "new")).scalar_one()
        assert made == f"file:{warehouse}/old.db/new"
    finally:
        migrated.close()


LAYOUT_14_COMMIT = "604fa6d"
"""The last main commit with layout version 14 (before databases' revisions)."""


@pytest.mark.empty_database  # made by an older release's code
def test_the_previous_main_s_databases_get_revisions_their_cache_follows(db_url, warehouse, tmp_path):
    """Layout 14 -> 15 in place: every database gets revision 0, which its cached model is keyed on until a
    change raises it, in this server process or another."""
    make_previous_layout_store(db_url, warehouse, tmp_path, LAYOUT_14_COMMIT, 14)
    assert "from layout 14 to layout 15" in upgrade_with_cli(db_url)
    migrated = Catalog.open(db_url, str(warehouse))
    other = Catalog.open(db_url, str(warehouse), init=False)
    try:
        with migrated.store.read() as conn:
            assert set(conn.execute(select(schema.db.c.revision)).scalars()) == {0}
        assert migrated.databases.get("old").parameters == {}
        changed = other.databases.get("old")
        changed.parameters = {"k": "v"}
        other.databases.alter("old", changed)
        assert migrated.databases.get("old").parameters == {"k": "v"}
        with migrated.store.read() as conn:
            assert conn.execute(select(schema.db.c.revision).where(schema.db.c.name == "old")).scalar_one() == 1
    finally:
        other.close()
        migrated.close()
