"""Key/value parameter rows shared by databases, tables and partitions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from sqlalchemy import Connection, Table, bindparam, delete, insert, select

from . import schema
from .batches import chunks
from .driver_sql import DriverStatement


def _owner(table: Table):
    return next(c for c in table.primary_key.columns if c.name != "param_key")


def write_params(conn: Connection, table: Table, owner_id: int, params: Mapping[str, str]) -> None:
    """Replace the parameters of one owner (database, table or partition)."""
    replace_params(conn, table, {owner_id: params})


def replace_params(conn: Connection, table: Table, params_by_owner: Mapping[int, Mapping[str, str]]) -> None:
    """Replace the parameters of many owners: a delete per chunk of owners and one insert, not two
    statements an owner."""
    owner = _owner(table)
    for chunk in chunks(sorted(params_by_owner)):
        conn.execute(delete(table).where(owner.in_(chunk)))
    insert_params(conn, table, params_by_owner)


def insert_params(conn: Connection, table: Table, params_by_owner: Mapping[int, Mapping[str, str]]) -> None:
    """Insert the parameters of many owners in one statement."""
    owner = _owner(table)
    rows = [
        {owner.name: owner_id, "param_key": k, "param_value": v}
        for owner_id, params in params_by_owner.items()
        for k, v in (params or {}).items()
    ]
    if rows:
        conn.execute(insert(table), rows)


_READ = {
    table: DriverStatement(select(table.c.param_key, table.c.param_value).where(_owner(table) == bindparam("owner")))
    for table in (schema.db_params, schema.tbl_params, schema.partition_params)
}
"""One owner's parameters, per parameter table, on the driver's cursor (compiled before a server forks)."""


def read_params(conn: Connection, table: Table, owner_id: int) -> dict[str, str]:
    """The parameters of one owner."""
    return {r.param_key: r.param_value for r in _READ[table].execute(conn, {"owner": owner_id}).rows}


def read_params_of(conn: Connection, table: Table, owner_ids: Sequence[int]) -> dict[int, dict[str, str]]:
    """The parameters of every owner in ``owner_ids``, in one query per few thousand owners."""
    owner = _owner(table)
    result: dict[int, dict[str, str]] = defaultdict(dict)
    for chunk in chunks(owner_ids):
        for row in conn.execute(select(owner, table.c.param_key, table.c.param_value).where(owner.in_(chunk))):
            result[row[0]][row.param_key] = row.param_value
    return result
