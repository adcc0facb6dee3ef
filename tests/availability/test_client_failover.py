"""Real clients fail over: Spark, Trino's Hive connector and PyIceberg's ``HiveCatalog`` are each given the
URIs of two ``hudi-metastore serve`` processes sharing one MariaDB catalog database (a database of the test's
own) and one warehouse. While the client works, a server it is using is killed (SIGKILL, with any worker it
forked, as a crash or the OOM killer would end it) and the client must go on through the other one.

Each test prints its figures, ``failover[<client>]: ...``: the statements (calls) run and those that failed
as the client saw them; the error window (the longest time during which every statement the client tried
failed: 0 when none did); the recovery (from the kill until a statement next succeeded, retries included);
the slowest statement after the kill beside the median one before it; whether a statement was in flight at
the kill and which calls the server was cut off in; and, checked afterwards through a Thrift client of the
surviving server and through the client itself, that every write the client saw acknowledged is there
(``lost``) and none is there twice (``duplicated``).

The engines run a loop of tables (CREATE a partitioned table, INSERT into two partitions, add a third, list
them, count the rows); in the third table the server is killed as it starts the first write call of the
first INSERT (``add_partitions``: the partition of the rows just written), so the kill cuts a write.

What the clients do when the server they use dies:

- Spark 3.5.7 (the PySpark of the Hudi and Iceberg writers, ``tests/support/spark_writers.py``) bundles Hive
  2.3.9's metastore client. ``HiveMetaStoreClient`` shuffles ``hive.metastore.uris`` when it is made (2.3
  has no ``hive.metastore.uri.selection``: the order is always random, so the server in use is the one whose
  call log shows the statements) and keeps one connection. On a transport error (``Connection reset``,
  ``Broken pipe``) ``RetryingMetaStoreClient`` waits ``hive.metastore.client.connect.retry.delay`` and
  reconnects with another URI first, ``hive.metastore.failure.retries`` times, and calls again: the
  statement in flight takes that delay longer and succeeds. With ``failure.retries=0`` the session never
  recovers: Spark's own retry (``HiveClientImpl``, "destroying client and retrying") gets the same
  thread-local ``Hive`` back, with its dead connection, and every later metastore statement fails.
- Trino 476 opens a connection per metastore call, to the first URI of ``hive.metastore.uri`` whose address
  has not failed last (any Thrift exception counts, ``NoSuchObjectException`` too: Trino spreads its calls
  over both servers as its ``get_partition`` calls find no partition); a call cut off is retried
  (``hive.metastore.thrift.client.max-retries``, after ``min-backoff-delay``) on a new connection, which
  goes to the other server; a refused connection goes to the next URI at once.
- PyIceberg 0.12 accepts a comma-separated ``uri`` but only ever connects to its first URI
  (:func:`test_pyiceberg_keeps_to_its_first_uri`).
"""

from __future__ import annotations

import os
import re
import signal
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg import __version__ as pyiceberg_version
from pyiceberg.catalog.hive import HiveCatalog
from thrift.transport.TTransport import TTransportException

from tests.conftest import hive, mysql_database
from tests.support.servers import READY_SECONDS, children, free_port
from tests.support.spark_writers import require_spark_writers, spark_writer
from tests.support.sql_engines import (
    ServedMetastore,
    engines,
    metastore_client,
    require_engine,
    served_metastore,
    sql_engines,
    starting_engine,
)

# a JVM's start (Spark's, Trino's) past the default 600 s on a machine 3-4 times slower
pytestmark = [pytest.mark.mysql, pytest.mark.timeout(1800)]

STARTED = re.compile(rb"hms_adapter\.processor: (\w+) started")
"""The server's DEBUG line as it starts a call."""
WRITE_STARTED = re.compile(rb"hms_adapter\.processor: (?:add|alter|append|create|drop|update)_\w* started")
"""The line as it starts a call that writes."""
ANSWERED = re.compile(rb"hms_adapter\.processor: (\w+) [\d.]+ ms")
"""Its DEBUG line once it has done one (written before the answer is sent)."""

ITERATIONS, KILL_AT = 5, 2
"""The engines' loops: ``ITERATIONS`` tables, a server killed during the first INSERT into table ``KILL_AT``."""


# -- the servers --------------------------------------------------------------------------------------


