"""Iceberg tables kept for the Iceberg REST catalog, in the catalog's own tables.

An Iceberg table is the Hive table Iceberg's Hive catalog registers: external, ``table_type=ICEBERG``, its
current metadata file in ``metadata_location`` and the one before in ``previous_metadata_location``, its
columns those of the current schema. The server writes the metadata files of the creates and commits it
is asked for, at the table's location, and publishes a version with a compare-and-set on
``metadata_location`` in the database. A commit also holds Hive's exclusive lock on the table while it
works, so a Hive catalog writer (which locks, reads, writes and alters) and a REST writer take turns and
neither overwrites the other's version. A commit of several tables publishes them in one transaction.
"""

from __future__ import annotations

import gzip
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from typing import Any

from pyiceberg.table.metadata import TableMetadata

from ..call_settings import CallSettings, settings_scope
from ..errors import (
    AlreadyExistsError,
    ConcurrentModificationError,
    InvalidInputError,
    InvalidOperationError,
    NoSuchObjectError,
    NoSuchTableError,
    ReadOnlyTableError,
    StorageError,
)
from ..iceberg.commits import (
    apply_changes,
    created_metadata,
    hive_columns,
    metadata_json,
    next_metadata_path,
    parse_metadata,
)
from ..iceberg.metadata_files import make_folder
from ..iceberg.uri_files import uri_file_system
from ..iceberg_tables import IcebergTable, NewIcebergTable, TableChange
from ..locks.model import LockComponent, LockRequest, LockState, LockTarget, LockType
from ..model import EXPECTED_KEY, EXPECTED_VALUE, EXTERNAL_TABLE, SerDe, StorageDescriptor, Table
from ..names import is_valid_name, normalize
from ..stats import DO_NOT_UPDATE_STATS
from ..store import tables as table_store
from ..warehouse import join, qualify
from .context import ServiceContext
from .databases import DatabaseService
from .directories import check_location
from .locks import LockService
from .tables import TableService
from .view_links import SOURCE_PARAM

log = logging.getLogger(__name__)

ICEBERG_TABLE_TYPE = "ICEBERG"
TABLE_TYPE_PARAM = "table_type"
METADATA_LOCATION = "metadata_location"
PREVIOUS_METADATA_LOCATION = "previous_metadata_location"
LOCK_WAIT_SECONDS = 30.0
"""How long a commit waits for Hive's lock on its table before it fails (the table stays as it was)."""
_LOCK_POLL_SECONDS = (0.002, 0.025)
"""The first and the longest pause between checks of a waiting lock: a commit holds it for milliseconds."""
_ICEBERG_INPUT_FORMAT = "org.apache.iceberg.mr.hive.HiveIcebergInputFormat"
_ICEBERG_OUTPUT_FORMAT = "org.apache.iceberg.mr.hive.HiveIcebergOutputFormat"
_ICEBERG_SERDE = "org.apache.iceberg.mr.hive.HiveIcebergSerDe"
_NO_STATS = {DO_NOT_UPDATE_STATS: "true"}
METADATA_FILE_SUFFIX = ".metadata.json"
_GZIP_METADATA_SUFFIX = ".gz" + METADATA_FILE_SUFFIX
"""How Iceberg names metadata files (``00001-<uuid>.metadata.json``, ``00001-<uuid>.gz.metadata.json``)."""
_ICEBERG_SPELLINGS = (ICEBERG_TABLE_TYPE, ICEBERG_TABLE_TYPE.lower(), ICEBERG_TABLE_TYPE.capitalize())
"""How clients spell ``table_type=ICEBERG`` (Iceberg's catalogs write it upper-case; the type is read
case-insensitively, as Iceberg does)."""
_ANY_COLUMN_CHANGE = CallSettings(check_column_types=False)
"""Iceberg's schema evolution renames, drops and retypes columns as its own rules allow, not Hive's."""


def is_iceberg(table: Table) -> bool:
    return table.parameters.get(TABLE_TYPE_PARAM, "").upper() == ICEBERG_TABLE_TYPE


@dataclass
class _Prepared:
    """A commit's new version of one table, written but not yet published."""

    change: TableChange
    current: Table | None
    base_location: str | None
    metadata: TableMetadata
    location: str
    removed_properties: frozenset[str] = frozenset()
    """Properties of the version before that this one lacks (their Hive parameters go too)."""


