"""The Spark Thrift Server of the pyspark wheel on hudi-metastore, driven by the wheel's ``beeline``.

A real ``hudi-metastore serve`` process (on SQLite) is the metastore of a Spark Thrift Server
(``HiveThriftServer2``, started with ``spark-submit`` and ``spark.hadoop.hive.metastore.uris``), and the
wheel's ``beeline`` (Hive 2.3.10's JDBC driver) runs SQL against it, as docs/engines.md describes. The
statements run in two ``beeline -f`` batches (a JVM start costs seconds); the tests check what beeline
prints, what the metastore then holds (read back through its Thrift API and its catalog), and the server's
own log (the partition filter it answered in SQL).
"""

from __future__ import annotations

import csv
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import require_module

pyspark = require_module("pyspark")  # skips this module without the Spark extras

from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.rpc import make_client
from thriftpy2.transport import TBufferedTransportFactory

from hudi_catalog import Catalog
from tests.conftest import hive, skip_or_fail
from tests.hms_adapter.helpers import cols, make_database, make_partition, make_table
from tests.support.servers import JVM_READY_SECONDS, free_port, serve_command, wait_for_port

# Spark's Thrift server's start with the first test: past the default 600 s on a machine 3-4 times slower
pytestmark = [pytest.mark.spark, pytest.mark.timeout(1800)]

SPARK_HOME = Path(pyspark.__file__).parent
THRIFT_SERVER_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"
BEELINE_TIMEOUT_SECONDS = 300
USER = "tester"

# Batch 1: what another client registered, then a partitioned table created, filled and read back.
SETUP = [
    "SHOW SCHEMAS",
    "SHOW TABLES IN lake",
    "SHOW PARTITIONS lake.trips",
    "DESCRIBE FORMATTED lake.trips",
    "CREATE DATABASE shop COMMENT 'made by beeline'",
    "CREATE TABLE shop.orders (id INT, amount DOUBLE) PARTITIONED BY (ds STRING, region STRING) "
    "STORED AS PARQUET TBLPROPERTIES ('team'='payments')",
    "INSERT INTO shop.orders PARTITION (ds, region) VALUES "
    "(1, 9.5, '2024-01-01', 'eu'), (2, 3.0, '2024-01-02', 'us'), (3, 4.25, '2024-01-02', 'eu')",
    "SHOW DATABASES",
    "SHOW TABLES IN shop",
    "SHOW PARTITIONS shop.orders",
    "SHOW PARTITIONS shop.orders PARTITION (ds='2024-01-02')",
    "DESCRIBE FORMATTED shop.orders",
    "DESCRIBE FORMATTED shop.orders PARTITION (ds='2024-01-02', region='us')",
    "SELECT id, amount, region FROM shop.orders WHERE ds = '2024-01-02' ORDER BY id",
    "SELECT id, amount FROM shop.orders WHERE ds = '2024-01-02' AND region = 'eu'",
    "SELECT count(*), sum(amount) FROM shop.orders",
]

# Batch 2: statements the metastore refuses, then the table and the database dropped. ``--force`` lets
# beeline go on after an error; each failing statement prints one ``Error:`` line on stderr, in order.
TEARDOWN = [
    "DROP TABLE shop.missing",
    "CREATE DATABASE shop",
    "ALTER TABLE shop.orders ADD PARTITION (ds='2024-01-01', region='eu')",
    "ALTER TABLE shop.orders PARTITION (ds='2024-01-01', region='eu') "
    "RENAME TO PARTITION (ds='2024-03-03', region='eu')",
    "DROP DATABASE shop",
    "DROP TABLE shop.orders",
    "DROP TABLE IF EXISTS shop.orders",
    "SHOW TABLES IN shop",
    "DROP SCHEMA shop",
    "SHOW DATABASES",
]


