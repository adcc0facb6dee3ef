"""Databases: create, read, alter and drop, with their warehouse directories."""

from __future__ import annotations

import logging
from dataclasses import replace

from ..catalog_scope import current_catalog
from ..config import DEFAULT_DATABASE_COMMENT, DEFAULT_DATABASE_NAME
from ..errors import (
    AlreadyExistsError,
    CatalogError,
    DatabaseNotEmptyError,
    InvalidObjectError,
    InvalidOperationError,
    NoSuchDatabaseError,
)
from ..events import CatalogEvent, EventType
from ..model import MANAGED_TABLE, USER, Database
from ..names import filter_names, is_valid_name, normalize
from ..store import catalogs as catalog_store
from ..store import databases as db_store
from ..store import functions as function_store
from ..store import locations as location_store
from ..store import schema
from ..store import tables as table_store
from ..store import txns as txn_store
from ..warehouse import join, qualify
from . import directories
from .context import ServiceContext
from .tables import table_claims

log = logging.getLogger(__name__)


class DatabaseService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def ensure_default(self) -> None:
        """Create the ``default`` database at the warehouse root if it is missing (as HMS does at start)."""
        with self.ctx.store.read() as conn:
            if db_store.exists(conn, DEFAULT_DATABASE_NAME):
                return
        try:
            self._create(
                Database(
                    name=DEFAULT_DATABASE_NAME,
                    description=DEFAULT_DATABASE_COMMENT,
                    location=self.ctx.warehouse.root,
                    owner_name="public",
                    owner_type="ROLE",
                ),
                notify=False,  # as Hive, which makes it at start without an event
            )
        except AlreadyExistsError:
            pass  # another server process created it first

    def create(self, database: Database) -> Database:
        return self._create(database, notify=True)

    def _create(self, database: Database, notify: bool) -> Database:
        if not is_valid_name(database.name):
            raise InvalidObjectError(f"{database.name} is not a valid database name")
        database = replace(
            database,
            name=normalize(database.name),
            create_time=database.create_time or self.ctx.now(),
            # as Hive Metastore, which stores a database's owner type as USER when the client gives none (hive
            # sync sends only a name and a description)
            owner_type=database.owner_type or USER,
        )
        with self.ctx.store.write() as conn:
            catalog = catalog_store.find(conn, current_catalog())
            if catalog is None:
                raise InvalidObjectError(f"No such catalog {current_catalog()}")
            # a database without location goes below its catalog's (the warehouse root for hive)
            default_location = (
                self.ctx.warehouse.database_location(database.name)
                if catalog.location_uri is None
                else join(catalog.location_uri, f"{database.name}.db")
            )
            location = qualify(database.location or default_location)
            database = replace(database, location=location)
            directories.check_location(self.ctx.warehouse, location, f"database {database.name}", InvalidObjectError)
            if db_store.exists(conn, database.name):
                raise AlreadyExistsError(f"Database {database.name} already exists")
            # the row first: a create that loses a race for the name fails here, before it could make (and
            # then delete) the directory of the database that won; a failed mkdir rolls the row back
            db_id = db_store.insert_database(conn, database)
            if self.ctx.warehouse.make_dirs(location):
                location_store.record_made(conn, schema.db, [db_id])
            if notify:
                self.ctx.events.emit(conn, CatalogEvent(EventType.CREATE_DATABASE, database=database), self.ctx.now())
        return database

    def get(self, name: str) -> Database:
        """The database: from the read cache while its revision is unchanged (found by one statement,
        ``Store.driver_read``), else read whole and cached."""
        name = normalize(name)
        with self.ctx.store.driver_read() as conn:
            found = db_store.find_revision(conn, name)
        if found is None:
            raise NoSuchDatabaseError(f"There is no database named {name}")
        cached = self.ctx.database_cache.get(*found)
        if cached is not None:
            return cached
        with self.ctx.store.driver_read() as conn:
            stored = db_store.get_database(conn, name)
        self.ctx.database_cache.put(stored.db_id, stored.revision, stored.database)
        return stored.database

    def names(self, pattern: str | None = None) -> list[str]:
        with self.ctx.store.read() as conn:
            return filter_names(db_store.names(conn), pattern)

    def alter(self, name: str, database: Database) -> None:
        """Change owner, description, location and parameters; the name cannot change."""
        with self.ctx.store.write() as conn:
            row = db_store.get_row(conn, normalize(name), lock=True)
            current = db_store.to_model(conn, row)
            if database.location and qualify(database.location) != current.location:
                directories.check_location(
                    self.ctx.warehouse, qualify(database.location), f"database {row.name}", InvalidOperationError
                )
            changed = replace(
                current,
                description=database.description or current.description,
                location=qualify(database.location) if database.location else current.location,
                managed_location=database.managed_location or current.managed_location,
                owner_name=database.owner_name or current.owner_name,
                owner_type=database.owner_type or current.owner_type,
                parameters=database.parameters if database.parameters is not None else current.parameters,
            )
            db_store.update_database(conn, row.db_id, changed)
            self.ctx.events.emit(
                conn, CatalogEvent(EventType.ALTER_DATABASE, database=changed, old_database=current), self.ctx.now()
            )

    def _check_data_reachable(self, name: str) -> None:
        """A drop that deletes the database's data refuses before it starts while the store of its location is
        out of reach (``Warehouse.check_reachable``); an unknown database is left to the drop to report."""
        try:
            location = self.get(name).location
        except NoSuchDatabaseError:
            return
        if location:
            self.ctx.warehouse.check_reachable(location, "Database not dropped")

    def drop(self, name: str, delete_data: bool, cascade: bool) -> None:
        """Drop a database; with ``cascade`` its tables and functions too.

        Raises:
            NoSuchDatabaseError: it does not exist.
            CatalogError: it is the default database.
            DatabaseNotEmptyError: it is not empty and ``cascade`` is false.
            StorageError: the data is to be deleted and its store cannot be reached; nothing was dropped.
        """
        name = normalize(name)
        if name == DEFAULT_DATABASE_NAME:
            raise CatalogError("Can not drop default database")
        if delete_data:
            self._check_data_reachable(name)
        claims: list[directories.Claim] = []
        with self.ctx.store.write() as conn:
            row = db_store.get_row(conn, name, lock=True)
            database = db_store.to_model(conn, row)
            if not cascade:
                if table_store.has_tables(conn, row.db_id):
                    raise DatabaseNotEmptyError(f"Database {name} is not empty. One or more tables exist.")
                if function_store.has_functions(conn, row.db_id):
                    raise DatabaseNotEmptyError(f"Database {name} is not empty. One or more functions exist.")
            # as Hive: the drop of each table and function is an event of its own, before the database's
            dropped: list[CatalogEvent] = []
            in_database = directories.container_of(row.location_uri, location_store.made(row))
            # without cascade the database was just found to hold no table and no function: nothing to read
            for table_row in table_store.rows_in(conn, name) if cascade else []:
                if table_row.tbl_type == MANAGED_TABLE and table_row.location:
                    claims += table_claims(conn, self.ctx.warehouse, table_row, in_database)
                dropped.append(CatalogEvent(EventType.DROP_TABLE, table=self.ctx.table_model(conn, table_row)))
                table_store.delete_table(conn, table_row.tbl_id)
            txn_store.delete_database(conn, name, table_store.names_in_other_catalogs(conn, name))
            if cascade:
                dropped += [
                    CatalogEvent(EventType.DROP_FUNCTION, function=function_store.to_model(f))
                    for f in function_store.rows(conn, name)
                ]
                function_store.delete_in(conn, row.db_id)
            db_store.delete_database(conn, row.db_id)
            if row.location_uri:
                claims.append(directories.Claim(row.location_uri, location_store.made(row)))
            self.ctx.events.emit_all(
                conn, [*dropped, CatalogEvent(EventType.DROP_DATABASE, database=database)], self.ctx.now()
            )
            data_dirs = directories.approved(conn, self.ctx.warehouse, claims) if delete_data else []
        for location in data_dirs:
            self.ctx.warehouse.discard_dir(location)
        log.info("dropped database %s (cascade=%s, delete_data=%s)", name, cascade, delete_data)
