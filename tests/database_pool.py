"""Catalog databases on the server stores (MariaDB, PostgreSQL), lent to one test at a time and reused.

Making a database that holds the catalog schema costs 0.1 to 0.3 s (a hundred DDL statements on MariaDB, a
template copy on PostgreSQL), and some 860 tests need one; emptying a used one costs a few milliseconds. So a
test borrows a database from its worker's pool; when it returns, the connections still open on it are ended,
its rows are deleted and the rows a new schema starts with are put back. A database whose tables or layout the
test changed is dropped instead of reused, as is one that cannot be emptied.

The reset keeps the tables' id counters (MariaDB's AUTO_INCREMENT, PostgreSQL's identity sequences) where the
test left them (resetting them on MariaDB is DDL, as slow as a new schema): the catalog's ids are opaque, and
no test may expect a particular one.
"""

from __future__ import annotations

import logging
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pymysql
from sqlalchemy import create_engine, select
from sqlalchemy.engine import make_url

from hudi_catalog.store import schema
from hudi_catalog.store.engine import Store

log = logging.getLogger(__name__)

TABLES = [table.name for table in schema.metadata.sorted_tables]


class _Backend(ABC):
    """Creating, emptying and dropping databases on one server."""

    def __init__(self, server_url: str) -> None:
        self.server_url = server_url

    def url_of(self, name: str) -> str:
        return make_url(self.server_url).set(database=name).render_as_string(hide_password=False)

    @abstractmethod
    def create(self) -> str:
        """A new database holding the catalog schema; returns its name."""

    @abstractmethod
    def reset(self, name: str, seed: dict[str, list[dict[str, Any]]]) -> None:
        """End the connections on database ``name``, delete every row, insert ``seed``."""

    @abstractmethod
    def drop(self, name: str) -> None: ...

    @abstractmethod
    def state(self, name: str) -> tuple[set[str], int | None]:
        """The tables of database ``name`` and its schema layout (``schema_version``)."""


class MySqlBackend(_Backend):
    def _admin(self) -> pymysql.connections.Connection:
        url = make_url(self.server_url)
        return pymysql.connect(
            host=url.host, port=url.port or 3306, user=url.username, password=url.password or "", autocommit=True
        )

    def create(self) -> str:
        name = f"hms_test_{uuid.uuid4().hex[:12]}"
        admin = self._admin()
        try:
            with admin.cursor() as cur:
                cur.execute(f"CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
        finally:
            admin.close()
        _init_schema(self.url_of(name))
        return name

    def reset(self, name: str, seed: dict[str, list[dict[str, Any]]]) -> None:
        admin = self._admin()
        try:
            with admin.cursor() as cur:
                cur.execute(
                    "SELECT id FROM information_schema.processlist WHERE db = %s AND id <> CONNECTION_ID()", (name,)
                )
                for (thread,) in cur.fetchall():
                    try:
                        cur.execute(f"KILL {int(thread)}")
                    except pymysql.err.OperationalError:  # ended meanwhile
                        pass
                cur.execute(f"USE {name}")
                cur.execute("SET SESSION innodb_lock_wait_timeout = 5, FOREIGN_KEY_CHECKS = 0")
                admin.begin()
                for table in reversed(TABLES):
                    cur.execute(f"DELETE FROM `{table}`")
                _insert_seed(cur, seed, "`{}`", "%s")
                admin.commit()
        finally:
            admin.close()

    def drop(self, name: str) -> None:
        admin = self._admin()
        try:
            with admin.cursor() as cur:
                cur.execute(f"DROP DATABASE IF EXISTS {name}")
        finally:
            admin.close()

    def state(self, name: str) -> tuple[set[str], int | None]:
        admin = self._admin()
        try:
            with admin.cursor() as cur:
                cur.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (name,))
                tables = {row[0] for row in cur.fetchall()}
                cur.execute(f"SELECT version FROM {name}.schema_version")
                layout = cur.fetchone()
            return tables, layout[0] if layout else None
        finally:
            admin.close()