class IcebergTableService:
    def __init__(
        self, ctx: ServiceContext, tables: TableService, databases: DatabaseService, locks: LockService
    ) -> None:
        self.ctx = ctx
        self.tables = tables
        self.databases = databases
        self.locks = locks
        self._released = threading.Condition()
        """Notified when a commit of this process releases its lock: its waiters check theirs at once (those
        of other processes find out at their next check)."""

    # -- reading --------------------------------------------------------------------------------------------

    def names(self, database: str) -> list[str]:
        """The Iceberg tables of ``database``, by name.

        Raises:
            NoSuchDatabaseError: the database does not exist.
        """
        self.databases.get(database)
        with self.ctx.store.read() as conn:
            return table_store.names_with_param(conn, normalize(database), TABLE_TYPE_PARAM, _ICEBERG_SPELLINGS)

    def load(self, database: str, name: str) -> IcebergTable:
        """The table's current version.

        Raises:
            NoSuchTableError: there is no Iceberg table of that name.
            StorageError: its metadata file cannot be read.
        """
        table = self._iceberg_table(database, name)
        location = table.parameters[METADATA_LOCATION]
        return IcebergTable(
            table.database, table.name, location, _read_json(location), SOURCE_PARAM in table.parameters
        )

    def location_of(self, database: str, name: str) -> str:
        """The table's ``metadata_location`` as the database holds it, read alone (no file, nor the rest of the
        table): what revalidating a loaded table needs.

        Raises:
            NoSuchTableError: there is no Iceberg table of that name.
        """
        database, name = normalize(database), normalize(name)
        with self.ctx.store.read() as conn:
            found = table_store.params_of_table(conn, database, name, (TABLE_TYPE_PARAM, METADATA_LOCATION))
        if found is None:
            raise NoSuchTableError(f"Table does not exist: {database}.{name}")
        if found.get(TABLE_TYPE_PARAM, "").upper() != ICEBERG_TABLE_TYPE or not found.get(METADATA_LOCATION):
            raise NoSuchTableError(f"Table is not an Iceberg table: {database}.{name}")
        return found[METADATA_LOCATION]

    def _iceberg_table(self, database: str, name: str) -> Table:
        try:
            table = self.tables.get(database, name)
        except NoSuchObjectError as e:
            raise NoSuchTableError(f"Table does not exist: {normalize(database)}.{normalize(name)}") from e
        if not is_iceberg(table) or not table.parameters.get(METADATA_LOCATION):
            raise NoSuchTableError(f"Table is not an Iceberg table: {table.qualified_name}")
        return table

    # -- creating -------------------------------------------------------------------------------------------

    def create(self, database: str, new: NewIcebergTable, owner: str | None = None) -> IcebergTable:
        """Create the table (its first metadata file written at its location), or with ``new.staged`` only
        make that metadata: the table is created by the commit that follows (``commit``).

        Raises:
            NoSuchDatabaseError: the database does not exist.
            AlreadyExistsError: a table of that name exists.
            InvalidInputError: the name, schema, spec, order, properties or location are malformed, or the
                location is one no table may have (``directories.check_location``).
        """
        database, name = normalize(database), _table_name(new.name)
        db = self.databases.get(database)
        if self._exists(database, name):
            raise AlreadyExistsError(f"Table already exists: {database}.{name}")
        location = qualify(new.location) if new.location else join(db.location or "", name)
        metadata = created_metadata(new.schema, new.partition_spec, new.write_order, location, new.properties)
        if new.staged:
            return IcebergTable(database, name, "", _as_json(metadata))
        path = self._metadata_path(metadata, None, f"{database}.{name}")
        _write_json(path, metadata)
        try:
            self.tables.create(self._hive_table(database, name, owner, metadata, path, None), environment=_NO_STATS)
        except Exception:
            _discard(path)
            raise
        log.info("created Iceberg table %s.%s at %s", database, name, location)
        return IcebergTable(database, name, path, _as_json(metadata))

    def register(
        self,
        database: str,
        name: str,
        metadata_location: str,
        owner: str | None = None,
        overwrite: bool = False,
        user: str = "",
    ) -> IcebergTable:
        """Register the table whose current metadata is the file ``metadata_location`` (written elsewhere);
        with ``overwrite``, an Iceberg table of that name moves to that file instead (under its Hive lock,
        taken as ``user``: a version published meanwhile by a writer is replaced, as the client asked).

        Raises:
            NoSuchDatabaseError: the database does not exist.
            AlreadyExistsError: a table of that name exists (and ``overwrite`` is off).
            NoSuchTableError: with ``overwrite``, a table of that name exists and is no Iceberg table.
            ReadOnlyTableError: with ``overwrite``, the table is a Hudi table's Iceberg view.
            InvalidInputError: the file cannot be read, is not Iceberg table metadata, is not named as a
                metadata file, or lies where no table may (a system directory).
        """
        database, name = normalize(database), _table_name(name)
        self.databases.get(database)
        if not metadata_location.endswith(METADATA_FILE_SUFFIX):
            raise InvalidInputError(f"{metadata_location} is not named as a metadata file (*{METADATA_FILE_SUFFIX})")
        folder = metadata_location.rsplit("/", 1)[0]
        check_location(self.ctx.warehouse, folder, f"the metadata of table {database}.{name}", InvalidInputError)
        try:
            data = _read_json(metadata_location)
        except StorageError as e:  # a file the client named: missing, unreadable or not JSON
            raise InvalidInputError(f"Cannot read {metadata_location} as table metadata") from e
        metadata = parse_metadata(data, metadata_location)
        if overwrite and self._exists(database, name):
            with self._hive_lock(database, name, user or owner or ""):
                current = self._iceberg_table(database, name)
                if SOURCE_PARAM in current.parameters:
                    raise ReadOnlyTableError(f"{current.qualified_name} is the Iceberg view of a Hudi table")
                replaced = self._hive_table(database, name, current.owner, metadata, metadata_location, current)
                with settings_scope(_ANY_COLUMN_CHANGE):
                    self.tables.alter(database, name, replaced, environment=_NO_STATS)
            log.info("registered Iceberg table %s.%s over itself at %s", database, name, metadata_location)
            return IcebergTable(database, name, metadata_location, data)
        self.tables.create(
            self._hive_table(database, name, owner, metadata, metadata_location, None), environment=_NO_STATS
        )
        log.info("registered Iceberg table %s.%s at %s", database, name, metadata_location)
        return IcebergTable(database, name, metadata_location, data)

    # -- committing -----------------------------------------------------------------------------------------

    def commit(self, changes: Sequence[TableChange], user: str) -> list[IcebergTable]:
        """Apply each change to its table, all in one database transaction: each table's requirements are
        checked against its current version and its updates applied, its new metadata file written, then
        every table moved to its new version at once, or none. A change whose requirements include
        ``assert-create`` creates its table (a staged create).

        Raises:
            NoSuchTableError: a table does not exist (and the change does not create it).
            ConcurrentModificationError: a requirement does not hold, another writer published a version
                first, or Hive's lock on a table stayed taken (nothing changed: the client may retry).
            InvalidInputError: a malformed or inapplicable requirement or update; two changes of one table.
            ReadOnlyTableError: a table is a Hudi table's Iceberg view (read-only).
        """
        keys = [(normalize(c.database), normalize(c.name)) for c in changes]
        if len(set(keys)) != len(keys):
            raise InvalidInputError("A commit may change each table once")
        if not changes:
            raise InvalidInputError("A commit needs at least one table change")
        with ExitStack() as held:
            for database, name in sorted(keys):  # one order for every commit: no two wait on each other
                held.enter_context(self._hive_lock(database, name, user))
            prepared: list[_Prepared] = []
            try:
                for change, (database, name) in zip(changes, keys):
                    prepared.append(self._prepare(replace(change, database=database, name=name)))
                self._publish(prepared, user)
            except StorageError:  # the database may have committed: a published version's file must stay
                raise
            except Exception:  # no version of these files was published: nobody can load them
                for p in prepared:
                    _discard(p.location)
                raise
        log.info("committed Iceberg tables %s", ", ".join(f"{d}.{n}" for d, n in keys))
        return [IcebergTable(p.change.database, p.change.name, p.location, _as_json(p.metadata)) for p in prepared]

    def _prepare(self, change: TableChange) -> _Prepared:
        """The change's new version, its metadata file written."""
        creates = any(r.get("type") == "assert-create" for r in change.requirements)
        current: Table | None
        try:
            current = self._iceberg_table(change.database, change.name)
        except NoSuchTableError:
            if not creates:
                raise
            self.databases.get(change.database)
            current = None
        if current is not None and SOURCE_PARAM in current.parameters:
            raise ReadOnlyTableError(
                f"{current.qualified_name} is the Iceberg view of the Hudi table {current.parameters[SOURCE_PARAM]}: "
                "only the server changes it"
            )
        base_location = current.parameters[METADATA_LOCATION] if current is not None else None
        base = parse_metadata(_read_json(base_location), base_location) if base_location else None
        metadata = apply_changes(base, base_location, change.requirements, change.updates)
        location = self._metadata_path(metadata, base_location, f"{change.database}.{change.name}")
        _write_json(location, metadata)
        removed = frozenset(base.properties) - frozenset(metadata.properties) if base is not None else frozenset()
        return _Prepared(change, current, base_location, metadata, location, removed)

    def _publish(self, prepared: Sequence[_Prepared], user: str) -> None:
        """Every prepared version published in one transaction: a new table created (owned by ``user``), an
        existing one moved with a compare-and-set on ``metadata_location``."""
        altered: list[tuple[Table, Table]] = []
        created: list[Table] = []
        try:
            with settings_scope(_ANY_COLUMN_CHANGE), self.ctx.store.write() as conn:
                for p in prepared:
                    database, name = p.change.database, p.change.name
                    if p.current is None or p.base_location is None:  # a staged create
                        table = self._hive_table(database, name, user or None, p.metadata, p.location, None)
                        created.append(self.tables.create_in(conn, table, environment=_NO_STATS))
                        continue
                    new = self._hive_table(
                        database, name, p.current.owner, p.metadata, p.location, p.current, p.removed_properties
                    )
                    environment = _NO_STATS | {EXPECTED_KEY: METADATA_LOCATION, EXPECTED_VALUE: p.base_location}
                    try:
                        altered.append(self.tables.alter_in(conn, database, name, new, False, environment))
                    except InvalidOperationError as e:
                        if "doesn't exist" not in str(e):
                            raise
                        raise NoSuchTableError(f"Table does not exist: {database}.{name}") from e  # dropped meanwhile
        except AlreadyExistsError as e:  # created meanwhile: the staged create's assert-create no longer holds
            raise ConcurrentModificationError(f"Requirement failed: table already exists ({e})") from e
        for old, new in altered:
            self.tables.altered(old, new)
        for table in created:
            log.info("created table %s", table.qualified_name)

    @contextmanager
    def _hive_lock(self, database: str, name: str, user: str) -> Iterator[None]:
        """Hive's exclusive lock on the table, as Iceberg's Hive catalog takes it for a commit.

        Raises:
            ConcurrentModificationError: the lock stayed taken for ``LOCK_WAIT_SECONDS``.
        """
        request = LockRequest(
            [LockComponent(LockType.EXCLUSIVE, LockTarget(database, name))],
            user,
            socket.gethostname(),
            0,
            "hudi-metastore iceberg-rest commit",
        )
        status = self.locks.lock(request)
        try:
            deadline = time.monotonic() + LOCK_WAIT_SECONDS
            pause = _LOCK_POLL_SECONDS[0]
            while status.state != LockState.ACQUIRED:
                if time.monotonic() >= deadline:
                    raise ConcurrentModificationError(
                        f"Table {database}.{name} stayed locked by another writer for {LOCK_WAIT_SECONDS:.0f} s"
                    )
                with self._released:
                    self._released.wait(pause)
                pause = min(pause * 2, _LOCK_POLL_SECONDS[1])
                status = self.locks.check(status.lock_id)
            yield
        finally:
            self.locks.unlock(status.lock_id)
            with self._released:
                self._released.notify_all()

    # -- renaming and dropping ------------------------------------------------------------------------------

    def rename(self, database: str, name: str, new_database: str, new_name: str) -> None:
        """Rename the table (its files stay where they are).

        Raises:
            NoSuchTableError: there is no Iceberg table of that name.
            NoSuchDatabaseError: the target database does not exist.
            AlreadyExistsError: the target name is taken.
        """
        table = self._iceberg_table(database, name)
        new_database, new_name = normalize(new_database), _table_name(new_name)
        self.databases.get(new_database)
        if self._exists(new_database, new_name):
            raise AlreadyExistsError(f"Table already exists: {new_database}.{new_name}")
        renamed = replace(table, database=new_database, name=new_name)
        self.tables.alter(table.database, table.name, renamed, environment=_NO_STATS)

    def drop(self, database: str, name: str, purge: bool) -> None:
        """Drop the table; with ``purge`` its directory too, where the server may delete it (it made it, or
        it lies in the warehouse or a data root).

        Raises:
            NoSuchTableError: there is no Iceberg table of that name.
            ReadOnlyTableError: it is a Hudi table's Iceberg view (it goes with its Hudi table).
        """
        table = self._iceberg_table(database, name)
        if SOURCE_PARAM in table.parameters:
            raise ReadOnlyTableError(
                f"{table.qualified_name} is the Iceberg view of the Hudi table {table.parameters[SOURCE_PARAM]}: "
                "it is dropped with it"
            )
        self.tables.drop(table.database, table.name, delete_data=purge, purge=purge)

    # -- helpers --------------------------------------------------------------------------------------------

    def _metadata_path(self, metadata: TableMetadata, previous: str | None, table: str) -> str:
        """The next metadata file of ``table``, in a folder a table's files may be in.

        Raises:
            InvalidInputError: the table's location or metadata folder is no URI the server can write to, or
                lies where no table may (the root of the file system, a system directory).
        """
        path = next_metadata_path(metadata, previous)
        folder = path.rsplit("/", 1)[0]
        check_location(self.ctx.warehouse, metadata.location, f"table {table}", InvalidInputError)
        check_location(self.ctx.warehouse, folder, f"the metadata of table {table}", InvalidInputError)
        try:
            uri_file_system(path)
        except (OSError, ValueError) as e:
            raise InvalidInputError(f"Cannot write the metadata of table {table} to {folder}: {e}") from e
        return path

    def _exists(self, database: str, name: str) -> bool:
        try:
            self.tables.get(database, name)
        except NoSuchObjectError:
            return False
        return True

    @staticmethod
    def _hive_table(
        database: str,
        name: str,
        owner: str | None,
        metadata: TableMetadata,
        metadata_location: str,
        current: Table | None,
        removed_properties: frozenset[str] = frozenset(),
    ) -> Table:
        """The Hive table of a version: its columns, location and properties, ``metadata_location`` and the
        previous one; parameters of ``current`` are kept but for the ``removed_properties`` of the version."""
        parameters: dict[str, str] = {}
        if current is not None:
            parameters = {k: v for k, v in current.parameters.items() if k not in removed_properties}
            previous = current.parameters.get(METADATA_LOCATION)
            if previous:
                parameters[PREVIOUS_METADATA_LOCATION] = previous
        parameters.update(metadata.properties)
        parameters |= {"EXTERNAL": "TRUE", TABLE_TYPE_PARAM: ICEBERG_TABLE_TYPE, METADATA_LOCATION: metadata_location}
        sd = StorageDescriptor(
            columns=hive_columns(metadata),
            location=metadata.location,
            input_format=_ICEBERG_INPUT_FORMAT,
            output_format=_ICEBERG_OUTPUT_FORMAT,
            serde=SerDe(serialization_lib=_ICEBERG_SERDE),
        )
        if current is not None:
            return replace(
                current, sd=replace(current.sd, columns=sd.columns, location=sd.location), parameters=parameters
            )
        return Table(database, name, owner=owner, sd=sd, parameters=parameters, table_type=EXTERNAL_TABLE)


