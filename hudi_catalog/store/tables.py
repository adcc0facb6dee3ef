"""Queries on ``tbl``, ``tbl_params`` and the table's ``schema`` rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from sqlalchemy import Connection, Row, and_, bindparam, delete, insert, select, update

from ..catalog_scope import current_catalog
from ..errors import NoSuchTableError, StorageError
from ..hudi.properties import TABLE_VERSION
from ..model import Column, Table, TableKeys, TableMeta
from . import descriptors, params, schema
from .catalogs import in_scope
from .driver_sql import DriverConnection, DriverStatement
from .revisions import first_revision

_t = schema.tbl.c
_d = schema.db.c

COMMENT_PARAM = "comment"


class TableRecord(NamedTuple):
    """A ``tbl`` row with its database's name (``db_name``), as ``get_row``, ``find_row``, ``row_by_id`` and
    ``rows_in`` read it. Its flags (``is_*``) are booleans or, as ``find_row`` reads them on the driver's
    cursor, the database's 0 and 1: read them with ``bool()``."""

    tbl_id: int
    db_id: int
    name: str
    owner_name: str | None
    owner_type: str | None
    create_time: int
    last_access_time: int
    retention: int
    tbl_type: str
    view_original_text: str | None
    view_expanded_text: str | None
    is_rewrite_enabled: bool | int
    location: str | None
    input_format: str | None
    output_format: str | None
    is_compressed: bool | int
    num_buckets: int
    is_stored_as_sub_dirs: bool | int
    serde_name: str | None
    serde_lib: str | None
    serde_params: str | None
    serde_extra: str | None
    sd_params: str | None
    bucket_cols: str | None
    sort_cols: str | None
    skewed_info: str | None
    schema_version: int
    revision: int
    partitions_revision: int
    location_key: str | None
    made_location: str | None
    db_name: str


def _table_query():
    """The ``tbl`` row with its database's name: ``TableRecord``'s columns, in its order."""
    return select(schema.tbl, _d.name.label("db_name")).join(schema.db, _d.db_id == _t.db_id)


def _locked(query):
    """``query`` locking its ``tbl`` row only (PostgreSQL would lock the joined ``db`` row too, and two
    writers of one database's tables would deadlock on it; MariaDB renders a plain FOR UPDATE)."""
    return query.with_for_update(of=_t)


def _named(query):
    """``query`` restricted to the table its bound ``database``, ``catalog`` and ``name`` parameters name."""
    return query.where(
        _d.name == bindparam("database"), _d.cat_name == bindparam("catalog"), _t.name == bindparam("name")
    )


def _by_name(database: str, name: str) -> dict[str, str]:
    return {"database": database, "catalog": current_catalog(), "name": name}


_s, _p = schema.schema.c, schema.tbl_params.c
# Built once, the statements every table or partition call starts with: building a statement's expression
# and its cache key cost more than running it; they run on the driver's cursor (``driver_sql``: the row's
# booleans come back as the database holds them, 0 and 1 on MySQL and SQLite, and readers take ``bool()``).
_TABLE_BY_NAME = DriverStatement(_named(_table_query()), TableRecord)
_LOCKED_TABLE_BY_NAME = DriverStatement(_locked(_named(_table_query())), TableRecord)
_TABLE_KEYS = DriverStatement(
    _named(
        select(
            _t.tbl_id,
            _t.name,
            _d.name.label("db_name"),
            _s.name.label("key_name"),
            _s.type,
            _s.comment,
            _p.param_value.label("hudi_version"),
            _t.partitions_revision,
        ).select_from(
            schema.tbl.join(schema.db, _d.db_id == _t.db_id)
            .outerjoin(
                schema.schema,
                and_(_s.tbl_id == _t.tbl_id, _s.version == _t.schema_version, _s.is_partition_col.is_(True)),
            )
            .outerjoin(schema.tbl_params, and_(_p.tbl_id == _t.tbl_id, _p.param_key == TABLE_VERSION))
        )
    ).order_by(_s.position)
)


_TABLE_REVISION = DriverStatement(_named(select(_t.tbl_id, _t.revision).join(schema.db, _d.db_id == _t.db_id)))