class PostgreSqlBackend(_Backend):
    """New databases are copies of ``template`` (a database holding the schema and nothing else)."""

    def __init__(self, server_url: str, template: str) -> None:
        super().__init__(server_url)
        self.template = template

    def _connect(self, database: str | None = None) -> psycopg.Connection:
        url = make_url(self.server_url).set(drivername="postgresql")
        if database is not None:
            url = url.set(database=database)
        return psycopg.connect(url.render_as_string(hide_password=False), autocommit=True)

    def create(self) -> str:
        name = f"hms_test_{uuid.uuid4().hex[:12]}"
        with self._connect() as admin:
            admin.execute(f"CREATE DATABASE {name} TEMPLATE {self.template}")
        return name

    def reset(self, name: str, seed: dict[str, list[dict[str, Any]]]) -> None:
        with self._connect() as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )
        with self._connect(name) as conn:
            conn.execute("SET lock_timeout = '5s'")
            with conn.transaction(), conn.cursor() as cur:
                for table in reversed(TABLES):  # DELETE: TRUNCATE makes new files, slower for small tables
                    cur.execute(f'DELETE FROM "{table}"')
                _insert_seed(cur, seed, '"{}"', "%s")

    def drop(self, name: str) -> None:
        with self._connect() as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def state(self, name: str) -> tuple[set[str], int | None]:
        with self._connect(name) as conn:
            tables = {row[0] for row in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
            layout = conn.execute("SELECT version FROM schema_version").fetchone()
        return tables, layout[0] if layout else None


class CatalogDatabasePool:
    """The databases one test process lends out (see the module's text)."""

    def __init__(self, backend: _Backend) -> None:
        self.backend = backend
        self._free: list[str] = []
        self._all: list[str] = []
        self._seed: dict[str, list[dict[str, Any]]] | None = None
        self._tables: set[str] | None = None

    @contextmanager
    def lend(self) -> Iterator[str]:
        """A database holding the catalog schema and only the rows a new schema has; yields its URL."""
        name = self._free.pop() if self._free else self._create()
        try:
            yield self.backend.url_of(name)
        finally:
            self._give_back(name)

    def close(self) -> None:
        for name in self._all:
            self.backend.drop(name)
        self._all.clear()
        self._free.clear()

    def _create(self) -> str:
        name = self.backend.create()
        self._all.append(name)
        if self._seed is None:
            self._seed = _rows(self.backend.url_of(name))
            self._tables = self.backend.state(name)[0]
        return name

    def _give_back(self, name: str) -> None:
        try:
            if self.backend.state(name) != (self._tables, schema.SCHEMA_VERSION):
                raise ValueError("its tables or layout changed")
            self.backend.reset(name, self._seed or {})
        except Exception as error:  # dropped rather than reused
            log.info("test database %s dropped, not reused: %s", name, error)
            self._all.remove(name)
            self.backend.drop(name)
            return
        self._free.append(name)


def _init_schema(url: str) -> None:
    store = Store(url)
    try:
        store.init_schema()
    finally:
        store.dispose()


def _rows(url: str) -> dict[str, list[dict[str, Any]]]:
    """The rows of every table of a database, by table (what a new schema starts with)."""
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as conn:
            found = {
                table.name: [dict(r._mapping) for r in conn.execute(select(table))]
                for table in schema.metadata.sorted_tables
            }
    finally:
        engine.dispose()
    return {name: rows for name, rows in found.items() if rows}


def _insert_seed(cursor, seed: dict[str, list[dict[str, Any]]], quote: str, placeholder: str) -> None:
    for table in TABLES:
        rows = seed.get(table)
        if not rows:
            continue
        columns = list(rows[0])
        cursor.executemany(
            f"INSERT INTO {quote.format(table)} ({', '.join(quote.format(c) for c in columns)}) "
            f"VALUES ({', '.join([placeholder] * len(columns))})",
            [tuple(row[c] for c in columns) for row in rows],
        )
