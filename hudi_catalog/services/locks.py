"""Hive's locks: ``lock``, ``check_lock``, ``unlock``, ``heartbeat`` and ``show_locks`` over ``hive_lock``.

A request's components are queued in arrival order (lock ids increase). A lock is granted, all components
at once, when no component overlaps a conflicting lock ahead of it: an acquired one, or a waiting one that
arrived first (so a stream of readers cannot starve a waiting writer). Otherwise it stays ``WAITING`` and a
later ``check_lock`` tries again. Granting runs under the lock mutex (``TxnService.begin``), so no two
servers on one database can grant conflicting locks. Locks of one transaction never conflict with each
other, nor do the components of one request. See docs/locks.md.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence

from sqlalchemy import Connection, Row

from ..errors import InvalidObjectError, NoSuchLockError, TxnOpenError
from ..locks.model import HeldLock, LockRequest, LockState, LockStatus, LockTarget, LockType
from ..locks.rules import conflicts, exempt
from ..store import locks as lock_store
from ..store import sequences
from ..store import txns as txn_store
from .context import ServiceContext
from .transactions import TxnService

log = logging.getLogger(__name__)

MAX_COMPONENTS = 100_000
"""Components one request may hold."""


def lock_name(lock_id: int) -> str:
    """Hive's rendering of a lock id in messages."""
    return f"lockid:{lock_id}"


def _target(row: Row) -> LockTarget:
    return LockTarget(row.db_name, row.tbl_name, row.part_name)


class LockService:
    def __init__(self, ctx: ServiceContext, txns: TxnService) -> None:
        self.ctx = ctx
        self.txns = txns

    def lock(self, request: LockRequest) -> LockStatus:
        """Queue the request's components under a new lock id and grant them if nothing is in the way.

        Raises:
            InvalidObjectError: no components, or too many.
            NoSuchTxnError, TxnAbortedError: the request names a transaction that is not open.
        """
        if not request.components:
            raise InvalidObjectError("A lock request needs at least one component")
        if len(request.components) > MAX_COMPONENTS:
            raise InvalidObjectError(
                f"A lock request may hold at most {MAX_COMPONENTS} components, not {len(request.components)}"
            )
        now = self.txns.now_ms()
        with self.ctx.store.write() as conn:
            lock_id = self.txns.begin(conn, now)
            sequences.set_next(conn, "lock", lock_id + 1)
            if request.txn_id:
                self.txns.require_open(conn, request.txn_id)
                if any(c.type != LockType.SHARED_READ for c in request.components):
                    txn_store.mark_writing(conn, request.txn_id)
            lock_store.insert_lock(conn, lock_id, request, now)
            state = self._try_grant(conn, lock_id, lock_store.rows_of(conn, lock_id), now)
        log.debug("lock %s for %s@%s (%d component(s)): %s", lock_name(lock_id), request.user, request.host,
                  len(request.components), state.name)
        return LockStatus(lock_id, state)

    def check(self, lock_id: int) -> LockStatus:
        """Grant a waiting lock if nothing is in the way now; also counts as its heartbeat.

        Raises:
            NoSuchLockError: unknown, released or expired.
            TxnAbortedError: its transaction was aborted.
        """
        now = self.txns.now_ms()
        with self.ctx.store.write() as conn:
            self.txns.begin(conn, now)
            rows = lock_store.rows_of(conn, lock_id)
            if not rows:
                raise NoSuchLockError(f"No such lock {lock_name(lock_id)}")
            txn_id = rows[0].txn_id
            if txn_id:
                self.txns.require_open(conn, txn_id)
                txn_store.heartbeat(conn, txn_id, txn_id, now, now - self.txns.timeout_ms)
            else:
                lock_store.heartbeat(conn, lock_id, now, now - self.txns.timeout_ms)
            state = self._try_grant(conn, lock_id, rows, now)
        return LockStatus(lock_id, state)

    def unlock(self, lock_id: int) -> None:
        """Release a lock. Releasing an unknown or released lock is a no-op, as in Hive (a retried unlock
        must not fail).

        Raises:
            TxnOpenError: the lock is an acquired lock of an open transaction (released at its commit or abort).
        """
        with self.ctx.store.write() as conn:
            if lock_store.delete_waiting_or_free(conn, lock_id):
                log.debug("released %s", lock_name(lock_id))
                return
            rows = lock_store.rows_of(conn, lock_id)
            if rows:
                first = rows[0]
                raise TxnOpenError(
                    "Unlocking locks associated with transaction not permitted.  "
                    f"{lock_name(lock_id)} intLockId:{first.component} txnid:{first.txn_id} db:{first.db_name} "
                    f"table:{first.tbl_name} partition:{first.part_name} state:{LockState(first.state).name} "
                    f"type:{LockType(first.lock_type).name}"
                )
            log.info("unlock of %s: no such lock (already released or expired)", lock_name(lock_id))

    def heartbeat(self, lock_id: int) -> None:
        """Keep a lock alive.

        Raises:
            NoSuchLockError: unknown, released or expired.
        """
        now = self.txns.now_ms()
        with self.ctx.store.write() as conn:
            if not lock_store.heartbeat(conn, lock_id, now, now - self.txns.timeout_ms):
                raise NoSuchLockError(f"No such lock: {lock_name(lock_id)}")

    def show(self, database: str | None = None, table: str | None = None, partition: str | None = None,
             txn_id: int | None = None) -> list[HeldLock]:
        """The live locks' components, optionally of one database, table, partition or transaction."""
        with self.ctx.store.write() as conn:
            self.txns.begin(conn, self.txns.now_ms())
            return lock_store.listing(
                conn, database.lower() if database else None, table.lower() if table else None,
                partition.lower() if partition else None, txn_id or None,
            )

    # -- granting ------------------------------------------------------------------------------------------

    def _try_grant(self, conn: Connection, lock_id: int, mine: Sequence[Row], now: int) -> LockState:
        """Acquire every component of the lock, or none: WAITING (recording the earliest blocker of the
        first blocked component) when one of them conflicts with a lock ahead of it."""
        if all(r.state == LockState.ACQUIRED for r in mine):
            return LockState.ACQUIRED
        ahead = _LocksAhead(
            other for other in lock_store.rows_in_databases(conn, {r.db_name for r in mine}, lock_id)
            if other.state == LockState.ACQUIRED or other.lock_id < lock_id
        )
        for component in mine:
            blocker = ahead.blocker(component)
            if blocker is not None:
                lock_store.set_blocked(conn, lock_id, component.component, blocker.lock_id, blocker.component)
                return LockState.WAITING
        lock_store.acquire(conn, lock_id, now)
        return LockState.ACQUIRED


