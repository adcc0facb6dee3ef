"""Hive's transactions, as far as locks and write ids need them: open, commit, abort, heartbeat, the open
transaction snapshot, and table write ids with the valid write id lists readers build on them.

Lock grants are serialised by the ``lock`` counter's row (one mutex across every server on the database).
Locks outside transactions not heartbeated within the timeout count as gone at once and are deleted by a
sweep under that mutex, at most once a second per process, which also aborts the open transactions not
heartbeated within the timeout and releases their locks. A transaction's own state changes lock its row.
There is no compactor: aborted transactions that wrote stay listed as aborted.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from sqlalchemy import Connection

from ..errors import InvalidObjectError, NoSuchTxnError, TxnAbortedError
from ..locks.model import OpenTxns, TableWriteIds, TxnInfo, TxnState
from ..names import normalize
from ..store import locks as lock_store
from ..store import sequences
from ..store import txns as txn_store
from .context import ServiceContext

log = logging.getLogger(__name__)

MAX_OPEN_BATCH = 1000
"""Hive's ``hive.txn.max.open.batch``: at most this many transactions per ``open_txns`` call."""
FORGET_AFTER_MS = 600_000
"""Committed transactions (and aborted ones that wrote nothing) are forgotten this long after they ended."""
FORGET_EVERY_MS = 60_000
SWEEP_EVERY_MS = 1000
MAX_HEARTBEAT_RANGE = 100_000


def txn_name(txn_id: int) -> str:
    """Hive's rendering of a transaction id in messages."""
    return f"txnid:{txn_id}"


