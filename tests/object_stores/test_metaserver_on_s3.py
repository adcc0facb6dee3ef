"""Hudi's Spark writer with its timeline in this server (``hoodie.metaserver.enabled``) and its data in S3
(moto's server, ``tests/support/object_stores.py``), through Hadoop's S3A.

The writer is the bundle whose metaserver client works (``engines.HUDI_METASERVER_BUNDLE``, see
``tests/hudi/test_spark_metaserver.py`` for the same on a local disk). A copy-on-write table at an ``s3a://``
base path gets an insert and an upsert into a new partition; after each, Hudi's reader (the timeline read from
the server) gives the rows the writes leave, and so do the base files of the server's latest file slices,
read straight from the bucket. The bucket's ``.hoodie`` holds ``hoodie.properties`` and no instant.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow.parquet as pq
import pytest

from hudi_catalog import Catalog
from tests.object_stores.conftest import BUCKET
from tests.support.object_stores import S3Store
from tests.support.servers import free_port
from tests.support.spark_writers import HUDI_SETTINGS, SparkWriter, spark_writer
from tests.support.sql_engines import engines, served_metastore

# a Spark writer's start with the first test: past the default 600 s on a machine 3-4 times slower
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

DATABASE, TABLE = "served", "trips"
SCHEMA = "id int, name string, region string, price double"
COLUMNS = ["id", "name", "region", "price"]
BASE = f"s3a://{BUCKET}/metaserver/{TABLE}"


@dataclass
class Served:
    writer: SparkWriter
    store: S3Store
    db_url: str
    metaserver_uri: str

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


@pytest.fixture(scope="module")
def served(s3, tmp_path_factory) -> Iterator[Served]:
    work = tmp_path_factory.mktemp("metaserver-on-s3")
    db_url = f"sqlite:///{work}/catalog.db"
    metaserver_port = free_port()
    s3a = {f"spark.hadoop.{key}": value for key, value in s3.s3a_settings.items()}
    with (
        served_metastore(
            work / "ours", db_url, metaserver_port=metaserver_port, warehouse_uri=f"s3a://{BUCKET}/wh"
        ) as ours,
        spark_writer(
            work / "spark", ours.uri, [engines.HUDI_METASERVER_BUNDLE, *engines.SPARK_S3A], HUDI_SETTINGS | s3a
        ) as writer,
    ):
        yield Served(writer, s3, db_url, f"thrift://127.0.0.1:{metaserver_port}")


def _rows(rows: list[list]) -> list[list[str]]:
    return sorted([[str(v) for v in row] for row in rows])


def _snapshot_rows(served: Served) -> tuple[list[list[str]], int]:
    """The rows of the base files the server's latest file slices name, read from the bucket, and the number
    of completed commits of its timeline."""
    catalog = Catalog.open(served.db_url, f"s3a://{BUCKET}/wh", init=False)
    try:
        slices = catalog.snapshot.latest_file_slices(DATABASE, TABLE)
        commits = [i for i in catalog.timeline.instants(DATABASE, TABLE) if i.action == "commit"]
    finally:
        catalog.close()
    rows = []
    for path, found in slices.items():
        for file_slice in found:
            key = f"{BUCKET}/metaserver/{TABLE}/{path}/{file_slice.base_file}"
            table = pq.read_table(key, columns=COLUMNS, filesystem=served.store.filesystem())
            rows += [[str(row[c]) for c in COLUMNS] for row in table.to_pylist()]
    return sorted(rows), len(commits)


def test_the_timeline_in_the_server_and_the_data_in_s3(served):
    steps = [
        ([[1, "ann", "eu", 1.0], [2, "bob", "us", 2.0]], {"hoodie.datasource.write.operation": "insert"}),
        ([[1, "ann", "eu", 3.0], [3, "cid", "asia", 4.0]], {}),
    ]
    expected: dict[int, list] = {}
    for step, (rows, extra) in enumerate(steps):
        served.writer.write(BASE, SCHEMA, rows, served.options(**extra), mode="overwrite" if step == 0 else "append")
        expected.update({row[0]: row for row in rows})
        now = _rows(list(expected.values()))
        assert served.writer.read(BASE, served.options(), COLUMNS) == now, f"step {step}: Hudi's reader"
        assert _snapshot_rows(served) == (now, step + 1), f"step {step}: the server's snapshot and timeline"
    meta = served.store.keys(f"{BUCKET}/metaserver/{TABLE}/.hoodie")
    assert [key.rsplit("/", 1)[1] for key in meta if not key.endswith(".crc")] == ["hoodie.properties"]
