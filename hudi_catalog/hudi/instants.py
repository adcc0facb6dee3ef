"""The instant files of a Hudi timeline: names, listing, contents, and the archived timeline.

File names (``<ts>`` is a requested time, ``yyyyMMddHHmmssSSS``):

- every version: ``<ts>.<action>.requested`` and ``<ts>.<action>.inflight``, except an inflight
  ``commit``, which is ``<ts>.inflight``;
- table versions 6 and earlier (timeline layout 1, in ``.hoodie/``): completed is ``<ts>.<action>``;
  clustering is written with the ``replacecommit`` names;
- table versions 8 and later (layout 2, in ``.hoodie/timeline/``): completed is
  ``<ts>_<completion ts>.<action>``; clustering has its own ``clustering`` pending names;
- on both layouts a completed ``compaction`` is a ``commit``, a completed ``logcompaction`` a
  ``deltacommit`` and a completed ``clustering`` a ``replacecommit``.

Layout 1 names carry no completion time. As Hudi 1.x does, it is taken from the completed file's
modification time, written as an instant time in the table's timeline zone (``UTC`` when
``hoodie.table.timeline.timezone=UTC``, otherwise the local zone of this process, as the Java reader uses
the JVM's). hudi-rs leaves it unset.

Example:
    >>> done = parse_instant_file_name("20240103153000123_20240103153001456.deltacommit", 8)
    >>> done.requested_time, done.action, done.state.value, done.completion_time
    ('20240103153000123', 'deltacommit', 'completed', '20240103153001456')
    >>> parse_instant_file_name("20240103153000123.inflight", 6).action
    'commit'
    >>> parse_instant_file_name("hoodie.properties", 6) is None
    True
"""

from __future__ import annotations

import io
import json
import logging
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timezone

import fastavro
import pyarrow.parquet as pq
from pyarrow import fs as pafs

from ..errors import HudiMetadataError, StorageError
from ..model import HUDI_ACTIONS, InstantState
from .properties import FIRST_LAYOUT_2_VERSION, TableConfig

log = logging.getLogger(__name__)

ACTIONS = HUDI_ACTIONS
"""Every action of a Hudi timeline."""

# The action a completed instant of these actions is written (and listed) as.
COMPLETED_AS = {"compaction": "commit", "logcompaction": "deltacommit", "clustering": "replacecommit"}


State = InstantState
"""The state an instant file records: the catalog's instant states."""


_STATE_ORDER = {State.REQUESTED: 0, State.INFLIGHT: 1, State.COMPLETED: 2}


@dataclass(frozen=True)
class InstantFile:
    """One state of one instant, as found on storage.

    ``file_name`` is the file's name in the timeline folder; for an archived instant it is
    ``<container file, relative to the base path>#<the instant's active-timeline name>``.
    """

    requested_time: str
    action: str
    state: State
    completion_time: str | None
    file_name: str

    @property
    def is_completed(self) -> bool:
        return self.state is State.COMPLETED

    def sort_key(self) -> tuple[str, int, str]:
        """Timeline order: requested time, then requested < inflight < completed."""
        return self.requested_time, _STATE_ORDER[self.state], self.action


_NAME = re.compile(
    r"(?P<requested>\d+)(?:_(?P<completion>\d+))?\.(?P<action>[a-z]+)(?:\.(?P<state>requested|inflight))?"
)


def instant_file_name(requested_time: str, action: str, state: State, table_version: int,
                      completion_time: str | None = None) -> str:
    """The file name Hudi gives this instant state (the inverse of :func:`parse_instant_file_name`).

    >>> instant_file_name("20240101000000000", "clustering", State.REQUESTED, 6)
    '20240101000000000.replacecommit.requested'
    >>> instant_file_name("20240101000000000", "compaction", State.COMPLETED, 9, "20240101000001000")
    '20240101000000000_20240101000001000.commit'
    """
    layout_2 = table_version >= FIRST_LAYOUT_2_VERSION
    if state is State.COMPLETED:
        stamp = f"{requested_time}_{completion_time}" if layout_2 and completion_time else requested_time
        return f"{stamp}.{COMPLETED_AS.get(action, action)}"
    if action == "commit" and state is State.INFLIGHT:
        return f"{requested_time}.inflight"
    if action == "clustering" and not layout_2:
        action = "replacecommit"
    return f"{requested_time}.{action}.{state.value}"


