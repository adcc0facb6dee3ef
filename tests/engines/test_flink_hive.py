"""Flink 1.20's ``HiveCatalog`` (Hive 3.1.3's metastore client; ``benchmarks/flink.py``) against this server and
against Apache Hive Metastore 4.0.1: one Flink SQL session in batch mode (``tests/java/FlinkSession.java``)
creates databases, a Hive table and a generic Flink table, writes to the Hive table, reads it back, adds,
drops and analyzes partitions, makes a view and a function, and loads a table whose primary key was made
through ``create_table_with_constraints`` (as Hive would make it). Every answer Flink gives must be the same on
both servers but for the steps ``DIFFERENT`` lists; what the session left in the metastore is then read over
Thrift. Data is written by Flink to the local file system, under each server's warehouse.

The reference is Hive Metastore 4.0.1 rather than 2.3.10: the client is Hive 3.1's, made for Hive 3 and later
metastores (catalog names on its requests).
"""

from __future__ import annotations

import importlib
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import hive, skip_or_fail
from tests.hms_adapter.helpers import cols, make_table
from tests.support.sql_engines import engines, hive_metastore, metastore_client, served_metastore

# Flink's start with the first test's setup: past the default 600 s on a machine 3-4 times slower
pytestmark = [pytest.mark.slow, pytest.mark.mysql, pytest.mark.timeout(1800)]

SOURCE = Path(__file__).parents[1] / "java" / "FlinkSession.java"

SESSION = """
CREATE CATALOG hive WITH ('type' = 'hive', 'hive-conf-dir' = '{conf}')
USE CATALOG hive
SHOW DATABASES
CREATE DATABASE flink_db COMMENT 'streaming jobs' WITH ('team' = 'streaming')
USE flink_db
CREATE TABLE events (id INT, name STRING, amount DECIMAL(10, 2), dt STRING, hr INT) PARTITIONED BY (dt, hr) WITH ('connector' = 'hive')
CREATE TABLE clicks (id BIGINT, url STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'datagen', 'number-of-rows' = '3', 'fields.id.kind' = 'sequence', 'fields.id.start' = '10', 'fields.id.end' = '12')
SHOW TABLES
SHOW CREATE TABLE clicks
SELECT count(*), min(id), max(id) FROM clicks
INSERT INTO events VALUES (1, 'a', 1.50, '2024-01-01', 1), (2, 'b', 2.25, '2024-01-02', 3)
INSERT INTO events PARTITION (dt = '2024-01-02', hr = 3) VALUES (3, 'c', 0.75)
INSERT INTO events SELECT CAST(id AS INT), 'gen', 1.00, '2024-01-03', 0 FROM clicks
SHOW PARTITIONS events
SHOW PARTITIONS events PARTITION (dt = '2024-01-02')
SELECT id, name, amount, dt, hr FROM events ORDER BY id
SELECT id FROM events WHERE dt = '2024-01-02' AND hr = 3 ORDER BY id
INSERT OVERWRITE events PARTITION (dt = '2024-01-01', hr = 1) VALUES (4, 'd', 9.99)
SELECT id, name, dt, hr FROM events WHERE dt = '2024-01-01'
ALTER TABLE events SET ('retention' = '30d')
ALTER TABLE events ADD PARTITION (dt = '2024-02-01', hr = 0)
ALTER TABLE events DROP PARTITION (dt = '2024-01-03', hr = 0)
SHOW PARTITIONS events
ANALYZE TABLE events PARTITION (dt, hr) COMPUTE STATISTICS
CREATE TABLE totals (id INT, amount DECIMAL(10, 2)) WITH ('connector' = 'hive')
INSERT INTO totals SELECT id, amount FROM events
ANALYZE TABLE totals COMPUTE STATISTICS FOR COLUMNS id, amount
DESCRIBE events
CREATE VIEW big_events AS SELECT id, amount FROM events WHERE amount > 1
SHOW VIEWS
SELECT * FROM big_events ORDER BY id
CREATE FUNCTION to_upper AS 'org.apache.hadoop.hive.ql.udf.generic.GenericUDFUpper'
SHOW USER FUNCTIONS
SELECT to_upper(name) FROM events WHERE id = 2
SHOW CREATE TABLE fl_pk.users
INSERT INTO fl_pk.users VALUES (1, 'x', '2024-05-01')
SELECT * FROM fl_pk.users
ALTER TABLE clicks RENAME TO clicks_gen
CREATE TABLE orders (id INT, region STRING) PARTITIONED BY (region) WITH ('connector' = 'hive')
INSERT INTO orders VALUES (1, 'eu'), (2, 'us')
ALTER TABLE orders RENAME TO orders_v2
SELECT id, region FROM orders_v2 ORDER BY id
CREATE TABLE scratch (x INT) WITH ('connector' = 'hive')
DROP TABLE scratch
CREATE DATABASE scratch_db
DROP DATABASE scratch_db
SHOW TABLES
SELECT * FROM events_missing
USE `default`
SHOW DATABASES
"""
"""One statement per line; ``{conf}`` is the folder of the catalog's ``hive-site.xml``."""

