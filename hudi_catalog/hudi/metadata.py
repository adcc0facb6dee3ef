"""What an instant file says: commit metadata, plans, clean/rollback/restore/savepoint/indexing results.

Content comes in three shapes, told apart by the bytes themselves:

- empty (normal for requested and inflight files; also a crashed writer's completed file): the empty
  metadata object the action and state call for;
- an Avro data file (``Obj\\x01``, schema embedded; all of table versions 8+, and plans, cleans,
  rollbacks, restores and savepoints of earlier versions), decoded by its record schema's name;
- JSON (commit, deltacommit and replacecommit metadata of table versions before 8), decoded as the
  action and state call for.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeAlias

import fastavro
from pyarrow import fs as pafs

from ..errors import HudiMetadataError
from ..model import Action, InstantState
from .active_timeline import list_instants, read_instant
from .file_names import LogFileName
from .instant_files import InstantFile
from .properties import CREATE_SCHEMA, TableConfig

AVRO_MAGIC = b"Obj\x01"
SCHEMA_KEY = "schema"
"""The ``extraMetadata`` key holding the writer's Avro schema (JSON text)."""


@dataclass(frozen=True)
class WriteStat:
    """One file written by a commit (``HoodieWriteStat``); ``path`` is relative to the base path."""

    partition_path: str
    file_id: str
    path: str
    prev_commit: str | None
    file_size: int
    num_writes: int
    num_deletes: int
    num_update_writes: int
    num_inserts: int
    total_log_records: int
    base_file: str | None
    log_files: list[str]
    is_log: bool

    @property
    def file_name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class CommitMetadata:
    """A commit, deltacommit or replacecommit (completed or inflight); ``extra`` is ``extraMetadata``."""

    operation_type: str | None = None
    write_stats: list[WriteStat] = field(default_factory=list)
    replaced_file_ids: dict[str, list[str]] = field(default_factory=dict)
    extra: dict[str, str] = field(default_factory=dict)
    compacted: bool = False

    @property
    def schema(self) -> str | None:
        """The writer's Avro schema (JSON text), if recorded."""
        return self.extra.get(SCHEMA_KEY) or None


@dataclass(frozen=True)
class CleanMetadata:
    """A completed clean: partition -> names of the files it deleted."""

    deleted_files: dict[str, list[str]] = field(default_factory=dict)
    earliest_commit_to_retain: str | None = None
    deleted_partitions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CleanPlan:
    """A requested clean: partition -> names of the files to delete."""

    files_to_delete: dict[str, list[str]] = field(default_factory=dict)
    partitions_to_delete: list[str] = field(default_factory=list)
    earliest_instant_to_retain: str | None = None


@dataclass(frozen=True)
class RollbackMetadata:
    """A completed rollback. Per partition: files deleted, rollback blocks appended to log files (MOR),
    and log files the failed commit had written."""

    rolled_back_instants: list[str] = field(default_factory=list)
    deleted_files: dict[str, list[str]] = field(default_factory=dict)
    appended_log_files: dict[str, list[str]] = field(default_factory=dict)
    failed_commit_log_files: dict[str, list[str]] = field(default_factory=dict)
    log_file_sizes: dict[str, int] = field(default_factory=dict)
    """Sizes of those log files by file name, after the rollback (the rollback blocks' lengths last)."""


@dataclass(frozen=True)
class RollbackPlan:
    """A requested rollback: the instant to undo and, per partition, the files it will delete."""

    instant_to_rollback: str | None = None
    action_to_rollback: str | None = None
    files_to_delete: dict[str, list[str]] = field(default_factory=dict)
    log_files_to_roll_back: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class RestoreMetadata:
    """A completed restore: the instants it rolled back, each rollback's own metadata."""

    rolled_back_instants: list[str] = field(default_factory=list)
    rollbacks: list[RollbackMetadata] = field(default_factory=list)


@dataclass(frozen=True)
class RestorePlan:
    """A requested restore."""

    instants_to_rollback: list[str] = field(default_factory=list)
    savepoint: str | None = None


@dataclass(frozen=True)
class SavepointMetadata:
    """A savepoint: partition -> names of the files it keeps."""

    files: dict[str, list[str]] = field(default_factory=dict)
    comments: str | None = None


@dataclass(frozen=True)
class PlannedSlice:
    """A file slice a compaction or clustering plan reads; file names, not paths."""

    partition_path: str
    file_id: str
    base_instant: str | None
    base_file: str | None
    delta_files: list[str]


