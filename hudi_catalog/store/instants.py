"""Queries on ``instant``, ``instant_meta`` and ``tbl_timestamp``: a Hudi table's timeline.

Actions and states are stored as small codes; COMMIT to RESTORE and REQUESTED to COMPLETED take the values
of Hudi's metaserver enums, so the codes are also those of its wire protocol.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from sqlalchemy import Connection, Row, delete, insert, or_, select, update

from ..model import Action, Instant, InstantState
from . import schema
from .batches import chunks

ACTION_CODES: dict[Action, int] = {
    Action.COMMIT: 1,
    Action.DELTACOMMIT: 2,
    Action.CLEAN: 3,
    Action.ROLLBACK: 4,
    Action.SAVEPOINT: 5,
    Action.REPLACECOMMIT: 6,
    Action.COMPACTION: 7,
    Action.RESTORE: 8,
    Action.CLUSTERING: 9,
    Action.LOGCOMPACTION: 10,
    Action.INDEXING: 11,
}
"""The stored code of each action (never renumber: catalog databases hold them)."""
ACTIONS = {code: action for action, code in ACTION_CODES.items()}
STATE_CODES: dict[InstantState, int] = {InstantState.REQUESTED: 1, InstantState.INFLIGHT: 2, InstantState.COMPLETED: 3}
"""The stored code of each state (never renumber)."""
STATES = {code: state for state, code in STATE_CODES.items()}

_i = schema.instant.c
_m = schema.instant_meta.c
_ts = schema.tbl_timestamp.c


def _instant(row: Row) -> Instant:
    return Instant(row.ts, ACTIONS[row.action], STATES[row.state], row.completion_ts, row.duration, row.start_ts)


def last_instant_time(conn: Connection, tbl_id: int, lock: bool = False) -> str | None:
    """The last instant time handed out for the table (locked for update with ``lock``)."""
    query = select(_ts.ts).where(_ts.tbl_id == tbl_id)
    if lock:
        query = query.with_for_update()
    return conn.execute(query).scalar_one_or_none()


def set_last_instant_time(conn: Connection, tbl_id: int, previous: str | None, ts: str) -> None:
    if previous is None:
        conn.execute(insert(schema.tbl_timestamp).values(tbl_id=tbl_id, ts=ts))
    elif ts > previous:
        conn.execute(update(schema.tbl_timestamp).where(_ts.tbl_id == tbl_id).values(ts=ts))


def find(conn: Connection, tbl_id: int, ts: str, lock: bool = False) -> Instant | None:
    query = select(schema.instant).where(_i.tbl_id == tbl_id, _i.ts == ts)
    if lock:
        query = query.with_for_update()
    row = conn.execute(query).first()
    return None if row is None else _instant(row)


def listing(
    conn: Connection,
    tbl_id: int,
    states: Collection[InstantState] | None = None,
    actions: Collection[Action] | None = None,
    limit: int | None = None,
) -> list[Instant]:
    """Instants in timeline order (by requested time), optionally only some states and actions.

    With ``limit``, the latest ``limit`` of them (still in timeline order).
    """
    query = select(schema.instant).where(_i.tbl_id == tbl_id)
    if states is not None:
        query = query.where(_i.state.in_([STATE_CODES[s] for s in states]))
    if actions is not None:
        query = query.where(_i.action.in_([ACTION_CODES[a] for a in actions]))
    if limit is not None and limit >= 0:
        rows = conn.execute(query.order_by(_i.ts.desc()).limit(limit)).all()[::-1]
    else:
        rows = conn.execute(query.order_by(_i.ts)).all()
    return [_instant(r) for r in rows]


def states_since(conn: Connection, tbl_id: int, since: str) -> dict[str, InstantState]:
    """What a follow of the table's storage compares with: the state of each instant requested at or after
    ``since``, or still pending."""
    rows = conn.execute(
        select(_i.ts, _i.state).where(
            _i.tbl_id == tbl_id, or_(_i.ts >= since, _i.state != STATE_CODES[InstantState.COMPLETED])
        )
    )
    return {r.ts: STATES[r.state] for r in rows}


def completion_times(conn: Connection, tbl_id: int, times: Collection[str]) -> dict[str, str]:
    """``{requested time: completion time}`` of those of ``times`` that are completed instants."""
    found: dict[str, str] = {}
    for chunk in chunks(sorted(set(times))):
        rows = conn.execute(
            select(_i.ts, _i.completion_ts).where(
                _i.tbl_id == tbl_id, _i.state == STATE_CODES[InstantState.COMPLETED], _i.ts.in_(chunk)
            )
        )
        found.update({r.ts: r.completion_ts or r.ts for r in rows})
    return found


def insert_instant(conn: Connection, tbl_id: int, instant: Instant) -> None:
    conn.execute(
        insert(schema.instant).values(
            tbl_id=tbl_id,
            ts=instant.requested_time,
            completion_ts=instant.completion_time,
            action=ACTION_CODES[instant.action],
            state=STATE_CODES[instant.state],
            duration=instant.heartbeat_seconds,
            start_ts=instant.last_heartbeat,
        )
    )


def compare_and_set_state(
    conn: Connection,
    tbl_id: int,
    ts: str,
    action: Action,
    expected: InstantState,
    new: InstantState,
    completion_time: str | None,
    heartbeat: int,
) -> bool:
    """Move the instant from ``expected`` to ``new`` only if it is still in ``expected``; True if it moved.

    The single conditional UPDATE is the compare-and-set: of two concurrent transitions, one matches.
    """
    values: dict = {"state": STATE_CODES[new], "start_ts": heartbeat}
    if completion_time is not None:
        values["completion_ts"] = completion_time
    moved = conn.execute(
        update(schema.instant)
        .where(_i.tbl_id == tbl_id, _i.ts == ts, _i.action == ACTION_CODES[action], _i.state == STATE_CODES[expected])
        .values(**values)
    )
    return moved.rowcount == 1


def beat(conn: Connection, tbl_id: int, ts: str, now: int) -> bool:
    """Record a heartbeat of a pending instant; False if there is no such pending instant."""
    beaten = conn.execute(
        update(schema.instant)
        .where(_i.tbl_id == tbl_id, _i.ts == ts, _i.state != STATE_CODES[InstantState.COMPLETED])
        .values(start_ts=now)
    )
    return beaten.rowcount == 1


def write_metadata(conn: Connection, tbl_id: int, instant: Instant, data: bytes | None) -> None:
    """Store the metadata bytes of one state of an instant (replacing earlier bytes of that state)."""
    key = (
        _m.tbl_id == tbl_id,
        _m.ts == instant.requested_time,
        _m.action == ACTION_CODES[instant.action],
        _m.state == STATE_CODES[instant.state],
    )
    conn.execute(delete(schema.instant_meta).where(*key))
    conn.execute(
        insert(schema.instant_meta).values(
            tbl_id=tbl_id,
            ts=instant.requested_time,
            action=ACTION_CODES[instant.action],
            state=STATE_CODES[instant.state],
            data=data or b"",
        )
    )


def read_metadata(conn: Connection, tbl_id: int, ts: str, action: Action, state: InstantState) -> bytes | None:
    return conn.execute(
        select(_m.data).where(
            _m.tbl_id == tbl_id, _m.ts == ts, _m.action == ACTION_CODES[action], _m.state == STATE_CODES[state]
        )
    ).scalar_one_or_none()


def delete_instants(conn: Connection, tbl_id: int, times: Collection[str]) -> None:
    """Remove instants and all their metadata."""
    if times:
        conn.execute(delete(schema.instant_meta).where(_m.tbl_id == tbl_id, _m.ts.in_(list(times))))
        conn.execute(delete(schema.instant).where(_i.tbl_id == tbl_id, _i.ts.in_(list(times))))


def states_of(conn: Connection, tbl_id: int, times: Collection[str]) -> dict[str, InstantState]:
    """``{requested time: state}`` of those of ``times`` the table has (an import's batch)."""
    i = schema.instant.c
    rows = conn.execute(select(i.ts, i.state).where(i.tbl_id == tbl_id, i.ts.in_(list(times))))
    return {r.ts: STATES[r.state] for r in rows}


def insert_many(
    conn: Connection, tbl_id: int, instants: Sequence[tuple[Instant, Mapping[InstantState, bytes | None]]]
) -> None:
    """Instant rows with the metadata bytes of each of their states, in two statements (an import's batch)."""
    conn.execute(
        insert(schema.instant),
        [
            {
                "tbl_id": tbl_id,
                "ts": instant.requested_time,
                "completion_ts": instant.completion_time,
                "action": ACTION_CODES[instant.action],
                "state": STATE_CODES[instant.state],
                "duration": instant.heartbeat_seconds,
                "start_ts": instant.last_heartbeat,
            }
            for instant, _ in instants
        ],
    )
    conn.execute(
        insert(schema.instant_meta),
        [
            {
                "tbl_id": tbl_id,
                "ts": instant.requested_time,
                "action": ACTION_CODES[instant.action],
                "state": STATE_CODES[state],
                "data": data or b"",
            }
            for instant, metadata in instants
            for state, data in metadata.items()
        ],
    )


def completed_metadata(conn: Connection, tbl_id: int, times: Collection[str]) -> dict[str, bytes]:
    """``{requested time: completed metadata bytes}`` of those of ``times`` that are completed instants with
    stored metadata, read in chunks of bound parameters."""
    found: dict[str, bytes] = {}
    for chunk in chunks(sorted(set(times))):
        rows = conn.execute(
            select(_m.ts, _m.data).where(
                _m.tbl_id == tbl_id, _m.state == STATE_CODES[InstantState.COMPLETED], _m.ts.in_(chunk)
            )
        )
        found.update({r.ts: r.data or b"" for r in rows})
    return found


def page(conn: Connection, tbl_id: int, before: str | None, limit: int) -> list[Instant]:
    """The table's ``limit`` latest instants requested before ``before`` (all when None), newest first."""
    query = select(schema.instant).where(_i.tbl_id == tbl_id)
    if before is not None:
        query = query.where(_i.ts < before)
    return [_instant(r) for r in conn.execute(query.order_by(_i.ts.desc()).limit(limit))]


def pending_of_actions(conn: Connection, actions: Collection[Action]) -> list[tuple[str, str, str, Instant]]:
    """``(catalog, database, table, instant)`` of every table's requested or inflight instants of
    ``actions``, oldest first."""
    db, tbl = schema.db.c, schema.tbl.c
    rows = conn.execute(
        select(db.cat_name, db.name.label("db_name"), tbl.name.label("tbl_name"), schema.instant)
        .join(schema.tbl, tbl.tbl_id == _i.tbl_id)
        .join(schema.db, db.db_id == tbl.db_id)
        .where(
            _i.state != STATE_CODES[InstantState.COMPLETED],
            _i.action.in_([ACTION_CODES[a] for a in actions]),
        )
        .order_by(_i.ts)
    )
    return [(r.cat_name, r.db_name, r.tbl_name, _instant(r)) for r in rows]
