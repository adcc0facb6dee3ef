"""Real engines on a lake in S3 (moto's server, ``tests/support/object_stores.py``) through ``hudi-metastore
serve``: the differential method of the engine tests, on ``s3a://`` and ``s3://`` warehouses.

Two servers share one catalog on MariaDB, as several servers of one deployment do: ``spark`` with its
warehouse at ``s3a://lake/spark-wh`` (and ``--iceberg-views``), ``trino`` at ``s3://lake/trino-wh``; both reach
the store through the AWS SDK's environment alone. One module starts, at once, a Spark session with Hudi's
bundle and Hadoop's S3A (``hadoop-aws``) whose catalog is ``spark``, a second Spark session with Spark's own
embedded metastore and its warehouse in the same bucket, and Trino 476 with its native S3 file system and its
Hive, Hudi and Iceberg connectors on ``trino``.

- Hudi's Spark writer writes and hive-syncs tables at ``s3a://`` base paths: the server's timeline and file
  snapshot equal what hudi-rs reads from the bucket, and its locations keep ``s3a://``.
- Spark SQL managed tables in the ``s3a://`` warehouse: the same statements in both Spark sessions give the
  same rows and leave the same data objects, and a drop deletes them in both.
- Trino's Hive connector creates, fills and drops managed tables in the ``s3://`` warehouse; its Hudi connector
  reads the table Spark wrote, its Iceberg connector the Iceberg view the server keeps of it, both from S3, as
  hudi-rs reads them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass

import pytest

from hudi_catalog import Catalog
from tests.conftest import mysql_database, require_module
from tests.object_stores.conftest import BUCKET
from tests.support.object_stores import SECRET_KEY, S3Store, assert_as_hudi_rs
from tests.support.servers import READY_SECONDS
from tests.support.spark_writers import HUDI_SETTINGS, SparkWriter, spark_writer
from tests.support.sql_engines import (
    ServedMetastore,
    engines,
    metastore_client,
    require_engine,
    served_metastore,
    sql_engines,
)

hudi = require_module("hudi")

# Trino's and Spark's starts with the first test: past the default 600 s on a machine 3-4 times slower
pytestmark = [pytest.mark.slow, pytest.mark.mysql, pytest.mark.timeout(1800)]

DATABASE = "writers"
SCHEMA = "id int, name string, region string, ts bigint, price double"
FIRST = [[1, "ann", "eu", 0, 10.0], [2, "bob", "eu", 1, 11.0], [3, "cid", "us", 2, 12.0]]
SECOND = [[2, "bob", "eu", 3, 21.0], [4, "dan", "asia", 4, 13.0]]
SPARK_WAREHOUSE = f"s3a://{BUCKET}/spark-wh"
TRINO_WAREHOUSE = f"s3://{BUCKET}/trino-wh"
OWN_WAREHOUSE = f"s3a://{BUCKET}/spark-own-wh"
"""The warehouse of the Spark session on Spark's own metastore."""
FOLLOW_SECONDS = READY_SECONDS
"""How long the server may take to follow a sync and build a view (it does within seconds when idle): only a
ceiling against a hang, the waits end once it has."""


@dataclass
class Lake:
    store: S3Store
    db_url: str
    spark: ServedMetastore
    trino_metastore: ServedMetastore
    writer: SparkWriter
    own: SparkWriter
    trino: object

    def hudi_base(self, table: str) -> str:
        return f"s3a://{BUCKET}/tables/{table}"

    def keys(self, prefix: str) -> list[str]:
        return self.store.keys(f"{BUCKET}/{prefix}")

    def trino_rows(self, sql: str) -> list[list]:
        return sorted([list(row) for row in self.trino.query(sql)], key=str)


def _spark_s3a(store: S3Store, warehouse: str) -> dict[str, str]:
    return {f"spark.hadoop.{key}": value for key, value in store.s3a_settings.items()} | {
        "spark.sql.warehouse.dir": warehouse
    }


