"""``serve --metrics-port``: Prometheus metrics of ``--workers 2`` scraped as one target, the health probes,
and ``hudi-metastore status``; real server processes, real HTTP, real Thrift clients."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import create_engine, update
from thriftpy2.rpc import make_client

from hudi_catalog.store import schema
from tests.conftest import hive
from tests.faults.conftest import private_mariadb  # noqa: F401  (a fixture)
from tests.hudi.tables import unpack
from tests.support.servers import CLI, free_port, serve_command, wait_for_port, wait_until

DOCS = Path(__file__).resolve().parents[2] / "docs"
SAMPLE = re.compile(r"^(?P<name>[a-z_]+)(?:\{(?P<labels>[^}]*)\})? (?P<value>\S+)$")


@dataclass
class Served:
    process: subprocess.Popen
    port: int
    metaserver_port: int
    metrics_port: int
    rest_port: int

    def client(self):
        return make_client(hive.ThriftHiveMetastore, "127.0.0.1", self.port, timeout=10_000)

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}{path}", timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def samples(self) -> dict[tuple[str, frozenset], float]:
        """Every sample of /metrics: (name, labels) -> value."""
        status, body = self.get("/metrics")
        assert status == 200
        found = {}
        for line in body.splitlines():
            match = SAMPLE.match(line)
            if match:
                labels = frozenset(re.findall(r'(\w+)="([^"]*)"', match["labels"] or ""))
                found[(match["name"], labels)] = float(match["value"])
        return found


def serve(db_url: str, tmp_path, workers: int, env: dict[str, str] | None = None) -> Served:
    port, metaserver_port, metrics_port, rest_port = free_port(), free_port(), free_port(), free_port()
    log = open(tmp_path / f"server-{port}.log", "w")
    process = subprocess.Popen(
        serve_command(
            port,
            metaserver_port=metaserver_port,
            db_url=db_url,
            warehouse=tmp_path / "wh",
            extra=[
                "--workers",
                str(workers),
                "--metrics-port",
                str(metrics_port),
                "--iceberg-rest-port",
                str(rest_port),
                "--follow-interval",
                "1",
            ],
        ),
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    # each listener opens on its own (with --workers, in each worker): wait for all four
    for listening in (port, metaserver_port, metrics_port, rest_port):
        wait_for_port(listening, process)
    return Served(process, port, metaserver_port, metrics_port, rest_port)


@pytest.fixture
def served(db_url, tmp_path) -> Iterator[Served]:
    server = serve(db_url, tmp_path, workers=2)
    yield server
    server.process.terminate()
    server.process.wait(30)


def wait_for(condition) -> None:
    """Until ``condition()`` holds (the shared wait: its ceiling only bounds a hang)."""
    wait_until(condition, "the condition")


def test_two_workers_report_as_one_target(served, db_url, tmp_path):
    calls = 40
    clients = [served.client() for _ in range(4)]  # the kernel spreads connections over both workers
    for i in range(calls):
        client = clients[i % len(clients)]
        client.get_all_databases()
        with pytest.raises(hive.NoSuchObjectException):
            client.get_database(f"missing_{i}")
    client.create_database(hive.Database(name="metered", parameters={}))
    lock = client.lock(
        hive.LockRequest(
            component=[hive.LockComponent(type=hive.LockType.EXCLUSIVE, level=hive.LockLevel.DB, dbname="metered")],
            user="u",
            hostname="h",
        )
    )
    wait_for(lambda: served.samples().get(("hudi_metastore_open_connections", frozenset())) == 4)

    samples = served.samples()
    calls_of = lambda method: samples[("hudi_metastore_thrift_calls_total", frozenset({("method", method)}))]  # noqa: E731
    assert calls_of("get_all_databases") == calls
    assert calls_of("get_database") == calls
    errors = samples[
        (
            "hudi_metastore_thrift_call_errors_total",
            frozenset({("method", "get_database"), ("exception", "NoSuchDatabaseError")}),
        )
    ]
    assert errors == calls
    assert not any(
        name == "hudi_metastore_thrift_call_errors_total" and ("method", "get_all_databases") in labels
        for name, labels in samples
    )
    histogram_count = samples[
        ("hudi_metastore_thrift_call_duration_seconds_count", frozenset({("method", "get_database")}))
    ]
    assert histogram_count == calls
    assert samples[("hudi_metastore_notification_events_written_total", frozenset())] == 1  # the CREATE_DATABASE
    assert samples[("hudi_metastore_locks", frozenset({("state", "acquired")}))] == 1
    assert samples[("hudi_metastore_locks", frozenset({("state", "waiting")}))] == 0
    assert samples[("hudi_metastore_db_pool_wait_seconds_count", frozenset())] >= 2 * calls
    # every call gave its connection back; a background task (the event cleaner) may hold one for a moment
    in_use = ("hudi_metastore_db_pool_connections_in_use", frozenset())
    wait_for(lambda: served.samples()[in_use] == 0)

    # the Iceberg REST port's requests, by operation and status
    rest = f"http://127.0.0.1:{served.rest_port}/v1"
    for path in ("/namespaces", "/namespaces/metered", "/namespaces/missing"):
        try:
            urllib.request.urlopen(rest + path, timeout=10).read()
        except urllib.error.HTTPError as error:
            assert error.code == 404
    samples = served.samples()
    rest_of = lambda operation, status: samples[  # noqa: E731
        ("hudi_metastore_iceberg_rest_requests_total", frozenset({("operation", operation), ("status", status)}))
    ]
    assert rest_of("listNamespaces", "200") == 1
    assert rest_of("loadNamespaceMetadata", "200") == 1 and rest_of("loadNamespaceMetadata", "404") == 1
    operation = frozenset({("operation", "loadNamespaceMetadata")})
    assert samples[("hudi_metastore_iceberg_rest_request_duration_seconds_count", operation)] == 2

    # the background reconciliation of a Hudi table, imported while the server runs: current
    table = unpack("sample_table_cow_v8_nonpartitioned", tmp_path / "tables")
    done = subprocess.run(
        [*CLI, "import", str(table), "--database", "lake", "--table", "trips", "--db-url", db_url],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    behind = (
        "hudi_metastore_hudi_table_instants_behind",
        frozenset({("catalog", "hive"), ("database", "lake"), ("table", "trips")}),
    )
    wait_for(lambda: behind in served.samples())
    assert served.samples()[behind] == 0

    clients[0].unlock(hive.UnlockRequest(lockid=lock.lockid))
    for client in clients:
        client.close()
    wait_for(lambda: served.samples().get(("hudi_metastore_open_connections", frozenset())) == 0)
    samples = served.samples()
    assert samples[("hudi_metastore_locks", frozenset({("state", "acquired")}))] == 0

    exposed = {re.sub(r"_(bucket|count|sum)$", "", name) for name, _ in samples}
    for document in ("grafana-dashboard.json", "operations.md"):  # what the docs name is what is served
        named = set(re.findall(r"hudi_metastore_[a-z_]+", (DOCS / document).read_text()))
        assert {re.sub(r"_(bucket|count|sum)$", "", name) for name in named} <= exposed, document


def _workers(supervisor: int) -> list[int]:
    return [int(pid) for pid in Path(f"/proc/{supervisor}/task/{supervisor}/children").read_text().split()]


def _connections_served(pid: int, port: int) -> int:
    """Established TCP connections to ``port`` whose server side process ``pid`` holds (from /proc)."""
    sockets = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except FileNotFoundError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            sockets.add(target[len("socket:[") : -1])
    count = 0
    for line in Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local_port, state, inode = int(fields[1].split(":")[1], 16), fields[3], fields[9]
        count += local_port == port and state == "01" and inode in sockets  # 01: ESTABLISHED
    return count


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_killed_worker_keeps_its_counts_and_drops_its_connections(served):
    """The supervisor marks a dead worker's process dead: its open connections leave the gauge, its calls stay
    counted, and the worker started in its place records into the same target."""
    clients = [served.client() for _ in range(6)]
    for client in clients:
        client.get_all_databases()
    wait_for(lambda: served.samples().get(("hudi_metastore_open_connections", frozenset())) == len(clients))
    held = {pid: _connections_served(pid, served.port) for pid in _workers(served.process.pid)}
    assert sum(held.values()) == len(clients), held
    victim = max(held, key=held.__getitem__)
    os.kill(victim, signal.SIGKILL)

    remaining = len(clients) - held[victim]
    wait_for(lambda: served.samples().get(("hudi_metastore_open_connections", frozenset())) == remaining)
    calls = ("hudi_metastore_thrift_calls_total", frozenset({("method", "get_all_databases")}))
    assert served.samples()[calls] == len(clients)
    wait_for(lambda: len(_workers(served.process.pid)) == 2 and victim not in _workers(served.process.pid))
    for _ in range(4):  # new connections, on either worker
        fresh = served.client()
        fresh.get_all_databases()
        fresh.close()
    assert served.samples()[calls] == len(clients) + 4
    for client in clients:
        client.close()


def test_metaserver_commits_are_counted(served, tmp_path):
    from hms_adapter.idl import metaserver as ms

    client = make_client(ms.ThriftHoodieMetaserver, "127.0.0.1", served.metaserver_port, timeout=10_000)
    client.createDatabase("m")
    client.createTable(
        ms.Table(
            tableName="t",
            databaseName="m",
            owner="o",
            createTime=0,
            location=f"file:{tmp_path}/m/t",
            tableType="COPY_ON_WRITE",
            partitionKeys=[],
            parameters={},
        )
    )

    def instant(ts: str, state: int):
        return ms.THoodieInstant(timestamp=ts, action=ms.TAction.COMMIT, state=state)

    for ts in ("20240101000000000", "20240102000000000"):
        client.createNewInstantWithTime("m", "t", instant(ts, ms.TState.REQUESTED), b"")
        client.transitionInstantState("m", "t", instant(ts, ms.TState.REQUESTED), instant(ts, ms.TState.INFLIGHT), b"")
        client.transitionInstantState(
            "m", "t", instant(ts, ms.TState.INFLIGHT), instant(ts, ms.TState.COMPLETED), b"{}"
        )
    client.close()
    assert served.samples()[("hudi_metastore_metaserver_commits_total", frozenset())] == 2


def test_health_probes(served, db_url):
    assert served.get("/health/live") == (200, '{"status": "live"}')
    status, body = served.get("/health/ready")
    assert (status, json.loads(body)["status"]) == (200, "ready")
    assert served.get("/nothing/here")[0] == 404

    engine = create_engine(db_url)
    # a newer hudi-metastore upgraded the schema under this one; the database was restored from an older one
    for layout in (schema.SCHEMA_VERSION + 1, schema.SCHEMA_VERSION - 1):
        with engine.begin() as conn:
            conn.execute(update(schema.schema_version).values(version=layout))
        status, body = served.get("/health/ready")
        assert status == 503
        assert json.loads(body) == {
            "status": "not ready",
            "reason": f"catalog schema is layout {layout}, this build serves layout {schema.SCHEMA_VERSION}",
        }
        assert served.get("/health/live")[0] == 200
    with engine.begin() as conn:
        conn.execute(update(schema.schema_version).values(version=schema.SCHEMA_VERSION))
    assert served.get("/health/ready")[0] == 200
    engine.dispose()


def test_ready_fails_while_the_database_is_down(private_mariadb, tmp_path):  # noqa: F811
    """A MariaDB server of the test's own, stopped and started again under a serving metastore."""
    server = serve(private_mariadb.url, tmp_path, workers=1)
    try:
        assert server.get("/health/ready")[0] == 200
        private_mariadb.stop()
        status, body = server.get("/health/ready")
        assert status == 503 and json.loads(body)["reason"].startswith("catalog database unreachable")
        assert server.get("/health/live")[0] == 200
        status, body = server.get("/metrics")  # answers without the locks, which need the database
        assert status == 200 and "hudi_metastore_locks" not in body
        private_mariadb.start()
        wait_for(lambda: server.get("/health/ready")[0] == 200)
    finally:
        server.process.terminate()
        server.process.wait(30)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)  # the command does not depend on the store
