"""One partition-creation path (``services.partitions.create_partitions``): a partition that a Hudi commit creates
(``SnapshotService``, which also gives it to the table's ``_ro``/``_rt`` views) and the same partition added
through ``catalog.partitions`` (HMS ``add_partition*``/``append_partition*``, hive sync) are alike as clients
see them: values, storage descriptor, parameters, create time, and their ADD_PARTITION events.

Each test builds two families of tables of the same shape, one whose partitions come from a Hudi commit and one
whose partitions hive sync adds before the commit is applied (the commit then adopts them), under a fixed clock,
and compares them with the family's names and locations masked.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime, timezone

import pytest

from hms_adapter.event_messages import HiveJsonMessages
from hudi_catalog import Catalog
from hudi_catalog.model import (
    EXTERNAL_TABLE,
    VIEW_OF_PARAM,
    Column,
    Instant,
    InstantState,
    SerDe,
    StorageDescriptor,
    Table,
)
from hudi_catalog.services.context import DDL_TIME
from hudi_catalog.services.hudi_import import COPY_ON_WRITE_INPUT, MERGE_ON_READ_INPUT, PARQUET_OUTPUT, PARQUET_SERDE
from tests.hudi.tables import TABLES_DIR, unpack

NOW = datetime(2024, 5, 6, 7, 8, 9, tzinfo=timezone.utc)
NOW_SECONDS = int(NOW.timestamp())
SUFFIXES = ("", "_ro", "_rt")
"""A MERGE_ON_READ table and its two views, as Hudi's hive sync registers them."""


def _fix_clock(catalog: Catalog) -> None:
    catalog.ctx.clock = lambda: NOW


def _family(catalog: Catalog, database: str, name: str, location: str) -> None:
    """A MERGE_ON_READ Hudi table ``name`` (table version 6) partitioned by ``region``, with its views."""
    for suffix, input_format in zip(SUFFIXES, (MERGE_ON_READ_INPUT, COPY_ON_WRITE_INPUT, MERGE_ON_READ_INPUT)):
        catalog.tables.create(
            Table(
                database,
                name + suffix,
                table_type=EXTERNAL_TABLE,
                partition_keys=[Column("region", "string")],
                parameters={
                    "EXTERNAL": "TRUE",
                    "hoodie.table.version": "6",
                    "hoodie.table.type": "MERGE_ON_READ",
                    **({VIEW_OF_PARAM: name} if suffix else {}),
                },
                sd=StorageDescriptor(
                    columns=[Column("id", "int"), Column("name", "string")],
                    location=location,
                    input_format=input_format,
                    output_format=PARQUET_OUTPUT,
                    serde=SerDe(serialization_lib=PARQUET_SERDE, parameters={"serialization.format": "1"}),
                ),
            )
        )


def _commit(catalog: Catalog, database: str, table: str, ts: str, paths: list[str]) -> None:
    """A completed deltacommit writing one base file in each of ``paths``, as a Hudi writer records it."""
    stats = {
        path: [
            {
                "fileId": f"file{i}",
                "path": f"{path}/file{i}_0-1-1_{ts}.parquet",
                "partitionPath": path,
                "prevCommit": "null",
                "numWrites": 3,
                "fileSizeInBytes": 100,
            }
        ]
        for i, path in enumerate(paths)
    }
    metadata = {"partitionToWriteStats": stats, "operationType": "UPSERT", "extraMetadata": {}}
    catalog.timeline.record(
        database,
        table,
        Instant(ts, "deltacommit", InstantState.COMPLETED, ts),
        {InstantState.COMPLETED: json.dumps(metadata).encode()},
    )


def _masked(text: str, masks: dict[str, str]) -> str:
    for old, new in masks.items():
        text = text.replace(old, new)
    return text


def _partitions(catalog: Catalog, database: str, name: str, masks: dict[str, str]) -> dict[str, list[str]]:
    """The partitions of the family as clients read them, names and locations masked."""
    return {
        suffix: [
            _masked(json.dumps(asdict(p), sort_keys=True), masks)
            for p in catalog.partitions.list(database, name + suffix)
        ]
        for suffix in SUFFIXES
    }


def _add_events(catalog: Catalog, since: int, database: str, masks: dict[str, str]) -> list[tuple[str, list[str]]]:
    """``(table, [partition JSON])`` of the ADD_PARTITION events after ``since`` in ``database``, in order,
    names and locations masked (Hive's JSON messages: ``partitionListJson``)."""
    found = []
    for event in catalog.events.after(since, database=database):
        if event.type == "ADD_PARTITION":
            message = json.loads(event.message)
            assert message["timestamp"] == NOW_SECONDS and event.event_time == NOW_SECONDS
            found.append((_masked(event.table or "", masks), [_masked(p, masks) for p in message["partitionListJson"]]))
    return found


def _flat(events: list[tuple[str, list[str]]]) -> list[tuple[str, str]]:
    return sorted((table, p) for table, parts in events for p in parts)


