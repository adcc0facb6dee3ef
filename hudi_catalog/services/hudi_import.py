"""Registering an existing Hudi table from its storage: ``hudi-metastore import PATH``.

The import reads only ``.hoodie`` (table config, active and archived timeline); it lists no data folder.
It creates the database and the table the way Hudi's hive sync registers them (Hudi input formats, Spark's
data source properties, ``last_commit_time_sync``; for MERGE_ON_READ also ``<table>_ro`` and ``<table>_rt``,
which get the same partitions), then records every instant in timeline order, applying completed ones to
the snapshot. Running it again records only what is new, so an interrupted import resumes where it stopped.

An import has three steps, which the single-process import (``HudiImporter.run``) and the Spark import
(``hudi_catalog.spark.importer``, which runs the middle step in Spark tasks) share:

1. ``hudi.timeline_source.timeline_entries``: list the timeline (each instant's files; archived instants
   come with their bytes);
2. ``hudi.timeline_source.decode_entry``: read an instant's files, decode its latest state and check the
   states it has left (requested, inflight) whole, into a ``DecodedInstant``. Every instant is read before
   the first write, so a corrupt file fails the import, naming it, with the catalog untouched;
3. ``HudiImporter.write`` (here): register the table and write the decoded instants in batches, each batch
   one transaction (its instant rows and metadata in bulk, then its completed instants applied in order).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar

from sqlalchemy import Connection

from ..errors import HudiMetadataError, NoSuchDatabaseError, NoSuchTableError
from ..filesystems import READS_AT_ONCE, is_local
from ..hudi.avro_schema import hive_columns
from ..hudi.instant_files import InstantFile
from ..hudi.metadata import CommitMetadata, decode_instant
from ..hudi.properties import CREATE_SCHEMA, QUERY_AS_RO_TABLE, TABLE_TYPE, TABLE_VERSION, TableConfig
from ..hudi.timeline_source import (
    STATE_RANK,
    DecodedInstant,
    TableSource,
    TimelineEntry,
    decode_entry,
    timeline_entries,
)
from ..import_progress import ImportProgress, ImportResult
from ..model import (
    EXTERNAL_TABLE,
    VIEW_OF_PARAM,
    WRITE_ACTIONS,
    Column,
    Database,
    Instant,
    InstantState,
    SerDe,
    StorageDescriptor,
    Table,
    TableKeys,
)
from ..names import normalize
from ..store import instants as instant_store
from ..store import tables as table_store
from ..store.batches import IN_CHUNK

log = logging.getLogger(__name__)

PARQUET_SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
PARQUET_OUTPUT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat"
COPY_ON_WRITE_INPUT = "org.apache.hudi.hadoop.HoodieParquetInputFormat"
MERGE_ON_READ_INPUT = "org.apache.hudi.hadoop.realtime.HoodieParquetRealtimeInputFormat"
LAST_COMMIT_SYNC = "last_commit_time_sync"
IMPORTING: ContextVar[bool] = ContextVar("importing", default=False)
"""True while an import writes: its own alters of ``last_commit_time_sync`` are not a writer's hive sync."""
BATCH_INSTANTS = 2000
"""The most instants written in one transaction."""
BATCH_FILES = 100_000
"""A batch also ends once its completed writes name this many files."""
_SPARK_TYPES = {
    "string": "string",
    "int": "integer",
    "bigint": "long",
    "boolean": "boolean",
    "float": "float",
    "double": "double",
    "binary": "binary",
    "date": "date",
    "timestamp": "timestamp",
    "tinyint": "byte",
    "smallint": "short",
}


