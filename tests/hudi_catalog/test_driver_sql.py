"""Statements on the driver's cursor (``store.driver_sql``), on every store: rows by label, rows matched
(not only changed) by an UPDATE, the store's error classification for driver errors, a lost connection
replaced, reads without SQLAlchemy's connection (``Store.driver_read``), and refusal of what only
SQLAlchemy's execution can run."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

import pytest
from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Integer,
    MetaData,
    Table,
    bindparam,
    delete,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.pool import Pool

from hudi_catalog import Catalog
from hudi_catalog.errors import AlreadyExistsError, TransientStorageError, ValueTooLongError
from hudi_catalog.locks.model import LockComponent, LockRequest, LockTarget, LockType
from hudi_catalog.store import databases as db_store
from hudi_catalog.store import locations as location_store
from hudi_catalog.store import locks as lock_store
from hudi_catalog.store import schema
from hudi_catalog.store import tables as table_store
from hudi_catalog.store.driver_sql import DriverStatement
from hudi_catalog.store.engine import Store

_l = schema.hive_lock.c
_INSERT = DriverStatement(insert(schema.hive_lock))
_STATE_QUERY = select(_l.lock_id, _l.state, (_l.component * 10).label("tenfold")).where(
    _l.lock_id == bindparam("lock_id")
)
_STATE = DriverStatement(_STATE_QUERY)
_TOUCH = DriverStatement(update(schema.hive_lock).where(_l.lock_id == bindparam("lock_id")).values(state=1))
_CONNECTION_ID = {"mysql": "SELECT CONNECTION_ID()", "postgresql": "SELECT pg_backend_pid()"}
_KILL = {"mysql": "KILL CONNECTION {}", "postgresql": "SELECT pg_terminate_backend({})"}


@pytest.fixture
def store(db_url):
    store = Store(db_url)
    store.init_schema()
    yield store
    store.dispose()


def _row(lock_id: int, component: int = 1, **values) -> dict:
    return {
        "lock_id": lock_id,
        "component": component,
        "txn_id": 0,
        "db_name": "d",
        "tbl_name": "t",
        "part_name": None,
        "state": 1,
        "lock_type": 3,
        "last_heartbeat_ms": 5,
        "acquired_at_ms": 5,
        "heartbeat_count": 0,
        "user_name": "u",
        "host_name": "h",
        "agent_info": None,
        "blocked_by_lock": None,
        "blocked_by_component": None,
        **values,
    }


@contextmanager
def _written_elsewhere(db_url: str) -> Iterator[Connection]:
    """A write transaction of another store on the same database (another server process's)."""
    other = Store(db_url)
    try:
        with other.write() as conn:
            yield conn
    finally:
        other.dispose()


def test_rows_come_back_by_label_and_an_update_counts_the_rows_it_matched(store):
    with store.write() as conn:
        _INSERT.execute_many(conn, [_row(7, 1), _row(7, 2)])
    with store.write() as conn:
        rows = _STATE.execute(conn, {"lock_id": 7}).rows
        # state is already 1: MySQL counts such rows only as matched, and callers test "found" by the count
        touched = _TOUCH.execute(conn, {"lock_id": 7}).rowcount
    assert sorted((r.lock_id, r.state, r.tenfold) for r in rows) == [(7, 1, 10), (7, 1, 20)]
    assert touched == 2


class _State(NamedTuple):
    lock_id: int
    state: int
    tenfold: int


def test_rows_come_back_as_the_statements_record_whose_fields_must_be_its_labels(store):
    with store.write() as conn:
        _INSERT.execute(conn, _row(6))
        assert DriverStatement(_STATE_QUERY, _State).execute(conn, {"lock_id": 6}).rows == [_State(6, 1, 10)]
        swapped = DriverStatement(_STATE_QUERY.with_only_columns(_l.state, _l.lock_id, _l.component), _State)
        with pytest.raises(ValueError, match="_State"):
            swapped.execute(conn, {"lock_id": 6})


def test_a_driver_error_is_classified_as_the_store_classifies_it(store):
    with store.write() as conn:
        _INSERT.execute(conn, _row(8))
    with pytest.raises(AlreadyExistsError):
        with store.write() as conn:
            _INSERT.execute(conn, _row(9))
            _INSERT.execute(conn, _row(8))
    with store.read() as conn:  # the failed transaction left nothing behind
        assert _STATE.execute(conn, {"lock_id": 9}).rows == []


def test_a_lock_checks_the_widths_of_its_values(store):
    too_long = LockRequest([LockComponent(LockType.EXCLUSIVE, LockTarget("d", "t" * 300))], "u", "h")
    with pytest.raises(ValueTooLongError):
        with store.write() as conn:
            lock_store.insert_lock(conn, 1, too_long, 0, lock_store.Decision(granted=True))


def test_a_lost_connection_fails_as_transient_and_is_replaced(store, db_url):
    if store.dialect == "sqlite":
        pytest.skip("an embedded SQLite database has no connection to lose")
    kind = "postgresql" if store.dialect == "postgresql" else "mysql"
    with pytest.raises(TransientStorageError):
        with store.read() as conn:
            victim = conn.exec_driver_sql(_CONNECTION_ID[kind]).scalar_one()
            with _written_elsewhere(db_url) as admin:
                admin.exec_driver_sql(_KILL[kind].format(int(victim)))
            _STATE.execute(conn, {"lock_id": 1})
    with store.read() as conn:
        assert conn.exec_driver_sql(_CONNECTION_ID[kind]).scalar_one() != victim
        assert _STATE.execute(conn, {"lock_id": 1}).rows == []


def test_a_driver_read_runs_without_sqlalchemys_connection_and_leaves_no_snapshot_behind(store, db_url):
    with store.write() as conn:
        _INSERT.execute(conn, _row(10))
    with pytest.raises(LookupError):  # a read that fails after its statement (the catalog's NoSuch errors)
        with store.driver_read() as conn:
            assert _STATE.execute(conn, {"lock_id": 10}).rows != []
            raise LookupError("not the row it wanted")
    with _written_elsewhere(db_url) as conn:
        _INSERT.execute(conn, _row(11))
    # every pooled connection in turn (the pool hands them out first in, first out): a snapshot kept from the
    # failed read (MySQL's REPEATABLE READ) would hide the row committed since
    pool = _driver_read_pool(store)
    for _ in range(pool.checkedin()):
        with store.driver_read() as conn:
            assert [r.lock_id for r in _STATE.execute(conn, {"lock_id": 11}).rows] == [11]
    assert pool.checkedout() == 0


def _driver_read_pool(store: Store) -> Pool:
    """The pool ``driver_read`` takes its connections from: the autocommit twin's, but on SQLite."""
    return (store.statement_engine or store.engine).pool


def test_a_driver_read_on_a_server_store_is_one_statement_without_a_transaction(store, db_url):
    if store.dialect == "sqlite":
        pytest.skip("an embedded SQLite store has no second pool: its commit is no round trip")
    kind = "postgresql" if store.dialect == "postgresql" else "mysql"
    # PostgreSQL: a transaction begun before the statement (psycopg's BEGIN) began before it; MySQL: the
    # session's mode, in which a statement ends its own transaction
    alone = {"mysql": "SELECT @@autocommit = 1 AS alone", "postgresql": "SELECT now() = statement_timestamp() AS alone"}
    with store.driver_read() as conn:
        assert DriverStatement(text(alone[kind])).execute(conn, {}).rows[0].alone
        with pytest.raises(RuntimeError, match="one statement"):
            _STATE.execute(conn, {"lock_id": 1})
    assert _driver_read_pool(store).checkedout() == 0


def test_a_lost_connection_in_a_driver_read_fails_as_transient_and_is_replaced(store, db_url):
    if store.dialect == "sqlite":
        pytest.skip("an embedded SQLite database has no connection to lose")
    kind = "postgresql" if store.dialect == "postgresql" else "mysql"
    connection_id = DriverStatement(text(f"{_CONNECTION_ID[kind]} AS id"))
    with store.driver_read() as conn:
        victim = connection_id.execute(conn, {}).rows[0].id
    assert _driver_read_pool(store).checkedin() == 1  # the next read takes the same connection
    with _written_elsewhere(db_url) as admin:
        admin.exec_driver_sql(_KILL[kind].format(int(victim)))
    with pytest.raises(TransientStorageError):
        with store.driver_read() as conn:
            _STATE.execute(conn, {"lock_id": 1})
    with store.driver_read() as conn:
        assert connection_id.execute(conn, {}).rows[0].id != victim


def test_what_needs_sqlalchemys_execution_is_refused(store):
    flags = Table("flags", MetaData(), Column("id", Integer, primary_key=True), Column("on", Boolean))
    expanding = DriverStatement(delete(schema.hive_lock).where(_l.lock_id.in_(bindparam("ids", expanding=True))))
    with store.read() as conn:
        with pytest.raises(ValueError, match="expanding"):
            expanding.execute(conn, {"ids": [1, 2]})
        if store.dialect == "sqlite":  # SQLite stores booleans as integers: SQLAlchemy converts them
            with pytest.raises(ValueError, match="bind processor"):
                DriverStatement(insert(flags)).execute(conn, {"id": 1, "on": True})


def test_a_catalog_compiles_its_statements_at_start_and_leaves_the_refused_to_fail_where_used(db_url, warehouse):
    """``Catalog.compile_statements`` (what ``serve`` runs before it forks its workers): every statement of the
    store modules, and the directory checks of up to eight spellings, compiled for the catalog's dialect; a
    statement the dialect refuses is skipped, to fail where it is used with the same error."""
    refused = DriverStatement(delete(schema.hive_lock).where(_l.lock_id.in_(bindparam("ids", expanding=True))))
    catalog = Catalog.open(db_url, str(warehouse))
    try:
        dialect = catalog.store.engine.dialect
        catalog.compile_statements()
        checks = [location_store._batch_statement(size) for size in (1, 2, 4, 8)]
        for statement in [*checks, _STATE, table_store._TABLE_REVISION, db_store._DATABASE_REVISION]:
            assert dialect.name in statement._by_dialect
        assert dialect.name not in refused._by_dialect
        with catalog.store.read() as conn:
            with pytest.raises(ValueError, match="expanding"):
                refused.execute(conn, {"ids": [1, 2]})
            # the compiled directory check answers as before: the warehouse holds the default database
            assert location_store.claimed(conn, [([f"file:{warehouse}"], location_store.Spared())]) == [True]
    finally:
        catalog.close()