def test_status_command(served):
    alive = subprocess.run(
        CLI
        + [
            "status",
            "--uri",
            f"thrift://127.0.0.1:{served.port}",
            "--health-url",
            f"http://127.0.0.1:{served.metrics_port}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert alive.returncode == 0, alive.stderr
    assert re.match(
        r"ok thrift://127\.0\.0\.1:\d+: get_all_databases answered in [\d.]+ ms \(1 databases visible\)", alive.stdout
    )
    assert "ok http://" in alive.stdout and ": ready" in alive.stdout

    dead = subprocess.run(
        CLI + ["status", "--uri", f"thrift://127.0.0.1:{free_port()}", "--timeout", "2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert dead.returncode == 1
    assert dead.stderr.startswith("failed: thrift://127.0.0.1:") and "cannot connect to 127.0.0.1:" in dead.stderr


def test_metrics_stay_off_by_default(tmp_path):
    port = free_port()
    process = subprocess.Popen(
        serve_command(port, db_url=f"sqlite:///{tmp_path / 'c.db'}", warehouse=tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = []
    try:
        # the port listens before the server has set itself up: read up to the line saying it is serving
        for line in process.stdout:
            lines.append(line)
            if "listening on" in line:
                break
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=120)
    output = "".join(lines) + output
    assert "listening on" in output and "metrics and health" not in output


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_metrics_directory_lives_as_long_as_the_server(db_url, tmp_path):
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary)}  # where serve makes its metrics directory
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        refused = subprocess.run(
            serve_command(
                0, db_url=db_url, warehouse=tmp_path / "wh", extra=["--workers", "2", "--metrics-port", str(taken)]
            ),
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
    assert refused.returncode == 1
    assert f"metrics 127.0.0.1:{taken}" in refused.stderr and "Address already in use" in refused.stderr
    assert list(temporary.iterdir()) == []

    server = serve(db_url, tmp_path, workers=2, env=env)
    try:
        client = server.client()
        client.get_all_databases()
        client.close()
        (directory,) = temporary.iterdir()
        assert directory.name.startswith("hudi-metastore-metrics-") and any(directory.iterdir())
    finally:
        server.process.terminate()
        try:
            code = server.process.wait(60)
        except subprocess.TimeoutExpired:
            server.process.kill()
            code = None
    log = (tmp_path / f"server-{server.port}.log").read_text()
    assert code == 0, f"serve --workers 2 ended with {code} after SIGTERM; its log:\n{log[-4000:]}"
    assert list(temporary.iterdir()) == []