@contextmanager
def shared_catalog_servers(work: Path, mysql_server_url: str, ports: list[int]) -> Iterator[list[ServedMetastore]]:
    """``hudi-metastore serve`` on each of ``ports`` of 127.0.0.1, all on one new MariaDB database (dropped on
    exit) and one warehouse (``work/warehouse``), each logging its calls (DEBUG) to ``work/server-<i>``; started
    one after the other (the first makes the schema), stopped on exit."""
    warehouse = work / "warehouse"
    warehouse.mkdir(parents=True, exist_ok=True)
    with mysql_database(mysql_server_url) as db_url, ExitStack() as stack:
        yield [
            stack.enter_context(
                served_metastore(work / f"server-{i}", db_url, port=port, warehouse_uri=f"file://{warehouse}")
            )
            for i, port in enumerate(ports)
        ]


def uris(servers: list[ServedMetastore]) -> str:
    return ",".join(server.uri for server in servers)


def kill(server: ServedMetastore) -> None:
    """SIGKILL to ``server`` and every process it forked, as a crash or the OOM killer would end them."""
    for pid in [server.process.pid, *children(server.process.pid)]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    server.process.wait(30)


def log_end(server: ServedMetastore) -> int:
    return server.log.stat().st_size


def _log_since(server: ServedMetastore, offset: int) -> bytes:
    with server.log.open("rb") as log:
        log.seek(offset)
        return log.read()


def calls_since(server: ServedMetastore, offset: int) -> list[str]:
    """The Thrift calls ``server`` answered since ``offset`` of its log (a :func:`log_end`)."""
    return [name.decode() for name in ANSWERED.findall(_log_since(server, offset))]


def in_use(servers: list[ServedMetastore], offsets: list[int]) -> ServedMetastore:
    """The one server of ``servers`` that answered calls since ``offsets`` (their :func:`log_end`)."""
    called = [server for server, offset in zip(servers, offsets, strict=True) if calls_since(server, offset)]
    assert len(called) == 1, f"{len(called)} servers of {len(servers)} answered the client"
    return called[0]


# -- a client at work, and its figures ----------------------------------------------------------------------


@dataclass
class Step:
    """A statement (or call) as the client saw it: when it started and ended, its rows or its error."""

    sql: str
    started: float
    ended: float = 0.0
    rows: list | None = None
    error: str | None = None


@dataclass
class Workload:
    """The client's statements, run in order by ``execute`` (rows, or an exception), each timed; one of them
    while the server in use is killed."""

    execute: Callable[[str], list]
    steps: list[Step] = field(default_factory=list)
    killed_at: float = 0.0
    killed_in_flight: bool = False

    def run(self, sql: str) -> Step:
        step = Step(sql, time.monotonic())
        try:
            step.rows = self.execute(sql)
        except Exception as error:  # noqa: BLE001 - what the client saw is what is measured
            step.error = f"{type(error).__name__}: {error}"[:600]
        step.ended = time.monotonic()
        self.steps.append(step)
        return step

    def run_killing(self, sql: str, servers: list[ServedMetastore]) -> tuple[Step, ServedMetastore]:
        """``sql``, with the server of ``servers`` that starts the first write call for it killed at that moment
        (when ``sql`` ends without one: the server that logged last, at once after). The step, and the server
        killed."""
        offsets = [log_end(server) for server in servers]
        with ThreadPoolExecutor(1) as pool:
            running = pool.submit(self.run, sql)
            deadline = time.monotonic() + READY_SECONDS  # a ceiling against a hang only
            writing = []
            while not writing and not running.done() and time.monotonic() < deadline:
                time.sleep(0.001)  # a write call takes milliseconds: the kill is to fall within it
                writing = [s for s, at in zip(servers, offsets, strict=True) if WRITE_STARTED.search(_log_since(s, at))]
            self.killed_in_flight = not running.done()
            victim = writing[0] if writing else max(servers, key=lambda server: server.log.stat().st_mtime)
            self.killed_at = time.monotonic()
            kill(victim)
            return running.result(), victim

    def figures(self) -> dict[str, Any]:
        assert self.killed_at, "no server was killed"
        windows, failing_since = [], None
        for step in self.steps:
            if step.error and failing_since is None:
                failing_since = step.started
            elif not step.error and failing_since is not None:
                windows.append(step.started - failing_since)
                failing_since = None
        if failing_since is not None:
            windows.append(self.steps[-1].ended - failing_since)
        after = [step for step in self.steps if step.ended >= self.killed_at]
        recovered = next((step.ended for step in after if not step.error), None)
        before = [step.ended - step.started for step in self.steps if step.ended < self.killed_at]
        return {
            "statements": len(self.steps),
            "failed": sum(1 for step in self.steps if step.error),
            "error_window_s": round(max(windows, default=0.0), 2),
            "recovery_s": None if recovered is None else round(recovered - self.killed_at, 2),
            "slowest_after_kill_s": round(max(step.ended - step.started for step in after), 2),
            "median_before_kill_s": round(statistics.median(before), 2) if before else None,
            "killed_in_flight": self.killed_in_flight,
        }

    def errors(self) -> list[str]:
        return [f"{step.sql}: {step.error}" for step in self.steps if step.error]


