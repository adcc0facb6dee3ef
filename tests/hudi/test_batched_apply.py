"""Completed instants applied together (an import's batch) leave the snapshot that applying them one by one
leaves: their file changes are folded per file and written in bulk (``store.snapshot.FileChanges``), their
partitions looked up once."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from benchmarks.import_scale import generate
from hudi_catalog import Catalog
from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table
from hudi_catalog.services.hudi_import import HudiImporter
from hudi_catalog.store import schema
from hudi_catalog.store import snapshot as snapshot_store
from tests.hudi.tables import TABLES_DIR, unpack

_f = schema.files.c
STATISTICS = ("numFiles", "totalSize", "numRows")


def _table_id(catalog, name: str) -> int:
    catalog.tables.create(Table("c", name, sd=StorageDescriptor(columns=[Column("x", "int")])))
    with catalog.store.read() as conn:
        return conn.execute(select(schema.tbl.c.tbl_id).where(schema.tbl.c.name == name)).scalar_one()


def _file(name: str, size: int, instant: str = "20240101000000000") -> dict:
    return {"part_id": None, "name": name, "file_id": name, "instant_ts": instant, "size": size, "num_rows": 1}


def _rows(catalog, tbl_id: int) -> set[tuple]:
    with catalog.store.read() as conn:
        rows = conn.execute(
            select(_f.name, _f.file_id, _f.instant_ts, _f.size, _f.num_rows, _f.is_deleted).where(_f.tbl_id == tbl_id)
        ).all()
    return {
        (name, file_id, instant, size, num_rows, bool(deleted))
        for name, file_id, instant, size, num_rows, deleted in rows
    }


CHANGES = [
    ("add", [_file("b", 1)]),
    ("delete", ["b"]),  # added and cleaned before the flush: inserted deleted
    ("delete", ["c"]),  # deleted before it is added: no effect
    ("add", [_file("c", 2)]),
    ("add", [_file("stored", 9, "20240102000000000")]),  # stored already: keeps its row, takes the size
    ("delete", ["gone"]),  # stored: marked deleted
    ("add", [_file("gone", 4)]),  # a stored file stays deleted when added again
    ("delete", ["unknown"]),
    ("add", [_file("e", 3)]),
    ("delete", ["e"]),
    ("add", [_file("e", 5)]),
]


def _apply(catalog, tbl_id: int, flush_each: bool) -> None:
    with catalog.store.write() as conn:
        stored = snapshot_store.FileChanges(tbl_id)
        stored.add([_file("stored", 7), _file("gone", 8)])
        stored.flush(conn)
    with catalog.store.write() as conn:
        changes = snapshot_store.FileChanges(tbl_id)
        for kind, values in CHANGES:
            if kind == "add":
                changes.add(values)
            else:
                changes.mark_deleted(None, values)
            if flush_each:
                changes.flush(conn)
        changes.flush(conn)


def test_folded_file_changes_equal_changes_one_by_one(catalog):
    catalog.databases.create(Database("c"))
    folded, one_by_one = _table_id(catalog, "folded"), _table_id(catalog, "one_by_one")
    _apply(catalog, folded, flush_each=False)
    _apply(catalog, one_by_one, flush_each=True)
    assert (
        _rows(catalog, folded)
        == _rows(catalog, one_by_one)
        == {
            ("b", "b", "20240101000000000", 1, 1, True),
            ("c", "c", "20240101000000000", 2, 1, False),
            ("stored", "stored", "20240101000000000", 9, 1, False),
            ("gone", "gone", "20240101000000000", 4, 1, True),
            ("e", "e", "20240101000000000", 5, 1, True),
        }
    )


def test_a_name_stored_in_another_partition_is_not_taken_for_the_file(catalog):
    """The stored files of many partitions are looked up in one statement (names crossed with partitions): a
    file is stored only if its own partition holds its name."""
    catalog.databases.create(Database("c"))
    catalog.tables.create(
        Table("c", "p", sd=StorageDescriptor(columns=[Column("x", "int")]), partition_keys=[Column("k", "string")])
    )
    catalog.partitions.add("c", "p", [Partition("c", "p", [v]) for v in ("a", "b")])
    with catalog.store.read() as conn:
        tbl_id = conn.execute(select(schema.tbl.c.tbl_id).where(schema.tbl.c.name == "p")).scalar_one()
        a, b = conn.execute(select(schema.partitions.c.part_id).order_by(schema.partitions.c.part_name)).scalars()
    with catalog.store.write() as conn:
        first = snapshot_store.FileChanges(tbl_id)
        first.add([{**_file("same", 1), "part_id": a}])
        first.flush(conn)
    with catalog.store.write() as conn:
        second = snapshot_store.FileChanges(tbl_id)
        second.add([{**_file("same", 2), "part_id": b}, {**_file("other", 3), "part_id": a}])
        second.flush(conn)
    with catalog.store.read() as conn:
        rows = conn.execute(select(_f.part_id, _f.name, _f.size, _f.is_deleted).where(_f.tbl_id == tbl_id)).all()
    assert sorted((part, name, size, bool(deleted)) for part, name, size, deleted in rows) == sorted(
        [(a, "same", 1, False), (a, "other", 3, False), (b, "same", 2, False)]
    )


def _snapshot(catalog) -> tuple:
    """Everything applying instants writes: file rows by partition path, replaced groups, the statistics
    of the table and its partitions, the applied versions."""
    with catalog.store.read() as conn:
        paths = dict(conn.execute(select(schema.partitions.c.part_id, schema.partitions.c.hudi_path)).all())
        files = {
            (paths.get(r.part_id), r.name, r.file_id, r.instant_ts, r.size, r.num_rows, bool(r.is_deleted))
            for r in conn.execute(select(schema.files))
        }
        replaced = {
            (paths.get(r.part_id), r.file_id, r.instant_ts) for r in conn.execute(select(schema.replaced_file_group))
        }
        versions = set(conn.execute(select(schema.tbl_version.c.version)).scalars())
    statistics = {
        tuple(p.values): {k: v for k, v in p.parameters.items() if k in STATISTICS}
        for p in catalog.partitions.list("h", "t")
    }
    table = {k: v for k, v in catalog.tables.get("h", "t").parameters.items() if k in STATISTICS}
    return files, replaced, versions, statistics, table


@pytest.mark.parametrize(
    "name",
    [
        "generated",  # cleans of files written in the same batch and in earlier ones
        "sample_table_mor_parquet_v6_nonpartitioned_rollback",
        "sample_table_cow_v6_simplekeygen_nonhivestyle_overwritetable",
        "quickstart_trips_table_mor_avro_v8_trips_8i3u1d",
        "sample_table_mor_avro_v9_txns_simple_meta",
    ],
)
def test_a_batch_applies_as_its_instants_one_by_one(db_url, tmp_path, name):
    if name == "generated":
        if not (TABLES_DIR / "sample_table_cow_v8_simplekeygen_nonhivestyle.zip").exists():
            pytest.skip(f"no Hudi tables in {TABLES_DIR}")
        base = generate(tmp_path / "generated", 60, 6, 4, 10)
    else:
        base = unpack(name, tmp_path)
    found = []
    for batch_instants, db in ((1, "one.db"), (1000, "all.db")):
        url = db_url if batch_instants == 1000 else f"sqlite:///{tmp_path / db}"
        catalog = Catalog.open(url, str(tmp_path / f"wh-{batch_instants}"))
        try:
            HudiImporter(catalog, batch_instants=batch_instants).run(str(base), database="h", table="t")
            found.append(_snapshot(catalog))
        finally:
            catalog.close()
    assert found[0] == found[1]
    assert any(deleted for *_, deleted in found[1][0]) or name != "generated"
