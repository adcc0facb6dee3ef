"""Schema migrations: ``MIGRATIONS`` lists, in order, the steps from each layout version to the next.

``plan(version)`` is the way from a database's layout to this build's: the creation of the whole layout for
an empty database, else the pending migrations. Each migration ends with the step that records its version,
so a database whose DDL commits at once (MySQL/MariaDB) knows how far an interrupted upgrade went.
``Store.init_schema`` applies a plan; ``render_sql`` prints it for a DBA (``hudi-metastore schema sql``).
To change the layout: edit ``schema.py``, raise ``schema.SCHEMA_VERSION`` and append a ``Migration`` here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, Table, bindparam, func, insert, select, update
from sqlalchemy.engine import Dialect

from ..authorization import BUILTIN_ROLES
from ..typed_keys import typed_key
from . import schema
from .schema_steps import (
    AddColumn,
    AddIndex,
    ChangeUnique,
    CreateTables,
    FillColumn,
    InsertMissing,
    Migration,
    NoSqlFormError,
    PythonStep,
    Step,
    now_seconds,
)

BATCH = 5000


def _backfill_typed_values(conn: Connection) -> None:
    """``partition_key_val.typed_val`` of every existing value, by its partition column's type."""
    kv, s, t = schema.partition_key_val, schema.schema.c, schema.tbl.c
    key_types = {
        (row.tbl_id, row.position): row.type
        for row in conn.execute(
            select(s.tbl_id, s.position, s.type)
            .join(schema.tbl, (t.tbl_id == s.tbl_id) & (t.schema_version == s.version))
            .where(s.is_partition_col.is_(True))
        )
    }
    pending = []
    for row in conn.execute(select(kv.c.part_id, kv.c.tbl_id, kv.c.key_index, kv.c.key_val)):
        key = typed_key(key_types.get((row.tbl_id, row.key_index), "string"), row.key_val)
        if key is not None:
            pending.append({"pid": row.part_id, "idx": row.key_index, "typed": key})
    statement = (
        update(kv)
        .where(kv.c.part_id == bindparam("pid"), kv.c.key_index == bindparam("idx"))
        .values(typed_val=bindparam("typed"))
    )
    for start in range(0, len(pending), BATCH):
        conn.execute(statement, pending[start : start + BATCH])


def _counters(*names: str) -> InsertMissing:
    """The ``id_sequence`` counters ``names``, each starting at 1."""
    return InsertMissing(schema.id_sequence, "name", lambda: [{"name": n, "next_value": 1} for n in names])


BUILTIN_ROLE_ROWS = InsertMissing(
    schema.role, "name", lambda: [{"name": n, "create_time": now_seconds(), "owner_name": n} for n in BUILTIN_ROLES]
)
"""Hive's built-in roles ``admin`` and ``public``."""


def _location_provenance(table: Table, location: str, index: str) -> tuple[Step, ...]:
    """``location_key`` and ``made_location`` of a table of located objects: the key filled from the location,
    then indexed; no provenance for the objects already there (what made their directories is unknown)."""
    return (
        AddColumn(table, "location_key"),
        AddColumn(table, "made_location"),
        FillColumn(table, lambda t: {"location_key": func.substr(t.c[location], 1, schema.LOCATION_KEY)}),
        AddIndex(table, index),
    )