def test_a_commit_and_hive_sync_create_the_same_partitions(catalog, tmp_path):
    _fix_clock(catalog)
    by_commit, by_sync = f"file:{tmp_path}/by_commit", f"file:{tmp_path}/by_sync"
    _family(catalog, "default", "by_commit", by_commit)
    _family(catalog, "default", "by_sync", by_sync)
    masks_commit = {by_commit: "<location>", "by_commit": "<t>"}
    masks_sync = {by_sync: "<location>", "by_sync": "<t>"}
    paths = ["region=eu", "region=us"]

    start = catalog.events.current_id()
    _commit(catalog, "default", "by_commit", "20240506070809000", paths)
    commit_events = _add_events(catalog, start, "default", masks_commit)
    # the table's event first, then its views'
    assert [table for table, _ in commit_events] == ["<t>", "<t>_ro", "<t>_rt"]

    start = catalog.events.current_id()
    for suffix in SUFFIXES:  # hive sync adds them to each table (append: the table's storage descriptor)
        for path in paths:
            catalog.partitions.append("default", "by_sync" + suffix, name=path)
    sync_events = _add_events(catalog, start, "default", masks_sync)
    start = catalog.events.current_id()
    _commit(catalog, "default", "by_sync", "20240506070809000", paths)  # adopts them: no event
    assert _add_events(catalog, start, "default", masks_sync) == []

    assert _flat(commit_events) == _flat(sync_events)
    created = _partitions(catalog, "default", "by_commit", masks_commit)
    assert created == _partitions(catalog, "default", "by_sync", masks_sync)
    assert catalog.snapshot.partition_paths("default", "by_sync") == paths

    for suffix, input_format in zip(SUFFIXES, (MERGE_ON_READ_INPUT, COPY_ON_WRITE_INPUT, MERGE_ON_READ_INPUT)):
        for part in catalog.partitions.list("default", "by_commit" + suffix):
            assert part.create_time == NOW_SECONDS and part.parameters[DDL_TIME] == str(NOW_SECONDS)
            # a view's partition is read as the view is (Hudi's hive sync gives it the view's descriptor)
            assert part.sd.input_format == input_format
            assert part.sd.location == f"{by_commit}/region={part.values[0]}"
    assert {"numFiles", "totalSize"} <= catalog.partitions.get("default", "by_commit", ["eu"]).parameters.keys()


def test_a_commit_gives_views_only_the_partitions_they_lack(catalog, tmp_path):
    _fix_clock(catalog)
    location = f"file:{tmp_path}/t"
    _family(catalog, "default", "t", location)
    catalog.partitions.append("default", "t_ro", ["eu"])  # the view has it already, the table not
    before = catalog.partitions.get("default", "t_ro", ["eu"])
    start = catalog.events.current_id()
    _commit(catalog, "default", "t", "20240506070809000", ["region=eu", "region=us"])
    events = [(t, len(parts)) for t, parts in _add_events(catalog, start, "default", {})]
    assert events == [("t", 2), ("t_ro", 1), ("t_rt", 2)]
    assert catalog.partitions.get("default", "t_ro", ["eu"]) == before
    assert [p.values for p in catalog.partitions.list("default", "t_ro")] == [["eu"], ["us"]]


# -- a real Hudi table ------------------------------------------------------------------------------------

REAL = "sample_table_mor_avro_v9_txns_simple_meta"
"""A MERGE_ON_READ table partitioned Hive-style by ``region`` (its partition paths are the partition names)."""


def test_an_imported_table_and_hive_sync_create_the_same_partitions(db_url, warehouse, tmp_path):
    if not (TABLES_DIR / f"{REAL}.zip").exists():
        pytest.skip(f"no Hudi table {REAL} in {TABLES_DIR}")
    base = unpack(REAL, tmp_path)
    inline = Catalog.open(db_url, str(warehouse), event_format=HiveJsonMessages())
    lagging = Catalog.open(db_url, str(warehouse), snapshot_sync="async", event_format=HiveJsonMessages())
    try:
        for catalog in (inline, lagging):
            _fix_clock(catalog)
        start = inline.events.current_id()
        inline.import_table(str(base), database="by_commit", table="t")
        commit_events = _add_events(inline, start, "by_commit", {"by_commit": "<db>"})
        assert commit_events and {t for t, _ in commit_events} == {"t", "t_ro", "t_rt"}
        assert [t for t, _ in commit_events[:3]] == ["t", "t_ro", "t_rt"]

        lagging.import_table(str(base), database="by_sync", table="t")  # the snapshot not applied yet
        assert lagging.partitions.list("by_sync", "t") == []
        paths = inline.snapshot.partition_paths("by_commit", "t")
        start = lagging.events.current_id()
        for suffix in SUFFIXES:
            for path in paths:
                lagging.partitions.append("by_sync", "t" + suffix, name=path)
        sync_events = _add_events(lagging, start, "by_sync", {"by_sync": "<db>"})
        assert lagging.snapshot.sync_pending() > 0  # adopts the partitions hive sync added
        assert lagging.snapshot.partition_paths("by_sync", "t") == paths

        assert _flat(commit_events) == _flat(sync_events)
        assert _partitions(inline, "by_commit", "t", {"by_commit": "<db>"}) == _partitions(
            lagging, "by_sync", "t", {"by_sync": "<db>"}
        )
    finally:
        lagging.close()
        inline.close()
