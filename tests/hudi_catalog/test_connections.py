"""Connections to a database server (MariaDB, PostgreSQL): a pooled connection the server closed while it sat
idle is replaced, not handed out (through either MySQL driver); a transaction the server ended, or lost to another in a deadlock, fails
with a transient error (so the call may run again); a write transaction left idle is ended by the server, so
its row locks do not outlive a client that was cut off."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url

from hudi_catalog import Catalog, config
from hudi_catalog.errors import StorageError, TransientStorageError
from hudi_catalog.model import Database
from hudi_catalog.store import schema
from hudi_catalog.store.engine import Store

_CONNECTION_ID = {"mysql": "SELECT CONNECTION_ID()", "postgresql": "SELECT pg_backend_pid()"}
_KILL = {"mysql": "KILL CONNECTION {}", "postgresql": "SELECT pg_terminate_backend({})"}


@pytest.fixture(params=["mysql", "mysql+pymysql", "postgresql"])
def server_db_url(request) -> str:
    """An empty database on each server store, on MariaDB through its default driver and through PyMySQL."""
    store, _, driver = request.param.partition("+")
    url = request.getfixturevalue(f"{store}_db_url")
    if driver:
        url = make_url(url).set(drivername=request.param).render_as_string(hide_password=False)
    return url


def _store_kind(store: Store) -> str:
    return "postgresql" if store.dialect == "postgresql" else "mysql"


def _connection_id(store: Store) -> int:
    with store.read() as conn:
        return conn.exec_driver_sql(_CONNECTION_ID[_store_kind(store)]).scalar_one()


def _kill(url: str, connection_id: int) -> None:
    admin = Store(url)
    try:
        with admin.write() as conn:
            conn.exec_driver_sql(_KILL[_store_kind(admin)].format(int(connection_id)))
    finally:
        admin.dispose()


def test_idle_connection_killed_by_the_server_is_replaced(server_db_url):
    store = Store(server_db_url, ping_after_idle=0.0)
    first = _connection_id(store)
    _kill(server_db_url, first)
    assert _connection_id(store) != first
    store.dispose()


def test_busy_connection_is_not_pinged(server_db_url):
    """Within the idle time the pool trusts the connection: a kill shows as an error of that call only."""
    store = Store(server_db_url, ping_after_idle=3600.0)
    first = _connection_id(store)
    _kill(server_db_url, first)
    with pytest.raises(StorageError):
        _connection_id(store)
    assert _connection_id(store) != first
    store.dispose()


def test_a_transaction_whose_connection_the_server_ended_fails_as_transient(server_db_url):
    store = Store(server_db_url)
    try:
        with pytest.raises(TransientStorageError):
            with store.read() as conn:
                _kill(server_db_url, conn.exec_driver_sql(_CONNECTION_ID[_store_kind(store)]).scalar_one())
                conn.exec_driver_sql("SELECT 1")
    finally:
        store.dispose()


def _lock_row(store: Store, name: str):
    """A statement locking the ``db`` row of database ``name`` (found by its key: on MariaDB a lookup by name
    would lock every row it scans)."""
    with store.read() as conn:
        db_id = conn.execute(select(schema.db.c.db_id).where(schema.db.c.name == name)).scalar_one()
    return select(schema.db.c.db_id).where(schema.db.c.db_id == db_id).with_for_update()


def test_the_loser_of_a_deadlock_fails_as_transient(server_db_url, tmp_path):
    catalog = Catalog.open(server_db_url, str(tmp_path))
    catalog.databases.create(Database("one"))
    catalog.databases.create(Database("two"))
    catalog.close()
    stores = [Store(server_db_url), Store(server_db_url)]
    barrier = threading.Barrier(2)
    outcomes: list[Exception | None] = []

    def lock_both(store: Store, first: str, second: str) -> None:
        try:
            with store.write() as conn:
                conn.execute(_lock_row(store, first))
                barrier.wait(30)  # both hold their first row: each now waits for the other's
                conn.execute(_lock_row(store, second))
            outcomes.append(None)
        except Exception as error:  # collected: the assertion below shows it
            outcomes.append(error)

    threads = [
        threading.Thread(target=lock_both, args=(stores[0], "one", "two")),
        threading.Thread(target=lock_both, args=(stores[1], "two", "one")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for store in stores:
        store.dispose()
    assert sorted(type(o).__name__ for o in outcomes) == ["NoneType", "TransientStorageError"], outcomes


@pytest.mark.parametrize("writes", [True, False], ids=["a-write", "a-locking-read"])
def test_a_transaction_left_idle_is_ended_by_the_server(server_db_url, tmp_path, monkeypatch, writes):
    """A client cut off in the middle of a transaction (one that wrote, or one that only locked a row, as the
    lock mutex does): the server ends it after the idle bound, so the row it locked is free again; the
    cut-off transaction does not commit."""
    monkeypatch.setattr(config, "IDLE_TRANSACTION_SECONDS", 1)
    catalog = Catalog.open(server_db_url, str(tmp_path))
    catalog.databases.create(Database("locked"))
    catalog.close()
    idle, other = Store(server_db_url), Store(server_db_url)
    waited = None
    try:
        with pytest.raises(StorageError):
            with idle.write() as conn:
                locked = conn.execute(_lock_row(idle, "locked")).scalar_one()
                if writes:
                    conn.execute(schema.db.update().where(schema.db.c.db_id == locked).values(description="lost"))
                started = time.monotonic()
                with other.write() as other_conn:  # waits for the row until the server ends the idle one
                    other_conn.execute(_lock_row(other, "locked"))
                # it waited for the row until the server ended the idle one (the next statement says it did);
                # how much longer than the idle bound a busy machine takes is no matter
                waited = time.monotonic() - started
                conn.exec_driver_sql("SELECT 1")  # the server has ended this transaction
        assert (
            waited is not None and waited > 0.5
        )  # the other got the row (had it given up waiting, there would be no figure)
        with other.read() as conn:
            assert conn.execute(select(schema.db.c.description).where(schema.db.c.name == "locked")).scalar() is None
    finally:
        idle.dispose()
        other.dispose()
