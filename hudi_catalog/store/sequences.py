"""Counters in the ``id_sequence`` table, shared by every server on the database.

A counter is advanced in the caller's transaction, whose row lock it then holds until the transaction ends,
so ids are unique and increasing across processes; the ``lock`` row doubles as the mutex that serialises
lock grants. On a Galera cluster a row lock holds on its own node only (other nodes learn of a transaction
when it commits, and refuse it then only if it wrote a row they wrote too), so there the mutex writes its row.
"""

from __future__ import annotations

from sqlalchemy import Connection, bindparam, func, select, update

from . import schema
from .driver_sql import DriverStatement
from .engine import on_galera

_s = schema.id_sequence.c


_ADVANCE_RETURNING = DriverStatement(
    update(schema.id_sequence)
    .where(_s.name == bindparam("counter"))
    .values(next_value=_s.next_value + bindparam("count"))
    .returning(_s.next_value)
)
# MySQL/MariaDB have no UPDATE ... RETURNING: LAST_INSERT_ID(expr) hands the new value back in the reply
_ADVANCE_MYSQL = DriverStatement(
    update(schema.id_sequence)
    .where(_s.name == bindparam("counter"))
    .values(next_value=func.last_insert_id(_s.next_value + bindparam("count")))
)


def take(conn: Connection, name: str, count: int = 1) -> int:
    """Reserve ``count`` consecutive values of counter ``name`` in one statement; returns the first.

    The counter's row stays locked until the transaction ends, so a second caller waits for it. Runs on the
    driver's cursor (``driver_sql``): every lock takes one.
    """
    params = {"counter": name, "count": count}
    if conn.dialect.name in ("mysql", "mariadb"):
        advanced = _ADVANCE_MYSQL.execute(conn, params)
        if advanced.rowcount != 1 or advanced.lastrowid is None:  # else LAST_INSERT_ID() is a stale value
            raise LookupError(f"no counter {name!r} in id_sequence")
        after = advanced.lastrowid
    else:
        ((after,),) = _ADVANCE_RETURNING.execute(conn, params).rows
    return after - count


_LOCK_ROW = DriverStatement(select(_s.next_value).where(_s.name == bindparam("counter")).with_for_update())


_TOUCH_ROW = DriverStatement(
    update(schema.id_sequence)
    .where(_s.name == bindparam("counter"))
    .values(next_value=_s.next_value + bindparam("step"))
)


def lock_counter(conn: Connection, name: str) -> int:
    """Lock counter ``name``'s row for the rest of the transaction (a mutex across servers); returns the next
    value it would hand out. On Galera the row is written (moved up and back: an update that changes
    nothing writes nothing), so that two nodes' holders of the mutex conflict and one of them is refused at
    its commit, then tried again."""
    if on_galera(conn):
        _TOUCH_ROW.execute(conn, {"counter": name, "step": 1})
        _TOUCH_ROW.execute(conn, {"counter": name, "step": -1})
    ((next_value,),) = _LOCK_ROW.execute(conn, {"counter": name}).rows
    return next_value


def current(conn: Connection, name: str) -> int:
    """The next value counter ``name`` would hand out, without locking it."""
    return conn.execute(select(_s.next_value).where(_s.name == name)).scalar_one()
