"""Tables and views: create, read, list, alter (including rename) and drop."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from sqlalchemy import Connection

from ..authorization import ObjectType, PrivilegeGrant, normalize_privilege
from ..call_settings import current_settings
from ..column_stats import stale_columns, with_accurate_columns
from ..errors import (
    AlreadyExistsError,
    CatalogError,
    ConcurrentModificationError,
    InvalidInputError,
    InvalidObjectError,
    InvalidOperationError,
    NoSuchDatabaseError,
    NoSuchPartitionError,
    NoSuchTableError,
)
from ..events import CatalogEvent, EventType
from ..hudi.properties import COPY_ON_WRITE, META_DIR, TABLE_TYPE
from ..hudi.slice_stats import empty_statistics
from ..model import (
    EXPECTED_KEY,
    EXPECTED_VALUE,
    EXTERNAL_TABLE,
    MANAGED_TABLE,
    MATERIALIZED_VIEW,
    VIEW_OF_PARAM,
    VIRTUAL_VIEW,
    Table,
    TableConstraint,
    TableMeta,
)
from ..names import check_column_names, compile_pattern, filter_names, is_valid_name, normalize
from ..partition_names import make_partition_name
from ..pruning.table_filter import table_filter_matcher
from ..stats import (
    COLUMN_STATS_ACCURATE,
    TRUNCATED_STATS,
    derived_from_slices,
    keep_slice_stats,
    should_update,
    update_fast_stats,
)
from ..store import authorization as grant_store
from ..store import column_stats as stats_store
from ..store import databases as db_store
from ..store import descriptors, schema
from ..store import locations as location_store
from ..store import partitions as partition_store
from ..store import tables as table_store
from ..store import txns as txn_store
from ..store.databases import DatabaseRecord
from ..store.locations import Spared
from ..store.tables import TableRecord
from ..types import is_implicitly_convertible
from ..warehouse import Warehouse, join, qualify
from . import directories, transactional
from .constraints import add_constraints
from .context import DDL_TIME, ServiceContext
from .view_links import view_row

log = logging.getLogger(__name__)

EXTERNAL_PARAM = "EXTERNAL"
EXTERNAL_TABLE_PURGE = "external.table.purge"

AlterListener = Callable[[Mapping[str, str], Table], None]
"""Hears of a committed alter: the table's parameters before it, and the table after it."""


def is_view(table: Table) -> bool:
    return table.table_type in (VIRTUAL_VIEW, MATERIALIZED_VIEW)


def has_data(table: Table) -> bool:
    """Whether the table keeps data in a location of its own: all but a plain view (a materialized view does,
    made and dropped as a managed table's)."""
    return table.table_type != VIRTUAL_VIEW


def _settle_table_type(table: Table) -> str:
    """Hive decides managed or external by the ``EXTERNAL`` parameter as much as by the type."""
    external_param = (table.parameters or {}).get(EXTERNAL_PARAM, "").upper() == "TRUE"
    if table.table_type == MANAGED_TABLE and external_param:
        return EXTERNAL_TABLE
    if table.table_type == EXTERNAL_TABLE and not external_param:
        return MANAGED_TABLE
    return table.table_type or MANAGED_TABLE


def _expected_parameter(environment: Mapping[str, str] | None, new: Table) -> tuple[str, str] | None:
    """``(key, value)`` an alter expects the table's parameter to hold, or None."""
    key = (environment or {}).get(EXPECTED_KEY)
    value = (environment or {}).get(EXPECTED_VALUE)
    if key is None or value is None:
        return None
    if new.parameters.get(key) is None:
        raise InvalidObjectError(f"New value for expected key {key} is not set")
    return key, value


def _emptied(params: Mapping[str, str]) -> dict[str, str]:
    """A truncated table's or partition's parameters: the statistics it has become those of no data, marked
    accurate; as Hive 4, a statistic it does not have is not added."""
    zeroed = {k: "0" for k in TRUNCATED_STATS if k in params}
    return {**params, **zeroed, COLUMN_STATS_ACCURATE: '{"BASIC_STATS":"true"}'}