@pytest.fixture(scope="module")
def lake(s3, tmp_path_factory, mysql_server_url) -> Iterator[Lake]:
    require_engine(engines.TRINO)
    work = tmp_path_factory.mktemp("engines-on-s3")
    with ExitStack() as stack:
        db_url = stack.enter_context(mysql_database(mysql_server_url))
        spark = stack.enter_context(
            served_metastore(work / "spark-metastore", db_url, "--iceberg-views", warehouse_uri=SPARK_WAREHOUSE)
        )
        trino_metastore = stack.enter_context(
            served_metastore(work / "trino-metastore", db_url, warehouse_uri=TRINO_WAREHOUSE)
        )
        catalogs = {
            "hive": sql_engines.trino_hive_catalog(trino_metastore.uri, **s3.trino_settings),
            "hudi": sql_engines.trino_hudi_catalog(trino_metastore.uri, **s3.trino_settings),
            "iceberg": sql_engines.trino_iceberg_catalog(trino_metastore.uri, **s3.trino_settings),
        }
        with ThreadPoolExecutor(3) as pool:  # the engines start together
            started = [
                pool.submit(
                    stack.enter_context,
                    spark_writer(
                        work / "writer",
                        spark.uri,
                        [engines.HUDI_SPARK_BUNDLE, *engines.SPARK_S3A],
                        HUDI_SETTINGS | _spark_s3a(s3, SPARK_WAREHOUSE),
                    ),
                ),
                pool.submit(
                    stack.enter_context,
                    spark_writer(work / "own", "", list(engines.SPARK_S3A), _spark_s3a(s3, OWN_WAREHOUSE)),
                ),
                pool.submit(
                    stack.enter_context,
                    sql_engines.running_engine(engines.TRINO, catalogs, work_dir=work / "trino"),
                ),
            ]
            writer, own, trino = (future.result() for future in started)
        yield Lake(s3, db_url, spark, trino_metastore, writer, own, trino)
        for served in (spark, trino_metastore):
            assert SECRET_KEY not in served.log_text()


# -- Hudi's Spark writer ------------------------------------------------------------------------------------


def _hudi_options(lake: Lake, table: str, **extra: str) -> dict[str, str]:
    return {
        "hoodie.table.name": table,
        "hoodie.datasource.write.table.type": "COPY_ON_WRITE",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.datasource.write.hive_style_partitioning": "true",
        "hoodie.datasource.hive_sync.enable": "true",
        "hoodie.datasource.hive_sync.mode": "hms",
        "hoodie.datasource.hive_sync.metastore.uris": lake.spark.uri,
        "hoodie.datasource.hive_sync.database": DATABASE,
        "hoodie.datasource.hive_sync.table": table,
        "hoodie.datasource.hive_sync.partition_fields": "region",
        **extra,
    }


def _followed(lake: Lake, table: str) -> None:
    """Wait until the server's timeline and snapshot of ``table`` are hudi-rs's (the follow runs after the
    sync's alter), then check them once more."""
    catalog = Catalog.open(lake.db_url, SPARK_WAREHOUSE)
    try:
        deadline = time.monotonic() + FOLLOW_SECONDS
        while True:
            try:
                assert_as_hudi_rs(catalog, lake.hudi_base(table), DATABASE, table, store=lake.store)
                return
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
    finally:
        catalog.close()


@pytest.fixture(scope="module")
def written(lake) -> dict[str, str]:
    """Two tables Hudi's Spark writer wrote in two commits each to ``s3a://``, hive-synced to ``spark``: the
    table version Hudi 1.1 writes, and version 6 with no metadata table (what Trino 476's Hudi connector
    reads)."""
    tables = {
        "trips": {},
        "trips_v6": {"hoodie.write.table.version": "6", "hoodie.metadata.enable": "false"},
    }
    for table, extra in tables.items():
        for rows in (FIRST, SECOND):
            lake.writer.write(lake.hudi_base(table), SCHEMA, rows, _hudi_options(lake, table, **extra))
    return {table: lake.hudi_base(table) for table in tables}


def test_the_hudi_spark_writer_syncs_tables_on_s3a(lake, written):
    client = metastore_client(lake.spark.uri)
    try:
        for table, base in written.items():
            _followed(lake, table)
            assert client.get_table(DATABASE, table).sd.location == base
            assert sorted(p.sd.location for p in client.get_partitions(DATABASE, table, -1)) == [
                f"{base}/region={region}" for region in ("asia", "eu", "us")
            ]
    finally:
        client.close()
    rows = lake.writer.read(written["trips"], {}, ["id", "name", "price"])
    assert rows == [["1", "ann", "10.0"], ["2", "bob", "21.0"], ["3", "cid", "12.0"], ["4", "dan", "13.0"]]


# -- Spark SQL managed tables -------------------------------------------------------------------------------

SPARK_SQL = [
    "CREATE DATABASE sq",
    "CREATE TABLE sq.orders (id int, amount double, ds string) USING parquet PARTITIONED BY (ds)",
    "INSERT INTO sq.orders VALUES (1, 1.5, 'a'), (2, 2.5, 'b'), (3, 3.5, 'b')",
    "CREATE TABLE sq.flat (id int, note string) STORED AS PARQUET",
    "INSERT INTO sq.flat VALUES (1, 'x'), (2, 'y')",
    "ALTER TABLE sq.orders DROP PARTITION (ds = 'a')",
    "SELECT id, amount, ds FROM sq.orders ORDER BY id",
    "SELECT id, note FROM sq.flat ORDER BY id",
    "SHOW PARTITIONS sq.orders",
]


def _spark_session_results(spark: SparkWriter, warehouse: str) -> tuple[list, str]:
    results = [spark.sql(statement) for statement in SPARK_SQL]
    location = next(row[1] for row in spark.sql("DESCRIBE TABLE EXTENDED sq.orders") if row[0] == "Location")
    return results, location.replace(warehouse, "<warehouse>")


