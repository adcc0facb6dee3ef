"""Manifests and manifest lists: Avro files the view writes record by record (``manifest_codec.py``) into
containers of its own (``avro_file.py``), so that a commit copies what it does not change as bytes.

A manifest holds entries of one Hudi partition's data files; its Avro file metadata carries the table schema,
the partition spec, the format version and the content (``data``). A manifest list is written in blocks, one
per *slot* (a hash of the partition a manifest lists, chosen by the caller): a commit inflates and re-encodes
the blocks of the slots it touched and copies the others still compressed. Files the view did not write (or
wrote before it kept record lengths) are read with fastavro and re-encoded once.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any

import fastavro
from pyarrow import fs as pafs

from .avro_file import Block, read_container, write_container
from .errors import ViewMetadataError
from .manifest_codec import (
    EntryDecoder,
    ManifestCounts,
    ManifestEntry,
    decode_manifest_counts,
    encode_data_file,
    encode_entry,
    encode_file_metrics,
    encode_manifest_file,
    encode_record,
    manifest_path,
)
from .manifest_schemas import MANIFEST_FILE_SCHEMA, data_file_schema, manifest_entry_schema, partition_record
from .metadata_files import write_file
from .parquet_footer import ColumnMetrics, Footer
from .partitions import PartitionSpec
from .schema import Schema
from .serialization import to_bytes

EXISTING, ADDED, DELETED = 0, 1, 2
"""``manifest_entry.status``."""
FORMAT_VERSION = "2"
SLOTS_KEY = "hudi.manifest-list-slots"
"""Manifest list header key: the slot of each block, in file order, comma-separated."""
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class ManifestFormat:
    """What the manifests of one schema and partition spec are written and read with, worked out once (a
    commit writes a manifest per partition it touches, each with the table schema in its header)."""

    spec: PartitionSpec
    entry_schema_json: str
    """The Avro schema of ``manifest_entry`` for the spec, as the container header holds it."""
    metadata: dict[str, str]
    """The header's other keys: table schema, partition spec, format version, content."""
    partition_schema: Any
    """The ``r102`` partition record, parsed for fastavro."""


def manifest_format(schema: Schema, spec: PartitionSpec) -> ManifestFormat:
    metadata = {
        "schema": json.dumps(schema.to_json()),
        "schema-id": str(schema.schema_id),
        "partition-spec": json.dumps(spec.to_json()["fields"]),
        "partition-spec-id": str(spec.spec_id),
        "format-version": FORMAT_VERSION,
        "content": "data",
    }
    partition_schema = _parsed(json.dumps(partition_record(spec), sort_keys=True))
    return ManifestFormat(spec, _schema_json(manifest_entry_schema(spec)), metadata, partition_schema)


def encode_partition(manifests: ManifestFormat, values: dict[str, Any]) -> bytes:
    """The ``partition`` record (``r102``) of a file with partition ``values`` (physical form)."""
    return encode_record(values, manifests.partition_schema)


@dataclass(frozen=True, slots=True)
class AddedFile:
    """A new Parquet base file as its manifest entry needs it once its footer is let go: record count, size and
    the rest of its ``data_file`` record after the partition (metrics, split offsets), encoded."""

    record_count: int
    file_size: int
    file_metrics: bytes


def added_file(footer: Footer, metrics: ColumnMetrics) -> AddedFile:
    """What the ``ADDED`` entry of a Parquet base file takes from its footer and column ``metrics``."""
    columns = (
        metrics.column_sizes,
        metrics.value_counts,
        metrics.null_value_counts,
        metrics.lower_bounds,
        metrics.upper_bounds,
    )
    encoded = encode_file_metrics(footer.record_count, footer.file_size, columns, footer.split_offsets())
    return AddedFile(footer.record_count, footer.file_size, encoded)


def added_entry(path: str, partition: bytes, added: AddedFile, snapshot_id: int) -> ManifestEntry:
    """The ``ADDED`` entry of a Parquet base file (its sequence numbers inherited from the manifest)."""
    record = encode_data_file(path, partition, added.file_metrics)
    return ManifestEntry(ADDED, snapshot_id, None, None, path, added.record_count, added.file_size, record)


def write_manifest(
    fs: pafs.FileSystem,
    path: str,
    entries: Sequence[ManifestEntry],
    carried: Carried,
    manifests: ManifestFormat,
) -> int:
    """Write a data manifest of ``entries`` then the ``carried`` ones; returns its length in bytes."""
    block = Block.encode([encode_entry(entry) for entry in entries] + carried.records)
    return write_file(fs, path, write_container(manifests.entry_schema_json, manifests.metadata, [block]))


def read_manifest(fs: pafs.FileSystem, path: str, manifests: ManifestFormat, partition: bytes) -> list[ManifestEntry]:
    """The entries of a manifest of one partition (``partition``: its encoded record).

    Raises:
        ViewMetadataError: the manifest is missing or not an Avro file.
    """
    decoder, records = read_manifest_records(fs, path, manifests, partition)
    return [decoder.decode(raw) for raw in records]