@dataclass(frozen=True)
class CompactionPlan:
    """A requested compaction or log compaction."""

    operations: list[PlannedSlice] = field(default_factory=list)


@dataclass(frozen=True)
class ClusteringPlan:
    """A requested clustering, or a requested replacecommit (whose plan is empty for insert-overwrite)."""

    operation_type: str | None = None
    input_slices: list[PlannedSlice] = field(default_factory=list)

    def file_groups(self) -> list[tuple[str, str]]:
        """The (partition, file id) of every input file group."""
        return [(s.partition_path, s.file_id) for s in self.input_slices]


@dataclass(frozen=True)
class IndexingMetadata:
    """An indexing plan or result: metadata-table partition -> instant it indexes up to."""

    partitions: dict[str, str | None] = field(default_factory=dict)


InstantMetadata: TypeAlias = (
    CommitMetadata
    | CleanMetadata
    | CleanPlan
    | RollbackMetadata
    | RollbackPlan
    | RestoreMetadata
    | RestorePlan
    | SavepointMetadata
    | CompactionPlan
    | ClusteringPlan
    | IndexingMetadata
)


@dataclass(frozen=True)
class DecodedCompletion:
    """A completed instant's metadata as the call that completed it decoded it, under ``table_version``: handed
    on, so that whoever else needs it (the Iceberg view) does not decode the same bytes again."""

    table_version: int
    metadata: InstantMetadata


def decode_instant(instant: InstantFile, data: bytes, table_version: int) -> InstantMetadata:
    """Decode the content of an instant file.

    Raises:
        HudiMetadataError: unknown action, or content that is corrupt, truncated or not what the action
            and state call for; the message starts with the instant's file name.
    """
    expected = _decoder(instant)
    with _content_errors(instant, table_version):
        if data[:4] == AVRO_MAGIC:
            return _decode_avro(data)
        if not data.strip():
            return expected({})
        return expected(_json_object(data))


def check_instant(instant: InstantFile, data: bytes, table_version: int) -> None:
    """Check that the content of an instant file is whole, without decoding its records: an Avro file's
    header, every block (inflated) and sync marker, its record kind and count; a JSON file's syntax. For the
    states a completed instant has left behind (its requested and inflight files), which are kept and served
    as bytes but never decoded; it is several times cheaper than ``decode_instant``.

    Raises:
        HudiMetadataError: as ``decode_instant`` for content that is corrupt, truncated or of another kind.
    """
    _decoder(instant)
    with _content_errors(instant, table_version):
        if data[:4] == AVRO_MAGIC:
            _check_avro(data)
        elif data.strip():
            _json_object(data)


def _decoder(instant: InstantFile) -> _Decoder:
    decoders = _DECODERS.get(instant.action)
    if decoders is None:
        raise HudiMetadataError(f"{instant.file_name}: unknown action {instant.action!r}")
    return decoders[instant.state]


@contextlib.contextmanager
def _content_errors(instant: InstantFile, table_version: int) -> Iterator[None]:
    """Any error reading the content becomes a ``HudiMetadataError`` naming the file."""
    try:
        yield
    except Exception as e:  # fastavro and the converters raise many types on malformed content
        raise HudiMetadataError(
            f"{instant.file_name}: cannot decode {instant.state.value} {instant.action} "
            f"(table version {table_version}): {e}"
        ) from e


def _json_object(data: bytes) -> dict:
    record = json.loads(data.decode("utf-8"))
    if not isinstance(record, dict):
        raise ValueError(f"JSON {type(record).__name__}, not an object")
    return record


def latest_schema(fs: pafs.FileSystem, base_path: str, config: TableConfig) -> str | None:
    """The Avro schema (JSON text) of the newest completed write that recorded one, else the table's
    ``hoodie.table.create.schema``; ``None`` when neither exists."""
    for instant in reversed(list_instants(fs, base_path, config)):
        if instant.is_completed and instant.action.writes_data:
            metadata = decode_instant(instant, read_instant(fs, base_path, config, instant), config.version)
            if isinstance(metadata, CommitMetadata) and metadata.schema:
                return metadata.schema
    return config.raw.get(CREATE_SCHEMA) or None


# -- decoding ---------------------------------------------------------------------------------------


def _decode_avro(data: bytes) -> InstantMetadata:
    schema, records = _avro_records(data)
    name = _kind(schema)
    if len(records) != 1:
        raise ValueError(f"{len(records)} {name} records, expected 1")
    record = records[0]
    if not isinstance(record, dict):
        raise ValueError(f"{name} holds a {type(record).__name__}, not a record")
    return _AVRO_DECODERS[name](record)


