"""Hive's locks: ``lock``, ``check_lock``, ``unlock``, ``heartbeat`` and ``show_locks`` over ``hive_lock``.

A request's components are queued in arrival order (lock ids increase). A lock is granted, all components
at once, when no component overlaps a conflicting lock ahead of it: an acquired one, or a waiting one that
arrived first (so a stream of readers cannot starve a waiting writer). Otherwise it stays ``WAITING``,
recording the nearest lock it waits for, and a later ``check_lock`` tries again once that one is gone. Granting
runs under the lock mutex (the ``lock`` counter's row, taken by ``lock`` when it draws its id), so no two
servers on one database can grant conflicting locks. Locks of one transaction never conflict with each
other, nor do the components of one request. See docs/locks.md.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence

from sqlalchemy import Connection

from ..errors import InvalidObjectError, NoSuchLockError, TxnOpenError
from ..locks.model import HeldLock, LockRequest, LockState, LockStatus, LockTarget, LockType
from ..locks.rules import conflicts, exempt
from ..store import locks as lock_store
from ..store import sequences
from ..store import txns as txn_store
from ..store.locks import LockRecord, NearLockRecord
from .context import ServiceContext
from .transactions import TxnService

log = logging.getLogger(__name__)

MAX_COMPONENTS = 100_000
"""Components one request may hold."""

CHECK_HEARTBEAT_EVERY_MS = 1000
"""A ``check_lock`` records its lock's heartbeat only when the last one is older than this: waiters poll
every few milliseconds, and a write (a durable commit) per poll would load the database for nothing."""


def lock_name(lock_id: int) -> str:
    """Hive's rendering of a lock id in messages."""
    return f"lockid:{lock_id}"


def _target(row: LockRecord | NearLockRecord) -> LockTarget:
    return LockTarget(row.db_name, row.tbl_name, row.part_name)


