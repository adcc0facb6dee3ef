"""Registering an existing Hudi table from its storage: ``hudi-metastore import PATH``.

The import reads only ``.hoodie`` (table config, active and archived timeline); it lists no data folder.
It creates the database and the table the way Hudi's hive sync registers them (Hudi input formats, Spark's
data source properties, ``last_commit_time_sync``; for MERGE_ON_READ also ``<table>_ro`` and ``<table>_rt``,
which get the same partitions), then records every instant in timeline order, one
transaction each, applying completed ones to the snapshot. Running it again records only what is new, so
an interrupted import resumes where it stopped.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

import pyarrow.fs as pafs

from ..errors import NoSuchDatabaseError, NoSuchTableError
from ..hudi.avro_schema import hive_columns
from ..hudi.instants import InstantFile, list_instants, read_archived_instants, read_instant
from ..hudi.metadata import CommitMetadata, decode_instant
from ..hudi.properties import TableConfig, read_table_config
from ..model import EXTERNAL_TABLE, Column, Database, Instant, InstantState, SerDe, StorageDescriptor, Table
from ..names import normalize
from .snapshot import TABLE_VERSION_PARAM, VIEW_OF_PARAM, instant_file

log = logging.getLogger(__name__)

PARQUET_SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
PARQUET_OUTPUT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat"
COPY_ON_WRITE_INPUT = "org.apache.hudi.hadoop.HoodieParquetInputFormat"
MERGE_ON_READ_INPUT = "org.apache.hudi.hadoop.realtime.HoodieParquetRealtimeInputFormat"
LAST_COMMIT_SYNC = "last_commit_time_sync"
_SPARK_TYPES = {"string": "string", "int": "integer", "bigint": "long", "boolean": "boolean", "float": "float",
                "double": "double", "binary": "binary", "date": "date", "timestamp": "timestamp",
                "tinyint": "byte", "smallint": "short"}


@dataclass(frozen=True)
class ImportResult:
    database: str
    table: str
    recorded: int
    """Instant states recorded by this run (0 when the catalog was already up to date)."""
    latest_commit: str | None


def open_path(path: str) -> tuple[pafs.FileSystem, str]:
    """The file system and the path within it of a table location (local path or URI)."""
    if "://" in path or path.startswith("file:"):
        return pafs.FileSystem.from_uri(path)
    return pafs.LocalFileSystem(), str(Path(path).resolve())


class HudiImporter:
    def __init__(self, catalog) -> None:
        self.catalog = catalog

    def run(self, path: str, database: str | None = None, table: str | None = None) -> ImportResult:
        fs, base = open_path(path)
        config = read_table_config(fs, base)
        database = normalize(database or config.database or "default")
        name = normalize(table or config.name)
        found = self.read_timeline(fs, base, config)
        self._validate(found, config)
        self._ensure_table(database, name, config, base, found)
        recorded = 0
        for instant, metadata in found:
            if self.catalog.timeline.record(database, name, instant, metadata):
                recorded += 1
        latest = self._latest_commit(found)
        views = [f"{name}_ro", f"{name}_rt"] if config.table_type == "MERGE_ON_READ" else []
        for table_name in [name, *views] if latest is not None else []:
            current = self.catalog.tables.get(database, table_name)
            if current.parameters.get(LAST_COMMIT_SYNC) != latest:
                current.parameters[LAST_COMMIT_SYNC] = latest
                self.catalog.tables.alter(database, table_name, current)
        log.info("imported %s into %s.%s: %d instants recorded, latest commit %s", base, database, name,
                 recorded, latest)
        return ImportResult(database, name, recorded, latest)

    @staticmethod
    def read_timeline(fs, base: str, config: TableConfig) -> list[tuple[Instant, dict[InstantState, bytes]]]:
        """Every instant of the table (archived ones first), in its latest state, with each state's bytes."""
        states: dict[str, dict[InstantState, tuple[InstantFile, bytes]]] = defaultdict(dict)
        for file, data in read_archived_instants(fs, base, config):
            states[file.requested_time][file.state] = (file, data)
        for file in list_instants(fs, base, config):
            states[file.requested_time][file.state] = (file, read_instant(fs, base, config, file))
        timeline = []
        for requested_time in sorted(states):
            by_state = states[requested_time]
            pending = [f for s, (f, _) in by_state.items() if s is not InstantState.COMPLETED]
            last_state = max(by_state, key=list(InstantState).index)
            last_file = by_state[last_state][0]
            # a completed compaction or clustering is written as commit/replacecommit: its plan names it
            action = pending[0].action if pending else last_file.action
            instant = Instant(requested_time, action, last_state, last_file.completion_time)
            timeline.append((instant, {s: data for s, (_, data) in by_state.items()}))
        return timeline

    @staticmethod
    def _validate(found, config: TableConfig) -> None:
        """Decode every instant state before writing anything: a corrupt instant file fails the import
        (naming the file) while the catalog is untouched."""
        for instant, metadata in found:
            for state, data in metadata.items():
                file = instant_file(replace(instant, state=state), config.version)
                decode_instant(file, data, config.version)

    @staticmethod
    def _latest_commit(found) -> str | None:
        completed = [i.requested_time for i, _ in found if i.state is InstantState.COMPLETED
                     and i.action not in ("clean", "rollback", "restore", "savepoint", "indexing")]
        return max(completed, default=None)

    def _ensure_table(self, database: str, name: str, config: TableConfig, base: str, found) -> None:
        try:
            self.catalog.databases.get(database)
        except NoSuchDatabaseError:
            self.catalog.databases.create(Database(database))
        try:
            self.catalog.tables.get(database, name)
            return
        except NoSuchTableError:
            pass
        columns, partition_keys = self._schema(config, found)
        location = base if "://" in base else f"file:{base}"
        merge_on_read = config.table_type == "MERGE_ON_READ"
        parameters = {
            "EXTERNAL": "TRUE",
            TABLE_VERSION_PARAM: str(config.version),
            "hoodie.table.type": config.table_type,
            "spark.sql.sources.provider": "hudi",
            **_spark_schema_params(columns + partition_keys, [k.name for k in partition_keys]),
        }

        def register(table_name: str, input_format: str, extra: dict[str, str]) -> None:
            self.catalog.tables.create(Table(
                database, table_name, owner=None, table_type=EXTERNAL_TABLE, partition_keys=partition_keys,
                parameters={**parameters, **extra},
                sd=StorageDescriptor(
                    columns=columns, location=location, input_format=input_format, output_format=PARQUET_OUTPUT,
                    serde=SerDe(serialization_lib=PARQUET_SERDE, parameters={"serialization.format": "1"}),
                ),
            ))

        register(name, MERGE_ON_READ_INPUT if merge_on_read else COPY_ON_WRITE_INPUT, {})
        if merge_on_read:  # Hudi's hive sync registers a read-optimized and a real-time table
            register(f"{name}_ro", COPY_ON_WRITE_INPUT, {VIEW_OF_PARAM: name, "hoodie.query.as.ro.table": "true"})
            register(f"{name}_rt", MERGE_ON_READ_INPUT, {VIEW_OF_PARAM: name, "hoodie.query.as.ro.table": "false"})

    @staticmethod
    def _schema(config: TableConfig, found) -> tuple[list[Column], list[Column]]:
        """Columns from the schema of the latest commit that recorded one; partition keys split out."""
        for instant, metadata in reversed(found):
            data = metadata.get(InstantState.COMPLETED)
            if instant.state is not InstantState.COMPLETED or not data:
                continue
            decoded = decode_instant(instant_file(instant, config.version), data, config.version)
            if isinstance(decoded, CommitMetadata) and decoded.extra.get("schema"):
                return hive_columns(decoded.extra["schema"], config.partition_fields)
        return [], [Column(f, "string") for f in config.partition_fields]


def _spark_schema_params(columns: list[Column], partition_names: list[str]) -> dict[str, str]:
    """Spark's data source schema properties, as Hudi's hive sync writes them (simple types only; others as
    string, which Spark re-reads from the files)."""
    fields = [{"name": c.name, "type": _SPARK_TYPES.get(c.type, "string"), "nullable": True, "metadata": {}}
              for c in columns]
    params = {"spark.sql.sources.schema.numParts": "1",
              "spark.sql.sources.schema.part.0": json.dumps({"type": "struct", "fields": fields})}
    if partition_names:
        params["spark.sql.sources.schema.numPartCols"] = str(len(partition_names))
        for i, key in enumerate(partition_names):
            params[f"spark.sql.sources.schema.partCol.{i}"] = key
    return params