def stop(process: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL of the process group the process was started in (start_new_session)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # its own group: whatever it left behind
    except ProcessLookupError:
        pass
    process.wait(10)


@dataclass
class Beeline:
    """What one ``beeline -f`` run printed: the rows of each statement (header first) and the errors."""

    results: dict[str, list[list[str]]]
    errors: list[str]
    stderr: str

    def rows(self, sql: str) -> list[list[str]]:
        """The rows of a statement, without its header."""
        return self.results[sql][1:]

    def header(self, sql: str) -> list[str]:
        return self.results[sql][0]


def run_beeline(port: int, statements: list[str], work: Path, name: str) -> Beeline:
    """Runs the statements in one beeline JVM (``-f``, one statement per line) and splits its output.

    In ``-f`` mode beeline echoes its prompt on stdout before the output of every statement, so stdout
    split at the prompt gives one chunk per statement. Output is ``tsv2`` (beeline leaves ``csv2`` values
    unquoted, and DESCRIBE FORMATTED values hold commas).
    """
    assert len(set(statements)) == len(statements), "results are keyed by statement"
    url = f"jdbc:hive2://127.0.0.1:{port}/"
    script = work / f"{name}.sql"
    script.write_text("".join(f"{sql};\n" for sql in statements))
    home = work / "beeline-home"  # beeline keeps its history in ~/.beeline
    home.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "JAVA_TOOL_OPTIONS": f"{os.environ.get('JAVA_TOOL_OPTIONS', '')} -Duser.home={home}".strip(),
    }
    done = subprocess.run(
        [
            str(SPARK_HOME / "bin" / "beeline"),
            "-u",
            url,
            "-n",
            USER,
            "--outputformat=tsv2",
            "--showHeader=true",
            "--force=true",
            "-f",
            str(script),
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=BEELINE_TIMEOUT_SECONDS,
    )
    (work / f"{name}.out").write_text(done.stdout)
    (work / f"{name}.err").write_text(done.stderr)
    assert done.returncode == 0, f"beeline failed ({done.returncode}):\n{done.stderr[-4000:]}"
    chunks = done.stdout.split(f"0: {url}> ")[1:]
    assert len(chunks) >= len(statements), done.stdout
    results = {
        sql: [row for row in csv.reader(chunk.splitlines(), delimiter="\t") if row]
        for sql, chunk in zip(statements, chunks)
    }
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error: ")]
    return Beeline(results, errors, done.stderr)


@dataclass
class Run:
    """Everything the tests look at, gathered once per catalog backend."""

    warehouse: Path
    server_log: Path
    setup: Beeline
    teardown: Beeline
    after_setup: dict = field(default_factory=dict)
    after_teardown: dict = field(default_factory=dict)


def _client(port: int):
    return make_client(
        hive.ThriftHiveMetastore,
        "127.0.0.1",
        port,
        proto_factory=TBinaryProtocolFactory(),
        trans_factory=TBufferedTransportFactory(),
        timeout=60_000,
    )


def _register_lake(port: int, warehouse: Path) -> None:
    """What a Hudi sync or another engine would have put in the catalog before Spark comes along."""
    client = _client(port)
    try:
        client.create_database(make_database("lake", description="registered over Thrift"))
        location = f"file:{warehouse / 'external' / 'trips'}"
        client.create_table(
            make_table(
                "lake",
                "trips",
                cols("id:bigint", "fare:double"),
                cols("city:string"),
                location=location,
                table_type="EXTERNAL_TABLE",
                params={"hudi.synced": "yes"},
            )
        )
        client.add_partitions([make_partition("lake", "trips", [city]) for city in ("oslo", "paris")])
    finally:
        client.close()


def _metastore_state(port: int, db_url: str, warehouse: Path) -> dict:
    """The shop.orders table as the metastore holds it: over Thrift and in the catalog database itself."""
    client = _client(port)
    try:
        state = {"databases": sorted(client.get_all_databases())}
        if "shop" in state["databases"]:
            state["shop"] = client.get_database("shop")
            state["shop_tables"] = client.get_all_tables("shop")
        if "orders" in state.get("shop_tables", []):
            state["orders"] = client.get_table("shop", "orders")
            state["orders_partitions"] = client.get_partitions("shop", "orders", -1)
            state["orders_files"] = {  # what is on disk where the metastore says each partition lives
                p.sd.location: [f.name for f in Path(p.sd.location.removeprefix("file:")).iterdir()]
                for p in state["orders_partitions"]
            }
    finally:
        client.close()
    catalog = Catalog.open(db_url, str(warehouse), init=False)
    try:
        if "orders" in state.get("shop_tables", []):
            state["catalog_partition_names"] = catalog.partitions.names("shop", "orders")
        state["catalog_databases"] = catalog.databases.names()
    finally:
        catalog.close()
    return state


@pytest.fixture(scope="module")
def java() -> str:
    path = shutil.which("java")
    if path is None:
        skip_or_fail("Java is not installed; the Spark Thrift Server cannot run")
    return path


@pytest.fixture(scope="module")
def run(request, java, tmp_path_factory) -> Run:
    """The server on the embedded default, SQLite (the Spark session of test_spark_e2e.py runs on MariaDB)."""
    work = tmp_path_factory.mktemp("beeline")
    warehouse = work / "warehouse"
    db_url = f"sqlite:///{work / 'catalog.db'}"
    hms_port, sts_port = free_port(), free_port()
    server_log, sts_log = work / "hudi-metastore.log", work / "thriftserver.log"

    with server_log.open("w") as log:
        hms = subprocess.Popen(
            serve_command(hms_port, db_url=db_url, warehouse=warehouse, extra=["--log-level", "DEBUG"]),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    request.addfinalizer(lambda: stop(hms))
    wait_for_port(hms_port, hms, log=server_log)
    _register_lake(hms_port, warehouse)

    env = {**os.environ, "SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": "127.0.0.1"}
    with sts_log.open("w") as log:
        sts = subprocess.Popen(
            [
                str(SPARK_HOME / "bin" / "spark-submit"),
                "--master",
                "local[2]",
                "--class",
                THRIFT_SERVER_CLASS,
                "--name",
                "hudi-metastore-beeline-test",
                "--conf",
                "spark.ui.enabled=false",
                "--conf",
                "spark.sql.shuffle.partitions=2",
                "--conf",
                f"spark.local.dir={work / 'spark-local'}",
                "--conf",
                f"spark.sql.warehouse.dir={warehouse}",
                "--conf",
                f"spark.hadoop.hive.metastore.uris=thrift://127.0.0.1:{hms_port}",
                "--hiveconf",
                f"hive.server2.thrift.port={sts_port}",
                "--hiveconf",
                "hive.server2.thrift.bind.host=127.0.0.1",
                "--hiveconf",
                f"hive.server2.logging.operation.log.location={work / 'operation_logs'}",
                "spark-internal",
            ],
            cwd=work,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    request.addfinalizer(lambda: stop(sts))
    wait_for_port(sts_port, sts, JVM_READY_SECONDS, log=sts_log)

    setup = run_beeline(sts_port, SETUP, work, "setup")
    after_setup = _metastore_state(hms_port, db_url, warehouse)
    # A directory where the RENAME TO PARTITION of TEARDOWN wants to move a partition: the metastore refuses.
    (warehouse / "shop.db" / "orders" / "ds=2024-03-03" / "region=eu").mkdir(parents=True)
    teardown = run_beeline(sts_port, TEARDOWN, work, "teardown")
    after_teardown = _metastore_state(hms_port, db_url, warehouse)
    return Run(warehouse, server_log, setup, teardown, after_setup, after_teardown)


def _formatted(rows: list[list[str]]) -> dict[str, str]:
    """DESCRIBE FORMATTED rows as {label: value}, the first occurrence of each label."""
    out: dict[str, str] = {}
    for row in rows:
        if len(row) >= 2 and row[0]:
            out.setdefault(row[0].strip(), row[1].strip())
    return out


def test_beeline_sees_what_the_metastore_holds(run):
    b = run.setup
    assert b.header("SHOW SCHEMAS") == ["namespace"]
    assert b.rows("SHOW SCHEMAS") == [["default"], ["lake"]]
    assert b.rows("SHOW TABLES IN lake") == [["lake", "trips", "false"]]
    assert b.rows("SHOW PARTITIONS lake.trips") == [["city=oslo"], ["city=paris"]]
    trips = _formatted(b.rows("DESCRIBE FORMATTED lake.trips"))
    assert trips["Type"] == "EXTERNAL"
    assert trips["Owner"] == "alice"
    assert "hudi.synced=yes" in trips["Table Properties"]
    assert trips["Location"] == f"file:{run.warehouse}/external/trips"


def test_create_table_and_insert_through_beeline(run):
    b = run.setup
    assert b.errors == [], b.stderr[-4000:]
    assert b.rows("SHOW DATABASES") == [["default"], ["lake"], ["shop"]]
    assert b.rows("SHOW TABLES IN shop") == [["shop", "orders", "false"]]
    assert b.rows("SHOW PARTITIONS shop.orders") == [
        ["ds=2024-01-01/region=eu"],
        ["ds=2024-01-02/region=eu"],
        ["ds=2024-01-02/region=us"],
    ]
    assert b.rows("SHOW PARTITIONS shop.orders PARTITION (ds='2024-01-02')") == [
        ["ds=2024-01-02/region=eu"],
        ["ds=2024-01-02/region=us"],
    ]
    assert b.rows("SELECT count(*), sum(amount) FROM shop.orders") == [["3", "16.75"]]


def test_describe_formatted_shows_the_metastore_table(run):
    b = run.setup
    sql = "DESCRIBE FORMATTED shop.orders"
    rows = b.rows(sql)
    assert b.header(sql) == ["col_name", "data_type", "comment"]
    assert rows[:4] == [
        ["id", "int", "NULL"],
        ["amount", "double", "NULL"],
        ["ds", "string", "NULL"],
        ["region", "string", "NULL"],
    ]
    at = rows.index(["# Partition Information", "", ""])
    assert rows[at + 2 : at + 4] == [["ds", "string", "NULL"], ["region", "string", "NULL"]]
    info = _formatted(rows[at:])
    assert info["Database"] == "shop"
    assert info["Table"] == "orders"
    assert info["Owner"] == USER
    assert info["Type"] == "MANAGED"
    assert info["Location"] == f"file:{run.warehouse}/shop.db/orders"
    assert info["Serde Library"] == "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
    assert info["InputFormat"] == "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat"
    assert "team=payments" in info["Table Properties"]
    assert info["Partition Provider"] == "Catalog"

    part = _formatted(b.rows("DESCRIBE FORMATTED shop.orders PARTITION (ds='2024-01-02', region='us')"))
    assert part["Partition Values"] == "[ds=2024-01-02, region=us]"
    assert part["Location"] == f"file:{run.warehouse}/shop.db/orders/ds=2024-01-02/region=us"


def test_select_with_a_partition_filter_is_pruned_by_the_metastore(run):
    b = run.setup
    assert b.header("SELECT id, amount, region FROM shop.orders WHERE ds = '2024-01-02' ORDER BY id") == [
        "id",
        "amount",
        "region",
    ]
    assert b.rows("SELECT id, amount, region FROM shop.orders WHERE ds = '2024-01-02' ORDER BY id") == [
        ["2", "3.0", "us"],
        ["3", "4.25", "eu"],
    ]
    assert b.rows("SELECT id, amount FROM shop.orders WHERE ds = '2024-01-02' AND region = 'eu'") == [["3", "4.25"]]
    # Spark sent the filters to the metastore (get_partitions_by_filter), which answered them in SQL.
    log = run.server_log.read_text()
    assert """filter 'ds = "2024-01-02"' on shop.orders answered in SQL: 2 partitions""" in log
    assert """filter 'ds = "2024-01-02" and region = "eu"' on shop.orders answered in SQL: 1 partitions""" in log


def test_the_metastore_holds_what_beeline_created(run):
    state = run.after_setup
    assert state["databases"] == ["default", "lake", "shop"]
    assert state["shop"].description == "made by beeline"
    assert state["shop"].locationUri == f"file:{run.warehouse}/shop.db"
    table = state["orders"]
    assert table.tableType == "MANAGED_TABLE"
    assert table.owner == USER
    assert [(c.name, c.type) for c in table.sd.cols] == [("id", "int"), ("amount", "double")]
    assert [(c.name, c.type) for c in table.partitionKeys] == [("ds", "string"), ("region", "string")]
    assert table.parameters["team"] == "payments"
    assert table.sd.location == f"file:{run.warehouse}/shop.db/orders"
    names = ["ds=2024-01-01/region=eu", "ds=2024-01-02/region=eu", "ds=2024-01-02/region=us"]
    assert state["catalog_partition_names"] == names
    by_values = {tuple(p.values): p for p in state["orders_partitions"]}
    assert sorted(by_values) == [("2024-01-01", "eu"), ("2024-01-02", "eu"), ("2024-01-02", "us")]
    for name in names:
        values = tuple(kv.split("=")[1] for kv in name.split("/"))
        location = by_values[values].sd.location
        assert location == f"file:{run.warehouse}/shop.db/orders/{name}"
        # The rows Spark wrote are in the directory the metastore gave for the partition.
        assert any(f.endswith(".parquet") for f in state["orders_files"][location]), state["orders_files"]


def test_errors_come_back_as_hive_errors(run):
    b = run.teardown
    prefix = "Error: org.apache.hive.service.cli.HiveSQLException: Error running query: "
    assert len(b.errors) == 5, b.stderr[-6000:]
    assert all(e.startswith(prefix) for e in b.errors), b.errors
    missing, exists, partition, rename = (e.removeprefix(prefix) for e in b.errors[:4])
    # get_table answered NoSuchObjectException, which Spark's Hive client reads as "no such table".
    assert missing.startswith("[TABLE_OR_VIEW_NOT_FOUND] org.apache.spark.sql.catalyst.analysis.NoSuchTableException")
    assert "`spark_catalog`.`shop`.`missing` cannot be found" in missing
    assert "SQLSTATE: 42P01" in b.stderr
    # create_database answered AlreadyExistsException.
    assert exists.startswith("[SCHEMA_ALREADY_EXISTS] ")
    assert "Cannot create schema `shop` because it already exists." in exists
    # add_partitions_req answered AlreadyExistsException.
    assert partition.startswith("[PARTITIONS_ALREADY_EXIST] ")
    assert "PARTITION (`ds` = 2024-01-01, `region` = eu) in table `shop`.`orders`" in partition
    # rename_partition answered InvalidOperationException: its message goes through to beeline verbatim.
    target = f"file:{run.warehouse}/shop.db/orders/ds=2024-03-03/region=eu"
    assert rename == (
        "[_LEGACY_ERROR_TEMP_3065] org.apache.spark.sql.AnalysisException: "
        "org.apache.hadoop.hive.ql.metadata.HiveException: Unable to rename partition. "
        f"New location for this partition {target} already exists"
    )
    assert (
        f"Caused by: InvalidOperationException(message:New location for this partition {target} already exists)"
        in b.stderr
    )
    log = run.server_log.read_text()
    assert "create_database failed: AlreadyExistsError: Database shop already exists" in log
    assert "rename_partition failed: InvalidOperationError: New location for this partition" in log


def test_drop_database_that_is_not_empty_is_refused_by_the_metastore(run):
    b = run.teardown
    # drop_database answered InvalidOperationException ("is not empty"), which Spark turns into SCHEMA_NOT_EMPTY.
    assert b.errors[4].startswith(
        "Error: org.apache.hive.service.cli.HiveSQLException: Error running query: [SCHEMA_NOT_EMPTY] "
    )
    assert "Cannot drop a schema `shop` because it contains objects." in b.errors[4]
    log = run.server_log.read_text()
    assert "drop_database failed: DatabaseNotEmptyError: Database shop is not empty. One or more tables exist." in log


def test_drop_table_and_database_through_beeline(run):
    b = run.teardown
    assert b.rows("SHOW TABLES IN shop") == []
    assert b.rows("SHOW DATABASES") == [["default"], ["lake"]]
    state = run.after_teardown
    assert state["databases"] == ["default", "lake"]
    assert state["catalog_databases"] == ["default", "lake"]
    # A managed table: the metastore deleted its data with it.
    assert not (run.warehouse / "shop.db" / "orders").exists()
    assert not (run.warehouse / "shop.db").exists()