ANALYZE_PARTITIONS = "ANALYZE TABLE events PARTITION (dt, hr) COMPUTE STATISTICS"
"""Fails on both servers, in Flink: it filters each partition by its values unquoted, so ``dt = 2024-01-02``
reaches the metastore as ``dt = 2021``, which Hive Metastore (and this server) refuses on a string key, and
Flink's own pruning, its fallback, fails on the same predicate."""

DIFFERENT = {
    "SHOW CREATE TABLE fl_pk.users": "Hive 4 turns a managed table made by a client that states no capabilities "
    "into an external one with external.table.purge (its default transformer); this server keeps it managed",
}
"""Statements whose answers differ between this server and Hive Metastore 4.0.1, and why."""


@dataclass
class Side:
    """One server the session ran against: its URI, warehouse, Flink's answer to each statement, and the
    server's call log (this server's only)."""

    uri: str
    warehouse: str
    answers: list[tuple[str, dict]]
    call_log: Path | None = None

    def answer(self, statement: str) -> dict:
        """The answer to the last run of ``statement``."""
        return [answer for text, answer in self.answers if text == statement][-1]


@pytest.fixture(scope="module")
def flink_runner(tmp_path_factory) -> Iterator:
    """Runs the session on a server: ``run(uri, warehouse) -> list of (statement, answer)``."""
    flink = importlib.import_module("flink")  # benchmarks/, on the path through tests.support.sql_engines
    if shutil.which("javac") is None:
        skip_or_fail("a JDK (javac) is needed to compile FlinkSession.java")
    try:
        assembled = flink.install()
        java = engines.java_home(flink.JAVA) / "bin" / "java"
    except engines.EngineUnavailable as error:
        skip_or_fail(f"Flink cannot be assembled here: {error}")
    work = tmp_path_factory.mktemp("flink")
    classes = work / "classes"
    subprocess.run(
        ["javac", "-cp", assembled.classpath, "-d", str(classes), str(SOURCE)],
        check=True,
        capture_output=True,
        timeout=300,
    )

    def run(uri: str, name: str) -> list[tuple[str, dict]]:
        conf = work / name
        conf.mkdir()
        (conf / "hive-site.xml").write_text(
            '<?xml version="1.0"?>\n<configuration><property><name>hive.metastore.uris</name>'
            f"<value>{uri}</value></property></configuration>\n"
        )
        statements = [line for line in SESSION.format(conf=conf).splitlines() if line.strip()]
        done = subprocess.run(
            [str(java), *flink.JVM_OPENS, "-Xmx1g", "-cp", f"{classes}:{assembled.classpath}", "FlinkSession"],
            input="\n".join(statements) + "\n",
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        answers = [
            json.loads(line[len("@flink ") :]) for line in done.stdout.splitlines() if line.startswith("@flink ")
        ]
        assert len(answers) == len(statements), done.stderr[-3000:]
        return list(zip([_statement(text) for text in statements], answers, strict=True))

    return run


def _statement(text: str) -> str:
    """The statement as the tests name it: the catalog's configuration folder differs between runs."""
    return re.sub(r"'hive-conf-dir' = '[^']*'", "'hive-conf-dir' = '<conf>'", text)


def _make_table_with_primary_key(uri: str) -> None:
    """``fl_pk.users`` with a RELY primary key and a NOT NULL column, made as Hive's DDL makes them."""
    client = metastore_client(uri)
    try:
        client.create_database(hive.Database(name="fl_pk", parameters={}))
        table = make_table("fl_pk", "users", columns=cols("id:bigint", "name:string"), partition_keys=cols("dt:string"))
        constraint = {"table_db": "fl_pk", "table_name": "users", "enable_cstr": False, "validate_cstr": False}
        client.create_table_with_constraints(
            table,
            [hive.SQLPrimaryKey(column_name="id", key_seq=1, pk_name="pk_users", rely_cstr=True, **constraint)],
            [],
            [],
            [hive.SQLNotNullConstraint(column_name="name", nn_name="nn_users_name", rely_cstr=True, **constraint)],
            [],
            [],
        )
    finally:
        client.close()


@pytest.fixture(scope="module")
def sessions(flink_runner, tmp_path_factory, mysql_server_url) -> Iterator[tuple[Side, Side]]:
    """The session on this server (SQLite) and on Hive Metastore 4.0.1; both servers stay up for the tests."""
    work = tmp_path_factory.mktemp("flink-servers")
    with ExitStack() as stack:
        ours = stack.enter_context(served_metastore(work / "ours", f"sqlite:///{work}/catalog.db"))
        reference = stack.enter_context(hive_metastore(mysql_server_url, "4.0.1"))
        reference_uri = f"thrift://{reference.host}:{reference.port}"
        sides = []
        for uri, warehouse, name, call_log in [
            (ours.uri, str(ours.warehouse), "ours", ours.log),
            (reference_uri, str(Path(reference.log_dir).parent / "warehouse"), "hive4", None),
        ]:
            _make_table_with_primary_key(uri)
            sides.append(Side(uri, warehouse, flink_runner(uri, name), call_log))
        yield sides[0], sides[1]


def _canonical(answer: dict, warehouse: str) -> dict:
    text = json.dumps(answer)
    text = re.sub(rf"file:(//)?{re.escape(warehouse)}", "<warehouse>", text)
    text = re.sub(r"'transient_lastDdlTime' = '\d+'", "'transient_lastDdlTime' = '<time>'", text)
    return json.loads(text)


def test_flink_session_answers_as_hive_metastore_4(sessions):
    ours, reference = sessions
    assert [text for text, _ in ours.answers] == [text for text, _ in reference.answers]
    different = {
        text: (mine, theirs)
        for (text, mine), (_, theirs) in zip(ours.answers, reference.answers, strict=True)
        if _canonical(mine, ours.warehouse) != _canonical(theirs, reference.warehouse) and text not in DIFFERENT
    }
    assert not different, different
    for text in DIFFERENT:  # a listed difference that went away is taken off the list
        assert _canonical(ours.answer(text), ours.warehouse) != _canonical(reference.answer(text), reference.warehouse)


def test_flink_writes_and_reads_back_a_hive_table(sessions):
    ours, _ = sessions
    errors = {text: answer["error"] for text, answer in ours.answers if "error" in answer}
    assert list(errors) == [ANALYZE_PARTITIONS, "SELECT * FROM events_missing"], errors
    assert "implicit type conversion between VARCHAR and INTEGER" in errors[ANALYZE_PARTITIONS]
    assert "Object 'events_missing' not found" in errors["SELECT * FROM events_missing"]
    assert ours.answer("SELECT id, name, amount, dt, hr FROM events ORDER BY id")["rows"] == [
        ["1", "a", "1.50", "2024-01-01", "1"],
        ["2", "b", "2.25", "2024-01-02", "3"],
        ["3", "c", "0.75", "2024-01-02", "3"],
        ["10", "gen", "1.00", "2024-01-03", "0"],
        ["11", "gen", "1.00", "2024-01-03", "0"],
        ["12", "gen", "1.00", "2024-01-03", "0"],
    ]
    assert ours.answer("SELECT id FROM events WHERE dt = '2024-01-02' AND hr = 3 ORDER BY id")["rows"] == [["2"], ["3"]]
    assert ours.answer("SELECT id, name, dt, hr FROM events WHERE dt = '2024-01-01'")["rows"] == [
        ["4", "d", "2024-01-01", "1"]
    ]
    assert ours.answer("SHOW PARTITIONS events")["rows"] == [
        ["dt=2024-01-01/hr=1"],
        ["dt=2024-01-02/hr=3"],
        ["dt=2024-02-01/hr=0"],
    ]
    assert ours.answer("SELECT * FROM big_events ORDER BY id")["rows"] == [["2", "2.25"], ["4", "9.99"]]
    assert ours.answer("SELECT to_upper(name) FROM events WHERE id = 2")["rows"] == [["B"]]
    # a renamed managed partitioned table took its partitions (written by Flink as file:/...) with it
    assert ours.answer("SELECT id, region FROM orders_v2 ORDER BY id")["rows"] == [["1", "eu"], ["2", "us"]]
    assert ours.answer("SHOW TABLES")["rows"] == [
        ["big_events"],
        ["clicks_gen"],
        ["events"],
        ["orders_v2"],
        ["totals"],
    ]
    assert ours.answer("SHOW DATABASES")["rows"] == [["default"], ["fl_pk"], ["flink_db"]]


def test_primary_key_and_not_null_come_from_the_servers_constraints(sessions):
    ours, _ = sessions
    [[ddl]] = ours.answer("SHOW CREATE TABLE fl_pk.users")["rows"]
    assert "CONSTRAINT `pk_users` PRIMARY KEY (`id`) NOT ENFORCED" in ddl
    assert "`id` BIGINT NOT NULL" in ddl and "`name` VARCHAR(2147483647) NOT NULL" in ddl
    assert ours.answer("SELECT * FROM fl_pk.users")["rows"] == [["1", "x", "2024-05-01"]]


def test_what_the_session_left_in_the_catalog(sessions):
    """Read over Thrift: the database's comment and parameters, the generic table stored as properties, the
    Hive table's partitions, the statistics ``ANALYZE`` wrote, the view and the function."""
    ours, _ = sessions
    client = metastore_client(ours.uri)
    try:
        database = client.get_database("flink_db")
        assert (database.description, database.parameters) == ("streaming jobs", {"team": "streaming"})

        generic = client.get_table("flink_db", "clicks_gen")
        assert generic.parameters["flink.connector"] == "datagen"
        assert generic.parameters["flink.schema.primary-key.columns"] == "id"
        assert generic.parameters["flink.fields.id.kind"] == "sequence"

        events = client.get_table("flink_db", "events")
        assert events.parameters["retention"] == "30d"
        assert [key.name for key in events.partitionKeys] == ["dt", "hr"]
        names = client.get_partition_names("flink_db", "events", -1)
        assert names == ["dt=2024-01-01/hr=1", "dt=2024-01-02/hr=3", "dt=2024-02-01/hr=0"]
        assert client.get_partition("flink_db", "events", ["2024-01-02", "3"]).parameters["numFiles"] == "2"

        stats = client.get_table_statistics_req(
            hive.TableStatsRequest(dbName="flink_db", tblName="totals", colNames=["id", "amount"])
        ).tableStats
        by_name = {obj.colName: obj.statsData for obj in stats}
        ids = by_name["id"].longStats
        assert (ids.lowValue, ids.highValue, ids.numNulls, ids.numDVs) == (2, 4, 0, 3)  # 10-12: partition dropped
        assert by_name["amount"].decimalStats.numDVs == 3
        assert client.get_table("flink_db", "totals").parameters["numRows"] == "3"

        moved = client.get_table("flink_db", "orders_v2").sd.location
        for partition in client.get_partitions("flink_db", "orders_v2", -1):
            assert partition.sd.location.replace("file:///", "file:/").startswith(moved.replace("file:///", "file:/"))

        view = client.get_table("flink_db", "big_events")
        assert view.tableType == "VIRTUAL_VIEW" and "amount" in view.viewOriginalText
        function = client.get_function("flink_db", "to_upper")
        assert function.className == "org.apache.hadoop.hive.ql.udf.generic.GenericUDFUpper"
    finally:
        client.close()


def test_every_call_flink_made_was_served(sessions):
    """Flink's calls that failed on this server are lookups of what does not exist, as on Hive Metastore."""
    ours, _ = sessions
    assert ours.call_log is not None
    failures = re.findall(r"hms_adapter\.processor: (\w+) failed: (\w+)", ours.call_log.read_text())
    assert failures, "the session looks up objects that do not exist (Flink checks before it creates)"
    lookups = {"NoSuchTableError", "NoSuchDatabaseError", "NoSuchPartitionError", "NoSuchFunctionError"}
    refused = [(call, error) for call, error in failures if error not in lookups]
    assert refused == [("get_part_specs_by_filter", "MetaException")], refused  # ANALYZE_PARTITIONS