def find_revision(conn: Connection | DriverConnection, database: str, name: str) -> tuple[int, int] | None:
    """The table's id and revision (what its cached model is keyed on), or None when it does not exist."""
    rows = _TABLE_REVISION.execute(conn, _by_name(database, name)).rows
    return (rows[0].tbl_id, rows[0].revision) if rows else None


def get_row(conn: Connection, database: str, name: str, lock: bool = False) -> TableRecord:
    """The ``tbl`` row (plus ``db_name``); ``NoSuchTableError`` with Hive's text when missing."""
    row = find_row(conn, database, name, lock)
    if row is None:
        raise NoSuchTableError(f"{database}.{name} table not found")
    return row


def get_keys(conn: Connection | DriverConnection, database: str, name: str) -> TableKeys:
    """The table's id, names, partition keys, Hudi table version and partitions revision in one query;
    ``NoSuchTableError`` when missing."""
    rows = _TABLE_KEYS.execute(conn, _by_name(database, name)).rows
    if not rows:
        raise NoSuchTableError(f"{database}.{name} table not found")
    keys = [Column(r.key_name, r.type, r.comment) for r in rows if r.key_name is not None]
    version = rows[0].hudi_version
    return TableKeys(
        rows[0].tbl_id,
        rows[0].db_name,
        rows[0].name,
        keys,
        int(version) if version and version.isdigit() else None,
        rows[0].partitions_revision,
    )


def _record(row: Row | None) -> TableRecord | None:
    return None if row is None else TableRecord._make(row)


def row_by_id(conn: Connection, tbl_id: int, lock: bool = False) -> TableRecord | None:
    query = _table_query().where(_t.tbl_id == tbl_id)
    return _record(conn.execute(_locked(query) if lock else query).first())


def find_row(conn: Connection, database: str, name: str, lock: bool = False) -> TableRecord | None:
    """The ``tbl`` row or None; with ``lock``, locked until the transaction ends (MySQL)."""
    rows = (_LOCKED_TABLE_BY_NAME if lock else _TABLE_BY_NAME).execute(conn, _by_name(database, name)).rows
    return rows[0] if rows else None


def to_models(conn: Connection, rows: Sequence[TableRecord]) -> list[Table]:
    """Build tables from their rows with two more queries, whatever their number."""
    if not rows:
        return []
    ids = [r.tbl_id for r in rows]
    table_params = params.read_params_of(conn, schema.tbl_params, ids)
    columns = descriptors.load_schema_versions(conn, [(r.tbl_id, r.schema_version) for r in rows])
    tables = []
    for row in rows:
        data_columns, partition_keys = columns[(row.tbl_id, row.schema_version)]
        tables.append(
            Table(
                database=row.db_name,
                name=row.name,
                owner=row.owner_name,
                owner_type=row.owner_type,
                create_time=row.create_time,
                last_access_time=row.last_access_time,
                retention=row.retention,
                sd=descriptors.descriptor_from_row(row._asdict(), data_columns),
                partition_keys=partition_keys,
                parameters=table_params.get(row.tbl_id, {}),
                view_original_text=row.view_original_text,
                view_expanded_text=row.view_expanded_text,
                table_type=row.tbl_type,
                rewrite_enabled=bool(row.is_rewrite_enabled),
                id=row.tbl_id,
            )
        )
    return tables


def insert_table(conn: Connection, db_id: int, table: Table) -> int:
    result = conn.execute(
        insert(schema.tbl).values(
            db_id=db_id,
            name=table.name,
            owner_name=table.owner,
            owner_type=table.owner_type,
            create_time=table.create_time,
            last_access_time=table.last_access_time,
            retention=table.retention,
            tbl_type=table.table_type,
            view_original_text=table.view_original_text,
            view_expanded_text=table.view_expanded_text,
            is_rewrite_enabled=table.rewrite_enabled,
            revision=first_revision(),
            partitions_revision=first_revision(),
            **descriptors.descriptor_to_row(table.sd, schema_version=1),
        )
    )
    key = result.inserted_primary_key
    if key is None:
        raise StorageError("the database returned no id for the new table")
    tbl_id = key[0]
    descriptors.insert_schema_version(conn, tbl_id, 1, table.sd.columns, table.partition_keys)
    params.insert_params(conn, schema.tbl_params, {tbl_id: table.parameters})
    return tbl_id


