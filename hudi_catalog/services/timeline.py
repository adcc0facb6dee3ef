"""The timeline of Hudi tables: instant times, instants and their state transitions, heartbeats.

An instant moves requested -> inflight -> completed, one step at a time. Each transition is a
compare-and-set on the instant's row, so of two concurrent transitions of one instant exactly one wins and
the other gets ``InvalidOperationError``. Instant times handed out for a table increase strictly, across
threads and server processes, because each is drawn under a lock on the table's ``tbl_timestamp`` row.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from dataclasses import replace
from typing import Protocol

from sqlalchemy import Connection

from ..errors import AlreadyExistsError, InvalidOperationError, NoSuchObjectError
from ..hudi.metadata import DecodedCompletion
from ..hudi.properties import table_version
from ..instant_times import is_instant_time, next_instant_time
from ..model import Action, Instant, InstantState, InstantSummary, PendingInstant, TableKeys
from ..names import normalize
from ..store import instants as instant_store
from ..store import tables as table_store
from .context import ServiceContext
from .instant_summaries import summarize

log = logging.getLogger(__name__)

_NEXT_STATE = {InstantState.REQUESTED: InstantState.INFLIGHT, InstantState.INFLIGHT: InstantState.COMPLETED}
_ORDER = {InstantState.REQUESTED: 0, InstantState.INFLIGHT: 1, InstantState.COMPLETED: 2}


class CompletionListener(Protocol):
    """Told of every instant that completes, inside the completing transaction (the snapshot applies it);
    returns the completed metadata as it decoded it (``None``: it did not decode it), which
    ``AfterCompletion`` is handed so that a commit is decoded once."""

    def instant_completed(
        self, conn: Connection, table: TableKeys, instant: Instant, metadata: bytes
    ) -> DecodedCompletion | None: ...


AfterCompletion = Callable[[TableKeys, Instant, "DecodedCompletion | None"], None]
"""Told of every instant that completed, after the completing transaction committed: ``(table, instant,
decoded)``, ``decoded`` as ``CompletionListener`` returned it. It must not raise: the instant is complete
whatever it does (the Iceberg views take it)."""


class TimelineService:
    def __init__(
        self,
        ctx: ServiceContext,
        on_complete: CompletionListener | None = None,
        after_complete: AfterCompletion | None = None,
    ) -> None:
        self.ctx = ctx
        self.on_complete = on_complete
        self.after_complete = after_complete

    def _table(self, conn: Connection, database: str, table: str, lock: bool = False) -> TableKeys:
        """The table's keys; with ``lock``, its row is locked for the transaction first.

        Locking comes before any plain read: on MySQL a transaction's plain reads all see the snapshot taken
        at its first plain read, so taking it after the lock makes them see what earlier lock holders
        committed (the instants and files a concurrent completion wrote). Instant rows are read with
        ``FOR UPDATE`` all the same.
        """
        if lock:
            table_store.get_row(conn, normalize(database), normalize(table), lock=True)
        return table_store.get_keys(conn, normalize(database), normalize(table))

    @staticmethod
    def _check(requested_time: str, action: Action | str) -> Action:
        """The action, once the time and the action are valid."""
        if not is_instant_time(requested_time):
            raise InvalidOperationError(f"invalid instant time {requested_time!r}: expected yyyyMMddHHmmssSSS")
        try:
            return Action(action)
        except ValueError:
            raise InvalidOperationError(f"unknown Hudi action {action!r}") from None

    # -- instant times ------------------------------------------------------------------------------

    def new_instant_time(self, database: str, table: str) -> str:
        """A new instant time for the table, later than every one handed out or used before."""
        with self.ctx.store.write() as conn:
            keys = self._table(conn, database, table, lock=True)
            return self._draw(conn, keys.id)

    def _draw(self, conn: Connection, tbl_id: int) -> str:
        last = instant_store.last_instant_time(conn, tbl_id, lock=True)
        ts = next_instant_time(last, self.ctx.clock())
        instant_store.set_last_instant_time(conn, tbl_id, last, ts)
        return ts

    # -- instants -----------------------------------------------------------------------------------

    def create(
        self,
        database: str,
        table: str,
        requested_time: str,
        action: Action,
        state: InstantState = InstantState.REQUESTED,
        metadata: bytes | None = None,
        heartbeat_seconds: int = 0,
    ) -> Instant:
        """Add a pending instant (requested, or inflight as some writers start) with its metadata bytes.

        Raises:
            AlreadyExistsError: the table already has an instant at this time.
            InvalidOperationError: a malformed time, an unknown action, or ``state`` completed.
        """
        action = self._check(requested_time, action)
        if state is InstantState.COMPLETED:
            raise InvalidOperationError("an instant is created pending; completing it is a transition")
        with self.ctx.store.write() as conn:
            keys = self._table(conn, database, table, lock=True)
            if instant_store.find(conn, keys.id, requested_time, lock=True) is not None:
                raise AlreadyExistsError(f"instant {requested_time} already exists in {keys.qualified_name}")
            instant = Instant(
                requested_time, action, state, None, heartbeat_seconds, self.ctx.now() if heartbeat_seconds else 0
            )
            instant_store.insert_instant(conn, keys.id, instant)
            instant_store.write_metadata(conn, keys.id, instant, metadata)
            last = instant_store.last_instant_time(conn, keys.id, lock=True)
            instant_store.set_last_instant_time(conn, keys.id, last, requested_time)
        log.info("%s: %s %s %s", keys.qualified_name, action, requested_time, state.value)
        return instant

    def transition(
        self,
        database: str,
        table: str,
        requested_time: str,
        action: Action,
        from_state: InstantState,
        to_state: InstantState,
        metadata: bytes | None = None,
    ) -> Instant:
        """Move an instant one state forward, storing the new state's metadata bytes.

        Completing an instant gives it a completion time (a new instant time of the table) and applies it
        to the table's snapshot in the same transaction.

        Raises:
            NoSuchObjectError: the table has no such instant.
            InvalidOperationError: the transition is not one step forward, or the instant is no longer in
                ``from_state`` (another writer moved it first).
        """
        action = self._check(requested_time, action)
        if _NEXT_STATE.get(from_state) is not to_state:
            raise InvalidOperationError(f"cannot transition an instant from {from_state.value} to {to_state.value}")
        with self.ctx.store.write() as conn:
            keys = self._table(conn, database, table, lock=True)
            current = instant_store.find(conn, keys.id, requested_time, lock=True)
            if current is None or current.action != action:
                raise NoSuchObjectError(f"instant {requested_time} ({action}) not found in {keys.qualified_name}")
            completion = self._draw(conn, keys.id) if to_state is InstantState.COMPLETED else None
            if not instant_store.compare_and_set_state(
                conn, keys.id, requested_time, action, from_state, to_state, completion, current.last_heartbeat
            ):
                raise InvalidOperationError(
                    f"instant {requested_time} ({action}) of {keys.qualified_name} is {current.state.value}, "
                    f"not {from_state.value}"
                )
            moved = Instant(
                requested_time, action, to_state, completion, current.heartbeat_seconds, current.last_heartbeat
            )
            instant_store.write_metadata(conn, keys.id, moved, metadata)
            decoded = None
            if to_state is InstantState.COMPLETED and self.on_complete is not None:
                decoded = self.on_complete.instant_completed(conn, keys, moved, metadata or b"")
        log.info("%s: %s %s %s -> %s", keys.qualified_name, action, requested_time, from_state.value, to_state.value)
        if to_state is InstantState.COMPLETED and self.after_complete is not None:
            self.after_complete(keys, moved, decoded)
        return moved

    def delete(self, database: str, table: str, requested_time: str, action: Action) -> None:
        """Remove a pending instant (a failed write being rolled back); completed instants stay.

        Raises:
            NoSuchObjectError: no such instant.
            InvalidOperationError: it completed.
        """
        with self.ctx.store.write() as conn:
            keys = self._table(conn, database, table, lock=True)
            current = instant_store.find(conn, keys.id, requested_time, lock=True)
            if current is None or current.action != action:
                raise NoSuchObjectError(f"instant {requested_time} ({action}) not found in {keys.qualified_name}")
            if current.state is InstantState.COMPLETED:
                raise InvalidOperationError(
                    f"instant {requested_time} ({action}) of {keys.qualified_name} is completed; only pending "
                    "instants can be deleted"
                )
            instant_store.delete_instants(conn, keys.id, [requested_time])

    def record(self, database: str, table: str, instant: Instant, metadata: dict[InstantState, bytes]) -> bool:
        """Write an instant as found on a table's storage (an import): add it, or move a pending one forward
        to ``instant.state``, with the metadata bytes of each state, applying it if it completed. One
        transaction; returns False when the catalog already had it in that state (nothing to do).
        """
        self._check(instant.requested_time, instant.action)
        with self.ctx.store.write() as conn:
            keys = self._table(conn, database, table, lock=True)
            current = instant_store.find(conn, keys.id, instant.requested_time, lock=True)
            if current is not None and _ORDER[current.state] >= _ORDER[instant.state]:
                return False
            if current is not None:
                instant_store.delete_instants(conn, keys.id, [instant.requested_time])
            instant_store.insert_instant(conn, keys.id, instant)
            for state, data in metadata.items():
                instant_store.write_metadata(conn, keys.id, replace(instant, state=state), data)
            last = instant_store.last_instant_time(conn, keys.id, lock=True)
            latest = max(t for t in (instant.requested_time, instant.completion_time) if t)
            instant_store.set_last_instant_time(conn, keys.id, last, latest)
            if instant.state is InstantState.COMPLETED and self.on_complete is not None:
                self.on_complete.instant_completed(conn, keys, instant, metadata.get(InstantState.COMPLETED, b""))
        return True

    # -- heartbeats ---------------------------------------------------------------------------------

    def heartbeat(self, database: str, table: str, requested_time: str) -> None:
        """Record that the writer of a pending instant is alive."""
        with self.ctx.store.write() as conn:
            keys = self._table(conn, database, table)
            if not instant_store.beat(conn, keys.id, requested_time, self.ctx.now()):
                raise NoSuchObjectError(f"no pending instant {requested_time} in {keys.qualified_name}")

    def expired(self, database: str, table: str, now: int | None = None) -> list[Instant]:
        """Pending instants whose writer's heartbeat lease ran out: candidates for rollback."""
        now = self.ctx.now() if now is None else now
        pending = self.instants(database, table, states=[InstantState.REQUESTED, InstantState.INFLIGHT])
        return [i for i in pending if i.heartbeat_seconds > 0 and i.last_heartbeat + i.heartbeat_seconds < now]

    # -- reads --------------------------------------------------------------------------------------

    def instants(
        self,
        database: str,
        table: str,
        states: Collection[InstantState] | None = None,
        actions: Collection[Action] | None = None,
        limit: int | None = None,
    ) -> list[Instant]:
        """The table's instants in timeline order; with ``limit``, only the latest ``limit``."""
        with self.ctx.store.read() as conn:
            keys = self._table(conn, database, table)
            return instant_store.listing(conn, keys.id, states, actions, limit)

    def states_since(self, database: str, table: str, since: str) -> dict[str, InstantState]:
        """The state of each of the table's instants requested at or after ``since``, or still pending."""
        with self.ctx.store.read() as conn:
            keys = self._table(conn, database, table)
            return instant_store.states_since(conn, keys.id, since)

    def summaries(self, database: str, table: str, before: str | None = None, limit: int = 100) -> list[InstantSummary]:
        """What the table's ``limit`` latest instants requested before ``before`` (all: None) did, newest
        first (``InstantSummary``), read in one transaction."""
        with self.ctx.store.read() as conn:
            keys = self._table(conn, database, table)
            instants = instant_store.page(conn, keys.id, before, limit)
            completed = instant_store.completed_metadata(
                conn, keys.id, [i.requested_time for i in instants if i.state is InstantState.COMPLETED]
            )
        return summarize(instants, completed, table_version(keys.hudi_version))

    def pending_table_services(self) -> list[PendingInstant]:
        """The compactions, log compactions and clusterings requested or under way in every table of every
        catalog, oldest first (a pending replacecommit too: tables before version 8 plan clustering as one)."""
        actions = (Action.COMPACTION, Action.LOGCOMPACTION, Action.CLUSTERING, Action.REPLACECOMMIT)
        with self.ctx.store.read() as conn:
            return [PendingInstant(*found) for found in instant_store.pending_of_actions(conn, actions)]

    def metadata(self, database: str, table: str, requested_time: str, action: Action, state: InstantState) -> bytes:
        """The metadata bytes stored with one state of an instant (empty when it had none)."""
        with self.ctx.store.read() as conn:
            keys = self._table(conn, database, table)
            data = instant_store.read_metadata(conn, keys.id, requested_time, action, state)
        if data is None:
            raise NoSuchObjectError(f"no {state.value} {action} instant {requested_time} in {keys.qualified_name}")
        return data
