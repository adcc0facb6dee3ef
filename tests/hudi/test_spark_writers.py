"""Hudi's own Spark writer syncing to this server in ``hms`` mode, against Apache Hive Metastore 2.3.10.

One Spark session with ``hudi-spark3.5-bundle_2.12`` (``tests/support/spark_writers.py``) writes four tables,
copy-on-write partitioned on one field, merge-on-read partitioned on two, copy-on-write partitioned by day
through the timestamp key generator, and copy-on-write without partitions, through an insert, an upsert into
a new partition, a delete and a rollback; the first two also through a write that adds a column, one that
clusters (and compacts, merge-on-read) and one that cleans, before the rollback. Each write syncs to this server (the writer's own hive sync); then the same
``HiveSyncTool`` syncs the same table to Hive Metastore 2.3.10. After each step:

- what both metastores hold for the table (and ``_ro``/``_rt``) is equal, but for the differences
  docs/hive-sync.md explains (``EXPLAINED``);
- the server followed the sync: its timeline holds the table's completed writes and its file snapshot is
  the one hudi-rs reads from the files;
- the basic statistics the server gives for the table are those of the latest file slices.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hudi_catalog import Catalog
from hudi_catalog.model import InstantState
from tests.conftest import mysql_database, require_module
from tests.support.spark_writers import SparkWriter, hudi_spark_writer
from tests.support.sql_engines import hive_metastore_2_3, metastore_client, served_metastore

require_module("hudi")

from hudi import HudiReadOptions, HudiTableBuilder  # noqa: E402

# Spark writers' and Hive Metastore's starts with the first test: past the default 600 s on a machine 3-4 times slower
pytestmark = [pytest.mark.slow, pytest.mark.mysql, pytest.mark.timeout(1800)]
log = logging.getLogger(__name__)

DATABASE = "writers"
SCHEMA = "id int, name string, region string, ts bigint, price double"
EVOLVED = f"{SCHEMA}, note string"
DAY = 86_400_000
ROWS = [
    [1, "ann", "eu", 0, 10.0],
    [2, "bob", "eu", DAY, 11.0],
    [3, "cid", "us", 0, 12.0],
    [4, "dan", "us", DAY, 13.0],
    [5, "eve", "asia", 2 * DAY, 14.0],
    [6, "fay", "asia", 2 * DAY, 15.0],
]

VOLATILE = {"transient_lastDdlTime"}
"""Parameters that differ between any two metastores (the time of the last change)."""
EXPLAINED = {
    "hoodie.table.version": "the server records the Hudi table version of the timeline it follows",
    "hoodie.table.type": "the server records the Hudi table type of the timeline it follows",
    "numFiles": "derived from the latest file slices here, counted by listing the folder in Hive",
    "totalSize": "derived from the latest file slices here, counted by listing the folder in Hive",
    "numRows": "the rows of the latest file slices here; Hive Metastore does not count rows",
    "rawDataSize": "Hive Metastore's figure of a folder listing",
    "COLUMN_STATS_ACCURATE": "Hive Metastore's flag of the listed statistics",
    "spark.sql.create.version": "written by the Spark session's own catalog, which is this server (Hudi's "
    "procedures name tables through it), not by hive sync",
}
"""Parameters that differ by design (docs/hive-sync.md, "Against Hive Metastore"): the statistics are checked
against hudi-rs instead."""


@dataclass(frozen=True)
class Layout:
    """One table's shape: its Hudi type and how its rows are partitioned."""

    name: str
    table_type: str
    options: dict[str, str]
    partition_fields: str
    services: bool = False
    """Whether the table also gets the added column, clustering (and compaction) and cleaning."""

    @property
    def hive_tables(self) -> list[str]:
        views = [f"{self.name}_ro", f"{self.name}_rt"] if self.table_type == "MERGE_ON_READ" else []
        return [*views, self.name]


