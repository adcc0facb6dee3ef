"""Statements run on the transaction's own driver cursor, below SQLAlchemy's execution machinery.

SQLAlchemy spends about 60 µs of CPU around each statement it runs (execution context, events, result
wrapping), as much as the driver's own round trip on a fast database. The few calls that are nothing but
two or three tiny statements, Hive's locks above all, are bound by that: a ``DriverStatement`` is a Core
statement compiled once per dialect, then executed directly on the DBAPI connection of the caller's
SQLAlchemy transaction (so transaction boundaries, pooling and the store's error classification stay as
they are). Driver errors come back as the SQLAlchemy exceptions the store classifies, and a lost connection
is invalidated, as SQLAlchemy itself does.

What such a statement gives up, and so where it may be used:
- no bind or result processors: only statements whose parameters need none (integers, strings);
- no expanding ``IN`` lists: a fixed number of parameters;
- ``before_cursor_execute`` listeners are told of it without an execution context (statement counters
  see it), so the width guard, which needs one, does not: an INSERT or UPDATE checks its values' widths
  itself (``widths.check_widths``).

A read of one such statement may go further and skip SQLAlchemy's ``Connection`` and transaction objects
too (``Store.driver_read``, on a ``DriverConnection``): for a read of one small statement they cost a third
of the call (``benchmarks/call_layers.py``). On MySQL and PostgreSQL its connection comes from a second pool
whose connections are in autocommit mode, so the read sends no ``COMMIT`` (nor, on PostgreSQL, ``BEGIN``).
"""

from __future__ import annotations

import weakref
from collections import namedtuple
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Connection, Engine
from sqlalchemy.engine import Dialect
from sqlalchemy.engine.interfaces import DBAPIModule
from sqlalchemy.exc import DBAPIError, ResourceClosedError, StatementError
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler


@dataclass(frozen=True)
class DriverResult:
    """What one execution gave: its rows (named tuples, columns by label), the rows it changed or matched,
    and the value ``LAST_INSERT_ID`` handed back (MySQL)."""

    rows: list[Any]
    rowcount: int
    lastrowid: int | None


class DriverConnection:
    """A pooled driver connection used without SQLAlchemy's ``Connection``, for one statement: what
    ``DriverStatement`` needs of one (the dialect, the driver connection, the engine's
    ``before_cursor_execute`` listeners, invalidation), and the end of its transaction. Driver errors come
    back as SQLAlchemy's exceptions, as they do from a ``Connection``; a connection lost is invalidated, so
    the pool replaces it."""

    def __init__(self, engine: Engine, autocommit_engine: Engine | None = None) -> None:
        """``engine``: the store's (its dialect, and the listeners told of each statement); the connection is
        ``autocommit_engine``'s when given (a twin of ``engine`` whose connections are in autocommit mode)."""
        self.dialect = engine.dialect
        self.dispatch = engine.dispatch
        self.autocommit = autocommit_engine is not None
        self._statement_run = False
        try:
            self._pooled: PoolProxiedConnection = (autocommit_engine or engine).raw_connection()
        except self.dialect.loaded_dbapi.Error as error:  # the database unreachable
            raise DBAPIError.instance(
                None, None, error, self.dialect.loaded_dbapi.Error, connection_invalidated=True, dialect=self.dialect
            ) from error

    @property
    def connection(self) -> PoolProxiedConnection:
        """The pooled connection, for the read's one statement: a second is refused, as in autocommit mode
        (a server store's, and SQLite's for a read) each statement sees a snapshot of its own, and a read of
        two would not be consistent."""
        if self._statement_run:
            raise RuntimeError("a driver read runs one statement")
        self._statement_run = True
        return self._pooled

    def invalidate(self, error: BaseException | None = None) -> None:
        self._pooled.invalidate(error)

    def commit(self) -> None:
        """End the transaction the statements opened (a read's snapshot, on MySQL and PostgreSQL); nothing in
        autocommit mode, where the statement ended it."""
        if self.autocommit:
            return
        try:
            self._pooled.commit()
        except self.dialect.loaded_dbapi.Error as error:
            raise _as_sqlalchemy_error(self, "COMMIT", None, error, self._pooled.dbapi_connection, None) from error

    def release(self, ended: bool) -> None:
        """Back to the pool; its transaction rolled back first unless ``ended`` or in autocommit mode (the
        pool of a MySQL store does not, and a read left open would keep its snapshot for the next user)."""
        if not ended and not self.autocommit and self._pooled.is_valid:
            with suppress(self.dialect.loaded_dbapi.Error):  # a lost connection fails to roll back too
                self._pooled.rollback()
        self._pooled.close()


@dataclass(frozen=True)
class _Compiled:
    sql: str
    names: tuple[str, ...]
    """Parameter names in placeholder order (positional drivers); empty for drivers taking a mapping."""
    defaults: dict[str, Any]
    """Values the statement carries itself (literals in ``values()`` or ``where()``)."""


