"""Writing notification events: each change's events in the changing transaction (``EventLog``).

Event ids come from one counter in the catalog database, taken in the changing transaction as its last
statements, so ids are gap-free and increase in commit order across every process and server on the
database (writers queue on the counter's row only for the moment before they commit). Reading them is
``services.events.EventService``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sqlalchemy import Connection

from ..call_settings import current_settings
from ..events import CatalogEvent, EventFormat, NamesFormat
from ..observability import IGNORED, CatalogObserver
from ..store import events as event_store
from ..store.engine import before_commit, transaction_state


class LoggedEvents:
    """The events one transaction logs; their ids are known once it commits."""

    def __init__(self) -> None:
        self.events: list[CatalogEvent] = []
        self.first_id: int | None = None

    @property
    def ids(self) -> list[int]:
        if self.first_id is None:
            raise RuntimeError("the events are logged when their transaction commits")
        return list(range(self.first_id, self.first_id + len(self.events)))


_NOT_LOGGED = LoggedEvents()
_NOT_LOGGED.first_id = 0


class EventLog:
    """Writes events in the caller's transaction, rendered by the catalog's ``EventFormat``.

    Events are kept until the transaction's block ends and written as its last statements
    (``store.engine.before_commit``): the counter's row lock, which every writer needs, is held only for the
    moment before the commit, and never while the transaction waits for another lock.
    """

    _KEY = "events"

    def __init__(self, message_format: EventFormat | None = None, observer: CatalogObserver = IGNORED) -> None:
        self.format: EventFormat = message_format or NamesFormat()
        self.observer = observer

    def emit(self, conn: Connection, event: CatalogEvent, now: int) -> LoggedEvents:
        """Log ``event`` when the transaction commits."""
        return self.emit_all(conn, [event], now)

    def emit_all(
        self, conn: Connection, events: Sequence[CatalogEvent], now: int, requested: bool = False
    ) -> LoggedEvents:
        """Log ``events`` in order, with consecutive ids, when the transaction commits; the handle gives their
        ids after it did. The events of a change are not logged when the call's settings turn them off
        (``CallSettings.record_events``); ``requested``: events a client asked for by name, always logged."""
        if not requested and not current_settings().record_events:
            return _NOT_LOGGED
        state = transaction_state(conn)
        logged = state.get(self._KEY)
        if logged is None:
            logged = state[self._KEY] = LoggedEvents()
            before_commit(conn, lambda c: self._write(c, logged))
        logged.events.extend(replace(e, timestamp=e.timestamp or now) for e in events)
        return logged

    def _write(self, conn: Connection, logged: LoggedEvents) -> None:
        if logged.events:
            logged.first_id = event_store.append(
                conn,
                [
                    (e.timestamp, e.type.value, e.db_name, e.table_name, self.format.render(e), self.format.name)
                    for e in logged.events
                ],
            )
            self.observer.events_logged(len(logged.events))