def cut_calls(server: ServedMetastore) -> list[str]:
    """The calls ``server`` had started and not done when it was killed."""
    log = _log_since(server, 0)
    started = Counter(name.decode() for name in STARTED.findall(log))
    started.subtract(name.decode() for name in ANSWERED.findall(log))
    return sorted(+started)


def report(client: str, workload: Workload, lost: int, duplicated: int, **more: Any) -> None:
    figures = {**workload.figures(), "lost": lost, "duplicated": duplicated, **more}
    print(f"failover[{client}]: " + ", ".join(f"{key}={value}" for key, value in figures.items()))
    for error in workload.errors():
        print(f"failover[{client}] error: {error}")


# -- the engines' loop: partitioned tables made, written, listed and counted ---------------------------------


@dataclass(frozen=True)
class Statement:
    """A statement on ``table`` and what it writes (``creates`` it, the partition ``ds=<partition>``, the row
    ``row``) or answers (its partitions: ``shows``, its number of rows: ``counts``)."""

    sql: str
    table: str
    creates: bool = False
    partition: str | None = None
    row: int | None = None
    shows: bool = False
    counts: bool = False


@dataclass
class Ledger:
    """What the client tried and what it saw acknowledged, per table; answers outside those bounds."""

    tables: set[str] = field(default_factory=set)
    tried_tables: list[str] = field(default_factory=list)
    partitions: dict[str, set[str]] = field(default_factory=dict)
    tried_partitions: dict[str, set[str]] = field(default_factory=dict)
    rows: dict[str, set[int]] = field(default_factory=dict)
    tried_rows: dict[str, set[int]] = field(default_factory=dict)
    wrong_answers: list[str] = field(default_factory=list)

    def record(self, statement: Statement, step: Step, partition_names: Callable[[list], set[str]]) -> None:
        table, ok = statement.table, step.error is None
        if statement.creates:
            self.tried_tables.append(table)
            if ok:
                self.tables.add(table)
        if statement.partition is not None:
            self.tried_partitions.setdefault(table, set()).add(f"ds={statement.partition}")
            if ok:
                self.partitions.setdefault(table, set()).add(f"ds={statement.partition}")
        if statement.row is not None:
            self.tried_rows.setdefault(table, set()).add(statement.row)
            if ok:
                self.rows.setdefault(table, set()).add(statement.row)
        if ok and statement.shows:
            seen = partition_names(step.rows or [])
            if not self.partitions.get(table, set()) <= seen <= self.tried_partitions.get(table, set()):
                self.wrong_answers.append(f"{statement.sql}: {sorted(seen)}")
        if ok and statement.counts:
            count = int((step.rows or [[-1]])[0][0])
            if not len(self.rows.get(table, ())) <= count <= len(self.tried_rows.get(table, ())):
                self.wrong_answers.append(f"{statement.sql}: {count}")


def run_the_loop(
    workload: Workload,
    statements: Callable[[int], list[Statement]],
    servers: list[ServedMetastore],
    partition_names: Callable[[list], set[str]],
) -> tuple[Ledger, ServedMetastore, ServedMetastore, int]:
    """``statements(i)`` for each of ``ITERATIONS`` tables; in the ``KILL_AT``-th, the server that starts
    the first write call for its second statement (the first INSERT) is killed then. The ledger, the server
    killed, the other one (which must have answered the client after the kill) and how many servers answered
    the statements of the table before and the first of that table."""
    ledger = Ledger()
    killed = survivor = None
    answering, before = 0, [0] * len(servers)
    for i in range(ITERATIONS):
        offsets = [log_end(server) for server in servers]
        if i == KILL_AT - 1:
            before = offsets
        for n, statement in enumerate(statements(i)):
            if i == KILL_AT and n == 1:
                answering = sum(1 for server, at in zip(servers, before, strict=True) if calls_since(server, at))
                offsets = [log_end(server) for server in servers]
                step, killed = workload.run_killing(statement.sql, servers)
            else:
                step = workload.run(statement.sql)
            ledger.record(statement, step, partition_names)
        if i == KILL_AT:
            (survivor,) = [server for server in servers if server is not killed]
            check_the_survivor_took_over(killed, survivor, offsets[servers.index(survivor)])
    assert killed is not None and survivor is not None
    return ledger, killed, survivor, answering