def purges_data(table: Table) -> bool:
    """Whether a truncate or a partition drop deletes the data: a managed table's, or an external one's whose
    ``external.table.purge`` is true (Hive 3+'s external tables whose data goes with them)."""
    return table.table_type == MANAGED_TABLE or table.parameters.get(EXTERNAL_TABLE_PURGE, "").lower() == "true"


def _check_columns(table: Table, error: type[CatalogError] = InvalidObjectError) -> None:
    names = [c.name.lower() for c in table.sd.columns + table.partition_keys]
    for column in table.sd.columns + table.partition_keys:
        if not column.name or not column.type:
            raise InvalidObjectError(f"Invalid column {column.name!r}")
    check_column_names([c.name for c in table.sd.columns], [k.name for k in table.partition_keys], error)
    if len(names) != len(set(names)):
        raise InvalidObjectError(f"Invalid column: duplicate column name in {table.name}")


def _distinct_grants(grants: Sequence[PrivilegeGrant]) -> list[PrivilegeGrant]:
    """One grant per grantee and privilege (upper case), with the grant option if any of its copies has it."""
    kept: dict[tuple[str, str, str], PrivilegeGrant] = {}
    for grant in grants:
        privilege = normalize_privilege(grant.privilege or "")
        if not privilege or not grant.grantee.name:
            raise InvalidInputError("A privilege grant needs a privilege name and a grantee")
        key = (grant.grantee.type.name, grant.grantee.name, privilege)
        with_option = grant.grant_option or (key in kept and kept[key].grant_option)
        kept[key] = replace(grant, privilege=privilege, grant_option=with_option)
    return list(kept.values())


def table_claims(
    conn: Connection, warehouse: Warehouse, row: TableRecord, in_database: tuple[str, ...]
) -> list[directories.Claim]:
    """The directories dropping a managed table's data would delete: the table's own, and those of its
    partitions located elsewhere (none without a location; ``file:/x/p`` is inside ``file:///x``);
    ``in_database``: its database's location when the server made it."""
    if row.location is None:
        return []
    made = location_store.made(row)
    own = directories.container_of(row.location, made)
    return [directories.Claim(row.location, made, in_database)] + [
        directories.Claim(location, part_made, own + in_database)
        for location, part_made in location_store.partitions_apart(conn, row.tbl_id, warehouse.spellings(row.location))
        if not (warehouse.same(location, row.location) or warehouse.inside(location, row.location))
    ]


