"""Probes on a catalog under test: a clock its services read that the test sets, and the SQL statements its
store runs."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

from sqlalchemy import event


class Clock:
    """A settable clock for the catalog's services."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@contextmanager
def counting(catalog):
    """Collects the SQL text of every statement the store's engine runs inside the block."""
    statements: list[str] = []

    def listener(conn, cursor, statement, parameters, context, executemany):
        statements.append(statement)

    event.listen(catalog.store.engine, "before_cursor_execute", listener)
    try:
        yield statements
    finally:
        event.remove(catalog.store.engine, "before_cursor_execute", listener)