class HudiImporter:
    """``hudi-metastore import``: the single-process import, and the writing both import paths share."""

    def __init__(
        self,
        catalog,
        batch_instants: int = BATCH_INSTANTS,
        batch_files: int = BATCH_FILES,
        progress: ImportProgress | None = None,
    ) -> None:
        self.catalog = catalog
        self.batch_instants = min(batch_instants, IN_CHUNK)  # a batch's instant times are one IN list
        self.batch_files = batch_files
        self.progress = progress or ImportProgress()

    def run(self, path: str, database: str | None = None, table: str | None = None) -> ImportResult:
        source = TableSource.open(path)
        with source.naming_errors():
            entries = timeline_entries(source.fs, source.base, source.config)
        self.progress.listed(len(entries))
        decoded = self._decode_all(source, entries)
        schema_instant = next((d for d in reversed(decoded) if d.has_schema), None)
        return self.write(source, database, table, [d.instant for d in decoded], schema_instant, decoded)

    def follow(self, path: str, database: str, table: str) -> ImportResult:
        """Bring the catalog's timeline of a registered table up to its storage, reading only what changed:
        the active timeline is listed (one folder) and only its instants the catalog lacks, or holds in an
        earlier state, are read and written. The whole timeline, archive included, is read as ``run`` does
        when the catalog may have missed instants archived meanwhile: it holds none as recent as the oldest
        active one (or none at all), or holds one pending that is older than every active one."""
        source = TableSource.open(path)
        with source.naming_errors():
            active = timeline_entries(source.fs, source.base, source.config, archived=False)
        if not active:
            return self.run(path, database, table)
        oldest = active[0].instant.requested_time
        try:
            held = self.catalog.timeline.states_since(database, table, oldest)
        except NoSuchTableError:
            return self.run(path, database, table)
        archived_meanwhile = any(t < oldest and state is not InstantState.COMPLETED for t, state in held.items())
        if archived_meanwhile or not any(t >= oldest for t in held):
            return self.run(path, database, table)
        changed = [
            e
            for e in active
            if e.instant.requested_time not in held
            or STATE_RANK[held[e.instant.requested_time]] < STATE_RANK[e.instant.state]
        ]
        decoded = self._decode_all(source, changed)
        schema_instant = next((d for d in reversed(decoded) if d.has_schema), None)
        return self.write(source, database, table, [e.instant for e in active], schema_instant, decoded)

    def _decode_all(self, source: TableSource, entries: list[TimelineEntry]) -> list[DecodedInstant]:
        """Each entry read and decoded, in order. On an object store, where each read waits for the store
        (tens of ms), ``READS_AT_ONCE`` entries are read at a time; a local disk is read one entry after the
        other."""

        def decode(entry: TimelineEntry) -> DecodedInstant:
            return decode_entry(entry, entry.read(source.fs, source.base, source.config), source.config.version)

        decoded: list[DecodedInstant] = []
        with source.naming_errors():
            if is_local(source.fs) or len(entries) < 2:
                for entry in entries:
                    decoded.append(decode(entry))
                    self.progress.decoded(1)
                return decoded
            with ThreadPoolExecutor(READS_AT_ONCE, thread_name_prefix="hudi-import-read") as pool:
                for found in pool.map(decode, entries):
                    decoded.append(found)
                    self.progress.decoded(1)
        return decoded

    def write(
        self,
        source: TableSource,
        database: str | None,
        table: str | None,
        timeline: Sequence[Instant],
        schema_instant: DecodedInstant | None,
        decoded: Iterable[DecodedInstant],
    ) -> ImportResult:
        """Register the table (if missing) and write its decoded instants in timeline order.

        ``timeline``: every instant, in order; ``schema_instant``: the latest with the writer's schema (the
        table's columns), if any; ``decoded``: the instants (an iterator is consumed batch by batch).
        """
        importing = IMPORTING.set(True)
        try:
            return self._write(source, database, table, timeline, schema_instant, decoded)
        finally:
            IMPORTING.reset(importing)

    def _write(
        self,
        source: TableSource,
        database: str | None,
        table: str | None,
        timeline: Sequence[Instant],
        schema_instant: DecodedInstant | None,
        decoded: Iterable[DecodedInstant],
    ) -> ImportResult:
        config = source.config
        database = normalize(database or config.database or "default")
        name = normalize(table or config.name)
        self._ensure_table(database, name, config, source.location, schema_instant)
        recorded = 0
        for batch in _batches(decoded, self.batch_instants, self.batch_files):
            written = self._write_batch(database, name, batch)
            recorded += len(written)
            self.progress.written(len(batch), sum(d.instant.state is InstantState.COMPLETED for d in written))
        latest = _latest_commit(timeline)
        views = [f"{name}_ro", f"{name}_rt"] if config.table_type == "MERGE_ON_READ" else []
        for table_name in [name, *views] if latest is not None else []:
            current = self.catalog.tables.get(database, table_name)
            if current.parameters.get(LAST_COMMIT_SYNC) != latest:
                current.parameters[LAST_COMMIT_SYNC] = latest
                self.catalog.tables.alter(database, table_name, current)
        log.info(
            "imported %s into %s.%s: %d instants recorded, latest commit %s",
            source.location,
            database,
            name,
            recorded,
            latest,
        )
        return ImportResult(database, name, recorded, latest)

    # -- writing ------------------------------------------------------------------------------------

    def _write_batch(self, database: str, name: str, batch: list[DecodedInstant]) -> list[DecodedInstant]:
        """One transaction: the instants of the batch that are new or moved on (as ``TimelineService.record``
        writes them one by one), their completed ones applied; returns those written."""
        with self.catalog.store.write() as conn:
            table_store.get_row(conn, database, name, lock=True)
            keys = table_store.get_keys(conn, database, name)
            written = []
            for segment in _segments(batch):
                written += self._write_segment(conn, keys, segment)
            if written:
                last = instant_store.last_instant_time(conn, keys.id, lock=True)
                latest = max(t for d in written for t in (d.instant.requested_time, d.instant.completion_time) if t)
                instant_store.set_last_instant_time(conn, keys.id, last, latest)
        return written

    def _write_segment(self, conn: Connection, keys: TableKeys, segment: list[DecodedInstant]) -> list[DecodedInstant]:
        current = instant_store.states_of(conn, keys.id, [d.instant.requested_time for d in segment])
        todo = [
            d
            for d in segment
            if d.instant.requested_time not in current
            or STATE_RANK[current[d.instant.requested_time]] < STATE_RANK[d.instant.state]
        ]
        if todo:
            instant_store.delete_instants(conn, keys.id, [d.instant.requested_time for d in todo])
            instant_store.insert_many(conn, keys.id, [(d.instant, d.metadata) for d in todo])
            self.catalog.snapshot.instants_decoded(
                conn, keys, [(d.instant, d.completed) for d in todo if d.instant.state is InstantState.COMPLETED]
            )
        return todo

    # -- the table ----------------------------------------------------------------------------------

    def _ensure_table(
        self, database: str, name: str, config: TableConfig, location: str, schema_instant: DecodedInstant | None
    ) -> None:
        try:
            self.catalog.databases.get(database)
        except NoSuchDatabaseError:
            self.catalog.databases.create(Database(database))
        try:
            existing = self.catalog.tables.get(database, name)
        except NoSuchTableError:
            existing = None
        if existing is not None:
            self._mark_hudi(existing, config)
            return
        columns, partition_keys = self._schema(config, schema_instant)
        merge_on_read = config.is_merge_on_read
        parameters = {
            "EXTERNAL": "TRUE",
            TABLE_VERSION: str(config.version),
            TABLE_TYPE: config.table_type,
            "spark.sql.sources.provider": "hudi",
            **_spark_schema_params(columns + partition_keys, [k.name for k in partition_keys]),
        }

        def register(table_name: str, input_format: str, extra: dict[str, str]) -> None:
            self.catalog.tables.create(
                Table(
                    database,
                    table_name,
                    owner=None,
                    table_type=EXTERNAL_TABLE,
                    partition_keys=partition_keys,
                    parameters={**parameters, **extra},
                    sd=StorageDescriptor(
                        columns=columns,
                        location=location,
                        input_format=input_format,
                        output_format=PARQUET_OUTPUT,
                        serde=SerDe(serialization_lib=PARQUET_SERDE, parameters={"serialization.format": "1"}),
                    ),
                )
            )

        register(name, MERGE_ON_READ_INPUT if merge_on_read else COPY_ON_WRITE_INPUT, {})
        if merge_on_read:  # Hudi's hive sync registers a read-optimized and a real-time table
            register(f"{name}_ro", COPY_ON_WRITE_INPUT, {VIEW_OF_PARAM: name, QUERY_AS_RO_TABLE: "true"})
            register(f"{name}_rt", MERGE_ON_READ_INPUT, {VIEW_OF_PARAM: name, QUERY_AS_RO_TABLE: "false"})

    def _mark_hudi(self, table: Table, config: TableConfig) -> None:
        """A table registered before the import (by Hudi's hive sync, say) learns its Hudi table version and
        type, which name and decode its instants from here on."""
        wanted = {TABLE_VERSION: str(config.version), TABLE_TYPE: config.table_type}
        if all(table.parameters.get(k) == v for k, v in wanted.items()):
            return
        table.parameters.update(wanted)
        self.catalog.tables.alter(table.database, table.name, table)
        log.info("%s is a Hudi table of version %d: recorded", table.qualified_name, config.version)

    @staticmethod
    def _schema(config: TableConfig, schema_instant: DecodedInstant | None) -> tuple[list[Column], list[Column]]:
        """Columns from the writer's schema of ``schema_instant``, else (a table without writes) from
        ``hoodie.table.create.schema``, as Hudi's ``TableSchemaResolver`` falls back; partition keys split out."""
        if schema_instant is not None:
            instant = schema_instant.instant
            decoded = decode_instant(
                InstantFile.of(instant, config.version), schema_instant.metadata[InstantState.COMPLETED], config.version
            )
            schema = decoded.schema if isinstance(decoded, CommitMetadata) else None
            if schema is None:
                raise HudiMetadataError(f"{instant.requested_time}.{instant.action}: no writer schema")
            return hive_columns(schema, config.partition_fields)
        if config.raw.get(CREATE_SCHEMA):
            return hive_columns(config.raw[CREATE_SCHEMA], config.partition_fields)
        return [], [Column(f, "string") for f in config.partition_fields]


