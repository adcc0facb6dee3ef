"""Queries on ``catalogs``, and the catalog condition of every query that finds a database by name."""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import ColumnElement, Connection, delete, insert, select, update

from ..catalog_scope import current_catalog
from ..model import DatabaseCatalog
from . import schema

_c = schema.catalogs.c


class CatalogRecord(NamedTuple):
    """A ``catalogs`` row, as ``find`` reads it."""

    name: str
    description: str | None
    location_uri: str | None
    create_time: int


def in_scope() -> ColumnElement[bool]:
    """``db.cat_name`` is the catalog in scope (``catalog_scope``)."""
    return schema.db.c.cat_name == current_catalog()


def find(conn: Connection, name: str, lock: bool = False) -> CatalogRecord | None:
    query = select(schema.catalogs).where(_c.name == name)
    row = conn.execute(query.with_for_update() if lock else query).first()
    return None if row is None else CatalogRecord._make(row)


def to_model(row: CatalogRecord) -> DatabaseCatalog:
    return DatabaseCatalog(row.name, row.description, row.location_uri, row.create_time)


def names(conn: Connection) -> list[str]:
    return list(conn.execute(select(_c.name).order_by(_c.name)).scalars())


def insert_catalog(conn: Connection, catalog: DatabaseCatalog) -> None:
    conn.execute(
        insert(schema.catalogs).values(
            name=catalog.name,
            description=catalog.description,
            location_uri=catalog.location,
            create_time=catalog.create_time,
        )
    )


def update_catalog(conn: Connection, catalog: DatabaseCatalog) -> None:
    conn.execute(
        update(schema.catalogs)
        .where(_c.name == catalog.name)
        .values(description=catalog.description, location_uri=catalog.location)
    )


def delete_catalog(conn: Connection, name: str) -> None:
    conn.execute(delete(schema.catalogs).where(_c.name == name))


def database_names(conn: Connection, name: str) -> list[str]:
    d = schema.db.c
    return list(conn.execute(select(d.name).where(d.cat_name == name).order_by(d.name)).scalars())
