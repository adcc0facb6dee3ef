"""A replace commit may replace thousands of file groups (a clustering of a large table): recording them
must not build one SQL term per group (SQLite refuses expressions deeper than 1,000)."""

from __future__ import annotations

from sqlalchemy import func, select

from hudi_catalog.model import Column, Database, StorageDescriptor, Table
from hudi_catalog.store import schema
from hudi_catalog.store import snapshot as snapshot_store


def test_a_replace_of_many_file_groups_is_recorded(catalog):
    catalog.databases.create(Database("c"))
    catalog.tables.create(Table("c", "t", sd=StorageDescriptor(columns=[Column("x", "int")])))
    with catalog.store.read() as conn:
        tbl_id = conn.execute(select(schema.tbl.c.tbl_id).where(schema.tbl.c.name == "t")).scalar_one()
    groups = [(None, f"fg-{n}") for n in range(3000)] + [(7, f"fg-{n}") for n in range(1500)]
    for instant in ("20240101000000000", "20240102000000000"):  # the second replaces the same groups again
        with catalog.store.write() as conn:
            snapshot_store.replace_file_groups(conn, tbl_id, groups, instant)
    with catalog.store.read() as conn:
        rows = conn.execute(
            select(schema.replaced_file_group.c.instant_ts, func.count())
            .where(schema.replaced_file_group.c.tbl_id == tbl_id)
            .group_by(schema.replaced_file_group.c.instant_ts)
        ).all()
    assert rows == [("20240102000000000", 4500)]
