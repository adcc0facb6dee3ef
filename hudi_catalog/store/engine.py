"""The database engine of the store and its transactions.

Every catalog call runs in one transaction: ``Store.read()`` for calls that only read, ``Store.write()`` for
calls that change anything. On SQLite a write transaction starts with ``BEGIN IMMEDIATE`` so concurrent
writers queue on the database lock instead of failing when they upgrade a read lock.
"""

from __future__ import annotations

import importlib.util
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, create_engine, event, inspect, select
from sqlalchemy.exc import DataError, DisconnectionError, IntegrityError, InternalError, OperationalError

from .. import config, java_regex
from ..errors import (
    AlreadyExistsError,
    InvalidInputError,
    InvalidObjectError,
    SchemaVersionError,
    StorageError,
    TransientStorageError,
)
from ..observability import IGNORED, CatalogObserver
from ..retries import note_commit
from . import migrations, schema
from .driver_sql import DriverConnection
from .schema_steps import Migration
from .widths import guard_widths

log = logging.getLogger(__name__)

_WRITE_OPTION = "hudi_metastore_write"
_MYSQL_DUPLICATE_KEY = (1062, 1586)
"""MySQL/MariaDB's ER_DUP_ENTRY and ER_DUP_ENTRY_WITH_KEY_NAME."""
_POSTGRESQL_UNIQUE_VIOLATION = "23505"
INIT_LOCK_SECONDS = 120