def check_what_was_acknowledged(
    ledger: Ledger,
    survivor: ServedMetastore,
    database: str,
    ids_of: Callable[[str], list[int]],
    partitions_of: Callable[[str], set[str]],
) -> tuple[int, int]:
    """Every table, partition and row the client saw acknowledged, looked up through a Thrift client of
    ``survivor`` (tables, partitions) and through the client itself (``ids_of``, ``partitions_of``): how many
    are missing (lost) and how many are there more than once (duplicated). Asserts the two views agree."""
    lost = duplicated = 0
    client = metastore_client(survivor.uri)
    try:
        for table in dict.fromkeys(ledger.tried_tables):
            try:
                client.get_table(database, table)
            except hive.NoSuchObjectException:
                lost += table in ledger.tables
                continue
            names = client.get_partition_names(database, table, -1)
            duplicated += len(names) - len(set(names))
            lost += len(ledger.partitions.get(table, set()) - set(names))
            assert partitions_of(table) == set(names), table
            ids = Counter(ids_of(table))
            lost += len(ledger.rows.get(table, set()) - set(ids))
            duplicated += sum(count - 1 for count in ids.values())
    finally:
        client.close()
    return lost, duplicated


def check_the_survivor_took_over(killed: ServedMetastore, survivor: ServedMetastore, offset: int) -> None:
    assert killed.process.returncode == -signal.SIGKILL
    assert calls_since(survivor, offset), "the surviving server answered nothing after the kill"


# -- Spark --------------------------------------------------------------------------------------------------

SPARK_DB = "failover"
SPARK_METASTORE_CLIENT = {
    # Hive 2.3's RetryingMetaStoreClient: after a Thrift transport error, reconnect (another URI first) and
    # call again, this many times (the default, 1)
    "spark.hadoop.hive.metastore.failure.retries": "1",
    # the wait before that reconnect (and Spark's own wait before it retries on a new client): the default
    "spark.hadoop.hive.metastore.client.connect.retry.delay": "1s",
    # the longest a call waits for its answer (600 s by default): a server that hangs rather than dies
    "spark.hadoop.hive.metastore.client.socket.timeout": "60s",
}


@dataclass
class Cluster:
    execute: Callable[[str], list]
    servers: list[ServedMetastore]


@pytest.fixture(scope="module")
def spark_on_two_servers(tmp_path_factory, mysql_server_url) -> Iterator[Cluster]:
    """A Spark session (Hive support, no extra jars) whose ``hive.metastore.uris`` lists both servers."""
    require_spark_writers([])
    work = tmp_path_factory.mktemp("failover-spark")
    ports = [free_port(), free_port()]
    with shared_catalog_servers(work, mysql_server_url, ports) as servers:
        with spark_writer(work / "spark", uris(servers), [], SPARK_METASTORE_CLIENT) as spark:
            yield Cluster(spark.sql, servers)


def spark_statements(i: int) -> list[Statement]:
    table = f"t{i}"
    name = f"{SPARK_DB}.{table}"
    return [
        Statement(f"CREATE TABLE {name} (id INT) PARTITIONED BY (ds STRING) STORED AS PARQUET", table, creates=True),
        Statement(f"INSERT INTO {name} PARTITION (ds='a') VALUES ({10 * i + 1})", table, partition="a", row=10 * i + 1),
        Statement(f"INSERT INTO {name} PARTITION (ds='b') VALUES ({10 * i + 2})", table, partition="b", row=10 * i + 2),
        Statement(f"ALTER TABLE {name} ADD PARTITION (ds='e')", table, partition="e"),
        Statement(f"SHOW PARTITIONS {name}", table, shows=True),
        Statement(f"SELECT count(*) FROM {name}", table, counts=True),
    ]