def parse_instant_file_name(name: str, table_version: int) -> InstantFile | None:
    """The instant a timeline file name stands for; ``None`` for any other file (``hoodie.properties``,
    folders, ``.crc`` files, unknown actions). A completed layout 1 name gets no completion time here."""
    match = _NAME.fullmatch(name)
    if match is None:
        return None
    requested, completion, action, state = match.group("requested", "completion", "action", "state")
    if action == "inflight" and state is None:
        action, parsed_state = "commit", State.INFLIGHT
    elif action not in ACTIONS:
        log.debug("ignoring timeline file %s: unknown action %r", name, action)
        return None
    else:
        parsed_state = State(state) if state else State.COMPLETED
    layout_2 = table_version >= FIRST_LAYOUT_2_VERSION
    if completion is not None and (parsed_state is not State.COMPLETED or not layout_2):
        return None
    return InstantFile(requested, action, parsed_state, completion, name)


def list_instants(fs: pafs.FileSystem, base_path: str, config: TableConfig) -> list[InstantFile]:
    """Every instant file of the active timeline, in timeline order.

    Completed instants whose names carry no completion time (layout 1) get it from the file's
    modification time.
    """
    timeline = _join(base_path, config.timeline_dir)
    instants = []
    for info in _list_dir(fs, timeline):
        if info.type != pafs.FileType.File:
            continue
        instant = parse_instant_file_name(info.base_name, config.version)
        if instant is None:
            continue
        if instant.is_completed and instant.completion_time is None:
            instant = replace(instant, completion_time=_mtime_instant_time(info.mtime_ns, config.timeline_timezone))
        instants.append(instant)
    instants.sort(key=InstantFile.sort_key)
    return instants


def read_instant(fs: pafs.FileSystem, base_path: str, config: TableConfig, instant: InstantFile) -> bytes:
    """The raw content of an active instant file (often empty for requested and inflight ones).

    Raises:
        HudiMetadataError: the file does not exist (any more).
        StorageError: the file system failed.
    """
    path = f"{_join(base_path, config.timeline_dir)}/{instant.file_name}"
    return _read_file(fs, path, missing=f"{path}: instant file not found")


def list_archived_instants(fs: pafs.FileSystem, base_path: str, config: TableConfig) -> list[InstantFile]:
    """The instants of the archived timeline, in timeline order (see :func:`read_archived_instants`)."""
    return [instant for instant, _ in read_archived_instants(fs, base_path, config)]


def read_archived_instants(
    fs: pafs.FileSystem, base_path: str, config: TableConfig
) -> list[tuple[InstantFile, bytes]]:
    """The archived timeline with each instant's metadata, in timeline order.

    Table versions 8+ keep it as an LSM tree in ``<timeline>/history``: ``_version_`` names the latest
    ``manifest_<N>``, a JSON list of the live parquet files, whose rows are ``HoodieLSMTimelineInstant``
    (``instantTime``, ``completionTime``, ``action``, ``metadata``: the completed instant file's bytes).
    Earlier versions keep ``.hoodie/archived/.commits_.archive.<N>_<token>``: Hudi log files of Avro
    blocks of ``HoodieArchivedMetaEntry`` records, whose metadata comes back as the JSON of the
    record's metadata field. Both decode with :func:`hudi_catalog.hudi.metadata.decode_instant`.

    Raises:
        HudiMetadataError: a manifest, parquet or archive file is malformed.
    """
    if config.version >= FIRST_LAYOUT_2_VERSION:
        entries = list(_lsm_timeline(fs, base_path, config))
    else:
        entries = list(_archive_log_timeline(fs, base_path, config))
    entries.sort(key=lambda entry: entry[0].sort_key())
    return entries


# -- active timeline helpers ------------------------------------------------------------------------


def _join(base_path: str, relative: str) -> str:
    return f"{base_path.rstrip('/')}/{relative}"


def _list_dir(fs: pafs.FileSystem, path: str) -> list[pafs.FileInfo]:
    try:
        return fs.get_file_info(pafs.FileSelector(path, allow_not_found=True))
    except OSError as e:
        raise StorageError(f"cannot list {path}: {e}") from e


def _read_file(fs: pafs.FileSystem, path: str, missing: str) -> bytes:
    try:
        with fs.open_input_stream(path) as stream:
            return stream.read()
    except FileNotFoundError as e:
        raise HudiMetadataError(missing) from e
    except OSError as e:
        raise StorageError(f"cannot read {path}: {e}") from e


