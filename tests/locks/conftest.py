"""Fixtures for the lock and transaction tests (and the role and grant calls compared with Hive): the
servers to compare, and a client of each.

``hms`` is every server the cases run against, one per module and variant: ours on SQLite, ours on
MariaDB, ours on PostgreSQL, and the reference, Apache Hive Metastore 2.3.10 (``hive_peer``, ``benchmarks/peer.py``: the jars of
the pyspark wheel on a MariaDB database of its own, one per test session, dropped afterwards). Ours is served
per module rather than per test (the ``server`` fixture): the lock cases are a few milliseconds each, a
fresh MariaDB catalog per case half a second. Each case works on database names of its own, so cases
sharing a server cannot see each other's locks.

The peer needs Java, the MariaDB JDBC driver (``benchmarks/install_peer_deps.sh``) and the MariaDB server of
the tests: without one of them its cases are skipped, or fail in CI (``CI=true``).
"""

from __future__ import annotations

import importlib
import shutil
import sys
import time
import uuid
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import pymysql
import pytest
from sqlalchemy.engine import make_url
from thriftpy2.rpc import make_client

from hudi_catalog import Catalog
from tests.conftest import RunningServer, hive, postgresql_database, require_module, skip_or_fail

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

# the database name of the lock fresh_facts takes and releases
FRESH_PROBE_DB = "hms_locks_fresh_probe"


@dataclass
class Target:
    """A server under test: ``name`` is ``ours-sqlite``, ``ours-mysql``, ``ours-postgresql`` or ``peer``."""

    name: str
    host: str
    port: int
    startup_s: float = 0.0
    fresh: dict = field(default_factory=dict)

    @property
    def is_peer(self) -> bool:
        return self.name == "peer"

    def client(self):
        return make_client(hive.ThriftHiveMetastore, self.host, self.port, timeout=60_000)


_peer_startups: list[float] = []


def fresh_facts(client) -> dict:
    """What a server that nobody used yet answers: get_open_txns, then the ids of its first lock and its
    first transaction (both released again: the lock unlocked, the transaction committed)."""
    opened = client.get_open_txns()
    first = client.lock(
        hive.LockRequest(
            component=[
                hive.LockComponent(type=hive.LockType.SHARED_READ, level=hive.LockLevel.DB, dbname=FRESH_PROBE_DB)
            ],
            user="fresh",
            hostname="probe",
        )
    )
    client.unlock(hive.UnlockRequest(lockid=first.lockid))
    (txn,) = client.open_txns(hive.OpenTxnRequest(num_txns=1, user="fresh", hostname="probe")).txn_ids
    client.commit_txn(hive.CommitTxnRequest(txnid=txn))
    return {
        "txn_high_water_mark": opened.txn_high_water_mark,
        "open_txns": set(opened.open_txns),
        "min_open_txn": opened.min_open_txn,
        "first_lock_id": first.lockid,
        "first_txn_id": txn,
    }


def _peer_module():
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module("peer")


def _drop_database(url) -> None:
    conn = pymysql.connect(
        host=url.host, port=url.port or 3306, user=url.username, password=url.password or "", autocommit=True
    )
    try:
        with conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {url.database}")
    finally:
        conn.close()


@pytest.fixture(scope="session")
def hive_peer(mysql_server_url) -> Target:
    """Apache Hive Metastore 2.3.10 on a fresh MariaDB database, for the whole session."""
    require_module("pyspark")  # the peer runs from the jars of the pyspark wheel
    if shutil.which("java") is None:
        skip_or_fail("the Hive Metastore peer needs Java (java on PATH)")
    peer = _peer_module()
    try:
        peer.driver_jar()
    except SystemExit as e:
        skip_or_fail(f"the Hive Metastore peer needs the MariaDB JDBC driver: {e}")
    url = make_url(mysql_server_url).set(database=f"hms_peer_locks_{uuid.uuid4().hex[:12]}")
    started = time.monotonic()
    try:
        with peer.running_peer(db_url=url.render_as_string(hide_password=False)) as running:
            target = Target("peer", running.host, running.port, startup_s=time.monotonic() - started)
            _peer_startups.append(target.startup_s)
            client = target.client()
            try:
                target.fresh = fresh_facts(client)
            finally:
                client.close()
            yield target
    finally:
        _drop_database(url)


@pytest.fixture(scope="module", params=["ours-sqlite", "ours-mysql", "ours-postgresql", "peer"])
def hms(request, tmp_path_factory) -> Target:
    """Each server the cases run against, once per module."""
    if request.param == "peer":
        yield request.getfixturevalue("hive_peer")
        return
    work = tmp_path_factory.mktemp("locks")
    (work / "warehouse").mkdir()
    mysql = None
    postgresql = ExitStack()
    if request.param == "ours-sqlite":
        db_url = f"sqlite:///{work / 'catalog.db'}"
    elif request.param == "ours-postgresql":
        db_url = postgresql.enter_context(
            postgresql_database(
                request.getfixturevalue("postgresql_server_url"), request.getfixturevalue("postgresql_schema_template")
            )
        )
    else:
        mysql = make_url(request.getfixturevalue("mysql_server_url")).set(
            database=f"hms_test_locks_{uuid.uuid4().hex[:12]}"
        )
        admin = pymysql.connect(
            host=mysql.host,
            port=mysql.port or 3306,
            user=mysql.username,
            password=mysql.password or "",
            autocommit=True,
        )
        with admin.cursor() as cur:
            cur.execute(f"CREATE DATABASE {mysql.database} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
        admin.close()
        db_url = mysql.render_as_string(hide_password=False)
    try:
        catalog = Catalog.open(db_url, str(work / "warehouse"))
        try:
            running = RunningServer(catalog)
            try:
                yield Target(request.param, "127.0.0.1", running.port)
            finally:
                running.stop()
        finally:
            catalog.close()
    finally:
        if mysql is not None:
            _drop_database(mysql)
        postgresql.close()


@pytest.fixture
def hms_client(hms):
    """One connection to the server under test, for one test."""
    client = hms.client()
    yield client
    client.close()


def pytest_terminal_summary(terminalreporter):
    for seconds in _peer_startups:
        terminalreporter.write_line(f"tests/locks: Hive Metastore 2.3.10 peer started in {seconds:.1f} s")
