"""Table constraints: primary and foreign keys, unique, not-null, default and check constraints.

They are kept and handed back for engines that read them (Flink's Hive catalog reads primary keys and
not-null constraints of every table); nothing enforces them on data, as in Hive. A constraint goes with its
table, and a foreign key with the table it references.
"""

from __future__ import annotations

import logging
import uuid
from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import Connection

from ..errors import InvalidObjectError, InvalidOperationError, NoSuchObjectError, NoSuchTableError
from ..model import ConstraintKind, TableConstraint
from ..names import normalize
from ..store import constraints as constraint_store
from ..store import tables as table_store
from ..store.tables import TableRecord
from .context import ServiceContext

log = logging.getLogger(__name__)

KEYS = (ConstraintKind.PRIMARY_KEY, ConstraintKind.UNIQUE)
"""The kinds a foreign key may reference."""
NAME_PREFIXES = {
    ConstraintKind.PRIMARY_KEY: "pk",
    ConstraintKind.FOREIGN_KEY: "fk",
    ConstraintKind.UNIQUE: "uk",
    ConstraintKind.NOT_NULL: "nn",
    ConstraintKind.DEFAULT: "dc",
    ConstraintKind.CHECK: "cc",
}
MULTI_COLUMN = (ConstraintKind.PRIMARY_KEY, ConstraintKind.FOREIGN_KEY, ConstraintKind.UNIQUE)


def _named(constraints: Sequence[TableConstraint]) -> list[tuple[str, TableConstraint]]:
    """Each constraint with its name; unnamed ones get one as Hive generates them: one per key (the columns of
    one call's primary, foreign or unique key share it), one per column for the other kinds."""
    keys: dict[tuple[ConstraintKind, str, str], str] = {}
    named = []
    for c in constraints:
        name = c.name
        if not name:
            name = f"{NAME_PREFIXES[c.kind]}_{c.table}_{uuid.uuid4().hex[:12]}"
            if c.kind in MULTI_COLUMN:
                name = keys.setdefault((c.kind, c.database, c.table), name)
        named.append((name, c))
    return named


def add_constraints(ctx: ServiceContext, conn: Connection, constraints: Sequence[TableConstraint]) -> None:
    """``ConstraintService.add`` in the caller's transaction (``TableService.create`` adds a new table's)."""
    if any(not c.database or not c.table or (not c.column and c.kind != ConstraintKind.CHECK) for c in constraints):
        raise InvalidObjectError("A constraint needs a database, a table and (but for a check) a column name")
    by_table: dict[tuple[str, str], list[TableConstraint]] = defaultdict(list)
    names: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, c in _named(constraints):
        c = TableConstraint(
            **{
                **vars(c),
                "database": normalize(c.database),
                "table": normalize(c.table),
                "name": normalize(name),
                "column": c.column and c.column.lower(),
            }
        )
        by_table[(c.database, c.table)].append(c)
        names[(c.database, c.table)].append(normalize(name))
    for (database, table), group in by_table.items():
        row = _table_row(conn, database, table)
        table_model = ctx.table_model(conn, row)
        columns = {c.name.lower() for c in table_model.sd.columns + table_model.partition_keys}
        taken = constraint_store.names_in(conn, row.db_id, names[(database, table)])
        if taken:
            raise InvalidObjectError(f"Constraint name already exists: {sorted(taken)[0]}")
        if ConstraintKind.PRIMARY_KEY in {c.kind for c in group} and (
            ConstraintKind.PRIMARY_KEY.value in constraint_store.kinds_of(conn, row.tbl_id)
        ):
            raise InvalidObjectError(f"Primary key already exists for: {database}.{table}")
        missing = sorted({c.column for c in group if c.column} - columns)
        if missing:
            raise InvalidObjectError(f"Parent column not found: {missing[0]}")
        # keys first: a foreign key may reference a key of the same call
        keys = [c for c in group if c.kind != ConstraintKind.FOREIGN_KEY]
        constraint_store.insert_rows(conn, row.db_id, [(c, row.tbl_id, None) for c in keys])
        foreign = [c for c in group if c.kind == ConstraintKind.FOREIGN_KEY]
        constraint_store.insert_rows(conn, row.db_id, [(c, row.tbl_id, _referenced(conn, c)) for c in foreign])
        log.info("added %d constraint column(s) to %s.%s", len(group), database, table)


