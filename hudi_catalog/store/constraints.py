"""Queries on ``tbl_constraint``: one row per constrained column, named per database."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, delete, insert, select

from ..model import ConstraintKind, TableConstraint
from . import schema

_c = schema.tbl_constraint.c


def names_in(conn: Connection, db_id: int, names: Sequence[str]) -> set[str]:
    """Those of ``names`` that a constraint of the database already has."""
    return set(
        conn.execute(select(_c.name).distinct().where(_c.db_id == db_id, _c.name.in_(sorted(set(names))))).scalars()
    )


def kinds_of(conn: Connection, tbl_id: int) -> set[str]:
    return set(conn.execute(select(_c.kind).distinct().where(_c.tbl_id == tbl_id)).scalars())


def insert_rows(conn: Connection, db_id: int, rows: Sequence[tuple[TableConstraint, int, int | None]]) -> None:
    """``(constraint, tbl_id, parent_tbl_id)`` rows, named already."""
    if rows:
        conn.execute(
            insert(schema.tbl_constraint),
            [
                {
                    "db_id": db_id,
                    "name": c.name,
                    "position": c.position,
                    "kind": c.kind.value,
                    "tbl_id": tbl_id,
                    "column_name": c.column,
                    "parent_tbl_id": parent_id,
                    "parent_column": c.parent_column,
                    "parent_key_name": c.parent_key_name,
                    "update_rule": c.update_rule,
                    "delete_rule": c.delete_rule,
                    "enable_cstr": c.enable,
                    "validate_cstr": c.validate,
                    "rely_cstr": c.rely,
                    "value": c.value,
                }
                for c, tbl_id, parent_id in rows
            ],
        )


_child = schema.tbl.alias("child")
_child_db = schema.db.alias("child_db")
_parent = schema.tbl.alias("parent")
_parent_db = schema.db.alias("parent_db")
_QUERY = (
    select(
        schema.tbl_constraint,
        _child.c.name.label("tbl_name"),
        _child_db.c.name.label("db_name"),
        _parent.c.name.label("parent_tbl_name"),
        _parent_db.c.name.label("parent_db_name"),
    )
    .join(_child, _child.c.tbl_id == _c.tbl_id)
    .join(_child_db, _child_db.c.db_id == _child.c.db_id)
    .outerjoin(_parent, _parent.c.tbl_id == _c.parent_tbl_id)
    .outerjoin(_parent_db, _parent_db.c.db_id == _parent.c.db_id)
    .order_by(_c.name, _c.position)
)


def constraints_of(
    conn: Connection, kind: ConstraintKind | None, tbl_id: int | None = None, parent_tbl_id: int | None = None
) -> list[TableConstraint]:
    """The constraints of a table (``tbl_id``), or the foreign keys referencing one (``parent_tbl_id``),
    optionally of one kind, by name and position."""
    query = _QUERY
    if kind is not None:
        query = query.where(_c.kind == kind.value)
    if tbl_id is not None:
        query = query.where(_c.tbl_id == tbl_id)
    if parent_tbl_id is not None:
        query = query.where(_c.parent_tbl_id == parent_tbl_id)
    return [
        TableConstraint(
            kind=ConstraintKind(r.kind),
            name=r.name,
            database=r.db_name,
            table=r.tbl_name,
            column=r.column_name,
            position=r.position,
            enable=r.enable_cstr,
            validate=r.validate_cstr,
            rely=r.rely_cstr,
            value=r.value,
            parent_database=r.parent_db_name,
            parent_table=r.parent_tbl_name,
            parent_column=r.parent_column,
            parent_key_name=r.parent_key_name,
            update_rule=r.update_rule,
            delete_rule=r.delete_rule,
        )
        for r in conn.execute(query)
    ]


def delete_named(conn: Connection, tbl_id: int, name: str) -> int:
    """Delete the table's constraint ``name``; the rows deleted."""
    return conn.execute(delete(schema.tbl_constraint).where(_c.tbl_id == tbl_id, _c.name == name)).rowcount


def referencing(conn: Connection, parent_tbl_id: int, key_name: str) -> list[str]:
    """Names of the foreign keys that reference the table's key ``key_name``."""
    return list(
        conn.execute(
            select(_c.name).distinct().where(_c.parent_tbl_id == parent_tbl_id, _c.parent_key_name == key_name)
        ).scalars()
    )