LAYOUTS = [
    Layout(
        "cow_by_region",
        "COPY_ON_WRITE",
        {"hoodie.datasource.write.partitionpath.field": "region"},
        "region",
        services=True,
    ),
    Layout(
        "mor_by_region_ts",
        "MERGE_ON_READ",
        {
            "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.ComplexKeyGenerator",
            "hoodie.datasource.write.partitionpath.field": "region,ts",
        },
        "region,ts",
        services=True,
    ),
    Layout(
        "cow_by_day",
        "COPY_ON_WRITE",
        {
            "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.TimestampBasedKeyGenerator",
            "hoodie.datasource.write.partitionpath.field": "ts",
            "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
            "hoodie.keygen.timebased.output.dateformat": "yyyy-MM-dd",
            "hoodie.keygen.timebased.timezone": "UTC",
        },
        "ts",
    ),
    Layout(
        "cow_flat",
        "COPY_ON_WRITE",
        {
            "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.NonpartitionedKeyGenerator",
            "hoodie.datasource.write.partitionpath.field": "",
            "hoodie.datasource.hive_sync.partition_extractor_class": "org.apache.hudi.hive.NonPartitionedExtractor",
        },
        "",
    ),
]


@dataclass
class Writers:
    writer: SparkWriter
    ours_uri: str
    ours_db_url: str
    ours_warehouse: Path
    hms_uri: str
    data: Path


@pytest.fixture(scope="module")
def writers(tmp_path_factory, mysql_server_url) -> Iterator[Writers]:
    work = tmp_path_factory.mktemp("spark-writers")
    with ExitStack() as stack:
        ours_db = stack.enter_context(mysql_database(mysql_server_url))
        ours = stack.enter_context(served_metastore(work / "ours", ours_db))
        hms = stack.enter_context(hive_metastore_2_3(mysql_server_url))
        writer = stack.enter_context(hudi_spark_writer(work / "spark", ours.uri))
        log.info("Spark %s with Hudi's bundle", writer.spark_version)
        yield Writers(writer, ours.uri, ours_db, ours.warehouse, f"thrift://{hms.host}:{hms.port}", work / "data")


def _options(layout: Layout, uri: str, **extra: str) -> dict[str, str]:
    return {
        "hoodie.table.name": layout.name,
        "hoodie.datasource.write.table.type": layout.table_type,
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "price",
        "hoodie.datasource.write.hive_style_partitioning": "true",
        "hoodie.datasource.hive_sync.enable": "true",
        "hoodie.datasource.hive_sync.mode": "hms",
        "hoodie.datasource.hive_sync.metastore.uris": uri,
        "hoodie.datasource.hive_sync.database": DATABASE,
        "hoodie.datasource.hive_sync.table": layout.name,
        "hoodie.datasource.hive_sync.partition_fields": layout.partition_fields,
        "hoodie.metadata.enable": "false",
        **layout.options,
        **extra,
    }


# -- what a metastore holds -----------------------------------------------------------------------------


def _parameters(parameters: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in sorted(parameters.items()) if k not in VOLATILE and k not in EXPLAINED}


def _location(value: str | None) -> str | None:
    return value.replace("file:///", "/").replace("file:/", "/") if value else value


def _descriptor(sd) -> dict:
    return {
        "columns": [(c.name, c.type) for c in sd.cols],
        "location": _location(sd.location),
        "input": sd.inputFormat,
        "output": sd.outputFormat,
        "serde": sd.serdeInfo.serializationLib,
        "serde parameters": {k: _location(v) for k, v in sorted(sd.serdeInfo.parameters.items())},
        "buckets": sd.numBuckets,
    }


def _table_and_partitions(uri: str, table: str) -> tuple[Any, list]:
    """``writers.<table>`` and its partitions, as the metastore at ``uri`` answers them."""
    client = metastore_client(uri)
    try:
        return client.get_table(DATABASE, table), client.get_partitions(DATABASE, table, -1)
    finally:
        client.close()