def _referenced(conn: Connection, fk: TableConstraint) -> int:
    """The id of the table a foreign key references; its column must be in a primary or unique key."""
    parent = _table_row(conn, normalize(fk.parent_database or fk.database), normalize(fk.parent_table or ""))
    column = (fk.parent_column or "").lower()
    keys = [k for kind in KEYS for k in constraint_store.constraints_of(conn, kind, tbl_id=parent.tbl_id)]
    if not any(k.column == column for k in keys):
        raise InvalidObjectError(
            f"Foreign key {fk.name} references {parent.db_name}.{parent.name}.{column}, which is not in a "
            "primary key or unique constraint"
        )
    return parent.tbl_id


def _table_row(conn: Connection, database: str, table: str) -> TableRecord:
    row = table_store.find_row(conn, database, table)
    if row is None:
        raise NoSuchTableError(f"Parent table not found: {database}.{table}")
    return row


class ConstraintService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def add(self, constraints: Sequence[TableConstraint]) -> None:
        """Add constraints to existing tables, all or none.

        Raises:
            NoSuchTableError: a table (or a referenced table) does not exist.
            InvalidObjectError: a column does not exist, the name is taken in the database, the table has a
                primary key already, or a foreign key references columns that are not a key.
        """
        with self.ctx.store.write() as conn:
            add_constraints(self.ctx, conn, constraints)

    def of_table(self, database: str, table: str, kind: ConstraintKind | None = None) -> list[TableConstraint]:
        """The table's constraints (of one kind), by name and position; none for a missing table, as Hive."""
        with self.ctx.store.read() as conn:
            row = table_store.find_row(conn, normalize(database), normalize(table))
            return [] if row is None else constraint_store.constraints_of(conn, kind, tbl_id=row.tbl_id)

    def foreign_keys(
        self, parent_database: str | None, parent_table: str | None, database: str | None, table: str | None
    ) -> list[TableConstraint]:
        """The foreign keys of table ``database.table`` (those referencing ``parent_*`` if given too), or,
        with only ``parent_*``, those referencing that table."""
        with self.ctx.store.read() as conn:
            if table:
                row = table_store.find_row(conn, normalize(database or ""), normalize(table))
                if row is None:
                    return []
                found = constraint_store.constraints_of(conn, ConstraintKind.FOREIGN_KEY, tbl_id=row.tbl_id)
                if parent_table:
                    found = [
                        c
                        for c in found
                        if (c.parent_database, c.parent_table)
                        == (normalize(parent_database or ""), normalize(parent_table))
                    ]
                return found
            parent = table_store.find_row(conn, normalize(parent_database or ""), normalize(parent_table or ""))
            return (
                []
                if parent is None
                else constraint_store.constraints_of(conn, ConstraintKind.FOREIGN_KEY, parent_tbl_id=parent.tbl_id)
            )

    def drop(self, database: str, table: str, name: str) -> None:
        """Drop a table's constraint by name.

        Raises:
            NoSuchObjectError: no such table or constraint.
            InvalidOperationError: a foreign key references the key.
        """
        database, table, name = normalize(database), normalize(table), normalize(name)
        with self.ctx.store.write() as conn:
            row = _table_row(conn, database, table)
            referencing = constraint_store.referencing(conn, row.tbl_id, name)
            if referencing:
                raise InvalidOperationError(
                    f"Cannot drop constraint {name} of {database}.{table}: foreign key(s) {', '.join(referencing)} "
                    "reference it"
                )
            if not constraint_store.delete_named(conn, row.tbl_id, name):
                raise NoSuchObjectError(
                    f"The constraint: {name} does not exist for the associated table: {database}.{table}"
                )
        log.info("dropped constraint %s of %s.%s", name, database, table)