def update_table(conn: Connection, tbl_id: int, db_id: int, table: Table, schema_version: int) -> None:
    conn.execute(
        update(schema.tbl)
        .where(_t.tbl_id == tbl_id)
        .values(
            db_id=db_id,
            name=table.name,
            owner_name=table.owner,
            owner_type=table.owner_type,
            last_access_time=table.last_access_time,
            retention=table.retention,
            tbl_type=table.table_type,
            view_original_text=table.view_original_text,
            view_expanded_text=table.view_expanded_text,
            is_rewrite_enabled=table.rewrite_enabled,
            revision=_t.revision + 1,
            **descriptors.descriptor_to_row(table.sd, schema_version=schema_version),
        )
    )
    params.write_params(conn, schema.tbl_params, tbl_id, table.parameters)


def delete_table(conn: Connection, tbl_id: int) -> None:
    """Delete a table with everything that hangs off it (partitions, schema, timeline, files, column
    statistics, its constraints and the foreign keys that reference it)."""
    for child in (
        schema.files,
        schema.tbl_version,
        schema.instant_meta,
        schema.instant,
        schema.tbl_timestamp,
        schema.tbl_col_stats,
        schema.part_col_stats,
    ):
        conn.execute(delete(child).where(child.c.tbl_id == tbl_id))
    constraints = schema.tbl_constraint.c
    conn.execute(
        delete(schema.tbl_constraint).where((constraints.tbl_id == tbl_id) | (constraints.parent_tbl_id == tbl_id))
    )
    part_ids = select(schema.partitions.c.part_id).where(schema.partitions.c.tbl_id == tbl_id)
    conn.execute(delete(schema.partition_params).where(schema.partition_params.c.part_id.in_(part_ids)))
    conn.execute(delete(schema.partition_key_val).where(schema.partition_key_val.c.tbl_id == tbl_id))
    conn.execute(delete(schema.partitions).where(schema.partitions.c.tbl_id == tbl_id))
    conn.execute(delete(schema.schema).where(schema.schema.c.tbl_id == tbl_id))
    conn.execute(delete(schema.tbl_params).where(schema.tbl_params.c.tbl_id == tbl_id))
    conn.execute(delete(schema.tbl).where(_t.tbl_id == tbl_id))


def rows_in(conn: Connection, database: str, names: Sequence[str] | None = None) -> list[TableRecord]:
    query = _table_query().where(_d.name == database, in_scope()).order_by(_t.name)
    if names is not None:
        query = query.where(_t.name.in_(list(names)))
    return [TableRecord._make(row) for row in conn.execute(query)]


_NAMES_IN = (
    select(_t.name)
    .join(schema.db, _d.db_id == _t.db_id)
    .where(_d.name == bindparam("database"), _d.cat_name == bindparam("catalog"))
)
_ALL_NAMES_IN = DriverStatement(_NAMES_IN.order_by(_t.name))
_NAMES_OF_TYPE_IN = DriverStatement(_NAMES_IN.where(_t.tbl_type == bindparam("table_type")).order_by(_t.name))


def names_in(conn: Connection | DriverConnection, database: str, table_type: str | None = None) -> list[str]:
    """The names of the database's tables (of one type, when given), in order (``get_all_tables``)."""
    by_name = {"database": database, "catalog": current_catalog()}
    if table_type:
        rows = _NAMES_OF_TYPE_IN.execute(conn, {**by_name, "table_type": table_type}).rows
    else:
        rows = _ALL_NAMES_IN.execute(conn, by_name).rows
    return [row.name for row in rows]


def names_with_param(conn: Connection, database: str, key: str, values: Sequence[str]) -> list[str]:
    """The names of the database's tables whose parameter ``key`` is one of ``values``, in order."""
    query = (
        select(_t.name)
        .join(schema.db, _d.db_id == _t.db_id)
        .join(schema.tbl_params, _p.tbl_id == _t.tbl_id)
        .where(_d.name == database, in_scope(), _p.param_key == key, _p.param_value.in_(list(values)))
    )
    return list(conn.execute(query.order_by(_t.name)).scalars())


_PARAMS_OF_TABLE = _named(
    select(_p.param_key, _p.param_value).select_from(
        schema.tbl.join(schema.db, _d.db_id == _t.db_id).join(schema.tbl_params, _p.tbl_id == _t.tbl_id)
    )
).where(_p.param_key.in_(bindparam("keys", expanding=True)))


