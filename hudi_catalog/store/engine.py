"""The database engine of the store and its transactions.

Every catalog call runs in one transaction: ``Store.read()`` for calls that only read, ``Store.write()`` for
calls that change anything. On SQLite a write transaction starts with ``BEGIN IMMEDIATE`` so concurrent
writers queue on the database lock instead of failing when they upgrade a read lock.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, create_engine, event, insert, select, update
from sqlalchemy.exc import DisconnectionError, IntegrityError, OperationalError

from .. import config
from ..errors import AlreadyExistsError, InvalidObjectError, StorageError, TransientStorageError
from ..retries import note_commit
from . import authorization, schema, sequences
from .migrations import MIGRATIONS

log = logging.getLogger(__name__)

_WRITE_OPTION = "hudi_metastore_write"
_MYSQL_DUPLICATE_KEY = (1062, 1586)
"""MySQL/MariaDB's ER_DUP_ENTRY and ER_DUP_ENTRY_WITH_KEY_NAME."""
_POSTGRESQL_UNIQUE_VIOLATION = "23505"
INIT_LOCK_SECONDS = 120


def _ping_when_idle(engine: Engine, idle_seconds: float) -> None:
    """Ping a pooled connection before use only when it sat idle for ``idle_seconds``.

    A connection in steady use is alive; one that sat in the pool may have been closed by the server
    (``wait_timeout``, a restart). A dead one raises ``DisconnectionError``, on which the pool replaces it.
    """

    @event.listens_for(engine, "checkin")
    def _checked_in(_dbapi_connection, record) -> None:
        record.info["checked_in"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checked_out(dbapi_connection, record, _proxy) -> None:
        checked_in = record.info.get("checked_in")
        if checked_in is not None and time.monotonic() - checked_in >= idle_seconds:
            try:
                dbapi_connection.ping(reconnect=False)
            except Exception as error:
                log.info("replacing a dead pooled connection: %s", error)
                raise DisconnectionError(str(error)) from error


def _bound_idle_transactions(engine: Engine) -> None:
    """On MariaDB, have the server end a write transaction left idle by a client that was cut off."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        if "MariaDB" in dbapi_connection.get_server_info():
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SET SESSION idle_write_transaction_timeout = %s",
                               (config.MARIADB_IDLE_WRITE_TRANSACTION_SECONDS,))


def _use_wal(cursor) -> None:
    """Switch a SQLite file to WAL mode (persistent, so only the first connection of a new file does it).

    The switch needs the file to itself and fails at once, without waiting, while another connection holds
    it (several servers opening one new file): it is retried for up to the busy timeout.
    """
    deadline = time.monotonic() + config.SQLITE_BUSY_TIMEOUT_MS / 1000
    while cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun by _on_begin below
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={config.SQLITE_BUSY_TIMEOUT_MS}")
        if engine.url.database not in (None, "", ":memory:"):
            _use_wal(cursor)
            cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get(_WRITE_OPTION, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def make_engine(url: str, ping_after_idle: float = config.MYSQL_PING_AFTER_IDLE_SECONDS) -> Engine:
    """Create the engine for a SQLAlchemy URL (``sqlite:///path`` or ``mysql+pymysql://...``)."""
    if url.startswith("sqlite"):
        engine = create_engine(url)
        _configure_sqlite(engine)
        return engine
    if url.startswith(("mysql", "mariadb")):
        engine = create_engine(
            url,
            pool_size=config.MYSQL_POOL_SIZE,
            max_overflow=config.MYSQL_MAX_OVERFLOW,
            pool_recycle=3600,
            pool_reset_on_return=None,
            connect_args={"charset": "utf8mb4", "connect_timeout": config.MYSQL_CONNECT_TIMEOUT_SECONDS,
                          "read_timeout": config.MYSQL_IO_TIMEOUT_SECONDS,
                          "write_timeout": config.MYSQL_IO_TIMEOUT_SECONDS},
        )
        _ping_when_idle(engine, ping_after_idle)
        _bound_idle_transactions(engine)
        return engine
    return create_engine(url, pool_pre_ping=True)


_TRANSACTION = "hudi_metastore_transaction"
_BEFORE_COMMIT = "before_commit"


def transaction_state(conn: Connection) -> dict:
    """A dict that lives as long as ``conn``'s current transaction (gone when it ends, committed or not)."""
    return conn.info.setdefault(_TRANSACTION, {})


def before_commit(conn: Connection, hook: Callable[[Connection], None]) -> None:
    """Run ``hook`` as the last statements of ``conn``'s transaction, when its block ended without error
    (hooks run in the order added). Statements that take a lock every writer needs belong there: the lock is
    then held only for the moment before the commit."""
    transaction_state(conn).setdefault(_BEFORE_COMMIT, []).append(hook)


def is_duplicate_key(error: IntegrityError) -> bool:
    """Whether a unique or primary key refused the row (not a foreign key, a NOT NULL or a CHECK)."""
    original = error.orig
    code = original.args[0] if original is not None and original.args else None
    if isinstance(code, int):  # MySQL/MariaDB (PyMySQL): the server's error number
        return code in _MYSQL_DUPLICATE_KEY
    state = getattr(original, "sqlstate", None) or getattr(original, "pgcode", None)
    if isinstance(state, str):  # PostgreSQL drivers
        return state == _POSTGRESQL_UNIQUE_VIOLATION
    return str(original).startswith("UNIQUE constraint failed")  # SQLite


_MYSQL_TRANSIENT = {
    1053,  # server shutdown in progress
    1205,  # lock wait timeout exceeded
    1213,  # deadlock found when trying to get lock
    1927,  # connection was killed
    2002, 2003,  # can't connect (restarting, failing over)
    2006, 2013, 2055,  # server has gone away, lost connection
    4031,  # disconnected by the server because of inactivity
}
_SQLITE_TRANSIENT = ("database is locked", "database table is locked")


def is_transient(error: OperationalError | DisconnectionError) -> bool:
    """Whether a database error may pass if the transaction is tried again."""
    if isinstance(error, DisconnectionError) or getattr(error, "connection_invalidated", False):
        return True
    original = getattr(error, "orig", None)
    code = original.args[0] if original is not None and original.args else None
    if isinstance(code, int):
        return code in _MYSQL_TRANSIENT
    return str(original).startswith(_SQLITE_TRANSIENT)


class Store:
    """The catalog database: its engine, layout version and transactions."""

    def __init__(self, url: str, **engine_options) -> None:
        self.url = url
        self.engine = make_engine(url, **engine_options)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only transaction."""
        with self._transaction(write=False) as conn:
            yield conn

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A transaction that may change the store; committed when the block ends without error."""
        with self._transaction(write=True) as conn:
            yield conn

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[Connection]:
        committing = False
        try:
            with self.engine.connect() as conn:
                if write:
                    conn = conn.execution_options(**{_WRITE_OPTION: True})
                with conn.begin():
                    try:
                        yield conn
                        for hook in transaction_state(conn).get(_BEFORE_COMMIT, ()):
                            hook(conn)
                    finally:
                        if not conn.invalidated:  # an invalidated connection's info goes with it
                            conn.info.pop(_TRANSACTION, None)
                    committing = True
            if write:
                note_commit()
        except IntegrityError as e:
            if is_duplicate_key(e):  # a row another transaction committed first (two concurrent creates)
                raise AlreadyExistsError(f"the object already exists (concurrent change): {e.orig}") from e
            # a reference whose object is gone (dropped meanwhile), a value missing
            raise InvalidObjectError(f"the change breaks a catalog constraint: {e.orig}") from e
        except (OperationalError, DisconnectionError) as e:
            cause = getattr(e, "orig", None) or e
            if committing:  # the server may have committed before the connection broke
                raise StorageError(f"catalog database error while committing (the change may or may not have "
                                   f"been applied): {cause}") from e
            if is_transient(e):
                raise TransientStorageError(f"catalog database error: {cause}") from e
            raise StorageError(f"catalog database error: {cause}") from e

    def init_schema(self) -> int:
        """Create the tables that are missing and migrate an older layout; returns the layout version.

        Safe to run on every start and from several processes at once: existing tables are left as they
        are, and concurrent initialisations take turns (a named lock on MySQL, the write lock on SQLite).
        """
        with self._init_lock(), self._schema_transaction() as conn:
            schema.metadata.create_all(conn, checkfirst=True)
            row = conn.execute(select(schema.schema_version.c.version)).first()
            if row is None:
                conn.execute(insert(schema.schema_version).values(id=1, version=schema.SCHEMA_VERSION))
                sequences.seed(conn)
                authorization.seed_roles(conn, int(time.time()))
                log.info("created catalog schema version %d", schema.SCHEMA_VERSION)
                return schema.SCHEMA_VERSION
            version = row.version
            if version > schema.SCHEMA_VERSION:
                raise StorageError(
                    f"the catalog database has schema version {version}, newer than this server's "
                    f"{schema.SCHEMA_VERSION}; upgrade hudi-metastore"
                )
            while version < schema.SCHEMA_VERSION:
                log.info("migrating catalog schema from version %d", version)
                MIGRATIONS[version](conn)
                version += 1
            conn.execute(update(schema.schema_version).values(version=version))
            return version

    @contextmanager
    def _schema_transaction(self) -> Iterator[Connection]:
        """The transaction that creates and migrates the schema. On SQLite it runs with foreign keys off, as
        SQLite's way of changing a table's definition (make the new table, copy, drop the old, rename)
        needs, and they are checked before the commit."""
        if self.dialect != "sqlite":
            with self.write() as conn:
                yield conn
            return
        with self.engine.connect() as conn:
            dbapi_connection = conn.connection.dbapi_connection
            dbapi_connection.execute("PRAGMA foreign_keys=OFF")  # before the transaction: inside, it is ignored
            try:
                conn = conn.execution_options(**{_WRITE_OPTION: True})
                with conn.begin():
                    yield conn
                    broken = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if broken:
                        raise StorageError(f"the schema change broke foreign keys: {broken[:5]}")
            finally:
                dbapi_connection.execute("PRAGMA foreign_keys=ON")

    @contextmanager
    def _init_lock(self) -> Iterator[None]:
        """On MySQL, hold a named lock for the catalog database while its schema is created or migrated
        (DDL commits implicitly there, so a transaction cannot serialise it). SQLite's write lock does."""
        if self.dialect not in ("mysql", "mariadb"):
            yield
            return
        name = f"hudi_metastore_init:{self.engine.url.database}"[:64]
        with self.engine.connect() as lock_conn:
            if lock_conn.exec_driver_sql("SELECT GET_LOCK(%s, %s)", (name, INIT_LOCK_SECONDS)).scalar() != 1:
                raise StorageError("timed out waiting for another server to initialise the catalog schema")
            try:
                yield
            finally:
                lock_conn.exec_driver_sql("SELECT RELEASE_LOCK(%s)", (name,))

    def dispose(self) -> None:
        self.engine.dispose()
