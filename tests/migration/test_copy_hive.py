"""``hudi-metastore copy`` from and to Apache Hive Metastore: 2.3.10 populated by real clients (a Spark SQL
session, PyIceberg's Hive catalog, a Hudi table registered with its partitions), copied into this server and
verified; the same Spark queries then answer the same against this server; the copy goes back into a fresh
Apache Hive Metastore 4.0.1, verified again, and from 4.0.1 into a second server of ours. Each metastore is
started once for the module."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pytest
from pyiceberg.catalog.hive import HiveCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from hms_adapter.cli import main
from hms_adapter.migration.forms import COPY_MARKER
from hudi_catalog import Catalog
from hudi_catalog.model import InstantState
from tests.conftest import RunningServer, hive, hive_wire, require_module
from tests.hudi.tables import TABLES_DIR, unpack
from tests.support.spark_statements import run_statements
from tests.support.sql_engines import hive_metastore, hive_metastore_2_3, metastore_client, served_metastore

pytestmark = [pytest.mark.spark, pytest.mark.timeout(1800)]

HUDI_TABLE = "sample_table_cow_v8_complexkeygen_hivestyle"
SETUP = [
    "CREATE DATABASE sales COMMENT 'sales data'",
    "CREATE TABLE sales.orders (id INT, amount DOUBLE, name STRING) PARTITIONED BY (day STRING) STORED AS PARQUET",
    "INSERT INTO sales.orders PARTITION (day) VALUES (1, 1.5, 'a', '2024-01-01'), (2, 2.5, 'b', '2024-01-02'), "
    "(3, 3.5, 'c', '2024-01-02')",
    "CREATE TABLE sales.events (id INT, kind STRING, day STRING) USING parquet PARTITIONED BY (day)",
    "INSERT INTO sales.events VALUES (1, 'x', '2024-01-01'), (2, 'y', '2024-01-03'), (3, 'z', '2024-01-04')",
    "CREATE TABLE sales.flat (id INT, v DOUBLE) STORED AS PARQUET",
    "INSERT INTO sales.flat VALUES (1, 0.5), (2, 1.5)",
    "CREATE VIEW sales.big_orders AS SELECT id, amount FROM sales.orders WHERE amount > 2",
    "ANALYZE TABLE sales.orders COMPUTE STATISTICS FOR COLUMNS id, amount",
    "ANALYZE TABLE sales.flat COMPUTE STATISTICS",
    "CREATE FUNCTION sales.up AS 'org.apache.hadoop.hive.ql.udf.generic.GenericUDFUpper'",
]
QUERIES = [
    "SHOW TABLES IN sales",
    "SELECT * FROM sales.orders ORDER BY id",
    "SELECT count(*) FROM sales.orders WHERE day = '2024-01-02'",
    "SELECT id, kind FROM sales.events WHERE day >= '2024-01-03' ORDER BY id",
    "SELECT * FROM sales.big_orders ORDER BY id",
    "SELECT sales.up(name) FROM sales.orders ORDER BY id",
    "SHOW PARTITIONS sales.orders",
    "SHOW CREATE TABLE sales.events",
    "DESCRIBE EXTENDED sales.orders amount",
    "SELECT * FROM sales.flat ORDER BY id",
]
ICEBERG_SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False), NestedField(2, "kind", StringType(), required=False)
)


@dataclass
class Metastores:
    hive2: object
    hive4: object
    ours: object
    ours_db_url: str
    second: object
    work: Path


@pytest.fixture(scope="module")
def metastores(mysql_server_url, tmp_path_factory) -> Iterator[Metastores]:
    require_module("pyspark")
    work = tmp_path_factory.mktemp("copy-hive")
    with ExitStack() as stack:
        hive2 = stack.enter_context(hive_metastore_2_3(mysql_server_url))
        hive4 = stack.enter_context(hive_metastore(mysql_server_url, "4.0.1"))
        ours_db_url = f"sqlite:///{work / 'ours.db'}"
        ours = stack.enter_context(served_metastore(work / "ours", ours_db_url))
        second = stack.enter_context(served_metastore(work / "second", f"sqlite:///{work / 'second.db'}"))
        yield Metastores(hive2, hive4, ours, ours_db_url, second, work)


def copy(source_uri: str, target_uri: str, *options: str, capsys) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["copy", "--from", source_uri, "--to", target_uri, *options])
    return code, capsys.readouterr().out


def spark(work: Path, uri: str, statements: list[str], name: str) -> dict[str, dict]:
    path = work / f"{name}.json"
    path.write_text(json.dumps(statements))
    run_dir = work / name
    run_dir.mkdir()
    return run_statements(run_dir, uri, path)


def _register_hudi_table(metastores: Metastores, capsys) -> str:
    """A real Hudi table registered on Apache HMS 2.3.10 with its partitions: imported into a scratch catalog
    of ours, then copied into the peer (so it holds what a sync wrote)."""
    base = str(unpack(HUDI_TABLE, metastores.work / "tables"))
    scratch = Catalog.open(
        f"sqlite:///{metastores.work / 'scratch.db'}", str(metastores.work / "scratch"), **hive_wire()
    )
    scratch.import_table(base, "lake", "trips")
    running = RunningServer(scratch)
    try:
        code, out = copy(running.uri, metastores.hive2.uri, "--databases", "lake", "--no-grants", capsys=capsys)
        assert code == 0, out
    finally:
        running.stop()
        scratch.close()
    return base


def test_hive_2_copied_into_ours_answers_the_same(metastores, capsys):
    source_rows = spark(metastores.work, metastores.hive2.uri, SETUP + QUERIES, "on-hive2")
    assert all("error" not in source_rows[q] for q in QUERIES), source_rows
    iceberg = HiveCatalog("h2", uri=metastores.hive2.uri, warehouse=f"file://{metastores.work / 'iceberg'}")
    iceberg.create_namespace("shop")
    table = iceberg.create_table("shop.clicks", ICEBERG_SCHEMA)
    table.append(pa.table({"id": pa.array([1, 2, 3], pa.int64()), "kind": pa.array(["a", "b", "c"])}))
    if (TABLES_DIR / f"{HUDI_TABLE}.zip").exists():
        _register_hudi_table(metastores, capsys)
    peer = metastore_client(metastores.hive2.uri)
    peer.create_role(hive.Role(roleName="analysts"))
    peer.grant_role("analysts", "bob", hive.PrincipalType.USER, "admin", hive.PrincipalType.ROLE, False)

    code, out = copy(metastores.hive2.uri, metastores.ours.uri, "--verify", capsys=capsys)

    assert code == 0, out
    assert "different:" not in out and "failed:" not in out
    ours_rows = spark(metastores.work, metastores.ours.uri, QUERIES, "on-ours")
    for query in QUERIES:
        assert ours_rows[query] == source_rows[query], query
    loaded = HiveCatalog("ours", uri=metastores.ours.uri).load_table("shop.clicks")
    assert sorted(loaded.scan().to_arrow().column("id").to_pylist()) == [1, 2, 3]
    assert loaded.metadata_location == table.metadata_location
    ours = metastore_client(metastores.ours.uri)
    assert [
        m.principalName
        for m in ours.get_principals_in_role(hive.GetPrincipalsInRoleRequest(roleName="analysts")).principalGrants
    ] == ["bob"]
    if (TABLES_DIR / f"{HUDI_TABLE}.zip").exists():
        catalog = Catalog.open(metastores.ours_db_url, str(metastores.work / "ours" / "warehouse"), init=False)
        try:
            completed = [i for i in catalog.timeline.instants("lake", "trips") if i.state is InstantState.COMPLETED]
            assert completed, "the Hudi table's timeline was read from storage on the copy"
            assert catalog.snapshot.partition_paths("lake", "trips")
        finally:
            catalog.close()

    code, out = copy(metastores.hive2.uri, metastores.ours.uri, capsys=capsys)
    assert code == 0, out
    assert "created" not in out and "partitions" not in out  # a re-run with nothing new writes nothing


def test_ours_copied_back_into_hive_4_and_on(metastores, capsys):
    if "sales" not in metastore_client(metastores.ours.uri).get_all_databases():
        pytest.skip("needs the copy of test_hive_2_copied_into_ours_answers_the_same")
    code, out = copy(metastores.ours.uri, metastores.hive4.uri, "--verify", capsys=capsys)
    assert code == 0, out
    assert "different:" not in out and "failed:" not in out
    assert "note: the target's notification event ids go on from its own" in out

    code, out = copy(metastores.hive4.uri, metastores.second.uri, "--verify", capsys=capsys)
    assert code == 0, out
    assert "different:" not in out
    rows = spark(metastores.work, metastores.second.uri, QUERIES[:6], "on-second")
    first = spark(metastores.work, metastores.ours.uri, QUERIES[:6], "on-ours-again")
    assert rows == first


def test_a_partition_the_target_cannot_hold_fails_alone_and_a_rerun_finishes(metastores, capsys):
    """Hive 2.3 keeps partition names of 767 bytes; this server 750 characters. The copy adds the rest, lists
    the one, leaves the table marked, and exits 4; once the source drops it, a re-run completes the table."""
    peer = metastore_client(metastores.hive2.uri)
    location = f"file://{metastores.work / 'edge'}"
    peer.create_database(hive.Database(name="edge", locationUri=location, parameters={}))
    sd = hive.StorageDescriptor(
        cols=[hive.FieldSchema(name="id", type="int")],
        location=f"{location}/t",
        inputFormat="org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
        outputFormat="org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
        serdeInfo=hive.SerDeInfo(
            serializationLib="org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe", parameters={}
        ),
        parameters={},
    )
    keys = [hive.FieldSchema(name=k, type="string") for k in "abc"]
    peer.create_table(
        hive.Table(
            tableName="t",
            dbName="edge",
            owner="etl",
            sd=sd,
            partitionKeys=keys,
            parameters={"EXTERNAL": "TRUE"},
            tableType="EXTERNAL_TABLE",
        )
    )
    long_values = ["x" * 250, "y" * 250, "z" * 250]  # a name of 758 characters
    partitions = []
    for index, values in enumerate([["1", "2", "3"], ["4", "5", "6"], long_values]):
        where = hive.StorageDescriptor(**{**vars(sd), "location": f"{location}/t/p{index}"})
        partitions.append(hive.Partition(values=values, dbName="edge", tableName="t", sd=where, parameters={}))
    peer.add_partitions(partitions)

    code, out = copy(metastores.hive2.uri, metastores.ours.uri, "--databases", "edge", capsys=capsys)

    assert code == 4, out
    assert "failed: partition edge.t" in out and "too long" in out
    ours = metastore_client(metastores.ours.uri)
    assert sorted(ours.get_partition_names("edge", "t", -1)) == ["a=1/b=2/c=3", "a=4/b=5/c=6"]
    assert ours.get_table("edge", "t").parameters[COPY_MARKER] == "true"

    peer.drop_partition("edge", "t", long_values, False)
    code, out = copy(metastores.hive2.uri, metastores.ours.uri, "--databases", "edge", "--verify", capsys=capsys)
    assert code == 0, out
    assert COPY_MARKER not in ours.get_table("edge", "t").parameters
