"""Iceberg's own Spark runtime with a catalog of ``type=rest`` at the server's Iceberg REST port: a scripted
session of DDL, DML (the steps of ``test_spark_runtime``'s session), schema and partition evolution and a maintenance procedure, each step's rows read back
by Spark and by PyIceberg's Hive catalog over Thrift from the same catalog database; then a table Spark made
over REST is dropped with its data."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyiceberg.catalog.hive import HiveCatalog

from tests.support.servers import free_port
from tests.support.spark_writers import ICEBERG_CATALOG, iceberg_spark_writer, run_iceberg_dml_steps, sorted_strings
from tests.support.sql_engines import served_metastore

# Spark's start with Iceberg's runtime, with the first test: past the default 600 s on a machine 3-4 times slower
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
NAMESPACE = "rest_db"


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    work = tmp_path_factory.mktemp("spark-rest")
    rest_port = free_port()
    db_url = f"sqlite:///{work / 'catalog.db'}"
    with served_metastore(work / "server", db_url, "--iceberg-rest-port", str(rest_port)) as server:
        rest_uri = f"http://127.0.0.1:{rest_port}"
        warehouse = f"file://{work / 'iceberg-warehouse'}"
        with iceberg_spark_writer(work / "spark", server.uri, warehouse, rest_uri=rest_uri) as spark:
            yield spark, server, rest_uri


def test_a_spark_session_over_the_rest_catalog(session):
    spark, server, _ = session
    hms = HiveCatalog("hms", uri=server.uri)
    spark.sql(f"CREATE NAMESPACE {ICEBERG_CATALOG}.{NAMESPACE}")
    assert [NAMESPACE] in spark.sql(f"SHOW NAMESPACES IN {ICEBERG_CATALOG}")
    table = f"{ICEBERG_CATALOG}.{NAMESPACE}.trips"
    run_iceberg_dml_steps(spark, table, lambda: hms.load_table(f"{NAMESPACE}.trips"))

    spark.sql(f"ALTER TABLE {table} ADD COLUMN note string")
    spark.sql(f"ALTER TABLE {table} ADD PARTITION FIELD bucket(4, id)")
    spark.sql(f"INSERT INTO {table} VALUES (4, 'd', 'z', 'n')")
    loaded = hms.load_table(f"{NAMESPACE}.trips")
    assert [f.name for f in loaded.schema().fields] == ["id", "data", "category", "note"]
    assert [f.name for f in loaded.spec().fields] == ["category", "id_bucket_4"]
    assert len(loaded.scan().to_arrow()) == 3

    spark.sql(
        f"CALL {ICEBERG_CATALOG}.system.expire_snapshots(table => '{NAMESPACE}.trips', "
        "older_than => TIMESTAMP '2100-01-01 00:00:00', retain_last => 1)"
    )
    assert len(hms.load_table(f"{NAMESPACE}.trips").snapshots()) == 1
    assert sorted_strings(spark.sql(f"SELECT id FROM {table}")) == sorted_strings([[3], [4], [8]])

    spark.sql(f"ALTER TABLE {table} RENAME TO {NAMESPACE}.journeys")
    assert [[NAMESPACE, "journeys", "False"]] == [
        row[:3] for row in spark.sql(f"SHOW TABLES IN {ICEBERG_CATALOG}.{NAMESPACE}")
    ]
    location = Path(hms.load_table(f"{NAMESPACE}.journeys").location().removeprefix("file:"))
    assert location.is_dir()
    spark.sql(f"DROP TABLE {ICEBERG_CATALOG}.{NAMESPACE}.journeys PURGE")
    assert spark.sql(f"SHOW TABLES IN {ICEBERG_CATALOG}.{NAMESPACE}") == []
