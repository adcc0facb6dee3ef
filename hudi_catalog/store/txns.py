"""Queries on ``hive_txn`` (transactions) and the write ids of ``next_write_id`` / ``txn_write_id``."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, NamedTuple

from sqlalchemy import Connection, Delete, Table, bindparam, delete, func, insert, select, update
from sqlalchemy.sql.base import ReadOnlyColumnCollection

from ..locks.model import TxnInfo, TxnState
from . import schema
from .driver_sql import DriverStatement

_t = schema.hive_txn.c
_n = schema.next_write_id.c
_w = schema.txn_write_id.c
_WRITE_ID_TABLES = ((schema.next_write_id, _n), (schema.txn_write_id, _w))
"""The tables of write ids, keyed by database and table name, with their columns."""
BATCH = 1000

OPEN, ABORTED, COMMITTED = "o", "a", "c"
STATES = {OPEN: TxnState.OPEN, ABORTED: TxnState.ABORTED, COMMITTED: TxnState.COMMITTED}


def insert_open(
    conn: Connection,
    first_id: int,
    count: int,
    user: str,
    host: str,
    agent_info: str | None,
    txn_type: int,
    now_ms: int,
) -> list[int]:
    ids = list(range(first_id, first_id + count))
    rows = [
        {
            "txn_id": txn_id,
            "state": OPEN,
            "started_ms": now_ms,
            "last_heartbeat_ms": now_ms,
            "heartbeat_count": 0,
            "user_name": user,
            "host_name": host,
            "agent_info": agent_info,
            "txn_type": txn_type,
            "has_writes": False,
        }
        for txn_id in ids
    ]
    for start in range(0, len(rows), BATCH):
        conn.execute(insert(schema.hive_txn), rows[start : start + BATCH])
    return ids


def state_of(conn: Connection, txn_id: int, lock: bool = False) -> str | None:
    """``o``, ``a``, ``c`` or None for an unknown transaction; with ``lock``, the row stays locked."""
    query = select(_t.state).where(_t.txn_id == txn_id)
    return conn.execute(query.with_for_update() if lock else query).scalar()


def is_timed_out(conn: Connection, txn_id: int, cutoff_ms: int) -> bool:
    """Whether the transaction is open but was last heartbeated before ``cutoff_ms``."""
    return (
        conn.execute(
            select(_t.txn_id).where(_t.txn_id == txn_id, _t.state == OPEN, _t.last_heartbeat_ms < cutoff_ms)
        ).first()
        is not None
    )


def set_state(conn: Connection, txn_ids: Sequence[int], state: str, now_ms: int) -> None:
    """Move the transactions to ``state``; the time is kept as their last heartbeat."""
    for start in range(0, len(txn_ids), BATCH):
        conn.execute(
            update(schema.hive_txn)
            .where(_t.txn_id.in_(txn_ids[start : start + BATCH]))
            .values(state=state, last_heartbeat_ms=now_ms)
        )


def mark_writing(conn: Connection, txn_id: int) -> None:
    conn.execute(update(schema.hive_txn).where(_t.txn_id == txn_id, ~_t.has_writes).values(has_writes=True))


def heartbeat(conn: Connection, first: int, last: int, now_ms: int, expired_before_ms: int) -> set[int]:
    """Record a heartbeat of the open, live transactions with ids ``first..last``; returns their ids."""
    live = (_t.txn_id.between(first, last), _t.state == OPEN, _t.last_heartbeat_ms >= expired_before_ms)
    alive = set(conn.execute(select(_t.txn_id).where(*live)).scalars())
    if alive:
        conn.execute(
            update(schema.hive_txn)
            .where(*live)
            .values(last_heartbeat_ms=now_ms, heartbeat_count=_t.heartbeat_count + 1)
        )
    return alive


def states_of(conn: Connection, txn_ids: Sequence[int], lock: bool = False) -> dict[int, str]:
    """``{txn id: state}`` of the known ones; with ``lock``, their rows stay locked (in id order)."""
    states: dict[int, str] = {}
    ordered = sorted(set(txn_ids))
    for start in range(0, len(ordered), BATCH):
        query = select(_t.txn_id, _t.state).where(_t.txn_id.in_(ordered[start : start + BATCH]))
        states.update((r.txn_id, r.state) for r in conn.execute(query.with_for_update() if lock else query))
    return states


def states_between(conn: Connection, first: int, last: int) -> dict[int, str]:
    return {r.txn_id: r.state for r in conn.execute(select(_t.txn_id, _t.state).where(_t.txn_id.between(first, last)))}


def timed_out(conn: Connection, expired_before_ms: int) -> list[int]:
    """Open transactions whose last heartbeat is older than ``expired_before_ms``."""
    return list(
        conn.execute(select(_t.txn_id).where(_t.state == OPEN, _t.last_heartbeat_ms < expired_before_ms)).scalars()
    )


def delete_finished(conn: Connection, finished_before_ms: int) -> int:
    """Forget committed transactions, and aborted ones that wrote nothing, finished before the time."""
    return conn.execute(
        delete(schema.hive_txn).where(
            _t.last_heartbeat_ms < finished_before_ms,
            (_t.state == COMMITTED) | ((_t.state == ABORTED) & ~_t.has_writes),
        )
    ).rowcount


def not_committed(conn: Connection) -> list[TxnInfo]:
    """Open and aborted transactions, by id."""
    return [
        TxnInfo(
            txn_id=r.txn_id,
            state=STATES[r.state],
            user=r.user_name,
            host=r.host_name,
            agent_info=r.agent_info,
            heartbeat_count=r.heartbeat_count,
            started_ms=r.started_ms,
            last_heartbeat_ms=r.last_heartbeat_ms,
        )
        for r in conn.execute(select(schema.hive_txn).where(_t.state.in_((OPEN, ABORTED))).order_by(_t.txn_id))
    ]


# -- write ids ---------------------------------------------------------------------------------------------


def write_ids_of(conn: Connection, database: str, table: str, txn_ids: Sequence[int]) -> dict[int, int]:
    """``{txn id: write id}`` for those of the transactions that already have one in the table."""
    return {
        r.txn_id: r.write_id
        for r in conn.execute(
            select(_w.txn_id, _w.write_id).where(_w.db_name == database, _w.tbl_name == table, _w.txn_id.in_(txn_ids))
        )
    }


def take_write_ids(conn: Connection, database: str, table: str, count: int) -> int:
    """Reserve ``count`` write ids of the table; returns the first (the first ever is 1)."""
    key = (_n.db_name == database) & (_n.tbl_name == table)
    first = conn.execute(select(_n.next_value).where(key).with_for_update()).scalar()
    if first is None:
        first = 1
        conn.execute(insert(schema.next_write_id).values(db_name=database, tbl_name=table, next_value=1 + count))
    else:
        conn.execute(update(schema.next_write_id).where(key).values(next_value=first + count))
    return first


def insert_write_ids(conn: Connection, database: str, table: str, pairs: Sequence[tuple[int, int]]) -> None:
    if pairs:
        conn.execute(
            insert(schema.txn_write_id),
            [
                {"db_name": database, "tbl_name": table, "txn_id": txn_id, "write_id": write_id}
                for txn_id, write_id in pairs
            ],
        )


def highest_write_id(conn: Connection, database: str, table: str, txn_high_water_mark: int) -> int:
    """The highest write id handed to a transaction up to ``txn_high_water_mark`` (0 for none)."""
    return conn.execute(
        select(func.coalesce(func.max(_w.write_id), 0)).where(
            _w.db_name == database, _w.tbl_name == table, _w.txn_id <= txn_high_water_mark
        )
    ).scalar_one()


class WriteIdRecord(NamedTuple):
    """A write id of a table and the transaction it was handed to."""

    txn_id: int
    write_id: int


def write_ids_up_to(conn: Connection, database: str, table: str, high_water_mark: int) -> list[WriteIdRecord]:
    """The write ids of the table up to ``high_water_mark``, by write id."""
    query = (
        select(_w.txn_id, _w.write_id)
        .where(_w.db_name == database, _w.tbl_name == table, _w.write_id <= high_water_mark)
        .order_by(_w.write_id)
    )
    return [WriteIdRecord._make(row) for row in conn.execute(query)]


def rename_table(conn: Connection, database: str, table: str, new_database: str, new_table: str) -> None:
    """Write ids follow a renamed table, as Hive's do."""
    for t, c in _WRITE_ID_TABLES:
        conn.execute(
            update(t).where(c.db_name == database, c.tbl_name == table).values(db_name=new_database, tbl_name=new_table)
        )