def params_of_table(conn: Connection, database: str, name: str, keys: Sequence[str]) -> dict[str, str] | None:
    """The parameters ``keys`` of the table (those it has), or None when there is no such table: one query,
    with nothing else of the table read."""
    rows = conn.execute(_PARAMS_OF_TABLE, {**_by_name(database, name), "keys": list(keys)})
    found = {r.param_key: r.param_value for r in rows}
    if found or find_row(conn, database, name) is not None:
        return found
    return None


def names_in_other_catalogs(conn: Connection, database: str) -> set[str]:
    """Names of the tables in the databases called ``database`` of the catalogs other than the current one."""
    rows = _NAMES_IN_OTHER_CATALOGS.execute(conn, {"database": database, "catalog": current_catalog()}).rows
    return {r.name for r in rows}


def in_other_catalogs(conn: Connection, database: str, name: str) -> bool:
    """Whether a table ``database.name`` is in a catalog other than the current one."""
    params = {"database": database, "catalog": current_catalog(), "name": name}
    return bool(_NAME_IN_OTHER_CATALOGS.execute(conn, params).rows)


_IN_OTHER_CATALOGS = (
    select(_t.name)
    .join(schema.db, _d.db_id == _t.db_id)
    .where(_d.name == bindparam("database"), _d.cat_name != bindparam("catalog"))
)
_NAMES_IN_OTHER_CATALOGS = DriverStatement(_IN_OTHER_CATALOGS)
_NAME_IN_OTHER_CATALOGS = DriverStatement(_IN_OTHER_CATALOGS.where(_t.name == bindparam("name")).limit(1))


_ANY_TABLE = DriverStatement(select(_t.tbl_id).where(_t.db_id == bindparam("db_id")).limit(1))


def has_tables(conn: Connection, db_id: int) -> bool:
    return bool(_ANY_TABLE.execute(conn, {"db_id": db_id}).rows)


def metas(conn: Connection) -> list[TableMeta]:
    """Database, name, type, comment and owner of every table, in one query."""
    p = schema.tbl_params.c
    comment = select(p.param_value).where(p.tbl_id == _t.tbl_id, p.param_key == COMMENT_PARAM).scalar_subquery()
    rows = conn.execute(
        select(_d.name, _t.name, _t.tbl_type, comment.label("comment"), _t.owner_name, _t.owner_type)
        .join(schema.db, _d.db_id == _t.db_id)
        .where(in_scope())
        .order_by(_d.name, _t.name)
    )
    return [TableMeta(*r) for r in rows]


def with_timeline(conn: Connection) -> list[tuple[str, str, str, str | None]]:
    """``(catalog, database, name, location)`` of every table, in every catalog, that records a Hudi table
    version (an import's or a followed hive sync's tables, and their merge-on-read views)."""
    p = schema.tbl_params.c
    rows = conn.execute(
        select(_d.cat_name, _d.name, _t.name, _t.location)
        .join(schema.db, _d.db_id == _t.db_id)
        .join(schema.tbl_params, p.tbl_id == _t.tbl_id)
        .where(p.param_key == TABLE_VERSION)
        .order_by(_d.cat_name, _d.name, _t.name)
    )
    return [(r[0], r[1], r[2], r[3]) for r in rows]


def ids_with_param(conn: Connection, db_id: int, key: str, value: str) -> list[int]:
    """The ids of the database's tables whose parameter ``key`` is ``value``, in the order they were made."""
    p = schema.tbl_params.c
    return list(
        conn.execute(
            select(_t.tbl_id)
            .join(schema.tbl_params, p.tbl_id == _t.tbl_id)
            .where(_t.db_id == db_id, p.param_key == key, p.param_value == value)
            .order_by(_t.tbl_id)
        ).scalars()
    )


def write_parameters(conn: Connection, tbl_id: int, parameters: Mapping[str, str]) -> None:
    """Replace the table's parameters alone, raising its revision."""
    conn.execute(update(schema.tbl).where(_t.tbl_id == tbl_id).values(revision=_t.revision + 1))
    params.write_params(conn, schema.tbl_params, tbl_id, parameters)