def _data_objects(lake: Lake, warehouse: str) -> list[str]:
    """The data files under ``warehouse``, relative to it (Spark's ``_SUCCESS`` and markers aside)."""
    prefix = f"{BUCKET}/{warehouse.split(f'{BUCKET}/', 1)[1]}"
    found = lake.store.keys(prefix)
    return sorted(key.removeprefix(prefix).split("/part-")[0] for key in found if "/part-" in key)


def test_spark_sql_managed_tables_in_an_s3a_warehouse_as_on_sparks_own_metastore(lake):
    ours = _spark_session_results(lake.writer, SPARK_WAREHOUSE)
    own = _spark_session_results(lake.own, OWN_WAREHOUSE)
    assert ours == own
    assert ours[1] == "<warehouse>/sq.db/orders"
    assert _data_objects(lake, SPARK_WAREHOUSE) == _data_objects(lake, OWN_WAREHOUSE)
    assert _data_objects(lake, SPARK_WAREHOUSE) == ["/sq.db/flat", "/sq.db/flat", "/sq.db/orders/ds=b"]

    for spark in (lake.writer, lake.own):
        spark.sql("DROP TABLE sq.orders")
        spark.sql("DROP DATABASE sq CASCADE")
    assert lake.keys("spark-wh/sq.db") == []
    assert lake.keys("spark-own-wh/sq.db") == []


# -- Trino ----------------------------------------------------------------------------------------------------


def test_trinos_hive_connector_keeps_managed_tables_in_an_s3_warehouse(lake):
    lake.trino.query("CREATE SCHEMA hive.tr")
    lake.trino.query(
        "CREATE TABLE hive.tr.events (id integer, kind varchar, day varchar) "
        "WITH (format = 'PARQUET', partitioned_by = ARRAY['day'])"
    )
    lake.trino.query("INSERT INTO hive.tr.events VALUES (1, 'a', 'd1'), (2, 'b', 'd2'), (3, 'c', 'd2')")
    assert lake.trino_rows("SELECT id, kind, day FROM hive.tr.events") == [
        [1, "a", "d1"],
        [2, "b", "d2"],
        [3, "c", "d2"],
    ]

    client = metastore_client(lake.trino_metastore.uri)
    try:
        assert client.get_table("tr", "events").sd.location == f"{TRINO_WAREHOUSE}/tr.db/events"
        assert sorted(p.sd.location for p in client.get_partitions("tr", "events", -1)) == [
            f"{TRINO_WAREHOUSE}/tr.db/events/day=d1",
            f"{TRINO_WAREHOUSE}/tr.db/events/day=d2",
        ]
    finally:
        client.close()
    assert {key.split("/")[-2] for key in lake.keys("trino-wh/tr.db/events")} == {"day=d1", "day=d2"}

    lake.trino.query("DROP TABLE hive.tr.events")
    lake.trino.query("DROP SCHEMA hive.tr")
    assert lake.keys("trino-wh/tr.db") == []


def _hudi_rs_rows(lake: Lake, table: str) -> list[list]:
    oracle = hudi.HudiTableBuilder.from_base_uri(lake.hudi_base(table)).with_storage_options(lake.store.hudi_rs_options)
    rows = [row for batch in oracle.build().read(hudi.HudiReadOptions()) for row in batch.to_pylist()]
    return sorted([[row["id"], row["name"], row["region"], row["price"]] for row in rows], key=str)


def test_trinos_hudi_connector_reads_the_table_spark_wrote_to_s3(lake, written):
    _followed(lake, "trips_v6")
    rows = lake.trino_rows(f"SELECT id, name, region, price FROM hudi.{DATABASE}.trips_v6")
    assert rows == _hudi_rs_rows(lake, "trips_v6")
    assert len(rows) == 4


def test_trinos_iceberg_connector_reads_the_view_of_the_table_from_s3(lake, written):
    """The server keeps an Iceberg view of each table (``--iceberg-views``), its metadata beside the table's
    files in the bucket."""
    _followed(lake, "trips")
    expected = _hudi_rs_rows(lake, "trips")
    deadline = time.monotonic() + FOLLOW_SECONDS
    while True:
        try:
            rows = lake.trino_rows(f"SELECT id, name, region, price FROM iceberg.{DATABASE}.trips_iceberg")
        except Exception:  # noqa: BLE001 - the view may not be made yet: Trino says the table does not exist
            rows = None
        if rows == expected or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert rows == expected
    client = metastore_client(lake.spark.uri)
    try:
        metadata = client.get_table(DATABASE, "trips_iceberg").parameters["metadata_location"]
    finally:
        client.close()
    assert metadata.startswith(f"{lake.hudi_base('trips')}/")
