"""Counters in the ``id_sequence`` table, shared by every server on the database.

A counter is read with ``SELECT ... FOR UPDATE`` and advanced in the caller's transaction, so ids are unique
and increasing across processes; the ``lock`` row doubles as the mutex that serialises lock grants.
"""

from __future__ import annotations

from sqlalchemy import Connection, insert, select, update

from . import schema

_s = schema.id_sequence.c


def seed(conn: Connection) -> None:
    """Create the counters that are missing, each starting at 1."""
    present = set(conn.execute(select(_s.name)).scalars())
    missing = [{"name": name, "next_value": 1} for name in schema.SEQUENCES if name not in present]
    if missing:
        conn.execute(insert(schema.id_sequence), missing)


def take(conn: Connection, name: str, count: int = 1) -> int:
    """Reserve ``count`` consecutive values of counter ``name``; returns the first.

    The counter's row stays locked until the transaction ends, so a second caller waits for it.
    """
    first = lock_counter(conn, name)
    set_next(conn, name, first + count)
    return first


def set_next(conn: Connection, name: str, value: int) -> None:
    """Advance counter ``name`` (locked by the caller's transaction) to hand out ``value`` next."""
    conn.execute(update(schema.id_sequence).where(_s.name == name).values(next_value=value))


def lock_counter(conn: Connection, name: str) -> int:
    """Lock counter ``name``'s row for the rest of the transaction (a mutex across servers); returns the next
    value it would hand out."""
    return conn.execute(select(_s.next_value).where(_s.name == name).with_for_update()).scalar_one()


def current(conn: Connection, name: str) -> int:
    """The next value counter ``name`` would hand out, without locking it."""
    return conn.execute(select(_s.next_value).where(_s.name == name)).scalar_one()
