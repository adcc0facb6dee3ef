"""Iceberg views of Hudi tables, registered in the catalog and kept up to date commit by commit.

A Hudi table's view is an Iceberg table registered beside it (``<table>_iceberg`` by default) the way Iceberg's
own Hive catalog registers tables: an external table with ``table_type=ICEBERG`` and ``metadata_location``
naming its current metadata JSON, which ``hudi_catalog/iceberg`` writes over the Hudi table's own base files.

The view is built from what the catalog already holds, the table's completed instants and their metadata, not
by listing storage; only the Parquet footers of the files an instant wrote are read. After each completed
instant (a metaserver commit) the view takes the instants completed since the one it last took
(``hudi.iceberg.applied`` on the view table) and publishes the new metadata with a compare-and-set on
``metadata_location``, so servers sharing the database never lose a version: the one that loses the race
removes the files it wrote, reads the winner's version and finds its instants there.

A server (``serve``) updates views off the committing call, on one thread of its own
(:class:`~.view_updates.ViewUpdateQueue`): the commit answers once its transaction committed, and the view
follows. What the view has taken is kept in the database (``hudi.iceberg.applied``), not in the queue, so an
update lost with its server is made by the table's next one, whichever server makes it.

``hoodie.properties`` is read once per version of the Hudi table's registration, not at every update: it is
kept per process under the table's id, location and parameters as the database holds them, less the
statistics every commit moves (``tbl.revision`` rises with those, so it would change at every commit). Any
other change of the table, by any server, changes the key, and the next update reads the file again.

A view never blocks Hudi: every failure is logged and reported in the view table's ``hudi.iceberg.error``
while the view stays at its last good snapshot. A base file that cannot be read yet is tried again with the
next instant; an instant Iceberg cannot express (a schema change it has no promotion for) stops the view
before it until ``hudi-metastore iceberg`` rebuilds it.

The view's metadata does not grow with the table's history: a clean the view takes expires the snapshots
before its earliest retained instant, and :meth:`IcebergViewService.expire_snapshots` expires more on request
(Iceberg's ``expire_snapshots``). The files only expired snapshots listed (manifest lists, manifests) and the
metadata files out of the metadata log are deleted once the version without them is published, by the server
that published it: a version that lost its compare-and-set deletes none of them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from pyarrow import fs as pafs

from ..errors import AlreadyExistsError, ConcurrentModificationError, InvalidOperationError, NoSuchObjectError
from ..hudi.instant_files import InstantFile
from ..hudi.metadata import DecodedCompletion, decode_instant
from ..hudi.properties import CREATE_SCHEMA, TABLE_VERSION, TableConfig, read_table_config, table_version
from ..iceberg import (
    BLOCKED_PROPERTY,
    IcebergViewError,
    InstantChanges,
    TableMetadata,
    ViewBuilder,
    ViewUpdate,
    completion_order,
    discard_update,
    instant_changes,
    load_metadata,
    remove_expired,
    table_info,
    take_changes,
    uri_file_system,
    with_create_schema,
)
from ..iceberg_views import ExpiryResult, ViewResult, ViewSettings, ViewSnapshot, ViewState
from ..model import (
    EXPECTED_KEY,
    EXPECTED_VALUE,
    EXTERNAL_TABLE,
    Action,
    Instant,
    InstantState,
    SerDe,
    StorageDescriptor,
    Table,
    TableKeys,
)
from ..names import normalize
from ..read_cache import RevisionCache
from ..stats import COLUMN_STATS_ACCURATE, DO_NOT_UPDATE_STATS, EMPTY_STATS, STATS_GENERATED
from ..store import instants as instant_store
from ..store import tables as table_store
from .context import DDL_TIME, ServiceContext
from .tables import TableService
from .view_links import SOURCE_PARAM, VIEW_PARAM
from .view_updates import Handed, HandedInstant, ViewUpdateQueue

log = logging.getLogger(__name__)

METADATA_DIR_PARAM = "hudi.iceberg.metadata-dir"
"""On a Hudi table: where its view's metadata files go, when not the default folder under its base path."""
APPLIED_PARAM = "hudi.iceberg.applied"
"""On a view table: the requested time of the last completed instant the view took."""
ERROR_PARAM = "hudi.iceberg.error"
"""On a view table: why the view could not take the instants after ``hudi.iceberg.applied`` (absent when it
could)."""
METADATA_LOCATION = "metadata_location"
PREVIOUS_METADATA_LOCATION = "previous_metadata_location"
ICEBERG_TABLE_TYPE = "ICEBERG"
_PUBLISH_ATTEMPTS = 5
_NO_STATS = {DO_NOT_UPDATE_STATS: "true"}
# the storage shape Iceberg's Hive catalogs give a table (its readers use only the metadata file)
_FILE_INPUT_FORMAT = "org.apache.hadoop.mapred.FileInputFormat"
_FILE_OUTPUT_FORMAT = "org.apache.hadoop.mapred.FileOutputFormat"
_LAZY_SIMPLE_SERDE = "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"
_VIEW_ACTIONS = frozenset(a for a in Action if a.writes_data) | {Action.CLEAN, Action.RESTORE}


