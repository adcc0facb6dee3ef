"""Iceberg's own Spark runtime with a catalog of ``type=hive`` at this server.

``iceberg-spark-runtime-3.5_2.12`` on the PySpark of Hudi's writers (``tests/support/spark_writers.py``),
two Spark processes, each with its own ``hudi-metastore serve``; both servers share one MariaDB database:

- a session of DDL, DML, schema and partition evolution and the maintenance procedures: after each step
  Spark reads the rows the steps leave, and PyIceberg, loading the table through the other server, reads the
  same rows from the metadata the server names (``metadata_location``);
- two writers inserting into one table at once, with Hive locks and lock-free
  (``engine.hive.lock-enabled=false``): every acknowledged insert is in the table exactly once and no lock
  is left;
- the Iceberg view the catalog keeps of an imported Hudi table reads through Spark as hudi-rs reads the
  Hudi table.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pytest
from pyiceberg.catalog.hive import HiveCatalog

from hudi_catalog import Catalog
from hudi_catalog.services.hudi_import import HudiImporter
from tests.conftest import hive, mysql_database
from tests.hudi.tables import unpack
from tests.iceberg.helpers import oracle, oracle_read
from tests.support.spark_writers import (
    ICEBERG_CATALOG,
    SparkWriter,
    iceberg_spark_writer,
    run_iceberg_dml_steps,
    sorted_strings,
)
from tests.support.sql_engines import metastore_client, served_metastore

pytestmark = [pytest.mark.slow, pytest.mark.mysql]
log = logging.getLogger(__name__)

NAMESPACE = "ice_db"
HUDI_TABLE = "sample_table_cow_v8_complexkeygen_hivestyle"
SIMPLE_TYPES = (pa.int32(), pa.int64(), pa.string(), pa.float64(), pa.float32(), pa.bool_())


@dataclass
class Lake:
    writers: list[SparkWriter]
    uris: list[str]
    db_url: str
    warehouse: str
    work: Path

    def table(self, name: str) -> str:
        return f"{ICEBERG_CATALOG}.{NAMESPACE}.{name}"

    def pyiceberg(self, uri: str) -> HiveCatalog:
        return HiveCatalog("hms", uri=uri, warehouse=self.warehouse)


@pytest.fixture(scope="module")
def lake(tmp_path_factory, mysql_server_url) -> Iterator[Lake]:
    work = tmp_path_factory.mktemp("iceberg-spark")
    warehouse = f"file://{work}/iceberg-warehouse"
    with ExitStack() as stack:
        db_url = stack.enter_context(mysql_database(mysql_server_url))
        servers = [stack.enter_context(served_metastore(work / f"server-{i}", db_url)) for i in range(2)]
        writers = [
            stack.enter_context(iceberg_spark_writer(work / f"spark-{i}", server.uri, warehouse))
            for i, server in enumerate(servers)
        ]
        writers[0].sql(f"CREATE NAMESPACE IF NOT EXISTS {ICEBERG_CATALOG}.{NAMESPACE}")
        yield Lake(writers, [s.uri for s in servers], db_url, warehouse, work)


def _no_locks(uri: str) -> bool:
    client = metastore_client(uri)
    try:
        return not client.show_locks(hive.ShowLocksRequest()).locks
    finally:
        client.close()


def test_a_session_of_ddl_dml_evolution_and_procedures(lake):
    spark = lake.writers[0]
    table = lake.table("trips")
    hms = lake.pyiceberg(lake.uris[1])  # the other server, on the same database
    run_iceberg_dml_steps(spark, table, lambda: hms.load_table(f"{NAMESPACE}.trips"))

    # schema and partition evolution
    spark.sql(f"ALTER TABLE {table} ADD COLUMN note string")
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN data TO payload")
    spark.sql(f"ALTER TABLE {table} ADD PARTITION FIELD bucket(4, id)")
    spark.sql(f"INSERT INTO {table} VALUES (4, 'd', 'z', 'n'), (7, 'g', 'y', 'm')")
    expected = [[3, "c", "y", None], [8, "h", "x", None], [4, "d", "z", "n"], [7, "g", "y", "m"]]
    evolved = ["id", "payload", "category", "note"]
    assert sorted_strings(spark.sql(f"SELECT {', '.join(evolved)} FROM {table}")) == sorted_strings(expected)
    loaded = hms.load_table(f"{NAMESPACE}.trips")
    assert [f.name for f in loaded.schema().fields] == evolved
    assert [f.name for f in loaded.spec().fields] == ["category", "id_bucket_4"]
    read = loaded.scan().to_arrow()
    assert sorted_strings([[row[c] for c in evolved] for row in read.to_pylist()]) == sorted_strings(expected)

    # the maintenance procedures: the data stays, the files and snapshots go
    short = f"{NAMESPACE}.trips"
    [rewritten] = spark.sql(
        f"CALL {ICEBERG_CATALOG}.system.rewrite_data_files(table => '{short}', options => map('min-input-files', '2'))"
    )
    assert int(rewritten[0]) > 0, rewritten  # data files rewritten
    spark.sql(
        f"CALL {ICEBERG_CATALOG}.system.expire_snapshots(table => '{short}', "
        "older_than => TIMESTAMP '2100-01-01 00:00:00', retain_last => 1)"
    )
    loaded = hms.load_table(short)
    assert len(loaded.snapshots()) == 1
    read = loaded.scan().to_arrow()
    assert sorted_strings([[row[c] for c in evolved] for row in read.to_pylist()]) == sorted_strings(expected)

    registered = metastore_client(lake.uris[0])
    try:
        t = registered.get_table(NAMESPACE, "trips")
    finally:
        registered.close()
    assert t.parameters["table_type"] == "ICEBERG" and t.tableType == "EXTERNAL_TABLE"
    assert t.parameters["metadata_location"] == loaded.metadata_location
    assert _no_locks(lake.uris[0])


@pytest.mark.parametrize("locking", ["hive-locks", "lock-free"])
def test_two_writers_through_two_servers_keep_every_commit(lake, locking):
    name = f"concurrent_{locking.replace('-', '_')}"
    table = lake.table(name)
    properties = {"commit.retry.num-retries": "50", "commit.retry.min-wait-ms": "20"}
    if locking == "lock-free":
        properties["engine.hive.lock-enabled"] = "false"
    listed = ", ".join(f"'{k}' = '{v}'" for k, v in properties.items())
    lake.writers[0].sql(f"CREATE TABLE {table} (id bigint, writer string) USING iceberg TBLPROPERTIES ({listed})")
    rounds = 6
    for round_ in range(rounds):
        for number, writer in enumerate(lake.writers):
            writer.send("sql", statement=f"INSERT INTO {table} VALUES ({100 * number + round_}, 'w{number}')")
        for writer in lake.writers:
            writer.receive()  # acknowledged

    loaded = lake.pyiceberg(lake.uris[0]).load_table(f"{NAMESPACE}.{name}")
    ids = sorted(loaded.scan().to_arrow().column("id").to_pylist())
    assert ids == sorted(100 * n + r for n in range(2) for r in range(rounds))  # each acknowledged insert, once
    assert len(loaded.snapshots()) == 2 * rounds
    assert all(_no_locks(uri) for uri in lake.uris)


def test_the_iceberg_view_of_a_hudi_table_reads_as_hudi_rs(lake):
    base = unpack(HUDI_TABLE, lake.work / "hudi")
    catalog = Catalog.open(lake.db_url, warehouse=f"file://{lake.work}/server-0/warehouse")
    try:
        HudiImporter(catalog).run(str(base), database=NAMESPACE, table="hudi_trips")
        made = catalog.iceberg_views.create(NAMESPACE, "hudi_trips")
    finally:
        catalog.close()
    assert made.error is None, made.error
    theirs = oracle_read(oracle(base))
    assert theirs is not None
    columns = [f.name for f in theirs.schema if f.type in SIMPLE_TYPES and not f.name.startswith("_hoodie")]
    assert columns, theirs.schema
    ours = lake.writers[1].sql(f"SELECT {', '.join(columns)} FROM {lake.table(made.view)}")
    expected = [[row[c] for c in columns] for row in theirs.select(columns).to_pylist()]
    assert sorted_strings(ours) == sorted_strings(expected)