@pytest.mark.spark
def test_spark_goes_on_through_the_other_server(spark_on_two_servers):
    """Spark's one connection goes to one server; killed, Spark reconnects to the other within the statement."""
    spark, servers = spark_on_two_servers.execute, spark_on_two_servers.servers
    spark(f"CREATE DATABASE {SPARK_DB}")
    workload = Workload(spark)
    ledger, killed, survivor, answering = run_the_loop(
        workload, spark_statements, servers, lambda rows: {row[0] for row in rows}
    )
    assert answering == 1  # Spark's one connection, to one of the URIs

    def ids_of(table: str) -> list[int]:
        return [int(row[0]) for row in spark(f"SELECT id FROM {SPARK_DB}.{table}")]

    def partitions_of(table: str) -> set[str]:
        return {row[0] for row in spark(f"SHOW PARTITIONS {SPARK_DB}.{table}")}

    lost, duplicated = check_what_was_acknowledged(ledger, survivor, SPARK_DB, ids_of, partitions_of)
    report("spark", workload, lost, duplicated, answering=answering, cut=cut_calls(killed))
    assert (lost, duplicated, ledger.wrong_answers) == (0, 0, [])
    # every statement after the kill succeeds (the one it cut may fail: its write may have been done)
    assert [step.error for step in workload.steps if step.started > workload.killed_at and step.error] == []


# -- Trino ----------------------------------------------------------------------------------------------------

TRINO_SCHEMA = "failover"
TRINO_METASTORE_CLIENT = {
    # Trino 476's defaults, written out: a metastore call that fails is retried on a new connection (to the
    # first URI that accepts one) up to 9 times, 1 s after the first failure, doubling to 2 s, for 30 s at most
    "hive.metastore.thrift.client.max-retries": "9",
    "hive.metastore.thrift.client.min-backoff-delay": "1s",
    "hive.metastore.thrift.client.max-backoff-delay": "2s",
    "hive.metastore.thrift.client.max-retry-time": "30s",
    # how long a connection may take to open, and a call to be answered (a server that hangs)
    "hive.metastore.thrift.client.connect-timeout": "10s",
    "hive.metastore.thrift.client.read-timeout": "10s",
}


@pytest.fixture(scope="module")
def trino_on_two_servers(tmp_path_factory, mysql_server_url) -> Iterator[Cluster]:
    """Trino with a Hive catalog ``hive`` whose ``hive.metastore.uri`` lists both servers (started while
    Trino starts: it reaches them only when queried)."""
    require_engine(engines.TRINO)
    work = tmp_path_factory.mktemp("failover-trino")
    ports = [free_port(), free_port()]
    metastores = ",".join(f"thrift://127.0.0.1:{port}" for port in ports)
    catalog = sql_engines.trino_hive_catalog(metastores, **TRINO_METASTORE_CLIENT)
    with starting_engine(engines.TRINO, {"hive": catalog}, work / "trino") as started:
        with shared_catalog_servers(work, mysql_server_url, ports) as servers:
            engine = started.result()

            def execute(sql: str) -> list:
                return engine.query(sql, catalog="hive", schema=TRINO_SCHEMA)

            yield Cluster(execute, servers)


def trino_statements(i: int) -> list[Statement]:
    table = f"t{i}"
    return [
        Statement(f"CREATE TABLE {table} (id bigint, ds varchar) WITH (partitioned_by = ARRAY['ds'])", table, True),
        Statement(f"INSERT INTO {table} VALUES ({10 * i + 1}, 'a')", table, partition="a", row=10 * i + 1),
        Statement(f"INSERT INTO {table} VALUES ({10 * i + 2}, 'b')", table, partition="b", row=10 * i + 2),
        Statement(
            f"CALL system.create_empty_partition('{TRINO_SCHEMA}', '{table}', ARRAY['ds'], ARRAY['e'])",
            table,
            partition="e",
        ),
        Statement(f'SELECT ds FROM "{table}$partitions"', table, shows=True),
        Statement(f"SELECT count(*) FROM {table}", table, counts=True),
    ]


def test_trino_goes_on_through_the_other_server(trino_on_two_servers):
    """Trino calls both servers; one killed during a write call, Trino retries that call on the other."""
    trino, servers = trino_on_two_servers.execute, trino_on_two_servers.servers
    trino(f"CREATE SCHEMA hive.{TRINO_SCHEMA}")
    workload = Workload(trino)
    ledger, killed, survivor, answering = run_the_loop(
        workload, trino_statements, servers, lambda rows: {f"ds={row[0]}" for row in rows}
    )

    def ids_of(table: str) -> list[int]:
        return [row[0] for row in trino(f"SELECT id FROM {table}")]

    def partitions_of(table: str) -> set[str]:
        return {f"ds={row[0]}" for row in trino(f'SELECT ds FROM "{table}$partitions"')}

    lost, duplicated = check_what_was_acknowledged(ledger, survivor, TRINO_SCHEMA, ids_of, partitions_of)
    report("trino", workload, lost, duplicated, answering=answering, cut=cut_calls(killed))
    assert (lost, duplicated, ledger.wrong_answers) == (0, 0, [])
    assert [step.error for step in workload.steps if step.started > workload.killed_at and step.error] == []