def _check_avro(data: bytes) -> None:
    container = _avro_container(data)
    if container is None:  # a codec of other writers than Hudi's: checked by decoding
        _decode_avro(data)
        return
    name = _kind(container.schema)
    count = sum(records for records, _ in container.blocks)
    if count != 1:
        raise ValueError(f"{count} {name} records, expected 1")


def _kind(schema: Any) -> str:
    """The name of an instant file's record, one of ``_AVRO_DECODERS``."""
    name = str(schema.get("name", "")).rsplit(".", 1)[-1] if isinstance(schema, dict) else ""
    if name not in _AVRO_DECODERS:
        raise ValueError(f"unexpected Avro record {name or schema!r}")
    return name


_AVRO_HEADER = fastavro.parse_schema(
    {
        "type": "record",
        "name": "org.apache.avro.file.Header",
        "fields": [
            {"name": "magic", "type": {"type": "fixed", "name": "Magic", "size": 4}},
            {"name": "meta", "type": {"type": "map", "values": "bytes"}},
            {"name": "sync", "type": {"type": "fixed", "name": "Sync", "size": 16}},
        ],
    }
)
"""The header of an Avro data file, as the Avro specification defines it."""
_BLOCK_CODECS: dict[bytes, Callable[[bytes], bytes]] = {
    b"null": lambda block: block,
    b"deflate": lambda block: zlib.decompress(block, -15),
}


def _avro_records(data: bytes) -> tuple[Any, list]:
    """The writer's schema and the records of an Avro data file. Writer schemas are parsed once per process
    (an instant file embeds its schema, the same in every file of a kind); files in other codecs than
    Hudi's (null, deflate) are read by fastavro's reader."""
    container = _avro_container(data)
    if container is None:
        reader = fastavro.reader(io.BytesIO(data))
        return reader.writer_schema, list(reader)
    records = []
    for count, block in container.blocks:
        stream = io.BytesIO(block)
        records += [fastavro.schemaless_reader(stream, container.parsed_schema) for _ in range(count)]
    return container.schema, records


class _AvroContainer(NamedTuple):
    """An Avro data file read down to its blocks."""

    schema: Any
    """The writer's schema, as JSON."""
    parsed_schema: Any
    """The same, parsed for ``fastavro.schemaless_reader``."""
    blocks: list[tuple[int, bytes]]
    """(record count, inflated bytes) of each block."""


def _avro_container(data: bytes) -> _AvroContainer | None:
    """An Avro data file's schema and blocks, its framing checked (block sizes, sync markers); ``None`` for a
    codec other than Hudi's (null, deflate)."""
    stream = io.BytesIO(data)
    header: dict[str, Any] = fastavro.schemaless_reader(stream, _AVRO_HEADER)  # type: ignore[assignment]
    meta: dict[str, bytes] = header["meta"]
    uncompress = _BLOCK_CODECS.get(meta.get("avro.codec", b"null"))
    if uncompress is None:
        return None
    schema, parsed = _writer_schema(meta["avro.schema"])
    blocks = []
    while stream.tell() < len(data):
        count, size = _read_long(stream), _read_long(stream)
        if count < 0 or size < 0:
            raise ValueError("corrupt Avro block header")
        blocks.append((count, uncompress(stream.read(size))))
        if stream.read(16) != header["sync"]:
            raise ValueError("Avro sync marker does not match")
    return _AvroContainer(schema, parsed, blocks)


@functools.lru_cache(maxsize=64)
def _writer_schema(text: bytes) -> tuple[Any, Any]:
    """An embedded writer schema (JSON text) and its parsed form, for ``schemaless_reader``."""
    schema = json.loads(text)
    return schema, fastavro.parse_schema(schema)


def _read_long(stream: io.BytesIO) -> int:
    """One Avro ``long`` (zig-zag varint)."""
    value = shift = 0
    while True:
        byte = stream.read(1)
        if not byte:
            raise EOFError("Avro long cut short")
        value |= (byte[0] & 0x7F) << shift
        if byte[0] < 0x80:
            return (value >> 1) ^ -(value & 1)
        shift += 7


def _names(paths: Iterable[str] | None) -> list[str]:
    """File names of paths (Hudi records some as absolute URIs, some as names)."""
    return [p.rsplit("/", 1)[-1] for p in paths or []]


def _non_empty(by_partition: dict[str, list[str]]) -> dict[str, list[str]]:
    return {p: files for p, files in by_partition.items() if files}


def _partition(record: dict, key: str) -> str:
    """A per-partition record's own ``partitionPath``, else the map key it sits under."""
    path = record.get("partitionPath")
    return key if path is None else path


