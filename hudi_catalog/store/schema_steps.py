"""The steps a schema migration is made of, each with one SQL form per dialect.

A step renders the statements it stands for (``statements``), which ``hudi-metastore schema sql`` prints
and ``Store.init_schema`` executes, so a hand-applied script and an upgrade make the same schema. Online a
step first checks whether it is done already (``is_done``): on MySQL/MariaDB DDL commits at once, so an
upgrade cut off half-way is finished by the next one without repeating what it did.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import (
    Column,
    Connection,
    DefaultClause,
    Index,
    MetaData,
    Table,
    UniqueConstraint,
    insert,
    inspect,
    select,
    update,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.schema import CreateIndex, CreateTable, DropIndex

from ..errors import StorageError


class NoSqlFormError(StorageError):
    """A migration computes values in Python and has no SQL script form."""


def _sql(element, dialect: Dialect) -> str:
    return str(element.compile(dialect=dialect, compile_kwargs={"literal_binds": True})).strip()


def _columns(conn: Connection, table: str) -> set[str]:
    return {c["name"] for c in inspect(conn).get_columns(table)}


def _index_columns(conn: Connection, table: str, name: str) -> list[str | None] | None:
    """The index's columns (``None`` for an expression), or ``None`` if the table has no such index."""
    for index in inspect(conn).get_indexes(table):
        if index["name"] == name:
            return list(index["column_names"])
    return None


def _index(table: Table, name: str) -> Index:
    return next(i for i in table.indexes if i.name == name)


class Step(ABC):
    """One change of the schema or its seed rows."""

    @abstractmethod
    def statements(self, dialect: Dialect) -> list[str]:
        """The SQL of this step for ``dialect``, one statement per item, without the closing semicolon."""

    @abstractmethod
    def is_done(self, conn: Connection) -> bool:
        """Whether the database already has what this step makes (checked before applying it online)."""

    def apply(self, conn: Connection) -> None:
        if not self.is_done(conn):
            for statement in self.statements(conn.dialect):
                conn.exec_driver_sql(statement)


def _table_statements(table: Table, dialect: Dialect) -> list[str]:
    indexes = sorted(table.indexes, key=lambda i: i.name or "")
    return [_sql(CreateTable(table), dialect), *(_sql(CreateIndex(i), dialect) for i in indexes)]


@dataclass(frozen=True)
class CreateTables(Step):
    """New tables with their indexes, as this layout defines them (in foreign key order); online only the
    missing ones are made."""

    tables: Sequence[Table]

    def statements(self, dialect: Dialect) -> list[str]:
        return [s for table in self.tables for s in _table_statements(table, dialect)]

    def is_done(self, conn: Connection) -> bool:
        return False  # apply checks each table

    def apply(self, conn: Connection) -> None:
        existing = set(inspect(conn).get_table_names())
        for table in self.tables:
            if table.name not in existing:
                for statement in _table_statements(table, conn.dialect):
                    conn.exec_driver_sql(statement)


@dataclass(frozen=True)
class AddColumn(Step):
    """A new column of an existing table; ``default`` (SQL text) fills the rows already there."""

    table: Table
    column: str
    default: str | None = None

    def statements(self, dialect: Dialect) -> list[str]:
        column: Column = self.table.c[self.column]
        preparer = dialect.identifier_preparer
        spec = f"{preparer.format_column(column)} {column.type.compile(dialect=dialect)}"
        if self.default is not None:
            spec += f" DEFAULT {self.default}"
        if not column.nullable:
            spec += " NOT NULL"
        return [f"ALTER TABLE {preparer.format_table(self.table)} ADD COLUMN {spec}"]

    def is_done(self, conn: Connection) -> bool:
        return self.column in _columns(conn, self.table.name)


@dataclass(frozen=True)
class AddIndex(Step):
    """An index of the layout's definition, made (again, when ``replace``: dropped first) on a table."""

    table: Table
    name: str
    replace: bool = False

    def statements(self, dialect: Dialect) -> list[str]:
        index = _index(self.table, self.name)
        create = _sql(CreateIndex(index), dialect)
        return [_sql(DropIndex(index), dialect), create] if self.replace else [create]

    def is_done(self, conn: Connection) -> bool:
        wanted = [c.name for c in _index(self.table, self.name).columns]
        return _index_columns(conn, self.table.name, self.name) == wanted


