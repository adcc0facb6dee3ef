"""Schema migrations: ``MIGRATIONS[n]`` upgrades a store of layout version ``n`` to ``n + 1``.

Each migration runs inside the transaction of ``Store.init_schema`` together with the version bump.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import Connection, MetaData, Table, bindparam, inspect, select, update

from ..typed_keys import typed_key
from . import authorization, schema, sequences

BATCH = 5000


def add_typed_partition_values(conn: Connection) -> None:
    """Version 1 -> 2: ``partition_key_val.typed_val`` (typed, order-preserving key) and its index."""
    kv, s, t = schema.partition_key_val, schema.schema.c, schema.tbl.c
    column_type = kv.c.typed_val.type.compile(dialect=conn.dialect)
    table_name = conn.dialect.identifier_preparer.format_table(kv)
    conn.exec_driver_sql(f"ALTER TABLE {table_name} ADD COLUMN typed_val {column_type}")
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
    next(i for i in kv.indexes if i.name == "idx_pkv_typed").create(conn)


def add_partition_encodings(conn: Connection) -> None:
    """Version 2 -> 3: ``partitions.revision`` and ``partitions.encoded`` (the front end's encoding cache)."""
    partitions = schema.partitions
    table_name = conn.dialect.identifier_preparer.format_table(partitions)
    encoded_type = partitions.c.encoded.type.compile(dialect=conn.dialect)
    conn.exec_driver_sql(f"ALTER TABLE {table_name} ADD COLUMN revision INTEGER NOT NULL DEFAULT 0")
    conn.exec_driver_sql(f"ALTER TABLE {table_name} ADD COLUMN encoded {encoded_type}")


def add_hudi_partition_paths(conn: Connection) -> None:
    """Version 3 -> 4: ``partitions.hudi_path`` and its index, ``files`` by instant, and the file group index
    covering snapshot reads (``replaced_file_group`` is a new table, made by ``create_all``)."""
    partitions = schema.partitions
    table_name = conn.dialect.identifier_preparer.format_table(partitions)
    path_type = partitions.c.hudi_path.type.compile(dialect=conn.dialect)
    conn.exec_driver_sql(f"ALTER TABLE {table_name} ADD COLUMN hudi_path {path_type}")
    next(i for i in partitions.indexes if i.name == "idx_partition_hudi_path").create(conn)
    next(i for i in schema.files.indexes if i.name == "idx_files_instant").create(conn)
    group_index = next(i for i in schema.files.indexes if i.name == "idx_files_group")
    group_index.drop(conn)  # widened to cover the columns a snapshot read needs
    group_index.create(conn)


def add_table_revisions(conn: Connection) -> None:
    """Version 4 -> 5: ``tbl.revision`` and ``tbl.partitions_revision``, the keys of the read caches."""
    table_name = conn.dialect.identifier_preparer.format_table(schema.tbl)
    conn.exec_driver_sql(f"ALTER TABLE {table_name} ADD COLUMN revision BIGINT NOT NULL DEFAULT 0")
    conn.exec_driver_sql(f"ALTER TABLE {table_name} ADD COLUMN partitions_revision BIGINT NOT NULL DEFAULT 0")


def add_lock_tables(conn: Connection) -> None:
    """Version 5 -> 6: Hive's locks and transactions (``hive_lock``, ``hive_txn``, ``next_write_id``,
    ``txn_write_id``, made by ``create_all``) and the ``id_sequence`` counters, seeded here."""
    sequences.seed(conn)


def add_constraints(conn: Connection) -> None:
    """Version 6 -> 7: ``tbl_constraint`` (table constraints), made by ``create_all``; nothing to move."""


def add_column_statistics(conn: Connection) -> None:
    """Version 7 -> 8: ``tbl_col_stats`` and ``part_col_stats`` (column statistics), made by ``create_all``."""


def add_notification_log(conn: Connection) -> None:
    """Version 8 -> 9: ``notification_log`` (made by ``create_all``) and its ``notification`` counter."""
    sequences.seed(conn)


def add_catalogs(conn: Connection) -> None:
    """Version 9 -> 10: ``catalogs`` (made by ``create_all``; ``hive`` is added at start) and ``db.cat_name``,
    with database names unique per catalog. Existing databases are in ``hive``."""
    if conn.dialect.name == "sqlite":
        _rebuild_sqlite_table(conn, schema.db)
    elif "cat_name" not in {c["name"] for c in inspect(conn).get_columns("db")}:
        conn.exec_driver_sql(
            "ALTER TABLE db ADD COLUMN cat_name VARCHAR(128) NOT NULL DEFAULT 'hive', DROP INDEX uniq_db_name, "
            "ADD CONSTRAINT uniq_db_name UNIQUE (cat_name, name)")


def _rebuild_sqlite_table(conn: Connection, table: Table) -> None:
    """Give a SQLite table its new definition (SQLite cannot change constraints in place): make it under a
    new name, copy the rows (new columns take their defaults), drop the old one, rename. Foreign keys are
    off meanwhile (``Store._schema_transaction``), and the other tables' references follow the name."""
    new = f"{table.name}_new"
    kept = [c.name for c in table.columns if c.name in {
        row[1] for row in conn.exec_driver_sql(f"PRAGMA table_info({table.name})")}]
    columns = ", ".join(kept)
    table.to_metadata(MetaData(), name=new).create(conn)
    conn.exec_driver_sql(f"INSERT INTO {new} ({columns}) SELECT {columns} FROM {table.name}")
    conn.exec_driver_sql(f"DROP TABLE {table.name}")
    conn.exec_driver_sql(f"ALTER TABLE {new} RENAME TO {table.name}")


def add_file_row_counts(conn: Connection) -> None:
    """Version 10 -> 11: ``files.num_rows`` (NULL for files applied before: re-importing a table fills it)."""
    table_name = conn.dialect.identifier_preparer.format_table(schema.files)
    if "num_rows" not in {c["name"] for c in inspect(conn).get_columns("files")}:
        conn.exec_driver_sql(f"ALTER TABLE {table_name} ADD COLUMN num_rows BIGINT")


def add_delegation_tokens(conn: Connection) -> None:
    """Version 11 -> 12: ``token_master_key`` and ``delegation_token`` (made by ``create_all``) and their
    ``token`` and ``token_key`` counters."""
    sequences.seed(conn)


def add_authorization(conn: Connection) -> None:
    """Version 12 -> 13: ``role``, ``role_member`` and ``privilege_grant`` (made by ``create_all``) and Hive's
    built-in roles ``admin`` and ``public``."""
    authorization.seed_roles(conn, int(time.time()))


MIGRATIONS: dict[int, Callable[[Connection], None]] = {
    1: add_typed_partition_values,
    2: add_partition_encodings,
    3: add_hudi_partition_paths,
    4: add_table_revisions,
    5: add_lock_tables,
    6: add_constraints,
    7: add_column_statistics,
    8: add_notification_log,
    9: add_catalogs,
    10: add_file_row_counts,
    11: add_delegation_tokens,
    12: add_authorization,
}