class _LocksAhead:
    """The lock components ahead of a request, indexed by the object they name, so that a component is
    compared only with those that overlap it (a request of thousands of partitions stays linear)."""

    def __init__(self, rows: Iterable[Row]) -> None:
        self.by_object: dict[tuple[str, str | None, str | None], list[Row]] = defaultdict(list)
        self.by_database: dict[str, list[Row]] = defaultdict(list)
        for row in rows:
            self.by_object[(row.db_name, row.tbl_name, row.part_name)].append(row)
            self.by_database[row.db_name].append(row)
        self.by_table: dict[tuple[str, str], list[Row]] = defaultdict(list)
        for (database, table, _), rows_of_object in self.by_object.items():
            if table is not None:
                self.by_table[(database, table)].extend(rows_of_object)

    def _overlapping(self, target: LockTarget) -> list[Row]:
        if target.table is None:
            return self.by_database.get(target.database, [])
        database_wide = self.by_object.get((target.database, None, None), [])
        if target.partition is None:
            return database_wide + self.by_table.get((target.database, target.table), [])
        return (database_wide + self.by_object.get((target.database, target.table, None), [])
                + self.by_object.get((target.database, target.table, target.partition), []))

    def blocker(self, component: Row) -> Row | None:
        """The earliest lock ahead of ``component`` that it must wait for, or None."""
        target, requested = _target(component), LockType(component.lock_type)
        blockers = [
            other for other in self._overlapping(target)
            if not (component.txn_id and component.txn_id == other.txn_id)
            and not exempt(target.level, requested, _target(other).level, LockType(other.lock_type))
            and conflicts(requested, LockType(other.lock_type))
        ]
        return min(blockers, key=lambda r: (r.lock_id, r.component), default=None)