def _held(uri: str, table: str) -> dict:
    """What the metastore at ``uri`` holds for ``writers.<table>``, without what differs by design."""
    t, partitions = _table_and_partitions(uri, table)
    return {
        "type": t.tableType,
        "owner": t.owner,
        "descriptor": _descriptor(t.sd),
        "partition keys": [(k.name, k.type) for k in t.partitionKeys],
        "parameters": _parameters(t.parameters),
        "partitions": sorted(
            (tuple(p.values), _descriptor(p.sd), tuple(_parameters(p.parameters).items())) for p in partitions
        ),
    }


def _statistics(uri: str, table: str) -> dict[str, tuple[int, int]]:
    """The server's ``numFiles`` and ``totalSize`` per partition path ('' for an unpartitioned table)."""
    t, partitions = _table_and_partitions(uri, table)
    if not t.partitionKeys:
        return {"": (int(t.parameters["numFiles"]), int(t.parameters["totalSize"]))}
    base = _location(t.sd.location)
    return {
        _location(p.sd.location).removeprefix(f"{base}/"): (
            int(p.parameters["numFiles"]),
            int(p.parameters["totalSize"]),
        )
        for p in partitions
    }


# -- what the files say --------------------------------------------------------------------------------


def _oracle(base: Path):
    return HudiTableBuilder.from_base_uri(str(base)).build()


def _oracle_slices(base: Path) -> set[tuple]:
    return {
        (s.partition_path, s.file_id, s.base_file_name or None, tuple(s.log_file_names))
        for s in _oracle(base).get_file_slices(HudiReadOptions())
    }


def _oracle_statistics(base: Path) -> dict[str, tuple[int, int]]:
    sizes: dict[str, list[int]] = {}
    for s in _oracle(base).get_file_slices(HudiReadOptions()):
        files = [n for n in (s.base_file_name, *s.log_file_names) if n]
        folder = base / s.partition_path if s.partition_path else base
        sizes.setdefault(s.partition_path, []).extend((folder / n).stat().st_size for n in files)
    return {path: (len(found), sum(found)) for path, found in sizes.items()}


def _our_slices(catalog: Catalog, table: str) -> set[tuple]:
    return {
        (s.partition_path, s.file_id, s.base_file, tuple(s.log_files))
        for found in catalog.snapshot.latest_file_slices(DATABASE, table).values()
        for s in found
    }


def _completed_writes(catalog: Catalog, table: str) -> list[str]:
    return [
        i.requested_time
        for i in catalog.timeline.instants(DATABASE, table, states=[InstantState.COMPLETED])
        if i.action in {"commit", "deltacommit", "replacecommit", "clustering", "compaction"}
    ]


def _oracle_writes(base: Path) -> list[str]:
    timeline = _oracle(base).get_timeline()
    completed = (
        timeline.get_completed_commits()
        + timeline.get_completed_deltacommits()
        + timeline.get_completed_replacecommits()
    )
    return sorted(i.timestamp for i in completed)


def _check(writers: Writers, layout: Layout, base: Path, step: str) -> None:
    for table in layout.hive_tables:
        ours, theirs = _held(writers.ours_uri, table), _held(writers.hms_uri, table)
        assert ours == theirs, f"after {step}: {table} differs from Hive Metastore 2.3.10"
    catalog = Catalog.open(writers.ours_db_url, warehouse=f"file://{writers.ours_warehouse}")
    try:
        assert sorted(_completed_writes(catalog, layout.name)) == _oracle_writes(base), f"after {step}: timeline"
        assert _our_slices(catalog, layout.name) == _oracle_slices(base), f"after {step}: file slices"
    finally:
        catalog.close()
    # the table holding the timeline; its _ro and _rt views keep Hive's figures (docs/statistics-and-events.md)
    stats = _statistics(writers.ours_uri, layout.name)
    assert {p: s for p, s in stats.items() if s != (0, 0)} == _oracle_statistics(base), f"after {step}: statistics"