# -- PyIceberg ------------------------------------------------------------------------------------------------

ICEBERG_TABLE = "failover.events"
APPENDS, ICEBERG_KILL_AT = 6, 3


def batch(n: int) -> pa.Table:
    """Append ``n``'s rows: ids ``10n`` and ``10n + 1``."""
    return pa.table({"id": pa.array([10 * n, 10 * n + 1], pa.int64()), "batch": pa.array([n, n], pa.int64())})


def test_pyiceberg_keeps_to_its_first_uri(tmp_path, mysql_server_url):
    """PyIceberg 0.12's ``HiveCatalog`` takes ``uri`` as a comma-separated list, but makes its client of the
    first URI at once (``_create_hive_client`` falls back to the next only when making the client raises,
    and making it does not connect) and opens a connection to it for every operation: once that server is
    gone, every call fails (``TTransportException``, could not connect), with that catalog and with any new
    one made from the same list. What a user does then: make the catalog again with the dead URI moved to the
    end of the list; the table goes on from there with every acknowledged append in it once."""
    with shared_catalog_servers(tmp_path, mysql_server_url, [free_port(), free_port()]) as servers:
        properties = {"warehouse": f"file://{tmp_path / 'warehouse'}"}
        catalog = HiveCatalog("hms", uri=uris(servers), **properties)
        catalog.create_namespace("failover")
        catalog.create_table(ICEBERG_TABLE, batch(0).schema)

        def append(n: int) -> Callable[[str], list]:
            return lambda _: catalog.load_table(ICEBERG_TABLE).append(batch(n)) or []

        workload = Workload(lambda sql: [])
        acknowledged, same_list_recovered = [], False
        offsets = [log_end(server) for server in servers]
        for n in range(APPENDS):
            if n == ICEBERG_KILL_AT:
                assert in_use(servers, offsets) is servers[0]  # the first URI, only
                workload.killed_at = time.monotonic()
                kill(servers[0])
            workload.execute = append(n)
            step = workload.run(f"append {n}")
            if step.error is not None:
                # a retry with the same catalog, then with a new one made from the same list
                workload.run(f"append {n} again")
                catalog = HiveCatalog("hms", uri=uris(servers), **properties)
                workload.execute = append(n)
                same_list_recovered = workload.run(f"append {n}, a new catalog on the same list").error is None
                if not same_list_recovered:
                    # the user's way out: the dead server's URI last
                    catalog = HiveCatalog("hms", uri=uris(servers[1:] + servers[:1]), **properties)
                    workload.execute = append(n)
                    step = workload.run(f"append {n}, the catalog made again with the dead URI last")
            if step.error is None:
                acknowledged.append(n)
        check_the_survivor_took_over(servers[0], servers[1], offsets[1])

        ids = Counter(catalog.load_table(ICEBERG_TABLE).scan().to_arrow().column("id").to_pylist())
        expected = {i for n in acknowledged for i in (10 * n, 10 * n + 1)}
        lost = len(expected - set(ids))
        duplicated = sum(count - 1 for count in ids.values())
        report(
            "pyiceberg", workload, lost, duplicated, same_list_recovered=same_list_recovered, version=pyiceberg_version
        )
        assert (lost, duplicated, set(ids)) == (0, 0, expected)
        assert acknowledged == list(range(APPENDS))
        client = metastore_client(servers[1].uri)
        try:
            stored = client.get_table("failover", "events")
        finally:
            client.close()
        assert stored.parameters["metadata_location"] == catalog.load_table(ICEBERG_TABLE).metadata_location
        # what PyIceberg raised at the kill, three times: no connection to the first URI (when this fails,
        # PyIceberg has learnt to fail over: say so in this test and in what the docs tell its users)
        failures = [step.error or "" for step in workload.steps if step.error]
        assert len(failures) == 3 and all(e.startswith(TTransportException.__name__) for e in failures), failures