def _latest_commit(timeline: Iterable[Instant]) -> str | None:
    """The latest completed write (what hive sync records as ``last_commit_time_sync``)."""
    return max(
        (i.requested_time for i in timeline if i.state is InstantState.COMPLETED and i.action in WRITE_ACTIONS),
        default=None,
    )


def _batches(decoded: Iterable[DecodedInstant], instants: int, files: int) -> Iterator[list[DecodedInstant]]:
    batch, size = [], 0
    for d in decoded:
        batch.append(d)
        size += d.file_count
        if len(batch) >= instants or size >= files:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _segments(batch: list[DecodedInstant]) -> Iterator[list[DecodedInstant]]:
    """The batch cut after every rollback or restore: a segment's instant rows are written before any of it
    is applied, and applying those two deletes instants, which later instants must not precede."""
    segment: list[DecodedInstant] = []
    for d in batch:
        segment.append(d)
        if d.removes_instants:
            yield segment
            segment = []
    if segment:
        yield segment


def _spark_schema_params(columns: list[Column], partition_names: list[str]) -> dict[str, str]:
    """Spark's data source schema properties, as Hudi's hive sync writes them (simple types only; others as
    string, which Spark re-reads from the files)."""
    fields = [
        {"name": c.name, "type": _SPARK_TYPES.get(c.type, "string"), "nullable": True, "metadata": {}} for c in columns
    ]
    params = {
        "spark.sql.sources.schema.numParts": "1",
        "spark.sql.sources.schema.part.0": json.dumps({"type": "struct", "fields": fields}),
    }
    if partition_names:
        params["spark.sql.sources.schema.numPartCols"] = str(len(partition_names))
        for i, key in enumerate(partition_names):
            params[f"spark.sql.sources.schema.partCol.{i}"] = key
    return params
