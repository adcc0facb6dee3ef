"""The archived timeline of table versions before 8: ``.hoodie/archived/.commits_.archive.<N>_<token>``.

Each archive file is a Hudi log file (log format version 1): blocks of ``#HUDI#``, the block length, the
format version, the block type, a header, the content and a footer. Avro data blocks (type 3) carry their
schema in the header and ``HoodieArchivedMetaEntry`` records in the content; each record sets one metadata
field, returned here as its JSON so that :func:`hudi_catalog.hudi.metadata.decode_instant` reads it as it
reads a layout 1 instant file.
"""

from __future__ import annotations

import io
import json
import logging
import re
import struct
from collections.abc import Iterator

import fastavro
from fastavro.types import Schema
from pyarrow import fs as pafs

from ..errors import HudiMetadataError
from ..model import Action, InstantState
from .instant_files import InstantFile, instant_file_name
from .properties import TableConfig
from .storage import join, list_dir, read_file

log = logging.getLogger(__name__)

_ARCHIVE_FILE = re.compile(r"\.commits_\.archive\.(\d+)(?:_.*)?")
_LOG_MAGIC = b"#HUDI#"
_AVRO_DATA_BLOCK = 3
_SCHEMA_HEADER = 2
# The fields of HoodieArchivedMetaEntry that may hold an instant's metadata (one is set per record).
_ARCHIVED_METADATA_FIELDS = (
    "hoodieCommitMetadata",
    "hoodieReplaceCommitMetadata",
    "hoodieRequestedReplaceMetadata",
    "hoodieCleanMetadata",
    "hoodieCleanerPlan",
    "hoodieRollbackMetadata",
    "hoodieRestoreMetadata",
    "hoodieSavePointMetadata",
    "hoodieCompactionPlan",
    "hoodieIndexCommitMetadata",
    "hoodieIndexPlan",
)


def read_archived_log(fs: pafs.FileSystem, base_path: str, config: TableConfig) -> Iterator[tuple[InstantFile, bytes]]:
    """Each archived instant state with its metadata, in archive file order (by ``<N>``), then record order.
    An instant's ``file_name`` is ``<archive dir>/<archive file>#<its active-timeline name>``.

    Raises:
        HudiMetadataError: an archive file is truncated or corrupt, or a record lacks its instant.
        StorageError: the file system failed.
    """
    archive = join(base_path, config.archive_dir)
    files = sorted(
        (int(m.group(1)), info.base_name)
        for info in list_dir(fs, archive)
        if info.type == pafs.FileType.File and (m := _ARCHIVE_FILE.fullmatch(info.base_name))
    )
    for _, file_name in files:
        path = f"{archive}/{file_name}"
        container = f"{config.archive_dir}/{file_name}"
        data = read_file(fs, path, missing=f"{path}: archive file vanished")
        for record in _archived_records(data, path):
            entry = _archived_entry(record, container, path, config.version)
            if entry is not None:
                yield entry


def _archived_entry(record: dict, container: str, path: str, table_version: int) -> tuple[InstantFile, bytes] | None:
    """The instant and metadata of one archived record; ``None`` (skipped) for an action Hudi does not have."""
    requested, action_name = record.get("commitTime"), record.get("actionType")
    if not requested or not action_name:
        raise HudiMetadataError(f"{path}: archived entry without commitTime or actionType")
    try:
        action = Action(action_name)
    except ValueError:
        log.warning("%s: skipping archived instant %s of unknown action %r", path, requested, action_name)
        return None
    try:
        state = InstantState((record.get("actionState") or "COMPLETED").lower())
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


def _avro_block_records(content: bytes, schema: Schema) -> Iterator[dict]:
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


def _framed_record(stream: io.BytesIO, schema: Schema) -> dict:
    (length,) = struct.unpack(">i", _exactly(stream, 4))
    record = fastavro.schemaless_reader(io.BytesIO(_exactly(stream, length)), schema)
    if not isinstance(record, dict):
        raise ValueError(f"an archived entry is a record, not {type(record).__name__}")
    return record


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