def read_manifest_records(
    fs: pafs.FileSystem, path: str, manifests: ManifestFormat, partition: bytes
) -> tuple[EntryDecoder, list[bytes]]:
    """The entries of a manifest of one partition as encoded records, and a decoder for them.

    Raises:
        ViewMetadataError: the manifest is missing or not an Avro file.
    """
    data = _read(fs, path)
    container = read_container(data)
    decoder = EntryDecoder(partition, manifests.partition_schema)
    if container.blocks is None:
        spec = manifests.spec
        return decoder, [encode_entry(_entry_from_dict(record, spec)) for record in _decoded(path, data)]
    return decoder, [raw for block in container.blocks for raw in block.records()]


@dataclass
class Carried:
    """Live entries copied into a rewritten manifest as they were encoded (only their header made explicit),
    with what its manifest list entry needs of them: they are not decoded."""

    records: list[bytes] = field(default_factory=list)
    files: int = 0
    rows: int = 0
    min_sequence_number: int | None = None

    def add(self, files: int, rows: int, min_sequence_number: int) -> None:
        self.files += files
        self.rows += rows
        if self.min_sequence_number is None or min_sequence_number < self.min_sequence_number:
            self.min_sequence_number = min_sequence_number


class ListedManifest:
    """One manifest of a manifest list: its ``manifest_file`` record as bytes, decoded when asked."""

    __slots__ = ("raw", "_path", "_counts")

    def __init__(self, raw: bytes, counts: ManifestCounts | None = None) -> None:
        self.raw = raw
        self._path: str | None = counts.manifest_path if counts is not None else None
        self._counts = counts

    @property
    def path(self) -> str:
        if self._path is None:
            self._path = manifest_path(self.raw)
        return self._path

    @property
    def counts(self) -> ManifestCounts:
        if self._counts is None:
            self._counts = decode_manifest_counts(self.raw)
        return self._counts

    @property
    def live_files(self) -> int:
        return self.counts.added_files_count + self.counts.existing_files_count


def manifest_file(
    path: str,
    length: int,
    spec: PartitionSpec,
    partition: dict[str, Any],
    entries: Iterable[ManifestEntry],
    carried: Carried,
    snapshot_id: int,
    sequence_number: int,
) -> ListedManifest:
    """The manifest list's entry of a manifest this snapshot wrote, its files all in ``partition``."""
    counts = {status: [0, 0] for status in (EXISTING, ADDED, DELETED)}
    counts[EXISTING] = [carried.files, carried.rows]
    live = [] if carried.min_sequence_number is None else [carried.min_sequence_number]
    for entry in entries:
        counts[entry.status][0] += 1
        counts[entry.status][1] += entry.record_count
        if entry.status != DELETED:
            live.append(entry.sequence_number if entry.sequence_number is not None else sequence_number)
    record = ManifestCounts(
        manifest_path=path,
        manifest_length=length,
        partition_spec_id=spec.spec_id,
        content=0,
        sequence_number=sequence_number,
        min_sequence_number=min(live, default=sequence_number),
        added_snapshot_id=snapshot_id,
        added_files_count=counts[ADDED][0],
        existing_files_count=counts[EXISTING][0],
        deleted_files_count=counts[DELETED][0],
        added_rows_count=counts[ADDED][1],
        existing_rows_count=counts[EXISTING][1],
        deleted_rows_count=counts[DELETED][1],
    )
    return ListedManifest(encode_manifest_file(record, _field_summaries(spec, [partition])), record)


class ManifestList:
    """A manifest list as read: its blocks by slot, each split into its manifests only when asked.

    Args:
        blocks: slot -> the block of the manifests of that slot.
        sync: the file's sync marker (a list derived from this one reuses it, to copy its blocks).
    """

    def __init__(self, blocks: dict[int, Block], sync: bytes | None) -> None:
        self.blocks = blocks
        self.sync = sync

    def manifests(self, slot: int) -> list[ListedManifest]:
        block = self.blocks.get(slot)
        return [ListedManifest(raw) for raw in block.records()] if block is not None else []


def write_manifest_list(
    fs: pafs.FileSystem,
    path: str,
    manifests: ManifestList,
    snapshot_id: int,
    parent_id: int | None,
    sequence_number: int,
) -> None:
    """Write a snapshot's manifest list: ``manifests``' blocks in slot order, sharing its sync marker."""
    slots = sorted(slot for slot, block in manifests.blocks.items() if block.count)
    metadata = {
        "snapshot-id": str(snapshot_id),
        "parent-snapshot-id": "null" if parent_id is None else str(parent_id),
        "sequence-number": str(sequence_number),
        "format-version": FORMAT_VERSION,
        SLOTS_KEY: ",".join(str(slot) for slot in slots),
    }
    blocks = [manifests.blocks[slot] for slot in slots]
    write_file(fs, path, write_container(_schema_json(MANIFEST_FILE_SCHEMA), metadata, blocks, manifests.sync))


