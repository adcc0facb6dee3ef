"""Queries on ``notification_log``."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, delete, func, insert, select

from ..catalog_scope import current_catalog
from ..events import StoredEvent
from . import schema, sequences
from .driver_sql import DriverStatement
from .widths import check_widths

_n = schema.notification_log.c
COUNTER = "notification"
_INSERT = DriverStatement(insert(schema.notification_log))
"""Every change logs its events: the statement is built once and run on the driver's cursor."""


def append(conn: Connection, events: Sequence[tuple[int, str, str | None, str | None, str, str]]) -> int:
    """Log ``(event_time, event_type, db_name, tbl_name, message, message_format)`` events with consecutive
    ids of the ``notification`` counter, whose row then stays locked until the transaction ends: ids are
    gap-free and follow commit order. Returns the first id."""
    first = sequences.take(conn, COUNTER, len(events))
    rows = [
        {
            "event_id": first + i,
            "event_time": t,
            "event_type": kind,
            "cat_name": current_catalog(),
            "db_name": db,
            "tbl_name": tbl,
            "message": message,
            "message_format": message_format,
        }
        for i, (t, kind, db, tbl, message, message_format) in enumerate(events)
    ]
    check_widths(schema.notification_log.name, rows)
    _INSERT.execute_many(conn, rows)
    return first


def last_id(conn: Connection) -> int:
    """The id of the newest event ever logged (0 before the first), removed or not."""
    return sequences.current(conn, COUNTER) - 1


def continue_after(conn: Connection, event_id: int) -> int:
    """Raise the ``notification`` counter so the next id is past ``event_id`` (never lowered); returns the
    newest id. Holds the counter's row until the transaction ends, as ``append`` does."""
    next_value = sequences.lock_counter(conn, COUNTER)
    if next_value <= event_id:
        sequences.take(conn, COUNTER, event_id + 1 - next_value)
        next_value = event_id + 1
    return next_value - 1


def _filtered(
    query, database: str | None, tables: Sequence[str] | None, skip_types: Sequence[str] | None, catalog: str | None
):
    if catalog:
        query = query.where(_n.cat_name == catalog)
    if database:
        query = query.where(_n.db_name == database)
    if tables:
        query = query.where(_n.tbl_name.in_(list(tables)))
    if skip_types:
        query = query.where(_n.event_type.not_in(list(skip_types)))
    return query


def after(
    conn: Connection,
    last_event: int,
    max_events: int,
    database: str | None = None,
    tables: Sequence[str] | None = None,
    skip_types: Sequence[str] | None = None,
    catalog: str | None = None,
) -> list[StoredEvent]:
    """Events with ids above ``last_event`` in id order, at most ``max_events`` (negative: all)."""
    query = _filtered(
        select(schema.notification_log).where(_n.event_id > last_event), database, tables, skip_types, catalog
    ).order_by(_n.event_id)
    if max_events >= 0:
        query = query.limit(max_events)
    return [
        StoredEvent(
            r.event_id, r.event_time, r.event_type, r.db_name, r.tbl_name, r.message, r.message_format, r.cat_name
        )
        for r in conn.execute(query)
    ]


def count(
    conn: Connection,
    from_event: int,
    database: str | None,
    catalog: str | None,
    to_event: int | None = None,
    limit: int | None = None,
) -> int:
    """How many events have ids above ``from_event`` (and at most ``to_event``), capped at ``limit``."""
    query = _filtered(select(_n.event_id).where(_n.event_id > from_event), database, None, None, catalog)
    if to_event is not None:
        query = query.where(_n.event_id <= to_event)
    if limit is not None and limit > 0:
        query = query.order_by(_n.event_id).limit(limit)
    return conn.execute(select(func.count()).select_from(query.subquery())).scalar_one()


def delete_before(conn: Connection, event_time: int) -> int:
    """Delete the events logged before ``event_time``; how many."""
    return conn.execute(delete(schema.notification_log).where(_n.event_time < event_time)).rowcount
