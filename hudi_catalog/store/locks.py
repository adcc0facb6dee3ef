"""Queries on ``hive_lock``: one row per component of a lock, keyed ``(lock_id, component)``.

A lock outside a transaction whose last heartbeat is older than the caller's cutoff counts as gone even
before a sweep deletes it: every read here takes the cutoff. The statements of the frequent calls (lock,
check, unlock, heartbeat) are built once and run on the driver's cursor (``driver_sql``): a lock and its
unlock are four tiny statements, and SQLAlchemy's execution around each cost more CPU than the statement.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from sqlalchemy import Connection, and_, bindparam, delete, func, insert, or_, select, update

from ..locks.model import HeldLock, LockRequest, LockState, LockTarget, LockType
from . import schema
from .driver_sql import DriverStatement
from .widths import check_widths

_l = schema.hive_lock.c
BATCH = 1000


def _live(cutoff=bindparam("cutoff"), locks=schema.hive_lock):
    """Locks (rows of ``locks``, ``hive_lock`` or an alias of it) in a transaction (which lives as long as
    the transaction), or heartbeated since ``cutoff``."""
    return or_(locks.c.txn_id != 0, locks.c.last_heartbeat_ms >= cutoff)


@dataclass
class Decision:
    """How to insert a new lock: granted, or waiting with its first blocked component and the blocker."""

    granted: bool
    blocked_component: int | None = None
    blocked_by_lock: int | None = None
    blocked_by_component: int | None = None


def insert_lock(conn: Connection, lock_id: int, request: LockRequest, now_ms: int, decision: Decision) -> None:
    """The request's components as rows of lock ``lock_id`` (positions from 1), in their decided state."""
    state = LockState.ACQUIRED if decision.granted else LockState.WAITING
    rows = [
        {
            "lock_id": lock_id,
            "component": position,
            "txn_id": request.txn_id,
            "db_name": c.target.database,
            "tbl_name": c.target.table,
            "part_name": c.target.partition,
            "state": int(state),
            "lock_type": int(c.type),
            # a lock inside a transaction lives as long as the transaction: Hive records no heartbeat for it
            "last_heartbeat_ms": 0 if request.txn_id else now_ms,
            "acquired_at_ms": now_ms if decision.granted else None,
            "heartbeat_count": 0,
            "user_name": request.user,
            "host_name": request.host,
            "agent_info": request.agent_info,
            "blocked_by_lock": decision.blocked_by_lock if position == decision.blocked_component else None,
            "blocked_by_component": (decision.blocked_by_component if position == decision.blocked_component else None),
        }
        for position, c in enumerate(request.components, start=1)
    ]
    check_widths(schema.hive_lock.name, rows)
    if len(rows) == 1:
        _INSERT.execute(conn, rows[0])
        return
    for start in range(0, len(rows), BATCH):
        _INSERT.execute_many(conn, rows[start : start + BATCH])


_INSERT = DriverStatement(insert(schema.hive_lock))


class LockRecord(NamedTuple):
    """A ``hive_lock`` row (a component of a lock), with ``blocker_alive``: the id of the live lock it waits
    for, if any."""

    lock_id: int
    component: int
    txn_id: int
    db_name: str
    tbl_name: str | None
    part_name: str | None
    state: int
    lock_type: int
    last_heartbeat_ms: int
    acquired_at_ms: int | None
    heartbeat_count: int
    user_name: str
    host_name: str
    agent_info: str | None
    blocked_by_lock: int | None
    blocked_by_component: int | None
    blocker_alive: int | None


_blocker = schema.hive_lock.alias("blocker")
_OWN_ROWS = DriverStatement(
    select(schema.hive_lock, _blocker.c.lock_id.label("blocker_alive"))
    .outerjoin(
        _blocker,
        and_(
            _blocker.c.lock_id == _l.blocked_by_lock,
            _blocker.c.component == _l.blocked_by_component,
            _live(locks=_blocker),
        ),
    )
    .where(_l.lock_id == bindparam("lock_id"))
    .order_by(_l.component),
    LockRecord,
)


def rows_of(conn: Connection, lock_id: int, cutoff_ms: int) -> list[LockRecord]:
    """The lock's components in order."""
    return _OWN_ROWS.execute(conn, {"lock_id": lock_id, "cutoff": cutoff_ms}).rows


class NearLockRecord(NamedTuple):
    """What deciding on a lock reads of a component of another lock."""

    lock_id: int
    component: int
    txn_id: int
    db_name: str
    tbl_name: str | None
    part_name: str | None
    state: int
    lock_type: int


_NEAR_COLUMNS = [_l[name] for name in NearLockRecord._fields]
_NEAR = select(*_NEAR_COLUMNS).where(
    _l.db_name.in_(bindparam("databases", expanding=True)), _live(), _l.lock_id != bindparam("mine")
)
_NEAR_TABLES = _NEAR.where(or_(_l.tbl_name.is_(None), _l.tbl_name.in_(bindparam("tables", expanding=True))))
_NEAR_ONE_TABLE = DriverStatement(
    select(*_NEAR_COLUMNS).where(
        _l.db_name == bindparam("database"),
        or_(_l.tbl_name.is_(None), _l.tbl_name == bindparam("table")),
        _live(),
        _l.lock_id != bindparam("mine"),
    ),
    NearLockRecord,
)
"""The common request (Hudi's, Iceberg's, a Hive statement's table lock): one table or its partitions."""