# -- the writes ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: layout.name)
def test_writes_sync_like_hive_metastore_and_follow_the_files(writers, layout):
    writer = writers.writer
    base = writers.data / layout.name
    path = f"file://{base}"

    def write(step: str, rows: list[list], schema: str = SCHEMA, mode: str = "append", **extra: str) -> None:
        writer.write(path, schema, rows, _options(layout, writers.ours_uri, **extra), mode=mode)
        writer.sync(path, _options(layout, writers.hms_uri))
        _check(writers, layout, base, step)

    write("insert", ROWS, mode="overwrite", **{"hoodie.datasource.write.operation": "insert"})
    write("upsert into a new partition", [[1, "ann", "eu", 0, 20.0], [7, "gus", "af", 3 * DAY, 16.0]])
    write("delete", [ROWS[2]], **{"hoodie.datasource.write.operation": "delete"})
    schema = SCHEMA
    if layout.services:  # the table services and schema evolution, once per table type
        schema = EVOLVED
        write("added column", [[2, "bob", "eu", DAY, 21.0, "moved"], [8, "hal", "eu", 0, 17.0, "new"]], schema=schema)
        services = {"hoodie.clustering.inline": "true", "hoodie.clustering.inline.max.commits": "1"}
        if layout.table_type == "MERGE_ON_READ":
            services |= {"hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "1"}
        write("clustering", [[4, "dan", "us", DAY, 22.0, None]], schema=schema, **services)
        cleaning = {
            "hoodie.clean.automatic": "true",
            "hoodie.clean.async": "false",
            "hoodie.cleaner.commits.retained": "1",
        }
        write("cleaning", [[5, "eve", "asia", 2 * DAY, 23.0, "x"]], schema=schema, **cleaning)
    write(
        "an upsert to roll back",
        [[6, "fay", "asia", 2 * DAY, 24.0, *(["y"] if schema == EVOLVED else [])]],
        schema=schema,
    )
    latest = _oracle_writes(base)[-1]
    writer.sql(f"CALL rollback_to_instant(table => '{DATABASE}.{layout.name}', instant_time => '{latest}')")
    assert latest not in _oracle_writes(base)
    for uri in (writers.ours_uri, writers.hms_uri):
        writer.sync(path, _options(layout, uri))
    _check(writers, layout, base, "rollback")


def test_a_spark_sql_schema_change_is_followed_at_once(writers):
    """Spark SQL's ``ALTER TABLE ... ADD COLUMNS`` on a Hudi table (Hudi's catalog) completes a schema commit on
    the timeline, then alters the table's columns: no sync parameter changes, yet the server's timeline and
    latest file slices are storage's as soon as the statement returns."""
    layout = Layout("ddl", "COPY_ON_WRITE", {"hoodie.datasource.write.partitionpath.field": "region"}, "region")
    base = writers.data / layout.name
    path = f"file://{base}"
    writers.writer.write(path, SCHEMA, ROWS, _options(layout, writers.ours_uri), mode="overwrite")
    writes_before = _oracle_writes(base)

    writers.writer.sql(f"ALTER TABLE {DATABASE}.{layout.name} ADD COLUMNS (note string)")

    assert len(_oracle_writes(base)) == len(writes_before) + 1, "the schema change is a commit on the timeline"
    catalog = Catalog.open(writers.ours_db_url, warehouse=f"file://{writers.ours_warehouse}")
    try:
        assert sorted(_completed_writes(catalog, layout.name)) == _oracle_writes(base)
        assert _our_slices(catalog, layout.name) == _oracle_slices(base)
    finally:
        catalog.close()
    table, _ = _table_and_partitions(writers.ours_uri, layout.name)
    assert [c.name for c in table.sd.cols][-1] == "note"
