"""Queries on ``functions``."""

from __future__ import annotations

import json
from typing import NamedTuple

from sqlalchemy import Connection, bindparam, delete, insert, select, update

from ..errors import NoSuchFunctionError
from ..model import Function, ResourceUri
from . import schema
from .catalogs import in_scope
from .driver_sql import DriverStatement

_f = schema.functions.c
_d = schema.db.c


class FunctionRecord(NamedTuple):
    """A ``functions`` row with its database's name (``db_name``), as ``find_row``, ``get_row`` and ``rows``
    read it. ``class_name`` is never NULL: it is written from the model's, a string."""

    func_id: int
    db_id: int
    name: str
    class_name: str
    owner_name: str | None
    owner_type: str | None
    create_time: int
    func_type: int
    resource_uris: str | None
    db_name: str


def _query():
    """The ``functions`` row with its database's name: ``FunctionRecord``'s columns, in its order."""
    return select(schema.functions, _d.name.label("db_name")).join(schema.db, _d.db_id == _f.db_id)


def to_model(row: FunctionRecord) -> Function:
    return Function(
        database=row.db_name,
        name=row.name,
        class_name=row.class_name,
        owner_name=row.owner_name,
        owner_type=row.owner_type,
        create_time=row.create_time,
        function_type=row.func_type,
        resource_uris=[ResourceUri(k, u) for k, u in json.loads(row.resource_uris or "[]")],
    )


def _values(function: Function) -> dict:
    return {
        "name": function.name,
        "class_name": function.class_name,
        "owner_name": function.owner_name,
        "owner_type": function.owner_type,
        "func_type": function.function_type,
        "resource_uris": json.dumps([[r.kind, r.uri] for r in function.resource_uris]),
    }


def find_row(conn: Connection, database: str, name: str) -> FunctionRecord | None:
    row = conn.execute(_query().where(_d.name == database, in_scope(), _f.name == name)).first()
    return None if row is None else FunctionRecord._make(row)


def get_row(conn: Connection, database: str, name: str) -> FunctionRecord:
    row = find_row(conn, database, name)
    if row is None:
        raise NoSuchFunctionError(f"Function {database}.{name} does not exist")
    return row


def insert_function(conn: Connection, db_id: int, function: Function) -> None:
    conn.execute(insert(schema.functions).values(db_id=db_id, create_time=function.create_time, **_values(function)))


def update_function(conn: Connection, func_id: int, db_id: int, function: Function) -> None:
    conn.execute(update(schema.functions).where(_f.func_id == func_id).values(db_id=db_id, **_values(function)))


def delete_function(conn: Connection, func_id: int) -> None:
    conn.execute(delete(schema.functions).where(_f.func_id == func_id))


def delete_in(conn: Connection, db_id: int) -> None:
    conn.execute(delete(schema.functions).where(_f.db_id == db_id))


_ANY_FUNCTION = DriverStatement(select(_f.func_id).where(_f.db_id == bindparam("db_id")).limit(1))


def has_functions(conn: Connection, db_id: int) -> bool:
    return bool(_ANY_FUNCTION.execute(conn, {"db_id": db_id}).rows)


def rows(conn: Connection, database: str | None = None) -> list[FunctionRecord]:
    query = _query().where(in_scope()).order_by(_d.name, _f.name)
    if database is not None:
        query = query.where(_d.name == database)
    return [FunctionRecord._make(row) for row in conn.execute(query)]