def _mtime_instant_time(mtime_ns: int, zone: str) -> str:
    """A modification time as an instant time (``yyyyMMddHHmmssSSS``) in ``zone`` (``UTC`` or local)."""
    seconds, millis = divmod(mtime_ns // 1_000_000, 1000)
    moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    if zone != "UTC":
        moment = moment.astimezone()
    return moment.strftime("%Y%m%d%H%M%S") + f"{millis:03d}"


# -- LSM timeline (table versions 8+) ---------------------------------------------------------------

_VERSION_FILE = "_version_"
_MANIFEST = re.compile(r"manifest_(\d+)")
_LSM_COLUMNS = ["instantTime", "completionTime", "action", "metadata"]


def _lsm_timeline(fs: pafs.FileSystem, base_path: str, config: TableConfig) -> Iterator[tuple[InstantFile, bytes]]:
    history = _join(base_path, config.history_dir)
    version = _lsm_snapshot_version(fs, history)
    if version is None:
        return
    manifest_path = f"{history}/manifest_{version}"
    try:
        manifest = json.loads(_read_file(fs, manifest_path, missing=f"{manifest_path}: manifest not found"))
        file_names = sorted(entry["fileName"] for entry in manifest.get("files") or [])
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise HudiMetadataError(f"{manifest_path}: malformed LSM timeline manifest: {e}") from e
    for file_name in file_names:
        path = f"{history}/{file_name}"
        container = f"{config.history_dir}/{file_name}"
        for row in _parquet_rows(fs, path):
            requested, completion, action = row["instantTime"], row["completionTime"], row["action"]
            if not requested or not action:
                raise HudiMetadataError(f"{path}: archived instant without instantTime or action")
            name = instant_file_name(requested, action, State.COMPLETED, config.version, completion)
            yield (InstantFile(requested, action, State.COMPLETED, completion, f"{container}#{name}"),
                   row["metadata"] or b"")


def _lsm_snapshot_version(fs: pafs.FileSystem, history: str) -> int | None:
    """The latest snapshot: ``_version_``, or else the highest ``manifest_<N>``; ``None`` if there is none."""
    version_path = f"{history}/{_VERSION_FILE}"
    try:
        with fs.open_input_stream(version_path) as stream:
            return int(stream.read().decode("utf-8").strip())
    except (FileNotFoundError, ValueError):  # UnicodeDecodeError is a ValueError
        log.debug("%s: missing or unreadable, falling back to the manifest listing", version_path)
    versions = [int(m.group(1)) for info in _list_dir(fs, history) if (m := _MANIFEST.fullmatch(info.base_name))]
    return max(versions, default=None)


def _parquet_rows(fs: pafs.FileSystem, path: str) -> list[dict]:
    try:
        with fs.open_input_file(path) as source:
            return pq.ParquetFile(source).read(columns=_LSM_COLUMNS).to_pylist()
    except FileNotFoundError as e:
        raise HudiMetadataError(f"{path}: LSM timeline file listed in the manifest is missing") from e
    except (OSError, ValueError, KeyError) as e:  # pyarrow reports corrupt parquet as OSError/ArrowInvalid
        raise HudiMetadataError(f"{path}: unreadable LSM timeline file: {e}") from e


# -- archived timeline (table versions before 8): Hudi log files of Avro blocks ----------------------

_ARCHIVE_FILE = re.compile(r"\.commits_\.archive\.(\d+)(?:_.*)?")
_LOG_MAGIC = b"#HUDI#"
_AVRO_DATA_BLOCK = 3
_SCHEMA_HEADER = 2
# The fields of HoodieArchivedMetaEntry that may hold an instant's metadata (one is set per record).
_ARCHIVED_METADATA_FIELDS = (
    "hoodieCommitMetadata", "hoodieReplaceCommitMetadata", "hoodieRequestedReplaceMetadata",
    "hoodieCleanMetadata", "hoodieCleanerPlan", "hoodieRollbackMetadata", "hoodieRestoreMetadata",
    "hoodieSavePointMetadata", "hoodieCompactionPlan", "hoodieIndexCommitMetadata", "hoodieIndexPlan",
)


def _archive_log_timeline(
    fs: pafs.FileSystem, base_path: str, config: TableConfig
) -> Iterator[tuple[InstantFile, bytes]]:
    archive = _join(base_path, config.archive_dir)
    files = sorted(
        (int(m.group(1)), info.base_name)
        for info in _list_dir(fs, archive)
        if info.type == pafs.FileType.File and (m := _ARCHIVE_FILE.fullmatch(info.base_name))
    )
    for _, file_name in files:
        path = f"{archive}/{file_name}"
        container = f"{config.archive_dir}/{file_name}"
        data = _read_file(fs, path, missing=f"{path}: archive file vanished")
        for record in _archived_records(data, path):
            yield _archived_entry(record, container, path, config.version)


def _archived_entry(record: dict, container: str, path: str, table_version: int) -> tuple[InstantFile, bytes]:
    requested, action = record.get("commitTime"), record.get("actionType")
    if not requested or not action:
        raise HudiMetadataError(f"{path}: archived entry without commitTime or actionType")
    try:
        state = State((record.get("actionState") or "COMPLETED").lower())
    except ValueError as e:
        raise HudiMetadataError(f"{path}: archived entry {requested} has state {record['actionState']!r}") from e
    metadata = next((record[f] for f in _ARCHIVED_METADATA_FIELDS if record.get(f) is not None), None)
    name = instant_file_name(requested, action, state, table_version)
    content = b"" if metadata is None else json.dumps(metadata, default=_json_bytes).encode("utf-8")
    return InstantFile(requested, action, state, None, f"{container}#{name}"), content


def _json_bytes(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("latin-1")
    raise TypeError(f"cannot encode {type(value).__name__}")


def _archived_records(data: bytes, path: str) -> Iterator[dict]:
    """The records of every Avro data block of a Hudi log file."""
    for block_type, header, content in _log_blocks(data, path):
        if block_type != _AVRO_DATA_BLOCK:
            log.debug("%s: skipping log block of type %d", path, block_type)
            continue
        if _SCHEMA_HEADER not in header:
            raise HudiMetadataError(f"{path}: Avro log block without a schema")
        try:
            schema = fastavro.parse_schema(json.loads(header[_SCHEMA_HEADER]))
            yield from _avro_block_records(content, schema)
        except HudiMetadataError:
            raise
        except Exception as e:  # fastavro raises many types for bad schemas and truncated data
            raise HudiMetadataError(f"{path}: corrupt Avro log block: {e}") from e


def _avro_block_records(content: bytes, schema: dict) -> Iterator[dict]:
    """Records of an Avro data block: a version, a record count (block versions 2+; version 1 runs to the
    end of the content), then each record as a 4-byte length and its schemaless Avro encoding."""
    stream = io.BytesIO(content)
    (version,) = struct.unpack(">i", _exactly(stream, 4))
    if version >= 2:
        (count,) = struct.unpack(">i", _exactly(stream, 4))
        for _ in range(count):
            yield _framed_record(stream, schema)
    else:
        while stream.tell() < len(content):
            yield _framed_record(stream, schema)


def _framed_record(stream: io.BytesIO, schema: dict) -> dict:
    (length,) = struct.unpack(">i", _exactly(stream, 4))
    return fastavro.schemaless_reader(io.BytesIO(_exactly(stream, length)), schema)


def _log_blocks(data: bytes, path: str) -> Iterator[tuple[int, dict[int, str], bytes]]:
    """(block type, header, content) of each block of a Hudi log file (log format version 1)."""
    stream = io.BytesIO(data)
    while stream.tell() < len(data):
        start = stream.tell()
        try:
            if stream.read(len(_LOG_MAGIC)) != _LOG_MAGIC:
                raise HudiMetadataError(f"{path}: no log block at byte {start}")
            (block_length,) = struct.unpack(">q", _exactly(stream, 8))
            end = stream.tell() + block_length
            if end > len(data):
                raise HudiMetadataError(f"{path}: log block at byte {start} is truncated")
            format_version, block_type = struct.unpack(">ii", _exactly(stream, 8))
            if format_version != 1:
                raise HudiMetadataError(f"{path}: unsupported log format version {format_version}")
            header = _block_metadata(stream)
            (content_length,) = struct.unpack(">q", _exactly(stream, 8))
            content = _exactly(stream, content_length)
        except (EOFError, UnicodeDecodeError) as e:
            raise HudiMetadataError(f"{path}: log block at byte {start} is truncated or corrupt") from e
        yield block_type, header, content
        stream.seek(end)


def _block_metadata(stream: io.BytesIO) -> dict[int, str]:
    (count,) = struct.unpack(">i", _exactly(stream, 4))
    metadata = {}
    for _ in range(count):
        key, length = struct.unpack(">ii", _exactly(stream, 8))
        metadata[key] = _exactly(stream, length).decode("utf-8")
    return metadata


def _exactly(stream: io.BytesIO, size: int) -> bytes:
    chunk = stream.read(size)
    if size < 0 or len(chunk) != size:
        raise EOFError(f"wanted {size} bytes, got {len(chunk)}")
    return chunk
