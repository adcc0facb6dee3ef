"""Queries on ``db`` and ``db_params``."""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import Connection, bindparam, delete, func, insert, select, update

from ..catalog_scope import current_catalog
from ..errors import NoSuchDatabaseError, StorageError
from ..model import Database
from . import params, schema
from .catalogs import in_scope
from .driver_sql import DriverConnection, DriverStatement
from .locations import location_key
from .revisions import first_revision

_db = schema.db.c


class DatabaseRecord(NamedTuple):
    """A ``db`` row, as ``get_row`` reads it. ``location_uri`` is never NULL: every database is created with a
    location, and an alter keeps it."""

    db_id: int
    cat_name: str
    name: str
    description: str | None
    location_uri: str
    managed_location_uri: str | None
    owner_name: str | None
    owner_type: str | None
    create_time: int
    location_key: str | None
    made_location: str | None
    revision: int


class StoredDatabase(NamedTuple):
    """A database's model with the id and revision of the row it was read from (its read cache's key)."""

    db_id: int
    revision: int
    database: Database


_ROW_QUERY = select(schema.db).where(_db.name == bindparam("name"), _db.cat_name == bindparam("catalog"))
_ROW = DriverStatement(_ROW_QUERY, DatabaseRecord)
_LOCKED_ROW = DriverStatement(_ROW_QUERY.with_for_update(), DatabaseRecord)
"""The database row by name, which every change of a database and every table creation starts with."""


def get_row(conn: Connection, name: str, lock: bool = False) -> DatabaseRecord:
    """The ``db`` row of a database; ``NoSuchDatabaseError`` with Hive's text when missing."""
    rows = (_LOCKED_ROW if lock else _ROW).execute(conn, {"name": name, "catalog": current_catalog()}).rows
    if not rows:
        raise NoSuchDatabaseError(f"There is no database named {name}")
    return rows[0]


def to_model(conn: Connection, row: DatabaseRecord) -> Database:
    return Database(
        name=row.name,
        description=row.description,
        location=row.location_uri,
        managed_location=row.managed_location_uri,
        parameters=params.read_params(conn, schema.db_params, row.db_id),
        owner_name=row.owner_name,
        owner_type=row.owner_type,
        create_time=row.create_time,
    )


_DATABASE_REVISION = DriverStatement(
    select(_db.db_id, _db.revision).where(_db.name == bindparam("name"), _db.cat_name == bindparam("catalog"))
)


def find_revision(conn: Connection | DriverConnection, name: str) -> tuple[int, int] | None:
    """The database's id and revision (what its cached model is keyed on), or None when it does not exist."""
    rows = _DATABASE_REVISION.execute(conn, {"name": name, "catalog": current_catalog()}).rows
    return (rows[0].db_id, rows[0].revision) if rows else None


_DATABASE_WITH_PARAMS = DriverStatement(
    select(schema.db, schema.db_params.c.param_key, schema.db_params.c.param_value)
    .select_from(schema.db.outerjoin(schema.db_params, schema.db_params.c.db_id == _db.db_id))
    .where(_db.name == bindparam("name"), _db.cat_name == bindparam("catalog"))
)
"""``get_database`` is the most frequent call of all: its statement is compiled once and run on the driver's
cursor (building it was a tenth of the call, SQLAlchemy's execution of it another)."""


def get_database(conn: Connection | DriverConnection, name: str) -> StoredDatabase:
    """A database with its parameters in one query (the row joined to its parameter rows);
    ``NoSuchDatabaseError`` with Hive's text when missing. ``conn`` may be a ``Store.driver_read()``'s."""
    rows = _DATABASE_WITH_PARAMS.execute(conn, {"name": name, "catalog": current_catalog()}).rows
    if not rows:
        raise NoSuchDatabaseError(f"There is no database named {name}")
    row = rows[0]
    database = Database(
        name=row.name,
        description=row.description,
        location=row.location_uri,
        managed_location=row.managed_location_uri,
        parameters={r.param_key: r.param_value for r in rows if r.param_key is not None},
        owner_name=row.owner_name,
        owner_type=row.owner_type,
        create_time=row.create_time,
    )
    return StoredDatabase(row.db_id, row.revision, database)


def exists(conn: Connection, name: str) -> bool:
    return (
        conn.execute(select(func.count()).select_from(schema.db).where(_db.name == name, in_scope())).scalar_one() > 0
    )


def insert_database(conn: Connection, database: Database) -> int:
    result = conn.execute(
        insert(schema.db).values(
            cat_name=current_catalog(),
            name=database.name,
            description=database.description,
            location_uri=database.location,
            location_key=location_key(database.location),
            managed_location_uri=database.managed_location,
            owner_name=database.owner_name,
            owner_type=database.owner_type,
            create_time=database.create_time,
            revision=first_revision(),
        )
    )
    key = result.inserted_primary_key
    if key is None:
        raise StorageError("the database returned no id for the new database")
    db_id = key[0]
    params.insert_params(conn, schema.db_params, {db_id: database.parameters})
    return db_id


def update_database(conn: Connection, db_id: int, database: Database) -> None:
    conn.execute(
        update(schema.db)
        .where(_db.db_id == db_id)
        .values(
            description=database.description,
            location_uri=database.location,
            location_key=location_key(database.location),
            managed_location_uri=database.managed_location,
            owner_name=database.owner_name,
            owner_type=database.owner_type,
            revision=_db.revision + 1,
        )
    )
    params.write_params(conn, schema.db_params, db_id, database.parameters)


_DELETE_PARAMS = DriverStatement(delete(schema.db_params).where(schema.db_params.c.db_id == bindparam("db_id")))
_DELETE = DriverStatement(delete(schema.db).where(_db.db_id == bindparam("db_id")))


def delete_database(conn: Connection, db_id: int) -> None:
    _DELETE_PARAMS.execute(conn, {"db_id": db_id})
    _DELETE.execute(conn, {"db_id": db_id})


def names(conn: Connection) -> list[str]:
    return list(conn.execute(select(_db.name).where(in_scope()).order_by(_db.name)).scalars())