def _ping_when_idle(engine: Engine, idle_seconds: float, ping: Callable[[object], None]) -> None:
    """Ping a pooled connection before use only when it sat idle for ``idle_seconds``.

    A connection in steady use is alive; one that sat in the pool may have been closed by the server
    (``wait_timeout``, a restart). A dead one raises ``DisconnectionError``, on which the pool replaces it.
    ``ping`` checks one driver connection (raising when it is dead).
    """

    @event.listens_for(engine, "checkin")
    def _checked_in(_dbapi_connection, record) -> None:
        record.info["checked_in"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checked_out(dbapi_connection, record, _proxy) -> None:
        checked_in = record.info.get("checked_in")
        if checked_in is not None and time.monotonic() - checked_in >= idle_seconds:
            try:
                ping(dbapi_connection)
            except Exception as error:
                log.info("replacing a dead pooled connection: %s", error)
                raise DisconnectionError(str(error)) from error


GALERA = "hudi_metastore_galera"
"""The key of a pooled connection's ``info`` that is True when its server is a node of a Galera cluster."""


def on_galera(conn: Connection) -> bool:
    """Whether ``conn`` talks to a node of a MariaDB Galera cluster (``wsrep_on``)."""
    return bool(conn.connection.info.get(GALERA))


def _configure_mariadb_sessions(engine: Engine) -> None:
    """On MariaDB, have the server end a transaction left idle by a client that was cut off; on a node
    of a Galera cluster, also have each statement wait until the node applied what other nodes committed
    before it (``wsrep_sync_wait``), so a server reads its own and other servers' writes through any node."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, record) -> None:
        if "MariaDB" not in dbapi_connection.get_server_info():
            return
        with dbapi_connection.cursor() as cursor:
            cursor.execute("SET SESSION idle_transaction_timeout = %s", (config.IDLE_TRANSACTION_SECONDS,))
            cursor.execute("SHOW VARIABLES LIKE 'wsrep_on'")
            row = cursor.fetchone()
            if row is not None and str(row[1]).upper() == "ON":
                record.info[GALERA] = True
                cursor.execute("SET SESSION wsrep_sync_wait = %s", (config.GALERA_SYNC_WAIT,))


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
        # REGEXP by RE2, in linear time (in place of SQLAlchemy's, on Python's backtracking re)
        dbapi_connection.create_function("regexp", 2, java_regex.regexp, deterministic=True)
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


def _ping_mysql(dbapi_connection) -> None:
    """Raises when the connection is dead. Never reconnects: a new session would lack the settings made on
    connect (PyMySQL reconnects unless told not to; mysqlclient does not)."""
    if type(dbapi_connection).__module__.startswith("pymysql"):
        dbapi_connection.ping(reconnect=False)
    else:
        dbapi_connection.ping()


def _ping_postgresql(dbapi_connection) -> None:
    dbapi_connection.execute("SELECT 1")
    dbapi_connection.rollback()


def postgresql_url(url: str) -> str:
    """A PostgreSQL URL with the driver this store uses (psycopg 3): ``postgresql://`` and ``postgres://``
    (libpq's forms) become ``postgresql+psycopg://``; a URL naming a driver is left as it is.

    Example:
        >>> postgresql_url("postgresql://hms@db:5432/metastore")
        'postgresql+psycopg://hms@db:5432/metastore'
    """
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            return "postgresql+psycopg://" + url[len(plain) :]
    return url


def mysql_driver() -> str:
    """The driver of ``mysql://`` and ``mariadb://`` URLs: mysqlclient (``mysqldb``, MariaDB's C client
    library; the ``mysql`` extra) when it is installed, else PyMySQL (pure Python, always installed).
    mysqlclient answers a call's statements in about half PyMySQL's time (``benchmarks/call_layers.py``)."""
    return "mysqldb" if importlib.util.find_spec("MySQLdb") is not None else "pymysql"


def mysql_url(url: str, driver: str | None = None) -> str:
    """A MySQL/MariaDB URL with a driver: ``mysql://`` and ``mariadb://`` get ``driver`` (``mysql_driver()``
    when None); a URL naming a driver is left as it is.

    Example:
        >>> mysql_url("mysql://hms@db:3306/metastore", "pymysql")
        'mysql+pymysql://hms@db:3306/metastore'
        >>> mysql_url("mariadb+pymysql://hms@db:3306/metastore", "mysqldb")
        'mariadb+pymysql://hms@db:3306/metastore'
    """
    for plain in ("mysql://", "mariadb://"):
        if url.startswith(plain):
            return f"{plain[:-3]}+{driver or mysql_driver()}://{url[len(plain) :]}"
    return url


def is_postgresql_url(url: str) -> bool:
    return url.startswith(("postgresql", "postgres://"))


def _server_store_engine(
    url: str, ping_after_idle: float, ping: Callable[[object], None], autocommit: bool, **options
) -> Engine:
    """A pooled engine for a server store (MySQL/MariaDB, PostgreSQL): one pool size and recycling for both,
    and idle connections pinged before use; with ``autocommit``, its connections in autocommit mode."""
    if autocommit:
        options["isolation_level"] = "AUTOCOMMIT"
    engine = create_engine(
        url,
        pool_size=config.SERVER_STORE_POOL_SIZE,
        max_overflow=config.SERVER_STORE_MAX_OVERFLOW,
        pool_recycle=3600,
        **options,
    )
    _ping_when_idle(engine, ping_after_idle, ping)
    return engine


def make_engine(
    url: str, ping_after_idle: float = config.SERVER_STORE_PING_AFTER_IDLE_SECONDS, autocommit: bool = False
) -> Engine:
    """Create the engine for a SQLAlchemy URL (``sqlite:///path``, ``mysql://...`` or ``mariadb://...``
    (``mysql_driver()``), ``postgresql://...`` (psycopg 3), or one naming its driver). ``autocommit`` (a
    server store's only): its connections run each statement as a transaction of its own."""
    if is_postgresql_url(url):
        return _server_store_engine(
            postgresql_url(url),
            ping_after_idle,
            _ping_postgresql,
            autocommit,
            connect_args={
                "connect_timeout": config.SERVER_STORE_CONNECT_TIMEOUT_SECONDS,
                # a server cut off mid-transaction holds no row locks for long; a send unacknowledged for
                # the I/O timeout breaks the connection
                "options": f"-c idle_in_transaction_session_timeout={config.IDLE_TRANSACTION_SECONDS * 1000}",
                "tcp_user_timeout": config.SERVER_STORE_IO_TIMEOUT_SECONDS * 1000,
                "keepalives_idle": config.SERVER_STORE_IO_TIMEOUT_SECONDS,
            },
        )
    if url.startswith("sqlite"):
        engine = create_engine(url)
        _configure_sqlite(engine)
        return engine
    if url.startswith(("mysql", "mariadb")):
        engine = _server_store_engine(
            mysql_url(url),
            ping_after_idle,
            _ping_mysql,
            autocommit,
            pool_reset_on_return=None,
            connect_args={
                "charset": "utf8mb4",
                "connect_timeout": config.SERVER_STORE_CONNECT_TIMEOUT_SECONDS,
                "read_timeout": config.SERVER_STORE_IO_TIMEOUT_SECONDS,
                "write_timeout": config.SERVER_STORE_IO_TIMEOUT_SECONDS,
            },
        )
        _configure_mariadb_sessions(engine)
        return engine
    return create_engine(url, pool_pre_ping=True)


@dataclass
class _Attempt:
    """One transaction's progress, as its errors are classified."""

    committing: bool = False
    """The commit was sent: a failure may or may not have left the change applied, unless the database
    refused it (``refused_commit``)."""


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


def _mysql_code(original: BaseException | None) -> int | None:
    """The MySQL/MariaDB server's error number of a driver error (either driver); None for another store's."""
    code = original.args[0] if original is not None and original.args else None
    return code if isinstance(code, int) else None


def is_duplicate_key(error: IntegrityError) -> bool:
    """Whether a unique or primary key refused the row (not a foreign key, a NOT NULL or a CHECK)."""
    original = error.orig
    code = _mysql_code(original)
    if code is not None:  # MySQL/MariaDB (either driver): the server's error number
        return code in _MYSQL_DUPLICATE_KEY
    state = getattr(original, "sqlstate", None) or getattr(original, "pgcode", None)
    if isinstance(state, str):  # PostgreSQL drivers
        return state == _POSTGRESQL_UNIQUE_VIOLATION
    return str(original).startswith("UNIQUE constraint failed")  # SQLite


_MYSQL_TRANSIENT = {
    1047,  # a Galera node not ready for clients (joining, or cut off from the cluster's primary component)
    1053,  # server shutdown in progress
    1205,  # lock wait timeout exceeded
    1213,  # deadlock found when trying to get lock
    1927,  # connection was killed
    2002,
    2003,  # can't connect (restarting, failing over)
    2006,
    2013,
    2055,  # server has gone away, lost connection
    4031,  # disconnected by the server because of inactivity
}
_TRANSIENT_MESSAGES = (
    "database is locked",
    "database table is locked",  # SQLite
    "connection failed",
    "connection is lost",
    "consuming input failed",  # psycopg, no SQLSTATE: no server
)
_POSTGRESQL_TRANSIENT = {
    "40001",  # serialization failure
    "40P01",  # deadlock detected
    "55P03",  # lock not available
    "25P03",  # idle in transaction session timeout: the server ended a transaction left idle
    "57P01",
    "57P02",
    "57P03",  # admin shutdown, crash shutdown, cannot connect now (starting, recovering)
}
"""PostgreSQL SQLSTATEs after which the transaction may pass when tried again, beside class 08 (connection
exceptions)."""


def is_transient(error: OperationalError | InternalError | DisconnectionError) -> bool:
    """Whether a database error may pass if the transaction is tried again."""
    if isinstance(error, DisconnectionError) or getattr(error, "connection_invalidated", False):
        return True
    original = getattr(error, "orig", None)
    code = _mysql_code(original)
    if code is not None:
        return code in _MYSQL_TRANSIENT
    state = getattr(original, "sqlstate", None)
    if isinstance(state, str):  # PostgreSQL (psycopg)
        return state in _POSTGRESQL_TRANSIENT or state.startswith("08")
    return str(original).startswith(_TRANSIENT_MESSAGES)


_MYSQL_SCHEMA_RACE = {1050, 1060, 1061}
"""MySQL/MariaDB errors of DDL that another server ran first (a table, column or index that exists)."""
_MYSQL_COMMIT_REFUSED = {1213}
"""MySQL/MariaDB errors of a ``COMMIT`` that rolled the transaction back: a Galera node answers a
transaction that failed certification (another node committed a conflicting change first) with a deadlock."""
_POSTGRESQL_COMMIT_REFUSED = {"40001", "40P01"}
"""PostgreSQL SQLSTATEs of a ``COMMIT`` that rolled the transaction back (serialization failure, deadlock)."""


def refused_commit(error: OperationalError | InternalError | DisconnectionError) -> bool:
    """Whether a failed ``COMMIT`` is known to have applied nothing: the database answered, refusing it (a
    lost connection leaves the outcome unknown)."""
    if isinstance(error, DisconnectionError) or getattr(error, "connection_invalidated", False):
        return False
    original = getattr(error, "orig", None)
    code = _mysql_code(original)
    if code is not None:
        return code in _MYSQL_COMMIT_REFUSED
    return getattr(original, "sqlstate", None) in _POSTGRESQL_COMMIT_REFUSED


def _layout_version(conn: Connection) -> int | None:
    """The layout version recorded in the database; None when it has no catalog schema (yet)."""
    if not inspect(conn).has_table(schema.schema_version.name):
        return None
    return conn.execute(select(schema.schema_version.c.version)).scalar()


class Store:
    """The catalog database: its engine, layout version and transactions."""

    def __init__(self, url: str, observer: CatalogObserver = IGNORED, **engine_options) -> None:
        self.url = url
        self.engine = make_engine(url, **engine_options)
        guard_widths(self.engine)
        self.statement_engine: Engine | None = (
            None if self.engine.dialect.name == "sqlite" else make_engine(url, autocommit=True, **engine_options)
        )
        """A server store's second pool, of connections in autocommit mode, for ``driver_read``: a read of one
        statement then needs no ``COMMIT`` (MySQL) and no ``BEGIN`` either (PostgreSQL). None on SQLite, whose
        commit is no round trip."""
        self.observer = observer

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
    def driver_read(self) -> Iterator[DriverConnection]:
        """A read of one ``DriverStatement``, on a pooled driver connection without SQLAlchemy's
        ``Connection`` and transaction (``driver_sql``): for the most frequent calls, one small statement
        each, whose time those objects were a third of. On MySQL and PostgreSQL the connection is one of
        ``statement_engine``'s, in autocommit mode: the statement is its own transaction. A second statement
        is refused (it would not see the first one's snapshot). Its errors are those of ``read()`` (its
        commit applies nothing, so a connection lost then is as transient as before it)."""
        with self._classified_errors(_Attempt()):
            started = time.perf_counter()
            conn = DriverConnection(self.engine, self.statement_engine)
            self.observer.connection_acquired(time.perf_counter() - started)
            ended = False
            try:
                yield conn
                conn.commit()
                ended = True
            finally:
                conn.release(ended)
                self.observer.connection_released()

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[Connection]:
        attempt = _Attempt()
        with self._classified_errors(attempt):
            with self._connection() as conn:
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
                    attempt.committing = True
            if write:
                note_commit()

    @staticmethod
    @contextmanager
    def _classified_errors(attempt: _Attempt) -> Iterator[None]:
        """The database's errors inside the block as the catalog's errors (``attempt`` tells whether the
        transaction was committing)."""
        try:
            yield
        # the messages name no table, constraint, SQL or host of the catalog database: those are in detail,
        # which front ends log and never send to clients
        except IntegrityError as e:
            if is_duplicate_key(e):  # a row another transaction committed first (two concurrent creates)
                raise AlreadyExistsError(
                    "The object already exists: a concurrent request created it", detail=str(e.orig)
                ) from e
            # a reference whose object is gone (dropped meanwhile), a value missing
            raise InvalidObjectError(
                "The change refers to an object that no longer exists (a concurrent request changed it) or "
                "lacks a required value",
                detail=str(e.orig),
            ) from e
        except DataError as e:  # a value the database cannot hold, e.g. a NUL character on PostgreSQL
            raise InvalidInputError(
                "The catalog database cannot store a value of this request (a NUL character, a number out of range)",
                detail=str(e.orig),
            ) from e
        except (OperationalError, InternalError, DisconnectionError) as e:  # PostgreSQL's class 25: internal
            detail = str(getattr(e, "orig", None) or e)
            if attempt.committing and not refused_commit(e):  # it may have committed before the connection broke
                raise StorageError(
                    "The catalog database failed while committing: the change may or may not have been applied",
                    detail=detail,
                ) from e
            if is_transient(e):
                raise TransientStorageError(
                    "The catalog database is unavailable or busy (connection lost, restart, deadlock); the call "
                    "may be tried again",
                    detail=detail,
                ) from e
            raise StorageError("The catalog database failed; the metastore's log has the details", detail=detail) from e

    @contextmanager
    def _connection(self) -> Iterator[Connection]:
        """A pooled connection, its wait and its release reported to the observer."""
        started = time.perf_counter()
        with self.engine.connect() as conn:
            self.observer.connection_acquired(time.perf_counter() - started)
            try:
                yield conn
            finally:
                self.observer.connection_released()

    def schema_version(self) -> int | None:
        """The database's layout version; None when it holds no catalog schema."""
        with self.read() as conn:
            return _layout_version(conn)

    def init_schema(self, upgrade: bool = False) -> tuple[int | None, list[Migration]]:
        """Create the schema on an empty database; with ``upgrade``, migrate an older layout. Returns the
        layout found (None: empty) and the migrations applied.

        Safe to run on every start and from several processes at once: concurrent initialisations take turns
        (a named lock on MySQL, the write lock on SQLite) and each reads the version once it has its turn. On
        a Galera cluster the named lock holds on one node only: a server that finds a table, a column or the
        version's row made meanwhile through another node reads the version again.

        Raises:
            SchemaVersionError: the layout is newer than this build's, or older and ``upgrade`` is off.
        """
        deadline = time.monotonic() + INIT_LOCK_SECONDS
        while True:
            try:
                return self._init_schema_once(upgrade)
            except (StorageError, AlreadyExistsError) as error:
                cause = getattr(error.__cause__, "orig", None)
                raced = (
                    isinstance(error, (AlreadyExistsError, TransientStorageError))  # a row, a conflict at commit
                    or _mysql_code(cause) in _MYSQL_SCHEMA_RACE
                )
                if not raced or time.monotonic() > deadline:
                    raise
                log.info("catalog schema: another server changed it meanwhile (%s); reading it again", cause)
                time.sleep(0.5)

    def _init_schema_once(self, upgrade: bool) -> tuple[int | None, list[Migration]]:
        with self._init_lock(), self._schema_transaction() as conn:
            found = _layout_version(conn)
            if found is not None and found > schema.SCHEMA_VERSION:
                raise SchemaVersionError(
                    f"the catalog database has schema layout {found}, newer than this build's "
                    f"{schema.SCHEMA_VERSION}; upgrade hudi-metastore"
                )
            if found is not None and found < schema.SCHEMA_VERSION and not upgrade:
                names = ", ".join(m.name for m in migrations.pending(found))
                raise SchemaVersionError(
                    f"the catalog database has schema layout {found}, older than this build's "
                    f"{schema.SCHEMA_VERSION} (pending: {names}); run `hudi-metastore schema upgrade` "
                    "(or `hudi-metastore schema sql` for the script), or start with --upgrade-schema"
                )
            applied = migrations.plan(found)
            for migration in applied:
                log.info("catalog schema: applying layout %d (%s)", migration.version, migration.name)
                for step in migration.steps:
                    step.apply(conn)
            return found, applied

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
            if dbapi_connection is None:  # only an invalidated connection has none
                raise StorageError("the SQLite connection for the schema change was invalidated")
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
        """Hold a lock for the catalog database while its schema is created or migrated: a named lock on
        MySQL (DDL commits implicitly there, so a transaction cannot serialise it), an advisory lock on
        PostgreSQL (two transactions creating the same tables would fail on the system catalogs' keys).
        SQLite's write lock does."""
        name = f"hudi_metastore_init:{self.engine.url.database}"[:64]
        if self.dialect == "postgresql":
            with self._postgresql_advisory_lock(name):
                yield
            return
        if self.dialect not in ("mysql", "mariadb"):
            yield
            return
        with self.engine.connect() as lock_conn:
            if lock_conn.exec_driver_sql("SELECT GET_LOCK(%s, %s)", (name, INIT_LOCK_SECONDS)).scalar() != 1:
                raise StorageError("timed out waiting for another server to initialise the catalog schema")
            try:
                yield
            finally:
                lock_conn.exec_driver_sql("SELECT RELEASE_LOCK(%s)", (name,))

    @contextmanager
    def _postgresql_advisory_lock(self, name: str) -> Iterator[None]:
        deadline = time.monotonic() + INIT_LOCK_SECONDS
        with self.engine.connect() as lock_conn:
            lock_conn = lock_conn.execution_options(isolation_level="AUTOCOMMIT")
            while not lock_conn.exec_driver_sql("SELECT pg_try_advisory_lock(hashtext(%s))", (name,)).scalar():
                if time.monotonic() > deadline:
                    raise StorageError("timed out waiting for another server to initialise the catalog schema")
                time.sleep(0.05)
            try:
                yield
            finally:
                lock_conn.exec_driver_sql("SELECT pg_advisory_unlock(hashtext(%s))", (name,))

    def dispose(self) -> None:
        self.engine.dispose()
        if self.statement_engine is not None:
            self.statement_engine.dispose()