@dataclass
class _Source:
    """A Hudi table as its view needs it: the catalog's table, its storage, ``hoodie.properties``."""

    table: Table
    fs: pafs.FileSystem
    base_path: str
    config: TableConfig
    version: int

    @property
    def qualified_name(self) -> str:
        return self.table.qualified_name


class IcebergViewService:
    """Builds, refreshes and registers the Iceberg views of Hudi tables (see the module's text)."""

    def __init__(self, ctx: ServiceContext, tables: TableService, settings: ViewSettings | None = None) -> None:
        self.ctx = ctx
        self.tables = tables
        self.settings = settings or ViewSettings()
        # hoodie.properties by _config_key
        self._configs: RevisionCache[TableConfig] = RevisionCache(ctx.cache_memory, copies=False)
        self._queue: ViewUpdateQueue | None = None

    # -- public calls ------------------------------------------------------------------------------------

    def create(
        self,
        database: str,
        table: str,
        name: str | None = None,
        metadata_dir: str | None = None,
        handed: Handed | None = None,
    ) -> ViewResult:
        """Build the view of a Hudi table from scratch from its timeline in the catalog and register it (a
        view already there is replaced by the new version, its table uuid kept); the table keeps it from
        then on. A view the table had under another name is dropped once this one is registered: the view
        moves, no stale copy stays behind. ``handed``: instants their commits decoded already.

        Raises:
            NoSuchObjectError: no such table.
            InvalidOperationError: the table has neither a completed write nor a create schema.
            AlreadyExistsError: ``name`` is taken by a table that is not this table's view.
            HudiMetadataError, StorageError: the table's metadata cannot be read.
        """
        source = self._source(database, table)
        name = normalize(
            name or source.table.parameters.get(VIEW_PARAM) or f"{source.table.name}{self.settings.suffix}"
        )
        metadata_dir = metadata_dir or source.table.parameters.get(METADATA_DIR_PARAM) or self._default_dir(source)
        existing = self._view_table(source, name)
        instants = self._completed(source)
        changes = self._changes(source, instants, handed or {})
        create_schema = source.config.raw.get(CREATE_SCHEMA)
        writes = any(c is not None and c.action != Action.CLEAN.value for c in changes)
        if not writes and not create_schema:
            raise InvalidOperationError(
                f"{source.qualified_name} has no completed write and no {CREATE_SCHEMA}: the view has no schema"
            )
        builder = ViewBuilder(source.fs, table_info(source.config, source.base_path), metadata_dir)
        if existing is not None and METADATA_LOCATION in existing.parameters:
            builder.replaces(self._load(source, existing.parameters[METADATA_LOCATION]))
        if not writes and create_schema:  # an empty table: a view with its schema and no snapshot
            builder.set_schema(create_schema)
        update, applied, error = self._apply(builder, instants, changes, block=True)
        self._mark_source(source, name, metadata_dir)
        result = self._publish(source, name, existing, update, applied, error, replace_existing=True)
        previous = source.table.parameters.get(VIEW_PARAM)
        if previous is not None and normalize(previous) != name:
            self._drop_moved(source, normalize(previous))
        return result

    def refresh(self, database: str, table: str, handed: Handed | None = None) -> ViewResult | None:
        """Take the instants completed since the view's last one; ``None`` when the table has no view.
        ``handed``: instants their commits decoded already.

        Raises:
            NoSuchObjectError: no such table.
        """
        name = self.tables.get(database, table).parameters.get(VIEW_PARAM)
        if name is None:
            return None
        source = self._source(database, table)
        for _ in range(_PUBLISH_ATTEMPTS):
            view = self._view_table(source, name)
            instants = self._completed(source)
            taken = None if view is None else view.parameters.get(APPLIED_PARAM)
            pending = self._after(instants, taken)
            # no view yet, or a restore removed what the view took: only a rebuild can undo it
            if view is None or METADATA_LOCATION not in view.parameters or pending is None:
                try:
                    return self.create(database, table, name, handed=handed)
                except ConcurrentModificationError:
                    log.info("%s: another server registered the Iceberg view first; reading its version", name)
                    continue
            if not pending:
                return self._result(view, ViewUpdate(None, (), (), {}), taken, view.parameters.get(ERROR_PARAM))
            previous = self._load(source, view.parameters[METADATA_LOCATION])
            if BLOCKED_PROPERTY in previous.data["properties"]:  # stays until rebuilt
                return self._result(view, ViewUpdate(previous, (), (), {}), taken, view.parameters.get(ERROR_PARAM))
            metadata_dir = previous.location.rsplit("/", 1)[0]
            builder = ViewBuilder(source.fs, table_info(source.config, source.base_path), metadata_dir, previous)
            changes = self._changes(source, pending, handed or {})
            update, applied, error = self._apply(builder, pending, changes, block=False)
            applied = applied or taken
            try:
                return self._publish(source, name, view, update, applied, error, replace_existing=False)
            except ConcurrentModificationError:
                log.info("%s: another server published the Iceberg view first; reading its version", name)
        raise ConcurrentModificationError(f"the Iceberg view {name} kept changing under {_PUBLISH_ATTEMPTS} updates")

    def expire_snapshots(
        self, database: str, table: str, older_than_ms: int, retain_last: int, dry_run: bool = False
    ) -> ExpiryResult:
        """Expire snapshots of a Hudi table's view as Iceberg's ``expire_snapshots(older_than, retain_last)``:
        those older than ``older_than_ms`` (epoch milliseconds) but for the ``retain_last`` newest (the current
        one always) and any a ref other than ``main`` holds. The new metadata is published as a view update's is,
        with a compare-and-set on ``metadata_location`` (tried again from the version that won, should another
        update publish first); then the manifest lists of the expired snapshots, the manifests no remaining
        snapshot lists and the metadata files out of the metadata log are deleted, the view's own files only.
        ``dry_run``: what would go, nothing written or deleted. ``table``: the Hudi table, or its view.

        Raises:
            NoSuchObjectError: no such table.
            InvalidOperationError: the table has no Iceberg view (or is not one).
            ConcurrentModificationError: the view kept changing under every attempt.
            ViewMetadataError, StorageError: the view's metadata cannot be read or written.
        """
        source = self._source(*self._hudi_table_of(database, table))
        name = source.table.parameters.get(VIEW_PARAM)
        for _ in range(_PUBLISH_ATTEMPTS):
            view = None if name is None else self._view_table(source, normalize(name))
            if view is None or METADATA_LOCATION not in view.parameters:
                raise InvalidOperationError(
                    f"{source.qualified_name} has no Iceberg view (`hudi-metastore iceberg {source.qualified_name}` "
                    "builds one)"
                )
            previous = self._load(source, view.parameters[METADATA_LOCATION])
            metadata_dir = previous.location.rsplit("/", 1)[0]
            builder = ViewBuilder(source.fs, table_info(source.config, source.base_path), metadata_dir, previous)
            expired_ids = builder.expire(older_than_ms, retain_last)
            if dry_run or not expired_ids:
                planned = builder.expired_files()
                return ExpiryResult(
                    view.name,
                    previous.location,
                    planned.snapshots,
                    planned.manifest_lists,
                    planned.manifests,
                    planned.metadata_files,
                    dry_run,
                )
            update = builder.commit()
            try:
                result = self._publish(source, view.name, view, update, None, None, False, keep_state=True)
            except ConcurrentModificationError:
                log.info("%s: the Iceberg view changed while its snapshots were expired; again from its version", name)
                continue
            deleted = set(result.files_deleted)
            expired = update.expired
            return ExpiryResult(
                view.name,
                result.metadata_location,
                expired.snapshots,
                tuple(f for f in expired.manifest_lists if f in deleted),
                tuple(f for f in expired.manifests if f in deleted),
                tuple(f for f in expired.metadata_files if f in deleted),
            )
        raise ConcurrentModificationError(f"the Iceberg view {name} kept changing under {_PUBLISH_ATTEMPTS} attempts")

    def _hudi_table_of(self, database: str, table: str) -> tuple[str, str]:
        """The Hudi table ``database.table`` names: itself, or the table it is the Iceberg view of."""
        shown = self.tables.get(database, table).parameters.get(SOURCE_PARAM)
        if shown is None:
            return database, table
        shown_database, _, shown_table = shown.partition(".")
        return shown_database, shown_table

    def state(self, database: str, table: str) -> ViewState | None:
        """The table's view as its current metadata file lists it; ``None`` when the table has no view or
        the view has no version yet.

        Raises:
            NoSuchObjectError: no such table.
            StorageError: the metadata file cannot be read.
        """
        name = self.tables.get(database, table).parameters.get(VIEW_PARAM)
        if name is None:
            return None
        source = self._source(database, table)
        view = self._view_table(source, normalize(name))
        location = None if view is None else view.parameters.get(METADATA_LOCATION)
        if view is None or location is None:
            return None
        data = self._load(source, location).data
        snapshots = tuple(
            ViewSnapshot(
                int(s["snapshot-id"]),
                int(s.get("timestamp-ms", 0)),
                None if s.get("parent-snapshot-id") is None else int(s["parent-snapshot-id"]),
                {str(k): str(v) for k, v in (s.get("summary") or {}).items()},
            )
            for s in sorted(data.get("snapshots") or [], key=lambda s: s.get("timestamp-ms", 0))
        )
        current = data.get("current-snapshot-id")
        return ViewState(view.name, location, None if current in (None, -1) else int(current), snapshots)

    def has_view(self, database: str, table: str) -> bool:
        """Whether the table keeps an Iceberg view."""
        return VIEW_PARAM in self.tables.get(database, table).parameters

    def instant_completed(self, table: TableKeys, instant: Instant, decoded: DecodedCompletion | None) -> None:
        """Bring the view up to date after an instant completed (its transaction committed), with its
        metadata as the commit decoded it (``None``: not decoded): on the background thread when one runs
        (``updates_in_background``), else here. Never raises."""
        if instant.action not in _VIEW_ACTIONS:
            return
        handed = {} if decoded is None else {instant.requested_time: HandedInstant(table.id, decoded)}
        self._update_soon(table.database, table.name, handed)

    def instants_followed(self, database: str, table: str) -> None:
        """Bring the view up to date after instants a writer completed in storage were recorded (the follow
        of a hive sync, the reconciliation), as :meth:`instant_completed` does. Never raises."""
        self._update_soon(database, table, {})

    def _update_soon(self, database: str, table: str, handed: Handed) -> None:
        """:meth:`update` on the background thread when one runs, else here."""
        queue = self._queue
        if queue is not None and queue.running:
            queue.submit(database, table, handed)
        else:
            self.update(database, table, handed)

    def update(self, database: str, table: str, handed: Handed | None = None) -> None:
        """Refresh the table's view, or with ``all_tables`` build it the first time (``handed``: instants
        their commits decoded already). Never raises: Hudi's commit has happened whatever the view does, so
        a failure is only logged (and reported on the view table), and the table's next update tries again
        from what the view took."""
        try:
            parameters = self.tables.get(database, table).parameters
            if VIEW_PARAM in parameters:
                self.refresh(database, table, handed)
            elif self.settings.all_tables:
                try:
                    self.create(database, table, handed=handed)
                except ConcurrentModificationError:  # another server built it first: take what it left
                    self.refresh(database, table, handed)
        except Exception:  # the commit stands; the next update tries again
            log.exception("%s.%s: the Iceberg view was not updated", database, table)

    def updates_in_background(self) -> ViewUpdateQueue:
        """A queue whose thread, once started, makes the updates after commits in place of the committing
        calls (``serve`` starts one per process); while it is stopped they are made inline again."""
        self._queue = ViewUpdateQueue(self.update)
        return self._queue

    # -- building ----------------------------------------------------------------------------------------

    def _source(self, database: str, table: str) -> _Source:
        found = self.tables.get(database, table)
        location = found.sd.location
        if not location:
            raise InvalidOperationError(f"{found.qualified_name} has no location")
        fs, base_path = uri_file_system(location)  # paths written into the view are URIs readers open
        key = _config_key(found, base_path)
        config = self._configs.get(key, 0)
        if config is None:
            config = read_table_config(fs, base_path)
            self._configs.put(key, 0, config)
        version = table_version(found.parameters.get(TABLE_VERSION), config.version)
        return _Source(found, fs, base_path, config, version)

    def _completed(self, source: _Source) -> list[Instant]:
        """The table's completed instants a view takes, in the order it takes them (completion order)."""
        with self.ctx.store.read() as conn:
            keys = table_store.get_keys(conn, source.table.database, source.table.name)
            found = instant_store.listing(conn, keys.id, [InstantState.COMPLETED], sorted(_VIEW_ACTIONS))
        return sorted(found, key=lambda i: completion_order(InstantFile.of(i, source.version), source.version))

    @staticmethod
    def _after(instants: list[Instant], taken: str | None) -> list[Instant] | None:
        """The instants after the one the view took last; ``None`` when that one is gone or a restore
        completed after it (the view must be rebuilt)."""
        if taken is None:
            return instants
        position = next((n for n, i in enumerate(instants) if i.requested_time == taken), None)
        if position is None:
            return None
        pending = instants[position + 1 :]
        return None if any(i.action is Action.RESTORE for i in pending) else pending

    def _changes(self, source: _Source, instants: Sequence[Instant], handed: Handed) -> list[InstantChanges | None]:
        """Each instant's changes to the view (``None``: it changes nothing the view shows): as its commit
        decoded it (``handed``, when decoded for this table under the same table version), else decoded from
        the metadata the catalog stored when it completed."""
        with self.ctx.store.read() as conn:
            keys = table_store.get_keys(conn, source.table.database, source.table.name)
            taken = {t: h.decoded.metadata for t, h in handed.items() if _fits(h, keys.id, source.version)}
            to_read = [i.requested_time for i in instants if i.requested_time not in taken]
            stored = instant_store.completed_metadata(conn, keys.id, to_read) if to_read else {}
        changes: list[InstantChanges | None] = []
        for instant in instants:
            file = InstantFile.of(instant, source.version)
            if instant.action is Action.RESTORE:
                changes.append(None)
                continue
            decoded = taken.get(instant.requested_time)
            if decoded is None:
                decoded = decode_instant(file, stored.get(instant.requested_time, b""), source.version)
            changes.append(instant_changes(file, decoded))
        return with_create_schema(changes, source.config)

    @staticmethod
    def _apply(
        builder: ViewBuilder, instants: Sequence[Instant], changes: Sequence[InstantChanges | None], block: bool
    ) -> tuple[ViewUpdate, str | None, IcebergViewError | None]:
        """Apply the changes in order up to the first one the view cannot take, then commit what was applied;
        returns the update, the last instant taken (``None``: none of these) and the error, if any.

        A base file that cannot be read stops the update there, and the next refresh tries again; any other
        error blocks the view before that instant. A rebuild (``block``) blocks on a missing file too: it has
        no later refresh to wait for."""
        count, error = take_changes(builder, changes, block_on_missing_file=block)
        return builder.commit(), instants[count - 1].requested_time if count else None, error

    @staticmethod
    def _load(source: _Source, location: str) -> TableMetadata:
        return load_metadata(source.fs, location)

    def _default_dir(self, source: _Source) -> str | None:
        if self.settings.metadata_root is None:
            return None  # the builder's default, under the base path
        root = self.settings.metadata_root.rstrip("/")
        return f"{root}/{source.table.database}/{source.table.name}"

    # -- registering -------------------------------------------------------------------------------------

    def _view_table(self, source: _Source, name: str) -> Table | None:
        """The view table ``name``, or ``None``; a table of that name that is not this table's view is an
        error."""
        try:
            view = self.tables.get(source.table.database, name)
        except NoSuchObjectError:
            return None
        if view.parameters.get(SOURCE_PARAM) != source.qualified_name:
            raise AlreadyExistsError(
                f"Table {view.qualified_name} already exists and is not the Iceberg view of {source.qualified_name}"
            )
        return view

    def _drop_moved(self, source: _Source, name: str) -> None:
        """Drop the view the table had as ``name`` before it moved (its metadata files stay: an engine may be
        reading them); nothing when no such view is there any more."""
        try:
            if self._view_table(source, name) is None:
                return
            self.tables.drop(source.table.database, name, delete_data=False)
        except (NoSuchObjectError, AlreadyExistsError, InvalidOperationError):  # gone, or not this table's view
            return
        log.info("%s: the Iceberg view moved from %s; %s dropped", source.qualified_name, name, name)

    def _mark_source(self, source: _Source, name: str, metadata_dir: str | None) -> None:
        wanted = {VIEW_PARAM: name} | ({METADATA_DIR_PARAM: metadata_dir} if metadata_dir else {})
        if all(source.table.parameters.get(k) == v for k, v in wanted.items()):
            return
        marked = replace(source.table, parameters={**source.table.parameters, **wanted})
        self.tables.alter(source.table.database, source.table.name, marked, environment=_NO_STATS)

    def _publish(
        self,
        source: _Source,
        name: str,
        existing: Table | None,
        update: ViewUpdate,
        applied: str | None,
        error: IcebergViewError | None,
        replace_existing: bool,
        keep_state: bool = False,
    ) -> ViewResult:
        """Register the view's new metadata: create the view table, or alter it with a compare-and-set on its
        ``metadata_location``; then delete the files the new version expired. ``ConcurrentModificationError``
        when another server registered or moved it first: the files this update wrote are removed, since no
        version anyone can load lists them, and the files it expired stay (the winner's version lists them).
        ``keep_state``: the view's ``hudi.iceberg.applied`` and ``hudi.iceberg.error`` stay as they are (an
        expiry takes no instant)."""
        metadata = update.metadata
        parameters = {
            "EXTERNAL": "TRUE",
            "table_type": ICEBERG_TABLE_TYPE,
            SOURCE_PARAM: source.qualified_name,
        }
        if metadata is not None:
            parameters[METADATA_LOCATION] = metadata.location
        if applied is not None:
            parameters[APPLIED_PARAM] = applied
        if error is not None:
            parameters[ERROR_PARAM] = f"{type(error).__name__}: {error}"
            log.warning(
                "%s: the Iceberg view %s stays at its last good snapshot: %s", source.qualified_name, name, error
            )
        table = Table(
            source.table.database,
            name,
            owner=source.table.owner,
            owner_type=source.table.owner_type,
            sd=StorageDescriptor(
                columns=_columns(source.table),
                location=source.table.sd.location,
                input_format=_FILE_INPUT_FORMAT,
                output_format=_FILE_OUTPUT_FORMAT,
                serde=SerDe(serialization_lib=_LAZY_SIMPLE_SERDE),
            ),
            parameters=parameters,
            table_type=EXTERNAL_TABLE,
        )
        current = None if existing is None else existing.parameters.get(METADATA_LOCATION)
        try:
            if existing is None:
                try:
                    self.tables.create(table, environment=_NO_STATS)
                except AlreadyExistsError as e:
                    raise ConcurrentModificationError(f"the Iceberg view {name} was registered meanwhile") from e
            else:
                if current is not None and metadata is not None and current != metadata.location:
                    table.parameters[PREVIOUS_METADATA_LOCATION] = current
                kept = {
                    k: v for k, v in existing.parameters.items() if keep_state or k not in (ERROR_PARAM, APPLIED_PARAM)
                }
                table.parameters = {**kept, **table.parameters}
                environment = dict(_NO_STATS)
                if current is not None and not replace_existing:
                    environment |= {EXPECTED_KEY: METADATA_LOCATION, EXPECTED_VALUE: current}
                self.tables.alter(source.table.database, name, table, environment=environment)
        except ConcurrentModificationError:
            if metadata is not None and metadata.location != current:  # a version of its own: never published
                discard_update(source.fs, update)
            raise
        if update.snapshots_added:
            log.info(
                "%s: Iceberg view %s took %d instants (%d manifests written)",
                source.qualified_name,
                name,
                len(update.snapshots_added),
                len(update.manifests_written),
            )
        deleted = remove_expired(source.fs, update)  # published: no version anyone loads lists them now
        applied = table.parameters.get(APPLIED_PARAM) if keep_state else applied
        return self._result(table, update, applied, table.parameters.get(ERROR_PARAM), deleted)

    @staticmethod
    def _result(
        view: Table, update: ViewUpdate, applied: str | None, error: str | None, deleted: tuple[str, ...] = ()
    ) -> ViewResult:
        return ViewResult(
            view.name,
            view.parameters.get(METADATA_LOCATION),
            applied,
            update.snapshots_added,
            update.manifests_written,
            dict(update.skipped),
            error,
            update.expired.snapshots,
            deleted,
        )


def _fits(handed: HandedInstant, table_id: int, version: int) -> bool:
    return handed.table_id == table_id and handed.decoded.table_version == version


def _config_key(table: Table, base_path: str) -> tuple:
    """What the database holds of a table that a change of its ``hoodie.properties`` comes with (its id,
    location and parameters), less what changes without it: the statistics each commit moves, the DDL time
    and the view's own parameters."""
    moved = {*EMPTY_STATS, COLUMN_STATS_ACCURATE, STATS_GENERATED, DDL_TIME, VIEW_PARAM, METADATA_DIR_PARAM}
    return table.id, base_path, tuple(sorted((k, v) for k, v in table.parameters.items() if k not in moved))


def _columns(table: Table) -> list:
    """The view's Hive columns: the Hudi table's columns and then its partition columns (an Iceberg table's
    partitioning is hidden: its partition columns are plain columns)."""
    names = {c.name for c in table.sd.columns}
    return list(table.sd.columns) + [c for c in table.partition_keys if c.name not in names]