LAYOUT_9_DB_COLUMNS = (
    "db_id",
    "name",
    "description",
    "location_uri",
    "managed_location_uri",
    "owner_name",
    "owner_type",
    "create_time",
)
"""The columns ``db`` had before ``add_catalogs``, which its SQLite rebuild copies (later layouts add more)."""

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        2,
        "add_typed_partition_values",
        (
            AddColumn(schema.partition_key_val, "typed_val"),
            PythonStep(_backfill_typed_values, "the typed keys of existing partition values"),
            AddIndex(schema.partition_key_val, "idx_pkv_typed"),
        ),
    ),
    Migration(
        3,
        "add_partition_encodings",
        (
            AddColumn(schema.partitions, "revision", default="0"),
            AddColumn(schema.partitions, "encoded"),
        ),
    ),
    Migration(
        4,
        "add_hudi_partition_paths",
        (
            AddColumn(schema.partitions, "hudi_path"),
            AddIndex(schema.partitions, "idx_partition_hudi_path"),
            AddIndex(schema.files, "idx_files_instant"),
            AddIndex(schema.files, "idx_files_group", replace=True),  # widened to cover a snapshot read's columns
            CreateTables([schema.replaced_file_group]),
        ),
    ),
    Migration(
        5,
        "add_table_revisions",
        (
            AddColumn(schema.tbl, "revision", default="0"),
            AddColumn(schema.tbl, "partitions_revision", default="0"),
        ),
    ),
    Migration(
        6,
        "add_lock_tables",
        (
            CreateTables(
                [schema.id_sequence, schema.hive_txn, schema.hive_lock, schema.next_write_id, schema.txn_write_id]
            ),
            _counters("lock", "txn"),
        ),
    ),
    Migration(7, "add_constraints", (CreateTables([schema.tbl_constraint]),)),
    Migration(8, "add_column_statistics", (CreateTables([schema.tbl_col_stats, schema.part_col_stats]),)),
    Migration(9, "add_notification_log", (CreateTables([schema.notification_log]), _counters("notification"))),
    Migration(
        10,
        "add_catalogs",
        (
            CreateTables([schema.catalogs]),  # its `hive` row is made at start (CatalogService.ensure_default)
            ChangeUnique(
                schema.db,
                "cat_name",
                "uniq_db_name",
                kept_columns=LAYOUT_9_DB_COLUMNS,
            ),
        ),
    ),
    Migration(11, "add_file_row_counts", (AddColumn(schema.files, "num_rows"),)),
    Migration(
        12,
        "add_delegation_tokens",
        (
            CreateTables([schema.token_master_key, schema.delegation_token]),
            _counters("token", "token_key"),
        ),
    ),
    Migration(
        13,
        "add_authorization",
        (
            CreateTables([schema.role, schema.role_member, schema.privilege_grant]),
            BUILTIN_ROLE_ROWS,
        ),
    ),
    Migration(
        14,
        "add_location_provenance",
        (
            *_location_provenance(schema.db, "location_uri", "idx_db_location_key"),
            *_location_provenance(schema.tbl, "location", "idx_tbl_location_key"),
            *_location_provenance(schema.partitions, "location", "idx_partition_location_key"),
        ),
    ),
    Migration(15, "add_database_revision", (AddColumn(schema.db, "revision", default="0"),)),
)


@dataclass(frozen=True)
class RecordVersion(Step):
    """The statement that records the layout version a migration reached (the row is made by creation)."""

    version: int
    first: bool

    def statements(self, dialect: Dialect) -> list[str]:
        table = schema.schema_version
        statement = (
            insert(table).values(id=1, version=self.version)
            if self.first
            else update(table).where(table.c.id == 1).values(version=self.version)
        )
        return [str(statement.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))]

    def is_done(self, conn: Connection) -> bool:
        return False


CREATION = Migration(
    schema.SCHEMA_VERSION,
    "create",
    (
        CreateTables(list(schema.metadata.sorted_tables)),
        _counters(*schema.SEQUENCES),
        BUILTIN_ROLE_ROWS,
    ),
)
"""The whole layout, made on an empty database."""


def pending(version: int | None) -> list[Migration]:
    """The migrations from layout ``version`` (None: an empty database) to this build's, by name."""
    if version is None:
        return [CREATION]
    return [m for m in MIGRATIONS if version < m.version <= schema.SCHEMA_VERSION]


def plan(version: int | None) -> list[Migration]:
    """``pending(version)``, each migration ending with the step that records its version."""
    return [
        Migration(m.version, m.name, (*m.steps, RecordVersion(m.version, first=version is None)))
        for m in pending(version)
    ]


def render_sql(dialect: Dialect, version: int | None, header: Sequence[str] = ()) -> str:
    """The script of ``plan(version)`` for ``dialect``: comments naming each migration, its statements
    (each ending with ``;``), one transaction where the database's DDL is transactional (SQLite,
    PostgreSQL; on SQLite with foreign keys off while tables are rebuilt, checked at the end).

    Raises:
        NoSqlFormError: a pending migration computes values in Python.
    """
    lines = [f"-- {line}" for line in header]
    body = []
    for migration in plan(version):
        body.append(f"\n-- layout {migration.version}: {migration.name}")
        try:
            body.extend(f"{statement};" for step in migration.steps for statement in step.statements(dialect))
        except NoSqlFormError as error:
            raise NoSqlFormError(f"layout {migration.version} ({migration.name}): {error}") from error
    if not body:
        return "\n".join([*lines, "-- nothing to apply: the database has this layout"]) + "\n"
    if dialect.name == "sqlite":
        lines += [
            "PRAGMA foreign_keys=OFF;",
            "BEGIN IMMEDIATE;",
            *body,
            "PRAGMA foreign_key_check;",
            "COMMIT;",
            "PRAGMA foreign_keys=ON;",
        ]
    elif dialect.name == "postgresql":
        lines += ["BEGIN;", *body, "COMMIT;"]
    else:
        lines += body
    return "\n".join(lines) + "\n"
