"""Queries on ``hive_lock``: one row per component of a lock, keyed ``(lock_id, component)``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import Connection, Row, delete, insert, select, update

from ..locks.model import HeldLock, LockRequest, LockState, LockTarget, LockType
from . import schema

_l = schema.hive_lock.c
BATCH = 1000


def insert_lock(conn: Connection, lock_id: int, request: LockRequest, now_ms: int) -> None:
    """The request's components as ``WAITING`` rows of lock ``lock_id`` (positions from 1)."""
    rows = [
        {
            "lock_id": lock_id, "component": position, "txn_id": request.txn_id,
            "db_name": c.target.database, "tbl_name": c.target.table, "part_name": c.target.partition,
            "state": int(LockState.WAITING), "lock_type": int(c.type),
            # a lock inside a transaction lives as long as the transaction: Hive records no heartbeat for it
            "last_heartbeat_ms": 0 if request.txn_id else now_ms,
            "heartbeat_count": 0, "user_name": request.user, "host_name": request.host,
            "agent_info": request.agent_info,
        }
        for position, c in enumerate(request.components, start=1)
    ]
    for start in range(0, len(rows), BATCH):
        conn.execute(insert(schema.hive_lock), rows[start : start + BATCH])


def rows_of(conn: Connection, lock_id: int) -> list[Row]:
    return conn.execute(
        select(schema.hive_lock).where(_l.lock_id == lock_id).order_by(_l.component)
    ).all()


def rows_in_databases(conn: Connection, databases: Iterable[str], except_lock: int) -> list[Row]:
    """Every other lock's components in ``databases``, in arrival order."""
    return conn.execute(
        select(_l.lock_id, _l.component, _l.txn_id, _l.db_name, _l.tbl_name, _l.part_name, _l.state,
               _l.lock_type)
        .where(_l.db_name.in_(sorted(set(databases))), _l.lock_id != except_lock)
        .order_by(_l.lock_id, _l.component)
    ).all()


def acquire(conn: Connection, lock_id: int, now_ms: int) -> None:
    conn.execute(
        update(schema.hive_lock).where(_l.lock_id == lock_id)
        .values(state=int(LockState.ACQUIRED), acquired_at_ms=now_ms, blocked_by_lock=None,
                blocked_by_component=None)
    )


def set_blocked(conn: Connection, lock_id: int, component: int, by_lock: int, by_component: int) -> None:
    """Record on the blocked component (only) what it waits for; the lock's other components have none."""
    conn.execute(
        update(schema.hive_lock).where(_l.lock_id == lock_id)
        .values(blocked_by_lock=None, blocked_by_component=None)
    )
    conn.execute(
        update(schema.hive_lock).where(_l.lock_id == lock_id, _l.component == component)
        .values(blocked_by_lock=by_lock, blocked_by_component=by_component)
    )


def heartbeat(conn: Connection, lock_id: int, now_ms: int, expired_before_ms: int) -> bool:
    """Record a heartbeat of a live lock; False when there is no such lock (or it expired)."""
    result = conn.execute(
        update(schema.hive_lock)
        .where(_l.lock_id == lock_id, (_l.txn_id != 0) | (_l.last_heartbeat_ms >= expired_before_ms))
        .values(last_heartbeat_ms=now_ms, heartbeat_count=_l.heartbeat_count + 1)
    )
    return result.rowcount > 0


def expired_ids(conn: Connection, expired_before_ms: int) -> list[int]:
    """Locks outside transactions whose last heartbeat is older than ``expired_before_ms``."""
    return list(conn.execute(
        select(_l.lock_id).distinct().where(_l.txn_id == 0, _l.last_heartbeat_ms < expired_before_ms)
    ).scalars())


def delete_locks(conn: Connection, lock_ids: Sequence[int]) -> None:
    for start in range(0, len(lock_ids), BATCH):
        conn.execute(delete(schema.hive_lock).where(_l.lock_id.in_(lock_ids[start : start + BATCH])))


def delete_of_txns(conn: Connection, txn_ids: Sequence[int]) -> None:
    """Release every lock of the transactions (at their commit or abort)."""
    for start in range(0, len(txn_ids), BATCH):
        conn.execute(delete(schema.hive_lock).where(_l.txn_id.in_(txn_ids[start : start + BATCH])))


def delete_waiting_or_free(conn: Connection, lock_id: int) -> int:
    """Delete a lock outside a transaction, or a transaction's lock still waiting; the rows deleted."""
    return conn.execute(
        delete(schema.hive_lock)
        .where(_l.lock_id == lock_id, (_l.txn_id == 0) | (_l.state == int(LockState.WAITING)))
    ).rowcount


def listing(conn: Connection, database: str | None, table: str | None, partition: str | None,
            txn_id: int | None) -> list[HeldLock]:
    """Lock components, optionally of one database, table, partition or transaction, in id order."""
    query = select(schema.hive_lock).order_by(_l.lock_id, _l.component)
    for column, value in ((_l.db_name, database), (_l.tbl_name, table), (_l.part_name, partition),
                          (_l.txn_id, txn_id)):
        if value is not None:
            query = query.where(column == value)
    return [
        HeldLock(
            lock_id=r.lock_id, component=r.component, target=LockTarget(r.db_name, r.tbl_name, r.part_name),
            state=LockState(r.state), type=LockType(r.lock_type), txn_id=r.txn_id,
            last_heartbeat_ms=r.last_heartbeat_ms, acquired_at_ms=r.acquired_at_ms, user=r.user_name,
            host=r.host_name, heartbeat_count=r.heartbeat_count, agent_info=r.agent_info,
            blocked_by_lock=r.blocked_by_lock, blocked_by_component=r.blocked_by_component,
        )
        for r in conn.execute(query)
    ]
