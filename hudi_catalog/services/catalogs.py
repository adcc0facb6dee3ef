"""Catalogs (Hive 3's namespaces of databases): create, read, alter and drop.

``hive`` always exists (made at start, at the warehouse root). A new catalog gets a ``default`` database at
its location, as in Hive; a catalog is dropped only when that is all it holds.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from ..catalog_scope import DEFAULT_CATALOG, DEFAULT_CATALOG_COMMENT, catalog_scope
from ..config import DEFAULT_DATABASE_NAME
from ..errors import AlreadyExistsError, CatalogError, InvalidObjectError, InvalidOperationError, NoSuchObjectError
from ..model import Database, DatabaseCatalog
from ..names import is_valid_name, normalize
from ..store import catalogs as catalog_store
from ..store import databases as db_store
from ..store import functions as function_store
from ..store import tables as table_store
from ..warehouse import qualify
from .context import ServiceContext

log = logging.getLogger(__name__)


class CatalogService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def ensure_default(self) -> None:
        """Make ``hive`` if it is missing (idempotent; several servers may race for it)."""
        with self.ctx.store.read() as conn:
            if catalog_store.find(conn, DEFAULT_CATALOG) is not None:
                return
        try:
            with self.ctx.store.write() as conn:
                catalog_store.insert_catalog(
                    conn, DatabaseCatalog(DEFAULT_CATALOG, DEFAULT_CATALOG_COMMENT, None, self.ctx.now())
                )
        except AlreadyExistsError:
            pass

    def _located(self, catalog: DatabaseCatalog) -> DatabaseCatalog:
        return catalog if catalog.location else replace(catalog, location=self.ctx.warehouse.root)

    def create(self, catalog: DatabaseCatalog) -> DatabaseCatalog:
        """Create a catalog and its ``default`` database (at the catalog's location).

        Raises:
            InvalidObjectError: a bad name, or no location.
            AlreadyExistsError: a catalog of that name exists.
        """
        name = normalize(catalog.name or "")
        if not is_valid_name(name):
            raise InvalidObjectError(f"{catalog.name} is not a valid catalog name")
        if not catalog.location:
            raise InvalidObjectError("Catalog location cannot be null")
        location = qualify(catalog.location)
        catalog = replace(catalog, name=name, location=location, create_time=catalog.create_time or self.ctx.now())
        with self.ctx.store.write() as conn:
            if catalog_store.find(conn, name) is not None:
                raise AlreadyExistsError(f"Catalog {name} already exists")
            catalog_store.insert_catalog(conn, catalog)
            with catalog_scope(name):
                db_store.insert_database(
                    conn,
                    Database(
                        DEFAULT_DATABASE_NAME,
                        f"Default database for catalog {name}",
                        catalog.location,
                        create_time=catalog.create_time,
                    ),
                )
            self.ctx.warehouse.make_dirs(location)
        log.info("created catalog %s at %s", name, catalog.location)
        return catalog

    def get(self, name: str) -> DatabaseCatalog:
        """Raises ``NoSuchObjectError`` ("No catalog <name>") when it does not exist."""
        with self.ctx.store.read() as conn:
            row = catalog_store.find(conn, normalize(name or ""))
        if row is None:
            raise NoSuchObjectError(f"No catalog {name}")
        return self._located(catalog_store.to_model(row))

    def names(self) -> list[str]:
        with self.ctx.store.read() as conn:
            return catalog_store.names(conn)

    def alter(self, name: str, catalog: DatabaseCatalog) -> None:
        """Change a catalog's description and location; its name cannot change."""
        name = normalize(name or "")
        if normalize(catalog.name or name) != name:
            raise InvalidOperationError("You cannot change a catalog's name")
        with self.ctx.store.write() as conn:
            row = catalog_store.find(conn, name, lock=True)
            if row is None:
                raise NoSuchObjectError(f"No catalog {name}")
            current = catalog_store.to_model(row)
            catalog_store.update_catalog(
                conn,
                replace(
                    current,
                    description=catalog.description if catalog.description is not None else current.description,
                    location=qualify(catalog.location) if catalog.location else current.location,
                ),
            )

    def drop(self, name: str) -> None:
        """Drop a catalog that holds no database but its ``default`` (which goes with it).

        Raises:
            CatalogError: it is ``hive``.
            NoSuchObjectError: it does not exist.
            InvalidOperationError: it holds other databases.
        """
        name = normalize(name or "")
        if name == DEFAULT_CATALOG:
            raise CatalogError("Cannot drop hive catalog")
        with self.ctx.store.write() as conn:
            if catalog_store.find(conn, name, lock=True) is None:
                raise NoSuchObjectError(f"No catalog {name}")
            databases = catalog_store.database_names(conn, name)
            if any(d != DEFAULT_DATABASE_NAME for d in databases):
                raise InvalidOperationError(
                    f"There are non-default databases in the catalog {name} so it cannot be dropped."
                )
            with catalog_scope(name):
                if databases:
                    row = db_store.get_row(conn, DEFAULT_DATABASE_NAME)
                    if table_store.has_tables(conn, row.db_id) or function_store.has_functions(conn, row.db_id):
                        raise InvalidOperationError(
                            f"The default database of catalog {name} is not empty, so the catalog cannot be dropped."
                        )
                    db_store.delete_database(conn, row.db_id)
            catalog_store.delete_catalog(conn, name)
        log.info("dropped catalog %s", name)