def live_rows_near(
    conn: Connection, targets: Iterable[LockTarget], cutoff_ms: int, except_lock: int = 0
) -> list[NearLockRecord]:
    """The live components of other locks that may overlap ``targets``: in their databases, and, unless a
    target is a whole database, on their tables or database-wide."""
    targets = list(targets)
    tables = {(t.database, t.table) for t in targets}
    if len(tables) == 1:
        ((database, table),) = tables
        if table is not None:
            params = {"database": database, "table": table, "cutoff": cutoff_ms, "mine": except_lock}
            return _NEAR_ONE_TABLE.execute(conn, params).rows
    params = {"databases": sorted({t.database for t in targets}), "cutoff": cutoff_ms, "mine": except_lock}
    if any(t.table is None for t in targets):
        rows = conn.execute(_NEAR, params)
    else:
        table_names = sorted({t.table for t in targets if t.table is not None})
        rows = conn.execute(_NEAR_TABLES, {**params, "tables": table_names})
    return [NearLockRecord._make(row) for row in rows]


_ACQUIRE = DriverStatement(
    update(schema.hive_lock)
    .where(_l.lock_id == bindparam("lock"))
    .values(
        state=int(LockState.ACQUIRED), acquired_at_ms=bindparam("now"), blocked_by_lock=None, blocked_by_component=None
    )
)


def acquire(conn: Connection, lock_id: int, now_ms: int) -> None:
    _ACQUIRE.execute(conn, {"lock": lock_id, "now": now_ms})


def set_blocked(conn: Connection, lock_id: int, component: int, by_lock: int, by_component: int) -> None:
    """Record on the blocked component (only) what it waits for; the lock's other components have none."""
    conn.execute(
        update(schema.hive_lock).where(_l.lock_id == lock_id).values(blocked_by_lock=None, blocked_by_component=None)
    )
    conn.execute(
        update(schema.hive_lock)
        .where(_l.lock_id == lock_id, _l.component == component)
        .values(blocked_by_lock=by_lock, blocked_by_component=by_component)
    )


_HEARTBEAT = DriverStatement(
    update(schema.hive_lock)
    .where(_l.lock_id == bindparam("lock"), _live())
    .values(last_heartbeat_ms=bindparam("now"), heartbeat_count=_l.heartbeat_count + 1)
)


def heartbeat(conn: Connection, lock_id: int, now_ms: int, cutoff_ms: int) -> bool:
    """Record a heartbeat of a live lock; False when there is no such lock (or it expired)."""
    return _HEARTBEAT.execute(conn, {"lock": lock_id, "now": now_ms, "cutoff": cutoff_ms}).rowcount > 0


def expired_ids(conn: Connection, cutoff_ms: int) -> list[int]:
    """Locks outside transactions whose last heartbeat is older than ``cutoff_ms``."""
    return list(
        conn.execute(select(_l.lock_id).distinct().where(_l.txn_id == 0, _l.last_heartbeat_ms < cutoff_ms)).scalars()
    )


def delete_locks(conn: Connection, lock_ids: Sequence[int]) -> None:
    for start in range(0, len(lock_ids), BATCH):
        conn.execute(delete(schema.hive_lock).where(_l.lock_id.in_(lock_ids[start : start + BATCH])))


def delete_of_txns(conn: Connection, txn_ids: Sequence[int]) -> None:
    """Release every lock of the transactions (at their commit or abort)."""
    for start in range(0, len(txn_ids), BATCH):
        conn.execute(delete(schema.hive_lock).where(_l.txn_id.in_(txn_ids[start : start + BATCH])))


_DELETE_RELEASABLE = DriverStatement(
    delete(schema.hive_lock).where(
        _l.lock_id == bindparam("lock_id"), or_(_l.txn_id == 0, _l.state == int(LockState.WAITING))
    )
)


def delete_waiting_or_free(conn: Connection, lock_id: int) -> int:
    """Delete a lock outside a transaction, or a transaction's lock still waiting; the rows deleted."""
    return _DELETE_RELEASABLE.execute(conn, {"lock_id": lock_id}).rowcount


def count_by_state(conn: Connection, cutoff_ms: int) -> dict[LockState, int]:
    """The number of live lock components in each state they are stored in (acquired, waiting)."""
    query = select(_l.state, func.count()).where(_live(cutoff_ms)).group_by(_l.state)
    return {LockState(state): count for state, count in conn.execute(query)}


def listing(
    conn: Connection, cutoff_ms: int, database: str | None, table: str | None, partition: str | None, txn_id: int | None
) -> list[HeldLock]:
    """Live lock components, optionally of one database, table, partition or transaction, in id order."""
    query = select(schema.hive_lock).where(_live(cutoff_ms)).order_by(_l.lock_id, _l.component)
    for column, value in ((_l.db_name, database), (_l.tbl_name, table), (_l.part_name, partition), (_l.txn_id, txn_id)):
        if value is not None:
            query = query.where(column == value)
    return [
        HeldLock(
            lock_id=r.lock_id,
            component=r.component,
            target=LockTarget(r.db_name, r.tbl_name, r.part_name),
            state=LockState(r.state),
            type=LockType(r.lock_type),
            txn_id=r.txn_id,
            last_heartbeat_ms=r.last_heartbeat_ms,
            acquired_at_ms=r.acquired_at_ms,
            user=r.user_name,
            host=r.host_name,
            heartbeat_count=r.heartbeat_count,
            agent_info=r.agent_info,
            blocked_by_lock=r.blocked_by_lock,
            blocked_by_component=r.blocked_by_component,
        )
        for r in conn.execute(query)
    ]