class LockService:
    def __init__(self, ctx: ServiceContext, txns: TxnService) -> None:
        self.ctx = ctx
        self.txns = txns

    def lock(self, request: LockRequest) -> LockStatus:
        """Queue the request's components under a new lock id, granted at once if nothing is in the way.

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
            lock_id = sequences.take(conn, "lock")  # the mutex: held until this transaction ends
            self.txns.expire_if_due(conn, now)
            if request.txn_id:
                self.txns.require_open(conn, request.txn_id, lock=True)
                if any(c.type != LockType.SHARED_READ for c in request.components):
                    txn_store.mark_writing(conn, request.txn_id)
            # every live lock is ahead of a new one
            ahead = _LocksAhead(
                lock_store.live_rows_near(conn, [c.target for c in request.components], self.txns.cutoff_ms(now))
            )
            blocked = ahead.first_blocked(
                (position, c.target, c.type, request.txn_id) for position, c in enumerate(request.components, 1)
            )
            decision = (
                lock_store.Decision(granted=True)
                if blocked is None
                else lock_store.Decision(False, blocked[0], blocked[1].lock_id, blocked[1].component)
            )
            lock_store.insert_lock(conn, lock_id, request, now, decision)
        state = LockState.ACQUIRED if decision.granted else LockState.WAITING
        log.debug(
            "lock %s for %s@%s (%d component(s)): %s",
            lock_name(lock_id),
            request.user,
            request.host,
            len(request.components),
            state.name,
        )
        return LockStatus(lock_id, state)

    def check(self, lock_id: int) -> LockStatus:
        """Grant a waiting lock if nothing is in the way now; also counts as its heartbeat.

        An acquired lock, or one whose recorded blocker is still there, is answered without the mutex, unless
        this process's sweep of expired locks and timed-out transactions is due: a blocker in a transaction
        lives until a sweep aborts that transaction, and waiters that only poll must sweep too (once a second
        per process), or a lock whose holder died would keep them waiting for ever. Otherwise a second
        transaction takes the mutex before it reads anything (on MySQL a transaction's snapshot is taken at
        its first read: one taken before the mutex could miss a grant made since).

        Raises:
            NoSuchLockError: unknown, released or expired.
            TxnAbortedError: its transaction was aborted.
        """
        now = self.txns.now_ms()
        with self.ctx.store.write() as conn:
            mine = self._heartbeat_for_check(conn, lock_id, now)
            if all(r.state == LockState.ACQUIRED for r in mine):
                return LockStatus(lock_id, LockState.ACQUIRED)
            if any(r.blocker_alive is not None for r in mine) and not self.txns.sweep_due(now):
                return LockStatus(lock_id, LockState.WAITING)
        with self.ctx.store.write() as conn:
            sequences.lock_counter(conn, "lock")
            self.txns.expire_if_due(conn, now)
            mine = self._heartbeat_for_check(conn, lock_id, now)
            return LockStatus(lock_id, self._try_grant(conn, lock_id, mine, now))

    def _heartbeat_for_check(self, conn: Connection, lock_id: int, now: int) -> Sequence[LockRecord]:
        """The lock's rows, after its heartbeat (its transaction's, for a lock in one; none when the lock's
        last is younger than ``CHECK_HEARTBEAT_EVERY_MS``)."""
        cutoff = self.txns.cutoff_ms(now)
        mine = lock_store.rows_of(conn, lock_id, cutoff)
        if not mine:
            raise NoSuchLockError(f"No such lock {lock_name(lock_id)}")
        txn_id = mine[0].txn_id
        if txn_id:
            self.txns.require_open(conn, txn_id)
            txn_store.heartbeat(conn, txn_id, txn_id, now, cutoff)
        elif mine[0].last_heartbeat_ms > max(cutoff, now - CHECK_HEARTBEAT_EVERY_MS):
            pass  # alive, and heartbeated moments ago
        elif not lock_store.heartbeat(conn, lock_id, now, cutoff):
            lock_store.delete_locks(conn, [lock_id])
            raise NoSuchLockError(f"No such lock {lock_name(lock_id)}")
        return mine

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
            rows = lock_store.rows_of(conn, lock_id, 0)
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
            if not lock_store.heartbeat(conn, lock_id, now, self.txns.cutoff_ms(now)):
                raise NoSuchLockError(f"No such lock: {lock_name(lock_id)}")

    def counts(self) -> dict[LockState, int]:
        """How many live lock components are acquired and how many wait."""
        with self.ctx.store.read() as conn:
            found = lock_store.count_by_state(conn, self.txns.cutoff_ms(self.txns.now_ms()))
        return {state: found.get(state, 0) for state in (LockState.ACQUIRED, LockState.WAITING)}

    def show(
        self,
        database: str | None = None,
        table: str | None = None,
        partition: str | None = None,
        txn_id: int | None = None,
    ) -> list[HeldLock]:
        """The live locks' components, optionally of one database, table, partition or transaction (names
        compared as ``LockTarget`` stores them, lower-cased)."""
        with self.ctx.store.read() as conn:
            return lock_store.listing(
                conn,
                self.txns.cutoff_ms(self.txns.now_ms()),
                database.lower() if database else None,
                table.lower() if table else None,
                partition.lower() if partition else None,
                txn_id or None,
            )

    # -- granting ------------------------------------------------------------------------------------------

    def _try_grant(self, conn: Connection, lock_id: int, mine: Sequence[LockRecord], now: int) -> LockState:
        """Under the mutex: acquire every component of a waiting lock, or none, recording the nearest
        blocker of the first blocked component."""
        if all(r.state == LockState.ACQUIRED for r in mine):
            return LockState.ACQUIRED
        ahead = _LocksAhead(
            other
            for other in lock_store.live_rows_near(
                conn, [_target(r) for r in mine], self.txns.cutoff_ms(now), except_lock=lock_id
            )
            if other.state == LockState.ACQUIRED or other.lock_id < lock_id
        )
        blocked = ahead.first_blocked((r.component, _target(r), LockType(r.lock_type), r.txn_id) for r in mine)
        if blocked is not None:
            component, blocker = blocked
            lock_store.set_blocked(conn, lock_id, component, blocker.lock_id, blocker.component)
            return LockState.WAITING
        lock_store.acquire(conn, lock_id, now)
        return LockState.ACQUIRED


class _LocksAhead:
    """The lock components ahead of a request, indexed by the object they name, so that a component is
    compared only with those that overlap it (a request of thousands of partitions stays linear)."""

    def __init__(self, rows: Iterable[NearLockRecord]) -> None:
        self.by_object: dict[tuple[str, str | None, str | None], list[NearLockRecord]] = defaultdict(list)
        self.by_database: dict[str, list[NearLockRecord]] = defaultdict(list)
        for row in rows:
            self.by_object[(row.db_name, row.tbl_name, row.part_name)].append(row)
            self.by_database[row.db_name].append(row)
        self.by_table: dict[tuple[str, str], list[NearLockRecord]] = defaultdict(list)
        for (database, table, _), rows_of_object in self.by_object.items():
            if table is not None:
                self.by_table[(database, table)].extend(rows_of_object)

    def _overlapping(self, target: LockTarget) -> list[NearLockRecord]:
        if target.table is None:
            return self.by_database.get(target.database, [])
        database_wide = self.by_object.get((target.database, None, None), [])
        if target.partition is None:
            return database_wide + self.by_table.get((target.database, target.table), [])
        return (
            database_wide
            + self.by_object.get((target.database, target.table, None), [])
            + self.by_object.get((target.database, target.table, target.partition), [])
        )

    def first_blocked(
        self, components: Iterable[tuple[int, LockTarget, LockType, int]]
    ) -> tuple[int, NearLockRecord] | None:
        """``(position, blocker)`` of the first of ``(position, target, type, txn id)`` components that must
        wait, or None when all can be granted."""
        for position, target, requested, txn_id in components:
            blocker = self.blocker(target, requested, txn_id)
            if blocker is not None:
                return position, blocker
        return None

    def blocker(self, target: LockTarget, requested: LockType, txn_id: int) -> NearLockRecord | None:
        """The nearest lock ahead (the latest to arrive) that a ``requested`` lock of ``target`` (in
        transaction ``txn_id``, 0 for none) must wait for, or None. Waiters so form a chain: when a holder
        goes, only the next in line finds its blocker gone and takes the mutex to be granted."""
        blockers = [
            other
            for other in self._overlapping(target)
            if not (txn_id and txn_id == other.txn_id)
            and not exempt(target.level, requested, _target(other).level, LockType(other.lock_type))
            and conflicts(requested, LockType(other.lock_type))
        ]
        return max(blockers, key=lambda r: (r.lock_id, r.component), default=None)