class TableService:
    def __init__(self, ctx: ServiceContext, after_alter: AlterListener | None = None) -> None:
        """``after_alter`` hears of each committed alter (``Catalog`` gives the hive sync follower)."""
        self.ctx = ctx
        self.after_alter = after_alter

    def create(
        self,
        table: Table,
        environment: Mapping[str, str] | None = None,
        constraints: Sequence[TableConstraint] = (),
        grants: Sequence[PrivilegeGrant] = (),
    ) -> Table:
        """Create a table, with its ``constraints`` and the privilege ``grants`` on it (their objects are
        ignored: the grants are on this table) in the same transaction; a managed table without location
        gets ``<database location>/<name>``.

        The grants are those of the ``Table`` struct's ``privileges``, which Hive Metastore stores as grants
        on the new table: Presto and Trino send the owner's ``SELECT``/``INSERT``/``UPDATE``/``DELETE`` with
        grant option there, and their ``sql-standard`` security reads them back.

        Raises:
            InvalidObjectError: bad name or columns.
            NoSuchDatabaseError: the database does not exist.
            AlreadyExistsError: a table of that name exists.
            InvalidInputError: a grant without privilege or grantee.
        """
        with self.ctx.store.write() as conn:
            created = self.create_in(conn, table, environment, constraints, grants)
        log.info("created table %s", created.qualified_name)
        return created

    def create_in(
        self,
        conn: Connection,
        table: Table,
        environment: Mapping[str, str] | None = None,
        constraints: Sequence[TableConstraint] = (),
        grants: Sequence[PrivilegeGrant] = (),
    ) -> Table:
        """``create`` inside the caller's write transaction ``conn`` (tables created with others changed in
        one transaction); returns the table as created. Raises as ``create``."""
        if not is_valid_name(table.name):
            raise InvalidObjectError(f"{table.name} is not a valid object name")
        _check_columns(table)
        grants = _distinct_grants(grants)
        table = replace(
            table,
            database=normalize(table.database),
            name=normalize(table.name),
            parameters=dict(table.parameters or {}),
            create_time=table.create_time or self.ctx.now(),
        )
        table.table_type = _settle_table_type(table)
        transactional.settle_on_create(table)
        now = self.ctx.now()
        try:
            # locked first: a concurrent create of the same name waits, then finds it (AlreadyExists)
            db_row = db_store.get_row(conn, table.database, lock=True)
        except NoSuchDatabaseError as e:
            raise NoSuchDatabaseError(f"The database {table.database} does not exist") from e
        if table_store.find_row(conn, table.database, table.name) is not None:
            raise AlreadyExistsError(f"Table {table.name} already exists")
        made_dir = False
        if has_data(table):
            location = table.sd.location or join(db_row.location_uri, table.name)
            table.sd.location = qualify(location)
            directories.check_location(
                self.ctx.warehouse, table.sd.location, f"table {table.qualified_name}", InvalidObjectError
            )
            made_dir = self.ctx.warehouse.make_dirs(table.sd.location)
            if derived_from_slices(table.parameters):  # until its timeline has slices: none
                table.parameters.update(
                    {}
                    if VIEW_OF_PARAM in table.parameters
                    else empty_statistics(table.parameters.get(TABLE_TYPE, COPY_ON_WRITE) == COPY_ON_WRITE)
                )
            elif not table.partition_keys and should_update(environment):
                update_fast_stats(table.parameters, self.ctx.warehouse, table.sd.location, made_dir, False, environment)
        table.parameters.setdefault(DDL_TIME, str(now))
        try:
            table.id = table_store.insert_table(conn, db_row.db_id, table)
            if made_dir:
                location_store.record_made(conn, schema.tbl, [table.id])
            if constraints:
                add_constraints(self.ctx, conn, constraints)
            ids = grant_store.ObjectIds(ObjectType.TABLE, db_row.db_id, table.id)
            for grant in grants:  # as Hive: granted now, whatever time the client names
                grant_store.add_grant(conn, ids, grant.grantee, grant.privilege, grant.grant_option, now, grant.grantor)
            self.ctx.events.emit(conn, CatalogEvent(EventType.CREATE_TABLE, table=table), now)
        except Exception:
            if made_dir and table.sd.location:
                self.ctx.warehouse.discard_dir(table.sd.location)
            raise
        return table

    def get(self, database: str, name: str) -> Table:
        """The table: from the read cache while its revision is unchanged (found by one statement on the
        driver's cursor, ``Store.driver_read``), else read whole and cached."""
        database, name = normalize(database), normalize(name)
        with self.ctx.store.driver_read() as conn:
            found = table_store.find_revision(conn, database, name)
        if found is None:
            raise NoSuchTableError(f"{database}.{name} table not found")
        cached = self.ctx.table_cache.get(*found)
        if cached is not None:
            return cached
        with self.ctx.store.read() as conn:
            return self.ctx.table_model(conn, table_store.get_row(conn, database, name))

    def get_many(self, database: str, names: list[str]) -> list[Table]:
        """The named tables that exist, in name order; missing names are skipped."""
        with self.ctx.store.read() as conn:
            rows = table_store.rows_in(conn, normalize(database), [normalize(n) for n in names])
            return table_store.to_models(conn, rows)

    def names(self, database: str, pattern: str | None = None, table_type: str | None = None) -> list[str]:
        with self.ctx.store.driver_read() as conn:
            return filter_names(table_store.names_in(conn, normalize(database), table_type), pattern)

    def metas(
        self, database_pattern: str | None, table_pattern: str | None, table_types: list[str] | None
    ) -> list[TableMeta]:
        db_regex, tbl_regex = compile_pattern(database_pattern), compile_pattern(table_pattern)
        types = {t.upper() for t in table_types} if table_types else None
        with self.ctx.store.read() as conn:
            metas = table_store.metas(conn)
        return [
            m
            for m in metas
            if (db_regex is None or db_regex.matches(m.database))
            and (tbl_regex is None or tbl_regex.matches(m.name))
            and (types is None or m.table_type in types)
        ]

    def alter(
        self,
        database: str,
        name: str,
        new: Table,
        cascade: bool = False,
        environment: Mapping[str, str] | None = None,
    ) -> None:
        """Change a table, following Hive's rules.

        A rename of a managed table that keeps its location moves the directory to
        ``<new database location>/<new name>``, and its partitions' locations with it (as Hive does).
        Partition keys cannot change, column types only compatibly.
        ``cascade`` gives every partition the table's new columns. With ``EXPECTED_KEY`` and
        ``EXPECTED_VALUE`` in ``environment``, the alter is a compare-and-set: it applies only if the table's
        parameter still has that value, checked on the locked row in the altering transaction.

        Raises:
            InvalidOperationError: the table does not exist, the new name is taken or invalid, partition
                keys or column types changed in a way Hive refuses.
            ConcurrentModificationError: the expected parameter value no longer holds (Hive's message).
        """
        with self.ctx.store.write() as conn:
            old, new = self.alter_in(conn, database, name, new, cascade, environment)
        self.altered(old, new)

    def altered(self, old: Table, new: Table) -> None:
        """What follows a committed ``alter_in``: the log line and the alter listener."""
        log.info("altered table %s", old.qualified_name)
        if self.after_alter is not None:
            self.after_alter(old.parameters, new)

    def alter_in(
        self,
        conn: Connection,
        database: str,
        name: str,
        new: Table,
        cascade: bool = False,
        environment: Mapping[str, str] | None = None,
    ) -> tuple[Table, Table]:
        """``alter`` inside the caller's write transaction ``conn`` (several tables changed in one transaction);
        returns the table as it was and as it is now. The caller runs ``altered`` once the transaction commits.
        Raises as ``alter``."""
        database, name = normalize(database), normalize(name)
        new = replace(
            new,
            database=normalize(new.database or database),
            name=normalize(new.name or name),
            parameters=dict(new.parameters or {}),
        )
        if not is_valid_name(new.name):
            raise InvalidOperationError(f"{new.name} is not a valid object name")
        _check_columns(new, InvalidOperationError)
        new.table_type = _settle_table_type(new)
        moved: tuple[str, str] | None = None
        expected = _expected_parameter(environment, new)
        row = table_store.find_row(conn, database, name, lock=True)
        if row is None:
            raise InvalidOperationError(f"table {database}.{name} doesn't exist")
        old = self.ctx.table_model(conn, row)
        if expected is not None and old.parameters.get(expected[0]) != expected[1]:
            # Hive's wording, typo included: Iceberg matches on its start
            raise ConcurrentModificationError(
                f"The table has been modified. The parameter value for key '{expected[0]}' is "
                f"'{old.parameters.get(expected[0], 'null')}'. The expected was value was '{expected[1]}'"
            )
        transactional.settle_on_alter(old, new)
        renamed = (new.database, new.name) != (database, name)
        target_db = db_store.get_row(conn, new.database) if renamed else None
        if renamed and table_store.find_row(conn, new.database, new.name) is not None:
            raise InvalidOperationError(f"new table {new.database}.{new.name} already exists")
        self._check_schema_change(old, new)
        stale = stale_columns(old.sd.columns, new.sd.columns)
        if stale:  # as Hive: statistics of a dropped or retyped column go
            stats_store.delete_table(conn, row.tbl_id, columns=stale)
            if stats_store.delete_partitions(conn, row.tbl_id, columns=stale):
                partition_store.all_changed(conn, row.tbl_id)  # readers cache statistics by revision
            new.parameters = with_accurate_columns(new.parameters, removed=stale)
        if has_data(new):
            new.sd.location = qualify(new.sd.location) if new.sd.location else old.sd.location
            if new.sd.location != old.sd.location:
                directories.check_location(
                    self.ctx.warehouse, new.sd.location, f"table {new.database}.{new.name}", InvalidOperationError
                )
        if (
            renamed
            and target_db is not None
            and old.table_type == MANAGED_TABLE
            and old.sd.location
            and (not is_view(old) and new.sd.location == old.sd.location)
        ):
            moved = self._move_on_rename(conn, row, old, new, target_db)
            if moved:
                new.sd.location = moved[1]
        version = descriptors.find_or_add_schema_version(
            conn, row.tbl_id, row.schema_version, new.sd.columns, old.partition_keys
        )
        new.parameters.setdefault(DDL_TIME, str(self.ctx.now()))
        if derived_from_slices(old.parameters):
            keep_slice_stats(new.parameters, old.parameters)
        elif not new.partition_keys and not is_view(new) and should_update(environment):
            update_fast_stats(new.parameters, self.ctx.warehouse, new.sd.location, False, True, environment)
        table_store.update_table(conn, row.tbl_id, target_db.db_id if target_db else row.db_id, new, version)
        if renamed:
            txn_store.rename_table(conn, database, name, new.database, new.name)
        if cascade and version != row.schema_version:
            partition_store.set_schema_version(conn, row.tbl_id, version)
        descriptors.delete_unused_schema_versions(conn, row.tbl_id)
        self.ctx.events.emit(
            conn,
            CatalogEvent(EventType.ALTER_TABLE, table=replace(new, id=row.tbl_id), old_table=old),
            self.ctx.now(),
        )
        if moved:
            partition_store.relocate(conn, row.tbl_id, self.ctx.warehouse.spellings(moved[0]), moved[1])
            location_store.record_made(conn, schema.tbl, [row.tbl_id])  # the server put it there
            self.ctx.warehouse.rename(*moved)
        return old, new

    def _move_on_rename(
        self, conn: Connection, row: TableRecord, old: Table, new: Table, target_db: DatabaseRecord
    ) -> tuple[str, str] | None:
        """``(from, to)`` of a renamed managed table's directory, or None where it stays. As in Hive, only a
        table at its default location (``<database location>/<name>``) moves, to the default location of
        its new name; here only a directory the server may move (``services.directories``) does."""
        source_db = db_store.get_row(conn, old.database)
        location = old.sd.location or ""
        # Presto and Trino spell the location they give a new table as Hadoop does (file:/x), whatever the
        # database's spelling (file:///x): the same directory
        if not self.ctx.warehouse.same(location, join(source_db.location_uri, old.name)):
            log.info("renamed table %s keeps its location %s: not its database's default", new.qualified_name, location)
            return None
        claim = directories.Claim(
            location,
            location_store.made(row),
            directories.container_of(source_db.location_uri, location_store.made(source_db)),
            Spared(table_id=row.tbl_id),
        )
        if not directories.allowed(conn, self.ctx.warehouse, [claim], "moving")[0]:
            return None
        target = join(target_db.location_uri, new.name)
        if self.ctx.warehouse.exists(target) or directories.held(conn, self.ctx.warehouse, target):
            raise InvalidOperationError(
                f"New location for this table {new.database}.{new.name} already exists : {target}"
            )
        return location, target

    @staticmethod
    def _check_schema_change(old: Table, new: Table) -> None:
        old_keys = [(c.name.lower(), c.type.lower()) for c in old.partition_keys]
        new_keys = [(c.name.lower(), c.type.lower()) for c in new.partition_keys]
        if old_keys != new_keys:
            raise InvalidOperationError("partition keys can not be changed.")
        if is_view(old) or not current_settings().check_column_types:
            return
        incompatible = [
            n.name for o, n in zip(old.sd.columns, new.sd.columns) if not is_implicitly_convertible(o.type, n.type)
        ]
        if incompatible:
            raise InvalidOperationError(
                "The following columns have types incompatible with the existing columns in their "
                "respective positions :\n" + ",".join(incompatible)
            )

    def drop(self, database: str, name: str, delete_data: bool, purge: bool = False) -> None:
        """Drop a table; a managed table's data directories go too when ``delete_data``, an external table's
        when ``purge`` too (an Iceberg table dropped with its data), as far as they are the server's to delete
        (``directories``). A Hudi table's Iceberg view (``services.view_links``) is dropped with it, in the
        same transaction and with a drop event of its own; the view's metadata files stay unless they lie in a
        directory the drop deletes.

        Raises:
            NoSuchTableError: the table does not exist.
            StorageError: the data is to be deleted and its store cannot be reached; nothing was dropped.
        """
        database, name = normalize(database), normalize(name)
        if delete_data:
            self._check_data_reachable(database, name, purge)
        claims: list[directories.Claim] = []
        with self.ctx.store.write() as conn:
            row = table_store.find_row(conn, database, name)
            if row is None:
                raise NoSuchTableError(f"{database}.{name} table not found")
            if delete_data and (row.tbl_type in (MANAGED_TABLE, MATERIALIZED_VIEW) or purge) and row.location:
                db_row = db_store.get_row(conn, database)
                claims = table_claims(
                    conn,
                    self.ctx.warehouse,
                    row,
                    directories.container_of(db_row.location_uri, location_store.made(db_row)),
                )
            dropped = [self.ctx.table_model(conn, row)]
            view = view_row(conn, dropped[0])
            if view is not None:  # the table's Iceberg view goes first, with an event of its own
                dropped.insert(0, self.ctx.table_model(conn, view))
                table_store.delete_table(conn, view.tbl_id)
            table_store.delete_table(conn, row.tbl_id)
            for gone in dropped:
                if not table_store.in_other_catalogs(conn, database, gone.name):  # they share write ids
                    txn_store.delete_table(conn, database, gone.name)
            self.ctx.events.emit_all(
                conn, [CatalogEvent(EventType.DROP_TABLE, table=t) for t in dropped], self.ctx.now()
            )
            data_dirs = directories.approved(conn, self.ctx.warehouse, claims)
        for location in data_dirs:
            self.ctx.warehouse.discard_dir(location)
        log.info("dropped table %s.%s%s", database, name, f" and its Iceberg view {view.name}" if view else "")

    def _check_data_reachable(self, database: str, name: str, purge: bool) -> None:
        """A drop that deletes the table's data refuses before it starts while the data's store is out of
        reach (``Warehouse.check_reachable``); an unknown table is left to the drop to report."""
        try:
            table = self.get(database, name)
        except NoSuchTableError:
            return
        if (table.table_type == MANAGED_TABLE or purge) and table.sd.location:
            self.ctx.warehouse.check_reachable(table.sd.location, "Table metadata not deleted")

    def truncate(self, database: str, name: str, part_names: Sequence[str] | None = None) -> None:
        """Delete a managed table's data (of every partition, or of the named ones) and keep its metadata, as
        Hive's ``truncate_table``: the data's statistics become those of no data (``numFiles``,
        ``totalSize``, ``numRows``, ``rawDataSize`` 0, column statistics deleted), and each truncated table
        or partition gets an alter event marked as a truncation. The files go after the commit.

        Raises:
            NoSuchTableError / NoSuchPartitionError: the table or a named partition does not exist.
            InvalidOperationError: the table is not managed, or is a Hudi table (its timeline would go), or its
                data is not the server's to delete (``services.directories``).
        """
        database, name = normalize(database), normalize(name)
        with self.ctx.store.write() as conn:
            row = table_store.find_row(conn, database, name, lock=True)
            if row is None:
                raise NoSuchTableError(f"{database}.{name} table not found")
            table = self.ctx.table_model(conn, row)
            if not purges_data(table):
                raise InvalidOperationError(f"Cannot truncate non-managed table {name}.")
            if table.sd.location and self.ctx.warehouse.exists(join(table.sd.location, META_DIR)):
                raise InvalidOperationError(
                    f"Cannot truncate Hudi table {database}.{name}: its data and timeline are written by Hudi"
                )
            now = self.ctx.now()
            db_row = db_store.get_row(conn, database)
            in_database = directories.container_of(db_row.location_uri, location_store.made(db_row))
            if not table.partition_keys:
                claims = [
                    directories.Claim(loc, location_store.made(row), in_database, Spared(table_id=row.tbl_id))
                    for loc in [table.sd.location]
                    if loc
                ]
                stats_store.delete_table(conn, row.tbl_id)
                truncated = replace(table, parameters=_emptied(table.parameters))
                table_store.write_parameters(conn, row.tbl_id, truncated.parameters)
                self.ctx.events.emit(
                    conn, CatalogEvent(EventType.ALTER_TABLE, table=truncated, old_table=table, truncate=True), now
                )
            else:
                chosen = partition_store.selection(row.tbl_id, names=None if part_names is None else list(part_names))
                found = partition_store.read_with_ids(conn, table, row.tbl_id, chosen)
                if part_names is not None and len(found) != len(set(part_names)):
                    names = {make_partition_name([k.name for k in table.partition_keys], p.values) for _, p in found}
                    missing = sorted(set(part_names) - names)
                    raise NoSuchPartitionError(f"Partition doesn't exist. {missing[0]}")
                made_parts = location_store.made_partitions(conn, [part_id for part_id, _ in found])
                in_table = directories.container_of(row.location, location_store.made(row)) + in_database
                claims = [
                    directories.Claim(p.sd.location, part_id in made_parts, in_table, Spared(partition_id=part_id))
                    for part_id, p in found
                    if p.sd.location
                ]
                stats_store.delete_partitions(conn, row.tbl_id, [part_id for part_id, _ in found])
                emptied = {part_id: _emptied(p.parameters) for part_id, p in found}
                partition_store.write_parameters(conn, row.tbl_id, emptied)
                self.ctx.events.emit_all(
                    conn,
                    [
                        CatalogEvent(
                            EventType.ALTER_PARTITION,
                            table=table,
                            old_partitions=[p],
                            partitions=[replace(p, parameters=emptied[part_id])],
                            truncate=True,
                        )
                        for part_id, p in found
                    ],
                    now,
                )
            verdicts = directories.allowed(conn, self.ctx.warehouse, claims, "emptying")
            refused = [c.location for c, ok in zip(claims, verdicts) if not ok]
            if refused:  # before the commit: nothing changes
                raise InvalidOperationError(
                    f"Cannot truncate {database}.{name}: its data at {refused[0]} is not the metastore's to delete "
                    "(a directory it did not make for this table, outside the warehouse root and the data roots, "
                    "or another table's, partition's or database's location)"
                )
        for claim in claims:
            self.ctx.warehouse.delete_contents(claim.location)
        log.info(
            "truncated table %s (%s)",
            table.qualified_name,
            "all partitions" if part_names is None else f"{len(part_names)} partitions",
        )

    def names_by_filter(self, database: str, filter_text: str, max_tables: int = -1) -> list[str]:
        """Table names matching Hive's table filter over owner, last access time and parameters.

        The filter compares ``hive_filter_field_owner__``, ``hive_filter_field_last_access__`` or
        ``hive_filter_field_params__<key>`` with a literal using ``= <> != < <= > >= LIKE``, combined with
        AND/OR/NOT. ``LIKE`` takes a Java regular expression over the whole value.
        """
        matches = table_filter_matcher(filter_text)
        names = [t.name for t in self.get_many(database, self.names(database)) if matches(t)]
        return names if max_tables is None or max_tables < 0 else names[:max_tables]
