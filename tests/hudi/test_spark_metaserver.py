"""Hudi's Spark writer with its timeline in this server: ``hoodie.metaserver.enabled`` at the metaserver port.

The bundles carry Hudi's metaserver client, but only 0.15.0's works (``engines.HUDI_METASERVER_BUNDLE`` says
why 1.0.2's and 1.1.1's do not), so the writer here is ``hudi-spark3.5-bundle_2.12`` 0.15.0 on the same
PySpark. With the metaserver the timeline lives in the catalog alone: the table's ``.hoodie`` folder holds
``hoodie.properties`` and no instant, so hudi-rs cannot read the table; what is checked instead is that the
server's file snapshot names the data files whose rows Hudi's own reader returns. A copy-on-write table
partitioned on one field (Hudi's metaserver serves copy-on-write tables only) gets an insert, an upsert into a
new partition and a delete; after each:

- the server's timeline has the completed commit (and only completed ones), the table its partitions;
- Hudi's Spark reader, reading the timeline from the server, gives the rows the writes leave;
- the rows of the base files of the server's latest file slices, read straight from storage, are those rows;
- time travel (``as.of.instant``) to each earlier commit gives the rows of that commit.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from hudi_catalog import Catalog
from hudi_catalog.model import InstantState
from tests.conftest import mysql_database, require_module
from tests.support.servers import free_port
from tests.support.spark_writers import SparkWriter, engines, hudi_spark_writer
from tests.support.sql_engines import served_metastore

require_module("hudi")

# Spark writers' starts with the first test: past the default 600 s on a machine 3-4 times slower
pytestmark = [pytest.mark.slow, pytest.mark.mysql, pytest.mark.timeout(1800)]
log = logging.getLogger(__name__)

DATABASE = "served"
TABLE = "trips"
SCHEMA = "id int, name string, region string, price double"
COLUMNS = ["id", "name", "region", "price"]


@dataclass
class Served:
    writer: SparkWriter
    db_url: str
    warehouse: Path
    metaserver_uri: str
    base: Path

    @property
    def path(self) -> str:
        return f"file://{self.base}"

    def options(self, **extra: str) -> dict[str, str]:
        return {
            "hoodie.table.name": TABLE,
            "hoodie.database.name": DATABASE,
            "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "price",
            "hoodie.datasource.write.partitionpath.field": "region",
            "hoodie.datasource.write.hive_style_partitioning": "true",
            "hoodie.metaserver.enabled": "true",
            "hoodie.metaserver.uris": self.metaserver_uri,
            "hoodie.metadata.enable": "false",
            **extra,
        }

    def catalog(self) -> Catalog:
        return Catalog.open(self.db_url, warehouse=f"file://{self.warehouse}")


@pytest.fixture(scope="module")
def served(tmp_path_factory, mysql_server_url) -> Iterator[Served]:
    work = tmp_path_factory.mktemp("spark-metaserver")
    metaserver_port = free_port()
    with ExitStack() as stack:
        db_url = stack.enter_context(mysql_database(mysql_server_url))
        ours = stack.enter_context(served_metastore(work / "ours", db_url, metaserver_port=metaserver_port))
        writer = stack.enter_context(hudi_spark_writer(work / "spark", ours.uri, bundle=engines.HUDI_METASERVER_BUNDLE))
        yield Served(writer, db_url, ours.warehouse, f"thrift://127.0.0.1:{metaserver_port}", work / "data" / TABLE)


def _rows(rows: list[list]) -> list[list[str]]:
    return sorted([[str(v) for v in row] for row in rows])


def _snapshot_rows(served: Served) -> tuple[list[list[str]], list[str]]:
    """The rows of the base files the server's latest file slices name, read from storage, and the
    completed instants of its timeline."""
    catalog = served.catalog()
    try:
        slices = catalog.snapshot.latest_file_slices(DATABASE, TABLE)
        instants = catalog.timeline.instants(DATABASE, TABLE)
    finally:
        catalog.close()
    rows = []
    for path, found in slices.items():
        for file_slice in found:
            assert not file_slice.log_files, "a copy-on-write table has no log files"
            table = pq.read_table(served.base / path / file_slice.base_file, columns=COLUMNS)
            rows += [[str(row[c]) for c in COLUMNS] for row in table.to_pylist()]
    assert all(i.state is InstantState.COMPLETED for i in instants), instants
    return sorted(rows), [i.requested_time for i in instants if i.action == "commit"]


def test_writes_reads_and_time_travel_with_the_timeline_in_the_server(served):
    writer, options = served.writer, served.options()
    states = [
        ("insert", [[1, "ann", "eu", 1.0], [2, "bob", "us", 2.0]], {"hoodie.datasource.write.operation": "insert"}),
        ("upsert into a new partition", [[1, "ann", "eu", 3.0], [3, "cid", "asia", 4.0]], {}),
        ("delete", [[2, "bob", "us", 2.0]], {"hoodie.datasource.write.operation": "delete"}),
    ]
    expected: dict[int, list] = {}
    history: list[tuple[str, list[list[str]]]] = []
    for step, (name, rows, extra) in enumerate(states):
        mode = "overwrite" if step == 0 else "append"
        writer.write(served.path, SCHEMA, rows, served.options(**extra), mode=mode)
        for row in rows:
            if extra.get("hoodie.datasource.write.operation") == "delete":
                expected.pop(row[0])
            else:
                expected[row[0]] = row
        now = _rows(list(expected.values()))

        assert writer.read(served.path, options, COLUMNS) == now, f"after {name}: Hudi's reader"
        from_files, commits = _snapshot_rows(served)
        assert from_files == now, f"after {name}: the files of the server's snapshot"
        assert len(commits) == step + 1, f"after {name}: the server's timeline"
        history.append((commits[-1], now))

    files = sorted(p.name for p in (served.base / ".hoodie").iterdir() if p.is_file() and not p.name.endswith(".crc"))
    assert files == ["hoodie.properties"], "the timeline is the server's, not the files'"
    catalog = served.catalog()
    try:
        assert catalog.snapshot.partition_paths(DATABASE, TABLE) == ["region=asia", "region=eu", "region=us"]
        assert catalog.tables.get(DATABASE, TABLE).parameters["hoodie.table.version"] == "6"
    finally:
        catalog.close()
    for commit, rows_then in history[:-1]:
        travelled = writer.read(served.path, {**options, "as.of.instant": commit}, COLUMNS)
        assert travelled == rows_then, f"as of {commit}"