class TxnService:
    def __init__(self, ctx: ServiceContext, timeout_s: float) -> None:
        self.ctx = ctx
        self.timeout_ms = int(timeout_s * 1000)
        self._last_sweep_ms = 0
        self._last_forget_ms = 0

    def now_ms(self) -> int:
        return int(self.ctx.clock().timestamp() * 1000)

    # -- shared with the lock service --------------------------------------------------------------------

    def cutoff_ms(self, now_ms: int) -> int:
        """Locks and transactions last heartbeated before this time are expired."""
        return now_ms - self.timeout_ms

    def sweep_due(self, now_ms: int) -> bool:
        """Whether ``expire_if_due`` would sweep now (its last sweep in this process a second ago or more)."""
        return now_ms - self._last_sweep_ms >= SWEEP_EVERY_MS

    def expire_if_due(self, conn: Connection, now_ms: int) -> None:
        """At most once a second per process: take the lock mutex, delete the expired locks, abort the
        timed-out transactions and release their locks. Reads treat expired locks as gone before that."""
        if not self.sweep_due(now_ms):
            return
        self._last_sweep_ms = now_ms
        sequences.lock_counter(conn, "lock")
        cutoff = self.cutoff_ms(now_ms)
        expired = lock_store.expired_ids(conn, cutoff)
        if expired:
            lock_store.delete_locks(conn, expired)
            log.warning(
                "expired %d lock(s) not heartbeated for %d s: %s", len(expired), self.timeout_ms // 1000, expired
            )
        timed_out = txn_store.timed_out(conn, cutoff)
        if timed_out:
            txn_store.set_state(conn, timed_out, txn_store.ABORTED, now_ms)
            lock_store.delete_of_txns(conn, timed_out)
            log.warning(
                "aborted %d transaction(s) not heartbeated for %d s: %s",
                len(timed_out),
                self.timeout_ms // 1000,
                timed_out,
            )
        if now_ms - self._last_forget_ms >= FORGET_EVERY_MS:
            self._last_forget_ms = now_ms
            txn_store.delete_finished(conn, now_ms - max(FORGET_AFTER_MS, self.timeout_ms))

    def require_open(self, conn: Connection, txn_id: int, lock: bool = False) -> None:
        """Raise Hive's error unless the transaction is open; with ``lock``, its row stays locked (so it
        cannot commit or abort before the caller's transaction ends)."""
        _raise_unless_open(txn_store.state_of(conn, txn_id, lock=lock), txn_id)

    # -- calls ---------------------------------------------------------------------------------------------

    def open(self, count: int, user: str, host: str, agent_info: str | None = None, txn_type: int = 0) -> list[int]:
        """Open ``count`` transactions (at most ``MAX_OPEN_BATCH``, as Hive caps them); their ids, ascending."""
        if count < 1:
            raise InvalidObjectError(f"Invalid number of transactions to open: {count}")
        count = min(count, MAX_OPEN_BATCH)
        now = self.now_ms()
        with self.ctx.store.write() as conn:
            self.expire_if_due(conn, now)
            first = sequences.take(conn, "txn", count)
            ids = txn_store.insert_open(conn, first, count, user, host, agent_info, txn_type, now)
        log.debug("opened transactions %d..%d for %s@%s", ids[0], ids[-1], user, host)
        return ids

    def commit(self, txn_id: int) -> None:
        """Commit an open transaction and release its locks; committing it again is a no-op (a retry).

        Raises:
            TxnAbortedError: it was aborted (also by timing out).
            NoSuchTxnError: no such transaction.
        """
        now = self.now_ms()
        with self.ctx.store.write() as conn:
            self.expire_if_due(conn, now)
            state = txn_store.state_of(conn, txn_id, lock=True)
            if state == txn_store.COMMITTED:
                log.info("commit of %s again: already committed", txn_name(txn_id))
                return
            if state == txn_store.OPEN:
                # one that timed out before any sweep aborted it is aborted now
                timed_out = txn_store.is_timed_out(conn, txn_id, self.cutoff_ms(now))
                txn_store.set_state(conn, [txn_id], txn_store.ABORTED if timed_out else txn_store.COMMITTED, now)
                lock_store.delete_of_txns(conn, [txn_id])
                if timed_out:
                    state = txn_store.ABORTED
        _raise_unless_open(state, txn_id)  # after the transaction, so that an abort above stays
        log.debug("committed %s", txn_name(txn_id))

    def abort(self, txn_ids: Sequence[int], strict: bool = True) -> None:
        """Abort the open ones of ``txn_ids`` and release their locks; aborting one again is a no-op.

        Raises:
            NoSuchTxnError: with ``strict`` (Hive's ``abort_txn``), one is unknown or already committed, and
                nothing is aborted. Hive's ``abort_txns`` passes over those silently.
        """
        now = self.now_ms()
        with self.ctx.store.write() as conn:
            self.expire_if_due(conn, now)
            states = txn_store.states_of(conn, txn_ids, lock=True)
            for txn_id in txn_ids if strict else ():
                state = states.get(txn_id)
                if state is None:
                    raise NoSuchTxnError(f"No such transaction {txn_name(txn_id)}")
                if state == txn_store.COMMITTED:
                    raise NoSuchTxnError(f"Transaction {txn_name(txn_id)} is already committed.")
            to_abort = sorted({t for t in txn_ids if states.get(t) == txn_store.OPEN})
            txn_store.set_state(conn, to_abort, txn_store.ABORTED, now)
            lock_store.delete_of_txns(conn, to_abort)
        log.debug("aborted %s", ", ".join(txn_name(t) for t in to_abort) or "nothing")

    def heartbeat(self, txn_id: int) -> None:
        """Keep an open transaction alive.

        Raises:
            TxnAbortedError, NoSuchTxnError: it is not open.
        """
        now = self.now_ms()
        with self.ctx.store.write() as conn:
            if not txn_store.heartbeat(conn, txn_id, txn_id, now, self.cutoff_ms(now)):
                self._raise_not_alive(conn, txn_id)

    def _raise_not_alive(self, conn: Connection, txn_id: int) -> None:
        """A transaction that is open but past its timeout counts as aborted (the next sweep aborts it)."""
        state = txn_store.state_of(conn, txn_id)
        _raise_unless_open(txn_store.ABORTED if state == txn_store.OPEN else state, txn_id)

    def heartbeat_range(self, first: int, last: int) -> tuple[set[int], set[int]]:
        """Heartbeat transactions ``first..last``; returns ``(aborted, unknown)`` ids among them (committed
        ones count as unknown, as in Hive; an open one past its timeout as aborted)."""
        if last - first >= MAX_HEARTBEAT_RANGE:
            raise InvalidObjectError(
                f"At most {MAX_HEARTBEAT_RANGE} transactions can be heartbeated at once, not {first}..{last}"
            )
        if last < first:
            return set(), set()
        now = self.now_ms()
        with self.ctx.store.write() as conn:
            alive = txn_store.heartbeat(conn, first, last, now, self.cutoff_ms(now))
            states = txn_store.states_between(conn, first, last)
        aborted = {t for t, s in states.items() if t not in alive and s in (txn_store.ABORTED, txn_store.OPEN)}
        return aborted, {t for t in range(first, last + 1) if t not in alive and t not in aborted}

    def snapshot(self) -> OpenTxns:
        """Every transaction id handed out so far, with the open and aborted ones named."""
        with self.ctx.store.write() as conn:
            self.expire_if_due(conn, self.now_ms())
            return self._snapshot(conn)

    @staticmethod
    def _high_water_mark(conn: Connection) -> int:
        """The highest transaction id handed out (0 before the first)."""
        return sequences.current(conn, "txn") - 1

    def _snapshot(self, conn: Connection) -> OpenTxns:
        infos = txn_store.not_committed(conn)
        return OpenTxns(
            self._high_water_mark(conn),
            open=[i.txn_id for i in infos if i.state == TxnState.OPEN],
            aborted=[i.txn_id for i in infos if i.state == TxnState.ABORTED],
        )

    def infos(self) -> tuple[int, list[TxnInfo]]:
        """``(high water mark, open and aborted transactions)``."""
        with self.ctx.store.write() as conn:
            self.expire_if_due(conn, self.now_ms())
            return self._high_water_mark(conn), txn_store.not_committed(conn)

    def add_dynamic_partitions(self, txn_id: int, database: str, table: str, partitions: Sequence[str]) -> None:
        """Hive's record of the partitions an open transaction wrote (its components, which Hive's compactor
        and cleaner read). No compactor runs here, so the partitions are not kept: the transaction must be
        open, and it is marked as one that wrote, so that an abort keeps it listed as aborted.

        Raises:
            NoSuchTxnError, TxnAbortedError: it is not open.
        """
        with self.ctx.store.write() as conn:
            self.expire_if_due(conn, self.now_ms())
            self.require_open(conn, txn_id, lock=True)
            txn_store.mark_writing(conn, txn_id)
        log.debug("%s wrote %d partition(s) of %s.%s", txn_name(txn_id), len(partitions), database, table)

    # -- write ids -----------------------------------------------------------------------------------------

    def allocate_write_ids(self, database: str, table: str, txn_ids: Sequence[int]) -> list[tuple[int, int]]:
        """A write id of the table for each open transaction (the one it has, or the next ones in transaction
        order); ``[(txn id, write id)]`` ascending.

        Raises:
            NoSuchTxnError, TxnAbortedError: a transaction is not open.
        """
        database, table = normalize(database), normalize(table)
        txn_ids = sorted(set(txn_ids))
        if not txn_ids:
            raise InvalidObjectError("No transactions to allocate write ids for")
        with self.ctx.store.write() as conn:
            self.expire_if_due(conn, self.now_ms())
            for txn_id in txn_ids:
                self.require_open(conn, txn_id, lock=True)
            known = txn_store.write_ids_of(conn, database, table, txn_ids)
            new = [t for t in txn_ids if t not in known]
            if new:
                first = txn_store.take_write_ids(conn, database, table, len(new))
                pairs = list(zip(new, range(first, first + len(new))))
                txn_store.insert_write_ids(conn, database, table, pairs)
                known.update(pairs)
                for txn_id in new:
                    txn_store.mark_writing(conn, txn_id)
        return sorted(known.items())

    def valid_write_ids(self, tables: Sequence[str], snapshot: OpenTxns | None) -> list[TableWriteIds]:
        """For each ``db.table``, the write ids a reader with the transaction ``snapshot`` (the current one
        when None) must skip, as Hive computes them: the high water mark is the highest write id of a
        transaction up to the snapshot's high water mark; below it, ids of transactions the snapshot sees as
        open or aborted (or that are newer than it) are invalid."""
        with self.ctx.store.read() as conn:
            snapshot = snapshot or self._snapshot(conn)
            aborted_ids = set(snapshot.aborted)
            not_committed = set(snapshot.open) | aborted_ids
            answers = []
            for full_name in tables:
                database, _, table = full_name.partition(".")
                if not table:
                    raise InvalidObjectError(f"Not a fully qualified table name: {full_name}")
                database, table = normalize(database), normalize(table)
                high = txn_store.highest_write_id(conn, database, table, snapshot.high_water_mark)
                invalid, aborted, min_open = [], [], None
                for row in txn_store.write_ids_up_to(conn, database, table, high):
                    if row.txn_id <= snapshot.high_water_mark and row.txn_id not in not_committed:
                        continue
                    invalid.append(row.write_id)
                    if row.txn_id in aborted_ids:
                        aborted.append(row.write_id)
                    elif min_open is None:
                        min_open = row.write_id
                answers.append(TableWriteIds(f"{database}.{table}", high, invalid, aborted, min_open))
            return answers


def _raise_unless_open(state: str | None, txn_id: int) -> None:
    """Hive's error for a transaction in ``state`` (None: unknown) that should be open."""
    if state == txn_store.OPEN:
        return
    if state == txn_store.ABORTED:
        raise TxnAbortedError(f"Transaction {txn_name(txn_id)} already aborted")
    if state == txn_store.COMMITTED:
        raise NoSuchTxnError(f"Transaction {txn_name(txn_id)} is already committed.")
    raise NoSuchTxnError(f"No such transaction {txn_name(txn_id)}")