def read_manifest_list(fs: pafs.FileSystem, path: str, slot_of: Callable[[str], int]) -> ManifestList:
    """A manifest list; ``slot_of`` gives a manifest's slot from its path (for lists the view did not write in
    slots).

    Raises:
        ViewMetadataError: the manifest list is missing or not an Avro file.
    """
    data = _read(fs, path)
    container = read_container(data)
    slots_text = container.metadata.get(SLOTS_KEY)
    if container.blocks is not None and slots_text is not None:
        slots = [int(slot) for slot in slots_text.split(",")] if slots_text else []
        if len(slots) != len(container.blocks):
            raise ViewMetadataError(f"{path}: its slots do not match its blocks")
        return ManifestList(dict(zip(slots, container.blocks)), container.sync)
    schema = _parsed(_schema_json(MANIFEST_FILE_SCHEMA))
    by_slot: dict[int, list[bytes]] = {}
    for record in _decoded(path, data):
        by_slot.setdefault(slot_of(record["manifest_path"]), []).append(encode_record(record, schema))
    return ManifestList({slot: Block.encode(raws) for slot, raws in by_slot.items()}, None)


def manifest_list_paths(fs: pafs.FileSystem, path: str, seen_blocks: dict[bytes, list[str]] | None = None) -> list[str]:
    """The paths of the manifests a manifest list lists. ``seen_blocks`` (compressed block -> its paths) is
    filled and consulted across calls: a list derived from another copies most of its blocks as they were, so
    the lists of a view's consecutive snapshots are inflated only where they differ.

    Raises:
        ViewMetadataError: the manifest list is missing or not an Avro file.
    """
    data = _read(fs, path)
    container = read_container(data)
    if container.blocks is None:
        return [record["manifest_path"] for record in _decoded(path, data)]
    seen = {} if seen_blocks is None else seen_blocks
    paths: list[str] = []
    for block in container.blocks:
        listed = seen.get(block.compressed)
        if listed is None:
            listed = seen[block.compressed] = [manifest_path(raw) for raw in block.records()]
        paths.extend(listed)
    return paths


def _field_summaries(
    spec: PartitionSpec, partitions: Iterable[dict[str, Any]]
) -> list[tuple[bool, bool, bytes | None, bytes | None]]:
    """Each partition field's (contains null, contains NaN, lower bound, upper bound) over ``partitions``."""
    values: dict[str, list[Any]] = {f.name: [] for f in spec.fields}
    for partition in partitions:
        for name in values:
            values[name].append(partition.get(name))
    summaries = []
    for f in spec.fields:
        present = [v for v in values[f.name] if v is not None]
        floating = f.source_type in ("float", "double")
        nans = [v for v in present if floating and v != v]
        ordered = [v for v in present if not (floating and v != v)]
        summaries.append(
            (
                len(present) < len(values[f.name]),
                bool(nans),
                to_bytes(f.source_type, min(ordered)) if ordered else None,
                to_bytes(f.source_type, max(ordered)) if ordered else None,
            )
        )
    return summaries


def _entry_from_dict(record: dict[str, Any], spec: PartitionSpec) -> ManifestEntry:
    """An entry read by fastavro, its ``data_file`` re-encoded (partition values back in physical form)."""
    data = record["data_file"]
    data["partition"] = {name: _physical(value) for name, value in data["partition"].items()}
    return ManifestEntry(
        record["status"],
        record["snapshot_id"],
        record["sequence_number"],
        record["file_sequence_number"],
        data["file_path"],
        data["record_count"],
        data["file_size_in_bytes"],
        encode_record(data, _parsed(json.dumps(data_file_schema(spec), sort_keys=True))),
    )


def _physical(value: Any) -> Any:
    """A partition value as Iceberg's physical form (fastavro reads dates and timestamps as objects)."""
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return (moment - _EPOCH) // datetime.resolution
    if isinstance(value, date):
        return (value - _EPOCH.date()).days
    return value


def _schema_json(schema: dict[str, Any]) -> str:
    return json.dumps(schema, sort_keys=True)


@functools.lru_cache(maxsize=64)
def _parsed(schema_json: str) -> Any:
    """A schema parsed for fastavro (parsing costs more than encoding a few records; schemas repeat)."""
    return fastavro.parse_schema(json.loads(schema_json))


def _read(fs: pafs.FileSystem, path: str) -> bytes:
    try:
        with fs.open_input_stream(path) as stream:
            return stream.read()
    except FileNotFoundError as e:
        raise ViewMetadataError(f"{path} not found") from e
    except OSError as e:
        raise ViewMetadataError(f"cannot read {path}: {e}") from e


def _decoded(path: str, data: bytes) -> list[dict[str, Any]]:
    """The records of the Avro file ``path`` (its bytes: ``data``), decoded by fastavro (files the view did not
    write in its own way)."""
    try:
        reader = fastavro.reader(io.BytesIO(data))
        return [record for record in reader if isinstance(record, dict)]
    except ValueError as e:
        raise ViewMetadataError(f"cannot read {path}: {e}") from e
