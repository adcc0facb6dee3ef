"""The highly available catalog databases of ``benchmarks/db_clusters.py``, as real processes: a three-node
MariaDB Galera cluster that loses a node and takes it back, HAProxy in front of it sending new connections to
another node when the first dies, and a PostgreSQL primary failed over to its promoted replica, reached
through one multi-host URL before and after. The tests print how long a node's rejoin and the promotion
took (``pytest -s -n0`` shows it). Outside CI a machine without the packages (that cannot install them) skips; in CI
it fails."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pymysql
import pytest
from sqlalchemy import create_engine, select, text

from benchmarks.db_clusters import GaleraCluster, HAProxy, PostgreSQLPair, ensure_packages
from hudi_catalog import config
from hudi_catalog.errors import TransientStorageError
from hudi_catalog.store import schema, sequences
from hudi_catalog.store.engine import Store, on_galera
from tests.conftest import skip_or_fail
from tests.support.servers import wait_until

DATABASE = "hms"


@pytest.fixture(scope="module")
def packages() -> None:
    problem = ensure_packages()
    if problem:
        skip_or_fail(problem)


@pytest.fixture(scope="module")
def home() -> Iterator[Path]:
    """A folder for the module's servers outside pytest's own temporary folder, which only root may enter
    (MariaDB and PostgreSQL run as users of their own)."""
    path = Path(tempfile.mkdtemp(prefix="hms-availability-"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def galera(packages, home) -> Iterator[GaleraCluster]:
    cluster = GaleraCluster(home / "galera")
    try:
        cluster.start()
        cluster.create_database(DATABASE)
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def proxy(galera, home) -> Iterator[HAProxy]:
    haproxy = HAProxy(home / "haproxy", galera.backends, balance="first")
    try:
        haproxy.start()
        yield haproxy
    finally:
        haproxy.stop()


@pytest.fixture(scope="module")
def postgresql(packages, home) -> Iterator[PostgreSQLPair]:
    pair = PostgreSQLPair(home / "postgresql")
    try:
        pair.start()
        pair.create_database(DATABASE)
        yield pair
    finally:
        pair.stop()


def _connect(port: int, *, sync_wait: bool = False) -> pymysql.Connection:
    """A connection to the Galera node (or proxy) on ``port``; ``sync_wait``: its reads first wait until the
    node has applied every write the cluster committed before (``wsrep_sync_wait=1``)."""
    connection = pymysql.connect(host="127.0.0.1", port=port, user="root", database=DATABASE, autocommit=True)
    if sync_wait:
        connection.cursor().execute("SET SESSION wsrep_sync_wait = 1")
    return connection


def _values(port: int, table: str) -> list[int]:
    """The values of ``table`` as the node on ``port`` sees them once it caught up with the cluster."""
    with _connect(port, sync_wait=True) as connection, connection.cursor() as cursor:
        cursor.execute(f"SELECT v FROM {table} ORDER BY v")
        return [v for (v,) in cursor.fetchall()]


def _insert(port: int, table: str, *values: int) -> None:
    with _connect(port) as connection, connection.cursor() as cursor:
        cursor.executemany(f"INSERT INTO {table} (v) VALUES (%s)", [(v,) for v in values])


def test_a_row_written_on_one_galera_node_is_read_on_another(galera):
    with _connect(galera.nodes[0].port) as connection, connection.cursor() as cursor:
        cursor.execute("CREATE TABLE replicated (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
    _insert(galera.nodes[0].port, "replicated", 1)
    assert _values(galera.nodes[2].port, "replicated") == [1]


def test_galera_writes_go_on_without_a_killed_node_which_rejoins_with_them(galera):
    with _connect(galera.nodes[0].port) as connection, connection.cursor() as cursor:
        cursor.execute("CREATE TABLE survivors (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
    galera.kill_node(1)
    killed = time.monotonic()
    _insert(galera.nodes[0].port, "survivors", 1, 2)  # waits until the others evict the dead node
    _insert(galera.nodes[2].port, "survivors", 3, 4)
    print(f"\nGalera: writes went on {time.monotonic() - killed:.1f} s after node1 was killed")
    assert galera.cluster_size() == 2

    started = time.monotonic()
    galera.start_node(1)
    print(f"Galera: node1 rejoined, synced, in {time.monotonic() - started:.1f} s")
    assert galera.cluster_size() == 3
    assert _values(galera.nodes[1].port, "survivors") == [1, 2, 3, 4]


def test_get_lock_is_local_to_a_galera_node(galera):
    """``GET_LOCK`` answers on a Galera node (MariaDB 10.11), but the lock is the node's alone: a session on
    another node takes the same lock at once. A named lock (the catalog schema's, ``Store._init_lock``)
    serialises only the servers that reach the same node."""
    with _connect(galera.nodes[0].port) as first, _connect(galera.nodes[2].port) as second:
        with first.cursor() as cursor:
            cursor.execute("SELECT GET_LOCK('hms_lock', 1)")
            assert cursor.fetchone() == (1,)
        with second.cursor() as cursor:
            cursor.execute("SELECT GET_LOCK('hms_lock', 1)")
            assert cursor.fetchone() == (1,)


_LOCK_ROW_ONLY = select(schema.id_sequence.c.next_value).where(schema.id_sequence.c.name == "lock").with_for_update()


@pytest.fixture
def galera_stores(galera) -> Iterator[tuple[Store, Store]]:
    """Catalog stores of one new catalog database, on node 0 and on node 2, the schema made through both at
    once (each node's named lock is its own: one of them finds the other's tables and reads again)."""
    name = f"hms_{uuid.uuid4().hex[:8]}"
    galera.create_database(name)
    stores = (Store(galera.node_url(0, name)), Store(galera.node_url(2, name)))
    try:
        with ThreadPoolExecutor(2) as pool:
            found = list(pool.map(lambda store: store.init_schema()[0], stores))
        assert None in found, found  # one of them created it
        yield stores
    finally:
        for store in stores:
            store.dispose()


def test_a_catalog_store_on_galera_reads_what_another_node_just_committed(galera_stores):
    first, second = galera_stores
    with first.read() as conn:
        assert on_galera(conn)
        assert conn.exec_driver_sql("SELECT @@SESSION.wsrep_sync_wait").scalar() == config.GALERA_SYNC_WAIT
    for _ in range(100):
        with first.write() as conn:
            taken = sequences.take(conn, "lock")
        with second.read() as conn:
            assert sequences.current(conn, "lock") == taken + 1


def test_the_lock_mutex_holds_across_galera_nodes(galera_stores):
    """Two nodes' holders of the lock mutex: a row lock alone holds on its own node (both commit), so the
    mutex writes its row, and the second to commit is refused, as transient (it applied nothing)."""
    first, second = galera_stores
    with first.read() as conn:
        before = sequences.current(conn, "lock")
    with first.write() as one, second.write() as other:
        for conn in (one, other):  # the row lock alone: no conflict across nodes
            conn.execute(_LOCK_ROW_ONLY)
    with pytest.raises(TransientStorageError):
        with first.write() as one:
            sequences.lock_counter(one, "lock")
            with second.write() as other:
                sequences.lock_counter(other, "lock")
    with first.read() as conn:
        assert sequences.current(conn, "lock") == before  # the mutex moves its counter up and back


def _proxied_port(proxy: HAProxy) -> int | None:
    """The port of the node a new connection through ``proxy`` lands on; None when it cannot connect."""
    try:
        with _connect(proxy.port) as connection, connection.cursor() as cursor:
            cursor.execute("SELECT @@port")
            return cursor.fetchone()[0]
    except pymysql.err.OperationalError:
        return None


def test_haproxy_sends_new_connections_to_another_node_when_the_first_dies(galera, proxy):
    ports = [node.port for node in galera.nodes]
    assert _proxied_port(proxy) == ports[0]
    with _connect(proxy.port) as held:
        galera.kill_node(0)
        wait_until(lambda: _proxied_port(proxy) in ports[1:], "a connection through HAProxy to another node")
        with pytest.raises(pymysql.err.OperationalError), held.cursor() as cursor:
            cursor.execute("SELECT 1")


def test_postgresql_multi_host_url_follows_the_promoted_replica(postgresql):
    url = postgresql.url(DATABASE)
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            assert connection.execute(text("SELECT inet_server_port()")).scalar() == postgresql.primary.port
            connection.execute(text("CREATE TABLE failover (v int)"))
            connection.execute(text("INSERT INTO failover VALUES (1)"))
    finally:
        engine.dispose()
    postgresql.wait_for_replica()
    with (
        pytest.raises(psycopg.errors.ReadOnlySqlTransaction),
        psycopg.connect(host="127.0.0.1", port=postgresql.replica.port, user="postgres", dbname=DATABASE) as replica,
    ):
        replica.execute("INSERT INTO failover VALUES (0)")

    postgresql.kill_primary()
    started = time.monotonic()
    postgresql.promote_replica()
    print(f"\nPostgreSQL: the replica was promoted in {time.monotonic() - started:.2f} s")

    engine = create_engine(url)  # the same URL, a new connection
    try:
        with engine.begin() as connection:
            assert connection.execute(text("SELECT inet_server_port()")).scalar() == postgresql.replica.port
            connection.execute(text("INSERT INTO failover VALUES (2)"))
            assert connection.execute(text("SELECT v FROM failover ORDER BY v")).scalars().all() == [1, 2]
    finally:
        engine.dispose()