def _instant_or_none(value: str | None) -> str | None:
    return None if value in (None, "", "null") else value


def _write_stat(partition: str, stat: dict) -> WriteStat:
    get = stat.get  # a commit holds thousands of stats: one bound lookup each
    path = get("path") or ""
    name = path.rsplit("/", 1)[-1]
    return WriteStat(
        partition_path=_partition(stat, partition),
        file_id=get("fileId") or "",
        path=path,
        prev_commit=_instant_or_none(get("prevCommit")),
        file_size=int(get("fileSizeInBytes") or get("totalWriteBytes") or 0),
        num_writes=int(get("numWrites") or 0),
        num_deletes=int(get("numDeletes") or 0),
        num_update_writes=int(get("numUpdateWrites") or 0),
        num_inserts=int(get("numInserts") or 0),
        total_log_records=int(get("totalLogRecords") or 0),
        base_file=get("baseFile") or None,
        log_files=list(get("logFiles") or []),
        is_log=name.startswith(".") and LogFileName.try_parse(name) is not None,  # log file names start with "."
    )


def _commit_metadata(record: dict) -> CommitMetadata:
    return CommitMetadata(
        operation_type=record.get("operationType") or None,
        write_stats=[
            _write_stat(partition, stat)
            for partition, stats in (record.get("partitionToWriteStats") or {}).items()
            for stat in stats or []
        ],
        replaced_file_ids={p: list(ids or []) for p, ids in (record.get("partitionToReplaceFileIds") or {}).items()},
        extra={k: str(v) for k, v in (record.get("extraMetadata") or {}).items() if v is not None},
        compacted=bool(record.get("compacted")),
    )


def _clean_metadata(record: dict) -> CleanMetadata:
    deleted, dropped = {}, []
    for key, partition in (record.get("partitionMetadata") or {}).items():
        path = _partition(partition, key)
        deleted[path] = _names(partition.get("successDeleteFiles"))
        if partition.get("isPartitionDeleted"):
            dropped.append(path)
    return CleanMetadata(_non_empty(deleted), _instant_or_none(record.get("earliestCommitToRetain")), dropped)


def _clean_plan(record: dict) -> CleanPlan:
    files = {
        p: _names(info["filePath"] for info in infos or [] if info.get("filePath"))
        for p, infos in (record.get("filePathsToBeDeletedPerPartition") or {}).items()
    }
    if not files:  # plans before version 2 list plain paths
        files = {p: _names(paths) for p, paths in (record.get("filesToBeDeletedPerPartition") or {}).items()}
    earliest = (record.get("earliestInstantToRetain") or {}).get("timestamp")
    return CleanPlan(_non_empty(files), list(record.get("partitionsToBeDeleted") or []), _instant_or_none(earliest))


def _rollback_metadata(record: dict) -> RollbackMetadata:
    instants = list(record.get("commitsRollback") or []) or [
        i["commitTime"] for i in record.get("instantsRollback") or []
    ]
    deleted, appended, failed, sizes = {}, {}, {}, {}
    for key, partition in (record.get("partitionMetadata") or {}).items():
        path = _partition(partition, key)
        deleted[path] = _names(partition.get("successDeleteFiles"))
        appended[path] = _names(partition.get("rollbackLogFiles") or {})
        failed[path] = _names(partition.get("logFilesFromFailedCommit") or {})
        for logs in (partition.get("logFilesFromFailedCommit"), partition.get("rollbackLogFiles")):
            sizes.update(
                {name.rsplit("/", 1)[-1]: int(size) for name, size in (logs or {}).items() if isinstance(size, int)}
            )
    return RollbackMetadata(instants, _non_empty(deleted), _non_empty(appended), _non_empty(failed), sizes)


def _rollback_plan(record: dict) -> RollbackPlan:
    target = record.get("instantToRollback") or {}
    files: dict[str, list[str]] = {}
    logs: dict[str, list[str]] = {}
    for request in record.get("RollbackRequests") or []:
        partition = request.get("partitionPath") or ""
        files.setdefault(partition, []).extend(_names(request.get("filesToBeDeleted")))
        logs.setdefault(partition, []).extend(_names(request.get("logBlocksToBeDeleted") or {}))
    return RollbackPlan(
        _instant_or_none(target.get("commitTime")), target.get("action") or None, _non_empty(files), _non_empty(logs)
    )