def _table_name(name: str) -> str:
    """``name`` lower-cased, as Hive keeps table names.

    Raises:
        InvalidInputError: it is no valid Hive object name.
    """
    if not is_valid_name(name):
        raise InvalidInputError(f"{name} is not a valid table name")
    return normalize(name)


def _read_json(location: str) -> dict[str, Any]:
    """The JSON object in the file at ``location``.

    Raises:
        StorageError: the file cannot be read, or holds no JSON object.
    """
    try:
        fs, path = uri_file_system(location)
        with fs.open_input_stream(path) as stream:
            raw = stream.read()
        data = json.loads(gzip.decompress(raw) if location.endswith(_GZIP_METADATA_SUFFIX) else raw)
    except (OSError, ValueError, EOFError) as e:
        raise StorageError(f"Cannot read the table metadata {location}", detail=str(e)) from e
    if not isinstance(data, dict):
        raise StorageError(f"The table metadata {location} is not a JSON object")
    return data


def _write_json(location: str, metadata: TableMetadata) -> None:
    """Write a new metadata file; never over an existing one (each version has a file name of its own)."""
    try:
        fs, path = uri_file_system(location)
        make_folder(fs, path.rsplit("/", 1)[0])
        with fs.open_output_stream(path) as out:
            out.write(metadata_json(metadata))
    except (OSError, ValueError) as e:
        raise StorageError(f"Cannot write the table metadata {location}", detail=str(e)) from e


def _discard(location: str) -> None:
    """Delete a metadata file this server wrote for a version that was never published."""
    try:
        fs, path = uri_file_system(location)
        fs.delete_file(path)
    except OSError as e:
        log.warning("could not delete the unpublished metadata file %s: %s", location, e)


def _as_json(metadata: TableMetadata) -> dict[str, Any]:
    return json.loads(metadata_json(metadata))