def delete_table(conn: Connection, database: str, table: str) -> None:
    """A dropped table's write ids go with it (a new table of that name starts again at 1)."""
    for t, c in _WRITE_ID_TABLES:
        conn.execute(delete(t).where(c.db_name == database, c.tbl_name == table))


def delete_database(conn: Connection, database: str, kept_tables: Collection[str] = ()) -> None:
    """A dropped database's write ids go with it, as Hive's drop cleans them up: those of its tables, and those
    allocated for names that never became a table (a write id may be taken before its table is created).
    ``kept_tables`` keep theirs: write ids are keyed by database and table name only, as in Hive, so a table
    of that name in a database of that name in another catalog shares them."""
    kept = sorted(set(kept_tables))
    if not kept:  # the usual case: no table of the name elsewhere
        for statement in _DELETE_DATABASE_WRITE_IDS:
            statement.execute(conn, {"db_name": database})
        return
    for t, c in _WRITE_ID_TABLES:
        conn.execute(_delete_write_ids(t, c, kept), {"db_name": database})


def _delete_write_ids(table: Table, columns: ReadOnlyColumnCollection[str, Any], kept: Sequence[str]) -> Delete:
    """Delete the write ids of the database ``db_name`` (a bound parameter) but those of the ``kept`` tables."""
    query = delete(table).where(columns.db_name == bindparam("db_name"))
    for start in range(0, len(kept), BATCH):
        query = query.where(columns.tbl_name.not_in(kept[start : start + BATCH]))
    return query


_DELETE_DATABASE_WRITE_IDS = tuple(DriverStatement(_delete_write_ids(t, c, ())) for t, c in _WRITE_ID_TABLES)
