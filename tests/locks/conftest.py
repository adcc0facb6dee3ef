"""Fixtures for the lock and transaction tests (and the role and grant calls compared with Hive): the
servers to compare, and a client of each.

``hms`` is every server the cases run against, one per module and variant: ours on SQLite, ours on
MariaDB, ours on PostgreSQL, and the two references (``benchmarks/peer.py``), each on a MariaDB database of
its own, started once per test session and dropped afterwards: Apache Hive Metastore 2.3.10 (``hive_peer``,
the jars of the pyspark wheel) and 4.0.1 (``hive4_peer``, assembled by ``benchmarks/hive4.py``). Ours is served
per module rather than per test (the ``server`` fixture): the lock cases are a few milliseconds each, a
fresh MariaDB catalog per case half a second. Each case works on database names of its own, so cases
sharing a server cannot see each other's locks.

The peers need Java, the MariaDB JDBC driver (``benchmarks/install_peer_deps.sh``) and the MariaDB server of
the tests (2.3.10 also pyspark, 4.0.1 Maven to assemble it once per machine): without one of them their cases
are skipped, or fail in CI (``CI=true``).
"""

from __future__ import annotations

import importlib
import shutil
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
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


HIVE_2_3, HIVE_4 = "2.3.10", "4.0.1"
PEERS = {HIVE_2_3: "peer", HIVE_4: "peer4"}
"""The name of each reference's target, by Hive Metastore version."""


@dataclass
class Target:
    """A server under test: ``name`` is ``ours-sqlite``, ``ours-mysql``, ``ours-postgresql``, or a reference
    (``PEERS``: ``peer``, ``peer4``), whose ``version`` is Hive Metastore's (``None`` for ours)."""

    name: str
    host: str
    port: int
    version: str | None = None
    startup_s: float = 0.0
    fresh: dict = field(default_factory=dict)

    @property
    def is_peer(self) -> bool:
        return self.version is not None

    def client(self):
        return make_client(hive.ThriftHiveMetastore, self.host, self.port, timeout=60_000)


_peer_startups: list[tuple[str, float]] = []


def open_txns(client, version: str | None):
    """``get_open_txns``' answer. Hive 4 sends its ``open_txns`` as a ``list`` where Hive 2.3's IDL (the
    client's) reads a ``set``, and so skips it; its ``get_open_txns_req`` answers the same in a layout the
    client reads (this server sends both types, docs/compatibility.md). Hive 4 fails on a request without
    ``excludeTxnTypes`` (a NullPointerException, once a transaction is open), so an empty list is sent."""
    if version == HIVE_4:
        return client.get_open_txns_req(hive.GetOpenTxnsRequest(excludeTxnTypes=[]))
    return client.get_open_txns()


def fresh_facts(client, version: str | None = None) -> dict:
    """What a server that nobody used yet answers: get_open_txns, then the ids of its first lock and its
    first transaction (both released again: the lock unlocked, the transaction committed)."""
    opened = open_txns(client, version)
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


@contextmanager
def _peer_target(mysql_server_url: str, version: str) -> Iterator[Target]:
    """Hive Metastore ``version`` on a fresh MariaDB database (dropped afterwards), with its ``fresh`` facts."""
    if shutil.which("java") is None:
        skip_or_fail("the Hive Metastore peer needs Java (java on PATH)")
    peer = _peer_module()
    try:
        peer.driver_jar()
    except SystemExit as e:
        skip_or_fail(f"the Hive Metastore peer needs the MariaDB JDBC driver: {e}")
    engines = importlib.import_module("engines")  # on the path through _peer_module
    url = make_url(mysql_server_url).set(database=f"hms_peer_locks_{uuid.uuid4().hex[:12]}")
    started = time.monotonic()
    try:
        with peer.running_peer(db_url=url.render_as_string(hide_password=False), version=version) as running:
            target = Target(PEERS[version], running.host, running.port, version, time.monotonic() - started)
            _peer_startups.append((version, target.startup_s))
            client = target.client()
            try:
                target.fresh = fresh_facts(client, version)
            finally:
                client.close()
            yield target
    except engines.EngineUnavailable as error:
        skip_or_fail(f"Hive Metastore {version} cannot run here: {error}")
    finally:
        _drop_database(url)


@pytest.fixture(scope="session")
def hive_peer(mysql_server_url) -> Iterator[Target]:
    """Apache Hive Metastore 2.3.10 on a fresh MariaDB database, for the whole session."""
    require_module("pyspark")  # the peer runs from the jars of the pyspark wheel
    with _peer_target(mysql_server_url, HIVE_2_3) as target:
        yield target


@pytest.fixture(scope="session")
def hive4_peer(mysql_server_url) -> Iterator[Target]:
    """Apache Hive Metastore 4.0.1 on a fresh MariaDB database, for the whole session."""
    with _peer_target(mysql_server_url, HIVE_4) as target:
        yield target


@pytest.fixture(scope="module", params=["ours-sqlite", "ours-mysql", "ours-postgresql", *PEERS.values()])
def hms(request, tmp_path_factory) -> Iterator[Target]:
    """Each server the cases run against, once per module."""
    if request.param in PEERS.values():
        yield request.getfixturevalue("hive_peer" if request.param == PEERS[HIVE_2_3] else "hive4_peer")
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
    for version, seconds in _peer_startups:
        terminalreporter.write_line(f"tests/locks: Hive Metastore {version} peer started in {seconds:.1f} s")