@dataclass(frozen=True)
class InsertMissing(Step):
    """Seed rows, keyed on ``key``; online only the missing ones are inserted.

    ``rows`` is called when the step is rendered or applied (a time in the rows is then the current one)."""

    table: Table
    key: str
    rows: Callable[[], list[dict]]

    def statements(self, dialect: Dialect) -> list[str]:
        return [_sql(insert(self.table).values(row).inline(), dialect) for row in self.rows()]

    def is_done(self, conn: Connection) -> bool:
        return False  # apply checks each row

    def apply(self, conn: Connection) -> None:
        present = set(conn.execute(select(self.table.c[self.key])).scalars())
        missing = [row for row in self.rows() if row[self.key] not in present]
        if missing:
            conn.execute(insert(self.table), missing)


@dataclass(frozen=True)
class FillColumn(Step):
    """Values of a new column computed in SQL from the row's other columns (``values``: column name to a
    SQLAlchemy expression), for every row; applying it again gives the same values."""

    table: Table
    values: Callable[[Table], dict]

    def statements(self, dialect: Dialect) -> list[str]:
        return [_sql(update(self.table).values(self.values(self.table)), dialect)]

    def is_done(self, conn: Connection) -> bool:
        return False


def now_seconds() -> int:
    return int(time.time())


@dataclass(frozen=True)
class ChangeUnique(Step):
    """A new column that joins a unique constraint (``db.cat_name`` in ``uniq_db_name``).

    SQLite cannot change a constraint in place: the table is made again under a new name with this layout's
    definition, the rows copied (new columns take their defaults), the old table dropped and the new one
    renamed. Foreign keys are off meanwhile (the schema transaction), and other tables' references follow
    the name. MySQL and PostgreSQL change the table with one ALTER TABLE."""

    table: Table
    column: str
    constraint: str
    kept_columns: Sequence[str]
    """The columns the table had before, copied by the SQLite rebuild."""

    def statements(self, dialect: Dialect) -> list[str]:
        preparer = dialect.identifier_preparer
        table = preparer.format_table(self.table)
        column: Column = self.table.c[self.column]
        constraint = next(
            c for c in self.table.constraints if isinstance(c, UniqueConstraint) and c.name == self.constraint
        )
        unique_columns = ", ".join(preparer.format_column(c) for c in constraint.columns)
        if not isinstance(column.server_default, DefaultClause):
            raise TypeError(f"{self.table.name}.{self.column} joins {self.constraint} without a server default")
        add = (
            f"ADD COLUMN {preparer.format_column(column)} {column.type.compile(dialect=dialect)} "
            f"NOT NULL DEFAULT '{column.server_default.arg}'"
        )
        if dialect.name == "sqlite":
            new = f"{self.table.name}_new"
            columns = ", ".join(self.kept_columns)
            return [
                _sql(CreateTable(self._rebuilt(new)), dialect),
                f"INSERT INTO {new} ({columns}) SELECT {columns} FROM {table}",
                f"DROP TABLE {table}",
                f"ALTER TABLE {new} RENAME TO {table}",
            ]
        drop = "DROP INDEX" if dialect.name in ("mysql", "mariadb") else "DROP CONSTRAINT"
        return [
            f"ALTER TABLE {table} {add}, {drop} {self.constraint}, "
            f"ADD CONSTRAINT {self.constraint} UNIQUE ({unique_columns})"
        ]

    def is_done(self, conn: Connection) -> bool:
        return self.column in _columns(conn, self.table.name)

    def _rebuilt(self, name: str) -> Table:
        """The table as this migration leaves it (its kept columns and the new one, with their unique
        constraints), named ``name``: columns a later layout adds are left to that layout's migration."""
        keep = {*self.kept_columns, self.column}
        uniques = [
            UniqueConstraint(*[c.name for c in u.columns], name=u.name)
            for u in self.table.constraints
            if isinstance(u, UniqueConstraint) and all(c.name in keep for c in u.columns)
        ]
        columns = [c._copy() for c in self.table.columns if c.name in keep]
        return Table(name, MetaData(), *columns, *uniques, **self.table.kwargs)


@dataclass(frozen=True)
class PythonStep(Step):
    """Values computed in Python (no SQL form: ``schema sql`` refuses a range that holds one)."""

    run: Callable[[Connection], None]
    what: str
    """What it computes, plural (``the typed keys of ...``)."""

    def statements(self, dialect: Dialect) -> list[str]:
        raise NoSqlFormError(
            f"{self.what} are computed in Python, with no SQL form: apply this migration "
            "with `hudi-metastore schema upgrade`"
        )

    def is_done(self, conn: Connection) -> bool:
        return False

    def apply(self, conn: Connection) -> None:
        self.run(conn)


@dataclass(frozen=True)
class Migration:
    """The steps from layout ``version - 1`` to ``version``; ``name`` says what it adds."""

    version: int
    name: str
    steps: Sequence[Step]
