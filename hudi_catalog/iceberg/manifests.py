"""Manifests and manifest lists: Avro files written and read with fastavro.

A manifest holds the entries of one Hudi partition's data files (the view keeps one manifest per partition);
its Avro file metadata carries the table schema, the partition spec, the format version and the content
(``data``). Entries are Avro records as fastavro writes and reads them; partition values are kept in
Iceberg's physical form (days, microseconds), whatever the Avro reader turned them into.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Iterable
from datetime import date, datetime, timezone
from typing import Any

import fastavro
from pyarrow import fs as pafs

from .errors import ViewMetadataError
from .manifest_schemas import MANIFEST_FILE_SCHEMA, manifest_entry_schema
from .parquet_footer import ColumnMetrics, Footer
from .partitions import PartitionSpec
from .schema import Schema
from .serialization import to_bytes

EXISTING, ADDED, DELETED = 0, 1, 2
"""``manifest_entry.status``."""
FORMAT_VERSION = "2"
_CODEC = "deflate"
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def data_file(path: str, partition: dict[str, Any], footer: Footer, metrics: ColumnMetrics) -> dict[str, Any]:
    """The ``data_file`` record of a Parquet base file."""
    return {
        "content": 0,
        "file_path": path,
        "file_format": "PARQUET",
        "partition": partition,
        "record_count": footer.record_count,
        "file_size_in_bytes": footer.file_size,
        "column_sizes": _int_map(metrics.column_sizes),
        "value_counts": _int_map(metrics.value_counts),
        "null_value_counts": _int_map(metrics.null_value_counts),
        "nan_value_counts": None,
        "lower_bounds": _int_map(metrics.lower_bounds),
        "upper_bounds": _int_map(metrics.upper_bounds),
        "key_metadata": None,
        "split_offsets": footer.split_offsets(),
        "equality_ids": None,
        "sort_order_id": None,
    }


def write_manifest(
    fs: pafs.FileSystem, path: str, entries: list[dict[str, Any]], schema: Schema, spec: PartitionSpec
) -> int:
    """Write a data manifest; returns its length in bytes."""
    metadata = {
        "schema": json.dumps(schema.to_json()),
        "schema-id": str(schema.schema_id),
        "partition-spec": json.dumps(spec.to_json()["fields"]),
        "partition-spec-id": str(spec.spec_id),
        "format-version": FORMAT_VERSION,
        "content": "data",
    }
    return _write(fs, path, manifest_entry_schema(spec), entries, metadata)


def read_manifest(fs: pafs.FileSystem, path: str) -> list[dict[str, Any]]:
    """The entries of a manifest, partition values in physical form.

    Raises:
        ViewMetadataError: the manifest is missing or not an Avro file.
    """
    entries = _read(fs, path)
    for entry in entries:
        partition = entry["data_file"]["partition"]
        for name, value in partition.items():
            partition[name] = _physical(value)
    return entries


def manifest_file(
    path: str,
    length: int,
    spec: PartitionSpec,
    entries: list[dict[str, Any]],
    snapshot_id: int,
    sequence_number: int,
) -> dict[str, Any]:
    """The manifest list's entry of a manifest this snapshot wrote."""
    counts = {status: [0, 0] for status in (EXISTING, ADDED, DELETED)}
    for entry in entries:
        counts[entry["status"]][0] += 1
        counts[entry["status"]][1] += entry["data_file"]["record_count"]
    live = [e["sequence_number"] for e in entries if e["status"] != DELETED]
    return {
        "manifest_path": path,
        "manifest_length": length,
        "partition_spec_id": spec.spec_id,
        "content": 0,
        "sequence_number": sequence_number,
        "min_sequence_number": min((s if s is not None else sequence_number for s in live), default=sequence_number),
        "added_snapshot_id": snapshot_id,
        "added_files_count": counts[ADDED][0],
        "existing_files_count": counts[EXISTING][0],
        "deleted_files_count": counts[DELETED][0],
        "added_rows_count": counts[ADDED][1],
        "existing_rows_count": counts[EXISTING][1],
        "deleted_rows_count": counts[DELETED][1],
        "partitions": _field_summaries(spec, (e["data_file"]["partition"] for e in entries)),
        "key_metadata": None,
    }


def write_manifest_list(
    fs: pafs.FileSystem,
    path: str,
    manifests: list[dict[str, Any]],
    snapshot_id: int,
    parent_id: int | None,
    sequence_number: int,
) -> None:
    """Write a snapshot's manifest list."""
    metadata = {
        "snapshot-id": str(snapshot_id),
        "parent-snapshot-id": "null" if parent_id is None else str(parent_id),
        "sequence-number": str(sequence_number),
        "format-version": FORMAT_VERSION,
    }
    _write(fs, path, MANIFEST_FILE_SCHEMA, manifests, metadata)


def read_manifest_list(fs: pafs.FileSystem, path: str) -> list[dict[str, Any]]:
    """The entries of a manifest list.

    Raises:
        ViewMetadataError: the manifest list is missing or not an Avro file.
    """
    return _read(fs, path)


def _int_map(values: dict[int, Any]) -> list[dict[str, Any]]:
    return [{"key": key, "value": value} for key, value in sorted(values.items())]


def _field_summaries(spec: PartitionSpec, partitions: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
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
            {
                "contains_null": len(present) < len(values[f.name]),
                "contains_nan": bool(nans),
                "lower_bound": to_bytes(f.source_type, min(ordered)) if ordered else None,
                "upper_bound": to_bytes(f.source_type, max(ordered)) if ordered else None,
            }
        )
    return summaries


def _physical(value: Any) -> Any:
    """A partition value as Iceberg's physical form (fastavro reads dates and timestamps as objects)."""
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return (moment - _EPOCH) // datetime.resolution
    if isinstance(value, date):
        return (value - _EPOCH.date()).days
    return value


@functools.lru_cache(maxsize=64)
def _parsed(schema_json: str) -> Any:
    """A manifest or manifest list schema parsed for fastavro (parsing costs more than writing a small
    manifest; the schemas repeat for every manifest of a partition spec)."""
    return fastavro.parse_schema(json.loads(schema_json))


def _write(
    fs: pafs.FileSystem, path: str, schema: dict[str, Any], records: list[dict[str, Any]], metadata: dict[str, str]
) -> int:
    buffer = io.BytesIO()
    fastavro.writer(buffer, _parsed(json.dumps(schema, sort_keys=True)), records, codec=_CODEC, metadata=metadata)
    data = buffer.getvalue()
    with fs.open_output_stream(path) as out:
        out.write(data)
    return len(data)


def _read(fs: pafs.FileSystem, path: str) -> list[dict[str, Any]]:
    try:
        with fs.open_input_stream(path) as stream:
            return [record for record in fastavro.reader(io.BytesIO(stream.read())) if isinstance(record, dict)]
    except FileNotFoundError as e:
        raise ViewMetadataError(f"{path} not found") from e
    except (OSError, ValueError) as e:
        raise ViewMetadataError(f"cannot read {path}: {e}") from e