def _restore_metadata(record: dict) -> RestoreMetadata:
    instants = list(record.get("instantsToRollback") or []) or [
        i["commitTime"] for i in record.get("restoreInstantInfo") or []
    ]
    rollbacks = [
        _rollback_metadata(r)
        for per_instant in (record.get("hoodieRestoreMetadata") or {}).values()
        for r in per_instant or []
        if r is not None
    ]
    return RestoreMetadata(instants, rollbacks)


def _restore_plan(record: dict) -> RestorePlan:
    return RestorePlan(
        [i["commitTime"] for i in record.get("instantsToRollback") or []],
        _instant_or_none(record.get("savepointToRestoreTimestamp")),
    )


def _savepoint_metadata(record: dict) -> SavepointMetadata:
    files = {
        _partition(partition, key): _names(partition.get("savepointDataFile"))
        for key, partition in (record.get("partitionMetadata") or {}).items()
    }
    return SavepointMetadata(_non_empty(files), record.get("comments") or None)


def _planned_slice(operation: dict) -> PlannedSlice:
    base = operation.get("dataFilePath") or None
    return PlannedSlice(
        partition_path=operation.get("partitionPath") or "",
        file_id=operation["fileId"],
        base_instant=_instant_or_none(operation.get("baseInstantTime")),
        base_file=_names([base])[0] if base else None,
        delta_files=_names(operation.get("deltaFilePaths")),
    )


def _compaction_plan(record: dict) -> CompactionPlan:
    return CompactionPlan([_planned_slice(op) for op in record.get("operations") or []])


def _clustering_plan(record: dict) -> ClusteringPlan:
    plan = record.get("clusteringPlan") or {}
    slices = [_planned_slice(s) for group in plan.get("inputGroups") or [] for s in group.get("slices") or []]
    return ClusteringPlan(record.get("operationType") or None, slices)


def _indexing_metadata(record: dict) -> IndexingMetadata:
    return IndexingMetadata(
        {
            info["metadataPartitionPath"]: _instant_or_none(info.get("indexUptoInstant"))
            for info in record.get("indexPartitionInfos") or []
        }
    )


_Decoder = Callable[[dict], InstantMetadata]

_AVRO_DECODERS: dict[str, _Decoder] = {
    "HoodieCommitMetadata": _commit_metadata,
    "HoodieReplaceCommitMetadata": _commit_metadata,
    "HoodieRequestedReplaceMetadata": _clustering_plan,
    "HoodieCompactionPlan": _compaction_plan,
    "HoodieCleanMetadata": _clean_metadata,
    "HoodieCleanerPlan": _clean_plan,
    "HoodieRollbackMetadata": _rollback_metadata,
    "HoodieRollbackPlan": _rollback_plan,
    "HoodieRestoreMetadata": _restore_metadata,
    "HoodieRestorePlan": _restore_plan,
    "HoodieSavepointMetadata": _savepoint_metadata,
    "HoodieIndexPlan": _indexing_metadata,
    "HoodieIndexCommitMetadata": _indexing_metadata,
}
"""Avro content is decoded by its record name, whatever file it sits in."""


def _by_state(requested: _Decoder, inflight: _Decoder, completed: _Decoder) -> dict[InstantState, _Decoder]:
    return {InstantState.REQUESTED: requested, InstantState.INFLIGHT: inflight, InstantState.COMPLETED: completed}


_DECODERS: dict[Action, dict[InstantState, _Decoder]] = {
    Action.COMMIT: _by_state(_commit_metadata, _commit_metadata, _commit_metadata),
    Action.DELTACOMMIT: _by_state(_commit_metadata, _commit_metadata, _commit_metadata),
    Action.REPLACECOMMIT: _by_state(_clustering_plan, _commit_metadata, _commit_metadata),
    Action.CLUSTERING: _by_state(_clustering_plan, _clustering_plan, _commit_metadata),
    Action.COMPACTION: _by_state(_compaction_plan, _compaction_plan, _commit_metadata),
    Action.LOGCOMPACTION: _by_state(_compaction_plan, _compaction_plan, _commit_metadata),
    Action.CLEAN: _by_state(_clean_plan, _clean_plan, _clean_metadata),
    Action.ROLLBACK: _by_state(_rollback_plan, _rollback_plan, _rollback_metadata),
    Action.RESTORE: _by_state(_restore_plan, _restore_plan, _restore_metadata),
    Action.SAVEPOINT: _by_state(_savepoint_metadata, _savepoint_metadata, _savepoint_metadata),
    Action.INDEXING: _by_state(_indexing_metadata, _indexing_metadata, _indexing_metadata),
}
"""Empty and JSON content is decoded as the action and state call for."""