class DriverStatement:
    """A Core statement compiled once per dialect and run on the DBAPI cursor of the caller's transaction.

    Its rows are named tuples of ``record`` (a ``NamedTuple`` type whose fields are the statement's labels, in
    order), or of a type made per set of labels when there is none.

    Example: ``DriverStatement(delete(t).where(t.c.id == bindparam("id"))).execute(conn, {"id": 7}).rowcount``
    """

    def __init__(self, statement: ClauseElement, record: Any = None) -> None:
        self._statement = statement
        self._record = record
        self._by_dialect: dict[str, _Compiled] = {}
        self._row_types: dict[tuple[str, ...], Any] = {}
        """A named tuple type per set of result labels."""
        _STATEMENTS.add(self)

    def execute(self, conn: Connection | DriverConnection, params: Mapping[str, Any]) -> DriverResult:
        """Run the statement with ``params`` (every bind parameter not given a value by the statement)."""
        return self._run(conn, params, many=False)

    def execute_many(self, conn: Connection | DriverConnection, rows: Sequence[Mapping[str, Any]]) -> DriverResult:
        """Run the statement once per mapping in ``rows`` (the driver batches an INSERT's rows)."""
        return self._run(conn, rows, many=True)

    def _run(self, conn: Connection | DriverConnection, params: Any, many: bool) -> DriverResult:
        compiled = self._compiled(conn.dialect)
        args = [self._arguments(compiled, p) for p in params] if many else self._arguments(compiled, params)
        dbapi_connection = conn.connection.dbapi_connection
        if dbapi_connection is None:
            raise ResourceClosedError("the connection's driver connection is closed")
        cursor = dbapi_connection.cursor()
        try:
            if conn.dispatch.before_cursor_execute:
                conn.dispatch.before_cursor_execute(conn, cursor, compiled.sql, args, None, many)
            try:
                if many:
                    cursor.executemany(compiled.sql, args)
                else:
                    cursor.execute(compiled.sql, args)
                rows = self._rows(cursor) if cursor.description else []
                return DriverResult(rows, cursor.rowcount, getattr(cursor, "lastrowid", None))
            except conn.dialect.loaded_dbapi.Error as error:
                raise _as_sqlalchemy_error(conn, compiled.sql, args, error, dbapi_connection, cursor) from error
        finally:
            with suppress(conn.dialect.loaded_dbapi.Error):  # a lost connection's cursor fails to close too
                cursor.close()

    def _compiled(self, dialect: Dialect) -> _Compiled:
        compiled = self._by_dialect.get(dialect.name)
        if compiled is None:
            compiled = self._by_dialect[dialect.name] = _compile(self._statement, dialect)
        return compiled

    @staticmethod
    def _arguments(compiled: _Compiled, params: Mapping[str, Any]) -> Any:
        values = {**compiled.defaults, **params}
        if compiled.names:
            return tuple(values[name] for name in compiled.names)
        return values

    def _rows(self, cursor: Any) -> list[Any]:
        labels = tuple(column[0] for column in cursor.description)
        row_type: Any = self._row_types.get(labels)
        if row_type is None:
            row_type = self._row_types[labels] = self._row_type(labels)
        return [row_type._make(row) for row in cursor.fetchall()]

    def _row_type(self, labels: tuple[str, ...]) -> Any:
        """The type of rows labelled ``labels``: ``record``, whose fields must be those labels, or a new one."""
        if self._record is None:
            return namedtuple("DriverRow", labels)
        if self._record._fields != labels:
            raise ValueError(f"{self._record.__name__} has the fields {self._record._fields}, the rows {labels}")
        return self._record


_STATEMENTS: weakref.WeakSet[DriverStatement] = weakref.WeakSet()
"""Every statement made (they are module constants), for ``compile_all``."""


def compile_all(dialect: Dialect) -> int:
    """Compile every statement made so far for ``dialect`` now rather than on its first use; returns how many
    were compiled. A server does it before it forks its workers, which inherit the compiled SQL: a worker's
    first ``drop_database`` spent most of its time compiling. A statement the dialect refuses is left to
    fail where it is used, with the same error."""
    compiled = 0
    for statement in list(_STATEMENTS):
        with suppress(ValueError):
            statement._compiled(dialect)
            compiled += 1
    return compiled


def _compile(statement: ClauseElement, dialect: Dialect) -> _Compiled:
    """The driver SQL of ``statement`` for ``dialect``, refusing what only SQLAlchemy's execution handles."""
    compiled = cast(SQLCompiler, statement.compile(dialect=dialect))
    if "POSTCOMPILE" in compiled.string:
        raise ValueError("a driver-level statement cannot have expanding IN parameters")
    for bind in compiled.binds.values():
        if bind.type.dialect_impl(dialect).bind_processor(dialect) is not None:
            raise ValueError(f"parameter {bind.key!r} needs a bind processor on {dialect.name}")
    defaults = {name: bind.value for name, bind in compiled.binds.items() if not bind.required}
    names = tuple(compiled.positiontup or ()) if dialect.positional else ()
    return _Compiled(compiled.string, names, defaults)


def _as_sqlalchemy_error(
    conn: Connection | DriverConnection,
    sql: str,
    args: Any,
    error: DBAPIModule.Error,
    dbapi_connection: Any,
    cursor: Any,
) -> StatementError:
    """The SQLAlchemy exception for a driver error (as the store classifies), the connection invalidated
    first when the error means it is lost."""
    dialect = conn.dialect
    lost = dialect.is_disconnect(error, dbapi_connection, cursor)
    if lost:
        conn.invalidate(error)
    return DBAPIError.instance(
        sql, args, error, dialect.loaded_dbapi.Error, connection_invalidated=lost, dialect=dialect
    )
